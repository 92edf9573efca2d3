"""Mechanism specifications: queue disciplines and traffic sources as data.

A spec is a frozen dataclass that validates its fields when built, carries a
class-level integer ``code`` that the simulator's kernel dispatches on, and
packs its parameters into a fixed-length row of floats with :meth:`row`, in
the column order that ``qosmodels.sim._kernels.layout`` names.  Adding a
mechanism means adding a spec here, its columns in the layout and its
handlers in the kernel; the event loop is not restructured (DESIGN.md,
practice 2).

References
----------
S. Floyd, V. Jacobson, "Random early detection gateways for congestion
avoidance", IEEE/ACM Trans. Networking 1(4), 1993 (:class:`Red`).
V. Jacobson, "Congestion avoidance and control", SIGCOMM 1988; W. Stevens,
RFC 2001; S. Floyd, T. Henderson, RFC 2582 (:class:`TcpReno`,
:class:`TcpNewReno`).  A. Demers, S. Keshav, S. Shenker, "Analysis and
simulation of a fair queueing algorithm", SIGCOMM 1989, Section 3
(:class:`GenericWindow`, :class:`Poisson` as the Telnet source).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ..errors import ScenarioError, ScenarioTypeError
from ._kernels import layout as K

__all__ = [
    "QueueSpec", "SourceSpec", "DropTail", "Red", "Priority", "RandomLoss",
    "TcpReno", "TcpNewReno", "GenericWindow", "Cbr", "Poisson", "OnOff",
]

#: Length of a packed parameter row; kernels index rows by named column constants.
PARAM_ROW = K.PARAM_ROW


class _Spec(abc.ABC):
    """Common base: an integer code and a packed parameter row."""

    code: ClassVar[int]
    kind: ClassVar[str]
    #: The fields packed into :meth:`row`, in the kernel's column order.
    _ROW: ClassVar[tuple[str, ...]] = ()

    def row(self) -> tuple[float, ...]:
        """The spec's numeric parameters as a row of ``PARAM_ROW`` floats (zero-padded;
        ``None`` packs as 0)."""
        values = tuple(0.0 if getattr(self, k) is None else float(getattr(self, k))
                       for k in self._ROW)
        if len(values) > PARAM_ROW:  # a spec with too many fields is a programming error
            raise RuntimeError(f"{type(self).__name__} has more than {PARAM_ROW} parameters")
        return values + (0.0,) * (PARAM_ROW - len(values))


class QueueSpec(_Spec):
    """Base class of queue disciplines (the ``queue`` of a :class:`~qosmodels.Link`).

    Every discipline counts its buffer in packets *waiting*: the packet being
    transmitted has left the queue (as in ns-3's device queues)."""

    #: Number of FIFO classes the discipline keeps.
    @property
    def n_classes(self) -> int:
        return 1


class SourceSpec(_Spec):
    """Base class of traffic sources (the ``source`` of a :class:`~qosmodels.Flow`).

    Every source has ``packet_size`` (bytes, ``None``: the flow's
    ``packet_size``) and ``priority`` (the class it uses in a
    :class:`Priority` queue, 0 the highest)."""

    #: True for sources whose receiver acknowledges packets (window sources).
    windowed: ClassVar[bool] = False


def _packet_size(owner, value):
    if value is None:
        return None
    return integer(owner, "packet_size", value, ge=1, unit="bytes")


def _priority(owner, value):
    return integer(owner, "priority", value, ge=0)


def _flag(owner, field, value):
    if not isinstance(value, bool):
        raise ScenarioTypeError(f"{owner}.{field} must be True or False, got {value!r}")
    return value


# --------------------------------------------------------------------------- queues


@dataclass(frozen=True)
class DropTail(QueueSpec):
    """First-come first-served queue that drops arrivals when the buffer is full."""

    code: ClassVar[int] = K.Q_DROPTAIL
    kind: ClassVar[str] = "droptail"


@dataclass(frozen=True)
class Red(QueueSpec):
    """Random early detection (Floyd and Jacobson 1993).

    On every arrival the average queue ``avg`` (packets waiting) is updated,
    ``avg <- (1 - w_q) avg + w_q q``; after an idle period of length ``t`` it is
    first decayed as if ``t / s`` empty packets had arrived, with ``s`` the
    transmission time of a ``typical_packet_size`` packet.  Between ``min_th``
    and ``max_th`` a packet is dropped (or marked) with probability
    ``p_a = p_b / (1 - count p_b)``, ``p_b = max_p (avg - min_th) / (max_th -
    min_th)`` and ``count`` the packets since the last drop (the paper's
    uniform spacing).  Above ``max_th`` every packet is dropped; in ``gentle``
    mode ``p_b`` rises linearly from ``max_p`` at ``max_th`` to 1 at
    ``2 max_th`` instead.  A full buffer drops regardless (cause "overflow").

    Parameters
    ----------
    min_th, max_th : float, packets
        Thresholds on the average queue, ``0 <= min_th < max_th``.
    max_p : float
        Drop probability at ``max_th``, in (0, 1].
    w_q : float
        Weight of the exponential average, in (0, 1].
    gentle : bool
        Ramp from ``max_p`` to 1 between ``max_th`` and ``2 max_th``.
    mark : bool
        Mark packets (ECN congestion experienced) instead of dropping them
        early; forced drops above ``max_th`` (or ``2 max_th`` if gentle) remain
        drops.  Senders with ``ecn=True`` halve their window on a mark.
    typical_packet_size : int, bytes
        Size used to convert idle time into "empty arrivals".

    References
    ----------
    S. Floyd, V. Jacobson, IEEE/ACM Trans. Networking 1(4), 1993, Section 4
    and Figure 2; S. Floyd, "Optimum functions for computing the drop
    probability" (gentle RED), 1997.
    """

    min_th: float = 5.0
    max_th: float = 15.0
    max_p: float = 0.1
    w_q: float = 0.002
    gentle: bool = False
    mark: bool = False
    typical_packet_size: int = 1000

    code: ClassVar[int] = K.Q_RED
    kind: ClassVar[str] = "red"
    _ROW: ClassVar[tuple[str, ...]] = ("min_th", "max_th", "max_p", "w_q", "gentle", "mark",
                                       "typical_packet_size")

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "min_th", real("Red", "min_th", self.min_th, ge=0, unit="packets"))
        set_(self, "max_th", real("Red", "max_th", self.max_th, gt=0, unit="packets"))
        if not self.min_th < self.max_th:
            raise ScenarioError(
                f"Red.min_th must be below Red.max_th, got min_th = {self.min_th!r} and "
                f"max_th = {self.max_th!r} packets"
            )
        set_(self, "max_p", real("Red", "max_p", self.max_p, gt=0))
        if self.max_p > 1:
            raise ScenarioError(f"Red.max_p must be in (0, 1], got {self.max_p!r}")
        set_(self, "w_q", real("Red", "w_q", self.w_q, gt=0))
        if self.w_q > 1:
            raise ScenarioError(f"Red.w_q must be in (0, 1], got {self.w_q!r}")
        _flag("Red", "gentle", self.gentle)
        _flag("Red", "mark", self.mark)
        set_(self, "typical_packet_size",
             integer("Red", "typical_packet_size", self.typical_packet_size, ge=1, unit="bytes"))


