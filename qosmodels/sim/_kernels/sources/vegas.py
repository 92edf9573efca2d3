"""TCP Vegas (spec: :class:`qosmodels.mechanisms.TcpVegas`).

NewReno's kernel (:mod:`.reno`) does the loss recovery, the timers and the
sending; the Vegas rules then correct its window on each new ACK in the open
state (undoing the congestion-avoidance increase, applying the per-round
decision).  The parameter row starts with Reno's columns, so the Reno
functions read it unchanged.

References
----------
L. Brakmo, L. Peterson, IEEE JSAC 13(8), 1995; ns-3.44 ``tcp-vegas.cc``;
Linux ``net/ipv4/tcp_vegas.c``.
"""

import math

import numpy as np

from .._jit import POS, handler, rare_handler
from ..layout import (
    FF_CWND,
    FF_SP,
    FF_SRTT,
    FF_SS,
    FF_SSTHRESH,
    FI_IN_REC,
    FI_OOO_MASK,
    FI_OOO_OFF,
    FI_RECOVER,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_SS,
    GF_NOW,
)
from . import reno

CODE = 9

# parameter columns: Reno's (reno.TCP_*), then Vegas'
VEGAS_ALPHA = 12
VEGAS_BETA = 13
VEGAS_GAMMA = 14
VEGAS_FLAGS = 15       # FLAG_NS3_LOSS | FLAG_SMOOTHED
FLAG_NS3_LOSS = 1      # loss_rule="ns-3": ssthresh = max(min(ssthresh, cwnd - 1), 2)
FLAG_SMOOTHED = 2      # rtt_estimate="smoothed": srtt, after every ACK, duplicates included
PARAMS = reno.PARAMS[:reno.TCP_NEWRENO] + (
    ("newreno", lambda s: True), "alpha", "beta", "gamma",
    ("flags", lambda s: (FLAG_NS3_LOSS if s.loss_rule == "ns-3" else 0)
     | (FLAG_SMOOTHED if s.rtt_estimate == "smoothed" else 0)))

#: Timer slots of a flow: its retransmission timer.
TIMERS = 1

# float state (FF_SS + ...; reno.RENO_INCREASE is column 0)
VS_BASE = 1            # the smallest RTT sample since the start, s
VS_MIN = 2             # the smallest RTT sample of the round, s
# integer state (FI_SS + ...)
VI_CNT = 0             # the round's RTT samples
VI_BEG = 1             # the round ends when an ACK reaches this sequence number
VI_ON = 2              # 1: the Vegas rules are on (the open state)


def setup(spec, ff, fi) -> int:
    """Initial state of a flow (its rows ``ff``, ``fi``); returns its largest window, packets."""
    window = reno.setup(spec, ff, fi)
    ff[FF_SS + VS_BASE] = np.inf
    ff[FF_SS + VS_MIN] = np.inf
    fi[FI_SS + VI_CNT] = 0
    fi[FI_SS + VI_BEG] = 0
    fi[FI_SS + VI_ON] = 1
    return window


@handler
def _loss_ssthresh(S, f, c0, ss0):
    """ns-3's ``TcpVegas::GetSsThresh``: ``max(min(ssthresh, cwnd - 1), 2)``, packets."""
    ss = c0 - 1.0
    if ss0 < ss:
        ss = ss0
    return ss if ss > 2.0 else 2.0


@handler
def _flag(S, f, bit):
    """Whether flag ``bit`` of the flow's VEGAS_FLAGS is set."""
    return (np.int64(S.ff[f, FF_SP + VEGAS_FLAGS]) & bit) != 0


@handler
def _sample(S, f, r):
    """RTT sample ``r`` (s) into ``base_rtt``, the round's ``min_rtt`` and its count."""
    ff = S.ff
    if r < ff[f, FF_SS + VS_BASE]:
        ff[f, FF_SS + VS_BASE] = r
    if r < ff[f, FF_SS + VS_MIN]:
        ff[f, FF_SS + VS_MIN] = r
    S.fi[f, FI_SS + VI_CNT] += 1


@handler
def _three_quarters(S, f, c):
    """``3 cwnd / 4``, packets (in whole bytes with window_arithmetic="bytes")."""
    seg = S.ff[f, FF_SP + reno.TCP_SEGMENT]
    if seg > 0.0:
        return math.floor(3.0 * c * seg / 4.0) / seg
    return 0.75 * c


