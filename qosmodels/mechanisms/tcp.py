"""TCP Reno and NewReno senders, counting in packets.

References
----------
V. Jacobson, "Congestion avoidance and control", SIGCOMM 1988; W. Stevens,
RFC 2001; S. Floyd, T. Henderson, RFC 2582; RFC 6298; RFC 6582.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._validate import integer, real
from ..errors import ScenarioError, ScenarioTypeError
from ._base import (
    TIMER_RULES,
    SourceSpec,
    _colour,
    _delayed_ack,
    _flag,
    _priority,
    _prr,
    _rack,
    _sack,
    _tcp_window_and_timer,
    _timer_rule,
)

__all__ = ["TcpReno", "TcpNewReno"]

#: Size of an acknowledgement in the base round-trip time, bytes (the simulator's
#: ``qosmodels.sim.compile.ACK_SIZE``, which passes its own value when it compiles a run).
_ACK_SIZE = 40

#: The named congestion-avoidance increases (TcpReno.increase) and the fields each uses.
_INCREASES = {"rtt2": ("rtt", "rtt_av"), "constant-rate": ("rtt", "increase_rate"),
              "by-k": ("rtt", "rtt_av", "increase_k", "increase_threshold")}
_INCREASE_FIELDS = ("rtt", "rtt_av", "increase_rate", "increase_k", "increase_threshold")


@dataclass(frozen=True)
class TcpReno(SourceSpec):
    """A greedy (always backlogged) TCP Reno sender, counting in packets.

    Slow start (+1 per new ACK), congestion avoidance (+f/cwnd per new ACK, so
    +f per round trip; ``f = 1`` unless ``increase`` says otherwise),
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
    sack : bool
        Selective acknowledgements (default False).  True: the receiver's ACKs carry
        SACK blocks (RFC 2018, Section 4: the block holding the packet that triggered
        the ACK first, unless it advanced the cumulative ACK, then the previous ACK's
        blocks as they stand now) and the sender keeps a scoreboard and recovers by
        RFC 6675: a duplicate ACK is one that SACKs new data; the third, or ``IsLost
        (SND.UNA)`` (three packets SACKed above it: DupThresh 3), starts the recovery
        (RecoveryPoint = HighData, ``ssthresh = cwnd = max(FlightSize/2, 2)``, SND.UNA
        resent); on each ACK in recovery ``SetPipe`` and, while ``cwnd - pipe >= 1``,
        ``NextSeg``'s rules 1-4 (lost holes above HighRxt, new data, other holes, one
        rescue); an ACK above RecoveryPoint ends it with ``cwnd = ssthresh``.  The
        timer restarts on every new ACK and at the fast retransmit; a timeout empties
        the scoreboard (RFC 6675, Section 5.1).  ``recovery`` must then be
        ``"inflation"`` (unused: RFC 6675 replaces it), and TcpReno and TcpNewReno
        recover alike (``limited_transmit=True`` adds step (3) of RFC 6675, Section 5).
        Not modelled: D-SACK (RFC 2883), FACK, receiver reneging.  The
        flow keeps a ring of 32 times
        ``max_window`` slots for the scoreboard and the ACKs' options
        (``qosmodels/sim/_kernels/sack.py``).
    sack_blocks : int
        The most SACK blocks an ACK carries, 1 to 4: 3 (default) as with the timestamp
        option, which Linux sends (RFC 2018, Section 3: 4 fit without it).
    limited_transmit : bool
        Limited transmit, RFC 3042 (default False, as the reference C simulator; ns-3's
        ``TcpSocketBase`` has it on by default, and Linux does the same through its
        duplicate-ACK accounting).  True: on each of the first two duplicate ACKs
        (outside a recovery, and for NewReno not below the recovery point a timeout
        set) the sender sends one new packet if its window is full, the receiver's
        window (``max_window``) allows it and at most ``cwnd + 2`` packets would be
        outstanding (Section 2); ``cwnd`` is unchanged, and the fast retransmit leaves
        these packets out of the FlightSize that sets ``ssthresh`` (RFC 5681, Section
        3.2, step 2).  With ``recovery="pipe"`` it is ns-3's: each such duplicate ACK
        counts one packet SACKed above SND.UNA (``AddRenoSack``), so the pipe lets one
        new packet leave.  With ``sack=True`` it is RFC 6675, Section 5, step (3) (a MAY
        there): on a duplicate ACK below DupThresh with SND.UNA not lost, HighRxt =
        HighACK and, while ``cwnd - pipe >= 1``, new packets as the receiver's window
        allows; they too are left out of FlightSize at step (4.2).  Its packets leave
        as the fast retransmission does, without asking a shaping edge element's gate.
    rack : bool
        RACK loss detection, RFC 8985 (default False; needs ``sack=True``): a packet is
        lost when a packet sent a reordering window (a quarter of the minimum RTT; 0
        in recovery or with three packets SACKed, until reordering is seen) after it is
        delivered, also a retransmission; the recovery starts on RACK's marks instead
        of DupThresh, and resends only marked packets; a lost retransmission reduces
        the window again (RFC 8985 9.3) and the retransmission timer restarts when the
        first unacknowledged packet is resent (``qosmodels/sim/_kernels/rack.py``).  On
        by default in Linux since 4.10 (``net.ipv4.tcp_recovery`` = 1).
    tlp : bool
        Tail loss probes, RFC 8985 Section 7 (default False; needs ``rack=True``): a
        probe (new data, else the last packet again) two smoothed RTTs after the last
        ACK of new data (plus 200 ms with one packet in flight), before the
        retransmission timer would fire.
    prr : bool
        Proportional Rate Reduction, RFC 9937 (obsoletes RFC 6937; default False; needs
        ``sack=True``): on every ACK that starts or falls in a fast recovery, ``cwnd =
        pipe + sndcnt`` with ``sndcnt = CEIL(prr_delivered x ssthresh / RecoverFS) -
        prr_out`` while ``pipe > ssthresh`` (the recovery sends ssthresh for RecoverFS
        delivered, spread over the round trip), else the reduction bound of
        ``prr_bound``, at most ``ssthresh - pipe``; one packet at least while nothing has
        been sent (the fast retransmit); ``cwnd = ssthresh`` when the recovery ends.
        RecoverFS is the data outstanding and not SACKed before the ACK that starts the
        recovery, ``prr_delivered`` the packets the recovery's ACKs delivered
        (cumulatively or selectively), ``prr_out`` the packets sent in it.  With ``rack``
        the pipe is RACK's, and RFC 8985 9.3's second reduction on a lost retransmission
        (for "the absence of PRR") is not applied.  Linux's and ns-3's default recovery
        (``qosmodels/sim/_kernels/prr.py``).
    prr_bound : str
        PRR's reduction bound once ``pipe <= ssthresh``: ``"safeack"`` (default, RFC
        9937's rule: PRR-CRB, ``MAX(prr_delivered - prr_out, DeliveredData)``, plus one
        packet (PRR-SSRB) on a SafeACK, one that advances SND.UNA and marks no new packet
        lost), ``"crb"`` or ``"ssrb"`` (RFC 6937's conservative and slow-start bounds, the
        latter always with the extra packet).
    delayed_ack : int, packets
        The receiver's delayed ACKs (``qosmodels/sim/_kernels/delack.py``): an ACK for
        every ``delayed_ack``-th in-order packet (RFC 1122 4.2.3.2, RFC 5681 4.2: "at
        least every second full-sized segment"; 2 as Linux and ns-3's ``DelAckCount``),
        or when ``delayed_ack_timeout`` has passed since the first packet it holds; an
        out-of-order or duplicate packet, or one that fills all or part of a hole, is
        acknowledged at once (RFC 5681 4.2).  1 (default): every packet at once, as
        without the option.  The ACK echoes CE if a packet it covers carried it
        (:class:`Dctcp` and :class:`Prague`: RFC 8257 3.2's two-state echo).  The
        sender's growth is RFC 5681's, per ACK that acknowledges new data (slow
        start: one packet per ACK, not per packet acknowledged), so with ``m = 2``
        slow start multiplies the window by about 1.5 per round trip and congestion
        avoidance adds half a packet per round trip, unless ``ack_counting="packets"``
        (Linux's growth per packet acknowledged).
    delayed_ack_timeout : float, s
        The delayed-ACK timer, in (0, 0.5] (RFC 5681 4.2: an ACK MUST be sent within
        500 ms); default 0.2 s, ns-3's ``DelAckTimeout`` and Linux's ``TCP_DELACK_MAX``
        (Linux starts from 0.04 s and adapts; not modelled).  Unused when
        ``delayed_ack`` is 1.
    ack_counting : {"ack", "packets"}
        How the window grows on an ACK that acknowledges several packets (a delayed ACK,
        or one after ACK losses).  ``"ack"`` (default, RFC 5681 3.1): once per ACK of
        new data, as described under ``delayed_ack``.  ``"packets"``: once per packet
        acknowledged, as if each had its own ACK (slow start one packet per packet,
        congestion avoidance ``f/cwnd`` per packet), as Linux's ``tcp_slow_start`` and
        ``tcp_cong_avoid_ai`` count them (RFC 3465's byte counting without its limit
        ``L``); Linux's Reno, DCTCP and Prague grow so.  TcpReno, TcpNewReno, Dctcp and
        Prague only.
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
          without limited transmit, or with it: ``limited_transmit``):
          ``cwnd = ssthresh`` throughout the
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
    increase : float or {"rtt2", "constant-rate", "by-k"}
        ``f``, the congestion window's increase per round trip in congestion
        avoidance (``cwnd += f / cwnd`` per ACK of new data; slow start, the
        halvings and recovery are unchanged).

        * a number > 0: that fixed increase; ``1.0`` (default) is standard
          TCP, bit for bit.
        * ``"rtt2"``: the aggregate-fair increase ``f(rtt_i) = rtt_i^2 /
          rtt_av^2`` of the aggregate-rate-control paper, Section 5
          (:func:`qosmodels.tokenbucket.window_increase`): with a common loss
          rate a connection's throughput goes as ``sqrt(f) / rtt_i``
          (:func:`~qosmodels.tokenbucket.sawtooth_throughput`), so every member
          gets the throughput of a standard TCP with the group's mean RTT.
        * ``"constant-rate"``: Floyd's Constant-Rate increase ``f = a rtt_i^2``
          with ``a = increase_rate``
          (:func:`~qosmodels.tokenbucket.constant_rate_increase`).
        * ``"by-k"``: Henderson's Increase-by-K, ``f = increase_k`` for a
          connection whose ``rtt_i`` exceeds ``increase_threshold`` (default:
          the group's mean RTT), 1 otherwise
          (:func:`~qosmodels.tokenbucket.increase_by_k`).

        ``rtt_i`` is the flow's base round-trip time (``rtt`` overrides it):
        the propagation delay of its route forward and back
        (:attr:`Network.rtt <qosmodels.Network.rtt>`) plus the transmission of
        one data packet on each forward link and of one 40-byte ACK on each
        declared reverse link -- the round trip of a packet through empty
        queues in the simulator.  The *group* whose mean RTT is ``rtt_av``:
        the members of the :class:`~qosmodels.Aggregate` holding the flow
        (every member, whatever its source, each with its own ``rtt_i``); for a
        flow in no aggregate, the flows in no aggregate whose source has the
        same ``increase``.  A flow in two or more aggregates needs ``rtt_av``
        (or, for ``"by-k"``, ``increase_threshold``).  The factor is fixed
        when a run is compiled (:meth:`increase_factor` gives it).  With
        ``window_arithmetic="bytes"`` (ns-3's arithmetic, which has no such
        increase) only ``increase=1`` is accepted.
    increase_rate : float or None, packets/s^2
        ``a`` of ``increase="constant-rate"`` (required there, refused
        elsewhere): the rate at which every connection's throughput grows.
    increase_k : float or None, packets per round trip
        ``K`` of ``increase="by-k"``, >= 1 (required there, refused elsewhere).
    increase_threshold : float or None, s
        ``increase="by-k"`` only: connections with ``rtt_i`` above it get ``K``
        (``None``: ``rtt_av``).
    rtt : float or None, s
        ``rtt_i`` for the named increases instead of the base round-trip time
        (e.g. the paper's nominal RTT, or one that includes a standing queue).
    rtt_av : float or None, s
        ``increase="rtt2"`` or ``"by-k"``: the group's mean RTT instead of the
        mean of its members' ``rtt_i``.

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
    (limited transmit, off in the ns-3 configuration unless ``limited_transmit``);
    ns-3.44 ``tcp-socket-base.cc`` (``DupAck``: ``AddRenoSack`` per duplicate ACK in
    ``CA_RECOVERY``, and in ``CA_DISORDER`` only with ``LimitedTransmit``;
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
    For ``increase``: A. Mehra, R. Tewari, D. Kandlur, "Design considerations
    for rate control of aggregated TCP connections", Section 5; S. Floyd,
    "Connections with multiple congested gateways in packet-switched networks,
    part 1", CCR 21(5), 1991 (Constant-Rate); T. Henderson et al., "On
    improving the fairness of TCP congestion avoidance", GLOBECOM 1998
    (Increase-by-K).

    Examples
    --------
    >>> from qosmodels import Aggregate, Flow, Link, Network
    >>> links = [Link("s", "r", 10e6, 0.0), Link("r", "a", 10e6, 0.025),
    ...          Link("r", "b", 10e6, 0.15)]
    >>> net = Network(links, [Flow(["s", "r", "a"], source=TcpNewReno(increase="rtt2", rtt=0.05)),
    ...                       Flow(["s", "r", "b"], source=TcpNewReno(increase="rtt2", rtt=0.3))],
    ...               aggregates=[Aggregate("clients", flows=[0, 1])])
    >>> [round(net.flows[i].source.increase_factor(net, i), 4) for i in (0, 1)]
    [0.0816, 2.9388]
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
    increase: float | str = 1.0
    increase_rate: float | None = None
    increase_k: float | None = None
    increase_threshold: float | None = None
    rtt: float | None = None
    rtt_av: float | None = None
    sack: bool = False
    sack_blocks: int = 3
    limited_transmit: bool = False
    rack: bool = False
    tlp: bool = False
    prr: bool = False
    prr_bound: str = "safeack"
    delayed_ack: int = 1
    delayed_ack_timeout: float = 0.2
    ack_counting: str = "ack"

    kind: ClassVar[str] = "reno"
    windowed: ClassVar[bool] = True
    _RTT_SAMPLES: ClassVar[tuple[str, ...]] = ("segment", "ack")
    _TIMERS: ClassVar[tuple[str, ...]] = TIMER_RULES
    _RECOVERIES: ClassVar[tuple[str, ...]] = ("inflation", "pipe")


    @property
    def kernel(self) -> str:
        """Reno's kernel, its SACK form for ``sack=True`` or its RACK-TLP form for
        ``rack=True`` (modules of their own, so that a kernel variant without SACK or RACK
        leaves their code out)."""
        if self.rack:
            return "sources.reno_rack"
        return "sources.reno_sack" if self.sack else "sources.reno"

    def __post_init__(self):
        name = type(self).__name__
        set_ = object.__setattr__
        _colour(name, self)
        _tcp_window_and_timer(name, self)
        _flag(name, "ecn", self.ecn)
        set_(self, "priority", _priority(name, self.priority))
        if not isinstance(self.rtt_samples, str) or self.rtt_samples not in self._RTT_SAMPLES:
            raise ScenarioError(f"{name}.rtt_samples must be 'segment' (one timed packet per "
                                f"round trip) or 'ack' (a sample from every new ACK), got "
                                f"{self.rtt_samples!r}")
        _timer_rule(name, self)
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
        self._check_increase(name)
        _sack(name, self)
        _flag(name, "limited_transmit", self.limited_transmit)
        _rack(name, self)
        _prr(name, self)
        _delayed_ack(name, self)
        if self.ack_counting != "ack" and self.kind not in ("reno", "newreno", "dctcp", "prague"):
            raise ScenarioError(f"{name}.ack_counting={self.ack_counting!r} is modelled for "
                                f"TcpReno, TcpNewReno, Dctcp, Prague and Cubic (their window "
                                f"growth); use ack_counting='ack'")
        if self.sack and self.kind not in ("reno", "newreno"):
            raise ScenarioError(f"{name}.sack=True is not modelled (SACK and RFC 6675's "
                                f"recovery are in TcpReno, TcpNewReno, Cubic and BbrV1); "
                                f"use sack=False")
        if self.sack and self.recovery != "inflation":
            raise ScenarioError(f"{name}.recovery={self.recovery!r} emulates ns-3's recovery "
                                f"without SACK, which sack=True replaces by RFC 6675's; "
                                f"use recovery='inflation' (the default) with sack=True")

    def _check_increase(self, name):
        set_ = object.__setattr__
        inc = self.increase
        if isinstance(inc, str):
            if inc not in _INCREASES:
                raise ScenarioError(
                    f"{name}.increase must be a number > 0 (packets per round trip; 1.0 is "
                    f"standard TCP) or one of {sorted(_INCREASES)}, got {inc!r}")
        elif isinstance(inc, bool) or not isinstance(inc, numbers.Real):
            raise ScenarioTypeError(
                f"{name}.increase must be a number > 0 (packets per round trip) or one of "
                f"{sorted(_INCREASES)}, got {inc!r} of type {type(inc).__name__}")
        else:
            set_(self, "increase", real(name, "increase", inc, gt=0, unit="packets per RTT"))
        used = _INCREASES.get(self.increase, ())
        for field in _INCREASE_FIELDS:
            if getattr(self, field) is not None and field not in used:
                users = [k for k, fs in _INCREASES.items() if field in fs]
                raise ScenarioError(
                    f"{name}.{field} = {getattr(self, field)!r} is used only with increase = "
                    f"{' or '.join(map(repr, users))}, but increase = {self.increase!r}; drop "
                    f"{field} or choose one of those increases")
        units = {"rtt": "s", "rtt_av": "s", "increase_threshold": "s",
                 "increase_rate": "packets/s^2"}
        for field, unit in units.items():
            if getattr(self, field) is not None:
                bound = {"ge": 0} if field == "increase_threshold" else {"gt": 0}
                set_(self, field, real(name, field, getattr(self, field), unit=unit, **bound))
        if self.increase_k is not None:
            set_(self, "increase_k", real(name, "increase_k", self.increase_k, ge=1,
                                          unit="packets per RTT"))
        if self.increase == "constant-rate" and self.increase_rate is None:
            raise ScenarioError(
                f"{name}.increase='constant-rate' needs increase_rate, Floyd's a in packets/s^2 "
                f"(f = a rtt^2; a = 1/rtt_av^2 gives the 'rtt2' increase), got None")
        if self.increase == "by-k" and self.increase_k is None:
            raise ScenarioError(
                f"{name}.increase='by-k' needs increase_k, the increase K >= 1 per round trip "
                f"of the long-RTT connections, got None")
        if self.window_arithmetic == "bytes" and self.increase != 1.0:
            raise ScenarioError(
                f"{name}.increase = {self.increase!r} needs window_arithmetic='packets': the "
                f"'bytes' arithmetic reproduces ns-3's TcpNewReno, which increases by one "
                f"segment per round trip only; use increase=1.0 with 'bytes'")

    def increase_factor(self, network, flow: int, *, ack_size: int = _ACK_SIZE) -> float:
        """``f(rtt_i)``, the congestion-avoidance increase per round trip of flow ``flow``.

        Parameters
        ----------
        network : Network
            The network of the flow (which has this spec as its source).
        flow : int
            The flow's index in ``network.flows``.
        ack_size : int, bytes
            Size of an ACK in the base round-trip time (the simulator's, 40).

        Returns
        -------
        float, packets per round trip

        Raises
        ------
        ScenarioError
            If the flow belongs to several aggregates and the increase needs the
            group's mean RTT (give ``rtt_av``, or ``increase_threshold`` for ``"by-k"``).
        """
        if not isinstance(self.increase, str):
            return self.increase
        from .. import tokenbucket as tb  # the paper's formulas; numpy only

        rtt, member_of, ungrouped = _derived(network, ack_size)
        rtt_i = rtt[flow]
        if self.increase == "constant-rate":
            return float(tb.constant_rate_increase([rtt_i], self.increase_rate)[0])
        if self.increase == "by-k" and self.increase_threshold is not None:
            return float(tb.increase_by_k([rtt_i], self.increase_k, self.increase_threshold)[0])
        if self.rtt_av is not None:
            if self.increase == "by-k":
                return float(tb.increase_by_k([rtt_i], self.increase_k, self.rtt_av)[0])
            # f = rtt_i^2 / rtt_av^2: window_increase with the mean given, i.e. a = 1/rtt_av^2
            return float(tb.constant_rate_increase([rtt_i], 1.0 / self.rtt_av**2)[0])
        aggs = member_of.get(flow, [])
        if len(aggs) > 1:
            what = "rtt_av" if self.increase == "rtt2" else "rtt_av or increase_threshold"
            raise ScenarioError(
                f"flow {network.flow_names[flow]!r} has increase={self.increase!r}, which needs "
                f"the mean RTT of its aggregate, but it belongs to {len(aggs)} aggregates "
                f"{[network.aggregates[k].name for k in aggs]}; give its source {what}, or keep "
                f"the flow in one aggregate")
        if aggs:  # the members of its aggregate
            group = list(network.aggregate_members(aggs[0]))
        else:  # the flows in no aggregate with the same increase
            group = ungrouped.get(self.increase, [])
            if flow not in group:  # (a spec asked about a flow it is not the source of)
                group = sorted([*group, flow])
        k = group.index(flow)
        if self.increase == "by-k":
            return float(tb.increase_by_k(rtt[group], self.increase_k)[k])
        return float(tb.window_increase(rtt[group])[k])


def _derived(network, ack_size: int):
    """Every flow's ``rtt_j`` (:func:`_flow_rtts`), the aggregates holding each flow
    (``{flow: [aggregate index, ...]}``) and the flows in no aggregate with a TcpReno
    source, by increase (``{increase: [flow, ...]}``).

    Kept in the network's derived state (as its link index is) for each ``ack_size``: a
    compile asks once per flow, and deriving anew each time would cost F^2."""
    key = f"_increase_derived_{ack_size}"
    if key in network.__dict__:
        return network.__dict__[key]
    member_of: dict[int, list[int]] = {}
    for k in range(network.n_aggregates):
        for j in network.aggregate_members(k):
            member_of.setdefault(j, []).append(k)
    ungrouped: dict = {}
    for j, f in enumerate(network.flows):
        if j not in member_of and isinstance(f.source, TcpReno):
            ungrouped.setdefault(f.source.increase, []).append(j)
    data = (_flow_rtts(network, ack_size), member_of, ungrouped)
    network.__dict__[key] = data
    return data


def _flow_rtts(network, ack_size: int) -> np.ndarray:
    """``rtt_j`` of the increase rules for every flow, s, shape (F,): the source's ``rtt``
    if it names one, else the flow's base round-trip time (propagation forward and back,
    one data packet's transmission on each forward link, one ACK's on each declared
    reverse link)."""
    F = network.n_flows
    hop_flow = np.repeat(np.arange(F), np.diff(network.route_ptr))
    cap = network.capacities
    tx = np.zeros(F)
    np.add.at(tx, hop_flow, 8.0 * network.packet_sizes[hop_flow] / cap[network.route_links])
    rev = network.reverse_route_links
    back = rev >= 0
    np.add.at(tx, hop_flow[back], 8.0 * ack_size / cap[rev[back]])
    rtt = network.rtt + tx
    for j, f in enumerate(network.flows):
        if isinstance(f.source, TcpReno) and f.source.rtt is not None:
            rtt[j] = f.source.rtt
    return rtt


@dataclass(frozen=True)
class TcpNewReno(TcpReno):
    """TCP NewReno (RFC 2582): :class:`TcpReno` whose fast recovery lasts until
    every packet outstanding at the loss is acknowledged; a partial ACK
    retransmits the next hole and deflates the window by the amount acknowledged."""

    kind: ClassVar[str] = "newreno"
