"""Fair allocation: closed forms, KKT conditions, weak duality against CVXPY, max-min
characterisation, properties.

References used here, none computed by the code under test:
* parking-lot closed forms (Kelly 1997): proportional long c/(m+N), short cN/(m+N);
  max-min c/(m+1);
* the ACC paper's Figure 9 values 100/(3+N), 100N/(3+N) Mb/s;
* the KKT conditions of max sum U(x) s.t. Rx <= c, evaluated with formulas written here;
* weak duality: U(x) <= D(p) for any feasible x and any p >= 0, across the two solvers;
* the bottleneck characterisation of weighted max-min (Bertsekas & Gallager, 6.5.2).
"""

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qosmodels import Flow, Link, Network, ScenarioError, SolverError, allocate
from qosmodels.topologies import acc_linear, parking_lot, random_network
from qosmodels.units import Mbps

C = Mbps(10)


# --------------------------------------------------------------------------- helpers
def U(x, w, alpha):
    """Weighted alpha-fair utility, written out independently of the package."""
    if alpha == 1:
        return np.sum(w * np.log(x))
    return np.sum(w**alpha * x ** (1 - alpha) / (1 - alpha))


def D(p, net, alpha):
    """Lagrange dual value: sum_i max_x [U_i(x) - q_i x] + p.c."""
    q = net.routing_matrix.T @ p
    w = net.weights
    x = w * q ** (-1 / alpha)
    return U(x, w, alpha) - q @ x + p @ net.capacities


def kkt_residuals(a, alpha):
    net = a.network
    x, p, c = a.rates, a.prices, net.capacities
    R = net.routing_matrix
    load = R @ x
    q = R.T @ p
    marginal = (net.weights / x) ** alpha
    return {
        "primal": np.max((load - c) / c),
        "dual_sign": -np.min(p) / np.max(p),
        "stationarity": np.max(np.abs(q - marginal) / marginal),
        "complementarity": np.max(p * (c - load)) / (p @ c),
    }


def maxmin_violations(net, x, weights=None):
    """Flows with no saturated link on which their x_i / w_i is the largest."""
    R = net.routing_matrix.toarray()
    w = net.weights if weights is None else weights
    load = R @ x
    sat = load >= net.capacities * (1 - 1e-9)
    bad = []
    for i in range(net.n_flows):
        ok = False
        for l in np.flatnonzero(R[:, i]):
            on = np.flatnonzero(R[l])
            wl = w[on] if weights is None or weights.ndim == 1 else weights[l, on]
            wi = w[i] if weights is None or weights.ndim == 1 else weights[l, i]
            if sat[l] and x[i] / wi >= np.max(x[on] / wl) * (1 - 1e-9):
                ok = True
        if not ok:
            bad.append(i)
    return bad


# --------------------------------------------------------------------------- closed forms
@pytest.mark.parametrize("m,n", [(1, 1), (1, 2), (1, 5), (2, 3), (3, 9)])
@pytest.mark.parametrize("solver", ["exact", "cvxpy"])
def test_parking_lot_proportional_closed_form(m, n, solver):
    a = allocate(parking_lot(n, C, n_long=m), "proportional", solver=solver)
    # CVXPY's own accuracy: a 1e-9 objective gap leaves rates ~1e-4 off between flows the
    # objective barely tells apart; the exact solver also asks for first-order stationarity.
    rtol = 1e-9 if solver == "exact" else 1e-3
    np.testing.assert_allclose(a.rates[:m], C / (m + n), rtol=rtol)
    np.testing.assert_allclose(a.rates[m:], C * n / (m + n), rtol=rtol)
    # prices: x_short = 1 / p  =>  p = (m + n) / (c n) on every link
    np.testing.assert_allclose(a.prices, (m + n) / (C * n), rtol=max(rtol, 1e-7))


@pytest.mark.parametrize("m,n", [(1, 1), (1, 4), (2, 3), (3, 9)])
def test_parking_lot_maxmin_closed_form(m, n):
    a = allocate(parking_lot(n, C, n_long=m), "maxmin")
    np.testing.assert_allclose(a.rates, C / (m + 1), rtol=1e-12)
    assert a.solver == "progressive-filling" and a.duality_gap == 0.0
    assert np.all(np.isnan(a.prices))
    assert all(len(b) >= 1 for b in a.bottlenecks)


