"""The packet pool (a free-list stack over the packet table) and the deferred-work FIFO.

Handlers never call the heavy handlers (forward a packet, let a flow send)
directly: they append work items to a FIFO that the loop drains after each
event, in order.  Each heavy handler then has one call site, which keeps the
compiled loop small (inlined functions are copied at every call site).
"""

from ._jit import POS, handler
from .layout import (
    GF_NOW,
    GF_WARMUP,
    GI_FREE_TOP,
    GI_POOL_MAX,
    GI_STATUS,
    GI_WORK_HEAD,
    GI_WORK_N,
    PI_FLOW,
    ST_POOL_FULL,
    ST_WORK_FULL,
)


@handler
def alloc(S):
    """A free packet's index, or -1 (status ``ST_POOL_FULL``); the caller sets its flow."""
    gi = S.gi
    top = gi[GI_FREE_TOP] & POS
    if top == 0:
        gi[GI_STATUS] = ST_POOL_FULL
        return -1
    top -= 1
    gi[GI_FREE_TOP] = top
    p = S.free[top] & POS
    alive = S.free.shape[0] - top
    if alive > gi[GI_POOL_MAX]:
        gi[GI_POOL_MAX] = alive
    return p


@handler
def release(S, p):
    """Return packet ``p`` to the pool (its flow becomes -1: free)."""
    S.pi[p, PI_FLOW] = -1
    top = S.gi[GI_FREE_TOP] & POS
    S.free[top] = p
    S.gi[GI_FREE_TOP] = top + 1


@handler
def defer(S, item):
    """Append a work item (layout ``W_*``) to the FIFO the loop drains after each event."""
    gi, work = S.gi, S.work
    n = gi[GI_WORK_N]
    if n >= work.shape[0]:
        gi[GI_STATUS] = ST_WORK_FULL
        return
    j = gi[GI_WORK_HEAD] + n
    if j >= work.shape[0]:
        j -= work.shape[0]
    work[j & POS] = item
    gi[GI_WORK_N] = n + 1


@handler
def in_window(S):
    """Whether now is inside the measurement window."""
    return S.gf[GF_NOW] >= S.gf[GF_WARMUP]
