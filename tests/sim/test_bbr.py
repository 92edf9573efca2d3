"""BbrV1 in the packet simulator, against a plain-Python replay of the draft's pseudo-code
and against hand-computed steady-state values.

The replay (:class:`DraftBbr`) is written from draft-cardwell-iccrg-bbr-congestion-control-00
(Section 4: BBRUpdateModelAndState, BBRUpdateControlParameters and the functions they
call, named as the draft names them) and draft-cheng-iccrg-delivery-rate-estimation-00
(OnPacketSent, UpdateRateSample, GenerateRateSample), with the choices
:class:`~qosmodels.mechanisms.BbrV1`'s docstring states (no SACK: duplicate ACKs; the
three-sample max filter).  It keeps its own per-packet records in dictionaries and is
driven by what the network did -- each packet sent (its number), each ACK, each timeout
and the random integer drawn on entering PROBE_BW -- which the kernel records in step
(``BbrV1(record=True)``); after every ACK and timeout it must give the kernel's cwnd,
pacing rate, BtlBw, RTprop and state.  It also checks the pacing: a packet released by
the pacer leaves at least ``1 / pacing_rate`` after the previous one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from qosmodels import Flow, Link, Network
from qosmodels.sim import BbrV1, DropTail, Record, simulate

STARTUP, DRAIN, PROBE_BW, PROBE_RTT = 0, 1, 2, 3
CYCLE = [5 / 4, 3 / 4, 1, 1, 1, 1, 1, 1]


class MaxFilter:
    """K. Nichols's windowed running max (three samples: best, second, third)."""

    def __init__(self):
        self.s = [(0.0, 0.0)] * 3  # (round, value)

    def get(self):
        return self.s[0][1]

    def update(self, t, v, win):
        s = self.s
        if v >= s[0][1] or t - s[2][0] > win:
            self.s = [(t, v)] * 3
            return
        if v >= s[1][1]:
            s[1] = s[2] = (t, v)
        elif v >= s[2][1]:
            s[2] = (t, v)
        dt = t - s[0][0]
        if dt > win:
            s[0], s[1], s[2] = s[1], s[2], (t, v)
            if t - s[0][0] > win:
                s[0], s[1] = s[1], s[2]
        elif s[1][0] == s[0][0] and dt > win // 4:
            s[1] = s[2] = (t, v)
        elif s[2][0] == s[1][0] and dt > win // 2:
            s[2] = (t, v)


