"""The Asymmetric Best-Effort router (spec: :class:`qosmodels.mechanisms.AbeQueue`).

Packet admission control, then earliest-deadline-first service, as Section
III-B of the paper builds them:

* RED (:mod:`.red`'s average, ``count`` and curve, on the whole queue) gives
  every arrival its drop probability ``p``, after the count spacing; a Green
  packet is dropped with ``alpha p`` (RED's probability divided by ``1 /
  alpha``: :func:`.red.admit_divided`).  A full buffer drops either colour.
* A Green packet RED keeps is admitted only if fewer than ``L0`` waiting
  packets have a deadline before now (*Green dropping control*); the drops it
  makes count as forced drops of the link, and separately in ``QI_CONTROL``.
* Deadlines: a Green packet's is its arrival time, a Blue one's its arrival
  time plus ``D``.  Within a colour deadlines rise with arrival, so the queue
  is two FIFO rings (class slot 0 Green, 1 Blue), and EDF serves the ring
  whose head has the earlier deadline (the earlier arrival on a tie).
* Every ``T1`` seconds (the queue's timer slot 0, started by the first
  arrival) the period's Blue and Green loss ratios and boost (mean Blue minus
  mean Green queueing delay, at least 0) go through the EWMA filters and eq
  (7) (:func:`qosmodels.abe.law_step`, the library's one copy of the law).
  A period in which either colour offered no packet leaves ``alpha`` and the
  filters as they were (eq (7) has no measurement to act on); a period with
  no departure of a colour keeps the filtered boost as its measurement.

Trace channels, one point per period: ``alpha`` (after the update), the
measured ``q_blue`` and ``q_green`` and ``boost``, and the mean queueing
delays ``green_delay`` and ``blue_delay`` (s; NaN for a colour absent from the
period).

References
----------
P. Hurley, J.-Y. Le Boudec, P. Thiran, "The Asymmetric Best-Effort Service",
Section III-B (PAC and EDF), Section III-C.2 and Appendix A (the loop).
"""

import math

import numpy as np

from .... import abe as _abe
from .._jit import POS, handler, rare_handler
from ..fifo import peek_head, pop_head
from ..layout import (
    GF_NOW,
    LF_QP,
    LF_QS,
    LI_DROP_FORCED,
    LI_DROP_OVERFLOW,
    LI_QS,
    LI_SLOT0,
    LI_TIMER0,
    LI_TRACE0,
    LI_TX,
    LI_WAITING,
    MARK_GREEN,
    PF_ENQ,
    PF_TAG0,
    PF_TAG1,
    PI_MARK,
    SL_CAP,
    SL_COUNT,
    SL_HEAD,
    SL_OFF,
)
from ..timers import is_off, set_deadline
from ..trace import record
from . import red

CODE = 10

# parameter columns after RED's
AB_BETA = len(red.PARAMS)
AB_L0 = AB_BETA + 1
AB_D = AB_BETA + 2
AB_RTT = AB_BETA + 3
AB_K1 = AB_BETA + 4
AB_K2 = AB_BETA + 5
AB_G1 = AB_BETA + 6
AB_G2 = AB_BETA + 7
AB_T1 = AB_BETA + 8
PARAMS = red.PARAMS + (
    "beta_star", "l0", "blue_delay", "rtt",
    ("k1", lambda s: 0.0 if s.alpha is not None else s.k1),  # a fixed alpha: no loop
    ("k2", lambda s: 0.0 if s.alpha is not None else s.k2),
    "gamma1", "gamma2", "period",
)
#: The control law's period step, compiled from :func:`qosmodels.abe.law_step`.
law_step = handler(_abe.law_step)

#: Timer slots of the link: the control period.
TIMERS = 1

