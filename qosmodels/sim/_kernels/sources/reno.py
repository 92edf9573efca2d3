"""TCP Reno and NewReno senders (spec: :class:`qosmodels.mechanisms.TcpReno`, ``TcpNewReno``).

Slow start, congestion avoidance, fast retransmit and recovery (window
inflation, or ns-3's classic recovery without SACK with ``recovery="pipe"``),
limited transmit (RFC 3042, off by default), the RFC 6298 estimator and three
sets of timer rules; the spec's docstring gives the rules and their sources.

References
----------
V. Jacobson, SIGCOMM 1988; RFC 2001; RFC 2582; RFC 3042, Section 2; RFC 5681,
Section 3.2; RFC 6298; RFC 6582; RFC 6675, Section 5, step (3); ns-3.44
``tcp-socket-base.cc`` (``DupAck``: ``AddRenoSack`` in ``CA_DISORDER`` with
``LimitedTransmit``), ``tcp-recovery-ops.cc``, ``tcp-tx-buffer.cc``.
"""

import math

import numpy as np

from .. import prr, sack
from .._jit import POS, handler, rare_handler
from ..layout import (
    FF_ACK_BITS,
    FF_CWND,
    FF_RTO,
    FF_RTT_T0,
    FF_RTTVAR,
    FF_SP,
    FF_SRTT,
    FF_SS,
    FF_SSTHRESH,
    FI_APP_LIMIT,
    FI_DUPACKS,
    FI_EARLY_TIMER,
    FI_ECN,
    FI_ECN_RECOVER,
    FI_FAST_RTX,
    FI_FIRST_PARTIAL,
    FI_GROW_PACKETS,
    FI_HEAD_LOST,
    FI_IN_REC,
    FI_MAXSEQ,
    FI_OOO_MASK,
    FI_OOO_OFF,
    FI_PER_ACK,
    FI_RACK,
    FI_RECOVER,
    FI_RENO_SACKED,
    FI_RTT_SEQ,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_SS,
    FI_TIMER0,
    FI_TIMING,
    FI_WINDOWED,
    GF_NOW,
    SACK_SHIFT,
)
from ..sender import arm_timer, record_rtt, transmit
from ..timers import cancel

CODE = 0

# retransmission-timer rules (TcpReno.timer), packed in TCP_TIMER
TIMER_REFERENCE = 0  # restart on every new ACK, the fast retransmit and every partial ACK
TIMER_IMPATIENT = 1  # RFC 6298 5.1/5.3, RTO recomputed on restart, RFC 6582 3.2 step 5 impatient
TIMER_SLOW = 2       # ... slow-but-steady: every partial ACK restarts the timer
TIMER_RULES = {"reference": TIMER_REFERENCE, "impatient": TIMER_IMPATIENT,
               "slow-but-steady": TIMER_SLOW}
# fast-recovery rules (TcpReno.recovery), packed in TCP_RECOVERY
RECOVERY_INFLATION = 0  # RFC 5681/6582: cwnd = ssthresh + 3, +1 per dupack, deflated on partial ACKs
RECOVERY_PIPE = 1       # ns-3 TcpClassicRecovery without SACK: cwnd = ssthresh, send while pipe < cwnd
RECOVERY_RULES = {"inflation": RECOVERY_INFLATION, "pipe": RECOVERY_PIPE}

# parameter columns (offsets into the flow's parameter row), in PARAMS order
TCP_MAX_WINDOW = 0
TCP_INIT_WINDOW = 1
TCP_INIT_SSTHRESH = 2   # 0: max_window
TCP_MIN_RTO = 3
TCP_MAX_RTO = 4
TCP_INIT_RTO = 5
TCP_ECN = 6
TCP_RTT_PER_ACK = 7     # 1: an RTT sample from every new ACK (send-time ring); 0: one timed segment per RTT
TCP_TIMER = 8           # TIMER_REFERENCE, TIMER_IMPATIENT, TIMER_SLOW
TCP_RECOVERY = 9        # RECOVERY_INFLATION, RECOVERY_PIPE
TCP_SEGMENT = 10        # window_arithmetic="bytes": the segment size, bytes; 0: "packets"
TCP_NEWRENO = 11        # 1: NewReno's partial ACKs
TCP_SACK = 12           # SACK blocks per ACK (RFC 2018), 0: no SACK; RFC 6675's recovery
TCP_PRR = prr.PARAM     # 13: PRR (RFC 9937) in the SACK recovery, 0 off, else its bound rule

