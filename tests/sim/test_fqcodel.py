"""FQ-CoDel in packets (``qosmodels.sim._kernels.queues.fqcodel``).

References, independent of the kernel: RFC 8290's Sections 4.1 (enqueue, the
overload drop from the fattest queue) and 4.2 (dequeue: new and old lists,
credits), with RFC 8289's Section 5 CoDel pseudo-code on each queue,
transcribed in plain Python on one link fed by CBR sources (:class:`RfcFqCodel`,
:func:`replay`): the simulator must give each flow the same deliveries, drops
and queueing delays.  The classification against the documented hash (written
out again here).  And FQ-CoDel's purpose (RFC 8290, Section 1; the sparse-flow
analysis of Hoeiland-Joergensen et al. 2018): a sparse flow among bulk TCP flows
waits about one packet's transmission, far below its wait behind a drop-tail
FIFO, and the bulk flows share the link equally (max-min).
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, simulate
from qosmodels.mechanisms import Cbr, DropTail, FqCodel, OnOff, TcpReno

DELAY = 1e-3  # s


def fmix32(h):
    # MurmurHash3's finaliser (Appleby), from its published definition
    h ^= h >> 16
    h = (h * 0x85EBCA6B) % 2**32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) % 2**32
    return h ^ (h >> 16)


class CodelQueue:
    """RFC 8289, Section 5, transcribed for one queue of ``(arrival time, bytes, flow)``
    packets (``bytes()`` the queue's own bytes)."""

    def __init__(self, target, interval, maxpacket):
        self.target, self.interval, self.maxpacket = target, interval, maxpacket
        self.q = deque()
        self.first_above_time = 0.0
        self.drop_next = 0.0
        self.count = 0
        self.lastcount = 0
        self.dropping = False

    def bytes(self):
        return sum(p[1] for p in self.q)

    def dodequeue(self, now):
        if not self.q:
            self.first_above_time = 0.0
            return None, False
        p = self.q.popleft()
        ok_to_drop = False
        if now - p[0] < self.target or self.bytes() <= self.maxpacket:
            self.first_above_time = 0.0
        elif self.first_above_time == 0.0:
            self.first_above_time = now + self.interval
        elif now >= self.first_above_time:
            ok_to_drop = True
        return p, ok_to_drop

    def dequeue(self, now, drops):
        p, ok_to_drop = self.dodequeue(now)
        if self.dropping:
            if not ok_to_drop:
                self.dropping = False
            while now >= self.drop_next and self.dropping:
                drops.append(p)
                self.count += 1
                p, ok_to_drop = self.dodequeue(now)
                if not ok_to_drop:
                    self.dropping = False
                else:
                    self.drop_next = self.drop_next + self.interval / math.sqrt(self.count)
        elif ok_to_drop:
            drops.append(p)
            p, ok_to_drop = self.dodequeue(now)
            self.dropping = True
            delta = self.count - self.lastcount
            self.count = 1
            if delta > 1 and now - self.drop_next < 16 * self.interval:
                self.count = delta
            self.drop_next = now + self.interval / math.sqrt(self.count)
            self.lastcount = self.count
        return p


class RfcFqCodel:
    """RFC 8290, Sections 4.1 and 4.2, transcribed: ``classify(flow)`` gives a packet's
    queue; ``limit`` packets at most; ``enqueue`` and ``dequeue`` as the RFC's text."""

    def __init__(self, classify, quantum, limit, target=0.005, interval=0.1, mtu=1514):
        self.classify, self.quantum, self.limit = classify, quantum, limit
        self.queues = {}
        self.credits = {}
        self.new, self.old = deque(), deque()
        self.codel = (target, interval, mtu)
        self.early, self.overflow = [], []

    def total(self):
        return sum(len(c.q) for c in self.queues.values())

    def enqueue(self, now, size, flow):
        i = self.classify(flow)
        if i not in self.queues:
            self.queues[i] = CodelQueue(*self.codel)
        self.queues[i].q.append((now, size, flow))
        if i not in self.new and i not in self.old:  # inactive: to the new list
            self.new.append(i)
            self.credits[i] = self.quantum
        if self.total() > self.limit:  # drop from the head of the fattest queue
            fat = max(sorted(self.queues), key=lambda j: self.queues[j].bytes())
            self.overflow.append(self.queues[fat].q.popleft())

    def dequeue(self, now):
        while True:
            if self.new:
                lst = self.new
            elif self.old:
                lst = self.old
            else:
                return None
            i = lst[0]
            if self.credits[i] <= 0:
                self.credits[i] += self.quantum
                lst.popleft()
                self.old.append(i)
                continue
            p = self.queues[i].dequeue(now, self.early)
            if p is not None:
                self.credits[i] -= p[1]
                return p
            lst.popleft()
            if lst is self.new:
                self.old.append(i)


def replay(arrivals, fq, capacity):
    """One link of ``capacity`` bit/s behind ``fq``: an arrival is enqueued, and the link
    dequeues whenever it is free (at once on an idle link).  Returns ``(sent, ties)``:
    the ``(arrival, bytes, flow, start)`` of every packet sent, and whether an arrival
    came at the instant a transmission ended (their order would be a convention)."""
    sent, busy_until, ties, k = [], None, False, 0
    while k < len(arrivals) or busy_until is not None:
        if busy_until is not None and (k == len(arrivals) or busy_until < arrivals[k][0]):
            t = busy_until
            busy_until = None
        else:
            t, size, flow = arrivals[k]
            k += 1
            ties |= busy_until is not None and t == busy_until
            fq.enqueue(t, size, flow)
            if busy_until is not None:
                continue
        p = fq.dequeue(t)
        if p is not None:
            sent.append((*p, t))
            busy_until = t + p[1] * 8 / capacity
    return sent, ties


def source_trace(start, stop, size, rate, on=math.inf, off=0.0):
    """A CBR (``on`` infinite) or deterministic on/off source's send times as the
    simulator's ticks compute them (``next = now + bits / rate``; past the on period's
    end, the next on period's start)."""
    out, t, gap, on_end = [], start, size * 8 / rate, start + on
    while t < stop:
        out.append(t)
        t = t + gap
        if t >= on_end:
            t = on_end + off
            on_end = t + on
    return out


CAP = 1e6  # bit/s
#: CBR flows (bytes, bit/s, start, stop): two overloading the link (CoDel drops them), a
#: sparse one, one joining late and one of odd-sized packets.
SPECS = [(1000, 420_011.0, 0.0, 6.0), (500, 390_007.0, 0.0213, 5.5), (120, 20_003.0, 0.1117, 6.0),
         (1400, 260_009.0, 2.0371, 4.2), (333, 80_021.0, 0.5093, 6.0), (700, 150_013.0, 1.3,
                                                                          3.0)]
#: On/off flows (bytes, bit/s, start, stop, on, off): queues that drain and refill, so
#: queues leave the lists, come back new, and CoDel's dropping state ends and restarts.
ONOFF = [(1000, 900_017.0, 0.0, 6.0, 0.7, 0.4), (600, 500_009.0, 0.0311, 6.0, 0.45, 0.35),
         (150, 30_011.0, 0.0719, 6.0, 0.25, 0.05), (1500, 1_300_021.0, 0.9137, 5.0, 0.2, 0.9)]


def arrivals_of(specs):
    arr = sorted((t, spec[0], i) for i, spec in enumerate(specs)
                 for t in source_trace(*spec[2:4], *spec[:2], *spec[4:]))
    times = [a[0] for a in arr]
    assert len(set(times)) == len(times)
    return arr


def sources(specs):
    return [Flow(["a", "b"], start=sp[2], stop=sp[3],
                 source=Cbr(rate=sp[1], packet_size=sp[0]) if len(sp) == 4 else
                 OnOff(rate=sp[1], packet_size=sp[0], on_time=sp[4], off_time=sp[5],
                       exponential=False)) for sp in specs]


def run(flows, queue, *, buffer, duration, cap=CAP, warmup=0.0):
    net = Network([Link("a", "b", cap, DELAY, buffer=buffer, queue=queue)], flows)
    return simulate(net, duration, seed=1, warmup=warmup, progress=False)


@pytest.mark.parametrize("specs, queue, buffer", [
    (SPECS, FqCodel(exact=True), 10_000),          # CoDel's drops only
    (SPECS, FqCodel(exact=True), 12),              # and overflow drops from the fattest queue
    (SPECS, FqCodel(flows=4), 8),                  # hashed: flows share queues
    (SPECS, FqCodel(flows=3, perturbation=7, quantum=600), 8),
    (ONOFF, FqCodel(exact=True), 10_000),
    (ONOFF, FqCodel(exact=True, quantum=300, target=0.01, interval=0.05), 12),
    (ONOFF, FqCodel(flows=2, perturbation=3), 10_000),
], ids=["cbr", "cbr-overflow", "cbr-hash4", "cbr-hash3", "onoff", "onoff-overflow",
        "onoff-hash2"])
def test_departures_and_drops_match_a_replay_of_the_rfc(specs, queue, buffer):
    arr = arrivals_of(specs)
    if queue.exact:
        def classify(f):
            return f
    else:
        def classify(f):
            return fmix32((2 * f) ^ queue.perturbation) * queue.flows // 2**32
    fq = RfcFqCodel(classify, queue.quantum, buffer, queue.target, queue.interval, queue.mtu)
    sent, ties = replay(arr, fq, CAP)
    assert not ties
    assert len(sent) + len(fq.early) + len(fq.overflow) == len(arr)
    assert len(fq.early) > 20  # CoDel acts
    assert (len(fq.overflow) > 20) == (buffer < 100)
    res = run(sources(specs), queue, buffer=buffer, duration=12.0)
    assert res.link_drops["early"][0] == len(fq.early)
    assert res.link_drops["overflow"][0] == len(fq.overflow)
    flow_of = np.array([p[2] for p in sent])
    wait = np.array([p[3] - p[0] for p in sent])
    for i in range(len(specs)):
        dropped = sum(p[2] == i for p in fq.early + fq.overflow)
        assert res.counters["dropped"][i] == dropped
        w = wait[flow_of == i]
        assert res.counters["delivered"][i] == w.size
        assert res.mean_queueing_delay[i] == pytest.approx(w.mean(), rel=1e-9, abs=1e-12)
        assert res.max_queueing_delay[i] == pytest.approx(w.max(), rel=1e-12, abs=1e-12)


def test_the_replay_is_not_first_come_first_served():
    # the reference itself: a new queue's packet overtakes the backlogged queues (the new
    # list), so the sending order differs from the arrival order, and the sparse flow (2)
    # waits far less than the flows above their fair share (0 and 1)
    fq = RfcFqCodel(lambda f: f, 1514, 10_000)
    sent, _ = replay(arrivals_of(SPECS), fq, CAP)
    assert [p[0] for p in sent] != sorted(p[0] for p in sent)
    wait = {i: np.mean([p[3] - p[0] for p in sent if p[2] == i]) for i in range(3)}
    assert wait[2] < wait[0] / 5 and wait[2] < wait[1] / 5


@pytest.mark.parametrize("flows, perturbation", [(4, 0), (4, 99), (1024, 0)])
def test_hashed_flows_share_queues_as_the_documented_hash_says(flows, perturbation):
    # 16 CBR flows on flows=4 queues: the kernel's queue of each conversation (data one
    # way) is the documented hash's, so flows put together share one ring
    from qosmodels.sim._kernels.queues import fqcodel
    from qosmodels.sim.compile import compile_scenario

    q = FqCodel(flows=flows, perturbation=perturbation)
    net = Network([Link("a", "b", CAP, DELAY, queue=q)],
                  [Flow(["a", "b"], source=Cbr(rate=1e4, packet_size=100)) for _ in range(16)])
    S = compile_scenario(net, 1.0, seed=1)
    bucket = [fmix32(2 * f ^ perturbation) * flows // 2**32 for f in range(16)]
    xs = S.lk_pos[S.lk_ptr[0]:S.lk_ptr[1]]
    assert list(xs) == list(range(16))  # flow f's data: crossing r_ptr[f] = f (one hop each)
    assert [int(S.hsi[x, fqcodel.HSI_BUCKET]) for x in xs] == bucket
    # flows of one bucket share a ring and a queue state row; other buckets do not
    for x in xs:
        for y in xs:
            same = bucket[x] == bucket[y]
            assert (S.hsi[x, fqcodel.HSI_SLOT] == S.hsi[y, fqcodel.HSI_SLOT]) == same
            assert (S.hsi[x, fqcodel.HSI_QUEUE] == S.hsi[y, fqcodel.HSI_QUEUE]) == same
    slot_of = {int(S.hsi[x, fqcodel.HSI_SLOT]) for x in xs}
    assert len(slot_of) == len(set(bucket))
    if flows == 4:
        assert len(set(bucket)) <= 4 < 16  # collisions


def sparse_among_bulk(n_bulk, queue, buffer, duration=20.0):
    """``n_bulk`` Reno flows (1500-byte packets) and a sparse CBR flow (one 200-byte packet every 50 ms) on
    a 10 Mb/s, 20 ms bottleneck; the sparse flow is the last."""
    flows = [Flow(["a", "b"], source=TcpReno(), start=0.013 * i, packet_size=1500)
             for i in range(n_bulk)]
    flows.append(Flow(["a", "b"], source=Cbr(rate=200 * 8 / 0.05, packet_size=200),
                      start=1.0037))
    return run(flows, queue, buffer=buffer, duration=duration, cap=10e6, warmup=5.0)


@pytest.mark.parametrize("n_bulk", [1, 4, 8])
def test_a_sparse_flow_waits_about_one_packet_where_a_fifo_makes_it_wait_long(n_bulk):
    # RFC 8290 Section 1.3 / Hoeiland-Joergensen et al. 2018: a sparse flow's queue is
    # new at each packet, served ahead of the bulk queues: it waits at most for the
    # packet in transmission (1500 bytes: 1.2 ms at 10 Mb/s), plus a quantum of any other
    # queue that is new at the time (seen here: never; max 1.18 ms, mean 0.62 ms)
    tx = 1500 * 8 / 10e6
    fq = sparse_among_bulk(n_bulk, FqCodel(), buffer=1000)
    fifo = sparse_among_bulk(n_bulk, DropTail(), buffer=300)
    s = n_bulk
    assert fq.counters["dropped"][s] == 0
    assert fq.mean_queueing_delay[s] < tx and fq.max_queueing_delay[s] < 2 * tx
    assert fifo.mean_queueing_delay[s] > 20 * tx
    # the bulk flows keep the link busy and share it equally (max-min)
    rates = fq.throughput[:n_bulk]
    assert rates.sum() > 0.9 * (10e6 - fq.throughput[s])
    assert rates.max() / rates.min() < 1.05


def test_ecn_marks_replace_codels_drops():
    # ECN-capable Reno flows: CoDel's decisions become marks (no early drop), and the
    # senders react to them as to drops (the queueing delay stays low, shares equal);
    # without ecn the same decisions are drops
    def bulk(ecn, queue):
        flows = [Flow(["a", "b"], source=TcpReno(ecn=ecn), start=0.011 * i, packet_size=1500)
                 for i in range(4)]
        return run(flows, queue, buffer=1000, duration=20.0, cap=10e6, warmup=5.0)

    marked = bulk(True, FqCodel(ecn=True))
    assert marked.link_drops["early"][0] == 0 and marked.link_drops["overflow"][0] == 0
    assert marked.link_drops["marks"][0] > 50
    # (the receivers have seen the marks but those of packets still in flight at the end)
    assert 0.99 * marked.link_drops["marks"][0] <= marked.counters["marked"].sum() \
        <= marked.link_drops["marks"][0]
    assert marked.mean_queueing_delay.max() < 0.02
    assert marked.throughput.max() / marked.throughput.min() < 1.05
    dropped = bulk(False, FqCodel(ecn=True))  # ecn on the queue, senders not ECN-capable
    assert dropped.link_drops["marks"][0] == 0 and dropped.link_drops["early"][0] > 50


def test_two_way_traffic_hashes_acks_apart_and_conserves_packets():
    # flows both ways over FqCodel(flows=4) links: each link's data and ACK conversations
    # are classified by the documented hash (key 2 f + 1 for ACKs), and every packet is
    # delivered, dropped or still in the network
    from qosmodels.sim._kernels.queues import fqcodel
    from qosmodels.sim.compile import compile_scenario
    from tests.sim.test_engine import assert_packets_conserved

    q = FqCodel(flows=4, perturbation=5)
    links = [Link("a", "b", 2e6, 0.01, buffer=20, queue=q),
             Link("b", "a", 2e6, 0.01, buffer=20, queue=q)]
    flows = [Flow(["a", "b"] if i % 2 else ["b", "a"], source=TcpReno(), start=0.01 * i)
             for i in range(6)] + [Flow(["a", "b"], source=Cbr(rate=5e4, packet_size=200))]
    net = Network(links, flows)
    S = compile_scenario(net, 1.0, seed=1)
    n_data = int(net.route_ptr[-1])
    for link in range(2):
        for x in S.lk_pos[S.lk_ptr[link]:S.lk_ptr[link + 1]]:
            ack = bool(x >= n_data)
            f = int(x) if not ack else int(x) - n_data  # one hop each way: crossing ids
            want = fmix32((2 * f + ack) ^ 5) * 4 // 2**32
            assert S.hsi[x, fqcodel.HSI_BUCKET] == want
    res = simulate(net, 10.0, seed=1, progress=False)
    assert_packets_conserved(res.counters)
    assert res.counters["acks_sent"].sum() > 1000 and res.counters["dropped"].sum() > 0


_NOJIT = """
import json
from qosmodels import Flow, Link, Network, simulate
from qosmodels.mechanisms import Cbr, FqCodel, OnOff, TcpReno
q = FqCodel(flows=2, perturbation=11, ecn=True, quantum=900)
links = [Link("a", "b", 1e6, 0.005, buffer=15, queue=q), Link("b", "a", 1e6, 0.005, buffer=15,
         queue=FqCodel(exact=True, target=0.002, interval=0.03))]
flows = [Flow(["a", "b"], source=TcpReno(ecn=True)), Flow(["b", "a"], source=TcpReno()),
         Flow(["a", "b"], source=TcpReno(), start=0.2),
         Flow(["a", "b"], source=OnOff(rate=6e5, on_time=0.3, off_time=0.2, exponential=False)),
         Flow(["b", "a"], source=Cbr(rate=3e4, packet_size=100))]
r = simulate(Network(links, flows), 3.0, seed=3, progress=False)
print(json.dumps(dict(events=int(r.events), delivered=r.counters["delivered"].tolist(),
                      dropped=r.counters["dropped"].tolist(),
                      delay=r.mean_queueing_delay.tolist(),
                      drops={k: v.tolist() for k, v in r.link_drops.items()})))
"""


def test_kernel_equals_pure_python_run():
    # DESIGN.md practice 6: the same scenario (hashed and exact queues, ECN marks, CoDel
    # and overflow drops, both directions) with and without the JIT, exactly
    import json
    import os
    import subprocess
    import sys

    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    out = {}
    for flag in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=flag, PYTHONPATH=root)
        proc = subprocess.run([sys.executable, "-c", _NOJIT], env=env, capture_output=True,
                              text=True, timeout=600, cwd=root)
        assert proc.returncode == 0, proc.stderr
        out[flag] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["0"]["events"] > 1000
    assert sum(out["0"]["drops"]["early"]) > 0 and sum(out["0"]["drops"]["marks"]) > 0
    assert sum(out["0"]["drops"]["overflow"]) > 0
    assert out["0"] == out["1"]
