"""BBR version 1 sender, in packets (spec: :class:`qosmodels.mechanisms.BbrV1`).

The delivery-rate estimator of draft-cheng-iccrg-delivery-rate-estimation-00
(per-packet ``delivered``, ``delivered_time``, ``first_sent_time`` stamped at
send, a rate sample per ACK), and the BBR state machine of
draft-cardwell-iccrg-bbr-congestion-control-00, Section 4: the BtlBw max filter
over ``btlbw_rounds`` round trips, the RTprop min filter over ``rtprop_window``
s, STARTUP, DRAIN, PROBE_BW's eight-phase gain cycle and PROBE_RTT, cwnd =
``cwnd_gain`` x BDP + 3 send quanta (the draft's rule by rate, or the spec's fixed
``send_quantum``), and pacing: one packet at a time, the
next after ``1 / pacing_rate`` s (the flow's timer slot 1).  Losses: three
duplicate ACKs start a NewReno-style recovery (each duplicate ACK counted as
one packet delivered above SND.UNA, since the receiver sends no SACK) with the
draft's packet conservation for its first round; a timeout sets cwnd to 1.
The spec's docstring gives the rules and the choices.  The larger handlers are
``rare_handler``s (called, not inlined: BBR is off the NewReno / drop-tail path), which
keeps the loop's machine code short (the whole kernel's compile cost measured the same
either way, 86.4 and 86.7 CPU s).

Per-packet records: :func:`setup` asks for a buffer of eight times
``max_window``, so that the send-time ring (``stime``, laid out like the
receiver's out-of-order buffer) holds eight sub-rings of more than
``max_window`` slots each, sub-ring ``j`` of packet ``seq`` at
``(seq + j Q) & mask`` (``Q`` = the buffer size / 8): 0 the first transmission's
time (``sender.transmit``'s, -1 once retransmitted: Karn), 1 the latest
transmission's time, 2 ``C.delivered``, 3 ``C.delivered_time``, 4
``C.first_sent_time``, 5 whether the connection was application-limited (only
in PROBE_RTT, the draft's ``C.app_limited``) plus 2 (:data:`COUNTED`, SACK
flows) once the packet has been counted in ``C.delivered`` since its first
transmission: a timeout clears the SACK scoreboard (RFC 6675, Section 5.1), and a
packet SACKed before it and acknowledged or SACKed again after it was delivered
once, not twice (draft-cheng counts each packet's delivery once, as Linux, whose
SACKed mark survives a timeout unless the receiver reneges).  With SACK, sub-rings
6 and 7 are the scoreboard's (:mod:`..sack`).

References
----------
N. Cardwell, Y. Cheng, S. Hassas Yeganeh, V. Jacobson, "BBR Congestion Control",
draft-cardwell-iccrg-bbr-congestion-control-00, 2017, Section 4.  Y. Cheng, N.
Cardwell, S. Hassas Yeganeh, V. Jacobson, "Delivery Rate Estimation",
draft-cheng-iccrg-delivery-rate-estimation-00, 2017.  N. Cardwell et al., "BBR:
Congestion-Based Congestion Control", ACM Queue 14(5), 2016.  K. Nichols's
windowed min/max filter (Linux ``lib/minmax.c``).  RFC 6298 (the retransmission
timer), RFC 6582 (the recovery point).
"""


import numpy as np

from .. import sack
from .._jit import POS, handler, rare_handler
from ..layout import (
    FF_BITS,
    FF_CWND,
    FF_RTO,
    FF_RTT_T0,
    FF_SP,
    FF_SS,
    FF_SSTHRESH,
    FI_DUPACKS,
    FI_EARLY_TIMER,
    FI_FAST_RTX,
    FI_IN_REC,
    FI_MAXSEQ,
    FI_OOO_MASK,
    FI_OOO_OFF,
    FI_PER_ACK,
    FI_RECOVER,
    FI_RENO_SACKED,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_SS,
    FI_TIMER0,
    FI_TRACE0,
    FI_WINDOWED,
    GF_NOW,
    SACK_SHIFT,
)
from ..rng import rand
from ..sender import arm_timer, transmit
from ..timers import cancel, is_off, set_deadline
from ..trace import record
from .reno import restart_after_timeout, rfc6298_sample
from .reno import window as cwnd_window

CODE = 14

# parameter columns (offsets into the flow's parameter row), in PARAMS order
BBR_MAX_WINDOW = 0
BBR_INIT_WINDOW = 1
BBR_MIN_RTO = 2
BBR_MAX_RTO = 3
BBR_INIT_RTO = 4
BBR_HIGH_GAIN = 5
BBR_CWND_GAIN = 6
BBR_BW_ROUNDS = 7       # BtlBwFilterLen, round trips
BBR_RTPROP_WIN = 8      # RTpropFilterLen, s
BBR_PROBE_RTT_TIME = 9  # ProbeRTTDuration, s
BBR_MIN_CWND = 10       # BBRMinPipeCwnd, packets
BBR_RECORD = 11
BBR_SACK = 12           # SACK blocks per ACK (RFC 2018), 0: no SACK; RFC 6675's recovery
BBR_QUANTUM = 13        # a fixed send quantum, packets; 0 (None): the draft's rule by rate

