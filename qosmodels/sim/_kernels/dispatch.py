"""The one place that knows every mechanism: one function per hook, one branch per mechanism.

The engine and the generic handlers call these hooks with the mechanism's code
(``LI_CODE`` of a link, ``FI_CODE`` of a flow); each hook branches on the code
to the mechanism's kernel module.  Adding a mechanism adds a kernel module and
one line per hook it implements here; the engine is not edited.  Numba still
compiles the loop once: the codes are data.

:data:`QUEUES`, :data:`SOURCES` and :data:`EDGES` map spec ``kernel`` names to the
modules, for the compile step (``qosmodels.sim.compile``) and the tests.  The edge
elements' hooks are in :mod:`.dispatch_edges` (the sender calls them, and the
sources import the sender).
"""

import numpy as np

from ._jit import handler
from .layout import FI_SND_UNA, MARK_CE, MARK_DECBIT, MARK_ECE, PI_MARK
from .pool import release
from .queues import (
    abe,
    avq,
    codel,
    decbit,
    droptail,
    drr,
    ered,
    fair_queueing,
    fqcodel,
    pi,
    pie,
    priority,
    random_loss,
    red,
    rio,
    ticket_red,
)
from .sources import (
    accumulation,
    bbr,
    cbr,
    cubic,
    dctcp,
    onoff,
    poisson,
    reno,
    tahoe,
    tcp_friendly,
    vegas,
    web,
    window,
)
from .sources import decbit as decbit_window

#: Kernel modules by the ``kernel`` name their specs give.
QUEUES = {"queues.droptail": droptail, "queues.red": red, "queues.priority": priority,
          "queues.random_loss": random_loss, "queues.fair_queueing": fair_queueing,
          "queues.decbit": decbit, "queues.ered": ered, "queues.rio": rio,
          "queues.ticket_red": ticket_red, "queues.abe": abe, "queues.avq": avq,
          "queues.codel": codel, "queues.drr": drr,
          "queues.fqcodel": fqcodel, "queues.pi": pi,
          "queues.pie": pie}
SOURCES = {"sources.reno": reno, "sources.window": window, "sources.cbr": cbr,
           "sources.poisson": poisson, "sources.onoff": onoff, "sources.decbit": decbit_window,
           "sources.tcp_friendly": tcp_friendly, "sources.accumulation": accumulation,
           "sources.vegas": vegas, "sources.web": web, "sources.tahoe": tahoe,
           "sources.dctcp": dctcp, "sources.cubic": cubic, "sources.bbr": bbr}
#: (Edge elements, :data:`EDGES`, have their hooks in :mod:`.dispatch_edges`.)

#: ``queue_select``'s answer for a discipline that keeps its packets in the class rings.
RINGS = -2


# ---------------------------------------------------------------------- queues
@handler
def queue_class(S, code, l, p):
    """The class slot packet ``p`` joins at link ``l`` (-1: the queue has no such class)."""
    if code == priority.CODE:
        return priority.klass(S, l, p)
    if code == fair_queueing.CODE:
        return fair_queueing.klass(S, l, p)
    if code == abe.CODE:
        return abe.klass(S, l, p)
    if code == drr.CODE:
        return drr.klass(S, l, p)
    if code == fqcodel.CODE:
        return fqcodel.klass(S, l, p)
    return 0


@handler
def queue_admit(S, code, l, p):
    """The queue's verdict on an arrival: -1 to admit (possibly marked), else a drop cause."""
    if code == droptail.CODE:  # admits; CE-marks above DCTCP's threshold if it has one
        return droptail.admit(S, l, p)
    if code == red.CODE or code == ered.CODE:  # ERED: RED, its probability divided (one copy)
        return red.admit_divided(S, l, p, ered.divisor(S, code, l, p))
    if code == ticket_red.CODE:
        return ticket_red.admit(S, l, p)
    if code == random_loss.CODE:
        return random_loss.admit(S, l, p)
    if code == fair_queueing.CODE:
        return fair_queueing.admit(S, l, p)
    if code == decbit.CODE:
        return decbit.admit(S, l, p)
    if code == rio.CODE:
        return rio.admit(S, l, p)
    if code == abe.CODE:
        return abe.admit(S, l, p)
    if code == avq.CODE:
        return avq.admit(S, l, p)
    if code == fqcodel.CODE:  # an idle link's packet: its queue's state; a full buffer
        return fqcodel.admit(S, l, p)
    if code == pie.CODE:  # drops at enqueue, RFC 8033
        return pie.admit(S, l, p)
    if code == pi.CODE:
        return pi.admit(S, l, p)
    return -1


