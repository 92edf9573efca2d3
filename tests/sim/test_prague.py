"""TCP Prague in packets (``qosmodels.sim._kernels.sources.prague``).

References, independent of the kernel: a hand trace of the pacing clock (the draft's
pacing at ``ratio cwnd / srtt``, Linux Prague's ratios 2 and 1), a plain-Python replay
of Linux ``tcp_prague.c``'s window rules (growth only on ACKs without a CE echo, the
``alpha`` EWMA, the reduction ``cwnd alpha / 2``) driven by a given ACK/CE sequence,
DCTCP's window (Prague without pacing and without ``ai_reduction`` is DCTCP with
ECT(1), bit for bit: RFC 8257's response, which ``tests/sim/test_dctcp.py`` checks
against a replay), and Prague's purpose through DualPI2 (RFC 9332, RFC 9331): a low L
queue delay with the link busy.
"""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, simulate
from qosmodels.mechanisms import Dctcp, DualPi2, Prague, TcpNewReno
from qosmodels.sim._kernels import layout as K
from qosmodels.sim._kernels.sources import dctcp as kdctcp
from qosmodels.sim._kernels.sources import prague as kprague
from qosmodels.sim.compile import compile_scenario

from .jitcall import jitcall


def _one_flow(**kw):
    net = Network([Link("a", "b", 1e6, 0.01, queue=DualPi2())],
                  [Flow(["a", "b"], source=Prague(**kw))])
    return compile_scenario(net, 1.0, seed=0)


def _state(c, now, cwnd, ssthresh, srtt, una, nxt):
    c.gf[K.GF_NOW] = now
    c.ff[0, K.FF_CWND] = cwnd
    c.ff[0, K.FF_SSTHRESH] = ssthresh
    c.ff[0, K.FF_SRTT] = srtt
    c.fi[0, K.FI_SND_UNA] = una
    c.fi[0, K.FI_SND_NXT] = nxt


def test_the_packets_carry_ect1():
    assert _one_flow().fi[0, K.FI_ECN] == 2
    net = Network([Link("a", "b", 1e6, 0.01)], [Flow(["a", "b"], source=Dctcp())])
    assert compile_scenario(net, 1.0, seed=0).fi[0, K.FI_ECN] == 1  # ECT(0)


def test_pacing_clock_follows_a_hand_trace():
    c = _one_flow()
    send_limit = jitcall(kprague.send_limit)
    clock = K.FF_SS + kprague.PS_NEXT
    slot = c.fi[0, K.FI_TIMER0] + kprague.SLOT_PACE
    # congestion avoidance (cwnd 10 >= ssthresh 5), srtt 100 ms: one packet, then the
    # clock moves on by srtt / (1 cwnd) = 1/100 s and the pacing timer is set there
    _state(c, 1.0, 10.0, 5.0, 0.1, 0, 0)
    assert send_limit(c, 0) == 1
    assert c.ff[0, clock] == 1.0 + 0.1 / 10.0
    assert c.tm[slot, K.TM_DEADLINE] == 1.0 + 0.1 / 10.0
    # before the clock: nothing new may leave
    _state(c, 1.005, 10.0, 5.0, 0.1, 0, 1)
    assert send_limit(c, 0) == 1
    assert c.ff[0, clock] == 1.0 + 0.1 / 10.0
    # at the clock: the next one, the clock moved on from now
    t = 1.0 + 0.1 / 10.0
    _state(c, t, 10.0, 5.0, 0.1, 0, 1)
    assert send_limit(c, 0) == 2
    assert c.ff[0, clock] == t + 0.1 / 10.0
    # slow start (cwnd 4 < ssthresh 100): ratio 2, gap srtt / (2 cwnd) = 12.5 ms
    _state(c, 2.0, 4.0, 100.0, 0.1, 0, 2)
    assert send_limit(c, 0) == 3
    assert c.ff[0, clock] == 2.0 + 0.1 / 8.0
    # the window is full: the window's limit, the clock untouched
    _state(c, 3.0, 4.0, 100.0, 0.1, 0, 4)
    assert send_limit(c, 0) == 4
    assert c.ff[0, clock] == 2.0 + 0.1 / 8.0
    # no RTT sample yet: not paced (the whole window)
    _state(c, 3.0, 4.0, 100.0, -1.0, 0, 0)
    assert send_limit(c, 0) == 4