#: The spec fields packed into the parameter row, in column order.
PARAMS = (
    "max_window", "initial_window", "min_rto", "max_rto", "initial_rto",
    "high_gain", "cwnd_gain", "btlbw_rounds", "rtprop_window", "probe_rtt_time",
    "min_pipe_cwnd", "record",
    ("sack", lambda s: s.sack_blocks if s.sack else 0),
    "send_quantum",
)

# float state columns (FF_SS + ...)
BS_BW0 = 0          # the BtlBw filter's three samples (Nichols): values, packets/s ...
BS_BW1 = 1
BS_BW2 = 2
BS_BWR0 = 3         # ... and the round counts they were taken in
BS_BWR1 = 4
BS_BWR2 = 5
BS_RTPROP = 6       # BBR.RTprop, s (inf: no sample yet)
BS_RTPROP_STAMP = 7
BS_DELIV_TIME = 8   # C.delivered_time, s
BS_FIRST_SENT = 9   # C.first_sent_time, s
BS_STAMP = 10       # PROBE_BW: BBR.cycle_stamp; PROBE_RTT: BBR.probe_rtt_done_stamp (0: unset)
BS_PRIOR_CWND = 11  # BBR.prior_cwnd, packets
BS_PACING = 12      # BBR.pacing_rate, packets/s
BS_FULL_BW = 13     # BBR.full_bw, packets/s
#: C.min_rtt, the connection's smallest RTT sample (s), which gates the rate samples
#: (draft-cheng, "interval < min_rtt"); kept in FF_RTT_T0, which sender.transmit uses only
#: for one-timed-segment sampling (FI_PER_ACK = 0), never for a BBR flow (FI_PER_ACK = 1).
MIN_RTT = FF_RTT_T0

# integer state columns (FI_SS + ...)
BI_DELIVERED = 0    # C.delivered, packets (BBR.delivered is the same count)
BI_NEXT_ROUND = 1   # BBR.next_round_delivered
BI_ROUND = 2        # BBR.round_count
BI_MODE = 3         # the bit fields below

# BI_MODE's fields
M_STATE = 3         # bits 0-1: the state
M_CYCLE_SHIFT = 2   # bits 2-4: BBR.cycle_index
M_FULLCNT_SHIFT = 5  # bits 5-6: BBR.full_bw_count (0..3)
M_FILLED = 128      # bit 7: BBR.filled_pipe
M_RTT_ROUND = 256   # bit 8: BBR.probe_rtt_round_done
M_CONSERVE = 512    # bit 9: BBR.packet_conservation
M_APP_SHIFT = 16    # bits 16-: C.app_limited (0: not application-limited)

STARTUP = 0
DRAIN = 1
PROBE_BW = 2
PROBE_RTT = 3

# record sub-rings (see the module docstring)
R_SEND = 1
R_DELIVERED = 2
R_DELIV_TIME = 3
R_FIRST_SENT = 4
R_APP = 5
#: Added to sub-ring R_APP's 0/1 once a SACK flow's packet is counted in C.delivered (kept
#: across its retransmissions, cleared at its first transmission; sub-rings 6 and 7 are the
#: SACK scoreboard's).
COUNTED = 2.0
N_RINGS = 8

# trace channels (FI_TRACE0 + ...)
TR_EVENT = 0    # >= 0: a packet sent (its number); -1: a timeout; <= -2: ACK -(value) - 2
TR_CWND = 1
TR_PACING = 2
TR_BTLBW = 3
TR_RTPROP = 4
TR_MODE = 5     # state + 4 cycle_index + 32 filled_pipe
TR_DRAW = 6     # the random number drawn on entering PROBE_BW (0..6)

#: Timer slots of a flow: its retransmission timer and its pacing timer.
TIMERS = 2


def setup(spec, ff, fi) -> int:
    """Initial state of a flow (its rows ``ff``, ``fi``); returns the buffer it needs,
    packets: eight times its largest window, for the eight sub-rings of per-packet
    records (the module docstring)."""
    ff[FF_CWND] = spec.initial_window
    ff[FF_SSTHRESH] = np.inf  # BBR has no slow-start threshold
    ff[FF_RTO] = spec.initial_rto
    ff[FF_RTT_T0] = np.inf    # C.min_rtt
    ff[FF_SS + BS_BW0:FF_SS + BS_BWR2 + 1] = 0.0
    ff[FF_SS + BS_RTPROP] = np.inf  # no SRTT at start: RTprop = inf (BBRInit)
    ff[FF_SS + BS_RTPROP_STAMP] = 0.0
    ff[FF_SS + BS_DELIV_TIME] = 0.0
    ff[FF_SS + BS_FIRST_SENT] = 0.0
    ff[FF_SS + BS_STAMP] = 0.0
    ff[FF_SS + BS_PRIOR_CWND] = 0.0
    # BBRInitPacingRate: high_gain x InitialCwnd / 1 ms (no SRTT yet)
    ff[FF_SS + BS_PACING] = spec.high_gain * spec.initial_window / 1e-3
    ff[FF_SS + BS_FULL_BW] = 0.0
    fi[FI_SS + BI_DELIVERED] = 0
    fi[FI_SS + BI_NEXT_ROUND] = 0
    fi[FI_SS + BI_ROUND] = 0
    fi[FI_SS + BI_MODE] = STARTUP
    fi[FI_PER_ACK] = 1        # the send-time ring, Karn's rule for the RTT samples
    fi[FI_EARLY_TIMER] = 0
    if spec.sack:  # the ACKs carry SACK blocks; the region (``sack``) is 32 windows
        fi[FI_WINDOWED] |= spec.sack_blocks << SACK_SHIFT
        return 4 * N_RINGS * spec.max_window
    return N_RINGS * spec.max_window