class DraftBbr:
    """The draft's sender, event by event (packets, s, packets/s)."""

    def __init__(self, spec, bits, draws):
        self.p = spec
        self.bits = bits
        self.draws = list(draws)
        self.cwnd = float(spec.initial_window)
        self.una = self.nxt = self.maxseq = 0
        self.sacked = self.dupacks = 0
        self.in_rec, self.recover = 0, -1
        # draft-cheng's connection state
        self.delivered, self.delivered_time, self.first_sent_time = 0, 0.0, 0.0
        self.app_limited = 0
        self.min_rtt = math.inf
        self.rec = {}  # seq -> dict of the packet's record
        self.karn = {}  # seq -> first transmission's time, -1 once retransmitted
        # BBRInit
        self.rtprop, self.rtprop_stamp = math.inf, 0.0
        self.probe_rtt_done_stamp, self.probe_rtt_round_done = 0.0, False
        self.packet_conservation, self.prior_cwnd = False, 0.0
        self.next_round_delivered, self.round_count, self.round_start = 0, 0, False
        self.filled_pipe, self.full_bw, self.full_bw_count = False, 0.0, 0
        self.bw = MaxFilter()
        self.pacing_rate = spec.high_gain * spec.initial_window / 1e-3
        self.state, self.cycle_index, self.cycle_stamp = STARTUP, 0, 0.0
        self.next_send = -math.inf
        self.states = []
        self.cycles = []  # (time, cycle_index) at each phase start
        self.paced = 0

    # ------------------------------------------------------------------ helpers
    @property
    def btlbw(self):
        return self.bw.get()

    def gains(self):
        hg = self.p.high_gain
        if self.state == STARTUP:
            return hg, hg
        if self.state == DRAIN:
            return 1 / hg, hg
        if self.state == PROBE_RTT:
            return 1.0, 1.0
        return CYCLE[self.cycle_index], self.p.cwnd_gain

    def send_quantum(self):
        if self.p.send_quantum is not None:  # a fixed quantum (the draft leaves it open)
            return float(self.p.send_quantum)
        rate = self.pacing_rate * self.bits
        if rate < 1.2e6:
            return 1.0
        if rate < 24e6:
            return 2.0
        return min(rate * 1e-3, 65536 * 8) / self.bits

    def inflight(self, gain):  # BBRInflight
        if self.rtprop == math.inf:
            return self.p.initial_window
        return gain * self.btlbw * self.rtprop + 3 * self.send_quantum()

    def pipe(self):
        return self.nxt - self.una - self.sacked

    def save_cwnd(self):
        if self.in_rec == 0 and self.state != PROBE_RTT:
            self.prior_cwnd = self.cwnd
        else:
            self.prior_cwnd = max(self.prior_cwnd, self.cwnd)

    def restore_cwnd(self):
        self.cwnd = max(self.cwnd, self.prior_cwnd)

    def enter_probe_bw(self, now):
        self.state = PROBE_BW
        u = self.draws.pop(0)
        assert 0 <= u <= 6
        self.cycle_index = 8 - 1 - u
        self.advance_cycle(now)

    def advance_cycle(self, now):
        self.cycle_stamp = now
        self.cycle_index = (self.cycle_index + 1) % 8
        self.cycles.append((now, self.cycle_index))

    # ------------------------------------------------------------------ events
    def send(self, now, seq):
        """OnPacketSent (draft-cheng), and the pacing check for paced packets."""
        if self.pipe() <= 0:
            self.first_sent_time = self.delivered_time = now
        self.rec[seq] = dict(send=now, delivered=self.delivered,
                             delivered_time=self.delivered_time,
                             first_sent=self.first_sent_time, app=self.app_limited != 0)
        if seq >= self.maxseq:
            self.karn[seq] = now
            self.maxseq = seq + 1
        else:
            self.karn[seq] = -1.0
        if seq == self.nxt:  # released by the pacer (retransmissions of holes are not)
            assert now >= self.next_send - 1e-12, (now, self.next_send)
            assert self.pipe() < self.cwnd
            self.next_send = now + 1 / self.pacing_rate
            self.nxt += 1
            self.paced += 1

    def rate_sample(self, now, ps, rtt):
        """UpdateRateSample for the packet sent last, then GenerateRateSample."""
        r = self.rec[ps]
        self.first_sent_time = r["send"]
        if self.app_limited and self.delivered > self.app_limited:
            self.app_limited = 0
        if rtt >= 0:
            self.min_rtt = min(self.min_rtt, rtt)
        interval = max(r["send"] - r["first_sent"], now - r["delivered_time"])
        rs_delivered = self.delivered - r["delivered"]
        rate = -1.0
        if interval > 0 and interval >= self.min_rtt and rs_delivered > 0:
            rate = rs_delivered / interval
        return rate, r["delivered"], r["app"]

    def ack(self, now, a):
        prior_inflight = self.pipe()
        rate, rtt, p_deliv, app = -1.0, -1.0, -1, False
        lost = delivered = 0
        entering = False
        if a > self.una:
            n = a - self.una
            left = max(self.sacked - (n - 1), 0)
            delivered = n - (self.sacked - left)
            self.sacked = left
            self.delivered += delivered
            self.delivered_time = now
            newly = range(self.una, a)
            ps = max(newly, key=lambda q: (self.rec[q]["delivered"], q))
            if all(self.karn[q] >= 0 for q in newly):
                rtt = now - self.karn[a - 1]
            rate, p_deliv, app = self.rate_sample(now, ps, rtt)
            self.una = a
            self.nxt = max(self.nxt, a)
            self.dupacks = 0
            if self.in_rec and a > self.recover:
                self.in_rec, self.sacked = 0, 0
                self.packet_conservation = False
                self.restore_cwnd()
            elif self.in_rec == 1:
                lost = 1
        elif a == self.una and self.nxt > self.una:
            if self.sacked < self.nxt - self.una - 1:
                self.sacked += 1
                delivered = 1
                self.delivered += 1
                self.delivered_time = now
                rate, p_deliv, app = self.rate_sample(now, self.una + self.sacked, -1.0)
            self.dupacks += 1
            if self.dupacks == 3 and self.in_rec == 0 and a > self.recover:
                lost, entering = 1, True
                self.save_cwnd()
                self.recover, self.in_rec = self.nxt - 1, 1
                self.packet_conservation = True
                self.next_round_delivered = self.delivered
        else:
            return
        self.update(now, rate, rtt, p_deliv, prior_inflight, delivered, lost, app, entering)

    def timeout(self, now):
        self.save_cwnd()
        self.cwnd = 1.0
        self.recover = self.maxseq - 1
        self.in_rec, self.dupacks, self.sacked = 2, 0, 0
        self.packet_conservation = False
        self.nxt = self.una  # go back N

    def update(self, now, rate, rtt, p_deliv, prior_inflight, delivered, lost, app,
               entering):
        # BBRUpdateBtlBw, BBRUpdateRound
        self.round_start = False
        if p_deliv >= 0 and p_deliv >= self.next_round_delivered:
            self.next_round_delivered = self.delivered
            self.round_count += 1
            self.round_start = True
            if self.in_rec:
                self.packet_conservation = False
        if rate >= 0 and (rate >= self.btlbw or not app):
            self.bw.update(self.round_count, rate, self.p.btlbw_rounds)
        # BBRCheckCyclePhase
        if self.state == PROBE_BW:
            g = CYCLE[self.cycle_index]
            full = now - self.cycle_stamp > self.rtprop
            if g == 1:
                nxt = full
            elif g > 1:
                nxt = full and (lost > 0 or prior_inflight >= self.inflight(g))
            else:
                nxt = full or prior_inflight <= self.inflight(1)
            if nxt:
                self.advance_cycle(now)
        # BBRCheckFullPipe
        if not self.filled_pipe and self.round_start and not app:
            if self.btlbw >= self.full_bw * 1.25:
                self.full_bw, self.full_bw_count = self.btlbw, 0
            else:
                self.full_bw_count += 1
                if self.full_bw_count >= 3:
                    self.filled_pipe = True
        # BBRCheckDrain
        if self.state == STARTUP and self.filled_pipe:
            self.state = DRAIN
        if self.state == DRAIN and self.pipe() <= self.inflight(1):
            self.enter_probe_bw(now)
        # BBRUpdateRTprop
        expired = now > self.rtprop_stamp + self.p.rtprop_window
        if rtt >= 0 and (rtt <= self.rtprop or expired):
            self.rtprop, self.rtprop_stamp = rtt, now
        # BBRCheckProbeRTT
        if self.state != PROBE_RTT and expired:
            self.state = PROBE_RTT
            self.save_cwnd()
            self.probe_rtt_done_stamp = 0.0
        if self.state == PROBE_RTT:  # BBRHandleProbeRTT
            self.app_limited = (self.delivered + self.pipe()) or 1
            if self.probe_rtt_done_stamp == 0 and self.pipe() <= self.p.min_pipe_cwnd:
                self.probe_rtt_done_stamp = now + self.p.probe_rtt_time
                self.probe_rtt_round_done = False
                self.next_round_delivered = self.delivered
            elif self.probe_rtt_done_stamp != 0:
                if self.round_start:
                    self.probe_rtt_round_done = True
                if self.probe_rtt_round_done and now > self.probe_rtt_done_stamp:
                    self.rtprop_stamp = now
                    self.restore_cwnd()
                    if self.filled_pipe:
                        self.enter_probe_bw(now)
                    else:
                        self.state = STARTUP
        # BBRSetPacingRate
        pg, cg = self.gains()
        r = pg * self.btlbw
        if self.filled_pipe or r > self.pacing_rate:
            self.pacing_rate = r
        # BBRSetCwnd
        target = self.inflight(cg)
        c = self.cwnd
        if lost > 0:
            c = max(c - lost, 1.0)
        if entering:
            c = self.pipe() + max(delivered, 1)
        elif self.packet_conservation:
            c = max(c, self.pipe() + delivered)
        else:
            if self.filled_pipe:
                c = min(c + delivered, target)
            elif c < target or self.delivered < self.p.initial_window:
                c = c + delivered
            c = max(c, self.p.min_pipe_cwnd)
        if self.state == PROBE_RTT:
            c = min(c, self.p.min_pipe_cwnd)
        self.cwnd = c
        if not self.states or self.states[-1][1] != self.state:
            self.states.append((now, self.state))

    def mode(self):
        return self.state + 4 * self.cycle_index + 32 * self.filled_pipe


