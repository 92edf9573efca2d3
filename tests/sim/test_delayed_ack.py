"""Delayed ACKs in the TCP receiver (``qosmodels/sim/_kernels/delack.py``), with DCTCP's echo.

References, independent of the kernel: a hand trace of a one-link network (the times and
cumulative values of the ACKs, from the link's transmission and propagation times and
RFC 5681 4.2's rules: an ACK for every second in-order packet, or when the delayed-ACK
timer fires; the sender's slow start adding one packet per ACK, RFC 5681 3.1); plain-
Python transcriptions of RFC 5681 4.2 and RFC 8257 3.2 (the receiver's ACKs and their
ECE for a given CE pattern), which the kernel's ACKs must equal one by one; the marked
fraction of packets the receiver counts, which DCTCP's ``alpha`` must follow when each
ACK covers packets of one CE value.
"""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, simulate
from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.mechanisms import (
    Cubic,
    Dctcp,
    DropTail,
    Prague,
    RandomLoss,
    TcpNewReno,
    TcpReno,
)
from qosmodels.sim import Record
from qosmodels.sim._kernels import delack, pool, receiver, sender
from qosmodels.sim._kernels import layout as K
from qosmodels.sim.compile import compile_scenario
from qosmodels.topologies import dumbbell

from .jitcall import jitcall
from .test_engine import assert_packets_conserved

TCP = (TcpReno, TcpNewReno, Dctcp, Prague, Cubic)


# ------------------------------------------------------------------ the spec's fields
@pytest.mark.parametrize("cls", TCP)
@pytest.mark.parametrize("kw, exc, match", [
    (dict(delayed_ack=0), ScenarioError, r"\.delayed_ack must be >= 1 .*got 0"),
    (dict(delayed_ack=-2), ScenarioError, r"\.delayed_ack must be >= 1 .*got -2"),
    (dict(delayed_ack=2.5), ScenarioError, r"\.delayed_ack must be a whole number.*got 2\.5"),
    (dict(delayed_ack="2"), ScenarioTypeError, r"\.delayed_ack must be an integer.*'2'.*str"),
    (dict(delayed_ack=True), ScenarioTypeError, r"\.delayed_ack must be an integer.*bool"),
    (dict(delayed_ack=2, delayed_ack_timeout=0.0), ScenarioError,
     r"\.delayed_ack_timeout must be > 0"),
    (dict(delayed_ack=2, delayed_ack_timeout=-0.1), ScenarioError,
     r"\.delayed_ack_timeout must be > 0"),
    (dict(delayed_ack=2, delayed_ack_timeout=0.6), ScenarioError,
     r"\.delayed_ack_timeout must be at most 0\.5 s \(RFC 1122.*got 0\.6"),
    (dict(delayed_ack_timeout="0.2"), ScenarioTypeError, r"\.delayed_ack_timeout must be a real"),
    (dict(ack_counting="bytes"), ScenarioError, r"\.ack_counting must be 'ack' .*got 'bytes'"),
    (dict(ack_counting=2), ScenarioTypeError, r"\.ack_counting must be 'ack' or 'packets'.*int"),
])
def test_bad_delayed_ack_fields_are_refused_naming_the_field(cls, kw, exc, match):
    with pytest.raises(exc, match=cls.__name__ + match):
        cls(**kw)


def test_ack_counting_by_packets_is_refused_where_the_growth_is_not_modelled():
    from qosmodels.mechanisms import TcpVegas

    with pytest.raises(ScenarioError, match=r"TcpVegas\.ack_counting='packets' is modelled for "
                                            r"TcpReno, TcpNewReno, Dctcp, Prague and Cubic"):
        TcpVegas(ack_counting="packets")


