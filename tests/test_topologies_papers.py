"""The papers' topologies: structure, round-trip times and hand-computed fair shares.

Expected rates are checked against a small weighted max-min water-filling
written here (an independent reference; ``qosmodels.allocate`` is not used).
"""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.mechanisms import AbeQueue, Rap, Red, TcpFriendly, TcpReno
from qosmodels.topologies import (
    TOPOLOGIES,
    abe_dumbbell,
    aggregate_rate_control,
    pps_multi_hop,
    pps_multiple_bottleneck,
    pps_one_hop,
    pps_ten_flow,
    topology,
)
from qosmodels.units import Mbps, kbps, ms


def weighted_maxmin(net) -> np.ndarray:
    """Ticket-weighted max-min rates (bit/s) by progressive filling, respecting max_rate."""
    r = net.routing_matrix.toarray()
    c, w, cap = net.capacities, net.weights, net.max_rates
    x = np.zeros(net.n_flows)
    frozen = np.zeros(net.n_flows, dtype=bool)
    while not frozen.all():
        live = ~frozen
        slack = c - r @ x
        wsum = r[:, live] @ w[live]
        used = wsum > 0
        steps = list(slack[used] / wsum[used]) + list((cap[live] - x[live]) / w[live])
        dt = min(steps)
        x[live] += w[live] * dt
        full = np.isclose(c - r @ x, 0.0, atol=1e-6 * c.max()) & used
        frozen |= (r[full].sum(axis=0) > 0) | np.isclose(x, cap)
    return x


def rates(net) -> dict[str, float]:
    return dict(zip(net.flow_names, weighted_maxmin(net)))


def cap_of(net, link) -> float:
    return float(net.capacities[net.link_id(link)])


# ------------------------------------------------------------------ registry
@pytest.mark.parametrize(
    "name, builder",
    [
        ("pps-one-hop", pps_one_hop),
        ("pps-multi-hop", pps_multi_hop),
        ("pps-multiple-bottleneck", pps_multiple_bottleneck),
        ("pps-ten-flow", pps_ten_flow),
        ("abe-dumbbell", abe_dumbbell),
        ("aggregate-rate-control", aggregate_rate_control),
    ],
)
def test_registered_under_kebab_case_name(name, builder):
    assert TOPOLOGIES[name] is builder
    assert topology(name).n_flows == builder().n_flows


# ------------------------------------------------------------------ PPS Figure 4
def test_pps_one_hop_structure():
    net = pps_one_hop()
    assert net.n_flows == 9
    assert net.flow_names == tuple(f"flow{k}" for k in range(1, 10))
    assert net.weights.tolist() == [100.0 * k for k in range(1, 10)]
    assert cap_of(net, "r0->r1") == Mbps(1.5)
    assert (net.routing_matrix.toarray()[net.link_id("r0->r1")] == 1).all()
    np.testing.assert_array_equal(net.rtt, np.full(9, ms(26)))


def test_pps_one_hop_expected_rates_proportional_to_tickets():
    x = weighted_maxmin(pps_one_hop())
    np.testing.assert_allclose(x, [Mbps(1.5) * k / 45 for k in range(1, 10)], rtol=1e-9)


def test_pps_one_hop_section_3_7_rtts_and_bottleneck_delay():
    rtts = [ms(300)] + [ms(30)] * 8
    np.testing.assert_array_equal(pps_one_hop(rtt=rtts).rtt, rtts)
    net = pps_one_hop(rtt=rtts, delay=ms(7))
    np.testing.assert_allclose(net.rtt, rtts, rtol=2**-52, atol=0)
    assert net.delays[net.link_id("r0->r1")] == ms(7)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"tickets": ()}, "tickets must be a non-empty sequence"),
        ({"tickets": (100, -5)}, r"tickets must be > 0"),
        ({"rtt": [ms(26)] * 3}, "rtt must have 9 entries"),
        ({"rtt": ms(10), "delay": ms(6)}, "shorter than the round trip over the shared link"),
        ({"capacity": 0}, r"pps_one_hop\.capacity must be > 0"),
    ],
)
def test_pps_one_hop_bad_parameters(kwargs, match):
    with pytest.raises(ScenarioError, match=match):
        pps_one_hop(**kwargs)


