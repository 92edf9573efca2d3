"""CUBIC sender, RFC 9438 (spec: :class:`qosmodels.mechanisms.Cubic`).

Congestion avoidance by the cubic window ``W_cubic(t) = C (t - K)^3 + W_max``
and the Reno-friendly estimate ``W_est``, multiplicative decrease by ``beta``
with fast convergence, NewReno's fast recovery with window inflation (RFC 6582),
limited transmit (RFC 3042, off by default; :func:`.reno.limited_transmit`) and
go-back-N timeouts with RFC 6298's timer; the spec's docstring gives the
rules and where RFC 9438 leaves a choice.

A module of its own, as :mod:`.tahoe`: it shares with Reno the state columns,
the generic sender (:mod:`..sender`, :mod:`..flows`) and the shape of the
recovery, not the ACK handler (Reno's has the ns-3 pipe, ECN, the byte
arithmetic and three timer rules); Reno's kernel stays untouched.

References
----------
RFC 9438, Sections 4.2-4.8 and 4.10; RFC 3042; RFC 5681; RFC 6582, Section 3.2; RFC 6298;
RFC 6675, Section 5.
"""

import math

import numpy as np

from .. import prr, sack
from .._jit import POS, handler, rare_handler
from ..layout import (
    FF_CWND,
    FF_RTO,
    FF_SP,
    FF_SRTT,
    FF_SS,
    FF_SSTHRESH,
    FI_DUPACKS,
    FI_EARLY_TIMER,
    FI_FAST_RTX,
    FI_FIRST_PARTIAL,
    FI_GROW_PACKETS,
    FI_IN_REC,
    FI_MAXSEQ,
    FI_PER_ACK,
    FI_RACK,
    FI_RECOVER,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_SS,
    FI_TIMER0,
    FI_TRACE0,
    FI_WINDOWED,
    GF_NOW,
    SACK_SHIFT,
)
from ..sender import arm_timer, transmit
from ..timers import cancel
from ..trace import record
from .reno import (
    RENO_LT,
    TIMER_IMPATIENT,
    TIMER_REFERENCE,
    TIMER_RULES,
    ack_rtt,
    fast_retransmit_timer,
    fresh_rto,
    limited_transmit,
    limited_transmit_sack,
    lt_restart,
    lt_sent,
    restart_after_timeout,
    rfc6298_sample,
)
from .reno import window as cwnd_window

CODE = 13

# parameter columns (offsets into the flow's parameter row), in PARAMS order
CUB_MAX_WINDOW = 0
CUB_INIT_WINDOW = 1
CUB_INIT_SSTHRESH = 2   # 0: max_window
CUB_MIN_RTO = 3
CUB_MAX_RTO = 4
CUB_INIT_RTO = 5
CUB_C = 6               # segments/s^3
CUB_BETA = 7
CUB_FAST_CONV = 8       # 1: fast convergence (RFC 9438, Section 4.7)
CUB_FRIENDLY = 9        # 1: the Reno-friendly region (Section 4.3)
CUB_RTT_PER_ACK = 10    # 1: an RTT sample from every new ACK; 0: one timed segment per RTT
CUB_RECORD = 11         # 1: the three trace channels
CUB_SACK = 12           # SACK blocks per ACK (RFC 2018), 0: no SACK; RFC 6675's recovery
CUB_PRR = prr.PARAM     # 13: PRR (RFC 9937) in the SACK recovery, 0 off, else its bound rule
CUB_TIMER = 14          # reno.TIMER_REFERENCE, TIMER_IMPATIENT, TIMER_SLOW (``timer``)

#: The spec fields packed into the parameter row, in column order.
PARAMS = (
    "max_window", "initial_window", "initial_ssthresh", "min_rto", "max_rto", "initial_rto",
    "c", "beta", "fast_convergence", "tcp_friendliness",
    ("rtt_per_ack", lambda s: s.rtt_samples == "ack"),
    "record",
    ("sack", lambda s: s.sack_blocks if s.sack else 0),
    ("prr", lambda s: prr.BOUNDS[s.prr_bound] if s.prr else prr.OFF),
    ("timer", lambda s: TIMER_RULES[s.timer]),
)

# float state columns (FF_SS + ...), RFC 9438 Section 4.1.2's variables
CS_WMAX = 0        # W_max, packets; NaN: none (no congestion event yet, or a timeout since)
CS_K = 1           # K, s
CS_T_EPOCH = 2     # t_epoch, s; < 0: no congestion-avoidance stage under way
CS_CWND_EPOCH = 3  # cwnd_epoch, packets
CS_WEST = 4        # W_est, packets
CS_CWND_PRIOR = 5  # cwnd_prior, packets; NaN: not set yet
# integer state (FI_SS + ...): limited transmit's count in Reno's column (reno.RENO_LT = 3),
# which the shared functions of :mod:`.reno` read

