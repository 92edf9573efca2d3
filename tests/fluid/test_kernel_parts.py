"""The fluid kernel's parts (``qosmodels.fluid._kernels``) against a plain-NumPy replay of one
step on a tiny network.

The network: link ``a->b`` (10 Mb/s, 5.5 ms, so that its delay is 5.5 steps of 1 ms: the
delayed reads interpolate) then ``b->c`` (5 Mb/s, 3.3 ms); flow ``A`` crosses both, flow
``B`` only ``b->c`` (flow 0: route order and link order of the hops differ).  The
histories are filled from known functions of time, in the layout the kernel's module
docstring describes, and the step's results are compared with the
scheme written out in NumPy (``np.interp`` for every delayed read and for the FIFO's
departure time, the queue update, drops in proportion to the arrivals): an independent
replay of the text, not of the kernel's code.  Tolerances: 1e-12 relative (the kernel
interpolates with ``a + fr (b - a)``, ``np.interp`` in its own order).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from qosmodels import Flow, Link, Network
from qosmodels.fluid import _kernels as K
from qosmodels.fluid import compile_fluid

DT = 1e-3
N = 40  # the step from which the kernel advances (n -> n + 1)
# every flow (column), link and position of link_order: the serial loop's spans; the lost
# bits added within queues (not deferred: that is the threads' path, test_threads.py)
SPANS = dict(fa=0, fb=2, la=0, lb=2, oa=0, ob=2, defer=False)


def tiny():
    links = [Link("a", "b", 10e6, 5.5e-3, 100), Link("b", "c", 5e6, 3.3e-3, 20)]
    # (B first: the hops' route order, B's then A's, differs from their link order)
    return Network(links, [Flow(["b", "c"], name="B"), Flow(["a", "b", "c"], name="A")])


def call(fn, ns):
    """Call a jitted part with the arguments named as in its signature, taken from ``ns``."""
    names = inspect.signature(getattr(fn, "py_func", fn)).parameters  # (also without JIT)
    return fn(*[ns[name] for name in names])


@pytest.fixture
def state():
    comp = compile_fluid(tiny(), t_end=1.0, dt=DT)
    work = K.workspace(comp.ring, comp.ring_s, int(comp.a_off[-1]), comp.cap, comp.delay0,
                       comp.w0, comp.hop_flow, comp.vegas_k)
    ns = dict(comp._asdict(), **dict(zip(K.WORK, work)))
    n1 = N + 1
    ns.update(n=N, n1=n1, t1=n1 * DT, nmax=N, s1=n1 & (comp.ring - 1), mask=comp.ring - 1,
              smask=comp.ring_s - 1, inv_dt=1.0 / DT, **SPANS)
    call(K.set_lags, ns)
    return comp, ns


def test_gather_reads_each_flow_at_its_lag_from_the_time_major_columns(state):
    comp, ns = state
    steps = np.arange(N + 1)  # history up to step N
    e = {0: 1e4 + 3e6 * steps * DT, 1: 2e3 + 1e6 * (steps * DT) ** 2}  # accumulation, bits
    x = {0: 4e6 + 1e8 * steps * DT, 1: 1e6 + 5e7 * np.sin(steps * DT)}  # rates, bit/s
    for i in (0, 1):
        for r in steps:  # (in order: the ring keeps the latest steps)
            ns["hist_e"][r & ns["mask"], comp.e_col[i]] = e[i][r], e[i][r] / 1e9
            ns["hist_x"][r & ns["mask"], comp.x_col[i]] = x[i][r]
    ns["control"] = K.CTRL_RENO
    call(K.gather, ns)
    net, t = tiny(), steps * DT
    delays = net.delays
    for i, links in ((0, [1]), (1, [0, 1])):
        # the egress accumulation left the last link and came back over the reverse path
        # (here each link's own delay), the rate a propagation round trip ago
        lag_e = delays[links[-1]] + delays[links].sum()
        rtt = 2 * delays[links].sum()
        assert ns["g"][i, 0] == pytest.approx(np.interp(ns["t1"] - lag_e, t, e[i]), rel=1e-12)
        assert ns["g"][i, 1] == pytest.approx(np.interp(ns["t1"] - lag_e, t, e[i]) / 1e9,
                                              rel=1e-12)
        assert ns["g"][i, 2] == pytest.approx(np.interp(ns["t1"] - rtt, t, x[i]), rel=1e-12)


def test_measure_sees_the_losses_a_propagation_round_trip_late(state):
    """measure's loss signal: a flow's cumulative lost bits as they were a propagation
    round trip ago (read from its column of the time-major history when it lost bits since,
    else its current value), acted on once per round trip (``halve``, ``loss_acted``)."""
    comp, ns = state
    steps = np.arange(N + 1)
    t = steps * DT
    lost = 5e3 * np.maximum(t - 0.01, 0.0) ** 0.5  # flow 1 (A): losing until now, bits
    for r in steps:
        ns["hist_loss"][r & ns["mask"], comp.x_col[1]] = lost[r]
    ns["loss"][:] = 7e3, lost[-1]
    ns["loss_step"][:] = 3, N  # B lost its bits long ago, A in the last step
    ns.update(kk=1, active=np.ones(2, np.bool_))
    call(K.term_lists, ns)
    call(K.measure, ns)
    rttp = 2 * tiny().delays[[0, 1]].sum()  # A's propagation round trip (5.5 + 3.3 ms, twice)
    assert ns["loss_acted"][1] == pytest.approx(np.interp(ns["t1"] - rttp, t, lost), rel=1e-12)
    assert ns["loss_acted"][0] == 7e3  # no loss within B's round trip: the current value
    assert ns["halve"].all() and (ns["last_halve"] == ns["t1"]).all()


def test_term_lists_keep_each_kind_of_hop_in_route_order():
    """The hops adding a term to measure's sums, per flow three slices in route order:
    marking links' hops, AVD links' hops, hops with a reverse link (written out by hand)."""
    route_ptr = np.array([0, 3, 4, 6])  # flows of 3, 1 and 2 hops
    hop_link = np.array([0, 1, 2, 2, 1, 0])
    hop_rev = np.array([-1, 2, 0, -1, -1, 1])
    red = np.array([True, False, True])
    avd = np.array([False, True, True])
    term_ptr = np.zeros(10, np.int64)
    term_hop = np.full(18, -1, np.int32)
    K.term_lists(route_ptr, hop_link, hop_rev, red, avd, term_ptr, term_hop)
    expect = [[0, 2], [1, 2], [1, 2], [3], [3], [], [5], [4], [5]]
    got = [list(term_hop[term_ptr[k]:term_ptr[k + 1]]) for k in range(9)]
    assert got == expect


@pytest.mark.parametrize("q0", [18e3, 158e3], ids=["queue", "overflow"])
def test_transfer_and_queues_replay_one_fifo_step(state, q0):
    comp, ns = state
    net = tiny()
    b0, a0, a1 = comp.hop_pos  # hops in route order: B on b->c, A on a->b, A on b->c
    assert (a0, b0, a1) == (0, 1, 2)  # link order
    t = np.arange(N + 1) * DT
    rows = np.arange(N + 1)
    # hop A on a->b departed D(t), carried S(t), W(t): increasing functions of time
    d_a0 = 2e6 * t + 3e7 * t**2
    s_a0, w_a0 = 500.0 + 1e4 * t, 1e-4 + 0.01 * t
    for r in rows:
        ns["hist_s"][r & ns["smask"], a0] = d_a0[r], s_a0[r], w_a0[r]
    # link b->c's arrival history: total accepted, then its hops' (A, B), rows of steps
    l1 = 1
    am = int(comp.a_mask[l1])
    wl = int(comp.link_hop_ptr[l1 + 1] - comp.link_hop_ptr[l1]) + 1
    acc_a = 1.5e6 * t + 2e7 * t**2
    acc_b = 3e6 * t
    for r, (u, v) in enumerate(zip(acc_a, acc_b)):
        base = int(comp.a_off[l1]) + (r & am) * wl
        ns["hist_a"][base:base + 3] = (u + v, v, u)  # hops in link order: B's then A's
    t1 = ns["t1"]
    d0 = net.delays[0]
    ns["offered"][a1] = np.interp(t[-1] - d0, t, d_a0)  # A's input a step ago
    ns["offered"][b0] = 3e6 * t[-1]
    ns["sent"][0] = 3e6 * t[-1] + 3e3 + 9e3  # B's source sent 12 kbit this step
    ns["queue"][l1] = q0
    ns["departed"][l1] = acc_a[-1] + acc_b[-1] - q0
    cap = net.capacities[l1]
    call(K.transfer, dict(ns, l=0))
    status, _ = call(K.queues, ns)
    assert status == K.STATUS_OK
    call(K.egress, ns)  # (the egress history: every flow's last hop's (S, W), column order)

    # the replay: inputs, the queue, the drops, the departures and the lines
    v_a = np.interp(t1 - d0, t, d_a0)
    inc = np.array([v_a - np.interp(t[-1] - d0, t, d_a0), 12e3])
    lam = inc.sum()
    q = q0 + lam - cap * DT
    buf = comp.buf[l1]
    assert buf == 160e3 and (q > buf) == (q0 > 100e3)  # (the second case overflows)
    keep = 1.0 - (q - buf) / lam if q > buf else 1.0
    q = min(q, buf)
    assert ns["queue"][l1] == pytest.approx(q, rel=1e-12)
    assert ns["loss"] == pytest.approx([inc[1] * (1 - keep), inc[0] * (1 - keep)], abs=1e-6)
    total = np.append(acc_a + acc_b, acc_a[-1] + acc_b[-1] + lam * keep)
    tt = np.append(t, t1)
    dep = acc_a[-1] + acc_b[-1] - q0 + cap * DT
    tau = np.interp(dep, total, tt)  # the departing bits' arrival time
    c1 = ns["n1"] & ns["smask"]
    for j, own, s_in, w_in in ((a1, np.append(acc_a, acc_a[-1] + inc[0] * keep),
                                np.interp(t1 - d0, t, s_a0), np.interp(t1 - d0, t, w_a0)),
                               (b0, np.append(acc_b, acc_b[-1] + inc[1] * keep), 0.0, 0.0)):
        d = np.interp(tau, tt, own)
        assert ns["hist_s"][c1, j, 0] == pytest.approx(d, rel=1e-12)
        assert ns["hist_s"][c1, j, 1] == pytest.approx(own[-1] - d + s_in, rel=1e-9)
        assert ns["hist_s"][c1, j, 2] == pytest.approx(t1 - tau + w_in, rel=1e-9)
    assert ns["hist_w"][l1, ns["s1"]] == pytest.approx(t1 - tau, rel=1e-9)
    # both hops on b->c are last hops: their (S, W) is the flow's egress history
    for j, flow in ((b0, 0), (a1, 1)):
        np.testing.assert_array_equal(ns["hist_e"][ns["s1"], comp.e_col[flow]],
                                      ns["hist_s"][c1, j, 1:])


def test_marks_seen_reads_each_red_hop_at_its_ack_lag():
    """marks_seen (Reno/RED): every hop's marking probability as the marks reaching the
    sender now were made, its link's probability an ACK lag ago (the rest of the forward
    path and the reverse path), in route order; measure's product over the path."""
    net = tiny()
    comp = compile_fluid(net, t_end=1.0, dt=DT, control="Reno", red_links=["a->b", "b->c"])
    work = K.workspace(comp.ring, comp.ring_s, int(comp.a_off[-1]), comp.cap, comp.delay0,
                       comp.w0, comp.hop_flow, comp.vegas_k)
    ns = dict(comp._asdict(), **dict(zip(K.WORK, work)))
    n1 = N + 1
    ns.update(n=N, n1=n1, t1=n1 * DT, nmax=N, mask=comp.ring - 1, inv_dt=1.0 / DT, **SPANS)
    call(K.set_lags, ns)
    t = np.arange(N + 1) * DT
    p = {0: 0.01 + 2.0 * t, 1: 0.2 + 0.1 * np.sin(40 * t)}  # per link, increasing / not
    for link in (0, 1):
        for r in range(N + 1):
            ns["hist_p"][link, r & ns["mask"]] = p[link][r]
    call(K.marks_seen, ns)
    d = net.delays
    # hops in route order: B on b->c; A on a->b, A on b->c (reverse path: the links' own)
    expect = [(1, d[1] + d[1]), (0, d[0] + d[1] + d[0] + d[1]), (1, d[1] + d[0] + d[1])]
    for h, (link, lag) in enumerate(expect):
        assert ns["p_hop"][h] == pytest.approx(np.interp(ns["t1"] - lag, t, p[link]),
                                               rel=1e-12)
    # measure: the path's marking probability 1 - prod(1 - p), from those
    ns.update(kk=1, active=np.ones(2, np.bool_))
    call(K.term_lists, ns)
    call(K.measure, ns)
    pa = 1.0 - (1.0 - ns["p_hop"][1]) * (1.0 - ns["p_hop"][2])
    assert ns["est_p"] == pytest.approx([ns["p_hop"][0], pa], rel=1e-12)