@dataclass(frozen=True)
class Priority(QueueSpec):
    """Strict priority over ``classes`` FIFO classes; class 0 is served first.

    A packet's class is its source's ``priority``.  Each class is a drop-tail
    FIFO with its own buffer of the link's ``buffer`` packets, so a backlog of
    low-priority traffic never blocks the high-priority class (the ACC paper's
    out-of-band queue for control packets).  Service is non-preemptive.

    Parameters
    ----------
    classes : int
        Number of classes, >= 2.
    """

    classes: int = 2

    code: ClassVar[int] = K.Q_PRIORITY
    kind: ClassVar[str] = "priority"
    _ROW: ClassVar[tuple[str, ...]] = ("classes",)

    def __post_init__(self):
        object.__setattr__(self, "classes", integer("Priority", "classes", self.classes, ge=2))

    @property
    def n_classes(self) -> int:
        return self.classes


@dataclass(frozen=True)
class RandomLoss(QueueSpec):
    """A drop-tail FIFO that also drops each arriving packet with probability ``p``,
    independently (a lossy link: the setting of the square-root law).

    Parameters
    ----------
    p : float
        Loss probability, in [0, 1).

    References
    ----------
    M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic behavior of the
    TCP congestion avoidance algorithm", Computer Communication Review 27(3), 1997.
    """

    p: float = 0.01

    code: ClassVar[int] = K.Q_RANDOM_LOSS
    kind: ClassVar[str] = "random-loss"
    _ROW: ClassVar[tuple[str, ...]] = ("p",)

    def __post_init__(self):
        object.__setattr__(self, "p", real("RandomLoss", "p", self.p, ge=0))
        if not self.p < 1:
            raise ScenarioError(f"RandomLoss.p must be in [0, 1), got {self.p!r}")


