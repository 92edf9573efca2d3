"""Fair queueing (spec: :class:`qosmodels.mechanisms.FairQueueing`).

Each conversation crossing the link (a crossing: a flow's data, or its
ACKs, through this link; :mod:`..crossings`) has its own FIFO ring (a class
slot of the link); the rings' first packets wait in a sorted queue (row
``l`` of the sorted-queue arena) keyed by their bids, so the link sends the
smallest bid next.  Bids are non-decreasing within a conversation
(``B_i <= F_i < B_{i+1}``), so the first packet of a ring always has its
conversation's smallest bid.  The round number of the bit-by-bit emulation
advances lazily, at arrivals: the conversations active in the emulation sit
in a second sorted queue (row ``L + l``) keyed by the finish number of their
latest packet, and the conversations whose latest finish number ``R``
reaches before the arrival leave the active set one by one, each changing
the slope of ``R`` (as :func:`qosmodels.fq._engine.bit_round_robin` does).
A drop leaves the numbers alone (the paper's rule) or, with
``charge_drops=False``, rolls the dropped packet's conversation back
(:func:`roll_back`).

Units: round numbers in bits per unit weight, the line rate in bit/s.

References
----------
A. Demers, S. Keshav, S. Shenker, SIGCOMM 1989, Section 2.2.
"""

from .._jit import POS, handler, rare_handler
from ..crossings import crossing
from ..fifo import drop, peek_head, pop_head, pop_tail, push_tail, waiting_up
from ..layout import (
    GF_NOW,
    KIND_DATA,
    LF_CAP,
    LF_QP,
    LF_QS,
    LI_DROP_OVERFLOW,
    LI_MARKS,
    LI_NSLOT,
    LI_QS,
    LI_SLOT0,
    LI_TRACE0,
    LI_TX,
    LI_WAITING,
    MARK_DECBIT,
    PF_BITS,
    PF_TAG0,
    PF_TAG1,
    PI_KIND,
    PI_MARK,
    PI_QPOS,
    SL_CAP,
    SL_COUNT,
)
from ..sorted_queue import sq_len, sq_peek_key, sq_pop, sq_push, sq_remove
from ..trace import record

CODE = 5
FQ_DELTA = 0  # bits of round number
FQ_BIT = 1    # 1: the FQ bit-setting gateway (``Decbit(fq_bit=True)``)
FQ_ROLLBACK = 2  # 1: a drop rolls its conversation's finish number back (``charge_drops=False``)
#: Also the kernel of ``Decbit(fq_bit=True)``, which has no ``delta`` (the paper's 0) and
#: charges drops (the paper's rule).
PARAMS = (("delta_bits", lambda spec: 8.0 * getattr(spec, "delta", 0.0)),
          ("fq_bit", lambda spec: getattr(spec, "fq_bit", False)),
          ("rollback", lambda spec: not getattr(spec, "charge_drops", True)))

# link state
QS_ROUND = LF_QS        # R at QS_T, bits per unit weight
QS_T = LF_QS + 1        # when R was last brought up to date, s
QS_ACTIVE_W = LF_QS + 2  # N_ac: the weights of the active conversations, summed
QSI_ARRIVALS = LI_QS    # arrivals numbered (ties between equal bids in arrival order)
# (the active conversations are counted by the active heap's length)

# crossing state
HOP_STATE = 2
HS_FINISH = 0           # F of the conversation's latest packet, bits per unit weight
HS_WEIGHT = 1           # n_alpha
HOP_STATE_INT = 2
HSI_SLOT = 0            # the conversation's class slot (its ring)
HSI_ACTIVE_POS = 1      # position in the link's active heap, -1: inactive

# packet tags while queued here
TAG_BID = PF_TAG0
TAG_ARRIVAL = PF_TAG1


def traces(spec) -> tuple[str, ...]:
    """Trace channels: the round number at every arrival (bytes per unit weight), if asked."""
    return ("fq_round",) if getattr(spec, "record_round", False) else ()


def slots(spec, n_crossings: int) -> int:
    """One ring per conversation."""
    return max(n_crossings, 1)


def sorted_queues(spec, buffer: int, n_crossings: int) -> tuple[int, int]:
    """The heap of ring heads and the heap of active conversations: one entry each per
    conversation."""
    return n_crossings, n_crossings


