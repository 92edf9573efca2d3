"""PIE in packets (``qosmodels.sim._kernels.queues.pie``).

References, independent of the kernel: RFC 8033's basic scheme (Sections 4.1-4.4,
Appendix A's ``enque``, ``drop_early`` and ``calculate_drop_prob``; Section 5.2's
departure-rate estimation) replayed in plain Python on one link fed by
deterministic sources, with its own MRG32k3a generator started from the same seed
state, which must give the same drop probability at every update and the same
drops at the same times; and PIE's purpose (RFC 8033, Sections 1 and 3): greedy TCP
flows keep the queueing delay near ``QDELAY_REF`` = 15 ms with the link busy, where
a large drop-tail buffer fills.
"""

from __future__ import annotations

import dataclasses
import math
from collections import deque

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, simulate
from qosmodels.mechanisms import Cbr, DropTail, OnOff, Pie, TcpReno
from qosmodels.sim.compile import compile_scenario
from qosmodels.topologies import dumbbell

from .test_codel import source_times
from .test_rio import Mrg32k3a

DQ_THRESHOLD = 16384  # bytes, RFC 8033 Section 5.2


class RfcPie:
    """RFC 8033's basic PIE at one FIFO, transcribed: ``enque(now, idle)`` (True:
    admitted), ``deque(now)`` (an arrival time, or None), ``calculate_drop_prob()``.
    All packets ``bits`` long; at most ``buffer`` waiting."""

    def __init__(self, spec: Pie, bits, buffer, rng):
        self.s, self.bits, self.buffer, self.rng = spec, bits, buffer, rng
        self.q = deque()
        self.drop_prob = 0.0
        self.current_qdelay = 0.0
        self.qdelay_old = 0.0
        self.burst_allowance = spec.max_burst
        self.avg_dq_time = 0.0
        self.dq_count = 0.0  # bits
        self.measurement_start = 0.0
        self.in_measurement = False
        self.probs, self.drops = [], []
        self.overflow = self.early = 0

    def byte_length_bits(self):
        return len(self.q) * self.bits

    def drop_early(self):
        s = self.s
        if ((self.qdelay_old < s.target / 2 and self.drop_prob < 0.2)
                or self.byte_length_bits() <= 2 * s.mean_packet_size * 8):
            return False
        return self.rng() < self.drop_prob

    def enque(self, now, idle):
        if not idle and len(self.q) >= self.buffer:
            self.overflow += 1
            return False
        if self.burst_allowance <= 0 and self.drop_early():
            self.drops.append((now, self.drop_prob))
            self.early += 1
            return False
        if idle:  # the link takes it at once: a departure without waiting
            self.departed(now, now)
        else:
            self.q.append(now)
        return True

    def deque(self, now):
        if not self.q:
            return None
        a = self.q.popleft()
        self.departed(now, a)
        return a

    def departed(self, now, arrival):
        if not self.s.dq_rate_estimator:  # timestamps; 0 once the queue is empty
            self.current_qdelay = now - arrival if self.q else 0.0
            return
        if self.in_measurement:
            self.dq_count += self.bits
            if self.dq_count >= 8.0 * DQ_THRESHOLD:
                dq_time = now - self.measurement_start
                if self.avg_dq_time == 0:
                    self.avg_dq_time = dq_time
                else:
                    w = DQ_THRESHOLD / 2**16
                    self.avg_dq_time = dq_time * w + self.avg_dq_time * (1 - w)
                self.in_measurement = False
        if self.byte_length_bits() >= 8.0 * DQ_THRESHOLD and not self.in_measurement:
            self.in_measurement = True
            self.measurement_start = now
            self.dq_count = 0.0

    def calculate_drop_prob(self, now):
        s = self.s
        if s.dq_rate_estimator:
            self.current_qdelay = self.byte_length_bits() * self.avg_dq_time / (
                8.0 * DQ_THRESHOLD)
        qdelay = self.current_qdelay
        p = s.alpha * (qdelay - s.target) + s.beta * (qdelay - self.qdelay_old)
        for bound, div in [(0.000001, 2048), (0.00001, 512), (0.0001, 128), (0.001, 32),
                           (0.01, 8), (0.1, 2)]:
            if self.drop_prob < bound:
                p /= div
                break
        self.drop_prob += p
        if qdelay == 0 and self.qdelay_old == 0:
            self.drop_prob *= 0.98
        self.drop_prob = min(max(self.drop_prob, 0.0), 1.0)
        self.burst_allowance = max(0.0, self.burst_allowance - s.t_update)
        if (self.drop_prob == 0 and qdelay < s.target / 2
                and self.qdelay_old < s.target / 2):
            self.burst_allowance = s.max_burst
        self.qdelay_old = qdelay
        self.probs.append((now, self.drop_prob))