@pytest.mark.parametrize("cls", TCP)
def test_delayed_acks_are_off_by_default_and_an_integral_float_is_accepted(cls):
    src = cls()
    assert (src.delayed_ack, src.delayed_ack_timeout, src.ack_counting) == (1, 0.2, "ack")
    src = cls(delayed_ack=2.0, delayed_ack_timeout=0.5)
    assert src.delayed_ack == 2 and isinstance(src.delayed_ack, int)


def _one_link(src, duration=1.0, **link):
    return Network([Link("a", "b", 1e6, 0.01, **link)], [Flow(["a", "b"], source=src)])


def test_the_timer_slot_and_rows_exist_only_with_delayed_acks():
    off = compile_scenario(_one_link(TcpNewReno()), 1.0, seed=0)
    on = compile_scenario(_one_link(TcpNewReno(delayed_ack=3, delayed_ack_timeout=0.05)), 1.0,
                          seed=0)
    assert off.fi[0, K.FI_DA_M] == 1 and off.fi[0, K.FI_DA_SLOT] == -1
    assert off.tm.shape[0] == 1  # the retransmission timer only
    assert on.fi[0, K.FI_DA_M] == 3 and on.fi[0, K.FI_DA_SLOT] == 1
    assert on.tm.shape[0] == 2 and on.ff[0, K.FF_DA_TIMEOUT] == 0.05
    assert on.fi[0, K.FI_DA_DCTCP] == 0
    # Prague's own timers (retransmission, pacing) come first
    pr = compile_scenario(_one_link(Prague(delayed_ack=2)), 1.0, seed=0)
    assert pr.fi[0, K.FI_DA_SLOT] == 2 and pr.tm.shape[0] == 3 and pr.fi[0, K.FI_DA_DCTCP] == 1


# ------------------------------------------------------------------ a hand trace
def test_a_hand_traced_ack_sequence_with_the_timer_firing():
    # One 1 Mb/s link, 10 ms; 1000-byte packets take 8 ms to send; the ACKs come back over
    # an undeclared reverse link (10 ms, no transmission time).  Cubic's trace records each
    # ACK reaching the sender (time, cumulative ACK) and cwnd after it.  delayed_ack = 2,
    # timeout 0.1 s, cwnd starts at 1 and grows by one packet per ACK (slow start, RFC
    # 5681 3.1: per ACK, not per packet acknowledged).
    #   packet 0 sent at 0, arrives 0.018: held, timer to 0.118 -> ACK 1 at the sender 0.128
    #   cwnd 2: packets 1, 2 arrive 0.146, 0.154: the second one -> ACK 3 at 0.164
    #   cwnd 3: packets 3, 4, 5 arrive 0.182, 0.190, 0.198: ACK 5 at 0.200 (3 and 4); 5 held
    #   cwnd 4: packets 6, 7, 8 sent at 0.200 arrive 0.218, 0.226, 0.234: ACK 7 (5 and 6) at
    #   0.228, ACK 9 (7 and 8) at 0.244; cwnd then 5 and 6
    #   at 0.228 (cwnd 5, SND.UNA 7) packets 9-11 leave: 9 arrives 0.246 and is held
    src = Cubic(record=True, max_window=6, delayed_ack=2, delayed_ack_timeout=0.1)
    res = simulate(_one_link(src), 0.25, seed=0, record=Record(interval=0.05))
    ack, cwnd = res.traces["cubic_ack[f0]"], res.traces["cubic_cwnd[f0]"]
    np.testing.assert_allclose(ack.index.values, [0.128, 0.164, 0.200, 0.228, 0.244],
                               atol=1e-12)
    np.testing.assert_array_equal(ack.values, [1, 3, 5, 7, 9])
    np.testing.assert_array_equal(cwnd.values, [2, 3, 4, 5, 6])
    c = res.counters
    assert c["acks_sent"][0] == 5 and c["delivered"][0] == 10
    assert_packets_conserved(c)
    # without delayed ACKs: one ACK per packet, the first at 0.028
    res1 = simulate(_one_link(Cubic(record=True, max_window=6)), 0.25, seed=0,
                    record=Record(interval=0.05))
    a1 = res1.traces["cubic_ack[f0]"]
    assert a1.index.values[0] == pytest.approx(0.028) and list(a1.values[:3]) == [1, 2, 3]