# ------------------------------------------------------------------ PPS Figure 6
def test_pps_multi_hop_structure():
    net = pps_multi_hop()
    assert net.flow_names == ("A", "B", "C")
    assert [f.route for f in net.flows] == [
        ("S0", "S3", "S5", "S6"), ("S1", "S3", "S5", "S6"), ("S2", "S4", "S5", "S6")
    ]
    assert set(net.link_names) == {"S0->S3", "S1->S3", "S2->S4", "S3->S5", "S4->S5", "S5->S6"}
    assert cap_of(net, "S5->S6") == Mbps(1)
    # Section 3.2: tickets converted to 600, 300 and 300 t/s in S5's currency
    assert net.weights.tolist() == pytest.approx([600, 300, 300])


def test_pps_multi_hop_table_1_expected_rates():
    r = rates(pps_multi_hop())
    assert r["A"] == pytest.approx(Mbps(0.5))
    assert r["B"] == pytest.approx(Mbps(0.25))
    assert r["C"] == pytest.approx(Mbps(0.25))


def test_pps_multi_hop_section_3_3_only_b_and_c_active():
    net = pps_multi_hop(active=("B", "C"))
    assert net.flow_names == ("B", "C")
    assert net.weights.tolist() == pytest.approx([900, 300])
    r = rates(net)
    assert (r["B"], r["C"]) == pytest.approx((Mbps(0.75), Mbps(0.25)))


def test_pps_multi_hop_section_3_4_new_tickets():
    net = pps_multi_hop(link_tickets={"S0->S3": 600, ("S1", "S3"): 900})
    assert net.weights.tolist() == pytest.approx([360, 540, 300])
    r = rates(net)
    assert (r["A"], r["B"], r["C"]) == pytest.approx((Mbps(0.3), Mbps(0.45), Mbps(0.25)))


def test_pps_multi_hop_table_2_b_limited_to_160_kbps():
    r = rates(pps_multi_hop().replace_flow("B", max_rate=kbps(160)))
    assert (r["A"], r["B"], r["C"]) == pytest.approx((Mbps(0.56), Mbps(0.16), Mbps(0.28)))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"active": ("A", "D")}, "active must name each of the flows"),
        ({"active": ()}, "active must name each of the flows"),
        ({"active": ("A", "A")}, "active must name each of the flows"),
        ({"active": "AB"}, "active must be a sequence"),
        ({"link_tickets": {"S5->S6": 10}}, "not issued tickets in this topology"),
        ({"link_tickets": {"S0->S3": 0}}, r"link_tickets\['S0->S3'\] must be > 0"),
        ({"link_tickets": [("S0->S3", 5)]}, "link_tickets must be a mapping"),
    ],
)
def test_pps_multi_hop_bad_parameters(kwargs, match):
    with pytest.raises(ScenarioError, match=match):
        pps_multi_hop(**kwargs)


# ------------------------------------------------------------------ PPS Figure 9
def test_pps_multiple_bottleneck_structure():
    net = pps_multiple_bottleneck()
    assert net.flow_names == ("A", "B", "C")
    assert net.flows[0].route == ("S0", "S3", "S5", "S6", "S8")
    assert net.flows[1].route == ("S1", "S3", "S5", "S6", "S7")
    assert net.flows[2].route == ("S2", "S4", "S5", "S6", "S8")
    assert cap_of(net, "S3->S5") == Mbps(2)
    assert cap_of(net, "S4->S5") == Mbps(1)
    # tickets in S6's currency: 1000 t/s of S0->S3 and S2->S4 become 600 and 300
    assert net.weights.tolist() == pytest.approx([600, 300, 300])