def replay_link(arrivals, capacity, bits, duration, pie: RfcPie):
    """One link of ``capacity`` bit/s behind ``pie``: arrivals, transmissions' ends and
    the updates every ``t_update`` from the first arrival.  Returns the departures."""
    tx = bits / capacity
    busy_until = math.inf
    next_update = math.inf
    sent = 0
    i = 0
    while True:
        a = arrivals[i] if i < len(arrivals) else math.inf
        t = min(a, busy_until, next_update)
        assert [a, busy_until, next_update].count(t) == 1, "a tie: pick other rates"
        if t > duration:
            break
        if t == next_update:
            pie.calculate_drop_prob(t)
            next_update = t + pie.s.t_update
        elif t == a:
            i += 1
            if next_update == math.inf:
                next_update = t + pie.s.t_update
            idle = busy_until == math.inf
            if pie.enque(t, idle) and idle:
                busy_until = t + tx
        else:
            sent += 1
            busy_until = t + tx if pie.deque(t) is not None else math.inf
    return sent


SCENARIOS = {
    # an overload that never ends: drop_prob climbs through the auto-tuning ranges to the
    # excess's share and stays near it
    "cbr": dict(source=Cbr(rate=1_334_567.0), on_time=math.inf, off_time=0.0, buffer=1000),
    # on/off: the queue drains in the off periods, drop_prob decays, the burst allowance
    # comes back and protects the next burst's start
    "onoff": dict(source=OnOff(rate=1_634_567.0, on_time=1.31, off_time=1.7,
                               exponential=False), on_time=1.31, off_time=1.7, buffer=1000),
    # a small buffer: tail drops (no random draw) and PIE's drops together
    "onoff-small-buffer": dict(source=OnOff(rate=2_134_567.0, on_time=0.91, off_time=0.3,
                                            exponential=False),
                               on_time=0.91, off_time=0.3, buffer=30),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
@pytest.mark.parametrize("dq_rate", [False, True], ids=["timestamps", "dq-rate"])
def test_updates_and_drops_match_rfc_8033_pseudocode(name, dq_rate):
    sc = SCENARIOS[name]
    capacity, size, duration, seed = 1.13e6, 1000, 12.345, 4  # (tx 7.08 ms: no ties)
    q = Pie(dq_rate_estimator=dq_rate, record=True)
    net = Network([Link("a", "b", capacity, 0.0, buffer=sc["buffer"], queue=q)],
                  [Flow(["a", "b"], source=sc["source"], packet_size=size)])
    rng = Mrg32k3a(compile_scenario(net, duration, seed=seed).rng)
    r = simulate(net, duration, seed=seed, progress=False)
    bits = 8.0 * size
    arrivals = source_times(sc["source"].rate, bits, duration, sc["on_time"], sc["off_time"])
    ref = RfcPie(q, bits, sc["buffer"], rng)
    sent = replay_link(arrivals, capacity, bits, duration, ref)
    assert r.counters["sent"][0] == len(arrivals)
    probs, drops = r.traces["pie_prob"], r.traces["pie_drops"]
    assert len(ref.drops) > 50  # the comparison has something to compare
    np.testing.assert_array_equal(probs.index.to_numpy(), [t for t, _ in ref.probs])
    np.testing.assert_array_equal(probs.to_numpy(), [p for _, p in ref.probs])
    np.testing.assert_array_equal(drops.index.to_numpy(), [t for t, _ in ref.drops])
    np.testing.assert_array_equal(drops.to_numpy(), [p for _, p in ref.drops])
    assert r.link_drops["early"][0] == ref.early
    assert r.link_drops["overflow"][0] == ref.overflow
    assert r.counters["link_departures"][0] == sent
    if name == "onoff":  # drop_prob went back to 0 in the off periods, and rose again
        p = np.array([p for _, p in ref.probs])
        assert (p == 0).any() and p.max() > 0.1
    if name == "onoff-small-buffer":
        assert ref.overflow > 0


def test_no_random_drop_during_the_burst_allowance():
    # a 300 ms burst at 3x the line rate into an empty queue (RFC 8033, Section 4.4): with
    # MAX_BURST = 150 ms no packet is dropped at random before the allowance has run out
    # (10 updates of 15 ms after the first arrival at 0) and some are after; with an
    # allowance longer than the burst none is, though drop_prob had risen
    def run(max_burst):
        q = Pie(max_burst=max_burst, record=True)
        net = Network([Link("a", "b", 1e6, 0.0, buffer=1000, queue=q)],
                      [Flow(["a", "b"], source=OnOff(rate=3e6, on_time=0.3, off_time=100.0,
                                                     exponential=False), packet_size=1000)])
        return simulate(net, 3.0, seed=0, progress=False)
    r = run(0.15)
    drops = r.traces["pie_drops"]
    assert r.link_drops["early"][0] == len(drops) > 0
    assert drops.index.min() >= 0.15 - 1e-9
    r = run(0.45)
    assert r.link_drops["early"][0] == 0
    prob = r.traces["pie_prob"]
    assert prob[prob.index <= 0.3].max() > 0.01


def _dumbbell(n, queue, buffer, ecn=False):
    net = dumbbell(n, buffer=buffer, access_delay=[0.002 * i for i in range(n)])
    b = net.link_names.index("r0->r1")
    links = [dataclasses.replace(link, queue=queue) if i == b else link
             for i, link in enumerate(net.links)]
    flows = [dataclasses.replace(f, source=TcpReno(ecn=ecn)) for f in net.flows]
    return Network(links, flows), b


def _delay(r):
    return float(np.average(r.mean_queueing_delay, weights=r.delivered_packets))


@pytest.mark.parametrize("n", [5, 20])
@pytest.mark.parametrize("dq_rate", [False, True], ids=["timestamps", "dq-rate"])
def test_greedy_reno_flows_keep_the_delay_near_the_target_unlike_a_large_droptail(n, dq_rate):
    # RFC 8033, Section 1: PIE keeps the queueing delay near QDELAY_REF = 15 ms with the
    # link busy; a drop-tail buffer of 1000 packets (800 ms at 10 Mb/s) fills.  Measured
    # (seed 1, 10-60 s): with timestamps 18.0 ms with 5 flows, 15.3 ms with 20
    # (utilisation 0.989 and 0.988); with the departure-rate estimate 16.0 and 14.9 ms
    # (0.991, 0.982); against 386 ms and 632 ms for drop-tail
    duration, warmup = 60.0, 10.0
    net, b = _dumbbell(n, Pie(dq_rate_estimator=dq_rate), 1000)
    r = simulate(net, duration, warmup=warmup, seed=1, progress=False)
    delay = _delay(r)
    assert 0.005 < delay < 0.030, delay
    assert r.utilisation[b] > 0.9, r.utilisation[b]
    assert r.link_drops["early"][b] > 0 and r.link_drops["overflow"][b] == 0
    net_dt, b_dt = _dumbbell(n, DropTail(), 1000)
    r_dt = simulate(net_dt, duration, warmup=warmup, seed=1, progress=False)
    assert _delay(r_dt) > 10 * delay, (delay, _delay(r_dt))


def test_ecn_marks_replace_early_drops_at_or_below_ten_percent():
    # RFC 8033, Section 5.1: with ECN, an ECN-capable packet PIE picks is marked instead of
    # dropped while drop_prob <= 10 % (mark_ecnth), dropped above (here in the start-up,
    # when the flows' slow starts push drop_prob up to 1).  The trace pie_drops holds
    # drop_prob at every pick: the marks are exactly the picks at <= 10 %
    net, b = _dumbbell(20, Pie(ecn=True, record=True), 1000, ecn=True)
    r = simulate(net, 30.0, warmup=5.0, seed=2, progress=False)
    picks = r.traces["pie_drops"].to_numpy()
    assert r.link_drops["marks"][b] == (picks <= 0.1).sum() > 1000
    assert r.link_drops["early"][b] == (picks > 0.1).sum()
    assert 0.005 < _delay(r) < 0.030, _delay(r)
    assert r.utilisation[b] > 0.9
    # the same flows without ECN capability are dropped, never marked
    net2, b2 = _dumbbell(20, Pie(ecn=True), 1000, ecn=False)
    r2 = simulate(net2, 30.0, warmup=5.0, seed=2, progress=False)
    assert r2.link_drops["marks"][b2] == 0 and r2.link_drops["early"][b2] > 1000
