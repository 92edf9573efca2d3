"""TCP Prague, the L4S scalable sender (draft-briscoe-iccrg-prague-congestion-control;
RFC 9331, Section 4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import real
from ..errors import ScenarioError
from ._base import _flag
from .dctcp import Dctcp

__all__ = ["Prague"]


@dataclass(frozen=True)
class Prague(Dctcp):
    """A greedy TCP Prague sender: DCTCP's scalable response to ECN marks, sending
    ECT(1), paced.

    What it does, from the Prague draft's list of the L4S ("Prague") requirements
    as its Linux reference implements them:

    * **L4S identifier**: every data packet carries ECT(1) (RFC 9331, Section 4.1),
      so a DualQ AQM (:class:`~qosmodels.mechanisms.DualPi2`) puts it in its L
      queue;
    * **scalable response to CE**: :class:`Dctcp`'s (RFC 8257, Section 3.3): the
      EWMA ``alpha <- (1 - g) alpha + g F`` of the marked fraction ``F`` once per
      observation window, ``g`` = 1/16, and ``cwnd <- cwnd (1 - alpha / 2)``
      at most once per window of data;
    * **loss**: Reno's (NewReno's fast recovery and halving; the retransmission
      timer), as the draft's fall-back to the Classic response (RFC 9331, 4.2);
    * **growth**: Reno's, one packet per round trip in congestion avoidance, slow
      start below ``ssthresh``;
    * **pacing**: new packets leave at most at ``ratio cwnd / srtt`` (packets/s):
      ``pacing_ss_ratio`` = 2 in slow start (``cwnd < ssthresh``), ``pacing_ca_ratio``
      = 1.2 in congestion avoidance, Linux's generic defaults (``tcp_pacing_ss_ratio``
      200 %, ``tcp_pacing_ca_ratio`` 120 %); each new packet moves the pacing clock on
      by ``srtt / (ratio cwnd)``.  Before the first RTT sample, and for
      retransmissions, there is no pacing.
    * **RTT independence: off** (not provided).

    Compared with Linux ``net/ipv4/tcp_prague.c`` (L4STeam/linux, module version 0.6),
    read in this work: the same EWMA (``g`` = 1/16, once per round trip, ``alpha``
    starting at 1), the same reduction ``cwnd alpha / 2`` on entering CWR (at most
    once per round trip) and the same halving on loss.  It differs, declared here:
    Linux grows the window only on ACKs that do not echo CE ("additive increase uses
    unsaturated marking": ``1 - p`` packets per round trip, where this class grows by
    one), sets its own pacing rate, 100 % of ``cwnd / srtt`` in congestion avoidance
    and 200 % below ``ssthresh / 2`` (not the generic 120 % used here), and its
    default ``prague_rtt_scaling`` is ``RTT_CONTROL_RATE`` (growth scaled by ``(srtt /
    25 ms)^2`` below a 25 ms target after 500 rounds), not off.  The Prague draft's
    text itself could not be fetched; its other refinements (accurate ECN feedback:
    the receiver here acknowledges every packet and echoes each CE, which carries
    the same information; a reduced gain after idle; classic-ECN fall-back) and bytes
    rather than packets are not done.

    Parameters
    ----------
    pacing : bool
        Pace new packets (True by default).
    pacing_ss_ratio, pacing_ca_ratio : float
        The pacing rate's multiples of ``cwnd / srtt`` in slow start and in
        congestion avoidance, >= 1: 2 and 1.2.
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
    >>> src.ect1, src.pacing, src.pacing_ss_ratio, src.pacing_ca_ratio, src.g, src.kind
    (True, True, 2.0, 1.2, 0.0625, 'prague')
    """

    ect1: bool = True
    pacing: bool = True
    pacing_ss_ratio: float = 2.0
    pacing_ca_ratio: float = 1.2

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
        set_(self, "pacing_ss_ratio", real(n, "pacing_ss_ratio", self.pacing_ss_ratio, ge=1))
        set_(self, "pacing_ca_ratio", real(n, "pacing_ca_ratio", self.pacing_ca_ratio, ge=1))
