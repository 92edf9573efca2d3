"""Fair queueing in packets (``sim/_kernels/queues/fair_queueing.py``).

References are hand traces of the paper's rules, the exact trace engine
:func:`qosmodels.fq.fair_queue` (an independent implementation in pure Python
on the same arrival trace), and weighted max-min shares from
:func:`qosmodels.allocate`.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qosmodels import Flow, Link, Network, allocate, fq, simulate
from qosmodels.errors import ScenarioError
from qosmodels.mechanisms import (
    Cbr,
    Decbit,
    DecbitWindow,
    DropTail,
    FairQueueing,
    GenericWindow,
    Poisson,
    TcpNewReno,
)

CAP = 8000.0  # bit/s: a 1000-byte packet takes 1 s


def run(flows, *, buffer=100, queue=None, duration=20.0, warmup=0.0, cap=CAP):
    queue = FairQueueing(record_round=True) if queue is None else queue
    net = Network([Link("a", "b", cap, 1e-6, buffer=buffer, queue=queue)], flows)
    return simulate(net, duration, seed=1, warmup=warmup, progress=False)


def burst(n, size=1000, start=0.0, weight=1.0):
    """``n`` packets of ``size`` bytes, 1 us apart from ``start``: a CBR source stopped in time."""
    rate = size * 8 / 1e-6
    return Flow(["a", "b"], source=Cbr(rate=rate, packet_size=size), start=start,
                stop=start + (n - 0.5) * 1e-6, weight=weight)


def test_a_later_conversation_overtakes_an_earlier_backlog():
    # A: 3 packets at t ~ 0 (F = 1000, 2000, 3000 bytes of round number); B: one at t = 0.5
    # when R = 500 (A alone active), so F_B = 1500 < F_A2 = 2000: B goes at t = 1, before
    # A2 and A3 (FCFS would send A2, A3, B).
    res = run([burst(3), burst(1, start=0.5)])
    assert list(res.counters["delivered"]) == [3, 1]
    qd = res.mean_queueing_delay
    assert qd[1] == pytest.approx(0.5, abs=1e-9)                      # 0.5 -> 1.0
    assert qd[0] == pytest.approx((0 + (2 - 1e-6) + (3 - 2e-6)) / 3, abs=1e-9)
    rounds = res.traces["fq_round"].to_numpy()
    np.testing.assert_allclose(rounds, [0.0, 1e-6 * 1000, 2e-6 * 1000, 500.0], atol=1e-9)
    fifo = run([burst(3), burst(1, start=0.5)], queue=DropTail())
    assert fifo.mean_queueing_delay[1] == pytest.approx(2.5, abs=1e-9)  # behind A2, A3


def test_a_full_buffer_drops_the_last_packet_of_the_longest_conversation():
    # buffer 3: A sends 5 at t ~ 0 (A1 in service, A2-A4 wait, A5 pushes A's own tail
    # out); B's packet at 0.5 finds A2-A4 waiting: A is longest, its last (A4) goes.
    res = run([burst(5), burst(1, start=0.5)], buffer=3)
    assert list(res.counters["delivered"]) == [3, 1]
    assert list(res.counters["dropped"]) == [2, 0]
    fifo = run([burst(5), burst(1, start=0.5)], buffer=3, queue=DropTail())
    assert list(fifo.counters["delivered"]) == [4, 0]  # drop-tail drops A5, then B


def test_finish_numbers_are_not_rolled_back_for_dropped_packets():
    # buffer 3: A sends 5 at t ~ 0 (A5 dropped) and B's packet at 0.5 pushes out A4, so
    # F_A = 5000 bytes of round number though A gets only 3 packets through.  R: 1000/s
    # with A alone to 500 at 0.5; 500/s with A and B until B retires at R = 1500, t = 2.5;
    # 1000/s with A alone, so C's packet at 5.5 sees R = 4500 (A active until R = 5000 at
    # 6.0).  Rolled back (F_A = 3000) A would have retired at R = 3000, t = 4.0, and R
    # would have stood still at 3000 until C.
    res = run([burst(5), burst(1, start=0.5), burst(1, start=5.5)], buffer=3)
    assert list(res.counters["dropped"]) == [2, 0, 0]
    rounds = res.traces["fq_round"].to_numpy()
    assert rounds[-1] == pytest.approx(4500.0, abs=1e-6)


def test_weighted_greedy_flows_get_their_weighted_max_min_shares():
    # a light CBR under its share and three window flows (always backlogged, never dropped:
    # the windows fit the buffer) of weights 1, 2, 3 and packets of different sizes
    cap = 1e6
    flows = [Flow(["a", "b"], source=Cbr(rate=0.05e6, packet_size=500), max_rate=0.05e6)]
    flows += [Flow(["a", "b"], source=GenericWindow(window=20, packet_size=size), weight=w)
              for size, w in [(750, 1.0), (1000, 2.0), (1250, 3.0)]]
    res = run(flows, buffer=80, duration=30.0, warmup=5.0, cap=cap)
    assert res.counters["dropped"].sum() == 0
    net = Network([Link("a", "b", cap, 1e-6)], flows)
    shares = allocate(net, "maxmin").rates  # 0.05, 0.1583, 0.3167, 0.475 Mb/s
    np.testing.assert_allclose(res.throughput, shares, rtol=0.01)


def test_overloading_sources_are_charged_for_what_they_could_not_send():
    # Finish numbers are not rolled back for drops, so a source's bids run ahead of R at
    # the rate it offers beyond its share: a source at 0.6 C drifts ahead by 0.1 C per
    # second, one at 3 C by 2.5 C; the first always holds the smaller bids and gets all it
    # asks (0.6 C), not the max-min 0.5 C; the hog gets the rest.
    cap = 1e6
    flows = [Flow(["a", "b"], source=Cbr(rate=0.6e6, packet_size=1000)),
             Flow(["a", "b"], source=Cbr(rate=3e6, packet_size=1000))]
    res = run(flows, buffer=20, duration=30.0, warmup=5.0, cap=cap)
    np.testing.assert_allclose(res.throughput, [0.6e6, 0.4e6], rtol=0.01)


def test_fair_queueing_isolates_a_telnet_from_an_ill_behaved_source():
    cap = 56e3
    telnet = Flow(["a", "b"], source=Poisson(rate=40 * 8 / 5.0, packet_size=40))
    hog = Flow(["a", "b"], source=Cbr(rate=2 * cap, packet_size=1000))
    fq_run = run([telnet, hog], buffer=15, duration=2000.0, warmup=100.0, cap=cap)
    fifo = run([telnet, hog], buffer=15, duration=2000.0, warmup=100.0, cap=cap,
               queue=DropTail())
    t_p = 1000 * 8 / cap  # the hog's packet time
    assert fq_run.counters["dropped"][0] == 0 and fq_run.counters["delivered"][0] > 300
    assert fq_run.mean_queueing_delay[0] < t_p      # at most the residual of one hog packet
    assert fifo.counters["dropped"][0] > 0.3 * fifo.counters["sent"][0]
    assert fifo.mean_queueing_delay[0] > 10 * t_p   # behind a full buffer of hog packets


def test_acks_are_conversations_too():
    # two NewReno flows whose data and ACKs cross the same FQ links both ways
    links = [Link("a", "b", 1e6, 0.01, buffer=20, queue=FairQueueing()),
             Link("b", "a", 1e6, 0.01, buffer=20, queue=FairQueueing())]
    flows = [Flow(["a", "b"], source=TcpNewReno()), Flow(["b", "a"], source=TcpNewReno())]
    res = simulate(Network(links, flows), 20.0, seed=3, warmup=5.0, progress=False)
    assert res.throughput.min() > 0.8e6  # each direction nearly full despite the other's ACKs


def test_a_buffer_smaller_than_the_conversations_is_refused():
    flows = [burst(1), burst(1, start=1.0), burst(1, start=2.0)]
    with pytest.raises(ScenarioError, match="buffer >= 3"):
        run(flows, buffer=2)


# ---------------------------------------------------------------- against the trace engine
def cbr_trace(start, stop, size, rate):
    """The arrival times of a CBR flow as the simulator's ticks compute them."""
    out, t, gap = [], start, size * 8 / rate
    while t < stop:
        out.append(t)
        t = t + gap
    return out