# trace channels (FI_TRACE0 + ...), recorded in step when ``record``
TR_ACK = 0
TR_RTT = 1
TR_CWND = 2

#: Timer slots of a flow: its retransmission timer.
TIMERS = 1


def setup(spec, ff, fi) -> int:
    """Initial state of a flow (its rows ``ff``, ``fi``); returns its largest window, packets."""
    ff[FF_CWND] = spec.initial_window
    ff[FF_SSTHRESH] = spec.max_window if spec.initial_ssthresh is None else spec.initial_ssthresh
    ff[FF_RTO] = spec.initial_rto
    ff[FF_SS + CS_WMAX] = np.nan
    ff[FF_SS + CS_K] = 0.0
    ff[FF_SS + CS_T_EPOCH] = -1.0
    ff[FF_SS + CS_CWND_EPOCH] = 0.0
    ff[FF_SS + CS_WEST] = 0.0
    ff[FF_SS + CS_CWND_PRIOR] = np.nan
    fi[FI_PER_ACK] = int(spec.rtt_samples == "ack")
    fi[FI_EARLY_TIMER] = int(spec.timer != "reference")
    if spec.limited_transmit:
        fi[FI_SS + RENO_LT] = 1
    if spec.sack:  # the ACKs carry SACK blocks; the flow's region (``sack``) is 32 windows
        fi[FI_WINDOWED] |= spec.sack_blocks << SACK_SHIFT
        fi[FI_RACK] = (1 + int(spec.tlp)) if spec.rack else 0  # RFC 8985 (``rack``)
        return 32 * spec.max_window
    return spec.max_window


def traces(spec) -> tuple[str, ...]:
    """Trace channels, if ``record``: at every ACK and timeout, in step, the cumulative
    ACK (-1: a timeout), the RTT sample it gave (s, NaN: none) and ``cwnd`` after it."""
    return ("cubic_ack", "cubic_rtt", "cubic_cwnd") if spec.record else ()


@handler
def send_limit(S, f):
    """One past the last sequence number the window allows now: ``min(cwnd,
    max_window)`` packets unacknowledged (a flow without SACK; :func:`send_limit_sack` with
    it)."""
    w = S.ff[f, FF_CWND]
    wmax = S.ff[f, FF_SP + CUB_MAX_WINDOW]
    if w > wmax:
        w = wmax
    return S.fi[f, FI_SND_UNA] + np.int64(w)


@handler
def send_limit_sack(S, f):
    """:func:`send_limit` of a SACK flow (``source_send_limit`` of :mod:`.cubic_sack` and
    :mod:`.cubic_rack`): in recovery nothing beyond SND.NXT (step (C) sends, in the ACK's
    handler); going back N after a timeout, the SACKed packets skipped."""
    if S.fi[f, FI_IN_REC] != 0:  # SACK recovery: in on_ack
        return S.fi[f, FI_SND_NXT]
    lim = send_limit(S, f)
    if S.fi[f, FI_SND_NXT] < S.fi[f, FI_MAXSEQ]:  # going back N: SACKed packets skipped
        lim, _ = sack.skip_sacked(S, f, lim)
    return lim


@handler
def _rtt_sample(S, f, r):
    """RFC 6298's estimator (:func:`.reno.rfc6298_sample`), RTO clamped to [min_rto,
    max_rto]."""
    ff = S.ff
    rfc6298_sample(S, f, r, ff[f, FF_SP + CUB_MIN_RTO], ff[f, FF_SP + CUB_MAX_RTO])


@handler
def timer_rules(S, f):
    """Flow ``f``'s retransmission-timer rules (``timer``: :data:`.reno.TIMER_REFERENCE`,
    ``TIMER_IMPATIENT`` or ``TIMER_SLOW``)."""
    return np.int64(S.ff[f, FF_SP + CUB_TIMER])


@handler
def _fresh_rto(S, f):
    """:func:`.reno.fresh_rto` with the flow's [min_rto, max_rto]."""
    ff = S.ff
    fresh_rto(S, f, ff[f, FF_SP + CUB_MIN_RTO], ff[f, FF_SP + CUB_MAX_RTO])


@handler
def _cbrt(x):
    return math.copysign(abs(x) ** (1.0 / 3.0), x)


