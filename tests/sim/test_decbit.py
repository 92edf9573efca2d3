"""DECbit in packets: the gateway's regeneration-cycle average and bit, selective DECbit's
fair shares, the ACK echo, the window law, and the scheme end to end against theory.

References: K. K. Ramakrishnan, R. Jain, ACM TOCS 8(2), 1990 (averaging over the last
regeneration cycle plus the current busy period, bit at an average of 1; the window
decision every W_p + W_c ACKs from the last W_c bits, +1 / x0.875); K. K. Ramakrishnan,
D.-M. Chiu, R. Jain, DEC-TR-510, 1987 (selective feedback); Demers, Keshav, Shenker,
SIGCOMM 1989 (capacity factor 0.9, windows of 5).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, ScenarioError, allocate, simulate
from qosmodels.fairness import jain_index, maxmin_jain_index
from qosmodels.mechanisms import (
    Cbr,
    Decbit,
    DecbitWindow,
    DropTail,
    GenericWindow,
    TcpNewReno,
)
from qosmodels.sim import Record
from qosmodels.sim._kernels import layout as K
from qosmodels.sim._kernels.sources import decbit as dbw
from qosmodels.sim.compile import compile_scenario
from tests.sim.test_engine import assert_packets_conserved

from .jitcall import jitcall

SIZE = 1000          # bytes
SLOW = 8000.0        # bit/s: one 1000-byte packet takes S = 1 s to send
S = SIZE * 8 / SLOW  # s


def cbr_link(starts, period, queue, duration):
    """CBR flows of 1000-byte packets every ``period`` s, starting at ``starts``, on one
    8 kb/s link without propagation delay."""
    rate = SIZE * 8 / period
    flows = [Flow(["a", "b"], source=Cbr(rate=rate, packet_size=SIZE), start=t0) for t0 in starts]
    net = Network([Link("a", "b", SLOW, 0.0, buffer=100, queue=queue)], flows)
    return simulate(net, duration, seed=0, progress=False, record=Record(interval=duration))


# ------------------------------------------------------------------ the average, by hand
def test_a_lone_cbr_flow_averages_its_utilisation():
    # every packet finds the link idle: each regeneration cycle is one packet's busy
    # period S and an idle period T - S, so the average over the last cycle (at an
    # arrival the new busy period has length 0) is S / T; the first one's interval
    # [0, t0] held nothing
    T, t0 = 4.0, 0.5
    res = cbr_link([t0], T, Decbit(record_average=True), 30.0)
    avg = res.traces["decbit_average"].to_numpy()
    expected = [0.0] + [S / T] * (len(avg) - 1)
    assert len(avg) == 8
    np.testing.assert_allclose(avg, expected, rtol=1e-12, atol=0)
    assert res.link_drops["marks"][0] == 0


@pytest.mark.parametrize("T, marked", [(2.5, True), (4.0, False)])
def test_two_flows_in_phase_average_three_s_over_t(T, marked):
    # both packets arrive together every T: over a cycle the link holds 2 packets for S
    # and 1 for S, the integral is 3 S and the average 3 S / T (1.2 and 0.75): the pair
    # is marked iff 3 S / T >= 1; the first pair's interval [0, t0] held nothing
    t0, duration = 0.5, 20.6
    res = cbr_link([t0, t0], T, Decbit(record_average=True), duration)
    avg = res.traces["decbit_average"].to_numpy()
    pairs = int((duration - t0) // T) + 1
    assert len(avg) == 2 * pairs
    np.testing.assert_allclose(avg, [0.0, 0.0] + [3 * S / T] * (2 * pairs - 2), rtol=1e-12)
    assert res.link_drops["marks"][0] == (2 * pairs - 2 if marked else 0)


def test_the_current_busy_period_counts_too():
    # flow A arrives at t0 + kT, flow B half a service later (it waits S / 2).  In a cycle
    # the link holds 1 packet for S/2, 2 for S/2, then 1 for S: integral 2.5 S.  A finds
    # the link idle: average over the last cycle, 2.5 S / T; B arrives S/2 into the busy
    # period: (2.5 S + S/2) / (T + S/2).  B's first packet: 1 packet for S/2 over [0, 1].
    T, t0 = 4.0, 0.5
    res = cbr_link([t0, t0 + S / 2], T, Decbit(record_average=True), 21.0)
    avg = res.traces["decbit_average"].to_numpy()
    assert len(avg) == 12
    expected = [0.0, 0.5] + [2.5 * S / T, 3 * S / (T + S / 2)] * 5
    np.testing.assert_allclose(avg, expected, rtol=1e-12)


# ------------------------------------------------------------------ selective DECbit
def overloaded_pair(queue, duration=2.0):
    # 1 Mb/s link, A offers 0.9 Mb/s and B 0.3 Mb/s: overloaded (1.2 >= 0.9 Mb/s); the
    # max-min shares of 0.9 Mb/s are 0.45 each, B (0.3) is satisfied and A's share is
    # 0.9 - 0.3 = 0.6 Mb/s, below its 0.9: only A is at or above its share
    flows = [Flow(["a", "b"], source=Cbr(rate=0.9e6, packet_size=SIZE), start=0.05),
             Flow(["a", "b"], source=Cbr(rate=0.3e6, packet_size=SIZE), start=0.05)]
    net = Network([Link("a", "b", 1e6, 0.001, buffer=1000, queue=queue)], flows)
    return simulate(net, duration, seed=0, progress=False, record=Record(interval=duration))


def test_selective_bits_go_only_to_the_flow_above_its_share():
    res = overloaded_pair(Decbit(selective=True))
    c = res.counters
    assert c["arrived"][1] > 50 and c["marked"][1] == 0
    assert c["marked"][0] / c["arrived"][0] > 0.85
    assert res.link_drops["marks"][0] >= c["marked"][0]  # (and those still queued)


def test_plain_decbit_marks_both_flows_of_the_same_overload():
    res = overloaded_pair(Decbit())
    c = res.counters
    assert (c["marked"] / c["arrived"] > 0.85).all()


def test_selective_decbit_marks_nobody_below_its_target_and_short_queues():
    # 0.3 + 0.2 Mb/s on 1 Mb/s, packets never overlap: A's and B's periods are 26.7
    # and 40 ms, a packet takes 8 ms, and B starts 10 ms after A: at most 2 packets at
    # once, a cycle average below 1, and a total below 0.9 Mb/s: no bit at all
    flows = [Flow(["a", "b"], source=Cbr(rate=0.3e6, packet_size=SIZE), start=0.0),
             Flow(["a", "b"], source=Cbr(rate=0.2e6, packet_size=SIZE), start=0.01)]
    net = Network([Link("a", "b", 1e6, 0.001, queue=Decbit(selective=True))], flows)
    res = simulate(net, 3.0, seed=0, progress=False, record=Record(interval=3.0))
    assert res.counters["marked"].sum() == 0 and res.counters["arrived"].sum() > 150


# ------------------------------------------------------------------ the ACK path
def test_acks_are_not_marked_and_only_the_echo_carries_the_bit_back():
    # the reverse link b->a is a DECbit gateway overloaded by a CBR flow (its data is
    # marked), the forward link a->b is a DECbit gateway far from congestion: the
    # DECbit flow's ACKs cross the congested gateway unmarked, so its window grows to
    # its maximum and stays there
    links = [Link("a", "b", 10e6, 0.005, queue=Decbit()),
             Link("b", "a", 1e6, 0.005, buffer=2000, queue=Decbit())]
    flows = [Flow(["a", "b"], source=DecbitWindow(max_window=8), packet_size=SIZE),
             Flow(["b", "a"], source=Cbr(rate=1.2e6, packet_size=SIZE))]
    res = simulate(Network(links, flows), 5.0, seed=0, progress=False,
                   record=Record(interval=0.5))
    c = res.counters
    assert res.link_drops["marks"][1] > 100 and c["marked"][1] > 100  # the CBR data
    assert c["marked"][0] == 0 and res.link_drops["marks"][0] == 0
    assert c["acks_arrived"][0] > 100
    assert res.cwnd_series[-1, 0] == 8


# ------------------------------------------------------------------ the window law
def window_state(c, f=0):
    return (c.ff[f, K.FF_SS + dbw.DBW_W], c.fi[f, K.FI_SS + dbw.DBW_WP],
            c.fi[f, K.FI_SS + dbw.DBW_WC])


def test_the_window_law_on_a_hand_built_ack_sequence():
    # initial W = 1 (W_p = W_c = 1); each decision waits W_p + W_c ACKs and counts the
    # bits of the last W_c only; >= half set: W * 0.875 (at least 1), else W + 1 (at most 5)
    net = Network([Link("a", "b", 1e6, 0.01, queue=Decbit())],
                  [Flow(["a", "b"], source=DecbitWindow(max_window=5))])
    c = compile_scenario(net, 1.0, seed=0)
    steps = [  # (bits of the ACKs until the decision, W after, W_p, W_c)
        ([1, 0], 2.0, 1, 2),                # the first bit is W_p's: 0 of 1 set -> +1
        ([0, 1, 0], 1.75, 2, 1),            # last 2: 1 of 2 set (half) -> 2 * 0.875
        ([1, 1, 0], 2.75, 1, 2),            # last 1: 0 of 1 -> +1
        ([1, 0, 1], 2.40625, 2, 2),         # last 2: 1 of 2 -> 2.75 * 0.875
        ([1, 1, 0, 0], 3.40625, 2, 3),      # last 2: none -> +1
        ([1, 1, 0, 0, 1], 4.40625, 3, 4),   # last 3: 1 of 3 -> +1
        ([0] * 7, 5.0, 4, 5),               # capped at max_window
        ([1] * 9, 4.375, 5, 4),             # all set -> 5 * 0.875
    ]
    for bits, w, wp, wc in steps:
        for b in bits:
            jitcall(dbw.law)(c, 0, bool(b))
        assert window_state(c) == (pytest.approx(w, rel=1e-15), wp, wc)
    c.fi[0, K.FI_SND_UNA] = 17
    assert jitcall(dbw.send_limit)(c, 0) == 17 + 4  # floor(4.375) outstanding


def test_the_window_never_goes_below_one():
    net = Network([Link("a", "b", 1e6, 0.01, queue=Decbit())],
                  [Flow(["a", "b"], source=DecbitWindow(initial_window=1.0))])
    c = compile_scenario(net, 1.0, seed=0)
    for _ in range(10):
        jitcall(dbw.law)(c, 0, True)
    assert window_state(c) == (1.0, 1, 1)


# ------------------------------------------------------------------ bad input
def test_a_decbit_source_without_a_bit_setting_gateway_is_refused():
    links = [Link("a", "b", 1e6, 0.01, queue=DropTail()), Link("b", "c", 1e6, 0.01)]
    flows = [Flow(["a", "b", "c"], source=GenericWindow()),
             Flow(["a", "b", "c"], source=DecbitWindow())]
    with pytest.raises(ScenarioError, match=r"flow 'f1' has a DecbitWindow source, but no link "
                                            r"on its route sets the DECbit.*queue=Decbit\(\)"):
        simulate(Network(links, flows), 1.0, seed=0, progress=False)
    # a bit-setting gateway anywhere on the route will do
    links[1] = Link("b", "c", 1e6, 0.01, queue=Decbit())
    simulate(Network(links, flows), 1.0, seed=0, progress=False)


# ------------------------------------------------------------------ end to end
def test_decbit_sources_share_a_bottleneck_equally_around_an_average_queue_of_one():
    # N identical DECbit sources on one DECbit gateway: additive increase and
    # multiplicative decrease on a shared binary signal converge to equal windows
    # (Chiu and Jain 1989), hence equal throughput on equal round trips; the gateway
    # keeps its cycle-averaged queue (packets at the link, service included) near its
    # threshold of 1.  The windows' AIMD cycle (every flow +1 per two round trips,
    # then x0.875) swings the queue by about N packets around the threshold, hence
    # the band [0.75, 2] for both averages.  (With the bandwidth-delay product of 13.5
    # packets here the windows are free to move; were N minimal windows of 1 more than
    # the pipe holds plus one, the queue could not go down to 1.)
    n, cap = 4, 1e6
    links = [Link("s", "r", cap, 0.05, buffer=200, queue=Decbit(record_average=True))]
    flows = [Flow(["s", "r"], source=DecbitWindow(max_window=40), packet_size=SIZE,
                  start=0.1 * i) for i in range(n)]
    res = simulate(Network(links, flows), 200.0, seed=0, warmup=50.0, progress=False,
                   record=Record(interval=0.01))
    thr = res.throughput
    assert jain_index(thr) > 0.99
    k = res.t >= 50.0
    windows = np.nanmean(res.cwnd_series[k], axis=0)
    np.testing.assert_allclose(windows, windows.mean(), rtol=0.03)
    assert res.utilisation[0] > 0.9
    avg = res.traces["decbit_average"]
    assert 0.75 < avg[avg.index >= 50.0].mean() < 2.0   # at arrivals
    in_system = res.queue_series[k, 0].mean() + res.utilisation[0]  # time average
    assert 0.75 < in_system < 2.0
    assert res.link_drops["overflow"][0] == 0


def parking_lot(queue):
    """Three 1 Mb/s links in a row, one long DECbit flow across all three and one short
    one on each link."""
    nodes = ["n0", "n1", "n2", "n3"]
    links = [Link(a, b, 1e6, 0.005, buffer=200, queue=queue)
             for a, b in zip(nodes[:-1], nodes[1:])]
    src = DecbitWindow(max_window=30)
    flows = [Flow(nodes, source=src, packet_size=SIZE)] + \
        [Flow([a, b], source=src, packet_size=SIZE) for a, b in zip(nodes[:-1], nodes[1:])]
    return Network(links, flows)


def test_selective_decbit_on_a_parking_lot_approaches_the_max_min_shares():
    # the max-min shares of 0.9 Mb/s (capacity factor 0.9) per link are 0.45 Mb/s for
    # every flow.  Selective DECbit brings each flow within 20 % of it (what remains: the
    # long flow collects bits from three gateways and adds a packet per two of its
    # longer round trips, the residual unfairness Demers, Keshav and Shenker report);
    # plain DECbit, which marks everyone, gives the long flow a fraction of that
    net = parking_lot(Decbit(selective=True))
    shares = 0.9 * allocate(net, "maxmin").rates
    np.testing.assert_allclose(shares, 0.45e6, rtol=1e-6)
    res = simulate(net, 300.0, seed=0, warmup=100.0, progress=False, record=Record(interval=1.0))
    np.testing.assert_allclose(res.throughput, shares, rtol=0.2)
    assert maxmin_jain_index(res.throughput, shares) > 0.97
    plain = simulate(parking_lot(Decbit()), 300.0, seed=0, warmup=100.0, progress=False,
                     record=Record(interval=1.0))
    assert maxmin_jain_index(plain.throughput, shares) < 0.9
    assert plain.throughput[0] < 0.5 * shares[0]
    assert res.throughput[0] > 2 * plain.throughput[0]


# ------------------------------------------------------------------ bookkeeping
def mixed_decbit_network(selective: bool):
    """DECbit and drop-tail gateways, declared reverse links, DECbit, TCP and CBR flows."""
    links = [Link("a", "b", 2e6, 0.002, buffer=30, queue=Decbit(selective=selective)),
             Link("b", "c", 1e6, 0.004, buffer=20, queue=Decbit(selective=selective)),
             Link("c", "b", 1e6, 0.004, buffer=20, queue=Decbit(selective=selective)),
             Link("c", "d", 3e6, 0.001, buffer=10)]
    flows = [Flow(["a", "b", "c", "d"], source=DecbitWindow(max_window=20)),
             Flow(["b", "c"], source=DecbitWindow(max_window=10, initial_window=3.5)),
             Flow(["a", "b", "c"], source=TcpNewReno()),
             Flow(["b", "c", "d"], source=Cbr(rate=4e5, packet_size=500), start=1.0, stop=6.0)]
    return Network(links, flows)


@pytest.mark.parametrize("selective", [False, True])
def test_packets_are_conserved_through_decbit_gateways(selective):
    res = simulate(mixed_decbit_network(selective), 10.0, seed=3, progress=False,
                   record=Record(interval=1.0))
    assert_packets_conserved(res.counters)
    assert res.link_drops["marks"][:3].sum() > 0 and res.link_drops["marks"][3] == 0
    assert (res.throughput > 0).all()


_NOJIT = """
import json, sys
sys.path.insert(0, {root!r})
from tests.sim.test_decbit import mixed_decbit_network
from qosmodels import simulate
from qosmodels.sim import Record
res = simulate(mixed_decbit_network(True), 3.0, seed=5, progress=False, record=Record(interval=0.5))
print(json.dumps(dict(events=int(res.events), thr=res.throughput.tolist(),
                      marks=res.link_drops["marks"].tolist(), cw=res.cwnd_series.tolist())))
"""


def test_kernel_equals_pure_python_run_with_decbit():
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    out = {}
    for flag in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=flag)
        proc = subprocess.run([sys.executable, "-c", _NOJIT.format(root=root)], env=env,
                              capture_output=True, text=True, timeout=600, cwd=root)
        assert proc.returncode == 0, proc.stderr
        out[flag] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["0"]["events"] > 1000 and sum(out["0"]["marks"]) > 0
    assert out["0"] == out["1"]


def test_the_decbit_source_times_its_packets_with_the_generic_estimator():
    # one packet at a time over an idle DECbit gateway: every sample is the same round trip,
    # 8 ms of transmission plus 10 ms each way (ACKs on an undeclared reverse path)
    net = Network([Link("a", "b", 1e6, 0.010, queue=Decbit())],
                  [Flow(["a", "b"], source=DecbitWindow(max_window=1, initial_window=1,
                                                        packet_size=1000))])
    res = simulate(net, 5.0, seed=0, warmup=1.0, progress=False)
    assert res.counters["rtt_samples_window"][0] > 100
    assert res.mean_rtt_estimate[0] == pytest.approx(0.028, rel=1e-9)
