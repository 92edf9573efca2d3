"""ABE (Hurley, Le Boudec, Thiran): eqs (2)-(7) against SymPy, root finding and simulation of the map.

Reference values come from the paper's formulas as printed (re-typed here),
SymPy's derivation, ``scipy.optimize.brentq`` on the defining equations, and
iterating the control map itself -- never from the functions under test.
"""

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from qosmodels import ScenarioError, abe
from qosmodels.errors import ScenarioTypeError


def x_printed(q, tau):
    """Eq (2) exactly as printed: (-q + sqrt(2q + q^2)) / (tau q)."""
    return (-q + math.sqrt(2 * q + q * q)) / (tau * q)


@pytest.fixture(scope="module")
def der():
    return abe.derive()


# ------------------------------------------------------------------ eq (2), eq (3)
def test_throughput_matches_the_printed_formula_and_sympy(der):
    rng = np.random.default_rng(0)
    q = rng.uniform(1e-6, 1.0, 200)
    tau = rng.uniform(0.01, 1.0, 200)
    expected = np.array([x_printed(a, b) for a, b in zip(q, tau)])
    np.testing.assert_allclose(abe.throughput(q, tau), expected, rtol=1e-11)
    np.testing.assert_allclose(der.throughput_function()(q, tau), expected, rtol=1e-11)
    assert isinstance(abe.throughput(0.1, 0.2), float)
    assert abe.throughput(np.array([0.1, 0.2]), 0.2).shape == (2,)


def test_small_loss_limit_eq3(der):
    import sympy as sp

    assert der.small_loss_constant == sp.sqrt(2)  # C = sqrt(2), as the paper says
    for q in (1e-4, 1e-8, 1e-12):
        ratio = abe.throughput(q, 0.1) / abe.throughput_small_loss(q, 0.1)
        # x / (sqrt2/(tau sqrt q)) = sqrt(2/q)/(1 + sqrt(1 + 2/q)) * ... -> 1 with error ~ sqrt(q/2)
        assert abs(ratio - 1) < 2 * math.sqrt(q)
    assert abe.throughput_small_loss(0.02, 0.1) == pytest.approx(math.sqrt(2) / (0.1 * math.sqrt(0.02)))


# ------------------------------------------------------------------ eq (5)
def test_sympy_derivation_equals_the_paper_eq5(der):
    assert der.proved and der.difference == 0
    # one of SymPy's two candidates is spurious (squaring): the derivation kept exactly one
    assert len(der.candidates) == 2


def test_alpha_against_the_lambdified_derivation(der):
    f = der.alpha_function()
    rng = np.random.default_rng(1)
    b, q = rng.uniform(1, 4, 300), rng.uniform(1e-6, 1, 300)
    B, tau = rng.uniform(0, 0.3, 300), rng.uniform(0.01, 0.6, 300)
    np.testing.assert_allclose(abe.alpha(b, q, B, tau), f(b, q, B, tau), rtol=1e-10)


@pytest.mark.parametrize("beta,q,B,tau", [
    (1.5, 0.05, 0.05, 0.14), (1.0, 0.01, 0.0, 0.1), (3.0, 0.9, 0.2, 0.05),
    (1.2, 1e-6, 0.1, 0.3), (2.0, 1.0, 0.0, 1.0), (1.5, 0.02, 0.1, 0.14),
])
def test_alpha_against_a_root_find_of_eqs_1_2_4(beta, q, B, tau):
    # x(q_b, tau + B) = beta* x(alpha q_b, tau), solved for alpha by bisection
    def g(a):
        return x_printed(q, tau + B) - beta * x_printed(a * q, tau)

    ref = brentq(g, 1e-3, 1e4, xtol=1e-14, rtol=1e-13)
    assert abe.alpha(beta, q, B, tau) == pytest.approx(ref, rel=1e-10)
    assert abe.green_loss_target(beta, q, B, tau) == pytest.approx(ref * q, rel=1e-10)
    if ref * q <= 1:
        assert abe.throughput_ratio(ref, q, B, tau) == pytest.approx(beta, rel=1e-10)


def test_alpha_is_decreasing_in_q_blue_from_c_squared(der):
    import sympy as sp

    s = der.symbols
    c = s["beta_star"] * (1 + s["B"] / s["tau"])
    assert sp.simplify(der.alpha_at_zero_loss - c**2) == 0
    q = np.linspace(1e-9, 1.0, 2001)
    a = abe.alpha(1.5, q, 0.05, 0.14)
    assert np.all(np.diff(a) < 0)
    c_num = 1.5 * (1 + 0.05 / 0.14)
    assert a[0] == pytest.approx(c_num**2, rel=1e-3)
    # and it stays above c (its q -> oo limit: denominator -> c)
    assert np.all(a > c_num)


