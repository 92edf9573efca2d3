"""A rate-based TCP-friendly source: TFRC's machinery around the ABE paper's eq (2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .._validate import real
from ..errors import ScenarioError
from ._base import SourceSpec, _colour, _flag, _packet_size, _priority

__all__ = ["TcpFriendly"]


@dataclass(frozen=True)
class TcpFriendly(SourceSpec):
    """A rate-based TCP-friendly source, Green by default (ABE's Green source).

    The ABE paper's Green sources use "the rate-based TCP friendly type
    algorithm" of its reference [6], a technical report whose algorithm the
    paper does not give.  This source is TFRC (RFC 5348; Floyd, Handley,
    Padhye, Widmer, SIGCOMM 2000) with the paper's throughput formula, eq (2),
    in place of TFRC's: it sends a packet every ``1 / X`` seconds and the
    receiver returns a feedback packet for each one; on each feedback the
    sender updates its smoothed RTT ``R`` (one packet timed at a time), its
    receive rate ``X_recv`` (over at least one RTT) and its **loss event rate**
    ``p`` by the Average Loss Interval method (RFC 5348, Section 5.4: the last
    8 loss intervals, in packets, weighted 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2, the
    open interval included when it raises the mean; losses within one RTT of
    an event's first loss belong to that event; the first interval is the one
    whose eq (2) rate is the receive rate at the first loss, Section 6.3.1),
    then sets ``X = max(min(x(p, R), 2 X_recv), 1/64)`` packets/s with ``x``
    eq (2) (:func:`qosmodels.abe.throughput`).  Before the first loss it
    starts at 4 packets per RTT and doubles once per RTT (capped at twice the
    receive rate); without feedback for ``max(4 R, 2 / X)`` seconds it halves
    ``X`` (RFC 5348, Section 4.4).  Lost packets are not retransmitted.

    At heavy loss (a loss ratio above about 30%) feedback gaps often outlast
    the no-feedback interval, and the halvings they bring, recovered from at
    most twice the receive rate per round trip, hold the rate below eq (2)'s
    (about 0.7 of it at 40% independent losses; ``tests/sim/test_tcp_friendly.py``).

    Differences from RFC 5348, each a simplification: the sender (not the
    receiver) keeps the loss history, counting as lost every sequence number
    the receiver reports it has not received; losses are grouped into events
    by when the sender learns of them rather than by their send times; and
    the RTT is sampled once per round trip, without timestamps.

    With ``loss="packets"`` every lost packet is a loss event of its own: the
    intervals are those between consecutive losses and ``p`` estimates the
    packet loss *ratio*, the ``q`` of eq (2)'s model (Hurley, Le Boudec and
    Thiran's AIMD analysis, where each loss is a decrease), instead of TFRC's
    loss event rate.

    Parameters
    ----------
    loss : {"events", "packets"}
        What the loss history counts: loss events (TFRC, default) or lost packets.
    initial_rate : float, packets/s
        Rate before the first RTT sample, > 0 (RFC 5348: one packet per second).
    packet_size : int or None, bytes
    priority : int
    green : bool
        True (default): every data packet is Green.
    record : bool
        Record the rate ``tfrc_rate`` (packets/s) and the loss event rate
        ``loss_event_rate`` at every feedback as trace channels (one point
        each per packet; long runs may need ``Record(trace_points=...)``).

    References
    ----------
    P. Hurley, J.-Y. Le Boudec, P. Thiran, "The Asymmetric Best-Effort
    Service", Section II-B and IV-B (Green sources are rate-based and TCP
    friendly) and eq (2); S. Floyd, M. Handley, J. Padhye, J. Widmer, RFC
    5348, "TCP Friendly Rate Control (TFRC): Protocol Specification", 2008,
    Sections 4-6.

    Examples
    --------
    >>> from qosmodels.mechanisms import TcpFriendly
    >>> TcpFriendly().green, TcpFriendly(green=False).green
    (True, False)
    """

    loss: str = "events"
    initial_rate: float = 1.0
    packet_size: int | None = None
    priority: int = 0
    record: bool = False
    green: bool = field(default=True, kw_only=True)

    kind: ClassVar[str] = "tcp-friendly"
    kernel: ClassVar[str] = "sources.tcp_friendly"
    feedback: ClassVar[bool] = True

    def __post_init__(self):
        n = "TcpFriendly"
        set_ = object.__setattr__
        _colour(n, self)
        if self.loss not in ("events", "packets"):
            raise ScenarioError(
                f"TcpFriendly.loss must be 'events' (TFRC's loss event rate) or 'packets' (the "
                f"packet loss ratio), got {self.loss!r}")
        set_(self, "initial_rate",
             real(n, "initial_rate", self.initial_rate, gt=0, unit="packets/s"))
        set_(self, "packet_size", _packet_size(n, self.packet_size))
        set_(self, "priority", _priority(n, self.priority))
        _flag(n, "record", self.record)