@handler
def queue_store(S, code, l, p, s):
    """Store admitted packet ``p`` (class slot ``s``) at busy link ``l`` the discipline's
    way: True if it did (and counted it waiting), False for the class rings."""
    if code == fair_queueing.CODE:
        return fair_queueing.store(S, l, p, s)
    if code == drr.CODE:
        return drr.store(S, l, p, s)
    if code == fqcodel.CODE:
        return fqcodel.store(S, l, p, s)
    if code == rio.CODE:  # counts an in packet, which then joins the ring
        rio.store(S, l, p)
    elif code == codel.CODE:  # counts its bits, and it joins the ring
        codel.store(S, l, p)
    elif code == pie.CODE:  # counts its bits, and it joins the ring
        pie.store(S, l, p)
    return False


@handler
def queue_select(S, code, l):
    """The packet link ``l`` sends next, taken out of the discipline's store (-1: none
    waiting), or :data:`RINGS` for a discipline that keeps its packets in the rings.
    Called when a transmission ends, before the link's counts change (DECbit
    integrates its queue length here; RIO uncounts the ring's head if it is in
    profile; CoDel takes its packets off the ring itself, dropping some)."""
    if code == fair_queueing.CODE:
        return fair_queueing.select(S, l)
    if code == abe.CODE:
        return abe.select(S, l)
    if code == codel.CODE:  # drops (or marks) at dequeue, RFC 8289
        return codel.select(S, l)
    if code == drr.CODE:  # deficit round robin over the conversations' rings
        return drr.select(S, l)
    if code == fqcodel.CODE:  # RFC 8290's dequeue, CoDel on the chosen queue
        return fqcodel.select(S, l)
    if code == pie.CODE:  # takes the ring's head, measuring the delay (RFC 8033)
        return pie.select(S, l)
    if code == decbit.CODE:
        decbit.on_depart(S, l)
    elif code == rio.CODE:
        rio.on_depart(S, l)
    return RINGS


@handler
def queue_timer(S, code, l, k):
    """Link ``l``'s queue's timer slot ``k`` has come due."""
    if code == abe.CODE:
        abe.on_period(S, l)
    elif code == pie.CODE:
        pie.on_update(S, l)
    elif code == pi.CODE:
        pi.on_sample(S, l)


# ---------------------------------------------------------------------- sources
@handler
def source_start(S, code, f):
    """Start an open-loop source's ticks; False for window sources (the caller lets them send)."""
    if code == poisson.CODE:
        poisson.start(S, f)
    elif code == cbr.CODE:
        cbr.start(S, f)
    elif code == onoff.CODE:
        onoff.start(S, f)
    elif code == tcp_friendly.CODE:
        tcp_friendly.start(S, f)
    elif code == web.CODE:  # a window source that opens with a think time
        web.start(S, f)
    else:
        return False
    return True


@handler
def source_next_tick(S, code, f, now):
    """Time of an open-loop source's next packet."""
    if code == cbr.CODE:
        return cbr.next_tick(S, f, now)
    if code == poisson.CODE:
        return poisson.next_tick(S, f, now)
    if code == tcp_friendly.CODE:
        return tcp_friendly.next_tick(S, f, now)
    if code == onoff.CODE:
        return onoff.next_tick(S, f, now)
    return np.inf  # not an open-loop source: no tick


@handler
def source_send_limit(S, code, f):
    """One past the last sequence number a window source may send now."""
    if (code == reno.CODE or code == vegas.CODE or code == web.CODE
            or code == dctcp.CODE):  # (they send as NewReno)
        return reno.send_limit(S, f)
    if code == decbit_window.CODE:
        return decbit_window.send_limit(S, f)
    if code == tcp_friendly.CODE:
        return tcp_friendly.send_limit(S, f)
    if code == accumulation.CODE:
        return accumulation.send_limit(S, f)
    if code == tahoe.CODE:
        return tahoe.send_limit(S, f)
    if code == cubic.CODE:
        return cubic.send_limit(S, f)
    if code == bbr.CODE:  # one packet per pacing slot
        return bbr.send_limit(S, f)
    if code == window.CODE or code == poisson.CODE:  # (Poisson with a window: generic)
        return window.send_limit(S, f)
    return S.fi[f, FI_SND_UNA]  # not a window source: nothing beyond what is acknowledged


