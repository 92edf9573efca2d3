"""The event heap: binary min-heaps of (time, order) with a payload, in one array.

Equal times are ordered by ``order``, a counter of pushes, as SimPy's heap
does, so that runs are deterministic: every key is unique.

Event ``i`` of a heap is the row ``hv[3 (base + i) : 3 (base + i) + 3]`` of one
float array: its time (s), its order and its payload (both integers, exact as
floats below 2**53).  One array rather than three (times, orders, payloads)
moves an event within one cache line and takes one base pointer where the loop
has few registers to spare, and the row length is a constant to the compiler.

Timers' events have a heap of their own, in the rows after the main heap's
(``GI_HEAP_CAP`` onwards, ``GI_TIMER_CAP`` of them): every window flow keeps
one retransmission timer pending, far ahead, and in one heap with the packets'
events they made it deeper for every event taken (with 64 flows, 119 events
against 55).  The loop takes the earlier of the two roots, so the events come
out in the same order as from one heap.  A timer pushed when the timers' rows
are full goes to the main heap.  The two heaps together hold at most
``GI_HEAP_CAP`` events (``Limits.heap_size``), counted together in
``GI_HEAP_MAX``.

Packets propagating on one hop mostly reach its end in the order they entered
it: a link's departures are one after another and its delay is the same for
all, and ACKs entering stretches of undeclared reverse links of one delay (of
any flows) leave them in the order they entered.  Each link, and each distinct
delay of those stretches, is a *pipe* (``S.pipe``): its packets wait in a list
through ``PI_NEXT`` with their arrival time and their event's order
(``PF_ARRIVAL``, ``PF_ORDER``), and only the head has an event in the main heap
(``EV_PIPE``); when it is taken, the next packet's event is pushed with its own
time and order.  On the benchmark dumbbells the main heap holds about 5 events
on average instead of 55, with 8 flows as with 64.  A packet that would arrive
before the pipe's last one (its delay fell: ``LinkChange``) gets its event in
the heap directly.  Each event keeps the order it would have had in one heap,
so the events come out in the same order, and the packets behind a head count
with the heaps' events towards ``Limits.heap_size`` and ``GI_HEAP_MAX``.
(benchmarks/RESULTS.md, "The event heap".)
"""

from ._jit import POS, handler
from .layout import (
    EV_BITS,
    EV_PIPE,
    GI_HEAP_CAP,
    GI_HEAP_MAX,
    GI_HEAP_N,
    GI_ORDER,
    GI_PIPED,
    GI_STATUS,
    GI_TIMER_CAP,
    GI_TIMER_N,
    HV_D,
    HV_O,
    HV_T,
    N_HV,
    PF_ARRIVAL,
    PF_ORDER,
    PI_NEXT,
    PP_HEAD,
    PP_TAIL,
    ST_HEAP_FULL,
)


@handler
def _full(S):
    """Whether the heaps and the pipes hold ``Limits.heap_size`` events (then the status
    says so); if not, the event about to be added counts in the peak (``GI_HEAP_MAX``)."""
    gi = S.gi
    pending = gi[GI_HEAP_N] + gi[GI_TIMER_N] + gi[GI_PIPED]
    if pending >= gi[GI_HEAP_CAP]:
        gi[GI_STATUS] = ST_HEAP_FULL
        return True
    if pending + 1 > gi[GI_HEAP_MAX]:
        gi[GI_HEAP_MAX] = pending + 1
    return False


@handler
def _order(S):
    """The next event's order (the push counter), as a float."""
    o = S.gi[GI_ORDER]
    S.gi[GI_ORDER] = o + 1
    return float(o)


@handler
def _push_at(S, base, count, t, o, d):
    """Push payload ``d`` at time ``t`` with order ``o`` into the heap of rows ``base ..``,
    its size ``gi[count]`` (the caller has checked for room)."""
    gi, hv = S.gi, S.hv
    n = gi[count] & POS
    gi[count] = n + 1
    i = n
    while i > 0:
        par = (i - 1) >> 1
        r = N_HV * (base + par)
        tp = hv[r + HV_T]
        if tp < t or (tp == t and hv[r + HV_O] < o):
            break
        w = N_HV * (base + i)
        hv[w + HV_T] = tp
        hv[w + HV_O] = hv[r + HV_O]
        hv[w + HV_D] = hv[r + HV_D]
        i = par
    w = N_HV * (base + i)
    hv[w + HV_T] = t
    hv[w + HV_O] = o
    hv[w + HV_D] = float(d)


