"""Network.from_arrays: the same network as the object path, and its refusals.

References, none computed by the code under test: networks built one Link and one Flow at
a time by the object path (``Network(links, flows)``), and ``_object_random_network``
below, the object-path ``random_network`` as it was before it used ``from_arrays``
(commit 7a77644), which must give the same network for the same seed.
"""

import hashlib

import numpy as np
import pytest
import scipy.sparse as sp

from qosmodels import Flow, Link, Network, ScenarioError, allocate
from qosmodels.errors import ScenarioTypeError
from qosmodels.sim.compile import compile_scenario
from qosmodels.topologies import random_network


def _object_random_network(n_flows, n_links, *, max_hops=5, capacity=(1e6, 100e6),
                           delay=(0.001, 0.02), weights=(1.0, 1.0), seed):
    """random_network before from_arrays: one Link and one Flow object at a time."""
    rng = np.random.default_rng(seed)
    nl, nf, hmax = n_links, n_flows, max_hops
    n_nodes = max(2, round(nl / 3), int(np.ceil((1 + np.sqrt(1 + 4 * nl)) / 2)))
    pairs = [(i, (i + 1) % n_nodes) for i in range(n_nodes)][: nl if n_nodes > 2 else 2]
    taken = set(pairs)
    while len(pairs) < nl:
        a, b = (int(t) for t in rng.integers(0, n_nodes, size=2))
        if a != b and (a, b) not in taken:
            taken.add((a, b))
            pairs.append((a, b))
    succ = {}
    for a, b in pairs:
        succ.setdefault(a, []).append(b)
    caps = rng.uniform(*capacity, size=nl)
    dels = rng.uniform(*delay, size=nl)
    links = [Link(f"n{a}", f"n{b}", caps[k], dels[k]) for k, (a, b) in enumerate(pairs)]
    starts = sorted(succ)
    hops = rng.integers(1, hmax + 1, size=nf)
    ws = rng.uniform(*weights, size=nf)
    flows = []
    for i in range(nf):
        node = starts[int(rng.integers(len(starts)))]
        route = [node]
        for _ in range(hops[i]):
            nxt = [b for b in succ.get(node, ()) if b not in route]
            if not nxt:
                break
            node = nxt[int(rng.integers(len(nxt)))]
            route.append(node)
        flows.append(Flow(route=[f"n{n}" for n in route], weight=ws[i]))
    return Network(links=links, flows=flows)


ARRAYS = ("capacities", "delays", "buffers", "weights", "max_rates", "packet_sizes",
          "route_ptr", "route_links", "reverse_route_links", "forward_delay", "reverse_delay",
          "rtt")


def assert_same_network(a: Network, b: Network) -> None:
    """Equal as objects, and every array the analyses read equal in value and dtype."""
    assert a == b and b == a
    assert a.links == b.links
    assert a.n_flows == b.n_flows and tuple(a.flows) == tuple(b.flows)
    assert a.flow_names == b.flow_names and a.link_names == b.link_names
    assert a.nodes == b.nodes
    for name in ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        np.testing.assert_array_equal(x, y, err_msg=name)
    assert (a.routing_matrix != b.routing_matrix).nnz == 0


@pytest.mark.parametrize("seed, n_flows, n_links, kw", [
    (0, 60, 9, {}),
    (1, 200, 30, {"max_hops": 3}),
    (7, 150, 2, {}),
    (11, 300, 40, {"weights": (0.5, 4.0), "max_hops": 8}),
    (2024, 500, 50, {"capacity": (1e5, 1e9), "delay": (0.0, 0.1)}),
])
def test_random_network_is_the_network_the_object_path_built(seed, n_flows, n_links, kw):
    new = random_network(n_flows, n_links, seed=seed, **kw)
    old = _object_random_network(n_flows, n_links, seed=seed, **kw)
    assert_same_network(new, old)
    for fairness, alpha in (("proportional", None), ("alpha", 2.0), ("maxmin", None)):
        x, y = allocate(new, fairness, alpha=alpha), allocate(old, fairness, alpha=alpha)
        np.testing.assert_array_equal(x.rates, y.rates)
        assert x.bottlenecks == y.bottlenecks
    # the compiled arrays, bit for bit; one compile is held at a time (a digest of each
    # array of the first), as the fifth network's packet pool alone is about 0.2 GB
    ca = _digests(compile_scenario(new, 1.0, seed=3))
    cb = _digests(compile_scenario(old, 1.0, seed=3))
    assert [f for f in ca if ca[f] != cb[f]] == []


