"""Sender-side events of a flow: start, stop, open-loop ticks, window sending, ACKs, timeouts.

The generic parts live here; what differs between sources is reached through
:mod:`.dispatch` by the flow's code.
"""

from ._jit import POS, handler, rare_handler
from .delack import on_timer as delack_timer
from .dispatch import (
    source_echo,
    source_next_tick,
    source_send_limit,
    source_start,
    source_timeout,
    source_timer,
)
from .dispatch_edges import edge_ack, edge_gate
from .heap import push
from .layout import (
    EI_CODE,
    EV_BITS,
    EV_SOURCE,
    FI_ACKS_ARRIVED,
    FI_ACTIVE,
    FI_APP_LIMIT,
    FI_CODE,
    FI_DA_SLOT,
    FI_EDGE,
    FI_RACK,
    FI_SENT,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_TIMEOUTS,
    FI_TIMER0,
    FI_TIMING,
    FI_WINDOWED,
    GF_NOW,
    MARK_CTRL,
    MARK_DECBIT,
    MARK_ECE,
    PI_FLOW,
    PI_MARK,
    PI_SEQ,
    W_BITS,
    W_SEND,
)
from .pool import defer, release
from .rack import rearm as tlp_rearm
from .rackstate import is_rto
from .sack import take
from .sender import arm_timer, transmit
from .timers import cancel, is_off


@handler
def send_packets(S, f):
    """Send what flow ``f``'s window and application allow."""
    fi = S.fi
    if fi[f, FI_ACTIVE] == 0:
        return
    lim = source_send_limit(S, fi[f, FI_CODE], f)
    if lim > fi[f, FI_APP_LIMIT]:
        lim = fi[f, FI_APP_LIMIT]
    nxt = fi[f, FI_SND_NXT]
    nxt0 = nxt
    e = fi[f, FI_EDGE]
    while nxt < lim:
        # a shaping edge element may hold the sender back (it then waits for the edge)
        if e >= 0 and not edge_gate(S, S.ei[e & POS, EI_CODE], e & POS, f, True):
            break
        if not transmit(S, f, nxt):
            return
        nxt += 1
        fi[f, FI_SND_NXT] = nxt
    if e >= 0 and nxt >= lim:
        edge_gate(S, S.ei[e & POS, EI_CODE], e & POS, f, False)
    if is_off(S, fi[f, FI_TIMER0] & POS) and nxt > fi[f, FI_SND_UNA]:
        arm_timer(S, f)
    if fi[f, FI_RACK] > 1 and nxt > nxt0:  # TLP: the probe timer after new data (RFC 8985 7.1)
        tlp_rearm(S, f, True)


@rare_handler
def on_start(S, f):
    S.fi[f, FI_ACTIVE] = 1
    if not source_start(S, S.fi[f, FI_CODE], f):
        defer(S, (f << W_BITS) | W_SEND)


@rare_handler
def on_stop(S, f):
    S.fi[f, FI_ACTIVE] = 0
    if S.fi[f, FI_TIMER0] >= 0:
        cancel(S, S.fi[f, FI_TIMER0] & POS)


@handler
def on_source_tick(S, f):
    """One packet of an open-loop source (or, with a window, one packet handed to
    the sender), then the next tick."""
    fi = S.fi
    if fi[f, FI_ACTIVE] == 0:
        return
    now = S.gf[GF_NOW]
    if fi[f, FI_WINDOWED] != 0:  # Poisson with a window
        fi[f, FI_APP_LIMIT] += 1
        defer(S, (f << W_BITS) | W_SEND)
    else:  # sequence numbers of unacknowledged packets just count them
        transmit(S, f, fi[f, FI_SENT])
    push(S, source_next_tick(S, fi[f, FI_CODE], f, now), (f << EV_BITS) | EV_SOURCE)


@handler
def ack_arrives(S, p):
    """An ACK reaches its sender: count and free it; the flow, or -1 if the flow has
    stopped, the cumulative ACK and whether it echoes a congestion indication (an ECN
    echo, or a DECbit that a DECbit receiver copied onto it).

    The engine then calls the source's ``source_ack`` hook and lets the flow
    send (the hook is not called from here, so that it has one call site).  A
    control packet's echo (``MARK_CTRL``) goes to the source's ``source_echo``
    hook instead and returns -1, so the engine neither acknowledges nor lets the
    flow send.
    """
    fi = S.fi
    f = S.pi[p, PI_FLOW] & POS
    a = S.pi[p, PI_SEQ]
    if S.pi[p, PI_MARK] & MARK_CTRL:  # a control packet's echo: the source reads it
        if fi[f, FI_ACTIVE] != 0:
            source_echo(S, fi[f, FI_CODE], f, p)
        release(S, p)
        return -1, a, False
    ece = (S.pi[p, PI_MARK] & (MARK_ECE | MARK_DECBIT)) != 0
    e = fi[f, FI_EDGE]
    if e >= 0:  # the flow's edge element sees the ACK first (a ticket tagger's rate)
        una = fi[f, FI_SND_UNA]
        edge_ack(S, S.ei[e & POS, EI_CODE], e & POS, f, p, a - una if a > una else 0)
    if fi[f, FI_WINDOWED] > 1:  # the SACK option it carries, for the source's ``update``
        take(S, f, p)
    release(S, p)
    fi[f, FI_ACKS_ARRIVED] += 1
    if fi[f, FI_ACTIVE] == 0:
        return -1, a, ece
    return f, a, ece


@handler
def on_timer(S, f, k):
    """Flow ``f``'s timer slot ``k`` has come due; slot 0 is the retransmission timer, the
    others the source's own (``source_timer``)."""
    fi = S.fi
    if k == fi[f, FI_DA_SLOT]:  # the receiver's delayed-ACK timer (.delack)
        delack_timer(S, f)
        return
    if fi[f, FI_ACTIVE] == 0:
        return
    if k != 0:
        if source_timer(S, fi[f, FI_CODE], f, k):
            defer(S, (f << W_BITS) | W_SEND)
        return
    rto = is_rto(S, f)  # (else RACK's reordering timer or TLP's probe timer: .rack)
    if rto:
        fi[f, FI_TIMEOUTS] += 1
    source_timeout(S, fi[f, FI_CODE], f)
    if rto:
        fi[f, FI_SND_NXT] = fi[f, FI_SND_UNA]  # go back N
        fi[f, FI_TIMING] = 0
    defer(S, (f << W_BITS) | W_SEND)
