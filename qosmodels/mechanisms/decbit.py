"""DECbit: the gateway's congestion bit (plain and selective) and the DECbit window source.

References
----------
R. Jain, K. K. Ramakrishnan, "Congestion avoidance in computer networks with a
connectionless network layer: concepts, goals and methodology", Proc. IEEE
Computer Networking Symposium, 1988; K. K. Ramakrishnan, R. Jain, "A binary
feedback scheme for congestion avoidance in computer networks", ACM TOCS 8(2),
1990 (SIGCOMM '88); K. K. Ramakrishnan, D.-M. Chiu, R. Jain, "Congestion
avoidance in computer networks with a connectionless network layer, part IV: a
selective binary feedback scheme for general topologies", DEC-TR-510, 1987;
A. Demers, S. Keshav, S. Shenker, "Analysis and simulation of a fair queueing
algorithm", SIGCOMM 1989, Sections 3 and 4 (selective DECbit, capacity factor 0.9).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ..errors import ScenarioError
from ._base import QueueSpec, SourceSpec, _colour, _flag, _generic_timeout, _packet_size, _priority

__all__ = ["Decbit", "DecbitWindow"]


@dataclass(frozen=True)
class Decbit(QueueSpec):
    """A FIFO gateway that sets the DECbit congestion bit (Ramakrishnan and Jain).

    The buffer is drop-tail.  On every arrival the gateway computes the
    average queue length over the last *regeneration cycle* (a busy period
    and the idle period after it) plus the current busy period: the integral
    of the number of packets at the link -- waiting *and in transmission* --
    over that interval, divided by its length.  The integral is exact: the
    number is constant between arrivals and departures.  The packet in
    service counts, as in Ramakrishnan and Jain: their target, an average
    of one, is the number in the system at which an M/M/1 server's power
    (throughput / delay) is largest (utilisation 1/2), the "knee".  Before the
    link's first busy period the cycle starts at time 0; an interval of zero
    length averages to the number present.

    **Plain DECbit** (``selective=False``) sets the bit (``MARK_DECBIT``) on
    every arriving data packet while the average is at least 1.

    **Selective DECbit** (``selective=True``) measures each user's demand over
    the same interval: ``d_i``, the bits of user ``i``'s packets that arrived
    in the interval before this one (dropped ones included; the interval is
    half-open, ``[start, now)``) divided by its length.  A user is
    one (flow, direction) crossing of the link, so a flow's ACKs are a user of
    their own and are accounted for but never marked.  The gateway computes
    the max-min fair share of ``T = min(capacity_factor * C, sum d_i)`` by the
    iterative procedure (share ``T / n``; users below it are satisfied and
    leave with their demand; repeat over the rest until none leaves) and
    sets the bit on an arriving data packet of user ``i`` when the link is
    congested -- the average queue is at least 1, *or* the link is overloaded,
    ``sum d_i >= capacity_factor * C`` -- and ``d_i`` is at or above the
    share.  Overloaded, the share is the max-min share of ``capacity_factor
    * C``, so only users above it are told to slow down; congested by the
    queue alone (``sum d_i`` below the target), the share of ``sum d_i`` is
    the largest demand, so the largest users are told.  DEC-TR-510 itself was
    not available to check these rules against: they follow its summary in
    Demers, Keshav and Shenker ("only send congestion signals to those users
    who are using more than their fair share of bandwidth") and the published
    DECbit averaging, and are stated here so that they can be checked.

    ACKs are never marked by the gateway: a DECbit receiver echoes the bit of
    the data packet on its ACK (see :class:`DecbitWindow`).

    Parameters
    ----------
    selective : bool
        Selective DECbit (bits only to users at or above their fair share).
    capacity_factor : float
        Fraction of the link capacity the selective gateway shares out, in
        (0, 1]; the fair-queueing paper uses 0.9.
    record_average : bool
        Record the average queue (packets, the one the bit is decided on) at
        every arrival as the trace channel ``decbit_average``.
    fq_bit : bool
        The fair-queueing paper's **FQ bit-setting** gateway instead: fair
        queueing (:class:`FairQueueing` with ``delta = 0``, as the paper ran it)
        that sets the bit on an arriving data packet when its conversation's
        queue, the packet included, exceeds a third of its fair share of the
        buffer, ``buffer / (3 N)`` with ``N`` the conversations active in the
        fair-queueing emulation (the packet's included).  No average is kept
        ("a much simpler bit-setting algorithm than the DEC scheme"; the
        paper calls the 1/3 "completely ad hoc").  Not with ``selective``.

    References
    ----------
    K. K. Ramakrishnan, R. Jain, ACM TOCS 8(2), 1990, Section 4 (averaging over
    the regeneration cycle, threshold 1); K. K. Ramakrishnan, D.-M. Chiu,
    R. Jain, DEC-TR-510, 1987 (selective feedback); A. Demers, S. Keshav,
    S. Shenker, SIGCOMM 1989, Sections 3 and 4 (and the FQ bit-setting rule,
    Section 4).

    Examples
    --------
    >>> from qosmodels import Link
    >>> Link("a", "b", 1e6, 0.01, buffer=50, queue=Decbit(selective=True)).queue.capacity_factor
    0.9
    """

    selective: bool = False
    capacity_factor: float = 0.9
    record_average: bool = False
    fq_bit: bool = False

    sets_decbit: ClassVar[bool] = True

    @property
    def kind(self) -> str:
        return "fq-bit" if self.fq_bit else "decbit"

    @property
    def kernel(self) -> str:
        """The FIFO DECbit gateway's kernel, or fair queueing's for ``fq_bit=True``."""
        return "queues.fair_queueing" if self.fq_bit else "queues.decbit"

    def __post_init__(self):
        _flag("Decbit", "selective", self.selective)
        _flag("Decbit", "fq_bit", self.fq_bit)
        if self.fq_bit and self.selective:
            raise ScenarioError(
                "Decbit(fq_bit=True, selective=True): the FQ bit-setting gateway is fair "
                "queueing with its own simple rule; selective applies to the FIFO DECbit "
                "gateway only; use one or the other")
        if self.fq_bit and self.record_average:
            raise ScenarioError(
                "Decbit(fq_bit=True, record_average=True): the FQ bit-setting gateway keeps "
                "no average queue; record the round number with FairQueueing(record_round=True) "
                "or drop record_average")
        cf = real("Decbit", "capacity_factor", self.capacity_factor, gt=0)
        if cf > 1:
            raise ScenarioError(
                f"Decbit.capacity_factor must be in (0, 1] (a fraction of the link capacity), "
                f"got {self.capacity_factor!r}")
        object.__setattr__(self, "capacity_factor", cf)
        _flag("Decbit", "record_average", self.record_average)


@dataclass(frozen=True)
class DecbitWindow(SourceSpec):
    """The DECbit source: a window adjusted from the congestion bits its ACKs echo.

    The receiver copies the data packet's DECbit onto its ACK.  The sender
    keeps a real window ``W`` and sends ``floor(W)`` packets past the first
    unacknowledged one.  After a window change from ``W_p`` to ``W_c``
    (``floor`` of the windows before and after), it waits for ``W_p + W_c``
    ACKs (every ACK counts, duplicates too: each echoes one data packet's
    bit), the first ``W_p`` acknowledging packets sent under the old window,
    and counts the bits of the last ``W_c`` only: about two round trips
    apart, with the last window's bits.  If at least ``threshold`` (one
    half) of them were set, ``W <- max(1, decrease * W)``, else
    ``W <- min(max_window, W + increase)``; then the count starts again
    from this change.

    Timeouts are the generic ones (:class:`GenericWindow`): when nothing new
    is acknowledged for ``beta`` times the exponentially averaged RTT, the
    sender resends from the first unacknowledged packet.  A timeout leaves
    the window and the bit count as they are.

    A network in which a ``DecbitWindow`` flow crosses no bit-setting gateway
    (a queue whose spec has ``sets_decbit``, today :class:`Decbit`) is refused
    by ``simulate``: its window would only grow.

    Parameters
    ----------
    max_window : int, packets
        Largest window, >= 1 (the fair-queueing paper uses 5).
    initial_window : float, packets
        Window at the start, in [1, max_window].
    increase : float, packets
        Additive increase, > 0 (1).
    decrease : float
        Multiplicative decrease, in (0, 1) (0.875).
    threshold : float
        Fraction of set bits at or above which the window decreases, in (0, 1] (0.5).
    packet_size : int or None, bytes
    beta : float
        Timeout as a multiple of the averaged RTT, > 1.
    rtt_gain : float
        Weight of a new sample in the RTT average, in (0, 1].
    initial_rtt : float, s
        RTT estimate before the first sample.
    priority : int

    References
    ----------
    K. K. Ramakrishnan, R. Jain, ACM TOCS 8(2), 1990, Section 5 (decision
    frequency: wait ``W_p + W_c`` packets, use the last ``W_c`` bits; 50 %
    cutoff; increase by 1, multiply by 0.875); A. Demers, S. Keshav,
    S. Shenker, SIGCOMM 1989, Section 4 (window of 5, generic timeouts).
    """

    max_window: int = 5
    initial_window: float = 1.0
    increase: float = 1.0
    decrease: float = 0.875
    threshold: float = 0.5
    packet_size: int | None = None
    beta: float = 2.0
    rtt_gain: float = 0.125
    initial_rtt: float = 1.0
    priority: int = 0

    kind: ClassVar[str] = "decbit"
    kernel: ClassVar[str] = "sources.decbit"
    windowed: ClassVar[bool] = True
    needs_decbit: ClassVar[bool] = True

    def __post_init__(self):
        set_ = object.__setattr__
        n = "DecbitWindow"
        _colour(n, self)
        set_(self, "max_window", integer(n, "max_window", self.max_window, ge=1, unit="packets"))
        set_(self, "initial_window",
             real(n, "initial_window", self.initial_window, ge=1, unit="packets"))
        if self.initial_window > self.max_window:
            raise ScenarioError(
                f"DecbitWindow.initial_window must be <= max_window = {self.max_window} packets, "
                f"got {self.initial_window!r}")
        set_(self, "increase", real(n, "increase", self.increase, gt=0, unit="packets"))
        set_(self, "decrease", real(n, "decrease", self.decrease, gt=0))
        if self.decrease >= 1:
            raise ScenarioError(f"DecbitWindow.decrease must be in (0, 1), got {self.decrease!r}")
        set_(self, "threshold", real(n, "threshold", self.threshold, gt=0))
        if self.threshold > 1:
            raise ScenarioError(
                f"DecbitWindow.threshold must be in (0, 1] (a fraction of the bits), "
                f"got {self.threshold!r}")
        set_(self, "packet_size", _packet_size(n, self.packet_size))
        _generic_timeout(n, self)
        set_(self, "priority", _priority(n, self.priority))