def _digests(compiled) -> dict:
    """Each compiled array's dtype, shape and a SHA-256 of its bytes, by field."""
    out = {}
    for field, x in zip(compiled._fields, compiled):
        a = np.ascontiguousarray(x)
        out[field] = (a.dtype.str, a.shape, hashlib.sha256(a.view(np.uint8)).hexdigest())
    return out



@pytest.mark.parametrize("n_links, max_hops", [(2, 1), (3, 5), (12, 40), (400, 6)])
def test_random_walks_draw_as_the_loop_did_and_leave_the_generator_there(n_links, max_hops):
    # a caller's Generator: the network and the generator's next draws are unchanged
    g_new, g_old = np.random.default_rng(99), np.random.default_rng(99)
    new = random_network(700, n_links, max_hops=max_hops, seed=g_new)
    old = _object_random_network(700, n_links, max_hops=max_hops, seed=g_old)
    assert_same_network(new, old)
    assert g_new.bit_generator.state == g_old.bit_generator.state
    assert g_new.integers(1 << 40) == g_old.integers(1 << 40)


def _object_twin(caps, ptr, idx, ends, **kw):
    """The object path's network for the same data (the reference)."""
    w = kw.get("weights")
    m = kw.get("max_rates")
    names = kw.get("names")
    links = [Link(a, b, caps[k], kw.get("delays", [0.0] * len(caps))[k],
                  kw.get("buffers", [100] * len(caps))[k]) for k, (a, b) in enumerate(ends)]
    flows = []
    for i in range(len(ptr) - 1):
        hops = idx[ptr[i]:ptr[i + 1]]
        route = [ends[hops[0]][0]] + [ends[h][1] for h in hops]
        flows.append(Flow(route, weight=1.0 if w is None else w[i],
                          max_rate=None if m is None or np.isinf(m[i]) else m[i],
                          name=None if names is None else names[i]))
    return Network(links, flows)


def test_every_field_reaches_the_same_network():
    ends = [("a", "b"), ("b", "c"), ("c", "d"), ("b", "a")]
    caps = [1e6, 2e6, 3e6, 4e6]
    ptr, idx = [0, 3, 4, 6], [0, 1, 2, 3, 0, 1]
    kw = dict(delays=[0.01, 0.02, 0.0, 0.5], buffers=[10, 20, 30, 40],
              weights=[1.0, 2.5, 0.5], max_rates=[np.inf, 1e5, np.inf], names=["x", None, "z"])
    net = Network.from_arrays(caps, (ptr, idx), ends=ends, **kw)
    assert_same_network(net, _object_twin(caps, ptr, idx, ends, **kw))
    assert net.flow_names == ("x", "f1", "z")
    assert net.flows[1].max_rate == 1e5 and net.flows[-1].name == "z"
    assert net.reverse_route_links.tolist() == [3, -1, -1, 0, 3, -1]
    # a sparse flows x links matrix: links in increasing index order
    m = sp.csr_matrix((np.ones(6), (np.repeat([0, 1, 2], [3, 1, 2]), idx)), shape=(3, 4))
    assert_same_network(Network.from_arrays(caps, m, ends=ends, **kw), net)
    # None in a list of caps means no cap, as Flow.max_rate = None does
    kw["max_rates"] = [None, 1e5, None]
    assert_same_network(Network.from_arrays(caps, (ptr, idx), ends=ends, **kw), net)


