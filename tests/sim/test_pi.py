"""The PI AQM controller in packets (``qosmodels.sim._kernels.queues.pi``).

References, independent of the kernel: Hollot, Misra, Towsley and Gong's recursion
``p(kT) = a (q(kT) - q_ref) - b (q((k-1)T) - q_ref) + p((k-1)T)`` replayed in plain
Python on one link fed by deterministic sources, with its own MRG32k3a generator
started from the same seed state, which must give the same ``p`` at every sample and
the same drops at the same times; and the controller's purpose (the integral action
removes the steady-state error of the queue): long-lived TCP flows hold the mean queue
near ``q_ref``.
"""

from __future__ import annotations

import dataclasses
import math
from collections import deque

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, simulate
from qosmodels.mechanisms import Cbr, OnOff, Pi, TcpReno
from qosmodels.sim.compile import compile_scenario
from qosmodels.topologies import dumbbell

from .test_codel import source_times
from .test_rio import Mrg32k3a


class PaperPi:
    """The PI recursion at one FIFO of at most ``buffer`` waiting packets."""

    def __init__(self, spec: Pi, buffer, rng):
        self.s, self.buffer, self.rng = spec, buffer, rng
        self.q = deque()
        self.p = 0.0
        self.q_old = 0.0
        self.probs, self.drops = [], []
        self.overflow = self.early = 0

    def enque(self, now, idle):
        if not idle and len(self.q) >= self.buffer:
            self.overflow += 1
            return False
        if self.p > 0 and self.rng() < self.p:
            self.drops.append((now, self.p))
            self.early += 1
            return False
        if not idle:
            self.q.append(now)
        return True

    def sample(self, now):
        s = self.s
        q = float(len(self.q))
        p = s.a * (q - s.q_ref) - s.b * (self.q_old - s.q_ref) + self.p
        self.p = min(max(p, 0.0), 1.0)
        self.q_old = q
        self.probs.append((now, self.p))


def replay_link(arrivals, capacity, bits, duration, pi: PaperPi):
    """One link of ``capacity`` bit/s behind ``pi``: arrivals, transmissions' ends and the
    samples every ``1 / sampling_rate`` from the first arrival.  Returns the departures."""
    tx = bits / capacity
    busy_until = next_sample = math.inf
    sent = i = 0
    while True:
        a = arrivals[i] if i < len(arrivals) else math.inf
        t = min(a, busy_until, next_sample)
        assert [a, busy_until, next_sample].count(t) == 1, "a tie: pick other rates"
        if t > duration:
            break
        if t == next_sample:
            pi.sample(t)
            next_sample = t + 1.0 / pi.s.sampling_rate
        elif t == a:
            i += 1
            if next_sample == math.inf:
                next_sample = t + 1.0 / pi.s.sampling_rate
            idle = busy_until == math.inf
            if pi.enque(t, idle) and idle:
                busy_until = t + tx
        else:
            sent += 1
            if pi.q:
                pi.q.popleft()
                busy_until = t + tx
            else:
                busy_until = math.inf
    return sent


