"""PPS ticket arithmetic: the paper's tables, the receiver-based variant, UDP and TRED.

Reference values come from the paper (Zhang, Wang, Peterson, Krishnamurthy,
"Probabilistic Packet Scheduling", Princeton TR-632-01, 2001), cited table by
table, or from computations written here independently of ``qosmodels.pps``:
a recursive ticket ledger, the paper's fairness definition checked link by
link, a root finder for cyclic exchange rates, and Monte-Carlo packet drops.
"""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
from functools import lru_cache

import numpy as np
import pytest

from qosmodels import Flow, Link, Network
from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.pps import (
    FIG6_TICKETS,
    FIG9_TICKETS,
    exchange_rate,
    fair_rates,
    packet_tag,
    poor_flow_rate,
    receiver_fair_rates,
    symbolic,
    tred_drop_probability,
    tred_multiplier,
    udp_drop_probability,
    udp_one_hop,
    udp_proof,
)
from qosmodels.topologies import pps_multi_hop, pps_multiple_bottleneck, pps_one_hop, pps_ten_flow
from qosmodels.units import Mbps, kbps

HALF_DIGIT = Mbps(0.005)  # the paper prints Mb/s with two decimals


def mbps(r, *flows):
    return [r.rate(f) for f in flows]


# ============================================================================ independent references
def recursive_ledger(net, tickets, active=None):
    """Each active flow's tickets arriving at each link of its route, by direct recursion.

    A flow starts with its first link's tickets split equally among the flows
    starting there; at link l the flow hands on ``T_l * mine / (all arriving)``.
    Only for networks whose links feed each other without cycles.
    """
    T = {net.link_id(k): float(t) for k, t in tickets.items()}
    act = [True] * net.n_flows if active is None else [f in active for f in net.flow_names]
    routes = {i: net.flow_links(i).tolist() for i in range(net.n_flows) if act[i]}

    @lru_cache(maxsize=None)
    def arriving(i, hop):
        l = routes[i][hop]
        if hop == 0:
            starters = [g for g, r in routes.items() if r[0] == l]
            return T[l] / len(starters)
        p = routes[i][hop - 1]
        mine = arriving(i, hop - 1)
        if p not in T:
            return mine
        total = sum(arriving(g, r.index(p)) for g, r in routes.items() if p in r)
        return T[p] * mine / total

    return {(l, i): arriving(i, k) for i, r in routes.items() for k, l in enumerate(r)}


def check_paper_fairness(net, r, demand=None, rtol=1e-9):
    """Section 2.2/2.6 fairness, checked link by link with the tickets of ``r.link_tickets``.

    Feasible; every active flow either gets its demand (rich everywhere) or
    has a saturated link where it is poor: its rate over its tickets is the
    largest of the link's flows (InPktRate_p * InTktRate_c / InTktRate_p for
    all poor flows alike, rich flows below).
    """
    x = np.asarray(r.rates)
    load = net.routing_matrix @ x
    assert np.all(load <= net.capacities * (1 + rtol))
    cap = np.full(net.n_flows, np.inf) if demand is None else np.array(
        [np.inf if d is None else d for d in demand])
    cap = np.minimum(cap, net.max_rates)
    assert np.all(x <= cap * (1 + rtol))
    W = np.asarray(r.link_tickets)
    for i in np.flatnonzero(r.active):
        if math.isclose(x[i], cap[i], rel_tol=rtol):
            continue
        ok = False
        for l in net.flow_links(i):
            if load[l] < net.capacities[l] * (1 - rtol):
                continue
            on = np.flatnonzero((W[l] > 0) & r.active)
            level = x[on] / W[l, on]
            if x[i] / W[l, i] >= level.max() * (1 - rtol):
                poor = on[np.isclose(level, level.max(), rtol=rtol)]
                # the paper's formula for a poor flow
                assert x[i] == pytest.approx(x[poor].sum() * W[l, i] / W[l, poor].sum(), rel=1e-9)
                ok = True
        assert ok, f"flow {net.flow_names[i]} is neither demand-limited nor poor anywhere"