# --------------------------------------------------------------------------- sources


@dataclass(frozen=True)
class TcpReno(SourceSpec):
    """A greedy (always backlogged) TCP Reno sender, counting in packets.

    Slow start (+1 per new ACK), congestion avoidance (+1/cwnd per new ACK),
    fast retransmit on the third duplicate ACK (``ssthresh = max(flight/2,
    2)``, ``cwnd = ssthresh + 3``, +1 per further duplicate), fast recovery
    left on the first new ACK (Reno) -- :class:`TcpNewReno` stays in recovery
    until all data outstanding at the loss is acknowledged, retransmitting the
    next hole on each partial ACK.  Retransmission timeout from Jacobson and
    Karels' estimator (``srtt + 4 rttvar``, gains 1/8 and 1/4, one timed
    segment per RTT by default, Karn's rule), clamped to ``[min_rto, max_rto]`` and
    doubled on each expiry; a timeout sets ``ssthresh = max(flight/2, 2)``,
    ``cwnd = 1`` and resends from the first unacknowledged packet
    (go-back-N).  The receiver acknowledges every packet cumulatively and
    buffers out-of-order packets; no delayed ACKs, no SACK.

    Parameters
    ----------
    packet_size : int or None, bytes
        Data packet size (``None``: the flow's ``packet_size``).
    max_window : int, packets
        Largest window the sender uses (the receiver's advertised window;
        1000 as in the reference simulator).  Without SACK, a loss of
        hundreds of packets from one huge window takes as many round trips
        to repair, and the window inflated meanwhile sets the next
        ``ssthresh``: very large advertised windows let one flow lock itself
        into long recoveries, as real NewReno without SACK does.
    initial_window : int, packets
        Congestion window at start.
    initial_ssthresh : float or None, packets
        Slow-start threshold at start (``None``: ``max_window``).
    min_rto, max_rto, initial_rto : float, s
        Bounds and initial value of the retransmission timeout.
    ecn : bool
        React to ECN marks (RFC 3168): halve the window at most once per
        window of data, without retransmitting.
    priority : int
        Class in a :class:`Priority` queue (0 highest).
    rtt_samples : {"segment", "ack"}
        Where RTT samples come from.  ``"segment"`` (default, as the reference
        C simulator and BSD TCP without timestamps): one packet is timed at a
        time, a sample when an ACK covers it, so about one sample per round
        trip.  ``"ack"`` (as ns-3 and Linux without timestamps): every ACK that
        acknowledges new data gives a sample, the time since the oldest packet
        it acknowledges was sent, unless that packet was retransmitted (Karn).
    timer : {"reference", "impatient", "slow-but-steady"}
        When the retransmission timer is restarted.  Every rule starts it when
        a packet leaves with none running (RFC 6298, rule 5.1), stops it when
        everything is acknowledged (5.2) and doubles the RTO on expiry (5.5,
        up to ``max_rto``).

        * ``"reference"`` (default, as the reference C simulator): restarted,
          with the current RTO, on every ACK of new data, on the fast
          retransmit and on every partial ACK; a backed-off RTO stays until
          the next RTT sample.
        * ``"impatient"`` (as ns-3's ``TcpSocketBase``): restarted on every
          ACK of new data (RFC 6298, rule 5.3) but not on the fast retransmit,
          which leaves the timer running from the last new ACK; during a
          NewReno recovery only the first partial ACK restarts it (RFC 6582,
          Section 3.2, step 5, the "Impatient" variant), so a recovery longer
          than an RTO ends in a timeout.  Each restart recomputes the RTO from
          the estimator (``srtt + 4 rttvar``, clamped), clearing the backoff
          (RFC 6298, Section 5, last paragraph: the RTO "collapses" after a
          backoff; ns-3 does it on every new ACK, with or without a sample).
        * ``"slow-but-steady"``: as ``"impatient"``, but every partial ACK
          restarts the timer (the "Slow-but-Steady" variant of RFC 6582,
          Section 3.2, step 5).

        Reno has no partial ACKs: for :class:`TcpReno` the two RFC rules are
        the same.
    recovery : {"inflation", "pipe"}
        How much the sender may send during fast recovery.

        * ``"inflation"`` (default, RFC 5681 Section 3.2 and RFC 6582
          Section 3.2): ``cwnd = ssthresh + 3`` at the fast retransmit, +1 per
          further duplicate ACK; a NewReno partial ACK deflates it by the
          amount acknowledged and adds one back.
        * ``"pipe"`` (as ns-3's ``TcpClassicRecovery`` without SACK and
          without limited transmit): ``cwnd = ssthresh`` throughout the
          recovery and the sender sends while the packets it believes in
          flight ("pipe", RFC 6675 Section 2) are fewer than ``cwnd``.  Without
          SACK, ns-3 counts each duplicate ACK from the third on as one
          packet "SACKed" above SND.UNA (the first two, which arrive before
          the recovery, are not counted); the fast retransmit sets ``ssthresh
          = max((flight - SACKed)/2, 2)``; a partial ACK removes the marks on
          the packets it acknowledges, resends the new first unacknowledged
          packet and leaves ``cwnd`` alone; leaving the recovery sets ``cwnd =
          ssthresh`` and applies one congestion-avoidance increase.  A mark
          left on the new first unacknowledged packet (more duplicate ACKs than
          packets acknowledged, e.g. after duplicates) moves to the next packet
          and that first packet is resent, also outside a recovery.  A timeout
          sets ``ssthresh = max((flight - SACKed)/2, 2)`` and drops the marks.
          While a first unacknowledged packet resent that way (marked lost,
          with a mark above it) is unacknowledged, ns-3's ``IsLost`` holds for
          it: the first duplicate ACK outside a recovery starts one (RFC 6675,
          Section 5, step (2)), without waiting for the third.

    window_arithmetic : {"packets", "bytes"}
        How the congestion window is counted.

        * ``"packets"`` (default): a real number of packets; congestion
          avoidance adds ``1/cwnd`` per ACK of new data and a halving sets
          ``flight/2``.
        * ``"bytes"`` (as ns-3): a whole number of bytes of ``segment_size``-byte
          segments; congestion avoidance adds ``max(1, floor(S*S/cwnd))`` bytes
          per ACK of new data (ns-3's ``TcpNewReno::CongestionAvoidance``, which
          truncates each step: about ``cwnd/2`` bytes fewer per round trip), a
          halving sets ``floor(flight * S / 2)`` bytes (``GetSsThresh``) and slow
          start adds one segment.  The window is still reported in packets
          (bytes / S); a packet leaves when a whole segment fits, as in ns-3.
    segment_size : int or None, bytes
        The segment size ``S`` of ``window_arithmetic="bytes"`` (required
        there, unused otherwise): the TCP payload, e.g. 958 for ns-3's
        1000-byte packets (IPv4, TCP and PPP headers take 42 bytes).

    References
    ----------
    V. Jacobson, "Congestion avoidance and control", SIGCOMM 1988 (one timed
    segment per RTT).  RFC 6298, Sections 2 and 3 (estimator, Karn's rule; RTT
    samples "at least once per RTT") and Section 5 (timer management, rules
    5.1-5.7).  RFC 6582, Section 3.2, step 5 (NewReno's timer on partial ACKs:
    "Impatient" and "Slow-but-Steady").  P. Karn and C. Partridge, "Improving
    round-trip time estimates in reliable transport protocols", SIGCOMM 1987.
    ns-3.44, ``src/internet/model/tcp-socket-base.cc``: ``SendDataPacket``
    (schedules the timer only when none is pending), ``NewAck`` (cancels it,
    recomputes ``m_rto`` from the estimator and reschedules it),
    ``ProcessAck`` (``NewAck(ackNumber, m_isFirstPartialAck)`` on a partial
    ACK).  For ``recovery="pipe"``: RFC 5681 Section 3.2 (window inflation),
    RFC 6675 Sections 2 and 5 (pipe, ``SetPipe``, ``NextSeg``), RFC 3042
    (limited transmit, off in the ns-3 configuration); ns-3.44
    ``tcp-socket-base.cc`` (``DupAck``: ``AddRenoSack`` per duplicate ACK in
    ``CA_RECOVERY``, none in ``CA_DISORDER`` without limited transmit;
    ``EnterRecovery``: ``GetSsThresh(BytesInFlight() + segment)`` after
    ``AddRenoSack`` and ``MarkHeadAsLost``; ``ProcessAck``; ``ReTxTimeout``:
    ``GetSsThresh(BytesInFlight())`` then ``ResetRenoSack``; ``AvailableWindow``
    = ``cWnd - BytesInFlight()``), ``tcp-recovery-ops.cc``
    (``TcpClassicRecovery``: ``m_cWnd = m_ssThresh``, only the traced
    ``m_cWndInfl`` inflates) and ``tcp-tx-buffer.cc`` (``BytesInFlight =
    sent - SACKed - lost + retransmitted``; ``AddRenoSack`` marks the first
    unmarked packet after the head; ``DiscardUpTo`` moves a mark off the head
    and calls ``MarkHeadAsLost``; ``NextSeg`` resends lost packets first;
    ``IsLost``: false at or above the highest mark, else true for a packet
    marked lost, which stays marked while retransmitted) and
    ``tcp-socket-base.cc`` ``DupAck`` (in ``CA_DISORDER``: ``EnterRecovery``
    when ``m_dupAckCount == m_retxThresh`` or ``IsLost(m_highRxAckMark)``).
    For ``window_arithmetic="bytes"``: ns-3.44 ``tcp-congestion-ops.cc``
    (``TcpNewReno::SlowStart``, ``CongestionAvoidance``, ``GetSsThresh``).
    """

    packet_size: int | None = None
    max_window: int = 1000
    initial_window: int = 1
    initial_ssthresh: float | None = None
    min_rto: float = 0.2
    max_rto: float = 60.0
    initial_rto: float = 1.0
    ecn: bool = False
    priority: int = 0
    rtt_samples: str = "segment"
    timer: str = "reference"
    recovery: str = "inflation"
    window_arithmetic: str = "packets"
    segment_size: int | None = None

    code: ClassVar[int] = K.S_RENO
    kind: ClassVar[str] = "reno"
    windowed: ClassVar[bool] = True
    _ROW: ClassVar[tuple[str, ...]] = ("max_window", "initial_window", "initial_ssthresh",
                                       "min_rto", "max_rto", "initial_rto", "ecn",
                                       "_rtt_per_ack", "_timer_code", "_recovery_code",
                                       "_segment_bytes")
    _RTT_SAMPLES: ClassVar[tuple[str, ...]] = ("segment", "ack")
    _TIMERS: ClassVar[dict[str, int]] = {"reference": K.TIMER_REFERENCE,
                                         "impatient": K.TIMER_IMPATIENT,
                                         "slow-but-steady": K.TIMER_SLOW}
    _RECOVERIES: ClassVar[dict[str, int]] = {"inflation": K.RECOVERY_INFLATION,
                                             "pipe": K.RECOVERY_PIPE}

    @property
    def _rtt_per_ack(self) -> float:
        # packed in the kernel's TCP_RTT_PER_ACK column
        return 1.0 if self.rtt_samples == "ack" else 0.0

    @property
    def _timer_code(self) -> float:
        # packed in the kernel's TCP_TIMER column
        return float(self._TIMERS[self.timer])

    @property
    def _recovery_code(self) -> float:
        # packed in the kernel's TCP_RECOVERY column
        return float(self._RECOVERIES[self.recovery])

    @property
    def _segment_bytes(self) -> float:
        # packed in the kernel's TCP_SEGMENT column (0: window_arithmetic="packets")
        return float(self.segment_size) if self.window_arithmetic == "bytes" else 0.0

    def __post_init__(self):
        name = type(self).__name__
        set_ = object.__setattr__
        set_(self, "packet_size", _packet_size(name, self.packet_size))
        set_(self, "max_window", integer(name, "max_window", self.max_window, ge=1, unit="packets"))
        set_(self, "initial_window",
             integer(name, "initial_window", self.initial_window, ge=1, unit="packets"))
        if self.initial_ssthresh is not None:
            set_(self, "initial_ssthresh",
                 real(name, "initial_ssthresh", self.initial_ssthresh, ge=2, unit="packets"))
        set_(self, "min_rto", real(name, "min_rto", self.min_rto, gt=0, unit="s"))
        set_(self, "max_rto", real(name, "max_rto", self.max_rto, gt=0, unit="s"))
        if self.max_rto < self.min_rto:
            raise ScenarioError(f"{name}.max_rto must be >= min_rto = {self.min_rto!r} s, "
                                f"got {self.max_rto!r}")
        set_(self, "initial_rto", real(name, "initial_rto", self.initial_rto, gt=0, unit="s"))
        _flag(name, "ecn", self.ecn)
        set_(self, "priority", _priority(name, self.priority))
        if not isinstance(self.rtt_samples, str) or self.rtt_samples not in self._RTT_SAMPLES:
            raise ScenarioError(f"{name}.rtt_samples must be 'segment' (one timed packet per "
                                f"round trip) or 'ack' (a sample from every new ACK), got "
                                f"{self.rtt_samples!r}")
        if not isinstance(self.timer, str) or self.timer not in self._TIMERS:
            raise ScenarioError(f"{name}.timer must be 'reference', 'impatient' or "
                                f"'slow-but-steady' (the retransmission-timer rules), got "
                                f"{self.timer!r}")
        if not isinstance(self.recovery, str) or self.recovery not in self._RECOVERIES:
            raise ScenarioError(f"{name}.recovery must be 'inflation' (RFC 5681/6582 window "
                                f"inflation) or 'pipe' (ns-3's classic recovery without SACK), "
                                f"got {self.recovery!r}")
        if (not isinstance(self.window_arithmetic, str)
                or self.window_arithmetic not in ("packets", "bytes")):
            raise ScenarioError(f"{name}.window_arithmetic must be 'packets' (a real-valued "
                                f"window in packets) or 'bytes' (ns-3's whole-byte window), got "
                                f"{self.window_arithmetic!r}")
        if self.segment_size is not None:
            set_(self, "segment_size",
                 integer(name, "segment_size", self.segment_size, ge=1, unit="bytes"))
        elif self.window_arithmetic == "bytes":
            raise ScenarioError(f"{name}.window_arithmetic='bytes' needs segment_size, the "
                                f"segment size in bytes (e.g. 958 for ns-3's 1000-byte packets: "
                                f"minus IPv4, TCP and PPP headers), got None")


