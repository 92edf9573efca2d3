"""The ABE router in packets (``qosmodels.sim._kernels.queues.abe``).

References, all independent of the kernel:

* the paper's PAC and EDF rules (Hurley, Le Boudec, Thiran, "The Asymmetric Best-Effort
  Service", Section III-B), traced by hand on a few arrivals: deadlines, the order of
  service, Green dropping control with ``L0``;
* the delay bounds the paper states there: a Green packet waits at most ``L0`` packets
  (plus the one in service), a Blue one at most the buffer's drain time plus ``D``;
* flat best effort (``alpha = 1``, ``D = 0``, no Green dropping control) against the
  simulator's :class:`~qosmodels.mechanisms.Red`, a separate kernel module: the same
  packets dropped, so the same goodputs to the bit;
* the control loop closed on a plant with controlled losses (the queue held at a fixed
  length, so RED's probability is a known ``p_b``): ``alpha`` settles at
  :meth:`qosmodels.abe.ControlLaw.fixed_point`, whose closed form the theory tests check.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

from qosmodels import Flow, Link, Network, abe, simulate
from qosmodels.mechanisms import AbeQueue, Cbr, Red, TcpFriendly, TcpReno
from qosmodels.sim._kernels.layout import (
    GF_NOW,
    KIND_DATA,
    LF_QS,
    LI_CODE,
    LI_DROP_FORCED,
    LI_DROP_OVERFLOW,
    LI_QS,
    LI_RED_COUNT,
    LI_TX,
    LI_WAITING,
    MARK_GREEN,
    PF_BITS,
    PI_FLOW,
    PI_KIND,
    PI_MARK,
    PI_SEQ,
)
from qosmodels.sim.compile import compile_scenario
from qosmodels.topologies import abe_dumbbell

# the kernel's link and dispatch functions, from one variant (see the module)
from .queue_kernels import alloc, dequeue, enqueue, queue_admit, queue_timer

CAP = 1e6
BITS = 8000.0
Q_ALPHA = LF_QS  # the loop's alpha, as queues/abe.py lays the link's state out
QI_CONTROL = LI_QS + 1


@njit  # not cached: Numba's cache would not see a change in the kernel functions it calls
def arrive_then_drain(S, l, green, times, t_drain, admitted, order):
    """Packets arrive at link ``l`` at ``times`` (Green where ``green``), each numbered by
    its index (``PI_SEQ``); ``admitted[i]``: it went into service or the queue.  Then, at
    ``t_drain``, the queue is emptied in the order the link would serve it (``order``:
    the numbers, -1 past the end)."""
    for i in range(times.shape[0]):
        S.gf[GF_NOW] = times[i]
        p = alloc(S)
        S.pi[p, PI_FLOW] = 0
        S.pi[p, PI_KIND] = KIND_DATA
        S.pi[p, PI_MARK] = MARK_GREEN if green[i] else 0
        S.pi[p, PI_SEQ] = i
        S.pf[p, PF_BITS] = BITS
        before = S.li[l, LI_WAITING] + (S.li[l, LI_TX] >= 0)
        enqueue(S, l, p)
        admitted[i] = S.li[l, LI_WAITING] + (S.li[l, LI_TX] >= 0) > before
    S.gf[GF_NOW] = t_drain
    for k in range(order.shape[0]):
        q = dequeue(S, l)
        order[k] = -1 if q < 0 else S.pi[q, PI_SEQ]


def one_link(queue, buffer=50):
    net = Network([Link("a", "b", CAP, 0.0, buffer=buffer, queue=queue)],
                  [Flow(["a", "b"], source=Cbr(rate=1e5, green=True))])
    return compile_scenario(net, 10.0, seed=3)


def quiet_red(**kw):
    """An AbeQueue whose RED never drops in these few arrivals (the average stays below
    min_th): only the ABE rules act."""
    return AbeQueue(min_th=30, max_th=40, max_p=0.2, w_q=0.002, **kw)


def trace(queue, arrivals, t_drain, buffer=50):
    S = one_link(queue, buffer)
    green = np.array([c == "G" for c, _ in arrivals])
    times = np.array([t for _, t in arrivals], dtype=float)
    admitted = np.zeros(len(arrivals), dtype=np.bool_)
    order = np.zeros(len(arrivals) + 1, dtype=np.int64)
    arrive_then_drain(S, 0, green, times, t_drain, admitted, order)
    return S, admitted, [int(x) for x in order if x >= 0]


# ------------------------------------------------------------------ EDF, by hand
def test_edf_serves_by_deadline_not_by_arrival_or_colour():
    # packet 0 (Blue) goes into service at t = 0; then, with D = 0.1 s, the deadlines are
    # B1 0.1 + 0.001, G2 0.01, B3 0.02 + 0.1, G4 0.15: EDF serves G2, B1, B3, G4 - neither
    # FIFO (G2 overtakes B1) nor Green priority (B1 and B3 go before G4)
    arrivals = [("B", 0.0), ("B", 0.001), ("G", 0.01), ("B", 0.02), ("G", 0.15)]
    _, admitted, order = trace(quiet_red(blue_delay=0.1), arrivals, t_drain=0.2)
    assert admitted.all()
    assert order == [2, 1, 3, 4]


def test_edf_breaks_equal_deadlines_by_arrival():
    # D = 0: a Green and a Blue packet with equal deadlines leave in arrival order
    arrivals = [("B", 0.0), ("B", 0.5), ("G", 0.5), ("G", 0.7), ("B", 0.7)]
    _, _, order = trace(quiet_red(blue_delay=0.0), arrivals, t_drain=1.0)
    assert order == [1, 2, 3, 4]


@pytest.mark.parametrize("l0, admitted_last", [(3, False), (4, True)])
def test_green_dropping_control_counts_overdue_packets(l0, admitted_last):
    # at t = 0.15 the waiting packets with a deadline before now are G2 (0.01), B1 (0.101)
    # and B3 (0.12): three.  The last Green is admitted only if 3 < L0; B5 (0.25) is not
    # overdue and a Blue packet is never subject to the rule
    arrivals = [("B", 0.0), ("B", 0.001), ("G", 0.01), ("B", 0.02), ("B", 0.15), ("G", 0.15)]
    S, admitted, order = trace(quiet_red(blue_delay=0.1, l0=l0), arrivals, t_drain=0.3)
    assert admitted[:5].all()
    assert admitted[5] == admitted_last
    assert S.li[0, QI_CONTROL] == (0 if admitted_last else 1)
    assert S.li[0, LI_DROP_FORCED] == S.li[0, QI_CONTROL]
    assert order == ([2, 1, 3, 5, 4] if admitted_last else [2, 1, 3, 4])


def test_the_colours_share_one_buffer():
    # buffer 3: one in service and three waiting, whatever their colours; the fifth drops
    arrivals = [("B", 0.0), ("G", 0.001), ("B", 0.002), ("G", 0.003), ("B", 0.004)]
    S, admitted, _ = trace(quiet_red(blue_delay=0.1), arrivals, t_drain=1.0, buffer=3)
    assert admitted.tolist() == [True, True, True, True, False]
    assert S.li[0, LI_DROP_OVERFLOW] == 1


# ------------------------------------------------------------------ flat best effort is RED
def test_flat_best_effort_is_red_packet_for_packet():
    red = dict(min_th=0.0, max_th=40.0, max_p=0.2, w_q=0.02)
    runs = [simulate(abe_dumbbell(3, 3, queue=q), 40.0, seed=7, warmup=5.0)
            for q in (AbeQueue.flat(**red), Red(**red))]
    flat, plain = runs
    np.testing.assert_array_equal(flat.throughput, plain.throughput)
    np.testing.assert_array_equal(flat.counters["dropped"], plain.counters["dropped"])
    np.testing.assert_array_equal(flat.mean_queueing_delay, plain.mean_queueing_delay)
    assert flat.counters["dropped"].sum() > 0  # RED acted
    assert flat.traces["alpha"].eq(1.0).all()


# ------------------------------------------------------------------ the delay bounds
def test_delay_bounds_of_section_iii_b():
    q = AbeQueue(beta_star=1.5, l0=10, blue_delay=0.1)
    net = abe_dumbbell(15, 15, queue=q)
    r = simulate(net, 60.0, seed=11, warmup=10.0)
    bottleneck = net.links[net.link_id("r1->r2")]
    pkt = 8.0 * net.flows[0].packet_size / bottleneck.capacity  # s per packet
    green = np.array([f.source.green for f in net.flows])
    # the bottleneck's is not the only queue: the access links (100 times faster) may hold
    # a packet or two; allow two of their packet times
    slack = 2 * pkt / 100
    assert r.max_queueing_delay[green].max() <= (q.l0 + 1) * pkt + slack
    assert r.max_queueing_delay[~green].max() <= (bottleneck.buffer + 1) * pkt + q.blue_delay + slack
    # and the bounds are not vacuous: Green waits, Blue waits longer than Green can
    assert r.max_queueing_delay[green].max() > 2 * pkt
    assert r.max_queueing_delay[~green].max() > (q.l0 + 1) * pkt


def test_green_is_not_starved_below_the_tcp_friendly_rate_for_its_loss():
    # each Green flow's goodput against eq (2) at its own loss ratio and measured RTT, at
    # 5 Mb/s (Green loses about 15% of its packets), with TFRC rated by eq (2).  At the
    # topology's 2 Mb/s Green loses about 37%, where TFRC's no-feedback timer halves the
    # rate often enough to hold it below eq (2) (0.44-0.76 of it): the closing note of the
    # issue reports it
    net = abe_dumbbell(15, 15, capacity=5e6, queue=AbeQueue(beta_star=1.5, blue_delay=0.1),
                       green_source="tfrc-eq2")
    r = simulate(net, 60.0, seed=11, warmup=10.0)
    c = r.counters
    for i in range(15):
        loss = c["dropped"][i] / c["sent"][i]
        assert 0.05 < loss < 0.3
        friendly = 8.0 * net.flows[i].packet_size * abe.throughput(loss, r.mean_rtt_estimate[i])
        assert r.throughput[i] >= 0.95 * friendly, (i, r.throughput[i], friendly)


def rfc_5348_rate(p, rtt):
    """RFC 5348, Section 3.1, in packets/s, with b = 1 and t_RTO = 4 R (Section 4.3)."""
    return 1.0 / (rtt * np.sqrt(2.0 * p / 3.0)
                  + 4.0 * rtt * 3.0 * np.sqrt(3.0 * p / 8.0) * p * (1.0 + 32.0 * p * p))


def test_the_rfc_5348_green_source_tracks_its_equation():
    # the topology's RFC 5348 Green source (green_source="tfrc") at 5 Mb/s (Green
    # loses about 10%): each flow's goodput against RFC 5348's equation at its loss ratio
    # and measured RTT.  Its loss event rate is at most its loss ratio (so the equation's
    # rate is at least this one) and goodput is the sending rate less the ~10% lost; and it
    # is about half of eq (2)'s rate there (measured 0.45-0.61)
    net = abe_dumbbell(15, 15, capacity=5e6, queue=AbeQueue(beta_star=1.5, blue_delay=0.1),
                       green_source="tfrc")
    r = simulate(net, 60.0, seed=11, warmup=10.0)
    c = r.counters
    for i in range(15):
        loss = c["dropped"][i] / c["sent"][i]
        assert 0.05 < loss < 0.3
        rtt = r.mean_rtt_estimate[i]
        pkts = r.throughput[i] / (8.0 * net.flows[i].packet_size)
        assert 0.85 * rfc_5348_rate(loss, rtt) <= pkts <= 1.3 * rfc_5348_rate(loss, rtt), i
        assert pkts < 0.75 * abe.throughput(loss, rtt), i


# ------------------------------------------------------------------ the loop on a held queue
@njit  # not cached (as above)
def held_plant(S, l, p, level, n_per_period, periods, dt, alpha_out):
    """Arrivals alternate Green and Blue every ``dt`` s with the queue held at ``level``
    packets (RED's average with ``w_q = 1``) and a fresh ``count`` (so a Blue packet is
    dropped with RED's ``p_b``, a Green one with ``min(1, alpha p_b)``); the link's
    period timer is fired by hand after every ``n_per_period`` arrivals of each colour.
    ``alpha_out[k]``: alpha after period ``k``."""
    code = S.li[l, LI_CODE]
    t = 0.0
    for k in range(periods):
        for i in range(2 * n_per_period):
            t += dt
            S.gf[GF_NOW] = t
            S.li[l, LI_TX] = p
            S.li[l, LI_WAITING] = level
            S.li[l, LI_RED_COUNT] = -1
            S.pi[p, PI_MARK] = MARK_GREEN if i % 2 == 0 else 0
            queue_admit(S, code, l, p)
        queue_timer(S, code, l, 0)
        alpha_out[k] = S.lf[l, Q_ALPHA]


@pytest.mark.parametrize("k1, k2", [(1.1, 1.1), (2.0, 1.1)])
def test_alpha_settles_at_the_control_laws_fixed_point(k1, k2):
    # held at 4 packets on the curve min_th 0, max_th 40, max_p 0.2: p_b = 0.02 for
    # Blue.  No packet leaves, so the boost keeps its initial value B0 = 0.05 s
    q = AbeQueue(beta_star=1.5, blue_delay=0.1, k1=k1, k2=k2, w_q=1.0, initial_boost=0.05)
    S = one_link(q, buffer=100)
    S.pi[0, PI_FLOW] = 0
    S.pi[0, PI_KIND] = KIND_DATA
    S.pf[0, PF_BITS] = BITS
    periods = 300
    alpha = np.zeros(periods)
    held_plant(S, 0, 0, 4, 20_000, periods, 1e-5, alpha)
    p_b = 0.2 * 4 / 40
    fp = q.law.fixed_point(q_blue=p_b, boost=0.05)
    settled = alpha[periods // 2:].mean()
    assert settled == pytest.approx(fp.alpha, rel=0.02), (settled, fp.alpha)
    # the unequal gains move the fixed point off Appendix A's target (eq (5))
    target = q.law.target_ratio(p_b, 0.05)
    if k1 == k2:
        assert fp.alpha == pytest.approx(target, rel=1e-12)
    else:
        assert not math.isclose(fp.alpha, target, rel_tol=0.01)
        assert not math.isclose(settled, target, rel_tol=0.01)


# ------------------------------------------------------------------ bad input
def test_a_green_flow_needs_an_abe_queue_on_its_path():
    from qosmodels.errors import ScenarioError

    net = Network([Link("a", "b", CAP, 0.01, queue=Red())],
                  [Flow(["a", "b"], source=TcpFriendly())])
    with pytest.raises(ScenarioError, match="AbeQueue"):
        simulate(net, 1.0, seed=1)
    # an access link without one is fine when the path has one further on
    net = Network([Link("s", "a", 1e8, 0.01), Link("a", "b", CAP, 0.01, queue=AbeQueue())],
                  [Flow(["s", "a", "b"], source=TcpReno(green=True))])
    simulate(net, 1.0, seed=1)
