"""The DECbit window source (spec: :class:`qosmodels.mechanisms.DecbitWindow`).

The parameter row starts with the generic window's columns (:mod:`.window`),
so the RTT average and the timeout are the generic ones.  The window ``W``
is real; ``floor(W)`` packets may be outstanding.  After a change from
``W_p`` to ``W_c`` (floors), the decision waits for ``W_p + W_c`` ACKs and
counts the DECbits echoed by the last ``W_c`` of them.

References
----------
K. K. Ramakrishnan, R. Jain, ACM TOCS 8(2), 1990, Section 5; A. Demers,
S. Keshav, S. Shenker, SIGCOMM 1989, Section 4.
"""

import numpy as np

from .._jit import handler, rare_handler
from ..layout import FF_SP, FF_SS, FI_SND_UNA, FI_SS, MARK_DECBIT, PI_MARK
from . import window as generic

CODE = 6

# parameter columns (the first four are the generic window's)
DBW_MAX_WINDOW = generic.GEN_WINDOW
DBW_BETA = generic.GEN_BETA
DBW_GAIN = generic.GEN_GAIN
DBW_INIT_RTT = generic.GEN_INIT_RTT
DBW_INIT_WINDOW = 4
DBW_INCREASE = 5
DBW_DECREASE = 6
DBW_THRESHOLD = 7
PARAMS = ("max_window", "beta", "rtt_gain", "initial_rtt", "initial_window", "increase",
          "decrease", "threshold")
#: Timer slots of a flow: its retransmission timer.
TIMERS = 1

# state: the window (float), and (int) the ACKs since the last change, the bits among
# the last W_c of them, W_p and W_c
DBW_W = 0          # FF_SS + ...
DBW_ACKS = 0       # FI_SS + ...
DBW_BITS = 1
DBW_WP = 2
DBW_WC = 3


def setup(spec, ff, fi) -> int:
    """Initial state of a flow (its rows ``ff``, ``fi``); returns its largest window, packets."""
    generic.setup_estimator(spec, ff, fi)
    ff[FF_SS + DBW_W] = spec.initial_window
    w = int(np.floor(spec.initial_window))
    fi[FI_SS + DBW_WP] = w
    fi[FI_SS + DBW_WC] = w
    return spec.max_window


@handler
def send_limit(S, f):
    """One past the last sequence number the window allows now: ``floor(W)`` outstanding."""
    return S.fi[f, FI_SND_UNA] + np.int64(S.ff[f, FF_SS + DBW_W])


@handler
def law(S, f, bit):
    """One more ACK, echoing ``bit``: count it, and decide when ``W_p + W_c`` have come."""
    ff, fi = S.ff, S.fi
    n = fi[f, FI_SS + DBW_ACKS] + 1
    wp = fi[f, FI_SS + DBW_WP]
    wc = fi[f, FI_SS + DBW_WC]
    if bit and n > wp:
        fi[f, FI_SS + DBW_BITS] += 1
    if n < wp + wc:
        fi[f, FI_SS + DBW_ACKS] = n
        return
    w = ff[f, FF_SS + DBW_W]
    if fi[f, FI_SS + DBW_BITS] >= ff[f, FF_SP + DBW_THRESHOLD] * wc:
        w *= ff[f, FF_SP + DBW_DECREASE]
        if w < 1.0:
            w = 1.0
    else:
        w += ff[f, FF_SP + DBW_INCREASE]
        if w > ff[f, FF_SP + DBW_MAX_WINDOW]:
            w = ff[f, FF_SP + DBW_MAX_WINDOW]
    ff[f, FF_SS + DBW_W] = w
    fi[f, FI_SS + DBW_WP] = wc
    fi[f, FI_SS + DBW_WC] = np.int64(w)
    fi[f, FI_SS + DBW_ACKS] = 0
    fi[f, FI_SS + DBW_BITS] = 0


@rare_handler
def on_ack(S, f, a, ece):
    """ACK ``a`` (``ece``: it echoes a DECbit): the generic window's sliding, RTT and
    timer, then the window law."""
    generic.on_ack(S, f, a)
    law(S, f, ece)


@handler
def window(S, f):
    """The window ``W``, packets (for the recorded series)."""
    return S.ff[f, FF_SS + DBW_W]


@handler
def echo(S, f, p):
    """The mark bits on the ACK of data packet ``p``: the receiver copies its DECbit."""
    return S.pi[p, PI_MARK] & MARK_DECBIT


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": send_limit,
    "source_ack": on_ack,
    "source_window": window,
    "receiver_echo": echo,
}
