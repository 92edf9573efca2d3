"""A rate-based TCP-friendly source: TFRC's machinery with RFC 5348's equation or the ABE
paper's eq (2)."""

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
    paper does not give; the paper asks of them that they be "TCP-friendly"
    conformant, "i.e. they do not send more than a TCP source would for the
    same conditions of loss" (Section II-A).  This source is TFRC (RFC 5348;
    Floyd, Handley, Padhye, Widmer, SIGCOMM 2000): it sends a packet every
    ``1 / X`` seconds and the receiver returns a feedback packet for each one;
    on each feedback the sender updates its smoothed RTT ``R`` (one packet
    timed at a time), its receive rate ``X_recv`` (over at least one RTT) and
    its **loss event rate** ``p`` by the Average Loss Interval method (RFC
    5348, Section 5.4: the last 8 loss intervals, in packets, weighted 1, 1,
    1, 1, 0.8, 0.6, 0.4, 0.2, the open interval included when it raises the
    mean; losses within one RTT of an event's first loss belong to that event;
    the first interval is the one whose equation rate is the receive rate at
    the first loss, Section 6.3.1), then sets ``X = max(min(x(p, R), 2
    X_recv), 1/64)`` packets/s with ``x`` the throughput equation
    ``equation`` names:

    * ``"rfc5348"``: RFC 5348's TCP throughput equation (Section 3.1), ``x =
      1 / (R sqrt(2 b p / 3) + t_RTO (3 sqrt(3 b p / 8)) p (1 + 32 p^2))``
      with ``b = 1`` and ``t_RTO = 4 R`` (Section 4.3), Padhye et al.'s
      model of Reno *with* its retransmission timeouts -- TFRC as the RFC
      specifies it;
    * ``"eq2"`` (the default, this source's behaviour before ``equation``
      existed): the ABE paper's eq (2), ``x = (-p + sqrt(2 p + p^2)) / (R
      p)`` (:func:`qosmodels.abe.throughput`), the AIMD model of the paper's
      ref. [11], which has no timeout term: at the loss event rates of the
      paper's 15 + 15 flow runs (about 0.12) it gives 2.3 times RFC 5348's
      equation, and the source takes about 2.8 times a Reno flow's goodput
      under flat best effort (``qosmodels.experiments.abe_figures``).

    Before the first loss it starts at 4 packets per RTT and doubles once per
    RTT (capped at twice the receive rate); without feedback for ``max(4 R,
    2 / X)`` seconds it halves ``X`` (RFC 5348, Section 4.4).  Lost packets
    are not retransmitted.

    At heavy loss (a loss ratio above about 30%) feedback gaps often outlast
    the no-feedback interval, and the halvings they bring, recovered from at
    most twice the receive rate per round trip, hold the rate below the
    equation's (about 0.7 of eq (2)'s at 40% independent losses;
    ``tests/sim/test_tcp_friendly.py``).

    Differences from RFC 5348, each a simplification: the receiver feeds
    back every data packet (the RFC: at least once per RTT, and at once on a
    new loss event); the sender (not the receiver) keeps the loss history,
    counting as lost every sequence number the receiver reports it has not
    received; losses are grouped into events by when the sender learns of
    them rather than by their send times; the receive rate is measured by
    the sender over at least one RTT; and the RTT is sampled once per round
    trip, without timestamps.

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
    equation : {"eq2", "rfc5348"}
        The throughput equation: the ABE paper's eq (2) (default) or RFC 5348's
        (``b = 1``, ``t_RTO = 4 R``).
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
    Sections 3.1 and 4-6; J. Padhye, V. Firoiu, D. Towsley, J. Kurose,
    "Modeling TCP Throughput", SIGCOMM 1998 (the ABE paper's ref. [4]).

    Examples
    --------
    >>> from qosmodels.mechanisms import TcpFriendly
    >>> TcpFriendly().green, TcpFriendly(green=False).green
    (True, False)
    >>> TcpFriendly().equation, TcpFriendly(equation="rfc5348").equation
    ('eq2', 'rfc5348')
    """

    loss: str = "events"
    initial_rate: float = 1.0
    packet_size: int | None = None
    priority: int = 0
    record: bool = False
    equation: str = "eq2"
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
        if self.equation not in ("eq2", "rfc5348"):
            raise ScenarioError(
                f"TcpFriendly.equation must be 'eq2' (the ABE paper's eq (2)) or 'rfc5348' "
                f"(RFC 5348's TCP throughput equation), got {self.equation!r}")
        set_(self, "initial_rate",
             real(n, "initial_rate", self.initial_rate, gt=0, unit="packets/s"))
        set_(self, "packet_size", _packet_size(n, self.packet_size))
        set_(self, "priority", _priority(n, self.priority))
        _flag(n, "record", self.record)
