"""Asymmetric Best-Effort in packets: Figures 2, 3 and 6-8, the paper's numbers beside
the ABE router (:class:`~qosmodels.mechanisms.AbeQueue`) and the model.

Every run is :func:`~qosmodels.topologies.abe_dumbbell`: Green flows with the
rate-based TCP-friendly source :class:`~qosmodels.mechanisms.TcpFriendly`
(TFRC's Average Loss Interval with the paper's eq (2), ``green_source="tfrc-eq2"``,
the default of :data:`UNSTATED_GREEN`), Blue flows TCP Reno,
a 0.14 s round-trip propagation delay, the ABE router at the 2 Mb/s
bottleneck (the capacity is not in the text; see the topology) with the
Section IV-B parameters unless a figure changes them; flat best effort is
:meth:`AbeQueue.flat` (RED, packet for packet).

* Figure 2 (1 Green + 1 Blue, D = 0.2 s, beta* = 3): the Blue/Green ratio of
  packets delivered by 300 s, with ABE (2.674) and without (1.08), and the
  paper's statements that the Blue source gets more with ABE than without and
  the Green source less.
* Figure 3 (the same runs): the Green flow's mean queueing delay and its
  standard deviation with and without ABE, and with ABE over without; the
  bounds of Section III-B on the longest Green (``L0/c``) and Blue
  (``L_tot/c + D``) queueing delays.
* Figure 6 (15 + 15, beta* = 1.5): the long-term Blue/Green throughput ratio
  for D = 0.1 s (1.4506), D = 0.2 s (1.37325) and flat best effort (1.058),
  measured after the paper's 30 s warm-up.  One more row runs D = 0.1 s with a Green
  source rated by its packet loss ratio (``TcpFriendly(loss="packets")``, the
  ``q`` of eq (2)'s model, whatever Green source :data:`UNSTATED_GREEN` chooses)
  instead of TFRC's loss event rate: which of the two
  the Green source follows decides whether the ratio falls short of ``beta*``
  or overshoots it.  Two rows check the statement that Blue flows get more
  with ABE than with flat best effort (D = 0.1 and 0.2 s), two that ABE drops
  Green packets more often than Blue ones, two that "more typical RED parameter
  settings" (ns-2's defaults) give more forced losses and less control of the
  ratio than the paper's (the second at 2, 5 and 10 Mb/s, not at 1 and 1.5 Mb/s,
  where the paper's RED overshoots beta*); one the worst 95%
  confidence interval of the figure's curves over 4 runs (19.31 packets), which
  grows with the run's length (not given; see :data:`FIG6_CI_KNOWN`).
* Figure 7 (the same runs): the paper's statements on the Green delay
  distribution: it narrows as D grows, it is far narrower than flat best
  effort's, and Green dropping control bounds it by ``L0/c``; and the Blue
  delays' bound ``L_tot/c + D``.
* Figure 8 (K1 = 2.0, T1 = 0.1, K2 = 1.1, D = 0.1 s): the ratio 1.4931, and the
  Blue delays' bound.

The delay bounds are sanity rows: Green dropping control enforces ``L0/c`` by
its rule, and EDF with Blue deadlines ``t + D`` over a buffer of ``L_tot``
packets cannot keep a Blue packet longer than ``L_tot/c + D``.  The Blue gains
over flat best effort are far larger here (about 2.1 with 15 + 15 flows) than
the paper's ratios suggest, because the library's Green source takes most of
the link under flat best effort (see :data:`GREEN_SOURCE`).

The model's side (``theory``) of a throughput ratio is what the control loop
delivers if the sources follow eq (2): the ratio at the loop's fixed point
(:meth:`qosmodels.abe.ControlLaw.fixed_point` through
:func:`qosmodels.abe.throughput_ratio`), which is ``beta*`` exactly when
``K1 = K2`` and, for Figure 8's unequal gains, the biased ratio of the
closed-form analysis, evaluated at ``q_b = 0.02`` and ``B = D/2`` (the
operating point of ``abe-control-loop``; the bias grows slowly with
``q_b``); 1 for flat best effort (equal loss ratios and RTTs).

The paper's run length is not given: 300 s (Figure 2's "at time 300") for
every figure, 10 seeds (4 with ``--quick``: the paper's four runs), the
throughput ratio per seed, then its mean with a Student-t half-width.

Unstated parameters (:class:`~qosmodels.experiments.registry.Unstated`;
``validate(explore=True)`` runs them): the bottleneck's capacity
(:data:`UNSTATED_CAPACITY`, 2 Mb/s, explored at 1, 1.5, 5 and 10 Mb/s; the
buffer, 50 packets, is stated) and the Green source (:data:`UNSTATED_GREEN`, by
code: 0, TFRC rated by the paper's eq (2), the default; 1, TFRC as RFC 5348
specifies it; 2, TCP Reno) for every figure, and for Figure 8's model the
Blue loss ratio its biased fixed point is evaluated at
(:data:`UNSTATED_Q_BLUE`).  A 1.5 Mb/s bottleneck brings Figure 3's delays
within tolerance, a 1 Mb/s one its ratios with ABE over without; no capacity
and no Green source brings every throughput ratio to the paper's.

Where the rows miss (declared next to them, :class:`~qosmodels.experiments.rows.Known`):
the Green source.  The paper's is "the rate-based TCP friendly type algorithm
described in [6]", not given; this library's TFRC-type source takes 2.8 times
a Reno flow's goodput under flat best effort (15 + 15 flows), where the
paper's took about as much as Reno (ratio 1.058); Reno as the Green source
comes near the paper's flat ratios but overshoots every ABE ratio (4.4 for
D = 0.1 s), and TFRC as RFC 5348 specifies it overshoots them further (5.4),
so none stands in for the paper's (:data:`GREEN_SOURCE`).  Two sources have
rows of their own beside the default's, "..., Green as RAP" (the paper's
ref. [9]) and "..., Green as Reno" (TCP-friendly in the paper's sense by
construction: Figure 2's and Figure 6's flat runs and both ABE runs of
Figure 6), so that ABE is judged with a Green source that meets the paper's
flat runs: it does (1.025 against 1.058, 0.985 against 1.08), and ABE then
overshoots (4.40 and 4.65 against 1.4506 and 1.37325): at the loss the loop
sets for Green (23%) Reno recovers mostly by timeouts, which eq (2) does
not model.

References
----------
P. Hurley, J.-Y. Le Boudec, P. Thiran, "The Asymmetric Best-Effort Service",
Sections II-B, IV-B and IV-C, Figures 2, 3, 6, 7 and 8.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import abe
from .._validate import integer
from ..mechanisms import AbeQueue, Rap, TcpFriendly, TcpReno
from ..topologies import abe_dumbbell
from ._networks import t_half_width
from .registry import Bounds, Check, Known, Side, Unstated, register

PAPER = "Hurley, Le Boudec, Thiran, The Asymmetric Best-Effort Service"

#: Seconds simulated and warm-up of every run; seeds, full and ``--quick``.
DURATION = 300.0
WARMUP = 30.0
SEEDS = {False: 10, True: 4}
#: Tolerances: the paper's throughput ratios (relative), its mean delays and spreads.
RATIO_TOL = 0.05
DELAY_TOL = 0.25
#: The operating point of the model's biased prediction (Figure 8): q_b, and B = D / 2.
Q_BLUE = 0.02
#: The bottleneck's capacity, bit/s: not in the text (:func:`~qosmodels.topologies.abe_dumbbell`'s
#: default).
CAPACITY = 2e6

#: The bottleneck's capacity, which the paper does not give, over the era's usual values.
UNSTATED_CAPACITY = Unstated(
    "capacity", CAPACITY, (1e6, 1.5e6, 5e6, 10e6),
    "the text gives the buffer (50 packets) and the RTT but no link speed; ns-2 dumbbells of "
    "1999-2000 ran 1-10 Mb/s bottlenecks (1.5 Mb/s T1, 10 Mb/s Ethernet), and below 1 Mb/s "
    "30 flows get less than one 1000-byte packet per 0.14 s round trip each",
    unit="bit/s")
#: The Blue loss ratio at which the model's biased fixed point (Figure 8) is evaluated.
UNSTATED_Q_BLUE = Unstated(
    "q_blue", Q_BLUE, (0.005, 0.01, 0.05),
    "the paper reports no loss ratio of its runs, only the loop's initial q_b (0.05, Section "
    "IV-B) and an example initial value (0.01, Section III); 0.005-0.05 spans both")

#: The Green sources :data:`UNSTATED_GREEN` chooses among, by code: names of
#: :func:`~qosmodels.topologies.abe_dumbbell`'s ``green_source``.
GREEN_SOURCES = ("tfrc-eq2", "tfrc", "reno", "tfrc-eq2-ratio", "tfrc-ratio", "rap")
#: The default: TFRC rated by the paper's eq (2) (code 0).
GREEN = 0

#: The Green source, which the paper names but does not give, by its code in GREEN_SOURCES.
UNSTATED_GREEN = Unstated(
    "green_source", GREEN, (1, 2, 3, 4, 5),
    "the paper's Green source is 'the rate-based TCP friendly type algorithm described in "
    "[6]' (Section IV-B), a technical report's, not given: 'a simple one for simulation "
    "purposes', set apart from the 'more sophisticated rate-based TCP friendly unicast "
    "protocols' of [10] and [9].  Codes: 0, TFRC's machinery rated by the paper's own eq (2) "
    "(green_source='tfrc-eq2', the default); 1, TFRC as RFC 5348 specifies it ('tfrc'); "
    "2, TCP Reno ('reno': window-based, not the paper's); 3 and 4, codes 0 and 1 fed the "
    "packet loss ratio, eq (2)'s q ('tfrc-eq2-ratio', 'tfrc-ratio'); 5, RAP, the paper's "
    "ref. [9] ('rap': Rap(), a rate-based AIMD source)")

#: The runs, by name: (Green flows, Blue flows, the router, warm-up in s, the Green source:
#: None for the one :data:`UNSTATED_GREEN` chooses, or a spec every choice keeps).
CASES = {
    "fig2-abe": (1, 1, AbeQueue(beta_star=3.0, blue_delay=0.2), 0.0, None),
    "fig2-flat": (1, 1, AbeQueue.flat(), 0.0, None),
    "fig2-flat-ratio": (1, 1, AbeQueue.flat(), 0.0, TcpFriendly(loss="packets")),
    "fig6-d0.1": (15, 15, AbeQueue(beta_star=1.5, blue_delay=0.1), WARMUP, None),
    "fig6-d0.2": (15, 15, AbeQueue(beta_star=1.5, blue_delay=0.2), WARMUP, None),
    "fig6-flat": (15, 15, AbeQueue.flat(), WARMUP, None),
    # eq (2)'s own model: the loss *ratio* q, every lost packet a decrease
    "fig6-flat-ratio": (15, 15, AbeQueue.flat(), WARMUP, TcpFriendly(loss="packets")),
    "fig6-d0.1-ratio": (15, 15, AbeQueue(beta_star=1.5, blue_delay=0.1), WARMUP,
                        TcpFriendly(loss="packets")),
    # RAP (the paper's ref. [9]) as the Green source
    "fig2-flat-rap": (1, 1, AbeQueue.flat(), 0.0, Rap()),
    "fig6-flat-rap": (15, 15, AbeQueue.flat(), WARMUP, Rap()),
    "fig6-d0.1-rap": (15, 15, AbeQueue(beta_star=1.5, blue_delay=0.1), WARMUP, Rap()),
    "fig6-d0.2-rap": (15, 15, AbeQueue(beta_star=1.5, blue_delay=0.2), WARMUP, Rap()),
    # TCP Reno as the Green source: TCP-friendly in the paper's flat sense by construction
    # (the Blue flows are Reno too), window-based, not the paper's rate-based source
    "fig2-flat-reno": (1, 1, AbeQueue.flat(), 0.0, TcpReno()),
    "fig6-flat-reno": (15, 15, AbeQueue.flat(), WARMUP, TcpReno()),
    "fig6-d0.1-reno": (15, 15, AbeQueue(beta_star=1.5, blue_delay=0.1), WARMUP, TcpReno()),
    "fig6-d0.2-reno": (15, 15, AbeQueue(beta_star=1.5, blue_delay=0.2), WARMUP, TcpReno()),
    "fig8": (15, 15, AbeQueue(beta_star=1.5, blue_delay=0.1, k1=2.0, k2=1.1, period=0.1),
             WARMUP, None),
    # Figure 6's D = 0.1 s router with "more typical RED parameter settings" (Section IV-B):
    # ns-2's RED defaults of the time (thresh 5, maxthresh 15, linterm 10, q_weight 0.002),
    # Floyd's recommended values, which are also Red()'s
    "fig6-d0.1-typical-red": (15, 15, AbeQueue(beta_star=1.5, blue_delay=0.1, min_th=5.0,
                                               max_th=15.0, max_p=0.1, w_q=0.002),
                              WARMUP, None),
}


def network(case: str, capacity: float = CAPACITY, green: int = GREEN):
    """The :func:`~qosmodels.topologies.abe_dumbbell` of a case, its bottleneck at
    ``capacity`` bit/s, its Green source the case's own or ``GREEN_SOURCES[green]``."""
    n_green, n_blue, queue, _, source = CASES[case]
    return abe_dumbbell(n_green, n_blue, capacity=capacity, queue=queue,
                        green_source=_green_name(green) if source is None else source)


