"""BBRv1 against loss-based flows, and BBRv1's standing queue, in packets.

``bbr-share`` (issue 35) runs :class:`~qosmodels.mechanisms.BbrV1` over one drop-tail
bottleneck (10 Mb/s, 20 ms each way, 1000-byte packets: a bandwidth-delay product of
51 packets with the transmission time):

* **share** (one BBRv1 flow against one :class:`~qosmodels.mechanisms.Cubic` flow, both
  started at 0 with the same RTT), over buffers of 2 to 16 BDP: BBR's fraction of
  the delivered packets after the warm-up, against :func:`qosmodels.bbr.deep_buffer_share`'s
  window-cap argument, ``1 - 1/cwnd_gain = 1/2`` (Ware et al., IMC 2019, find BBRv1
  window-limited against loss-based flows and its share independent of their number;
  their closed form, which also depends on the buffer, could not be read while this was
  written, so the reference is the derivation in :mod:`qosmodels.bbr` only);
* **standing queue** of two BBRv1 flows in a deep buffer (4 BDP): the bottleneck's mean
  queue against :func:`qosmodels.bbr.standing_queue`, ``BDP + 3 N q`` = 63 packets
  (about one BDP; Scherrer et al., IMC 2022); one flow alone is not window-limited (its
  5/4 and 3/4 phases cancel) and keeps a mean queue of 7.0 packets (measured, full form),
  so the row is stated for two;
* **utilisation** of one BBRv1 flow alone in the same buffer: 1 (it paces at the
  bottleneck rate; PROBE_RTT's 200 ms at 4 packets every 10 s cost about 2 %).

Every flow runs with SACK (``sack=True``: RFC 2018 blocks and RFC 6675's recovery, which
BbrV1 uses for its delivery-rate samples): Linux enables SACK by default (``tcp_sack = 1``,
Documentation/networking/ip-sysctl), and Ware et al. measured Linux senders, so this is
the faithful set-up, not a tuning; their text was not at hand to check whether they
changed it.  Linux's RACK (RFC 8985), which detects a lost retransmission without the
timer, is not modelled (:mod:`qosmodels.sim._kernels.sack`).

BBRv1's send quantum is declared unstated (``bbr_send_quantum``): the draft gives
``BBRSetSendQuantum``'s rule by pacing rate as an example and leaves the quantum to the
implementation; the default, 0, is that rule (2 packets at these rates, as Linux 4.9), and
``--explore`` also runs a fixed quantum of 1 packet (ns-3 3.44's ``TcpBbr``) and of 2.  It
enters only ``BBRInflight``'s ``3 x quantum``, so the standing-queue row's closed form
(``BDP + 3 N q``, its reference and its theory side) takes the quantum the run uses.

BBRv1's loss in shallow buffers is measured by the experiment's tests and the guide
(the numbers in :data:`SHALLOW`, measured without SACK), not as a row: no closed form or
printed number was at hand to check it against.

References
----------
R. Ware, M. K. Mukerjee, S. Seshan, J. Sherry, "Modeling BBR's Interactions with
Loss-Based Congestion Control", ACM IMC 2019.  S. Scherrer, M. Legner, A. Perrig, S.
Schmid, "Model-Based Insights on the Performance, Fairness, and Stability of BBR", ACM
IMC 2022.  draft-cardwell-iccrg-bbr-congestion-control-00.
"""

from __future__ import annotations

from .registry import Check, Known, Side, Unstated, register

