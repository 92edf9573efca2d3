"""CUBIC's response function (RFC 9438, Section 5) against a Cubic flow in packets.

``cubic-response`` (issue 35): one :class:`~qosmodels.mechanisms.Cubic` flow over one
link that drops each packet independently with probability ``p``
(:class:`~qosmodels.mechanisms.RandomLoss`), over a grid of ``p`` and round-trip
times.  Per grid point, one row:

* **reference**: RFC 9438's response function written out here, the larger of the
  cubic profile's average window under deterministic loss (eq. 5, ``((C (3 + beta)) /
  (4 (1 - beta)))^(1/4) (RTT / p)^(3/4)``) and the Reno-friendly estimate's AIMD
  average (eq. 3 with ``alpha_cubic``: ``sqrt(3 / (2 p))``), segments;
* **theory**: :func:`qosmodels.cubic.response_window`;
* **packets**: the flow's average window, the packets it sends per second (the
  arrivals at the lossy link, the lost ones and the retransmissions included) times the
  round-trip time, the mean over seeds: RFC 9438's ``AVG_W = (1/p) / (K / RTT)``
  (Appendix B) counts "the total number of packets between two successive packet
  losses", every packet sent, per round trip.  (The delivered packets, used before 27
  Nov 2026, are ``1 - p`` of them and more: 1 % fewer at ``p = 0.01``.)

and a second row with the formula's own loss model, one loss in every ``1/p`` packets
(``RandomLoss(p, periodic=True)``, no randomness, one run).

The link is fast (1 Gb/s, 8 us per packet) and its buffer never fills, so the round-trip
time is the propagation delay (plus one packet's transmission) and every loss is the
random one.  ``Cubic(fast_convergence=False)``: RFC 9438, Section 4.7, "In network
environments with only a single CUBIC flow and without any other traffic, Fast
Convergence SHOULD be disabled"; the other fields are the RFC's defaults (``C = 0.4``,
``beta = 0.7``, the Reno-friendly region on); ``max_window`` is raised out of the way.

The response function is derived for **deterministic** loss, one loss every ``1/p``
packets (RFC 9438, Section 5 and Appendix B), with CUBIC on one profile throughout;
``RandomLoss`` spaces losses at random and CUBIC takes the larger of ``W_cubic`` and
``W_est`` on every ACK, switching ``alpha`` to 1 once ``W_est`` passes ``cwnd_prior``.
The packets average more than the formula where that matters (measured below); those
rows carry a :class:`~qosmodels.experiments.registry.Known` difference with the
measured deviation.  A plain-Python round-based model of the same rules (in the
experiment's tests) reproduces both: the formula within 10 % under deterministic loss,
and an excess like the packets' under independent losses.

No model of the mean window under *independent* losses is used as a side: the analysis
found (S. Poojary, V. Sharma, "An Asymptotic Approximation of TCP CUBIC", arXiv:1510.08496,
the mean window from the stationary distribution of a limiting Markov chain as ``p -> 0``)
could be read here only in its abstract, so none of its numbers is taken; the
random-loss rows keep RFC 9438's deterministic-loss formula as their reference and
declare the excess.

References
----------
RFC 9438, Sections 4.3, 4.7, 5 (eq. 5-7), 5.1 and Appendix B.  S. Ha, I. Rhee, L. Xu,
"CUBIC: a new TCP-friendly high-speed TCP variant", SIGOPS OSR 42(5), 2008.
"""

from __future__ import annotations

import math

from .registry import Check, Known, Side, register

#: The grid: (loss rate p, round-trip time s).  p = 1e-4 at 0.1 s is in the cubic
#: region (187 against 122 segments), the others in the Reno-friendly one.
GRID = ((1e-2, 0.01), (1e-2, 0.1), (1e-3, 0.01), (1e-3, 0.1), (1e-4, 0.01), (1e-4, 0.1))
#: Link rate, bit/s, and packet size, bytes.
CAPACITY, PACKET = 1e9, 1000
#: (loss periods per run, seeds), full and ``--quick``: a run lasts that many mean times
#: between losses, ``RTT / (p W)``, after a tenth of it as warm-up.
RUNS = {False: (200, 5), True: (100, 3)}
#: Shortest warm-up, s.  The first slow start overshoots and loses several packets of one
#: window; NewReno's recovery can then stall until the timer, which fires at the initial
#: RTO (1 s, RFC 6298) at the earliest, and go-back-N resends what the receiver already
#: holds.  Measured at p = 0.01, RTT 0.01 s, deterministic loss: that timeout at t = 1.0 s,
#: inside the quick form's 0.8 s warm-up (a tenth of its 8 s), raised the packets sent per
#: round trip to 11.80 against 10.53 after a 2 s warm-up (the full form's 1.6 s warm-up
#: misses it too: 10.53).
WARMUP_MIN = 2.0
#: Tolerance of the packets side: the spread of the seeds' mean (about 5 % at 200 loss
#: periods and 5 seeds).
TOLERANCE = 0.10
#: The rows whose packets side is above the formula by more than :data:`TOLERANCE`: by grid
#: point, the deviation the declaration covers and what was measured (relative, packets
#: over the formula; ``measure`` with the full form's 200 periods x 5 seeds and the quick
#: form's 100 x 3, seeds 0.., packets sent per round trip, 27 Nov 2026).  The two p = 1e-2
#: rows measured +2.0 % and +3.6 % (full), +1.3 % and +2.5 % (quick): reproduced.
MEASURED = {
    (1e-3, 0.01): (0.25, "+13.5 % (full: 43.96 +- 1.03 against 38.73), +17.0 % (quick)"),
    (1e-3, 0.1): (0.40, "+25.2 % (full: 48.48 +- 0.89 against 38.73), +29.9 % (quick); "
                        "W_cubic (33.3 on average) and W_est (38.7) are close here, and "
                        "the window is their maximum at every ACK"),
    (1e-4, 0.01): (0.30, "+16.8 % (full: 143.1 +- 1.5 against 122.5), +19.1 % (quick)"),
    (1e-4, 0.1): (0.45, "+26.0 % (full: 236.1 +- 2.5 against 187.4), +34.4 % (quick)"),
}