def traces(spec) -> tuple[str, ...]:
    """Trace channels, if ``record``: ``bbr_event`` (each packet sent, its number; each
    ACK, ``-a - 2``; a timeout, -1) and, after each ACK and timeout, ``bbr_cwnd``
    (packets), ``bbr_pacing`` (packets/s), ``bbr_btlbw`` (packets/s), ``bbr_rtprop`` (s)
    and ``bbr_mode`` (``state + 4 cycle_index + 32 filled_pipe``, states 0 STARTUP, 1
    DRAIN, 2 PROBE_BW, 3 PROBE_RTT); ``bbr_draw``, the random integer (0..6) drawn on
    entering PROBE_BW."""
    if not spec.record:
        return ()
    return ("bbr_event", "bbr_cwnd", "bbr_pacing", "bbr_btlbw", "bbr_rtprop", "bbr_mode",
            "bbr_draw")


@handler
def _slot(S, f, seq, j):
    """Index in ``stime`` of sub-ring ``j`` of packet ``seq``'s record."""
    fi = S.fi
    mask = fi[f, FI_OOO_MASK]
    q = (mask + 1) // N_RINGS
    return (fi[f, FI_OOO_OFF] + ((seq + j * q) & mask)) & POS


@handler
def _trace(S, f, ch, v):
    if S.ff[f, FF_SP + BBR_RECORD] > 0.0:
        record(S, S.fi[f, FI_TRACE0] + ch, v)


@handler
def _btlbw(S, f):
    return S.ff[f, FF_SS + BS_BW0]


@handler
def _gains(S, f, mode):
    """(pacing_gain, cwnd_gain) of the current state."""
    ff = S.ff
    st = mode & M_STATE
    hg = ff[f, FF_SP + BBR_HIGH_GAIN]
    if st == STARTUP:
        return hg, hg
    if st == DRAIN:
        return 1.0 / hg, hg
    if st == PROBE_RTT:
        return 1.0, 1.0
    k = (mode >> M_CYCLE_SHIFT) & 7
    g = 1.25 if k == 0 else (0.75 if k == 1 else 1.0)
    return g, ff[f, FF_SP + BBR_CWND_GAIN]


@handler
def _send_quantum(S, f):
    """BBRSetSendQuantum, packets: the spec's ``send_quantum`` if given, else 1 packet below
    1.2 Mb/s, 2 below 24 Mb/s, else min(pacing_rate x 1 ms, 64 KB)."""
    ff = S.ff
    fixed = ff[f, FF_SP + BBR_QUANTUM]
    if fixed > 0.0:
        return fixed
    bits = ff[f, FF_BITS]
    rate = ff[f, FF_SS + BS_PACING] * bits  # bit/s
    if rate < 1.2e6:
        return 1.0
    if rate < 24e6:
        return 2.0
    q = rate * 1e-3
    cap = 65536.0 * 8.0
    return (q if q < cap else cap) / bits


@rare_handler
def _inflight(S, f, gain):
    """BBRInflight(gain), packets: gain x BtlBw x RTprop + 3 send quanta (InitialCwnd
    while RTprop is unknown)."""
    ff = S.ff
    rtprop = ff[f, FF_SS + BS_RTPROP]
    if rtprop == np.inf:
        return ff[f, FF_SP + BBR_INIT_WINDOW]
    return gain * _btlbw(S, f) * rtprop + 3.0 * _send_quantum(S, f)


@handler
def _max_filter(S, f, t, v, win):
    """Nichols's windowed running max: sample ``v`` taken in round ``t``; window ``win``
    rounds.  Three samples, the best first."""
    ff = S.ff
    b = FF_SS + BS_BW0
    r = FF_SS + BS_BWR0
    if v >= ff[f, b] or t - ff[f, r + 2] > win:  # a new best, or nothing left in window
        for i in range(3):
            ff[f, b + i] = v
            ff[f, r + i] = t
        return
    if v >= ff[f, b + 1]:
        ff[f, b + 1] = v
        ff[f, r + 1] = t
        ff[f, b + 2] = v
        ff[f, r + 2] = t
    elif v >= ff[f, b + 2]:
        ff[f, b + 2] = v
        ff[f, r + 2] = t
    dt = t - ff[f, r]
    if dt > win:  # the best has expired: shift, maybe twice
        ff[f, b] = ff[f, b + 1]
        ff[f, r] = ff[f, r + 1]
        ff[f, b + 1] = ff[f, b + 2]
        ff[f, r + 1] = ff[f, r + 2]
        ff[f, b + 2] = v
        ff[f, r + 2] = t
        if t - ff[f, r] > win:
            ff[f, b] = ff[f, b + 1]
            ff[f, r] = ff[f, r + 1]
            ff[f, b + 1] = ff[f, b + 2]
            ff[f, r + 1] = ff[f, r + 2]
    elif ff[f, r + 1] == ff[f, r] and dt > win // 4:  # a quarter window: a second choice
        ff[f, b + 1] = v
        ff[f, r + 1] = t
        ff[f, b + 2] = v
        ff[f, r + 2] = t
    elif ff[f, r + 2] == ff[f, r + 1] and dt > win // 2:  # half: a third choice
        ff[f, b + 2] = v
        ff[f, r + 2] = t