def _green_name(green) -> str:
    """The name of the Green source of code ``green`` (:data:`UNSTATED_GREEN`)."""
    codes = ", ".join(f"{i} {n!r}" for i, n in enumerate(GREEN_SOURCES))
    return GREEN_SOURCES[integer("abe_figures", "green_source", green, ge=0,
                                 le=len(GREEN_SOURCES) - 1, unit=f"code: {codes}")]


@functools.lru_cache(maxsize=None)
def runs(case: str, quick: bool, capacity: float = CAPACITY, green: int = GREEN) -> dict:
    """Per seed: the Blue/Green ratio of mean goodputs (Figure 2's cases: of packets
    delivered since 0), the mean goodputs of a Blue and of a Green flow (``blue``,
    ``green``, bit/s), each colour's loss ratio (``q_green``, ``q_blue``: packets dropped
    over dropped or delivered, in the window), the share of the bottleneck's drops not drawn
    at random (``forced_share``: forced, by Green dropping control, or overflow), the Green
    flows' mean queueing delay, its standard deviation (pooled over the Green flows) and
    the longest Green and Blue queueing delays, s; and Figures 6 and 8's curves, the packets
    received per Green and per Blue connection by each sample time after the warm-up
    (``green_count``, ``blue_count``: the mean over the colour's flows, one row per seed;
    times in ``count_t``, s); the bottleneck at ``capacity`` bit/s and the Green source of
    code ``green`` (:data:`UNSTATED_GREEN`)."""
    from ..sim import simulate

    n_green, n_blue, queue, warmup, _ = CASES[case]
    net = network(case, capacity, green)
    out = {k: [] for k in ("ratio", "blue", "green", "q_green", "q_blue", "forced_share",
                           "green_delay",
                           "green_std", "green_max", "blue_max", "green_count", "blue_count")}
    for seed in range(SEEDS[bool(quick)]):
        r = simulate(net, DURATION, seed=seed, warmup=warmup, progress=False)
        g = slice(0, n_green)
        b = slice(n_green, n_green + n_blue)
        out["ratio"].append(r.throughput[b].mean() / r.throughput[g].mean())
        out["blue"].append(float(r.throughput[b].mean()))
        out["green"].append(float(r.throughput[g].mean()))
        # each colour's loss ratio in the window: packets dropped over packets dropped or
        # reaching the receiver
        # the bottleneck's losses not drawn with a probability below one (RED's forced
        # drops, Green dropping control's, which count among them, and overflows) over all
        # its losses, the whole run
        link = net.link_id("r1->r2")
        forced = float(r.link_drops["forced"][link] + r.link_drops["overflow"][link])
        out["forced_share"].append(forced / (forced + float(r.link_drops["early"][link])))
        drops, arrived = r.counters["dropped_window"], r.counters["arrived_window"]
        for colour, sel in (("q_green", g), ("q_blue", b)):
            d = float(drops[sel].sum())
            out[colour].append(d / (d + float(arrived[sel].sum())))
        # packets received per connection since the warm-up, at the end of each interval
        after = r.t[:-1] >= warmup - 1e-9
        bits = r.throughput_series[after] * np.diff(r.t)[after][:, None]
        packets = np.cumsum(bits, axis=0) / (8.0 * net.flows[0].packet_size)
        out["green_count"].append(packets[:, g].mean(axis=1))
        out["blue_count"].append(packets[:, b].mean(axis=1))
        count_t = r.t[1:][after]
        n = r.delivered_packets[g].astype(float)
        mean = r.mean_queueing_delay[g]
        m = float(np.sum(n * mean) / n.sum())
        second = np.sum(n * (r.queueing_delay_std[g] ** 2 + mean ** 2)) / n.sum()
        out["green_delay"].append(m)
        out["green_std"].append(float(np.sqrt(max(second - m * m, 0.0))))
        out["green_max"].append(float(r.max_queueing_delay[g].max()))
        out["blue_max"].append(float(r.max_queueing_delay[b].max()))
    res = {k: np.asarray(v) for k, v in out.items()}
    res["count_t"] = np.asarray(count_t)
    return res


def _method(case: str, quick: bool, capacity: float = CAPACITY, green: int = GREEN) -> str:
    n_green, n_blue, queue, warmup, source = CASES[case]
    green_what = (f"green_source={_green_name(green)!r}" if source is None
                  else "Rap()" if isinstance(source, Rap)
                  else "TcpReno()" if isinstance(source, TcpReno)
                  else f"TcpFriendly(loss={source.loss!r})")
    what = "flat best effort (AbeQueue.flat: RED)" if queue.alpha == 1.0 else (
        f"AbeQueue(beta*={queue.beta_star:g}, D={queue.blue_delay:g} s, K1={queue.k1:g}, "
        f"K2={queue.k2:g}, T1={queue.period:g} s)")
    if (queue.min_th, queue.max_th, queue.max_p, queue.w_q) != (0.0, 40.0, 0.2, 0.02):
        what += (f", RED min_th={queue.min_th:g}, max_th={queue.max_th:g}, "
                 f"max_p={queue.max_p:g}, w_q={queue.w_q:g}")
    return (f"simulate(abe_dumbbell({n_green}, {n_blue})): {what}, {green_what} Green, Reno "
            f"Blue, {capacity / 1e6:g} Mb/s; {DURATION:g} s from {warmup:g} s, "
            f"{SEEDS[bool(quick)]} seeds")