@pytest.mark.parametrize("n", range(2, 10))
def test_acc_figure9_table(n):
    """Xia et al., ACC, Fig. 9(b): long flows 100/(3+N), short 100N/(3+N) Mb/s."""
    a = allocate(acc_linear(n))
    np.testing.assert_allclose(a.rates[:3] / 1e6, 100 / (3 + n), rtol=1e-9)
    np.testing.assert_allclose(a.rates[3:] / 1e6, 100 * n / (3 + n), rtol=1e-9)


def test_prices_are_queueing_delays_with_acc_targets():
    """With weights = accumulation targets in bits, x_i = a_i / q_i: prices are seconds and the
    queue that each link holds (price x capacity) adds up to the targets (Little's law)."""
    target = 3000 * 8
    net = acc_linear(4)
    net = net.replace(flows=[dataclasses.replace(f, weight=target) for f in net.flows])
    a = allocate(net)
    q = net.routing_matrix.T @ a.prices
    np.testing.assert_allclose(a.rates * q, target, rtol=1e-9)  # each flow's accumulation
    np.testing.assert_allclose(np.sum(a.prices * net.capacities), target * net.n_flows, rtol=1e-9)


def test_weights_scale_shares_on_one_link():
    net = Network(links=[Link("a", "b", capacity=6e6)],
                  flows=[Flow(route=["a", "b"], weight=w) for w in (1, 2, 3)])
    for fairness, alpha in [("proportional", None), ("alpha", 0.5), ("alpha", 4), ("maxmin", None)]:
        a = allocate(net, fairness, alpha=alpha)
        np.testing.assert_allclose(a.rates, [1e6, 2e6, 3e6], rtol=1e-9)


def test_max_rate_caps_a_flow_and_others_take_the_rest():
    net = Network(links=[Link("a", "b", capacity=10e6)],
                  flows=[Flow(route=["a", "b"], max_rate=1e6), Flow(route=["a", "b"]),
                         Flow(route=["a", "b"])])
    for fairness in ["proportional", "maxmin"]:
        a = allocate(net, fairness)
        np.testing.assert_allclose(a.rates, [1e6, 4.5e6, 4.5e6], rtol=1e-9)


def test_max_throughput_starves_the_long_flow():
    for solver in ["exact", "cvxpy"]:
        a = allocate(parking_lot(3, C), "max-throughput", solver=solver)
        np.testing.assert_allclose(a.rates / C, [0, 1, 1, 1], atol=1e-6)
        assert a.duality_gap < 1e-6


# --------------------------------------------------------------------------- KKT
@pytest.mark.parametrize("alpha", [0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0])
def test_kkt_on_parking_lot(alpha):
    a = allocate(parking_lot(3, C, n_long=2), "alpha", alpha=alpha)
    r = kkt_residuals(a, alpha)
    assert r["primal"] <= 1e-12
    assert r["dual_sign"] <= 0
    assert r["stationarity"] <= 1e-6
    assert r["complementarity"] <= 1e-9
    assert a.duality_gap <= 1e-9 and a.status == "optimal"


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_kkt_on_random_networks(seed, alpha):
    net = random_network(150, 20, weights=(0.5, 4.0), seed=seed)
    a = allocate(net, "alpha", alpha=alpha)
    r = kkt_residuals(a, alpha)
    assert r["primal"] <= 1e-12
    assert r["complementarity"] <= 1e-9
    assert r["stationarity"] <= 1e-4
    assert a.duality_gap <= 1e-9


# --------------------------------------------------------------------------- CVXPY agreement
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_agreement_with_cvxpy_by_weak_duality(seed, alpha):
    """Each solver's rates are feasible and no better than the other's dual bound, and the
    exact solver is at least as good as CVXPY to within CVXPY's own certified gap."""
    net = random_network(120, 15, weights=(0.5, 4.0), seed=seed)
    ex = allocate(net, "alpha", alpha=alpha, solver="exact")
    cv = allocate(net, "alpha", alpha=alpha, solver="cvxpy")
    c = net.capacities
    for a in (ex, cv):
        assert np.all(net.routing_matrix @ a.rates <= c * (1 + 1e-9))
    scale = abs(ex.prices @ c)
    u_ex, u_cv = U(ex.rates, net.weights, alpha), U(cv.rates, net.weights, alpha)
    d_ex, d_cv = D(ex.prices, net, alpha), D(np.maximum(cv.prices, 1e-300), net, alpha)
    assert u_ex <= d_cv + 1e-7 * scale  # weak duality across solvers
    assert u_cv <= d_ex + 1e-7 * scale
    assert (d_ex - u_ex) / scale <= 1e-8  # the exact solver's certificate, recomputed here
    assert u_ex >= u_cv - 1e-7 * scale  # exact is at least as good as CVXPY
    if cv.status == "optimal" and cv.duality_gap < 1e-6:
        share = cv.rates / cv.rates.sum()
        assert np.sum(share * np.abs(ex.rates - cv.rates) / cv.rates) < 1e-2