#: The deterministic-loss rows outside :data:`TOLERANCE`: the deviation each declaration
#: covers and what was measured (``RandomLoss(p, periodic=True)``, one run; 27 Nov 2026).
#: The other four: -4.8 %, -1.8 %, -1.4 % and +7.4 % in the full form.
DETERMINISTIC = {
    (1e-2, 0.01): ("mechanism differs", 0.20,
                   "10.53 against 12.25 (-14.0 %, full and quick).  At p = 0.01 the window is "
                   "about 11 packets, and a loss cycle of 1/p = 100 packets lasts 9.50 round "
                   "trips against the formula's 8.16 (measured at RTT 0.1 s, 172 losses): 1.00 "
                   "of them in NewReno's fast recovery, where the window does not grow, and "
                   "congestion avoidance grows it by 0.481 packet per round trip against "
                   "alpha_cubic = 0.529 (W_est gains alpha/cwnd per ACK, and a window of cwnd "
                   "sends floor(cwnd) packets per round trip); the window before a loss is "
                   "13.19 against the formula's 14.41, after it 9.10 (0.7 x 13).  The round-"
                   "based model of the experiment's tests (whole packets per round, no "
                   "recovery) gives 11.11 (-9.3 %)"),
    (1e-2, 0.1): ("mechanism differs", 0.20,
                  "10.53 against 12.25 (-14.0 %, full and quick); the same cause as at RTT "
                  "0.01 s (the window, in packets, does not depend on the RTT here): 9.50 "
                  "round trips per 100-packet loss cycle against 8.16, 1.00 of them in fast "
                  "recovery, growth 0.481 packet per round trip against 0.529"),
}
#: The quick form only (100 loss periods): p = 1e-4 at 0.1 s measured 210.7 (+12.4 %), the
#: full form's 200 periods 201.2 (+7.4 %, within tolerance).
DETERMINISTIC_QUICK = {
    (1e-4, 0.1): ("short run", 0.15,
                  "210.7 against 187.4 (+12.4 %) over the quick form's 100 loss periods "
                  "(about 5300 s); the full form's 200 give 201.2 (+7.4 %), within tolerance"),
}


def reference(p: float, rtt: float, c: float = 0.4, beta: float = 0.7) -> float:
    """RFC 9438's response function, written out: max(eq. 5, ``sqrt(3 / (2 p))``), segments."""
    cubic = (c * (3.0 + beta) / (4.0 * (1.0 - beta))) ** 0.25 * (rtt / p) ** 0.75
    return max(cubic, math.sqrt(1.5 / p))


def network(p: float, rtt: float, periodic: bool = False):
    """One Cubic flow over one lossy link of round-trip time ``rtt`` (propagation): losses
    independent at rate ``p``, or one in every ``1/p`` packets (``periodic``)."""
    from ..mechanisms import Cubic, RandomLoss
    from ..network import Flow, Link, Network

    src = Cubic(fast_convergence=False, max_window=1_000_000)
    return Network([Link("a", "b", CAPACITY, rtt / 2.0, buffer=1_000_000,
                         queue=RandomLoss(p=p, periodic=periodic))],
                   [Flow(["a", "b"], packet_size=PACKET, source=src)])


