"""L4S through DualPI2: the coupling law's per-flow rate ratio, the queues' delays and the
coexistence of Prague with Reno and Cubic (RFC 9332, Section 2.1 and Appendix A).

The coupling argument (RFC 9332, Section 2.1): a Classic (Reno-like) flow's rate is
``r_C = 1.22 / (R_C sqrt(p_C))`` packets/s and a scalable (DCTCP, Prague) flow's
``r_L = 2 / (R_L p_L)``; the DualQ AQM couples ``p_C = (p_CL / k)^2`` and, while the
coupling drives the L queue, ``p_L = p_CL``, so ``sqrt(p_C) = p_L / k`` and

    ``r_C / r_L = (1.22 k / 2) (R_L / R_C)``,

which :func:`rate_ratio` writes out.  With equal round trips the ratio is ``0.61 k``:
1.22 for ``k = 2``, the RFC's default (this law's equality point is ``k = 2 / 1.22``
= 1.64).  The round trips are not equal: each queue sits at its own
operating point, the L queue about its ramp (``min_th + range / 2`` = 1 ms) and the
Classic queue at PI2's target (15 ms), so the references here (``expected``, a closed
form) take ``R_L = R_0 + 1 ms`` and ``R_C = R_0 + 15 ms``, ``R_0`` the propagation round
trip plus a packet's transmission.  The ratio is then proportional to ``k``: the bias the
law predicts for ``k != 2`` is ``ratio(k) / ratio(2) = k / 2``.

``aqm-dualpi2`` (issue 34): one :class:`~qosmodels.mechanisms.Prague` and one
:class:`~qosmodels.mechanisms.TcpNewReno` flow through one
:class:`~qosmodels.mechanisms.DualPi2` bottleneck, over the grid of :data:`GRID`
(capacity x base RTT), with ``k`` = 1, 2, 4: per grid point the ratio at ``k = 2``
against :func:`rate_ratio`, the bias ``ratio(k) / ratio(2)`` against ``k / 2`` for
``k`` = 1 and 4, the L flow's mean queueing delay against the ramp's end (at most
``min_th + range`` = 1.2 ms) and the Classic flow's against the 15 ms target.

``l4s-coexistence`` (issue 35): Prague flows with Reno (NewReno) or Cubic flows, in
several mixes, through DualPi2 with ``k = 2`` at 20 Mb/s and 20 ms: the per-flow rate
ratio (mean Classic flow over mean L flow) against :func:`rate_ratio`, within 20 %.

``l4s-rtt-independence`` (issue 35): two Prague flows of base RTTs 4.5 and 15 ms (both
below the 25 ms target) through DualPi2's L queue alone at 40 Mb/s, with ``rtt_scaling``
"none" and "rate" (Linux ``tcp_prague.c``'s RTT independence, after its 500 transition
rounds): the rate ratio of the short flow over the long one against
:func:`rtt_independence_ratio` -- ``R_long / R_short`` when RTT-dependent (``W = 2 (1 -
p) / p`` for both at a shared ``p``), ``P(R_short) / P(R_long)`` in "rate" mode, ``P(R)
= ceil(T / R) R`` the reduction period the rules give with an echo every round trip
(:func:`reduction_period`; the rate then grows by ``(1 - p) / T^2`` per second for both,
so only the reduction periods differ: the ratio is 1 only when they are equal) -- and
each flow's ``alpha`` update period against one round trip ("none") and ``max(T, R)``
("rate").  Measured (60 s, warm-up 20 s; the runs are deterministic: seeds 1-4 give the
same numbers): "none" 4.92 against 2.81 (declared: marks come in episodes, so the short
flow reduces once per 2.4 of its round trips, not each; 2.81 and ``(R_long /
R_short)^2`` = 7.9 bracket it), "rate" 0.790 against 0.890; ``alpha`` every 5.22 and
14.73 ms ("none", against 5.8 and 16.3 ms) and every 25.41 and 25.34 ms ("rate", against
25 ms).  The base RTTs keep ``T / R`` away from a whole number, where ``P(R)`` jumps:
with 5 and 20 ms (``T / R_short`` = 3.97 at ``R = R_0 + 1`` ms, 4.2 at the measured
queue) the closed form is 0.59 or 0.70 for a measured 0.729.  At 20 and 80 Mb/s the
"rate" ratio is 0.870 and 0.815 (closed form 0.919 and 0.875), "none" 8.69 and 4.92.

Measured (60 s, warm-up 10 s, seed 1; :data:`KNOWN` gives every number declared; with
DualPi2 as checked against RFC 9332 Appendix A.2 and Prague growing only on unmarked
ACKs with pacing at 100 % in congestion avoidance, as Linux ``tcp_prague.c``, both in
session 43): the rate ratio at ``k = 2`` is 1-44 % below the law at the four grid points
(0.563, 0.579, 0.409, 0.508 against 0.568, 0.916, 0.545, 0.911: the first reproduces);
the bias with ``k`` follows ``k / 2`` within 20 % at 6 of 8 points; the L queue's mean
delay is 0.14-0.61 ms, under the ramp's 1.2 ms everywhere, the Classic queue's
15.1-16.4 ms except 11.0 ms at 40 Mb/s and 40 ms.  Coexistence at 20 Mb/s, 20 ms: the
per-flow ratio is within 20 % of the law's 0.74 in five of six mixes (0.60-0.76), 28 %
below in 1 Prague + 1 Reno (0.534).  (Before, with Prague growing on every ACK and
pacing at 120 %: 25-57 % below at the grid points, 23-34 % below in all six mixes.)
Why, measured by :func:`law_terms` (each ratio row's method prints them): the
measured ratio over the law is the product of the Classic response ``W_C sqrt(p_C) /
1.22``, the scalable response ``2 / (W_L p_L)``, the coupling as realised ``p_L / (k
sqrt(p_C))`` and the RTT term, each 1 in the law, which takes ``p'`` steady.  Here ``p'``
moves with the NewReno sawtooth (coefficient of variation 0.09-2.06 over the updates), so
the realised ``p_C = E[p'^2]`` exceeds ``(p_L / k)^2`` (coupling 0.75-0.99, about ``1 /
sqrt(1 + CV^2)``, and 0.21 at 40 Mb/s x 40 ms with k = 4, where the squared drops come in
bursts of 12.7 per NewReno loss event), and the marks a Prague flow sees are not evenly
spaced (also when several L flows share the L queue's accumulator): the window reduces
at most once per round trip, so clustered marks make fewer reductions and ``W_L p_L``
is up to 2.9 (2 / (W_L p_L) = 0.69 at 40 Mb/s x 40 ms) where p_L is small; where p_L is
high (0.18-0.32, windows of 4-11 packets) Prague's growth of ``1 - p_L`` per round trip
brings ``W_L p_L`` down to 1.3-1.9.  A plain-Python replay of RFC 8257's window gives
``W p`` = 1.91-1.99 under evenly spaced marks at a steady p and 2.46-2.83 when p swings;
with Prague's rule, 1.96-1.63 at p = 0.03-0.3 (evenly spaced) and 2.31-2.64 when p
swings.  NewReno at windows of 4-17 packets gets 5-30 % less than the square-root law
(``W_C sqrt(p_C) / 1.22`` = 0.70-0.95).  Neither is near the equal-RTT 1.22 (or
"rough equality"): the Classic flows' RTT includes the 15 ms queue, which the law with
the operating points accounts for.  Scenario choices (not the RFC's): 1500-byte
packets, a buffer of 4000 packets (no overflow), one seed.

The scheduler is declared unstated in ``aqm-dualpi2`` (``scheduler``, coded 0 the
time-shifted FIFO, the default, 1 Linux's weighted round robin with a 10 % Classic weight;
:attr:`DualPi2.scheduler <qosmodels.mechanisms.DualPi2>`): RFC 9332 gives both as
examples.  ``validate aqm-dualpi2 --explore`` (seed 1): with the round robin the ratio at
``k = 2`` is 0.578, 0.583, 0.419 and 0.405 at the four grid points (0.563, 0.579, 0.409 and
0.508 with the time-shifted FIFO), so no declared ratio comes within the law's 20 %; the L
queue waits longer, 0.83, 0.71, 0.22 and 0.18 ms (0.61, 0.54, 0.15 and 0.14 ms), still under
the ramp's 1.2 ms: the round robin sends Classic packets while L packets wait, which the
time-shifted FIFO with its 50 ms shift hardly does.
"""

