"""Token buckets and the aggregate-fair window increase (aggregate-rate-control paper, Sections 3-5).

References: the arrival-curve bound checked pair by pair on random traces
(Hypothesis), the max-plus lower bound on any conforming schedule, a
brute-force token distribution, and a few-line numpy simulation of the
deterministic sawtooth -- never the functions under test.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qosmodels import ScenarioError, jain_index
from qosmodels import tokenbucket as tbm
from qosmodels.errors import ScenarioTypeError
from qosmodels.tokenbucket import TokenBucket

PAPER_F = [0.05**2 / 0.3125**2, 0.3**2 / 0.3125**2, 0.3**2 / 0.3125**2, 0.6**2 / 0.3125**2]


# ------------------------------------------------------------------ the bucket
def test_arrival_curve_and_burst_closed_forms():
    tb = TokenBucket(depth=10_000, rate=800_000, peak_rate=1_600_000, max_packet=1000)
    # bytes/s: r = 1e5, p = 2e5
    for t in (0.0, 0.01, 0.09, 0.5):
        assert tb.arrival_curve(t) == pytest.approx(min(2e5 * t + 1000, 1e5 * t + 10_000))
    burst = tb.max_burst
    # the two branches meet at the end of the burst
    assert 2e5 * burst.duration + 1000 == pytest.approx(1e5 * burst.duration + 10_000)
    assert burst.size == pytest.approx(1e5 * burst.duration + 10_000)
    nopeak = TokenBucket(depth=5000, rate=1e6, max_packet=1500)
    assert nopeak.max_burst.size == 5000 and nopeak.max_burst.duration == 0
    assert nopeak.arrival_curve(0.0) == 5000
    assert math.isinf(TokenBucket(depth=5000, rate=1e6, peak_rate=1e6).max_burst.size)


def test_largest_burst_is_what_a_backlog_gets_through_at_peak_rate():
    tb = TokenBucket(depth=10_000, rate=800_000, peak_rate=1_600_000, max_packet=1000)
    out = tb.shape(np.zeros(100), np.full(100, 1000.0))
    gaps = np.diff(out.departures)
    at_peak = 1 + int(np.argmax(~np.isclose(gaps, 1000 / 2e5)))  # packets before the first slow gap
    assert at_peak * 1000 == pytest.approx(tb.max_burst.size)
    assert out.departures[at_peak - 1] == pytest.approx(tb.max_burst.duration)
    # afterwards the output runs at the average rate: one 1000-byte packet per 10 ms
    np.testing.assert_allclose(gaps[at_peak:], 1000 / 1e5)


def _maxplus_lower_bound(tb, t, s):
    """d_j >= max_{i<=j} t_i + g(S_ij), g the inverse of the arrival curve: any conforming FIFO
    output that does not send before arrival must satisfy it."""
    cum = np.concatenate([[0.0], np.cumsum(s)])
    n = t.size
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    S = cum[j + 1] - cum[i]
    g = np.maximum(0.0, 8 * (S - tb.depth) / tb.rate)
    if not math.isinf(tb.peak_rate):
        g = np.maximum(g, 8 * (S - tb.max_packet) / tb.peak_rate)
    return np.where(j >= i, t[i] + g, -np.inf).max(axis=0)


@st.composite
def bucket_and_trace(draw):
    lm = draw(st.floats(40, 1500))
    b = lm * draw(st.floats(1, 10))
    r = draw(st.floats(1e4, 1e7))
    p = draw(st.one_of(st.just(math.inf), st.floats(1, 10).map(lambda k: k * r)))
    n = draw(st.integers(1, 40))
    gaps = draw(st.lists(st.one_of(st.just(0.0), st.floats(0, 0.05)), min_size=n, max_size=n))
    sizes = draw(st.lists(st.floats(1, 1), min_size=n, max_size=n))
    sizes = [lm * draw(st.floats(0.01, 1.0)) for _ in sizes]
    return TokenBucket(depth=b, rate=r, peak_rate=p, max_packet=lm), np.cumsum(gaps), np.array(sizes)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bucket_and_trace())
def test_shaper_output_conforms_and_is_the_earliest_conforming_schedule(case):
    tb, t, s = case
    out = tb.shape(t, s)
    d = out.departures
    assert np.all(d >= t) and np.all(np.diff(d) >= 0)
    # the output fits the arrival curve over every interval between two packets
    cum = np.concatenate([[0.0], np.cumsum(s)])
    for i in range(len(d)):
        for j in range(i, len(d)):
            assert cum[j + 1] - cum[i] <= tb.arrival_curve(d[j] - d[i]) * (1 + 1e-9)
    # and is no later than the lower bound every conforming schedule obeys
    np.testing.assert_allclose(d, _maxplus_lower_bound(tb, t, s), rtol=1e-12, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(bucket_and_trace())
def test_conformance_check_agrees_with_the_shaper(case):
    tb, t, s = case
    out = tb.shape(t, s)
    if tb.conforms(t, s, rtol=1e-12):
        assert out.max_delay <= 1e-9  # a conforming trace passes untouched
    if not tb.conforms(t, s, rtol=1e-6):
        assert out.max_delay > 0
    assert out.conforms(rtol=1e-9)


def test_shaped_trace_table_and_plot():
    import matplotlib

    matplotlib.use("Agg")
    tb = TokenBucket(depth=3000, rate=1e6, peak_rate=4e6, max_packet=1500)
    out = tb.shape([0, 0, 0, 0.001], [1500, 1500, 1500, 500])
    df = out.to_pandas()
    assert list(df.columns) == ["arrival_s", "departure_s", "size_bytes", "delay_s"]
    # hand computation: p = 5e5 B/s so the 2nd packet waits 1500/5e5 = 3 ms (the average bucket
    # then holds 3000 - 3000 + 1.25e5 * 0.003 = 375 bytes); the 3rd waits for the 1125 missing
    # average tokens at 1.25e5 B/s: 9 ms more, 12 ms
    np.testing.assert_allclose(out.departures[:3], [0.0, 0.003, 0.012])
    assert out.plot() is not None


@pytest.mark.parametrize("kw,match", [
    ({"depth": 1000, "rate": 0}, r"TokenBucket.rate must be > 0"),
    ({"depth": -1, "rate": 1e6, "max_packet": 1}, r"TokenBucket.depth must be > 0"),
    ({"depth": 1000, "rate": 1e6, "max_packet": 1500}, r"depth must be >= max_packet"),
    ({"depth": 3000, "rate": 1e6, "peak_rate": 5e5}, r"peak_rate must be >= rate"),
    ({"depth": 3000, "rate": 1e6, "max_packet": 0}, r"max_packet must be > 0"),
    ({"depth": 3000, "rate": "fast"}, r"rate must be a real number"),
])
def test_token_bucket_rejects_bad_parameters(kw, match):
    with pytest.raises(ScenarioError, match=match):
        TokenBucket(**kw)


def test_traces_are_validated():
    tb = TokenBucket(depth=3000, rate=1e6, max_packet=1500)
    with pytest.raises(ScenarioError, match="times must be non-decreasing"):
        tb.shape([0.2, 0.1], [100, 100])
    with pytest.raises(ScenarioError, match=r"sizes must be <= max_packet = 1500 bytes"):
        tb.shape([0.0], [2000])
    with pytest.raises(ScenarioError, match=r"sizes must be > 0 bytes"):
        tb.conforms([0.0], [-5])
    with pytest.raises(ScenarioError, match="sizes must have the shape of times"):
        tb.shape([0.0, 1.0], [100])
    with pytest.raises(ScenarioError, match=r"t must be finite and >= 0"):
        tb.arrival_curve(-1.0)


# ------------------------------------------------------------------ partitions
def test_partition_rules_and_depth_conditions():
    tb = TokenBucket(depth=40_000, rate=1_000_000)
    rtts = np.array(tbm.PAPER_RTTS)
    eq = tbm.partition(tb, rtts, "equal")
    np.testing.assert_allclose(eq.rates, 250_000)
    np.testing.assert_allclose(eq.depths, 10_000)
    np.testing.assert_allclose(eq.rate_windows, 250_000 * rtts / 8)  # 1562.5 ... 18750 bytes
    # equal depths lose tokens on the 600 ms connection (rate window 18750 > 10000)
    assert eq.no_token_loss.tolist() == [True, True, True, False]
    pr = tbm.partition(tb, rtts, "rtt")
    np.testing.assert_allclose(pr.depths, 40_000 * rtts / rtts.sum())
    assert pr.rtt_av == pytest.approx(0.3125)
    assert pr.aggregate_depth_needed == pytest.approx(1e6 * 0.3125 / 8)  # 39062.5 bytes
    assert pr.aggregate_ok and pr.no_token_loss.all()
    assert pr.to_pandas().shape == (4, 5)


def test_rtt_proportional_depths_avoid_token_loss_iff_the_aggregate_depth_does():
    rng = np.random.default_rng(5)
    for _ in range(300):
        n = rng.integers(1, 8)
        rtts = rng.uniform(0.01, 1.0, n)
        r = rng.uniform(1e5, 1e7)
        b = r * rtts.mean() / 8 * rng.uniform(0.5, 1.5)
        p = tbm.partition(TokenBucket(depth=b, rate=r, max_packet=min(b, 40)), rtts, "rtt")
        per_connection = all(b * x / rtts.sum() >= (r / n) * x / 8 for x in rtts)
        aggregate = b >= r * rtts.mean() / 8
        assert per_connection == aggregate == bool(p.no_token_loss.all()) == p.aggregate_ok


def test_partition_rejects_bad_input():
    tb = TokenBucket(depth=3000, rate=1e6)
    with pytest.raises(ScenarioError, match=r"rtts must be > 0 s"):
        tbm.partition(tb, [0.1, -0.2])
    with pytest.raises(ScenarioError, match="rule must be 'equal' or 'rtt'"):
        tbm.partition(tb, [0.1], "lru")
    with pytest.raises(ScenarioTypeError, match="bucket must be a TokenBucket"):
        tbm.partition((3000, 1e6), [0.1])
    with pytest.raises(ScenarioError, match="non-empty 1-d"):
        tbm.partition(tb, [])


def _fill_brute_force(levels, depths, tokens, quantum=1e-3):
    """Hand tokens out one quantum at a time, round robin over the non-full buckets."""
    lv = np.array(levels, dtype=float)
    left = tokens
    while left > 1e-12:
        open_ = np.flatnonzero(lv < depths - 1e-12)
        if open_.size == 0:
            break
        q = min(quantum, left / open_.size)
        lv[open_] = np.minimum(depths[open_], lv[open_] + q)
        left -= q * open_.size
    return lv


@pytest.mark.parametrize("seed", range(6))
def test_logical_fill_matches_brute_force_sharing(seed):
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 6)
    depths = rng.uniform(1, 10, n)
    levels = depths * rng.uniform(0, 1, n)
    tokens = rng.uniform(0, 1.2) * (depths - levels).sum()
    got = tbm.logical_fill(levels, depths, tokens)
    np.testing.assert_allclose(got, _fill_brute_force(levels, depths, tokens), atol=2e-3)
    assert np.all(got <= depths + 1e-12)
    assert got.sum() == pytest.approx(min(depths.sum(), levels.sum() + tokens))


def test_logical_fill_rejects_bad_input():
    with pytest.raises(ScenarioError, match="levels must be <= depths"):
        tbm.logical_fill([5, 1], [4, 4], 1)
    with pytest.raises(ScenarioError, match=r"tokens must be >= 0"):
        tbm.logical_fill([1, 1], [4, 4], -1)
    with pytest.raises(ScenarioError, match="depths must have the shape of levels"):
        tbm.logical_fill([1, 1], [4], 1)


# ------------------------------------------------------------------ window increase
def simulate_sawtooth(p, rtt, f, model="packet"):
    # the RTT-by-RTT deterministic sawtooth (send w packets, +f per RTT, halve at each loss)
    # that the closed forms are checked against
    return tbm.simulate_sawtooth(p, rtt, f, loss_model=model, cycles=40, skip=5)


@pytest.mark.parametrize("f,rtt", [(1.0, 0.1), (0.0256, 0.05), (3.6864, 0.6), (2.0, 0.3)])
def test_sawtooth_throughput_against_a_simulated_sawtooth(f, rtt):
    p = 1e-5
    assert tbm.sawtooth_throughput(p, rtt, f) == pytest.approx(simulate_sawtooth(p, rtt, f), rel=0.02)
    pt = 0.01  # one loss every 100 s
    assert tbm.sawtooth_throughput(pt, rtt, f, loss_model="time") == pytest.approx(
        simulate_sawtooth(pt, rtt, f, "time"), rel=0.02)


def test_sympy_derivation_of_the_window_increase():
    import sympy as sp

    d = tbm.derive()
    s = d.symbols
    # x ~ sqrt(f)/rtt: the ratio is free of f and rtt
    assert not ({s["f"], s["rtt"]} & d.throughput_over_sqrt_f_per_rtt.free_symbols)
    assert sp.simplify(d.rtt_fair_increase - s["rtt_i"] ** 2 / s["rtt"] ** 2) == 0
    assert sp.simplify(d.aggregate_constant - 1 / s["rtt_av"] ** 2) == 0
    assert sp.simplify(d.aggregate_fair_increase - s["rtt_i"] ** 2 / s["rtt_av"] ** 2) == 0
    assert sp.simplify(d.aggregate_fair_increase_time_model - d.aggregate_fair_increase) == 0
    assert sp.simplify(d.throughput - sp.sqrt(3 * s["f"] / (2 * s["p"])) / s["rtt"]) == 0
    f = d.throughput_function()
    assert f(2.0, 0.01, 0.2) == pytest.approx(tbm.sawtooth_throughput(0.01, 0.2, 2.0), rel=1e-12)


def test_window_increase_on_the_paper_rtts():
    np.testing.assert_allclose(tbm.window_increase(tbm.PAPER_RTTS), PAPER_F, rtol=1e-12)
    # = Constant-Rate with a = 1/rtt_av^2
    np.testing.assert_allclose(tbm.constant_rate_increase(tbm.PAPER_RTTS, 1 / 0.3125**2), PAPER_F)
    assert tbm.window_increase([0.2, 0.2]).tolist() == [1.0, 1.0]


def test_aggregate_fairness_in_the_simulated_sawtooth():
    p = 1e-5
    rtts = tbm.PAPER_RTTS
    f = tbm.window_increase(rtts)
    rates = np.array([simulate_sawtooth(p, r, fi) for r, fi in zip(rtts, f)])
    assert jain_index(rates) > 0.9995  # RTT-fair: equal throughputs
    standard_at_mean = simulate_sawtooth(p, float(np.mean(rtts)), 1.0)
    assert rates.sum() == pytest.approx(len(rtts) * standard_at_mean, rel=0.02)
    # standard TCP (f = 1) on the same RTTs is far from fair
    plain = np.array([simulate_sawtooth(p, r, 1.0) for r in rtts])
    assert jain_index(plain) < 0.5  # 0.472: throughput ~ 1/rtt


def test_increase_by_k():
    assert tbm.increase_by_k(tbm.PAPER_RTTS, 4).tolist() == [1.0, 1.0, 1.0, 4.0]
    assert tbm.increase_by_k(tbm.PAPER_RTTS, 2, rtt_threshold=0.1).tolist() == [1.0, 2.0, 2.0, 2.0]


@pytest.mark.parametrize("call,match", [
    (lambda: tbm.window_increase([0.1, 0.0]), r"window_increase: rtts must be > 0 s"),
    (lambda: tbm.window_increase([]), r"non-empty 1-d"),
    (lambda: tbm.constant_rate_increase([0.1], 0), r"a must be > 0"),
    (lambda: tbm.increase_by_k([0.1], 0.5), r"k must be >= 1"),
    (lambda: tbm.sawtooth_throughput(0.0, 0.1), r"loss must be in \(0, 1\]"),
    (lambda: tbm.sawtooth_throughput(1.5, 0.1), r"loss must be in \(0, 1\]"),
    (lambda: tbm.sawtooth_throughput(-1, 0.1, loss_model="time"), r"loss must be > 0"),
    (lambda: tbm.sawtooth_throughput(0.1, -0.1), r"rtt must be > 0"),
    (lambda: tbm.sawtooth_throughput(0.1, 0.1, 0), r"increase must be > 0"),
    (lambda: tbm.sawtooth_throughput(0.1, 0.1, loss_model="x"), r"loss_model must be"),
])
def test_window_functions_reject_bad_input(call, match):
    with pytest.raises(ScenarioError, match=match):
        call()


def test_docstring_examples_run():
    import doctest

    from qosmodels import abe

    for mod in (tbm, abe):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert res.failed == 0 and res.attempted > 0, mod.__name__


def test_sanity_rows_of_the_theory_experiments():
    from qosmodels.experiments import validate

    report = validate(["tokenbucket-window-increase", "tokenbucket-conformance"])
    assert {c.quantity for c in report.checks if c.sanity} == {
        "f(rtt_1 = 50 ms)", "f(rtt_2 = 300 ms)", "f(rtt_3 = 300 ms)", "f(rtt_4 = 600 ms)",
        "smallest depth without token loss, 1 Mb/s"}
    assert report.passed and report.ok