#: The spec fields packed into the parameter row, in column order: a field name, or
#: (name, function of the spec) for a derived value.
PARAMS = (
    "max_window", "initial_window", "initial_ssthresh", "min_rto", "max_rto", "initial_rto",
    "ecn",
    ("rtt_per_ack", lambda s: s.rtt_samples == "ack"),
    ("timer", lambda s: TIMER_RULES[s.timer]),
    ("recovery", lambda s: RECOVERY_RULES[s.recovery]),
    ("segment", lambda s: s.segment_size if s.window_arithmetic == "bytes" else 0),
    ("newreno", lambda s: s.kind == "newreno"),
    ("sack", lambda s: s.sack_blocks if s.sack else 0),
    ("prr", lambda s: prr.BOUNDS[s.prr_bound] if s.prr else prr.OFF),
)


# float state columns (FF_SS + ...)
RENO_INCREASE = 0       # f: congestion avoidance adds f per round trip (spec's increase)
# integer state columns (FI_SS + ...): 0-2 are the modules' on top of this one (DCTCP's,
# Vegas', the web model's); :mod:`.cubic` keeps limited transmit in the same column
RENO_LT = 3             # limited transmit (RFC 3042): 0 off; else 1 + the new packets it
                        # has sent since the last new ACK, timeout or fast retransmit

#: Timer slots of a flow: its retransmission timer.
TIMERS = 1


def setup(spec, ff, fi) -> int:
    """Initial state of a flow (its rows ``ff``, ``fi``); returns its largest window, packets."""
    # a fixed increase here; a named one (from the network's RTTs) in setup_flow
    ff[FF_SS + RENO_INCREASE] = np.nan if isinstance(spec.increase, str) else spec.increase
    ff[FF_CWND] = spec.initial_window
    ff[FF_SSTHRESH] = spec.max_window if spec.initial_ssthresh is None else spec.initial_ssthresh
    ff[FF_RTO] = spec.initial_rto
    fi[FI_ECN] = int(spec.ecn)
    fi[FI_PER_ACK] = int(spec.rtt_samples == "ack")
    fi[FI_EARLY_TIMER] = int(spec.timer != "reference")
    if spec.limited_transmit:
        fi[FI_SS + RENO_LT] = 1
    if spec.sack:  # the ACKs carry SACK blocks; the flow's region (``sack``) is 32 windows
        fi[FI_WINDOWED] |= spec.sack_blocks << SACK_SHIFT
        fi[FI_RACK] = (1 + int(spec.tlp)) if spec.rack else 0  # RFC 8985 (``rack``)
        return 32 * spec.max_window
    return spec.max_window


def setup_flow(spec, network, i, ff, fi) -> None:
    """The increase per round trip of flow ``i`` (``TcpReno.increase_factor``: for the
    named increases it depends on the RTTs of the flow's group)."""
    ff[FF_SS + RENO_INCREASE] = spec.increase_factor(network, i, ack_size=ff[FF_ACK_BITS] / 8.0)


@handler
def _window_end(S, f):
    """SND.UNA + ``min(cwnd, max_window)`` (the window's packets, whole)."""
    w = S.ff[f, FF_CWND]
    wmax = S.ff[f, FF_SP + TCP_MAX_WINDOW]
    if w > wmax:
        w = wmax
    return S.fi[f, FI_SND_UNA] + np.int64(w)


@handler
def send_limit(S, f):
    """One past the last sequence number the window allows now (a flow without SACK;
    :func:`send_limit_sack` with it)."""
    fi = S.fi
    lim = _window_end(S, f)
    if fi[f, FI_RENO_SACKED] > 0:  # recovery="pipe": pipe = flight - SACKed < cwnd
        lim += fi[f, FI_RENO_SACKED]
        rwnd = fi[f, FI_SND_UNA] + np.int64(S.ff[f, FF_SP + TCP_MAX_WINDOW])
        if lim > rwnd:
            lim = rwnd
    return lim