from __future__ import annotations

from .registry import Bounds, Check, Known, Side, Unstated, register

#: (capacity bit/s, base RTT s) of aqm-dualpi2's grid.
GRID = ((10e6, 0.01), (10e6, 0.04), (40e6, 0.01), (40e6, 0.04))
#: The coupling factors of aqm-dualpi2.
KS = (1.0, 2.0, 4.0)
#: l4s-coexistence's mixes: (label, number of Prague flows, Classic source, number).
MIXES = (("1 Prague + 1 Reno", 1, "reno", 1), ("2 Prague + 2 Reno", 2, "reno", 2),
         ("1 Prague + 4 Reno", 1, "reno", 4), ("4 Prague + 1 Reno", 4, "reno", 1),
         ("1 Prague + 1 Cubic", 1, "cubic", 1), ("2 Prague + 2 Cubic", 2, "cubic", 2))
#: l4s-coexistence's bottleneck: capacity bit/s, base RTT s.
COEX = (20e6, 0.02)
#: Packet size, bytes; buffer, packets (never reached).
PACKET, BUFFER = 1500, 4000
#: Run length and warm-up, s, full and ``--quick`` (the same: the whole form takes
#: about 13 s, and 20 s runs moved the ratios by up to 0.15).
RUNS = {False: (60.0, 10.0), True: (60.0, 10.0)}
#: The queues' operating points the references assume, s: the L ramp's middle and the
#: Classic target (DualPi2's defaults).
Q_L, Q_C = 1e-3, 15e-3
#: Tolerances (relative): the issue's 20 % for the ratios; the delays' rows.
TOL = {"ratio": 0.2, "bias": 0.2, "delay_c": 0.25}