def _side(case, key, quick, tol, capacity=CAPACITY, green=GREEN) -> Side:
    v = runs(case, quick, capacity, green)[key]
    return Side(float(v.mean()), tol, ci=t_half_width(v),
                method=_method(case, quick, capacity, green))


def _model_ratio(queue: AbeQueue, q_blue: float = Q_BLUE) -> float:
    """The Blue/Green throughput ratio at the control loop's fixed point (1: flat), at the
    Blue loss ratio ``q_blue`` (which matters only when K1 != K2)."""
    if queue.alpha is not None:
        return 1.0
    boost = queue.blue_delay / 2
    fp = queue.law.fixed_point(q_blue, boost)
    return abe.throughput_ratio(fp.alpha, q_blue, boost, queue.rtt)


def _theory(queue, q_blue: float = Q_BLUE) -> Side:
    if queue.alpha is not None:
        method = "eq (2): equal loss ratios and RTTs give equal rates"
    elif queue.k1 == queue.k2:
        method = "the loop's fixed point with K1 = K2 is the target: beta*"
    else:
        method = (f"the loop's fixed point q_g/q_b = c^2 delta^(-K2/K1) through eq (2), at "
                  f"q_b = {q_blue:g}, B = D/2")
    return Side(_model_ratio(queue, q_blue), RATIO_TOL, method=method)


#: Why the model's ratio stands off the paper's, where it does (by case).
THEORY_NOTES = {
    "fig2-abe": "the loop's fixed point is the target beta* = 3, which the paper's own run did "
                "not reach",
    "fig2-flat": "eq (2) gives equal rates for equal loss ratios and RTTs; the paper's Blue flow "
                 "got 8% more",
    "fig2-flat-ratio": "eq (2) gives equal rates for equal loss ratios and RTTs; the paper's "
                       "Blue flow got 8% more",
    "fig6-d0.2": "the loop's fixed point is beta* = 1.5; the paper's run with D = 0.2 s fell "
                 "short of it (the paper: the choice of tau_e decides how well the ratio is met)",
    "fig6-flat": "eq (2) gives equal rates for equal loss ratios and RTTs; the paper's Blue "
                 "flows got 6% more",
    "fig6-flat-ratio": "eq (2) gives equal rates for equal loss ratios and RTTs; the paper's "
                       "Blue flows got 6% more",
    "fig2-flat-rap": "eq (2) gives equal rates for equal loss ratios and RTTs; the paper's "
                     "Blue flow got 8% more",
    "fig6-flat-rap": "eq (2) gives equal rates for equal loss ratios and RTTs; the paper's "
                     "Blue flows got 6% more",
    "fig6-d0.2-rap": "the loop's fixed point is beta* = 1.5; the paper's run with D = 0.2 s "
                     "fell short of it",
    "fig2-flat-reno": "eq (2) gives equal rates for equal loss ratios and RTTs; the paper's "
                      "Blue flow got 8% more",
    "fig6-flat-reno": "eq (2) gives equal rates for equal loss ratios and RTTs; the paper's "
                      "Blue flows got 6% more",
    "fig6-d0.2-reno": "the loop's fixed point is beta* = 1.5; the paper's run with D = 0.2 s "
                      "fell short of it",
    "fig8": "the closed form's fixed point with K1 != K2 is off the target, c^2 "
            "delta^(-K2/K1) instead of c^2/delta; the paper's run is nearer the unbiased 1.5",
}


def _ratio_note(case, paper, quick, sides, capacity=CAPACITY, q_blue=Q_BLUE,
                green=GREEN) -> str:
    """Why the model and the packets stand off the paper's ratio, where they do."""
    notes = []
    model = _model_ratio(CASES[case][2], q_blue)
    if "theory" in sides and abs(model - paper) > RATIO_TOL * paper:
        notes.append(f"model {model:.3f} against the paper's {paper:g}: "
                     f"{THEORY_NOTES.get(case, '')}")
    if "packets" in sides:
        notes.append(_packets_note(case, paper, quick, capacity, green))
    return "; ".join(n for n in notes if n)


#: Flat best effort at 2 Mb/s, measured (seeds 0-3: each colour's packets dropped over
#: arrived in the window, and the Blue flows' timeouts and fast retransmits over the run).
FLAT_LOSSES = {
    "fig2-flat": "at 2 Mb/s both flows lose about 0.7% of their packets and Reno repairs "
                 "nearly all by fast retransmit (4 timeouts against 195 fast retransmits per "
                 "run)",
    "fig6-flat": "at 2 Mb/s the 30 flows lose about 22% of their packets, Green and Blue alike, "
                 "and the Blue Reno flows recover mostly by timeouts (about 2950 against 570 "
                 "fast retransmits per run)",
    "fig2-flat-ratio": "at 2 Mb/s, the Green source rated by its loss ratio, both flows lose "
                       "about 0.65% of their packets (10 seeds: Green 0.63%, Blue 0.66%)",
    "fig6-flat-ratio": "at 2 Mb/s, the Green source rated by its loss ratio, the 30 flows lose "
                       "about 16% of their packets, Green and Blue alike (10 seeds: 15.8% "
                       "and 15.7%)",
}


def _packets_note(case, paper, quick, capacity=CAPACITY, green=GREEN) -> str:
    v = float(runs(case, quick, capacity, green)["ratio"].mean())
    queue = CASES[case][2]
    if abs(v - paper) <= RATIO_TOL * paper:
        return ""
    if isinstance(CASES[case][4], Rap):
        r = runs(case, quick, capacity, green)
        losses = (f"Green loses {r['q_green'].mean():.1%} of its packets, Blue "
                  f"{r['q_blue'].mean():.1%}")
        return (f"packets {v:.3f} against the paper's {paper:g}: RAP as the Green source "
                f"({losses}); RAP decreases at most once per RTT and has no timeouts, so it "
                f"keeps about 2 packets per RTT or more however heavy its loss, and its rate "
                f"follows the square-root law (1.10 times sqrt(3/(2p)) at 1-2% random loss, "
                f"tests/sim/test_rap.py) only while losses are light; Reno, held down by "
                f"timeouts at heavy loss, gets less")
    if isinstance(CASES[case][4], TcpReno):
        r = runs(case, quick, capacity, green)
        losses = (f"Green loses {r['q_green'].mean():.1%} of its packets, Blue "
                  f"{r['q_blue'].mean():.1%}")
        if queue.alpha is not None:
            return (f"packets {v:.3f} against the paper's {paper:g}: Reno as the Green source "
                    f"({losses}), Reno against Reno; the paper's one run is inside the seeds' "
                    f"spread here")
        return (f"packets {v:.3f} against the paper's {paper:g}: Reno as the Green source "
                f"({losses}); the loop sets the loss ratio from eq (2)'s square-root law, and "
                f"Reno at Green's loss recovers mostly by timeouts, so its goodput falls "
                f"far faster than that law says")
    if CASES[case][4] is not None and queue.alpha is not None:
        return (f"packets {v:.3f} against the paper's {paper:g}: rated by eq (2) at its loss "
                f"ratio (constant sqrt(2), against Reno's sqrt(3/2), and no timeout term), the "
                f"Green source still outruns Reno; {FLAT_LOSSES[case]}")
    if CASES[case][4] is not None:
        return (f"packets {v:.3f} against the paper's {paper:g}: a Green source rated by its "
                f"loss ratio pays for every one of its alpha p drops, and Reno gets less than "
                f"eq (2) at these loss rates, so the ratio overshoots beta* where the TFRC loss "
                f"event rate left it short")
    if int(green) != GREEN:
        # the explored sources (UNSTATED_GREEN): RFC 5348's TFRC and Reno
        what = {"tfrc": "TFRC as RFC 5348 specifies it", "reno": "Reno as the Green source",
                "tfrc-eq2-ratio": "TFRC rated by eq (2) at its loss ratio",
                "tfrc-ratio": "RFC 5348's equation at the loss ratio",
                "rap": "RAP as the Green source"}[_green_name(green)]
        if queue.alpha is not None:
            return (f"packets {v:.3f} against the paper's {paper:g}: {what}, flat best "
                    f"effort; the paper's own Green source (its ref. [6]) is not specified")
        return (f"packets {v:.3f} against the paper's {paper:g}: {what}; the loop sets alpha "
                f"from eq (2), which this source's rate does not follow, so Blue gains "
                f"{'more' if v > paper else 'less'} than the paper's")
    if queue.alpha is not None:
        return (f"packets {v:.3f} against the paper's {paper:g}: with equal loss ratios the "
                f"TFRC-type Green source, rated by eq (2) (constant sqrt(2), against Reno's "
                f"sqrt(3/2)) at its loss *event* rate (losses within one RTT count once), "
                f"outruns Reno; {FLAT_LOSSES[case]}; the paper's own Green source (its ref. "
                f"[6]) is not specified")
    return (f"packets {v:.3f} against the paper's {paper:g}: the loop drives the Green/Blue "
            f"*loss* ratio towards its target, but the Green source's rate follows its loss "
            f"event rate, not its loss ratio (alpha p drops come in clusters, which count "
            f"once), and eq (2) is more generous than Reno, so Blue gains less than beta*")


