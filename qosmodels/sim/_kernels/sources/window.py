"""The fair-queueing paper's "generic" fixed window (spec: :class:`qosmodels.mechanisms.GenericWindow`).

Also the window of a windowed :class:`~qosmodels.mechanisms.Poisson` source,
whose parameter row starts with the same columns.

Every ACK that acknowledges new data is an RTT sample: the time since the
first transmission of the oldest packet it acknowledges (the send-time ring
``stime`` in mode ``FI_PER_ACK = 2``, which a retransmission does not
overwrite), as the paper asks: "the rtt estimate for retransmitted packets is
the time from their first transmission to their acknowledgement".  On a
timeout the flow goes back N (:func:`..flows.on_timer`): every unacknowledged
packet is resent, as the window allows, from the first one, and the timer is
set again to ``beta`` times the averaged RTT (no backoff).

References
----------
A. Demers, S. Keshav, S. Shenker, SIGCOMM 1989, Section 3.1.
"""

import numpy as np

from .._jit import POS, handler, rare_handler
from ..layout import (
    FF_RTO,
    FF_SP,
    FF_SRTT,
    FI_OOO_MASK,
    FI_OOO_OFF,
    FI_PER_ACK,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_TIMER0,
    GF_NOW,
)
from ..sender import arm_timer, record_rtt
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


def setup_estimator(spec, ff, fi) -> None:
    """The generic estimator's initial state (also the DECbit source's): the initial RTT,
    its timeout, and every packet timed from its first transmission."""
    ff[FF_SRTT] = spec.initial_rtt
    ff[FF_RTO] = spec.beta * spec.initial_rtt
    fi[FI_PER_ACK] = 2


def setup(spec, ff, fi) -> int:
    """Initial state of a flow (its rows ``ff``, ``fi``); returns its window, packets."""
    setup_estimator(spec, ff, fi)
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
    record_rtt(S, f, r)


@rare_handler
def on_ack(S, f, a):
    """Cumulative ACK ``a``: an RTT sample from the first transmission of the oldest
    packet it acknowledges, slide the window, restart or stop the timer."""
    fi = S.fi
    una = fi[f, FI_SND_UNA]
    if a > una:
        rtt_sample(S, f, S.gf[GF_NOW]
                   - S.stime[(fi[f, FI_OOO_OFF] + (una & fi[f, FI_OOO_MASK])) & POS])
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


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": send_limit,
    "source_ack": on_ack,
}
