"""qosmodels.netcalc against brute-force evaluation on fine grids and Le Boudec and Thiran's
closed forms (Network Calculus, chapter 1)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.netcalc import (
    RateLatency,
    TokenBucketCurve,
    backlog_bound,
    concatenate,
    delay_bound,
    output_curve,
    pgps_service,
    residual,
)


def brute_deviations(alpha, beta, horizon, n=20001):
    """The horizontal and vertical deviations on a grid, from the curves' values only (the
    least d with beta(t + d) >= alpha(t), by a search in beta's values on a finer grid)."""
    t = np.linspace(0.0, horizon, n)[1:]
    a = np.array([alpha(x) for x in t])
    b = np.array([beta(x) for x in t])
    backlog = float(np.max(a - b))
    u = np.linspace(0.0, 4.0 * horizon, 20 * n)
    bu = np.array([beta(x) for x in u])  # non-decreasing
    reach = u[np.minimum(np.searchsorted(bu, a, side="left"), len(u) - 1)]
    return float(np.max(np.maximum(reach - t, 0.0))), backlog


def test_textbook_token_bucket_through_rate_latency():
    # Le Boudec and Thiran, Theorems 1.4.1-1.4.2: delay <= T + b / R, backlog <= b + r T
    a = TokenBucketCurve(b=8000.0, r=1e6)
    s = RateLatency(R=2e6, T=0.01)
    assert delay_bound(a, s) == pytest.approx(0.01 + 8000.0 / 2e6)
    assert backlog_bound(a, s) == pytest.approx(8000.0 + 1e6 * 0.01)
    # the output's burst grows by what arrives during the latency (Theorem 1.4.3)
    assert output_curve(a, s) == TokenBucketCurve(b=8000.0 + 1e6 * 0.01, r=1e6)


def test_the_intserv_guaranteed_service_bound_with_a_peak():
    # T-SPEC (b, r, p, M) through RateLatency(R, T), r <= R <= p: T + (M + (b - M)(p - R)
    # / (p - r)) / R (RFC 2212's bound with C = M, D = T R... written as Le Boudec's)
    b, r, p, m = 80_000.0, 1e6, 10e6, 12_000.0
    s = RateLatency(R=2e6, T=0.01)
    a = TokenBucketCurve(b=b, r=r, peak=p, max_packet=m)
    assert delay_bound(a, s) == pytest.approx(0.01 + (m + (b - m) * (p - s.R) / (p - r)) / s.R)
    # a peak below R: the bound is the packet's own transmission after the latency
    slow = TokenBucketCurve(b=b, r=r, peak=1.5e6, max_packet=m)
    assert delay_bound(slow, s) == pytest.approx(0.01 + m / s.R)


@pytest.mark.parametrize("arrival, service, horizon", [
    (TokenBucketCurve(8000.0, 1e6), RateLatency(2e6, 0.01), 0.2),
    (TokenBucketCurve(8000.0, 1e6), RateLatency(1e6, 0.0), 0.2),  # r = R
    (TokenBucketCurve(80_000.0, 1e6, peak=10e6, max_packet=12_000.0), RateLatency(2e6, 0.01),
     0.3),
    (TokenBucketCurve(80_000.0, 1e6, peak=1.5e6, max_packet=12_000.0), RateLatency(2e6, 0.05),
     0.5),
    (TokenBucketCurve(0.0, 3e5), RateLatency(5e5, 0.02), 0.2),
])
def test_the_deviations_agree_with_brute_force_on_a_grid(arrival, service, horizon):
    delay, backlog = brute_deviations(arrival, service, horizon)
    step = horizon / 20000
    fast = max(arrival.peak or 0.0, arrival.r, service.R)
    # the grid misses the exact breakpoint by up to a step, on a slope of at most fast / R
    assert delay_bound(arrival, service) == pytest.approx(delay, abs=step * fast / service.R
                                                          + 4 * horizon / 400000 + 1e-9)
    assert backlog_bound(arrival, service) == pytest.approx(
        backlog, abs=2 * step * max(arrival.peak or 0.0, arrival.r, service.R) + 1e-6)