#: Bottleneck capacity bit/s, one-way propagation delay s, packet size bytes.
CAPACITY, DELAY, PACKET = 10e6, 0.02, 1000
#: The bandwidth-delay product, packets (propagation plus one transmission).
BDP = CAPACITY / (8.0 * PACKET) * (2 * DELAY + 8.0 * PACKET / CAPACITY)
#: Buffers of the share rows, in BDPs, full and ``--quick``.
BUFFERS = {False: (2, 4, 8, 16), True: (4, 16)}
#: (run length, warm-up) s and seeds, full and ``--quick``.
RUNS = {False: (120.0, 30.0, 2), True: (60.0, 20.0, 1)}
#: Tolerances (relative), stated before measuring: the window-cap argument leaves out the
#: max filter's probing excess and PROBE_RTT's timing (share); the quanta and the probing
#: phases (queue); PROBE_RTT's dips (utilisation).
TOL = {"share": 0.20, "queue": 0.25, "utilisation": 0.03}
#: Buffer of the queue and utilisation rows, BDPs.
DEEP = 4
#: BBRv1's loss in shallow buffers, measured (27 Nov 2026; seed 0, 120 s after 30 s): by (buffer
#: in BDPs, BbrV1 flows), the bottleneck's drop rate and utilisation.  One flow loses nothing
#: after its STARTUP (its 5/4 phase adds a quarter BDP, which 0.5 BDP holds); two or four
#: flows, each capping its flight at 2 BDP of its own estimate, keep the buffer overflowing
#: (4-10 % dropped), and without SACK their timeouts leave the link half idle (real BBRv1,
#: with SACK, keeps it busy: not reproduced here).  At 4 BDP nothing is dropped.
SHALLOW = {(0.5, 1): (0.0000, 0.979), (0.5, 2): (0.0497, 0.575), (0.5, 4): (0.0386, 0.593),
           (1.0, 1): (0.0000, 0.980), (1.0, 2): (0.0500, 0.468), (1.0, 4): (0.1041, 0.576),
           (4.0, 2): (0.0000, 0.980), (4.0, 4): (0.0000, 0.984)}
#: BBR's share against Cubic as measured (28 Nov 2026, both flows with SACK, Cubic's ssthresh
#: capped at beta cwnd, BBR counting each packet delivered once across a timeout), full form (120 s after 30 s, seeds 0 and 1) and quick form (60 s after
#: 20 s, seed 0), by buffer in BDPs; and the largest relative error against 1/2 each declares
#: (the larger of the two forms' errors, rounded up; None: within the tolerance, reproduced).
#: Without SACK (27 Nov): 0.087, 0.078, 0.118, 0.101 (full); with SACK before Cubic's
#: ssthresh was capped: 0.028, 0.251, 0.465, 0.165; with it, before the delivered count was
#: fixed: 0.483, 0.249, 0.434, 0.164.
MEASURED = {2: ("0.483 (full: 0.484, 0.482)", None),
            4: ("0.453 (full: 0.451, 0.454), 0.459 (quick)", None),
            8: ("0.438 (full: 0.457, 0.420)", None),
            16: ("0.114 (full: 0.148, 0.081), 0.103 (quick)", 0.80)}
#: Why, as far as measured (120 s runs; per flow over the whole run, BBR's against Cubic's:
#: fast retransmits and retransmission timeouts).
EVIDENCE = ("With SACK the share comes near one half at 2, 4 and 8 BDP (0.420-0.484): the "
            "declared cause of the misses without SACK (0.078-0.118) is confirmed there.  "
            "(Until 28 Nov 2026 a timeout cleared the SACK scoreboard and the packets SACKed "
            "before it were counted delivered a second time, which raised BtlBw above the "
            "link's 1250 packets/s -- 1590 at 16 BDP seed 0 -- and left 4 BDP seed 0 at "
            "0.045; each packet is now counted once, tests/sim/test_bbr.py.)  At 16 BDP seed 1 "
            "BBR has no timeout (7 fast retransmits) and gets 0.081: it sits at a low fixed "
            "point of its own filters, BtlBw 129 packets/s (a tenth of the link) and RTprop "
            "0.354 s, window-limited at cwnd = 2 BtlBw RTprop (82 packets on average) while "
            "Cubic's standing queue (700 packets) makes the round trip 0.60 s, so its window "
            "never lets it measure more (measured before the fix; that run had no timeout, "
            "and its share, 0.081, is the same after it); seed 0 gets 0.148.  With a fixed send "
            "quantum (--explore, 28 Nov 2026) the share is 0.379 with 1 packet (seeds 0, 1: "
            "0.377, 0.382) and 0.375 with 2 (0.417, 0.334), still outside the 20 % tolerance; "
            "the draft's rule differs from a fixed 2 only above 24 Mb/s (STARTUP) and below "
            "1.2 Mb/s (where the low fixed point's 1.03 Mb/s lies); which of the two moves "
            "the share was not measured")


