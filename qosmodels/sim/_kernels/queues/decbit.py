"""DECbit gateway, plain and selective (spec: :class:`qosmodels.mechanisms.Decbit`).

A drop-tail FIFO (the class rings) that sets ``MARK_DECBIT`` on arriving data
packets.  The average queue is the exact integral of the number of packets at
the link (waiting and in service, piecewise constant between arrivals and
departures) over the last regeneration cycle plus the current busy period,
divided by the interval's length.  The link keeps the running integral
``area(t)``, the time of its last update, and the start times and areas of
the previous and the current busy period: the interval is ``[b_prev, now]``.
Arrivals update the integral in :func:`admit` (before the arrival changes the
number), departures in :func:`on_depart` (called through the ``queue_select``
hook, before the departure changes it).

Selective DECbit keeps per crossing (a (flow, direction) user of the link)
the bits that arrived in the previous cycle and in the current one.

References
----------
K. K. Ramakrishnan, R. Jain, ACM TOCS 8(2), 1990, Section 4; K. K. Ramakrishnan,
D.-M. Chiu, R. Jain, DEC-TR-510, 1987; A. Demers, S. Keshav, S. Shenker,
SIGCOMM 1989, Section 4.
"""

from .._jit import POS, handler, rare_handler
from ..crossings import crossing
from ..layout import (
    GF_NOW,
    KIND_DATA,
    LF_CAP,
    LF_QP,
    LF_QS,
    LI_MARKS,
    LI_TRACE0,
    LI_TX,
    LI_WAITING,
    MARK_DECBIT,
    PF_BITS,
    PI_KIND,
    PI_MARK,
    RINGS,
)
from ..trace import record

CODE = 6

# parameter columns
DEC_SELECTIVE = 0
DEC_CAPACITY_FACTOR = 1
PARAMS = ("selective", "capacity_factor")

# link state (float columns LF_QS + ...)
DEC_AREA = 0      # integral of the number at the link from 0 to DEC_T_LAST, packet-seconds
DEC_T_LAST = 1    # s
DEC_B_PREV = 2    # start of the previous busy period, s (0 before the second one)
DEC_A_PREV = 3    # the integral at DEC_B_PREV
DEC_B_CUR = 4     # start of the current (or last) busy period, s
DEC_A_CUR = 5     # the integral at DEC_B_CUR
DEC_TOTAL = 6     # selective: the users' demands summed (bits over [DEC_B_PREV, now))
DEC_LARGEST = 7   # selective: the largest demand (bits)

# per-crossing state (``hs`` columns): bits arrived in the previous and the current cycle
HOP_STATE = 2
DEC_BITS_PREV = 0
DEC_BITS_CUR = 1


def traces(spec) -> tuple[str, ...]:
    """Trace channels: the average queue at every arrival, if the spec asks for it."""
    return ("decbit_average",) if spec.record_average else ()


@handler
def _advance(S, l, now):
    """Add the number at link ``l`` times the time since the last update to the integral."""
    lf = S.lf
    n = S.li[l, LI_WAITING] + (1 if S.li[l, LI_TX] >= 0 else 0)
    lf[l, LF_QS + DEC_AREA] += n * (now - lf[l, LF_QS + DEC_T_LAST])
    lf[l, LF_QS + DEC_T_LAST] = now
    return n


@handler
def on_depart(S, l):
    """A transmission ends at link ``l`` (before the number drops): update the integral."""
    _advance(S, l, S.gf[GF_NOW])


@handler
def fair_share(S, l, target):
    """The max-min fair share of ``target`` bit/s among link ``l``'s users (the demands
    in ``hs``, over the averaging interval), by the iterative procedure: the share is
    what is left over the users not yet satisfied; users below it are satisfied."""
    lk0, lk1 = S.lk_ptr[l], S.lk_ptr[l + 1]
    share = 0.0
    n_prev = -1
    while True:
        rest = target
        n = 0
        for k in range(lk0, lk1):
            x = S.lk_pos[k] & POS
            d = S.hs[x, DEC_BITS_PREV] + S.hs[x, DEC_BITS_CUR]
            if n_prev >= 0 and d < share:
                rest -= d
            elif d > 0.0:
                n += 1
        if n == 0 or n == n_prev:
            return share
        share = rest / n
        n_prev = n


