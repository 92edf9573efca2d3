"""Flow Queue CoDel, FQ-CoDel (Hoeiland-Joergensen, McKenney, Taht, Gettys and Dumazet,
RFC 8290, 2018): deficit round robin over hashed flow queues, each a CoDel queue."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ._base import QueueSpec, _flag

__all__ = ["FqCodel", "fmix32"]

_M32 = 0xFFFFFFFF


def fmix32(h: int) -> int:
    """MurmurHash3's 32-bit finaliser (Appleby): a bijection of 32-bit integers whose
    every output bit depends on every input bit.  FqCodel's classifier (:meth:`FqCodel.bucket`)."""
    h &= _M32
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _M32
    h ^= h >> 16
    return h


@dataclass(frozen=True)
class FqCodel(QueueSpec):
    """FQ-CoDel (RFC 8290): packets classified into ``flows`` queues by a hash of their
    flow, the queues served by a deficit round robin that favours new queues, each
    queue managed by CoDel (RFC 8289).

    **Classification** (RFC 8290, Section 4.1.1).  The RFC hashes a packet's
    5-tuple (with a random perturbation) into one of ``flows`` queues.  The
    simulator has no addresses or ports: a packet's key is ``2 * f + d``, ``f``
    its flow's index in the :class:`~qosmodels.Network` (its order among the
    flows) and ``d`` 0 for data and 1 for ACKs (a reverse 5-tuple hashes apart
    in Linux too), and its queue is ``(fmix32(key ^ perturbation) * flows) >>
    32`` (MurmurHash3's 32-bit finaliser, then Linux's ``reciprocal_scale``
    onto ``[0, flows)``): :meth:`bucket`.  Distinct flows may therefore share
    a queue, as hash collisions make them do in Linux; with ``exact=True``
    each conversation (a flow's data, or its ACKs, through the link) has a
    queue of its own and ``flows`` and ``perturbation`` are unused.

    **Enqueue** (Section 4.1).  A packet is time-stamped and joins its
    queue's tail.  A queue on neither list (*inactive*) goes to the tail of
    the list of *new* queues with its credits (deficit) set to ``quantum``;
    an active queue stays where it is.  When the packets waiting (all queues
    together) exceed the link's buffer (:attr:`Link.buffer
    <qosmodels.Link.buffer>`, the RFC's ``limit``), the packet at the head of
    the *fattest* queue (the most bytes waiting, the arrival counted; on a
    tie the lowest queue index, as Linux scans) is dropped, cause
    "overflow".  One packet per arrival: Linux drops a batch of up to 64
    packets, up to half the fattest queue's bytes, to save CPU time; the RFC
    describes dropping from the head of the fattest queue.

    **Dequeue** (Section 4.2).  The scheduler looks at the head of the new
    list, else of the old list.  A queue whose credits are not positive (it
    has sent at least its quantum) gets ``quantum`` more credits and goes to
    the tail of the old list, and the scheduler looks again.  Otherwise CoDel's
    ``dequeue`` (RFC 8289, Section 5, as :class:`Codel` runs it, with the
    queue's own state and bytes) runs on the queue: if it returns a packet,
    the queue's credits lose the packet's size and the packet is sent; if the
    queue is empty, a queue from the new list goes to the tail of the old list
    (so that a flow cannot starve the others by emptying its queue just in
    time to be new again: Section 4.2 and 1.3), and one from the old list
    becomes inactive, and the scheduler looks again.  Linux moves an empty new
    queue to the old list only if the old list is not empty; here it always
    moves, as the RFC's text says.  Credits are "not positive" at zero too,
    as in Linux (the RFC says "negative ... i.e., it has already dequeued at
    least a quantum").

    A packet that finds the link idle is sent at once: the lists are then
    empty (the scheduler found nothing to send), and the RFC's enqueue and
    immediate dequeue of it leaves its queue at the head of the new list with
    ``quantum`` minus its size in credits, CoDel's ``first_above_time`` cleared
    and the queue out of the dropping state (a sojourn time of 0); the kernel
    applies exactly that.  CoDel's drops count as "early" drops.

    Parameters
    ----------
    flows : int
        Number of flow queues the hash spreads flows over, 1 to 65536 (Linux's
        range); RFC 8290's and Linux's default 1024 (Section 5.1).
    quantum : float, bytes
        Credits a queue gets per round, > 0.  RFC 8290 (Section 5.1) sets it to
        the interface MTU by default; 1514 bytes, Linux's default (a 1500-byte
        MTU and the 14-byte Ethernet header, ``psched_mtu``).  Plausible 300 to
        9000.
    target : float, s
        CoDel's acceptable standing queueing delay of each queue, > 0: 5 ms
        (RFC 8290, Section 5.2, as RFC 8289).
    interval : float, s
        CoDel's interval, > 0: 100 ms (RFC 8290, Section 5.2, as RFC 8289).
    mtu : int, bytes
        CoDel's ``MAXPACKET``: a queue left holding at most this many bytes is
        never above target.  1514 bytes, Linux's ``psched_mtu`` for Ethernet,
        like ``quantum`` (an unstated value; :class:`Codel`'s default is 1500).
        Compared with the queue's own bytes, as RFC 8289's pseudo-code run on
        that queue does; Linux's ``fq_codel`` compares the whole qdisc's
        backlog instead.
    exact : bool
        One queue per conversation, no hashing (no collisions); False by default.
    ecn : bool
        ECN-mark ECN-capable data packets (``TcpReno(ecn=True)`` and the like)
        instead of dropping them, as :class:`Codel` does with ``mark=True``
        (Linux's variant).  RFC 8290 (Section 5.1) and Linux enable ECN by
        default; False here, so that non-ECN flows behave as the RFC's
        drop-based pseudo-code (it changes nothing for them either way).
        Overflow drops are never marks.
    perturbation : int
        The hash's perturbation, 0 to 2**32 - 1: another value gives another
        (seeded, reproducible) pattern of collisions, as Linux's random
        perturbation does at each qdisc set-up.  0 by default.  Whatever its
        value, N flows in ``flows`` queues share one somewhere with probability
        1 - prod(1 - k / flows, k < N) (0.39 for 32 flows in 1024 queues); with 0
        and 32 flows, flows 5 and 15 share one.  To compare with a simulator
        whose hash separated every flow, use ``exact=True``
        (``benchmarks/RESULTS.md``, FQ-CoDel against ns-3 at 32 flows).

    References
    ----------
    T. Hoeiland-Joergensen, P. McKenney, D. Taht, J. Gettys, E. Dumazet, "The
    Flow Queue CoDel Packet Scheduler and Active Queue Management Algorithm",
    RFC 8290, January 2018: Section 1.3 (new and old queues), Section 4.1
    (enqueue, classification, the overload drop), Section 4.2 (dequeue),
    Section 5 (defaults).  K. Nichols, V. Jacobson, A. McGregor, J. Iyengar,
    RFC 8289, 2018, Section 5 (CoDel's pseudo-code).  Linux
    ``net/sched/sch_fq_codel.c`` (compared, for the differences noted above).
    A. Appleby, MurmurHash3 (``fmix32``).

    Examples
    --------
    >>> from qosmodels.mechanisms import FqCodel
    >>> q = FqCodel()
    >>> q.flows, q.quantum, q.target, q.interval, q.mtu, q.kind
    (1024, 1514.0, 0.005, 0.1, 1514, 'fq_codel')
    >>> FqCodel(flows=4).bucket(0), FqCodel(flows=4).bucket(0, ack=True)
    (0, 1)
    >>> q.bucket(5) == q.bucket(15), len({q.bucket(f) for f in range(32)})
    (True, 31)
    """

    flows: int = 1024
    quantum: float = 1514.0
    target: float = 0.005
    interval: float = 0.1
    mtu: int = 1514
    exact: bool = False
    ecn: bool = False
    perturbation: int = 0

    kind: ClassVar[str] = "fq_codel"
    kernel: ClassVar[str] = "queues.fqcodel"

    def __post_init__(self):
        n = "FqCodel"
        set_ = object.__setattr__
        set_(self, "flows", integer(n, "flows", self.flows, ge=1, le=65536, unit="queues"))
        set_(self, "quantum", real(n, "quantum", self.quantum, gt=0, unit="bytes"))
        set_(self, "target", real(n, "target", self.target, gt=0, unit="s"))
        set_(self, "interval", real(n, "interval", self.interval, gt=0, unit="s"))
        set_(self, "mtu", integer(n, "mtu", self.mtu, ge=1, unit="bytes"))
        _flag(n, "exact", self.exact)
        _flag(n, "ecn", self.ecn)
        set_(self, "perturbation", integer(n, "perturbation", self.perturbation, ge=0,
                                           le=_M32))

    def bucket(self, flow: int, ack: bool = False) -> int:
        """The queue (``0 .. flows - 1``) the hash puts flow number ``flow``'s data
        (``ack=False``) or ACKs in: ``(fmix32((2 * flow + ack) ^ perturbation) * flows)
        >> 32``.  (With ``exact=True`` the kernel does not hash.)"""
        key = (2 * int(flow) + (1 if ack else 0)) & _M32
        return (fmix32(key ^ self.perturbation) * self.flows) >> 32
