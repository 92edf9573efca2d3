"""RED with In and Out, RIO (spec: :class:`qosmodels.mechanisms.Rio`).

One FIFO queue (the link's one class ring) and two RED curves.  Every arrival
updates the average of the whole queue, ``avg_total`` (RED's columns:
``LF_RED_AVG``, decayed over the time the link was idle since
``LF_IDLE_SINCE``, exactly as :mod:`.red` does); an arrival carrying
``MARK_IN_PROFILE`` (an *in* packet) also updates ``avg_in``, the average of
the number of in packets waiting, decayed over the time the in queue was
idle (no in packet waiting nor in service) since :data:`RIO_IN_IDLE_SINCE`.
An in packet is judged by the in curve on ``avg_in``, any other packet (out
of profile, unmarked, an acknowledgement) by the out curve on ``avg_total``;
each curve is RED's (Floyd and Jacobson's Figure 2, with the gentle ramp if
asked) with its own ``count`` (the out curve's in ``LI_RED_COUNT``).

The in packets waiting are counted exactly: :func:`store` counts an in packet
that joins the ring (an admitted packet that finds the link busy and room;
one sent at once on an idle link never waits, a dropped one is never
counted), and :func:`on_depart` (called through ``queue_select`` when a
transmission ends, before the ring's head is popped) uncounts the head if it
is an in packet, and notes when the in queue becomes idle.

Hooks: :func:`admit` (not inlined: a call per arrival at RIO links only,
which keeps the loop's compile time down), :func:`store`, :func:`on_depart`.

References
----------
D. Clark, W. Fang, "Explicit allocation of best-effort packet delivery
service", IEEE/ACM Trans. Networking 6(4), 1998, Section 3 (RIO); S. Floyd,
V. Jacobson, IEEE/ACM Trans. Networking 1(4), 1993, Figure 2 (RED);
S. Floyd, "Optimum functions for computing the drop probability", 1997
(gentle).
"""

from .._jit import POS, handler, rare_handler
from ..fifo import peek_head
from ..layout import (
    GF_NOW,
    LF_CAP,
    LF_IDLE_SINCE,
    LF_QP,
    LF_QS,
    LF_RED_AVG,
    LI_DROP_EARLY,
    LI_DROP_FORCED,
    LI_QS,
    LI_RED_COUNT,
    LI_SLOT0,
    LI_TRACE0,
    LI_TX,
    LI_WAITING,
    MARK_IN_PROFILE,
    PI_MARK,
    RINGS,
    SL_COUNT,
)
from ..trace import record
from . import red

CODE = 9

# parameter columns, in PARAMS order
RIO_MIN_IN = 0
RIO_MAX_IN = 1
RIO_MAX_P_IN = 2
RIO_MIN_OUT = 3
RIO_MAX_OUT = 4
RIO_MAX_P_OUT = 5
RIO_W_Q = 6
RIO_GENTLE = 7
RIO_TYPICAL_SIZE = 8
PARAMS = ("min_in", "max_in", "max_p_in", "min_out", "max_out", "max_p_out", "w_q", "gentle",
          "typical_packet_size")

# the link's state (the whole queue's average and the out curve's count are RED's columns,
# LF_RED_AVG and LI_RED_COUNT, and the link's idle time LF_IDLE_SINCE)
RIO_AVG_IN = LF_QS             # average of the in packets waiting, packets
RIO_IN_IDLE_SINCE = LF_QS + 1  # when the in queue last became idle, s
RIO_N_IN = LI_QS               # in packets waiting (in the ring)
RIO_COUNT_IN = LI_QS + 1       # the in curve's count (-1: the average below min_in)


def traces(spec) -> tuple[str, ...]:
    """Trace channels: the in average at every in arrival and the whole queue's average
    at every arrival, if the spec asks for them."""
    return ("rio_in_average", "rio_average") if spec.record_average else ()