def rate_ratio(k: float, r_l: float, r_c: float) -> float:
    """RFC 9332's coupling law (Section 2.1): ``r_C / r_L = (1.22 k / 2) (R_L / R_C)``, the
    per-flow rate of a Reno-like flow over a scalable one, with round trips ``r_l``,
    ``r_c`` (s)."""
    return 1.22 * k / 2.0 * r_l / r_c


def base_rtt(capacity: float, rtt: float) -> float:
    """``R_0``: the propagation round trip plus a data packet's transmission, s."""
    return rtt + 8.0 * PACKET / capacity


def expected_ratio(k: float, capacity: float, rtt: float) -> float:
    """:func:`rate_ratio` with each queue at its operating point (:data:`Q_L`, :data:`Q_C`)."""
    r0 = base_rtt(capacity, rtt)
    return rate_ratio(k, r0 + Q_L, r0 + Q_C)


def run(capacity: float, rtt: float, k: float, n_l: int, classic: str, n_c: int,
        quick: bool, scheduler: str = "tshift") -> dict:
    """One packet run: ``n_l`` Prague and ``n_c`` Classic flows (``"reno"``: NewReno,
    ``"cubic"``) through one DualPi2 bottleneck (``scheduler``: ``DualPi2.scheduler``):
    the per-flow rate ratio, the mean queueing delays of the two groups and the
    utilisation, after the warm-up; and the law's terms as measured (:func:`law_terms`)."""
    from ..mechanisms import Cubic, DualPi2, Prague, TcpNewReno
    from ..network import Flow, Link, Network
    from ..sim import simulate

    duration, warmup = RUNS[bool(quick)]
    src = {"reno": TcpNewReno, "cubic": Cubic}[classic]
    flows = ([Flow(["s", "d"], source=Prague(), packet_size=PACKET) for _ in range(n_l)]
             + [Flow(["s", "d"], source=src(), packet_size=PACKET) for _ in range(n_c)])
    net = Network([Link("s", "d", capacity, rtt / 2, buffer=BUFFER,
                        queue=DualPi2(k=k, record=True, scheduler=scheduler))], flows)
    r = simulate(net, duration, warmup=warmup, seed=1, progress=False)
    th, qd = r.throughput, r.mean_queueing_delay
    out = {"ratio": float(th[n_l:].mean() / th[:n_l].mean()),
           "q_l": float(qd[:n_l].mean()), "q_c": float(qd[n_l:].mean()),
           "utilisation": float(r.utilisation[0]),
           "drops": int(r.link_drops["overflow"][0])}
    out.update(law_terms(r, k, n_l, capacity, rtt, duration - warmup, warmup))
    return out


def law_terms(r, k: float, n_l: int, capacity: float, rtt: float, span: float,
              warmup: float) -> dict:
    """The coupling law's terms measured in run ``r`` (RFC 9332, Section 2.1), after the
    warm-up: the signal fractions ``p_L`` (CE marks over the L flows' delivered packets)
    and ``p_C`` (marks and drops over the Classic flows'), each group's mean window
    ``W = rate R / packet`` with ``R = R_0 +`` its mean queueing delay, and the four
    factors whose product is the measured ratio over the law's:
    ``resp_c = W_C sqrt(p_C) / 1.22`` (the Classic response against the square-root
    law), ``resp_l = 2 / (W_L p_L)`` (the scalable response against ``W_L = 2 / p_L``),
    ``coupling = p_L / (k sqrt(p_C))`` (the coupling ``p_C = (p_L / k)^2`` as realised)
    and ``rtts`` (``R_L / R_C`` measured over the law's operating points).  Also the
    mean ``p'``, its coefficient of variation over the updates ``p_cv`` (the law takes
    ``p'`` steady) and the Classic drops per loss event (whole run: drops over fast
    retransmits and timeouts)."""
    import numpy as np

    th, qd = r.throughput, r.mean_queueing_delay
    pkts = th * span / (8.0 * PACKET)
    tr = r.traces
    n_lm = int((tr["dualpi2_l_marks"].index >= warmup).sum())
    n_cs = int((tr["dualpi2_c_signals"].index >= warmup).sum())
    pp = tr["dualpi2_prob"]
    pp = pp[pp.index >= warmup].to_numpy()
    p_l = n_lm / pkts[:n_l].sum()
    p_c = n_cs / pkts[n_l:].sum()
    r0 = base_rtt(capacity, rtt)
    r_l, r_c = r0 + float(qd[:n_l].mean()), r0 + float(qd[n_l:].mean())
    w_l = float(th[:n_l].mean()) * r_l / (8.0 * PACKET)
    w_c = float(th[n_l:].mean()) * r_c / (8.0 * PACKET)
    cnt = r.counters
    events = float(cnt["fast_retransmits"][n_l:].sum() + cnt["timeouts"][n_l:].sum())
    return {"p_l": p_l, "p_c": p_c, "w_l": w_l, "w_c": w_c, "pbase": float(pp.mean()),
            "p_cv": float(pp.std() / pp.mean()) if pp.mean() > 0 else 0.0,
            "resp_c": w_c * float(np.sqrt(p_c)) / 1.22, "resp_l": 2.0 / (w_l * p_l),
            "coupling": p_l / (k * float(np.sqrt(p_c))),
            "rtts": (r_l / r_c) / ((r0 + Q_L) / (r0 + Q_C)),
            "drops_per_event": float(cnt["dropped"][n_l:].sum()) / max(events, 1.0)}