@handler
def send_limit_sack(S, f):
    """:func:`send_limit` of a SACK flow (``source_send_limit`` of :mod:`.reno_sack` and
    :mod:`.reno_rack`): in recovery nothing beyond SND.NXT (step (C) sends, in the ACK's
    handler); going back N after a timeout, the SACKed packets skipped."""
    fi = S.fi
    if fi[f, FI_IN_REC] != 0:  # SACK recovery sends in on_ack
        return fi[f, FI_SND_NXT]
    if fi[f, FI_SND_NXT] < fi[f, FI_MAXSEQ]:  # going back N: SACKed packets skipped
        lim, _ = sack.skip_sacked(S, f, _window_end(S, f))
        return lim
    return send_limit(S, f)


@handler
def restart_after_timeout(S, f, max_rto):
    """After a retransmission timeout (RFC 5681 Section 3.1, RFC 6298 Section 5): the window
    one packet, the recovery point the highest sequence sent, out of fast recovery, and the
    timer backed off (doubled, at most ``max_rto`` s).  Shared by Reno/NewReno and
    :mod:`.cubic`, which set ssthresh their own way first."""
    ff, fi = S.ff, S.fi
    ff[f, FF_CWND] = 1.0
    fi[f, FI_RECOVER] = fi[f, FI_MAXSEQ] - 1
    fi[f, FI_IN_REC] = 0
    fi[f, FI_DUPACKS] = 0
    rto = 2.0 * ff[f, FF_RTO]
    ff[f, FF_RTO] = rto if rto < max_rto else max_rto


@handler
def rfc6298_sample(S, f, r, lo, hi):
    """RFC 6298's estimator (alpha 1/8, beta 1/4) on round-trip sample ``r`` (s), the RTO
    clamped to ``[lo, hi]`` (s); the sample recorded.  Shared by the TCP senders that use
    it (Reno/NewReno here, :mod:`.cubic`)."""
    ff = S.ff
    if ff[f, FF_SRTT] < 0.0:
        ff[f, FF_SRTT] = r
        ff[f, FF_RTTVAR] = r / 2.0
    else:
        e = r - ff[f, FF_SRTT]
        ff[f, FF_RTTVAR] = 0.75 * ff[f, FF_RTTVAR] + 0.25 * abs(e)
        ff[f, FF_SRTT] = 0.875 * ff[f, FF_SRTT] + 0.125 * r
    rto = ff[f, FF_SRTT] + 4.0 * ff[f, FF_RTTVAR]
    ff[f, FF_RTO] = lo if rto < lo else (hi if rto > hi else rto)
    record_rtt(S, f, r)


@handler
def fresh_rto(S, f, lo, hi):
    """A restart's RTO under the RFC timer rules (``timer`` other than ``"reference"``):
    ``srtt + 4 rttvar`` clamped to ``[lo, hi]`` (s), clearing any backoff (RFC 6298,
    Section 5: the RTO "collapses" after a backoff; also when the timer stops, so that the
    next transmission starts it with this RTO); nothing before the first RTT sample.
    Shared by Reno/NewReno and :mod:`.cubic`."""
    ff = S.ff
    if ff[f, FF_SRTT] >= 0.0:
        rto = ff[f, FF_SRTT] + 4.0 * ff[f, FF_RTTVAR]
        ff[f, FF_RTO] = lo if rto < lo else (hi if rto > hi else rto)


@handler
def fast_retransmit_timer(S, f, rules):
    """The retransmission timer at the fast retransmit under timer rules ``rules``:
    restarted under ``TIMER_REFERENCE``; under the RFC rules it runs on from the last new
    ACK, and the recovery's first partial ACK is marked as one that may restart it
    (``FI_FIRST_PARTIAL``).  Shared by Reno/NewReno and :mod:`.cubic`."""
    if rules == TIMER_REFERENCE:
        arm_timer(S, f)
    else:
        S.fi[f, FI_FIRST_PARTIAL] = 1


