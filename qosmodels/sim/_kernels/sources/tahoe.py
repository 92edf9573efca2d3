"""Tahoe-like TCP, the fair-queueing paper's JK (spec: :class:`qosmodels.mechanisms.TcpTahoe`).

Slow start, congestion avoidance, fast retransmit without fast recovery (the
window goes to 1, the missing packet alone is resent, the next-to-send pointer
stays), go-back-N on a timeout, and the Jacobson-Karels timer with 4.3BSD-Tahoe's
constants and backoff table; the spec's docstring gives the rules and sources.

A module of its own rather than a mode of :mod:`.reno`: what Tahoe shares with
Reno is the state columns and the generic sender (:mod:`..sender`,
:mod:`..flows`), not the ACK handler, whose recovery branches (inflation, the
NewReno partial ACKs, ns-3's pipe, the three timer rules) Tahoe has none of; its
own timer (``srtt + k rttvar`` times a capped backoff of the unclamped
estimate) differs from Reno's doubling too.  Reno's kernel stays untouched.

References
----------
A. Demers, S. Keshav, S. Shenker, SIGCOMM 1989, Section 4; V. Jacobson, SIGCOMM
1988; 4.3BSD-Tahoe ``netinet/tcp_timer.h`` and ``tcp_subr.c``.
"""

import numpy as np

from .._jit import POS, handler, rare_handler
from ..layout import (
    FF_CWND,
    FF_RTO,
    FF_RTT_T0,
    FF_RTTVAR,
    FF_SP,
    FF_SRTT,
    FF_SS,
    FF_SSTHRESH,
    FI_DUPACKS,
    FI_EARLY_TIMER,
    FI_FAST_RTX,
    FI_PER_ACK,
    FI_RTT_SEQ,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_SS,
    FI_TIMER0,
    FI_TIMING,
    GF_NOW,
)
from ..sender import arm_timer, record_rtt, transmit
from ..timers import cancel
from .reno import window as cwnd_window

CODE = 11

# parameter columns (offsets into the flow's parameter row), in PARAMS order
THO_MAX_WINDOW = 0
THO_INIT_WINDOW = 1
THO_INIT_SSTHRESH = 2   # 0: max_window
THO_MIN_RTO = 3
THO_MAX_RTO = 4
THO_INIT_RTO = 5
THO_RTO_K = 6
THO_MAX_BACKOFF = 7
THO_DUPACK_THRESHOLD = 8

#: The spec fields packed into the parameter row, in column order.
PARAMS = ("max_window", "initial_window", "initial_ssthresh", "min_rto", "max_rto",
          "initial_rto", "rto_k", "max_backoff", "dupack_threshold")

# float state (FF_SS + ...)
THO_BASE_RTO = 0   # srtt + k rttvar, unclamped (initial_rto before a sample), s
# integer state (FI_SS + ...)
THO_SHIFT = 0      # consecutive timeouts since the last RTT sample (4.3BSD's t_rxtshift)

#: Timer slots of a flow: its retransmission timer.
TIMERS = 1


def setup(spec, ff, fi) -> int:
    """Initial state of a flow (its rows ``ff``, ``fi``); returns its largest window, packets."""
    ff[FF_CWND] = spec.initial_window
    ff[FF_SSTHRESH] = spec.max_window if spec.initial_ssthresh is None else spec.initial_ssthresh
    ff[FF_SS + THO_BASE_RTO] = spec.initial_rto
    lo, hi = spec.min_rto, spec.max_rto
    ff[FF_RTO] = min(max(spec.initial_rto, lo), hi)
    fi[FI_SS + THO_SHIFT] = 0
    fi[FI_PER_ACK] = 0        # one timed packet at a time (sender.transmit; Karn's rule)
    fi[FI_EARLY_TIMER] = 1    # a countdown timer: a deadline moved earlier fires on time
    return spec.max_window


@handler
def send_limit(S, f):
    """One past the last sequence number the window allows now: ``min(cwnd, max_window)``
    packets unacknowledged."""
    ff = S.ff
    w = ff[f, FF_CWND]
    wmax = ff[f, FF_SP + THO_MAX_WINDOW]
    if w > wmax:
        w = wmax
    return S.fi[f, FI_SND_UNA] + np.int64(w)