@dataclass(frozen=True)
class TcpNewReno(TcpReno):
    """TCP NewReno (RFC 2582): :class:`TcpReno` whose fast recovery lasts until
    every packet outstanding at the loss is acknowledged; a partial ACK
    retransmits the next hole and deflates the window by the amount acknowledged."""

    code: ClassVar[int] = K.S_NEWRENO
    kind: ClassVar[str] = "newreno"


@dataclass(frozen=True)
class GenericWindow(SourceSpec):
    """The fair-queueing paper's "generic" flow control: a fixed window.

    A greedy sender keeps ``window`` packets unacknowledged; the receiver
    acknowledges cumulatively.  There is no fast retransmit: when nothing new
    is acknowledged for ``beta`` times the exponentially averaged round-trip
    time, the sender resends from the first unacknowledged packet.

    Parameters
    ----------
    window : int, packets
    packet_size : int or None, bytes
    beta : float
        Timeout as a multiple of the averaged RTT, > 1 (the paper uses 2).
    rtt_gain : float
        Weight of a new sample in the RTT average, in (0, 1].
    initial_rtt : float, s
        RTT estimate before the first sample.
    priority : int

    References
    ----------
    Demers, Keshav, Shenker, SIGCOMM 1989, Section 3.1 ("generic" flow control).
    """

    window: int = 5
    packet_size: int | None = None
    beta: float = 2.0
    rtt_gain: float = 0.125
    initial_rtt: float = 1.0
    priority: int = 0

    code: ClassVar[int] = K.S_GENERIC
    kind: ClassVar[str] = "generic"
    windowed: ClassVar[bool] = True
    _ROW: ClassVar[tuple[str, ...]] = ("window", "beta", "rtt_gain", "initial_rtt")

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "window", integer("GenericWindow", "window", self.window, ge=1, unit="packets"))
        set_(self, "packet_size", _packet_size("GenericWindow", self.packet_size))
        set_(self, "beta", real("GenericWindow", "beta", self.beta, gt=1))
        set_(self, "rtt_gain", real("GenericWindow", "rtt_gain", self.rtt_gain, gt=0))
        if self.rtt_gain > 1:
            raise ScenarioError(f"GenericWindow.rtt_gain must be in (0, 1], got {self.rtt_gain!r}")
        set_(self, "initial_rtt",
             real("GenericWindow", "initial_rtt", self.initial_rtt, gt=0, unit="s"))
        set_(self, "priority", _priority("GenericWindow", self.priority))