@handler
def _save_cwnd(S, f, mode):
    """BBRSaveCwnd."""
    ff = S.ff
    c = ff[f, FF_CWND]
    if S.fi[f, FI_IN_REC] == 0 and (mode & M_STATE) != PROBE_RTT:
        ff[f, FF_SS + BS_PRIOR_CWND] = c
    elif c > ff[f, FF_SS + BS_PRIOR_CWND]:
        ff[f, FF_SS + BS_PRIOR_CWND] = c


@handler
def _restore_cwnd(S, f):
    """BBRRestoreCwnd."""
    ff = S.ff
    if ff[f, FF_SS + BS_PRIOR_CWND] > ff[f, FF_CWND]:
        ff[f, FF_CWND] = ff[f, FF_SS + BS_PRIOR_CWND]


@rare_handler
def _enter_probe_bw(S, f, mode):
    """BBREnterProbeBW: cycle_index = 7 - a random integer in [0, 6], then one advance."""
    u = np.int64(rand(S) * 7.0)
    if u > 6:
        u = 6
    _trace(S, f, TR_DRAW, np.float64(u))
    k = (7 - u + 1) & 7
    S.ff[f, FF_SS + BS_STAMP] = S.gf[GF_NOW]
    mode = (mode & ~(M_STATE | (7 << M_CYCLE_SHIFT))) | PROBE_BW | (k << M_CYCLE_SHIFT)
    return mode