def _delay_note(v, paper, capacity=CAPACITY) -> str:
    if abs(v - paper) <= DELAY_TOL * paper:
        return ""
    return (f"packets {v * 1e3:.3g} ms against the paper's {paper * 1e3:.4g} ms: queueing delays "
            f"scale with the bottleneck's packet time, and the paper does not give its "
            f"capacity ({capacity / 1e6:g} Mb/s here)")


#: What the Green source does, measured (10 seeds of 300 s at 2 Mb/s, the rows' own method;
#: the other sources by validate --explore, green_source=1 and 2: UNSTATED_GREEN).
GREEN_SOURCE = (
    "The paper's Green source is 'the rate-based TCP friendly type algorithm described in "
    "[6]' (Section IV-B), a technical report's algorithm the paper does not give; the "
    "library's TcpFriendly (TFRC's loss event rate with eq (2), green_source=0) is far more "
    "aggressive than Reno at these loss rates: flat, it takes 1/0.357 = 2.8 times a Reno "
    "flow's goodput with 15 + 15 flows and 1/0.771 = 1.3 times with 1 + 1, where the paper's "
    "Green source took 1/1.058 and 1/1.08 (about as much as Reno).  Reno as the Green source "
    "(green_source=2) comes within 10% of the paper's flat ratios (1.025 with 15 + 15, "
    "0.985 with 1 + 1) but overshoots with ABE (4.40 for D = 0.1 s, 4.65 for D = 0.2 s, 22.5 "
    "for Figure 8, 2.28 for Figure 2); TFRC as RFC 5348 specifies it (green_source=1) "
    "gives 1.287 and 0.909 flat and overshoots further with ABE (5.39, 5.41, 29.2; 2.42 for "
    "Figure 2).  Fed its packet loss ratio, eq (2)'s q, as ABE's control law assumes "
    "(green_source=3, TcpFriendly(loss='packets')), the eq (2) source still takes 1/0.541 = "
    "1.8 and 1/0.867 = 1.15 times a Reno flow's goodput flat (10 seeds) and gives 1.64 at "
    "D = 0.1 s, 1.64 at D = 0.2 s and 4.85 for Figure 2 (4 seeds); RFC 5348's equation at "
    "the loss ratio (green_source=4) gives 1.69 and 0.97 flat, 14.9, 18.1 and 103 with ABE.  "
    "RAP, the paper's ref. [9] (green_source=5, Rap(): rate-based AIMD, one more packet per "
    "RTT each RTT, halved at most once per RTT, no timeouts), gives 0.933 and 0.191 flat and "
    "0.772 and 0.806 with ABE (10 seeds): under the 15 + 15 runs' 21-24% losses (47-49% for "
    "Green with ABE) it never sends much below 2 packets per RTT (a halving every RTT and one "
    "more packet per RTT settle at x = x/2 + 1), where Reno is held down by its timeouts.  "
    "No source here gives the paper's flat and ABE ratios together.")


def _blue_gain(experiment, case, flat, what, quick, reference, capacity=CAPACITY,
               green=GREEN) -> Check:
    """The paper's statement that Blue flows get more throughput with ABE than with flat
    best effort: a Blue flow's mean goodput with ABE over flat, seed by seed (the same
    seeds), against the bound ``> 1``."""
    v = runs(case, quick, capacity, green)["blue"] / runs(flat, quick, capacity, green)["blue"]
    side = Side(float(v.mean()), 0.0, ci=t_half_width(v),
                method=_method(case, quick, capacity, green)
                + f"; over the {flat} runs, seed by seed")
    return Check(experiment, f"Blue throughput, {what} over flat best effort",
                 Bounds(lower=1.0), source="paper (stated)", packets=side,
                 reference=reference)


# ---------------------------------------------------------------------- Figures 2 and 3
@register("abe-fig2", title="ABE Figure 2: 1 Green + 1 Blue, beta* = 3, D = 0.2 s: Blue/Green "
          "packets by 300 s, with and without ABE", paper=PAPER + ", Section II-B, Figure 2",
          sides=("theory", "packets"), unstated=(UNSTATED_CAPACITY, UNSTATED_GREEN))
def fig2(*, sides, quick, params) -> list[Check]:
    cap, g = params["capacity"], int(params["green_source"])
    rows = []
    for case, paper, what, known in (
            ("fig2-abe", 2.674, "with ABE", Known(
                "mechanism differs",
                "Packets 1.80 (quick 1.78) against 2.674, and no capacity run reaches it "
                "(1.67-2.05 over 1-10 Mb/s, --explore).  " + GREEN_SOURCE
                + "  (ABE over flat best effort, which factors the source's flat advantage "
                "out, is 1.80 / 0.771 = 2.33 here against the paper's 2.674 / 1.08 = 2.48.)  "
                "The model's side is the loop's fixed point, the target beta* = 3 (0.12 off): "
                "it assumes sources that follow eq (2) exactly, and the paper's own run fell "
                "short of its target.", 0.40, sides=("theory", "packets"))),
            ("fig2-flat", 1.08, "without ABE (flat best effort)", Known(
                "mechanism differs",
                "Packets 0.771 (quick 0.759) against 1.08, 0.44-0.77 over 1-10 Mb/s "
                "(--explore).  " + GREEN_SOURCE + "  The model's side, 1 "
                "(0.07 off), gives eq (2)'s equal rates for equal loss ratios and RTTs; the "
                "paper's Blue flow got 8% more.", 0.36, sides=("theory", "packets"))),
            ("fig2-flat-ratio", 1.08,
             "without ABE (flat best effort), Green rated by its loss ratio", Known(
                 "mechanism differs",
                 "A Green source of the library's own (TcpFriendly(loss='packets')), not the "
                 "paper's, the reading of 'TCP-friendly' closest to eq (2) (its q is the packet "
                 "loss ratio): packets 0.867 (quick 0.859) against 1.08, nearer than the loss "
                 "event rate's 0.771 but still 1.15 times a Reno flow's goodput.  "
                 + GREEN_SOURCE + "  The model's side, 1 (0.07 off), gives eq (2)'s equal "
                 "rates for equal loss ratios and RTTs.", 0.30, sides=("theory", "packets"))),
            ("fig2-flat-rap", 1.08, "without ABE (flat best effort), Green as RAP", Known(
                "mechanism differs",
                "RAP (Rap(), the paper's ref. [9]) as the Green source: packets 0.933 (quick "
                "0.921; seeds 0-9: 0.864-0.963) against 1.08, both flows losing about 0.65% "
                "of their packets (Green 0.69%, Blue 0.63%): RAP takes 1.07 times a Reno "
                "flow's goodput; 0.780 and 0.498 at 5 and 10 Mb/s.  At light random loss RAP "
                "sends 1.10 times AIMD's sqrt(3/(2p)) packets per RTT (tests/sim/test_rap.py), "
                "Reno less.  The model's side, 1 (0.07 off), gives eq (2)'s equal rates for "
                "equal loss ratios and RTTs.", 0.25, sides=("theory", "packets"))),
            ("fig2-flat-reno", 1.08, "without ABE (flat best effort), Green as Reno", Known(
                "statistical",
                "TcpReno() as the Green source, TCP-friendly in the paper's sense by "
                "construction (Reno against Reno): packets 0.985 (quick 0.973) against the "
                "paper's 1.08, the seeds 0-9 spreading 0.907-1.083 (both flows losing 0.60% "
                "of their packets), so the paper's single run lies inside the spread of "
                "single runs here.  The model's side, 1 (0.07 off), gives eq (2)'s equal "
                "rates for equal loss ratios and RTTs.", 0.15, sides=("theory", "packets")))):
        queue = CASES[case][2]
        rows.append(Check(
            "abe-fig2", f"Blue/Green packets delivered by 300 s, {what}", paper,
            source="paper (measured)", paper=paper,
            theory=_theory(queue) if "theory" in sides else None,
            packets=(_side(case, "ratio", quick, RATIO_TOL, cap, green=g)
                     if "packets" in sides else None),
            reference="paper, Section II-B: 'at time 300 the ratio ... is 1.08 ... 2.674'",
            note=_ratio_note(case, paper, quick, sides, cap, green=g), known=known))
    if "packets" in sides:
        rows.append(_blue_gain(
            "abe-fig2", "fig2-abe", "fig2-flat", "with ABE (packets by 300 s)", quick,
            "paper, Section II-B: 'It is clear from this that the throughput given to the Blue "
            "source is higher in the ABE case'", cap, green=g))
        v = (runs("fig2-abe", quick, cap, g)["green"]
             / runs("fig2-flat", quick, cap, g)["green"])
        rows.append(Check(
            "abe-fig2", "Green throughput, with ABE (packets by 300 s) over flat best effort",
            Bounds(upper=1.0), source="paper (stated)",
            packets=Side(float(v.mean()), 0.0, ci=t_half_width(v),
                         method=_method("fig2-abe", quick, cap, green=g)
                         + "; over the fig2-flat runs, seed by seed"),
            reference="paper, Section II-B: 'an application that requires low delay jitter "
                      "does receive it but at the expense of lower throughput'"))
    return rows