def random_chain(seed):
    """Routers r0..rn in a line, each flow with its own host joining at a random router."""
    rng = np.random.default_rng(seed)
    n, n_flows = int(rng.integers(2, 6)), int(rng.integers(2, 7))
    links = [Link(f"r{k}", f"r{k + 1}", rng.uniform(1e6, 1e7)) for k in range(n)]
    flows, tickets = [], {}
    for i in range(n_flows):
        a = int(rng.integers(0, n))
        b = int(rng.integers(a + 1, n + 1))
        links.append(Link(f"h{i}", f"r{a}", rng.uniform(1e6, 2e7)))
        flows.append(Flow([f"h{i}"] + [f"r{k}" for k in range(a, b + 1)]))
        tickets[(f"h{i}", f"r{a}")] = rng.uniform(10, 1000)
    for k in range(n):
        if rng.random() < 0.8:
            tickets[(f"r{k}", f"r{k + 1}")] = rng.uniform(10, 1000)
    demand = [rng.uniform(1e5, 3e6) if rng.random() < 0.3 else None for _ in range(n_flows)]
    return Network(links, flows), tickets, demand


def figure3():
    """The paper's Figure 3 (Section 2.7.2): Figure 2 with data flowing from S6 to the sinks."""
    links = [Link("S6", "S5", Mbps(1))] + [
        Link(a, b, Mbps(10)) for a, b in
        (("S5", "S3"), ("S5", "S4"), ("S3", "S0"), ("S3", "S1"), ("S4", "S2"))]
    flows = [Flow(["S6", "S5", "S3", "S0"], name="A"), Flow(["S6", "S5", "S3", "S1"], name="B"),
             Flow(["S6", "S5", "S4", "S2"], name="C")]
    # R-currency t/s each node issues to its output links (Section 2.7.2)
    ack = {("S3", "S0"): 1000, ("S3", "S1"): 500, ("S4", "S2"): 1000, ("S5", "S3"): 900,
           ("S5", "S4"): 300}
    return Network(links, flows), ack


def figure13():
    """Figure 13 (Section 3.8): A, B, C through one 1.2 Mb/s link, tickets 3:2:1."""
    net = pps_one_hop(tickets=(3, 2, 1), capacity=Mbps(1.2))
    net = net.replace(flows=[dataclasses.replace(f, name=n) for f, n in zip(net.flows, "ABC")])
    return net, {("s1", "r0"): 600, ("s2", "r0"): 400, ("s3", "r0"): 200}


# ============================================================================ the paper's tables
def test_table_1_multi_hop():
    # Section 3.2: "Tickets of flow A, B and C are converted to 600, 300 and 300 t/s ... in
    # S5's currency"; Table 1, Expected Rate: 0.50, 0.25, 0.25 Mb/s (total 1.00)
    net = pps_multi_hop()
    r = fair_rates(net, FIG6_TICKETS)
    assert mbps(r, "A", "B", "C") == pytest.approx([Mbps(0.50), Mbps(0.25), Mbps(0.25)],
                                                   abs=HALF_DIGIT)
    assert r.rates.sum() == pytest.approx(Mbps(1.00), abs=HALF_DIGIT)
    assert [r.tickets(f, ("S5", "S6")) for f in "ABC"] == pytest.approx([600, 300, 300])
    assert r.exchange_rate(("S3", "S5")) == pytest.approx(900 / 1500)
    assert r.exchange_rate(("S4", "S5")) == pytest.approx(300 / 1000)
    assert r.bottlenecks == (("S5->S6",),) * 3


def test_table_2_unused_capacity():
    # Section 3.5: B sends at 0.16 Mb/s; Table 2, Expected Rate: 0.56, 0.16, 0.28 Mb/s
    r = fair_rates(pps_multi_hop(), FIG6_TICKETS, demand={"B": kbps(160)})
    assert mbps(r, "A", "B", "C") == pytest.approx([Mbps(0.56), Mbps(0.16), Mbps(0.28)],
                                                   abs=HALF_DIGIT)
    assert r.bottlenecks[1] == ()  # B is rich: limited by its application
    # the same through Flow.max_rate
    r2 = fair_rates(pps_multi_hop().replace_flow("B", max_rate=kbps(160)), FIG6_TICKETS)
    np.testing.assert_allclose(r2.rates, r.rates, rtol=1e-12)


def test_table_3_multiple_bottlenecks_scenario_1():
    # Section 3.6, first experiment: A and B share (S3, S5)'s 2 Mb/s 2:1, C gets all of
    # (S4, S5); Table 3, Expected Rate: 1.33, 0.67, 1.00 Mb/s
    r = fair_rates(pps_multiple_bottleneck(1), FIG9_TICKETS)
    assert mbps(r, "A", "B", "C") == pytest.approx([Mbps(1.33), Mbps(0.67), Mbps(1.00)],
                                                   abs=HALF_DIGIT)
    assert r.bottlenecks == (("S3->S5",), ("S3->S5",), ("S4->S5",))