@handler
def _avoid(S, f, c, acked):
    """Congestion avoidance on a new ACK of ``acked`` packets, ``cwnd`` being ``c``: the
    new ``cwnd`` (RFC 9438, Sections 4.2-4.5)."""
    ff = S.ff
    now = S.gf[GF_NOW]
    cc = ff[f, FF_SP + CUB_C]
    if ff[f, FF_SS + CS_T_EPOCH] < 0.0:  # a congestion-avoidance stage starts
        ff[f, FF_SS + CS_T_EPOCH] = now
        ff[f, FF_SS + CS_CWND_EPOCH] = c
        ff[f, FF_SS + CS_WEST] = c
        if math.isnan(ff[f, FF_SS + CS_WMAX]):  # Sections 4.8 and 4.10: K = 0
            ff[f, FF_SS + CS_WMAX] = c
            ff[f, FF_SS + CS_K] = 0.0
            if math.isnan(ff[f, FF_SS + CS_CWND_PRIOR]):
                ff[f, FF_SS + CS_CWND_PRIOR] = c
        else:  # eq. 2
            ff[f, FF_SS + CS_K] = _cbrt((ff[f, FF_SS + CS_WMAX] - c) / cc)
    t = now - ff[f, FF_SS + CS_T_EPOCH]
    k = ff[f, FF_SS + CS_K]
    wmax = ff[f, FF_SS + CS_WMAX]
    if ff[f, FF_SP + CUB_FRIENDLY] > 0.0:
        west = ff[f, FF_SS + CS_WEST]
        if west >= ff[f, FF_SS + CS_CWND_PRIOR]:
            alpha = 1.0
        else:
            beta = ff[f, FF_SP + CUB_BETA]
            alpha = 3.0 * (1.0 - beta) / (1.0 + beta)
        west += alpha * acked / c  # eq. 4
        ff[f, FF_SS + CS_WEST] = west
        d = t - k
        if cc * d * d * d + wmax < west:  # the Reno-friendly region
            return west if west > c else c
    rtt = ff[f, FF_SRTT]
    d = t + (rtt if rtt > 0.0 else 0.0) - k
    target = cc * d * d * d + wmax  # W_cubic(t + RTT), bounded to [cwnd, 1.5 cwnd]
    if target < c:
        target = c
    elif target > 1.5 * c:
        target = 1.5 * c
    return c + (target - c) / c


@handler
def _grow(S, f, c, newly):
    """The window after a new ACK of ``newly`` packets outside recovery, ``cwnd`` being
    ``c``: slow start one packet per ACK (RFC 5681), else :func:`_avoid` with the packets
    acknowledged; with ``ack_counting="packets"`` (``FI_GROW_PACKETS``) both once per packet
    acknowledged, as if each had its own ACK (Linux's ``tcp_slow_start`` and CUBIC's
    ``tcp_cong_avoid_ai(tp, ca->cnt, acked)`` count the packets)."""
    if S.fi[f, FI_GROW_PACKETS] != 0:
        return _grow_per_packet(S, f, c, newly)
    if c < S.ff[f, FF_SSTHRESH]:
        return c + 1.0
    return _avoid(S, f, c, np.float64(newly))


@rare_handler
def _grow_per_packet(S, f, c, newly):
    """:func:`_grow` with ``ack_counting="packets"`` (a real function, off the per-ACK path)."""
    for _ in range(newly):
        if c < S.ff[f, FF_SSTHRESH]:
            c += 1.0
        else:
            c = _avoid(S, f, c, 1.0)
    return c


@handler
def _decrease(S, f, flight):
    """A congestion event: W_max (fast convergence, Section 4.7), cwnd_prior and
    ssthresh (Section 4.6) from ``min(flight, cwnd)``, so that the window is reduced
    even when more is outstanding than ``cwnd`` allows (after a NewReno recovery); the
    next congestion-avoidance ACK starts a new stage."""
    ff = S.ff
    c = ff[f, FF_CWND]
    beta = ff[f, FF_SP + CUB_BETA]
    if ff[f, FF_SP + CUB_FAST_CONV] > 0.0 and c < ff[f, FF_SS + CS_WMAX]:
        ff[f, FF_SS + CS_WMAX] = c * (1.0 + beta) / 2.0
    else:
        ff[f, FF_SS + CS_WMAX] = c
    ff[f, FF_SS + CS_CWND_PRIOR] = c
    w = np.float64(flight)
    if w > c:
        w = c
    ss = w * beta
    ff[f, FF_SSTHRESH] = ss if ss > 2.0 else 2.0
    ff[f, FF_SS + CS_T_EPOCH] = -1.0