def test_a_hand_traced_ack_sequence_growing_per_packet_acknowledged():
    # As above with ack_counting="packets": slow start adds a packet per packet acknowledged.
    #   ACK 1 (packet 0, by the timer) at 0.128: cwnd 2; packets 1, 2 arrive 0.146, 0.154:
    #   ACK 3 at 0.164, cwnd 4; packets 3-6 leave at 0.164, arrive 0.182, 0.190, 0.198,
    #   0.206: ACK 5 at 0.200 (cwnd 6 = max_window), ACK 7 at 0.216; packets 7-10 leave
    #   from 0.200 (arrivals 0.218, 0.226, 0.234, 0.242), 11-12 from 0.216: ACK 9 at 0.236
    src = Cubic(record=True, max_window=6, delayed_ack=2, delayed_ack_timeout=0.1,
                ack_counting="packets")
    res = simulate(_one_link(src), 0.25, seed=0, record=Record(interval=0.05))
    ack, cwnd = res.traces["cubic_ack[f0]"], res.traces["cubic_cwnd[f0]"]
    np.testing.assert_allclose(ack.index.values, [0.128, 0.164, 0.200, 0.216, 0.236],
                               atol=1e-12)
    np.testing.assert_array_equal(ack.values, [1, 3, 5, 7, 9])
    np.testing.assert_array_equal(cwnd.values, [2, 4, 6, 6, 6])


def test_three_packets_per_ack_and_the_timer_for_the_rest():
    # delayed_ack = 3, timeout 0.1 s: packet 0 waits for its timer (ACK 1 at 0.128); packets
    # 1 and 2 (arrivals 0.146, 0.154) wait for theirs, started by packet 1: 0.246 + 0.010
    src = Cubic(record=True, max_window=6, delayed_ack=3, delayed_ack_timeout=0.1)
    res = simulate(_one_link(src), 0.3, seed=0, record=Record(interval=0.05))
    ack = res.traces["cubic_ack[f0]"]
    np.testing.assert_allclose(ack.index.values[:2], [0.128, 0.256], atol=1e-12)
    np.testing.assert_array_equal(ack.values[:2], [1, 3])


# ------------------------------------------------------------------ the receiver's rules
class Rfc5681Receiver:
    """RFC 5681 4.2 with RFC 8257 3.2 (``dctcp``), transcribed for in-order or hand-placed
    packets: an ACK for every ``m``-th in-order packet held, at once for a packet out of
    order or while a hole exists, and when the timer fires; a DCTCP receiver sends, when a
    packet's CE differs from DCTCP.CE, an ACK of the held packets with the old state and
    an immediate ACK of the packet with the new one; a classic receiver echoes CE if a
    packet an ACK covers carried it.  Returns each packet's ACKs as (cumulative, ECE)."""

    def __init__(self, m, dctcp):
        self.m, self.dctcp = m, dctcp
        self.rcv_nxt = 0
        self.got = set()
        self.held = 0
        self.ce = False        # DCTCP.CE, or (classic) a held packet carried CE

    def _ack(self):
        ece = self.ce
        if not self.dctcp:
            self.ce = False
        self.held = 0
        return [(self.rcv_nxt, ece)]

    def packet(self, seq, ce):
        rn0 = self.rcv_nxt
        hole = any(s > rn0 for s in self.got)
        in_order = seq == rn0 and not hole
        self.got.add(seq)
        while self.rcv_nxt in self.got:
            self.rcv_nxt += 1
        out = []
        if self.dctcp:
            if ce != self.ce:
                if self.held:  # (held packets: no hole, so they end at rn0)
                    out.append((rn0, self.ce))
                self.ce = ce
                return out + self._ack()
        elif ce:
            self.ce = True
        if in_order and self.held + 1 < self.m:
            self.held += 1
            return out
        return out + self._ack()

    def timer(self):
        return self._ack() if self.held else []


