"""The PI AQM controller of Hollot et al. (spec: :class:`qosmodels.mechanisms.Pi`).

One FIFO queue: the link's class ring, as drop-tail's.  :func:`admit` drops
(or ECN-marks) an arrival with the current probability; :func:`on_sample` (the
link's timer slot 0, every ``1 / sampling_rate`` seconds from the first
arrival) updates it from the number of packets waiting.

The link's state: ``p`` and the previous sample's queue (packets).

References
----------
C. V. Hollot, V. Misra, D. Towsley, W.-B. Gong, IEEE INFOCOM 2001 (the PI controller);
ns-2 ``queue/pi.cc``.
"""

from .._jit import POS, rare_handler
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
    PI_FLOW,
    PI_KIND,
    PI_MARK,
    SL_CAP,
)
from ..rng import rand
from ..timers import is_off, set_deadline
from ..trace import record

CODE = 14
PQ_A = 0           # 1/packet
PQ_B = 1           # 1/packet
PQ_RATE = 2        # Hz
PQ_QREF = 3        # packets
PQ_ECN = 4
PARAMS = ("a", "b", "sampling_rate", "q_ref", "ecn")

#: Timer slots of the link: the sampling clock.
TIMERS = 1

Q_P = LF_QS           # the drop probability p
Q_QOLD = LF_QS + 1    # the previous sample's queue, packets


def traces(spec) -> tuple[str, ...]:
    """Trace channels: ``p`` at every sample and at every early drop or mark."""
    return ("pi_prob", "pi_drops") if spec.record else ()


@rare_handler
def admit(S, l, p):
    """-1 to admit (possibly marked), else the drop cause's column."""
    lf, li = S.lf, S.li
    tm = li[l, LI_TIMER0] & POS
    if is_off(S, tm):  # the first arrival starts the sampling clock
        set_deadline(S, tm, S.gf[GF_NOW] + 1.0 / lf[l, LF_QP + PQ_RATE], False)
    if li[l, LI_TX] >= 0 and li[l, LI_WAITING] >= S.slot[li[l, LI_SLOT0] & POS, SL_CAP]:
        return LI_DROP_OVERFLOW  # the queue is full: a tail drop, no random draw
    prob = lf[l, Q_P]
    if prob > 0.0 and rand(S) < prob:
        if li[l, LI_TRACE0] >= 0:
            record(S, li[l, LI_TRACE0] + 1, prob)
        if (lf[l, LF_QP + PQ_ECN] > 0.0 and S.pi[p, PI_KIND] == KIND_DATA
                and S.fi[S.pi[p, PI_FLOW] & POS, FI_ECN] != 0):
            S.pi[p, PI_MARK] |= MARK_CE
            li[l, LI_MARKS] += 1
            return -1
        return LI_DROP_EARLY
    return -1


@rare_handler
def on_sample(S, l):
    """A sampling instant: ``p = a (q - q_ref) - b (q_old - q_ref) + p``, bounded to
    [0, 1]; then the next sample's timer."""
    lf, li = S.lf, S.li
    qp = LF_QP
    q = float(li[l, LI_WAITING])
    qref = lf[l, qp + PQ_QREF]
    prob = (lf[l, qp + PQ_A] * (q - qref) - lf[l, qp + PQ_B] * (lf[l, Q_QOLD] - qref)
            + lf[l, Q_P])
    if prob < 0.0:
        prob = 0.0
    elif prob > 1.0:
        prob = 1.0
    lf[l, Q_P] = prob
    lf[l, Q_QOLD] = q
    if li[l, LI_TRACE0] >= 0:
        record(S, li[l, LI_TRACE0], prob)
    set_deadline(S, li[l, LI_TIMER0] & POS, S.gf[GF_NOW] + 1.0 / lf[l, qp + PQ_RATE], False)


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_admit": admit,
    "queue_timer": on_sample,
}