@pytest.mark.parametrize(
    "scenario, c67, c68, expected",
    [
        (1, 1, 10, (4 / 3, 2 / 3, 1.0)),   # Table 3
        (2, 10, 1, (2 / 3, 4 / 3, 1 / 3)),  # Table 4
        (3, 1, 1, (2 / 3, 1.0, 1 / 3)),    # Table 5
    ],
)
def test_pps_multiple_bottleneck_tables_3_to_5(scenario, c67, c68, expected):
    net = pps_multiple_bottleneck(scenario)
    assert cap_of(net, "S6->S7") == Mbps(c67)
    assert cap_of(net, "S6->S8") == Mbps(c68)
    r = rates(net)
    assert (r["A"], r["B"], r["C"]) == pytest.approx(tuple(Mbps(e) for e in expected))


def test_pps_multiple_bottleneck_overrides():
    net = pps_multiple_bottleneck(2, s6_s8_capacity=Mbps(3))
    assert cap_of(net, "S6->S8") == Mbps(3)
    assert cap_of(net, "S6->S7") == Mbps(10)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"scenario": 4}, "scenario must be 1, 2 or 3"),
        ({"scenario": 1.5}, "scenario must be a whole number"),
        ({"link_tickets": {"S6->S7": 1}}, "not issued tickets"),
    ],
)
def test_pps_multiple_bottleneck_bad_parameters(kwargs, match):
    with pytest.raises(ScenarioError, match=match):
        pps_multiple_bottleneck(**kwargs)


# ------------------------------------------------------------------ PPS Figure 10
def test_pps_ten_flow_structure_and_fair_share():
    net = pps_ten_flow()
    assert net.n_flows == 10
    assert net.flow_names == tuple(f"flow{k}" for k in range(1, 11))
    assert (net.weights == 200).all()
    assert cap_of(net, "r0->r1") == Mbps(1.0)
    np.testing.assert_array_equal(net.rtt, np.full(10, ms(30)))
    np.testing.assert_allclose(weighted_maxmin(net), Mbps(0.1), rtol=1e-9)


def test_pps_ten_flow_varied_rtts_match_table_6():
    net = pps_ten_flow("varied")
    assert sorted(net.rtt.tolist()) == pytest.approx([ms(30 * k) for k in range(1, 11)])
    assert net.rtt.min() == pytest.approx(ms(30)) and net.rtt.max() == pytest.approx(ms(300))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"rtt": "random"}, "or 'varied'"),
        ({"n_flows": 0}, "n_flows must be >= 1"),
        ({"tickets": [200] * 3}, "tickets must have 10 entries"),
        ({"rtt": [ms(30)] * 9}, "rtt must have 10 entries"),
    ],
)
def test_pps_ten_flow_bad_parameters(kwargs, match):
    with pytest.raises(ScenarioError, match=match):
        pps_ten_flow(**kwargs)


# ------------------------------------------------------------------ ABE Figure 5
def test_abe_dumbbell_structure():
    net = abe_dumbbell()
    assert net.n_flows == 30
    assert net.flow_names == tuple(f"green{i}" for i in range(15)) + tuple(
        f"blue{i}" for i in range(15)
    )
    bottleneck = net.link_id("r1->r2")
    assert net.buffers[bottleneck] == 50
    assert (net.routing_matrix.toarray()[bottleneck] == 1).all()
    # tau_e = 0.14 s "corresponds to the propagation delay of all sources"
    np.testing.assert_array_equal(net.rtt, np.full(30, 0.14))
    assert (net.weights == 1).all()
    # the paper's sources: Green rate-based TCP-friendly (Green), Blue TCP Reno (Blue)
    assert [f.source.kind for f in net.flows] == ["tcp-friendly"] * 15 + ["reno"] * 15
    assert [f.source.green for f in net.flows] == [True] * 15 + [False] * 15
    # the Green source by default: TFRC rated by the paper's eq (2)
    assert net.flows[0].source == TcpFriendly() and TcpFriendly().equation == "eq2"
    assert net.links[bottleneck].queue == AbeQueue()  # the Section IV-B router
    # equal weights on one bottleneck: everyone gets capacity / 30
    np.testing.assert_allclose(weighted_maxmin(net), net.capacities[bottleneck] / 30)


