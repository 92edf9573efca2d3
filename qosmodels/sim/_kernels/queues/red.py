"""Random early detection (spec: :class:`qosmodels.mechanisms.Red`).

References
----------
S. Floyd, V. Jacobson, IEEE/ACM Trans. Networking 1(4), 1993, Section 4 and
Figure 2 (average with idle decay, count-based spacing); S. Floyd, "Optimum
functions for computing the drop probability", 1997 (gentle).  The "ns2-wait"
spacing: ns-2.35's ``queue/red.cc`` (``REDQueue::modify_p`` with ``wait_``, and
``enque``'s restart of ``count`` at 1), read, not copied.
"""

from .._jit import POS, handler, rare_handler
from ..layout import (
    FI_ECN,
    GF_NOW,
    KIND_DATA,
    LF_CAP,
    LF_IDLE_SINCE,
    LF_QP,
    LF_RED_AVG,
    LI_DROP_EARLY,
    LI_DROP_FORCED,
    LI_MARKS,
    LI_RED_COUNT,
    LI_TRACE0,
    LI_TX,
    LI_WAITING,
    MARK_CE,
    PI_FLOW,
    PI_KIND,
    PI_MARK,
)
from ..rng import rand
from ..trace import record

CODE = 1
RED_MIN_TH = 0
RED_MAX_TH = 1
RED_MAX_P = 2
RED_W_Q = 3
RED_GENTLE = 4  # gentle (1) + 2 * the spacing's code: 0 and 1 for Floyd's, as before
RED_MARK = 5
RED_TYPICAL_SIZE = 6
#: Codes of ``Red.spacing`` (``qosmodels.mechanisms.red.SPACINGS``, in this order).
SPACING_FLOYD, SPACING_WAIT, SPACING_BERNOULLI = 0, 1, 2
SPACINGS = ("floyd", "ns2-wait", "bernoulli")
PARAMS = ("min_th", "max_th", "max_p", "w_q",
          ("gentle", lambda s: float(s.gentle) + 2.0 * SPACINGS.index(s.spacing)),
          "mark", "typical_packet_size")


def traces(spec) -> tuple[str, ...]:
    """Trace channels: the average queue at every arrival, if the spec asks for it."""
    return ("red_average",) if spec.record_average else ()


@handler
def smoothed(avg, waiting, idle, now, idle_since, wq, typical_size, capacity):
    """RED's low-pass filter for one arrival: ``avg`` (packets), first decayed as if
    ``(now - idle_since) / s`` empty packets had arrived when the queue was ``idle``
    (``s`` the transmission time of a ``typical_size``-byte packet at ``capacity``
    bit/s), then moved by ``wq`` towards ``waiting``.  Shared with RIO's two averages."""
    if idle:
        s = typical_size * 8.0 / capacity
        m = (now - idle_since) / s
        avg *= (1.0 - wq) ** m
    return (1.0 - wq) * avg + wq * waiting


@handler
def average(S, l):
    """Update link ``l``'s average queue for an arrival (the low-pass filter, after the
    idle decay) and return it (packets)."""
    lf, li = S.lf, S.li
    avg = smoothed(lf[l, LF_RED_AVG], li[l, LI_WAITING], li[l, LI_TX] < 0, S.gf[GF_NOW],
                   lf[l, LF_IDLE_SINCE], lf[l, LF_QP + RED_W_Q],
                   lf[l, LF_QP + RED_TYPICAL_SIZE], lf[l, LF_CAP])
    lf[l, LF_RED_AVG] = avg
    if li[l, LI_TRACE0] >= 0:
        record(S, li[l, LI_TRACE0], avg)
    return avg


@handler
def verdict(S, l, divisor):
    """Update the average queue; 0 accept, 1 early (drop or mark), 2 forced drop.

    ``divisor`` (> 0) divides this arrival's final early-drop probability,
    after the uniform spacing: ``p_a = min(1, p_b / (1 - count p_b)) / divisor``
    (ERED's marked packets, whose probability is then exactly ``1 / divisor``
    of an unmarked one's in the same state; 1.0 for RED, exact in floating
    point, and capping ``p_a`` at 1 changes no verdict since ``rand() < 1``;
    a divisor below 1, TRED's for a packet with few tickets, raises it, and the
    packet is dropped for sure once ``p_a / divisor >= 1``).
    ``count`` is shared.  The spacing rule (``Red.spacing``) is the packed gentle
    column's upper part (:data:`RED_GENTLE`)."""
    lf = S.lf
    flags = int(lf[l, LF_QP + RED_GENTLE])
    return spaced_curve(S, l, average(S, l), lf[l, LF_QP + RED_MIN_TH],
                        lf[l, LF_QP + RED_MAX_TH], lf[l, LF_QP + RED_MAX_P], (flags & 1) != 0,
                        LI_RED_COUNT, divisor, flags >> 1)