def _receiver_state(src):
    return compile_scenario(_one_link(src, buffer=100), 10.0, seed=0)


def _deliver(c, seq, ce):
    """Data packet ``seq`` (CE if ``ce``) reaches the receiver; the ACKs it sent, as
    (cumulative, ECE), in order."""
    p = jitcall(sender.new_packet)(c, 0, seq, K.MARK_CE if ce else 0, c.ff[0, K.FF_BITS])
    assert p >= 0
    jitcall(receiver.on_data)(c, p)
    return _drain(c)


def _drain(c):
    acks = []
    release = jitcall(pool.release)
    h, n = c.gi[K.GI_WORK_HEAD], c.gi[K.GI_WORK_N]
    for j in range(n):
        q = int(c.work[(h + j) % c.work.shape[0]]) >> K.W_BITS
        assert c.pi[q, K.PI_KIND] == K.KIND_ACK
        acks.append((int(c.pi[q, K.PI_SEQ]), bool(c.pi[q, K.PI_MARK] & K.MARK_ECE)))
        release(c, q)
    c.gi[K.GI_WORK_HEAD] = c.gi[K.GI_WORK_N] = 0
    return acks


@pytest.mark.parametrize("m", [2, 3])
@pytest.mark.parametrize("cls", [Dctcp, TcpNewReno])
def test_the_receivers_acks_equal_a_replay_of_rfc_5681_and_rfc_8257(cls, m):
    src = cls(delayed_ack=m, max_window=64, **({} if cls is Dctcp else dict(ecn=True)))
    c = _receiver_state(src)
    ref = Rfc5681Receiver(m, dctcp=cls is Dctcp)
    rng = np.random.default_rng(11)
    ce, n_marked = False, 0
    fire = jitcall(delack.on_timer)
    acks = []
    for seq in range(400):
        if rng.random() < 0.25:  # runs of marked and unmarked packets
            ce = not ce
        n_marked += ce
        c.gf[K.GF_NOW] = seq * 1e-3
        got, want = _deliver(c, seq, ce), ref.packet(seq, ce)
        assert got == want, (seq, got, want)
        acks += got
        if rng.random() < 0.1 or seq == 399:  # the delayed-ACK timer fires now
            fire(c, 0)
            got, want = _drain(c), ref.timer()
            assert got == want, (seq, "timer", got, want)
            acks += got
    assert acks[-1][0] == 400
    assert len(acks) < 400 * (0.9 if m == 2 else 0.8)  # ACKs were delayed
    if cls is Dctcp:
        # each ACK covers packets of one CE value: the packets covered by ACKs with ECE
        # are exactly the marked ones (RFC 8257 3.3's DCTCP.BytesMarked is exact)
        prev, covered_ece = 0, 0
        for a, ece in acks:
            covered_ece += (a - prev) * ece
            prev = a
        assert covered_ece == n_marked


def test_out_of_order_packets_and_hole_fills_are_acknowledged_at_once():
    # m = 2: packet 0 held; 2 (out of order) -> an immediate duplicate ACK 1 (0 covered);
    # 3 (a hole below) -> ACK 1 at once; 1 fills the hole -> ACK 4 at once; 4 held (no hole
    # left); 5 -> ACK 6; a duplicate of 2 -> ACK 6 at once; 6 held until the timer
    c = _receiver_state(TcpNewReno(delayed_ack=2, max_window=64))
    steps = [(0, []), (2, [1]), (3, [1]), (1, [4]), (4, []), (5, [6]), (2, [6]), (6, [])]
    for seq, want in steps:
        assert [a for a, _ in _deliver(c, seq, False)] == want, seq
    jitcall(delack.on_timer)(c, 0)
    assert _drain(c) == [(7, False)]
    jitcall(delack.on_timer)(c, 0)  # nothing held: no ACK
    assert _drain(c) == []


