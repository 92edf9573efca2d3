"""DualPI2, the DualQ Coupled AQM (spec: :class:`qosmodels.mechanisms.DualPi2`).

Two FIFO class slots at the link: slot 0 the L queue (ECT(1) and CE data packets,
RFC 9332's classifier), slot 1 the Classic queue (everything else, ACKs too).
:func:`klass` is the classifier; :func:`admit` is ``dualpi2_enqueue``'s shared
buffer test (and, for an arrival at an idle link, which the link sends at once,
the dequeue's marking or dropping with a sojourn time of 0); :func:`select` is
``dualpi2_dequeue``: the scheduler (the time-shifted FIFO, or Linux's weighted round
robin with ``scheduler="wrr"``, whose credit :func:`_credit` keeps), then the L queue's native
ramp combined with the coupled probability (``recur(lq, .)``), or the Classic
queue's squared probability (``recur(cq, .)``; dropped also when ECN-capable once
``p_C >= p_Cmax``), dropping and going on where the RFC drops; :func:`on_update`
(the link's timer slot 0) is ``dualpi2_update``, every ``t_update`` seconds from
the first arrival, from the larger of the two queues' head sojourn times.

The link's state: the base probability ``p'``, the previous queue delay ``prevq``
(s), the two queues' ``recur`` accumulators ``lq.count`` and ``cq.count``, and the
round robin's credit and its starting value (bits; 0 with the time-shifted FIFO).

References
----------
K. De Schepper, B. Briscoe, G. White, RFC 9332, 2023: Section 2.4 (the coupling
``p_C = (p_CL / k)^2``), 2.5 (the classifier, the scheduler, overload), Appendix A
(the DualPI2 pseudo-code: ``dualpi2_enqueue``, ``dualpi2_dequeue``, ``recur``,
``laqm``, ``dualpi2_update``; A.2's overload branches, ``Th_len``, ``p_Cmax`` and the
larger queue delay in ``curq``), as the spec's docstring says which were checked.
"""

from .._jit import POS, handler, rare_handler
from ..fifo import drop, peek_head, pop_head
from ..layout import (
    FI_ECN,
    GF_NOW,
    KIND_DATA,
    LF_QP,
    LF_QS,
    LI_DROP_EARLY,
    LI_DROP_OVERFLOW,
    LI_MARKS,
    LI_SLOT0,
    LI_TIMER0,
    LI_TRACE0,
    LI_TX,
    LI_WAITING,
    MARK_CE,
    PF_BITS,
    PF_ENQ,
    PI_FLOW,
    PI_KIND,
    PI_MARK,
    SL_CAP,
    SL_COUNT,
)
from ..timers import is_off, set_deadline
from ..trace import record

CODE = 24
DP_TARGET = 0      # s, the Classic queue's delay target
DP_T_UPDATE = 1    # s, Tupdate
DP_ALPHA = 2       # 1/s, PI2's integral gain
DP_BETA = 3        # 1/s, PI2's proportional gain
DP_K = 4           # the coupling factor k
DP_MIN_TH = 5      # s, minTh of the L queue's ramp
DP_RANGE = 6       # s, range of the ramp (0: a step at minTh)
DP_TH_LEN = 7      # packets, Th_len: no native marking unless the L queue holds more
DP_TSHIFT = 8      # s, the scheduler's time shift
DP_SCHED = 9       # the scheduler: 0 time-shifted FIFO, 1 weighted round robin
DP_W_C = 10        # w_C, the round robin's Classic weight (0 with the time-shifted FIFO)
#: The kernel's codes of ``DualPi2.scheduler`` (``qosmodels.mechanisms.dualpi2.SCHEDULERS``).
SCHED_TSHIFT = 0
SCHED_WRR = 1
PARAMS = ("target", "t_update", "alpha", "beta", "k", "min_th", "range", "th_len", "tshift",
          ("scheduler", lambda s: 0.0 if s.scheduler == "tshift" else 1.0),
          ("c_protection", lambda s: s.c_protection if s.scheduler == "wrr" else 0.0))

#: The class slots: the L queue, then the Classic queue.
SLOT_L = 0
SLOT_C = 1

#: Timer slots of the link: the update of p'.
TIMERS = 1

# the link's float state
Q_PBASE = LF_QS          # p', the base probability
Q_PREVQ = LF_QS + 1      # prevq, s
Q_LCOUNT = LF_QS + 2     # lq.count, recur's accumulator for the L queue
Q_CCOUNT = LF_QS + 3     # cq.count, recur's accumulator for the Classic queue
Q_CREDIT = LF_QS + 4     # the round robin's credit, bits (<= 0: the L queue's turn)
Q_CREDIT0 = LF_QS + 5    # its value when both queues are empty, MTU (w_C - w_L), bits

#: Outcomes of :func:`decide`.
PASS = 0
MARK = 1
DROP = 2