def setup_link(spec, network, l, xs, x_flow, lf, li, hs, hsi) -> None:
    """Each conversation's ring and weight; refuses a buffer smaller than the conversations."""
    from ....errors import ScenarioError

    link = network.links[l]
    if link.buffer < len(xs):
        raise ScenarioError(
            f"link {link.name!r} has fair queueing for {len(xs)} conversations (flows' data "
            f"and ACKs crossing it) but Link.buffer = {link.buffer} packets; fair queueing "
            f"needs room for one packet per conversation: use buffer >= {len(xs)}"
        )
    for k, x in enumerate(xs):
        hs[x, HS_FINISH] = 0.0
        hs[x, HS_WEIGHT] = network.flows[x_flow[x]].weight
        hsi[x, HSI_SLOT] = li[LI_SLOT0] + k
        hsi[x, HSI_ACTIVE_POS] = -1


@handler
def update_round(S, l, t):
    """Advance link ``l``'s round number to time ``t``, retiring the conversations whose
    latest finish number it reaches on the way (at a tie, before ``t``'s arrival)."""
    lf, hs = S.lf, S.hs
    a = S.li.shape[0] + l  # the active heap's row
    r = lf[l, QS_ROUND]
    tl = lf[l, QS_T]
    nac = lf[l, QS_ACTIVE_W]
    mu = lf[l, LF_CAP]
    while sq_len(S.sq_meta, a) > 0:
        fmin = sq_peek_key(S.sq_meta, a, S.sq_key)
        t_hit = tl + (fmin - r) * nac / mu
        if t_hit > t:
            break
        x = sq_pop(S.sq_meta, a, S.sq_key, S.sq_seq, S.sq_pkt, S.hsi, HSI_ACTIVE_POS) & POS
        r = fmin
        tl = t_hit
        nac = nac - hs[x, HS_WEIGHT] if sq_len(S.sq_meta, a) > 0 else 0.0
    if sq_len(S.sq_meta, a) > 0:
        r += (t - tl) * mu / nac
    lf[l, QS_ROUND] = r
    lf[l, QS_T] = t
    lf[l, QS_ACTIVE_W] = nac


@handler
def klass(S, l, p):
    """The slot of packet ``p``'s conversation, relative to the link's first."""
    return S.hsi[crossing(S, p), HSI_SLOT] - S.li[l, LI_SLOT0]


@rare_handler
def admit(S, l, p):
    """Number the arrival in the emulation: its bid, its conversation's finish number and
    the active set.  Admits (a full buffer is :func:`store`'s business), except, when drops
    are rolled back, an arrival whose conversation alone fills the buffer (the link drops
    it without numbering it: ``LI_DROP_OVERFLOW``)."""
    lf, li, hs, hsi = S.lf, S.li, S.hs, S.hsi
    update_round(S, l, S.gf[GF_NOW])
    x = crossing(S, p)
    w = hs[x, HS_WEIGHT]
    size = S.pf[p, PF_BITS] / w
    r = lf[l, QS_ROUND]
    if li[l, LI_TRACE0] >= 0:
        record(S, li[l, LI_TRACE0], r / 8.0)
    if lf[l, LF_QP + FQ_ROLLBACK] > 0.0 and li[l, LI_TX] >= 0:
        s = hsi[x, HSI_SLOT] & POS
        if S.slot[s, SL_COUNT] >= S.slot[s, SL_CAP]:
            # its conversation fills the buffer: the link drops it at once; not numbered,
            # as a numbered packet dropped from the tail is rolled back (:func:`roll_back`)
            return LI_DROP_OVERFLOW
    fp = hs[x, HS_FINISH]
    start = fp if fp > r else r
    f = start + size
    rd = r - lf[l, LF_QP + FQ_DELTA]
    S.pf[p, TAG_BID] = size + (fp if fp > rd else rd)
    n = li[l, QSI_ARRIVALS]
    S.pf[p, TAG_ARRIVAL] = n
    li[l, QSI_ARRIVALS] = n + 1
    hs[x, HS_FINISH] = f
    a = li.shape[0] + l
    if hsi[x, HSI_ACTIVE_POS] >= 0:  # active: its latest finish number moves on
        sq_remove(S.sq_meta, a, S.sq_key, S.sq_seq, S.sq_pkt, hsi, HSI_ACTIVE_POS, x)
    else:
        lf[l, QS_ACTIVE_W] += w
    sq_push(S.sq_meta, a, S.sq_key, S.sq_seq, S.sq_pkt, hsi, HSI_ACTIVE_POS, x, f, x)
    return -1


@handler
def push_head(S, l, p):
    """Packet ``p``, now first of its ring, joins the heap of heads by its bid."""
    sq_push(S.sq_meta, l, S.sq_key, S.sq_seq, S.sq_pkt, S.pi, PI_QPOS, p,
            S.pf[p, TAG_BID], int(S.pf[p, TAG_ARRIVAL]))


