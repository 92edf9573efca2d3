"""netcalc-tokenbucket: the chapter-1 bounds against the packets' worst case."""

from __future__ import annotations

import pytest

from qosmodels.experiments import netcalc as ne
from qosmodels.experiments import validate
from qosmodels.mechanisms import Cbr
from qosmodels.sim import simulate


@pytest.fixture(scope="module")
def quick():
    return validate(["netcalc-tokenbucket"], quick=True)


def test_every_row_holds_and_the_greedy_source_meets_the_bound(quick):
    assert [c.quantity for c in quick.checks if c.verdict != "reproduced"] == []
    greedy = [c for c in quick.checks if "greedy" in c.quantity]
    assert len(greedy) == 2 * len(ne.CASES)
    for c in greedy:  # tight: the bound is reached up to the burst's spread, never passed
        assert 0.95 * c.expected <= c.packets.value <= c.expected * (1 + 1e-9), c.quantity
        assert c.theory.value == pytest.approx(c.expected, rel=1e-12)


def test_a_deeper_bucket_than_the_curve_says_breaks_the_backlog_bound():
    # the check can fail: shaped to depth 2b, the same source leaves a backlog above b
    b, r, R = ne.CASES[0]
    res = simulate(ne.network(2 * b, r, R, Cbr(rate=ne.SPEED * r)), 2.0, seed=0,
                   progress=False)
    delay, backlog = ne.worst(res, R)
    assert backlog > 1.5 * b and delay > 1.5 * 8.0 * b / R


def test_the_greedy_tolerance_is_the_bursts_spread():
    b, r, R = 8_000, 0.5e6, 4e6  # 8 packets 80 us apart: the last waits 560 us less
    assert ne.greedy_tolerance(b, r, R) == pytest.approx(560e-6 / 0.016 + ne.GREEDY_SLACK)
