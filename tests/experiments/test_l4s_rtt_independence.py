"""l4s-rtt-independence: two Prague flows of different base RTTs through DualPI2's L queue,
with and without Linux Prague's RTT independence (``rtt_scaling``), in its quick form (the
same runs as the full form).  The references are closed forms from the rules (one
reduction per round trip, or per ``ceil(T / R) R`` in "rate" mode), checked here by hand."""

from __future__ import annotations

import math

import pytest

from qosmodels.experiments import l4s as ex

from .quick_runs import validate_quick


@pytest.fixture(scope="module")
def quick():
    return validate_quick(["l4s-rtt-independence"])


def test_no_row_fails_and_only_the_declared_row_differs(quick):
    assert [c.quantity for c in quick.checks if c.verdict == "fails"] == []
    assert len(quick.checks) == 6
    known = sorted(c.quantity for c in quick.checks if c.verdict == "known difference")
    assert known == sorted(q for _, q in ex.KNOWN_RTTI)


def test_rate_mode_brings_the_ratio_near_one_and_alpha_to_the_target_period(quick):
    rows = {c.quantity: c for c in quick.checks}
    none = rows["rtt_scaling='none': rate ratio, 4.5 ms flow / 15 ms flow"].packets.value
    rate = rows["rtt_scaling='rate': rate ratio, 4.5 ms flow / 15 ms flow"].packets.value
    assert none > 2.5 and 0.6 < rate < 1.1, (none, rate)
    for name in ("4.5 ms", "15 ms"):
        per = rows[f"rtt_scaling='rate': alpha update period of the {name} flow"].packets.value
        assert 0.025 <= per < 0.028, (name, per)   # at least T, at most T plus an ACK gap


def test_reduction_period_by_hand():
    # T = 25 ms: R = 5.8 ms -> 25 / 5.8 = 4.31, the fifth round trip: 29 ms; R = 16.3 ms ->
    # the second: 32.6 ms; R at or above T: R itself; R = 5 ms exactly: the fifth, 25 ms
    assert ex.reduction_period(0.0058, 0.025) == pytest.approx(0.029)
    assert ex.reduction_period(0.0163, 0.025) == pytest.approx(0.0326)
    assert ex.reduction_period(0.030, 0.025) == pytest.approx(0.030)
    assert ex.reduction_period(0.005, 0.025) == pytest.approx(0.025)


def test_the_two_ratios_follow_from_the_rate_equations():
    # "none": W = 2 (1 - p) / p for both at a shared p, x = W / R: x_s / x_l = R_l / R_s
    p, rs, rl, t = 0.05, 0.0058, 0.0163, 0.025
    w = 2 * (1 - p) / p
    assert ex.rtt_independence_ratio(rs, rl, t, False) == pytest.approx((w / rs) / (w / rl))
    # "rate": the rate gains (1 - p) / T^2 per second and loses x p / 2 per period P(R):
    # x = 2 (1 - p) P / (p T^2)
    x = [2 * (1 - p) * math.ceil(t / r) * r / (p * t * t) for r in (rs, rl)]
    assert ex.rtt_independence_ratio(rs, rl, t, True) == pytest.approx(x[0] / x[1])