def terms_text(seen: dict) -> str:
    """The measured law terms of :func:`law_terms`, for a row's method."""
    return (f"; measured p_L {seen['p_l']:.4f}, p_C {seen['p_c']:.5f}, W_L {seen['w_l']:.1f}, "
            f"W_C {seen['w_c']:.1f} packets: W_C sqrt(p_C) / 1.22 = {seen['resp_c']:.2f}, "
            f"2 / (W_L p_L) = {seen['resp_l']:.2f}, p_L / (k sqrt(p_C)) = "
            f"{seen['coupling']:.2f}, RTT term {seen['rtts']:.2f} (each 1 in the law); "
            f"p' mean {seen['pbase']:.4f}, coefficient of variation {seen['p_cv']:.2f}; "
            f"Classic drops per loss event {seen['drops_per_event']:.1f}")


def _label(capacity, rtt):
    return f"C = {capacity / 1e6:g} Mb/s, RTT = {rtt * 1e3:g} ms"


def _method(capacity, rtt, k, quick, extra="", sched="tshift"):
    d, w = RUNS[bool(quick)]
    q = f"DualPi2(k={k:g})" if sched == "tshift" else f"DualPi2(k={k:g}, scheduler={sched!r})"
    return (f"simulate: 1 Prague + 1 NewReno, {q}, {_label(capacity, rtt)}, "
            f"{d:g} s (warm-up {w:g} s), seed 1{extra}")


#: Rows where the packets part from the coupling law, declared with the numbers measured
#: (60 s, warm-up 10 s, seed 1: the quick form is the same run).  Keys: (experiment,
#: quantity).  The cause, measured by :func:`law_terms` (each run's method shows them):
#: the ratio over the law is the product of ``W_C sqrt(p_C) / 1.22`` (the Classic
#: response), ``2 / (W_L p_L)`` (the scalable response), ``p_L / (k sqrt(p_C))`` (the
#: coupling as realised) and the RTT term.  The law takes ``p'`` steady and each
#: response at its idealised value; here ``p'`` moves with the NewReno sawtooth
#: (coefficient of variation over the updates 0.09-2.06), so (1) the realised
#: ``p_C = E[p'^2]`` exceeds ``(p_L / k)^2``: coupling about ``1 / sqrt(1 + CV^2)``; (2)
#: the marks a Prague flow sees are not evenly spaced (also when several L flows share
#: the L queue's one ``recur`` accumulator), and the window reduces at most once per
#: round trip, so clustered marks make fewer reductions: ``W_L p_L`` up to 2.9 instead
#: of 2 (:data:`_SCALABLE_REF`), while at a high ``p_L`` Prague's growth of ``1 - p_L``
#: per round trip (growth on unmarked ACKs only) brings it under 2, 1.3-1.5 at 10 Mb/s x
#: 10 ms (:data:`_PRAGUE_REF`); (3) NewReno at windows of 4-17 packets gets 5-30 % less
#: than ``1.22 / sqrt(p_C)``; and at 40 Mb/s x 40 ms the squared drops come in bursts
#: (7.0-12.7 per NewReno loss event), each answered by one halving.
_A = "aqm-dualpi2"
_C = "l4s-coexistence"
#: The reference for (2): a plain-Python ACK-clocked replay of RFC 8257's window (``g``
#: = 1/16, one reduction ``W alpha / 2`` per window of data at most, +1/W per ACK),
#: ``dctcp_window`` in ``tests/experiments/test_l4s.py``, 200 000 packets: ``W p`` =
#: 1.91-1.99 with evenly spaced (``recur``) marks at a steady p = 0.03-0.3, 2.46 and 2.83
#: with p = 0.1 swinging +-50 % and +-90 % over about 75 round trips, 2.66 with
#: independent random marks at p = 0.1.
_SCALABLE_REF = ("W p 1.91-1.99 under evenly spaced marks at a steady p, 2.46-2.83 when p "
                 "swings")
#: The reference for Prague's own rule (growth on unmarked ACKs only, Linux
#: ``tcp_prague.c``): the same replay with ``ai_reduction=True``: ``W p`` = 1.96, 1.88,
#: 1.75, 1.63 with evenly spaced marks at p = 0.03, 0.1, 0.2, 0.3 (below 2, falling with
#: p), 2.31 and 2.64 with p = 0.1 swinging +-50 % and +-90 %, 2.47 with random marks.
_PRAGUE_REF = ("a replay of Prague's window gives W p 1.96-1.63 under evenly spaced marks "
               "at p 0.03-0.3")