# --------------------------------------------------------------------------- max-min
@pytest.mark.parametrize("seed", range(6))
def test_maxmin_bottleneck_characterisation_on_random_networks(seed):
    net = random_network(80, 12, weights=(0.5, 3.0), seed=seed)
    a = allocate(net, "maxmin")
    assert np.all(net.routing_matrix @ a.rates <= net.capacities * (1 + 1e-12))
    assert maxmin_violations(net, a.rates) == []


@pytest.mark.parametrize("seed", [0, 3])
def test_alpha_fair_approaches_maxmin_as_alpha_grows(seed):
    net = random_network(40, 8, weights=(1.0, 2.0), seed=seed)
    mm = allocate(net, "maxmin").rates
    dist = [np.max(np.abs(allocate(net, "alpha", alpha=al).rates - mm) / mm) for al in (1, 2, 5)]
    assert dist[0] > dist[1] > dist[2]
    assert dist[2] < 0.02


def test_maxmin_with_per_link_weights_hand_example():
    # A crosses l1 (weight 1) and l2 (weight 3); B only l1 (weight 1); C only l2 (weight 1).
    # l1 (2 Mb/s) is the tightest link of both its flows: A = B = 1 Mb/s; C takes the rest of l2.
    links = [Link("a", "b", capacity=2e6), Link("b", "c", capacity=4e6)]
    flows = [Flow(route=["a", "b", "c"], name="A"), Flow(route=["a", "b"], name="B"),
             Flow(route=["b", "c"], name="C")]
    net = Network(links, flows)
    W = np.array([[1.0, 1.0, 0.0], [3.0, 0.0, 1.0]])
    a = allocate(net, "maxmin", link_weights=W)
    np.testing.assert_allclose(a.rates, [1e6, 1e6, 3e6], rtol=1e-12)
    assert maxmin_violations(net, a.rates, W) == []


def test_per_link_weights_equal_to_flow_weights_give_weighted_maxmin():
    net = random_network(60, 10, weights=(0.5, 3.0), seed=11)
    W = net.routing_matrix.toarray() * net.weights[None, :]
    np.testing.assert_allclose(allocate(net, "maxmin", link_weights=W).rates,
                               allocate(net, "maxmin").rates, rtol=1e-10)


def test_per_link_weights_not_unique_is_reported():
    # A and B share both links but rank them oppositely: any split of a saturated pair works.
    links = [Link("a", "b", capacity=1e6), Link("b", "c", capacity=1e6)]
    flows = [Flow(route=["a", "b", "c"]), Flow(route=["a", "b", "c"])]
    W = np.array([[1.0, 3.0], [3.0, 1.0]])
    with pytest.raises(SolverError, match="not unique") as err:
        allocate(Network(links, flows), "maxmin", link_weights=W)
    assert err.value.status == "not_unique"


def test_per_link_weights_validation():
    net = parking_lot(2)
    with pytest.raises(ScenarioError, match=r"link_weights must have shape \(2, 3\)"):
        allocate(net, "maxmin", link_weights=np.ones((3, 3)))
    W = net.routing_matrix.toarray()
    W[0, 0] = -1
    with pytest.raises(ScenarioError, match=r"link_weights\[0, 0\].*must be finite and > 0"):
        allocate(net, "maxmin", link_weights=W)
    with pytest.raises(ScenarioError, match="link_weights applies to fairness='maxmin' only"):
        allocate(net, "proportional", link_weights=W)


