"""Flow Queue CoDel (spec: :class:`qosmodels.mechanisms.FqCodel`).

Each flow queue is a FIFO ring (a class slot of the link).  At compile time
:func:`setup_link` classifies the link's conversations (crossings: a flow's
data, or its ACKs, through the link; :mod:`..crossings`) with the spec's hash
(or one queue each, ``exact``): the conversations of one queue share its ring,
and the queue's state lives in the row of its first conversation (its
*representative*, ``HSI_QUEUE``): its credits, CoDel's state (:mod:`.codel`'s
``C_*`` columns from ``HS_CODEL`` / ``HSI_CODEL``: ``first_above_time``,
``drop_next``, the bits waiting; ``count``, ``lastcount``, ``dropping``), which
list it is on and its successor there.  The new and old lists are singly
linked lists with their heads and tails in the link's state.

:func:`admit` applies the RFC's enqueue-and-dequeue to a packet that finds the
link idle (sent at once), and on a busy link drops the head of the fattest
queue when the buffer is full; :func:`store` appends a packet and activates its
queue; :func:`select` is RFC 8290's dequeue, running :func:`.codel.dequeue` on
the chosen queue.  Units: credits, quanta and sizes in bits.

References
----------
RFC 8290, Sections 4.1 (enqueue) and 4.2 (dequeue); RFC 8289, Section 5.
"""

from .._jit import POS, handler, rare_handler
from ..crossings import crossing
from ..fifo import drop, pop_head, push_tail, waiting_up
from ..layout import (
    LF_QP,
    LI_DROP_OVERFLOW,
    LI_QS,
    LI_SLOT0,
    LI_TX,
    LI_WAITING,
    PF_BITS,
    SL_CAP,
    SL_COUNT,
)
from . import codel
from .codel import C_BITS, C_DROPPING, C_FIRST_ABOVE, CD_INTERVAL, CD_MARK, CD_MTU, CD_TARGET

CODE = 16
# the parameter row: CoDel's columns where Codel has them, so that codel.dequeue reads them
FQ_TARGET = CD_TARGET      # s
FQ_INTERVAL = CD_INTERVAL  # s
FQ_MTU = CD_MTU            # bytes
FQ_ECN = CD_MARK
FQ_QUANTUM = 4             # bytes
PARAMS = ("target", "interval", "mtu", "ecn", "quantum")
assert (FQ_TARGET, FQ_INTERVAL, FQ_MTU, FQ_ECN) == (0, 1, 2, 3)

# link state: the two lists (a queue's representative crossing, -1: empty)
QI_NEW_HEAD = LI_QS
QI_NEW_TAIL = LI_QS + 1
QI_OLD_HEAD = LI_QS + 2
QI_OLD_TAIL = LI_QS + 3

# crossing state; the queue's own in its representative's row
HOP_STATE = 4
HS_CREDITS = 0   # the queue's credits (deficit), bits
HS_CODEL = 1     # CoDel's floats: HS_CODEL + codel.C_FIRST_ABOVE, C_DROP_NEXT, C_BITS
HOP_STATE_INT = 8
HSI_SLOT = 0     # the queue's class slot (its ring), every crossing of the queue
HSI_QUEUE = 1    # the queue's representative crossing, every crossing of the queue
HSI_BUCKET = 2   # the queue's index (the hash's value, or the position with exact)
HSI_LIST = 3     # which list the queue is on: LIST_NONE, LIST_NEW, LIST_OLD
HSI_NEXT = 4     # its successor on that list, -1: none
HSI_CODEL = 5    # CoDel's integers: HSI_CODEL + codel.C_COUNT, C_LASTCOUNT, C_DROPPING
LIST_NONE = 0
LIST_NEW = 1
LIST_OLD = 2


def slots(spec, n_crossings: int) -> int:
    """At most one ring per conversation (only as many as there are queues are used)."""
    return max(n_crossings, 1)


def setup_link(spec, network, l, xs, x_flow, lf, li, hs, hsi) -> None:
    """Classify the link's conversations into queues (the spec's hash, or one each with
    ``exact``): a ring per queue used, in the order of the queues' indices; the queue's
    state, all lists empty."""
    n_data = int(network.route_ptr[-1])  # crossings below this carry data, above, ACKs
    buckets = []
    for k, x in enumerate(xs):
        if spec.exact:
            buckets.append(k)
        else:
            buckets.append(spec.bucket(int(x_flow[x]), ack=bool(x >= n_data)))
    order = {b: j for j, b in enumerate(sorted(set(buckets)))}
    first = {}
    for x, b in zip(xs, buckets):
        r = first.setdefault(b, x)
        hsi[x, HSI_SLOT] = li[LI_SLOT0] + order[b]
        hsi[x, HSI_QUEUE] = r
        hsi[x, HSI_BUCKET] = b
        hsi[x, HSI_LIST] = LIST_NONE
        hsi[x, HSI_NEXT] = -1
        hsi[x, HSI_CODEL:HSI_CODEL + 3] = 0
        hs[x, :] = 0.0
    li[QI_NEW_HEAD] = li[QI_NEW_TAIL] = li[QI_OLD_HEAD] = li[QI_OLD_TAIL] = -1


@handler
def klass(S, l, p):
    """The slot of packet ``p``'s queue, relative to the link's first."""
    return S.hsi[crossing(S, p), HSI_SLOT] - S.li[l, LI_SLOT0]