def test_abe_dumbbell_parameters():
    net = abe_dumbbell(n_green=1, n_blue=0, capacity=Mbps(10), rtt=0.2, delay=ms(20))
    assert net.flow_names == ("green0",)
    assert cap_of(net, "r1->r2") == Mbps(10)
    np.testing.assert_array_equal(net.rtt, [0.2])
    # a queue that does not read colours: Green by name only
    net = abe_dumbbell(1, 1, queue=Red())
    assert [f.source.green for f in net.flows] == [False, False]
    assert net.flows[0].source.kind == "tcp-friendly"
    net = abe_dumbbell(1, 1, green_source=TcpReno(), blue_source=TcpFriendly())
    assert [(f.source.kind, f.source.green) for f in net.flows] == [
        ("reno", True), ("tcp-friendly", False)]


@pytest.mark.parametrize("name, source", [
    ("tfrc", TcpFriendly(equation="rfc5348")), ("tfrc-eq2", TcpFriendly()),
    ("tfrc-ratio", TcpFriendly(loss="packets", equation="rfc5348")),
    ("tfrc-eq2-ratio", TcpFriendly(loss="packets")),
    ("reno", TcpReno(green=True)), ("rap", Rap(green=True)), (None, TcpFriendly())])
def test_abe_dumbbell_green_source_by_name(name, source):
    net = abe_dumbbell(2, 1, green_source=name)
    assert [f.source for f in net.flows[:2]] == [source, source]
    assert net.flows[2].source == TcpReno()


def test_abe_dumbbell_unknown_green_source_name():
    with pytest.raises(ScenarioError, match=r"abe_dumbbell.green_source must be one of "
                                            r"\['rap', 'reno', 'tfrc', 'tfrc-eq2', "
                                            r"'tfrc-eq2-ratio', 'tfrc-ratio'\] .* got 'rfc5348'"):
        abe_dumbbell(green_source="rfc5348")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_green": 0, "n_blue": 0}, "needs at least one flow"),
        ({"n_blue": -1}, "n_blue must be >= 0"),
        ({"rtt": 0.1, "delay": 0.06}, "shorter than the round trip"),
        ({"rtt": 0}, r"rtt must be > 0"),
    ],
)
def test_abe_dumbbell_bad_parameters(kwargs, match):
    with pytest.raises(ScenarioError, match=match):
        abe_dumbbell(**kwargs)


@pytest.mark.parametrize("kwargs", [{"queue": "abe"}, {"green_source": Red()},
                                    {"blue_source": None, "green_source": 3}])
def test_abe_dumbbell_bad_specs(kwargs):
    with pytest.raises(ScenarioTypeError, match="abe_dumbbell"):
        abe_dumbbell(**kwargs)


# ------------------------------------------------------------------ aggregate rate control
def test_aggregate_rate_control_equal_bandwidth():
    net = aggregate_rate_control()
    assert net.flow_names == ("c0_0", "c1_0", "c2_0", "c3_0")
    np.testing.assert_array_equal(net.rtt, [0.05, 0.3, 0.3, 0.6])
    for i in range(4):
        assert cap_of(net, f"P->C{i}") == kbps(500)
        assert net.flows[i].route == ("S", "P", f"C{i}")
    # the access link S->P is the bottleneck: every connection gets an equal share of it
    access = net.link_id("S->P")
    assert (net.routing_matrix.toarray()[access] == 1).all()
    np.testing.assert_allclose(weighted_maxmin(net), net.capacities[access] / 4)


def test_aggregate_rate_control_unequal_bandwidth():
    net = aggregate_rate_control("unequal")
    assert [cap_of(net, f"P->C{i}") for i in range(4)] == [
        kbps(1000), kbps(500), kbps(500), kbps(100)
    ]
    x = weighted_maxmin(net)
    access = cap_of(net, "S->P")
    # the 100 kb/s client is capped; the rest share what is left of the access link
    assert x[3] == pytest.approx(kbps(100))
    np.testing.assert_allclose(x[:3], (access - kbps(100)) / 3)


