"""CUBIC's response function (qosmodels.cubic) against RFC 9438's printed tables and
hand-computed values."""

from __future__ import annotations

import math

import pytest

from qosmodels.cubic import (
    aimd_window,
    alpha_cubic,
    cubic_window,
    loss_period,
    reno_friendly_limit,
    reno_friendly_window,
    response_window,
    rfc9438_table_window,
    time_to_wmax,
)
from qosmodels.errors import ScenarioError, ScenarioTypeError

P = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]
# RFC 9438, Section 5.1, Table 1 (RTT = 0.1 s) and Table 2 (RTT = 0.01 s): the CUBIC
# columns for C = 0.04, 0.4, 4, and the Reno column (RFC 3649's 1.2 / sqrt(p)), as printed.
TABLE1 = {0.04: [12, 38, 120, 593, 3332, 18740, 105383],
          0.4: [12, 38, 187, 1054, 5926, 33325, 187400],
          4.0: [12, 59, 333, 1874, 10538, 59261, 333250]}
TABLE2 = {0.04: [12, 38, 120, 379, 1200, 3795, 18740],
          0.4: [12, 38, 120, 379, 1200, 5926, 33325],
          4.0: [12, 38, 120, 379, 1874, 10538, 59261]}
RENO = [12, 38, 120, 379, 1200, 3795, 12000]


@pytest.mark.parametrize("rtt, table", [(0.1, TABLE1), (0.01, TABLE2)])
@pytest.mark.parametrize("c", [0.04, 0.4, 4.0])
def test_rfc9438_tables_1_and_2(rtt, table, c):
    assert [rfc9438_table_window(p, rtt, c) for p in P] == table[c]


def test_rfc9438_reno_column_is_rfc3649s_and_close_to_the_aimd_window():
    assert [round(1.2 / math.sqrt(p)) for p in P] == RENO
    for p, reno in zip(P, RENO):
        # sqrt(3 / (2 p)) = 1.2247 / sqrt(p): 2.1 % above the rounded 1.2 / sqrt(p)
        assert reno_friendly_window(p) == pytest.approx(reno * 1.2247449 / 1.2, rel=5e-3)


def test_eq7_constant():
    # RFC 9438 eq. 7: with C = 0.4, beta = 0.7, AVG_W = 1.054 (RTT / p)^(3/4)
    assert (0.4 * 3.7 / 1.2) ** 0.25 == pytest.approx(1.054, abs=5e-4)
    assert cubic_window(1e-6, 0.01) == pytest.approx(1.05384 * (0.01 / 1e-6) ** 0.75, rel=1e-4)


def test_hand_computed_values():
    # alpha_cubic = 3 * 0.3 / 1.7 = 0.529411...
    assert alpha_cubic() == pytest.approx(0.9 / 1.7, rel=1e-15)
    # AIMD(alpha_cubic, 0.7) averages Reno's sqrt(3 / (2 p)): at p = 0.01, 12.2474
    assert reno_friendly_window(0.01) == pytest.approx(math.sqrt(150.0), rel=1e-12)
    assert reno_friendly_window(0.01, beta=0.5) == pytest.approx(math.sqrt(150.0), rel=1e-12)
    assert aimd_window(1.0, 0.5, 0.01) == pytest.approx(math.sqrt(150.0), rel=1e-12)
    # K after a loss at W_max = 100 with cwnd_epoch = 70: cbrt(30 / 0.4) = cbrt(75) = 4.2172
    assert time_to_wmax(100.0, 70.0) == pytest.approx(4.217163, rel=1e-6)
    assert time_to_wmax(70.0, 100.0) == pytest.approx(-4.217163, rel=1e-6)
    # K of Appendix B at p = 1e-4, RTT 0.1: (4 * 0.3 * 0.1 / (0.4 * 3.7 * 1e-4))^(1/4)
    k = (0.12 / 1.48e-4) ** 0.25
    assert loss_period(1e-4, 0.1) == pytest.approx(k, rel=1e-12)


def test_deterministic_loss_cycle_is_consistent():
    # Appendix B's own derivation: W_max from K (eq. 2 with cwnd_epoch = beta W_max), the
    # packets of one cycle (sum over K / RTT rounds) ~ 1 / p, the average (1/p) / (K/RTT)
    p, rtt, c, beta = 1e-6, 0.1, 0.4, 0.7
    k = loss_period(p, rtt, c, beta)
    w_max = c * k ** 3 / (1 - beta)
    n = k / rtt
    packets = -c * rtt ** 3 * n ** 4 / 4 + w_max * n
    assert packets == pytest.approx(1 / p, rel=1e-9)
    assert cubic_window(p, rtt, c, beta) == pytest.approx((1 / p) / n, rel=1e-9)


def test_response_is_the_larger_and_the_limit_separates_the_regions():
    p = 1e-4
    lim = reno_friendly_limit(p)
    assert cubic_window(p, lim) == pytest.approx(reno_friendly_window(p), rel=1e-12)
    assert response_window(p, 0.9 * lim) == reno_friendly_window(p)
    assert response_window(p, 1.1 * lim) == cubic_window(p, 1.1 * lim)
    assert response_window(p, 0.9 * lim, tcp_friendliness=False) == cubic_window(p, 0.9 * lim)


@pytest.mark.parametrize("call, match", [
    (lambda: cubic_window(0.0, 0.1), r"cubic_window\.p must be > 0"),
    (lambda: cubic_window(1.5, 0.1), r"cubic_window\.p must be a loss rate in \(0, 1\]"),
    (lambda: cubic_window(0.01, -1.0), r"cubic_window\.rtt must be > 0 \(in s\)"),
    (lambda: cubic_window(0.01, 0.1, c=0), r"cubic_window\.c must be > 0"),
    (lambda: alpha_cubic(1.0), r"alpha_cubic\.beta must be in \(0, 1\), got 1\.0"),
    (lambda: aimd_window(0.0, 0.5, 0.01), r"aimd_window\.alpha must be > 0"),
    (lambda: loss_period(0.01, 0.0), r"loss_period\.rtt must be > 0"),
    (lambda: time_to_wmax(-1.0, 1.0), r"time_to_wmax\.w_max must be >= 0"),
])
def test_refusals(call, match):
    with pytest.raises(ScenarioError, match=match):
        call()


def test_refuses_a_non_number():
    with pytest.raises(ScenarioTypeError, match=r"response_window|cubic_window\.p"):
        response_window("0.01", 0.1)
