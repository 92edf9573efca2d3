"""Accumulation-based congestion control (ACC, Monaco, Vegas): Figures 2, 4, 5, 6-8, 9, 10, 11.

Each experiment builds the figure's network once (:mod:`qosmodels.topologies`,
:mod:`qosmodels.fluid.scenarios`) and feeds it to the theory side (the ACC
equilibrium :func:`qosmodels.fluid.acc_equilibrium`, weighted proportional
fairness with weights the targets, or the paper's estimator equations (11)
and (12)) and to the fluid side (:func:`qosmodels.fluid.solve_fluid`).  The
expected values are the paper's (its measurements in words, "Vegas
utilization is only 10% ~ 60%", or its stated formulas, 100/(3+N) Mb/s) or
closed forms derived independently of the library (the parking lot's
c/(m+N)); never the library's own model.  Every figure also has a packets
side: :class:`~qosmodels.mechanisms.Accumulation` sources with the paper's
kappa = 0.5, Monaco's estimator where the paper ran Monaco (Vegas' or
Vegas-k's for Figures 4 and 5's Vegas rows), drop-tail bottlenecks or, for
Figure 8 and two of Figure 9(d)-(f)'s five links, ``Avq(gamma=0.98, avd=True)``;
Figure 5's delay jump is a
:class:`~qosmodels.LinkChange` passed to ``simulate(events=...)``; Figure 10's
web traffic is :class:`~qosmodels.mechanisms.WebTraffic` connections (and its
theory and fluid sides leave it out).  ACC sources over drop-tail queues have no random
element, so a seed changes nothing; but Monaco takes one in-band sample per control period
at an instant tied to the bottleneck's packet service, so one run settles at one point of
the packet time, a deterministic phase that a shift of the round trip by a fraction of a
packet time moves.  The rows that turn on it (Figure 2's rates and queues, Figure 5's
Monaco rows, Figure 6's queues, Figure 11's rates) are the mean over runs at offsets of
the unstated delay (Figure 2's links' delay, the access delays of Figures 5, 6 and 11)
drawn uniformly from ``[0, phase_span x packet time)`` by :func:`qosmodels.sweep` (seed
:data:`PHASE_SEED`; phase_span 0.5 moves each round trip, which crosses the delay twice,
over a whole packet time), with a Student-t 95% confidence interval: 16 offsets in the
full form and 8 in the quick one (Figure 6's queues, five runs an offset: 8 and 4).  The
interval only decides whether a miss is "statistical"; the tolerances are the earlier
ones.  The other rows are one run each (Figure 10's web traffic and short-flow start
times drawn from seed 0).

The fluid runs use kappa = 0.2 where the paper's packet runs use 0.5 (Table
I): eq (6) in continuous time with the full feedback delay oscillates at 0.5
on some of these networks (see :mod:`qosmodels.fluid.stability`), while the
per-RTT discrete law of eq (10) does not.  They take well under a second
each, so the quick form runs them unchanged.

Unstated parameters and known differences: each experiment declares the set-up the
paper leaves open (:class:`~qosmodels.experiments.Unstated`: Figure 2's link delay,
Figure 4's reverse path -- the reverse flows' protocol, the reverse buffer, the delay --,
Figure 5's reverse delay jump, AVQ's gain in Figures 8, 9(d)-(f) and 10, the data timeout of
Figure 7's rows with the text's loss response (``timeout_beta``), Figure 9's long flows' RTT
spread and in-band control packet's size, Figure 11's access delay, and the span of the
phase offsets, ``phase_span``, of Figures 2, 5, 6 and 11), and every row outside tolerance
at the defaults carries
its :class:`~qosmodels.experiments.Known` cause and evidence next to it.  Monaco follows
Section IV-B.1: the next control pair leaves when the previous pair's echo arrives, and
loss is detected from the in-band packet's count of data.  Figure 7 also has rows with that
echo's decrease-due-to-loss as the only response to loss, the text's
(``Accumulation(timeout_halves=False)``; by default a retransmission timeout halves too).  Figure 9's rates at N != 5 turn
on the in-band packet's size, which the paper does not give (declared, ``control_size``):
their note gives the measured cause, the ACK-sized packet's bias in a chain of congested
links (it trails a long flow's data packet down the chain), and the control law's fixed
point with the measured biases (:func:`_fig9_fixed_point`), which predicts most of the long
flows' deficit.  Figure 9 as the paper runs it (mixed droptail and AVD bottlenecks at every N,
the long flows' RTTs spread) is the sibling experiment ``acc-fig9-paper``
(:mod:`qosmodels.experiments.acc_fig9`).

Tolerances: where the paper states a value in words ("only 10% ~ 60%",
"less than 10%", "around 100%"), a side must lie within 5 % (relative) of the
stated value or range, the rounding of those round percentages
(:data:`READ_TOL`); elsewhere the tolerances are those of the earlier
one-column rows.

References
----------
Y. Xia, D. Harrison, S. Kalyanaraman, K. Ramachandran, A. Venkatesan,
"Accumulation-based congestion control", IEEE/ACM Trans. Networking 13(1),
2005, Sections III, IV-C, V and the appendix; Figures 2, 4, 5, 6-8, 9, 10, 11;
Table I.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..topologies import acc_linear, acc_parking_lot
from ..units import Mbps
from .registry import Bounds, Check, Known, Side, Unstated, register

#: The paper's target accumulation a* (Table I), bytes.
TARGET = 3000
#: Packet size (Table I), bits.
PKT_BITS = 8000.0
#: Gain of the fluid runs (see the module docstring).
KAPPA = 0.2
#: Relative tolerance when reading a value the paper states in words (round percentages).
READ_TOL = 0.05
_PAPER = "Xia et al., Accumulation-based congestion control"
_SIDES = ("theory", "fluid")
_PACKET_SIDES = ("theory", "fluid", "packets")
#: The packet runs' gain (Table I).
PACKET_KAPPA = 0.5
#: Relative tolerance of the packets against a closed-form allocation (the issue's 3%).
PACKET_TOL = 0.03
#: (seconds simulated, warm-up) of the packet runs, full and quick.  One run each: ACC
#: sources over drop-tail queues have no random element, so every seed gives the same run.
PACKET_RUNS = {False: (60.0, 40.0), True: (40.0, 25.0)}


def _packets(net, quick, other=None, **source):
    """(throughput b/s, accumulation in packets by Little's law, utilisation) of ``net``
    with every flow an :class:`~qosmodels.mechanisms.Accumulation` source (``source``),
    and the method text; ``other`` maps flow indices to another source for them."""
    from ..mechanisms import Accumulation
    from ..sim import simulate

    duration, warmup = PACKET_RUNS[bool(quick)]
    src = Accumulation(**{"kappa": PACKET_KAPPA, "target": TARGET, **source})
    other = other or {}
    net = net.replace(flows=[dataclasses.replace(f, source=other.get(i, src))
                             for i, f in enumerate(net.flows)])
    r = simulate(net, duration, seed=0, warmup=warmup, progress=False)
    acc = r.throughput / PKT_BITS * np.nan_to_num(r.mean_queueing_delay)
    method = (f"simulate: Accumulation(control={src.control!r}, estimator={src.estimator!r}, "
              f"kappa={src.kappa:g}); {duration:g} s from {warmup:g} s, one run (no random "
              f"element)")
    return r.throughput, acc, r.utilisation, method


def _pside(value, tol, method) -> Side:
    return Side(float(value), tol, method=method)


#: Runs per packet row that turns on the in-band sample's phase (full form, quick form):
#: each with its own offset of the unstated delay (:func:`_over_phases`).  Figures 6-8's
#: queue rows, five runs of up to 50 s per offset, take :data:`_FIG6_OFFSETS`.
PHASE_OFFSETS = {False: 16, True: 8}
_FIG6_OFFSETS = {False: 8, True: 4}
#: Root seed of the offsets (:func:`qosmodels.sweep`'s ``seed``).
PHASE_SEED = 0
#: The offsets' range, in packet times of the bottleneck (declared: the paper gives no
#: delay to a fraction of a packet time).
_PHASE_SPAN = Unstated(
    "phase_span", 0.5, (1.0,),
    "the paper's delays are not given to a fraction of a packet time, and Monaco's once-per-"
    "period in-band sample falls at a point of the packet time that such a fraction decides; "
    "the packet rows average over it: an offset uniform on [0, span x packet time) of a delay "
    "each round trip crosses twice moves the round trip uniformly over one packet time "
    "(0.5) or two (1.0), the same phase distribution either way",
    unit="packet times")


def _over_phases(run, n, span, packet_time):
    """``run(offset)`` (a mapping of scalars) for ``n`` offsets drawn
    uniformly from [0, ``span`` x ``packet_time``) s by :func:`qosmodels.sweep` (seed
    :data:`PHASE_SEED`, one offset per run's seed): the table, one row per offset, with the
    offset in column ``offset``."""
    from ..parallel import sweep

    def fn(seed):
        u = float(np.random.default_rng(seed).uniform(0.0, span * packet_time))
        return {"offset": u, **run(u)}

    return sweep(fn, {}, seeds=n, seed=PHASE_SEED, progress=False)


def _phase_text(df, what, span, packet_time) -> str:
    """How a table of :func:`_over_phases` was made (for a side's method)."""
    return (f"the mean over {len(df)} runs, {what} plus an offset drawn uniformly from [0, "
            f"{span:g} x {packet_time * 1e3:.3g} ms) (sweep, seed {PHASE_SEED}); offsets "
            + ", ".join(f"{u * 1e3:.3f}" for u in df["offset"]) + " ms")


def _phase_side(values, tol, method, fmt=".3f") -> Side:
    """The packets side of a row measured at each offset: the mean, its Student-t 95%
    half-width and, in the method, the per-offset values."""
    from ._networks import t_half_width

    v = np.asarray(values, dtype=float)
    return Side(float(v.mean()), tol, ci=t_half_width(v),
                method=method + "; per offset " + ", ".join(f"{x:{fmt}}" for x in v))


def _solve(*args, **kw):
    from ..fluid import solve_fluid

    return solve_fluid(*args, **kw)


def _equilibrium(net):
    from ..fluid import acc_equilibrium

    return acc_equilibrium(net, TARGET)


def _utilisation(eq, link: int = 0) -> float:
    """Equilibrium utilisation of a link: its flows' rates over its capacity."""
    net = eq.network
    return float((net.routing_matrix @ eq.rates)[link] / net.capacities[link])


def _noted(check: Check, note: str, side: str | None = None) -> Check:
    """``check`` with ``note`` when a side is outside its tolerance (``side``: when that
    side is)."""
    if check.ok or (side is not None and side not in check.failing):
        return check
    return dataclasses.replace(check, note=note)


@register("acc-fig2",
          title="ACC Fig. 2: P, AIAD and MW laws reach the same allocation on the parking lot",
          paper=f"{_PAPER}, Fig. 2", sides=_PACKET_SIDES, unstated=(
              Unstated("delay", 0.01, (0.002, 0.005, 0.02),
                       "the paper gives the two bottlenecks' capacity (9 Mb/s), not their "
                       "delay; its other figures use 2 ms (Fig. 6) to 20 ms (Fig. 11) per link",
                       unit="s"), _PHASE_SPAN))
def fig2(*, sides, quick, params) -> list[Check]:
    net = acc_parking_lot(delay=params["delay"])
    span, ptime = params["phase_span"], PKT_BITS / float(net.capacities[0])
    c = float(net.capacities[0])
    # weighted proportional fairness, equal weights, 1 long flow over N = 2 links: c/(1+N), cN/(1+N)
    expected = (c / 3 / 1e6, 2 * c / 3 / 1e6, 2 * c / 3 / 1e6)
    eq = _equilibrium(net) if "theory" in sides else None
    checks = []
    for control, kappa in (("P", KAPPA), ("AIAD", 0.1), ("MW", 1.0)):
        r = _solve(net, 80.0, control=control, kappa=kappa, target=TARGET) \
            if "fluid" in sides else None
        method = f"solve_fluid(control={control!r}, kappa={kappa}), mean over 60-80 s"
        rates = None if r is None else r.mean("rates", 60.0, 80.0)
        pk = None
        if "packets" in sides:
            def run(u, control=control):
                x, held, _, text = _packets(acc_parking_lot(delay=params["delay"] + u), quick,
                                            control=control, estimator="monaco")
                return {**{f"x{i}": x[i] / 1e6 for i in range(3)}, "held": held.sum(),
                        "text": text}

            df = _over_phases(run, PHASE_OFFSETS[bool(quick)], span, ptime)
            text = df["text"][0].replace(", one run (no random element)", "")
            pk = (df, text + "; " + _phase_text(
                df, f"the links' delay {params['delay'] * 1e3:g} ms", span, ptime))
        for i, value in enumerate(expected):
            packets = (None if pk is None else
                       _phase_side(pk[0][f"x{i}"], PACKET_TOL, pk[1] + "; Mb/s"))
            note = ""
            if packets is not None and not packets.ok(value):
                note = (f"packets {packets} Mb/s (the paper's footnote 4: 'the equilibria of "
                        f"the three algorithms are not exactly the same').  " + _FIG2_PHASE)
            quantity = f"{control} {net.flow_names[i]} rate"
            checks.append(Check(
                "acc-fig2", quantity, value, source="closed form", known=_FIG2_KNOWN.get(quantity),
                unit="Mb/s",
                theory=None if eq is None else Side(eq.rates[i] / 1e6, 1e-6,
                                                    method="fluid.acc_equilibrium"),
                fluid=None if r is None else Side(rates[i] / 1e6, 5e-3, method=method),
                packets=packets,
                reference="weighted proportional fairness (paper's appendix) on the two-link "
                          "parking lot: c/(m+N) long, cN/(m+N) short, c = 9 Mb/s", note=note))
        held = None if pk is None else _phase_side(
            pk[0]["held"], 0.05,
            pk[1] + "; each flow's rate times its mean queueing delay (Little's law), summed; "
                    "packets")
        checks.append(Check(
            "acc-fig2", f"{control} total queue", 3 * TARGET * 8 / PKT_BITS,
            source="paper (stated)", unit="packets",
            theory=None if eq is None else Side(eq.queues.sum() / PKT_BITS, 1e-6,
                                                method="fluid.acc_equilibrium"),
            fluid=None if r is None else Side(r.mean("queues", 60.0, 80.0).sum() / PKT_BITS, 1e-2,
                                              method=method),
            packets=held,
            reference="equilibrium accumulation a* per flow (appendix), a* = 3000 B (Table I): "
                      "3 flows hold 9 packets",
            known=_FIG2_KNOWN.get(f"{control} total queue"),
            note=("" if held is None or held.ok(9.0) else
                  f"packets {held} packets held.  " + _FIG2_PHASE)))
    return checks


_FIG2_PHASE = (
    "One packet run is one draw of a deterministic phase: Monaco takes one in-band sample "
    "per control period, at an instant tied to the bottleneck's packet service (the pair "
    "leaves when the previous pair's echo arrives, and the echo when its in-band packet "
    "leaves a link behind a data packet), so the sample falls at the same point of the "
    "0.89 ms packet time every period, and the flows settle where that sample, not the time "
    "average, equals a*; a shift of the links' delay by a fraction of a packet time moves a "
    "run across the tolerance (one run at 10.000/10.111/10.222/10.333 ms: the three flows "
    "held 8.46/8.28/7.79/8.68 packets under the MW law, the long flow got 2.89/3.00/3.06/"
    "2.96 Mb/s under the P law).  The rows are therefore the mean over runs at offsets of "
    "the unstated delay drawn uniformly over half a packet time (phase_span; the values per "
    "offset are in the method), with a Student-t 95% interval.")
#: Figure 2's known differences, measured as the mean over offsets (PHASE_OFFSETS) of the
#: links' delay, full and quick form.  Before the mean over offsets (one run at 10 ms) the
#: long flow's rate missed 3 Mb/s under the P and AIAD laws (2.89, 2.87); over offsets it
#: is 2.93 +- 0.05 (P), 2.94 +- 0.11 (AIAD), 2.99 +- 0.10 (MW) in the full form.
_FIG2_KNOWN = {
    "MW total queue": Known(
        "statistical",
        "Mean over 16 offsets of the links' delay (full form): 8.37 +- 0.18 packets held "
        "(95% interval; per offset 7.80 to 9.02), whose upper end 8.55 just reaches the 5% "
        "band around 9; quick form (8 offsets) 8.41 +- 0.28.  The other laws' means are "
        "8.79 +- 0.17 (P) and 8.64 +- 0.29 (AIAD), inside: all three below a* per flow, as "
        "acc-fig5's one flow is (the in-band sample waits a little longer on average than "
        "the data do).  Before the mean over offsets one run at 10 ms held 8.46.", 0.1,
        sides=("packets",)),
}

_FIG4_NOTE = (
    "Eq (12) and the fluid model put Vegas at min(1, c_r/c_f) (0.78 at 35, 1.0 at 45 Mb/s), "
    "above the paper's 10%-60%: both assume that a queue forms only at a saturated link, so "
    "that the reverse queue's delay is the reverse flows' 7 a*/c_r and nothing else.  The "
    "packet runs (the same Vegas estimator and P law) show queues at links that are not "
    "saturated: at c_r = 45 Mb/s both bottlenecks are 68% busy yet each holds 22.4 packets "
    "on average and is empty in 33% of 10 ms samples (at 35: forward 59% busy, 20.1 packets, "
    "empty 42%), the bursts of each direction's data and the other's ACKs sharing a queue; "
    "Vegas counts that queueing as accumulation and backs off (measured on the 40 s runs "
    "from 25 s, acc_reverse_dumbbell at the defaults).  The fluid model's smooth flows have "
    "no such bursts: its assumption, not a defect of either side.")
_FIG4_MONACO_NOTE = ("The fluid model's two-way traffic settles into a limit cycle (each "
                     "direction's ACKs queue behind the other's data) that costs Monaco a few "
                     "percent of the forward link; the paper reports around 100%.  In packets "
                     "the same coupling is stronger when the reverse link is slower than the "
                     "forward one but not much slower: at c_r = 15, 25 and 35 Mb/s both queues "
                     "swing (the reverse one between 0 and about 200 packets, standard "
                     "deviation 59-71), part of each forward window then waits as ACKs in the "
                     "reverse queue, and the forward queue runs dry: it is empty in 32%, 26% "
                     "and 24% of 10 ms samples, and its being empty correlates 0.50-0.54 with "
                     "the reverse queue's length at the same instant (measured on the 40 s "
                     "runs, from 25 s).  Monaco's estimate leaves the reverse queue out, as the "
                     "paper says; the sources' windows are still clocked by their ACKs.")
_FIG4_MODEL = Known(
    "mechanism differs",
    "Eq (12) and the fluid model assume queues only at saturated links (see the note): 0.78 "
    "against the paper's <= 0.60; the packet runs, with bursty two-way queues at unsaturated "
    "links, give 0.59 (full and quick form), inside the paper's range.", 0.35,
    sides=("theory", "fluid"))
_FIG4_REVERSE_BUFFER = (
    "Monaco's forward utilisation in packets at the defaults (1000-packet reverse buffer): "
    "0.83, 0.86, 0.87 at c_r = 15, 25, 35 Mb/s (full form; quick 0.82, 0.85, 0.87), the "
    "reverse queue holding part of the forward windows as ACKs (see the note).  With the "
    "reverse buffer at ns-2's default 50 packets (reverse_buffer=50): 0.996, 0.994, 0.994, "
    "and the fluid side 0.96, 0.95, 0.98 (the fluid at 35 Mb/s, 0.949 at the defaults, is "
    "just outside 5%); at c_r = 5 Mb/s that buffer costs Monaco 0.985 instead of 0.998.  "
    "100 packets give 0.986-0.998 and 300 packets 0.83-0.87 at 15-35 Mb/s; Reno reverse "
    "flows (reverse_reno=1) 0.96, 0.96, 0.99 (full form, validate(explore=True) and the "
    "same runs one by one).")
#: Figure 4's known differences, by row quantity (measured with the full and quick forms).
_FIG4_KNOWN = {
    "Vegas forward utilisation, c_r=35 Mb/s": _FIG4_MODEL,
    "Vegas forward utilisation, c_r=45 Mb/s": Known(
        "mechanism differs",
        "Eq (12) and the fluid model give 1.0 (both links saturated, the queueing split "
        "between them), against the paper's <= 0.60: the model's assumption of queues only at "
        "saturated links (see the note).  The packets give 0.68 at the defaults (full and "
        "quick form), between the two; the unstated delay moves them (0.74 at 2 ms, 0.63 at "
        "10 ms, 0.59 at 20 ms per bottleneck, measured with validate(explore=True)), but no "
        "setting moves eq (12) or the fluid.", 0.75),
    "Monaco forward utilisation, c_r=15 Mb/s": Known(
        "unstated parameter", _FIG4_REVERSE_BUFFER, 0.2, sides=("packets",)),
    "Monaco forward utilisation, c_r=25 Mb/s": Known(
        "unstated parameter", _FIG4_REVERSE_BUFFER, 0.2, sides=("packets",)),
    "Monaco forward utilisation, c_r=35 Mb/s": Known(
        "unstated parameter", _FIG4_REVERSE_BUFFER, 0.16, sides=("fluid", "packets")),
}


def _fig4_noted(check: Check) -> Check:
    """A Vegas row's note and declared difference: why theory and fluid miss the paper, and
    what the packets say."""
    check = dataclasses.replace(check, known=_FIG4_KNOWN.get(check.quantity))
    if check.ok:
        return check
    notes = []
    if {"theory", "fluid"} & set(check.failing):
        notes.append(_FIG4_NOTE)
    if check.packets is not None:
        v = check.packets.value
        if "packets" in check.failing:
            notes.append(f"Packets: {v:.2f}, above the paper's 60% where the reverse link is as "
                         f"fast as the forward one, though far below eq (12)'s 1.0.")
        else:
            notes.append(f"Packets side with the paper: {v:.2f}.")
    return dataclasses.replace(check, note="  ".join(notes))


def _fig4_monaco_noted(check: Check) -> Check:
    """A Monaco row's note and declared difference."""
    check = dataclasses.replace(check, known=_FIG4_KNOWN.get(check.quantity))
    return _noted(check, _FIG4_MONACO_NOTE)


#: Figure 4's set-up the paper does not give (it gives the capacities and the flow counts).
_FIG4_UNSTATED = (
    Unstated("reverse_reno", 0, (1,),
             "the paper does not say which protocol its seven reverse flows ran: the forward "
             "flows' own scheme (0, the default) or ns-2's usual FTP over TCP Reno (1), which "
             "fills the reverse buffer instead of holding a* per flow"),
    Unstated("reverse_buffer", 1000, (50, 100, 300),
             "the reverse bottleneck's buffer is not given: from ns-2's default queue limit of "
             "50 packets to the 1000 the library takes for 'enough buffer'", unit="packets"),
    Unstated("delay", 0.005, (0.002, 0.01, 0.02),
             "the dumbbell's propagation delay is not given; the paper's other single "
             "bottlenecks have 2 ms (Fig. 6) to 20 ms (Fig. 11) per link", unit="s"),
)


def _fig4_net(cr, params):
    """Figure 4's dumbbell at reverse bandwidth ``cr`` Mb/s with ``params`` (the declared
    unstated set-up)."""
    from ..fluid.scenarios import acc_reverse_dumbbell

    net = acc_reverse_dumbbell(Mbps(cr), delay=params["delay"])
    return net.replace_link(1, buffer=int(params["reverse_buffer"]))


def _fig4_vegas_theory(net, params):
    """Eq (12)'s forward utilisation: each forward Vegas flow counts the reverse queueing
    delay ``t_q^b`` as its own, ``x = a*/t_q^b``; with the reverse flows holding a* each
    (their own scheme), ``t_q^b = n_r a*/c_r`` and the utilisation is ``min(1, c_r/c_f)``;
    with Reno reverse flows filling the reverse buffer ``B``, ``t_q^b = B/c_r``."""
    c_f, c_r = float(net.capacities[0]), float(net.capacities[1])
    n_f = sum(1 for name in net.flow_names if name.startswith("fwd"))
    if params["reverse_reno"]:
        t_b = float(net.buffers[1]) * PKT_BITS / c_r
        return (min(1.0, n_f * TARGET * 8 / t_b / c_f),
                "eq (12) with the reverse buffer full (Reno): x = a*/(B/c_r)")
    return min(1.0, c_r / c_f), "eq (12): x = a*/t_q^b, utilisation min(1, c_r/c_f)"


@register("acc-fig4",
          title="ACC Fig. 4: forward utilisation under reverse-path congestion, Vegas vs Monaco",
          paper=f"{_PAPER}, Fig. 4 and eq (12)", sides=_PACKET_SIDES, unstated=_FIG4_UNSTATED)
def fig4(*, sides, quick, params) -> list[Check]:
    from ..mechanisms import TcpReno

    checks = []
    for cr in (5, 15, 25, 35, 45):
        net = _fig4_net(cr, params)
        rev = ({i: TcpReno() for i, name in enumerate(net.flow_names) if name.startswith("rev")}
               if params["reverse_reno"] else None)
        rev_text = "; reverse flows TcpReno()" if rev else ""
        fl = {}
        if "fluid" in sides:
            for est in ("vegas", "monaco"):
                r = _solve(net, 40.0, kappa=KAPPA, estimator=est, target=TARGET)
                fl[est] = Side(float(r.utilisation(25.0, 40.0)[0]), READ_TOL,
                               method=f"solve_fluid(estimator={est!r}), mean over 25-40 s"
                                      + ("; reverse flows ACC too (the fluid model has no "
                                         "Reno)" if rev else ""))
        vegas_range = Bounds(0.10, 0.60)
        packets = None
        if "packets" in sides:
            _, _, util, method = _packets(net, quick, rev, control="P", estimator="vegas")
            packets = _pside(util[0], READ_TOL, method + rev_text + "; forward link busy time")
        theory = None
        if "theory" in sides:
            value, how = _fig4_vegas_theory(net, params)
            theory = Side(value, READ_TOL, method=how)
        checks.append(_fig4_noted(Check(
            "acc-fig4", f"Vegas forward utilisation, c_r={cr} Mb/s", vegas_range,
            source="paper (measured)", paper=vegas_range,
            theory=theory, fluid=fl.get("vegas"), packets=packets,
            reference="paper, Section IV-C: 'As shown in Figure 4, Vegas utilization is only "
                      "10% ~ 60%' (reverse bandwidth 5 to 45 Mb/s)")))
        mpk = None
        if "packets" in sides:
            _, _, util, method = _packets(net, quick, rev, control="P", estimator="monaco")
            mpk = _pside(util[0], READ_TOL, method + rev_text + "; forward link busy time")
        checks.append(_fig4_monaco_noted(Check(
            "acc-fig4", f"Monaco forward utilisation, c_r={cr} Mb/s", 1.0,
            source="paper (measured)", paper=1.0,
            theory=(Side(_utilisation(_equilibrium(net)), READ_TOL,
                         method="fluid.acc_equilibrium (unbiased estimator)")
                    if "theory" in sides else None),
            fluid=fl.get("monaco"), packets=mpk,
            reference="paper, Section IV-C: 'As shown in Figures 4 and 5(c) ... Monaco operates "
                      "at around 100% utilization'")))
    return checks


@register("acc-fig5",
          title="ACC Fig. 5: delay 12 -> 52 ms at 10 s: Vegas starves, Vegas-k fills the buffer, "
                "Monaco recovers",
          paper=f"{_PAPER}, Fig. 5 and eq (11)", sides=_PACKET_SIDES, unstated=(
              Unstated("reverse_jump", 1, (0, 0.5),
                       "the paper says the propagation delay changes to 52 ms, not whether the "
                       "ACK path's delay changes with it: the whole jump on the way back too "
                       "(1, the library's reading: the reverse hop is not declared), none of it "
                       "(0: only the forward delay jumps) or half"), _PHASE_SPAN))
def fig5(*, sides, quick, params) -> list[Check]:
    net, events, rtt_jump = _fig5_setup(params["reverse_jump"])
    change = events[0]
    c = float(net.capacities[0])
    after = net
    for e in events:
        after = after.replace_link(e.link, delay=e.delay)
    fluid = "fluid" in sides
    theory = "theory" in sides
    packets = "packets" in sides
    checks = []
    r = _solve(net, 40.0, kappa=KAPPA, estimator="vegas", target=TARGET, events=events) \
        if fluid else None
    pv, pvm = _jump_packets(net, events, "vegas", 40.0) if packets else (None, "")
    low = Bounds(upper=0.10)
    checks.append(Check(
        "acc-fig5", "Vegas utilisation after the jump", low, source="paper (measured)", paper=low,
        # Vegas keeps rtt_p = 26 ms: x (rtt_p' - rtt_p) = a* with an empty queue
        theory=(Side(TARGET * 8 / rtt_jump / c, READ_TOL,
                     method="eq (11): x = a* / (rtt_p,new - rtt_p,old)") if theory else None),
        fluid=(Side(float(r.utilisation(20.0, 40.0)[0]), READ_TOL,
                    method="solve_fluid(estimator='vegas'), mean over 20-40 s") if fluid else None),
        packets=(None if pv is None else _pside(
            pv.utilisation[0], READ_TOL, pvm + "; bottleneck busy time over 20-40 s")),
        reference="paper, Section IV-C: 'Vegas operates with very low utilization of less than "
                  "10%'"))
    if fluid or packets:
        buffer = float(net.buffers[0])
        fk = _solve(net, 100.0, kappa=KAPPA, estimator="vegas-k", target=TARGET,
                    events=events) if fluid else None
        pk, pkm = _jump_packets(net, events, "vegas-k", 100.0) if packets else (None, "")
        if pk is not None:
            # the largest number waiting, the packet in service apart, is buffer - 1 when one
            # is lost: the row's 1% tolerance covers it
            q = pk.queue_series[:, 0]
            full = q >= buffer - 1
            pkm += "; queue sampled every 0.1 s, 0-100 s" + (
                f"; full from {pk.t[np.argmax(full)]:.1f} s, {int(pk.counters['dropped'][0])} "
                f"packets lost" if full.any() else "")
        checks.append(Check(
            "acc-fig5", "Vegas-k largest queue (reaches the buffer)", buffer,
            source="paper (measured)", unit="packets",
            fluid=None if fk is None else Side(
                fk.queues[:, 0].max() / PKT_BITS, 1e-2,
                method="solve_fluid(estimator='vegas-k'), max queue over 0-100 s"),
            packets=None if pk is None else _pside(q.max(), 1e-2, pkm),
            reference="paper: 'Vegas-k operates with queue increase until loss occurs' (buffer "
                      "of fluid.scenarios.acc_delay_jump: 100 packets)"))
    if fluid:
        r = _solve(net, 60.0, kappa=KAPPA, estimator="monaco", target=TARGET, events=events)
    eq = _equilibrium(after) if theory else None
    pm = pmm = None
    if packets:
        span, ptime = params["phase_span"], PKT_BITS / c

        def run(u):
            # the offset on the access link s0->r0 (1 ms, the scenario's choice)
            r, text = _jump_packets(net.replace_link(1, delay=float(net.delays[1]) + u),
                                    events, "monaco", 60.0)
            thr = r.throughput_series[:, 0] / c
            back = (r.t[:-1] > change.time) & (thr >= 1.0 - READ_TOL)
            return {"util": float(r.utilisation[0]),
                    "held": float(r.throughput[0] / PKT_BITS * r.mean_queueing_delay[0]),
                    "back": (float(r.t[np.argmax(back)] - change.time) if back.any()
                             else float("inf")),
                    "lost": float(r.counters["dropped"][0]), "text": text}

        pm = _over_phases(run, PHASE_OFFSETS[bool(quick)], span, ptime)
        pmm = pm["text"][0].replace(", one run", "") + "; " + _phase_text(
            pm, f"the access delay {float(net.delays[1]) * 1e3:g} ms", span, ptime)
    method = "solve_fluid(estimator='monaco'), mean over 40-60 s"
    checks.append(Check(
        "acc-fig5", "Monaco utilisation after recovery", 1.0, source="paper (measured)", paper=1.0,
        theory=None if eq is None else Side(_utilisation(eq), READ_TOL,
                                            method="fluid.acc_equilibrium"),
        fluid=None if r is None else Side(float(r.utilisation(40.0, 60.0)[0]), READ_TOL,
                                          method=method),
        packets=None if pm is None else _phase_side(pm["util"], READ_TOL,
                                                    pmm + "; bottleneck busy time over "
                                                          "40-60 s"),
        reference="paper: 'Monaco operates at around 100% utilization with no packet loss'"))
    checks.append(_noted(Check(
        "acc-fig5", "Monaco queue after recovery", TARGET * 8 / PKT_BITS, source="paper (stated)",
        unit="packets",
        theory=None if eq is None else Side(eq.queues[0] / PKT_BITS, 1e-6,
                                            method="fluid.acc_equilibrium"),
        fluid=None if r is None else Side(r.mean("queues", 40.0, 60.0)[0] / PKT_BITS, 1e-2,
                                          method=method),
        packets=None if pm is None else _phase_side(
            pm["held"], 0.05,
            pmm + "; rate times mean queueing delay over 40-60 s (Little's law), packets"),
        reference="equilibrium accumulation a* (appendix), a* = 3000 B = 3 packets (Table I)",
        known=_FIG5_KNOWN_QUEUE), _MONACO_QUEUE_NOTE, side="packets"))
    if pm is not None:
        checks.append(_noted(Check(
            "acc-fig5", "Monaco transient after the jump", Bounds(2.5, 3.5),
            source="paper (stated)", unit="s", paper=3.0,
            packets=_phase_side(pm["back"], 0.0, fmt=".1f",
                                method=pmm + "; from the jump to the first 0.1 s interval "
                                             "at 95% of the capacity or more"),
            reference="paper: 'after a brief transient period of three seconds, Monaco operates "
                      "at around 100% utilization' (three seconds read as 2.5-3.5 s)",
            known=_FIG5_KNOWN_TRANSIENT), _FIG5_TRANSIENT_NOTE))
        checks.append(Check(
            "acc-fig5", "Monaco packets lost", 0.0, source="paper (stated)", unit="packets",
            packets=_phase_side(pm["lost"], 0.0, pmm + "; 0-60 s", fmt=".0f"),
            reference="paper: '... with no packet loss'"))
    return checks


_MONACO_QUEUE_NOTE = (
    "One flow's packet run is one draw of a deterministic phase: Monaco takes one in-band "
    "sample per control period at an instant tied to the bottleneck's packet service (the "
    "pair leaves when the previous pair's echo arrives, and the echo when its in-band "
    "packet leaves the bottleneck behind a data packet), so the sample falls at the same "
    "point of the 0.8 ms packet time every period; the window settles where that sample "
    "equals a*, and the time average (Little's law) lies up to a packet away.  Measured (one "
    "flow, 10 Mb/s, 40 s runs from 20 s, the scenario's 1 ms access delay plus 0 to 0.75 ms "
    "in steps of 0.05 ms, so the round trip moves over two packet times): 2.71, 2.60, 2.46, "
    "2.35, 3.19, 3.07, 2.98, 2.83, 2.72, 2.58, 2.47, 2.36, 3.19, 3.05, 2.94, 2.85 packets "
    "held, a sawtooth of one packet per packet time of round trip, mean a* - 0.23 "
    "(tests/sim/test_monaco_control.py checks it).  The earlier timing, a pair at the end of "
    "each round of the window, sent ahead of the data packet its ACK released, sampled the "
    "queue just before that packet joined it: a* + 0.03 to a* + 1.01, mean a* + 0.58 over "
    "the same sweep.  The row is therefore the mean over runs at offsets of the access "
    "delay drawn uniformly over half a packet time (phase_span), with a Student-t 95% "
    "interval; the values per offset are in the method.")
_FIG5_KNOWN_QUEUE = Known(
    "statistical",
    "The packet row is the mean over offsets of the unstated access delay (see the note): "
    "2.69 +- 0.17 packets held (95% interval, 16 offsets over half a packet time, full form; "
    "per offset 2.20 to 3.12), whose upper end 2.87 reaches the 5% band around a*; quick "
    "form (8 offsets) 2.74 +- 0.27.  The mean lies below a*, as the even sweep's a* - 0.23 "
    "does: the in-band sample waits a little longer on average than the data.  Before the "
    "mean over offsets one run at 1 ms held 2.68.", 0.15, sides=("packets",))
_FIG5_TRANSIENT_NOTE = (
    "In fluid.scenarios.acc_delay_jump the ACKs take the bottleneck's delay back (the reverse "
    "hop is not declared), so the jump takes the round trip from 26 to 106 ms and the window "
    "must grow from about 33 to 133 packets; the P law adds kappa a* = 1.5 packets per round "
    "trip while the queue is empty, at least 67 round trips, about 7 s.")
_FIG5_KNOWN_TRANSIENT = Known(
    "unstated parameter",
    "Whether the ACK path's delay jumps with the forward one is not stated (reverse_jump): "
    "the packets take 6.6 s with the whole jump on the way back too (the default; the mean "
    "over the offsets of the access delay, 6.5-6.8 s per offset, full and quick form), 4.0 s "
    "with half of it and 2.1 s with none (one run each, validate(explore=True)); the "
    "paper's three seconds lie between the readings, none of which reaches 2.5-3.5 s.", 1.0,
    sides=("packets",))


def _fig5_setup(reverse_jump):
    """Figure 5's network, its delay-jump events and the jump of the round-trip propagation
    delay, with ``reverse_jump`` the fraction of the 40 ms jump the ACK path takes too (1:
    the reverse hop is not declared and follows the bottleneck's delay)."""
    from ..fluid import LinkChange
    from ..fluid.scenarios import acc_delay_jump

    net, change = acc_delay_jump()
    jump = change.delay - float(net.delays[0])
    if reverse_jump == 1:
        return net, [change], 2 * jump
    fwd = net.links[0]
    net = net.replace(links=[*net.links, dataclasses.replace(fwd, src=fwd.dst, dst=fwd.src)])
    back = LinkChange(change.time, f"{fwd.dst}->{fwd.src}",
                      float(fwd.delay) + reverse_jump * jump)
    return net, [change, back], (1 + reverse_jump) * jump


def _jump_packets(net, events, estimator, duration):
    """One packet run of Figure 5 (``events``: the delay jump at 10 s, the P law with kappa
    0.5, sampled every 0.1 s, measured from ``duration - 20`` s): the result and the
    method."""
    from ..mechanisms import Accumulation
    from ..sim import Record, simulate

    src = Accumulation(control="P", estimator=estimator, kappa=PACKET_KAPPA, target=TARGET)
    net = net.replace(flows=[dataclasses.replace(f, source=src) for f in net.flows])
    r = simulate(net, duration, seed=0, warmup=duration - 20.0, events=events,
                 record=Record(interval=0.1), progress=False)
    jumps = ", ".join(f"{e.link} {e.delay * 1e3:g} ms" for e in events)
    return r, (f"simulate(events=[LinkChange at 10 s: {jumps}]): Accumulation("
               f"control='P', estimator={estimator!r}, kappa=0.5); {duration:g} s, one run")


#: AVQ's gain, which the paper does not give (Figures 8 and 10; its desired utilisation,
#: 0.98, it does: "the target utilization value we configure in the AVD algorithm").
_AVQ_ALPHA = Unstated(
    "avq_alpha", 0.15, (0.05, 0.3, 0.6),
    "the paper gives AVD's desired utilisation (0.98) but not the virtual capacity's gain; "
    "AVQ's authors use 0.15 in their simulations, chosen from a stability condition that "
    "depends on the flows' number and RTTs, so a factor of a few either way is as plausible "
    "for other networks")

_PHASES = ((5.0, 10.0), (15.0, 20.0), (25.0, 30.0), (35.0, 40.0), (45.0, 50.0))
#: Flows of each set active in each phase.
_ACTIVE = ((10, 0, 0), (10, 5, 0), (10, 5, 5), (0, 5, 5), (0, 0, 5))
#: The per-flow throughputs the paper reports for the phases (Mb/s).
_FIG6_PAPER = (3.0, 2.0, 1.5, 3.0, 6.0)


def _active(net, t0, t1):
    """The network restricted to the flows active over [t0, t1]."""
    return net.replace(flows=[f for f in net.flows
                             if f.start <= t0 and (f.stop is None or f.stop >= t1)])


def _dynamic_packets(buffer, avd, sides, alpha=0.15, duration=50.0, warmup=0.0, offset=0.0,
                     timeout_halves=True, beta=2.0):
    """Figures 6-8 in packets (Monaco, kappa 0.5, one run of ``duration`` s measured from
    ``warmup``, sampled every 0.1 s; ``offset`` s added to every flow's first access link;
    ``timeout_halves=False``: only the echo's decrease-due-to-loss halves a window, and
    ``beta`` is then the sources' timeout multiplier): the result and the method, or
    (None, "") without the packets side."""
    if "packets" not in sides:
        return None, ""
    from ..fluid.scenarios import acc_dynamic_flows
    from ..mechanisms import Accumulation, Avq
    from ..sim import Record, simulate

    net = acc_dynamic_flows(buffer)
    if offset:
        net = net.replace(links=[dataclasses.replace(link, delay=link.delay + offset)
                                 if link.dst == "r0" else link for link in net.links])
    if avd:
        net = net.replace(links=[dataclasses.replace(link, queue=Avq(gamma=0.98, avd=True,
                                                                     alpha=alpha))
                                 if k == 0 else link for k, link in enumerate(net.links)])
    src = Accumulation(control="P", estimator="monaco", kappa=PACKET_KAPPA, target=TARGET,
                       timeout_halves=timeout_halves, beta=2.0 if timeout_halves else beta)
    net = net.replace(flows=[dataclasses.replace(f, source=src) for f in net.flows])
    r = simulate(net, duration, seed=0, warmup=warmup, record=Record(interval=0.1),
                 progress=False)
    return r, ("simulate: Accumulation(control='P', estimator='monaco', kappa=0.5"
               + (f", timeout_halves=False, beta={beta:g})" if not timeout_halves else ")")
               + (f", Avq(gamma=0.98, avd=True, alpha={alpha:g}) at the bottleneck" if avd
                  else "")
               + f", {buffer}-packet buffer; one run")


def _series_mean(r, series, k, t0, t1):
    """Mean of a packet run's per-interval series (``throughput_series``) over [t0, t1]."""
    sel = (r.t[:-1] >= t0) & (r.t[1:] <= t1)
    return float(series[sel, k].mean())


#: Figure 6(b)'s "two soon-recovered drops during abrupt demand changes at 30s and 40s": a
#: drop is a 0.1-s sample of the bottleneck's utilisation below "around 100%" as the module
#: reads it (1 - READ_TOL); "soon-recovered" is read as back above it within 1 s, a tenth of
#: the 10-s phases (the paper prints no duration).
_DIP_TIMES = (30.0, 40.0)
_DIP_LEVEL = 1.0 - READ_TOL
_DIP_RECOVERY = 1.0


def _utilisation_series(r):
    """(interval starts, the bottleneck's utilisation per interval): the flows' delivered
    data over the capacity, per ``throughput_series`` interval."""
    return r.t[:-1], r.throughput_series.sum(axis=1) / float(r.network.capacities[0])


def _fig6_dips(r):
    """Figure 6(b) measured from a packet run sampled every 0.1 s: for each of
    :data:`_DIP_TIMES`, (the lowest utilisation sample within 1 s of it, the time from it
    until the last sample below :data:`_DIP_LEVEL` in the following 2 s ends), and the
    lowest 0.5-s mean utilisation over 1-50 s outside [t, t + 1) of the two changes."""
    t, u = _utilisation_series(r)
    dt = float(t[1] - t[0])
    dips = []
    for c in _DIP_TIMES:
        near = (t >= c - 1.0) & (t < c + 1.0)
        after = (t >= c) & (t < c + 2.0)
        below = t[after][u[after] < _DIP_LEVEL]
        dips.append((float(u[near].min()), float(below[-1] + dt - c) if below.size else 0.0))
    lowest = np.inf
    for a in np.arange(1.0, 50.0, 0.5):
        if any(c <= a < c + 1.0 for c in _DIP_TIMES):
            continue
        sel = (t >= a - 1e-9) & (t < a + 0.5 - 1e-9)
        lowest = min(lowest, float(u[sel].mean()))
    return dips, lowest


#: Figure 8(c)'s "converges without oscillation ... comparable to result in the first
#: simulation": the throughput's coefficient of variation over 0.5-s means.  The paper
#: reads the first simulation's throughputs as round values ("about 3Mbps", 2, 1.5, 3, 6),
#: which the module reads within READ_TOL; a throughput whose 0.5-s means vary by less than
#: that (C.O.V. <= 5%) shows no oscillation at that reading.  0.5 s is 15-60 round trips
#: here, and 60-375 packets of a 1-6 Mb/s flow, so the packets' granularity stays below 2%.
_OSC_BIN = 0.5
_OSC_LIMIT = READ_TOL


def _throughput_cov(r, pmethod, flows=(0, 10, 15)) -> Side:
    """The packets side of a C.O.V. row: the largest coefficient of variation of one flow of
    each set's 0.5-s mean throughput over each of Figure 6's converged windows
    (:data:`_PHASES`), with every (window, set, C.O.V.) and the losses in its method."""
    covs = []
    for (t0, t1), counts in zip(_PHASES, _ACTIVE):
        for s, k in enumerate(counts):
            if not k:
                continue
            x = np.array([_series_mean(r, r.throughput_series, flows[s], a, a + _OSC_BIN)
                          for a in np.arange(t0, t1 - 1e-9, _OSC_BIN)])
            covs.append((t0, t1, s + 1, float(x.std() / x.mean())))
    text = ", ".join(f"{v:.3f} (set {s}, {t0:g}-{t1:g} s)" for t0, t1, s, v in covs)
    return Side(max(v for *_, v in covs), 0.0,
                method=pmethod + f"; {int(r.counters['dropped'].sum())} packets lost; C.O.V. "
                                 f"of one flow of each set's 0.5-s mean throughput over each "
                                 f"phase's last 5 s: {text}")


def _fig6_dip_checks(pk, pmethod) -> list[Check]:
    """Figure 6(b)'s rows: a drop at each of 30 and 40 s, recovered within 1 s, and the
    utilisation around 100% elsewhere (the packets side only; :func:`_fig6_dips`)."""
    dips, lowest = _fig6_dips(pk)
    quote = ("paper, Section V-A (Fig. 6(b)): 'bottleneck utilization always stays around "
             "100%, except two soon-recovered drops during abrupt demand changes at 30s and "
             "40s'")
    method = pmethod + "; the flows' delivered data over the capacity, per 0.1-s sample"
    checks = []
    for c, (low, recovery) in zip(_DIP_TIMES, dips):
        drop = Bounds(upper=_DIP_LEVEL)
        checks.append(Check(
            "acc-fig6", f"90 pkts: utilisation drop at {c:g} s (lowest 0.1-s sample)", drop,
            source="paper (measured)", paper=drop,
            packets=Side(low, 0.0, method=method + f", lowest within 1 s of {c:g} s"),
            reference=quote + "; a drop read as a sample below 'around 100%' (95%, READ_TOL)"))
        soon = Bounds(upper=_DIP_RECOVERY)
        checks.append(Check(
            "acc-fig6", f"90 pkts: recovery after the drop at {c:g} s", soon,
            source="paper (measured)", paper=soon, unit="s",
            packets=Side(recovery, 0.0, method=method + f"; time from {c:g} s to the end of "
                                                        f"the last sample below 95% within "
                                                        f"2 s"),
            reference=quote + "; 'soon-recovered' read as back above 95% within 1 s, a tenth "
                              "of the 10-s phases (the paper prints no duration)"))
    around = Bounds(lower=_DIP_LEVEL)
    checks.append(Check(
        "acc-fig6", "90 pkts: lowest 0.5-s utilisation outside the drops", around,
        source="paper (measured)", paper=around,
        packets=Side(lowest, 0.0, method=method.replace("per 0.1-s sample", "0.5-s means")
                     + "; 1-50 s less [30, 31) and [40, 41) s (the first second is the "
                       "flows' start)"),
        reference=quote + "; 'around 100%' read as at least 95% (READ_TOL), flows joining at "
                          "10 and 20 s included"))
    return checks


#: Figure 6's phase queues outside tolerance (the phase with five flows: full and quick form).
_FIG6_KNOWN_QUEUE = {
    (45.0, 50.0): Known(
        "mechanism differs",
        "Not the in-band sample's phase alone: over 8 offsets of the access delay (full "
        "form) the five flows of set 3 hold 13.12 +- 0.30 packets (95% interval; per offset "
        "12.62 to 13.51), below the 10% band around 15 by more than the interval (quick form, "
        "4 offsets: 13.12 +- 0.71).  Their estimates average a* (3.00 a flow, 'monaco_estimate' "
        "over 45-50 s at 6 offsets), their data hold 2.6: the in-band packet's forward "
        "queueing time exceeds the data's.  The library sends the pair from the host, so the "
        "40-byte in-band packet often waits behind its own flow's data packet on the paper's "
        "10 Mb/s access link and then reaches the bottleneck 32 us after it, waiting for most "
        "of that packet's 0.27 ms transmission there too.  Measured at the same 6 offsets "
        "(50 s runs from 45 s): 13.00 packets with the 10 Mb/s access links, 14.62 with "
        "1 Gb/s ones (inside 13.5-16.5); a 1000-byte in-band packet gives 10.11.  The paper "
        "says the pair leaves 'at the ingress node' and implements Monaco in a Click router "
        "(Section V-C), which may put the pair after the access link; it does not say.  The "
        "phases with 10-20 flows hold 2.79-2.91 a flow (27.95, 43.07, 58.23, 27.96 packets), "
        "inside the tolerance.",
        0.15, sides=("packets",))}
_FIG6_QUEUE_NOTE = (
    "packets {v} ({per:.2f} a flow), the mean over offsets of the access delay: the flows "
    "hold a* where their in-band sample waits, not in time average (see the declaration).")
#: Figure 7's utilisation over 20-30 s, where the 20 flows need more than the 55 packets.
_FIG7_KNOWN_UTIL = Known(
    "mechanism differs",
    "The paper does not say how Monaco retransmits; the library's sources go back N after "
    "a retransmission timeout (no fast retransmit), and a flow whose packet is lost sends "
    "nothing past its window until then.  With the paper's pair timing the 20 flows "
    "overflow the 55 packets more often than with the library's earlier timing (a pair at "
    "the end of each round of the window): 3316 packets lost and 1615 timeouts over the "
    "run, against 1001 and 760, and the link is busy 0.902 of 20-30 s against 0.981 "
    "(halving only on the timeout, as before: 0.936; only on the echo's "
    "decrease-due-to-loss: 0.909; full and quick form alike, the run does not depend on "
    "the form).", 0.12, sides=("packets",))
_FIG7_UTIL_NOTE = (
    "packets: the flows' losses stall them until their retransmission timeouts (go-back-N); "
    "the paper's Figure 7 halves windows too but keeps the link full.")
#: Figure 7 with the text's loss response only (timeout_halves=False): full and quick form
#: alike (the runs do not depend on the form).
_FIG7_ECHO_KNOWN_UTIL = Known(
    "unstated parameter",
    "Section IV-B.1 detects loss from the in-band packet's count of data and halves 'as in "
    "TCP Reno' at the echo's decrease-due-to-loss; it does not say how Monaco's lost data are "
    "sent again.  With that single response (Accumulation(timeout_halves=False)) the "
    "library's sources recover the data by going back N after a retransmission timeout, "
    "beta times the averaged RTT, and a flow sends nothing past its window until then: "
    "with the generic timer's beta = 2 the link is busy 0.909 of 20-30 s (0.902 when the "
    "timeout halves too, the default), and over the 50-s run 5916 packets are lost, 1773 "
    "timeouts fire and 16788 packets are sent again (default 3316, 1615, 7582).  The stall "
    "until the timeout is the cost: busy 0.9975, 0.967, 0.909, 0.861 of 20-30 s at beta = "
    "1.1, 1.5, 2, 3 (timeout_beta; with the default response the same betas give 0.971, "
    "0.912, 0.902, 0.914).", 0.12, sides=("packets",))
#: The sources' timeout multiplier in Figure 7's rows with the text's loss response.
_TIMEOUT_BETA = Unstated(
    "timeout_beta", 2.0, (1.1, 1.5, 3.0),
    "the paper does not say how Monaco's lost data are recovered; the library's sources go "
    "back N after beta times the averaged RTT: the generic timer's 2 (the default, as every "
    "other ACC row), or a TCP-like srtt + 4 rttvar, little above the average when the RTT is "
    "steady (1.1), up to 3; used by Figure 7's rows with timeout_halves=False only (the "
    "timer also replaces overdue control pairs)")
_FIG7_ECHO = "55 pkts, loss from the echo only"


def _fig7_echo_checks(sides, beta) -> list[Check]:
    """Figure 7's utilisation and oscillation with ``timeout_halves=False`` (the text's
    loss response: the echo's decrease-due-to-loss only) and timeout multiplier ``beta``."""
    pk, pmethod = _dynamic_packets(55, False, sides, timeout_halves=False, beta=beta)
    w, wmethod = _dynamic_packets(55, False, sides, duration=30.0, warmup=20.0,
                                  timeout_halves=False, beta=beta)
    lost = (f"{int(pk.counters['dropped'].sum())} packets lost, "
            f"{int(pk.counters['timeouts'].sum())} timeouts over 0-50 s")
    more = Bounds(lower=_OSC_LIMIT)
    return [
        _noted(Check(
            "acc-fig6", f"{_FIG7_ECHO}: utilisation 20-30 s", 1.0, source="paper (measured)",
            paper=1.0, known=_FIG7_ECHO_KNOWN_UTIL,
            packets=Side(float(w.utilisation[0]), 2e-2,
                         method=wmethod + f", measured 20-30 s; the bottleneck's busy time; "
                                          f"{lost}"),
            reference="paper Fig. 7: 'the bottleneck is still fully utilized'; Section "
                      "IV-B.1: 'If the egress node receives fewer bytes than were "
                      "transmitted, then packet loss is detected', and on "
                      "decrease-due-to-loss 'Monaco halves the congestion window as in TCP "
                      "Reno'"),
            "packets: one halving per loss, at the echo; the flows still stall until their "
            "retransmission timeouts (go-back-N, beta times the averaged RTT), the paper "
            "giving no data recovery (timeout_beta)",
            side="packets"),
        Check(
            "acc-fig6", f"{_FIG7_ECHO}: largest throughput C.O.V. (0.5-s means)", more,
            source="paper (measured)", paper=more,
            packets=_throughput_cov(pk, pmethod),
            reference="paper, Section V-A (Fig. 7(c)): 'the throughput is more oscillating'; "
                      "read as above 5%, as the row with the default loss response"),
    ]


#: Figure 8's utilisation (AVD, 55 packets): full and quick form alike.
_FIG8_KNOWN_UTIL = Known(
    "mechanism differs",
    "With the paper's pair timing eq (10) at kappa = 0.5 over an AVD bottleneck swings: the "
    "estimates of one flow run from 0.01 to 8 packets within a few periods (5-5.3 s), the "
    "queue between 0 and 43 packets, 1827 packets are lost and the link is busy 0.938 of "
    "the run (0.938-0.941 for avq_alpha 0.05-0.6, validate(explore=True)); the earlier "
    "timing (a pair at the end of each round of the window) lost 115 and kept 0.977.  At "
    "kappa = 0.3 or 0.2 either timing loses nothing and keeps 0.987-0.988 (measured, "
    "50 s runs); the paper's kappa is 0.5 (Table I).", 0.06, sides=("packets",))

@register("acc-fig6",
          title="ACC Figs. 6-8: dynamic flow sets on 30 Mb/s; 90- and 55-packet droptail, AVD",
          paper=f"{_PAPER}, Figs. 6-8", sides=_PACKET_SIDES,
          unstated=(_AVQ_ALPHA, _PHASE_SPAN, _TIMEOUT_BETA))
def fig6(*, sides, quick, params) -> list[Check]:
    from ..fluid.scenarios import acc_dynamic_flows

    fluid = "fluid" in sides
    theory = "theory" in sides
    checks = []
    first = (0, 10, 15)  # one flow of each set
    # Figure 6: enough buffer (90 packets)
    net = acc_dynamic_flows(90)
    r = _solve(net, 50.0, kappa=KAPPA, estimator="monaco", target=TARGET) if fluid else None
    pk, pmethod = _dynamic_packets(90, False, sides)
    for (t0, t1), counts, paper in zip(_PHASES, _ACTIVE, _FIG6_PAPER):
        n = sum(counts)
        thr = None if r is None else r.throughput(t0, t1)
        eq = _equilibrium(_active(net, t0, t1)) if theory else None
        for s, k in enumerate(counts):
            if not k:
                continue
            name = net.flow_names[first[s]]
            checks.append(Check(
                "acc-fig6", f"90 pkts: set {s + 1} rate, {t0:g}-{t1:g} s", paper,
                source="paper (measured)", paper=paper, unit="Mb/s",
                theory=None if eq is None else Side(
                    eq.rates[eq.network.flow_names.index(name)] / 1e6, 1e-6,
                    method="fluid.acc_equilibrium of the active flows"),
                fluid=None if thr is None else Side(thr[first[s]] / 1e6, 1e-2,
                                                    method="delivered bits / time"),
                packets=None if pk is None else Side(
                    _series_mean(pk, pk.throughput_series, first[s], t0, t1) / 1e6, READ_TOL,
                    method=pmethod + f"; goodput {t0:g}-{t1:g} s"),
                reference="paper, Section V-A: throughput about 3, 2, 1.5, 3, 6 Mb/s"))
        packets = None
        if pk is not None:
            # the data packets waiting, by Little's law over the phase (a run measured from
            # t0, at each offset of the access delay): the sampled queue_series also counts
            # Monaco's in-band control packets, one per flow for the part of each round trip
            # it spends queued
            def run(u, t0=t0, t1=t1):
                w, text = _dynamic_packets(90, False, sides, duration=t1, warmup=t0, offset=u)
                return {"held": float((w.throughput / PKT_BITS
                                       * np.nan_to_num(w.mean_queueing_delay)).sum()),
                        "text": text}

            span, ptime = params["phase_span"], PKT_BITS / float(net.capacities[0])
            w = _over_phases(run, _FIG6_OFFSETS[bool(quick)], span, ptime)
            sampled = float(pk.queue_series[(pk.t >= t0) & (pk.t <= t1), 0].mean())
            packets = _phase_side(
                w["held"], 0.1,
                w["text"][0].replace("; one run", "") + f", measured {t0:g}-{t1:g} s; "
                + _phase_text(w, "each flow's first access link's delay", span, ptime)
                + f"; data packets waiting: the flows' goodput times their mean queueing "
                  f"delay (Little's law), packets (the sampled count of waiting packets in the "
                  f"run without offsets, control packets included, is {sampled:.1f})", ".2f")
        checks.append(Check(
            "acc-fig6", f"90 pkts: queue, {t0:g}-{t1:g} s", 3.0 * n, source="paper (measured)",
            paper=3.0 * n, unit="packets", known=_FIG6_KNOWN_QUEUE.get((t0, t1)),
            note=("" if packets is None or abs(packets.value - 3.0 * n) <= 0.1 * 3.0 * n
                  else _FIG6_QUEUE_NOTE.format(v=str(packets), per=packets.value / n)),
            theory=None if eq is None else Side(eq.queues[0] / PKT_BITS, 1e-6,
                                                method="fluid.acc_equilibrium of the active flows"),
            fluid=None if r is None else Side(r.mean("queues", t0, t1)[0] / PKT_BITS, 2e-2,
                                              method="time-averaged bottleneck queue"),
            packets=packets,
            reference="paper: 'on average 3 packets for each flow'"))
    if r is not None or pk is not None:
        checks.append(Check(
            "acc-fig6", "90 pkts: lost packets", 0.0, source="paper (measured)", paper=0.0,
            unit="packets",
            fluid=None if r is None else Side(float(r.lost[-1].sum()) / PKT_BITS, 0.0,
                                              method="cumulative drops"),
            packets=None if pk is None else Side(float(pk.counters["dropped"].sum()), 0.0,
                                                 method=pmethod),
            reference="paper Fig. 6: 'enough buffer of 90 packets ... where there is no packet "
                      "loss'"))
    if pk is not None:
        checks.extend(_fig6_dip_checks(pk, pmethod))
    if not fluid and pk is None:
        return checks
    # Figure 7: 55 packets, the 20-flow phase needs 60: loss, still full utilisation
    r = (_solve(acc_dynamic_flows(55), 50.0, kappa=KAPPA, estimator="monaco", target=TARGET)
         if fluid else None)
    pk, pmethod = _dynamic_packets(55, False, sides)
    checks.append(Check(
        "acc-fig6", "55 pkts: largest queue (the buffer)", 55.0, source="paper (measured)",
        paper=55.0, unit="packets",
        fluid=None if r is None else Side(r.queues[:, 0].max() / PKT_BITS, 1e-2,
                                          method="max queue"),
        packets=None if pk is None else Side(float(pk.counters["link_max_waiting"][0]), 0.0,
                                             method=pmethod + "; most packets waiting"),
        reference="paper Fig. 7: 'the queue length grows to the limit of the whole buffer size "
                  "of 55 packets'"))
    busy = None
    if pk is not None:
        # the link's busy time over 20-30 s (a run measured from 20 s): the paper's "fully
        # utilized" is the link's; the flows' goodput leaves out the packets a timeout makes
        # the sources send again (go-back-N), which the link carries
        w, wmethod = _dynamic_packets(55, False, sides, duration=30.0, warmup=20.0)
        goodput = sum(_series_mean(pk, pk.throughput_series, k, 20.0, 30.0)
                      for k in range(pk.network.n_flows)) / float(pk.network.capacities[0])
        busy = Side(float(w.utilisation[0]), 2e-2,
                    method=wmethod + f", measured 20-30 s; the bottleneck's busy time (the "
                                     f"flows' goodput over the capacity: {goodput:.3f})")
    checks.append(_noted(Check(
        "acc-fig6", "55 pkts: utilisation 20-30 s", 1.0, source="paper (measured)", paper=1.0,
        known=_FIG7_KNOWN_UTIL,
        fluid=None if r is None else Side(float(r.utilisation(20.0, 30.0)[0]), 2e-2,
                                          method="departed bits / capacity"),
        packets=busy,
        reference="paper Fig. 7: 'the bottleneck is still fully utilized'"),
        _FIG7_UTIL_NOTE, side="packets"))
    if pk is not None:
        more = Bounds(lower=_OSC_LIMIT)
        checks.append(Check(
            "acc-fig6", "55 pkts: largest throughput C.O.V. (0.5-s means)", more,
            source="paper (measured)", paper=more,
            packets=_throughput_cov(pk, pmethod),
            reference="paper, Section V-A (Fig. 7(c)): 'the throughput is more oscillating'; "
                      "read as above the 5% C.O.V. that Figure 8's 'without oscillation' is "
                      "read as"))
        checks.extend(_fig7_echo_checks(sides, params["timeout_beta"]))
    # Figure 8: AVD at the bottleneck, gamma = 0.98
    r = (_solve(acc_dynamic_flows(55), 50.0, kappa=KAPPA, estimator="monaco", target=TARGET,
                avd_links=["r0->r1"], avd_utilisation=0.98, avd_alpha=params["avq_alpha"])
         if fluid else None)
    pk, pmethod = _dynamic_packets(55, True, sides, params["avq_alpha"])
    checks.append(_noted(Check(
        "acc-fig6", "AVD: utilisation 0-50 s", 0.98, source="paper (measured)", paper=0.98,
        known=_FIG8_KNOWN_UTIL,
        fluid=None if r is None else Side(float(r.utilisation()[0]), 1.5e-2,
                                          method="departed bits / capacity"),
        packets=None if pk is None else Side(float(pk.utilisation[0]), 1.5e-2,
                                             method=pmethod + "; busy time"),
        reference="paper Fig. 8: 'The bottleneck utilization is around 98%'"),
        "packets: eq (10)'s loop swings over the AVD bottleneck at kappa = 0.5 (see the "
        "declaration) and overflows its 55 packets; the paper reports 98% and no loss",
        "packets"))
    below = fbelow = None
    if r is not None:
        q = r.queues[:, 0] / PKT_BITS
        below = float(np.trapezoid((q < 20.0).astype(float), r.t) / (r.t[-1] - r.t[0]))
    if pk is not None:
        fbelow = float((pk.queue_series[:, 0] < 20).mean())
    most = Bounds(lower=0.5)
    check = Check(
        "acc-fig6", "AVD: fraction of time queue < 20 pkts", most, source="paper (measured)",
        paper=most,
        fluid=None if below is None else Side(below, 0.0, method="time fraction of the "
                                                                 "bottleneck queue below 20 "
                                                                 "packets, 0-50 s"),
        packets=None if fbelow is None else Side(fbelow, 0.0, method=pmethod + "; samples "
                                                                      "every 0.1 s"),
        reference="paper Fig. 8: 'for most of time the bottleneck queue length is below 20 "
                  "packets'")
    if fbelow is not None:
        check = _noted(check, f"packets {fbelow:.2f}: the virtual capacity adapts at alpha "
                              f"(gamma C - arrival rate); at alpha = 0.15 it adapts slowly at "
                              f"30 Mb/s, so the real queue carries much of the accumulation "
                              f"when sets arrive.  The sampled count of waiting packets also "
                              f"counts Monaco's in-band control packets (one per flow for the "
                              f"part of its round trip it spends queued)", "packets")
    checks.append(check)
    if pk is not None:
        calm = Bounds(upper=_OSC_LIMIT)
        avd = _throughput_cov(pk, pmethod)
        checks.append(_noted(Check(
            "acc-fig6", "AVD: largest throughput C.O.V. (0.5-s means)", calm,
            source="paper (measured)", paper=calm, packets=avd,
            reference="paper, Section V-A (Fig. 8(c)): 'The throughput converges without "
                      "oscillation as shown in Figure 8(c), comparable to result in the first "
                      "simulation'; read as a C.O.V. of 0.5-s means of at most 5% (READ_TOL: the "
                      "paper reads the first simulation's throughputs as round values, 'about "
                      "3Mbps', 2, 1.5, 3, 6)",
            known=Known("mechanism differs",
                        "With the paper's pair timing eq (10) at kappa = 0.5 swings over the AVD "
                        "bottleneck (see 'AVD: utilisation 0-50 s'): 1827 packets lost over "
                        "the run, each loss halving a window, and the largest C.O.V. of 0.5-s "
                        "means is 0.48 (full and quick form, the run does not depend on the "
                        "form; 0.29-1.66 for avq_alpha 0.05-0.6, validate(explore=True)).  "
                        "The earlier timing (a pair at the end of each round of the window) "
                        "gave 0.085 with 115 packets lost.  The same measure gives 0.42 for "
                        "Figure 7's 55-packet droptail run.", 10.0, sides=("packets",))),
            f"packets {avd.value:.3f}: the AVD bottleneck still overflows its 55-packet buffer "
            f"when flow sets join ({int(pk.counters['dropped'].sum())} packets lost), and each "
            f"loss halves a window; the paper reports no loss for Figure 8, whose queue it "
            f"keeps 'below 20 packets' for most of the time", "packets"))
    return checks


@register("acc-fig9",
          title="ACC Fig. 9: N bottlenecks of 100 Mb/s, long flows 100/(3+N), short 100N/(3+N)",
          paper=f"{_PAPER}, Fig. 9", sides=_PACKET_SIDES, unstated=(
              Unstated("long_rtt_spread", 0.0, (0.02, 0.05, 0.1, 0.2),
                       "'The long flows have very different RTTs', not given: their chain alone "
                       "gives 16-72 ms (N = 2-9); the same paper's Figure 10 access links span "
                       "1-100 ms one way, so the third long flow's round trip may exceed the "
                       "first's by tens to two hundred ms", unit="s"), _AVQ_ALPHA,
              Unstated("control_size", 40, (1000,),
                       "the paper gives no size for Monaco's in-band control packet (it "
                       "carries a sequence number and a byte count): an ACK's 40 bytes, the "
                       "default, or a data packet's 1000, which then waits at each link as a "
                       "data packet does (and takes a data packet's share of the links)",
                       unit="bytes")))
def fig9(*, sides, quick, params) -> list[Check]:
    checks = []
    for n in range(2, 10):
        net = _fig9_net(n, params["long_rtt_spread"])
        c = float(net.capacities[0]) / 1e6
        eq = _equilibrium(net) if "theory" in sides else None
        rates = (_solve(net, 60.0, kappa=KAPPA, target=TARGET).mean("rates", 40.0, 60.0)
                 if "fluid" in sides else None)
        pk = (_packets(net, quick, control="P", estimator="monaco",
                       control_size=int(params["control_size"]))
              if "packets" in sides else None)
        for label, k, formula, measured in (("long", 0, c / (3 + n), 12.0),
                                            ("short", 3, c * n / (3 + n), 65.0)):
            # at N = 5 the paper prints its measurement (12 and 'some 65' Mb/s, 'around' the
            # theoretic 12.5 and 62.5): that is the reference, read as READ_TOL
            expected = measured if n == 5 else formula
            tol = READ_TOL if n == 5 else None
            quantity = f"{label}-flow rate, N={n}"
            packets = None
            note = ""
            if pk is not None:  # the mean of the three long flows, or the first short one
                v = pk[0][:3].mean() if label == "long" else pk[0][3]
                packets = _pside(v / 1e6, tol or PACKET_TOL, pk[3] + (
                    "; the three long flows' mean" if label == "long" else ""))
                if abs(packets.value - expected) > packets.tolerance * expected:
                    note = _FIG9_RATE_NOTE.format(v=packets.value, e=expected)
            checks.append(Check(
                "acc-fig9", quantity, expected,
                source="paper (measured)" if n == 5 else "paper (stated)",
                paper=expected, unit="Mb/s",
                theory=None if eq is None else Side(eq.rates[k] / 1e6, tol or 1e-6,
                                                    method="fluid.acc_equilibrium (weighted "
                                                           "proportional fairness, weights a*)"),
                fluid=None if rates is None else Side(rates[k] / 1e6, tol or 5e-3,
                                                      method="solve_fluid(kappa=0.2), mean over "
                                                             "40-60 s"),
                packets=packets, note=note,
                known=None if quick and (label, n) in _FIG9_QUICK_PASSES
                else _FIG9_KNOWN.get(quantity),
                reference=(f"paper, Section V-B: measured at N=5, the long flow 'converges to "
                           f"12Mbps (around its theoretic fair share of 12.5Mbps), and the "
                           f"short flow's to some 65Mbps (around its theoretic fair share of "
                           f"62.5Mbps)'; theory 100/(3+N) = {formula:.1f}" if n == 5 else
                           "paper, Section V-B: theoretic 100/(3+N) and 100N/(3+N) Mb/s")))
        if pk is not None:
            x = pk[0][:3]
            cov = Bounds(0.02, 0.05)
            checks.append(_noted(Check(
                "acc-fig9", f"long-flow C.O.V., N={n}", cov,
                source="paper (measured)", paper=cov,
                packets=_pside(x.std() / x.mean(), READ_TOL,
                               pk[3] + "; standard deviation over mean of the three long flows' "
                                       "throughputs"),
                reference="paper, Section V-B and Figure 9(c): the C.O.V. of the three long flows' "
                          "throughput 'is between 2% and 5% for all cases'",
                known=_FIG9_KNOWN_COV), _FIG9_COV_NOTE))
    if "packets" in sides:
        checks.extend(_fig9_mixed_checks(params))
    return checks


#: Figure 9(d)-(f)'s "particular simulation of five bottlenecks", some droptail and some AVD
#: ("we randomly set some bottlenecks droptail and others AVD"; which ones is not given):
#: here the second and fourth links are AVD (``Avq(gamma=0.98, avd=True)``, as Figure 8's),
#: the others droptail.  One run of the paper's 50 s in both forms (about 2 s).
_FIG9_AVD_LINKS = (1, 3)
_FIG9_MIXED_SECONDS = 50.0
#: "after about 10s of transient period", one significant figure: 5-15 s.
_FIG9_TRANSIENT = Bounds(5.0, 15.0)


def _fig9_mixed(spread, alpha):
    """Figure 9(d)-(f)'s run: N = 5, :data:`_FIG9_AVD_LINKS` AVD, the long flows' RTT
    spread ``spread``, Monaco sources (kappa 0.5), 50 s sampled every 0.1 s; the result and
    the method text."""
    from ..mechanisms import Accumulation, Avq
    from ..sim import Record, simulate

    net = _fig9_net(5, spread)
    net = net.replace(links=[
        dataclasses.replace(link, queue=Avq(gamma=0.98, avd=True, alpha=alpha))
        if k in _FIG9_AVD_LINKS else link for k, link in enumerate(net.links)])
    src = Accumulation(control="P", estimator="monaco", kappa=PACKET_KAPPA, target=TARGET)
    net = net.replace(flows=[dataclasses.replace(f, source=src) for f in net.flows])
    r = simulate(net, _FIG9_MIXED_SECONDS, seed=0, record=Record(interval=0.1), progress=False)
    return r, (f"simulate: N = 5, links {', '.join(net.link_names[k] for k in _FIG9_AVD_LINKS)} "
               f"Avq(gamma=0.98, avd=True, alpha={alpha:g}), the others droptail; "
               f"Accumulation(control='P', estimator='monaco', kappa=0.5); long_rtt_spread = "
               f"{spread:g} s; {_FIG9_MIXED_SECONDS:g} s, one run")


def _fig9_transient(r, seconds=_FIG9_MIXED_SECONDS, settled=30.0):
    """The start (s) of the first 1-s window from which the three long flows' mean 1-s
    throughput stays within READ_TOL of its mean from ``settled`` to ``seconds`` (a run's
    length, s), and that mean (b/s)."""
    t = r.t[:-1]
    x = np.array([r.throughput_series[(t >= a - 1e-9) & (t < a + 1.0 - 1e-9), :3].mean()
                  for a in range(int(round(seconds)))])
    final = float(x[int(settled):].mean())
    ok = np.abs(x / final - 1.0) <= READ_TOL
    start = next((a for a in range(len(x)) if ok[a:].all()), len(x))
    return float(start), final


def _fig9_mixed_checks(params) -> list[Check]:
    """Figure 9(d)/(e)'s queues (AVD lower than droptail) and 9(f)'s transient."""
    r, method = _fig9_mixed(params["long_rtt_spread"], params["avq_alpha"])
    q = r.queue_series.mean(axis=0)
    dt = [k for k in range(5) if k not in _FIG9_AVD_LINKS]
    ratio = float(max(q[k] for k in _FIG9_AVD_LINKS) / min(q[k] for k in dt))
    queues = ", ".join(f"{r.network.link_names[k]} {q[k]:.2f}" for k in range(5))
    lower = Bounds(upper=1.0)
    checks = [Check(
        "acc-fig9", "N=5 mixed: AVD queue over droptail queue", lower,
        source="paper (measured)", paper=lower,
        packets=Side(ratio, 0.0, method=method + f"; the largest AVD link's mean sampled queue "
                                                 f"(every 0.1 s, 0-50 s) over the smallest "
                                                 f"droptail link's: {queues} packets; the "
                                                 f"samples count Monaco's control packets "
                                                 f"waiting too"),
        reference="paper, Section V-B (Figs. 9(d), 9(e)): 'Obviously the AVD bottleneck keeps "
                  "a lower queue than the droptail'")]
    start, final = _fig9_transient(r)
    check = Check(
        "acc-fig9", "N=5 mixed: long flows' transient", _FIG9_TRANSIENT,
        source="paper (measured)", paper=_FIG9_TRANSIENT, unit="s",
        packets=Side(start, 0.0, method=method + f"; the first 1-s window from which the three "
                                                 f"long flows' mean 1-s throughput stays "
                                                 f"within 5% of its 30-50 s mean "
                                                 f"({final / 1e6:.2f} Mb/s)"),
        reference="paper, Section V-B (Fig. 9(f)): 'after about 10s of transient period, the "
                  "long flow's throughput converges to 12Mbps'; 'about 10s' read to one "
                  "significant figure, 5-15 s",
        known=Known("unstated parameter",
                    "The long flows' RTTs are not given (long_rtt_spread): with one RTT for the "
                    "three (the default) their mean settles in 3 s (full and quick form, the "
                    "run does not depend on the form); with round trips 10 and 20 ms apart "
                    "(0.02) in 7 s, 25 and 50 ms apart (0.05) in 10 s, 50 and 100 ms apart in "
                    "19 s, 100 and 200 ms apart in 26 s: the flow with the longest round trip "
                    "converges last (validate(explore=True)).", 0.5, sides=("packets",)))
    checks.append(_noted(check, f"packets {start:g} s: with one RTT for the three long flows "
                                f"(16 ms plus queueing over the 5-link chain) they converge in "
                                f"a few seconds; the paper's 'very different RTTs' "
                                f"(long_rtt_spread) lengthen the slowest one's convergence",
                         "packets"))
    return checks


def _fig9_net(n, spread):
    """Figure 9's chain of ``n`` bottlenecks; with ``spread`` > 0 s, long flow ``k`` (0, 1,
    2) reaches the chain over its own 1 Gb/s access link of one-way delay ``k spread / 4``,
    so that the long flows' round trips differ by ``spread / 2`` and ``spread``."""
    net = acc_linear(n)
    if spread == 0:
        return net
    links = list(net.links)
    flows = list(net.flows)
    for k in range(3):
        links.append(type(links[0])(f"a{k}", "r0", Mbps(1000), k * spread / 4, 1000))
        flows[k] = dataclasses.replace(flows[k], route=[f"a{k}", *flows[k].route])
    return net.replace(links=links, flows=flows)


_FIG9_RATE_NOTE = (
    "packets {v:.2f} Mb/s against {e:.2f}: the long flows get less than 100/(3+N) and the "
    "short flows more, the more so as N grows (the paper's own run at N = 5 is on the same "
    "side: 12 and 65 against 12.5 and 62.5).  The control law holds every flow's estimate, "
    "the egress rate times ftt_q (the in-band control packet's arrival less the out-of-band "
    "one's), at a* on average, so a flow's rate is a* over its mean ftt_q, and 100/(3+N) "
    "needs the long flows' ftt_q to equal the sum of the short flows' along the chain.  "
    "Measured (full form, 60 s from 40 s, Accumulation(record=True); N = 2-9): (a) the "
    "estimator.  The long flows' estimates average 2.98-3.01 packets while their data hold "
    "2.89, 2.86, 2.80, 2.86, 2.79, 2.72, 2.63, 2.60 (goodput times mean queueing delay): "
    "their in-band packet's ftt_q (estimate x packet / rate) exceeds their data's mean "
    "queueing time by 47, 70, 123, 95, 173, 252, 354, 428 us (0.6 to 5.4 packet times of "
    "80 us), while the short flows' differ by -8 to +9 us and their data hold 2.93-3.07.  "
    "The 40-byte in-band packet (an ACK's size; the paper gives none) leaves a congested "
    "link right behind the packet served before it; when that packet is a long flow's it "
    "reaches the next link 3.2 us after it and waits for the 76.8 us rest of its "
    "transmission, and it trails the same packet on down the chain; the data, spaced by "
    "their own transmission time, do not.  A model with nothing fitted -- at each link after "
    "the first the in-band packet trails a long flow's packet with probability "
    "1 - (1 - 3x_L/C)^j -- puts that bias at 45, 93, 142, 191, 240, 288, 337, 386 us.  "
    "(b) the law's fixed point.  With the measured biases added to every flow's price (the "
    "short flows' mean queueing time, 578 to 314 us) and the links' measured utilisation "
    "(0.993-0.996), x_L (N p + B_L) = a*, x_S (p + B_S) = a*, 3 x_L + x_S = u C predicts "
    "19.65, 16.27, 13.63, 12.21, 10.41, 9.30, 8.11, 7.34 Mb/s for the long flows, against "
    "19.38, 16.07, 13.43, 11.90, 10.11, 9.01, 7.83, 7.13 measured and 100/(3+N): the bias "
    "accounts for 56, 66, 77, 48, 70, 71, 78, 83% of the deficit; the rest is the long "
    "flows' data waiting 3-5% longer per link than the short flows' data (596 against 578 "
    "us at N = 2, 324 against 314 at N = 9).  The model's bias alone predicts 19.70, 16.13, "
    "13.60, 11.74, 10.32, 9.20, 8.30, 7.55 (_fig9_fixed_point, _fig9_trailing_bias).  (c) "
    "no defect: the kernel's estimator and law follow Section IV-B line by line (the pair "
    "back to back once per control period, the next after the reverse OB packet's arrival; "
    "ftt_q times an EWMA of the egress rate; eq (10); the leaky bucket of cwnd/rtt with a "
    "one-packet burst; halving on decrease-due-to-loss).  With a data-sized in-band packet "
    "(control_size=1000: it then trails nothing, and both control packets' transmission "
    "times differ by the same amount on every link, a common price that leaves the "
    "proportions alone) the long flows are -1.7%, +0.1%, -0.4%, +6.8% (N = 5, against the "
    "paper's 12; +2.5% against 12.5), -0.6%, -1.1%, -1.7%, -2.2% at N = 2-9, and the short "
    "flows -5.0%, -5.0%, -2.8%, -8.2% (against 65), -2.0%, -1.6%, -1.5%, -1.3%.")


def _fig9_fixed_point(n, bias_long, bias_short=0.0, utilisation=1.0,
                      capacity=Mbps(100), target=TARGET * 8.0):
    """The P law's fixed point on Figure 9's chain when each flow's ftt_q is its path's
    queueing delay plus a bias: the three long flows' and each short flow's rate, b/s.

    Every link has the same price ``p`` (s) by symmetry; the law holds each flow's mean
    estimate at a*: ``x_L (n p + bias_long) = a*`` and ``x_S (p + bias_short) = a*``, with
    ``3 x_L + x_S = utilisation x capacity``.  With no bias this is 100/(3+N) and
    100N/(3+N) Mb/s.

    Parameters
    ----------
    n : int
        Bottlenecks.
    bias_long, bias_short : float, s
        The in-band packet's mean forward queueing time less the data's, per flow.
    utilisation : float
        The links' utilisation.
    capacity : float, bit/s
    target : float, bits
        a*.
    """
    from scipy.optimize import brentq

    def excess(p):
        return 3 * target / (n * p + bias_long) + target / (p + bias_short) \
            - utilisation * capacity

    low = max(0.0, -bias_short, -bias_long / n) + 1e-12
    p = brentq(excess, low, 10.0, xtol=1e-15)
    return target / (n * p + bias_long), target / (p + bias_short)


def _fig9_trailing_bias(n, x_long, capacity=Mbps(100), control_bits=320.0):
    """The long flows' in-band bias of the trailing model (:data:`_FIG9_RATE_NOTE`), s: at
    link ``j + 1`` the in-band packet waits for the rest of a data packet's transmission,
    ``(PKT_BITS - control_bits) / capacity``, with the probability ``1 - (1 - q)^j`` that it
    trails a long flow's packet by then, ``q = 3 x_long / capacity``."""
    q = 3.0 * x_long / capacity
    rest = (PKT_BITS - control_bits) / capacity
    return rest * sum(1.0 - (1.0 - q) ** j for j in range(1, n))


#: The largest relative error of each Figure 9 rate row the declaration covers: the full
#: form's measured error (seed as in _packets) times 1.3, or plus 0.02 if more.
_FIG9_RATE_ERRORS = {
    ("long", 2): 0.031, ("long", 3): 0.036, ("long", 4): 0.060, ("short", 4): 0.041,
    ("long", 6): 0.090, ("short", 6): 0.042, ("long", 7): 0.099, ("short", 7): 0.039,
    ("long", 8): 0.138, ("short", 8): 0.049, ("long", 9): 0.144, ("short", 9): 0.045,
}
#: Figure 9's known differences, by row quantity: the rates at N != 5 outside tolerance.
_FIG9_KNOWN: dict = {
    f"{label}-flow rate, N={n}": Known(
        "unstated parameter",
        "The paper gives no size for Monaco's in-band control packet (control_size); the "
        "library's, an ACK's 40 bytes, trails a long flow's data packet down the chain and "
        "waits for its transmission at each link, so a long flow's ftt_q exceeds its data's "
        "queueing time (by 47 us at N = 2 to 428 us at N = 9, measured) and its rate falls "
        "below 100/(3+N) (full form: -3.1%, -3.6%, -6.0%, -0.8% against the paper's 12 at "
        "N = 5, -9.0%, -9.9%, -13.8%, -14.4% at N = 2-9; the short flows +2.8% to +4.9%); "
        "the law's fixed point with the measured biases predicts 48-83% of the deficit.  A "
        "data-sized in-band packet (control_size=1000) gives the long flows -2.2% to +0.1% "
        "at N = 2-9 but N = 5, and the short flows -5.0% to -1.3%.  Evidence and method in "
        "the row's note.",
        round(max(1.3 * err, err + 0.02), 3), sides=("packets",))
    for (label, n), err in _FIG9_RATE_ERRORS.items()}
#: Rate rows the quick form reproduces (errors 0.020, 0.018, 0.022, 0.022, 0.015, 0.019,
#: 0.011): declared for the full form only, so that no quick-form declaration is stale.
_FIG9_QUICK_PASSES = {("long", 2), ("long", 3), ("short", 4), ("short", 6), ("short", 7),
                      ("short", 8), ("short", 9)}
_FIG9_KNOWN_COV = Known(
    "unstated parameter",
    "The long flows' RTTs are not given (long_rtt_spread): with one RTT for all three (the "
    "default) their C.O.V. is 0.005%-0.19% (full form; quick 0.008%-0.7%); the paper's "
    "2%-5% is reached at N = 4-9 with round trips 25 and 50 ms apart "
    "(long_rtt_spread=0.05) and at N = 2, 3 with 50 and 100 ms apart (0.1); the explored "
    "spreads give up to 17%-32% (validate(explore=True), full form).", 1.0,
    sides=("packets",))
_FIG9_COV_NOTE = ("The paper's three long flows have 'very different RTTs', which it does not "
                  "give; in topologies.acc_linear they share one chain and one RTT (16-72 ms), "
                  "so the packet runs' spread between them is only what the window dynamics "
                  "leave (below 1%); long_rtt_spread gives them different round trips.")


#: Figure 10's phases: (label, t0, t1, long flows active) over which rates are averaged
#: (from 3 s after each change, for the transient).
_FIG10_PHASES = (("3-20 s", 3.0, 20.0, 1), ("20-30 s", 23.0, 30.0, 2),
                 ("30-40 s", 33.0, 40.0, 2), ("40-50 s", 43.0, 50.0, 1))
#: Web connections of Figure 10 (the quick form runs the full one: about 10 s, and fewer
#: connections would be a lighter load, another experiment).
_FIG10_WEB = 1000
#: "a little", in the paper's statements on Figure 10, read as at most 20%.
_A_LITTLE = 0.2
_FIG10_WEB_NOTE = (
    "packets: the {n} WebTraffic connections (ns-2's large-scale web traffic example: objects "
    "of 12 packets on average, Pareto shape 1.2, 15 s think times; the paper gives no "
    "parameters) carry {w1:.1f} and {w2:.1f} Mb/s over R1->R2 and R2->R3 from 30 s.  Each Monaco "
    "flow holds a* = its rate x its queueing delay, so the queue the web transfers' slow-start "
    "bursts add (at R1->R2 to AVD's virtual queue too) lowers every Monaco rate through those "
    "links, and after a burst the P law regains at most kappa a* = 1.5 packets per round trip; "
    "R1->R2 ran at {u1:.0%}, R2->R3 at {u2:.0%} over 33-50 s.  How much the long flow loses "
    "depends on the web load, which the paper does not give (notebook 03 sweeps the think time)")


@register("acc-fig10",
          title="ACC Fig. 10: three 100 Mb/s bottlenecks (one AVD) with web traffic from 30 s: "
                "long 14 -> 12.4 -> 13, short 43 -> 38 Mb/s",
          paper=f"{_PAPER}, Fig. 10 (Section V-B)", sides=_PACKET_SIDES, unstated=(_AVQ_ALPHA,))
def fig10(*, sides, quick, params) -> list[Check]:
    from ..fluid.scenarios import acc_web_bottlenecks
    from ..mechanisms import Accumulation, Avq
    from ..sim import Record, simulate

    n_web = _FIG10_WEB
    alpha = params["avq_alpha"]
    net = acc_web_bottlenecks(seed=0, n_web=n_web)
    net = net.replace_link(0, queue=Avq(gamma=0.98, avd=True, alpha=alpha))
    web = [i for i, name in enumerate(net.flow_names) if name.startswith("web")]
    bare = net.replace(flows=[f for i, f in enumerate(net.flows) if i not in web])
    k_long = net.flow_names.index("long1")
    fl = _solve(bare, 50.0, kappa=KAPPA, estimator="monaco", target=TARGET,
                avd_links=["R1->R2"], avd_utilisation=0.98, avd_alpha=alpha) \
        if "fluid" in sides else None
    pk = None
    if "packets" in sides:
        src = Accumulation(control="P", estimator="monaco", kappa=PACKET_KAPPA, target=TARGET)
        pnet = net.replace(flows=[f if i in web else dataclasses.replace(f, source=src)
                                  for i, f in enumerate(net.flows)])
        # (the measurement window, 33-50 s, gives the links' utilisation with web traffic; the
        # phases' rates come from the goodput series, which covers the whole run)
        pk = simulate(pnet, 50.0, seed=0, warmup=33.0, record=Record(interval=0.5),
                      progress=False)
    pmethod = (f"simulate: Accumulation(control='P', estimator='monaco', kappa=0.5) for the long "
               f"and short flows, {n_web} WebTraffic connections from 30 s, "
               f"Avq(gamma=0.98, avd=True, alpha={alpha:g}) at R1->R2; one run, goodput over "
               f"the phase")
    fmethod = (f"solve_fluid(estimator='monaco', kappa={KAPPA}, AVD at R1->R2), without the web "
               f"traffic, mean over the phase")

    def rate(k, t0, t1):
        return _series_mean(pk, pk.throughput_series, k, t0, t1) / 1e6

    web_note = ""
    if pk is not None:
        sel = pk.t[:-1] >= 33.0
        by_set = [[i for i in web if net.flow_names[i].startswith(f"web{s}_")] for s in (1, 2)]
        w1, w2 = (float(pk.throughput_series[sel][:, ks].sum(axis=1).mean()) / 1e6
                  for ks in by_set)
        web_note = _FIG10_WEB_NOTE.format(n=n_web, w1=w1, w2=w2, u1=pk.utilisation[0],
                                          u2=pk.utilisation[1])

    # (flow, phase, the paper's value, its words)
    rows = [("long1", 0, 14.0, "the long flow 1 gets 14Mbps during 0~20s"),
            ("long1", 1, 12.4, "12.4Mbps during 20s~30s"),
            ("long1", 3, 13.0, "goes up to about 13Mbps after the long flow 2 leaves at 40s"),
            ("short1_0", 0, 43.0, "the short flow 1 gets 43Mbps during 3~20s"),
            ("short1_0", 1, 38.0, "38Mbps during 20~30s")]
    checks = []
    for name, ph, paper, words in rows:
        label, t0, t1, n_long = _FIG10_PHASES[ph]
        k = net.flow_names.index(name)
        pf = (1.0 if name.startswith("long") else 3.0) * 100.0 / (6 + n_long)
        theory = None
        if "theory" in sides:
            active = [i for i, f in enumerate(bare.flows)
                      if f.start <= t0 and (f.stop is None or f.stop >= t1)]
            eq = _equilibrium(bare.replace(flows=[bare.flows[i] for i in active]))
            theory = Side(eq.rates[active.index(bare.flow_names.index(name))] / 1e6, READ_TOL,
                          method="fluid.acc_equilibrium of the long and short flows active in "
                                 "the phase (no web traffic)")
        fluid = None if fl is None else Side(
            fl.mean("rates", t0, t1)[bare.flow_names.index(name)] / 1e6, READ_TOL,
            method=fmethod + f", {t0:g}-{t1:g} s")
        packets = None if pk is None else Side(rate(k, t0, t1), READ_TOL,
                                               method=pmethod + f", {t0:g}-{t1:g} s")
        check = Check(
            "acc-fig10", f"{name} rate, {label}", paper, source="paper (measured)", paper=paper,
            unit="Mb/s", theory=theory, fluid=fluid, packets=packets,
            reference=f"paper, Section V-B: '{words}'; its theoretic value "
                      f"{'1' if name.startswith('long') else '3'} x 100/(6+{n_long}) = "
                      f"{pf:.2f} Mb/s")
        if ph == 3:
            check = dataclasses.replace(check, known=Known(
                "mechanism differs",
                "The theory and the fluid leave the web traffic out (the fluid model has no "
                "web-traffic source): 100/7 = 14.29 and 14.15 Mb/s against the paper's 13, "
                "measured with web traffic; the packets, with the 1000 WebTraffic "
                "connections, give 13.73 (avq_alpha 0.05-0.6: 13.57-13.87), 5.6% above the "
                "paper's 13: how much the web transfers take depends on their load, which the "
                "paper does not give.", 0.12,
                sides=("theory", "fluid", "packets")))
        if ph == 3 and not check.ok:
            why = []
            if {"theory", "fluid"} & set(check.failing):
                why.append("the theory and the fluid have no web traffic, which from 30 s takes "
                           "part of R1->R2 and R2->R3 (the paper's 13 against 100/7 = 14.3)")
            if "packets" in check.failing:
                why.append(web_note)
            check = dataclasses.replace(check, note="; ".join(why))
        checks.append(check)
    if pk is not None:
        (_, b0, b1, _), (_, w0, w1, _) = _FIG10_PHASES[1], _FIG10_PHASES[2]  # before, with web
        little = Bounds(1.0 - _A_LITTLE, 1.0)
        checks.append(_noted(Check(
            "acc-fig10", "long1 rate with web traffic / without, 33-40 vs 23-30 s", little,
            source="paper (stated)", unit="",
            packets=Side(rate(k_long, w0, w1) / rate(k_long, b0, b1), 0.0,
                         method=pmethod),
            reference=f"paper: long flow 1 'drops a little when web traffic comes in' ('a "
                      f"little' read as at most {_A_LITTLE:.0%})"), web_note))
        # the paper's reason (the web traffic at R1->R2 and R2->R3 holds the long flows back)
        # makes a short flow gain where its bottleneck carries no web traffic: set 3, R3->R4
        shorts3 = [net.flow_names.index(f"short3_{j}") for j in (0, 1)]
        gain = (sum(rate(k, w0, w1) for k in shorts3) / sum(rate(k, b0, b1) for k in shorts3))
        checks.append(_noted(Check(
            "acc-fig10", "short flows on R3->R4, rate with web traffic / without, 33-40 vs "
                         "23-30 s", Bounds(1.0, 1.0 + _A_LITTLE),
            source="paper (stated)", unit="",
            packets=Side(gain, 0.0, method=pmethod + "; short3_0 and short3_1 together"),
            reference=f"paper: the short flow gets 'a little more than those because the web "
                      f"traffic at the bottlenecks R1->R2 and R2->R3 limits the throughput of "
                      f"the long flows' (the reason holds for the short flows whose "
                      f"bottleneck, R3->R4, carries no web traffic; 'a little' read as at most "
                      f"{_A_LITTLE:.0%})"), web_note))
        q = pk.queue_series
        sel = pk.t >= 30.0
        ratio = float(q[sel, 0].mean() / q[sel, 1].mean()) if q[sel, 1].mean() > 0 else np.inf
        checks.append(Check(
            "acc-fig10", "AVD queue / droptail queue (R1 over R2), 30-50 s", Bounds(upper=0.5),
            source="paper (stated)", unit="",
            packets=Side(ratio, 0.0, method=pmethod + "; mean queues sampled every 0.5 s"),
            reference="paper: 'AVD keeps a low and constant queue ... Even when web traffic "
                      "jumps in ... it is still much lower than the droptail queue' ('much "
                      "lower' read as at most half)"))
    return checks


#: Figure 11's phases: (label, t0, t1) over which the rates are averaged (5 s after each
#: change, for the transient the paper calls "brief").
_FIG11_PHASES = (("20-40 s", 25.0, 40.0), ("40-60 s", 45.0, 60.0), ("60-80 s", 65.0, 80.0))
_FIG11_PHASE = (
    "At 1 Mb/s a packet takes 8 ms, and one deterministic run settles at one phase of Monaco's "
    "once-per-round-trip sample against it (see acc-fig5's queue row): one run's rates move "
    "with the unstated access delay (80 s runs at 1, 1.5, 2, 2.5, 3, 5 ms: long1 over 25-40 s "
    "0.309, 0.343, 0.325, 0.306, 0.310, 0.308; long2 over 65-80 s 0.305, 0.342, 0.327, 0.305, "
    "0.310, 0.342 Mb/s).  The rows are the mean over runs at offsets of the access delay drawn "
    "uniformly over half a packet time (phase_span), values per offset in the method.")
#: (Figure 11's long-flow rows missed the paper with one run at the 1 ms access delay: 0.309,
#: 0.233 and 0.305 Mb/s; the mean over 16 offsets gives 0.324 +- 0.011, 0.242 +- 0.004 and
#: 0.324 +- 0.009, and 8 offsets 0.322, 0.242, 0.319, within 5%: no declaration.)


@register("acc-fig11",
          title="ACC Fig. 11: two 1 Mb/s bottlenecks, long flows coming and going: 0.33 -> 0.25 "
                "and 0.65 -> 0.5 Mb/s",
          paper=f"{_PAPER}, Fig. 11 (Section V-C, Monaco's Linux implementation)",
          sides=_PACKET_SIDES, unstated=(
              Unstated("access_delay", 0.001, (0.0005, 0.002, 0.005),
                       "the paper gives its Linux testbed's bottlenecks (1 Mb/s, 20 ms), not "
                       "the hosts' links to the routers: a LAN hop of under a millisecond to a "
                       "few ms", unit="s"), _PHASE_SPAN))
def fig11(*, sides, quick, params) -> list[Check]:
    from ..fluid.scenarios import acc_two_bottlenecks
    from ..mechanisms import Accumulation
    from ..sim import Record, simulate

    net = acc_two_bottlenecks(access_delay=params["access_delay"])
    c = float(net.capacities[0]) / 1e6
    fl = _solve(net, 80.0, kappa=KAPPA, estimator="monaco", target=TARGET) \
        if "fluid" in sides else None
    pk = None
    span, ptime = params["phase_span"], PKT_BITS / (c * 1e6)
    src = Accumulation(control="P", estimator="monaco", kappa=PACKET_KAPPA, target=TARGET)

    def run(u):
        onet = acc_two_bottlenecks(access_delay=params["access_delay"] + u)
        r = simulate(onet.replace(flows=[dataclasses.replace(f, source=src)
                                         for f in onet.flows]),
                     80.0, seed=0, record=Record(interval=0.5), progress=False)
        out = {}
        for name, ph, *_ in rows:
            _, t0, t1 = _FIG11_PHASES[ph]
            sel = (r.t[:-1] >= t0) & (r.t[1:] <= t1)
            out[f"{name} {ph}"] = float(r.throughput_series[sel, onet.flow_names.index(name)]
                                        .mean()) / 1e6
        return out

    # (flow, phase, the paper's words, proportional fairness with equal targets)
    rows = [("long1", 0, 0.33, c / 3, "starts with 0.33Mbps (its proportionally fair share)"),
            ("long1", 1, 0.25, c / 4, "changes to some 0.25Mbps at 40s"),
            ("short0", 0, 0.65, 2 * c / 3, "their former throughput of about 0.65Mbps"),
            ("short0", 1, 0.5, c / 2, "the short flows get 0.5Mbps"),
            ("long2", 2, 0.33, c / 3, "the second long flow gets about its fair share of "
                                       "0.33Mbps")]
    if "packets" in sides:
        pk = _over_phases(run, PHASE_OFFSETS[bool(quick)], span, ptime)
    pmethod = ("simulate: Accumulation(control='P', estimator='monaco', kappa=0.5), 80 s; "
               "goodput averaged over the phase; " + ("" if pk is None else _phase_text(
                   pk, f"the access delay {params['access_delay'] * 1e3:g} ms", span, ptime)))
    checks = []
    for name, ph, paper, pf, words in rows:
        label, t0, t1 = _FIG11_PHASES[ph]
        k = net.flow_names.index(name)
        active = [i for i, f in enumerate(net.flows)
                  if f.start <= t0 and (f.stop is None or f.stop >= t1)]
        theory = None
        if "theory" in sides:
            eq = _equilibrium(net.replace(flows=[net.flows[i] for i in active]))
            theory = Side(eq.rates[active.index(k)] / 1e6, READ_TOL,
                          method="fluid.acc_equilibrium of the flows active in the phase")
        fluid = None if fl is None else Side(fl.mean("rates", t0, t1)[k] / 1e6, READ_TOL,
                                             method=f"solve_fluid(estimator='monaco', "
                                                    f"kappa={KAPPA}), mean over {t0:g}-{t1:g} s")
        packets = None
        if pk is not None:
            packets = _phase_side(pk[f"{name} {ph}"], READ_TOL,
                                  pmethod + f"; {t0:g}-{t1:g} s, Mb/s")
        check = Check(
            "acc-fig11", f"{name} rate, {label}", paper, source="paper (measured)",
            paper=paper, unit="Mb/s", theory=theory, fluid=fluid, packets=packets,
            reference=f"paper, Section V-C: '{words}'; proportional fairness gives "
                      f"{pf:.3f} Mb/s")
        if not check.ok:
            why = []
            if {"theory", "fluid"} & set(check.failing):
                why.append(f"the paper's Linux measurement, read in words ('about', 'some'), "
                           f"against proportional fairness {pf:.3f} Mb/s")
            if "packets" in check.failing:
                why.append(f"packets {packets} Mb/s.  " + _FIG11_PHASE)
            check = dataclasses.replace(check, note="; ".join(why))
        checks.append(check)
    return checks