#: The declared unstated send quantum, packets (0: the draft's rule by pacing rate).
SEND_QUANTUM = Unstated(
    "bbr_send_quantum", 0, (1, 2),
    "the draft leaves the send quantum to the implementation (BBRSetSendQuantum is its "
    "example: 2 packets at 10 Mb/s, coded 0 here, as Linux 4.9); ns-3 3.44's TcpBbr uses 1 "
    "segment; 2 is the rule's value at these rates fixed at every rate",
    unit="packets")


def _bbr(params):
    """The experiment's BBRv1 sender, with the declared send quantum of ``params``."""
    from ..mechanisms import BbrV1

    q = int((params or {}).get("bbr_send_quantum", SEND_QUANTUM.default))
    return BbrV1(sack=True, send_quantum=None if q == 0 else q)


def _quantum_text(bbr) -> str:
    return "" if bbr.send_quantum is None else f", send_quantum={bbr.send_quantum}"


def network(buffer_bdp: float, sources):
    """One bottleneck of ``buffer_bdp`` BDPs, a flow per source in ``sources``."""
    from ..network import Flow, Link, Network

    buf = int(round(buffer_bdp * BDP))
    return Network([Link("a", "b", CAPACITY, DELAY, buffer=buf)],
                   [Flow(["a", "b"], packet_size=PACKET, source=s) for s in sources])


def _runs(net, quick):
    import numpy as np

    from ..sim import Record, simulate

    duration, warmup, seeds = RUNS[bool(quick)]
    out = []
    for seed in range(seeds):
        r = simulate(net, duration, warmup=warmup, seed=seed, progress=False,
                     record=Record(interval=0.01, cwnd=False))
        q = r.queue_series[r.t >= warmup, 0]
        out.append((r.delivered_packets.astype(float), float(np.mean(q)),
                    float(r.utilisation[0]), float(r.drop_rate[0])))
    return out


def measure_share(buffer_bdp: float, quick: bool, params=None) -> tuple[float, list, str]:
    """BBR's fraction of the delivered packets against one Cubic flow, mean over seeds
    (``params``: the declared unstated parameters, :data:`SEND_QUANTUM`)."""
    import numpy as np

    from ..mechanisms import Cubic

    bbr = _bbr(params)
    runs = _runs(network(buffer_bdp, [bbr, Cubic(sack=True)]), quick)
    shares = [float(d[0] / d.sum()) for d, *_ in runs]
    duration, warmup, seeds = RUNS[bool(quick)]
    method = (f"simulate: BbrV1(sack=True{_quantum_text(bbr)}) and Cubic(sack=True) "
              f"through one DropTail of "
              f"{buffer_bdp:g} BDP "
              f"({int(round(buffer_bdp * BDP))} packets), 10 Mb/s, 40 ms; BBR's share of "
              f"the packets delivered in {duration - warmup:g} s after {warmup:g} s, "
              f"mean of {seeds} seeds ({', '.join(f'{s:.3f}' for s in shares)})")
    return float(np.mean(shares)), runs, method


def measure_alone(n_flows: int, quick: bool, params=None) -> tuple[float, float, str]:
    """The mean queue (packets) and the utilisation of ``n_flows`` BBRv1 flows in the
    :data:`DEEP` buffer, means over seeds (``params``: as :func:`measure_share`'s)."""
    import numpy as np

    bbr = _bbr(params)
    runs = _runs(network(DEEP, [bbr] * n_flows), quick)
    q = float(np.mean([r[1] for r in runs]))
    u = float(np.mean([r[2] for r in runs]))
    duration, warmup, seeds = RUNS[bool(quick)]
    method = (f"simulate: {n_flows} BbrV1(sack=True{_quantum_text(bbr)}) through one "
              f"DropTail of {DEEP} BDP, 10 Mb/s, "
              f"40 ms; the queue sampled every 10 ms and the link's busy time over "
              f"{duration - warmup:g} s after {warmup:g} s, mean of {seeds} seeds")
    return q, u, method