def measure(p: float, rtt: float, periods: float, seeds: int,
            periodic: bool = False) -> tuple[float, float, str]:
    """The flow's average window (delivered packets per second x RTT), its mean over
    ``seeds`` runs and the half-width of its 95 % interval (NaN for one run), and the
    method text."""
    import numpy as np

    from ..sim import simulate

    w = reference(p, rtt)
    span = periods * rtt / (p * w)  # the mean time between losses is RTT / (p W)
    # the warm-up: a tenth of the run, and at least WARMUP_MIN s (the start-up's timeout)
    warmup = max(0.1 * span, WARMUP_MIN)
    base = rtt + 8.0 * PACKET / CAPACITY
    vals, delivered = [], []
    for seed in range(seeds):
        res = simulate(network(p, rtt, periodic), warmup + span, warmup=warmup, seed=seed,
                       progress=False)
        # every packet sent reaches the lossy link: its arrivals in the window
        vals.append(float(res.counters["link_arrivals_window"][0]) / span * base)
        delivered.append(float(res.delivered_packets[0]) / span * base)
    vals = np.array(vals)
    ci = 1.96 * float(vals.std(ddof=1)) / math.sqrt(seeds) if seeds > 1 else float("nan")
    method = (f"simulate: Cubic(fast_convergence=False) over RandomLoss(p={p:g}"
              f"{', periodic=True' if periodic else ''}), "
              f"{CAPACITY / 1e9:g} Gb/s, RTT {rtt:g} s; packets sent/s (arrivals at the "
              f"lossy link) x RTT over {span:.0f} s after {warmup:.0f} s warm-up, mean "
              f"of {seeds} seeds ({', '.join(f'{v:.1f}' for v in vals)}; delivered: "
              f"{float(np.mean(delivered)):.2f})")
    return float(vals.mean()), ci, method


def _known(p: float, rtt: float):
    known = MEASURED.get((p, rtt))
    if known is None:
        return None
    max_error, seen = known
    return Known("mechanism differs",
                 f"RFC 9438's formula assumes deterministic loss (one every 1/p packets) and "
                 f"one profile throughout (Section 5, Appendix B); RandomLoss drops at "
                 f"random and CUBIC follows max(W_cubic, W_est), alpha 1 past cwnd_prior. "
                 f"Measured: {seen}.  A round-based model of the same rules "
                 f"(tests/experiments/test_cubic_experiment.py) gives the formula within 10 % "
                 f"under deterministic loss, and +12 % (p = 1e-3, RTT 0.01 s) and +25 % "
                 f"(0.1 s) under independent losses", max_error, sides=("packets",))


@register("cubic-response",
          title="CUBIC's response function: the average window against the loss rate p and "
                "the RTT, RFC 9438's formula against a Cubic flow over a random-loss link",
          paper="RFC 9438, Section 5 (eq. 5-7) and Appendix B; Ha, Rhee, Xu 2008",
          sides=("theory", "packets"))
def cubic_response(*, sides, quick) -> list[Check]:
    """One row per grid point of :data:`GRID`: the average window, segments."""
    from ..cubic import response_window

    periods, seeds = RUNS[bool(quick)]
    rows = []
    for p, rtt in GRID:
        ref = reference(p, rtt)
        theory = packets = None
        if "theory" in sides:
            theory = Side(response_window(p, rtt), 1e-12,
                          method="qosmodels.cubic.response_window(p, rtt)")
        if "packets" in sides:
            value, ci, method = measure(p, rtt, periods, seeds)
            packets = Side(value, TOLERANCE, ci=ci, method=method)
        region = ("cubic" if ref > math.sqrt(1.5 / p) else "Reno-friendly")
        rows.append(Check(
            "cubic-response", f"p = {p:g}, RTT = {rtt:g} s: average window ({region} region)",
            ref, source="closed form", unit="packets", theory=theory, packets=packets,
            reference="RFC 9438: max(((C (3 + beta)) / (4 (1 - beta)))^(1/4) (RTT/p)^(3/4), "
                      "sqrt(3 / (2 p))), C = 0.4, beta = 0.7",
            note=("random loss raises the average window above the deterministic-loss "
                  "formula" if (p, rtt) in MEASURED else ""),
            known=_known(p, rtt)))
        if "packets" in sides:  # the formula's own setting: one loss in every 1/p packets
            value, _, method = measure(p, rtt, periods, 1, periodic=True)
            declared = DETERMINISTIC.get((p, rtt)) or (
                DETERMINISTIC_QUICK.get((p, rtt)) if quick else None)
            rows.append(Check(
                "cubic-response", f"p = {p:g}, RTT = {rtt:g} s, deterministic loss: average "
                                  f"window ({region} region)",
                ref, source="closed form", unit="packets",
                packets=Side(value, TOLERANCE, method=method + " (no randomness: one run)"),
                reference="RFC 9438's formula, derived for deterministic loss (Appendix B)",
                note="" if declared is None else (
                    "small windows: whole packets and the recovery round trip"
                    if declared[0] == "mechanism differs" else "the quick form's short run"),
                known=None if declared is None else Known(
                    declared[0], declared[2], declared[1], sides=("packets",))))
    return rows