def test_inferred_nodes_make_every_route_a_path():
    # link 0 then 1; link 1 then 2; link 3 alone: nodes a->b->c->d and a separate pair
    net = Network.from_arrays([1e6] * 4, ([0, 2, 4, 5], [0, 1, 1, 2, 3]))
    assert net.link_names == ("n0->n1", "n1->n2", "n2->n3", "n4->n5")
    assert [f.route for f in net.flows] == [("n0", "n1", "n2"), ("n1", "n2", "n3"), ("n4", "n5")]
    twin = Network([Link(f"n{a}", f"n{b}", 1e6) for a, b in [(0, 1), (1, 2), (2, 3), (4, 5)]],
                   [Flow(["n0", "n1", "n2"]), Flow(["n1", "n2", "n3"]), Flow(["n4", "n5"])])
    assert_same_network(net, twin)


def test_flow_view_behaves_as_the_tuple():
    net = random_network(40, 8, seed=3)
    ref = tuple(net.flows)
    assert len(net.flows) == 40 and net.flows[-1] == ref[-1] and net.flows[5:9] == ref[5:9]
    assert net.flows == ref and hash(net.flows) == hash(ref)
    assert net.flows + (ref[0],) == ref + (ref[0],) and (ref[0],) + net.flows == (ref[0],) + ref
    with pytest.raises(IndexError):
        net.flows[40]
    net2 = net.replace_flow(3, weight=7.0)  # what-ifs go through the object path
    assert net2.flows[3].weight == 7.0 and net2.flows[4] == ref[4]
    assert Network.from_dict(net.to_dict()) == net
    import pickle

    assert pickle.loads(pickle.dumps(net)) == net