def slots(spec, n_crossings) -> int:
    """Two FIFO rings: the L queue and the Classic queue."""
    return 2


def setup_link(spec, network, l, xs, x_flow, lf, li, hs, hsi) -> None:
    """With ``scheduler="wrr"``: the round robin's first credit, ``MTU (w_C - w_L)`` bits,
    ``MTU`` the largest packet of the flows whose data or ACKs cross the link (Linux: the
    device's MTU); nothing otherwise."""
    if spec.scheduler != "wrr":
        return
    mtu = 8.0 * max((network.flows[x_flow[x]].packet_size for x in xs), default=1)
    w_c = spec.c_protection
    lf[Q_CREDIT0] = mtu * (w_c - (1.0 - w_c))
    lf[Q_CREDIT] = lf[Q_CREDIT0]


def traces(spec) -> tuple[str, ...]:
    """Trace channels: ``p'`` at every update; ``p_L`` at every L mark; ``p_C`` at every
    Classic mark or drop (an L packet's overload drop there too)."""
    return ("dualpi2_prob", "dualpi2_l_marks", "dualpi2_c_signals") if spec.record else ()


@handler
def is_l4s(S, p):
    """RFC 9332's classifier: an ECT(1) or CE data packet joins the L queue."""
    if S.pi[p, PI_KIND] != KIND_DATA:
        return False
    return S.fi[S.pi[p, PI_FLOW] & POS, FI_ECN] == 2 or (S.pi[p, PI_MARK] & MARK_CE) != 0


@rare_handler
def klass(S, l, p):
    """The class slot packet ``p`` joins: 0 (L) or 1 (Classic)."""
    return SLOT_L if is_l4s(S, p) else SLOT_C


@handler
def ecn_capable(S, p):
    """Whether packet ``p`` carries an ECN-capable codepoint (a data packet of an ECN flow)."""
    return S.pi[p, PI_KIND] == KIND_DATA and S.fi[S.pi[p, PI_FLOW] & POS, FI_ECN] != 0


@handler
def mark(S, l, p):
    """Set CE on packet ``p``."""
    S.pi[p, PI_MARK] |= MARK_CE
    S.li[l, LI_MARKS] += 1


@rare_handler
def decide(S, l, p, in_l, sojourn, l_rest):
    """``dualpi2_dequeue``'s treatment of packet ``p`` just taken out of its queue
    (``in_l``: the L queue, in which ``l_rest`` packets remain after it; ``sojourn``: its
    queueing time, s): marks it, or returns :data:`DROP`."""
    lf = S.lf
    qp = LF_QP
    pbase = lf[l, Q_PBASE]
    k = lf[l, qp + DP_K]
    p_cl = k * pbase
    p_c = pbase * pbase
    ch = S.li[l, LI_TRACE0]
    if in_l:
        if p_cl < 1.0:  # p_Lmax = 1: not saturated
            p_nat = 0.0
            if l_rest > lf[l, qp + DP_TH_LEN]:  # laqm(): the native ramp
                min_th = lf[l, qp + DP_MIN_TH]
                max_th = min_th + lf[l, qp + DP_RANGE]
                if sojourn >= max_th:
                    p_nat = 1.0
                elif sojourn > min_th:
                    p_nat = (sojourn - min_th) / lf[l, qp + DP_RANGE]
            p_l = p_nat if p_nat > p_cl else p_cl
            if recur(S, l, Q_LCOUNT, p_l):
                mark(S, l, p)
                if ch >= 0:
                    record(S, ch + 1, p_l)
                return MARK
            return PASS
        # overload saturation: Classic drop at p_C, then the rest marked at p_CL
        if recur(S, l, Q_LCOUNT, p_c):
            if ch >= 0:
                record(S, ch + 2, p_c)
            return DROP
        if recur(S, l, Q_LCOUNT, p_cl):
            mark(S, l, p)
            if ch >= 0:
                record(S, ch + 1, p_cl)
            return MARK
        return PASS
    if recur(S, l, Q_CCOUNT, p_c):  # the squared probability
        if ch >= 0:
            record(S, ch + 2, p_c)
        p_cmax = 1.0 / (k * k)  # p_Cmax = min(1 / k^2, 1): overload disables ECN
        if not ecn_capable(S, p) or p_c >= (p_cmax if p_cmax < 1.0 else 1.0):
            return DROP
        mark(S, l, p)
        return MARK
    return PASS


@handler
def recur(S, l, col, likelihood):
    """RFC 9332's ``recur(queue, likelihood)`` on the accumulator in float state column
    ``col`` (:data:`Q_LCOUNT` or :data:`Q_CCOUNT`): True once the accumulated likelihood
    exceeds 1 (then 1 is taken off)."""
    c = S.lf[l, col] + likelihood
    if c > 1.0:
        S.lf[l, col] = c - 1.0
        return True
    S.lf[l, col] = c
    return False