def test_limits_sqrt_alpha_for_vanishing_and_alpha_for_growing_losses(der):
    import sympy as sp

    s = der.symbols
    assert sp.simplify(der.beta_small_loss.subs(s["B"], 0) - sp.sqrt(s["alpha"])) == 0
    assert sp.simplify(der.beta_large_loss.subs(s["B"], 0) - s["alpha"]) == 0
    # numerically, with the printed eq (2): the paper's example alpha = 2
    lo = x_printed(1e-10, 0.1) / x_printed(2e-10, 0.1)
    hi = x_printed(1e6, 0.1) / x_printed(2e6, 0.1)
    assert lo == pytest.approx(math.sqrt(2), rel=1e-4)  # Green gets ~0.707 of Blue
    assert hi == pytest.approx(2.0, rel=1e-5)  # Green gets ~half of Blue
    assert abe.throughput_ratio(2.0, 1e-10, 0.0, 0.1) == pytest.approx(math.sqrt(2), rel=1e-4)
    # with a boost the limits are divided by 1 + B/tau
    assert abe.throughput_ratio(2.0, 1e-10, 0.05, 0.1) == pytest.approx(math.sqrt(2) / 1.5, rel=1e-4)


def test_delta_and_appendix_a_target(der):
    rng = np.random.default_rng(3)
    b, q, B, tau = 1.5, rng.uniform(1e-4, 1, 50), 0.07, 0.14
    c = b * (1 + B / tau)
    d_ref = 1 + (1 - c) * (q - np.sqrt(q * (q + 2)))  # eq (6) as printed
    np.testing.assert_allclose(abe.delta(b, q, B, tau), d_ref, rtol=1e-12)
    np.testing.assert_allclose(abe.alpha(b, q, B, tau), c**2 / d_ref, rtol=1e-12)
    assert np.all(d_ref >= 1)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("args,match", [
    ((0.9, 0.1, 0.0, 0.1), r"beta_star must be in \[1, inf\)"),
    ((1.5, 0.0, 0.0, 0.1), r"q_blue must be in \(0, 1\]"),
    ((1.5, 1.2, 0.0, 0.1), r"q_blue must be in \(0, 1\]"),
    ((1.5, np.nan, 0.0, 0.1), r"q_blue must be in \(0, 1\]"),
    ((1.5, 0.1, -0.1, 0.1), r"boost must be in \[0, inf\) s"),
    ((1.5, 0.1, 0.0, 0.0), r"rtt must be in \(0, inf\) s"),
    ((1.5, [0.1, -1.0], 0.0, 0.1), r"q_blue .*got -1.0 \(one of 1 bad entries\)"),
])
def test_alpha_rejects_bad_input(args, match):
    with pytest.raises(ScenarioError, match=match):
        abe.alpha(*args)


def test_throughput_rejects_bad_input():
    with pytest.raises(ScenarioError, match=r"abe.throughput: loss must be in \(0, 1\]"):
        abe.throughput(0.0, 0.1)
    with pytest.raises(ScenarioError, match=r"abe.throughput: rtt must be in \(0, inf\)"):
        abe.throughput(0.1, -1.0)
    with pytest.raises(ScenarioTypeError, match="loss must be a real number"):
        abe.throughput("a", 0.1)


def test_throughput_ratio_rejects_green_loss_above_one_and_alpha_below_one():
    with pytest.raises(ScenarioError, match=r"alpha \* q_blue is the Green loss ratio"):
        abe.throughput_ratio(3.0, 0.5, 0.0, 0.1)
    with pytest.raises(ScenarioError, match=r"alpha must be in \[1, inf\)"):
        abe.throughput_ratio(0.5, 0.1, 0.0, 0.1)


@pytest.mark.parametrize("kw,match", [
    ({"beta_star": 0.5}, r"ControlLaw.beta_star must be >= 1"),
    ({"rtt": 0}, r"ControlLaw.rtt must be > 0"),
    ({"k1": 0}, r"ControlLaw.k1 must be > 0"),
    ({"k2": -1}, r"ControlLaw.k2 must be > 0"),
    ({"gamma1": 1.0}, r"ControlLaw.gamma1 must be in \[0, 1\)"),
    ({"gamma2": -0.1}, r"ControlLaw.gamma2 must be >= 0"),
    ({"period": 0}, r"ControlLaw.period must be > 0"),
])
def test_control_law_rejects_bad_parameters(kw, match):
    with pytest.raises(ScenarioError, match=match):
        abe.ControlLaw(**kw)


