"""Aggregates of flows in the network description (qosmodels.network.Aggregate)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from qosmodels import Aggregate, Flow, Link, Network, ScenarioError, simulate
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import EdgeSpec, Red

LINKS = [Link("s", "r", 1e6, 0.01), Link("r", "d", 1e6, 0.01), Link("t", "r", 1e6, 0.01)]
FLOWS = [Flow(["s", "r", "d"], name="x"), Flow(["s", "r"], name="y"), Flow(["t", "r", "d"])]


@dataclasses.dataclass(frozen=True)
class NoKernelEdge(EdgeSpec):
    kind = "test-edge"
    kernel = "edges.none"


def test_members_by_index_and_name_and_lookup():
    net = Network(LINKS, FLOWS, aggregates=[Aggregate("a", flows=["x", 1]),
                                            Aggregate("b", flows=(2,))])
    assert net.aggregate_members("a") == (0, 1) and net.aggregate_members(1) == (2,)
    assert net.n_aggregates == 2 and "2 aggregates" in repr(net)
    assert net.replace(links=net.links).aggregates == net.aggregates
    with pytest.raises(ScenarioError, match=r"no aggregate 'c'.*\['a', 'b'\]"):
        net.aggregate_members("c")
    with pytest.raises(ScenarioError, match=r"not a name or an index in 0\.\.1"):
        net.aggregate_members(2)


@pytest.mark.parametrize("make, err, match", [
    (lambda: Aggregate("", flows=[0]), ScenarioTypeError, r"Aggregate\.name must be a non-empty str"),
    (lambda: Aggregate("a", flows=[]), ScenarioError, r"'a': flows must name at least one flow"),
    (lambda: Aggregate("a", flows="x"), ScenarioTypeError, r"flows must be a sequence"),
    (lambda: Aggregate("a", flows=[0, 0]), ScenarioError, r"repeat a flow"),
    (lambda: Aggregate("a", flows=[-1]), ScenarioError, r"flow index -1 is negative"),
    (lambda: Aggregate("a", flows=[True]), ScenarioTypeError, r"an index \(int\) or a name"),
    (lambda: Aggregate("a", flows=[0], edge=Red()), ScenarioTypeError,
     r"edge must be an edge element spec"),
])
def test_bad_aggregates_name_the_field(make, err, match):
    with pytest.raises(err, match=match):
        make()


@pytest.mark.parametrize("aggs, match", [
    ([Aggregate("a", flows=["z"])], r"'a': no flow named 'z'; flows are \['x', 'y', 'f2'\]"),
    ([Aggregate("a", flows=[3])], r"flow index 3 is out of range 0\.\.2"),
    ([Aggregate("a", flows=[0, "x"])], r"name one flow twice"),
    ([Aggregate("a", flows=[0, 2])], r"enter the network at different nodes \['s', 't'\]"),
    ([Aggregate("a", flows=[0]), Aggregate("a", flows=[1])], r"aggregate names must be unique"),
    ([Aggregate("a", flows=[0], edge=NoKernelEdge()), Aggregate("b", flows=[0, 1],
                                                                 edge=NoKernelEdge())],
     r"flow 'x' is already behind the edge element of aggregate 'a'"),
    (Aggregate("a", flows=[0]), r"Network\.aggregates must be a sequence of Aggregate"),
])
def test_bad_aggregates_in_a_network(aggs, match):
    with pytest.raises((ScenarioError, ScenarioTypeError), match=match):
        Network(LINKS, FLOWS, aggregates=aggs)


def test_a_descriptive_aggregate_changes_no_packet():
    plain = Network(LINKS, FLOWS)
    grouped = Network(LINKS, FLOWS, aggregates=[Aggregate("a", flows=[0, 1])])
    a = simulate(plain, 3.0, seed=4, progress=False)
    b = simulate(grouped, 3.0, seed=4, progress=False)
    np.testing.assert_array_equal(a.throughput, b.throughput)
    assert a.events == b.events


def test_an_edge_element_the_simulator_cannot_run_is_refused_before_running():
    net = Network(LINKS, FLOWS, aggregates=[Aggregate("a", flows=[0], edge=NoKernelEdge())])
    with pytest.raises(ScenarioTypeError, match=r"NoKernelEdge names no simulator kernel "
                                                r"\(kernel = 'edges.none'\)"):
        simulate(net, 1.0, seed=0, progress=False)