@handler
def roll_back(S, l, q):
    """Undo the numbering of packet ``q``, dropped from the tail of its conversation's ring
    (``charge_drops=False``): the conversation's latest finish number goes back by
    ``q``'s ``P / n_alpha``; if the round number has reached the finish number so lowered,
    the conversation leaves the active set now (``N_ac`` loses its weight from now on; the
    round number's past is not rewritten), else its key in the active heap follows."""
    lf, hs, hsi = S.lf, S.hs, S.hsi
    x = crossing(S, q)
    w = hs[x, HS_WEIGHT]
    f = hs[x, HS_FINISH] - S.pf[q, PF_BITS] / w
    hs[x, HS_FINISH] = f
    update_round(S, l, S.gf[GF_NOW])  # (already there: the arrival was numbered just now)
    if hsi[x, HSI_ACTIVE_POS] < 0:  # idle in the emulation: q's bits were all served there
        return
    a = S.li.shape[0] + l
    sq_remove(S.sq_meta, a, S.sq_key, S.sq_seq, S.sq_pkt, hsi, HSI_ACTIVE_POS, x)
    if f > lf[l, QS_ROUND]:
        sq_push(S.sq_meta, a, S.sq_key, S.sq_seq, S.sq_pkt, hsi, HSI_ACTIVE_POS, x, f, x)
    else:
        lf[l, QS_ACTIVE_W] = lf[l, QS_ACTIVE_W] - w if sq_len(S.sq_meta, a) > 0 else 0.0


@rare_handler
def store(S, l, p, s):
    """Queue ``p`` on its conversation's ring (with the FQ bit-setting rule, set its DECbit
    if the ring now holds more than a third of the conversation's fair share of the buffer);
    over the buffer, drop the last packet of the conversation with the most packets waiting
    (``p``'s own on a tie), rolling its numbering back if drops are not charged.  The
    link's maximum of packets waiting is kept after the drop (at most the buffer)."""
    slot, li = S.slot, S.li
    if slot[s, SL_COUNT] == 0:
        push_head(S, l, p)
    push_tail(S, s, p)
    if li[l, LI_WAITING] < slot[s, SL_CAP]:
        waiting_up(S, l)  # keeps the maximum
    else:
        li[l, LI_WAITING] += 1  # one over the buffer until the drop below
    if S.lf[l, LF_QP + FQ_BIT] > 0.0 and S.pi[p, PI_KIND] == KIND_DATA:
        # FQ bit-setting: the conversation's queue above a third of its fair share of buffer
        n_active = sq_len(S.sq_meta, li.shape[0] + l)
        if 3 * slot[s, SL_COUNT] * n_active > slot[s, SL_CAP]:
            S.pi[p, PI_MARK] |= MARK_DECBIT
            li[l, LI_MARKS] += 1
    if li[l, LI_WAITING] > slot[s, SL_CAP]:  # every ring's capacity is the buffer
        longest = s
        most = slot[s, SL_COUNT]
        s0 = li[l, LI_SLOT0] & POS
        for j in range(s0, s0 + li[l, LI_NSLOT]):
            if slot[j, SL_COUNT] > most:
                most = slot[j, SL_COUNT]
                longest = j
        q = pop_tail(S, longest)
        li[l, LI_WAITING] -= 1
        if slot[longest, SL_COUNT] == 0:  # it was the ring's head too
            sq_remove(S.sq_meta, l, S.sq_key, S.sq_seq, S.sq_pkt, S.pi, PI_QPOS, q)
        if S.lf[l, LF_QP + FQ_ROLLBACK] > 0.0:
            roll_back(S, l, q)
        drop(S, l, q, LI_DROP_OVERFLOW)
    return True


@rare_handler
def select(S, l):
    """The waiting packet with the smallest bid (-1: none); its ring's next packet takes
    its place among the heads."""
    if sq_len(S.sq_meta, l) == 0:
        return -1
    p = sq_pop(S.sq_meta, l, S.sq_key, S.sq_seq, S.sq_pkt, S.pi, PI_QPOS) & POS
    s = S.hsi[crossing(S, p), HSI_SLOT] & POS
    pop_head(S, s)
    S.li[l, LI_WAITING] -= 1
    if S.slot[s, SL_COUNT] > 0:
        push_head(S, l, peek_head(S, s))
    return p


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_class": klass,
    "queue_admit": admit,
    "queue_store": store,
    "queue_select": select,
}
