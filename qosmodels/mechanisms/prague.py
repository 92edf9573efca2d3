"""TCP Prague, the L4S scalable sender (draft-briscoe-iccrg-prague-congestion-control;
RFC 9331, Section 4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ..errors import ScenarioError
from ._base import _flag
from .dctcp import Dctcp

__all__ = ["Prague"]


@dataclass(frozen=True)
class Prague(Dctcp):
    """A greedy TCP Prague sender: DCTCP's scalable response to ECN marks, sending
    ECT(1), paced, growing only on unmarked ACKs.

    What it does, from the Prague draft's list of the L4S ("Prague") requirements
    as its Linux reference (``net/ipv4/tcp_prague.c``, L4STeam/linux, module version
    0.6) implements them:

    * **L4S identifier**: every data packet carries ECT(1) (RFC 9331, Section 4.1),
      so a DualQ AQM (:class:`~qosmodels.mechanisms.DualPi2`) puts it in its L
      queue;
    * **scalable response to CE**: :class:`Dctcp`'s (RFC 8257, Section 3.3): the
      EWMA ``alpha <- (1 - g) alpha + g F`` of the marked fraction ``F`` once per
      observation window (a round trip), ``g`` = 1/16, ``alpha`` starting at 1, and
      ``cwnd <- cwnd (1 - alpha / 2)`` at most once per window of data (Linux:
      ``prague_update_alpha``, ``PRAGUE_SHIFT_G`` = 4, once ``snd_una`` passes the
      round's ``next_seq``; ``prague_enter_cwr`` on entering the CWR state);
    * **loss**: Reno's (NewReno's fast recovery and halving; the retransmission
      timer), as the draft's fall-back to the Classic response (RFC 9331, 4.2;
      Linux ``prague_enter_loss`` halves its window too);
    * **growth** (``ai_reduction``, True by default): only ACKs that echo no CE grow
      the window -- by one packet each in slow start (``cwnd < ssthresh``), by ``1 /
      cwnd`` in congestion avoidance -- so at a marked fraction ``p`` congestion
      avoidance adds ``1 - p`` packets per round trip rather than 1 (Linux
      ``prague_update_cwnd``: ``acked = acked_sacked - ece_delta``, then
      ``tcp_slow_start`` or ``frac_cwnd += acked ai_ack_increase / cwnd``; its header
      comment, item 4, "Additive Increase uses unsaturated marking").  The receiver
      here acknowledges every packet and echoes the CE of the packet it acknowledges,
      so "the packets acknowledged less those marked" is "the ACKs without the
      echo".  With ``ai_reduction=False`` every ACK grows the window, as DCTCP's;
    * **pacing**: new packets leave at most at ``ratio cwnd / srtt`` (packets/s):
      ``pacing_ss_ratio`` = 2 in slow start (``cwnd < ssthresh``), ``pacing_ca_ratio``
      = 1 in congestion avoidance, Linux Prague's own rates
      (``prague_update_pacing_rate``: 100 % of ``cwnd / srtt``, doubled in slow
      start); each new packet moves the pacing clock on by ``srtt / (ratio cwnd)``.
      Before the first RTT sample, and for retransmissions, there is no pacing.
      (Before this round the default was 1.2, Linux's generic ``tcp_pacing_ca_ratio``,
      which Prague does not use: it sets ``sk_pacing_rate`` itself.)
    * **minimum window**: 2 packets after a CE reduction (:class:`Dctcp`'s; Linux
      ``MIN_CWND`` = 2).

    ``Prague(pacing=False, ai_reduction=False)`` is ``Dctcp(ect1=True)`` bit for bit
    (a test says so).

    * **RTT independence** (``rtt_scaling``, off by default): Linux's
      ``prague_rtt_scaling`` heuristics, which make a flow whose RTT is below a
      target behave as if its RTT were the target (RFC 9331, Section 4.3, "reduce
      RTT dependence").  Once the flow is out of slow start (``cwnd >= ssthresh``)
      and has counted ``rtt_transition`` rounds out of slow start (a round ends at
      each ``alpha`` update; Linux ``prague_new_round``, whose count is never reset),
      it is *RTT-independent* (Linux ``prague_is_rtt_indep``) and, with ``T`` the
      target:

      - the increase per unmarked ACK in congestion avoidance is ``k / cwnd``
        instead of ``1 / cwnd`` (Linux ``ai_ack_increase``; ``k`` only needs the
        round count, not the slow-start test): ``"rate"``: ``k = (srtt / T)^2``
        below the target, 1 at or above it, so the window grows by ``(srtt /
        T)^2`` per round trip, i.e. the rate ``cwnd / srtt`` by ``1 / T^2``
        per second whatever the RTT, as a flow of RTT ``T`` does
        (``prague_rate_scaled_ai_ack_increase``); ``"additive"``: the same with
        ``T = rtt_target + srtt`` (``prague_dynamic_rtt_target``: as if the path
        were ``rtt_target`` longer); ``"scalable"``: ``k = (R0 / 8 + min(max(srtt
        - R1, 0), R0)) srtt / R0^2`` with ``R0`` = 16.384 ms and ``R1`` = 1.536
        ms (``prague_scalable_ai_ack_increase``: Linux's constants, 128 and 12 of
        its 128-us RTT units), which keeps at least 1/8 packet per round trip
        at tiny RTTs;
      - ``alpha`` is updated when a round of data has been acknowledged *and* at
        least ``T`` has passed since the last update (Linux
        ``prague_should_update_ewma`` with ``prague_target_rtt_elapsed``), its
        marked fraction counting every packet acknowledged since that update;
      - a CE echo reduces the window at most once per window of data, as
        without the option, *and* only if ``T`` has passed since the last
        reduction; an echo refused by the time rule still starts the window of
        data in which no other reduction happens (Linux enters its CWR state, but
        ``prague_enter_cwr`` returns before reducing).

      Checked against Linux's source (L4STeam/linux ``net/ipv4/tcp_prague.c``,
      module version 0.6) only: the draft's text on RTT independence could not be
      read in this work.  Declared differences: Linux recomputes ``k`` at each
      round's start and at each change of its integer window, here ``k`` comes
      from ``srtt`` at every ACK; Linux counts RTTs in 128-us units (``srtt`` =
      5 ms is 4.992 ms there), here they are real; Linux leaves ``k`` at 1 above
      its ``MAX_SCALED_RTT`` cap (100 000 of those units, 12.8 s), not done here
      (no RTT of this library's scenarios comes near); Linux updates ``alpha``
      only once a CE mark has been seen (``saw_ce``), as :class:`Dctcp` does not.

    Differences from Linux that remain, declared: Linux doubles the pacing rate
    while ``cwnd < ssthresh / 2`` (here: while ``cwnd < ssthresh``); it keeps a
    fractional window (``frac_cwnd``) that the integer window follows by one packet
    per ACK, where this class keeps a real-valued window; and its default
    ``prague_rtt_scaling`` is ``RTT_CONTROL_RATE`` where this class's
    ``rtt_scaling`` is ``"none"`` by default (RTT-dependent, as RFC 9331's coupling
    law assumes, and as every scenario of this library before the option).  The
    Prague draft's text itself could not be read in this work (the rules above are
    checked against Linux's source only); its other
    refinements (accurate ECN feedback: the receiver here acknowledges every packet
    and echoes each CE, which carries the same information; a reduced gain after
    idle; classic-ECN fall-back) and bytes rather than packets are not done.

    Parameters
    ----------
    pacing : bool
        Pace new packets (True by default).
    pacing_ss_ratio, pacing_ca_ratio : float
        The pacing rate's multiples of ``cwnd / srtt`` in slow start and in
        congestion avoidance, >= 1: 2 and 1.
    ai_reduction : bool
        Grow the window only on ACKs that echo no CE (True by default, as Linux);
        False: on every ACK of new data, as :class:`Dctcp`.
    rtt_scaling : {"none", "rate", "additive", "scalable"}
        The RTT-independence heuristic (Linux ``prague_rtt_scaling``: 0, 1, 3, 2):
        ``"none"`` (the default: RTT-dependent) or one of the rules above.
    rtt_target : float, s
        The target RTT ``T`` (> 0; Linux ``prague_rtt_target``: 25 ms).
    rtt_transition : int
        Rounds out of slow start before the flow becomes RTT-independent (>= 0;
        Linux ``prague_rtt_transition``: 500).
    ect1 : bool
        Must be True (Prague's packets carry the L4S identifier).
    g, initial_alpha, record_alpha, max_window, ... : as :class:`Dctcp`

    References
    ----------
    B. Briscoe, K. De Schepper, O. Albisser, J. Misund, O. Tilmans, M. Kuehlewind,
    A.S. Ahmed, "Implementing the 'TCP Prague' Requirements for Low Latency Low Loss
    Scalable Throughput (L4S)", IETF draft-briscoe-iccrg-prague-congestion-control;
    B. Briscoe, K. De Schepper, M. Bagnulo, G. White, RFC 9331, 2023, Section 4 (the
    Prague requirements); S. Bensley et al., RFC 8257, 2017, Section 3.3.

    Examples
    --------
    >>> from qosmodels.mechanisms import Prague
    >>> src = Prague()
    >>> src.ect1, src.pacing, src.pacing_ss_ratio, src.pacing_ca_ratio, src.ai_reduction
    (True, True, 2.0, 1.0, True)
    >>> src.g, src.kind
    (0.0625, 'prague')
    >>> Prague(rtt_scaling="rate").rtt_target, Prague().rtt_transition
    (0.025, 500)
    """

    ect1: bool = True
    pacing: bool = True
    pacing_ss_ratio: float = 2.0
    pacing_ca_ratio: float = 1.0
    ai_reduction: bool = True
    rtt_scaling: str = "none"
    rtt_target: float = 0.025
    rtt_transition: int = 500

    _RTT_SCALINGS: ClassVar[tuple[str, ...]] = ("none", "rate", "scalable", "additive")

    kind: ClassVar[str] = "prague"
    kernel: ClassVar[str] = "sources.prague"

    def __post_init__(self):
        super().__post_init__()
        n = "Prague"
        set_ = object.__setattr__
        if self.ect1 is not True:
            raise ScenarioError("Prague.ect1 must be True (Prague's packets carry the L4S "
                                "identifier ECT(1); use Dctcp for ECT(0)), got "
                                f"{self.ect1!r}")
        _flag(n, "pacing", self.pacing)
        _flag(n, "ai_reduction", self.ai_reduction)
        set_(self, "pacing_ss_ratio", real(n, "pacing_ss_ratio", self.pacing_ss_ratio, ge=1))
        set_(self, "pacing_ca_ratio", real(n, "pacing_ca_ratio", self.pacing_ca_ratio, ge=1))
        if not isinstance(self.rtt_scaling, str) or self.rtt_scaling not in self._RTT_SCALINGS:
            raise ScenarioError("Prague.rtt_scaling must be 'none' (RTT-dependent), 'rate', "
                                "'additive' or 'scalable' (Linux's RTT-independence "
                                f"heuristics), got {self.rtt_scaling!r}")
        set_(self, "rtt_target", real(n, "rtt_target", self.rtt_target, gt=0, unit="s"))
        set_(self, "rtt_transition", integer(n, "rtt_transition", self.rtt_transition, ge=0,
                                             unit="rounds"))
        if self.pacing and self.limited_transmit:
            raise ScenarioError("Prague.limited_transmit=True with pacing=True is not "
                                "modelled (limited transmit's packets would leave outside "
                                "the pacing clock); use pacing=False with it, or "
                                "limited_transmit=False")