@handler
def append(S, l, q, which):
    """Queue ``q`` (a representative crossing) to the tail of list ``which``."""
    li, hsi = S.li, S.hsi
    head = QI_NEW_HEAD if which == LIST_NEW else QI_OLD_HEAD
    hsi[q, HSI_LIST] = which
    hsi[q, HSI_NEXT] = -1
    t = li[l, head + 1]
    if t < 0:
        li[l, head] = q
    else:
        hsi[t & POS, HSI_NEXT] = q
    li[l, head + 1] = q


@handler
def pop_list(S, l, head):
    """Take the queue at the head of the list whose head is column ``head`` off it."""
    li, hsi = S.li, S.hsi
    q = li[l, head] & POS
    nxt = hsi[q, HSI_NEXT]
    li[l, head] = nxt
    if nxt < 0:
        li[l, head + 1] = -1
    hsi[q, HSI_NEXT] = -1
    hsi[q, HSI_LIST] = LIST_NONE


@handler
def activate(S, l, q):
    """RFC 8290 Section 4.1: an inactive queue goes to the new list's tail, its credits
    one quantum; an active one stays where it is."""
    if S.hsi[q, HSI_LIST] == LIST_NONE:
        append(S, l, q, LIST_NEW)
        S.hs[q, HS_CREDITS] = 8.0 * S.lf[l, LF_QP + FQ_QUANTUM]


@rare_handler
def admit(S, l, p):
    """An arrival at link ``l``.  On an idle link it is sent at once: apply the RFC's
    enqueue and dequeue of it (its queue new with one quantum less its size in
    credits, CoDel's state as after a sojourn time of 0).  On a busy link with the
    buffer full, drop the head of the fattest queue (the arrival counted in its own
    queue; the arrival itself if that queue is its own and otherwise empty).  -1 to
    admit ``p``, else the drop cause of ``p``."""
    li, hs, hsi = S.li, S.hs, S.hsi
    x = crossing(S, p)
    q = hsi[x, HSI_QUEUE] & POS
    bits = S.pf[p, PF_BITS]
    if li[l, LI_TX] < 0:  # the lists are empty (the scheduler found nothing to send)
        activate(S, l, q)
        hs[q, HS_CODEL + C_FIRST_ABOVE] = 0.0   # sojourn time 0 < target
        hsi[q, HSI_CODEL + C_DROPPING] = 0      # (not ok to drop: leaves the dropping state)
        hs[q, HS_CREDITS] -= bits
        return -1
    s = hsi[x, HSI_SLOT] & POS
    if li[l, LI_WAITING] < S.slot[s, SL_CAP]:  # every ring's capacity is the buffer
        return -1
    fat = q
    most = hs[q, HS_CODEL + C_BITS] + bits
    i0, i1 = S.lk_ptr[l], S.lk_ptr[l + 1]
    for i in range(i0, i1):
        r = S.lk_pos[i & POS]
        if hsi[r, HSI_QUEUE] != r or r == q:
            continue
        b = hs[r, HS_CODEL + C_BITS]
        if b > most or (b == most and hsi[r, HSI_BUCKET] < hsi[fat, HSI_BUCKET]):
            most = b
            fat = r
    sf = hsi[fat, HSI_SLOT] & POS
    if S.slot[sf, SL_COUNT] == 0:  # (fat is p's own queue, holding only p)
        return LI_DROP_OVERFLOW
    v = pop_head(S, sf)
    li[l, LI_WAITING] -= 1
    hs[fat, HS_CODEL + C_BITS] -= S.pf[v, PF_BITS]
    drop(S, l, v, LI_DROP_OVERFLOW)
    return -1


@rare_handler
def store(S, l, p, s):
    """Admitted packet ``p`` joins its queue's ring ``s`` (RFC 8290 Section 4.1), the
    queue activated if it was inactive."""
    q = S.hsi[crossing(S, p), HSI_QUEUE] & POS
    push_tail(S, s, p)
    waiting_up(S, l)
    S.hs[q, HS_CODEL + C_BITS] += S.pf[p, PF_BITS]
    activate(S, l, q)
    return True


@rare_handler
def select(S, l):
    """RFC 8290 Section 4.2's dequeue at link ``l``: the packet to send (-1: none, both
    lists then empty), the packets CoDel drops on the way dropped (cause "early")."""
    li, hs, hsi = S.li, S.hs, S.hsi
    quantum = 8.0 * S.lf[l, LF_QP + FQ_QUANTUM]
    while True:
        head = QI_NEW_HEAD
        if li[l, head] < 0:
            head = QI_OLD_HEAD
            if li[l, head] < 0:
                return -1
        q = li[l, head] & POS
        if hs[q, HS_CREDITS] <= 0.0:  # used its quantum: more credits, to the old tail
            hs[q, HS_CREDITS] += quantum
            pop_list(S, l, head)
            append(S, l, q, LIST_OLD)
            continue
        p = codel.dequeue(S, l, hsi[q, HSI_SLOT] & POS, hs, q, HS_CODEL, hsi, HSI_CODEL)
        if p >= 0:
            hs[q, HS_CREDITS] -= S.pf[p, PF_BITS]
            return p
        # the queue is empty: a new one to the old list's tail, an old one inactive
        pop_list(S, l, head)
        if head == QI_NEW_HEAD:
            append(S, l, q, LIST_OLD)


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_class": klass,
    "queue_admit": admit,
    "queue_store": store,
    "queue_select": select,
}