@st.composite
def scenarios(draw):
    n = draw(st.integers(2, 5))
    flows = []
    for _ in range(n):
        size = draw(st.integers(40, 1500))
        rate = draw(st.floats(0.05, 1.5)) * CAP * 10
        start = draw(st.floats(0.0, 2.0))
        stop = start + draw(st.floats(0.3, 4.0))
        weight = draw(st.sampled_from([1.0, 1.0, 2.0, 0.5, 3.0]))
        flows.append((size, rate, start, stop, weight))
    delta = draw(st.sampled_from([0.0, 0.0, 300.0, 1000.0, math.inf]))
    return flows, delta


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_departures_match_the_trace_engine(scenario):
    specs, delta = scenario
    cap = CAP * 10
    flows = [Flow(["a", "b"], source=Cbr(rate=r, packet_size=s), start=t0, stop=t1, weight=w)
             for s, r, t0, t1, w in specs]
    times, conv, sizes = [], [], []
    for i, (s, r, t0, t1, w) in enumerate(specs):
        ts = cbr_trace(t0, t1, s, r)
        times += ts
        conv += [i] * len(ts)
        sizes += [s] * len(ts)
    order = np.argsort(times, kind="stable")
    times, conv, sizes = np.array(times)[order], np.array(conv)[order], np.array(sizes)[order]
    if len(np.unique(times)) < len(times):
        return  # simultaneous arrivals: the engine orders them by event, the trace by bid
    ref = fq.fair_queue(times, conv, sizes, capacity=cap, weights=[w for *_, w in specs],
                        delta=delta)
    if np.isin(times, ref.fq_departure).any():
        # an arrival at the very instant the line frees: the trace engine lets it compete for
        # the line, the packet simulator orders the two events by when it scheduled them.
        # Simple rates make such ties exact (e.g. 40-byte packets at the line rate, one every
        # 4 ms, beside 200-byte packets taking 20 ms: found by Hypothesis after ~20,000 cases)
        return
    total_tx = sizes.sum() * 8 / cap
    res = run(flows, buffer=len(times) + 1, queue=FairQueueing(delta=delta, record_round=True),
              duration=float(times[-1] + total_tx + 1.0), cap=cap)
    # the round number at every arrival, in arrival order
    np.testing.assert_allclose(res.traces["fq_round"].index.to_numpy(), times, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.traces["fq_round"].to_numpy(), ref.round_number(times),
                               rtol=1e-9, atol=1e-9)
    # every packet sent, each flow's waiting time as the trace engine's departures give it
    wait = ref.fq_start - times
    for i in range(len(specs)):
        mine = conv == i
        assert res.counters["delivered"][i] == mine.sum()
        assert res.mean_queueing_delay[i] == pytest.approx(wait[mine].mean(), rel=1e-9,
                                                           abs=1e-9)


