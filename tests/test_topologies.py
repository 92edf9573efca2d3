"""Generic topology builders."""

import numpy as np
import pytest

from qosmodels import ScenarioError
from qosmodels.topologies import TOPOLOGIES, dumbbell, parking_lot, random_network, topology


def test_dumbbell_structure_and_rtts():
    net = dumbbell(3, capacity=1e6, delay=0.01, access_delay=[0.001, 0.002, 0.003])
    assert net.n_flows == 3 and net.capacities[0] == 1e6
    np.testing.assert_allclose(net.rtt, 2 * (0.01 + np.array([0.001, 0.002, 0.003])))
    rev = dumbbell(2, reverse=True)
    assert rev.n_links == 2 * dumbbell(2).n_links and np.all(rev.reverse_route_links >= 0)
    with pytest.raises(ScenarioError, match="access_delay must have 3 entries"):
        dumbbell(3, access_delay=[0.1])


def test_parking_lot_structure():
    net = parking_lot(3, n_long=2, n_short=[1, 0, 2])
    assert net.flow_names == ("long0", "long1", "short0_0", "short2_0", "short2_1")
    np.testing.assert_array_equal(net.routing_matrix.sum(axis=1).A.ravel(), [3, 2, 4])
    with pytest.raises(ScenarioError, match="needs at least one flow"):
        parking_lot(2, n_long=0, n_short=0)
    with pytest.raises(ScenarioError, match=r"parking_lot\.n_links must be >= 1"):
        parking_lot(0)


def test_random_network_is_reproducible_and_valid():
    a, b = random_network(50, 9, seed=4), random_network(50, 9, seed=4)
    assert a == b and a != random_network(50, 9, seed=5)
    hops = np.diff(a.route_ptr)
    assert hops.min() >= 1 and hops.max() <= 5
    with pytest.raises(ScenarioError, match=r"random_network\.n_links must be >= 2"):
        random_network(5, 1)


def test_registry_lookup():
    assert topology("parking-lot", n_links=2).n_links == 2
    assert set(TOPOLOGIES) >= {"dumbbell", "parking-lot", "acc-linear", "random"}
    with pytest.raises(ScenarioError, match="unknown topology"):
        topology("mesh")
