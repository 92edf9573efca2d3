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
``GI_HEAP_MAX``.  (benchmarks/RESULTS.md, "The event heap".)
"""

from ._jit import POS, handler
from .layout import (
    GI_HEAP_CAP,
    GI_HEAP_MAX,
    GI_HEAP_N,
    GI_ORDER,
    GI_STATUS,
    GI_TIMER_CAP,
    GI_TIMER_N,
    HV_D,
    HV_O,
    HV_T,
    N_HV,
    ST_HEAP_FULL,
)


@handler
def _push_at(S, base, count, t, d):
    """Push payload ``d`` at time ``t`` into the heap of rows ``base ..``, its size
    ``gi[count]`` (the caller has checked for room)."""
    gi, hv = S.gi, S.hv
    n = gi[count] & POS
    o = float(gi[GI_ORDER])
    gi[GI_ORDER] += 1
    gi[count] = n + 1
    pending = gi[GI_HEAP_N] + gi[GI_TIMER_N]
    if pending > gi[GI_HEAP_MAX]:
        gi[GI_HEAP_MAX] = pending
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
    gi = S.gi
    if gi[GI_HEAP_N] + gi[GI_TIMER_N] >= gi[GI_HEAP_CAP]:
        gi[GI_STATUS] = ST_HEAP_FULL
        return
    _push_at(S, 0, GI_HEAP_N, t, d)


@handler
def push_timer(S, t, d):
    """:func:`push` for a timer's event: into the timers' heap while it has room."""
    gi = S.gi
    if gi[GI_HEAP_N] + gi[GI_TIMER_N] >= gi[GI_HEAP_CAP]:
        gi[GI_STATUS] = ST_HEAP_FULL
        return
    if gi[GI_TIMER_N] < gi[GI_TIMER_CAP]:
        _push_at(S, gi[GI_HEAP_CAP] & POS, GI_TIMER_N, t, d)
    else:
        _push_at(S, 0, GI_HEAP_N, t, d)


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
