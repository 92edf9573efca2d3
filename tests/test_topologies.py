"""Generic topology builders."""

import numpy as np
import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
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
        random_network(5, 1, seed=0)


def test_registry_lookup():
    assert topology("parking-lot", n_links=2).n_links == 2
    assert set(TOPOLOGIES) >= {"dumbbell", "parking-lot", "acc-linear", "random"}
    with pytest.raises(ScenarioError, match="unknown topology"):
        topology("mesh")


# --------------------------------------------------------------------------- bad arguments
@pytest.fixture
def one_gib_budget(monkeypatch):
    from qosmodels import budget

    old = budget.set_memory_budget("1G")
    yield
    budget.set_memory_budget(old)


@pytest.mark.parametrize("build,match", [
    # random_network(5, 10**9) used to raise a bare MemoryError
    (lambda T: T.random_network(5, 10**9, seed=0), r"random_network would need about .* n_links=1000000000"),
    (lambda T: T.random_network(10**9, 10, seed=0), r"random_network .* n_flows=1000000000"),
    (lambda T: T.dumbbell(10**8), r"dumbbell .* n_flows=100000000"),
    (lambda T: T.parking_lot(10**8), r"parking_lot .* n_links=100000000"),
    (lambda T: T.parking_lot(10**4, n_long=10**4), r"parking_lot .* n_long=10000"),
    (lambda T: T.parking_lot(2, n_short=10**8), r"parking_lot .* n_short"),
    (lambda T: T.acc_linear(10**8), r"acc_linear .* n_bottlenecks=100000000"),
    (lambda T: T.pps_ten_flow(n_flows=10**8), r"pps_ten_flow .* n_flows=100000000"),
    (lambda T: T.abe_dumbbell(n_green=10**8), r"abe_dumbbell .* n_green=100000000"),
    (lambda T: T.aggregate_rate_control(connections_per_client=10**8),
     r"aggregate_rate_control .* connections_per_client"),
])
def test_builders_refuse_networks_over_the_memory_budget(one_gib_budget, build, match):
    from qosmodels import topologies
    from qosmodels.errors import BudgetError

    with pytest.raises(BudgetError, match=match):
        build(topologies)


@pytest.mark.parametrize("seed", [0, 7, np.int64(7), np.random.SeedSequence(7),
                                  np.random.default_rng(7)])
def test_random_network_takes_the_seeds_simulate_takes(seed):
    net = random_network(6, 5, seed=seed)
    assert net.n_flows == 6 and net.n_links == 5
    if isinstance(seed, (int, np.integer)):
        assert net == random_network(6, 5, seed=int(seed))


@pytest.mark.parametrize("seed,err", [(-1, ScenarioError), (1.5, ScenarioTypeError),
                                      ("1", ScenarioTypeError), (True, ScenarioTypeError),
                                      (None, ScenarioTypeError)])
def test_random_network_refuses_other_seeds(seed, err):
    with pytest.raises(err, match=r"random_network\.seed must be a non-negative int, a numpy "
                                  r"SeedSequence or Generator"):
        random_network(3, 4, seed=seed)


def test_random_network_needs_a_seed_as_simulate_does():
    with pytest.raises(TypeError, match="seed"):
        random_network(3, 4)


@pytest.mark.parametrize("kwargs,err,match", [
    ({"capacity": 3}, ScenarioTypeError, r"random_network\.capacity must be a range"),
    ({"capacity": (1e6, float("nan"))}, ScenarioError, r"random_network\.capacity\[1\] must be finite"),
    ({"capacity": (2e6, 1e6)}, ScenarioError, r"random_network\.capacity must be a range .* low <= high"),
    ({"delay": (-1, 0.1)}, ScenarioError, r"random_network\.delay\[0\] must be >= 0"),
    ({"weights": (0, 1)}, ScenarioError, r"random_network\.weights\[0\] must be > 0"),
    ({"max_hops": 0}, ScenarioError, r"random_network\.max_hops must be >= 1"),
    ({"max_hops": 2**64}, ScenarioError, r"random_network\.max_hops must be <= 1000000000"),
    ({"n_flows": 2.5}, ScenarioError, r"random_network\.n_flows must be a whole number"),
    ({"n_flows": "3"}, ScenarioTypeError, r"random_network\.n_flows must be an integer"),
])
def test_random_network_validates_its_arguments(kwargs, err, match):
    args = {"n_flows": 3, "n_links": 4, "seed": 0, **kwargs}
    with pytest.raises(err, match=match):
        random_network(**args)


@pytest.mark.parametrize("build,err,match", [
    (lambda: dumbbell(2, capacity=1e30), ScenarioError, r"dumbbell\.capacity must be between"),
    (lambda: dumbbell(2, reverse="yes"), ScenarioTypeError, r"dumbbell\.reverse must be True or False"),
    (lambda: dumbbell(2, buffer=2**64), ScenarioError, r"dumbbell\.buffer must be <= 1000000000"),
    (lambda: dumbbell(2, weights=[1, float("inf")]), ScenarioError, r"dumbbell\.weights\[1\] must be finite"),
    (lambda: dumbbell(2, access_delay=-0.1), ScenarioError, r"dumbbell\.access_delay must be >= 0"),
    (lambda: dumbbell(2, packet_size=0), ScenarioError, r"dumbbell\.packet_size must be >= 1"),
    (lambda: parking_lot(2, capacity=[1e6, -1]), ScenarioError, r"parking_lot\.capacity\[1\] must be > 0"),
    (lambda: parking_lot(2, n_short=[1, -1]), ScenarioError, r"parking_lot\.n_short\[1\] must be >= 0"),
    (lambda: parking_lot(2, long_weight=float("nan")), ScenarioError, r"parking_lot\.long_weight must be finite"),
    (lambda: parking_lot(2, delay=1e7), ScenarioError, r"parking_lot\.delay must be <= 1000000"),
])
def test_generic_builders_name_their_own_parameters(build, err, match):
    with pytest.raises(err, match=match):
        build()


def test_checked_builders_keep_their_networks():
    # validation converts values but builds the same networks as before
    assert random_network(50, 9, seed=4) == random_network(50, 9, seed=np.int64(4))
    assert dumbbell(2, weights=[1, 2]).weights.tolist() == [1.0, 2.0]
    assert parking_lot(2, capacity=np.array([1e6, 2e6])).capacities.tolist() == [1e6, 2e6]