@handler
def ack_rtt(S, f, una, a):
    """The round-trip sample a new cumulative ACK ``a`` gives (``una`` the SND.UNA before
    it), s, or -1 for none: with per-ACK sampling the age of the oldest packet it covers,
    unless that was retransmitted (Karn); else the timed segment's, once ``a`` passes it.
    Shared by the TCP senders that time segments so (Reno/NewReno here, :mod:`.cubic`)."""
    fi = S.fi
    if fi[f, FI_PER_ACK] != 0:
        t0 = S.stime[(fi[f, FI_OOO_OFF] + (una & fi[f, FI_OOO_MASK])) & POS]
        if t0 >= 0.0:
            return S.gf[GF_NOW] - t0
    elif fi[f, FI_TIMING] != 0 and a > fi[f, FI_RTT_SEQ]:
        fi[f, FI_TIMING] = 0
        return S.gf[GF_NOW] - S.ff[f, FF_RTT_T0]
    return -1.0


@handler
def rtt_sample(S, f, r):
    """RFC 6298's estimator, RTO clamped to the spec's [min_rto, max_rto]."""
    ff = S.ff
    rfc6298_sample(S, f, r, ff[f, FF_SP + TCP_MIN_RTO], ff[f, FF_SP + TCP_MAX_RTO])


@handler
def ca_increase(S, f, c):
    """Congestion avoidance: cwnd + f/cwnd per new ACK (f per round trip; f = 1 is
    standard TCP, and f / c is then exactly 1.0 / c), or with window_arithmetic="bytes"
    ns-3's TcpNewReno::CongestionAvoidance on a window of whole bytes, cwnd +=
    max(1, (uint32_t)(S*S/cwnd)) bytes (the window kept as bytes / S; the spec
    allows only f = 1 there)."""
    seg = S.ff[f, FF_SP + TCP_SEGMENT]
    if seg > 0.0:
        b = math.floor(c * seg + 0.5)
        d = math.floor(seg * seg / b)
        return (b + (d if d > 1.0 else 1.0)) / seg
    return c + S.ff[f, FF_SS + RENO_INCREASE] / c


@handler
def grow(S, f, c, newly):
    """The window after a new ACK of ``newly`` packets outside recovery, ``cwnd`` being
    ``c``: RFC 5681 3.1's growth per ACK (slow start one packet, congestion avoidance
    :func:`ca_increase`), or with ``ack_counting="packets"`` (``FI_GROW_PACKETS``) that
    growth once per packet acknowledged, as if each had its own ACK (Linux's
    ``tcp_slow_start`` and ``tcp_cong_avoid_ai`` count the packets an ACK acknowledges;
    RFC 3465 without its limit L)."""
    if S.fi[f, FI_GROW_PACKETS] != 0:
        return grow_per_packet(S, f, c, newly)
    if c < S.ff[f, FF_SSTHRESH]:
        return c + 1.0
    return ca_increase(S, f, c)


@rare_handler
def grow_per_packet(S, f, c, newly):
    """:func:`grow` with ``ack_counting="packets"``: RFC 5681's growth once per packet
    acknowledged (a real function, off the per-ACK path most flows take)."""
    for _ in range(newly):
        if c < S.ff[f, FF_SSTHRESH]:
            c += 1.0
        else:
            c = ca_increase(S, f, c)
    return c


@handler
def halved(S, f, flight):
    """ssthresh = max(flight/2, 2); with window_arithmetic="bytes" ns-3's
    TcpNewReno::GetSsThresh, max(2 S, bytesInFlight / 2) in integer bytes."""
    seg = S.ff[f, FF_SP + TCP_SEGMENT]
    if seg > 0.0:
        ss = math.floor(flight * seg / 2.0) / seg
    else:
        ss = flight / 2.0
    return ss if ss > 2.0 else 2.0


@handler
def lt_sent(S, f):
    """The new packets limited transmit has sent since the last new ACK, timeout or fast
    retransmit (0 when it is off): RFC 5681, Section 3.2, step 2 (and RFC 6675, step
    (4.2)) leaves them out of the FlightSize that sets ssthresh at the fast retransmit."""
    lt = S.fi[f, FI_SS + RENO_LT]
    return lt - 1 if lt > 1 else np.int64(0)


@handler
def lt_restart(S, f):
    """A new ACK, a timeout or a fast retransmit: limited transmit's count back to 0."""
    if S.fi[f, FI_SS + RENO_LT] > 1:
        S.fi[f, FI_SS + RENO_LT] = 1


