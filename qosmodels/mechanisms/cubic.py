"""A CUBIC TCP sender (RFC 9438).

References
----------
L. Xu, S. Ha, I. Rhee, V. Goel, L. Eggert, "CUBIC for Fast and Long-Distance
Networks", RFC 9438, 2023, Sections 4.1-4.10.  S. Ha, I. Rhee, L. Xu, "CUBIC: a
new TCP-friendly high-speed TCP variant", ACM SIGOPS Operating Systems Review
42(5), 2008.  RFC 5681 (slow start, fast retransmit), RFC 6582 (NewReno's
recovery), RFC 6298 (the retransmission timer).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import real
from ..errors import ScenarioError, ScenarioTypeError
from ._base import (
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

__all__ = ["Cubic"]


@dataclass(frozen=True)
class Cubic(SourceSpec):
    """A greedy CUBIC sender (RFC 9438), counting in packets (segments).

    Congestion avoidance follows RFC 9438, Section 4, on every new ACK (an ACK
    of new data) outside fast recovery while ``cwnd >= ssthresh``:

    * **Epoch** (Sections 4.2, 4.8, 4.10): the first such ACK after a
      congestion event or a slow start starts a congestion-avoidance stage:
      ``t_epoch`` = now, ``cwnd_epoch = cwnd``, ``W_est = cwnd_epoch`` and ``K =
      cbrt((W_max - cwnd_epoch) / C)`` (eq. 2).  After a timeout, or when no
      congestion event has happened yet (slow start ended at
      ``initial_ssthresh``: Section 4.10's case of a slow start left without a
      loss), ``W_max = cwnd_epoch`` and ``K = 0``, and in the second case
      ``cwnd_prior = cwnd``.
    * **Cubic window** (eq. 1): ``W_cubic(t) = C (t - K)^3 + W_max``, ``t`` = now -
      ``t_epoch``.
    * **Reno-friendly estimate** (Section 4.3, eq. 4), with
      ``tcp_friendliness``: ``W_est += alpha segments_acked / cwnd``, ``alpha =
      3 (1 - beta) / (1 + beta)`` until ``W_est >= cwnd_prior``, then 1.  If
      ``W_cubic(t) < W_est`` the flow is in the Reno-friendly region and
      ``cwnd = W_est`` (the RFC's "SHOULD be set to W_est"; never below the
      current ``cwnd``: Section 4.2 "chooses the larger of the two values").
    * **Concave and convex regions** (Sections 4.2, 4.4, 4.5): otherwise
      ``target = W_cubic(t + RTT)`` bounded to ``[cwnd, 1.5 cwnd]``, ``RTT``
      the smoothed round-trip time (RFC 6298's ``srtt``), and ``cwnd += (target
      - cwnd) / cwnd`` per new ACK.

    Congestion events:

    * **Fast retransmit** on the third duplicate ACK (RFC 5681) outside a
      recovery, or above NewReno's recovery point (RFC 6582): ``W_max = cwnd (1 +
      beta) / 2`` if ``cwnd < W_max`` and ``fast_convergence`` (Section 4.7),
      else ``W_max = cwnd``; then (Section 4.6) ``cwnd_prior = cwnd``,
      ``ssthresh = max(min(flight_size, cwnd) beta, 2)`` with ``flight_size`` the
      packets outstanding (see the choices below), and ``cwnd = ssthresh``, which
      NewReno's recovery (RFC 6582,
      Section 3.2, as :class:`TcpNewReno` with ``recovery="inflation"``) inflates
      by 3 at once and by 1 per further duplicate ACK, deflates on partial ACKs
      (each resending the next hole) and sets back to ``ssthresh`` when all the
      data outstanding at the loss is acknowledged.  The next new ACK in
      congestion avoidance starts a new epoch.
    * **Timeout** (Section 4.8): ``cwnd_prior = cwnd``, ``ssthresh =
      max(min(flight_size, cwnd) beta, 2)``, ``cwnd = 1`` (Reno, RFC 5681), go-back-N; the
      following congestion-avoidance stage has ``W_max = cwnd_epoch``, ``K = 0``.
      RFC 6298's timer: ``srtt + 4 rttvar`` clamped to ``[min_rto, max_rto]``,
      doubled on each expiry; when it is restarted, ``timer`` says (by default on
      every new ACK, on the fast retransmit and on every partial ACK).

    Slow start (``cwnd < ssthresh``): ``cwnd + 1`` per new ACK (RFC 5681).  The
    receiver acknowledges every packet cumulatively (``delayed_ack``: every
    ``m``-th), SACK blocks with ``sack=True``.

    Choices where RFC 9438 leaves a value to the implementation:

    * **No HyStart++.** RFC 9438, Section 4.10, says CUBIC SHOULD use HyStart++
      (RFC 9406) and MAY use Reno's slow start; this model uses Reno's, so the
      first slow start ends with a loss (or at ``initial_ssthresh``).
    * ``ssthresh`` from ``flight_size`` (Section 4.6's equation), not from ``cwnd``
      as Linux and ns-3 do, but never from more than ``cwnd``: ``min(flight_size,
      cwnd) beta``.  In congestion avoidance a greedy sender has ``flight_size =
      floor(cwnd)``, but NewReno's recovery sends new data on the inflated window
      and its full ACK sets ``cwnd = ssthresh``, so when the next loss comes within
      a round trip or so, more is outstanding than ``cwnd`` (after a recovery of
      hundreds of round trips, much more).  ``flight_size beta`` would then *raise*
      the window at a loss, against Section 4.6's "the sender MUST reduce cwnd and
      ssthresh immediately upon entering loss recovery", and put ``cwnd_epoch``
      above ``W_max`` (a negative ``K``: the convex region at once).  RFC 5681
      (Sections 3.1 and 3.2, step 2) asks for ``ssthresh`` "no more than" its
      equation (4), so the minimum satisfies both texts.  Measured before this
      rule, 8 flows on a 10 Mb/s, 20 ms dumbbell with 100 packets of buffer and
      ``max_window=1000``: a flow leaving a recovery with ``cwnd = 80.5`` and 958
      packets outstanding lost a packet at once and set ``cwnd = 673.6``; such
      flows stayed in recoveries (one hole repaired per round trip, the inflated
      window above ``max_window``, up to 1392) for the first 90 s of the run.
    * Slow start while ``cwnd < ssthresh`` (RFC 5681 allows either at equality;
      RFC 9438 says "no more than"), so that ``cwnd = ssthresh`` after a
      recovery starts a congestion-avoidance epoch at once.
    * One ``(target - cwnd) / cwnd`` increase per new ACK whatever it
      acknowledges (the RFC's "for each received new ACK"); ``W_est`` grows by
      the segments it acknowledges (eq. 4).
    * The cubic window's clock is the simulator's; ``t`` never pauses (the
      sender is never application-limited).  No ECN, no spurious-loss undo
      (Section 4.9's MAY), no pacing.  ``cwnd`` is capped at ``max_window`` outside
      fast recovery, so it never grows while the receiver's window, not ``cwnd``,
      limits the sender (Section 5.8, RFC 7661); ``t`` runs on meanwhile, which
      changes nothing, since only a loss (a new epoch) takes the window below
      ``max_window`` again.  During fast recovery the window is RFC 5681's inflated
      one (+1 per duplicate ACK, no cap, as the RFC's step 4) and the sender sends
      while ``min(cwnd, max_window)`` allows; recorded windows include it.

    Fast Convergence is on by default, as the RFC's SHOULD (Section 4.7), which
    also says it SHOULD be off for a single CUBIC flow with no other traffic.

    Parameters
    ----------
    c : float, segments/s^3
        ``C`` of eq. 1, > 0 (RFC 9438: SHOULD be 0.4).
    beta : float
        ``beta_cubic``, the multiplicative decrease factor, in (0, 1) (RFC 9438:
        SHOULD be 0.7).
    fast_convergence : bool
        Lower ``W_max`` to ``cwnd (1 + beta) / 2`` at a loss below the previous
        ``W_max`` (Section 4.7).
    tcp_friendliness : bool
        Keep the Reno-friendly estimate ``W_est`` and follow it when it is above
        ``W_cubic(t)`` (Section 4.3).
    packet_size : int or None, bytes
        Data packet size (``None``: the flow's ``packet_size``).
    max_window : int, packets
        Largest window (the receiver's advertised window).
    initial_window : int, packets
        Congestion window at start.
    initial_ssthresh : float or None, packets
        Slow-start threshold at start, >= 2 (``None``: ``max_window``).
    min_rto, max_rto, initial_rto : float, s
        Bounds and initial value of the retransmission timeout (as
        :class:`TcpReno`).
    rtt_samples : {"segment", "ack"}
        Where RTT samples come from, as :class:`TcpReno`'s: one timed packet per
        round trip, or every new ACK (Karn's rule either way).
    timer : {"reference", "impatient", "slow-but-steady"}
        When the retransmission timer is restarted, as :class:`TcpReno`'s (RFC
        9438 leaves the timer to RFC 6298, whose rule 5.3 restarts it on an ACK
        of new data and says nothing of the fast retransmit).

        * ``"reference"`` (default, as before this option existed): restarted,
          with the current RTO, on every new ACK, on the fast retransmit and on
          every partial ACK.
        * ``"impatient"`` (as ns-3's ``TcpSocketBase``, which its ``TcpCubic``
          uses): restarted on every new ACK but not on the fast retransmit, so
          it runs on from the last new ACK; in the recovery only the first
          partial ACK restarts it (RFC 6582, Section 3.2, step 5); each restart
          recomputes the RTO from the estimator, clearing a backoff.
        * ``"slow-but-steady"``: as ``"impatient"``, but every partial ACK
          restarts the timer.

        With ``sack=True`` a partial ACK is a new ACK below the recovery point
        (RFC 6675's recovery), as for :class:`TcpNewReno`.
    record : bool
        Record, at every ACK and timeout, three trace channels in step:
        ``cubic_ack`` (the cumulative ACK, -1 for a timeout), ``cubic_rtt`` (the
        RTT sample the ACK gave, s, NaN if none) and ``cubic_cwnd`` (``cwnd`` after
        the event, packets).
    priority : int
        Class in a :class:`Priority` queue (0 highest).
    sack : bool
        Selective acknowledgements (default False), as :class:`TcpReno`'s: SACK
        blocks on the ACKs (RFC 2018) and RFC 6675's scoreboard and recovery.
        Entering the recovery sets ``ssthresh = cwnd = max(beta FlightSize, 2)``
        (Section 4.6); ``cwnd`` stays there until the recovery ends.
        Not modelled: D-SACK, FACK, reneging (RACK-TLP: ``rack``, ``tlp``).
    sack_blocks : int
        The most SACK blocks an ACK carries, 1 to 4 (default 3, as with the
        timestamp option Linux sends).
    limited_transmit : bool
        Limited transmit, RFC 3042 (default False), as :class:`TcpReno`'s: one new
        packet on each of the first two duplicate ACKs if the window is full, the
        receiver's window allows it and at most ``cwnd + 2`` packets would be
        outstanding; ``cwnd`` unchanged; the packets left out of the FlightSize
        whose ``beta`` multiple sets ``ssthresh`` (RFC 5681, Section 3.2; here
        ``min(FlightSize, cwnd)``, see above, which they do not change when the
        window was full).  With ``sack=True``, RFC 6675's step (3).
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
        Proportional Rate Reduction, RFC 9937, as :class:`TcpReno`'s (default False; needs
        ``sack=True``): the recovery's sending spread over its round trip, with CUBIC's
        ``beta`` as ssthresh (``qosmodels/sim/_kernels/prr.py``).
    prr_bound : str
        PRR's reduction bound once ``pipe <= ssthresh``, as :class:`TcpReno`'s:
        ``"safeack"`` (default, RFC 9937's rule), ``"crb"`` or ``"ssrb"``.
    delayed_ack : int, packets
        The receiver's delayed ACKs, as :class:`TcpReno`'s: an ACK for every
        ``delayed_ack``-th in-order packet or after ``delayed_ack_timeout``; 1 (default)
        every packet at once.  With ``ack_counting="ack"`` (default) slow start grows by
        one packet per ACK of new data (RFC 5681); in congestion avoidance ``W_est``
        counts the packets an ACK acknowledges (RFC 9438 4.3, eq. 4) and the cubic
        increase ``(target - cwnd) / cwnd`` is per ACK (Section 4.4).
        ``ack_counting="packets"``: both once per packet acknowledged, as if each had its
        own ACK (Linux's ``tcp_slow_start`` and ``tcp_cong_avoid_ai(tp, ca->cnt,
        acked)``).
    delayed_ack_timeout : float, s
        The delayed-ACK timer, in (0, 0.5]; default 0.2 s (ns-3's ``DelAckTimeout``).
    ack_counting : {"ack", "packets"}
        The window's growth on an ACK of several packets: per ACK (default) or per
        packet acknowledged (Linux); see ``delayed_ack``.

    References
    ----------
    RFC 9438, Sections 4.1 (definitions), 4.2 (eq. 1, 2 and the target's
    bounds), 4.3 (Reno-friendly region, eq. 4), 4.4-4.5 (concave and convex
    regions), 4.6 (multiplicative decrease), 4.7 (fast convergence), 4.8
    (timeout), 4.10 (slow start).  S. Ha, I. Rhee, L. Xu, SIGOPS OSR 42(5), 2008.
    RFC 5681, RFC 6582, RFC 6298; RFC 3042 and RFC 6675, Section 5 (``limited_transmit``).

    Examples
    --------
    >>> from qosmodels import Flow, Link, Network
    >>> src = Cubic()
    >>> (src.c, src.beta, src.fast_convergence, src.tcp_friendliness)
    (0.4, 0.7, True, True)
    >>> net = Network([Link("a", "b", 10e6, 0.02, buffer=50)],
    ...               [Flow(["a", "b"], packet_size=1000, source=src)])
    """

    c: float = 0.4
    beta: float = 0.7
    fast_convergence: bool = True
    tcp_friendliness: bool = True
    packet_size: int | None = None
    max_window: int = 1000
    initial_window: int = 1
    initial_ssthresh: float | None = None
    min_rto: float = 0.2
    max_rto: float = 60.0
    initial_rto: float = 1.0
    rtt_samples: str = "segment"
    record: bool = False
    priority: int = 0
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
    timer: str = "reference"

    kind: ClassVar[str] = "cubic"
    windowed: ClassVar[bool] = True

    @property
    def kernel(self) -> str:
        """CUBIC's kernel, its SACK form for ``sack=True`` or its RACK-TLP form for
        ``rack=True`` (modules of their own, so that a kernel variant without SACK or RACK
        leaves their code out)."""
        if self.rack:
            return "sources.cubic_rack"
        return "sources.cubic_sack" if self.sack else "sources.cubic"

    def __post_init__(self):
        name = type(self).__name__
        set_ = object.__setattr__
        _colour(name, self)
        _tcp_window_and_timer(name, self)
        set_(self, "c", real(name, "c", self.c, gt=0, unit="segments/s^3"))
        set_(self, "beta", real(name, "beta", self.beta, gt=0))
        if self.beta >= 1:
            raise ScenarioError(f"{name}.beta must be in (0, 1) (the window is multiplied by "
                                f"it at a loss; RFC 9438 recommends 0.7), got {self.beta!r}")
        _flag(name, "fast_convergence", self.fast_convergence)
        _flag(name, "tcp_friendliness", self.tcp_friendliness)
        _flag(name, "record", self.record)
        if not isinstance(self.rtt_samples, str):
            raise ScenarioTypeError(f"{name}.rtt_samples must be 'segment' or 'ack', got "
                                    f"{self.rtt_samples!r} of type "
                                    f"{type(self.rtt_samples).__name__}")
        if self.rtt_samples not in ("segment", "ack"):
            raise ScenarioError(f"{name}.rtt_samples must be 'segment' (one timed packet per "
                                f"round trip) or 'ack' (a sample from every new ACK), got "
                                f"{self.rtt_samples!r}")
        _timer_rule(name, self)
        set_(self, "priority", _priority(name, self.priority))
        _sack(name, self)
        _flag(name, "limited_transmit", self.limited_transmit)
        _rack(name, self)
        _prr(name, self)
        _delayed_ack(name, self)