@rare_handler
def _update(S, f, mode, rate, rtt, p_deliv, prior_inflight, delivered, lost, app, entering):
    """One ACK's BBRUpdateModelAndState and BBRUpdateControlParameters (draft-00,
    Section 4): the rate sample ``rate`` (packets/s, < 0: none), RTT sample ``rtt`` (s, <
    0: none), the acknowledged packet's ``P.delivered`` (< 0: none known),
    ``prior_inflight``, the packets ``delivered`` and ``lost`` on this ACK, ``app`` the
    sample is application-limited, ``entering`` this ACK starts a fast recovery (cwnd =
    the pipe + max(delivered, 1), then only PROBE_RTT's cap).  Returns the new mode
    word."""
    ff, fi = S.ff, S.fi
    now = S.gf[GF_NOW]
    # BBRUpdateBtlBw, with BBRUpdateRound
    round_start = False
    if p_deliv >= 0 and p_deliv >= fi[f, FI_SS + BI_NEXT_ROUND]:
        fi[f, FI_SS + BI_NEXT_ROUND] = fi[f, FI_SS + BI_DELIVERED]
        fi[f, FI_SS + BI_ROUND] += 1
        round_start = True
        if fi[f, FI_IN_REC] != 0:  # one round of recovery: packet conservation ends
            mode &= ~M_CONSERVE
    if rate >= 0.0 and (rate >= _btlbw(S, f) or not app):
        _max_filter(S, f, np.float64(fi[f, FI_SS + BI_ROUND]), rate,
                    np.int64(ff[f, FF_SP + BBR_BW_ROUNDS]))
    # BBRCheckCyclePhase
    if (mode & M_STATE) == PROBE_BW:
        pg, cg = _gains(S, f, mode)
        full = now - ff[f, FF_SS + BS_STAMP] > ff[f, FF_SS + BS_RTPROP]
        if pg == 1.0:
            nxt = full
        elif pg > 1.0:
            nxt = full and (lost > 0 or prior_inflight >= _inflight(S, f, pg))
        else:
            nxt = full or prior_inflight <= _inflight(S, f, 1.0)
        if nxt:  # BBRAdvanceCyclePhase
            ff[f, FF_SS + BS_STAMP] = now
            k = (((mode >> M_CYCLE_SHIFT) & 7) + 1) & 7
            mode = (mode & ~(7 << M_CYCLE_SHIFT)) | (k << M_CYCLE_SHIFT)
    # BBRCheckFullPipe
    if (mode & M_FILLED) == 0 and round_start and not app:
        bw = _btlbw(S, f)
        if bw >= ff[f, FF_SS + BS_FULL_BW] * 1.25:
            ff[f, FF_SS + BS_FULL_BW] = bw
            mode &= ~(3 << M_FULLCNT_SHIFT)
        else:
            cnt = ((mode >> M_FULLCNT_SHIFT) & 3) + 1
            if cnt >= 3:
                mode |= M_FILLED
                cnt = 3
            mode = (mode & ~(3 << M_FULLCNT_SHIFT)) | (cnt << M_FULLCNT_SHIFT)
    # BBRCheckDrain
    inflight = fi[f, FI_SND_NXT] - fi[f, FI_SND_UNA] - fi[f, FI_RENO_SACKED]
    if (mode & M_STATE) == STARTUP and (mode & M_FILLED) != 0:
        mode = (mode & ~M_STATE) | DRAIN
    if (mode & M_STATE) == DRAIN and inflight <= _inflight(S, f, 1.0):
        mode = _enter_probe_bw(S, f, mode)
    # BBRUpdateRTprop
    expired = now > ff[f, FF_SS + BS_RTPROP_STAMP] + ff[f, FF_SP + BBR_RTPROP_WIN]
    if rtt >= 0.0 and (rtt <= ff[f, FF_SS + BS_RTPROP] or expired):
        ff[f, FF_SS + BS_RTPROP] = rtt
        ff[f, FF_SS + BS_RTPROP_STAMP] = now
    # BBRCheckProbeRTT (never idle: no idle_restart)
    if (mode & M_STATE) != PROBE_RTT and expired:
        mode = (mode & ~M_STATE) | PROBE_RTT
        _save_cwnd(S, f, mode)  # (after the state changes, in the draft's order)
        ff[f, FF_SS + BS_STAMP] = 0.0
    if (mode & M_STATE) == PROBE_RTT:  # BBRHandleProbeRTT
        al = fi[f, FI_SS + BI_DELIVERED] + inflight
        mode = (mode & ((1 << M_APP_SHIFT) - 1)) | ((al if al > 0 else 1) << M_APP_SHIFT)
        if ff[f, FF_SS + BS_STAMP] == 0.0 and inflight <= ff[f, FF_SP + BBR_MIN_CWND]:
            ff[f, FF_SS + BS_STAMP] = now + ff[f, FF_SP + BBR_PROBE_RTT_TIME]
            mode &= ~M_RTT_ROUND
            fi[f, FI_SS + BI_NEXT_ROUND] = fi[f, FI_SS + BI_DELIVERED]
        elif ff[f, FF_SS + BS_STAMP] != 0.0:
            if round_start:
                mode |= M_RTT_ROUND
            if (mode & M_RTT_ROUND) != 0 and now > ff[f, FF_SS + BS_STAMP]:
                ff[f, FF_SS + BS_RTPROP_STAMP] = now
                _restore_cwnd(S, f)
                if (mode & M_FILLED) != 0:  # BBRExitProbeRTT
                    mode = _enter_probe_bw(S, f, mode)
                else:
                    mode = (mode & ~M_STATE) | STARTUP
    # BBRSetPacingRate
    pg, cg = _gains(S, f, mode)
    r = pg * _btlbw(S, f)
    if (mode & M_FILLED) != 0 or r > ff[f, FF_SS + BS_PACING]:
        ff[f, FF_SS + BS_PACING] = r
    # BBRSetCwnd
    target = _inflight(S, f, cg)
    c = ff[f, FF_CWND]
    if lost > 0:  # BBRModulateCwndForRecovery
        c = c - lost
        c = c if c > 1.0 else 1.0
    if entering:
        c = np.float64(inflight + (delivered if delivered > 1 else 1))
    elif (mode & M_CONSERVE) != 0:
        x = np.float64(inflight + delivered)
        c = c if c > x else x
    else:
        if (mode & M_FILLED) != 0:
            c = c + delivered
            c = c if c < target else target
        elif c < target or fi[f, FI_SS + BI_DELIVERED] < ff[f, FF_SP + BBR_INIT_WINDOW]:
            c = c + delivered
        mc = ff[f, FF_SP + BBR_MIN_CWND]
        c = c if c > mc else mc
    if (mode & M_STATE) == PROBE_RTT:  # BBRModulateCwndForProbeRTT
        mc = ff[f, FF_SP + BBR_MIN_CWND]
        c = c if c < mc else mc
    ff[f, FF_CWND] = c
    return mode


@handler
def _record_outputs(S, f, mode):
    if S.ff[f, FF_SP + BBR_RECORD] > 0.0:
        ff = S.ff
        _trace(S, f, TR_CWND, ff[f, FF_CWND])
        _trace(S, f, TR_PACING, ff[f, FF_SS + BS_PACING])
        _trace(S, f, TR_BTLBW, _btlbw(S, f))
        _trace(S, f, TR_RTPROP, ff[f, FF_SS + BS_RTPROP])
        st = mode & M_STATE
        filled = 32 if (mode & M_FILLED) != 0 else 0
        _trace(S, f, TR_MODE, np.float64(st + 4 * ((mode >> M_CYCLE_SHIFT) & 7) + filled))


@rare_handler
def _stamp(S, f, seq):
    """Packet ``seq`` is sent now: its record (draft-cheng's OnPacketSent)."""
    ff, fi, st = S.ff, S.fi, S.stime
    now = S.gf[GF_NOW]
    if fi[f, FI_SND_NXT] - fi[f, FI_SND_UNA] - fi[f, FI_RENO_SACKED] <= 0:
        ff[f, FF_SS + BS_FIRST_SENT] = now
        ff[f, FF_SS + BS_DELIV_TIME] = now
    st[_slot(S, f, seq, R_SEND)] = now
    st[_slot(S, f, seq, R_DELIVERED)] = np.float64(fi[f, FI_SS + BI_DELIVERED])
    st[_slot(S, f, seq, R_DELIV_TIME)] = ff[f, FF_SS + BS_DELIV_TIME]
    st[_slot(S, f, seq, R_FIRST_SENT)] = ff[f, FF_SS + BS_FIRST_SENT]
    k = _slot(S, f, seq, R_APP)
    counted = COUNTED if seq < fi[f, FI_MAXSEQ] and st[k] >= COUNTED else 0.0  # (a resend)
    st[k] = (1.0 if (fi[f, FI_SS + BI_MODE] >> M_APP_SHIFT) != 0 else 0.0) + counted
    _trace(S, f, TR_EVENT, np.float64(seq))