def test_a_dctcp_state_change_sends_the_held_ack_with_the_old_state_first():
    # m = 2: packet 0 (not CE) held; packet 1 (CE) changes DCTCP.CE: ACK 1 without ECE (for
    # packet 0), then ACK 2 with ECE at once; packets 2, 3 (CE): ACK 4 with ECE; packet 4
    # (CE) held, packet 5 (not CE): ACK 5 with ECE, ACK 6 without
    c = _receiver_state(Dctcp(delayed_ack=2, max_window=64))
    assert _deliver(c, 0, False) == []
    assert _deliver(c, 1, True) == [(1, False), (2, True)]
    assert _deliver(c, 2, True) == []
    assert _deliver(c, 3, True) == [(4, True)]
    assert _deliver(c, 4, True) == []
    assert _deliver(c, 5, False) == [(5, True), (6, False)]


# ------------------------------------------------------------------ in a run
def _dctcp_dumbbell(m, n=1, g=1.0):
    net = dumbbell(n, capacity=1e9, delay=0.00025, buffer=1000)
    net = net.replace_link("r0->r1", queue=DropTail(mark_threshold=20))
    src = Dctcp(delayed_ack=m, g=g, record_alpha=True, max_window=2000)
    for i in range(n):
        net = net.replace_flow(i, source=src)
    return net


@pytest.mark.parametrize("m", [1, 2])
def test_dctcp_alpha_follows_the_marked_fraction_of_packets_with_delayed_acks(m):
    # g = 1: each recorded alpha is F, the fraction of the packets an observation window's
    # ACKs acknowledged that echoed CE (RFC 8257 3.3).  With every ACK covering packets of
    # one CE value, F counts marked packets, not marked ACKs: the mean of F over the
    # windows is then near the fraction of packets the receiver got marked; an echo that
    # set ECE on an ACK covering any marked packet would about double it with m = 2.  The
    # mean over windows is not weighted by their packets (and the counts include the slow
    # start), hence the 15 % tolerance.  Measured (seed 0, 1 s, 1 Gb/s, K = 20): m = 1:
    # mean F 0.0902, marked fraction 0.1012; m = 2: 0.0461 and 0.0510.
    res = simulate(_dctcp_dumbbell(m), 1.0, seed=0, warmup=0.2)
    c = res.counters
    frac = c["marked"].sum() / c["arrived"].sum()
    a = res.traces["dctcp_alpha[f0]"]
    alpha = a[a.index >= 0.2].values
    assert len(alpha) > 1000 and 0.02 < frac < 0.3
    assert alpha.mean() == pytest.approx(frac, rel=0.15)
    if m == 2:
        assert c["acks_sent"][0] < 0.55 * c["arrived"][0]


def test_runs_are_deterministic():
    a = simulate(_dctcp_dumbbell(2, n=2), 0.3, seed=3)
    b = simulate(_dctcp_dumbbell(2, n=2), 0.3, seed=3)
    for k, v in a.counters.items():
        np.testing.assert_array_equal(v, b.counters[k], err_msg=k)
    np.testing.assert_array_equal(a.goodput, b.goodput)


@pytest.mark.parametrize("sack", [False, True])
def test_loss_recovery_with_delayed_acks(sack):
    # out-of-order packets are acknowledged at once, so three duplicate ACKs (or SACK
    # blocks) still start fast retransmits on a lossy link; packets are conserved
    net = Network([Link("a", "b", 10e6, 0.01, buffer=200, queue=RandomLoss(p=0.01))],
                  [Flow(["a", "b"], source=TcpNewReno(delayed_ack=2, sack=sack))])
    res = simulate(net, 10.0, seed=1)
    c = res.counters
    assert_packets_conserved(c)
    assert c["fast_retransmits"][0] > 20
    assert c["timeouts"][0] <= c["fast_retransmits"][0] / 5
    assert c["acks_sent"][0] < 0.75 * c["arrived"][0]