@handler
def _trace(S, f, a, r):
    if S.ff[f, FF_SP + CUB_RECORD] > 0.0:
        ch = S.fi[f, FI_TRACE0]
        record(S, ch + TR_ACK, a)
        record(S, ch + TR_RTT, r)
        record(S, ch + TR_CWND, S.ff[f, FF_CWND])


@rare_handler
def on_timeout(S, f):
    """The window's reaction to a retransmission timeout (go-back-N is the caller's):
    RFC 9438 Section 4.8, ssthresh from beta, cwnd = 1, the next stage with K = 0."""
    ff, fi = S.ff, S.fi
    lt_restart(S, f)
    _decrease(S, f, fi[f, FI_SND_NXT] - fi[f, FI_SND_UNA])
    ff[f, FF_SS + CS_WMAX] = np.nan
    restart_after_timeout(S, f, ff[f, FF_SP + CUB_MAX_RTO])
    _trace(S, f, -1.0, np.nan)


@rare_handler
def on_timeout_sack(S, f):
    """:func:`on_timeout` of a SACK flow (``source_timeout`` of :mod:`.cubic_sack`; with
    ``rack=True`` :func:`.reno_rack.on_timeout_rack` calls it): the scoreboard emptied
    first (RFC 6675 Section 5.1: it is not trusted; the rest reads none of it)."""
    sack.clear(S, f)
    on_timeout(S, f)


@rare_handler
def on_ack(S, f, a):
    """Cumulative ACK ``a``: a new ACK, or a duplicate (``a`` = SND.UNA with data
    outstanding); NewReno's recovery (RFC 6582) with window inflation."""
    ff, fi = S.ff, S.fi
    una = fi[f, FI_SND_UNA]
    rules = timer_rules(S, f)
    r = np.nan
    if a > una:
        newly = a - una
        resend_head = False
        restart = True
        r = ack_rtt(S, f, una, a)
        if r >= 0.0:
            _rtt_sample(S, f, r)
        else:
            r = np.nan  # no sample: NaN in the trace, as for a duplicate ACK
        fi[f, FI_SND_UNA] = a
        lt_restart(S, f)
        if fi[f, FI_SND_NXT] < a:
            fi[f, FI_SND_NXT] = a
        if fi[f, FI_IN_REC] != 0:
            if a > fi[f, FI_RECOVER]:  # a full ACK: leave fast recovery
                ff[f, FF_CWND] = ff[f, FF_SSTHRESH]
                fi[f, FI_IN_REC] = 0
                fi[f, FI_DUPACKS] = 0
            else:  # a partial ACK: deflate, resend the next hole
                c = ff[f, FF_CWND] - newly + 1.0
                ff[f, FF_CWND] = c if c > 1.0 else 1.0
                resend_head = True
                if rules == TIMER_IMPATIENT:  # only the first partial ACK restarts
                    restart = fi[f, FI_FIRST_PARTIAL] != 0
                    fi[f, FI_FIRST_PARTIAL] = 0
        else:
            fi[f, FI_DUPACKS] = 0
            c = _grow(S, f, ff[f, FF_CWND], newly)
            wmax = ff[f, FF_SP + CUB_MAX_WINDOW]
            ff[f, FF_CWND] = c if c < wmax else wmax
        if resend_head:
            transmit(S, f, a)
        if restart and rules != TIMER_REFERENCE:
            _fresh_rto(S, f)
        if fi[f, FI_SND_UNA] == fi[f, FI_SND_NXT]:
            cancel(S, fi[f, FI_TIMER0] & POS)
        elif restart:
            arm_timer(S, f)
    elif a == una and fi[f, FI_SND_NXT] > una:
        if fi[f, FI_IN_REC] != 0:
            ff[f, FF_CWND] += 1.0
        else:
            d = fi[f, FI_DUPACKS] + 1
            fi[f, FI_DUPACKS] = d
            if d == 3 and a > fi[f, FI_RECOVER]:
                # (limited transmit's packets are not in FlightSize: RFC 5681, 3.2)
                _decrease(S, f, fi[f, FI_SND_NXT] - una - lt_sent(S, f))
                lt_restart(S, f)
                ff[f, FF_CWND] = ff[f, FF_SSTHRESH] + 3.0
                fi[f, FI_RECOVER] = fi[f, FI_SND_NXT] - 1
                fi[f, FI_IN_REC] = 1
                fi[f, FI_FAST_RTX] += 1
                transmit(S, f, a)
                fast_retransmit_timer(S, f, rules)
            elif fi[f, FI_SS + RENO_LT] != 0 and d < 3 and a > fi[f, FI_RECOVER]:
                limited_transmit(S, f, una, ff[f, FF_SP + CUB_MAX_WINDOW])
    _trace(S, f, np.float64(a), r)