@rare_handler
def send_limit(S, f):
    """One past the last sequence number the flow may send now: one packet more if the
    pacing timer has run out and the pipe (``SND.NXT - SND.UNA`` less the packets duplicate
    ACKs reported delivered; with SACK, RFC 6675's ``SetPipe``) is below ``cwnd``; that
    packet is stamped and the pacing timer set ``1 / pacing_rate`` s ahead.  In a SACK
    recovery the packet is ``NextSeg()``'s: a hole is resent (and SND.NXT returned)
    unless rule 2 gives new data."""
    ff, fi = S.ff, S.fi
    nxt = fi[f, FI_SND_NXT]
    slot = (fi[f, FI_TIMER0] + 1) & POS
    if not is_off(S, slot):
        return nxt
    una = fi[f, FI_SND_UNA]
    if nxt - una - fi[f, FI_RENO_SACKED] >= ff[f, FF_CWND]:
        return nxt
    rate = ff[f, FF_SS + BS_PACING]
    if fi[f, FI_IN_REC] == 1 and fi[f, FI_WINDOWED] > 1:  # SACK recovery: NextSeg, paced
        q, rule = sack.next_seg(S, f, sack.lost_bound(S, f),
                                np.int64(ff[f, FF_SP + BBR_MAX_WINDOW]))
        if rule == 1 or rule == 3 or rule == 4:
            _resend(S, f, q)
            sack.resent(S, f, q, rule, fi[f, FI_RECOVER])
            fi[f, FI_RENO_SACKED] -= 1  # the pipe grows by one, the flight does not
            if rate > 0.0:
                set_deadline(S, slot, S.gf[GF_NOW] + 1.0 / rate, True)
            return nxt
    elif fi[f, FI_WINDOWED] > 1 and nxt < fi[f, FI_MAXSEQ]:  # going back N: skip SACKed
        _, n = sack.skip_sacked(S, f, nxt)
        fi[f, FI_RENO_SACKED] += n  # (SACKed: out of the pipe)
        nxt = fi[f, FI_SND_NXT]
    if nxt - una >= ff[f, FF_SP + BBR_MAX_WINDOW]:
        return nxt
    _stamp(S, f, nxt)
    if rate > 0.0:
        set_deadline(S, slot, S.gf[GF_NOW] + 1.0 / rate, True)
    return nxt + 1


@handler
def on_pace(S, f, k):
    """The pacing timer has run out: let the flow send."""
    return True


@handler
def _resend(S, f, seq):
    """A retransmission outside the pacing (fast retransmit, a partial ACK's hole)."""
    _stamp(S, f, seq)
    transmit(S, f, seq)


@rare_handler
def on_timeout(S, f):
    """A retransmission timeout (go-back-N is the caller's): BBRSaveCwnd, cwnd = 1, the
    duplicate-ACK count dropped, RTO recovery (``FI_IN_REC`` = 2) until everything sent
    before it is acknowledged; RFC 6298's backoff."""
    fi = S.fi
    mode = fi[f, FI_SS + BI_MODE]
    _save_cwnd(S, f, mode)
    restart_after_timeout(S, f, S.ff[f, FF_SP + BBR_MAX_RTO])
    fi[f, FI_IN_REC] = 2
    fi[f, FI_RENO_SACKED] = 0
    if fi[f, FI_WINDOWED] > 1:  # RFC 6675 Section 5.1: the scoreboard is not trusted
        sack.clear(S, f)
    fi[f, FI_SS + BI_MODE] = mode & ~M_CONSERVE
    _trace(S, f, TR_EVENT, -1.0)
    _record_outputs(S, f, fi[f, FI_SS + BI_MODE])


@rare_handler
def _sample(S, f, ps, rtt, mode):
    """The rate sample of an ACK whose packet sent last is ``ps`` (draft-cheng's
    UpdateRateSample and GenerateRateSample), ``C.delivered`` and ``C.delivered_time``
    already counted; ``rtt`` (s, < 0: none) lowers ``C.min_rtt`` first.  Returns ``(rate
    packets/s or -1, P.delivered, P.is_app_limited, mode)`` (``C.app_limited`` cleared
    once passed)."""
    ff, fi, st = S.ff, S.fi, S.stime
    now = S.gf[GF_NOW]
    best = st[_slot(S, f, ps, R_DELIVERED)]
    t_send = st[_slot(S, f, ps, R_SEND)]
    send_el = t_send - st[_slot(S, f, ps, R_FIRST_SENT)]
    ack_el = now - st[_slot(S, f, ps, R_DELIV_TIME)]
    ff[f, FF_SS + BS_FIRST_SENT] = t_send
    a = st[_slot(S, f, ps, R_APP)]
    app = (a - COUNTED if a >= COUNTED else a) > 0.0
    d = fi[f, FI_SS + BI_DELIVERED]
    al = mode >> M_APP_SHIFT
    if al != 0 and d > al:
        mode &= (1 << M_APP_SHIFT) - 1
    if rtt >= 0.0 and rtt < ff[f, MIN_RTT]:
        ff[f, MIN_RTT] = rtt
    interval = send_el if send_el > ack_el else ack_el
    rs_del = d - best
    rate = -1.0
    if interval > 0.0 and interval >= ff[f, MIN_RTT] and rs_del > 0.0:
        rate = rs_del / interval
    return rate, np.int64(best), app, mode