def test_table_4_multiple_bottlenecks_scenario_2():
    # Section 3.6, second experiment: "The 1000 t/s of links (S0, S3) and (S2, S4) are
    # converted to 600 and 300 t/s in S6's currency"; Table 4: 0.67, 1.33, 0.33 Mb/s
    r = fair_rates(pps_multiple_bottleneck(2), FIG9_TICKETS)
    assert mbps(r, "A", "B", "C") == pytest.approx([Mbps(0.67), Mbps(1.33), Mbps(0.33)],
                                                   abs=HALF_DIGIT)
    assert [r.tickets(f, ("S6", "S8")) for f in "AC"] == pytest.approx([600, 300])
    assert r.bottlenecks == (("S6->S8",), ("S3->S5",), ("S6->S8",))
    assert not r.poor[r.network.link_id("S3->S5"), 0]  # "A is a rich flow of link (S3, S5)"


def test_table_5_multiple_bottlenecks_scenario_3():
    # Section 3.6, final experiment; Table 5, Expected Rate: 0.67, 1.00, 0.33 Mb/s
    r = fair_rates(pps_multiple_bottleneck(3), FIG9_TICKETS)
    assert mbps(r, "A", "B", "C") == pytest.approx([Mbps(0.67), Mbps(1.00), Mbps(0.33)],
                                                   abs=HALF_DIGIT)
    assert r.bottlenecks == (("S6->S8",), ("S6->S7",), ("S6->S8",))


@pytest.mark.parametrize("table, measured", [
    # Measured PPS columns of Tables 7, 8 and 9 (Mb/s): identical in all three
    ("Table 7", (0.58, 0.40, 0.21)),
    ("Table 8", (0.58, 0.40, 0.21)),
    ("Table 9", (0.58, 0.40, 0.21)),
])
def test_tables_7_to_9_pps_fair_shares(table, measured):
    # Section 3.8: tickets "at the same ratio (3:2:1) as the service profiles"; PPS "allocates
    # bandwidth in proportion to the service profiles ... independent of the available
    # capacity".  Table 7's profiles (0.60, 0.40, 0.20 Mb/s) match the 1.2 Mb/s link, so they
    # are the fair shares; Tables 8 and 9 change only the DiffServ profiles.
    net, tickets = figure13()
    r = fair_rates(net, tickets)
    assert mbps(r, "A", "B", "C") == pytest.approx([Mbps(0.60), Mbps(0.40), Mbps(0.20)],
                                                   abs=HALF_DIGIT)
    # the simulated PPS rates sit within 0.02 Mb/s of the fair shares
    assert mbps(r, "A", "B", "C") == pytest.approx([Mbps(m) for m in measured], abs=Mbps(0.021))


# ============================================================================ the text's other examples
def test_section_2_2_figure_1_example():
    # P issues 600, 400, 200 t/s to C1, C2, C3 on a link L of 1.2 Mb/s (the "remaining 0.9Mb")
    net = pps_one_hop(tickets=(1, 1, 1), capacity=Mbps(1.2))
    t = {("s1", "r0"): 600, ("s2", "r0"): 400, ("s3", "r0"): 200}
    assert mbps(fair_rates(net, t), "flow1", "flow2", "flow3") == pytest.approx(
        [Mbps(0.6), Mbps(0.4), Mbps(0.2)])  # 3:2:1
    r = fair_rates(net, t, demand=[Mbps(0.3), None, None])  # C1 at 0.3 Mb/s CBR
    assert r.rates.tolist() == pytest.approx([Mbps(0.3), Mbps(0.6), Mbps(0.3)])  # 0.9 split 2:1
    r = fair_rates(net, t, active=["flow2", "flow3"])  # C1 silent
    assert r.rates.tolist() == pytest.approx([0.0, Mbps(0.8), Mbps(0.4)])


def test_section_3_1_one_hop_proportional_to_tickets():
    net = pps_one_hop()
    t = {(f"s{k}", "r0"): 100.0 * k for k in range(1, 10)}
    r = fair_rates(net, t)
    np.testing.assert_allclose(r.rates, [Mbps(1.5) * k / 45 for k in range(1, 10)], rtol=1e-12)


def test_section_3_3_only_b_and_c_active():
    # "B and C obtain approximately 0.75Mb/s and 0.25Mb/s ... in the first 300 seconds"
    r = fair_rates(pps_multi_hop(), FIG6_TICKETS, active=["B", "C"])
    assert mbps(r, "A", "B", "C") == pytest.approx([0.0, Mbps(0.75), Mbps(0.25)])
    assert r.exchange_rate("S3->S5") == pytest.approx(900 / 500)  # only B's tickets are active


