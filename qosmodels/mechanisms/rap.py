"""RAP, the Rate Adaptation Protocol: a rate-based AIMD source (Rejaie, Handley, Estrin 1999)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .._validate import real
from ._base import SourceSpec, _colour, _flag, _packet_size, _priority

__all__ = ["Rap"]


@dataclass(frozen=True)
class Rap(SourceSpec):
    """RAP: a rate-based additive-increase, multiplicative-decrease source.

    The "more sophisticated rate-based TCP friendly unicast protocol" [9] the ABE paper
    names next to TFRC for its Green flows (Hurley, Le Boudec, Thiran, Section IV-B).
    The source sends one packet every inter-packet gap ``IPG`` (its rate is ``packet size
    / IPG``); the receiver acknowledges every packet; the sender

    * **increases** its rate once per smoothed RTT ``SRTT`` by one packet per ``SRTT``:
      ``IPG <- IPG * C / (IPG + C)`` with ``C = SRTT`` (so ``SRTT / IPG``, the packets
      per RTT, grows by exactly 1 per step);
    * **decreases** it on a loss: ``IPG <- IPG / beta`` (``beta = 0.5`` halves the rate),
      then waits one ``SRTT`` before the next increase;
    * reacts to at most one loss per round trip (the "cluster loss" rule): packets sent
      before a decrease are *inactive*, and their losses are not acted on;
    * detects losses by ACKs (a packet is lost when the ACK of a packet at least 3 above
      it arrives while it is still missing) and by a timeout ``mu SRTT + phi VAR``;
    * estimates ``SRTT`` and the mean deviation ``VAR`` by Jacobson's EWMAs;
    * with ``fine_grain=True``, scales the gap between packets by the ratio of a
      short-term to a long-term RTT average, ``FRTT / XRTT`` (the paper's fine-grain
      adaptation), so that the rate follows short-term queueing between the steps.

    There is no slow start, and a loss never brings the rate down to one packet: RAP has
    none of TCP's retransmission timeouts (a timeout is only a loss signal, a decrease
    like any other); lost packets are not retransmitted (RAP leaves reliability to the
    application).

    What the text gave and what is chosen here (the kernel module
    ``qosmodels.sim._kernels.sources.rap`` lists the same): the paper's full text was not
    at hand; the rules above are taken from the paper's abstract and its published
    summaries (increase step, ``IPG / beta`` with ``beta = 0.5``, step length one SRTT,
    cluster-loss rule, timer- and ACK-based detection, fine-grain feedback ``FRTT /
    XRTT``) and compared with ns-2's implementation of RAP (``rap/rap.cc``, ``rap.h``,
    by M. Talwar), whose defaults fill what is unstated: the RTT gains (``delta = 0.5``
    for both EWMAs), ``Timeout = 1.2 SRTT + 4 VAR``, the ACK rule's threshold of 3
    packets, the fine-grain gains (0.9 short-term, 0.01 long-term), the initial timeout
    (2 s) and that the first RTT sample sets ``IPG = SRTT`` (one packet per round trip).
    Chosen here, not from either: the first packet leaves at once with ``IPG = 1 s``
    (ns-2: 2 s, shortened once at start to 1 s), the increase timer starts over at the
    first RTT sample, and ``IPG`` never exceeds 64 s (RFC 5348's ``t_mbi``).

    Differences from the paper and ns-2, each a simplification of the simulator: the RTT
    is sampled from one packet at a time (as TCP without timestamps), not from every
    ACK, so the timer-based detection watches that packet only (a missing packet
    followed by others is found by the ACK rule); the receiver's ACK carries the
    packet's sequence number and the number of packets received so far (ns-2's carries
    the last hole's edges), and a hole is placed just above the highest sequence number
    acknowledged before it (exact while the path does not reorder, as the simulator's
    FIFO paths do not); timeouts are checked by a timer, not before each transmission.

    Parameters
    ----------
    beta : float
        Multiplicative decrease factor of the rate, in (0, 1) (paper and ns-2: 0.5).
    fine_grain : bool
        The fine-grain adaptation (default off): each gap is ``IPG * FRTT / XRTT``.
    packet_size : int or None, bytes
    priority : int
    green : bool
        True: every data packet is Green (ABE); default False.
    record : bool
        Record the rate ``rap_rate`` (packets/s, ``1 / IPG``) at every ACK as a trace
        channel.

    References
    ----------
    R. Rejaie, M. Handley, D. Estrin, "RAP: An End-to-end Rate-based Congestion Control
    Mechanism for Realtime Streams in the Internet", IEEE INFOCOM 1999, Section III (the
    ABE paper's ref. [9]); ns-2, ``rap/rap.cc`` and ``rap/rap.h`` (a comparison only);
    P. Hurley, J.-Y. Le Boudec, P. Thiran, "The Asymmetric Best-Effort Service", Section
    IV-B.

    Examples
    --------
    >>> from qosmodels.mechanisms import Rap
    >>> Rap().beta, Rap().fine_grain, Rap(green=True).green
    (0.5, False, True)
    """

    beta: float = 0.5
    fine_grain: bool = False
    packet_size: int | None = None
    priority: int = 0
    record: bool = False
    green: bool = field(default=False, kw_only=True)

    kind: ClassVar[str] = "rap"
    kernel: ClassVar[str] = "sources.rap"
    feedback: ClassVar[bool] = True

    def __post_init__(self):
        n = "Rap"
        set_ = object.__setattr__
        _colour(n, self)
        set_(self, "beta", real(n, "beta", self.beta, gt=0, lt=1))
        _flag(n, "fine_grain", self.fine_grain)
        set_(self, "packet_size", _packet_size(n, self.packet_size))
        set_(self, "priority", _priority(n, self.priority))
        _flag(n, "record", self.record)
