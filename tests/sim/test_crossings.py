"""Crossings (qosmodels.sim._kernels.crossings): per-(link, flow) ids, each link's list of them."""

from __future__ import annotations

from collections import Counter

from qosmodels import Flow, Link, Network
from qosmodels.mechanisms import Cbr, TcpNewReno
from qosmodels.sim._kernels import layout as K
from qosmodels.sim._kernels.crossings import crossing as crossing_handler
from qosmodels.sim.compile import compile_scenario

from .jitcall import jitcall

crossing = jitcall(crossing_handler)


def network():
    links = [Link("a", "b", 1e6, 0.01), Link("b", "c", 1e6, 0.01), Link("c", "d", 1e6, 0.01),
             Link("c", "b", 1e6, 0.01), Link("b", "a", 1e6, 0.01)]  # two reverse links declared
    flows = [Flow(["a", "b", "c", "d"], source=TcpNewReno()), Flow(["b", "c"], source=Cbr()),
             Flow(["b", "c", "d"], source=TcpNewReno())]
    return Network(links, flows)


def expected_crossings(net):
    """Per link, the (flow, direction) pairs crossing it, from the routes alone."""
    out = {l: Counter() for l in range(net.n_links)}
    for f, flow in enumerate(net.flows):
        for a, b in zip(flow.route[:-1], flow.route[1:]):
            out[net.link_id((a, b))][(f, "data")] += 1
            if flow.source.windowed and (b, a) in net._index:
                out[net.link_id((b, a))][(f, "ack")] += 1
    return out


def test_each_link_lists_exactly_the_crossings_through_it():
    net = network()
    c = compile_scenario(net, 1.0, seed=0)
    n_fwd = c.r_ptr[-1]
    x_link = list(c.r_link) + list(c.a_link)
    flow_of = [f for f in range(net.n_flows) for _ in range(c.r_ptr[f + 1] - c.r_ptr[f])] + \
              [f for f in range(net.n_flows) for _ in range(c.a_ptr[f + 1] - c.a_ptr[f])]
    want = expected_crossings(net)
    for l in range(net.n_links):
        ids = c.lk_pos[c.lk_ptr[l]:c.lk_ptr[l + 1]]
        assert all(x_link[j] == l for j in ids)
        got = Counter((flow_of[j], "data" if j < n_fwd else "ack") for j in ids)
        # (an open-loop flow sends no ACK: its reverse ids exist only as undeclared stretches)
        assert got == want[l], (l, got, want[l])
    assert c.hs.shape == (len(x_link), 0)  # no queue here keeps per-crossing state


def test_a_packet_maps_to_the_crossing_of_the_link_it_enters():
    net = network()
    c = compile_scenario(net, 1.0, seed=0)
    p = 0
    for f in range(net.n_flows):
        for h in range(c.r_ptr[f + 1] - c.r_ptr[f]):
            c.pi[p, K.PI_FLOW], c.pi[p, K.PI_HOP], c.pi[p, K.PI_KIND] = f, h, K.KIND_DATA
            j = crossing(c, p)
            assert c.r_link[j] == c.r_link[c.r_ptr[f] + h]
            assert c.lk_ptr[c.r_link[j]] <= list(c.lk_pos).index(j) < c.lk_ptr[c.r_link[j] + 1]
        for h in range(c.a_ptr[f + 1] - c.a_ptr[f]):
            c.pi[p, K.PI_FLOW], c.pi[p, K.PI_HOP], c.pi[p, K.PI_KIND] = f, h, K.KIND_ACK
            j = crossing(c, p)
            assert j == c.r_ptr[-1] + c.a_ptr[f] + h
            assert (list(c.r_link) + list(c.a_link))[j] == c.a_link[c.a_ptr[f] + h]


def test_sorted_queue_arena_is_empty_without_a_sorted_discipline():
    c = compile_scenario(network(), 1.0, seed=0)
    # two heaps per link (rows l and L + l), none of them with room: no link keeps one
    assert c.sq_meta.shape == (10, 3) and not c.sq_meta[:, 1].any()
    assert (c.pi[:, K.PI_QPOS] == -1).all()
