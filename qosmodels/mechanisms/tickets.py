"""Probabilistic Packet Scheduling in packets: the ticket tagger at a flow's ingress and
ticket-based RED (with relabelling) at every link.

PPS (Zhang, Wang, Peterson, Krishnamurthy 2001) gives each flow a share of
the network in tickets per second (t/s).  A source tags each packet with
``OutTktRate / AvgRate`` tickets, ``AvgRate`` its throughput estimated with a
time-sliding window (TSW, Clark and Fang 1998); every link measures the
tickets arriving (``InTktRate``, TSW over all its traffic), relabels each
packet into the currency of the node it enters with
``XRate = OutTktRate / InTktRate``, and drops with ticket-based RED (TRED):
RED's probability times ``(ExpectTkt / InTkt)^3`` between the thresholds.
The analytic side, the same tickets read by :func:`qosmodels.pps.fair_rates`,
is :mod:`qosmodels.pps`; :func:`qosmodels.pps.with_tickets` installs these
mechanisms on a network.

References
----------
M. Zhang, R. Wang, L. Peterson, A. Krishnamurthy, "Probabilistic Packet
Scheduling: Achieving Proportional Share Bandwidth Allocation", Princeton
TR-632-01, 2001 (Sections 2.3-2.8, 3, 4).
TSW: D. Clark,
W. Fang, "Explicit allocation of best-effort packet delivery service",
IEEE/ACM Trans. Networking 6(4), 1998.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ..errors import ScenarioError, ScenarioTypeError
from ._base import EdgeSpec, _flag
from .red import Red

__all__ = ["TicketTagger", "TicketRed", "TSW_WINDOW", "TRED_K"]

#: The paper's TSW window (Section 3: "WinLength ... is set to 60 seconds"), s.
TSW_WINDOW = 60.0
#: TRED's ticket range factor: ExpectTkt averages the tags in [MinTkt, K MinTkt] (Section 2.4.2).
TRED_K = 1.4
VARIANTS = ("sender", "receiver")
RULES = ("tcp", "udp")


def _choice(owner, field, value, allowed):
    if not isinstance(value, str):
        raise ScenarioTypeError(f"{owner}.{field} must be one of {list(allowed)}, got {value!r}")
    if value not in allowed:
        raise ScenarioError(f"{owner}.{field} must be one of {list(allowed)}, got {value!r}")
    return value


def _quantisation(owner, spec):
    """Validate ``bits`` (None or 1..24) and ``unit`` (> 0, tickets per level) in place."""
    if spec.bits is not None:
        bits = integer(owner, "bits", spec.bits, ge=1)
        if bits > 24:
            raise ScenarioError(f"{owner}.bits must be in 1..24 (the paper uses 8), or None for "
                                f"unquantised tags, got {spec.bits!r}")
        object.__setattr__(spec, "bits", bits)
    object.__setattr__(spec, "unit", real(owner, "unit", spec.unit, gt=0, unit="tickets"))


def _tickets(owner, field, value):
    """``None`` or a ticket rate (t/s) finite and > 0."""
    if value is None:
        return None
    return real(owner, field, value, gt=0, unit="tickets/s")


@dataclass(frozen=True)
class TicketTagger(EdgeSpec):
    """PPS's packet tagger at a flow's ingress: ``OutTktRate / AvgRate`` tickets on each packet.

    Stands at an :class:`~qosmodels.Aggregate`'s ingress (one tagger state
    per member flow; :func:`qosmodels.pps.with_tickets` gives each flow an
    aggregate of its own).  Each member's throughput ``AvgRate`` (packets/s)
    is a time-sliding-window estimate (Section 2.3, from Clark and Fang):
    on each ACK reaching a window sender (TCP), with ``AckedPackets`` the
    packets it newly acknowledges,

        AvgRate <- (AvgRate * WinLength + AckedPackets) / (now - TswFront + WinLength),
        TswFront <- now;

    for an open-loop source (UDP, Section 4: "we measure the sending rate")
    the same update with one packet on each packet sent.  Before the first
    update ``AvgRate`` counts as one packet per window.  Each data packet
    carries ``OutTktRate / AvgRate`` tickets in its first link's tag
    (``PF_TAG0``), quantised to ``bits`` bits.

    Parameters
    ----------
    tickets : float, sequence of float, or None, tickets/s
        ``OutTktRate`` of each member, in the currency of the node its first
        link enters (one value for all members, or one per member).
        ``None`` (default): the tickets issued to the member's first link (its
        :class:`TicketRed` queue's ``tickets``), shared equally among the
        tagged flows that start on that link, as
        :func:`qosmodels.pps.fair_rates` shares them.
    window : float, s
        TSW's ``WinLength`` (default 60 s, the paper's).
    bits : int or None
        Tags are whole multiples of ``unit`` in ``[1, 2^bits - 1]`` levels
        (default 8 bits, the paper's ``[0, 255]`` range; at least one level,
        so a tag is never zero; larger tags saturate).  ``None``: unquantised.
    unit : float, tickets
        Tickets per level (default 1: whole tickets).
        :func:`qosmodels.pps.with_tickets` chooses it so that each flow's
        expected tag uses half the range.
    police : bool
        Ticket policing at the source (Section 2.8): the tag is multiplied by
        ``OutTktRate / ActualTktRate``, ``ActualTktRate`` the TSW estimate of
        the tickets the member would put on its packets unpoliced, so that the
        policed tags average ``OutTktRate`` t/s.  (Measured on the policed tags
        it would settle at the geometric mean of the unpoliced rate and
        ``OutTktRate``, correcting only half the excess or shortfall.)
    variant : {"sender", "receiver"}
        ``"receiver"`` (Section 2.7, window sources only): the member's sink
        tags each ACK with ``AckOutTktRate / AckAvgRate`` (``PF_TAG1``;
        ``tickets`` is then the sink's ``AckOutTktRate``, by default the ACK
        tickets issued to the flow's *last* link shared equally), every
        :class:`TicketRed` link on the way back relabels it
        (``AckXRate = AckOutTktRate / AckInTktRate``), and the source's
        ``OutTktRate`` is the TSW rate of the ACK tickets reaching it.  The
        links' :class:`TicketRed` must have ``variant="receiver"`` too.
    record : bool
        Record each member's tag on every data packet as the trace channel
        ``tag_m<i>`` (tickets).

    References
    ----------
    Zhang et al., PPS, Sections 2.3 (tagging, TSW), 2.7.1 (ACK tagging), 2.8
    (policing), 3 (WinLength 60 s, 8-bit tags, Section 3.9), 4 (UDP).

    Examples
    --------
    >>> from qosmodels.mechanisms import TicketTagger
    >>> TicketTagger(tickets=600.0).window
    60.0
    """

    tickets: float | Sequence[float] | None = None
    window: float = TSW_WINDOW
    bits: int | None = 8
    unit: float = 1.0
    police: bool = False
    variant: str = "sender"
    record: bool = False

    kind: ClassVar[str] = "ticket-tagger"
    kernel: ClassVar[str] = "edges.ticket_tagger"

    def __post_init__(self):
        o = "TicketTagger"
        t = self.tickets
        if t is not None:
            if isinstance(t, Sequence) and not isinstance(t, (str, bytes)):
                if not t:
                    raise ScenarioError(f"{o}.tickets must not be empty; give one ticket rate "
                                        f"per member, one for all, or None")
                t = tuple(_tickets(o, f"tickets[{k}]", x) for k, x in enumerate(t))
            elif isinstance(t, numbers.Real) and not isinstance(t, bool):
                t = _tickets(o, "tickets", t)
            else:
                raise ScenarioTypeError(f"{o}.tickets must be a ticket rate (t/s), a sequence of "
                                        f"them (one per member) or None, got {t!r}")
            object.__setattr__(self, "tickets", t)
        object.__setattr__(self, "window", real(o, "window", self.window, gt=0, unit="s"))
        _quantisation(o, self)
        _flag(o, "police", self.police)
        _choice(o, "variant", self.variant, VARIANTS)
        _flag(o, "record", self.record)

    def member_tickets(self, n_members: int) -> tuple[float, ...] | None:
        """The given ticket rates, one per member (``None``: from the links)."""
        if self.tickets is None:
            return None
        if isinstance(self.tickets, tuple):
            if len(self.tickets) != n_members:
                raise ScenarioError(
                    f"TicketTagger.tickets gives {len(self.tickets)} ticket rates for an "
                    f"aggregate of {n_members} flows; give one per member or one for all")
            return self.tickets
        return (self.tickets,) * n_members

    @property
    def levels(self) -> int:
        """The largest tag, in units (0: unquantised)."""
        return 0 if self.bits is None else (1 << self.bits) - 1


@dataclass(frozen=True)
class TicketRed(Red):
    """Ticket-based RED (TRED) with PPS relabelling: the queue of a PPS router's link.

    One FIFO queue and RED's average, thresholds and phases (:class:`Red`).
    On every data packet arriving, with ``InTkt`` its tag (tickets in the
    currency of the node the link leaves):

    1. ``InTktRate`` (t/s) is updated by TSW over all the link's data
       (Section 2.4.2: TSW applied to the aggregate); ``MinTkt`` is the least
       tag seen over the last ``min_interval`` to ``2 min_interval`` seconds;
       a packet with ``InTkt < K MinTkt`` also updates TSW rates of tickets
       and packets whose ratio is ``ExpectTkt``.
    2. ``rule="tcp"`` (Section 2.4.2): below ``min_th`` the packet is
       admitted, at or above ``max_th`` dropped; between them RED's
       probability (after its count spacing) is multiplied by
       ``(ExpectTkt / InTkt)^exponent``, capped at 1.  ``rule="udp"``
       (Section 4): between the thresholds the drop probability is
       ``max(0, 1 - InTkt / AvgTkt)`` with ``AvgTkt = InTktRate / Capacity``
       (capacity in packets/s of the arriving packet's size), and a survivor
       that had ``p > 0`` has its tag raised to ``AvgTkt``.
    3. A packet kept is relabelled into the currency of the node the link
       enters: ``OutTkt = InTkt * XRate``, ``XRate = tickets / InTktRate``
       (Section 2.5); with ``police``, times ``tickets / ActualTktRate``
       (Section 2.8, ``ActualTktRate`` the TSW rate of the tickets it would
       hand on unpoliced, ``InTkt * XRate`` over the packets kept, so that
       what it hands on averages ``tickets`` t/s whatever it drops).  A link
       issued no tickets (``tickets=None``) keeps the currency.  The new tag
       is quantised to ``bits`` bits.

    Acknowledgements crossing the link meet plain RED (probability
    unchanged) and keep their tags.

    Parameters
    ----------
    min_th, max_th, max_p, w_q, gentle, mark, typical_packet_size, record_average
        As for :class:`Red`.
    tickets : float or None, tickets/s
        Sender variant: ``OutTktRate``, the t/s the node the link enters
        issues to it.  Receiver variant: ``AckOutTktRate``, the t/s the node
        the link leaves issues to it in its receiver currency (the data
        exchange rate is then ``AckInTktRate / InTktRate``, Section 2.7.1).
        ``None``: tickets pass unchanged.
    k : float
        ``K`` > 1 of ``[MinTkt, K MinTkt]`` (default 1.4, the paper's).
    window : float, s
        TSW window of the link's rates (default 60 s).
    min_interval : float, s
        The interval over which ``MinTkt`` is the least tag seen (the paper:
        "during some interval"; default 1 s, our choice: a few packets of
        every flow at the paper's rates).
    exponent : float
        The power of ``ExpectTkt / InTkt`` (default 3, the paper's cubic).
    rule : {"tcp", "udp"}
        The drop rule between the thresholds (see above).
    police : bool
        Ticket policing at the link (Section 2.8).
    variant : {"sender", "receiver"}
        Whose tickets the link is issued (see ``tickets``).
    bits, unit
        Quantisation of the tags the link writes, as for :class:`TicketTagger`.
    reissue : (float, float) or None
        ``(time, tickets)``: from ``time`` (s, >= 0) on, the node issues the
        link ``tickets`` t/s instead of ``tickets`` above (Section 3.4,
        "Variable Ticket Allocation": "after 300 seconds, the t/s issued to
        link (S_0, S_3) changes from 1000 to 600").  The link's exchange rate
        uses the new issue at once (its ``InTktRate`` still averages the
        tickets arriving, so tags leave in the new proportion without waiting
        for the TSW window); the flows' taggers keep their tickets, whose
        currency the link converts.  One change per run; needs ``tickets``.
        ``None`` (default): the issue never changes.
    record : bool
        Record the trace channels ``xrate`` (the exchange rate applied to each
        data packet kept) and ``expect_tkt`` (ExpectTkt at each data arrival).

    References
    ----------
    Zhang et al., PPS, Sections 2.4 (RED, TRED), 2.5 (relabelling), 2.7
    (receiver-based), 2.8 (policing), 4 (UDP).

    Examples
    --------
    >>> from qosmodels.mechanisms import TicketRed
    >>> q = TicketRed(tickets=900.0)
    >>> q.k, q.exponent, q.kind
    (1.4, 3.0, 'ticket-red')
    """

    tickets: float | None = None
    k: float = TRED_K
    window: float = TSW_WINDOW
    min_interval: float = 1.0
    exponent: float = 3.0
    rule: str = "tcp"
    police: bool = False
    variant: str = "sender"
    bits: int | None = 8
    unit: float = 1.0
    reissue: tuple[float, float] | None = None
    record: bool = False

    kind: ClassVar[str] = "ticket-red"
    kernel: ClassVar[str] = "queues.ticket_red"

    def __post_init__(self):
        super().__post_init__()
        o = "TicketRed"
        set_ = object.__setattr__
        if self.tickets is not None and (isinstance(self.tickets, bool)
                                         or not isinstance(self.tickets, numbers.Real)):
            raise ScenarioTypeError(f"{o}.tickets must be a ticket rate (t/s) or None, "
                                    f"got {self.tickets!r}")
        set_(self, "tickets", _tickets(o, "tickets", self.tickets))
        kk = real(o, "k", self.k)
        if not kk > 1:
            raise ScenarioError(f"{o}.k must be > 1 (ExpectTkt averages the tags in "
                                f"[MinTkt, k MinTkt]; the paper's is 1.4), got {self.k!r}")
        set_(self, "k", kk)
        set_(self, "window", real(o, "window", self.window, gt=0, unit="s"))
        set_(self, "min_interval", real(o, "min_interval", self.min_interval, gt=0, unit="s"))
        set_(self, "exponent", real(o, "exponent", self.exponent, gt=0))
        _choice(o, "rule", self.rule, RULES)
        _flag(o, "police", self.police)
        _choice(o, "variant", self.variant, VARIANTS)
        if self.variant == "receiver" and self.rule == "udp":
            raise ScenarioError(f"{o}: the UDP rule is sender-based (Section 4; UDP has no "
                                f"ACKs to carry receiver tickets); use variant='sender'")
        _quantisation(o, self)
        set_(self, "reissue", _reissue(o, self.reissue, self.tickets))
        _flag(o, "record", self.record)

    @property
    def levels(self) -> int:
        """The largest tag, in units (0: unquantised)."""
        return 0 if self.bits is None else (1 << self.bits) - 1

    def issued_at(self, t: float) -> float | None:
        """The t/s issued to the link at time ``t`` (s): ``tickets``, or the reissued
        value from its time on."""
        if self.reissue is not None and t >= self.reissue[0]:
            return self.reissue[1]
        return self.tickets


def _reissue(owner, value, tickets):
    """``None`` or ``(time >= 0 s, tickets > 0 t/s)`` as floats, on a link issued tickets."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2:
        raise ScenarioTypeError(
            f"{owner}.reissue must be a pair (time in s, tickets in t/s) or None, got "
            f"{value!r}; e.g. reissue=(300.0, 600.0)")
    if tickets is None:
        raise ScenarioError(
            f"{owner}.reissue={value!r} changes the tickets issued to a link that is issued "
            f"none (tickets=None); give the link tickets=... as well")
    t = real(owner, "reissue[0]", value[0], ge=0, unit="s")
    return (t, _tickets(owner, "reissue[1]", value[1]))


def quantise(tag: float, levels: int, unit: float) -> float:
    """A tag as the packet header carries it: ``unit`` times a whole number of levels in
    ``[1, levels]`` (rounded to the nearest; ``levels = 0``: unquantised).  The plain-Python
    statement of the kernel's rule (for tests and the analytic side)."""
    if levels <= 0:
        return tag
    n = math.floor(tag / unit + 0.5) if math.isfinite(tag) else levels
    return unit * min(max(n, 1), levels)
