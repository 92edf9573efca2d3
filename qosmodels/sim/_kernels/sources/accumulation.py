"""The ACC window source (spec: :class:`qosmodels.mechanisms.Accumulation`).

The parameter row starts with the generic window's columns (:mod:`.window`),
so the RTT average, the timeout and going back N are the generic ones; every
ACK that acknowledges new data is an RTT sample, timed from the first
transmission of the oldest packet it acknowledges.  A *round* ends when
everything sent at the last decision is acknowledged; then the round's
samples give ``rtt`` (their mean) and the estimator's ``rtt_p``, the
accumulation estimate is ``a = (W / rtt)(rtt - rtt_p)`` packets, and the
control law moves the real window ``W`` (``floor(W)`` outstanding).

References
----------
Y. Xia, D. Harrison, S. Kalyanaraman, K. Ramachandran, A. Venkatesan,
"Accumulation-based Congestion Control", eqs (3), (5)-(8); Mo, La, Anantharam,
Walrand, INFOCOM 1999 (Vegas-k).
"""

import numpy as np

from .._jit import POS, handler
from ..layout import (
    FF_BITS,
    FF_SP,
    FF_SS,
    FI_OOO_MASK,
    FI_OOO_OFF,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_SS,
    GF_NOW,
)
from . import window as generic

CODE = 8

CTRL_P, CTRL_AIAD, CTRL_MW = 0, 1, 2
EST_VEGAS, EST_VEGAS_K = 0, 1
K_MAX = 8

# parameter columns (the first four are the generic window's)
ACC_MAX_WINDOW = generic.GEN_WINDOW
ACC_CONTROL = 4
ACC_ESTIMATOR = 5
ACC_KAPPA = 6
ACC_TARGET = 7       # bytes
ACC_K = 8
ACC_RTT_ERROR = 9    # s
PARAMS = ("max_window", "beta", "rtt_gain", "initial_rtt",
          ("control", lambda s: ("P", "AIAD", "MW").index(s.control)),
          ("estimator", lambda s: ("vegas", "vegas-k").index(s.estimator)),
          "kappa", "target", "k", "rtt_error")
#: Timer slots of a flow: its retransmission timer.
TIMERS = 1

# float state (FF_SS + ...)
AS_W = 0             # the window, packets
AS_SUM = 1           # the round's RTT samples, summed, s
AS_MIN = 2           # the smallest RTT since the start, s
AS_ROUND_MIN = 3     # the round's smallest sample, s
AS_RING = 4          # Vegas-k: the last K_MAX rounds' smallest samples, s (inf: none)
# integer state (FI_SS + ...)
AI_ROUND_END = 0     # the round ends when SND.UNA reaches this sequence number
AI_N = 1             # the round's samples
AI_RING_POS = 2      # Vegas-k: where the next round's minimum goes


def setup(spec, ff, fi) -> int:
    """Initial state of a flow (its rows ``ff``, ``fi``); returns its largest window, packets."""
    generic.setup_estimator(spec, ff, fi)
    ff[FF_SS + AS_W] = spec.initial_window
    ff[FF_SS + AS_MIN] = np.inf
    ff[FF_SS + AS_ROUND_MIN] = np.inf
    ff[FF_SS + AS_RING:FF_SS + AS_RING + K_MAX] = np.inf
    fi[FI_SS + AI_ROUND_END] = 1  # the first decision when the first packet is acknowledged
    return int(np.ceil(spec.max_window))


@handler
def send_limit(S, f):
    """One past the last sequence number the window allows now: ``floor(W)`` outstanding."""
    return S.fi[f, FI_SND_UNA] + np.int64(S.ff[f, FF_SS + AS_W])