# ---------------------------------------------------------------- the FQ bit-setting gateway
def test_fq_bit_marks_a_conversation_above_a_third_of_its_fair_share_of_buffer():
    # buffer 30.  A: 12 packets at t ~ 0, A alone active (N = 1): A2..A12 wait, 1..11 of
    # them; only A12 (11 > 30 / 3) is marked.  B: 3 packets at 0.5 (N = 2, threshold 5):
    # B's queue holds 1..3, no mark.
    res = run([burst(12), burst(3, start=0.5)], buffer=30, queue=Decbit(fq_bit=True))
    assert list(res.counters["marked"]) == [1, 0]
    assert list(res.counters["dropped"]) == [0, 0]
    # the same traffic through plain fair queueing is served alike and never marked
    plain = run([burst(12), burst(3, start=0.5)], buffer=30, queue=FairQueueing())
    assert list(plain.counters["marked"]) == [0, 0]
    np.testing.assert_allclose(plain.mean_queueing_delay, res.mean_queueing_delay, rtol=1e-12)


def test_decbit_sources_share_an_fq_bit_gateway_equally_despite_their_rtts():
    # DEC/FQbit: two DECbit sources with round trips of 20 and 200 ms through one 200 kb/s
    # FQ bit-setting gateway; fair queueing gives each half the line (the windows' limit,
    # 30 packets of 500 bytes, exceeds both pipes)
    links = [Link("s0", "g", 10e6, 0.005), Link("s1", "g", 10e6, 0.095),
             Link("g", "d", 200e3, 0.005, buffer=30, queue=Decbit(fq_bit=True))]
    flows = [Flow([f"s{i}", "g", "d"], source=DecbitWindow(max_window=30, packet_size=500))
             for i in range(2)]
    res = simulate(Network(links, flows), 300.0, seed=1, warmup=100.0, progress=False)
    assert res.counters["marked"].min() > 0                  # both hear congestion
    np.testing.assert_allclose(res.throughput, [100e3, 100e3], rtol=0.05)