_L_RESP = ("marks not evenly spaced, reductions at most once per round trip; a replay of "
           "RFC 8257's window gives " + _SCALABLE_REF)
KNOWN: dict = {
    (_A, "C = 10 Mb/s, RTT = 10 ms: ratio(k = 1) / ratio(k = 2)"): Known(
        "mechanism differs",
        "measured 0.368 (0.207 at k = 1 over 0.563 at k = 2) against k / 2 = 0.5 (-26 %): "
        "at k = 1 the NewReno window is 4.1 packets (p_C 0.043) and W_C sqrt(p_C) / 1.22 = "
        "0.70, against 0.84 at k = 2 (8.3 packets); the scalable response (1.25 and 1.32) "
        "and the coupling (0.96, 0.97) move less", 0.36, sides=("packets",)),
    (_A, "C = 10 Mb/s, RTT = 10 ms: ratio(k = 4) / ratio(k = 2)"): Known(
        "mechanism differs",
        "measured 2.59 (1.459 at k = 4 over 0.563 at k = 2) against 2 (+30 %): at these "
        "small windows p_L is high (0.319 at k = 4, 0.240 at k = 2) and Prague grows only "
        "on unmarked ACKs (1 - p_L per round trip), so 2 / (W_L p_L) = 1.55 and 1.32 (W_L "
        "4.0 and 6.3 packets; " + _PRAGUE_REF + "); W_C sqrt(p_C) / 1.22 = 0.91 against "
        "0.84 (NewReno at 13.4 and 8.3 packets); coupling 0.96, 0.97", 0.40,
        sides=("packets",)),
    (_A, "C = 10 Mb/s, RTT = 40 ms: C/L rate ratio, k = 2"): Known(
        "mechanism differs",
        "measured 0.579 against the law's 0.916 (-37 %): p' mean 0.052, coefficient of "
        "variation 0.71; coupling 0.80 (p_C 0.0043 against (p_L / 2)^2 = 0.0027), "
        "2 / (W_L p_L) = 0.88 (W_L 21.7, p_L 0.105: " + _L_RESP + "), W_C sqrt(p_C) / "
        "1.22 = 0.93, RTT term 0.96", 0.47, sides=("packets",)),
    (_A, "C = 40 Mb/s, RTT = 10 ms: C/L rate ratio, k = 2"): Known(
        "mechanism differs",
        "measured 0.409 against the law's 0.545 (-25 %): p' coefficient of variation 0.44; "
        "2 / (W_L p_L) = 0.91 (W_L 24.7, p_L 0.089: " + _L_RESP + "), coupling 0.93, "
        "W_C sqrt(p_C) / 1.22 = 0.97, RTT term 0.92 (the L queue at 0.15 ms, the Classic "
        "at 15.1 ms)", 0.35, sides=("packets",)),
    (_A, "C = 40 Mb/s, RTT = 40 ms: C/L rate ratio, k = 2"): Known(
        "mechanism differs",
        "measured 0.508 against the law's 0.911 (-44 %): p' (mean 0.016) has a coefficient "
        "of variation 0.90; coupling 0.76 (p_C 0.00047 against (p_L / 2)^2 = 0.00028: the "
        "squared drops come 8.7 per NewReno loss event), W_C sqrt(p_C) / 1.22 = 1.01; "
        "2 / (W_L p_L) = 0.69 (W_L 87.9, p_L 0.033: " + _L_RESP + "); RTT term 1.06", 0.54,
        sides=("packets",)),
    (_A, "C = 40 Mb/s, RTT = 40 ms: Classic queue delay, k = 2"): Known(
        "mechanism differs",
        "measured 11.0 ms (-27 % from 15 ms), utilisation 0.983: at this bandwidth-delay "
        "product (about 140 packets) the NewReno flow's halvings empty the Classic queue "
        "part of the time (p' mean 0.016, drops in bursts of 8.7 per loss event), which the "
        "PI2 steady state does not have", 0.37, sides=("packets",)),
    (_C, "1 Prague + 1 Reno: per-flow rate ratio C/L"): Known(
        "mechanism differs",
        "measured 0.534 against the law's 0.740 (-28 %): p' coefficient of variation 0.54; "
        "2 / (W_L p_L) = 0.91 (W_L 22.7, p_L 0.097: " + _L_RESP + "), coupling 0.88, "
        "W_C sqrt(p_C) / 1.22 = 0.95, RTT term 0.95",
        0.38, sides=("packets",)),
}


#: The schedulers ``aqm-dualpi2``'s unstated ``scheduler`` codes (``DualPi2.scheduler``).
SCHEDULERS = ("tshift", "wrr")
#: RFC 9332 leaves the scheduler open: declared, explored with Linux's round robin.
UNSTATED = (
    Unstated("scheduler", 0, (1,),
             "RFC 9332 Section 2.5.2 gives two example conditional-priority schedulers and "
             "requires neither: coded 0 the time-shifted FIFO (tshift 50 ms, ns-3's "
             "DualPi2QueueDisc, the default), 1 weighted round robin with a 10 % Classic "
             "weight (Linux sch_dualpi2.c)", unit=""),
)