def test_without_pacing_the_window_limits_alone():
    c = _one_flow(pacing=False)
    _state(c, 1.0, 10.0, 5.0, 0.1, 0, 0)
    assert jitcall(kprague.send_limit)(c, 0) == 10


def _dualpi2_run(source, seconds=20.0):
    net = Network([Link("s", "d", 20e6, 0.01, buffer=2000, queue=DualPi2())],
                  [Flow(["s", "d"], source=source, packet_size=1500),
                   Flow(["s", "d"], source=TcpNewReno(), packet_size=1500)])
    return simulate(net, seconds, warmup=5.0, seed=2, progress=False)


def test_pacing_at_1_2_in_congestion_avoidance_when_asked():
    c = _one_flow(pacing_ca_ratio=1.2)
    _state(c, 1.0, 10.0, 5.0, 0.1, 0, 0)
    assert jitcall(kprague.send_limit)(c, 0) == 1
    assert c.ff[0, K.FF_SS + kprague.PS_NEXT] == 1.0 + 0.1 / 12.0


# ------------------------------------------------------------------ the window's rules
class LinuxPragueWindow:
    """Linux ``tcp_prague.c`` (module version 0.6)'s window rules, transcribed in real
    arithmetic for a sender counting packets on cumulative ACKs without duplicates:
    ``prague_update_cwnd`` counts the packets an ACK acknowledges less those it echoes
    as CE-marked (here: all of them when it echoes, none when not), grows by one per
    counted packet in slow start and by ``1 / cwnd`` per counted packet in congestion
    avoidance (``ai_ack_increase`` = 1, no RTT scaling); ``prague_update_alpha`` once
    per round (``snd_una`` reaching the round's ``next_seq``): ``alpha <- alpha - alpha
    / 16 + F / 16``; ``prague_enter_cwr`` once per window of data: ``cwnd -= cwnd alpha
    / 2``, at least 2.  (The growth is applied per ACK before the reduction, as the
    library's DCTCP orders RFC 8257's steps; Linux's integer ``snd_cwnd`` following
    ``frac_cwnd`` by a packet per ACK is not replayed.)"""

    def __init__(self, cwnd, ssthresh, wmax):
        self.alpha, self.cwnd, self.ssthresh, self.wmax = 1.0, cwnd, ssthresh, wmax
        self.una = self.nxt = 0
        self.next_seq = 0
        self.delivered = self.delivered_ce = 0
        self.recover = -1

    def ack(self, a, ece):
        newly = a - self.una
        self.una = a
        if not ece:
            if self.cwnd < self.ssthresh:
                self.cwnd += 1.0
            else:
                self.cwnd += 1.0 / self.cwnd
            self.cwnd = min(self.cwnd, self.wmax)
        self.delivered += newly
        self.delivered_ce += newly if ece else 0
        if a >= self.next_seq:
            f = self.delivered_ce / self.delivered
            self.alpha = self.alpha - self.alpha / 16.0 + f / 16.0
            self.next_seq = self.nxt
            self.delivered = self.delivered_ce = 0
        if ece and a > self.recover:
            self.cwnd = max(self.cwnd - self.cwnd * self.alpha / 2.0, 2.0)
            self.ssthresh = self.cwnd
            self.recover = self.nxt