def _run(buffer, duration, seed=1, capacity=10e6, delay=0.02, **kw):
    src = BbrV1(record=True, **kw)
    net = Network([Link("a", "b", capacity, delay, buffer=buffer, queue=DropTail())],
                  [Flow(["a", "b"], packet_size=1000, source=src)])
    res = simulate(net, duration, seed=seed, record=Record(trace_points=3_000_000),
                   progress=False)
    return src, res


def _replay(src, res, bits=8000.0):
    tr = res.traces
    ev = tr["bbr_event"]
    times, ev = ev.index.to_numpy(), ev.to_numpy()
    out = {k: tr[k].to_numpy() for k in ("bbr_cwnd", "bbr_pacing", "bbr_btlbw", "bbr_rtprop",
                                          "bbr_mode")}
    draws = [int(x) for x in tr["bbr_draw"].to_numpy()] if "bbr_draw" in tr else []
    d = DraftBbr(src, bits, draws)
    got = {k: [] for k in out}
    for t, e in zip(times, ev):
        if e >= 0:
            d.send(t, int(e))
            continue
        if e == -1:
            d.timeout(t)
        else:
            d.ack(t, int(-e - 2))
        got["bbr_cwnd"].append(d.cwnd)
        got["bbr_pacing"].append(d.pacing_rate)
        got["bbr_btlbw"].append(d.btlbw)
        got["bbr_rtprop"].append(d.rtprop)
        got["bbr_mode"].append(d.mode())
    assert not d.draws  # every draw the kernel made was used by the replay
    return d, out, got