@register("aqm-dualpi2",
          title="DualPI2: Classic/L4S per-flow rate ratio against the coupling law over "
                "capacity x RTT, its bias with k, the L and Classic queues' delays",
          paper="De Schepper, Briscoe, White, RFC 9332 (DualQ Coupled AQM), 2023, "
                "Section 2.1 and Appendix A",
          sides=("packets",), unstated=UNSTATED)
def aqm_dualpi2(*, sides, quick, params) -> list[Check]:
    """Per grid point of :data:`GRID`: the ratio at k = 2, the bias for k = 1 and 4, the two
    queues' delays at k = 2."""
    rows = []
    name = "aqm-dualpi2"
    sched = SCHEDULERS[int(params["scheduler"])]

    def _method_of(k, quick, extra=""):  # this grid point's method text
        return _method(capacity, rtt, k, quick, extra, sched)
    for capacity, rtt in GRID:
        seen = {k: run(capacity, rtt, k, 1, "reno", 1, quick, sched) for k in KS} \
            if "packets" in sides else None
        lab = _label(capacity, rtt)
        exp = expected_ratio(2.0, capacity, rtt)
        q = f"{lab}: C/L rate ratio, k = 2"
        rows.append(Check(
            name, q, exp, source="closed form",
            packets=Side(seen[2.0]["ratio"], TOL["ratio"],
                         method=_method_of(2.0, quick, "; mean NewReno rate "
                                        "over mean Prague rate" + terms_text(seen[2.0])))
            if seen else None,
            note=f"(1.22 k / 2) R_L / R_C with R_L = R_0 + 1 ms, R_C = R_0 + 15 ms, R_0 = "
                 f"{base_rtt(capacity, rtt) * 1e3:.2f} ms; equal RTTs would give 1.22",
            reference="RFC 9332, Section 2.1 (the coupling argument)",
            known=KNOWN.get((name, q))))
        for k in (1.0, 4.0):
            q = f"{lab}: ratio(k = {k:g}) / ratio(k = 2)"
            rows.append(Check(
                name, q, k / 2.0, source="closed form",
                packets=Side(seen[k]["ratio"] / seen[2.0]["ratio"], TOL["bias"],
                             method=_method_of(k, quick,
                               f"; ratio {seen[k]['ratio']:.3f} over "
                               f"{seen[2.0]['ratio']:.3f} at k = 2" + terms_text(seen[k])))
                if seen else None,
                note="r_C / r_L is proportional to k (RFC 9332, Section 2.1)",
                reference="RFC 9332, Section 2.1 (p_C = (p_CL / k)^2)",
                known=KNOWN.get((name, q))))
        q = f"{lab}: L queue delay, k = 2"
        rows.append(Check(
            name, q, Bounds(0.0, 1.2e-3), source="paper (stated)", unit="s",
            packets=Side(seen[2.0]["q_l"], 0.0,
                         method=_method_of(2.0, quick, "; the Prague flow's mean "
                                        "queueing delay")) if seen else None,
            note="at most the native ramp's end min_th + range = 1.2 ms",
            reference="RFC 9332, Figure 2 (minTh 800 us, range 400 us)",
            known=KNOWN.get((name, q))))
        q = f"{lab}: Classic queue delay, k = 2"
        rows.append(Check(
            name, q, 15e-3, source="paper (stated)", unit="s",
            packets=Side(seen[2.0]["q_c"], TOL["delay_c"],
                         method=_method_of(2.0, quick, "; the NewReno flow's mean "
                                        f"queueing delay; utilisation "
                                        f"{seen[2.0]['utilisation']:.3f}")) if seen else None,
            note="PI2 holds the Classic head's sojourn time at its target",
            reference="RFC 9332, Figure 2 (target 15 ms)",
            known=KNOWN.get((name, q))))
    return rows


@register("l4s-coexistence",
          title="L4S coexistence: Prague with Reno or Cubic flows through DualPI2 (k = 2), "
                "the per-flow rate ratio against RFC 9332's coupling law",
          paper="De Schepper, Briscoe, White, RFC 9332 (DualQ Coupled AQM), 2023, "
                "Section 2.1",
          sides=("packets",))
def l4s_coexistence(*, sides, quick) -> list[Check]:
    """Per mix of :data:`MIXES`: the mean Classic flow's rate over the mean Prague flow's."""
    capacity, rtt = COEX
    exp = expected_ratio(2.0, capacity, rtt)
    rows = []
    for label, n_l, classic, n_c in MIXES:
        seen = run(capacity, rtt, 2.0, n_l, classic, n_c, quick) \
            if "packets" in sides else None
        d, w = RUNS[bool(quick)]
        q = f"{label}: per-flow rate ratio C/L"
        rows.append(Check(
            "l4s-coexistence", q, exp, source="closed form",
            packets=Side(seen["ratio"], TOL["ratio"],
                         method=f"simulate: {label}, DualPi2(k=2), {_label(capacity, rtt)}, "
                                f"{d:g} s (warm-up {w:g} s), seed 1; queues L "
                                f"{seen['q_l'] * 1e3:.2f} ms, C {seen['q_c'] * 1e3:.1f} ms"
                                + terms_text(seen))
            if seen else None,
            note=f"(1.22 k / 2) R_L / R_C, k = 2, R_L = R_0 + 1 ms, R_C = R_0 + 15 ms, R_0 = "
                 f"{base_rtt(capacity, rtt) * 1e3:.2f} ms (equal RTTs: 1.22); Cubic in its "
                 f"Reno-friendly region at this BDP",
            reference="RFC 9332, Section 2.1 (the coupling argument)",
            known=KNOWN.get(("l4s-coexistence", q))))
    return rows