def test_window_equals_a_plain_replay_of_linux_prague():
    c = _one_flow(max_window=60)
    ref = LinuxPragueWindow(1.0, 60.0, 60.0)
    rng = np.random.default_rng(11)
    on_ack = jitcall(kprague.on_ack)
    held = 0
    for step in range(800):
        # the whole window is out; ACKs cover 1-3 packets, marked with a probability
        # that changes every 200 ACKs (none, some, most, some)
        nxt = ref.una + int(min(ref.cwnd, ref.wmax))
        ref.nxt = nxt
        c.fi[0, K.FI_SND_NXT] = nxt
        c.fi[0, K.FI_MAXSEQ] = nxt
        a = min(ref.una + int(rng.integers(1, 4)), nxt)
        ece = bool(rng.random() < (0.0, 0.3, 0.9, 0.2)[step // 200])
        held += ece
        ref.ack(a, ece)
        on_ack(c, 0, a, ece)
        assert c.fi[0, K.FI_SND_UNA] == ref.una
        assert c.ff[0, K.FF_CWND] == pytest.approx(ref.cwnd, rel=1e-12), step
        assert c.ff[0, K.FF_SSTHRESH] == pytest.approx(ref.ssthresh, rel=1e-12), step
        assert c.ff[0, K.FF_SS + kdctcp.DS_ALPHA] == pytest.approx(ref.alpha, rel=1e-12)
    assert held > 200 and ref.ssthresh < 60   # marks did hold the growth and reduce


def test_an_echoing_ack_does_not_grow_the_window_a_clean_one_does():
    # a hand trace in congestion avoidance: cwnd 10, ssthresh 5, alpha 0 (no reduction
    # can change cwnd: cwnd (1 - 0/2) = cwnd), the reduction already made for this window
    c = _one_flow()
    on_ack = jitcall(kprague.on_ack)
    c.ff[0, K.FF_CWND], c.ff[0, K.FF_SSTHRESH] = 10.0, 5.0
    c.ff[0, K.FF_SS + kdctcp.DS_ALPHA] = 0.0
    c.fi[0, K.FI_SND_NXT] = c.fi[0, K.FI_MAXSEQ] = 10
    c.fi[0, K.FI_SS + kdctcp.DI_WINDOW_END] = 10
    c.fi[0, K.FI_ECN_RECOVER] = 10
    on_ack(c, 0, 1, True)
    assert c.ff[0, K.FF_CWND] == 10.0
    on_ack(c, 0, 2, False)
    assert c.ff[0, K.FF_CWND] == 10.0 + 1.0 / 10.0
    # ai_reduction=False: the echoing ACK grows it as DCTCP's does
    c = _one_flow(ai_reduction=False)
    c.ff[0, K.FF_CWND], c.ff[0, K.FF_SSTHRESH] = 10.0, 5.0
    c.ff[0, K.FF_SS + kdctcp.DS_ALPHA] = 0.0
    c.fi[0, K.FI_SND_NXT] = c.fi[0, K.FI_MAXSEQ] = 10
    c.fi[0, K.FI_SS + kdctcp.DI_WINDOW_END] = 10
    c.fi[0, K.FI_ECN_RECOVER] = 10
    on_ack(c, 0, 1, True)
    assert c.ff[0, K.FF_CWND] == 10.0 + 1.0 / 10.0


def test_unpaced_prague_without_ai_reduction_is_dctcp_with_ect1_bit_for_bit():
    a = _dualpi2_run(Prague(pacing=False, ai_reduction=False), 8.0)
    b = _dualpi2_run(Dctcp(ect1=True), 8.0)
    np.testing.assert_array_equal(a.throughput, b.throughput)
    np.testing.assert_array_equal(a.mean_queueing_delay, b.mean_queueing_delay)
    np.testing.assert_array_equal(a.link_drops["marks"], b.link_drops["marks"])


def test_prague_through_dualpi2_keeps_a_low_l_queue_with_the_link_busy():
    r = _dualpi2_run(Prague())
    assert r.utilisation[0] > 0.95
    assert r.mean_queueing_delay[0] < 1.5e-3, r.mean_queueing_delay   # L: ~ its ramp
    assert 5e-3 < r.mean_queueing_delay[1] < 30e-3, r.mean_queueing_delay  # C: ~15 ms
    assert r.throughput[0] > 0.3 * r.throughput.sum()


@pytest.mark.parametrize("field, value, match", [
    ("pacing", 1, r"Prague\.pacing must be True or False, got 1"),
    ("ai_reduction", "yes", r"Prague\.ai_reduction must be True or False, got 'yes'"),
    ("pacing_ss_ratio", 0.5, r"Prague\.pacing_ss_ratio must be >= 1, got 0.5"),
    ("pacing_ca_ratio", float("nan"), r"Prague\.pacing_ca_ratio must be finite, got nan"),
    ("ect1", False, r"Prague\.ect1 must be True .*got False"),
])
def test_bad_values_are_refused_naming_the_field(field, value, match):
    with pytest.raises(ValueError, match=match):
        Prague(**{field: value})


# ------------------------------------------------------------------ RTT independence
class LinuxPragueRttScaled(LinuxPragueWindow):
    """:class:`LinuxPragueWindow` with Linux ``tcp_prague.c``'s RTT-independence
    heuristics (``prague_rtt_scaling``), transcribed from its source in real arithmetic:
    a round ends at each ``alpha`` update and counts when out of slow start
    (``prague_new_round``); the flow is RTT-independent out of slow start once it has
    counted ``transition`` rounds (``prague_is_rtt_indep``); the congestion-avoidance
    increase per unmarked ACK is ``k / cwnd`` with ``k`` from
    ``prague_rate_scaled_ai_ack_increase`` ("rate", "additive": ``(srtt / T)^2`` below
    the target ``T``, "additive"'s ``T`` being ``target + srtt``,
    ``prague_dynamic_rtt_target``) or ``prague_scalable_ai_ack_increase`` ("scalable":
    ``(R0 / 8 + min(max(srtt - R1, 0), R0)) srtt / R0^2``, R0 = 128 and R1 = 12 units of
    128 us), once ``transition`` rounds are counted; while RTT-independent, ``alpha`` is
    updated only if ``T`` has passed since the last update
    (``prague_target_rtt_elapsed``) and a CE echo reduces only if ``T`` has passed since
    the last reduction (``prague_enter_cwr``'s ``cwr_stamp`` test), the CWR state (the
    window of data without a further reduction) starting all the same (``tcp_input.c``'s
    ``tcp_try_to_open`` enters it on any ECE)."""

    R0, R1 = 128 * 128e-6, 12 * 128e-6

    def __init__(self, cwnd, ssthresh, wmax, mode, target, transition, srtt):
        super().__init__(cwnd, ssthresh, wmax)
        self.mode, self.target, self.transition, self.srtt = mode, target, transition, srtt
        self.round = 0
        self.alpha_stamp = self.cwr_stamp = -np.inf
        self.skipped = self.waited = 0

    def t(self):
        return self.target + (self.srtt if self.mode == "additive" else 0.0)

    def k(self):
        if self.round < self.transition:
            return 1.0
        if self.mode == "scalable":
            x = min(max(self.srtt - self.R1, 0.0), self.R0)
            return (self.R0 / 8 + x) * self.srtt / self.R0 ** 2
        return 1.0 if self.srtt >= self.t() else (self.srtt / self.t()) ** 2

    def ack(self, a, ece, now):
        newly = a - self.una
        self.una = a
        if not ece:
            if self.cwnd < self.ssthresh:
                self.cwnd += 1.0
            else:
                self.cwnd += self.k() / self.cwnd
            self.cwnd = min(self.cwnd, self.wmax)
        indep = self.cwnd >= self.ssthresh and self.round >= self.transition
        self.delivered += newly
        self.delivered_ce += newly if ece else 0
        updated = False
        if a >= self.next_seq:
            if indep and now - self.alpha_stamp < self.t():
                self.waited += 1
            else:
                f = self.delivered_ce / self.delivered
                self.alpha = self.alpha - self.alpha / 16.0 + f / 16.0
                self.next_seq = self.nxt
                self.delivered = self.delivered_ce = 0
                self.alpha_stamp = now
                updated = True
        if ece and a > self.recover:
            if indep and now - self.cwr_stamp < self.t():
                self.skipped += 1
            else:
                self.cwnd = max(self.cwnd - self.cwnd * self.alpha / 2.0, 2.0)
                self.ssthresh = self.cwnd
                self.cwr_stamp = now
            self.recover = self.nxt
        if updated and self.cwnd >= self.ssthresh:
            self.round += 1


@pytest.mark.parametrize("mode, srtt", [("rate", 0.005), ("rate", 0.04), ("additive", 0.005),
                                        ("scalable", 0.003), ("scalable", 0.03)])
def test_rtt_scaled_window_equals_a_plain_replay_of_linux_prague(mode, srtt):
    c = _one_flow(max_window=200, rtt_scaling=mode, rtt_target=0.025, rtt_transition=3)
    assert c.ff[0, K.FF_SS + kprague.PS_RTT_MODE] == kprague.RTT_CODES[mode]
    c.ff[0, K.FF_SRTT] = srtt   # no packet is timed here: srtt stays
    ref = LinuxPragueRttScaled(1.0, 200.0, 200.0, mode, 0.025, 3, srtt)
    rng = np.random.default_rng(5)
    on_ack = jitcall(kprague.on_ack)
    now = 1.0
    for step in range(1500):
        nxt = ref.una + int(min(ref.cwnd, ref.wmax))
        ref.nxt = nxt
        c.fi[0, K.FI_SND_NXT] = nxt
        c.fi[0, K.FI_MAXSEQ] = nxt
        a = min(ref.una + int(rng.integers(1, 4)), nxt)
        ece = bool(rng.random() < (0.0, 0.3, 0.05, 0.2, 0.6)[step // 300])
        now += float(rng.uniform(0.1e-3, 2e-3))
        c.gf[K.GF_NOW] = now
        ref.ack(a, ece, now)
        on_ack(c, 0, a, ece)
        assert c.ff[0, K.FF_CWND] == pytest.approx(ref.cwnd, rel=1e-12), step
        assert c.ff[0, K.FF_SSTHRESH] == pytest.approx(ref.ssthresh, rel=1e-12), step
        assert c.ff[0, K.FF_SS + kdctcp.DS_ALPHA] == pytest.approx(ref.alpha, rel=1e-12)
        assert c.ff[0, K.FF_SS + kprague.PS_ROUND] == ref.round, step
    # the rules did act: rounds past the transition, alpha updates that waited for T,
    # reductions the time rule refused (and the increase was scaled: k != 1)
    assert ref.round > 10 and ref.waited > 20 and ref.skipped > 5, (ref.waited, ref.skipped)
    assert ref.k() != 1.0 or (mode == "rate" and srtt >= 0.025)


def test_rtt_scaling_by_hand():
    # "rate", srtt 5 ms, target 25 ms, out of slow start, transition passed: an unmarked
    # ACK adds (5/25)^2 / cwnd = 0.04 / 10 to cwnd 10
    c = _one_flow(rtt_scaling="rate", rtt_transition=0)
    on_ack = jitcall(kprague.on_ack)
    c.ff[0, K.FF_CWND], c.ff[0, K.FF_SSTHRESH], c.ff[0, K.FF_SRTT] = 10.0, 5.0, 0.005
    c.ff[0, K.FF_SS + kdctcp.DS_ALPHA] = 0.5
    c.fi[0, K.FI_SND_NXT] = c.fi[0, K.FI_MAXSEQ] = 10
    c.fi[0, K.FI_SS + kdctcp.DI_WINDOW_END] = 1
    c.gf[K.GF_NOW] = 1.0
    on_ack(c, 0, 1, False)
    assert c.ff[0, K.FF_CWND] == pytest.approx(10.0 + 0.04 / 10.0, rel=1e-14)
    # that ACK closed the observation window: alpha updated (F = 0) at t = 1.0, a round
    assert c.ff[0, K.FF_SS + kdctcp.DS_ALPHA] == pytest.approx(0.5 * 15 / 16)
    assert c.ff[0, K.FF_SS + kprague.PS_ROUND] == 1.0
    assert c.ff[0, K.FF_SS + kprague.PS_ALPHA_STAMP] == 1.0
    # a marked ACK 10 ms later: the first reduction (none before): cwnd (1 - alpha / 2)
    w = c.ff[0, K.FF_CWND]
    c.gf[K.GF_NOW] = 1.010
    on_ack(c, 0, 2, True)
    a_now = c.ff[0, K.FF_SS + kdctcp.DS_ALPHA]
    assert a_now == pytest.approx(0.5 * 15 / 16)  # the window (end 10) is not over
    assert c.ff[0, K.FF_CWND] == pytest.approx(w * (1 - a_now / 2))
    assert c.fi[0, K.FI_ECN_RECOVER] == 10
    # a new window of data (SND.NXT 30), an echo covering past 10 at 1.030 s: 20 ms after
    # the reduction < 25 ms: no reduction, but the next window of data starts
    w = c.ff[0, K.FF_CWND]
    c.fi[0, K.FI_SND_NXT] = c.fi[0, K.FI_MAXSEQ] = 30
    c.gf[K.GF_NOW] = 1.030
    on_ack(c, 0, 11, True)
    assert c.ff[0, K.FF_CWND] == w
    assert c.fi[0, K.FI_ECN_RECOVER] == 30
    # the ACK covering 10 closed the observation window 30 ms after the last update:
    # alpha updated; the next one due at 30 waits until 1.030 + 25 ms
    assert c.ff[0, K.FF_SS + kprague.PS_ALPHA_STAMP] == 1.030
    # (F = 1: packets 2..11, all acknowledged by echoing ACKs)
    assert c.ff[0, K.FF_SS + kdctcp.DS_ALPHA] == pytest.approx(a_now * 15 / 16 + 1 / 16)
    c.fi[0, K.FI_SND_NXT] = c.fi[0, K.FI_MAXSEQ] = 40
    c.gf[K.GF_NOW] = 1.040
    alpha = c.ff[0, K.FF_SS + kdctcp.DS_ALPHA]
    on_ack(c, 0, 31, False)
    assert c.ff[0, K.FF_SS + kdctcp.DS_ALPHA] == alpha
    assert c.fi[0, K.FI_SS + kdctcp.DI_WINDOW_END] == 30   # still due
    c.gf[K.GF_NOW] = 1.056
    on_ack(c, 0, 32, False)
    # now updated, F over the 21 packets acknowledged since 1.030, none marked
    assert c.ff[0, K.FF_SS + kdctcp.DS_ALPHA] == pytest.approx(alpha * 15 / 16)
    assert c.ff[0, K.FF_SS + kprague.PS_ALPHA_STAMP] == 1.056
    assert c.fi[0, K.FI_SS + kdctcp.DI_WINDOW_END] == 40


def _two_rtts(source, seconds=6.0, seed=3):
    net = Network([Link("a", "r", 1e9, 0.002), Link("b", "r", 1e9, 0.008),
                   Link("r", "d", 20e6, 0.0005, buffer=2000, queue=DualPi2())],
                  [Flow(["a", "r", "d"], source=source, packet_size=1500),
                   Flow(["b", "r", "d"], source=source, packet_size=1500)])
    return simulate(net, seconds, warmup=2.0, seed=seed, progress=False)


def test_rtt_scaling_that_never_applies_is_todays_prague_bit_for_bit():
    # "rate" whose transition is never reached: the scaled path with k = 1 and no time
    # rule gives the outputs of rtt_scaling="none" (the default) exactly
    a = _two_rtts(Prague())
    b = _two_rtts(Prague(rtt_scaling="rate", rtt_transition=10**9))
    assert Prague().rtt_scaling == "none"
    np.testing.assert_array_equal(a.throughput, b.throughput)
    np.testing.assert_array_equal(a.mean_queueing_delay, b.mean_queueing_delay)
    np.testing.assert_array_equal(a.link_drops["marks"], b.link_drops["marks"])


def test_rtt_scaling_is_deterministic_and_changes_the_share():
    src = Prague(rtt_scaling="rate", rtt_transition=0)
    a, b = _two_rtts(src), _two_rtts(src)
    np.testing.assert_array_equal(a.throughput, b.throughput)
    np.testing.assert_array_equal(a.mean_queueing_delay, b.mean_queueing_delay)
    none = _two_rtts(Prague())
    # RTT-dependent: the 5 ms flow takes most; "rate": much closer to an equal share
    assert none.throughput[0] / none.throughput[1] > 2.0
    assert a.throughput[0] / a.throughput[1] < 1.5


@pytest.mark.parametrize("field, value, match", [
    ("rtt_scaling", "fast", r"Prague\.rtt_scaling must be 'none' .*got 'fast'"),
    ("rtt_scaling", None, r"Prague\.rtt_scaling must be .*got None"),
    ("rtt_target", 0.0, r"Prague\.rtt_target must be > 0 \(in s\), got 0.0"),
    ("rtt_target", float("inf"), r"Prague\.rtt_target must be finite"),
    ("rtt_transition", -1, r"Prague\.rtt_transition must be >= 0 \(in rounds\), got -1"),
    ("rtt_transition", 2.5, r"Prague\.rtt_transition must be a whole number"),
])
def test_bad_rtt_scaling_values_are_refused_naming_the_field(field, value, match):
    with pytest.raises(ValueError, match=match):
        Prague(**{field: value})
