"""Trace channels: named scalar series a mechanism records, returned on SimulationResult.traces."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, SimulationError, simulate
from qosmodels.mechanisms import Cbr, Red
from qosmodels.sim import Record

CAP = 1e6          # bit/s
SIZE = 1000        # bytes
W_Q = 0.01


def red_average_reference(n: int, rate: float) -> np.ndarray:
    """RED's average queue after each of ``n`` CBR arrivals at a FIFO link, computed
    independently: a Lindley recursion gives the packets waiting (not in service) at
    each arrival, then Floyd and Jacobson's EWMA, avg <- (1 - w_q) avg + w_q q, with the
    idle-time decay (1 - w_q)^m, m = idle time / a typical packet's transmission time."""
    T = SIZE * 8 / CAP
    gap = SIZE * 8 / rate
    starts, avg, out = [], 0.0, []
    free_at = 0.0  # when the link finishes its current transmission
    for k in range(n):
        a = k * gap
        waiting = sum(1 for s in starts if s > a)
        if free_at <= a:  # idle: decay over the idle time
            avg *= (1 - W_Q) ** ((a - free_at) / T)
        avg = (1 - W_Q) * avg + W_Q * waiting
        out.append(avg)
        start = max(a, free_at)
        starts.append(start)
        free_at = start + T
    return np.array(out)


def test_red_average_channel_matches_an_independent_recomputation():
    rate = CAP * math.sqrt(2)  # irrational ratio: no arrival coincides with a departure
    queue = Red(min_th=4000, max_th=5000, w_q=W_Q, record_average=True)  # never drops
    net = Network([Link("a", "b", CAP, 0.001, buffer=5000, queue=queue)],
                  [Flow(["a", "b"], source=Cbr(rate=rate, packet_size=SIZE))])
    res = simulate(net, 2.0, seed=0, progress=False)
    series = res.traces["red_average[a->b]"]
    assert res.traces["red_average"] is series  # one owner: the bare name too
    assert len(series) == res.counters["link_arrivals"][0] > 300
    assert np.all(np.diff(series.index.to_numpy()) > 0)
    np.testing.assert_allclose(series.index.to_numpy(),
                               np.arange(len(series)) * SIZE * 8 / rate, rtol=1e-12)
    expected = red_average_reference(len(series), rate)
    np.testing.assert_allclose(series.to_numpy(), expected, rtol=1e-9, atol=1e-12)
    assert series.iloc[-1] > 10  # the queue did build up


def test_channels_of_several_owners_are_keyed_by_owner():
    red = Red(min_th=2, max_th=8, record_average=True)
    net = Network([Link("a", "b", CAP, 0.001, queue=red), Link("b", "c", CAP, 0.001, queue=red),
                   Link("c", "d", CAP, 0.001, queue=Red())],
                  [Flow(["a", "b", "c", "d"], source=Cbr(rate=1.2 * CAP))])
    res = simulate(net, 1.0, seed=1, progress=False)
    assert set(res.traces) == {"red_average[a->b]", "red_average[b->c]"}
    arrivals = res.counters["link_arrivals"]
    assert len(res.traces["red_average[a->b]"]) == arrivals[0]
    assert len(res.traces["red_average[b->c]"]) == arrivals[1]


def test_no_channel_no_traces_and_a_full_buffer_is_an_error():
    plain = Network([Link("a", "b", CAP, 0.001, queue=Red())],
                    [Flow(["a", "b"], source=Cbr(rate=0.5 * CAP))])
    assert simulate(plain, 0.5, seed=0, progress=False).traces == {}
    net = Network([Link("a", "b", CAP, 0.001, queue=Red(record_average=True))],
                  [Flow(["a", "b"], source=Cbr(rate=0.5 * CAP))])
    with pytest.raises(SimulationError, match=r"trace-channel buffer full.*trace_points = 10.*"
                                              r"Record\(trace_points=\.\.\.\)"):
        simulate(net, 0.5, seed=0, progress=False, record=Record(trace_points=10))
    with pytest.raises(ValueError, match="Record.trace_points"):
        Record(trace_points=0)