@register("abe-fig3", title="ABE Figure 3: the Green flow's queueing delay, with and without "
          "ABE (1 Green + 1 Blue)", paper=PAPER + ", Section II-B, Figure 3",
          sides=("packets",), unstated=(UNSTATED_CAPACITY, UNSTATED_GREEN))
def fig3(*, sides, quick, params) -> list[Check]:
    cap, g = params["capacity"], int(params["green_source"])
    rows = []
    for case, mean, std, what in (("fig2-abe", 0.001599, 0.001299, "with ABE"),
                                  ("fig2-flat", 0.007449, 0.008, "without ABE")):
        for key, paper, label in (("green_delay", mean, "mean"), ("green_std", std,
                                                                   "standard deviation")):
            side = _side(case, key, quick, DELAY_TOL, cap, green=g)
            quantity = f"Green queueing delay {label}, {what}"
            rows.append(Check(
                "abe-fig3", quantity, paper,
                source="paper (measured)", paper=paper, unit="s", packets=side,
                reference="paper, Section II-B: mean 0.001599 and 0.007449 s, standard "
                          "deviation 0.001299 and 0.008 s",
                note=_delay_note(side.value, paper, cap),
                known=FIG3_KNOWN_QUICK.get(quantity) if quick else FIG3_KNOWN.get(quantity)))
    # with ABE over without, seed by seed: the paper's "some orders of magnitude smaller"
    # and "increased predictability", whose own numbers give 0.2147 and 0.1624
    for key, label, paper in (("green_delay", "mean", 0.001599 / 0.007449),
                              ("green_std", "standard deviation", 0.001299 / 0.008)):
        v = runs("fig2-abe", quick, cap, g)[key] / runs("fig2-flat", quick, cap, g)[key]
        side = Side(float(v.mean()), DELAY_TOL, ci=t_half_width(v),
                    method=_method("fig2-abe", quick, cap, green=g)
                    + "; over the flat runs, seed by seed")
        quantity = f"Green queueing delay {label}, with ABE over without"
        rows.append(Check(
            "abe-fig3", quantity, paper, source="paper (measured)", paper=paper,
            packets=side,
            reference="paper, Section II-B: mean 0.001599 over 0.007449 s ('the ABE average "
                      "is some orders of magnitude smaller': its own numbers give a factor "
                      "4.7), standard deviation 0.001299 over 0.008 s ('the increased "
                      "predictability'); tolerance the delays' own, 25%",
            note="" if side.ok(paper) else (
                f"packets {side.value:.3f} against the paper's {paper:.4f}: the ratio too "
                f"moves with the bottleneck's capacity, not given ({cap / 1e6:g} Mb/s here)"),
            known=FIG3_RATIO_KNOWN.get(quantity)))
    queue = CASES["fig2-abe"][2]
    rows.append(_green_bound("abe-fig3", "fig2-abe", queue, quick, cap, green=g))
    rows.append(_blue_bound("abe-fig3", "fig2-abe", queue, quick, cap, green=g))
    return rows


#: Figure 3's ratios, with ABE over without, measured (10 seeds; the quick form's 4 in
#: brackets) at the capacities --explore runs.
_RATIO_SWEEP = (
    "The ratios are not free of the capacity, which the paper does not give: the flat "
    "queue's length in packets changes with it (the flat mean delay is 15.3, 6.49, 3.37, "
    "0.46 and 0.09 ms at 1, 1.5, 2, 5 and 10 Mb/s, the ABE one 2.94, 1.79, 1.21, 0.24 and "
    "0.06 ms).  ")
FIG3_RATIO_KNOWN = {
    "Green queueing delay mean, with ABE over without": Known(
        "unstated parameter",
        "0.359 (quick 0.351) against 0.2147 at 2 Mb/s.  " + _RATIO_SWEEP + "The ratio is "
        "0.192, 0.277, 0.359, 0.525 and 0.682 at 1, 1.5, 2, 5 and 10 Mb/s: within tolerance "
        "at 1 Mb/s (--explore: capacity=1e6), where the absolute delays are twice the "
        "paper's (they are within tolerance at 1.5 Mb/s): no one capacity gives all of "
        "Figure 3's numbers.", 0.85, sides=("packets",)),
    "Green queueing delay standard deviation, with ABE over without": Known(
        "unstated parameter",
        "0.303 (quick 0.295) against 0.1624 at 2 Mb/s.  " + _RATIO_SWEEP + "The ratio is "
        "0.152, 0.218, 0.303, 0.460 and 0.557 at 1, 1.5, 2, 5 and 10 Mb/s: within tolerance "
        "at 1 Mb/s (--explore: capacity=1e6), where the absolute spreads are twice the "
        "paper's (they are within tolerance at 1.5 Mb/s).", 1.1, sides=("packets",)),
}


#: Figure 3's delays at the default 2 Mb/s, and what a 1.5 Mb/s (T1) bottleneck gives
#: (validate --explore; 10 seeds, and the quick form's 4): every Figure 3 row within 25%.
FIG3_KNOWN = {
    "Green queueing delay mean, without ABE": Known(
        "unstated parameter",
        "3.37 ms (quick 3.41 ms) against 7.449 ms at 2 Mb/s; the capacity is not given and "
        "sets the packet time the delays scale with: at 1.5 Mb/s 6.49 ms (quick 6.49 ms) is "
        "within tolerance (--explore: capacity=1.5e6; 15.3 ms at 1 Mb/s).", 0.66,
        sides=("packets",)),
    "Green queueing delay standard deviation, without ABE": Known(
        "unstated parameter",
        "4.41 ms (quick 4.53 ms) against 8 ms at 2 Mb/s; the capacity is not given and sets "
        "the packet time the delays scale with: at 1.5 Mb/s 8.22 ms (quick 8.26 ms) is "
        "within tolerance (--explore: capacity=1.5e6; 17.4 ms at 1 Mb/s).", 0.55,
        sides=("packets",)),
}
#: The quick form only: its 4 seeds put the with-ABE mean just outside (the full form's 10
#: seeds, 1.21 ms, 0.242 off, just inside).
FIG3_KNOWN_QUICK = {
    **FIG3_KNOWN,
    "Green queueing delay mean, with ABE": Known(
        "unstated parameter",
        "1.195 ms over the quick form's 4 seeds (0.253 off; 1.21 ms, 0.242 off, over the full "
        "form's 10) against 1.599 ms at 2 Mb/s; the capacity is not given and sets the packet "
        "time the delays scale with: at 1.5 Mb/s 1.80 ms (1.79 ms over 10 seeds) is within "
        "tolerance (--explore --quick: capacity=1.5e6), and so is Reno as the Green source, "
        "1.65 ms (1.66 ms over 10 seeds; green_source=2).", 0.31, sides=("packets",)),
}


def _green_bound(experiment, case, queue, quick, capacity=CAPACITY, green=GREEN) -> Check:
    """The paper's bound on a Green packet's queueing delay, ``L0 / c`` (in packet times
    of the bottleneck), against the longest one measured."""
    net = network(case, capacity, green)
    link = net.links[net.link_id("r1->r2")]
    packet_time = 8.0 * net.flows[0].packet_size / link.capacity
    # the access links add at most their own few packet times (100 times faster)
    bound = queue.l0 * packet_time
    return Check(
        experiment, f"longest Green queueing delay, D = {queue.blue_delay:g} s",
        Bounds(upper=bound * 1.02), source="paper (stated)", unit="s",
        packets=_side(case, "green_max", quick, 0.0, capacity, green), sanity=True,
        reference=f"paper, Section III-B: Green dropping control bounds Green delays by "
                  f"L0/c = {queue.l0} packet times = {bound * 1e3:.3g} ms (2% for the access "
                  f"links' queues); sanity: the router's Green dropping control enforces "
                  f"this bound by its rule, so any working ABE router meets it")


