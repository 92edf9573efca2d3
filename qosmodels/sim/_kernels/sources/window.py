"""The fair-queueing paper's "generic" fixed window (spec: :class:`qosmodels.mechanisms.GenericWindow`).

Also the window of a windowed :class:`~qosmodels.mechanisms.Poisson` source,
whose parameter row starts with the same columns.

References
----------
A. Demers, S. Keshav, S. Shenker, SIGCOMM 1989, Section 3.1.
"""

import numpy as np

from .._jit import POS, handler
from ..layout import (
    FF_RTO,
    FF_RTT_T0,
    FF_SP,
    FF_SRTT,
    FI_RTT_SEQ,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_TIMER0,
    FI_TIMING,
    GF_NOW,
)
from ..sender import arm_timer
from ..timers import cancel

CODE = 2

# parameter columns
GEN_WINDOW = 0
GEN_BETA = 1
GEN_GAIN = 2
GEN_INIT_RTT = 3

PARAMS = ("window", "beta", "rtt_gain", "initial_rtt")
#: Timer slots of a flow: its retransmission timer.
TIMERS = 1


def setup(spec, ff, fi) -> int:
    """Initial state of a flow (its rows ``ff``, ``fi``); returns its window, packets."""
    ff[FF_SRTT] = spec.initial_rtt
    ff[FF_RTO] = spec.beta * spec.initial_rtt
    return spec.window


@handler
def send_limit(S, f):
    """One past the last sequence number the window allows now."""
    return S.fi[f, FI_SND_UNA] + np.int64(S.ff[f, FF_SP + GEN_WINDOW])


@handler
def rtt_sample(S, f, r):
    """Exponentially averaged RTT; timeout beta times the average."""
    ff = S.ff
    g = ff[f, FF_SP + GEN_GAIN]
    ff[f, FF_SRTT] = (1.0 - g) * ff[f, FF_SRTT] + g * r
    ff[f, FF_RTO] = ff[f, FF_SP + GEN_BETA] * ff[f, FF_SRTT]


@handler
def on_ack(S, f, a):
    """Cumulative ACK ``a``: time it, slide the window, restart or stop the timer."""
    ff, fi = S.ff, S.fi
    if a > fi[f, FI_SND_UNA]:
        if fi[f, FI_TIMING] != 0 and a > fi[f, FI_RTT_SEQ]:
            rtt_sample(S, f, S.gf[GF_NOW] - ff[f, FF_RTT_T0])
            fi[f, FI_TIMING] = 0
        fi[f, FI_SND_UNA] = a
        if fi[f, FI_SND_NXT] < a:
            fi[f, FI_SND_NXT] = a
        if a == fi[f, FI_SND_NXT]:
            cancel(S, fi[f, FI_TIMER0] & POS)
        else:
            arm_timer(S, f)


@handler
def window(S, f):
    """The window, packets (for the recorded series)."""
    return S.ff[f, FF_SP + GEN_WINDOW]