@rare_handler
def limited_transmit(S, f, una, wmax):
    """RFC 3042, Section 2, on one of the first two duplicate ACKs (the caller's test):
    one new packet, if the window is full (``min(cwnd, wmax)`` packets outstanding, the
    packets it allows all sent), previously unsent data is waiting, the receiver's window
    (``wmax``, the spec's max_window) allows it and at most ``cwnd + 2`` packets would be
    outstanding; ``cwnd`` unchanged; the packet counted (``RENO_LT``) for
    :func:`lt_sent`.  The packet leaves through ``transmit`` as a fast retransmission
    does (a shaping edge element's gate is not asked).  Shared with :mod:`.cubic`."""
    ff, fi = S.ff, S.fi
    nxt = fi[f, FI_SND_NXT]
    if nxt < fi[f, FI_MAXSEQ] or nxt >= fi[f, FI_APP_LIMIT]:  # new data only
        return
    c = ff[f, FF_CWND]
    w = c if c < wmax else wmax
    out = nxt + 1 - una
    if out <= np.int64(w) or out > np.int64(wmax) or out > c + 2.0:
        return
    if transmit(S, f, nxt):
        fi[f, FI_SND_NXT] = nxt + 1
        fi[f, FI_SS + RENO_LT] += 1


@rare_handler
def limited_transmit_sack(S, f, wmax):
    """RFC 6675, Section 5, step (3), a duplicate ACK below DupThresh with SND.UNA not
    lost: (3.1) HighRxt = HighACK; (3.2) ``SetPipe()``; (3.3) while ``cwnd - pipe >= 1``,
    previously unsent data is waiting and the receiver's window (``wmax`` packets above
    SND.UNA) allows, the next new packet, counted (``RENO_LT``) for :func:`lt_sent`.  (RFC
    6675 makes step (3) a MAY; here it runs only with limited transmit on.)  Shared with
    :mod:`.cubic`."""
    ff, fi = S.ff, S.fi
    una = fi[f, FI_SND_UNA]
    sack.resent(S, f, una - 1, 1, una)  # (3.1): HighRxt = SND.UNA - 1
    pipe = sack.set_pipe(S, f, una)     # (IsLost(SND.UNA) is false: nothing counts as lost)
    lim = una + wmax
    if lim > fi[f, FI_APP_LIMIT]:
        lim = fi[f, FI_APP_LIMIT]
    nxt = fi[f, FI_SND_NXT]
    c = ff[f, FF_CWND]
    while c - pipe >= 1.0 and nxt >= fi[f, FI_MAXSEQ] and nxt < lim:
        if not transmit(S, f, nxt):
            break
        nxt += 1
        fi[f, FI_SND_NXT] = nxt
        fi[f, FI_SS + RENO_LT] += 1
        pipe += 1


@handler
def on_timeout(S, f):
    """The window's reaction to a retransmission timeout (go-back-N is the caller's)."""
    ff, fi = S.ff, S.fi
    # (recovery="pipe": ns-3's BytesInFlight() before the timeout, SACKed
    # packets excluded; the SACK marks are then dropped, ResetRenoSack)
    flight = fi[f, FI_SND_NXT] - fi[f, FI_SND_UNA] - fi[f, FI_RENO_SACKED]
    fi[f, FI_RENO_SACKED] = 0
    fi[f, FI_HEAD_LOST] = 0
    lt_restart(S, f)
    ff[f, FF_SSTHRESH] = halved(S, f, flight)
    restart_after_timeout(S, f, ff[f, FF_SP + TCP_MAX_RTO])


@handler
def on_timeout_sack(S, f):
    """:func:`on_timeout` of a SACK flow (``source_timeout`` of :mod:`.reno_sack`; with
    ``rack=True`` :func:`.reno_rack.on_timeout_rack` calls it): the scoreboard emptied
    first (RFC 6675 Section 5.1: it is not trusted; the rest reads none of it)."""
    sack.clear(S, f)
    on_timeout(S, f)