def _blue_bound(experiment, case, queue, quick, capacity=CAPACITY, green=GREEN) -> Check:
    """The paper's bound on a Blue packet's queueing delay, ``L_tot / c + D``, against the
    longest one measured.

    EDF serves a Blue packet that arrives at ``t`` (deadline ``t + D``) before every packet
    arriving after ``t + D``; by ``t + D`` at most the buffer's ``L_tot`` packets (the one
    in service included) are ahead of it, so it waits at most ``D + L_tot / c``: a bound any
    EDF router with that buffer meets by construction (a sanity row).
    """
    net = network(case, capacity, green)
    link = net.links[net.link_id("r1->r2")]
    packet_time = 8.0 * net.flows[0].packet_size / link.capacity
    bound = link.buffer * packet_time + queue.blue_delay
    return Check(
        experiment, f"longest Blue queueing delay, D = {queue.blue_delay:g} s"
        + (f", K1 = {queue.k1:g}, K2 = {queue.k2:g}" if queue.k1 != queue.k2 else ""),
        Bounds(upper=bound * 1.02), source="paper (stated)", unit="s",
        packets=_side(case, "blue_max", quick, 0.0, capacity, green), sanity=True,
        reference=f"paper, Section III-B: 'The queuing delay for Blue packets is at most "
                  f"L_tot/c + D for a buffer size of L_tot': {link.buffer} packet times + "
                  f"{queue.blue_delay:g} s = {bound * 1e3:.4g} ms (2% for the access links' "
                  f"queues); sanity: EDF with Blue deadlines t + D and a buffer of L_tot "
                  f"packets meets it by construction")


# ---------------------------------------------------------------------- Figures 6 and 7
#: Figure 6's ratios: packets at the default 2 Mb/s (quick), over the capacities --explore
#: ran (1, 1.5, 5, 10 Mb/s; 10 seeds each), and the model's side.
_CAPACITY_SWEEP = ("capacity moves the ratios a long way (it sets how many packets per RTT each "
                   "of the 30 flows gets, and so the loss rates) but no capacity run reaches "
                   "the paper's: ")
FIG6_KNOWN = {
    "Blue/Green throughput ratio, D = 0.1 s": Known(
        "mechanism differs",
        "Packets 1.250 (quick 1.266) against 1.4506; " + _CAPACITY_SWEEP + "5.09, 1.84, "
        "0.93 and 1.04 at 1, 1.5, 5 and 10 Mb/s.  " + GREEN_SOURCE,
        0.19, sides=("packets",)),
    "Blue/Green throughput ratio, D = 0.2 s": Known(
        "mechanism differs",
        "Packets 1.299 (quick 1.263) against 1.37325; " + _CAPACITY_SWEEP + "17.9, 2.16, "
        "0.94 and 1.04 at 1, 1.5, 5 and 10 Mb/s.  " + GREEN_SOURCE + "  The "
        "model's side is the loop's fixed point, the target beta* = 1.5 (0.092 off): it "
        "assumes sources that follow eq (2) exactly and a Green RTT of tau_e; the paper: "
        "'the choice of tau_e determines the level of success in achieving this'.",
        0.14, sides=("theory", "packets")),
    "Blue/Green throughput ratio, flat best effort": Known(
        "mechanism differs",
        "Packets 0.357 (quick 0.346) against 1.058; " + _CAPACITY_SWEEP + "0.23, 0.31, 0.55 "
        "and 0.66 at 1, 1.5, 5 and 10 Mb/s; Reno as the Green source brings the packets "
        "within tolerance, 1.025 (quick 1.041; --explore: green_source=2), the model's side "
        "staying 1.  " + GREEN_SOURCE + "  The "
        "model's side, 1 (0.055 off), gives eq (2)'s equal rates for equal loss ratios and "
        "RTTs; the paper's Blue flows got 6% more.", 0.80, sides=("theory", "packets")),
    "Blue/Green throughput ratio, D = 0.1 s, Green rated by its loss ratio": Known(
        "mechanism differs",
        "A Green source of the library's own (TcpFriendly(loss='packets')), not the paper's: "
        "packets 1.612 (quick 1.638) against 1.4506, overshooting where the loss event rate "
        "falls short (1.250); 9.88, 2.32, 1.24 and 1.26 at 1, 1.5, 5 and 10 Mb/s (--explore).  "
        + GREEN_SOURCE, 0.18,
        sides=("packets",)),
    "Blue/Green throughput ratio, flat best effort, Green rated by its loss ratio": Known(
        "mechanism differs",
        "A Green source of the library's own (TcpFriendly(loss='packets')), not the paper's, "
        "the reading of 'TCP-friendly' closest to eq (2) (its q is the packet loss ratio): "
        "packets 0.541 (quick 0.537) against 1.058, both colours losing 15.7% of their "
        "packets; it still takes 1.8 times a Reno flow's goodput, Reno recovering mostly by "
        "timeouts, which eq (2) has no term for; 0.40, 0.70 at 1 and 5 Mb/s (quick form).  "
        + GREEN_SOURCE + "  The model's side, 1 (0.055 off), gives eq (2)'s equal rates for "
        "equal loss ratios and RTTs.", 0.60, sides=("theory", "packets")),
    "Blue/Green throughput ratio, flat best effort, Green as RAP": Known(
        "mechanism differs",
        "RAP (Rap(), the paper's ref. [9]) as the Green source: packets 0.191 (quick 0.187; "
        "seeds 0-9: 0.178-0.206) against 1.058, Green losing 23.6% of its packets and Blue "
        "20.8%: RAP takes 5.2 times a Reno flow's goodput.  With a decrease at most once per "
        "RTT and no timeouts RAP never sends much below 2 packets per RTT (x = x/2 + 1; "
        "measured 2.6-3.1 packets sent per RTT at 30-50% random loss, where Reno sends "
        "0.06 or fewer), while the Reno flows recover mostly by timeouts; 0.448 and 0.621 "
        "at 5 and 10 Mb/s (10 seeds).  The model's side, 1 (0.055 off), gives eq (2)'s "
        "equal rates for equal loss ratios and RTTs.", 0.90, sides=("theory", "packets")),
    "Blue/Green throughput ratio, D = 0.1 s, Green as RAP": Known(
        "mechanism differs",
        "RAP (Rap(), the paper's ref. [9]) as the Green source: packets 0.772 (quick 0.767; "
        "seeds 0-9: 0.749-0.792) against 1.4506.  ABE's loop does raise Green's loss "
        "(46.9% against Blue's 11.6%), and ABE over flat best effort is 0.772 / 0.191 = "
        "4.0 (the paper's 1.4506 / 1.058 = 1.37), but RAP's rate hardly falls with loss at "
        "that level (at most one halving per RTT: about 2 packets per RTT or more), so "
        "Green keeps 1.3 times a Blue flow's goodput; 0.764 and 0.951 at 5 and 10 Mb/s "
        "(10 seeds).", 0.60, sides=("packets",)),
    "Blue/Green throughput ratio, D = 0.2 s, Green as RAP": Known(
        "mechanism differs",
        "RAP (Rap(), the paper's ref. [9]) as the Green source: packets 0.806 (quick 0.802; "
        "seeds 0-9: 0.784-0.817) against 1.37325, Green losing 49.3% of its packets and "
        "Blue 10.0%: as for D = 0.1 s, RAP's rate hardly falls with loss at that level; "
        "0.764 and 0.951 at 5 and 10 Mb/s (10 seeds).  The model's side is the loop's "
        "fixed point, the target beta* = 1.5 (0.092 off).", 0.55,
        sides=("theory", "packets")),
    "Blue/Green throughput ratio, flat best effort, Green as Reno": Known(
        "statistical",
        "TcpReno() as the Green source: the packets reproduce the paper's 1.058 (1.025, quick "
        "1.041; seeds 0-9: 0.974-1.080; both colours losing 12.7% of their packets), as a "
        "TCP-friendly Green source should.  The model's side, 1 (0.055 off), gives eq (2)'s "
        "equal rates for equal loss ratios and RTTs; the paper's 1.058 is one run, and single "
        "runs here spread 0.974-1.080 around the mean.", 0.06, sides=("theory",)),
    "Blue/Green throughput ratio, D = 0.1 s, Green as Reno": Known(
        "mechanism differs",
        "TcpReno() as the Green source: packets 4.40 (quick 4.38; seeds 0-9: 4.09-4.76) "
        "against 1.4506.  ABE's loop sets Green's loss from eq (2)'s square-root law: Green "
        "loses 23.3% of its packets, Blue 8.1% (a ratio of 2.9; the law's rate ratio at "
        "these losses is sqrt(2.9) = 1.70).  Reno at 23% loss recovers mostly by timeouts "
        "(seed 0, 300 s: the 15 Green flows 3149 timeouts against 288 fast retransmits, the "
        "Blue flows 2364 against 2371), which the law has no term for, so Green's goodput "
        "falls far below the law's: a window-based Green source meets the paper's flat runs "
        "but not its ABE runs.", 2.5, sides=("packets",)),
    "Blue/Green throughput ratio, D = 0.2 s, Green as Reno": Known(
        "mechanism differs",
        "TcpReno() as the Green source: packets 4.65 (quick 4.59; seeds 0-9: 4.20-5.19) "
        "against 1.37325, Green losing 23.2% of its packets and Blue 8.1%: as for D = 0.1 s, "
        "Reno at Green's loss recovers mostly by timeouts, which eq (2) has no term for.  The "
        "model's side is the loop's fixed point, the target beta* = 1.5 (0.092 off).", 3.0,
        sides=("theory", "packets")),
}

