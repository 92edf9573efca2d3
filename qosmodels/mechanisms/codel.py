"""Controlled Delay, CoDel (Nichols, Jacobson, McGregor and Iyengar, RFC 8289, 2018)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ._base import QueueSpec, _flag

__all__ = ["Codel"]


@dataclass(frozen=True)
class Codel(QueueSpec):
    """Controlled Delay active queue management (RFC 8289): a FIFO that drops at *dequeue*
    when packets have waited longer than ``target`` for at least ``interval``.

    Each packet's sojourn time (the time from its arrival at the queue to the
    moment the link takes it) is measured when the link takes it.  The state
    machine is RFC 8289's Section 5 pseudo-code: ``dodequeue`` takes the head
    packet; a sojourn time below ``target``, or a queue left holding at most
    ``mtu`` bytes after the packet was taken, clears ``first_above_time``; the
    first sojourn time at or above ``target`` sets ``first_above_time = now +
    interval``, and a packet taken at or after ``first_above_time`` is "ok to
    drop".  Outside the dropping state an ok-to-drop packet is dropped, the
    next one is taken, and the dropping state begins with ``count = 1`` (or
    ``count - lastcount`` if that exceeds 1 and ``now - drop_next < 16
    interval``: the drop rate that controlled the last cycle), ``lastcount =
    count`` and ``drop_next = now + interval / sqrt(count)``.  In the dropping
    state, a packet that is not ok to drop ends it; otherwise, while ``now >=
    drop_next``, the packet is dropped, ``count`` grows by one, the next
    packet is taken and ``drop_next`` advances by ``interval / sqrt(count)``
    (the control law) unless that packet ends the dropping state.

    The packet a link sends at once because it found the link idle never waits
    (sojourn time 0), so RFC 8289's dequeue of it would leave the dropping state
    and clear ``first_above_time``; the kernel applies that when the queue runs
    empty.  A full buffer (``Link.buffer`` packets waiting) still drops
    arrivals, as RFC 8289's queue limit does (cause "overflow"); CoDel's own
    drops count as "early" drops (``SimulationResult.link_drops["early"]``).

    Parameters
    ----------
    target : float, s
        Acceptable standing queueing delay, > 0.  RFC 8289's 5 ms (Section 4,
        which sets it at 5 % to 10 % of ``interval``; plausible 1 ms to 20 ms).
    interval : float, s
        Width of the sliding window in which the minimum sojourn time must fall
        below ``target``, > 0.  RFC 8289's 100 ms (Section 4: on the order of a
        worst-case round-trip time; plausible 10 ms to 1 s).
    mtu : int, bytes
        RFC 8289's ``MAXPACKET``: a queue left holding at most this many bytes
        never counts as above target (the pseudo-code's ``bytes() <=
        MAXPACKET``).  The RFC says to use the interface MTU, whose value it
        leaves to the link; 1500 bytes (Ethernet) by default, an unstated
        value.  Plausible 500 to 9000.
    mark : bool
        ECN-mark instead of dropping: an ECN-capable data packet
        (``TcpReno(ecn=True)`` and the like) chosen for a drop is marked
        (congestion experienced) and sent, ``count`` grows as for a drop and
        the next drop time is scheduled (no further packet is taken at that
        dequeue), as Linux's ``codel_dequeue`` does with ``ecn``; other packets
        are dropped.  RFC 8289 (Section 5) allows marking ECN-capable packets
        in place of dropping without fixing the details; False, the RFC's
        pseudo-code, by default.
    record_drops : bool
        Record every drop (or mark) as a point of the trace channel
        ``codel_drops`` (``SimulationResult.traces``): at the time of the drop,
        the value of ``count`` once the drop is accounted for (after the
        increment in the dropping state; the starting value, 1 or the
        carried-over ``count - lastcount``, at the drop that begins it).

    References
    ----------
    K. Nichols, V. Jacobson, A. McGregor (ed.), J. Iyengar (ed.), "Controlled
    Delay Active Queue Management", RFC 8289, January 2018: Section 4
    (setting target and interval, the control law), Section 5 (pseudo-code:
    ``dodequeue``, ``dequeue``, ``control_law``).  K. Nichols, V. Jacobson, "Controlling Queue
    Delay", ACM Queue 10(5), 2012.  Linux ``include/net/codel_impl.h`` (ECN).

    Examples
    --------
    >>> from qosmodels.mechanisms import Codel
    >>> q = Codel()
    >>> q.target, q.interval, q.mtu, q.kind
    (0.005, 0.1, 1500, 'codel')
    """

    target: float = 0.005
    interval: float = 0.1
    mtu: int = 1500
    mark: bool = False
    record_drops: bool = False

    kind: ClassVar[str] = "codel"
    kernel: ClassVar[str] = "queues.codel"

    def __post_init__(self):
        n = "Codel"
        set_ = object.__setattr__
        set_(self, "target", real(n, "target", self.target, gt=0, unit="s"))
        set_(self, "interval", real(n, "interval", self.interval, gt=0, unit="s"))
        set_(self, "mtu", integer(n, "mtu", self.mtu, ge=1, unit="bytes"))
        _flag(n, "mark", self.mark)
        _flag(n, "record_drops", self.record_drops)