def setup_link(spec, network, l, xs, x_flow, lf, li, hs, hsi) -> None:
    """Initial state: both averages 0, the in queue idle since 0, both counts -1."""
    lf[RIO_AVG_IN] = 0.0
    lf[RIO_IN_IDLE_SINCE] = 0.0
    li[RIO_N_IN] = 0
    li[RIO_COUNT_IN] = -1
    li[LI_RED_COUNT] = -1


@handler
def _is_in(S, p):
    return (S.pi[p, PI_MARK] & MARK_IN_PROFILE) != 0


@rare_handler
def admit(S, l, p):
    """Update the averages on arrival ``p`` at link ``l`` and judge it on its curve: -1 to
    admit, else the drop cause's column."""
    lf, li = S.lf, S.li
    now = S.gf[GF_NOW]
    wq = lf[l, LF_QP + RIO_W_Q]
    tx = li[l, LI_TX]
    # the whole queue's average, on every arrival (RED's average and idle decay)
    size, cap = lf[l, LF_QP + RIO_TYPICAL_SIZE], lf[l, LF_CAP]
    avg = red.smoothed(lf[l, LF_RED_AVG], li[l, LI_WAITING], tx < 0, now, lf[l, LF_IDLE_SINCE],
                       wq, size, cap)
    lf[l, LF_RED_AVG] = avg
    ch = li[l, LI_TRACE0]
    gentle = lf[l, LF_QP + RIO_GENTLE] > 0.0
    if _is_in(S, p):
        # the in queue's average, on in arrivals; decayed over the time the in queue was
        # idle (no in packet waiting nor in service)
        n_in = li[l, RIO_N_IN]
        idle = n_in == 0 and (tx < 0 or not _is_in(S, tx & POS))
        a = red.smoothed(lf[l, RIO_AVG_IN], n_in, idle, now, lf[l, RIO_IN_IDLE_SINCE], wq, size,
                         cap)
        lf[l, RIO_AVG_IN] = a
        if ch >= 0:
            record(S, ch, a)
            record(S, ch + 1, avg)
        v = red.curve(S, l, a, lf[l, LF_QP + RIO_MIN_IN], lf[l, LF_QP + RIO_MAX_IN],
                      lf[l, LF_QP + RIO_MAX_P_IN], gentle, RIO_COUNT_IN, 1.0)
    else:
        if ch >= 0:
            record(S, ch + 1, avg)
        v = red.curve(S, l, avg, lf[l, LF_QP + RIO_MIN_OUT], lf[l, LF_QP + RIO_MAX_OUT],
                      lf[l, LF_QP + RIO_MAX_P_OUT], gentle, LI_RED_COUNT, 1.0)
    if v == 2:
        return LI_DROP_FORCED
    if v == 1:
        return LI_DROP_EARLY
    return -1


@handler
def store(S, l, p):
    """Admitted packet ``p`` joins link ``l``'s ring: count it if it is an in packet."""
    if _is_in(S, p):
        S.li[l, RIO_N_IN] += 1
    return False  # the packet joins the class ring


@rare_handler
def on_depart(S, l):
    """A transmission ends at link ``l`` (the finished packet still in ``LI_TX``, the ring
    not yet popped): uncount the ring's head if it is an in packet; if the finished packet
    was an in packet and no in packet waits or goes into service, the in queue is idle
    from now."""
    li = S.li
    s = li[l, LI_SLOT0] & POS
    next_in = False
    if S.slot[s, SL_COUNT] > 0:
        next_in = _is_in(S, peek_head(S, s))
        if next_in:
            li[l, RIO_N_IN] -= 1
    if not next_in and li[l, RIO_N_IN] == 0 and _is_in(S, li[l, LI_TX] & POS):
        S.lf[l, RIO_IN_IDLE_SINCE] = S.gf[GF_NOW]


@handler
def select(S, l):
    """A transmission ends at link ``l``: :func:`on_depart`, then the class ring's head
    goes next (``RINGS``)."""
    on_depart(S, l)
    return RINGS


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_admit": admit,
    "queue_store": store,
    "queue_select": select,
}