def test_concatenation_pays_the_burst_once():
    a = TokenBucketCurve(b=40_000.0, r=1e6)
    hops = [RateLatency(5e6, 0.002), RateLatency(3e6, 0.004), RateLatency(4e6, 0.001)]
    end = concatenate(*hops)
    assert end == RateLatency(R=3e6, T=0.007)
    # the end-to-end bound against the sum of per-hop bounds, each hop fed the previous output
    per_hop, arr = 0.0, a
    for s in hops:
        per_hop += delay_bound(arr, s)
        arr = output_curve(arr, s)
    assert delay_bound(a, end) == pytest.approx(0.007 + 40_000.0 / 3e6)
    assert delay_bound(a, end) < per_hop
    # the convolution's values on a grid: inf over s of beta1(s) + beta2(t - s)
    b1, b2 = hops[0], hops[1]
    conv = concatenate(b1, b2)
    for t in np.linspace(0.0, 0.05, 26):
        s = np.linspace(0.0, t, 2001)
        brute = float(np.min([b1(x) + b2(t - x) for x in s]))
        assert conv(t) == pytest.approx(brute, abs=1e-6 + 3e6 * t / 2000)


def test_residual_service_of_blind_multiplexing():
    s = RateLatency(R=10e6, T=0.001)
    cross = TokenBucketCurve(b=50_000.0, r=4e6)
    left = residual(s, cross)
    assert left.R == pytest.approx(6e6)
    assert left.T == pytest.approx(0.001 + (50_000.0 + 4e6 * 0.001) / 6e6)
    # [beta - alpha_cross]+ on a grid is at least the residual curve (it is a service curve)
    for t in np.linspace(0.0, 0.05, 51):
        assert max(s(t) - cross(t), 0.0) >= left(t) - 1e-6


def test_pgps_latency():
    # Parekh-Gallager: R = share * C, latency L_i / R + L_max / C
    s = pgps_service(capacity=10e6, share=0.25, max_packet=12_000.0, flow_packet=4000.0)
    assert s.R == pytest.approx(2.5e6)
    assert s.T == pytest.approx(4000.0 / 2.5e6 + 12_000.0 / 10e6)


@settings(max_examples=60, deadline=None)
@given(b=st.floats(0.0, 1e6), r=st.floats(0.0, 1e7), extra=st.floats(0.0, 1e7),
       T=st.floats(0.0, 0.5))
def test_no_point_of_the_curves_exceeds_the_bounds(b, r, extra, T):
    a = TokenBucketCurve(b=b, r=r)
    s = RateLatency(R=r + extra + 1.0, T=T)
    d, q = delay_bound(a, s), backlog_bound(a, s)
    assert math.isfinite(d) and math.isfinite(q)
    for t in np.linspace(1e-9, 2.0 + T, 200):
        assert a(t) - s(t) <= q * (1 + 1e-12) + 1e-9           # backlog
        assert s(t + d) >= a(t) * (1 - 1e-12) - 1e-6           # delay


@pytest.mark.parametrize("call, error, match", [
    (lambda: TokenBucketCurve(b=-1.0, r=1.0), ScenarioError, r"TokenBucketCurve.b must be >= 0"),
    (lambda: TokenBucketCurve(b=1.0, r=2.0, peak=1.0), ScenarioError, r"peak must be >= 2"),
    (lambda: TokenBucketCurve(b=1.0, r=1.0, peak=2.0, max_packet=5.0), ScenarioError,
     r"max_packet must be <= b"),
    (lambda: RateLatency(R=0.0), ScenarioError, r"RateLatency.R must be > 0"),
    (lambda: delay_bound(TokenBucketCurve(1.0, 2e6), RateLatency(1e6)), ScenarioError,
     r"exceeds the service rate R = 1e\+06 bit/s"),
    (lambda: backlog_bound(RateLatency(1e6), TokenBucketCurve(1.0, 1.0)), ScenarioTypeError,
     r"arrival must be a TokenBucketCurve"),
    (lambda: concatenate(), ScenarioError, r"at least one"),
    (lambda: residual(RateLatency(1e6), TokenBucketCurve(1.0, 1e6)), ScenarioError,
     r"leaves nothing"),
    (lambda: pgps_service(1e6, 1.5, 1000.0), ScenarioError, r"share must be <= 1"),
])
def test_bad_curves_are_refused_with_the_field_named(call, error, match):
    with pytest.raises(error, match=match):
        call()