@dataclass(frozen=True)
class Cbr(SourceSpec):
    """Constant bit rate (UDP): one packet every ``packet_size * 8 / rate`` seconds.

    No acknowledgements and no reaction to loss; a rate above the first
    link's capacity makes the paper's ill-behaved source.

    Parameters
    ----------
    rate : float, bit/s
    packet_size : int or None, bytes
    priority : int
    """

    rate: float = 1e6
    packet_size: int | None = None
    priority: int = 0

    code: ClassVar[int] = K.S_CBR
    kind: ClassVar[str] = "cbr"
    _ROW: ClassVar[tuple[str, ...]] = ("rate",)

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "rate", real("Cbr", "rate", self.rate, gt=0, unit="bit/s"))
        set_(self, "packet_size", _packet_size("Cbr", self.packet_size))
        set_(self, "priority", _priority("Cbr", self.priority))


@dataclass(frozen=True)
class Poisson(SourceSpec):
    """Packets generated by a Poisson process of mean ``rate`` bit/s (the Telnet source).

    Without a window (``window=None``) packets are sent as they are generated
    and not acknowledged.  With a window, generated packets wait at the sender
    until fewer than ``window`` are unacknowledged, and are acknowledged and
    retransmitted as by :class:`GenericWindow` (timeout ``beta`` times the
    averaged RTT).

    Parameters
    ----------
    rate : float, bit/s
        Mean offered load.
    packet_size : int or None, bytes
    window : int or None, packets
    beta, rtt_gain, initial_rtt : float
        As for :class:`GenericWindow` (used with a window).
    priority : int
    """

    rate: float = 1e6
    packet_size: int | None = None
    window: int | None = None
    beta: float = 2.0
    rtt_gain: float = 0.125
    initial_rtt: float = 1.0
    priority: int = 0

    code: ClassVar[int] = K.S_POISSON
    kind: ClassVar[str] = "poisson"
    _ROW: ClassVar[tuple[str, ...]] = ("window", "beta", "rtt_gain", "initial_rtt", "rate")

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "rate", real("Poisson", "rate", self.rate, gt=0, unit="bit/s"))
        set_(self, "packet_size", _packet_size("Poisson", self.packet_size))
        if self.window is not None:
            set_(self, "window", integer("Poisson", "window", self.window, ge=1, unit="packets"))
        set_(self, "beta", real("Poisson", "beta", self.beta, gt=1))
        set_(self, "rtt_gain", real("Poisson", "rtt_gain", self.rtt_gain, gt=0))
        if self.rtt_gain > 1:
            raise ScenarioError(f"Poisson.rtt_gain must be in (0, 1], got {self.rtt_gain!r}")
        set_(self, "initial_rtt", real("Poisson", "initial_rtt", self.initial_rtt, gt=0, unit="s"))
        set_(self, "priority", _priority("Poisson", self.priority))

    @property
    def windowed(self) -> bool:  # type: ignore[override]
        return self.window is not None


