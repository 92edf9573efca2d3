"""Networks as data: Network.to_dict / from_dict, and JSON and YAML files (qosmodels/_codec.py).

The reference is the network itself: what is written and read back must
compare equal to what was built, for every registered topology, every
mechanism spec with non-default fields (the catalogue of the dispatch
tests), and aggregates with edge elements.
"""

from __future__ import annotations

import inspect
import json

import pytest

import qosmodels.mechanisms as M
from qosmodels import Aggregate, Flow, Link, Network, ScenarioError, ScenarioTypeError, topologies
from qosmodels._codec import FORMAT, mechanism_names
from tests.sim.test_dispatch import PACK_CASES

REQUIRED = {"n_flows": 3, "n_links": 3, "n_bottlenecks": 2, "seed": 4}


def registered_networks():
    for name, build in topologies.TOPOLOGIES.items():
        sig = inspect.signature(build)
        yield name, build(**{p: REQUIRED[p] for p, v in sig.parameters.items()
                             if v.default is v.empty})


@pytest.mark.parametrize("name, net", list(registered_networks()))
def test_every_topology_round_trips_through_json(name, net):
    d = net.to_dict()
    back = Network.from_dict(json.loads(json.dumps(d)))
    assert back == net
    assert back.to_dict() == d


def spec_network(spec):
    """A small network holding ``spec`` where it belongs (fields only; it is not simulated)."""
    links = [Link("a", "b", 1e6, 0.01)]
    if isinstance(spec, M.QueueSpec):
        return Network([Link("a", "b", 1e6, 0.01, queue=spec)], [Flow(["a", "b"])])
    if isinstance(spec, M.SourceSpec):
        return Network(links, [Flow(["a", "b"], source=spec)])
    return Network(links, [Flow(["a", "b"], name="x"), Flow(["a", "b"], name="y")],
                   aggregates=[Aggregate("agg", flows=["x", 1], edge=spec)])


@pytest.mark.parametrize("spec", [s for s, _ in PACK_CASES], ids=lambda s: type(s).__name__)
def test_every_mechanism_round_trips_with_its_fields(spec):
    net = spec_network(spec)
    d = json.loads(json.dumps(net.to_dict()))
    back = Network.from_dict(d)
    assert back == net
    held = [x for x in (back.links[0].queue, back.flows[0].source,
                        back.aggregates[0].edge if back.aggregates else None) if type(x) is type(spec)]
    assert held == [spec]


def test_the_catalogue_covers_every_mechanism():
    assert set(mechanism_names()) == {type(s).__name__ for s, _ in PACK_CASES}
    assert {"DropTail", "Red", "TcpNewReno", "AggregateBucket"} <= set(mechanism_names())
    assert not {"Spec", "SourceSpec"} & set(mechanism_names())


def test_yaml_and_json_files(tmp_path):
    pytest.importorskip("yaml")
    net = spec_network(M.AggregateBucket(rate=8e5, depth=3e4))  # peak_rate = inf
    for suffix in (".json", ".yaml"):
        path = net.save(tmp_path / f"scenario{suffix}")
        assert Network.load(path) == net
    text = (tmp_path / "scenario.json").read_text()
    assert '"type": "AggregateBucket"' in text and "Infinity" in text
    assert ".inf" in (tmp_path / "scenario.yaml").read_text()


def test_the_layout_is_documented_plain_data():
    d = Network([Link("a", "b", 2e6, 0.005, buffer=30, queue=M.Red(min_th=3, max_th=9))],
                [Flow(["a", "b"], weight=2.0, name="web")]).to_dict()
    assert d["format"] == FORMAT
    assert d["links"][0]["queue"]["type"] == "Red" and d["links"][0]["queue"]["min_th"] == 3
    assert d["links"][0]["capacity"] == 2e6 and d["links"][0]["buffer"] == 30
    flow = d["flows"][0]
    assert flow["route"] == ["a", "b"] and flow["name"] == "web"
    assert flow["source"]["type"] == "TcpNewReno" and "max_window" in flow["source"]


def base():
    return Network([Link("a", "b", 1e6, 0.01)], [Flow(["a", "b"])]).to_dict()


def edited(path, value):
    d = base()
    target = d
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return d


@pytest.mark.parametrize("data, error, match", [
    ([1], ScenarioTypeError, "from_dict takes a dict"),
    (edited(("format",), 99), ScenarioError, "format 99 is not supported"),
    (edited(("colour",), 1), ScenarioError, r"unknown key\(s\) \['colour'\]"),
    (edited(("links",), KeyError), ScenarioError, "no 'links'"),
    (edited(("links",), {"a": 1}), ScenarioTypeError, "'links' must be a list"),
    (edited(("links", 0, "bandwidth"), 5), ScenarioError,
     r"links\[0\] has unknown field\(s\) \['bandwidth'\]; Link takes buffer, capacity"),
    (edited(("links", 0, "capacity"), -1), ScenarioError, "capacity must be > 0"),
    (edited(("links", 0, "queue"), {"type": "Fifo"}), ScenarioError,
     r"links\[0\].queue has type 'Fifo', which is not a mechanism; mechanisms are .*DropTail"),
    (edited(("links", 0, "queue"), {"type": "Red", "min_th": 20, "maxth": 3}), ScenarioError,
     r"unknown field\(s\) \['maxth'\]; Red takes"),
    (edited(("flows", 0, "route"), ["a", "c"]), ScenarioError, "unknown node 'c'"),
    (edited(("flows", 0), "a->b"), ScenarioTypeError, r"flows\[0\] must be a dict of fields"),
])
def test_bad_data_is_refused_with_the_place_named(data, error, match):
    with pytest.raises(error, match=match):
        Network.from_dict(data)


def test_bad_files(tmp_path):
    with pytest.raises(ScenarioError, match="no scenario file"):
        Network.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{links: ")
    with pytest.raises(ScenarioError, match="bad.json: not valid JSON"):
        Network.load(tmp_path / "bad.json")
    (tmp_path / "neg.json").write_text(json.dumps(edited(("links", 0, "delay"), -1.0)))
    with pytest.raises(ScenarioError, match=r"neg.json: .*delay must be >= 0"):
        Network.load(tmp_path / "neg.json")