def test_section_2_6_b_silent_follows_the_exchange_rule():
    # The text says 2:1; the rule with active tickets (as in Section 3.3) gives 900 : 300
    r = fair_rates(pps_multi_hop(), FIG6_TICKETS, active=["A", "C"])
    assert [r.tickets("A", "S5->S6"), r.tickets("C", "S5->S6")] == pytest.approx([900, 300])
    assert mbps(r, "A", "C") == pytest.approx([Mbps(0.75), Mbps(0.25)])


def test_section_3_4_new_ticket_rates():
    # (S0, S3) 1000 -> 600 and (S1, S3) 500 -> 900: A 0.3, B 0.45, C unchanged 0.25 Mb/s
    t = {**FIG6_TICKETS, ("S0", "S3"): 600, ("S1", "S3"): 900}
    r = fair_rates(pps_multi_hop(), t)
    assert mbps(r, "A", "B", "C") == pytest.approx([Mbps(0.3), Mbps(0.45), Mbps(0.25)])


def test_section_3_7_ten_flows():
    net = pps_ten_flow()
    r = fair_rates(net, {(f"s{k}", "r0"): 200 for k in range(1, 11)})
    np.testing.assert_allclose(r.rates, Mbps(0.1), rtol=1e-12)


def test_flows_sharing_a_first_link_split_its_tickets_equally():
    links = [Link("h", "r", Mbps(10)), Link("g", "r", Mbps(10)), Link("r", "s", Mbps(1))]
    flows = [Flow(["h", "r", "s"]), Flow(["h", "r", "s"]), Flow(["g", "r", "s"])]
    r = fair_rates(Network(links, flows), {("h", "r"): 400, ("g", "r"): 200})
    assert r.rates.tolist() == pytest.approx([Mbps(1 / 3)] * 3)
    # the host can weigh its flows itself
    r = fair_rates(Network(links, flows), {("h", "r"): 400, ("g", "r"): 200},
                   flow_tickets={0: 3, 1: 1})
    assert r.rates.tolist() == pytest.approx([Mbps(0.5), Mbps(1 / 6), Mbps(1 / 3)])


# ============================================================================ the ledger and the fairness
def test_ledger_matches_a_recursive_computation_on_the_papers_networks():
    for net, t, active in ((pps_multi_hop(), FIG6_TICKETS, None),
                           (pps_multi_hop(), FIG6_TICKETS, ["A", "C"]),
                           (pps_multiple_bottleneck(2), FIG9_TICKETS, None)):
        r = fair_rates(net, t, active=active)
        ref = recursive_ledger(net, t, active)
        got = {(l, i): r.link_tickets[l, i] for l, i in zip(*np.nonzero(r.link_tickets))}
        assert set(got) == set(ref)
        for k in ref:
            assert got[k] == pytest.approx(ref[k], rel=1e-12)


@pytest.mark.parametrize("seed", range(40))
def test_random_chains_ledger_and_paper_fairness(seed):
    net, t, demand = random_chain(seed)
    r = fair_rates(net, t, demand)
    ref = recursive_ledger(net, t)
    for (l, i), value in ref.items():
        assert r.link_tickets[l, i] == pytest.approx(value, rel=1e-12)
    # each ticketed link hands on exactly what it is issued; XRate = Out / In
    for key, issued in t.items():
        l = net.link_id(key)
        if r.in_ticket_rate[l] > 0:
            assert r.out_ticket_rate[l] == pytest.approx(issued, rel=1e-12)
            assert r.exchange_rates[l] == pytest.approx(issued / r.in_ticket_rate[l], rel=1e-12)
    check_paper_fairness(net, r, demand)


def test_cyclic_exchange_rates_are_the_fixed_point():
    # three flows around a triangle: each link's input depends, through the others, on itself
    links = [Link("h1", "a", 1e7), Link("h2", "b", 1e7), Link("h3", "c", 1e7),
             Link("a", "b", 1e5), Link("b", "c", 1e7), Link("c", "a", 1e7)]
    flows = [Flow(["h1", "a", "b", "c"]), Flow(["h2", "b", "c", "a"]),
             Flow(["h3", "c", "a", "b"])]
    net = Network(links, flows)
    T = {("h1", "a"): 100.0, ("h2", "b"): 300.0, ("h3", "c"): 200.0, ("a", "b"): 50.0,
         ("b", "c"): 70.0, ("c", "a"): 20.0}
    r = fair_rates(net, T)
    from scipy.optimize import fsolve

    # unknowns: f1 at (b, c), f2 at (c, a), f3 at (a, b) -- the tickets entering the cycle
    def residual(z):
        f1_bc, f2_ca, f3_ab = z
        f1_ab, f2_bc, f3_ca = 100.0, 300.0, 200.0  # they arrive from their own access links
        return [f1_bc - 50 * f1_ab / (f1_ab + f3_ab),
                f2_ca - 70 * f2_bc / (f2_bc + f1_bc),
                f3_ab - 20 * f3_ca / (f3_ca + f2_ca)]

    z = fsolve(residual, [1.0, 1.0, 1.0], xtol=1e-14)
    lid = net.link_id
    assert r.link_tickets[lid("b->c"), 0] == pytest.approx(z[0], rel=1e-10)
    assert r.link_tickets[lid("c->a"), 1] == pytest.approx(z[1], rel=1e-10)
    assert r.link_tickets[lid("a->b"), 2] == pytest.approx(z[2], rel=1e-10)
    check_paper_fairness(net, r)