@handler
def on_ack(S, f, a, ece):
    """Cumulative ACK ``a`` (``ece``: it echoes a congestion mark): a new ACK, or a
    duplicate (``a`` = SND.UNA with data outstanding)."""
    ff, fi = S.ff, S.fi
    una = fi[f, FI_SND_UNA]
    newreno = ff[f, FF_SP + TCP_NEWRENO] > 0.0
    rules = np.int64(ff[f, FF_SP + TCP_TIMER])
    pipe = ff[f, FF_SP + TCP_RECOVERY] > 0.0
    if a > una:
        newly = a - una
        restart = True
        resend_head = False
        if pipe:
            # ns-3's TcpTxBuffer::DiscardUpTo: the duplicate ACKs' SACK marks sit on
            # una+1 .. una+s; those below a go with the acknowledged packets, and a
            # mark left on the new head moves to the next packet sent, if any, the
            # head being marked lost (so it is resent)
            sk = fi[f, FI_RENO_SACKED] - (newly - 1)
            room = fi[f, FI_MAXSEQ] - a - 1
            if sk > 0 and room >= 0:
                resend_head = True
            if sk > room:
                sk = room
            fi[f, FI_RENO_SACKED] = sk if sk > 0 else 0
            # the lost mark stays on that head until it is acknowledged
            fi[f, FI_HEAD_LOST] = 1 if resend_head else 0
        r = ack_rtt(S, f, una, a)
        if r >= 0.0:
            rtt_sample(S, f, r)
        fi[f, FI_SND_UNA] = a
        lt_restart(S, f)
        if fi[f, FI_SND_NXT] < a:
            fi[f, FI_SND_NXT] = a
        if fi[f, FI_IN_REC] != 0:
            if a > fi[f, FI_RECOVER] or not newreno:
                ff[f, FF_CWND] = ff[f, FF_SSTHRESH]  # leave fast recovery
                fi[f, FI_IN_REC] = 0
                fi[f, FI_DUPACKS] = 0
                if pipe:  # ns-3 ProcessAck: then IncreaseWindow, cwnd being ssthresh
                    ff[f, FF_CWND] = ca_increase(S, f, ff[f, FF_CWND])
            else:  # NewReno partial ACK: resend the next hole (below), deflate
                if not pipe:  # (pipe: cwnd stays ssthresh)
                    c = ff[f, FF_CWND] - newly + 1.0
                    ff[f, FF_CWND] = c if c > 1.0 else 1.0
                resend_head = True
                if rules == TIMER_IMPATIENT:  # only the first partial ACK restarts
                    restart = fi[f, FI_FIRST_PARTIAL] != 0
                    fi[f, FI_FIRST_PARTIAL] = 0
        else:
            fi[f, FI_DUPACKS] = 0
            c = grow(S, f, ff[f, FF_CWND], newly)
            wmax = ff[f, FF_SP + TCP_MAX_WINDOW]
            ff[f, FF_CWND] = c if c < wmax else wmax
        if resend_head:  # (one call site: transmit is inlined at each)
            transmit(S, f, a)
        if ece and fi[f, FI_IN_REC] == 0 and a > fi[f, FI_ECN_RECOVER]:
            ff[f, FF_SSTHRESH] = halved(S, f, fi[f, FI_SND_NXT] - a)
            ff[f, FF_CWND] = ff[f, FF_SSTHRESH]
            # once per window of data (RFC 3168, Section 6.1.2): no new reduction until an
            # ACK covers a packet sent after this one (a > SND.NXT), as Dctcp's
            fi[f, FI_ECN_RECOVER] = fi[f, FI_SND_NXT]
        if restart and rules != TIMER_REFERENCE:
            fresh_rto(S, f, ff[f, FF_SP + TCP_MIN_RTO], ff[f, FF_SP + TCP_MAX_RTO])
        if fi[f, FI_SND_UNA] == fi[f, FI_SND_NXT]:
            cancel(S, fi[f, FI_TIMER0] & POS)
        elif restart:
            arm_timer(S, f)
    elif a == una and fi[f, FI_SND_NXT] > una:
        if fi[f, FI_IN_REC] != 0:
            if pipe:  # ns-3 AddRenoSack: one more packet has left the network
                sk = fi[f, FI_RENO_SACKED] + 1
                room = fi[f, FI_MAXSEQ] - una - 1
                fi[f, FI_RENO_SACKED] = sk if sk < room else room
            else:
                ff[f, FF_CWND] += 1.0
        else:
            d = fi[f, FI_DUPACKS] + 1
            fi[f, FI_DUPACKS] = d
            # (pipe: ns-3's DupAck in CA_DISORDER also enters recovery on any
            # duplicate ACK while IsLost(SND.UNA): the head marked lost below a mark)
            if (d == 3 and (a > fi[f, FI_RECOVER] or not newreno)) or (
                    pipe and fi[f, FI_HEAD_LOST] != 0 and fi[f, FI_RENO_SACKED] > 0):
                flight = fi[f, FI_SND_NXT] - una
                if pipe:
                    # ns-3 EnterRecovery: one Reno SACK and the head lost, so
                    # BytesInFlight() + 1 packet = flight - SACKed packets
                    sk = fi[f, FI_RENO_SACKED] + 1
                    room = fi[f, FI_MAXSEQ] - una - 1
                    sk = sk if sk < room else room
                    fi[f, FI_RENO_SACKED] = sk
                    flight -= sk
                else:  # (limited transmit's packets are not in FlightSize)
                    flight -= lt_sent(S, f)
                    lt_restart(S, f)
                ff[f, FF_SSTHRESH] = halved(S, f, flight)
                fi[f, FI_RECOVER] = fi[f, FI_SND_NXT] - 1
                fi[f, FI_IN_REC] = 1
                ff[f, FF_CWND] = ff[f, FF_SSTHRESH] + (0.0 if pipe else 3.0)
                fi[f, FI_FAST_RTX] += 1
                transmit(S, f, a)
                fast_retransmit_timer(S, f, rules)
            elif (fi[f, FI_SS + RENO_LT] != 0 and d < 3
                  and (a > fi[f, FI_RECOVER] or not newreno)):
                if pipe:  # ns-3's DupAck with LimitedTransmit: AddRenoSack (send_limit sends)
                    sk = fi[f, FI_RENO_SACKED] + 1
                    room = fi[f, FI_MAXSEQ] - una - 1
                    fi[f, FI_RENO_SACKED] = sk if sk < room else room
                else:
                    limited_transmit(S, f, una, ff[f, FF_SP + TCP_MAX_WINDOW])