SCENARIOS = {
    # 10 Mb/s, 40 ms: a 51-packet BDP; 400 packets of buffer (no loss): STARTUP, DRAIN,
    # PROBE_BW's cycle, PROBE_RTT at 10 s and back
    "deep": dict(buffer=400, duration=12.0),
    # 100 packets: STARTUP overshoots into losses, fast recovery, partial ACKs, timeouts
    "shallow": dict(buffer=100, duration=6.0),
    # one packet lost in ten rounds' worth: the loss paths with the cycle running
    "tiny": dict(buffer=20, duration=6.0, seed=3),
    # a fixed send quantum of 1 packet (ns-3's): the loss paths (a timeout too) and the cycle
    "tiny-q1": dict(buffer=20, duration=6.0, seed=3, send_quantum=1),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_kernel_matches_draft_replay(name):
    src, res = _run(**SCENARIOS[name])
    d, out, got = _replay(src, res)
    n = len(out["bbr_cwnd"])
    assert n > 1500
    for k in out:
        np.testing.assert_allclose(out[k], got[k], rtol=1e-9, atol=1e-9, err_msg=k)
    assert d.paced > 1500
    c = res.counters
    if name == "deep":
        assert c["dropped"][0] == 0
        assert [s for _, s in d.states] == [STARTUP, DRAIN, PROBE_BW, PROBE_RTT, PROBE_BW]
    else:  # the replay went through fast recoveries, partial ACKs and timeouts
        assert c["fast_retransmits"][0] >= 1 and c["timeouts"][0] >= 1
        assert c["retransmitted"][0] > c["fast_retransmits"][0]


def test_phases_and_gain_cycle():
    """STARTUP ends after three rounds without 25 % growth; PROBE_BW's phases advance one
    by one, each at least RTprop long; PROBE_RTT comes 10 s after the RTprop sample and
    lasts at least 200 ms."""
    src, res = _run(**SCENARIOS["deep"])
    d, out, got = _replay(src, res)
    (t_s, _), (t_d, _), (t_bw, _), (t_rtt, _), (t_back, _) = d.states
    assert t_rtt == pytest.approx(10.0, abs=0.5)
    assert t_back - t_rtt >= 0.2
    cyc = [c for c in d.cycles if c[0] < t_rtt]
    assert len(cyc) > 20
    for (t0, k0), (t1, k1) in zip(cyc, cyc[1:]):
        assert k1 == (k0 + 1) % 8
        assert t1 - t0 > 0.0408 - 1e-9  # RTprop = 40.8 ms (propagation + transmission)
    assert cyc[0][1] != 1  # never starts in the 3/4 phase


def test_steady_state_by_hand():
    """PROBE_BW over a deep buffer: BtlBw = C / packet (1250 packets/s), RTprop = 2 x 20
    ms + 8000 bit / 10 Mb/s = 40.8 ms, cwnd = 2 BtlBw RTprop + 3 send quanta (2 packets:
    10 Mb/s is between 1.2 and 24 Mb/s) = 108 packets, so the standing queue is cwnd - BDP
    = 57 packets; the link busy."""
    src, res = _run(**SCENARIOS["deep"])
    tr = res.traces
    t = tr["bbr_cwnd"].index.to_numpy()
    sel = (t > 3.0) & (t < 9.5)
    assert tr["bbr_btlbw"].to_numpy()[sel] == pytest.approx(1250.0, rel=1e-6)
    assert tr["bbr_rtprop"].to_numpy()[sel] == pytest.approx(0.0408, rel=1e-9)
    cw = tr["bbr_cwnd"].to_numpy()[sel]
    assert np.median(cw) == pytest.approx(2 * 1250 * 0.0408 + 6, rel=1e-6)
    assert res.utilisation[0] > 0.97  # (PROBE_RTT at 10 s costs about 2 %)


def test_seed_determinism_and_draws():
    a = _run(buffer=400, duration=4.0, seed=5)[1].traces
    b = _run(buffer=400, duration=4.0, seed=5)[1].traces
    for k in a:
        np.testing.assert_array_equal(a[k].to_numpy(), b[k].to_numpy())
        np.testing.assert_array_equal(a[k].index.to_numpy(), b[k].index.to_numpy())
    draws = {int(_run(buffer=400, duration=1.5, seed=s)[1].traces["bbr_draw"].to_numpy()[0])
             for s in range(8)}
    assert len(draws) >= 3 and draws <= set(range(7))


def test_max_filter_hand_trace():
    """The replay's BtlBw filter (K. Nichols's running max, window 10 rounds), traced by
    hand: the best sample holds for 10 rounds, then the best of the later ones takes over
    (the quarter- and half-window choices keep them)."""
    f = MaxFilter()
    f.update(0, 100.0, 10)
    assert f.s == [(0, 100.0)] * 3
    f.update(1, 50.0, 10)  # below every choice, within a quarter window: nothing kept
    assert f.s == [(0, 100.0)] * 3
    f.update(3, 50.0, 10)  # past a quarter window (10 // 4 = 2 rounds): the second choice
    assert f.s == [(0, 100.0), (3, 50.0), (3, 50.0)]
    f.update(6, 60.0, 10)  # above the second choice; past half a window: third choice too
    assert f.s == [(0, 100.0), (6, 60.0), (6, 60.0)]
    assert f.get() == 100.0
    f.update(11, 40.0, 10)  # round 0's sample is 11 rounds old: expired, shift once
    assert f.s == [(6, 60.0), (6, 60.0), (11, 40.0)]
    assert f.get() == 60.0  # the max of what was kept from rounds 1..11
    f.update(30, 10.0, 10)  # nothing left inside the window: restart at the new sample
    assert f.s == [(30, 10.0)] * 3


def test_sack_flows_count_each_packet_delivered_once_across_a_timeout():
    """A timeout clears the SACK scoreboard (RFC 6675, Section 5.1); a packet SACKed before it
    and acknowledged after it was delivered once (draft-cheng), so the delivery rate, and
    BtlBw, never exceed the bottleneck's rate.  Before the fix the packets SACKed before a
    timeout were counted again and BtlBw rose to 1.3-5.8 times the link's 1250 packets/s
    (benchmarks/RESULTS.md, "BBRv1 against ns-3's TcpBbr")."""
    links = [Link("s0", "r", 1e9, 0.001), Link("s1", "r", 1e9, 0.001),
             Link("r", "d", 10e6, 0.02, buffer=20, queue=DropTail())]
    flows = [Flow([s, "r", "d"], packet_size=1000, source=BbrV1(sack=True, record=True))
             for s in ("s0", "s1")]
    res = simulate(Network(links, flows), 30.0, seed=1,
                   record=Record(trace_points=3_000_000), progress=False)
    timeouts = sum(int((res.traces[f"bbr_event[f{i}]"] == -1).sum()) for i in range(2))
    assert timeouts > 0  # the case the rule is about happens
    top = max(float(res.traces[f"bbr_btlbw[f{i}]"].max()) for i in range(2))
    assert top <= 1250.0 * 1.02, top


# ------------------------------------------------------------------ the send quantum


def _quantum_state(rate_bits, bits=8000.0, fixed=0.0):
    """A one-flow state holding only what ``_send_quantum`` reads: the pacing rate (given in
    bit/s, stored in packets/s), the packet size and the fixed quantum column."""
    from collections import namedtuple

    from qosmodels.sim._kernels import layout as K
    from qosmodels.sim._kernels.sources import bbr as kb

    ff = np.zeros((1, K.FF_SS + kb.BS_FULL_BW + 1))
    ff[0, K.FF_BITS] = bits
    ff[0, K.FF_SS + kb.BS_PACING] = rate_bits / bits
    ff[0, K.FF_SP + kb.BBR_QUANTUM] = fixed
    return namedtuple("S", "ff")(ff)


@pytest.mark.parametrize("rate, bits, expected", [
    # draft-cardwell-iccrg-bbr-congestion-control-00, BBRSetSendQuantum, in packets of 1000
    # bytes: 1 packet below 1.2 Mb/s, 2 below 24 Mb/s, else min(rate x 1 ms, 64 KB)
    (1.0e6, 8000.0, 1.0), (1.19e6, 8000.0, 1.0), (1.2e6, 8000.0, 2.0), (10e6, 8000.0, 2.0),
    (23.9e6, 8000.0, 2.0), (24e6, 8000.0, 3.0),           # 24 kbit in 1 ms = 3 packets
    (100e6, 8000.0, 12.5),                                # 100 kbit = 12.5 packets of 8 kbit
    (1e9, 8000.0, 65.536),                                # 64 KB = 524288 bit = 65.536 packets
    (1e9, 12000.0, 524288 / 12000),                       # 1500-byte packets: 43.69
])
def test_send_quantum_rule_by_hand(rate, bits, expected):
    from qosmodels.sim._kernels.sources.bbr import _send_quantum

    from .jitcall import jitcall

    q = jitcall(_send_quantum)
    assert q(_quantum_state(rate, bits), 0) == pytest.approx(expected, rel=1e-12)
    # a fixed quantum holds at every rate
    for fixed in (1.0, 2.0, 7.0):
        assert q(_quantum_state(rate, bits, fixed), 0) == fixed


def test_inflight_by_hand_with_either_quantum():
    """BBRInflight(gain) = gain x BtlBw x RTprop + 3 x quantum: at 10 Mb/s of 1000-byte
    packets (BtlBw 1250 packets/s), RTprop 40.8 ms, gain 2: 102 + 6 = 108 packets under the
    draft's rule (2 packets), 102 + 3 = 105 with a quantum of 1, 102 + 12 = 114 with 4."""
    from qosmodels.sim._kernels import layout as K
    from qosmodels.sim._kernels.sources import bbr as kb

    from .jitcall import jitcall

    inflight = jitcall(kb._inflight)
    for fixed, expected in ((0.0, 108.0), (1.0, 105.0), (2.0, 108.0), (4.0, 114.0)):
        S = _quantum_state(10e6, 8000.0, fixed)
        S.ff[0, K.FF_SS + kb.BS_BW0] = 1250.0
        S.ff[0, K.FF_SS + kb.BS_RTPROP] = 0.0408
        assert inflight(S, 0, 2.0) == pytest.approx(expected, rel=1e-12)


def test_send_quantum_refusals():
    from qosmodels.errors import ScenarioError, ScenarioTypeError

    assert BbrV1().send_quantum is None
    assert BbrV1(send_quantum=3).send_quantum == 3
    assert BbrV1(send_quantum=np.int64(2)).send_quantum == 2
    for bad in (0, -1):
        with pytest.raises(ScenarioError, match=r"BbrV1\.send_quantum must be None .* >= 1 "
                                                r"packets, got -?\d"):
            BbrV1(send_quantum=bad)
    for bad in (1.5, 2.0, "2", True):
        with pytest.raises(ScenarioTypeError, match=r"BbrV1\.send_quantum must be None .*"
                                                    r"integer number of packets"):
            BbrV1(send_quantum=bad)


def test_send_quantum_moves_the_cwnd_target_by_three_packets():
    """The deep-buffer scenario in PROBE_BW (pacing 7.5-12.5 Mb/s, where the draft's rule
    gives 2 packets): cwnd = 2 BtlBw RTprop + 3 quantum = 102 + 3 q packets, so 105 with a
    quantum of 1 and 108 with 2, the default's 108 (by hand: BtlBw 1250 packets/s, RTprop
    40.8 ms)."""
    med = {}
    for q in (None, 1, 2):
        tr = _run(buffer=400, duration=6.0, send_quantum=q)[1].traces
        t = tr["bbr_cwnd"].index.to_numpy()
        med[q] = np.median(tr["bbr_cwnd"].to_numpy()[(t > 3.0) & (t < 6.0)])
    assert med[1] == pytest.approx(2 * 1250 * 0.0408 + 3, rel=1e-9)
    assert med[2] == pytest.approx(med[1] + 3.0, rel=1e-9)
    assert med[None] == med[2]