def test_agrees_with_flow_weights_where_currencies_are_consistent():
    # the builders' Flow.weight holds the tickets in the bottleneck's currency; flow-weighted
    # max-min on them must agree wherever one currency suffices
    from qosmodels import allocate

    for net, t in ((pps_multi_hop(), FIG6_TICKETS),
                   (pps_multiple_bottleneck(1), FIG9_TICKETS),
                   (pps_multiple_bottleneck(2), FIG9_TICKETS),
                   (pps_multiple_bottleneck(3), FIG9_TICKETS)):
        np.testing.assert_allclose(fair_rates(net, t).rates, allocate(net, "maxmin").rates,
                                   rtol=1e-12)


def test_a_flow_starting_at_a_router_needs_its_own_tickets():
    links = [Link("h", "a", Mbps(10)), Link("a", "b", Mbps(10)), Link("b", "c", Mbps(1))]
    net = Network(links, [Flow(["h", "a", "b", "c"], name="f1"), Flow(["b", "c"], name="f2")])
    t = {("h", "a"): 100, ("a", "b"): 60, ("b", "c"): 30}
    with pytest.raises(ScenarioError, match=r"flow_tickets=\{'f2': \.\.\.\}"):
        fair_rates(net, t)
    # b values f2 at 20 of its tickets against f1's 60: 3:1 at (b, c)
    r = fair_rates(net, t, flow_tickets={"f2": 20})
    assert r.rates.tolist() == pytest.approx([Mbps(0.75), Mbps(0.25)])
    assert r.exchange_rate("b->c") == pytest.approx(30 / 80)


# ============================================================================ receiver-based
def test_receiver_based_figure_3():
    # Section 2.7.2: "converted to 600, 300 and 300 t/s, respectively, in S5's R-currency";
    # 0.5, 0.25, 0.25 Mb/s, and with B at 0.16 Mb/s: 0.56, 0.16, 0.28 Mb/s
    net, ack = figure3()
    r = receiver_fair_rates(net, ack)
    assert r.variant == "receiver"
    assert [r.tickets(f, "S6->S5") for f in "ABC"] == pytest.approx([600, 300, 300])
    assert mbps(r, "A", "B", "C") == pytest.approx([Mbps(0.5), Mbps(0.25), Mbps(0.25)])
    r = receiver_fair_rates(net, ack, demand={"B": kbps(160)})
    assert mbps(r, "A", "B", "C") == pytest.approx([Mbps(0.56), Mbps(0.16), Mbps(0.28)])


def _receiver_equals_sender(net, ack, demand=None):
    rr = receiver_fair_rates(net, ack, demand)
    tickets, flow_tickets = rr.sender_tickets()
    rs = fair_rates(net, tickets, demand, flow_tickets=flow_tickets)
    # Section 2.7.1: InTktRate_c = AckOutTktRate_c at every link, XRate = 1 / AckXRate
    np.testing.assert_allclose(rs.link_tickets, rr.out_tickets, rtol=1e-12)
    used = rr.in_ticket_rate > 0
    np.testing.assert_allclose(rs.exchange_rates[used], 1 / rr.exchange_rates[used], rtol=1e-12)
    np.testing.assert_allclose(rs.rates, rr.rates, rtol=1e-12)
    return rr


def test_receiver_based_gives_the_sender_based_rates_figure_3():
    net, ack = figure3()
    _receiver_equals_sender(net, ack)
    _receiver_equals_sender(net, ack, [None, kbps(160), None])


