"""TCP Vegas (Brakmo and Peterson): NewReno's loss recovery with a congestion avoidance
that keeps between alpha and beta packets queued in the network."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import real
from ..errors import ScenarioError
from .tcp import TcpNewReno

__all__ = ["TcpVegas"]

#: What a loss does to ssthresh (TcpVegas.loss_rule).
LOSS_RULES = ("reno", "ns-3")
#: The RTTs the Vegas rules read (TcpVegas.rtt_estimate).
RTT_ESTIMATES = ("sample", "smoothed")


@dataclass(frozen=True)
class TcpVegas(TcpNewReno):
    """TCP Vegas: once per round trip, the window grows, holds or shrinks by one packet
    as the packets the flow keeps queued fall below ``alpha``, lie between, or exceed
    ``beta``.

    Every packet is timed (``rtt_samples="ack"``, the only choice: Vegas reads
    the clock for each segment).  ``base_rtt`` is the smallest RTT sample since
    the flow started, ``min_rtt`` the smallest of the current round (a *round*
    ends when the ACK of the packet that was next to send at its start
    arrives).  At the end of a round with more than two samples the sender
    computes, for ``w = floor(cwnd)``,

        ``target = floor(w base_rtt / min_rtt)``, ``diff = w - target``

    (``diff`` estimates the packets it keeps queued: Brakmo and Peterson's
    ``(Expected - Actual) base_rtt``) and

    * in slow start (``cwnd < ssthresh``): if ``diff > gamma``, leaves slow
      start with ``cwnd = min(w, target + 1)`` and ``ssthresh = max(min(ssthresh,
      cwnd - 1), 2)``; else grows as NewReno's slow start does (+1 per new ACK);
    * in congestion avoidance: ``diff > beta`` sets ``cwnd = w - 1`` and
      ``ssthresh = max(min(ssthresh, cwnd - 1), 2)``; ``diff < alpha`` sets
      ``cwnd = w + 1``; otherwise ``cwnd`` holds;

    then ``ssthresh = max(ssthresh, 3 cwnd / 4)``.  Inside a round, slow start
    still adds one packet per new ACK and congestion avoidance adds nothing.  A
    round with two samples or fewer (delayed or lost ACKs) grows the window as
    NewReno does.  Loss recovery is NewReno's (:class:`TcpNewReno`, with its
    ``recovery``, ``timer`` and ``window_arithmetic`` options); during a fast
    recovery, after one or two duplicate ACKs and from a retransmission
    timeout until everything outstanding at it is acknowledged, the Vegas
    rules are off and NewReno's growth applies; when they come back, a fresh
    round starts (``min_rtt`` and the sample count reset).  These are the rules
    of ns-3's ``TcpVegas`` and Linux's ``tcp_vegas`` (which grow exponentially
    every round trip in slow start; Brakmo and Peterson's original doubled
    every other round trip).

    Parameters
    ----------
    alpha, beta : float, packets
        The band of ``diff`` in which the window holds, ``0 <= alpha <= beta``
        (Brakmo and Peterson, ns-3 and Linux: 2 and 4).
    gamma : float, packets
        ``diff`` above which slow start ends, >= 0 (1).
    loss_rule : {"reno", "ns-3"}
        ``ssthresh`` at a fast retransmit or a timeout: ``"reno"`` (default, as
        NewReno and Linux's Vegas) ``max(flight / 2, 2)``; ``"ns-3"`` as ns-3's
        ``TcpVegas::GetSsThresh``, ``max(min(ssthresh, cwnd - 1), 2)``, which
        backs off by one packet only.
    rtt_estimate : {"sample", "smoothed"}
        The RTTs ``base_rtt`` and ``min_rtt`` are taken from: ``"sample"``
        (default, Brakmo and Peterson, Linux) each new ACK's own sample;
        ``"smoothed"`` (as ns-3.44, whose ``TcpSocketBase`` passes ``m_srtt`` to
        ``PktsAcked``) the RFC 6298 smoothed RTT after every ACK, duplicate ACKs
        included, so the rounds count duplicates as samples and the smoothing
        delays Vegas' view of the queue by several round trips (slow start
        overshoots further).
    rtt_samples : {"ack"}
        Every new ACK is an RTT sample, for Vegas and for the retransmission
        timer (Karn's rule for retransmitted packets).
    max_window, initial_window, min_rto, ... : as :class:`TcpNewReno`
        Every field of :class:`TcpNewReno`; ``ecn`` must be False and ``increase`` 1.

    References
    ----------
    L. Brakmo, L. Peterson, "TCP Vegas: end to end congestion avoidance on a
    global Internet", IEEE JSAC 13(8), 1995, Section 3.2; ns-3.44
    ``src/internet/model/tcp-vegas.cc`` (``IncreaseWindow``, ``PktsAcked``,
    ``CongestionStateSet``, ``GetSsThresh``); Linux ``net/ipv4/tcp_vegas.c``.

    Examples
    --------
    >>> from qosmodels.mechanisms import TcpVegas
    >>> TcpVegas().alpha, TcpVegas().beta, TcpVegas().kind
    (2.0, 4.0, 'vegas')
    """

    rtt_samples: str = "ack"
    alpha: float = 2.0
    beta: float = 4.0
    gamma: float = 1.0
    loss_rule: str = "reno"
    rtt_estimate: str = "sample"

    kind: ClassVar[str] = "vegas"
    kernel: ClassVar[str] = "sources.vegas"

    def __post_init__(self):
        super().__post_init__()
        n = "TcpVegas"
        set_ = object.__setattr__
        if self.rtt_samples != "ack":
            raise ScenarioError(
                f"TcpVegas.rtt_samples must be 'ack' (Vegas times every packet), got "
                f"{self.rtt_samples!r}")
        if self.ecn:
            raise ScenarioError("TcpVegas.ecn must be False (Vegas reacts to delay and loss, "
                                "not to ECN marks), got True")
        if self.increase != 1.0:
            raise ScenarioError(f"TcpVegas.increase must be 1 (Vegas' own rules set the "
                                f"increase), got {self.increase!r}")
        set_(self, "alpha", real(n, "alpha", self.alpha, ge=0, unit="packets"))
        set_(self, "beta", real(n, "beta", self.beta, ge=0, unit="packets"))
        if self.beta < self.alpha:
            raise ScenarioError(f"TcpVegas.beta must be >= alpha = {self.alpha!r} packets (the "
                                f"window holds while alpha <= diff <= beta), got {self.beta!r}")
        set_(self, "gamma", real(n, "gamma", self.gamma, ge=0, unit="packets"))
        if not isinstance(self.loss_rule, str) or self.loss_rule not in LOSS_RULES:
            raise ScenarioError(f"TcpVegas.loss_rule must be one of {list(LOSS_RULES)} (ssthresh "
                                f"after a loss: halved, or ns-3's one packet less), got "
                                f"{self.loss_rule!r}")
        if not isinstance(self.rtt_estimate, str) or self.rtt_estimate not in RTT_ESTIMATES:
            raise ScenarioError(f"TcpVegas.rtt_estimate must be one of {list(RTT_ESTIMATES)} "
                                f"(each ACK's RTT sample, or ns-3's smoothed RTT), got "
                                f"{self.rtt_estimate!r}")