@rare_handler
def on_ack(S, f, a):
    """Cumulative ACK ``a``: the delivery count and rate sample, the loss bookkeeping,
    then BBR's update."""
    ff, fi, st = S.ff, S.fi, S.stime
    if fi[f, FI_WINDOWED] > 1:
        on_ack_sack(S, f, a)
        return
    now = S.gf[GF_NOW]
    una = fi[f, FI_SND_UNA]
    nxt = fi[f, FI_SND_NXT]
    _trace(S, f, TR_EVENT, np.float64(-a - 2))
    mode = fi[f, FI_SS + BI_MODE]
    sacked = fi[f, FI_RENO_SACKED]
    prior_inflight = nxt - una - sacked
    rate = -1.0
    rtt = -1.0
    p_deliv = np.int64(-1)
    app = False
    lost = 0
    delivered = 0
    entering = False
    if a > una:
        n = a - una
        left = sacked - (n - 1)  # duplicate-ACKed packets above the new SND.UNA
        left = left if left > 0 else 0
        delivered = n - (sacked - left)
        fi[f, FI_RENO_SACKED] = left
        fi[f, FI_SS + BI_DELIVERED] += delivered
        ff[f, FF_SS + BS_DELIV_TIME] = now
        # the newly acknowledged packet sent last (the largest P.delivered)
        best = -1.0
        ps = una
        retx = False
        for q in range(una, a):
            pd = st[_slot(S, f, q, R_DELIVERED)]
            if pd >= best:
                best = pd
                ps = q
            if st[_slot(S, f, q, 0)] < 0.0:
                retx = True
        t0 = st[_slot(S, f, a - 1, 0)]
        if not retx and t0 >= 0.0:  # Karn: no sample if a retransmission is acknowledged
            rtt = now - t0
            rfc6298_sample(S, f, rtt, ff[f, FF_SP + BBR_MIN_RTO], ff[f, FF_SP + BBR_MAX_RTO])
        rate, p_deliv, app, mode = _sample(S, f, ps, rtt, mode)
        fi[f, FI_SND_UNA] = a
        if nxt < a:
            fi[f, FI_SND_NXT] = a
        fi[f, FI_DUPACKS] = 0
        rec = fi[f, FI_IN_REC]
        if rec != 0 and a > fi[f, FI_RECOVER]:  # all repaired: leave recovery
            fi[f, FI_IN_REC] = 0
            fi[f, FI_RENO_SACKED] = 0
            mode &= ~M_CONSERVE
            _restore_cwnd(S, f)
        elif rec == 1:  # a partial ACK: the next hole is lost too
            lost = 1
            _resend(S, f, a)
        if fi[f, FI_SND_UNA] == fi[f, FI_SND_NXT]:
            cancel(S, fi[f, FI_TIMER0] & POS)
        else:
            arm_timer(S, f)
    elif a == una and nxt > una:
        # a duplicate ACK: one more packet above SND.UNA has left the network, taken as
        # the next one above SND.UNA not counted yet (the packets above a hole arrive in
        # the order sent over a FIFO path); its rate sample, no RTT sample
        if sacked < nxt - una - 1:
            fi[f, FI_RENO_SACKED] = sacked + 1
            delivered = 1
            fi[f, FI_SS + BI_DELIVERED] += 1
            ff[f, FF_SS + BS_DELIV_TIME] = now
            rate, p_deliv, app, mode = _sample(S, f, una + sacked + 1, -1.0, mode)
        dup = fi[f, FI_DUPACKS] + 1
        fi[f, FI_DUPACKS] = dup
        if dup == 3 and fi[f, FI_IN_REC] == 0 and a > fi[f, FI_RECOVER]:
            lost = 1  # SND.UNA is lost: fast recovery
            entering = True
            _save_cwnd(S, f, mode)
            fi[f, FI_RECOVER] = nxt - 1
            fi[f, FI_IN_REC] = 1
            fi[f, FI_FAST_RTX] += 1
            mode |= M_CONSERVE
            fi[f, FI_SS + BI_NEXT_ROUND] = fi[f, FI_SS + BI_DELIVERED]
            _resend(S, f, a)
            arm_timer(S, f)
    else:
        _record_outputs(S, f, mode)
        return
    mode = _update(S, f, mode, rate, rtt, p_deliv, prior_inflight, delivered, lost, app,
                   entering)
    fi[f, FI_SS + BI_MODE] = mode
    _record_outputs(S, f, mode)


