"""Timer slots: deadlines owned by a link's queue, a flow's source or an edge element,
on one event kind.

Each owner whose mechanism needs timers gets consecutive slots (its first slot
in ``LI_TIMER0`` / ``FI_TIMER0`` / ``EI_TIMER0``; a flow's slot 0 is its
retransmission timer); a slot holds a deadline and the time of its pending event.  Deadlines
are lazy: moving one later leaves the pending event in the heap, and when it
fires the owner's handler is not called but the event sleeps on to the new
deadline; moving one earlier pushes a new event only when ``early`` is asked
for (the stale one is then recognised by its time and ignored).  So a timer
that is restarted on every ACK costs no heap operation.
"""

import numpy as np

from ._jit import handler
from .heap import push_timer
from .layout import EV_BITS, EV_TIMER, GF_NOW, TM_AT, TM_DEADLINE, TMI_PENDING


@handler
def set_deadline(S, slot, t, early):
    """Make ``t`` (s) the deadline of timer ``slot``; ``early``: if ``t`` is before the
    pending event, push a new one (else the timer fires at the pending time)."""
    tm, tmi = S.tm, S.tmi
    tm[slot, TM_DEADLINE] = t
    if tmi[slot, TMI_PENDING] == 0 or (t < tm[slot, TM_AT] and early):
        tmi[slot, TMI_PENDING] = 1
        tm[slot, TM_AT] = t
        push_timer(S, t, (slot << EV_BITS) | EV_TIMER)


@handler
def cancel(S, slot):
    """Stop timer ``slot`` (its pending event, if any, will find no deadline)."""
    S.tm[slot, TM_DEADLINE] = np.inf


@handler
def is_off(S, slot):
    return S.tm[slot, TM_DEADLINE] == np.inf


@handler
def due(S, slot):
    """Called when timer ``slot``'s event fires: True if its deadline has come (the
    owner's handler should run); False for a stale event, a cancelled timer, or a
    deadline moved later (then the event is pushed again for it)."""
    tm, tmi = S.tm, S.tmi
    now = S.gf[GF_NOW]
    if tmi[slot, TMI_PENDING] == 0 or now != tm[slot, TM_AT]:
        return False  # superseded by an earlier event, already handled
    tmi[slot, TMI_PENDING] = 0
    dl = tm[slot, TM_DEADLINE]
    if dl == np.inf:
        return False
    if now < dl:  # moved later since: sleep until the new deadline
        tmi[slot, TMI_PENDING] = 1
        tm[slot, TM_AT] = dl
        push_timer(S, dl, (slot << EV_BITS) | EV_TIMER)
        return False
    tm[slot, TM_DEADLINE] = np.inf
    return True
