"""TCP Reno and NewReno senders, counting in packets.

References
----------
V. Jacobson, "Congestion avoidance and control", SIGCOMM 1988; W. Stevens,
RFC 2001; S. Floyd, T. Henderson, RFC 2582; RFC 6298; RFC 6582.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ..errors import ScenarioError
from ._base import SourceSpec, _flag, _packet_size, _priority

__all__ = ["TcpReno", "TcpNewReno"]



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

    kind: ClassVar[str] = "reno"
    kernel: ClassVar[str] = "sources.reno"
    windowed: ClassVar[bool] = True
    _RTT_SAMPLES: ClassVar[tuple[str, ...]] = ("segment", "ack")
    _TIMERS: ClassVar[tuple[str, ...]] = ("reference", "impatient", "slow-but-steady")
    _RECOVERIES: ClassVar[tuple[str, ...]] = ("inflation", "pipe")


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

    kind: ClassVar[str] = "newreno"
    kernel: ClassVar[str] = "sources.reno"