@handler
def curve(S, l, avg, minth, maxth, maxp, gentle, col, divisor):
    """RED's decision at average ``avg`` on the curve ``(minth, maxth, maxp, gentle)``, the
    curve's ``count`` in ``li[l, col]`` (Floyd and Jacobson's Figure 2): 0 accept, 1 early,
    2 forced.  RIO's two curves (``divisor`` 1); Floyd and Jacobson's spacing."""
    return spaced_curve(S, l, avg, minth, maxth, maxp, gentle, col, divisor, SPACING_FLOYD)


@handler
def spaced_curve(S, l, avg, minth, maxth, maxp, gentle, col, divisor, spacing):
    """:func:`curve` with the early drops spaced by rule ``spacing``: :data:`SPACING_FLOYD`
    ``p_a = p_b / (1 - count p_b)``; :data:`SPACING_WAIT` ns-2's ``wait_`` (``p_a = 0``
    while ``count p_b < 1``, ``p_b / (2 - count p_b)`` while ``< 2``, then 1; the first
    arrival on the ramp after the average was below ``min_th`` only sets ``count`` to 1);
    :data:`SPACING_BERNOULLI` ``p_a = p_b``.  ``count`` (the arrivals since the last
    early or forced drop, this one included) is kept for every rule."""
    li = S.li
    if avg < minth:
        li[l, col] = -1
        return 0
    if avg >= maxth and (not gentle or avg >= 2.0 * maxth):
        li[l, col] = 0
        return 2
    cnt = li[l, col] + 1
    if spacing == SPACING_WAIT and cnt == 0:
        li[l, col] = 1  # ns-2's "old == 0": the average has just entered the ramp
        return 0
    li[l, col] = cnt
    if avg < maxth:
        pb = maxp * (avg - minth) / (maxth - minth)
    else:
        pb = maxp + (1.0 - maxp) * (avg - maxth) / maxth
    if spacing == SPACING_FLOYD:
        den = 1.0 - cnt * pb
        pa = pb / den if den > 0.0 else 1.0
    elif spacing == SPACING_WAIT:
        x = cnt * pb
        if x < 1.0:
            pa = 0.0
        elif x < 2.0:
            pa = pb / (2.0 - x)
        else:
            pa = 1.0
    else:
        pa = pb
    if pa > 1.0:
        pa = 1.0
    pa = pa / divisor
    if rand(S) < pa:
        li[l, col] = 0
        return 1
    return 0


@handler
def admit(S, l, p):
    """-1 to admit (possibly marked), else the drop cause's column."""
    return admit_divided(S, l, p, 1.0)


@handler
def admit_divided(S, l, p, divisor):
    """:func:`admit` with the early-drop probability ``p_a`` divided by ``divisor`` (see
    :func:`verdict`)."""
    v = verdict(S, l, divisor)
    if v == 2:
        return LI_DROP_FORCED
    if v == 1:
        if (S.lf[l, LF_QP + RED_MARK] > 0.0 and S.pi[p, PI_KIND] == KIND_DATA
                and S.fi[S.pi[p, PI_FLOW] & POS, FI_ECN] != 0):
            S.pi[p, PI_MARK] |= MARK_CE
            S.li[l, LI_MARKS] += 1
            return -1
        return LI_DROP_EARLY
    return -1


#: :func:`admit_divided` as one real function, for RED and ERED (:func:`.ered.admit`) and
#: the disciplines built on RED that are real functions themselves (ABE's and TRED's
#: admit): they call this one compiled copy instead of each inlining another copy of RED.
#: (Under NUMBA_DISABLE_JIT the handler is the plain function, without ``py_func``.)
admit_divided_call = rare_handler(getattr(admit_divided, "py_func", admit_divided))


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_admit": "queues.ered.admit",
}
