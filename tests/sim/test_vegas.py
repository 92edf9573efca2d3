"""TCP Vegas in packets (``qosmodels.sim._kernels.sources.vegas``).

References, independent of the kernel:

* Vegas' equilibrium (Brakmo and Peterson, Section 3.2; Low, Peterson and Wang,
  "Understanding Vegas", JACM 2002): each flow keeps between ``alpha`` and ``beta``
  packets queued in the network, whatever its round-trip time, so by Little's law
  ``rate x queueing delay`` lies in ``[alpha, beta]`` (up to the one packet that the
  integer ``diff`` adds) and flows with different RTTs get rates within a factor
  ``beta / alpha`` of each other, where Reno's rates go as ``1 / RTT``;
* a buffer larger than the flows' combined ``beta`` never overflows once slow start is
  over;
* ns-3's ``TcpVegas`` as an independent implementation: ``tests/sim/test_crosscheck.py``
  (slow, needs the ``ns3`` wheel) and ``benchmarks/crosscheck_ns3.py --tcp vegas``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, simulate
from qosmodels.mechanisms import TcpNewReno, TcpVegas
from qosmodels.sim import Record

PKT = 1000  # bytes
C = 10e6    # bottleneck, bit/s


def dumbbell(source, access_delays, buffer=200, bottleneck_delay=0.02):
    links = [Link("r0", "r1", C, bottleneck_delay, buffer)]
    flows = []
    for i, d in enumerate(access_delays):
        links.append(Link(f"s{i}", "r0", 100e6, d, buffer))
        flows.append(Flow([f"s{i}", "r0", "r1"], packet_size=PKT, source=source))
    return Network(links, flows)


@pytest.fixture(scope="module")
def three_rtts():
    net = dumbbell(TcpVegas(), [0.001, 0.010, 0.040])
    return net, simulate(net, 60.0, seed=1, warmup=30.0)


def test_each_flow_keeps_between_alpha_and_beta_packets_queued(three_rtts):
    net, r = three_rtts
    backlog = r.throughput / (8.0 * PKT) * r.mean_queueing_delay  # Little's law, packets
    s = TcpVegas()
    assert (backlog >= s.alpha - 1.0).all() and (backlog <= s.beta + 0.5).all(), backlog
    assert r.utilisation[0] == pytest.approx(1.0, abs=0.005)
    assert r.counters["dropped"].sum() == 0


def test_rates_stay_within_the_band_whatever_the_rtt(three_rtts):
    # base RTTs about 45, 63 and 123 ms: with every flow's backlog x_i q in (alpha - 1, beta]
    # and one queueing delay q, no two rates differ by more than beta / (alpha - 1); NewReno
    # on the same network is far outside that band
    net, r = three_rtts
    s = TcpVegas()
    assert r.throughput.max() / r.throughput.min() <= s.beta / (s.alpha - 1.0)
    reno = simulate(dumbbell(TcpNewReno(), [0.001, 0.010, 0.040]), 60.0, seed=1, warmup=30.0)
    assert reno.throughput.max() / reno.throughput.min() > s.beta / (s.alpha - 1.0)


def test_after_slow_start_a_buffer_above_beta_never_overflows():
    # one flow, 10 Mb/s, about 100 ms round trip, 20-packet buffer: slow start overshoots
    # (both lose packets in the first seconds), then Vegas holds at most beta + 1 packets
    # queued while NewReno's sawtooth keeps filling the buffer
    net = dumbbell(TcpVegas(), [0.001], buffer=20, bottleneck_delay=0.05)
    r = simulate(net, 30.0, seed=1, warmup=10.0)
    reno = simulate(dumbbell(TcpNewReno(), [0.001], buffer=20, bottleneck_delay=0.05), 30.0,
                    seed=1, warmup=10.0)
    assert r.counters["dropped"][0] > 0 and reno.counters["dropped"][0] > 0
    assert r.counters["dropped_window"][0] == 0
    assert reno.counters["dropped_window"][0] > 0
    backlog = r.throughput[0] / (8.0 * PKT) * r.mean_queueing_delay[0]
    assert backlog <= TcpVegas().beta + 1.0


def test_same_seed_same_run_and_every_option_runs():
    net = dumbbell(TcpVegas(loss_rule="ns-3", rtt_estimate="smoothed", recovery="pipe",
                            timer="impatient", window_arithmetic="bytes", segment_size=958),
                   [0.001, 0.02], buffer=30)
    a = simulate(net, 10.0, seed=3, record=Record(interval=0.5))
    b = simulate(net, 10.0, seed=3, record=Record(interval=0.5))
    np.testing.assert_array_equal(a.throughput, b.throughput)
    plain = simulate(net.replace(flows=[dataclasses.replace(f, source=TcpVegas())
                                        for f in net.flows]), 10.0,
                     seed=3)
    assert (a.throughput > 0).all() and not np.array_equal(a.throughput, plain.throughput)
    assert np.isfinite(a.cwnd_series).all() and (a.cwnd_series >= 1.0).all()
