"""The one place that knows every queue discipline and source: one function per hook, one
branch per mechanism.

Written by :mod:`qosmodels.sim._gen_dispatch` from the kernel modules' ``HOOKS``: do not
edit, run ``python -m qosmodels.sim._gen_dispatch``.  The engine and the generic handlers
call these hooks with a mechanism's code (``LI_CODE`` of a link, ``FI_CODE`` of a flow,
``EI_CODE`` of an edge element); Numba compiles the loop once, the codes are data.

The edge elements' hooks are in :mod:`.dispatch_edges` (the sender calls them, and the
sources import the sender).
"""

import numpy as np

from ._jit import handler
from .layout import FI_SND_UNA, MARK_CE, MARK_ECE, PI_MARK, RINGS
from .pool import release
from .queues import (
    abe,
    avq,
    codel,
    droptail,
    drr,
    dualpi2,
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
from .queues import decbit as decbit_queue
from .sources import (
    accumulation,
    bbr,
    cbr,
    cubic,
    cubic_rack,
    cubic_sack,
    dctcp,
    onoff,
    poisson,
    prague,
    rap,
    reno,
    reno_rack,
    reno_sack,
    tahoe,
    tcp_friendly,
    vegas,
    web,
    window,
)
from .sources import decbit as decbit_source

#: Queue kernel modules by the ``kernel`` name their specs give.
QUEUES = {"queues.droptail": droptail, "queues.red": red, "queues.priority": priority,
          "queues.random_loss": random_loss, "queues.fair_queueing": fair_queueing,
          "queues.decbit": decbit_queue, "queues.ered": ered, "queues.ticket_red": ticket_red,
          "queues.rio": rio, "queues.abe": abe, "queues.avq": avq, "queues.codel": codel,
          "queues.drr": drr, "queues.pi": pi, "queues.pie": pie, "queues.fqcodel": fqcodel,
          "queues.dualpi2": dualpi2}
#: Source kernel modules by the ``kernel`` name their specs give.
SOURCES = {"sources.reno": reno, "sources.window": window, "sources.cbr": cbr,
           "sources.poisson": poisson, "sources.onoff": onoff, "sources.decbit": decbit_source,
           "sources.tcp_friendly": tcp_friendly, "sources.accumulation": accumulation,
           "sources.vegas": vegas, "sources.web": web, "sources.tahoe": tahoe,
           "sources.dctcp": dctcp, "sources.cubic": cubic, "sources.bbr": bbr,
           "sources.prague": prague, "sources.rap": rap, "sources.reno_rack": reno_rack,
           "sources.cubic_rack": cubic_rack, "sources.reno_sack": reno_sack,
           "sources.cubic_sack": cubic_sack}


@handler
def queue_class(S, code, l, p):
    """The class slot packet ``p`` joins at link ``l`` (-1: no such class)."""
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
    if code == dualpi2.CODE:
        return dualpi2.klass(S, l, p)
    return 0


@handler
def queue_admit(S, code, l, p):
    """-1 to admit (possibly marked), else the drop cause's column (``LI_DROP_EARLY``, ...)."""
    if code == droptail.CODE:
        return droptail.admit(S, l, p)
    if code == red.CODE or code == ered.CODE:
        return ered.admit(S, code, l, p)
    if code == random_loss.CODE:
        return random_loss.admit(S, l, p)
    if code == fair_queueing.CODE:
        return fair_queueing.admit(S, l, p)
    if code == decbit_queue.CODE:
        return decbit_queue.admit(S, l, p)
    if code == ticket_red.CODE:
        return ticket_red.admit(S, l, p)
    if code == rio.CODE:
        return rio.admit(S, l, p)
    if code == abe.CODE:
        return abe.admit(S, l, p)
    if code == avq.CODE:
        return avq.admit(S, l, p)
    if code == pi.CODE:
        return pi.admit(S, l, p)
    if code == pie.CODE:
        return pie.admit(S, l, p)
    if code == fqcodel.CODE:
        return fqcodel.admit(S, l, p)
    if code == dualpi2.CODE:
        return dualpi2.admit(S, l, p)
    return -1


@handler
def queue_store(S, code, l, p, s):
    """Store admitted packet ``p`` (class slot ``s``) at a busy link the discipline's way and
    return ``True``, or ``False`` for the class rings."""
    if code == fair_queueing.CODE:
        return fair_queueing.store(S, l, p, s)
    if code == rio.CODE:
        return rio.store(S, l, p)
    if code == codel.CODE:
        return codel.store(S, l, p)
    if code == drr.CODE:
        return drr.store(S, l, p, s)
    if code == pie.CODE:
        return pie.store(S, l, p)
    if code == fqcodel.CODE:
        return fqcodel.store(S, l, p, s)
    return False


@handler
def queue_select(S, code, l):
    """The packet link ``l`` sends next, taken out of the discipline's store (-1: none), or
    ``RINGS`` for the class rings; called as a transmission ends, before the link's counts
    change."""
    if code == fair_queueing.CODE:
        return fair_queueing.select(S, l)
    if code == decbit_queue.CODE:
        return decbit_queue.select(S, l)
    if code == rio.CODE:
        return rio.select(S, l)
    if code == abe.CODE:
        return abe.select(S, l)
    if code == codel.CODE:
        return codel.select(S, l)
    if code == drr.CODE:
        return drr.select(S, l)
    if code == pie.CODE:
        return pie.select(S, l)
    if code == fqcodel.CODE:
        return fqcodel.select(S, l)
    if code == dualpi2.CODE:
        return dualpi2.select(S, l)
    return RINGS


@handler
def queue_timer(S, code, l, k):
    """Link ``l``'s queue's timer slot ``k`` has come due."""
    if code == abe.CODE:
        abe.on_period(S, l)
    elif code == pi.CODE:
        pi.on_sample(S, l)
    elif code == pie.CODE:
        pie.on_update(S, l)
    elif code == dualpi2.CODE:
        dualpi2.on_update(S, l)


@handler
def source_start(S, code, f):
    """Schedule an open-loop source's first packet; ``False`` for window sources."""
    if code == cbr.CODE:
        cbr.start(S, f)
    elif code == poisson.CODE:
        poisson.start(S, f)
    elif code == onoff.CODE:
        onoff.start(S, f)
    elif code == tcp_friendly.CODE:
        tcp_friendly.start(S, f)
    elif code == web.CODE:
        web.start(S, f)
    elif code == rap.CODE:
        rap.start(S, f)
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
    if code == onoff.CODE:
        return onoff.next_tick(S, f, now)
    if code == tcp_friendly.CODE:
        return tcp_friendly.next_tick(S, f, now)
    if code == rap.CODE:
        return rap.next_tick(S, f, now)
    return np.inf


@handler
def source_send_limit(S, code, f):
    """One past the last sequence number a window source may send now."""
    if code == reno.CODE or code == vegas.CODE or code == web.CODE or code == dctcp.CODE:
        return reno.send_limit(S, f)
    if code == window.CODE or code == poisson.CODE:
        return window.send_limit(S, f)
    if code == decbit_source.CODE:
        return decbit_source.send_limit(S, f)
    if code == tcp_friendly.CODE:
        return tcp_friendly.send_limit(S, f)
    if code == accumulation.CODE:
        return accumulation.send_limit(S, f)
    if code == tahoe.CODE:
        return tahoe.send_limit(S, f)
    if code == cubic.CODE:
        return cubic.send_limit(S, f)
    if code == bbr.CODE:
        return bbr.send_limit(S, f)
    if code == prague.CODE:
        return prague.send_limit(S, f)
    if code == rap.CODE:
        return rap.send_limit(S, f)
    if code == reno_rack.CODE or code == reno_sack.CODE:
        return reno.send_limit_sack(S, f)
    if code == cubic_rack.CODE or code == cubic_sack.CODE:
        return cubic.send_limit_sack(S, f)
    return S.fi[f, FI_SND_UNA]


@handler
def source_ack(S, code, f, a, ece):
    """A window source's reaction to cumulative ACK ``a`` (``ece``: it echoes a congestion
    indication, an ECN echo or a DECbit)."""
    if code == reno.CODE:
        reno.on_ack(S, f, a, ece)
    elif code == window.CODE or code == poisson.CODE:
        window.on_ack(S, f, a)
    elif code == decbit_source.CODE:
        decbit_source.on_ack(S, f, a, ece)
    elif code == tcp_friendly.CODE:
        tcp_friendly.on_feedback(S, f, a)
    elif code == accumulation.CODE:
        accumulation.on_ack(S, f, a)
    elif code == vegas.CODE:
        vegas.on_ack(S, f, a, ece)
    elif code == web.CODE:
        web.on_ack(S, f, a, ece)
    elif code == tahoe.CODE:
        tahoe.on_ack(S, f, a)
    elif code == dctcp.CODE:
        dctcp.on_ack(S, f, a, ece)
    elif code == cubic.CODE:
        cubic.on_ack(S, f, a)
    elif code == bbr.CODE:
        bbr.on_ack(S, f, a)
    elif code == prague.CODE:
        prague.on_ack(S, f, a, ece)
    elif code == rap.CODE:
        rap.on_ack(S, f, a)
    elif code == reno_rack.CODE or code == cubic_rack.CODE:
        reno_rack.on_ack_rack(S, f, a, ece)
    elif code == reno_sack.CODE:
        reno.on_ack_sack(S, f, a, ece)
    elif code == cubic_sack.CODE:
        cubic.on_ack_sack(S, f, a)


@handler
def source_timeout(S, code, f):
    """A window source's reaction to its retransmission timeout, before going back N."""
    if code == reno.CODE or code == web.CODE or code == dctcp.CODE or code == prague.CODE:
        reno.on_timeout(S, f)
    elif code == tcp_friendly.CODE:
        tcp_friendly.on_nofeedback(S, f)
    elif code == accumulation.CODE:
        accumulation.on_timeout(S, f)
    elif code == vegas.CODE:
        vegas.on_timeout(S, f)
    elif code == tahoe.CODE:
        tahoe.on_timeout(S, f)
    elif code == cubic.CODE:
        cubic.on_timeout(S, f)
    elif code == bbr.CODE:
        bbr.on_timeout(S, f)
    elif code == rap.CODE:
        rap.on_timeout(S, f)
    elif code == reno_rack.CODE or code == cubic_rack.CODE:
        reno_rack.on_timeout_rack(S, f)
    elif code == reno_sack.CODE:
        reno.on_timeout_sack(S, f)
    elif code == cubic_sack.CODE:
        cubic.on_timeout_sack(S, f)


@handler
def source_timer(S, code, f, k):
    """Flow ``f``'s source timer slot ``k`` (>= 1) has come due; ``True`` to let the flow
    send."""
    if code == accumulation.CODE:
        return accumulation.on_timer(S, f, k)
    if code == web.CODE:
        return web.on_think(S, f, k)
    if code == bbr.CODE:
        return bbr.on_pace(S, f, k)
    if code == prague.CODE:
        return prague.on_timer(S, f, k)
    if code == rap.CODE:
        return rap.on_step(S, f, k)
    return False


@handler
def source_echo(S, code, f, p):
    """A control packet's echo reaches the sender (the caller frees it)."""
    if code == accumulation.CODE:
        accumulation.on_echo(S, f, p)


@handler
def source_window(S, code, f, windowed):
    """The window to record, packets (NaN for open-loop sources)."""
    if (code == reno.CODE or code == vegas.CODE or code == web.CODE or code == tahoe.CODE
            or code == dctcp.CODE or code == cubic.CODE or code == bbr.CODE
            or code == prague.CODE or code == reno_rack.CODE or code == cubic_rack.CODE
            or code == reno_sack.CODE or code == cubic_sack.CODE):
        return reno.window(S, f)
    if code == decbit_source.CODE:
        return decbit_source.window(S, f)
    if code == accumulation.CODE:
        return accumulation.window(S, f)
    if windowed:
        return window.window(S, f)
    return np.nan


@handler
def receiver_echo(S, code, f, p):
    """The mark bits the ACK of data packet ``p`` carries (an ECN echo by default; a DECbit
    receiver copies ``MARK_DECBIT``)."""
    if code == decbit_source.CODE:
        return decbit_source.echo(S, f, p)
    return MARK_ECE if (S.pi[p, PI_MARK] & MARK_CE) != 0 else 0


@handler
def receiver_control(S, code, f, p):
    """A control packet reaches the receiver: the source's receiver side takes it (frees it or
    turns it into an echo)."""
    if code == accumulation.CODE:
        accumulation.receiver_control(S, f, p)
    else:
        release(S, p)


@handler
def receiver_feedback(S, code, f, p):
    """Whether the receiver of an open-loop flow turns data packet ``p`` into a feedback packet
    (setting its ``PI_SEQ``); ``False``: the packet is freed."""
    if code == tcp_friendly.CODE:
        return tcp_friendly.feedback(S, f, p)
    if code == rap.CODE:
        return rap.feedback(S, f, p)
    return False