@rare_handler
def on_ack_sack(S, f, a):
    """Cumulative ACK ``a`` of a SACK flow: the packets it newly acknowledges or SACKs are
    delivered (draft-cheng: each one's ``P.delivered`` a candidate for the rate sample),
    RFC 6675's scoreboard and recovery (entered on the third duplicate ACK or ``IsLost
    (SND.UNA)``; the packets ``IsLost()`` newly marks are BBR's ``losses``), the pipe
    ``SetPipe()`` (kept as ``FI_RENO_SACKED`` = flight - pipe, which the pacing and BBR's
    in-flight read), then BBR's update.  In recovery :func:`send_limit` sends what
    ``NextSeg()`` gives (RFC 6675 step (C)), paced like new data."""
    ff, fi, st = S.ff, S.fi, S.stime
    now = S.gf[GF_NOW]
    una = fi[f, FI_SND_UNA]
    nxt = fi[f, FI_SND_NXT]
    _trace(S, f, TR_EVENT, np.float64(-a - 2))
    mode = fi[f, FI_SS + BI_MODE]
    prior_inflight = nxt - una - fi[f, FI_RENO_SACKED]
    lb_old = sack.lost_bound(S, f)
    best = -1.0
    ps = np.int64(-1)
    retx = False
    delivered = 0
    for q in range(una, a):  # newly acknowledged, not SACKed before
        k = _slot(S, f, q, R_APP)
        if not sack.sacked(S, f, q) and st[k] < COUNTED:
            st[k] += COUNTED  # (not counted again after a timeout)
            delivered += 1
            pd = st[_slot(S, f, q, R_DELIVERED)]
            if pd >= best:
                best = pd
                ps = q
        if st[_slot(S, f, q, 0)] < 0.0:
            retx = True
    new = sack.update(S, f, a)
    if a < una:
        _record_outputs(S, f, mode)
        return
    if new > 0:
        tag, lo, hi = sack.new_tag(S, f)
        for q in range(lo, hi + 1):
            k = _slot(S, f, q, R_APP)
            if sack.sacked(S, f, q) and sack.tag_of(S, f, q) == tag and st[k] < COUNTED:
                st[k] += COUNTED
                delivered += 1
                pd = st[_slot(S, f, q, R_DELIVERED)]
                if pd >= best:
                    best = pd
                    ps = q
    rate = -1.0
    rtt = -1.0
    p_deliv = np.int64(-1)
    app = False
    if delivered > 0:
        fi[f, FI_SS + BI_DELIVERED] += delivered
        ff[f, FF_SS + BS_DELIV_TIME] = now
    if a > una:
        t0 = st[_slot(S, f, a - 1, 0)]
        if not retx and t0 >= 0.0:  # Karn: no sample if a retransmission is acknowledged
            rtt = now - t0
            rfc6298_sample(S, f, rtt, ff[f, FF_SP + BBR_MIN_RTO], ff[f, FF_SP + BBR_MAX_RTO])
    if ps >= 0:
        rate, p_deliv, app, mode = _sample(S, f, ps, rtt, mode)
    if a > una:
        fi[f, FI_SND_UNA] = a
        if nxt < a:
            fi[f, FI_SND_NXT] = a
        if fi[f, FI_IN_REC] != 0 and a > fi[f, FI_RECOVER]:  # all repaired: the end
            fi[f, FI_IN_REC] = 0
            mode &= ~M_CONSERVE
            _restore_cwnd(S, f)
        if fi[f, FI_IN_REC] == 0:
            fi[f, FI_DUPACKS] = 0
        if fi[f, FI_SND_UNA] == fi[f, FI_SND_NXT]:
            cancel(S, fi[f, FI_TIMER0] & POS)
        else:
            arm_timer(S, f)
    una = fi[f, FI_SND_UNA]
    lb = sack.lost_bound(S, f)
    lost = 0
    for q in range(lb_old if lb_old > una else una, lb):  # newly lost (IsLost)
        if not sack.sacked(S, f, q):
            lost += 1
    entering = False
    if new > 0 and fi[f, FI_IN_REC] == 0 and fi[f, FI_SND_NXT] > una:
        dup = fi[f, FI_DUPACKS] + 1
        fi[f, FI_DUPACKS] = dup
        if (dup >= sack.DUP_THRESH or lb > una) and una > fi[f, FI_RECOVER]:
            entering = True
            if lost == 0:
                lost = 1  # SND.UNA, presumed lost by the duplicate ACKs
            _save_cwnd(S, f, mode)
            fi[f, FI_RECOVER] = fi[f, FI_SND_NXT] - 1
            fi[f, FI_IN_REC] = 1
            fi[f, FI_FAST_RTX] += 1
            mode |= M_CONSERVE
            fi[f, FI_SS + BI_NEXT_ROUND] = fi[f, FI_SS + BI_DELIVERED]
            sack.start_recovery(S, f)
            _resend(S, f, una)
            arm_timer(S, f)
    pipe = sack.set_pipe(S, f, lb)
    fi[f, FI_RENO_SACKED] = fi[f, FI_SND_NXT] - una - pipe
    mode = _update(S, f, mode, rate, rtt, p_deliv, prior_inflight, delivered, lost, app,
                   entering)
    fi[f, FI_SS + BI_MODE] = mode
    _record_outputs(S, f, mode)


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": send_limit,
    "source_ack": on_ack,
    "source_timeout": on_timeout,
    "source_timer": on_pace,
    "source_window": cwnd_window,
}