def test_run_loop_and_fixed_point_reject_bad_input():
    with pytest.raises(ScenarioError, match="periods must be >= 1"):
        abe.run_loop(periods=0, seed=0)
    with pytest.raises(ScenarioError, match=r"q_blue must be a scalar or have one value per period"):
        abe.run_loop(periods=5, q_blue=[0.1, 0.2], seed=0)
    with pytest.raises(ScenarioError, match="packets must be >= 1"):
        abe.run_loop(packets=0, seed=0)
    with pytest.raises(ScenarioError, match=r"bias must be > 0"):
        abe.run_loop(bias=0, seed=0)
    with pytest.raises(ScenarioTypeError, match="law must be a ControlLaw"):
        abe.run_loop("paper", seed=0)
    with pytest.raises(ScenarioError, match="equilibrium Green loss ratio"):
        abe.PAPER_LAW.fixed_point(0.9, 0.1)


# ------------------------------------------------------------------ control law (6)-(7)
def _iterate(law, state, q, B, n, bias=1.0):
    for _ in range(n):
        state = law.closed_loop(state, q, B, bias)
    return state


@pytest.mark.parametrize("k1,k2", [(1.1, 1.1), (2.0, 1.1), (0.5, 2.0)])
def test_fixed_point_is_where_the_map_converges(k1, k2):
    law = abe.ControlLaw(k1=k1, k2=k2)
    q, B, bias = 0.03, 0.06, 1.2
    fp = law.fixed_point(q, B, bias)
    start = abe.LoopState(fp.alpha * 1.3, q * 2, fp.q_green * 0.5, B * 0.2)
    end = _iterate(law, start, q, B, 400, bias)
    np.testing.assert_allclose(end, fp, rtol=1e-9)
    # the loss ratio it settles at: Appendix A's target only when K1 == K2
    c = law.beta_star * (1 + B / law.rtt)
    d = 1 + (1 - c) * (q - math.sqrt(q * (q + 2)))
    assert end.q_green / end.q_blue == pytest.approx(c**2 * d ** (-k2 / k1), rel=1e-9)
    target = abe.alpha(law.beta_star, q, B, law.rtt)
    if k1 == k2:
        assert end.q_green / end.q_blue == pytest.approx(target, rel=1e-9)
    else:
        assert abs(end.q_green / end.q_blue / target - 1) > 1e-3


def test_jacobian_against_finite_differences():
    law = abe.ControlLaw(k1=1.7, k2=0.8, gamma1=0.4, gamma2=0.6)
    q, B, bias = 0.04, 0.08, 0.9
    fp = np.array(law.fixed_point(q, B, bias))
    J = law.jacobian(q, B, bias)
    num = np.zeros((4, 4))
    for j in range(4):
        h = 1e-6 * fp[j]
        up, dn = fp.copy(), fp.copy()
        up[j] += h
        dn[j] -= h
        num[:, j] = (np.array(law.closed_loop(abe.LoopState(*up), q, B, bias))
                     - np.array(law.closed_loop(abe.LoopState(*dn), q, B, bias))) / (2 * h)
    np.testing.assert_allclose(J, num, rtol=1e-6, atol=1e-8)