@handler
def push(S, t, d):
    """Schedule event payload ``d`` at time ``t`` (status ``ST_HEAP_FULL`` if no room)."""
    if _full(S):
        return
    _push_at(S, 0, GI_HEAP_N, t, _order(S), d)


@handler
def push_timer(S, t, d):
    """:func:`push` for a timer's event: into the timers' heap while it has room."""
    if _full(S):
        return
    gi = S.gi
    if gi[GI_TIMER_N] < gi[GI_TIMER_CAP]:
        _push_at(S, gi[GI_HEAP_CAP] & POS, GI_TIMER_N, t, _order(S), d)
    else:
        _push_at(S, 0, GI_HEAP_N, t, _order(S), d)


@handler
def enter_pipe(S, q, p, t, d):
    """Packet ``p`` starts along pipe ``q`` to reach its end at time ``t``: its event
    (payload ``d``, an ``EV_ARRIVE`` of ``p``) waits behind the pipe's last packet, or
    goes to the heap (as the pipe's ``EV_PIPE`` if the pipe was empty; as ``d`` itself
    if ``p`` would overtake the last packet)."""
    if _full(S):
        return
    o = _order(S)
    pipe, pi, pf = S.pipe, S.pi, S.pf
    tail = pipe[q, PP_TAIL]
    if tail < 0:
        pipe[q, PP_HEAD] = p
        pipe[q, PP_TAIL] = p
        pi[p, PI_NEXT] = -1
        _push_at(S, 0, GI_HEAP_N, t, o, (q << EV_BITS) | EV_PIPE)
    elif t >= pf[tail & POS, PF_ARRIVAL]:
        pi[tail & POS, PI_NEXT] = p
        pi[p, PI_NEXT] = -1
        pipe[q, PP_TAIL] = p
        S.gi[GI_PIPED] += 1
    else:  # it would overtake the last packet: not in the pipe
        _push_at(S, 0, GI_HEAP_N, t, o, d)
        return
    pf[p, PF_ARRIVAL] = t
    pf[p, PF_ORDER] = o


@handler
def leave_pipe(S, q):
    """Pipe ``q``'s head reaches the end (its ``EV_PIPE`` was taken): return it, and
    push the next packet's event with its own time and order."""
    pipe, pi, pf = S.pipe, S.pi, S.pf
    p = pipe[q, PP_HEAD] & POS
    nxt = pi[p, PI_NEXT]
    if nxt < 0:
        pipe[q, PP_HEAD] = -1
        pipe[q, PP_TAIL] = -1
    else:
        nxt &= POS
        pipe[q, PP_HEAD] = nxt
        S.gi[GI_PIPED] -= 1
        _push_at(S, 0, GI_HEAP_N, pf[nxt, PF_ARRIVAL], pf[nxt, PF_ORDER],
                 (q << EV_BITS) | EV_PIPE)
    return p


@handler
def pop_at(S, base, count):
    """Remove the root of the heap of rows ``base ..``, its size ``gi[count]`` (the caller
    has read the root already)."""
    gi, hv = S.gi, S.hv
    n = (gi[count] - 1) & POS
    gi[count] = n
    r = N_HV * (base + n)
    t = hv[r + HV_T]
    o = hv[r + HV_O]
    d = hv[r + HV_D]
    i = 0
    while True:
        c = (2 * i + 1) & POS
        if c >= n:
            break
        a = N_HV * (base + c)
        b = a + N_HV
        if c + 1 < n and (hv[b + HV_T] < hv[a + HV_T]
                          or (hv[b + HV_T] == hv[a + HV_T] and hv[b + HV_O] < hv[a + HV_O])):
            c += 1
            a = b
        if t < hv[a + HV_T] or (t == hv[a + HV_T] and o < hv[a + HV_O]):
            break
        w = N_HV * (base + i)
        hv[w + HV_T] = hv[a + HV_T]
        hv[w + HV_O] = hv[a + HV_O]
        hv[w + HV_D] = hv[a + HV_D]
        i = c
    w = N_HV * (base + i)
    hv[w + HV_T] = t
    hv[w + HV_O] = o
    hv[w + HV_D] = d


@handler
def pop_root(S):
    """Remove the main heap's root (the caller has read it already)."""
    pop_at(S, 0, GI_HEAP_N)