SCENARIOS = {
    "cbr": dict(source=Cbr(rate=1_334_567.0), on_time=math.inf, off_time=0.0, buffer=1000),
    "onoff": dict(source=OnOff(rate=1_634_567.0, on_time=1.31, off_time=1.7,
                               exponential=False), on_time=1.31, off_time=1.7, buffer=1000),
    "onoff-small-buffer": dict(source=OnOff(rate=2_134_567.0, on_time=0.91, off_time=0.3,
                                            exponential=False),
                               on_time=0.91, off_time=0.3, buffer=30),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
@pytest.mark.parametrize("gains", [(5e-4, 4.9e-4, 160.0, 30.0), (2e-3, 1.9e-3, 97.0, 20.0)],
                         ids=["slow", "fast"])
def test_samples_and_drops_match_the_pi_recursion(name, gains):
    # (gains for this 1.13 Mb/s link: ns-2's defaults, designed for a larger network, would
    # drop next to nothing here in 12 s; the dumbbell tests below run them)
    sc = SCENARIOS[name]
    capacity, size, duration, seed = 1.13e6, 1000, 12.345, 5  # (tx 7.08 ms: no ties)
    a, b, rate, q_ref = gains
    q = Pi(a=a, b=b, sampling_rate=rate, q_ref=q_ref, record=True)
    net = Network([Link("a", "b", capacity, 0.0, buffer=sc["buffer"], queue=q)],
                  [Flow(["a", "b"], source=sc["source"], packet_size=size)])
    rng = Mrg32k3a(compile_scenario(net, duration, seed=seed).rng)
    r = simulate(net, duration, seed=seed, progress=False)
    bits = 8.0 * size
    arrivals = source_times(sc["source"].rate, bits, duration, sc["on_time"], sc["off_time"])
    ref = PaperPi(q, sc["buffer"], rng)
    sent = replay_link(arrivals, capacity, bits, duration, ref)
    assert r.counters["sent"][0] == len(arrivals)
    probs, drops = r.traces["pi_prob"], r.traces["pi_drops"]
    assert len(ref.drops) > 15 and len(ref.probs) > 1000  # something to compare
    np.testing.assert_array_equal(probs.index.to_numpy(), [t for t, _ in ref.probs])
    np.testing.assert_array_equal(probs.to_numpy(), [p for _, p in ref.probs])
    np.testing.assert_array_equal(drops.index.to_numpy(), [t for t, _ in ref.drops])
    np.testing.assert_array_equal(drops.to_numpy(), [p for _, p in ref.drops])
    assert r.link_drops["early"][0] == ref.early
    assert r.link_drops["overflow"][0] == ref.overflow
    assert r.counters["link_departures"][0] == sent
    if name == "onoff-small-buffer":
        assert ref.overflow > 0


def _dumbbell(n, queue, buffer, ecn=False):
    net = dumbbell(n, buffer=buffer, access_delay=[0.002 * i for i in range(n)])
    b = net.link_names.index("r0->r1")
    links = [dataclasses.replace(link, queue=queue) if i == b else link
             for i, link in enumerate(net.links)]
    flows = [dataclasses.replace(f, source=TcpReno(ecn=ecn)) for f in net.flows]
    return Network(links, flows), b


@pytest.mark.parametrize("n", [5, 20])
def test_long_lived_reno_flows_hold_the_mean_queue_near_q_ref(n):
    # the integral action drives the mean queue to q_ref = 50 packets once the start-up's
    # overshoot has been integrated away.  Measured (seed 1, 10-60 s, 1000-packet
    # buffer): 40.4 packets with 5 flows, 51.8 with 20, against 488 and 798 for drop-tail
    duration, warmup = 60.0, 10.0
    net, b = _dumbbell(n, Pi(), 1000)
    r = simulate(net, duration, warmup=warmup, seed=1, progress=False)
    queue = r.queue_series[r.t > warmup, b].mean()
    assert 30.0 < queue < 70.0, queue
    assert r.utilisation[b] > 0.95, r.utilisation[b]
    assert r.link_drops["early"][b] > 0


def test_ecn_marks_replace_early_drops():
    # with ecn=True an ECN-capable data packet the controller picks is marked, not dropped
    # (ns-2's setbit_); flows that are not ECN-capable are dropped
    net, b = _dumbbell(20, Pi(ecn=True, record=True), 1000, ecn=True)
    r = simulate(net, 30.0, warmup=5.0, seed=2, progress=False)
    assert r.link_drops["marks"][b] == len(r.traces["pi_drops"]) > 500
    assert r.link_drops["early"][b] == 0
    net2, b2 = _dumbbell(20, Pi(ecn=True), 1000, ecn=False)
    r2 = simulate(net2, 30.0, warmup=5.0, seed=2, progress=False)
    assert r2.link_drops["marks"][b2] == 0 and r2.link_drops["early"][b2] > 500
