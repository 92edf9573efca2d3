"""aqm-fqcodel: a sparse flow's latency and the bulk shares under FQ-CoDel, against the
closed forms derived from RFC 8290's scheduler (module docstring)."""

from __future__ import annotations

import pytest

from qosmodels.experiments import aqm_fqcodel as aq
from qosmodels.mechanisms import DropTail
from qosmodels.sim import simulate

from .quick_runs import validate_quick


def test_every_quick_row_is_reproduced():
    report = validate_quick(["aqm-fqcodel"])
    assert [c.quantity for c in report.checks if c.verdict != "reproduced"] == []
    ns = aq.RUNS[True][0]
    assert len(report.checks) == (len(ns) + 2 * sum(2 <= n <= 8 for n in ns)
                                  + len(aq.DRR_QUANTA[True]))
    drr = [c for c in report.checks if c.quantity.startswith("DRR fairness")]
    # measured (1 Mb/s, 3 s): 2000 B at quantum 500 (= Max + Q), 3264 B at 3000
    assert [round(c.packets.value, 3) for c in drr] == [0.8, 0.435]


def test_the_closed_forms_by_hand():
    # 1500 bytes at 10 Mb/s: 1.2 ms, half of it on average
    assert aq.sparse_delay() == pytest.approx(0.6e-3)
    # sparse while 1.2 ms + N * 1514 * 8 / 10e6 s < 50.0311 ms: N < 40.3
    assert aq.sparse_limit(1514.0) == 40
    # a gap exactly at the edge: N = 10 gives equality, which is not sparse
    assert aq.sparse_limit(1514.0, gap=1.2e-3 + 10 * 1514 * 8 / 10e6) == 9


def test_the_delay_row_can_fail_behind_a_fifo():
    # the same flows behind drop-tail: the sparse flow waits for the standing queue
    res = simulate(aq.network(4, DropTail()), 8.0, seed=1, warmup=3.0, progress=False)
    assert res.mean_queueing_delay[4] > 10 * aq.sparse_delay() * (1 + aq.TOL_DELAY)


def test_fairness_measure_by_hand_and_on_an_unfair_order():
    # two conversations of 100-byte packets, weights 1 and 2, alternating: 0, 1, 0, 1
    # normalised: (100, 0), (100, 50), (200, 50), (200, 100): d = 0, 100, 50, 150, 100
    assert aq.fairness_measure([1, 2, 3, 4], [0, 1, 0, 1], [100, 100], [1, 2], 0, 10) == 150
    # instants outside [t0, t1] do not count
    assert aq.fairness_measure([1, 2, 3, 4], [0, 1, 0, 1], [100, 100], [1, 2], 2.5, 10) == 100
    # a FIFO-like order that serves one backlogged conversation ten times in a row breaks
    # Theorem 1's bound at quantum 500 (Max + 2Q = 2500 bytes)
    times = range(20)
    order = [0] * 10 + [1] * 10
    assert aq.fairness_measure(times, order, [1500, 1500], [1, 1], 0, 20) == 15000 > 2500
