"""The event heap: a binary min-heap of (time, order) with a payload, in three arrays.

Equal times are ordered by ``order``, a counter of pushes, as SimPy's heap
does, so that runs are deterministic.
"""

from ._jit import POS, handler
from .layout import GI_HEAP_MAX, GI_HEAP_N, GI_ORDER, GI_STATUS, ST_HEAP_FULL


@handler
def push(S, t, d):
    """Schedule event payload ``d`` at time ``t`` (status ``ST_HEAP_FULL`` if no room)."""
    gi, ht, ho, hd = S.gi, S.ht, S.ho, S.hd
    n = gi[GI_HEAP_N] & POS
    if n >= ht.shape[0]:
        gi[GI_STATUS] = ST_HEAP_FULL
        return
    o = gi[GI_ORDER]
    gi[GI_ORDER] = o + 1
    gi[GI_HEAP_N] = n + 1
    if n + 1 > gi[GI_HEAP_MAX]:
        gi[GI_HEAP_MAX] = n + 1
    i = n
    while i > 0:
        par = (i - 1) >> 1
        tp = ht[par]
        if tp < t or (tp == t and ho[par] < o):
            break
        ht[i] = tp
        ho[i] = ho[par]
        hd[i] = hd[par]
        i = par
    ht[i] = t
    ho[i] = o
    hd[i] = d


@handler
def pop_root(S):
    """Remove the root (the caller has read it already)."""
    gi, ht, ho, hd = S.gi, S.ht, S.ho, S.hd
    n = (gi[GI_HEAP_N] - 1) & POS
    gi[GI_HEAP_N] = n
    t = ht[n]
    o = ho[n]
    d = hd[n]
    i = 0
    while True:
        c = (2 * i + 1) & POS
        if c >= n:
            break
        if c + 1 < n and (ht[c + 1] < ht[c] or (ht[c + 1] == ht[c] and ho[c + 1] < ho[c])):
            c += 1
        if t < ht[c] or (t == ht[c] and o < ho[c]):
            break
        ht[i] = ht[c]
        ho[i] = ho[c]
        hd[i] = hd[c]
        i = c
    ht[i] = t
    ho[i] = o
    hd[i] = d
