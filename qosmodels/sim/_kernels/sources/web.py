"""Web traffic (spec: :class:`qosmodels.mechanisms.WebTraffic`).

NewReno's kernel (:mod:`.reno`) sends each transfer; this module draws the
transfers and think times and hands the sender one transfer at a time by
raising the flow's application limit (``FI_APP_LIMIT``: the sender never goes
past it).  The parameter row starts with Reno's columns.

References
----------
P. Barford, M. Crovella, SIGMETRICS 1998; RFC 5681, Section 4.1.
"""

import math

from .._jit import POS, handler, rare_handler
from ..layout import (
    FF_BITS,
    FF_CWND,
    FF_SP,
    FI_APP_LIMIT,
    FI_SND_UNA,
    FI_SS,
    FI_TIMER0,
    GF_NOW,
)
from ..rng import expo, rand
from ..timers import set_deadline
from . import reno

CODE = 10

# parameter columns: Reno's (reno.TCP_*), then the web model's
WEB_SCALE = 12     # Pareto scale x_m, bytes
WEB_SHAPE = 13     # Pareto shape
WEB_THINK = 14     # mean think time, s
PARAMS = reno.PARAMS[:reno.TCP_NEWRENO] + (
    ("newreno", lambda s: True), ("scale", lambda s: s.scale), "shape", "think_time")

#: Timer slots of a flow: its retransmission timer, and the think timer.
TIMERS = 2

# integer state (FI_SS + ...); the packets handed to the sender so far are FI_APP_LIMIT
WI_THINKING = 0    # 1 between transfers


def setup(spec, ff, fi) -> int:
    """Initial state of a flow (its rows ``ff``, ``fi``); returns its largest window, packets."""
    window = reno.setup(spec, ff, fi)
    fi[FI_APP_LIMIT] = 0  # nothing to send before the first transfer
    fi[FI_SS + WI_THINKING] = 1
    return window


@handler
def think(S, f):
    """Start a think time: the think timer (slot 1) at an exponential time from now."""
    S.fi[f, FI_SS + WI_THINKING] = 1
    t = S.gf[GF_NOW] + expo(S, S.ff[f, FF_SP + WEB_THINK])
    set_deadline(S, (S.fi[f, FI_TIMER0] + 1) & POS, t, True)


@rare_handler
def start(S, f):
    """The connection opens with a think time."""
    think(S, f)


@rare_handler
def on_think(S, f, k):
    """The think time is over: the next transfer, ``ceil(X / packet size)`` packets with
    ``X`` Pareto, and the window restarted at ``min(initial_window, cwnd)``."""
    ff, fi = S.ff, S.fi
    x = ff[f, FF_SP + WEB_SCALE] * rand(S) ** (-1.0 / ff[f, FF_SP + WEB_SHAPE])  # bytes
    n = math.ceil(8.0 * x / ff[f, FF_BITS])
    n = n if n > 1 else 1
    fi[f, FI_APP_LIMIT] += n
    fi[f, FI_SS + WI_THINKING] = 0
    iw = ff[f, FF_SP + reno.TCP_INIT_WINDOW]
    if ff[f, FF_CWND] > iw:
        ff[f, FF_CWND] = iw
    return True


@rare_handler
def on_ack(S, f, a, ece):
    """NewReno's processing; when the transfer is all acknowledged, a think time.

    (A real function rather than inlined: it holds a second copy of ``reno.on_ack``.)"""
    reno.on_ack(S, f, a, ece)
    fi = S.fi
    if fi[f, FI_SS + WI_THINKING] == 0 and fi[f, FI_SND_UNA] >= fi[f, FI_APP_LIMIT]:
        think(S, f)


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_start": start,
    "source_send_limit": reno.send_limit,
    "source_ack": on_ack,
    "source_timeout": reno.on_timeout,
    "source_timer": on_think,
    "source_window": reno.window,
}