@handler
def _clamped(S, f, rto):
    lo = S.ff[f, FF_SP + THO_MIN_RTO]
    hi = S.ff[f, FF_SP + THO_MAX_RTO]
    return lo if rto < lo else (hi if rto > hi else rto)


@handler
def rtt_sample(S, f, r):
    """Jacobson-Karels: srtt and rttvar with gains 1/8 and 1/4 (the first sample: srtt =
    r, rttvar = r/2); RTO = srtt + k rttvar, clamped; the backoff cleared."""
    ff = S.ff
    if ff[f, FF_SRTT] < 0.0:
        ff[f, FF_SRTT] = r
        ff[f, FF_RTTVAR] = r / 2.0
    else:
        e = r - ff[f, FF_SRTT]
        ff[f, FF_RTTVAR] = 0.75 * ff[f, FF_RTTVAR] + 0.25 * abs(e)
        ff[f, FF_SRTT] = 0.875 * ff[f, FF_SRTT] + 0.125 * r
    base = ff[f, FF_SRTT] + ff[f, FF_SP + THO_RTO_K] * ff[f, FF_RTTVAR]
    ff[f, FF_SS + THO_BASE_RTO] = base
    S.fi[f, FI_SS + THO_SHIFT] = 0
    ff[f, FF_RTO] = _clamped(S, f, base)
    record_rtt(S, f, r)


@handler
def _halve(S, f):
    """ssthresh = max(flight/2, 2), cwnd = 1."""
    ff, fi = S.ff, S.fi
    ss = (fi[f, FI_SND_NXT] - fi[f, FI_SND_UNA]) / 2.0
    ff[f, FF_SSTHRESH] = ss if ss > 2.0 else 2.0
    ff[f, FF_CWND] = 1.0


@rare_handler
def on_timeout(S, f):
    """The window's and the timer's reaction to a retransmission timeout (go-back-N is the
    caller's): halve, and back the timeout off, RTO = base * min(2^n, max_backoff)."""
    ff, fi = S.ff, S.fi
    _halve(S, f)
    fi[f, FI_DUPACKS] = 0
    n = fi[f, FI_SS + THO_SHIFT] + 1
    fi[f, FI_SS + THO_SHIFT] = n
    cap = ff[f, FF_SP + THO_MAX_BACKOFF]
    mult = 2.0 ** n if n < 62 else cap
    if mult > cap:
        mult = cap
    ff[f, FF_RTO] = _clamped(S, f, ff[f, FF_SS + THO_BASE_RTO] * mult)


@rare_handler
def on_ack(S, f, a):
    """Cumulative ACK ``a``: a new ACK (RTT sample, window opened, timer restarted) or a
    duplicate (``a`` = SND.UNA with data outstanding; the threshold-th one resends
    SND.UNA alone with the window at 1)."""
    ff, fi = S.ff, S.fi
    una = fi[f, FI_SND_UNA]
    if a > una:
        if fi[f, FI_TIMING] != 0 and a > fi[f, FI_RTT_SEQ]:
            fi[f, FI_TIMING] = 0
            rtt_sample(S, f, S.gf[GF_NOW] - ff[f, FF_RTT_T0])
        fi[f, FI_SND_UNA] = a
        if fi[f, FI_SND_NXT] < a:
            fi[f, FI_SND_NXT] = a
        fi[f, FI_DUPACKS] = 0
        c = ff[f, FF_CWND]
        if c > ff[f, FF_SSTHRESH]:
            c += 1.0 / c
        else:
            c += 1.0
        wmax = ff[f, FF_SP + THO_MAX_WINDOW]
        ff[f, FF_CWND] = c if c < wmax else wmax
        if a == fi[f, FI_SND_NXT]:
            cancel(S, fi[f, FI_TIMER0] & POS)
        else:
            arm_timer(S, f)
    elif a == una and fi[f, FI_SND_NXT] > una:
        d = fi[f, FI_DUPACKS] + 1
        fi[f, FI_DUPACKS] = d
        if d == np.int64(ff[f, FF_SP + THO_DUPACK_THRESHOLD]):
            _halve(S, f)  # (the count runs on: later duplicates change nothing)
            fi[f, FI_FAST_RTX] += 1
            transmit(S, f, a)   # the missing packet alone; SND.NXT stays
            arm_timer(S, f)


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": send_limit,
    "source_ack": on_ack,
    "source_timeout": on_timeout,
    "source_window": cwnd_window,
}