# --------------------------------------------------------------------------- refusals
LINE = ([0, 1, 3], [0, 0, 1])  # flow 0 on link 0; flow 1 on links 0, 1


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(capacities=[1e6, -1.0]), ScenarioError,
     r"capacities\[1\] \(link 1\): Link\.capacity must be > 0 \(in bit/s\), got -1\.0"),
    (dict(capacities=[1e6, 1e30]), ScenarioError,
     r"capacities\[1\] .*must be between 0\.001 and 1e\+18 bit/s.*check the unit"),
    (dict(capacities=[1e6, np.nan]), ScenarioError, r"capacities\[1\].*must be finite"),
    (dict(capacities=["1e6", "2e6"]), ScenarioTypeError,
     r"capacities\[0\] \(link 0\): Link\.capacity must be a real number"),
    (dict(capacities=[True, True]), ScenarioTypeError, r"capacities\[0\].*real number"),
    (dict(capacities=[1e6]), ScenarioError, r"link index 1 is out of range 0\.\.0"),
    (dict(delays=[0.0, -0.1]), ScenarioError, r"delays\[1\] \(link 1\): Link\.delay must be >= 0"),
    (dict(delays=[0.0]), ScenarioError, r"delays must have shape \(2,\), one value per link"),
    (dict(buffers=[10, 2.5]), ScenarioError, r"buffers\[1\].*Link\.buffer must be a whole number"),
    (dict(buffers=[0, 5]), ScenarioError, r"buffers\[0\].*Link\.buffer must be >= 1"),
    (dict(weights=[1.0, 0.0]), ScenarioError, r"weights\[1\] \(flow 'f1'\): Flow\.weight must be > 0"),
    (dict(weights=[1.0, 1e200]), ScenarioError, r"weights\[1\].*between 1e-100 and 1e\+100"),
    (dict(weights=[1.0]), ScenarioError, r"weights must have shape \(2,\), one value per flow"),
    (dict(max_rates=[np.inf, 0.0]), ScenarioError, r"max_rates\[1\] \(flow 'f1'\): Flow\.max_rate"),
    (dict(max_rates=[np.nan, 1e6]), ScenarioError, r"max_rates\[0\].*must be finite"),
    (dict(names=["a", "a"]), ScenarioError, r"Network\.flows\[1\]\.name 'a' is used by another"),
    (dict(names=["f1", None]), ScenarioError, r"flows\[1\]\.name 'f1' is used by another"),
    (dict(names=["a", 3]), ScenarioTypeError, r"names\[1\]: Flow\.name must be a str or None"),
    (dict(names=["a"]), ScenarioError, r"names must be a sequence of 2 names"),
    (dict(routes=([0, 1, 1], [0])), ScenarioError, r"routes of flow 'f1' cross no link"),
    (dict(routes=([1, 3], [0, 0, 1])), ScenarioError, r"indptr must start at 0"),
    (dict(routes=([0, 2, 1, 3], [0, 1, 1])), ScenarioError, r"indptr must not decrease"),
    (dict(routes=([0, 1, 4], [0, 0, 1])), ScenarioError, r"indptr must end at len\(indices\) = 3"),
    (dict(routes=([0, 1, 3], [0.0, 0.0, 1.0])), ScenarioTypeError, r"indices must hold integers"),
    (dict(routes=([0, 1, 3], [0, 0, -1])), ScenarioError, r"flow 1: link index -1 is out of range"),
    (dict(routes=[[0, 1, 3]]), ScenarioTypeError, r"routes must be a CSR pair"),
    (dict(routes=sp.csr_matrix(np.ones((2, 3)))), ScenarioError,
     r"routes matrix must be flows x links, of shape \(F, 2\)"),
    (dict(routes=sp.csr_matrix([[2.0, 0.0], [1.0, 1.0]])), ScenarioError,
     r"routes\[0, 0\] is 2\.0; a routes matrix holds 1"),
    # ends: the path rules of Link and Network
    (dict(ends=[("a", "b"), ("c", "d")]), ScenarioError,
     r"routes of flow 'f1' \[0, 1\] are not a path: link 0 \(a->b\) is followed by link 1 "
     r"\(c->d\), which does not start at 'b'"),
    (dict(ends=[("a", "b"), ("b", "b")]), ScenarioError,
     r"link 1: Link\.dst must differ from Link\.src, got a self-loop at node 'b'"),
    (dict(ends=[("a", "b"), ("b", "a")]), ScenarioError,
     r"routes of flow 'f1': Flow\.route must not visit a node twice \(node 'a' repeats"),
    (dict(capacities=[1e6] * 3, ends=[("a", "b"), ("b", "c"), ("a", "b")]), ScenarioError,
     r"Network\.links\[2\] repeats link a->b \(already links\[0\]\)"),
    (dict(ends=[("a", "b")]), ScenarioError, r"ends must be a sequence of 2 \(src, dst\) pairs"),
    (dict(ends=[("a", "b"), "bc"]), ScenarioTypeError, r"ends\[1\] must be a \(src, dst\) pair"),
    (dict(ends=[("a", "b"), ("b", 1.5)]), ScenarioTypeError, r"Link\.dst must be a node name"),
])
def test_refusals_name_the_array_row_and_rule(kwargs, error, match):
    args = dict(capacities=[1e6, 2e6], routes=LINE)
    args.update(kwargs)
    with pytest.raises(error, match=match):
        Network.from_arrays(args.pop("capacities"), args.pop("routes"), **args)


def test_inferred_nodes_that_cannot_be_a_network_are_refused():
    # link 0 then 1, and link 1 then 0: inferred ends close a loop a->b->a
    with pytest.raises(ScenarioError, match=r"routes of flow 'f0'.*must not visit a node twice"):
        Network.from_arrays([1e6, 1e6], ([0, 2, 4], [0, 1, 1, 0]))
    # link 0 then 0 again: its end is its own start
    with pytest.raises(ScenarioError, match=r"link 0: .*self-loop.*leads back to it"):
        Network.from_arrays([1e6], ([0, 2], [0, 0]))
    with pytest.raises(ScenarioError, match=r"at least one Link, got none"):
        Network.from_arrays([], ([0], []))