@handler
def _sack_ack(S, f, a, ece):
    """The part of :func:`on_ack_sack` every SACK sender of this module shares (with
    ``rack=True`` too, :func:`.reno_rack.on_ack_rack`): the scoreboard updated, and on a
    new ACK the RTT sample, SND.UNA, the end of the recovery, the growth, the ECN reduction
    and the timer.  Returns the packets newly SACKed, -1 for an old ACK (below SND.UNA)."""
    ff, fi = S.ff, S.fi
    una = fi[f, FI_SND_UNA]
    rules = np.int64(ff[f, FF_SP + TCP_TIMER])
    wmax = ff[f, FF_SP + TCP_MAX_WINDOW]
    new = sack.update(S, f, a)
    if a > una:
        r = ack_rtt(S, f, una, a)
        if r >= 0.0:
            rtt_sample(S, f, r)
        fi[f, FI_SND_UNA] = a
        lt_restart(S, f)
        if fi[f, FI_SND_NXT] < a:
            fi[f, FI_SND_NXT] = a
        restart = True
        if fi[f, FI_IN_REC] != 0:
            if a > fi[f, FI_RECOVER]:  # (A): the end of the recovery
                fi[f, FI_IN_REC] = 0
                fi[f, FI_DUPACKS] = 0
                if prr.on(S, f):  # (PRR moved cwnd in the recovery: RFC 6675's again)
                    ff[f, FF_CWND] = ff[f, FF_SSTHRESH]
            elif rules == TIMER_IMPATIENT:  # a partial ACK: only the first restarts
                restart = fi[f, FI_FIRST_PARTIAL] != 0
                fi[f, FI_FIRST_PARTIAL] = 0
        else:
            fi[f, FI_DUPACKS] = 0  # step (1)
            c = grow(S, f, ff[f, FF_CWND], a - una)
            ff[f, FF_CWND] = c if c < wmax else wmax
        if ece and fi[f, FI_IN_REC] == 0 and a > fi[f, FI_ECN_RECOVER]:
            ff[f, FF_SSTHRESH] = halved(S, f, fi[f, FI_SND_NXT] - a)
            ff[f, FF_CWND] = ff[f, FF_SSTHRESH]
            fi[f, FI_ECN_RECOVER] = fi[f, FI_SND_NXT]
        if restart and rules != TIMER_REFERENCE:
            fresh_rto(S, f, ff[f, FF_SP + TCP_MIN_RTO], ff[f, FF_SP + TCP_MAX_RTO])
        if fi[f, FI_SND_UNA] == fi[f, FI_SND_NXT]:
            cancel(S, fi[f, FI_TIMER0] & POS)
        elif restart:
            arm_timer(S, f)
    elif a < una:
        return -1
    return new