@handler
def rtt_p(S, f):
    """The estimator's round-trip propagation delay, s (its error included)."""
    ff = S.ff
    if ff[f, FF_SP + ACC_ESTIMATOR] == EST_VEGAS_K:
        k = np.int64(ff[f, FF_SP + ACC_K])
        pos = S.fi[f, FI_SS + AI_RING_POS]
        m = np.inf
        for j in range(k):  # the last k rounds, this one included
            v = ff[f, FF_SS + AS_RING + ((pos - 1 - j) % K_MAX)]
            if v < m:
                m = v
    else:
        m = ff[f, FF_SS + AS_MIN]
    return m + ff[f, FF_SP + ACC_RTT_ERROR]


@handler
def decide(S, f):
    """End of a round: the accumulation estimate, then the control law."""
    ff, fi = S.ff, S.fi
    n = fi[f, FI_SS + AI_N]
    if n > 0:
        pos = fi[f, FI_SS + AI_RING_POS]
        ff[f, FF_SS + AS_RING + pos] = ff[f, FF_SS + AS_ROUND_MIN]
        fi[f, FI_SS + AI_RING_POS] = (pos + 1) % K_MAX
        rtt = ff[f, FF_SS + AS_SUM] / n
        base = rtt_p(S, f)
        w = ff[f, FF_SS + AS_W]
        a = w / rtt * (rtt - base)                            # packets, eq (8)
        target = ff[f, FF_SP + ACC_TARGET] * 8.0 / ff[f, FF_BITS]  # packets
        kappa = ff[f, FF_SP + ACC_KAPPA]
        law = ff[f, FF_SP + ACC_CONTROL]
        if law == CTRL_P:                                     # eq (6)
            w -= kappa * (a - target)
        elif law == CTRL_AIAD:                                # eq (3)
            if a > target:
                w -= kappa
            elif a < target:
                w += kappa
        else:                                                 # eq (5)
            w -= kappa * (base / rtt) * (a - target) / w
        if w < 1.0:
            w = 1.0
        if w > ff[f, FF_SP + ACC_MAX_WINDOW]:
            w = ff[f, FF_SP + ACC_MAX_WINDOW]
        ff[f, FF_SS + AS_W] = w
    ff[f, FF_SS + AS_SUM] = 0.0
    ff[f, FF_SS + AS_ROUND_MIN] = np.inf
    fi[f, FI_SS + AI_N] = 0
    fi[f, FI_SS + AI_ROUND_END] = fi[f, FI_SND_NXT] + 1


@handler
def on_ack(S, f, a):
    """ACK ``a``: its RTT sample into the round, the generic window's sliding, RTT and
    timer, and at the end of a round the decision."""
    ff, fi = S.ff, S.fi
    una = fi[f, FI_SND_UNA]
    if a > una:
        r = S.gf[GF_NOW] - S.stime[(fi[f, FI_OOO_OFF] + (una & fi[f, FI_OOO_MASK])) & POS]
        ff[f, FF_SS + AS_SUM] += r
        fi[f, FI_SS + AI_N] += 1
        if r < ff[f, FF_SS + AS_ROUND_MIN]:
            ff[f, FF_SS + AS_ROUND_MIN] = r
        if r < ff[f, FF_SS + AS_MIN]:
            ff[f, FF_SS + AS_MIN] = r
    generic.on_ack(S, f, a)
    if a >= fi[f, FI_SS + AI_ROUND_END]:
        decide(S, f)


@handler
def on_timeout(S, f):
    """A retransmission timeout halves the window (at least 1) and starts a new round."""
    w = 0.5 * S.ff[f, FF_SS + AS_W]
    S.ff[f, FF_SS + AS_W] = w if w > 1.0 else 1.0
    S.ff[f, FF_SS + AS_SUM] = 0.0
    S.ff[f, FF_SS + AS_ROUND_MIN] = np.inf
    S.fi[f, FI_SS + AI_N] = 0
    S.fi[f, FI_SS + AI_ROUND_END] = S.fi[f, FI_SND_NXT] + 1


@handler
def window(S, f):
    """The window ``W``, packets (for the recorded series)."""
    return S.ff[f, FF_SS + AS_W]
