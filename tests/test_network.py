"""The network model: validation rules (one test each), derived arrays, what-ifs, conversions."""

import math

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import Cbr, DropTail, TcpReno
from qosmodels.units import Mbps, ms


def chain(n=2, **kw):
    return [Link(f"r{j}", f"r{j + 1}", capacity=Mbps(10), delay=ms(5), **kw) for j in range(n)]


# --------------------------------------------------------------------------- Link rules
@pytest.mark.parametrize("field,value,match", [
    ("buffer", 2**64, r"Link\.buffer must be <= 1000000000 \(in packets\), got 18446744073709551616"),
    ("buffer", 10**9 + 1, r"Link\.buffer must be <= 1000000000"),
    ("capacity", 1e-320, r"Link\.capacity must be between 0\.001 and 1e\+18 bit/s, got 1e-320"),
    ("capacity", 1e19, r"Link\.capacity must be between .* got 1e\+19"),
    ("delay", 1e7, r"Link\.delay must be <= 1000000\.0 \(in s\)"),
])
def test_link_numbers_must_fit_what_the_library_can_hold(field, value, match):
    # Link('a', 'b', 1e6, buffer=2**64) used to be accepted and overflow int64 later
    kw = {"capacity": 1e6, field: value}
    with pytest.raises(ScenarioError, match=match):
        Link("a", "b", **kw)


def test_link_range_limits_are_inclusive():
    link = Link("a", "b", capacity=1e18, delay=1e6, buffer=10**9)
    assert Network([link], [Flow(["a", "b"])]).buffers[0] == 10**9
    assert Link("a", "b", capacity=1e-3).capacity == 1e-3


def test_link_buffer_type_is_checked():
    with pytest.raises(ScenarioTypeError, match=r"Link\.buffer must be an integer"):
        Link("a", "b", 1e6, buffer="100")


@pytest.mark.parametrize("field,value,match", [
    ("weight", 1e-320, r"Flow\.weight must be between 1e-100 and 1e\+100, got 1e-320"),
    ("weight", 1e101, r"Flow\.weight must be between"),
    ("max_rate", 1e-300, r"Flow\.max_rate must be between 0\.001 and 1e\+18 bit/s"),
    ("max_rate", math.inf, r"Flow\.max_rate must be finite"),
    ("packet_size", 10**6 + 1, r"Flow\.packet_size must be <= 1000000 \(in bytes\)"),
    ("start", 1e13, r"Flow\.start must be <= 1000000000000\.0"),
    ("stop", 1e13, r"Flow\.stop must be <= 1000000000000\.0"),
])
def test_flow_numbers_must_fit_what_the_library_can_hold(field, value, match):
    with pytest.raises(ScenarioError, match=match):
        Flow(["a", "b"], **{field: value})


def test_flow_packet_size_from_its_source_is_checked_too():
    with pytest.raises(ScenarioError, match=r"Flow\.packet_size \(from its source\) must be <= "
                                            r"1000000"):
        Flow(["a", "b"], source=Cbr(rate=1e6, packet_size=10**7))


def test_link_change_numbers_are_bounded():
    from qosmodels import LinkChange

    with pytest.raises(ScenarioError, match=r"LinkChange\.delay must be <= 1000000\.0"):
        LinkChange(1.0, "a->b", delay=1e7)
    with pytest.raises(ScenarioError, match=r"LinkChange\.time must be <= "):
        LinkChange(1e13, "a->b", delay=0.1)


@pytest.mark.parametrize("cap", [0, -1.0])
def test_link_capacity_must_be_positive(cap):
    with pytest.raises(ScenarioError, match=r"Link\.capacity must be > 0.*bit/s"):
        Link("a", "b", capacity=cap)


def test_link_delay_must_be_non_negative():
    with pytest.raises(ScenarioError, match=r"Link\.delay must be >= 0.*got -0\.001"):
        Link("a", "b", capacity=1e6, delay=-0.001)


def test_link_buffer_must_be_at_least_one():
    with pytest.raises(ScenarioError, match=r"Link\.buffer must be >= 1.*packets"):
        Link("a", "b", capacity=1e6, buffer=0)


def test_link_buffer_must_be_whole():
    with pytest.raises(ScenarioError, match=r"Link\.buffer must be a whole number"):
        Link("a", "b", capacity=1e6, buffer=2.5)


@pytest.mark.parametrize("field,value", [("capacity", math.nan), ("capacity", math.inf),
                                         ("delay", math.nan), ("delay", math.inf),
                                         ("buffer", math.inf)])
def test_link_rejects_nan_and_infinity(field, value):
    kw = {"capacity": 1e6, field: value}
    with pytest.raises(ScenarioError, match=rf"Link\.{field} must be finite"):
        Link("a", "b", **kw)


def test_link_rejects_self_loop():
    with pytest.raises(ScenarioError, match="self-loop at node 'a'"):
        Link("a", "a", capacity=1e6)