#: The paper's worst 95% confidence interval of Figure 6's curves, packets, and the runs it
#: averaged over ("average values were obtained after four simulation runs").
FIG6_WORST_CI = 19.31
FIG6_RUNS = 4
#: Tolerance of the worst interval: a standard deviation from 4 runs has a relative
#: standard deviation of about 0.42 (chi with 3 degrees of freedom: sqrt(1 - c4^2) / c4,
#: c4 = 0.921), so two of them.
CI_TOL = 0.85


def worst_half_width(counts: np.ndarray, runs_per_mean: int = FIG6_RUNS) -> np.ndarray:
    """The worst (over time) 95% Student-t half-width of the mean of ``runs_per_mean``
    runs, for every choice of that many runs among the rows of ``counts`` (shape (seeds,
    times)); one value per choice, in ``itertools.combinations`` order."""
    import itertools

    from scipy import stats

    t = stats.t.ppf(0.975, runs_per_mean - 1)
    out = []
    for pick in itertools.combinations(range(counts.shape[0]), runs_per_mean):
        x = counts[list(pick)]
        out.append(float((t * x.std(axis=0, ddof=1) / np.sqrt(runs_per_mean)).max()))
    return np.asarray(out)


def _worst_ci_side(quick, capacity=CAPACITY, green=GREEN) -> Side:
    """Figure 6's worst 95% half-width over its six curves (Green and Blue for D = 0.1,
    0.2 s and flat best effort), for each choice of 4 of the seeds, then the mean over the
    choices (one choice, seeds 0-3, in the quick form)."""
    per_pick = []
    for case in ("fig6-d0.1", "fig6-d0.2", "fig6-flat"):
        r = runs(case, quick, capacity, green)
        for colour in ("green_count", "blue_count"):
            per_pick.append(worst_half_width(r[colour]))
    worst = np.max(per_pick, axis=0)
    n = SEEDS[bool(quick)]
    picks = "seeds 0-3" if len(worst) == 1 else (
        f"mean over the {len(worst)} choices of 4 of the {n} seeds "
        f"({worst.min():.1f}-{worst.max():.1f})")
    return Side(float(worst.mean()), CI_TOL,
                method=_method("fig6-d0.1", quick, capacity, green)
                + "; the same runs with D = 0.2 s "
                "and flat: packets received per connection since the warm-up, per colour, "
                f"the worst 95% Student-t half-width over 4 runs at any of the {DURATION / 500:g} "
                f"s sample times, over the six curves; {picks}")


#: Figure 6's worst interval, measured (this module's runs, 2 Mb/s): the worst half-width
#: up to a time T of the 300 s runs (mean over the choices of 4 of the 10 seeds; the quick
#: form's seeds 0-3 in brackets), and over the capacities --explore ran (10 seeds, 300 s).
_CI_EVIDENCE = (
    "The half-width grows with the packets counted, so with the run's length, which the "
    "paper does not give (Figure 6's time axis is lost) and which is 300 s here: the worst "
    "half-width up to T = 60, 100, 150, 200 and 300 s is 12.5, 25.3, 44.2, 55.1 and 71.8 "
    "packets (quick: 10.6, 28.0, 36.3, 36.3, 60.3), the largest count per connection then "
    "366, 854, 1472, 2086 and 3306 packets: the paper's 19.31 is passed near T = 80-100 s.  "
    "The capacity does not bring it down: 84.7, 87.3, 65.6 and 122.5 at 1, 1.5, 5 and "
    "10 Mb/s (--explore), nor the Green source: 51.4 with TFRC as RFC 5348 specifies it and "
    "79.2 with Reno (quick 70.4 and 83.7; --explore: green_source=1, 2).  The worst curve is "
    "flat best effort's (its Blue flows' count "
    "varies by 5.6% of itself against 1.5-2.8% with ABE: the library's Green source takes "
    "2.8 times a Reno flow's goodput there, see the ratios' note); the ABE curves alone "
    "give 58.6 (quick 42.6).  The paper may also mean the interval's full width, half of "
    "which is 9.7.")
FIG6_CI_KNOWN = {
    "worst 95% confidence half-width of the packets per connection, 4 runs": Known(
        "unstated parameter",
        "71.8 packets (quick 60.3) against 19.31 at 300 s and 2 Mb/s.  " + _CI_EVIDENCE,
        3.3, sides=("packets",)),
}


def _ci_note(v) -> str:
    return (f"packets {v:.1f} against the paper's {FIG6_WORST_CI:g}: the half-width grows "
            f"with the run's length, which the paper does not give ({DURATION:g} s here)")


@register("abe-fig6", title="ABE Figure 6: 15 Green + 15 Blue, beta* = 1.5: Blue/Green "
          "throughput for D = 0.1, 0.2 s and flat best effort",
          paper=PAPER + ", Section IV-C, Figure 6", sides=("theory", "packets"),
          unstated=(UNSTATED_CAPACITY, UNSTATED_GREEN))
def fig6(*, sides, quick, params) -> list[Check]:
    cap, g = params["capacity"], int(params["green_source"])
    rows = []
    for case, paper, what in (("fig6-d0.1", 1.4506, "D = 0.1 s"),
                              ("fig6-d0.2", 1.37325, "D = 0.2 s"),
                              ("fig6-flat", 1.058, "flat best effort")):
        quantity = f"Blue/Green throughput ratio, {what}"
        rows.append(Check(
            "abe-fig6", quantity, paper,
            source="paper (measured)", paper=paper,
            theory=_theory(CASES[case][2]) if "theory" in sides else None,
            packets=(_side(case, "ratio", quick, RATIO_TOL, cap, green=g)
                     if "packets" in sides else None),
            reference="paper, Section IV-C: 1.4506 (D = 0.1), 1.37325 (D = 0.2), 1.058 (flat)",
            note=_ratio_note(case, paper, quick, sides, cap, green=g), known=FIG6_KNOWN[quantity]))
    # the same routers with a Green source rated by its loss ratio, eq (2)'s own q
    for case, paper, what in (("fig6-d0.1-ratio", 1.4506, "D = 0.1 s"),
                              ("fig6-flat-ratio", 1.058, "flat best effort")):
        quantity = f"Blue/Green throughput ratio, {what}, Green rated by its loss ratio"
        packets = (_side(case, "ratio", quick, RATIO_TOL, cap, green=g)
                   if "packets" in sides else None)
        rows.append(Check(
            "abe-fig6", quantity, paper, source="paper (measured)", paper=paper,
            theory=_theory(CASES[case][2]) if "theory" in sides else None, packets=packets,
            reference=f"paper, Section IV-C: {paper:g} ({what}); here "
                      "TcpFriendly(loss='packets'), eq (2)'s loss ratio in place of TFRC's loss "
                      "event rate",
            note=_ratio_note(case, paper, quick, sides, cap, green=g),
            known=FIG6_KNOWN[quantity]))
    # the same routers with RAP (the paper's ref. [9]) and with TCP Reno as the Green source
    # (Reno: TCP-friendly in the paper's flat sense by construction; issue 32: ABE judged with
    # a Green source that meets the flat runs)
    for suffix, label, spec in (
            ("rap", "RAP", "Rap(), RAP (Rejaie, Handley, Estrin, INFOCOM 1999, the paper's "
                           "ref. [9]) as the Green source"),
            ("reno", "Reno", "TcpReno() as the Green source, window-based, not the paper's "
                             "rate-based one")):
        for case, paper, what in ((f"fig6-d0.1-{suffix}", 1.4506, "D = 0.1 s"),
                                  (f"fig6-d0.2-{suffix}", 1.37325, "D = 0.2 s"),
                                  (f"fig6-flat-{suffix}", 1.058, "flat best effort")):
            quantity = f"Blue/Green throughput ratio, {what}, Green as {label}"
            rows.append(Check(
                "abe-fig6", quantity, paper, source="paper (measured)", paper=paper,
                theory=_theory(CASES[case][2]) if "theory" in sides else None,
                packets=(_side(case, "ratio", quick, RATIO_TOL, cap, green=g)
                         if "packets" in sides else None),
                reference=f"paper, Section IV-C: {paper:g} ({what}); here {spec}",
                note=_ratio_note(case, paper, quick, sides, cap, green=g),
                known=FIG6_KNOWN[quantity]))
    if "packets" not in sides:
        return rows
    for case, what in (("fig6-d0.1", "D = 0.1 s"), ("fig6-d0.2", "D = 0.2 s")):
        rows.append(_blue_gain(
            "abe-fig6", case, "fig6-flat", what, quick,
            "paper, Section IV: 'Blue traffic receives more throughput than it would from the "
            "flat best-effort case'; IV-C: 'the throughput benefit given, on average, to Blue "
            "traffic'", cap, green=g))
    for case, what in (("fig6-d0.1", "D = 0.1 s"), ("fig6-d0.2", "D = 0.2 s")):
        r = runs(case, quick, cap, g)
        v = r["q_green"] / r["q_blue"]
        rows.append(Check(
            "abe-fig6", f"Green/Blue loss ratio, {what}", Bounds(lower=1.0),
            source="paper (stated)",
            packets=Side(float(v.mean()), 0.0, ci=t_half_width(v),
                         method=_method(case, quick, cap, green=g)
                         + "; each colour's packets dropped "
                         "over dropped or delivered in the window, Green over Blue, per seed"),
            reference="paper, Section IV-A: 'The implementation provides differential "
                      "dropping successfully' (Green packets 'receive more losses during "
                      "bouts of congestion than Blue ones', Section I)"))
    # Section IV-B: "more typical RED parameter settings resulted in many forced losses and
    # hence less control over the dropping differential".  Measured (quick form): the share
    # rises from 0.8% to 6.7% at 2 Mb/s; the ratio's distance from beta* grows at 2, 5 and
    # 10 Mb/s but not at 1 and 1.5 Mb/s (-1.08 and -0.09), where the paper's RED overshoots
    # beta* (5.09 and 1.84) further than the typical one falls short
    paper_red = runs("fig6-d0.1", quick, cap, g)
    typical = runs("fig6-d0.1-typical-red", quick, cap, g)
    method = (_method("fig6-d0.1-typical-red", quick, cap, green=g)
              + "; over the D = 0.1 s runs with the paper's RED, seed by seed")
    reference = ("paper, Section IV-B: 'Our simulations with more typical RED parameter "
                 "settings resulted in many forced losses and hence less control over the "
                 "dropping differential' (typical: ns-2's defaults of the time, min_th 5, "
                 "max_th 15, max_p 0.1, w 0.002)")
    v = typical["forced_share"] - paper_red["forced_share"]
    rows.append(Check(
        "abe-fig6", "share of losses not drawn at random, typical RED minus the paper's, "
        "D = 0.1 s", Bounds(lower=0.0), source="paper (stated)",
        packets=Side(float(v.mean()), 0.0, ci=t_half_width(v),
                     method=method + ": the bottleneck's forced, Green dropping control's and "
                     "overflow drops over all its drops"),
        reference=reference))
    v = np.abs(typical["ratio"] / 1.5 - 1) - np.abs(paper_red["ratio"] / 1.5 - 1)
    rows.append(Check(
        "abe-fig6", "distance of the Blue/Green ratio from beta*, typical RED minus the "
        "paper's, D = 0.1 s", Bounds(lower=0.0), source="paper (stated)",
        packets=Side(float(v.mean()), 0.0, ci=t_half_width(v),
                     method=method + ": |ratio / beta* - 1|, beta* = 1.5"),
        reference=reference))
    quantity = "worst 95% confidence half-width of the packets per connection, 4 runs"
    side = _worst_ci_side(quick, cap, green=g)
    rows.append(Check(
        "abe-fig6", quantity, FIG6_WORST_CI, source="paper (measured)", paper=FIG6_WORST_CI,
        unit="packets", packets=side,
        reference="paper, Section IV-C: 'the worst-case interval for 95% confidence seen was "
                  "19.31 packets' (Figure 6's curves, averages over 4 runs; read here as the "
                  "half-width; tolerance 0.85: a 4-run standard deviation varies by 0.42 of "
                  "itself)",
        note="" if side.ok(FIG6_WORST_CI) else _ci_note(side.value),
        known=FIG6_CI_KNOWN.get(quantity)))
    return rows