@pytest.mark.parametrize("seed", range(20))
def test_receiver_based_gives_the_sender_based_rates_random(seed):
    net, t, demand = random_chain(seed)
    # give every sink its own last link so that ACK tickets start at hosts
    links = list(net.links) + [Link(f.route[-1], f"d{i}", Mbps(100)) for i, f in
                               enumerate(net.flows)]
    flows = [dataclasses.replace(f, route=f.route + (f"d{i}",)) for i, f in enumerate(net.flows)]
    net = Network(links, flows)
    rng = np.random.default_rng(1000 + seed)
    ack = {link.key: rng.uniform(10, 1000) for link in net.links if rng.random() < 0.8}
    ack.update({(f.route[-2], f.route[-1]): rng.uniform(10, 1000) for f in net.flows})
    rr = _receiver_equals_sender(net, ack, demand)
    check_paper_fairness(net, rr, demand)


# ============================================================================ results
def test_result_tables_and_plot():
    r = fair_rates(pps_multi_hop(), FIG6_TICKETS, demand={"B": kbps(160)})
    flows = r.to_pandas()
    assert flows.loc["A", "tickets_at_bottleneck"] == pytest.approx(600)
    assert flows.loc["B", "bottlenecks"] == ""
    links = r.to_pandas("links")
    assert links.loc["S3->S5", "exchange_rate"] == pytest.approx(0.6)
    assert links.loc["S5->S6", "poor_ticket_rate"] == pytest.approx(900)  # A and C
    assert links.loc["S5->S6", "poor_rate_bps"] == pytest.approx(Mbps(0.84))
    assert math.isnan(links.loc["S5->S6", "issued_tps"])
    assert r.to_pandas("tickets").loc["S5->S6", "C"] == pytest.approx(300)
    with pytest.raises(ScenarioError, match="kind must be"):
        r.to_pandas("prices")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = r.plot()
    assert len(ax) == 2
    plt.close("all")
    assert "TicketAllocation(sender, 3 of 3 flows active" in repr(r)
    assert "<table" in r._repr_html_()
    with pytest.raises(ScenarioError, match="receiver_fair_rates"):
        r.sender_tickets()


def test_untouched_links_have_nan_exchange_rate_and_inactive_flows_no_tickets():
    r = fair_rates(pps_multi_hop(), FIG6_TICKETS, active=[True, False, True])
    assert math.isnan(r.exchange_rate("S1->S3"))
    assert r.link_tickets[:, 1].sum() == 0 and r.rates[1] == 0


# ============================================================================ UDP and TRED
def test_udp_monte_carlo_survivors_get_the_fair_share_and_keep_the_tickets():
    # a UDP source issued 300 of the link's 1200 t/s sends 600 packets/s into 1000 packets/s:
    # fair share 250 packets/s.  Drop and augment packet by packet over 200 s.
    rng = np.random.default_rng(20010205)
    send, t_a, t_link, cap, dur = 600.0, 300.0, 1200.0, 1000.0, 200.0
    n = int(send * dur)
    tag = packet_tag(t_a, send)
    avg = t_link / cap
    p = udp_drop_probability(tag, avg)
    kept = rng.random(n) >= p
    survivors_rate = kept.sum() / dur
    tickets_rate = (np.where(p > 0, avg, tag) * kept).sum() / dur
    sd = math.sqrt(n * p * (1 - p)) / dur  # binomial standard deviation of the rate
    assert survivors_rate == pytest.approx(cap * t_a / t_link, abs=4 * sd)
    assert tickets_rate == pytest.approx(t_a, abs=4 * sd * avg)
    out = udp_one_hop(send, t_a, t_link, cap)
    assert out.throughput == pytest.approx(250.0) and out.ticket_rate_out == pytest.approx(t_a)
    assert out.drop_probability == pytest.approx(p)


def test_udp_within_its_share_is_untouched():
    out = udp_one_hop([100.0, 250.0], 300.0, 1200.0, 1000.0)
    np.testing.assert_array_equal(out.drop_probability, [0.0, 0.0])
    np.testing.assert_allclose(out.throughput, [100.0, 250.0])
    np.testing.assert_allclose(out.ticket_rate_out, [300.0, 300.0])


def test_udp_symbolic_proof():
    proof = udp_proof()
    assert proof["holds"] is True
    assert proof["over_throughput_minus_fair"] == 0
    assert proof["over_tickets_minus_issued"] == 0
    assert proof["within_p"] == 0


