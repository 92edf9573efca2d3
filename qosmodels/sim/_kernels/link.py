"""Links: the queue in front of each (FIFO rings per class slot), transmission, propagation.

An arriving packet is counted, given its class slot and the discipline's
verdict (:mod:`.dispatch`), then dropped, sent at once on an idle link, or
stored; a finished transmission hands the packet to the far end after the
link's delay and starts the next one.
"""

from ._jit import POS, handler, rare_handler
from .dispatch import RINGS, queue_admit, queue_class, queue_select, queue_store
from .fifo import drop, pop_head, push_tail, waiting_up
from .heap import enter_pipe, push
from .layout import (
    EV_ARRIVE,
    EV_BITS,
    EV_TXDONE,
    GF_END,
    GF_NOW,
    GF_WARMUP,
    GI_STATUS,
    KIND_DATA,
    LF_BITS_W,
    LF_BUSY,
    LF_CAP,
    LF_DELAY,
    LF_IDLE_SINCE,
    LI_ARR_W,
    LI_ARRIVALS,
    LI_CODE,
    LI_DEP_W,
    LI_DEPARTURES,
    LI_DROP_OVERFLOW,
    LI_NSLOT,
    LI_OOB,
    LI_SLOT0,
    LI_TX,
    LI_WAITING,
    MARK_OOB,
    PF_BITS,
    PF_ENQ,
    PF_QDELAY,
    PI_FLOW,
    PI_HOP,
    PI_KIND,
    PI_MARK,
    SL_CAP,
    SL_COUNT,
    ST_BAD_CLASS,
)
from .pool import release


@handler
def start_tx(S, l, p):
    """Start transmitting packet ``p`` on link ``l``."""
    lf, gf = S.lf, S.gf
    now = gf[GF_NOW]
    S.li[l, LI_TX] = p
    tx = S.pf[p, PF_BITS] / lf[l, LF_CAP]
    a = now if now > gf[GF_WARMUP] else gf[GF_WARMUP]
    b = now + tx
    if b > gf[GF_END]:
        b = gf[GF_END]
    if b > a:
        lf[l, LF_BUSY] += b - a
    push(S, now + tx, (l << EV_BITS) | EV_TXDONE)


@handler
def enqueue(S, l, p):
    """Packet ``p`` arrives at link ``l``'s queue (an out-of-band one at its lane)."""
    li, slot = S.li, S.slot
    now = S.gf[GF_NOW]
    li[l, LI_ARRIVALS] += 1
    if now >= S.gf[GF_WARMUP]:
        li[l, LI_ARR_W] += 1
    if S.pi[p, PI_MARK] & MARK_OOB:
        out_of_band(S, l, p)
        return
    code = li[l, LI_CODE]
    k = queue_class(S, code, l, p)
    if k < 0:
        S.gi[GI_STATUS] = ST_BAD_CLASS
        release(S, p)
        return
    cause = queue_admit(S, code, l, p)
    s = (li[l, LI_SLOT0] + k) & POS
    cap = slot[s, SL_CAP]
    cnt = slot[s, SL_COUNT]
    if cause < 0 and li[l, LI_TX] >= 0 and cnt >= cap:
        cause = LI_DROP_OVERFLOW
    if cause >= 0:
        drop(S, l, p, cause)
        return
    S.pf[p, PF_ENQ] = now
    if li[l, LI_TX] < 0:
        start_tx(S, l, p)
        return
    if queue_store(S, code, l, p, s):
        return
    push_tail(S, s, p)
    waiting_up(S, l)


@rare_handler
def out_of_band(S, l, p):
    """An out-of-band packet skips the discipline: sent at once on an idle link, else it
    waits in the link's lane (dropped if the lane is full or the link has none)."""
    li = S.li
    if li[l, LI_TX] < 0:
        S.pf[p, PF_ENQ] = S.gf[GF_NOW]
        start_tx(S, l, p)
        return
    s = li[l, LI_OOB]
    if s < 0 or S.slot[s & POS, SL_COUNT] >= S.slot[s & POS, SL_CAP]:
        drop(S, l, p, LI_DROP_OVERFLOW)
        return
    S.pf[p, PF_ENQ] = S.gf[GF_NOW]
    push_tail(S, s & POS, p)


@handler
def dequeue(S, l):
    """The next packet to send at link ``l``: an out-of-band one first, then the
    discipline's choice (by default the lowest non-empty class slot's first packet), or -1."""
    li, slot = S.li, S.slot
    ob = li[l, LI_OOB]
    if ob >= 0 and slot[ob & POS, SL_COUNT] > 0:
        return pop_head(S, ob & POS)
    p = queue_select(S, li[l, LI_CODE], l)
    if p != RINGS:
        return p
    s0 = li[l, LI_SLOT0] & POS
    for s in range(s0, s0 + li[l, LI_NSLOT]):
        s &= POS
        if slot[s, SL_COUNT] > 0:
            li[l, LI_WAITING] -= 1
            return pop_head(S, s)
    return -1


@handler
def on_txdone(S, l):
    """Link ``l`` finished a transmission: propagate the packet, start the next."""
    li, lf = S.li, S.lf
    now = S.gf[GF_NOW]
    p = li[l, LI_TX] & POS  # (a link finishing a transmission has one)
    li[l, LI_DEPARTURES] += 1
    if now >= S.gf[GF_WARMUP]:
        li[l, LI_DEP_W] += 1
        lf[l, LF_BITS_W] += S.pf[p, PF_BITS]
    S.pi[p, PI_HOP] += 1
    enter_pipe(S, l, p, now + lf[l, LF_DELAY], (p << EV_BITS) | EV_ARRIVE)
    q = dequeue(S, l)
    if q >= 0:
        S.pf[q, PF_QDELAY] += now - S.pf[q, PF_ENQ]
        start_tx(S, l, q)
    else:
        li[l, LI_TX] = -1
        lf[l, LF_IDLE_SINCE] = now


@handler
def forward(S, p):
    """Hand packet ``p`` to hop ``PI_HOP`` of its path (never past its end)."""
    pi = S.pi
    f = pi[p, PI_FLOW] & POS
    h = pi[p, PI_HOP] & POS
    if pi[p, PI_KIND] == KIND_DATA:
        l = S.r_link[(S.r_ptr[f] + h) & POS] & POS
    else:
        j = (S.a_ptr[f] + h) & POS
        l = S.a_link[j]
        if l < 0:  # a stretch of undeclared reverse links: propagation only
            pi[p, PI_HOP] = h + 1
            enter_pipe(S, S.li.shape[0] - 1 - l, p, S.gf[GF_NOW] + S.a_delay[j],
                       (p << EV_BITS) | EV_ARRIVE)  # its pipe: -1 - l among the stretches'
            return
        l &= POS
    enqueue(S, l, p)
