"""The event heap: a binary min-heap of (time, order) with a payload, in one array.

Equal times are ordered by ``order``, a counter of pushes, as SimPy's heap
does, so that runs are deterministic.

Event ``i`` of the heap is the row ``hv[3 i : 3 i + 3]`` of one float array:
its time (s), its order and its payload (both integers, exact as floats below
2**53).  One array rather than three (times, orders, payloads) moves an event
within one cache line and takes one base pointer where the loop has few
registers to spare, and the row length is a constant to the compiler
(benchmarks/RESULTS.md, "The event heap").
"""

from ._jit import POS, handler
from .layout import GI_HEAP_MAX, GI_HEAP_N, GI_ORDER, GI_STATUS, HV_D, HV_O, HV_T, N_HV, ST_HEAP_FULL


@handler
def push(S, t, d):
    """Schedule event payload ``d`` at time ``t`` (status ``ST_HEAP_FULL`` if no room)."""
    gi, hv = S.gi, S.hv
    n = gi[GI_HEAP_N] & POS
    if N_HV * n >= hv.shape[0]:
        gi[GI_STATUS] = ST_HEAP_FULL
        return
    o = float(gi[GI_ORDER])
    gi[GI_ORDER] += 1
    gi[GI_HEAP_N] = n + 1
    if n + 1 > gi[GI_HEAP_MAX]:
        gi[GI_HEAP_MAX] = n + 1
    i = n
    while i > 0:
        par = (i - 1) >> 1
        tp = hv[N_HV * par + HV_T]
        if tp < t or (tp == t and hv[N_HV * par + HV_O] < o):
            break
        hv[N_HV * i + HV_T] = tp
        hv[N_HV * i + HV_O] = hv[N_HV * par + HV_O]
        hv[N_HV * i + HV_D] = hv[N_HV * par + HV_D]
        i = par
    hv[N_HV * i + HV_T] = t
    hv[N_HV * i + HV_O] = o
    hv[N_HV * i + HV_D] = float(d)


@handler
def pop_root(S):
    """Remove the root (the caller has read it already)."""
    gi, hv = S.gi, S.hv
    n = (gi[GI_HEAP_N] - 1) & POS
    gi[GI_HEAP_N] = n
    t = hv[N_HV * n + HV_T]
    o = hv[N_HV * n + HV_O]
    d = hv[N_HV * n + HV_D]
    i = 0
    while True:
        c = (2 * i + 1) & POS
        if c >= n:
            break
        a = N_HV * c
        b = a + N_HV
        if c + 1 < n and (hv[b + HV_T] < hv[a + HV_T]
                          or (hv[b + HV_T] == hv[a + HV_T] and hv[b + HV_O] < hv[a + HV_O])):
            c += 1
            a = b
        if t < hv[a + HV_T] or (t == hv[a + HV_T] and o < hv[a + HV_O]):
            break
        hv[N_HV * i + HV_T] = hv[a + HV_T]
        hv[N_HV * i + HV_O] = hv[a + HV_O]
        hv[N_HV * i + HV_D] = hv[a + HV_D]
        i = c
    hv[N_HV * i + HV_T] = t
    hv[N_HV * i + HV_O] = o
    hv[N_HV * i + HV_D] = d
