"""The event loop: pop the next event, call its handler, drain the deferred work.

The kernel sees only the arrays of a compiled scenario (the named tuple
``qosmodels.sim.compile.Compiled``, passed whole as ``S``; columns named in
:mod:`.layout` and in each mechanism's kernel module) and returns a status
code.  It can be called repeatedly with a later ``t_stop`` to continue a run:
all state lives in the arrays.

The handlers are module-level functions inlined into :func:`run` (see
:mod:`._jit`): :mod:`.link` (queues, transmission), :mod:`.flows` (senders),
:mod:`.receiver`, :mod:`.record`; what differs between mechanisms is reached
through :mod:`.dispatch`.
"""

from __future__ import annotations

from numba import njit

from ._jit import POS, rare_handler
from .dispatch import queue_timer, source_ack
from .dispatch_edges import edge_timer
from .flows import ack_arrives, on_source_tick, on_start, on_stop, on_timer, send_packets
from .heap import leave_pipe, pop_at, pop_root
from .layout import (
    EI_CODE,
    EV_ARRIVE,
    EV_BITS,
    EV_PIPE,
    EV_SAMPLE,
    EV_SOURCE,
    EV_START,
    EV_STOP,
    EV_TIMER,
    EV_TXDONE,
    FI_CODE,
    GF_NOW,
    GI_EVENTS,
    GI_HEAP_CAP,
    GI_HEAP_N,
    GI_STATUS,
    GI_TIMER_N,
    GI_WORK_HEAD,
    GI_WORK_N,
    HV_D,
    HV_O,
    HV_T,
    KIND_DATA,
    LI_CODE,
    N_HV,
    OWNER_EDGE,
    OWNER_FLOW,
    OWNER_LINK,
    PI_FLOW,
    PI_HOP,
    PI_KIND,
    ST_MAX_EVENTS,
    ST_OK,
    TMI_K,
    TMI_OWNER,
    TMI_OWNER_KIND,
    W_BITS,
    W_FORWARD,
    W_SEND,
)
from .link import forward, on_txdone
from .pool import defer
from .receiver import on_data
from .record import on_sample
from .timers import due

_EV_MASK = (1 << EV_BITS) - 1


@rare_handler
def on_timer_event(S, slot):
    """Timer ``slot``'s owner's handler, once its deadline has come (the loop checks
    :func:`.timers.due` first).  Not inlined, which keeps the loop's machine code short:
    the owners' handlers are inlined here, and the call, which passes the whole state,
    is made only for the timers that fire; the many events of timers restarted on every
    ACK go back to sleep in the loop (``due``)."""
    owner = S.tmi[slot, TMI_OWNER]
    k = S.tmi[slot, TMI_K]
    kind = S.tmi[slot, TMI_OWNER_KIND]
    if kind == OWNER_FLOW:
        on_timer(S, owner, k)
    elif kind == OWNER_LINK:
        queue_timer(S, S.li[owner, LI_CODE], owner, k)
    elif kind == OWNER_EDGE:
        edge_timer(S, S.ei[owner, EI_CODE], owner, k)


# ``_nrt=False`` compiles without Numba's reference-counting runtime: the kernel
# allocates nothing, so borrowed arrays are safe, and the inlined handlers pay
# no atomic incref/decref per array on every call (in a profile of the
# benchmark these took ~45% of the loop's time).  The numpy error model drops
# Python's zero-division checks (the kernel never divides by zero).  The
# handlers carry both flags themselves (``._jit``).
@njit(cache=True, error_model="numpy", _nrt=False)
def run(S, t_stop, max_events):
    """Process events with time <= ``t_stop``; return a status code (layout ``ST_*``).

    ``S`` is a compiled scenario (``qosmodels.sim.compile.Compiled``),
    ``t_stop`` in s, ``max_events`` the total event budget, counted over every
    call.
    """
    gi, hv, work = S.gi, S.hv, S.work
    work_cap = work.shape[0]
    tbase = gi[GI_HEAP_CAP] & POS  # the timers' heap's first row
    tr = N_HV * tbase
    while True:
        # the earlier of the two heaps' roots (the timers' heap: see .heap)
        timer = gi[GI_TIMER_N] > 0 and (gi[GI_HEAP_N] == 0 or hv[tr + HV_T] < hv[HV_T] or (
            hv[tr + HV_T] == hv[HV_T] and hv[tr + HV_O] < hv[HV_O]))
        if not timer and gi[GI_HEAP_N] == 0:
            break
        r = tr if timer else 0
        t = hv[r + HV_T]
        if t > t_stop:
            break
        if gi[GI_EVENTS] >= max_events:
            return ST_MAX_EVENTS
        d = int(hv[r + HV_D]) & POS
        if timer:
            pop_at(S, tbase, GI_TIMER_N)
        else:
            pop_root(S)
        S.gf[GF_NOW] = t
        gi[GI_EVENTS] += 1
        kind = d & _EV_MASK
        a = d >> EV_BITS
        if kind == EV_PIPE:  # a pipe's head packet reaches the hop's end (.heap)
            a = leave_pipe(S, a)
            kind = EV_ARRIVE
        if kind == EV_TXDONE:
            on_txdone(S, a)
        elif kind == EV_ARRIVE:  # the far end of a hop: the next hop, the receiver or the sender
            f = S.pi[a, PI_FLOW] & POS
            if S.pi[a, PI_KIND] == KIND_DATA:
                end = S.r_ptr[f + 1] - S.r_ptr[f]
            else:
                end = S.a_ptr[f + 1] - S.a_ptr[f]
            if S.pi[a, PI_HOP] < end:
                defer(S, (a << W_BITS) | W_FORWARD)
            elif S.pi[a, PI_KIND] == KIND_DATA:
                on_data(S, a)
            else:
                f, ack, ece = ack_arrives(S, a)
                if f >= 0:
                    source_ack(S, S.fi[f, FI_CODE], f, ack, ece)
                    defer(S, (f << W_BITS) | W_SEND)
        elif kind == EV_TIMER:
            if due(S, a):
                on_timer_event(S, a)
        elif kind == EV_SOURCE:
            on_source_tick(S, a)
        elif kind == EV_START:
            on_start(S, a)
        elif kind == EV_STOP:
            on_stop(S, a)
        elif kind == EV_SAMPLE:
            on_sample(S)
        while gi[GI_WORK_N] > 0:
            h = gi[GI_WORK_HEAD] & POS
            item = work[h] & POS
            gi[GI_WORK_HEAD] = h + 1 if h + 1 < work_cap else 0
            gi[GI_WORK_N] -= 1
            if item & 1 == W_FORWARD:
                forward(S, item >> W_BITS)
            else:
                send_packets(S, item >> W_BITS)
        if gi[GI_STATUS] != ST_OK:
            return gi[GI_STATUS]
    return ST_OK