@rare_handler
def admit(S, l, p):
    """``dualpi2_enqueue``: -1 to admit, else the drop cause's column.  An arrival at an
    idle link is sent at once: it goes through the dequeue's treatment with sojourn 0."""
    lf, li = S.lf, S.li
    now = S.gf[GF_NOW]
    tm = li[l, LI_TIMER0] & POS
    if is_off(S, tm):  # the first arrival starts the updates
        set_deadline(S, tm, now + lf[l, LF_QP + DP_T_UPDATE], False)
    if li[l, LI_TX] < 0:  # idle: both queues are empty
        if decide(S, l, p, is_l4s(S, p), 0.0, 0) == DROP:
            return LI_DROP_EARLY
        return -1
    if li[l, LI_WAITING] >= S.slot[li[l, LI_SLOT0] & POS, SL_CAP]:
        return LI_DROP_OVERFLOW  # the shared buffer is full
    return -1


@rare_handler
def select(S, l):
    """``dualpi2_dequeue`` at link ``l``: the packet to send (-1: none), the packets the
    AQM drops on the way dropped (cause "early")."""
    li, slot, lf = S.li, S.slot, S.lf
    now = S.gf[GF_NOW]
    sl = li[l, LI_SLOT0] & POS
    sc = (sl + 1) & POS
    wrr = lf[l, LF_QP + DP_SCHED] == SCHED_WRR
    while slot[sl, SL_COUNT] + slot[sc, SL_COUNT] > 0:
        n_l = slot[sl, SL_COUNT]
        n_c = slot[sc, SL_COUNT]
        in_l = False
        if n_l > 0:
            if n_c == 0:
                in_l = True
            elif wrr:  # weighted round robin: L while the credit is not positive
                in_l = lf[l, Q_CREDIT] <= 0.0
            else:  # time-shifted FIFO: L unless the Classic head waited tshift longer
                t_l = now - S.pf[peek_head(S, sl), PF_ENQ]
                t_c = now - S.pf[peek_head(S, sc), PF_ENQ]
                in_l = t_l + lf[l, LF_QP + DP_TSHIFT] > t_c
        p = pop_head(S, sl if in_l else sc)
        li[l, LI_WAITING] -= 1
        if decide(S, l, p, in_l, now - S.pf[p, PF_ENQ], slot[sl, SL_COUNT]) == DROP:
            drop(S, l, p, LI_DROP_EARLY)
            continue
        if wrr:
            _credit(S, l, p, in_l, n_l, n_c)
        return p
    if wrr:  # both queues empty: the round robin starts again
        lf[l, Q_CREDIT] = lf[l, Q_CREDIT0]
    return -1


@handler
def _credit(S, l, p, in_l, n_l, n_c):
    """The round robin's credit after sending packet ``p`` (``in_l``: from the L queue;
    ``n_l``, ``n_c``: the queues' lengths before it left): ``+ w_C`` bits of it for an L
    packet while Classic packets waited, ``- w_L`` for a Classic packet while L packets
    waited (Linux ``dequeue_packet``)."""
    lf = S.lf
    w_c = lf[l, LF_QP + DP_W_C]
    if in_l:
        if n_c > 0:
            lf[l, Q_CREDIT] += w_c * S.pf[p, PF_BITS]
    elif n_l > 0:
        lf[l, Q_CREDIT] -= (1.0 - w_c) * S.pf[p, PF_BITS]


@rare_handler
def on_update(S, l):
    """``dualpi2_update``: ``p'`` from the larger of the two queues' head sojourn times
    (Appendix A.2's ``curq``), bounded to [0, 1]; then the next update's timer."""
    lf, li = S.lf, S.li
    now = S.gf[GF_NOW]
    qp = LF_QP
    sl = li[l, LI_SLOT0] & POS
    sc = (sl + 1) & POS
    curq = 0.0
    if S.slot[sc, SL_COUNT] > 0:
        curq = now - S.pf[peek_head(S, sc), PF_ENQ]
    if S.slot[sl, SL_COUNT] > 0:
        ql = now - S.pf[peek_head(S, sl), PF_ENQ]
        if ql > curq:
            curq = ql
    pb = (lf[l, Q_PBASE] + lf[l, qp + DP_ALPHA] * (curq - lf[l, qp + DP_TARGET])
          + lf[l, qp + DP_BETA] * (curq - lf[l, Q_PREVQ]))
    if pb < 0.0:
        pb = 0.0
    elif pb > 1.0:
        pb = 1.0
    lf[l, Q_PBASE] = pb
    lf[l, Q_PREVQ] = curq
    if li[l, LI_TRACE0] >= 0:
        record(S, li[l, LI_TRACE0], pb)
    set_deadline(S, li[l, LI_TIMER0] & POS, now + lf[l, qp + DP_T_UPDATE], False)


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_class": klass,
    "queue_admit": admit,
    "queue_select": select,
    "queue_timer": on_update,
}
