"""Data Center TCP (DCTCP): NewReno whose window, on ECN marks, shrinks in proportion to the
estimated fraction of marked packets.

References
----------
M. Alizadeh, A. Greenberg, D. Maltz, J. Padhye, P. Patel, B. Prabhakar, S. Sengupta,
M. Sridharan, "Data Center TCP (DCTCP)", SIGCOMM 2010, Section 3.2; S. Bensley, D. Thaler,
P. Balasubramanian, L. Eggert, G. Judd, RFC 8257, October 2017, Sections 3.2-3.5.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import real
from ..errors import ScenarioError
from ._base import _flag
from .tcp import TcpNewReno

__all__ = ["Dctcp"]


@dataclass(frozen=True)
class Dctcp(TcpNewReno):
    """A greedy DCTCP sender (RFC 8257), counting in packets, on NewReno's machinery.

    Every data packet is ECN-capable.  The sender keeps ``alpha``, its estimate
    of the fraction of packets marked, and updates it once per *observation
    window* (RFC 8257, Section 3.3): each ACK of new data adds the packets it
    acknowledges to ``acked``, and to ``marked`` if it carries the ECN echo;
    when the cumulative ACK reaches ``window_end`` (initially SND.UNA, 0),

        ``F = marked / acked``, ``alpha <- (1 - g) alpha + g F``,
        ``window_end <- SND.NXT``, ``acked = marked = 0``.

    On an ACK of new data carrying the echo, at most once per window of data
    (not again until SND.UNA passes the SND.NXT of the last reduction, as
    RFC 3168 reacts) and not during a fast recovery, the window shrinks
    by RFC 8257's rule (Section 3.3; Alizadeh et al., eq. (2)),

        ``cwnd <- cwnd (1 - alpha / 2)``, ``ssthresh <- cwnd``,

    with ``alpha`` just updated if this ACK closed an observation window.
    Growth (slow start, congestion avoidance), loss recovery and the
    retransmission timer are :class:`TcpNewReno`'s (RFC 8257, Sections 3.4
    and 3.5: DCTCP grows and reacts to loss as standard TCP does).

    The receiver acknowledges every data packet and sets the echo on the ACK
    of each CE-marked packet: with an ACK per packet this is RFC 8257's
    Section 3.2 echo exactly.  With ``delayed_ack = m > 1`` (:class:`TcpReno`'s
    field) it runs Section 3.2's two-state machine: every ACK echoes
    ``DCTCP.CE``; a packet whose CE differs from it first makes the receiver
    acknowledge the packets it holds with the old state, then is acknowledged
    at once with the new one (Linux's ``dctcp_ece_ack_update``), so every ACK
    covers packets of one CE value and ``DCTCP.BytesMarked`` stays exact
    (``qosmodels/sim/_kernels/delack.py``).

    Choices where RFC 8257 and the paper leave a value open, declared here:

    * counted in packets, not bytes (every packet of a flow has one size, so
      the fractions are the same);
    * a duplicate ACK acknowledges no new data, so it counts in neither
      ``acked`` nor ``marked`` and triggers no reduction (without SACK the
      RFC's "bytes acknowledged" are those of the cumulative ACK);
    * the reduced window is at least 2 packets (``max(cwnd (1 - alpha/2),
      2)``, as RFC 5681's ``ssthresh`` floor and Linux's ``dctcp_ssthresh``;
      the RFC states none);
    * the reduction happens on the ACK carrying the echo, after that ACK's
      window increase and ``alpha`` update (the order of RFC 8257, Section
      3.3's list).

    Parameters
    ----------
    g : float
        The estimation gain, in (0, 1] (RFC 8257: "SHOULD" be 1/16).
    initial_alpha : float
        ``alpha`` at the start, in [0, 1] (RFC 8257, Section 3.3: 1, the
        conservative choice: the first mark halves the window).
    record_alpha : bool
        Record ``alpha`` at the end of every observation window as the trace
        channel ``dctcp_alpha`` (``SimulationResult.traces``).
    ecn : bool
        Must be True (DCTCP's packets are always ECN-capable).
    ect1 : bool
        Send the data packets with the ECN codepoint ECT(1), the L4S identifier
        (RFC 9331, Section 4.1; RFC 9332, Section 2.3: a DualQ AQM such as
        :class:`~qosmodels.mechanisms.DualPi2` classifies them into its L queue),
        instead of ECT(0) (RFC 3168; the default, False).  Classic AQMs (``Red``,
        ``Pie``, ``Pi``, ``CoDel``, ``DropTail(mark_threshold=K)``, ...) treat
        ECT(1) as ECN-capable as they treat ECT(0) (RFC 9331, Section 5.1 and
        RFC 8311 allow it), so only a DualQ queue tells the two apart.  This lets
        DualPi2 be checked with a scalable sender before Prague; RFC 9331 itself
        reserves ECT(1) for senders meeting its Prague requirements, which plain
        DCTCP does not all meet (e.g. no RTT-independence, no pacing).
    max_window, initial_window, min_rto, ... : as :class:`TcpNewReno`
        Every field of :class:`TcpNewReno` (its ``recovery``, ``timer`` and
        ``window_arithmetic`` options too; with ``window_arithmetic="bytes"``
        the growth is ns-3's whole-byte arithmetic, but the reduction
        ``cwnd (1 - alpha/2)`` is not rounded to whole bytes).

    References
    ----------
    M. Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, Section 3.2
    (the sender: eq. (1) for ``alpha``, eq. (2) for the window); S. Bensley et
    al., RFC 8257, 2017, Section 3.2 (the receiver's echo), 3.3 (the sender:
    ``DCTCP.Alpha``, ``DCTCP.WindowEnd``, ``g``), 3.4 (window growth as
    standard TCP) and 3.5 (loss as standard TCP); K. Ramakrishnan, S. Floyd,
    D. Black, RFC 3168, 2001, Section 6.1.2 (one reduction per window).

    Examples
    --------
    >>> from qosmodels.mechanisms import Dctcp
    >>> src = Dctcp()
    >>> src.g, src.initial_alpha, src.ecn, src.kind
    (0.0625, 1.0, True, 'dctcp')
    """

    ecn: bool = True
    g: float = 1.0 / 16.0
    initial_alpha: float = 1.0
    record_alpha: bool = False
    ect1: bool = False

    kind: ClassVar[str] = "dctcp"
    kernel: ClassVar[str] = "sources.dctcp"

    def __post_init__(self):
        super().__post_init__()
        n = "Dctcp"
        set_ = object.__setattr__
        if not self.ecn:
            raise ScenarioError("Dctcp.ecn must be True (DCTCP's data packets are always "
                                "ECN-capable; use TcpNewReno for a sender without ECN), got "
                                f"{self.ecn!r}")
        set_(self, "g", real(n, "g", self.g, gt=0, le=1))
        set_(self, "initial_alpha", real(n, "initial_alpha", self.initial_alpha, ge=0, le=1))
        _flag(n, "record_alpha", self.record_alpha)
        _flag(n, "ect1", self.ect1)