def test_symbolic_formulas_agree_with_the_numeric_ones():
    import sympy as sp

    ex = symbolic()
    s = ex["symbols"]
    rng = np.random.default_rng(7)
    for _ in range(50):
        vals = {k: float(rng.uniform(0.1, 10)) for k in s}
        vals["p_RED"] = float(rng.uniform(0, 1))
        num = {k: float(ex[k].subs({s[n]: vals[n] for n in s})) for k in
               ("tag", "xrate", "tred_multiplier", "tred_p", "udp_p", "udp_throughput",
                "udp_tickets_out")}
        assert num["tag"] == pytest.approx(packet_tag(vals["OutTktRate"], vals["AvgRate"]))
        assert num["xrate"] == pytest.approx(exchange_rate(vals["OutTktRate"], vals["InTktRate"]))
        assert num["tred_multiplier"] == pytest.approx(
            tred_multiplier(vals["ExpectTkt"], vals["InTkt"]))
        assert num["tred_p"] == pytest.approx(
            tred_drop_probability(vals["p_RED"], vals["ExpectTkt"], vals["InTkt"]))
        T = max(vals["InTktRate"], vals["OutTktRate_a"])
        subs = {s[n]: vals[n] for n in s} | {s["InTktRate"]: T}
        out = udp_one_hop(vals["AvgRate"], vals["OutTktRate_a"], T, vals["Capacity"])
        assert float(ex["udp_p"].subs(subs)) == pytest.approx(out.drop_probability, abs=1e-12)
        assert float(ex["udp_throughput"].subs(subs)) == pytest.approx(out.throughput)
        assert float(ex["udp_tickets_out"].subs(subs)) == pytest.approx(out.ticket_rate_out)
    assert isinstance(ex["poor_share"], sp.Expr)


def test_tred_multiplier_values():
    # equal to 1 at the expected tag, the cube of the ratio otherwise; capped at 1 as p
    assert tred_multiplier(10.0, 10.0) == 1.0
    np.testing.assert_allclose(tred_multiplier(10.0, [5.0, 20.0]), [8.0, 0.125])
    assert tred_drop_probability(0.2, 10.0, 5.0) == pytest.approx(1.0)  # 1.6 capped
    assert tred_drop_probability(0.1, 10.0, 20.0) == pytest.approx(0.0125)


def test_poor_flow_rate_formula():
    # Section 2.6 example: 1 Mb/s shared by poor flows with 600, 300, 300 t/s
    np.testing.assert_allclose(poor_flow_rate(Mbps(1), [600, 300, 300], 1200),
                               [Mbps(0.5), Mbps(0.25), Mbps(0.25)])


# ============================================================================ bad input
@pytest.mark.parametrize("tickets, match", [
    ({("S0", "S9"): 10}, r"tickets names link \('S0', 'S9'\), which is not in the network"),
    ({"S0->S3": -5}, r"tickets\[\('S0', 'S3'\)\] must be > 0 \(in tickets/s\), got -5"),
    ({"S0->S3": 0}, r"must be > 0"),
    ({"S0->S3": float("inf")}, r"must be finite"),
    ({0: 10}, r"keys must be links"),
    ({("S0", "S3"): 10, "S0->S3": 10}, r"gives link S0->S3 twice"),
    ({("S1", "S3"): 500, ("S2", "S4"): 1000}, r"no ticket rate for link \('S0', 'S3'\)"),
])
def test_bad_tickets(tickets, match):
    with pytest.raises(ScenarioError, match=match):
        fair_rates(pps_multi_hop(), tickets)


def test_tickets_must_be_a_mapping():
    with pytest.raises(ScenarioTypeError, match="tickets must be a mapping"):
        fair_rates(pps_multi_hop(), [("S0", "S3", 10)])


@pytest.mark.parametrize("demand, match", [
    ([0, None, None], r"demand\[0\] must be > 0 \(in bit/s"),
    ([None, -1e5, None], r"demand\[1\] must be > 0"),
    ({"B": 0}, r"demand\['B'\] must be > 0"),
    ([None, None], r"demand must have 3 entries"),
    ({"D": 1e5}, r"demand names flow 'D'"),
    ([None, "fast", None], r"demand\[1\] must be a rate in bit/s"),
    ("fast", r"demand must be None, a sequence"),
])
def test_bad_demand(demand, match):
    with pytest.raises(ScenarioError, match=match):
        fair_rates(pps_multi_hop(), FIG6_TICKETS, demand)


@pytest.mark.parametrize("active, match", [
    ([], r"active must name at least one flow"),
    ([False, False, False], r"active must name at least one flow"),
    (["D"], r"active names flow 'D'"),
    ([True, False], r"active as booleans must have 3 entries"),
    ("AB", r"active must be a sequence"),
])
def test_bad_active(active, match):
    with pytest.raises(ScenarioError, match=match):
        fair_rates(pps_multi_hop(), FIG6_TICKETS, active=active)