# the link's float state: the loop's (filtered) state, then the period's counts
Q_ALPHA = LF_QS
Q_QB = LF_QS + 1
Q_QG = LF_QS + 2
Q_B = LF_QS + 3          # s
Q_ARR_B = LF_QS + 4      # Blue packets offered in the period
Q_DROP_B = LF_QS + 5
Q_ARR_G = LF_QS + 6
Q_DROP_G = LF_QS + 7
Q_WAIT_B = LF_QS + 8     # summed queueing delays of the period's Blue departures, s
Q_DEP_B = LF_QS + 9
Q_WAIT_G = LF_QS + 10
Q_DEP_G = LF_QS + 11
# the link's integer state
QI_ORDER = LI_QS         # arrivals numbered (EDF's tie-break)
QI_CONTROL = LI_QS + 1   # drops by Green dropping control (whole run)
QI_TRACE = LI_QS + 2     # the first of this module's trace channels

GREEN, BLUE = 0, 1       # class slots, relative to the link's first
TAG_DEADLINE = PF_TAG0   # s, while queued here
TAG_ORDER = PF_TAG1

#: This module's trace channels, after RED's.
CHANNELS = ("alpha", "q_blue", "q_green", "boost", "green_delay", "blue_delay")


def traces(spec) -> tuple[str, ...]:
    """RED's ``red_average`` (if ``record_average``), then :data:`CHANNELS`."""
    return red.traces(spec) + CHANNELS


def slots(spec, n_crossings: int) -> int:
    """Two rings: Green, then Blue (each as long as the buffer, which they share)."""
    return 2


def setup_link(spec, network, l, xs, x_flow, lf, li, hs, hsi) -> None:
    """The loop's initial state (Section III-C.2): ``q_b`` and ``B`` given, ``alpha`` from
    eq (5) at them (or the fixed ``alpha``), ``q_g = alpha q_b``."""
    lf[Q_ALPHA] = spec.initial_alpha
    lf[Q_QB] = spec.initial_q_blue
    lf[Q_QG] = spec.initial_alpha * spec.initial_q_blue
    lf[Q_B] = spec.boost0
    n_red = len(red.traces(spec))
    li[QI_TRACE] = li[LI_TRACE0] + n_red
    if not n_red:  # RED records its average at LI_TRACE0 only if it has that channel
        li[LI_TRACE0] = -1


@handler
def klass(S, l, p):
    """Green packets join ring 0, Blue ones ring 1."""
    return GREEN if (S.pi[p, PI_MARK] & MARK_GREEN) != 0 else BLUE


@handler
def overdue(S, s, now):
    """How many packets of ring ``s`` have a deadline before ``now`` (deadlines rise along
    the ring: a binary search)."""
    slot = S.slot
    off, head, cap = slot[s, SL_OFF], slot[s, SL_HEAD], slot[s, SL_CAP]
    lo, hi = 0, slot[s, SL_COUNT]
    while lo < hi:
        mid = (lo + hi) >> 1
        j = head + mid
        if j >= cap:
            j -= cap
        if S.pf[S.ring[(off + j) & POS] & POS, TAG_DEADLINE] < now:
            lo = mid + 1
        else:
            hi = mid
    return lo


@rare_handler
def admit(S, l, p):
    """RED's verdict with ``alpha`` for Green, the shared buffer, Green dropping control;
    an admitted packet gets its deadline.  -1 to admit, else the drop cause's column."""
    lf, li = S.lf, S.li
    now = S.gf[GF_NOW]
    tm = li[l, LI_TIMER0] & POS
    if is_off(S, tm):  # the first arrival starts the control periods
        set_deadline(S, tm, now + lf[l, LF_QP + AB_T1], False)
    green = (S.pi[p, PI_MARK] & MARK_GREEN) != 0
    lf[l, Q_ARR_G if green else Q_ARR_B] += 1.0
    cause = red.admit_divided_call(S, l, p, 1.0 / lf[l, Q_ALPHA] if green else 1.0)
    s0 = li[l, LI_SLOT0] & POS
    if cause < 0 and li[l, LI_TX] >= 0 and li[l, LI_WAITING] >= S.slot[s0, SL_CAP]:
        cause = LI_DROP_OVERFLOW
    if cause < 0 and green:
        n = overdue(S, s0 + GREEN, now) + overdue(S, s0 + BLUE, now)
        if n >= lf[l, LF_QP + AB_L0]:
            li[l, QI_CONTROL] += 1
            cause = LI_DROP_FORCED
    if cause >= 0:
        lf[l, Q_DROP_G if green else Q_DROP_B] += 1.0
        return cause
    S.pf[p, TAG_DEADLINE] = now if green else now + lf[l, LF_QP + AB_D]
    S.pf[p, TAG_ORDER] = li[l, QI_ORDER]
    li[l, QI_ORDER] += 1
    if li[l, LI_TX] < 0:  # straight into service: a departure without waiting
        lf[l, Q_DEP_G if green else Q_DEP_B] += 1.0
    return -1