def test_link_rejects_wrong_types():
    with pytest.raises(ScenarioTypeError, match=r"Link\.capacity must be a real number"):
        Link("a", "b", capacity="10Mbps")
    with pytest.raises(ScenarioTypeError, match=r"Link\.queue must be a queue discipline spec"):
        Link("a", "b", capacity=1e6, queue="red")
    with pytest.raises(TypeError):  # ScenarioTypeError is also a TypeError
        Link("a", None, capacity=1e6)


def test_link_is_frozen_and_normalises_names():
    link = Link(1, 2, capacity=5)
    assert link.key == ("1", "2") and link.name == "1->2" and link.capacity == 5.0
    assert isinstance(link.queue, DropTail)
    with pytest.raises(AttributeError):
        link.capacity = 3


# --------------------------------------------------------------------------- Flow rules
@pytest.mark.parametrize("route", [[], ["a"]])
def test_flow_route_needs_two_nodes(route):
    with pytest.raises(ScenarioError, match="at least two nodes"):
        Flow(route=route)


def test_flow_route_must_not_loop():
    with pytest.raises(ScenarioError, match="must not visit a node twice.*'a'"):
        Flow(route=["a", "b", "a"])


def test_flow_route_must_be_a_sequence():
    with pytest.raises(ScenarioTypeError, match="sequence of node names"):
        Flow(route="abc")


@pytest.mark.parametrize("w", [0, -2.0])
def test_flow_weight_must_be_positive(w):
    with pytest.raises(ScenarioError, match=r"Flow\.weight must be > 0"):
        Flow(route=["a", "b"], weight=w)


@pytest.mark.parametrize("size", [0, -1])
def test_flow_packet_size_must_be_positive(size):
    with pytest.raises(ScenarioError, match=r"Flow\.packet_size must be >= 1.*bytes"):
        Flow(route=["a", "b"], packet_size=size)


def test_flow_packet_size_must_agree_with_its_sources():
    with pytest.raises(ScenarioError, match=r"Flow.packet_size = 500 bytes differs from its "
                                            r"source's packet_size = 1500"):
        Flow(["a", "b"], packet_size=500, source=Cbr(packet_size=1500))


def test_flow_stop_must_follow_start():
    with pytest.raises(ScenarioError, match=r"Flow\.stop must be later than Flow\.start = 5\.0"):
        Flow(route=["a", "b"], start=5.0, stop=5.0)


def test_flow_start_must_be_non_negative():
    with pytest.raises(ScenarioError, match=r"Flow\.start must be >= 0"):
        Flow(route=["a", "b"], start=-1)


@pytest.mark.parametrize("field", ["weight", "start", "stop", "max_rate"])
def test_flow_rejects_nan(field):
    with pytest.raises(ScenarioError, match=rf"Flow\.{field} must be finite"):
        Flow(route=["a", "b"], **{field: math.nan})


def test_flow_max_rate_must_be_positive():
    with pytest.raises(ScenarioError, match=r"Flow\.max_rate must be > 0"):
        Flow(route=["a", "b"], max_rate=0)


def test_flow_source_type_and_reno_validation():
    with pytest.raises(ScenarioTypeError, match=r"Flow\.source must be a source spec"):
        Flow(route=["a", "b"], source="reno")
    with pytest.raises(ScenarioError, match=r"TcpReno\.max_window must be >= 1"):
        TcpReno(max_window=0)


# --------------------------------------------------------------------------- Network rules
def test_network_unknown_node():
    with pytest.raises(ScenarioError, match="unknown node 'x'"):
        Network(links=chain(), flows=[Flow(route=["r0", "x"])])


def test_network_route_must_follow_declared_links():
    with pytest.raises(ScenarioError, match="not a path of declared links: there is no link r0->r2"):
        Network(links=chain(), flows=[Flow(route=["r0", "r2"])])


def test_network_route_direction_matters():
    with pytest.raises(ScenarioError, match="no link r1->r0"):
        Network(links=chain(), flows=[Flow(route=["r1", "r0"])])


def test_network_repeated_link():
    with pytest.raises(ScenarioError, match=r"repeats link r0->r1 \(already links\[0\]\)"):
        Network(links=chain() + [Link("r0", "r1", capacity=1e6)], flows=[])


def test_network_needs_links():
    with pytest.raises(ScenarioError, match="at least one Link"):
        Network(links=[], flows=[])


def test_network_flow_names_unique():
    with pytest.raises(ScenarioError, match="name 'x' is used by another flow"):
        Network(links=chain(), flows=[Flow(route=["r0", "r1"], name="x"),
                                      Flow(route=["r1", "r2"], name="x")])


def test_network_element_types():
    with pytest.raises(ScenarioTypeError, match=r"Network\.links\[0\] must be a Link"):
        Network(links=[("a", "b")])
    with pytest.raises(ScenarioTypeError, match=r"Network\.flows\[0\] must be a Flow"):
        Network(links=chain(), flows=[["r0", "r1"]])


