"""TCP Prague sender (spec: :class:`qosmodels.mechanisms.Prague`).

DCTCP's kernel (:mod:`.dctcp`, itself on NewReno's :mod:`.reno`) does the window:
the growth, the loss recovery, the ``alpha`` estimate and the reduction
``cwnd (1 - alpha / 2)`` on ECN echoes.  This module adds the ECT(1) codepoint
(set at compile time), Linux ``tcp_prague.c``'s growth only on ACKs that echo no CE
(:func:`on_ack`, with ``ai_reduction``: an echoing ACK leaves the window as it was,
so congestion avoidance adds ``1 - p`` per round trip at a marked fraction ``p``)
and pacing: :func:`send_limit` lets the window's next new
packet leave only when the pacing clock allows, one packet per ``srtt / (ratio
cwnd)``, and the flow's timer slot 1 wakes the sender then.  The parameter row
starts with DCTCP's columns, so the DCTCP and Reno functions read it unchanged.

References
----------
B. Briscoe, K. De Schepper, O. Albisser, J. Misund, O. Tilmans, M. Kuehlewind, A.S.
Ahmed, "Implementing the 'TCP Prague' Requirements for Low Latency Low Loss Scalable
Throughput (L4S)", draft-briscoe-iccrg-prague-congestion-control; RFC 9331, Section 4
(the Prague requirements); S. Bensley et al., RFC 8257, Section 3.3.
"""

import numpy as np

from .._jit import POS, handler, rare_handler
from ..layout import (
    FF_CWND,
    FF_SP,
    FF_SRTT,
    FF_SS,
    FF_SSTHRESH,
    FI_IN_REC,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_TIMER0,
    GF_NOW,
)
from ..timers import set_deadline
from . import dctcp, reno

CODE = 24

# parameter columns: DCTCP's (reno.TCP_*, dctcp.DC_*), then Prague's
PR_PACE_SS = 14         # pacing ratio in slow start (0: no pacing)
PR_PACE_CA = 15         # pacing ratio in congestion avoidance
PARAMS = dctcp.PARAMS + (("pacing_ss", lambda s: s.pacing_ss_ratio if s.pacing else 0.0),
                         ("pacing_ca", lambda s: s.pacing_ca_ratio if s.pacing else 0.0))

#: Timer slots of a flow: its retransmission timer, the pacing timer.
TIMERS = 2
SLOT_PACE = 1

# float state (FF_SS + ...; reno's column 0, DCTCP's 1..3)
PS_NEXT = 4             # s, the pacing clock: the next new packet may leave at this time
PS_AI_REDUCTION = 5     # 1.0: ACKs echoing CE do not grow the window (ai_reduction); 0.0: they do


def setup(spec, ff, fi) -> int:
    """Initial state of a flow (DCTCP's, ECT(1) included); returns its largest window."""
    window = dctcp.setup(spec, ff, fi)
    ff[FF_SS + PS_NEXT] = 0.0
    # (a per-flow state column: the parameter row's 16 columns are all taken)
    ff[FF_SS + PS_AI_REDUCTION] = 1.0 if spec.ai_reduction else 0.0
    return window


def setup_flow(spec, network, i, ff, fi) -> None:
    """Reno's increase per round trip (:func:`.reno.setup_flow`)."""
    reno.setup_flow(spec, network, i, ff, fi)


def traces(spec) -> tuple[str, ...]:
    """Trace channels: DCTCP's ``alpha``, if asked for."""
    return dctcp.traces(spec)


@rare_handler
def send_limit(S, f):
    """One past the last sequence number the window and the pacing clock allow now:
    NewReno's window limit; with pacing (and an RTT sample), at most one new packet,
    and only once the clock has come, which then moves on by ``srtt / (ratio cwnd)``
    (ratio ``pacing_ss_ratio`` while ``cwnd < ssthresh``, else ``pacing_ca_ratio``)."""
    ff, fi = S.ff, S.fi
    lim = reno.send_limit(S, f)
    nxt = fi[f, FI_SND_NXT]
    ss = ff[f, FF_SP + PR_PACE_SS]
    srtt = ff[f, FF_SRTT]
    if ss == 0.0 or nxt >= lim or srtt <= 0.0:
        return lim
    now = S.gf[GF_NOW]
    t = ff[f, FF_SS + PS_NEXT]
    slot = (fi[f, FI_TIMER0] + SLOT_PACE) & POS
    if now < t:
        set_deadline(S, slot, t, True)
        return nxt
    cwnd = ff[f, FF_CWND]
    ratio = ss if cwnd < ff[f, FF_SSTHRESH] else ff[f, FF_SP + PR_PACE_CA]
    t = now + srtt / (ratio * cwnd)
    ff[f, FF_SS + PS_NEXT] = t
    if nxt + 1 < lim:
        set_deadline(S, slot, t, True)
    return nxt + np.int64(1)


@rare_handler
def on_ack(S, f, a, ece):
    """Cumulative ACK ``a`` (``ece``: it echoes a CE mark): DCTCP's processing, except
    that with ``ai_reduction`` an ACK of new data that echoes CE, outside fast recovery,
    does not grow the window (Linux ``prague_update_cwnd``: the segments it counts are
    those acknowledged less those marked).  Outside recovery the only change NewReno's
    ACK makes to ``cwnd`` is the growth (it is called without the echo), so keeping
    the window it had undoes exactly that; DCTCP's reduction follows."""
    ff, fi = S.ff, S.fi
    una = fi[f, FI_SND_UNA]
    c = ff[f, FF_CWND]
    hold = (ece and a > una and fi[f, FI_IN_REC] == 0
            and ff[f, FF_SS + PS_AI_REDUCTION] > 0.0)
    reno.on_ack(S, f, a, False)
    if hold:
        ff[f, FF_CWND] = c
    dctcp.respond(S, f, una, a, ece)


@handler
def on_timer(S, f, k):
    """The pacing clock (timer slot ``k``) has come due: let the flow send."""
    return True


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": send_limit,
    "source_ack": on_ack,
    "source_timeout": reno.on_timeout,
    "source_timer": on_timer,
    "source_window": reno.window,
}