# ------------------------------------------------------------------ the senders' growth
@pytest.mark.parametrize("cls", [TcpNewReno, Dctcp])
def test_an_ack_covering_two_packets_grows_the_window_per_packet_when_asked(cls):
    # ack_counting="packets": the growth once per packet acknowledged (Linux's
    # tcp_slow_start / tcp_cong_avoid_ai): slow start 4 -> 6 on an ACK of two packets, then
    # one packet of slow start and one of congestion avoidance across ssthresh = 7
    from qosmodels.sim._kernels.sources import dctcp as kdctcp
    from qosmodels.sim._kernels.sources import reno

    c = compile_scenario(_one_link(cls(max_window=100, delayed_ack=2,
                                       ack_counting="packets")), 1.0, seed=0)
    on_ack = jitcall(kdctcp.on_ack) if cls is Dctcp else jitcall(reno.on_ack)
    c.ff[0, K.FF_CWND], c.ff[0, K.FF_SSTHRESH] = 4.0, 7.0
    c.fi[0, K.FI_SND_NXT] = c.fi[0, K.FI_MAXSEQ] = 12
    c.fi[0, K.FI_SS] = 100
    on_ack(c, 0, 2, False)
    assert c.ff[0, K.FF_CWND] == 6.0
    on_ack(c, 0, 4, False)   # 6 -> 7 (slow start), then 7 + 1/7
    assert c.ff[0, K.FF_CWND] == pytest.approx(7.0 + 1.0 / 7.0, rel=1e-15)
    w = c.ff[0, K.FF_CWND]
    on_ack(c, 0, 7, False)   # three packets of congestion avoidance
    for _ in range(3):
        w += 1.0 / w
    assert c.ff[0, K.FF_CWND] == pytest.approx(w, rel=1e-15)


@pytest.mark.parametrize("cls", [TcpNewReno, Dctcp])
def test_an_ack_covering_two_packets_grows_the_window_as_rfc_5681_says(cls):
    # RFC 5681 3.1: in slow start cwnd grows by at most one segment per ACK of new data,
    # in congestion avoidance by 1/cwnd per ACK; an ACK covering two packets (a delayed
    # ACK) counts once.  DCTCP's DCTCP.BytesAcked counts both packets (RFC 8257 3.3).
    from qosmodels.sim._kernels.sources import dctcp as kdctcp
    from qosmodels.sim._kernels.sources import reno

    c = compile_scenario(_one_link(cls(max_window=100, delayed_ack=2)), 1.0, seed=0)
    on_ack = jitcall(kdctcp.on_ack) if cls is Dctcp else jitcall(reno.on_ack)
    c.ff[0, K.FF_CWND], c.ff[0, K.FF_SSTHRESH] = 4.0, 6.0
    c.fi[0, K.FI_SND_NXT] = c.fi[0, K.FI_MAXSEQ] = 4
    c.fi[0, K.FI_SS] = 100  # (DCTCP: the observation window does not end here)
    on_ack(c, 0, 2, False)   # slow start: 4 -> 5
    assert c.ff[0, K.FF_CWND] == 5.0
    on_ack(c, 0, 4, False)   # 5 -> 6
    assert c.ff[0, K.FF_CWND] == 6.0
    c.fi[0, K.FI_SND_NXT] = c.fi[0, K.FI_MAXSEQ] = 10
    on_ack(c, 0, 6, False)   # congestion avoidance: 6 -> 6 + 1/6
    assert c.ff[0, K.FF_CWND] == pytest.approx(6.0 + 1.0 / 6.0, rel=1e-15)
    if cls is Dctcp:
        assert c.ff[0, K.FF_SS + kdctcp.DS_ACKED] == 6.0  # packets, not ACKs
