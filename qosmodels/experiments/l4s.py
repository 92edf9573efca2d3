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

Measured (60 s, warm-up 10 s, seed 1; :data:`KNOWN` gives every number declared; after
the fix of the ECN recover point that Prague shares with Dctcp): the rate ratio at
``k = 2`` is within 20 % of the law at 10 Mb/s and 10 ms (0.51 against 0.57) and 29-61 %
below it at the other three grid points (the NewReno flow gets less than the law's share;
why is not established); the bias with ``k`` follows ``k / 2`` within 20 % at 7 of 8
points; the L queue's mean delay is 0.14-0.66 ms, under the ramp's 1.2 ms everywhere, the
Classic queue's 14.9-16.6 ms except 9.3 ms at 40 Mb/s and 40 ms.  Coexistence at 20 Mb/s,
20 ms: the per-flow ratio is within 20 % of the law's 0.74 with the 1 + 4 and 4 + 1 Reno
mixes and 2 + 2 Cubic, 25-31 % below it with 1 + 1 and 2 + 2 Reno and 1 + 1 Cubic.
Neither is near the equal-RTT 1.22 (or "rough equality"):
the Classic flows' RTT includes the 15 ms queue, which the law with the operating
points accounts for.  Scenario choices (not the RFC's): 1500-byte packets, a buffer
of 4000 packets (no overflow), one seed.
"""

from __future__ import annotations

from .registry import Bounds, Check, Known, Side, register

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
        quick: bool) -> dict:
    """One packet run: ``n_l`` Prague and ``n_c`` Classic flows (``"reno"``: NewReno,
    ``"cubic"``) through one DualPi2 bottleneck: the per-flow rate ratio, the mean
    queueing delays of the two groups and the utilisation, after the warm-up."""
    from ..mechanisms import Cubic, DualPi2, Prague, TcpNewReno
    from ..network import Flow, Link, Network
    from ..sim import simulate

    duration, warmup = RUNS[bool(quick)]
    src = {"reno": TcpNewReno, "cubic": Cubic}[classic]
    flows = ([Flow(["s", "d"], source=Prague(), packet_size=PACKET) for _ in range(n_l)]
             + [Flow(["s", "d"], source=src(), packet_size=PACKET) for _ in range(n_c)])
    net = Network([Link("s", "d", capacity, rtt / 2, buffer=BUFFER, queue=DualPi2(k=k))],
                  flows)
    r = simulate(net, duration, warmup=warmup, seed=1, progress=False)
    th, qd = r.throughput, r.mean_queueing_delay
    return {"ratio": float(th[n_l:].mean() / th[:n_l].mean()),
            "q_l": float(qd[:n_l].mean()), "q_c": float(qd[n_l:].mean()),
            "utilisation": float(r.utilisation[0]),
            "drops": int(r.link_drops["overflow"][0])}


def _label(capacity, rtt):
    return f"C = {capacity / 1e6:g} Mb/s, RTT = {rtt * 1e3:g} ms"


def _method(capacity, rtt, k, quick, extra=""):
    d, w = RUNS[bool(quick)]
    return (f"simulate: 1 Prague + 1 NewReno, DualPi2(k={k:g}), {_label(capacity, rtt)}, "
            f"{d:g} s (warm-up {w:g} s), seed 1{extra}")


#: Rows where the packets part from the coupling law, declared with the numbers measured
#: (60 s, warm-up 10 s, seed 1: the quick form is the same run).  Keys: (experiment,
#: quantity).  Why the NewReno flow gets less than the law's share at 40 ms and at
#: 40 Mb/s, and the small-k bias is larger than k / 2 at 10 Mb/s and 10 ms, is not
#: established here; the notes give what was measured beside it.
_A = "aqm-dualpi2"
_NOT_ESTABLISHED = "; the cause is not established here"
KNOWN: dict = {
    (_A, "C = 10 Mb/s, RTT = 10 ms: ratio(k = 1) / ratio(k = 2)"): Known(
        "mechanism differs",
        "measured 0.340 (the ratio 0.172 at k = 1 over 0.506 at k = 2) against k / 2 = "
        "0.5 (-32 %); at k = 4 the bias is 2.04, as the law says" + _NOT_ESTABLISHED,
        0.42, sides=("packets",)),
    (_A, "C = 10 Mb/s, RTT = 40 ms: C/L rate ratio, k = 2"): Known(
        "mechanism differs",
        "measured 0.554 against the law's 0.916 (-40 %), the queues at 0.56 ms (L) and "
        "15.5 ms (C), utilisation 0.974" + _NOT_ESTABLISHED, 0.52, sides=("packets",)),
    (_A, "C = 40 Mb/s, RTT = 10 ms: C/L rate ratio, k = 2"): Known(
        "mechanism differs",
        "measured 0.388 against the law's 0.545 (-29 %), the queues at 0.16 ms (L, not the "
        "1 ms operating point the law's R_L assumes; with it R_L / R_C is 0.44 instead of "
        "0.45, which does not explain the gap) and 14.9 ms (C), utilisation 1.000"
        + _NOT_ESTABLISHED, 0.38, sides=("packets",)),
    (_A, "C = 40 Mb/s, RTT = 40 ms: C/L rate ratio, k = 2"): Known(
        "mechanism differs",
        "measured 0.358 against the law's 0.911 (-61 %), the Classic queue at 9.3 ms, below "
        "its 15 ms target (next row), utilisation 0.984" + _NOT_ESTABLISHED, 0.79,
        sides=("packets",)),
    (_A, "C = 40 Mb/s, RTT = 40 ms: Classic queue delay, k = 2"): Known(
        "mechanism differs",
        "measured 9.3 ms (-38 % from 15 ms), utilisation 0.984: at this bandwidth-delay "
        "product (about 140 packets) the NewReno flow's halvings leave the Classic queue "
        "below the target part of the time, which the PI2 steady state does not have",
        0.50, sides=("packets",)),
    ("l4s-coexistence", "1 Prague + 1 Reno: per-flow rate ratio C/L"): Known(
        "mechanism differs",
        "measured 0.512 against the law's 0.740 (-31 %), queues 0.30 ms (L) and 15.0 ms (C); "
        "with more flows against one the ratio comes within 20 % (0.605 at 1 + 4, 0.696 "
        "at 4 + 1)" + _NOT_ESTABLISHED, 0.40, sides=("packets",)),
    ("l4s-coexistence", "2 Prague + 2 Reno: per-flow rate ratio C/L"): Known(
        "mechanism differs",
        "measured 0.555 against the law's 0.740 (-25 %), queues 0.39 ms (L) and 15.5 ms (C)"
        + _NOT_ESTABLISHED, 0.33, sides=("packets",)),
    ("l4s-coexistence", "1 Prague + 1 Cubic: per-flow rate ratio C/L"): Known(
        "mechanism differs",
        "measured 0.528 against the law's 0.740 (-29 %; the law takes Reno's response, and "
        "CUBIC's Reno-friendly region is Reno's), queues 0.32 ms (L) and 15.4 ms (C); "
        "2 + 2 Cubic: 0.605 (-18 %), within 20 % since Cubic's ssthresh is capped at beta "
        "cwnd (0.475 before, 27 Nov 2026)" + _NOT_ESTABLISHED, 0.36, sides=("packets",)),
}


@register("aqm-dualpi2",
          title="DualPI2: Classic/L4S per-flow rate ratio against the coupling law over "
                "capacity x RTT, its bias with k, the L and Classic queues' delays",
          paper="De Schepper, Briscoe, White, RFC 9332 (DualQ Coupled AQM), 2023, "
                "Section 2.1 and Appendix A",
          sides=("packets",))
def aqm_dualpi2(*, sides, quick) -> list[Check]:
    """Per grid point of :data:`GRID`: the ratio at k = 2, the bias for k = 1 and 4, the two
    queues' delays at k = 2."""
    rows = []
    name = "aqm-dualpi2"
    for capacity, rtt in GRID:
        seen = {k: run(capacity, rtt, k, 1, "reno", 1, quick) for k in KS} \
            if "packets" in sides else None
        lab = _label(capacity, rtt)
        exp = expected_ratio(2.0, capacity, rtt)
        q = f"{lab}: C/L rate ratio, k = 2"
        rows.append(Check(
            name, q, exp, source="closed form",
            packets=Side(seen[2.0]["ratio"], TOL["ratio"],
                         method=_method(capacity, rtt, 2.0, quick, "; mean NewReno rate "
                                        "over mean Prague rate")) if seen else None,
            note=f"(1.22 k / 2) R_L / R_C with R_L = R_0 + 1 ms, R_C = R_0 + 15 ms, R_0 = "
                 f"{base_rtt(capacity, rtt) * 1e3:.2f} ms; equal RTTs would give 1.22",
            reference="RFC 9332, Section 2.1 (the coupling argument)",
            known=KNOWN.get((name, q))))
        for k in (1.0, 4.0):
            q = f"{lab}: ratio(k = {k:g}) / ratio(k = 2)"
            rows.append(Check(
                name, q, k / 2.0, source="closed form",
                packets=Side(seen[k]["ratio"] / seen[2.0]["ratio"], TOL["bias"],
                             method=_method(capacity, rtt, k, quick, f"; ratio {seen[k]['ratio']:.3f}"
                                            f" over {seen[2.0]['ratio']:.3f} at k = 2"))
                if seen else None,
                note="r_C / r_L is proportional to k (RFC 9332, Section 2.1)",
                reference="RFC 9332, Section 2.1 (p_C = (p_CL / k)^2)",
                known=KNOWN.get((name, q))))
        q = f"{lab}: L queue delay, k = 2"
        rows.append(Check(
            name, q, Bounds(0.0, 1.2e-3), source="paper (stated)", unit="s",
            packets=Side(seen[2.0]["q_l"], 0.0,
                         method=_method(capacity, rtt, 2.0, quick, "; the Prague flow's mean "
                                        "queueing delay")) if seen else None,
            note="at most the native ramp's end min_th + range = 1.2 ms",
            reference="RFC 9332, Figure 2 (minTh 800 us, range 400 us)",
            known=KNOWN.get((name, q))))
        q = f"{lab}: Classic queue delay, k = 2"
        rows.append(Check(
            name, q, 15e-3, source="paper (stated)", unit="s",
            packets=Side(seen[2.0]["q_c"], TOL["delay_c"],
                         method=_method(capacity, rtt, 2.0, quick, "; the NewReno flow's mean "
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
                                f"{seen['q_l'] * 1e3:.2f} ms, C {seen['q_c'] * 1e3:.1f} ms")
            if seen else None,
            note=f"(1.22 k / 2) R_L / R_C, k = 2, R_L = R_0 + 1 ms, R_C = R_0 + 15 ms, R_0 = "
                 f"{base_rtt(capacity, rtt) * 1e3:.2f} ms (equal RTTs: 1.22); Cubic in its "
                 f"Reno-friendly region at this BDP",
            reference="RFC 9332, Section 2.1 (the coupling argument)",
            known=KNOWN.get(("l4s-coexistence", q))))
    return rows