def test_aggregate_rate_control_rtt_with_access_delay():
    rtts = (0.05, 0.3, 0.3, 0.6)
    for a in (ms(1), ms(7), ms(13), 0.025):
        net = aggregate_rate_control(rtts=rtts, access_delay=a)
        np.testing.assert_allclose(net.rtt, rtts, rtol=2**-52, atol=0)
        assert net.delays[net.link_id("S->P")] == a


def test_aggregate_rate_control_three_clients_two_connections():
    net = aggregate_rate_control(
        "unequal", rtts=(0.05, 0.3, 0.6), connections_per_client=(1, 2, 1)
    )
    assert net.flow_names == ("c0_0", "c1_0", "c1_1", "c2_0")
    np.testing.assert_array_equal(net.rtt, [0.05, 0.3, 0.3, 0.6])
    assert [cap_of(net, f"P->C{i}") for i in range(3)] == [kbps(1000), kbps(500), kbps(100)]


def test_aggregate_rate_control_explicit_capacities():
    net = aggregate_rate_control(kbps(1000), access_capacity=Mbps(1.5))
    assert cap_of(net, "S->P") == Mbps(1.5)
    assert all(cap_of(net, f"P->C{i}") == kbps(1000) for i in range(4))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"rtts": ()}, "rtts must be a non-empty sequence"),
        ({"client_capacities": "fast"}, "must be 'equal', 'unequal'"),
        ({"client_capacities": "unequal", "rtts": (0.05, 0.1)}, "RTT 0.1 s has no pair"),
        ({"client_capacities": (kbps(500),) * 3}, "client_capacities must have 4 entries"),
        ({"connections_per_client": 0}, "connections_per_client must be >= 1"),
        ({"connections_per_client": (1, 2)}, "connections_per_client must have 4 entries"),
        ({"access_delay": 0.03}, r"rtts\[0\] = 0.05 s is shorter"),
        ({"rtts": (0.05, -0.3)}, r"rtts must be > 0"),
    ],
)
def test_aggregate_rate_control_bad_parameters(kwargs, match):
    with pytest.raises(ScenarioError, match=match):
        aggregate_rate_control(**kwargs)


@pytest.mark.parametrize("build,match", [
    (lambda T: T.pps_one_hop(tickets=[1e-320]), r"pps_one_hop\.tickets must be between 1e-100"),
    (lambda T: T.pps_one_hop(buffer=2**64), r"pps_one_hop\.buffer must be <= 1000000000"),
    (lambda T: T.pps_ten_flow(access_capacity=float("inf")), r"pps_ten_flow\.access_capacity must be finite"),
    (lambda T: T.pps_multi_hop(delay=-1), r"pps_multi_hop\.delay must be >= 0"),
    (lambda T: T.pps_multi_hop(link_tickets={"S0->S3": 0}), r"pps_multi_hop\.link_tickets\['S0->S3'\] must be > 0"),
    (lambda T: T.pps_multiple_bottleneck(buffer=2**64), r"pps_multiple_bottleneck\.buffer must be <= "),
    (lambda T: T.pps_multiple_bottleneck(s6_s7_capacity=0), r"pps_multiple_bottleneck\.s6_s7_capacity must be > 0"),
    (lambda T: T.abe_dumbbell(capacity=1e19), r"abe_dumbbell\.capacity must be between"),
    (lambda T: T.aggregate_rate_control(client_capacities=[1e5, 1e5, 1e5, -1]),
     r"aggregate_rate_control\.client_capacities\[3\] must be > 0"),
    (lambda T: T.aggregate_rate_control(packet_size=10**7), r"aggregate_rate_control\.packet_size must be <= 1000000"),
    (lambda T: T.acc_parking_lot(capacity=0), r"acc_parking_lot\.capacity must be > 0"),
    (lambda T: T.acc_linear(3, delay=float("nan")), r"acc_linear\.delay must be finite"),
])
def test_paper_builders_name_their_own_parameters(build, match):
    from qosmodels import topologies

    with pytest.raises(ScenarioError, match=match):
        build(topologies)