def test_jacobian_against_sympy():
    import sympy as sp

    law = abe.ControlLaw(k1=1.3, k2=0.7)
    q, B, bias = 0.05, 0.04, 1.0
    a, qb, qg, Bf = sp.symbols("a qb qg Bf", positive=True)
    g1, g2, tau, beta = sp.Rational(3, 10), sp.Rational(1, 2), sp.Rational(14, 100), sp.Rational(3, 2)
    k1, k2 = sp.Rational(13, 10), sp.Rational(7, 10)
    qs, Bs = sp.nsimplify(q), sp.nsimplify(B)
    qb1 = g1 * qb + (1 - g1) * qs
    qg1 = g1 * qg + (1 - g1) * a * qs
    B1 = g2 * Bf + (1 - g2) * Bs
    c = beta * (1 + B1 / tau)
    d = 1 + (1 - c) * (qb1 - sp.sqrt(qb1 * (qb1 + 2)))
    a1 = a * (c**2 * qb1 / qg1) ** k1 * d ** (-k2)
    F = sp.Matrix([a1, qb1, qg1, B1])
    Jsym = F.jacobian([a, qb, qg, Bf])
    fp = law.fixed_point(q, B, bias)
    Jnum = np.array(Jsym.subs({a: fp.alpha, qb: fp.q_blue, qg: fp.q_green, Bf: fp.boost}).evalf(),
                    dtype=float)
    np.testing.assert_allclose(law.jacobian(q, B, bias), Jnum, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("k1", [0.3, 1.1, 2.0, 3.5, 3.9, 5.0])
@pytest.mark.parametrize("k2", [0.5, 1.1, 3.0])
def test_local_stability_against_k1_and_k2_matches_simulation(k1, k2):
    law = abe.ControlLaw(k1=k1, k2=k2)
    q, B = 0.02, 0.05
    st = law.stability(q, B)
    # eigenvalues: gamma1, gamma2 and the roots of l^2 - (1 + g1 - K1 (1 - g1)) l + g1
    g1 = law.gamma1
    roots = np.roots([1, -(1 + g1 - k1 * (1 - g1)), g1])
    expected = np.sort_complex(np.concatenate([roots, [g1, law.gamma2]]))
    np.testing.assert_allclose(np.sort_complex(st.eigenvalues), expected, atol=1e-10)
    assert st.stable == (k1 < st.k1_max)
    # simulate the map from a 1% perturbation of alpha
    fp = st.fixed_point
    state = abe.LoopState(fp.alpha * 1.01, fp.q_blue, fp.q_green, fp.boost)
    devs = []
    for _ in range(60):
        state = law.closed_loop(state, q, B)
        devs.append(abs(math.log(state.alpha / fp.alpha)))
    if st.stable:
        assert devs[-1] < 1e-6
    else:
        assert max(devs[5:]) > 0.1  # grows (then is bounded by the saturated plant): no convergence


def test_k2_moves_the_fixed_point_not_the_eigenvalues():
    base = abe.ControlLaw(k1=1.1, k2=1.1).stability(0.02, 0.05)
    other = abe.ControlLaw(k1=1.1, k2=2.5).stability(0.02, 0.05)
    np.testing.assert_allclose(np.sort_complex(base.eigenvalues),
                               np.sort_complex(other.eigenvalues), atol=1e-12)
    assert other.fixed_point.alpha < base.fixed_point.alpha


def test_noise_free_run_reaches_beta_star_exactly():
    run = abe.run_loop(periods=150, packets=None, q_blue=0.03, boost=0.08, initial_q_blue=0.05,
                       initial_boost=0.05, seed=0)
    assert run.beta[-1] == pytest.approx(1.5, rel=1e-9)
    assert run.ratio[-1] == pytest.approx(run.target_ratio[-1], rel=1e-9)


def test_seeded_synthetic_run_converges_to_the_target_ratio():
    # 20000 packets per class and period: binomial noise on q_b = 0.02 is ~3.5% per sample
    run = abe.run_loop(periods=300, packets=20000, q_blue=0.02, boost=0.05, seed=7)
    target = abe.alpha(1.5, 0.02, 0.05, 0.14)
    assert run.tail_mean("ratio") == pytest.approx(target, rel=0.03)
    assert run.tail_mean("beta") == pytest.approx(1.5, rel=0.02)
    again = abe.run_loop(periods=300, packets=20000, q_blue=0.02, boost=0.05, seed=7)
    np.testing.assert_array_equal(run.alpha, again.alpha)
    other = abe.run_loop(periods=300, packets=20000, q_blue=0.02, boost=0.05, seed=8)
    assert not np.array_equal(run.alpha, other.alpha)


def test_loop_tracks_a_load_step():
    q = np.r_[np.full(100, 0.01), np.full(100, 0.08)]
    run = abe.run_loop(periods=200, packets=None, q_blue=q, boost=0.05, seed=0)
    assert run.alpha[100] == pytest.approx(abe.alpha(1.5, 0.01, 0.05, 0.14), rel=1e-8)
    assert run.alpha[-1] == pytest.approx(abe.alpha(1.5, 0.08, 0.05, 0.14), rel=1e-8)


def test_loop_run_table_and_plot():
    import matplotlib

    matplotlib.use("Agg")
    run = abe.run_loop(periods=20, seed=0)
    df = run.to_pandas()
    assert len(df) == 21 and {"alpha", "ratio", "beta", "target_ratio"} <= set(df.columns)
    assert df.index[-1] == pytest.approx(20 * 0.5)
    assert len(run.plot()) == 2
    assert "LoopRun" in run._repr_html_()
    assert abe.PAPER_LAW.stability(0.02, 0.05).to_pandas().shape == (4, 3)


def test_throughput_ratio_is_appendix_a_first_display():
    # beta* = tau/(tau + B) * q_g (q_b - sqrt(q_b(q_b+2))) / (q_b (q_g - sqrt(q_g(q_g+2))))
    for a, q, B, tau in [(2.0, 0.01, 0.05, 0.14), (3.5, 0.2, 0.0, 0.3), (1.0, 0.5, 0.1, 0.1)]:
        g = a * q
        ref = tau / (tau + B) * g * (q - math.sqrt(q * (q + 2))) / (q * (g - math.sqrt(g * (g + 2))))
        assert abe.throughput_ratio(a, q, B, tau) == pytest.approx(ref, rel=1e-12)


def test_update_refuses_empty_filters():
    law = abe.ControlLaw(gamma1=0.0)
    with pytest.raises(ScenarioError, match="filtered loss ratios must stay > 0"):
        law.update(abe.LoopState(2.0, 0.01, 0.02, 0.05), 0.01, 0.0, 0.05)
