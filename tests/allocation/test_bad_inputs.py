"""allocate with inputs at and beyond the range the solvers hold: each is refused up front
naming the input, or answered correctly (checked against closed forms), and a solver failure
names the inputs and what to try.

References, none computed by the code under test: a single link's max-min share C/n; the
two-link parking lot under alpha-fairness, where KKT gives x_long / x_short = 2**(-1/alpha)
and x_long + x_short = C; a hand-worked weighted max-min on two links.
"""

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, ScenarioError, SolverError, allocate
from qosmodels.allocation import MIN_EXACT_ALPHA
from qosmodels.topologies import parking_lot


def test_subnormal_link_weights_are_refused_naming_link_weights():
    # used to return infinite rates with status "optimal"
    net = parking_lot(2)
    with pytest.raises(ScenarioError, match=r"link_weights\[0, 0\] .* must be between 1e-100 and "
                                            r"1e\+100, got 1e-320"):
        allocate(net, "maxmin", link_weights=np.full((2, 3), 1e-320))
    with pytest.raises(ScenarioError, match=r"link_weights\[.*must be between"):
        allocate(net, "maxmin", link_weights=np.full((2, 3), 1e101))


@pytest.mark.parametrize("scale", [1e-100, 1e-90, 1.0, 1e90, 1e100])
def test_link_weights_at_the_ends_of_their_range_give_the_single_link_share(scale):
    n, c = 4, 7e6
    net = Network([Link("a", "b", c)], [Flow(["a", "b"]) for _ in range(n)])
    a = allocate(net, "maxmin", link_weights=np.full((1, n), scale))
    np.testing.assert_allclose(a.rates, c / n, rtol=1e-12)
    assert np.all(np.isfinite(a.rates))


@pytest.mark.parametrize("w", [1e-11, 1e-15, 1e-100])
def test_maxmin_with_weights_far_apart(w):
    # flow A (weight 1) is held to 1 Mb/s by a->b; flow B (weight w) gets the rest of
    # b->c, 100 - 1 = 99 Mb/s.  (At w = 1e-15 this raised "found flows on no link", at
    # 1e-11 it was 8e-8 off.)
    net = Network([Link("a", "b", 1e6), Link("b", "c", 1e8)],
                  [Flow(["a", "b", "c"]), Flow(["b", "c"], weight=w)])
    np.testing.assert_allclose(allocate(net, "maxmin").rates, [1e6, 99e6], rtol=1e-14)


@pytest.mark.parametrize("alpha", [1e-9, 1e-3, 0.0199])
def test_alpha_below_the_exact_solvers_range_is_refused_naming_alpha(alpha):
    # alpha=1e-9 used to fail inside the solver ("line search failed to make progress")
    with pytest.raises(ScenarioError, match=rf"alpha={alpha!r} is below 0\.02.*max-throughput"):
        allocate(parking_lot(2), "alpha", alpha=alpha)


@pytest.mark.parametrize("alpha", [MIN_EXACT_ALPHA, 0.05, 0.2])
def test_small_alpha_in_range_matches_the_parking_lot_kkt_solution(alpha):
    c = 10e6
    a = allocate(parking_lot(2, capacity=c), "alpha", alpha=alpha)
    short = c / (1 + 2.0 ** (-1 / alpha))
    np.testing.assert_allclose(a.rates, [c - short, short, short], rtol=1e-6, atol=1e-9 * c)


@pytest.mark.parametrize("max_iter", [0, -3, 2.5, True, "10"])
def test_max_iter_is_checked(max_iter):
    with pytest.raises(ScenarioError, match=r"max_iter must be an integer >= 1 or None"):
        allocate(parking_lot(2), max_iter=max_iter)


def test_solver_failure_names_the_inputs_and_what_to_try():
    net = parking_lot(2).replace_flow(0, max_rate=1e3)  # caps span 1e3 .. 1e7 bit/s
    with pytest.raises(SolverError, match=r"allocate\(fairness='alpha', alpha=0\.5, "
                                          r"solver='auto'\) failed: .*span a factor 1e\+04.*"
                                          r"a larger max_iter \(got 1\)") as err:
        allocate(net, "alpha", alpha=0.5, max_iter=1)
    assert err.value.status == "max_iterations"


def test_tiny_max_rate_is_refused_when_the_flow_is_built():
    # max_rate=1e-300 used to fail in the solver ("Newton system is not positive definite")
    with pytest.raises(ScenarioError, match=r"Flow\.max_rate must be between 0\.001"):
        parking_lot(2).replace_flow(0, max_rate=1e-300)


def test_cvxpy_with_a_huge_alpha_is_a_solver_error_naming_alpha():
    # CVXPY's rational approximation of x**(1 - 2048) divided by zero (tests/fuzz found it)
    from qosmodels import SolverError, allocate, topologies

    net = topologies.random_network(1, 2, seed=0, capacity=(1e3, 1e4))
    with pytest.raises(SolverError, match=r"alpha=2048.0, solver='cvxpy'\) failed: .*try "
                                          r"solver='exact'"):
        allocate(net, "alpha", alpha=2048.0, solver="cvxpy")
