"""DualPI2 in packets (``qosmodels.sim._kernels.queues.dualpi2``) and ECT(1).

References, independent of the kernel: RFC 9332 Appendix A's ``dualpi2_enqueue``,
``dualpi2_dequeue`` (A.2's form: the overload branches, ``Th_len`` on the packets left
in the L queue, ``p_Cmax``), ``recur`` (one accumulator per queue), ``laqm`` and
``dualpi2_update`` (``curq`` the larger of the two queues' delays), transcribed in plain
Python below and replayed on one link fed by two deterministic constant-rate sources
(one sending ECT(1), one not-ECT or ECT(0)): the same ``p'`` at every update, the same
marks and drops at the same times.  (The pseudo-code as two independent
re-implementations quote it -- picoquic's ``dualq_aqm.c`` and a Go ``dualpi2`` of
mengelbart/netsim's users -- and as Linux ``sch_dualpi2.c`` agrees on those lines; the
RFC's own text could not be fetched.)  Then DualPI2's purpose
(RFC 9332, Sections 1 and 2): a scalable sender in the L queue keeps it near its
marking threshold while Classic TCP keeps the Classic queue near the 15 ms target.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, simulate
from qosmodels.mechanisms import Cbr, Dctcp, DualPi2, Red, TcpNewReno
from qosmodels.sim._kernels.layout import FI_ECN
from qosmodels.sim._kernels.sources import cbr as cbr_kernel

from .test_codel import source_times


class RfcDualPi2:
    """RFC 9332's DualPI2 at one link, transcribed from Appendix A (A.2's form: the
    overload branches, ``Th_len``, ``p_Cmax``, ``curq`` the larger queue delay); packets
    are their arrival times with a class (True: L) and an ECN capability; at most
    ``buffer`` waiting in the two queues."""

    def __init__(self, spec: DualPi2, buffer, bits=None):
        self.s, self.buffer = spec, buffer
        # Linux sch_dualpi2.c's weighted round robin ("wrr"): the credit in bits, its
        # reset value MTU (w_C - w_L) with every packet of ``bits`` bits (the MTU)
        self.bits = bits
        self.credit0 = (None if spec.scheduler != "wrr"
                        else bits * (spec.c_protection - (1 - spec.c_protection)))
        self.credit = self.credit0
        self.lq, self.cq = deque(), deque()
        self.p = 0.0          # p'
        self.prevq = 0.0
        self.count = {"lq": 0.0, "cq": 0.0}   # lq.count, cq.count
        self.probs, self.l_marks, self.c_signals = [], [], []
        self.overflow = self.early = self.marks = 0

    def recur(self, q, likelihood):
        self.count[q] += likelihood
        if self.count[q] > 1:
            self.count[q] -= 1
            return True
        return False

    def laqm(self, qdelay):
        s = self.s
        if qdelay >= s.min_th + s.range:
            return 1.0
        if qdelay > s.min_th:
            return (qdelay - s.min_th) / s.range
        return 0.0

    def treat(self, now, in_l, ecn, sojourn, l_rest):
        """The dequeue's treatment: 'drop', 'mark' or 'pass'; ``l_rest`` packets remain in
        the L queue after this one."""
        s = self.s
        # p_C = p'^2 as one rounded product (C's pow(), behind ``** 2``, may be 1 ulp off)
        p_cl, p_c = s.k * self.p, self.p * self.p
        if in_l:
            if p_cl < 1:
                p_nat = self.laqm(sojourn) if l_rest > s.th_len else 0.0
                p_l = max(p_nat, p_cl)
                if self.recur("lq", p_l):
                    self.l_marks.append((now, p_l))
                    self.marks += 1
                    return "mark"
                return "pass"
            if self.recur("lq", p_c):        # revert to Classic drop due to overload
                self.c_signals.append((now, p_c))
                return "drop"
            if self.recur("lq", p_cl):       # linear marking of the remaining packets
                self.l_marks.append((now, p_cl))
                self.marks += 1
                return "mark"
            return "pass"
        if self.recur("cq", p_c):
            self.c_signals.append((now, p_c))
            if not ecn or p_c >= min(1 / s.k ** 2, 1):  # overload disables ECN
                return "drop"
            self.marks += 1
            return "mark"
        return "pass"

    def enqueue(self, now, pkt, idle):
        """True if the link starts sending it at once."""
        in_l, ecn = pkt
        if idle:
            if self.treat(now, in_l, ecn, 0.0, 0) == "drop":
                self.early += 1
                return False
            return True
        if len(self.lq) + len(self.cq) >= self.buffer:
            self.overflow += 1
            return False
        (self.lq if in_l else self.cq).append((now, ecn))
        return False

    def dequeue(self, now):
        """Whether a packet leaves (the link stays busy)."""
        wrr = self.s.scheduler == "wrr"
        while self.lq or self.cq:
            n_l, n_c = len(self.lq), len(self.cq)
            if wrr:  # Linux dequeue_packet: L if not empty and (C empty or credit <= 0)
                take_l = n_l > 0 and (n_c == 0 or self.credit <= 0)
            else:
                take_l = n_l > 0 and (n_c == 0 or (now - self.lq[0][0]) + self.s.tshift
                                      > (now - self.cq[0][0]))
            if take_l:
                in_l, (t, ecn) = True, self.lq.popleft()
            else:
                in_l, (t, ecn) = False, self.cq.popleft()
            if self.treat(now, in_l, ecn, now - t, len(self.lq)) == "drop":
                self.early += 1
                continue
            if wrr:  # the credit moves only for a packet sent while the other queue waits
                w_c = self.s.c_protection
                if in_l and n_c:
                    self.credit += w_c * self.bits
                elif not in_l and n_l:
                    self.credit -= (1 - w_c) * self.bits
            return True
        if wrr:
            self.credit = self.credit0
        return False

    def update(self, now):
        s = self.s
        curq = max(now - self.cq[0][0] if self.cq else 0.0,
                   now - self.lq[0][0] if self.lq else 0.0)
        self.p = self.p + s.alpha * (curq - s.target) + s.beta * (curq - self.prevq)
        self.p = min(max(self.p, 0.0), 1.0)
        self.prevq = curq
        self.probs.append((now, self.p))


def replay_link(arrivals, capacity, bits, duration, aqm: RfcDualPi2):
    """One link of ``capacity`` bit/s behind ``aqm``; ``arrivals``: sorted (time, pkt).
    Returns the departures."""
    tx = bits / capacity
    busy_until = next_update = math.inf
    sent = i = 0
    while True:
        a = arrivals[i][0] if i < len(arrivals) else math.inf
        t = min(a, busy_until, next_update)
        assert [a, busy_until, next_update].count(t) == 1, "a tie: pick other rates"
        if t > duration:
            break
        if t == next_update:
            aqm.update(t)
            next_update = t + aqm.s.t_update
        elif t == a:
            pkt = arrivals[i][1]
            i += 1
            if next_update == math.inf:
                next_update = t + aqm.s.t_update
            if aqm.enqueue(t, pkt, busy_until == math.inf):
                busy_until = t + tx
        else:
            sent += 1
            busy_until = t + tx if aqm.dequeue(t) else math.inf
    return sent


def ect1_cbr(monkeypatch, rates_ecn):
    """Give CBR flows ECN codepoints by hand (FI_ECN: 0 not-ECT, 1 ECT(0), 2 ECT(1)):
    ``rates_ecn`` maps a rate to its codepoint (Cbr has no ECN option of its own)."""
    orig = cbr_kernel.setup

    def setup(spec, ff, fi):
        w = orig(spec, ff, fi)
        fi[FI_ECN] = rates_ecn[spec.rate]
        return w
    monkeypatch.setattr(cbr_kernel, "setup", setup)


SCENARIOS = {
    # both overload the link together: p' climbs, the L flow gets coupled and native
    # marks, the not-ECT Classic flow squared drops
    "overload-not-ect": dict(l_rate=734_567.0, c_rate=611_113.0, c_ecn=0, buffer=1000,
                             spec=DualPi2(record=True)),
    # the Classic flow is ECT(0): marks instead of drops; a step (range 0), Th_len 3
    "ect0-step": dict(l_rate=834_561.0, c_rate=531_119.0, c_ecn=1, buffer=1000,
                      spec=DualPi2(range=0.0, th_len=3, record=True)),
    # k = 2, the Classic flow ECT(0): p' passes 1/k = 0.5, where the L queue's overload
    # branch starts and p_C reaches p_Cmax = 1/4, where Classic ECT(0) packets are dropped
    "overload-ect0": dict(l_rate=734_567.0, c_rate=611_113.0, c_ecn=1, buffer=1000,
                          spec=DualPi2(record=True)),
    # k = 1 and a small buffer: p' reaches 1/k, the L queue's overload branch
    # (Classic drops of L packets), and overflow drops
    "saturation": dict(l_rate=1_534_561.0, c_rate=931_117.0, c_ecn=0, buffer=40,
                       spec=DualPi2(k=1.0, tshift=0.01, record=True)),
    # Linux's weighted round robin instead of the time-shifted FIFO, with a Classic
    # weight that makes the credit cross 0 often (both queues backlogged)
    "wrr-overload": dict(l_rate=734_567.0, c_rate=611_113.0, c_ecn=1, buffer=1000,
                         spec=DualPi2(scheduler="wrr", c_protection=0.3, record=True)),
    "wrr-saturation": dict(l_rate=1_534_561.0, c_rate=931_117.0, c_ecn=0, buffer=40,
                           spec=DualPi2(k=1.0, scheduler="wrr", record=True)),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_marks_drops_and_updates_match_rfc_9332_pseudocode(name, monkeypatch):
    sc = SCENARIOS[name]
    capacity, size, duration, seed = 1.13e6, 1000, 6.789, 5
    q = sc["spec"]
    ect1_cbr(monkeypatch, {sc["l_rate"]: 2, sc["c_rate"]: sc["c_ecn"]})
    net = Network([Link("a", "b", capacity, 0.0, buffer=sc["buffer"], queue=q)],
                  [Flow(["a", "b"], source=Cbr(rate=sc["l_rate"]), packet_size=size),
                   Flow(["a", "b"], source=Cbr(rate=sc["c_rate"]), packet_size=size)])
    r = simulate(net, duration, seed=seed, progress=False)
    bits = 8.0 * size
    # (both sources start at 0: the L flow, listed first, sends first)
    arrivals = sorted([(t, 0, (True, True)) for t in source_times(sc["l_rate"], bits, duration)]
                      + [(t, 1, (False, sc["c_ecn"] != 0))
                         for t in source_times(sc["c_rate"], bits, duration)])
    arrivals = [(t, pkt) for t, _, pkt in arrivals]
    ref = RfcDualPi2(q, sc["buffer"], bits)
    sent = replay_link(arrivals, capacity, bits, duration, ref)
    probs = r.traces["dualpi2_prob"]
    lm, cs = r.traces["dualpi2_l_marks"], r.traces["dualpi2_c_signals"]
    assert len(ref.l_marks) > 50 and len(ref.c_signals) > 50  # something to compare
    np.testing.assert_array_equal(probs.index.to_numpy(), [t for t, _ in ref.probs])
    np.testing.assert_array_equal(probs.to_numpy(), [p for _, p in ref.probs])
    np.testing.assert_array_equal(lm.index.to_numpy(), [t for t, _ in ref.l_marks])
    np.testing.assert_array_equal(lm.to_numpy(), [p for _, p in ref.l_marks])
    np.testing.assert_array_equal(cs.index.to_numpy(), [t for t, _ in ref.c_signals])
    np.testing.assert_array_equal(cs.to_numpy(), [p for _, p in ref.c_signals])
    assert r.link_drops["early"][0] == ref.early
    assert r.link_drops["overflow"][0] == ref.overflow
    assert r.link_drops["marks"][0] == ref.marks
    assert r.counters["link_departures"][0] == sent
    if name == "saturation":
        assert max(p for _, p in ref.probs) == 1.0 and ref.overflow > 0
    if name == "overload-ect0":  # ECT(0) Classic packets both marked and dropped
        assert ref.marks > len(ref.l_marks) and ref.early > 50


def test_l_queue_alone_drives_the_base_probability(monkeypatch):
    """RFC 9332 Appendix A.2's ``dualpi2_update`` takes the larger of the two queues'
    delays: an unresponsive ECT(1) flow overloading the link alone (the Classic queue
    empty) still drives ``p'`` up, past the overload point ``1 / k`` (a Classic-only
    ``curq`` would leave it at 0), and then the L queue's overload branch drops its
    packets."""
    ect1_cbr(monkeypatch, {1_500_000.0: 2})
    net = Network([Link("a", "b", 1e6, 0.0, buffer=100000, queue=DualPi2(record=True))],
                  [Flow(["a", "b"], source=Cbr(rate=1_500_000.0), packet_size=1000)])
    r = simulate(net, 3.0, seed=1, progress=False)
    probs = r.traces["dualpi2_prob"]
    assert probs.max() > 0.5
    assert r.link_drops["early"][0] > 0


def test_scalable_and_classic_flows_keep_their_queues_near_the_rfc_targets():
    """RFC 9332, Sections 1 and 2.5: DCTCP sending ECT(1) sees about the L queue's
    ~1 ms threshold, NewReno the Classic queue's 15 ms target, the link busy; the same
    DCTCP with ECT(0) is Classic and queues with NewReno."""
    c, rtt = 20e6, 0.02

    def run(ect1):
        net = Network([Link("s", "d", c, rtt / 2, buffer=2000, queue=DualPi2())],
                      [Flow(["s", "d"], source=Dctcp(ect1=ect1), packet_size=1500),
                       Flow(["s", "d"], source=TcpNewReno(), packet_size=1500)])
        return simulate(net, 30.0, warmup=10.0, seed=1, progress=False)

    r = run(True)
    qd = r.mean_queueing_delay
    assert qd[0] < 2e-3, qd                 # the L queue: about its 0.8-1.2 ms ramp
    assert 5e-3 < qd[1] < 30e-3, qd         # the Classic queue: about the 15 ms target
    assert r.utilisation[0] > 0.95
    r0 = run(False)  # ECT(0): both in the Classic queue
    assert r0.mean_queueing_delay[0] > 5e-3, r0.mean_queueing_delay


def test_classic_aqms_treat_ect1_as_ecn_capable():
    """RFC 9331 Section 5.1: a classic AQM marks ECT(1) as it marks ECT(0); with RED
    marking, Dctcp(ect1=True) gives the same run as Dctcp()."""
    def run(ect1):
        net = Network([Link("s", "d", 10e6, 0.01, buffer=200,
                            queue=Red(min_th=5, max_th=15, max_p=0.1, ecn=True))],
                      [Flow(["s", "d"], source=Dctcp(ect1=ect1), packet_size=1000)])
        return simulate(net, 5.0, seed=3, progress=False)

    a, b = run(True), run(False)
    assert a.link_drops["marks"][0] > 0
    np.testing.assert_array_equal(a.throughput, b.throughput)
    np.testing.assert_array_equal(a.link_drops["marks"], b.link_drops["marks"])


@pytest.mark.parametrize("w_c", [0.1, 0.25])
def test_round_robin_gives_the_classic_queue_its_weight_while_both_are_backlogged(
        w_c, monkeypatch):
    """Linux's round robin (``scheduler="wrr"``): with both queues always backlogged and
    the AQM idle (``alpha = beta = 0``: ``p'`` stays 0, nothing is marked or dropped but
    overflow), the Classic queue sends ``c_protection`` of the bits; the time-shifted FIFO
    instead shares by waiting time."""
    l_rate, c_rate, cap = 1_800_000.0, 1_700_000.0, 1e6
    ect1_cbr(monkeypatch, {l_rate: 2, c_rate: 0})

    def classic_share(**kw):
        q = DualPi2(alpha=0.0, beta=0.0, **kw)
        # a buffer never full: with a full shared buffer the arrivals, not the scheduler,
        # would decide (the Classic queue holding the buffer starves the L queue)
        net = Network([Link("a", "b", cap, 0.0, buffer=100_000, queue=q)],
                      [Flow(["a", "b"], source=Cbr(rate=l_rate), packet_size=1000),
                       Flow(["a", "b"], source=Cbr(rate=c_rate), packet_size=1000)])
        r = simulate(net, 20.0, warmup=5.0, seed=1, progress=False)
        got = np.asarray(r.throughput)
        assert r.link_drops["early"][0] == 0 and r.link_drops["overflow"][0] == 0
        assert r.utilisation[0] > 0.999
        return got[1] / got.sum()

    assert classic_share(scheduler="wrr", c_protection=w_c) == pytest.approx(w_c, abs=0.002)
    # the time-shifted FIFO: the Classic head waits at most tshift longer than the L head,
    # a different share (not w_c)
    assert abs(classic_share() - w_c) > 0.05