@dataclass(frozen=True)
class OnOff(SourceSpec):
    """Alternates "on" periods, sending at ``rate`` bit/s like :class:`Cbr`, with silent "off" periods.

    Parameters
    ----------
    rate : float, bit/s
        Sending rate while on.
    on_time, off_time : float, s
        Mean durations of the periods.
    exponential : bool
        Draw the durations from exponential distributions with these means
        (``True``) or use them as they are.
    packet_size : int or None, bytes
    priority : int
    """

    rate: float = 1e6
    on_time: float = 1.0
    off_time: float = 1.0
    exponential: bool = True
    packet_size: int | None = None
    priority: int = 0

    code: ClassVar[int] = K.S_ONOFF
    kind: ClassVar[str] = "onoff"
    _ROW: ClassVar[tuple[str, ...]] = ("rate", "on_time", "off_time", "exponential")

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "rate", real("OnOff", "rate", self.rate, gt=0, unit="bit/s"))
        set_(self, "on_time", real("OnOff", "on_time", self.on_time, gt=0, unit="s"))
        set_(self, "off_time", real("OnOff", "off_time", self.off_time, gt=0, unit="s"))
        _flag("OnOff", "exponential", self.exponential)
        set_(self, "packet_size", _packet_size("OnOff", self.packet_size))
        set_(self, "priority", _priority("OnOff", self.priority))
