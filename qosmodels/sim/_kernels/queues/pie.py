"""PIE, Proportional Integral controller Enhanced (spec: :class:`qosmodels.mechanisms.Pie`).

One FIFO queue: the link's class ring, as drop-tail's.  :func:`admit` is RFC
8033's ``enque`` and ``drop_early`` (drops at enqueue); :func:`store` adds a
stored packet's bits to the queue's byte count; :func:`select` (through
``queue_select``) takes the ring's head and measures the delay (a packet's
sojourn time is ``now - PF_ENQ``), or runs the departure-rate measurement;
:func:`on_update` (the link's timer slot 0) is ``calculate_drop_prob``, every
``t_update`` seconds from the first arrival.

The link's state: ``drop_prob``, ``current_qdelay`` and ``qdelay_old`` (s),
the burst allowance (s), the bits waiting, and the departure-rate measurement
(``avg_dq_time``, s; the bits counted in the current cycle and its start, s;
whether a cycle runs).

References
----------
R. Pan, P. Natarajan, F. Baker, G. White, RFC 8033, 2017: Sections 4.1-4.4,
5.1, 5.2 and Appendix A.
"""

from .._jit import POS, handler, rare_handler
from ..fifo import pop_head
from ..layout import (
    FI_ECN,
    GF_NOW,
    KIND_DATA,
    LF_QP,
    LF_QS,
    LI_DROP_EARLY,
    LI_DROP_OVERFLOW,
    LI_MARKS,
    LI_QS,
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
from ..rng import rand
from ..timers import is_off, set_deadline
from ..trace import record

CODE = 15
PE_TARGET = 0      # s, QDELAY_REF
PE_T_UPDATE = 1    # s
PE_ALPHA = 2       # 1/s
PE_BETA = 3        # 1/s
PE_MAX_BURST = 4   # s
PE_MEAN_PKT = 5    # bytes, MEAN_PKTSIZE
PE_ECN = 6
PE_DQ_RATE = 7
PARAMS = ("target", "t_update", "alpha", "beta", "max_burst", "mean_packet_size", "ecn",
          "dq_rate_estimator")

#: RFC 8033's DQ_THRESHOLD (bytes) and the weight of a new cycle, DQ_THRESHOLD / 2**16.
DQ_THRESHOLD = 16384
DQ_WEIGHT = DQ_THRESHOLD / 65536.0
#: Section 5.1's mark_ecnth: ECN-capable packets are marked while drop_prob <= this.
MARK_ECNTH = 0.1

#: Timer slots of the link: the drop probability's update.
TIMERS = 1

# the link's float state
Q_PROB = LF_QS            # drop_prob
Q_QDELAY = LF_QS + 1      # current_qdelay, s
Q_QDELAY_OLD = LF_QS + 2  # qdelay_old, s
Q_BURST = LF_QS + 3       # burst_allowance, s
Q_BITS = LF_QS + 4        # bits waiting in the ring (RFC's queue_.byte_length(), x 8)
Q_AVG_DQ = LF_QS + 5      # avg_dq_time, s (0: no cycle measured yet)
Q_DQ_BITS = LF_QS + 6     # dq_count, x 8
Q_DQ_START = LF_QS + 7    # measurement_start, s
# the link's integer state
QI_IN_MEAS = LI_QS        # in_measurement (1) or not (0)


def traces(spec) -> tuple[str, ...]:
    """Trace channels: ``drop_prob`` at every update and at every early drop or mark."""
    return ("pie_prob", "pie_drops") if spec.record else ()


def setup_link(spec, network, l, xs, x_flow, lf, li, hs, hsi) -> None:
    """RFC 8033's initial state: ``drop_prob = 0``, ``burst_allowance = MAX_BURST``."""
    lf[Q_BURST] = spec.max_burst


@handler
def departed(S, l, p, now):
    """Packet ``p`` leaves link ``l``'s queue (already taken off the ring): the delay
    sample (timestamps) or the departure-rate measurement (Section 5.2)."""
    lf, li = S.lf, S.li
    if lf[l, LF_QP + PE_DQ_RATE] == 0.0:
        lf[l, Q_QDELAY] = now - S.pf[p, PF_ENQ] if lf[l, Q_BITS] > 0.0 else 0.0
        return
    thr = 8.0 * DQ_THRESHOLD
    if li[l, QI_IN_MEAS] != 0:
        lf[l, Q_DQ_BITS] += S.pf[p, PF_BITS]
        if lf[l, Q_DQ_BITS] >= thr:  # a cycle's worth has left: average its duration
            dq_time = now - lf[l, Q_DQ_START]
            if lf[l, Q_AVG_DQ] == 0.0:
                lf[l, Q_AVG_DQ] = dq_time
            else:
                lf[l, Q_AVG_DQ] = dq_time * DQ_WEIGHT + lf[l, Q_AVG_DQ] * (1.0 - DQ_WEIGHT)
            li[l, QI_IN_MEAS] = 0
    if li[l, QI_IN_MEAS] == 0 and lf[l, Q_BITS] >= thr:  # enough queued: start a cycle
        li[l, QI_IN_MEAS] = 1
        lf[l, Q_DQ_START] = now
        lf[l, Q_DQ_BITS] = 0.0


@rare_handler
def admit(S, l, p):
    """RFC 8033's ``enque``: -1 to admit (possibly marked), else the drop cause's column."""
    lf, li = S.lf, S.li
    now = S.gf[GF_NOW]
    tm = li[l, LI_TIMER0] & POS
    if is_off(S, tm):  # the first arrival starts the updates
        set_deadline(S, tm, now + lf[l, LF_QP + PE_T_UPDATE], False)
    idle = li[l, LI_TX] < 0
    if not idle and li[l, LI_WAITING] >= S.slot[li[l, LI_SLOT0] & POS, SL_CAP]:
        return LI_DROP_OVERFLOW  # the queue is full: a tail drop, no random draw
    prob = lf[l, Q_PROB]
    target = lf[l, LF_QP + PE_TARGET]
    if (lf[l, Q_BURST] <= 0.0
            and not (lf[l, Q_QDELAY_OLD] < 0.5 * target and prob < 0.2)
            and lf[l, Q_BITS] > 16.0 * lf[l, LF_QP + PE_MEAN_PKT]
            and rand(S) < prob):
        ch = li[l, LI_TRACE0]
        if ch >= 0:
            record(S, ch + 1, prob)
        if (lf[l, LF_QP + PE_ECN] > 0.0 and prob <= MARK_ECNTH
                and S.pi[p, PI_KIND] == KIND_DATA
                and S.fi[S.pi[p, PI_FLOW] & POS, FI_ECN] != 0):
            S.pi[p, PI_MARK] |= MARK_CE
            li[l, LI_MARKS] += 1
        else:
            return LI_DROP_EARLY
    if idle:  # sent at once: it passes the RFC's deque without waiting
        departed(S, l, p, now)
    return -1


@rare_handler
def store(S, l, p):
    """Admitted packet ``p`` joins link ``l``'s ring: add its bits to the queue's."""
    S.lf[l, Q_BITS] += S.pf[p, PF_BITS]
    return False  # the packet joins the class ring


@rare_handler
def select(S, l):
    """RFC 8033's ``deque`` at link ``l``: the ring's head (-1: none waiting)."""
    lf, li = S.lf, S.li
    s = li[l, LI_SLOT0] & POS
    if S.slot[s, SL_COUNT] == 0:
        return -1
    p = pop_head(S, s)
    li[l, LI_WAITING] -= 1
    lf[l, Q_BITS] -= S.pf[p, PF_BITS]
    departed(S, l, p, S.gf[GF_NOW])
    return p


@rare_handler
def on_update(S, l):
    """RFC 8033's ``calculate_drop_prob`` (Appendix A), then the next update's timer."""
    lf, li = S.lf, S.li
    now = S.gf[GF_NOW]
    qp = LF_QP
    target = lf[l, qp + PE_TARGET]
    t_update = lf[l, qp + PE_T_UPDATE]
    if lf[l, qp + PE_DQ_RATE] > 0.0:  # Little's law on the measured departure rate
        lf[l, Q_QDELAY] = lf[l, Q_BITS] * lf[l, Q_AVG_DQ] / (8.0 * DQ_THRESHOLD)
    qdelay = lf[l, Q_QDELAY]
    old = lf[l, Q_QDELAY_OLD]
    prob = lf[l, Q_PROB]
    p = lf[l, qp + PE_ALPHA] * (qdelay - target) + lf[l, qp + PE_BETA] * (qdelay - old)
    if prob < 0.000001:  # auto-tuning: small steps while drop_prob is small
        p /= 2048.0
    elif prob < 0.00001:
        p /= 512.0
    elif prob < 0.0001:
        p /= 128.0
    elif prob < 0.001:
        p /= 32.0
    elif prob < 0.01:
        p /= 8.0
    elif prob < 0.1:
        p /= 2.0
    prob += p
    if qdelay == 0.0 and old == 0.0:  # decay while the queue is idle
        prob *= 0.98
    if prob < 0.0:
        prob = 0.0
    elif prob > 1.0:
        prob = 1.0
    lf[l, Q_PROB] = prob
    burst = lf[l, Q_BURST] - t_update
    lf[l, Q_BURST] = burst if burst > 0.0 else 0.0
    if prob == 0.0 and qdelay < 0.5 * target and old < 0.5 * target:
        lf[l, Q_BURST] = lf[l, qp + PE_MAX_BURST]
    lf[l, Q_QDELAY_OLD] = qdelay
    if li[l, LI_TRACE0] >= 0:
        record(S, li[l, LI_TRACE0], prob)
    set_deadline(S, li[l, LI_TIMER0] & POS, now + t_update, False)


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_admit": admit,
    "queue_store": store,
    "queue_select": select,
    "queue_timer": on_update,
}