@register("bbr-share",
          title="BBRv1: its share against Cubic in deep drop-tail buffers, the standing "
                "queue of BBRv1 flows, a lone flow's utilisation",
          paper="Ware et al., IMC 2019; Scherrer et al., IMC 2022; "
                "draft-cardwell-iccrg-bbr-congestion-control-00",
          sides=("theory", "packets"), unstated=(SEND_QUANTUM,))
def bbr_share(*, sides, quick, params) -> list[Check]:
    """Rows: BBR's share per buffer of :data:`BUFFERS`; two flows' queue; one flow's
    utilisation (``params``: :data:`SEND_QUANTUM`'s value)."""
    from ..bbr import deep_buffer_share, send_quantum, standing_queue

    rows = []
    for b in BUFFERS[bool(quick)]:
        ref = 0.5  # 1 - 1/cwnd_gain, cwnd_gain = 2 (written out)
        theory = packets = None
        if "theory" in sides:
            theory = Side(deep_buffer_share(b), 1e-12,
                          method="qosmodels.bbr.deep_buffer_share(buffer_bdp)")
        if "packets" in sides:
            value, _, method = measure_share(b, quick, params)
            packets = Side(value, TOL["share"], method=method)
        rows.append(Check(
            "bbr-share", f"BBR's share against one Cubic flow, buffer {b} BDP", ref,
            source="closed form", unit="fraction of the link", theory=theory,
            packets=packets,
            reference="window cap: p (BDP + B) = 2 p C (1 - p)(BDP + B) / C, p = 1 - 1/2",
            note=("BBR held at a low fixed point of its own filters (BtlBw, RTprop) by "
                  "Cubic's standing queue: its share below one half" if MEASURED[b][1] is not None else
                  f"with SACK (measured {MEASURED[b][0]})"),
            known=None if MEASURED[b][1] is None else Known(
                "mechanism differs",
                f"Measured BBR share {MEASURED[b][0]} against 0.5.  {EVIDENCE}",
                MEASURED[b][1], sides=("packets",))))
    fixed = _bbr(params).send_quantum
    # (cwnd_gain - 1) BDP + 3 N q, N = 2, q = 2 packets by the draft's rule (10 Mb/s is
    # between 1.2 and 24 Mb/s), or the declared fixed quantum
    q_ref = BDP + 3 * 2 * (2.0 if fixed is None else float(fixed))
    theory_q = theory_u = packets_q = packets_u = None
    if "theory" in sides:
        quantum = send_quantum(CAPACITY, PACKET) if fixed is None else float(fixed)
        theory_q = Side(standing_queue(BDP, 2, quantum), 1e-12,
                        method="qosmodels.bbr.standing_queue(bdp, 2, send_quantum)" if fixed
                        is None else f"qosmodels.bbr.standing_queue(bdp, 2, {fixed})")
    if "packets" in sides:
        q2, _, method2 = measure_alone(2, quick, params)
        packets_q = Side(q2, TOL["queue"], method=method2)
        _, u1, method1 = measure_alone(1, quick, params)
        packets_u = Side(u1, TOL["utilisation"], method=method1)
    rows.append(Check(
        "bbr-share", f"standing queue of two BBRv1 flows, buffer {DEEP} BDP", q_ref,
        source="closed form", unit="packets", theory=theory_q, packets=packets_q,
        reference="BDP + 3 N q: window-limited flows, sum of BtlBw = C, q = 2 packets "
                  "(10 Mb/s is between 1.2 and 24 Mb/s)" if fixed is None else
                  f"BDP + 3 N q: window-limited flows, sum of BtlBw = C, q = {fixed} "
                  f"packet{'s' if fixed > 1 else ''} (the declared fixed send quantum)"))
    if packets_u is not None:  # (a packets row only: none without the packets side)
        rows.append(Check(
            "bbr-share", f"utilisation of one BBRv1 flow alone, buffer {DEEP} BDP", 1.0,
            source="closed form", unit="fraction", theory=theory_u, packets=packets_u,
            reference="paced at BtlBw = C"))
    return rows