# --------------------------------------------------------------------------- derived arrays
def test_routing_matrix_and_route_order():
    links = chain(3)
    net = Network(links=links, flows=[Flow(route=["r0", "r1", "r2", "r3"]),
                                      Flow(route=["r1", "r2"]), Flow(route=["r2", "r3"])])
    R = net.routing_matrix
    assert R.format == "csr" and R.shape == (3, 3)
    np.testing.assert_array_equal(R.toarray(), [[1, 0, 0], [1, 1, 0], [1, 0, 1]])
    np.testing.assert_array_equal(net.route_ptr, [0, 3, 4, 5])
    np.testing.assert_array_equal(net.route_links, [0, 1, 2, 1, 2])
    np.testing.assert_array_equal(net.flow_links(1), [1])
    assert net.flow_names == ("f0", "f1", "f2")
    with pytest.raises(ValueError):
        net.capacities[0] = 1.0  # read-only


def test_delays_without_reverse_links_mirror_forward_path():
    links = [Link("a", "b", 1e6, delay=0.010), Link("b", "c", 1e6, delay=0.002)]
    net = Network(links=links, flows=[Flow(route=["a", "b", "c"])])
    assert net.forward_delay[0] == pytest.approx(0.012)
    assert net.reverse_delay[0] == pytest.approx(0.012)
    assert net.rtt[0] == pytest.approx(0.024)
    np.testing.assert_array_equal(net.reverse_route_links, [-1, -1])


def test_declared_reverse_links_are_used():
    links = [Link("a", "b", 1e6, delay=0.010), Link("b", "c", 1e6, delay=0.002),
             Link("c", "b", 1e6, delay=0.030)]
    net = Network(links=links, flows=[Flow(route=["a", "b", "c"])])
    np.testing.assert_array_equal(net.reverse_route_links, [-1, 2])
    # reverse: c->b declared (30 ms), b->a undeclared (mirrors a->b, 10 ms)
    assert net.reverse_delay[0] == pytest.approx(0.040)
    assert net.rtt[0] == pytest.approx(0.052)


def test_max_rates_and_weights():
    net = Network(links=chain(1), flows=[Flow(route=["r0", "r1"], weight=2, max_rate=1e5),
                                         Flow(route=["r0", "r1"])])
    np.testing.assert_array_equal(net.weights, [2.0, 1.0])
    assert net.max_rates[0] == 1e5 and np.isinf(net.max_rates[1])


# --------------------------------------------------------------------------- what-ifs
def test_replace_and_replace_link_revalidate_and_leave_original():
    net = Network(links=chain(2), flows=[Flow(route=["r0", "r1", "r2"])])
    faster = net.replace_link("r0->r1", capacity=Mbps(20))
    assert faster.capacities[0] == Mbps(20) and net.capacities[0] == Mbps(10)
    assert faster.replace_link(("r1", "r2"), delay=0.1).delays[1] == 0.1
    with pytest.raises(ScenarioError, match=r"Link\.capacity must be > 0"):
        net.replace_link(0, capacity=-1)
    with pytest.raises(ScenarioError, match="no link 'r5->r6'"):
        net.replace_link("r5->r6", capacity=1)
    heavier = net.replace_flow("f0", weight=3.0)
    assert heavier.weights[0] == 3.0 and net.weights[0] == 1.0
    with pytest.raises(ScenarioError, match="not a path"):
        net.replace(flows=[Flow(route=["r0", "r2"])])


# --------------------------------------------------------------------------- conversions
def test_networkx_round_trip():
    net = Network(links=chain(2, buffer=7), flows=[Flow(route=["r0", "r1", "r2"], weight=2)])
    g = net.to_networkx()
    assert g.edges["r0", "r1"]["capacity"] == Mbps(10) and g.edges["r0", "r1"]["buffer"] == 7
    back = Network.from_networkx(g)
    assert back == net


def test_from_networkx_undirected_and_missing_capacity():
    import networkx as nx

    g = nx.Graph()
    g.add_edge("a", "b", capacity=1e6, delay=0.01)
    net = Network.from_networkx(g, flows=[Flow(route=["b", "a"])])
    assert set(net.link_names) == {"a->b", "b->a"}
    g.add_edge("b", "c")
    with pytest.raises(ScenarioError, match="no 'capacity' attribute"):
        Network.from_networkx(g)


def test_to_pandas_tables():
    net = Network(links=chain(2), flows=[Flow(route=["r0", "r1", "r2"], name="long")])
    links, flows = net.to_pandas()
    assert list(links.index) == ["r0->r1", "r1->r2"]
    assert flows.loc["long", "rtt_s"] == pytest.approx(0.02)
    assert "Links" in net._repr_html_()