@handler
def source_ack(S, code, f, a, ece):
    """A window source's reaction to cumulative ACK ``a`` (``ece``: it echoes a
    congestion indication, an ECN echo or a DECbit)."""
    if code == reno.CODE:
        reno.on_ack(S, f, a, ece)
    elif code == vegas.CODE:
        vegas.on_ack(S, f, a, ece)
    elif code == web.CODE:
        web.on_ack(S, f, a, ece)
    elif code == decbit_window.CODE:
        decbit_window.on_ack(S, f, a, ece)
    elif code == tcp_friendly.CODE:
        tcp_friendly.on_feedback(S, f, a)
    elif code == accumulation.CODE:
        accumulation.on_ack(S, f, a)
    elif code == tahoe.CODE:
        tahoe.on_ack(S, f, a)
    elif code == dctcp.CODE:  # NewReno's processing, then RFC 8257's alpha and reduction
        dctcp.on_ack(S, f, a, ece)
    elif code == cubic.CODE:
        cubic.on_ack(S, f, a)
    elif code == bbr.CODE:
        bbr.on_ack(S, f, a)
    elif code == window.CODE or code == poisson.CODE:
        window.on_ack(S, f, a)


@handler
def source_timeout(S, code, f):
    """A window source's reaction to its retransmission timeout (before going back N)."""
    if code == reno.CODE or code == web.CODE or code == dctcp.CODE:
        reno.on_timeout(S, f)
    elif code == vegas.CODE:
        vegas.on_timeout(S, f)
    elif code == tcp_friendly.CODE:
        tcp_friendly.on_nofeedback(S, f)
    elif code == accumulation.CODE:
        accumulation.on_timeout(S, f)
    elif code == tahoe.CODE:
        tahoe.on_timeout(S, f)
    elif code == cubic.CODE:
        cubic.on_timeout(S, f)
    elif code == bbr.CODE:
        bbr.on_timeout(S, f)


@handler
def receiver_echo(S, code, f, p):
    """The mark bits the receiver of flow ``f`` puts on the ACK of data packet ``p``
    (an ECN echo of a congestion mark by default).  The ACK is ``p`` itself, so
    its tags travel back unless a mechanism changes them here.  A DECbit
    receiver copies the data packet's DECbit."""
    if code == decbit_window.CODE:
        return S.pi[p, PI_MARK] & MARK_DECBIT
    return MARK_ECE if (S.pi[p, PI_MARK] & MARK_CE) != 0 else 0


@handler
def source_timer(S, code, f, k):
    """Flow ``f``'s source timer slot ``k`` (>= 1) has come due; True to let the flow send."""
    if code == accumulation.CODE:
        return accumulation.on_timer(S, f, k)
    if code == web.CODE:
        return web.on_think(S, f, k)
    if code == bbr.CODE:  # the pacing timer
        return bbr.on_pace(S, f, k)
    return False


@handler
def receiver_control(S, code, f, p):
    """A control packet (``MARK_CTRL``) of flow ``f`` reaches its receiver: the source's
    receiver side takes it (it frees it or turns it into an echo)."""
    if code == accumulation.CODE:
        accumulation.receiver_control(S, f, p)
    else:
        release(S, p)


@handler
def source_echo(S, code, f, p):
    """A control packet's echo reaches flow ``f``'s sender (the caller frees it)."""
    if code == accumulation.CODE:
        accumulation.on_echo(S, f, p)


@handler
def receiver_feedback(S, code, f, p):
    """Whether the receiver of open-loop flow ``f`` turns data packet ``p`` into a feedback
    packet (then the hook sets its ``PI_SEQ``); False: the packet is freed."""
    if code == tcp_friendly.CODE:
        return tcp_friendly.feedback(S, f, p)
    return False


@handler
def source_window(S, code, f, windowed):
    """The window to record, packets (NaN for open-loop sources)."""
    if code == reno.CODE or code == vegas.CODE or code == web.CODE or code == dctcp.CODE:
        return reno.window(S, f)
    if code == decbit_window.CODE:
        return decbit_window.window(S, f)
    if code == accumulation.CODE:
        return accumulation.window(S, f)
    if code == tahoe.CODE:
        return tahoe.window(S, f)
    if code == cubic.CODE:
        return cubic.window(S, f)
    if code == bbr.CODE:
        return bbr.window(S, f)
    if windowed:
        return window.window(S, f)
    return np.nan

