"""Fuzz: allocate on random networks with any criterion, alpha and weights.

Each call either raises a ScenarioError naming the argument, a SolverError saying what to
try, or returns an allocation that is finite, feasible (no link over its capacity, no
flow over its cap) and the same when asked again.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from qosmodels import allocate, topologies
from qosmodels.errors import ScenarioError, SolverError

from .strategies import FUZZ, nasty_floats


@st.composite
def network(draw):
    seed = draw(st.integers(0, 2**31))
    n_flows, n_links = draw(st.integers(1, 8)), draw(st.integers(2, 6))
    lo = draw(st.sampled_from([1e3, 1e6, 1e9]))
    return topologies.random_network(n_flows, n_links, seed=seed, capacity=(lo, 10 * lo))


@FUZZ
@given(net=network(), fairness=st.sampled_from(["proportional", "alpha", "maxmin",
                                               "max-throughput"]),
       alpha=st.one_of(st.none(), nasty_floats, st.floats(0.05, 20)),
       solver=st.sampled_from(["auto", "exact", "cvxpy"]))
def test_allocate(net, fairness, alpha, solver):
    try:
        a = allocate(net, fairness, alpha=alpha, solver=solver)
    except ScenarioError as e:
        assert "alpha" in str(e) or "solver" in str(e) or "fairness" in str(e), str(e)
        return
    except SolverError as e:
        assert len(str(e)) > 30, str(e)
        return
    x = np.asarray(a.rates)
    assert np.all(np.isfinite(x)) and np.all(x >= 0)
    load = net.routing_matrix @ x
    assert np.all(load <= net.capacities * (1 + 1e-6) + 1e-6)
    b = allocate(net, fairness, alpha=alpha, solver=solver)
    np.testing.assert_array_equal(a.rates, b.rates)


@FUZZ
@given(net=network(), w=st.one_of(nasty_floats, st.floats(1e-3, 1e3)))
def test_maxmin_link_weights(net, w):
    weights = np.full((net.n_links, net.n_flows), w)
    try:
        a = allocate(net, "maxmin", link_weights=weights)
    except ScenarioError as e:
        assert "link_weights" in str(e), str(e)
        return
    x = np.asarray(a.rates)
    assert np.all(np.isfinite(x)) and np.all(x >= 0)
