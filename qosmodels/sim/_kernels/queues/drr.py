"""Deficit round robin (spec: :class:`qosmodels.mechanisms.Drr`).

Each conversation crossing the link (a crossing: a flow's data, or its ACKs,
through this link; :mod:`..crossings`) has its own FIFO ring (a class slot of
the link) and a deficit counter.  The conversations with packets waiting
form the active list, a singly linked list through the crossings' state
(``HSI_NEXT``) with its head and tail in the link's state; a conversation is
in the list exactly when its ring is not empty.  :func:`store` appends a
conversation whose ring was empty (counter 0); :func:`select`, when the link
frees, visits the head: the first time in a visit it adds the quantum, then
it takes the head packet if it fits the counter (the visit goes on at the
next selection), else the conversation goes to the tail and the next one is
visited.  ``QI_VISIT`` says whether the head's quantum has been added for its
current visit.  With ``Drr(record_dequeues=True)`` every packet :func:`select` takes
is a point of the trace channel ``drr_dequeues`` (its flow, ``-1 - flow`` if not
data), at the instant its transmission starts (a packet that finds the link idle
never reaches :func:`select`).

Units: counters, quanta and packet sizes in bits.

References
----------
M. Shreedhar, G. Varghese, SIGCOMM 1995, Fig. 3 (the pseudo-code).
"""

from .._jit import POS, handler, rare_handler
from ..crossings import crossing
from ..fifo import drop, peek_head, pop_head, pop_tail, push_tail, waiting_up
from ..layout import (
    KIND_DATA,
    LI_DROP_OVERFLOW,
    LI_NSLOT,
    LI_QS,
    LI_SLOT0,
    LI_TRACE0,
    LI_WAITING,
    PF_BITS,
    PI_FLOW,
    PI_KIND,
    SL_CAP,
    SL_COUNT,
)
from ..trace import record

CODE = 13
DR_QUANTUM = 0  # bytes per unit weight (0: the largest packet size, resolved by setup_link)
PARAMS = ("quantum",)

# link state
QI_HEAD = LI_QS       # the active list's first conversation (a crossing id), -1: empty
QI_TAIL = LI_QS + 1   # its last, -1: empty
QI_VISIT = LI_QS + 2  # 1: the head's quantum has been added for its current visit

# crossing state
HOP_STATE = 2
HS_DEFICIT = 0        # the deficit counter, bits
HS_QUANTUM = 1        # quantum * weight, bits
HOP_STATE_INT = 2
HSI_SLOT = 0          # the conversation's class slot (its ring)
HSI_NEXT = 1          # the next conversation in the active list, -1: none


def traces(spec) -> tuple[str, ...]:
    """Trace channels: every packet taken from the queues, if the spec asks for it."""
    return ("drr_dequeues",) if spec.record_dequeues else ()


def slots(spec, n_crossings: int) -> int:
    """One ring per conversation."""
    return max(n_crossings, 1)


def setup_link(spec, network, l, xs, x_flow, lf, li, hs, hsi) -> None:
    """Each conversation's ring and quantum (bits); the active list empty.  Refuses a
    conversation's quantum below 1 byte."""
    from ....errors import ScenarioError

    flows = network.flows
    q = spec.quantum
    if q is None:  # the largest packet of the flows whose data or ACKs cross the link
        q = max((flows[x_flow[x]].packet_size for x in xs), default=1)
    for k, x in enumerate(xs):
        w = flows[x_flow[x]].weight
        if q * w < 1.0:
            raise ScenarioError(
                f"Link {network.links[l].name!r} has a Drr queue with quantum = {q:g} bytes "
                f"per unit weight, so flow {network.flow_names[x_flow[x]]!r} (Flow.weight = "
                f"{w:g}) gets {q * w:g} bytes per round; every conversation needs at least 1 "
                f"byte per round: raise Drr.quantum or scale all the flows' weights up together")
        hs[x, HS_DEFICIT] = 0.0
        hs[x, HS_QUANTUM] = 8.0 * q * w
        hsi[x, HSI_SLOT] = li[LI_SLOT0] + k
        hsi[x, HSI_NEXT] = -1
    li[QI_HEAD] = -1
    li[QI_TAIL] = -1
    li[QI_VISIT] = 0