@rare_handler
def on_ack_sack(S, f, a, ece):
    """Cumulative ACK ``a`` of a SACK flow (RFC 6675, Section 5): the scoreboard updated
    from the ACK's blocks; outside recovery RFC 5681's slow start and congestion avoidance
    on a new ACK, and a duplicate ACK (one SACKing new data, even if it also advances the
    cumulative ACK) counted; three of them, or SND.UNA lost by ``IsLost()``, start the
    recovery: RecoveryPoint = HighData, ssthresh = cwnd = FlightSize / 2, SND.UNA resent;
    in recovery each ACK below RecoveryPoint runs step (C), and one above it ends the
    recovery (cwnd stays ssthresh).  The timer restarts on every new ACK and, with
    ``timer="reference"``, on the fast retransmit; with the RFC rules (``"impatient"``,
    ``"slow-but-steady"``) it runs on from the last new ACK, and in the recovery
    ``"impatient"`` restarts it on the first partial ACK only (:func:`on_ack`'s rules).
    With PRR (:mod:`..prr`, RFC 9937) each ACK starting or in the recovery sets cwnd by its
    step before step (C) (the fast retransmit counted in ``prr_out``), and the one ending
    it sets cwnd = ssthresh."""
    ff, fi = S.ff, S.fi
    una0 = fi[f, FI_SND_UNA]
    sacked0 = sack.sacked_count(S, f)
    new = _sack_ack(S, f, a, ece)
    if new < 0:
        return
    wmax = ff[f, FF_SP + TCP_MAX_WINDOW]
    una = fi[f, FI_SND_UNA]
    entered = False
    if new > 0 and fi[f, FI_IN_REC] == 0 and fi[f, FI_SND_NXT] > una:  # step (2)
        d = fi[f, FI_DUPACKS] + 1
        fi[f, FI_DUPACKS] = d
        if (d >= sack.DUP_THRESH or sack.lost_bound(S, f) > una) and una > fi[f, FI_RECOVER]:
            # step (4)
            fi[f, FI_RECOVER] = fi[f, FI_SND_NXT] - 1
            ff[f, FF_SSTHRESH] = halved(S, f, fi[f, FI_SND_NXT] - una - lt_sent(S, f))
            lt_restart(S, f)
            ff[f, FF_CWND] = ff[f, FF_SSTHRESH]
            fi[f, FI_IN_REC] = 1
            fi[f, FI_FAST_RTX] += 1
            prr.sack_fast_retransmit(S, f, a, una0, sacked0, una)  # (with PRR: its step)
            sack.start_recovery(S, f)
            fast_retransmit_timer(S, f, np.int64(ff[f, FF_SP + TCP_TIMER]))
            entered = True
        elif d < sack.DUP_THRESH and fi[f, FI_SS + RENO_LT] != 0 and una > fi[f, FI_RECOVER]:
            limited_transmit_sack(S, f, np.int64(wmax))  # step (3)
    if fi[f, FI_IN_REC] != 0:  # step (C)
        prr.sack_send_recovery(S, f, a, una0, sacked0, entered, np.int64(wmax),
                               fi[f, FI_RECOVER])


@handler
def window(S, f):
    """The congestion window, packets (for the recorded series)."""
    return S.ff[f, FF_CWND]


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": send_limit,
    "source_ack": on_ack,
    "source_timeout": on_timeout,
    "source_window": window,
}