@rare_handler
def select(S, l):
    """Earliest deadline first between the two rings' heads (-1: none waiting)."""
    slot, li, lf = S.slot, S.li, S.lf
    g = li[l, LI_SLOT0] & POS
    b = g + BLUE
    if slot[g, SL_COUNT] == 0 and slot[b, SL_COUNT] == 0:
        return -1
    s = g
    if slot[g, SL_COUNT] == 0:
        s = b
    elif slot[b, SL_COUNT] > 0:
        pg, pb = peek_head(S, g), peek_head(S, b)
        dg, db = S.pf[pg, TAG_DEADLINE], S.pf[pb, TAG_DEADLINE]
        if db < dg or (db == dg and S.pf[pb, TAG_ORDER] < S.pf[pg, TAG_ORDER]):
            s = b
    p = pop_head(S, s)
    li[l, LI_WAITING] -= 1
    wait = S.gf[GF_NOW] - S.pf[p, PF_ENQ]
    if s == g:
        lf[l, Q_WAIT_G] += wait
        lf[l, Q_DEP_G] += 1.0
    else:
        lf[l, Q_WAIT_B] += wait
        lf[l, Q_DEP_B] += 1.0
    return p


@rare_handler
def on_period(S, l):
    """End of a control period: measure, filter, update ``alpha`` (eq (7)), record, and
    start the next period."""
    lf, li = S.lf, S.li
    qp = LF_QP
    nb, ng = lf[l, Q_ARR_B], lf[l, Q_ARR_G]
    qbm = lf[l, Q_DROP_B] / nb if nb > 0.0 else np.nan
    qgm = lf[l, Q_DROP_G] / ng if ng > 0.0 else np.nan
    wb = lf[l, Q_WAIT_B] / lf[l, Q_DEP_B] if lf[l, Q_DEP_B] > 0.0 else np.nan
    wg = lf[l, Q_WAIT_G] / lf[l, Q_DEP_G] if lf[l, Q_DEP_G] > 0.0 else np.nan
    bm = wb - wg
    if math.isnan(bm):
        bm = lf[l, Q_B]
    elif bm < 0.0:
        bm = 0.0
    if nb > 0.0 and ng > 0.0:
        a, qb, qg, B, ok = law_step(
            lf[l, Q_ALPHA], lf[l, Q_QB], lf[l, Q_QG], lf[l, Q_B], qbm, qgm, bm,
            lf[l, qp + AB_BETA], lf[l, qp + AB_RTT], lf[l, qp + AB_K1], lf[l, qp + AB_K2],
            lf[l, qp + AB_G1], lf[l, qp + AB_G2])
        lf[l, Q_QB], lf[l, Q_QG], lf[l, Q_B] = qb, qg, B
        if ok and a > 0.0 and a < np.inf:
            lf[l, Q_ALPHA] = a
    ch = li[l, QI_TRACE]
    record(S, ch, lf[l, Q_ALPHA])
    record(S, ch + 1, qbm)
    record(S, ch + 2, qgm)
    record(S, ch + 3, wb - wg)
    record(S, ch + 4, wg)
    record(S, ch + 5, wb)
    for c in range(Q_ARR_B, Q_DEP_G + 1):
        lf[l, c] = 0.0
    set_deadline(S, li[l, LI_TIMER0] & POS, S.gf[GF_NOW] + lf[l, qp + AB_T1], False)


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_class": klass,
    "queue_admit": admit,
    "queue_select": select,
    "queue_timer": on_period,
}