@rare_handler
def admit(S, l, p):
    """Account for arrival ``p`` at link ``l`` and set its bit if the link is congested
    (for selective DECbit: and its user at or above its fair share).  Always admits."""
    lf, li = S.lf, S.li
    now = S.gf[GF_NOW]
    selective = lf[l, LF_QP + DEC_SELECTIVE] > 0.0
    n = _advance(S, l, now)
    area = lf[l, LF_QS + DEC_AREA]
    if li[l, LI_TX] < 0:  # the link was idle: a regeneration cycle ends, a busy period starts
        lf[l, LF_QS + DEC_B_PREV] = lf[l, LF_QS + DEC_B_CUR]
        lf[l, LF_QS + DEC_A_PREV] = lf[l, LF_QS + DEC_A_CUR]
        lf[l, LF_QS + DEC_B_CUR] = now
        lf[l, LF_QS + DEC_A_CUR] = area
        if selective:  # the demands restart from the cycle that just ended
            total = 0.0
            largest = 0.0
            for k in range(S.lk_ptr[l], S.lk_ptr[l + 1]):
                x = S.lk_pos[k] & POS
                d = S.hs[x, DEC_BITS_CUR]
                S.hs[x, DEC_BITS_PREV] = d
                S.hs[x, DEC_BITS_CUR] = 0.0
                total += d
                if d > largest:
                    largest = d
            lf[l, LF_QS + DEC_TOTAL] = total
            lf[l, LF_QS + DEC_LARGEST] = largest
    span = now - lf[l, LF_QS + DEC_B_PREV]
    avg = (area - lf[l, LF_QS + DEC_A_PREV]) / span if span > 0.0 else float(n)
    if li[l, LI_TRACE0] >= 0:
        record(S, li[l, LI_TRACE0], avg)
    congested = avg >= 1.0
    if selective:
        # demands over [b_prev, now): the arrival itself counts from the next one on
        # (counting both ends of the interval would overstate every demand by a packet)
        # (the total and the largest are kept as arrivals add to the demands: bits are
        # whole numbers, so the sums are exact in any order)
        x = crossing(S, p)
        if S.pi[p, PI_KIND] == KIND_DATA:
            if span <= 0.0:
                mine = 0.0  # no interval yet: no demands to compare (the queue alone decides)
                share = 0.0
                overloaded = False
            else:
                target = lf[l, LF_QP + DEC_CAPACITY_FACTOR] * lf[l, LF_CAP] * span  # bits
                overloaded = lf[l, LF_QS + DEC_TOTAL] >= target
                # the max-min share of the target when overloaded; of the demands
                # themselves (the largest demand) when only the queue says it is congested
                share = fair_share(S, l, target) if overloaded else lf[l, LF_QS + DEC_LARGEST]
                mine = S.hs[x, DEC_BITS_PREV] + S.hs[x, DEC_BITS_CUR]
            if (congested or overloaded) and mine >= share:
                S.pi[p, PI_MARK] |= MARK_DECBIT
                li[l, LI_MARKS] += 1
        bits = S.pf[p, PF_BITS]
        S.hs[x, DEC_BITS_CUR] += bits
        lf[l, LF_QS + DEC_TOTAL] += bits
        d = S.hs[x, DEC_BITS_PREV] + S.hs[x, DEC_BITS_CUR]
        if d > lf[l, LF_QS + DEC_LARGEST]:
            lf[l, LF_QS + DEC_LARGEST] = d
        return -1
    if congested and S.pi[p, PI_KIND] == KIND_DATA:
        S.pi[p, PI_MARK] |= MARK_DECBIT
        li[l, LI_MARKS] += 1
    return -1


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
    "queue_select": select,
}