def test_two_array_networks_compare_by_their_arrays():
    a, b = random_network(300, 30, seed=6), random_network(300, 30, seed=6)
    assert a == b and a.flows == b.flows
    c = random_network(300, 30, seed=6, weights=(1.0, 1.5))
    assert a != c and a.flows != c.flows
    # the same flows over links declared in another order: equal flows, different links
    links = list(reversed(range(a.n_links)))
    perm = np.empty(a.n_links, dtype=np.int64)
    perm[links] = np.arange(a.n_links)
    d = Network.from_arrays(a.capacities[links], (a.route_ptr, perm[a.route_links]),
                            delays=a.delays[links], weights=a.weights,
                            ends=[a.links[k].key for k in links])
    assert d.flows == a.flows and tuple(d.flows) == tuple(a.flows) and d != a


@pytest.mark.parametrize("n", [5, 20])  # short routes compare positions; long ones sort
def test_a_long_route_that_returns_to_its_start_is_refused(n):
    ends = [(f"a{k}", f"a{k + 1}") for k in range(n)] + [(f"a{n}", "a0")]
    ok = ([0, n, n + 1], list(range(n)) + [n])
    Network.from_arrays([1e6] * (n + 1), ok, ends=ends)  # a path, and a one-hop flow
    loop = ([0, n, 2 * n + 1], list(range(n)) + list(range(n + 1)))  # f1 goes round
    with pytest.raises(ScenarioError, match=r"flow 'f1': Flow\.route must not visit a node twice "
                                            r"\(node 'a0' repeats"):
        Network.from_arrays([1e6] * (n + 1), loop, ends=ends)
    loop = ([0, n + 1], list(range(n)) + [n])
    with pytest.raises(ScenarioError, match=r"flow 'f0'.*must not visit a node twice"):
        Network.from_arrays([1e6] * (n + 1), loop, ends=ends)


def test_numpy_arrays_of_every_kind_are_taken():
    net = Network.from_arrays(np.array([1, 2]) * 10**6,
                              (np.array([0, 1, 3], dtype=np.int32), np.array([1, 0, 1])),
                              names=np.array(["x", "y"]), ends=np.array([[0, 1], [1, 2]]),
                              buffers=np.array([5.0, 7.0]), max_rates=np.array([np.inf, 3e5]))
    twin = Network([Link("0", "1", 1e6, buffer=5), Link("1", "2", 2e6, buffer=7)],
                   [Flow(["1", "2"], name="x"), Flow(["0", "1", "2"], name="y", max_rate=3e5)])
    assert_same_network(net, twin)
    assert type(net.flows[0].name) is str and type(net.links[0].src) is str


def test_compiled_walks_equal_their_python_body():
    from qosmodels import _walks

    rng = np.random.default_rng(4)
    pairs = np.array([(0, 1), (1, 2), (2, 0), (0, 2), (2, 3), (3, 0)], dtype=np.int64)
    order = np.argsort(pairs[:, 0], kind="stable")
    succ_ptr = np.concatenate([[0], np.cumsum(np.bincount(pairs[:, 0], minlength=4))])
    hops = rng.integers(1, 6, size=200)
    raw = rng.integers(0, 1 << 32, dtype=np.uint32, size=2000).astype(np.uint64)
    args = (np.array([0, 1, 2, 3]), succ_ptr, pairs[order, 1], order.astype(np.int64), hops, raw,
            4, int(np.minimum(hops, 3).sum()))
    for a, b in zip(_walks._walks(*args), _walks._walks.py_func(*args)):
        np.testing.assert_array_equal(a, b)
