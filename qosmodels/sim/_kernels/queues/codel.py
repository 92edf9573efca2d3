"""Controlled Delay, CoDel (spec: :class:`qosmodels.mechanisms.Codel`).

One FIFO queue: the link's class ring, as drop-tail's.  Arrivals are admitted
as drop-tail admits them (a full ring drops, cause "overflow"); :func:`store`
adds a stored packet's bits to the queue's byte count.  CoDel acts when the
link takes its next packet: :func:`select` (through ``queue_select``) runs
RFC 8289's ``dequeue``, taking packets off the ring with :func:`dodequeue`
and dropping (or ECN-marking) them as the state machine says, and returns
the packet to send, or -1.  A packet's sojourn time is ``now - PF_ENQ`` (the
link stamps ``PF_ENQ`` when it admits the packet).

The link's state: ``first_above_time`` and ``drop_next`` (s), the bits
waiting; ``count``, ``lastcount`` and ``dropping``.  ``first_above_time = 0``
means "not above target", as in the RFC (the simulated clock starts at 0 and
``now + interval > 0``).  :func:`dequeue` takes the place of a queue's state
as arguments (an array, a row, a first column), so that
:class:`~qosmodels.mechanisms.FqCodel` (:mod:`.fqcodel`) runs the same state
machine on each of its flow queues.

References
----------
K. Nichols, V. Jacobson, A. McGregor, J. Iyengar, RFC 8289, 2018, Section 5
(pseudo-code); Linux ``include/net/codel_impl.h`` (the ECN variant).
"""

import math

from .._jit import POS, handler, rare_handler
from ..fifo import drop, pop_head
from ..layout import (
    FI_ECN,
    GF_NOW,
    KIND_DATA,
    LF_QP,
    LF_QS,
    LI_DROP_EARLY,
    LI_MARKS,
    LI_QS,
    LI_SLOT0,
    LI_TRACE0,
    LI_WAITING,
    MARK_CE,
    PF_BITS,
    PF_ENQ,
    PI_FLOW,
    PI_KIND,
    PI_MARK,
    SL_COUNT,
)
from ..trace import record

CODE = 12
CD_TARGET = 0    # s
CD_INTERVAL = 1  # s
CD_MTU = 2       # bytes (RFC 8289's MAXPACKET)
CD_MARK = 3
PARAMS = ("target", "interval", "mtu", "mark")

# a CoDel queue's state, columns from the first of its owner's row (:func:`dequeue`)
C_FIRST_ABOVE = 0  # float: first_above_time, s (0: not above target)
C_DROP_NEXT = 1    # float: drop_next, s
C_BITS = 2         # float: bits of the packets waiting (RFC 8289's bytes(), x 8)
C_COUNT = 0        # integer: count
C_LASTCOUNT = 1    # integer: lastcount
C_DROPPING = 2     # integer: dropping (1) or not (0)

# the link's state (Codel's one queue)
Q_FIRST_ABOVE = LF_QS + C_FIRST_ABOVE
Q_DROP_NEXT = LF_QS + C_DROP_NEXT
Q_BITS = LF_QS + C_BITS
QI_COUNT = LI_QS + C_COUNT
QI_LASTCOUNT = LI_QS + C_LASTCOUNT
QI_DROPPING = LI_QS + C_DROPPING


def traces(spec) -> tuple[str, ...]:
    """Trace channels: ``count`` at every drop or mark, if the spec asks for it."""
    return ("codel_drops",) if spec.record_drops else ()


@rare_handler
def store(S, l, p):
    """Admitted packet ``p`` joins link ``l``'s ring: add its bits to the queue's."""
    S.lf[l, Q_BITS] += S.pf[p, PF_BITS]
    return False  # the packet joins the class ring


@handler
def dodequeue(S, l, s, fs, r, c, now):
    """RFC 8289's ``dodequeue`` on the queue in ring ``s`` of link ``l``, its float state
    in row ``r`` of ``fs`` from column ``c`` (``C_FIRST_ABOVE``, ``C_BITS``): take the
    ring's head; ``(packet, ok_to_drop)``, the packet -1 when the ring is empty."""
    lf = S.lf
    if S.slot[s, SL_COUNT] == 0:  # empty: we can't be above target
        fs[r, c + C_FIRST_ABOVE] = 0.0
        return -1, False
    p = pop_head(S, s)
    S.li[l, LI_WAITING] -= 1
    fs[r, c + C_BITS] -= S.pf[p, PF_BITS]
    sojourn = now - S.pf[p, PF_ENQ]
    if sojourn < lf[l, LF_QP + CD_TARGET] or fs[r, c + C_BITS] <= 8.0 * lf[l, LF_QP + CD_MTU]:
        fs[r, c + C_FIRST_ABOVE] = 0.0  # went below: stay below for at least interval
        return p, False
    if fs[r, c + C_FIRST_ABOVE] == 0.0:  # just went above from below
        fs[r, c + C_FIRST_ABOVE] = now + lf[l, LF_QP + CD_INTERVAL]
        return p, False
    return p, now >= fs[r, c + C_FIRST_ABOVE]