@pytest.mark.parametrize("flow_tickets, match", [
    ({"A": -1}, r"flow_tickets\['A'\] must be > 0"),
    ({"D": 1}, r"flow_tickets names flow 'D'"),
    ([1, 2], r"flow_tickets must be a mapping"),
])
def test_bad_flow_tickets(flow_tickets, match):
    with pytest.raises(ScenarioError, match=match):
        fair_rates(pps_multi_hop(), FIG6_TICKETS, flow_tickets=flow_tickets)


def test_flow_tickets_for_some_flows_of_a_shared_first_link():
    links = [Link("h", "r", Mbps(10)), Link("r", "s", Mbps(1))]
    net = Network(links, [Flow(["h", "r", "s"]), Flow(["h", "r", "s"])])
    with pytest.raises(ScenarioError, match=r"gives some but not all .* \(missing \['f1'\]\)"):
        fair_rates(net, {("h", "r"): 10}, flow_tickets={"f0": 1})


def test_bad_network():
    with pytest.raises(ScenarioTypeError, match="network must be a qosmodels.Network"):
        fair_rates("net", FIG6_TICKETS)
    with pytest.raises(ScenarioError, match="network.flows is empty"):
        fair_rates(pps_multi_hop().replace(flows=[]), FIG6_TICKETS)


def test_receiver_needs_last_link_tickets():
    net, ack = figure3()
    del ack[("S3", "S0")]
    with pytest.raises(ScenarioError, match=r"ack_tickets has no ticket rate for link "
                                            r"\('S3', 'S0'\), the last link of flow\(s\) \['A'\]"):
        receiver_fair_rates(net, ack)


@pytest.mark.parametrize("call, match", [
    (lambda: udp_drop_probability(1.0, 0.0), r"avg_tkt must be finite and > 0"),
    (lambda: udp_drop_probability(-1.0, 1.0), r"in_tkt must be finite and >= 0"),
    (lambda: tred_multiplier(1.0, [1.0, 0.0]), r"in_tkt must be finite and > 0"),
    (lambda: tred_multiplier(-1.0, 1.0), r"expect_tkt must be finite and > 0"),
    (lambda: tred_drop_probability(1.5, 1.0, 1.0), r"red_probability must be finite and >= 0 "
                                                   r"and <= 1"),
    (lambda: packet_tag(10.0, 0.0), r"avg_rate must be finite and > 0"),
    (lambda: exchange_rate(10.0, -1.0), r"in_ticket_rate must be finite and > 0"),
    (lambda: poor_flow_rate(1.0, 5.0, 4.0), r"tickets must be <= poor_tickets"),
    (lambda: udp_one_hop(10.0, 5.0, 4.0, 1.0), r"ticket_rate must be <= link_ticket_rate"),
    (lambda: udp_one_hop(0.0, 1.0, 4.0, 1.0), r"send_rate must be finite and > 0"),
    (lambda: udp_one_hop(1.0, 1.0, 4.0, float("nan")), r"capacity must be finite and > 0"),
])
def test_bad_formula_input(call, match):
    with pytest.raises(ScenarioError, match=match):
        call()


def test_formula_type_errors():
    with pytest.raises(ScenarioTypeError, match="must be a number or an array"):
        tred_multiplier("ten", 1.0)


# ============================================================================ packaging
def test_pps_import_does_not_pull_sympy_or_matplotlib():
    code = ("import sys, qosmodels.pps, qosmodels.experiments.pps; "
            "print(sorted(m for m in ('sympy', 'matplotlib', 'cvxpy', 'numba') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_registered_experiment_uses_the_papers_values():
    from qosmodels.experiments import validate

    report = validate([f"pps-table{k}" for k in (1, 2, 3, 4, 5, 7, 8, 9)], sides="theory")
    # 3 flows per table, Table 1's A/B ratio (TRED's steady state on its theory side) and
    # Section 2.6's B-silent ratio
    assert len(report.checks) == 26
    assert [(c.experiment, c.quantity) for c in report.failures] == [
        ("pps-table1", "A/B rate ratio"),  # (600/300)^(3/5) = 1.52 against the paper's 1.92
        ("pps-table1", "Section 2.6, B silent: A/C rate ratio")]  # the printed 2:1 against 3:1
    assert report.regressions == ()  # both declared: the paper is inconsistent
    by = {(c.experiment, c.quantity): c for c in report.checks}
    assert by["pps-table3", "flow A rate"].expected == 1.33
    assert by["pps-table3", "flow A rate"].paper == 1.24  # the paper's measured rate
    assert by["pps-table2", "flow C rate"].expected == 0.28
    assert by["pps-table7", "flow A rate"].source == "paper (stated)"