# --------------------------------------------------------------------------- properties
networks = st.builds(
    random_network,
    n_flows=st.integers(1, 40),
    n_links=st.integers(2, 12),
    max_hops=st.integers(1, 5),
    weights=st.just((0.5, 3.0)),
    seed=st.integers(0, 2**32 - 1),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(net=networks, fairness=st.sampled_from(["proportional", "alpha2", "maxmin"]))
def test_rates_are_feasible(net, fairness):
    kw = {"fairness": "alpha", "alpha": 2.0} if fairness == "alpha2" else {"fairness": fairness}
    a = allocate(net, **kw)
    assert np.all(a.rates > 0)
    assert np.all(net.routing_matrix @ a.rates <= net.capacities * (1 + 1e-9))
    # every flow crosses at least one saturated link (Pareto efficiency)
    assert all(len(b) >= 1 for b in a.bottlenecks)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(net=networks, k=st.floats(1e-3, 1e3),
       fairness=st.sampled_from(["proportional", "alpha2", "maxmin"]))
def test_scaling_capacities_scales_rates(net, k, fairness):
    kw = {"fairness": "alpha", "alpha": 2.0} if fairness == "alpha2" else {"fairness": fairness}
    scaled = net.replace(links=[dataclasses.replace(link, capacity=link.capacity * k)
                                for link in net.links])
    np.testing.assert_allclose(allocate(scaled, **kw).rates, k * allocate(net, **kw).rates,
                               rtol=1e-6)


# --------------------------------------------------------------------------- result object
def test_allocation_result_views():
    a = allocate(parking_lot(2, C))
    flows = a.to_pandas()
    assert list(flows.columns) == ["rate_bps", "weight", "route", "bottlenecks"]
    assert flows.loc["long0", "bottlenecks"] == "r0->r1, r1->r2"
    links = a.to_pandas("links")
    np.testing.assert_allclose(links["utilisation"], 1.0)
    assert a.rate("long0") == pytest.approx(C / 3) and a.price("r0->r1") > 0
    assert "<table" in a._repr_html_() and "proportional" in repr(a)
    with pytest.raises(ScenarioError, match="kind must be"):
        a.to_pandas("nodes")
    with pytest.raises(ValueError):
        a.rates[0] = 0


def test_allocation_plot():
    import matplotlib

    matplotlib.use("Agg")
    ax = allocate(parking_lot(2, C)).plot()
    assert len(ax) == 2 and ax[0].get_ylabel() == "rate (Mb/s)"
    assert ax[1].get_ylabel() == "price (weight per bit/s)"  # its unit (issue 38)
    ax = allocate(parking_lot(2, C), "alpha", alpha=2.0).plot()
    assert ax[1].get_ylabel() == "price ((weight per bit/s)^2)"
    ax = allocate(parking_lot(2, C), "maxmin").plot()
    assert ax[1].get_ylabel() == "utilisation"


# --------------------------------------------------------------------------- bad input
def test_allocate_bad_input():
    net = parking_lot(2)
    with pytest.raises(ScenarioError, match="fairness must be one of"):
        allocate(net, "fair")
    with pytest.raises(ScenarioError, match="solver must be one of"):
        allocate(net, solver="gurobi")
    with pytest.raises(ScenarioError, match="needs alpha"):
        allocate(net, "alpha")
    with pytest.raises(ScenarioError, match="alpha must be finite and > 0"):
        allocate(net, "alpha", alpha=0)
    with pytest.raises(ScenarioError, match="alpha must be finite and > 0.*maxmin"):
        allocate(net, "alpha", alpha=float("inf"))
    with pytest.raises(ScenarioError, match="alpha must be None or 1 for fairness='proportional'"):
        allocate(net, "proportional", alpha=2)
    with pytest.raises(ScenarioError, match="alpha applies to fairness='alpha' only"):
        allocate(net, "maxmin", alpha=2)
    with pytest.raises(ScenarioError, match="progressive filling"):
        allocate(net, "maxmin", solver="cvxpy")
    with pytest.raises(ScenarioError, match="nothing to allocate"):
        allocate(Network(links=[Link("a", "b", capacity=1)]))
    with pytest.raises(TypeError, match="must be a qosmodels.Network"):
        allocate("parking-lot")


def test_solver_failure_raises_solver_error_with_status():
    with pytest.raises(SolverError) as err:
        allocate(parking_lot(3, C), "alpha", alpha=2, max_iter=2)
    assert err.value.status == "max_iterations"