@register("abe-fig7", title="ABE Figure 7: the Green delay distribution narrows as D grows "
          "and stays bounded by L0/c", paper=PAPER + ", Section IV-C, Figure 7",
          sides=("packets",), unstated=(UNSTATED_CAPACITY, UNSTATED_GREEN))
def fig7(*, sides, quick, params) -> list[Check]:
    cap, g = params["capacity"], int(params["green_source"])
    std = {case: runs(case, quick, cap, g)["green_std"]
           for case in ("fig6-d0.1", "fig6-d0.2", "fig6-flat")}
    method = _method("fig6-d0.1", quick, cap, green=g) + "; the same runs with D = 0.2 s and flat"

    def ratio_side(a, b):
        v = std[a] / std[b]
        return Side(float(v.mean()), 0.0, ci=t_half_width(v), method=method)

    rows = [
        Check("abe-fig7", "Green delay spread (std), D = 0.2 s over D = 0.1 s",
              Bounds(upper=1.0), source="paper (stated)",
              packets=ratio_side("fig6-d0.2", "fig6-d0.1"),
              reference="paper, Section IV-C: 'The range of delay narrow ... for increasing "
                        "values of D'"),
        Check("abe-fig7", "Green delay spread (std), D = 0.1 s over flat best effort",
              Bounds(upper=1.0), source="paper (stated)",
              packets=ratio_side("fig6-d0.1", "fig6-flat"),
              reference="paper, Section IV-C: 'a large decrease in the delay variation when "
                        "compared to the flat best-effort case'"),
    ]
    for case in ("fig6-d0.1", "fig6-d0.2"):
        rows.append(_green_bound("abe-fig7", case, CASES[case][2], quick, cap, green=g))
    for case in ("fig6-d0.1", "fig6-d0.2"):
        rows.append(_blue_bound("abe-fig7", case, CASES[case][2], quick, cap, green=g))
    return rows


# ---------------------------------------------------------------------- Figure 8
@register("abe-fig8", title="ABE Figure 8: K1 = 2.0, T1 = 0.1, K2 = 1.1: the throughput ratio "
          "and the unequal-gain bias", paper=PAPER + ", Section IV-C, Figure 8",
          sides=("theory", "packets"),
          unstated=(UNSTATED_CAPACITY, UNSTATED_Q_BLUE, UNSTATED_GREEN))
def fig8(*, sides, quick, params) -> list[Check]:
    cap, q_blue, g = params["capacity"], params["q_blue"], int(params["green_source"])
    q8, q6 = CASES["fig8"][2], CASES["fig6-d0.1"][2]
    rows = [Check(
        "abe-fig8", "Blue/Green throughput ratio, K1 = 2.0, K2 = 1.1, T1 = 0.1 s", 1.4931,
        source="paper (measured)", paper=1.4931,
        theory=_theory(q8, q_blue) if "theory" in sides else None,
        packets=(_side("fig8", "ratio", quick, RATIO_TOL, cap, green=g)
                 if "packets" in sides else None),
        reference="paper, Section IV-C: 'ratio was 1.4931'",
        note=_ratio_note("fig8", 1.4931, quick, sides, cap, q_blue, green=g),
        known=Known(
            "unstated parameter",
            "The model's side evaluates the unequal-gain fixed point at a Blue loss ratio the "
            "paper does not report: 1.570 at q_b = 0.02 (0.052 off), 1.550 at 0.01 and 1.535 "
            "at 0.005 (within tolerance; --explore: q_blue=0.005), 1.611 at 0.05.  Packets "
            "1.457 +- 0.024 over 10 seeds are within tolerance; the quick form's 4 seeds give "
            "1.41 +- 0.07 (0.056 off).", 0.10, sides=("theory", "packets")))]
    paper = 1.4931 / 1.4506
    theory = packets = None
    if "theory" in sides:
        theory = Side(_model_ratio(q8, q_blue) / _model_ratio(q6, q_blue), RATIO_TOL,
                      method=f"the loop's fixed points through eq (2) at q_b = {q_blue:g}, "
                             f"B = D/2: c^2 delta^(-K2/K1) against c^2/delta")
    if "packets" in sides:
        v = runs("fig8", quick, cap, g)["ratio"] / runs("fig6-d0.1", quick, cap, g)["ratio"]
        packets = Side(float(v.mean()), RATIO_TOL, ci=t_half_width(v),
                       method=_method("fig8", quick, cap, green=g)
                       + "; over the Figure 6 D = 0.1 s runs, seed by seed")
    note = ""
    known = Known(
        "mechanism differs",
        "Packets 1.166 (quick 1.115) against 1.0293: the Figure 6 run it divides by (D = 0.1 s) "
        "falls short of beta* with the library's Green source (1.250), and the faster, "
        "unequal-gain loop of Figure 8 pushes harder towards it (1.457).  With Reno as the "
        "Green source the bias is 22.5 / 4.40 = 5.1, with TFRC as RFC 5348 specifies it "
        "5.42 (quick 4.91; --explore: green_source=1, 2).  --explore reaches the row at 5 Mb/s "
        "only because both ratios fall to about 1 there (1.003 / 0.933: the loop loses "
        "control of the ratio), not by reproducing the paper's runs.  "
        + GREEN_SOURCE, 0.18, sides=("packets",))
    if packets is not None and abs(packets.value - paper) > RATIO_TOL * paper:
        note = (f"packets {packets.value:.3f} against the paper's {paper:.4f}: the unequal "
                f"gains (and the shorter period) raise the ratio more in packets than in the "
                f"paper's runs")
    rows.append(Check(
        "abe-fig8", "Figure 8 over Figure 6 (D = 0.1 s): the unequal-gain bias", paper,
        source="paper (measured)", paper=paper, theory=theory, packets=packets,
        reference="paper: 1.4931 / 1.4506, the two runs' ratios (the model predicts the "
                  "bias c^2 delta^(-K2/K1) over c^2/delta)",
        note=note, known=known))
    if "packets" in sides:
        rows.append(_blue_bound("abe-fig8", "fig8", q8, quick, cap, green=g))
    return rows