# ------------------------------------------------------------- Prague's RTT independence
#: l4s-rtt-independence's scenario: bottleneck capacity bit/s, the two flows' propagation
#: round trips s (both below the 25 ms target), Prague's target RTT s.
RTTI = (40e6, (0.0045, 0.015), 0.025)
#: Its run length and warm-up, s, full and ``--quick`` (the same; two runs of about 2.5 s):
#: the warm-up covers Linux's 500 transition rounds of the 15 ms flow (about 8 s).
RTTI_RUNS = {False: (60.0, 20.0), True: (60.0, 20.0)}


def reduction_period(rtt: float, target: float) -> float:
    """The time between two CE reductions of a Prague flow in ``"rate"`` mode with a CE
    echo in every round trip, s: ``ceil(T / R) R``.  From the rules (Linux
    ``tcp_prague.c``): after a reduction no echo reduces until an ACK covers the data sent
    at the reduction (one round trip ``R``, the CWR state); an echo then reduces only if
    ``T`` has passed, and one that does not still starts a new such round trip, so the
    reduction comes at the first multiple of ``R`` at or after ``T`` (``R`` itself when
    ``R >= T``)."""
    import math

    return math.ceil(target / rtt - 1e-12) * rtt


def rtt_independence_ratio(r_short: float, r_long: float, target: float,
                           scaled: bool) -> float:
    """The rate ratio of two scalable flows (the shorter round trip's over the longer's)
    sharing one marking probability ``p``, each with a CE echo in every round trip.

    ``"none"`` (RTT-dependent): each flow gains ``1 - p`` packets of window per round trip
    and loses ``W alpha / 2`` once per round trip, ``alpha = p``: ``W = 2 (1 - p) / p``
    for both, so the rates ``W / R`` are in the ratio ``r_long / r_short``.  ``"rate"``
    (both below the target ``T``): the increase per unmarked ACK is ``(R / T)^2 / W``,
    so the rate ``W / R`` grows by ``(1 - p) / T^2`` packets/s per second whatever ``R``;
    each flow loses ``x alpha / 2`` once per :func:`reduction_period` ``P(R)``, ``alpha
    = p`` (its ``alpha`` updated once per ``T``); so ``x = 2 (1 - p) P(R) / (p T^2)``
    and the ratio is ``P(r_short) / P(r_long)`` -- 1 only when both periods are equal."""
    if not scaled:
        return r_long / r_short
    return reduction_period(r_short, target) / reduction_period(r_long, target)


def run_rtti(scaling: str, quick: bool) -> dict:
    """One packet run of l4s-rtt-independence: two Prague flows (``rtt_scaling``
    ``scaling``, Linux's other defaults) with the propagation round trips of :data:`RTTI`
    through one DualPi2 bottleneck (its L queue alone): the rate ratio, the mean queueing
    delays, the windows and the ``alpha`` traces' mean values and update periods after
    the warm-up."""
    import numpy as np

    from ..mechanisms import DualPi2, Prague
    from ..network import Flow, Link, Network
    from ..sim import simulate

    capacity, rtts, target = RTTI
    duration, warmup = RTTI_RUNS[bool(quick)]
    hop = 1e-3  # the bottleneck's one-way delay; the access links carry the rest
    src = Prague(rtt_scaling=scaling, rtt_target=target, record_alpha=True)
    links = [Link(n, "r", 1e9, rtt / 2 - hop) for n, rtt in zip("ab", rtts)]
    links.append(Link("r", "d", capacity, hop, buffer=BUFFER, queue=DualPi2()))
    net = Network(links, [Flow([n, "r", "d"], source=src, packet_size=PACKET) for n in "ab"])
    r = simulate(net, duration, warmup=warmup, seed=1, progress=False)
    th, qd = r.throughput, r.mean_queueing_delay
    rr = np.array([base_rtt(capacity, rtt) for rtt in rtts]) + qd
    out = {"ratio": float(th[0] / th[1]), "q": [float(q) for q in qd],
           "w": [float(w) for w in th * rr / (8.0 * PACKET)],
           "utilisation": float(r.utilisation[-1])}
    for i in range(2):
        tr = r.traces[f"dctcp_alpha[f{i}]"]
        tr = tr[tr.index >= warmup]
        out[f"alpha{i}"] = float(tr.mean())
        out[f"period{i}"] = float(np.diff(tr.index.to_numpy()).mean())
    return out


def _rtti_label(scaling):
    return f"rtt_scaling={scaling!r}"


