"""The interior-point method's Newton step on the logarithm of the stationarity equation.

References used here, none computed by the code under test:
* the linearised equations the step must satisfy, written out here: ``alpha dx / x + dq / q =
  log(U'(x) / q)`` (the logarithm of ``U'(x) = q`` linearised), ``ds = -R dx`` and
  ``s dp + p ds = r_c``;
* the KKT conditions of max sum U(x) s.t. Rx <= c (``kkt_residuals`` of test_allocate, formulas
  written there);
* weak duality against CVXPY + Clarabel, as in test_allocate;
* the plain Newton method (``_LOG_FORM = False``, the method before this step was added), which
  the fallbacks must reproduce exactly.
"""

import numpy as np
import pytest

from qosmodels import allocate
from qosmodels.allocation import ipm
from qosmodels.allocation.problem import Problem
from qosmodels.topologies import random_network

from .test_allocate import D, U, kkt_residuals


def _problem(n_flows, n_links, seed, weights=(0.5, 4.0)):
    net = random_network(n_flows, n_links, weights=weights, seed=seed)
    return net, Problem.from_network(net)


@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("n_links", [12, 80])  # dense Cholesky, conjugate gradients
def test_log_step_solves_the_linearised_log_equations(alpha, n_links):
    net, prob = _problem(10 * n_links, n_links, seed=3)
    R, RT = prob.R, prob.R.T.tocsr()
    rng = np.random.default_rng(0)
    x = 0.3 * ipm._min_over_route(RT, prob.c / np.asarray(R.sum(axis=1)).ravel())
    s = prob.c - R @ x
    p = rng.uniform(0.1, 2.0, R.shape[0])
    q = RT @ p
    g = (prob.w / x) ** alpha
    d = x / (alpha * q)
    a = (x / alpha) * np.log(g / q)
    system = ipm._NewtonSystem(R, RT)
    system.update(d, s / p)
    r_c = 0.1 * np.mean(p * s) - p * s
    tol = 1e-12 * np.abs(r_c).max()
    dp, dx, ds = ipm._directions(system, RT, R, d, a, q - g, r_c, p, R @ a, tol)
    dq = RT @ dp
    # the logarithm of U'(x) = q, linearised: log g - alpha dx / x = log q + dq / q
    np.testing.assert_allclose(alpha * dx / x + dq / q, np.log(g / q), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(ds, -(R @ dx), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(s * dp + p * ds, r_c, rtol=1e-6, atol=1e-9 * np.abs(r_c).max())


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_kkt_on_random_networks_of_both_linear_solvers(seed, alpha):
    # 40 links or fewer: dense Cholesky; more: conjugate gradients
    n_flows = [60, 200, 400, 900, 1500][seed % 5]
    net = random_network(n_flows, n_flows // [4, 6, 10][seed % 3],
                         weights=(1.0, 1.0) if seed % 2 else (0.1, 10.0), seed=100 + seed)
    a = allocate(net, "alpha", alpha=alpha)
    r = kkt_residuals(a, alpha)
    assert r["primal"] <= 1e-12
    assert r["dual_sign"] <= 0
    assert r["complementarity"] <= 1e-9
    assert r["stationarity"] <= 1e-6
    assert a.duality_gap <= 1e-10


# Clarabel reports "Solution may be inaccurate" on one of these; weak duality still holds.
@pytest.mark.filterwarnings("ignore:Solution may be inaccurate")
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_no_worse_than_cvxpy(seed, alpha):
    net = random_network(300, 40, weights=(0.5, 4.0), seed=200 + seed)
    ex = allocate(net, "alpha", alpha=alpha)
    cv = allocate(net, "alpha", alpha=alpha, solver="cvxpy")
    scale = abs(ex.prices @ net.capacities)
    u_ex, u_cv = U(ex.rates, net.weights, alpha), U(cv.rates, net.weights, alpha)
    assert u_ex <= D(np.maximum(cv.prices, 1e-300), net, alpha) + 1e-7 * scale
    assert (D(ex.prices, net, alpha) - u_ex) / scale <= 1e-9
    assert u_ex >= u_cv - 1e-7 * scale


def test_fewer_iterations_where_rates_must_grow_by_decades(monkeypatch):
    """On random_network(10**4, 10**3) a few flows' optimal rates are 100-300 times their start
    (half the equal share of their tightest link); the plain Newton step raises a rate by at
    most a factor 1 + 1/alpha per iteration, the logarithmic one by about log(U'(x) / q) / alpha.
    Measured at alpha 2: the plain method with Mehrotra's second-order term does not reach the
    gap in 200 iterations there, its retry without the term takes 26; the logarithmic form 10."""
    _, prob = _problem(10_000, 1_000, seed=20240601, weights=(1.0, 1.0))
    log = ipm.solve_alpha_fair(prob, 2.0)
    monkeypatch.setattr(ipm, "_LOG_FORM", False)
    plain = ipm.solve_alpha_fair(prob, 2.0)
    assert log.gap <= 1e-10 and plain.gap <= 1e-10
    assert log.iterations <= 14 < plain.iterations
    np.testing.assert_allclose(log.x, plain.x, rtol=1e-6)


@pytest.mark.parametrize("alpha", [0.5, 2.0])
def test_rejected_log_steps_fall_back_to_the_plain_method(monkeypatch, alpha):
    """Every logarithmic step rejected: each iteration takes the plain step, so the result is
    that of the plain method, bit for bit."""
    _, prob = _problem(2_000, 200, seed=7)
    monkeypatch.setattr(ipm, "_LOG_FORM", False)
    plain = ipm.solve_alpha_fair(prob, alpha)
    monkeypatch.setattr(ipm, "_LOG_FORM", True)
    monkeypatch.setattr(ipm, "_LOG_MIN_STEP", 2.0)  # no step is that long
    fallback = ipm.solve_alpha_fair(prob, alpha)
    assert np.array_equal(fallback.x, plain.x) and np.array_equal(fallback.p, plain.p)
    assert fallback.iterations == plain.iterations


def test_failed_log_run_is_retried_with_the_plain_method(monkeypatch):
    _, prob = _problem(2_000, 200, seed=8)
    monkeypatch.setattr(ipm, "_LOG_FORM", False)
    plain = ipm.solve_alpha_fair(prob, 1.0)
    monkeypatch.setattr(ipm, "_LOG_FORM", True)
    real = ipm._path_following
    calls = []

    def failing_log(*args):
        calls.append(args[-1])
        if args[-1]:  # log_form
            raise ipm.SolverError("forced", status="numerical")
        return real(*args)

    monkeypatch.setattr(ipm, "_path_following", failing_log)
    retried = ipm.solve_alpha_fair(prob, 1.0)
    assert calls == [True, False]
    assert np.array_equal(retried.x, plain.x)


def test_a_logarithmic_step_that_lowers_the_barrier_is_refused():
    """One flow on one link, U = log x: phi = log x + mu log(c - x) has slope 1/x - mu/s at x,
    so a step that lowers the rate from x = 0.5 (slope 2 - 2 mu > 0) descends."""
    x, s = np.array([0.5]), np.array([0.5])
    RT = ipm.sp.csr_matrix(np.ones((1, 1)))
    g, w, mu = 1.0 / x, np.ones(1), 1e-3
    dx = np.array([-0.1])
    assert ipm._rate_step(x, s, dx, -dx, g, RT, w, 1.0, mu, ascent=True) == (None, None, None)
    t, xn, _ = ipm._rate_step(x, s, -dx, dx, g, RT, w, 1.0, mu, ascent=True)
    assert t == pytest.approx(1.0) and xn[0] == pytest.approx(0.6)