@handler
def control_law(t, interval, count):
    """The next drop time after ``t``: ``t + interval / sqrt(count)`` (s)."""
    return t + interval / math.sqrt(count)


@handler
def marked(S, l, p):
    """With ``mark``, ECN-mark ``p`` instead of dropping it if it is an ECN-capable data
    packet: True if marked."""
    if (S.lf[l, LF_QP + CD_MARK] > 0.0 and S.pi[p, PI_KIND] == KIND_DATA
            and S.fi[S.pi[p, PI_FLOW] & POS, FI_ECN] != 0):
        S.pi[p, PI_MARK] |= MARK_CE
        S.li[l, LI_MARKS] += 1
        return True
    return False


@handler
def dequeue(S, l, s, fs, r, c, ks, k):
    """RFC 8289's ``dequeue`` on the queue in ring ``s`` of link ``l``: the packet to send
    (-1: none), the packets CoDel drops on the way dropped (cause "early").  The queue's
    state: floats in row ``r`` of ``fs`` from column ``c``, integers (``C_COUNT``,
    ``C_LASTCOUNT``, ``C_DROPPING``) in row ``r`` of ``ks`` from column ``k``; the
    parameters in link ``l``'s row (``CD_TARGET`` .. ``CD_MARK``).  Codel's state is the
    link's (``S.lf``, ``S.li``); FqCodel's, each flow queue's (:mod:`.fqcodel`)."""
    now = S.gf[GF_NOW]
    interval = S.lf[l, LF_QP + CD_INTERVAL]
    ch = S.li[l, LI_TRACE0]
    p, ok = dodequeue(S, l, s, fs, r, c, now)
    if ks[r, k + C_DROPPING] != 0:
        if not ok:  # sojourn time below target: leave the dropping state
            ks[r, k + C_DROPPING] = 0
        while ks[r, k + C_DROPPING] != 0 and now >= fs[r, c + C_DROP_NEXT]:
            ks[r, k + C_COUNT] += 1
            if ch >= 0:
                record(S, ch, ks[r, k + C_COUNT])
            if marked(S, l, p):  # sent marked; the next drop scheduled
                fs[r, c + C_DROP_NEXT] = control_law(fs[r, c + C_DROP_NEXT], interval,
                                                     ks[r, k + C_COUNT])
                break
            drop(S, l, p, LI_DROP_EARLY)
            p, ok = dodequeue(S, l, s, fs, r, c, now)
            if not ok:
                ks[r, k + C_DROPPING] = 0
            else:
                fs[r, c + C_DROP_NEXT] = control_law(fs[r, c + C_DROP_NEXT], interval,
                                                     ks[r, k + C_COUNT])
    elif ok:  # above target for an interval: enter the dropping state
        if not marked(S, l, p):
            drop(S, l, p, LI_DROP_EARLY)
            p, ok = dodequeue(S, l, s, fs, r, c, now)
        ks[r, k + C_DROPPING] = 1
        # a cycle starting soon after the last one starts at the drop rate that ended it
        delta = ks[r, k + C_COUNT] - ks[r, k + C_LASTCOUNT]
        count = 1
        if delta > 1 and now - fs[r, c + C_DROP_NEXT] < 16.0 * interval:
            count = delta
        ks[r, k + C_COUNT] = count
        fs[r, c + C_DROP_NEXT] = control_law(now, interval, count)
        ks[r, k + C_LASTCOUNT] = count
        if ch >= 0:
            record(S, ch, count)
    return p


@rare_handler
def select(S, l):
    """RFC 8289's ``dequeue`` at link ``l``: the packet to send (-1: none), the packets
    CoDel drops on the way dropped (cause "early")."""
    li = S.li
    p = dequeue(S, l, li[l, LI_SLOT0] & POS, S.lf, l, LF_QS, li, LI_QS)
    if p < 0:
        # the link goes idle: the next packet finds it idle and is sent at once, sojourn
        # time 0, and the RFC's dequeue of it would leave the dropping state (nothing else
        # touches the state before then)
        li[l, QI_DROPPING] = 0
    return p


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_store": store,
    "queue_select": select,
}
