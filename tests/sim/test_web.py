"""Web traffic in packets (``qosmodels.sim._kernels.sources.web``).

References, independent of the kernel: renewal-reward theory (a connection alternates
think times and transfers, so its long-run delivery rate is the mean transfer over the
mean cycle), the Pareto distribution's mean (summed from its survival function), and
slow start's round count for a transfer of ``n`` packets from a window of one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, simulate
from qosmodels.mechanisms import WebTraffic

PKT = 1000  # bytes


def web_net(n, source, capacity=1e9, delay=0.0001):
    links = [Link("s", "r", capacity, delay, 10_000)]
    return Network(links, [Flow(["s", "r"], packet_size=PKT, source=source) for _ in range(n)])


def mean_packets(scale, shape):
    """E[ceil(X / PKT)] for X Pareto(scale, shape): sum over k >= 0 of P(X > k PKT)."""
    k = np.arange(1, 2_000_000, dtype=float)
    surv = np.minimum(1.0, (scale / (k * PKT)) ** shape)
    tail = (scale / PKT) ** shape * k[-1] ** (1 - shape) / (shape - 1)  # the sum beyond, ~integral
    return 1.0 + surv.sum() + tail


def test_delivery_rate_is_the_mean_transfer_over_the_mean_cycle():
    # a fat, short link: transfers take milliseconds, think times a second, so each
    # connection delivers E[n] packets per (think_time + a few ms); shape 2.5 keeps the
    # variance finite (coefficient of variation ~0.9) so 40 x 500 s (~20,000 transfers)
    # pin the mean within a few percent
    src = WebTraffic(mean_size=10_000, shape=2.5, think_time=1.0)
    r = simulate(web_net(40, src), 500.0, seed=2, warmup=10.0)
    expected = mean_packets(src.scale, src.shape) / src.think_time  # packets/s per connection
    measured = r.throughput.mean() / (8.0 * PKT)
    assert measured == pytest.approx(expected, rel=0.04)
    assert r.counters["dropped"].sum() == 0


def test_each_transfer_restarts_slow_start_from_one_packet():
    # shape 1000 pins every transfer to 15 packets (X within 0.1% of 14,500 bytes); slow
    # start from a window of 1 sends them in rounds of 1, 2, 4, 8: four round trips of
    # 0.1 s, so a cycle lasts think + 0.4 s.  Without the restart (a window left at 15+
    # after the first transfer) it would last think + 0.1 s.
    src = WebTraffic(mean_size=14_500, shape=1000.0, think_time=0.5)
    assert math.ceil(src.scale / PKT) == 15
    net = web_net(20, src, capacity=100e6, delay=0.05)
    r = simulate(net, 300.0, seed=4, warmup=5.0)
    rtt = 0.1 + 8.0 * PKT / 100e6
    per_connection = r.throughput / (8.0 * PKT)
    assert per_connection.mean() == pytest.approx(15 / (src.think_time + 4 * rtt), rel=0.03)


def test_nothing_is_sent_before_the_first_think_time_ends():
    src = WebTraffic(think_time=1000.0)  # a think time of mean 1000 s
    r = simulate(web_net(3, src), 1.0, seed=1)
    # P(any of 3 first think times < 1 s) = 1 - exp(-3/1000) = 0.3%
    assert r.counters["sent"].sum() == 0


def test_same_seed_same_run_other_seed_other_run():
    net = web_net(10, WebTraffic(think_time=0.2), capacity=10e6, delay=0.01)
    a, b = simulate(net, 20.0, seed=7), simulate(net, 20.0, seed=7)
    c = simulate(net, 20.0, seed=8)
    np.testing.assert_array_equal(a.throughput, b.throughput)
    assert not np.array_equal(a.throughput, c.throughput)