_R = "l4s-rtt-independence"
#: l4s-rtt-independence's declared row (the numbers measured: 60 s, warm-up 20 s, seed 1).
KNOWN_RTTI: dict = {}
KNOWN_RTTI[(_R, "rtt_scaling='none': rate ratio, 4.5 ms flow / 15 ms flow")] = Known(
    "mechanism differs",
    "measured 4.92 against r_long / r_short = 2.81 (+75 %): the law assumes an echo, so a "
    "reduction, in every round trip of each flow; the DualPI2 ramp marks in episodes, and "
    "the 4.5 ms flow (W 15.0 packets, alpha 0.240) reduces about once per 2.4 of its "
    "round trips (W alpha / (2 (1 - alpha)) round trips of growth per reduction), the "
    "15 ms flow (W 9.0, alpha 0.253) once per 1.5, so the short flow keeps more; with "
    "marking episodes shared by both flows the ratio would tend to (r_long / r_short)^2 = "
    "7.9, and 4.92 lies between", 0.9, sides=("packets",))


@register("l4s-rtt-independence",
          title="TCP Prague's RTT independence: two Prague flows of 4.5 and 15 ms through "
                "DualPI2's L queue, rate ratio and alpha update period, rtt_scaling 'none' "
                "and 'rate'",
          paper="Linux tcp_prague.c (L4STeam, RTT_CONTROL_RATE); RFC 9331, Section 4.3 "
                "(reduce RTT dependence)",
          sides=("packets",))
def l4s_rtt_independence(*, sides, quick) -> list[Check]:
    """For ``rtt_scaling`` "none" and "rate": the rate ratio of the 4.5 ms flow over the
    15 ms flow against :func:`rtt_independence_ratio`, and the ``alpha`` update period of
    each flow against the rules (one round trip; ``max(T, R)`` in "rate" mode)."""
    capacity, rtts, target = RTTI
    duration, warmup = RTTI_RUNS[bool(quick)]
    r0 = [base_rtt(capacity, rtt) + Q_L for rtt in rtts]
    rows = []
    for scaling in ("none", "rate"):
        seen = run_rtti(scaling, quick) if "packets" in sides else None
        scaled = scaling == "rate"
        lab = _rtti_label(scaling)
        how = (f"simulate: 2 Prague({lab}, rtt_target=25 ms, rtt_transition=500), base "
               f"RTTs {rtts[0] * 1e3:g} and {rtts[1] * 1e3:g} ms, DualPi2 at "
               f"{capacity / 1e6:g} Mb/s, {duration:g} s (warm-up {warmup:g} s), seed 1")
        if seen:
            how += (f"; queues {seen['q'][0] * 1e3:.2f}, {seen['q'][1] * 1e3:.2f} ms, "
                    f"W {seen['w'][0]:.1f}, {seen['w'][1]:.1f} packets, alpha "
                    f"{seen['alpha0']:.3f}, {seen['alpha1']:.3f}, utilisation "
                    f"{seen['utilisation']:.3f}")
        q = f"{lab}: rate ratio, 4.5 ms flow / 15 ms flow"
        if scaled:
            note = (f"P(R_short) / P(R_long), P(R) = ceil(T / R) R the reduction period "
                    f"with an echo every round trip: {reduction_period(r0[0], target) * 1e3:.1f}"
                    f" / {reduction_period(r0[1], target) * 1e3:.1f} ms (R = R_0 + 1 ms); "
                    f"derived from the rules implemented, not from Linux measurements")
        else:
            note = (f"r_long / r_short = {r0[1] * 1e3:.2f} / {r0[0] * 1e3:.2f} ms (R = R_0 + "
                    f"1 ms): W = 2 (1 - p) / p for both at a shared p")
        rows.append(Check(
            _R, q, rtt_independence_ratio(r0[0], r0[1], target, scaled),
            source="closed form",
            packets=Side(seen["ratio"], TOL["ratio"], method=how) if seen else None,
            note=note,
            reference="RFC 8257 Section 3.3 (W = 2/p); Linux tcp_prague.c "
                      "(RTT_CONTROL_RATE) for the scaled rules",
            known=KNOWN_RTTI.get((_R, q))))
        for i, name in enumerate(("4.5 ms", "15 ms")):
            q = f"{lab}: alpha update period of the {name} flow"
            exp = max(target, r0[i]) if scaled else r0[i]
            rows.append(Check(
                _R, q, exp, source="closed form", unit="s",
                packets=Side(seen[f"period{i}"], TOL["ratio"],
                             method=how + "; mean gap between alpha updates (the "
                                          "dctcp_alpha trace)") if seen else None,
                note=("max(T, R): a round of data acknowledged and T = 25 ms since the "
                      "last update" if scaled else "one round trip R = R_0 + 1 ms "
                      "(RFC 8257's observation window)"),
                reference=("Linux tcp_prague.c (prague_should_update_ewma, "
                           "prague_target_rtt_elapsed)" if scaled else
                           "RFC 8257, Section 3.3"),
                known=KNOWN_RTTI.get((_R, q))))
    return rows
