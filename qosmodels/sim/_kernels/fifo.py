"""FIFO rings (one per class slot of a link), the waiting count, and dropping a packet.

A link's queue stores waiting packets in FIFO rings, one per class slot
(``slot`` rows, all rings in the ``ring`` arena).  Strict priority serves its
slots lowest first (:func:`.link.dequeue`); a discipline that keeps its own
order (fair queueing keeps one ring per conversation and a heap of their
heads) uses the same rings through these functions from its ``store`` and
``select`` hooks, and :func:`drop` to push a queued packet out.
"""

from ._jit import POS, handler
from .layout import (
    FI_ACK_DROPS,
    FI_DROPS,
    FI_DROPS_W,
    KIND_DATA,
    LI_DROPS_W,
    LI_MAX_WAITING,
    LI_WAITING,
    MARK_CTRL,
    PI_FLOW,
    PI_KIND,
    PI_MARK,
    SL_CAP,
    SL_COUNT,
    SL_HEAD,
    SL_OFF,
)
from .pool import in_window, release


@handler
def push_tail(S, s, p):
    """Append packet ``p`` to class slot ``s``'s ring (the caller checked there is room)."""
    slot = S.slot
    cap = slot[s, SL_CAP]
    cnt = slot[s, SL_COUNT]
    j = slot[s, SL_HEAD] + cnt
    if j >= cap:
        j -= cap
    S.ring[(slot[s, SL_OFF] + j) & POS] = p
    slot[s, SL_COUNT] = cnt + 1


@handler
def peek_head(S, s):
    """The first packet of slot ``s``'s ring (which is not empty)."""
    slot = S.slot
    return S.ring[(slot[s, SL_OFF] + slot[s, SL_HEAD]) & POS] & POS


@handler
def pop_head(S, s):
    """Take the first packet of slot ``s``'s ring (which is not empty)."""
    slot = S.slot
    h = slot[s, SL_HEAD]
    p = S.ring[(slot[s, SL_OFF] + h) & POS] & POS
    h += 1
    if h == slot[s, SL_CAP]:
        h = 0
    slot[s, SL_HEAD] = h
    slot[s, SL_COUNT] -= 1
    return p


@handler
def pop_tail(S, s):
    """Take the last packet of slot ``s``'s ring (which is not empty)."""
    slot = S.slot
    cnt = slot[s, SL_COUNT] - 1
    j = slot[s, SL_HEAD] + cnt
    if j >= slot[s, SL_CAP]:
        j -= slot[s, SL_CAP]
    slot[s, SL_COUNT] = cnt
    return S.ring[(slot[s, SL_OFF] + j) & POS] & POS


@handler
def waiting_up(S, l):
    """One more packet waits at link ``l`` (keeps the maximum)."""
    li = S.li
    w = li[l, LI_WAITING] + 1
    li[l, LI_WAITING] = w
    if w > li[l, LI_MAX_WAITING]:
        li[l, LI_MAX_WAITING] = w


@handler
def drop(S, l, p, cause):
    """Drop packet ``p`` at link ``l``, counting it under ``cause`` (an ``LI_DROP_*`` column).

    ``p`` is not in any ring or sorted queue (the caller took it out) and is
    not counted as waiting."""
    li, fi = S.li, S.fi
    li[l, cause] += 1
    w = in_window(S)
    if w:
        li[l, LI_DROPS_W] += 1
    f = S.pi[p, PI_FLOW] & POS
    if S.pi[p, PI_MARK] & MARK_CTRL:  # a control packet: the link counts it, the flow not
        pass
    elif S.pi[p, PI_KIND] == KIND_DATA:
        fi[f, FI_DROPS] += 1
        if w:
            fi[f, FI_DROPS_W] += 1
    else:
        fi[f, FI_ACK_DROPS] += 1
    release(S, p)