@handler
def _sack_ack(S, f, a):
    """The part of :func:`on_ack_sack` every CUBIC SACK sender shares (with ``rack=True``
    too, :func:`.reno_rack.on_ack_rack`): the scoreboard updated, and on a new ACK the RTT
    sample, SND.UNA, the end of the recovery, the growth and the timer.  Returns the packets newly
    SACKed (-1 for an old ACK, below SND.UNA) and the RTT sample (NaN: none)."""
    ff, fi = S.ff, S.fi
    una = fi[f, FI_SND_UNA]
    wmax = ff[f, FF_SP + CUB_MAX_WINDOW]
    rules = timer_rules(S, f)
    r = np.nan
    new = sack.update(S, f, a)
    if a > una:
        newly = a - una
        restart = True
        r = ack_rtt(S, f, una, a)
        if r >= 0.0:
            _rtt_sample(S, f, r)
        else:
            r = np.nan
        fi[f, FI_SND_UNA] = a
        lt_restart(S, f)
        if fi[f, FI_SND_NXT] < a:
            fi[f, FI_SND_NXT] = a
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
            fi[f, FI_DUPACKS] = 0
            c = _grow(S, f, ff[f, FF_CWND], newly)
            ff[f, FF_CWND] = c if c < wmax else wmax
        if restart and rules != TIMER_REFERENCE:
            _fresh_rto(S, f)
        if fi[f, FI_SND_UNA] == fi[f, FI_SND_NXT]:
            cancel(S, fi[f, FI_TIMER0] & POS)
        elif restart:
            arm_timer(S, f)
    elif a < una:
        return np.int64(-1), r
    return np.int64(new), r


@rare_handler
def on_ack_sack(S, f, a):
    """Cumulative ACK ``a`` of a SACK flow: RFC 6675's recovery as
    :func:`.reno.on_ack_sack`, with CUBIC's growth and decrease (RFC 9438, Section 4.6:
    ssthresh = cwnd = beta x FlightSize on entering the recovery); with PRR (:mod:`..prr`)
    cwnd set by RFC 9937's step on each ACK starting or in the recovery."""
    ff, fi = S.ff, S.fi
    una0 = fi[f, FI_SND_UNA]
    sacked0 = sack.sacked_count(S, f)
    new, r = _sack_ack(S, f, a)
    if new < 0:
        _trace(S, f, np.float64(a), r)
        return
    wmax = ff[f, FF_SP + CUB_MAX_WINDOW]
    una = fi[f, FI_SND_UNA]
    entered = False
    if new > 0 and fi[f, FI_IN_REC] == 0 and fi[f, FI_SND_NXT] > una:
        d = fi[f, FI_DUPACKS] + 1
        fi[f, FI_DUPACKS] = d
        if (d >= sack.DUP_THRESH or sack.lost_bound(S, f) > una) and una > fi[f, FI_RECOVER]:
            _decrease(S, f, fi[f, FI_SND_NXT] - una - lt_sent(S, f))
            lt_restart(S, f)
            ff[f, FF_CWND] = ff[f, FF_SSTHRESH]
            fi[f, FI_RECOVER] = fi[f, FI_SND_NXT] - 1
            fi[f, FI_IN_REC] = 1
            fi[f, FI_FAST_RTX] += 1
            prr.sack_fast_retransmit(S, f, a, una0, sacked0, una)  # (with PRR: its step)
            sack.start_recovery(S, f)
            fast_retransmit_timer(S, f, timer_rules(S, f))
            entered = True
        elif d < sack.DUP_THRESH and fi[f, FI_SS + RENO_LT] != 0 and una > fi[f, FI_RECOVER]:
            limited_transmit_sack(S, f, np.int64(wmax))  # RFC 6675 step (3)
    if fi[f, FI_IN_REC] != 0:
        prr.sack_send_recovery(S, f, a, una0, sacked0, entered, np.int64(wmax),
                               fi[f, FI_RECOVER])
    _trace(S, f, np.float64(a), r)


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": send_limit,
    "source_ack": on_ack,
    "source_timeout": on_timeout,
    "source_window": cwnd_window,
}