@handler
def klass(S, l, p):
    """The slot of packet ``p``'s conversation, relative to the link's first."""
    return S.hsi[crossing(S, p), HSI_SLOT] - S.li[l, LI_SLOT0]


@rare_handler
def store(S, l, p, s):
    """Queue ``p`` on its conversation's ring (``s``), appending the conversation to the
    active list with its counter at 0 if its ring was empty.  With the buffer full, the
    conversation with the most packets waiting, counting the arrival (``p``'s own on a
    tie), loses its last packet: ``p`` itself, or another conversation's tail (which
    then keeps at least one packet, so stays in the list)."""
    slot, li, hsi = S.slot, S.li, S.hsi
    if li[l, LI_WAITING] >= slot[s, SL_CAP]:  # every ring's capacity is the buffer
        longest = s
        most = slot[s, SL_COUNT] + 1
        s0 = li[l, LI_SLOT0] & POS
        for j in range(s0, s0 + li[l, LI_NSLOT]):
            if slot[j, SL_COUNT] > most:
                most = slot[j, SL_COUNT]
                longest = j
        if longest == s:
            drop(S, l, p, LI_DROP_OVERFLOW)
            return True
        q = pop_tail(S, longest)
        li[l, LI_WAITING] -= 1
        drop(S, l, q, LI_DROP_OVERFLOW)
    if slot[s, SL_COUNT] == 0:  # newly active: to the tail of the list, counter 0
        x = crossing(S, p)
        S.hs[x, HS_DEFICIT] = 0.0
        hsi[x, HSI_NEXT] = -1
        t = li[l, QI_TAIL]
        if t < 0:
            li[l, QI_HEAD] = x
        else:
            hsi[t & POS, HSI_NEXT] = x
        li[l, QI_TAIL] = x
    push_tail(S, s, p)
    waiting_up(S, l)
    return True


@rare_handler
def select(S, l):
    """The next packet of the visit in progress (-1: none waiting): the head
    conversation's first packet if it fits its counter (once the visit's quantum is
    added); else the head goes to the tail and the next conversation is visited."""
    li, hs, hsi, slot = S.li, S.hs, S.hsi, S.slot
    while li[l, QI_HEAD] >= 0:
        x = li[l, QI_HEAD] & POS
        if li[l, QI_VISIT] == 0:
            hs[x, HS_DEFICIT] += hs[x, HS_QUANTUM]
            li[l, QI_VISIT] = 1
        s = hsi[x, HSI_SLOT] & POS
        p = peek_head(S, s)
        bits = S.pf[p, PF_BITS]
        if bits <= hs[x, HS_DEFICIT]:
            pop_head(S, s)
            li[l, LI_WAITING] -= 1
            hs[x, HS_DEFICIT] -= bits
            if slot[s, SL_COUNT] == 0:  # emptied: leaves the list, its counter reset
                hs[x, HS_DEFICIT] = 0.0
                nxt = hsi[x, HSI_NEXT]
                li[l, QI_HEAD] = nxt
                if nxt < 0:
                    li[l, QI_TAIL] = -1
                hsi[x, HSI_NEXT] = -1
                li[l, QI_VISIT] = 0
            ch = li[l, LI_TRACE0]
            if ch >= 0:
                f = S.pi[p, PI_FLOW]
                record(S, ch, f if S.pi[p, PI_KIND] == KIND_DATA else -1 - f)
            return p
        # the head packet is larger than the counter: the visit ends, x to the tail
        li[l, QI_VISIT] = 0
        nxt = hsi[x, HSI_NEXT]
        if nxt >= 0:
            li[l, QI_HEAD] = nxt
            hsi[li[l, QI_TAIL] & POS, HSI_NEXT] = x
            hsi[x, HSI_NEXT] = -1
            li[l, QI_TAIL] = x
    return -1


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_class": klass,
    "queue_store": store,
    "queue_select": select,
}