@rare_handler
def on_ack(S, f, a, ece):
    """Cumulative ACK ``a``: its RTT sample, NewReno's processing, then Vegas' window.

    (A real function rather than inlined: it holds a second copy of
    ``reno.on_ack``, which the loop need not.)"""
    ff, fi = S.ff, S.fi
    una = fi[f, FI_SND_UNA]
    in_rec0 = fi[f, FI_IN_REC]
    c0 = ff[f, FF_CWND]
    ss0 = ff[f, FF_SSTHRESH]
    new = a > una
    smoothed = _flag(S, f, FLAG_SMOOTHED)
    if new and not smoothed:  # every packet is timed; a retransmitted one is not (Karn)
        t0 = S.stime[(fi[f, FI_OOO_OFF] + (una & fi[f, FI_OOO_MASK])) & POS]
        if t0 >= 0.0:
            _sample(S, f, S.gf[GF_NOW] - t0)
    reno.on_ack(S, f, a, ece)
    if smoothed and ff[f, FF_SRTT] >= 0.0 and (new or fi[f, FI_SND_NXT] > una):
        _sample(S, f, ff[f, FF_SRTT])  # (ns-3 passes srtt, also for a duplicate ACK)
    ns3_loss = _flag(S, f, FLAG_NS3_LOSS)
    if fi[f, FI_IN_REC] != 0:  # in a fast recovery: NewReno's rules
        fi[f, FI_SS + VI_ON] = 0
        if in_rec0 == 0 and ns3_loss:  # ... which this ACK started
            ss = _loss_ssthresh(S, f, c0, ss0)
            pipe = ff[f, FF_SP + reno.TCP_RECOVERY] > 0.0
            ff[f, FF_SSTHRESH] = ss
            ff[f, FF_CWND] = ss + (0.0 if pipe else 3.0)
        return
    if not new:  # a duplicate ACK (ns-3's disorder state) turns the rules off
        if fi[f, FI_SND_NXT] > una:
            fi[f, FI_SS + VI_ON] = 0
        return
    c = ff[f, FF_CWND]  # NewReno's window after this ACK
    if fi[f, FI_SS + VI_ON] == 0:
        if a <= fi[f, FI_RECOVER]:  # still repairing a timeout: NewReno's growth
            return
        # back in the open state: a fresh round from here
        fi[f, FI_SS + VI_ON] = 1
        fi[f, FI_SS + VI_BEG] = fi[f, FI_SND_NXT]
        fi[f, FI_SS + VI_CNT] = 0
        ff[f, FF_SS + VS_MIN] = np.inf
        if in_rec0 != 0:  # leaving a fast recovery: cwnd = ssthresh, no increase
            c = ff[f, FF_SSTHRESH]
            if a >= fi[f, FI_SS + VI_BEG]:  # the (empty) round ended at once: NewReno's
                c = reno.ca_increase(S, f, c)
        ff[f, FF_CWND] = c
        return
    ss = ss0
    if a >= fi[f, FI_SS + VI_BEG]:  # a round has ended
        fi[f, FI_SS + VI_BEG] = fi[f, FI_SND_NXT]
        if fi[f, FI_SS + VI_CNT] > 2:  # else NewReno's growth, c
            w = math.floor(c0 + 1e-9)
            target = math.floor(w * ff[f, FF_SS + VS_BASE] / ff[f, FF_SS + VS_MIN])
            diff = w - target
            if diff > ff[f, FF_SP + VEGAS_GAMMA] and c0 < ss0:  # leave slow start
                c = w if w < target + 1.0 else target + 1.0
                ss = _loss_ssthresh(S, f, c, ss)
            elif c0 < ss0:
                c = c0 + 1.0
            elif diff > ff[f, FF_SP + VEGAS_BETA]:
                c = w - 1.0
                ss = _loss_ssthresh(S, f, c, ss)
            elif diff < ff[f, FF_SP + VEGAS_ALPHA]:
                c = w + 1.0
            else:
                c = c0
            q = _three_quarters(S, f, c)
            ff[f, FF_SSTHRESH] = ss if ss > q else q
        fi[f, FI_SS + VI_CNT] = 0
        ff[f, FF_SS + VS_MIN] = np.inf
    elif c0 < ss0:
        c = c0 + 1.0
    else:
        c = c0
    if c < 1.0:
        c = 1.0
    wmax = ff[f, FF_SP + reno.TCP_MAX_WINDOW]
    ff[f, FF_CWND] = c if c < wmax else wmax


@handler
def on_timeout(S, f):
    """A retransmission timeout: NewReno's (ns-3's ssthresh with loss_rule="ns-3"); the
    Vegas rules are off until everything outstanding at it is acknowledged."""
    ff = S.ff
    c0 = ff[f, FF_CWND]
    ss0 = ff[f, FF_SSTHRESH]
    reno.on_timeout(S, f)
    if _flag(S, f, FLAG_NS3_LOSS):
        ff[f, FF_SSTHRESH] = _loss_ssthresh(S, f, c0, ss0)
    S.fi[f, FI_SS + VI_ON] = 0


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": reno.send_limit,
    "source_ack": on_ack,
    "source_timeout": on_timeout,
    "source_window": reno.window,
}
