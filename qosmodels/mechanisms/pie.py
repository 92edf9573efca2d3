"""Proportional Integral controller Enhanced, PIE (Pan et al., RFC 8033, 2017)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ._base import QueueSpec, _flag

__all__ = ["Pie"]


@dataclass(frozen=True)
class Pie(QueueSpec):
    """PIE active queue management (RFC 8033): a FIFO that drops arriving packets at
    random with a probability a proportional-integral controller of the queueing delay
    sets every ``t_update`` seconds.

    **Drop probability** (RFC 8033, Section 4.2 and Appendix A's
    ``calculate_drop_prob``): every ``t_update`` seconds, with ``current_qdelay``
    the delay estimate below and ``qdelay_old`` the previous update's,
    ``p = alpha (current_qdelay - target) + beta (current_qdelay - qdelay_old)``
    is divided by the auto-tuning factor of the current ``drop_prob``
    (``< 1e-6``: 2048, ``< 1e-5``: 512, ``< 1e-4``: 128, ``< 1e-3``: 32,
    ``< 1e-2``: 8, ``< 0.1``: 2, else 1) and added to ``drop_prob``;
    ``drop_prob`` decays by the factor 0.98 when both delay samples are 0 (the
    queue idle), is bounded to [0, 1], and ``qdelay_old = current_qdelay``.
    The burst allowance (Section 4.4) starts at ``max_burst`` and goes down by
    ``t_update`` at every update (not below 0); it is reset to ``max_burst``
    when ``drop_prob`` is 0 and both delay samples are below ``target / 2``.

    **Delay estimate** (Section 4.3 allows either Little's law on an estimated
    departure rate or timestamps): by default timestamps: ``current_qdelay``
    is the sojourn time of the last packet the link took, or 0 once the queue
    is left empty, as Linux ``sch_pie.c`` does with its default
    ``dq_rate_estimator`` off (the rate estimation being one of Section 5's
    optional elements).  With ``dq_rate_estimator=True``,
    Section 5.2's departure-rate estimation: a measurement cycle starts at a
    departure that leaves at least ``DQ_THRESHOLD`` = 16384 bytes queued and
    ends once that many bytes have left; its duration is averaged
    (``avg_dq_time``, weight ``DQ_THRESHOLD / 2**16`` = 1/4 for a new
    cycle, the first cycle taken as it is) and ``current_qdelay =
    queue_bytes * avg_dq_time / DQ_THRESHOLD`` (Little's law), 0 before the
    first cycle ends.

    **Dropping, at enqueue** (Sections 4.1, 4.4 and Appendix A's ``enque`` and
    ``drop_early``): an arrival that finds the buffer full (``Link.buffer``
    packets waiting) is dropped (cause "overflow") without a random draw; else,
    while the burst allowance is above 0, it is admitted; else the safeguard
    admits it when ``qdelay_old < target / 2`` and ``drop_prob < 0.2``, or when
    at most ``2 mean_packet_size`` bytes are waiting; else it is dropped (cause
    "early") if a uniform draw ``u < drop_prob``.  This is RFC 8033's basic
    scheme: the optional elements of Section 5 other than the departure-rate
    estimation are not done (5.3 the active/inactive switch, 5.4 the
    de-randomisation through an accumulated probability, 5.5 the cap of 2 % per
    update: they are not in the basic scheme of Section 4, whose random drop is
    a plain Bernoulli draw per arrival).

    **Periodic updates**: a timer slot of the link, started by the first
    arrival (the first update ``t_update`` after it) and re-armed at every
    update, so the updates run on the RFC's ``T_UPDATE`` clock also while the
    queue is idle (where ``drop_prob`` decays).

    Parameters
    ----------
    target : float, s
        RFC 8033's ``QDELAY_REF``, the latency target, > 0: 15 ms (Section 4.2
        and Appendix A's default).
    t_update : float, s
        ``T_UPDATE``, the period of the drop probability's update: 15 ms
        (Section 4.2).  At least 1 us: each update is a timer event of the
        simulator, and a shorter period is no router's clock (the RFC's
        plausible range is milliseconds).
    alpha, beta : float, 1/s
        The controller's weights (RFC 8033's "Hz"), >= 0: 0.125 and 1.25
        (Section 4.2, Appendix A).  The RFC says ``alpha`` should be scaled
        with ``t_update`` (halved with it, ``beta`` raised by ``alpha / 4``).
    max_burst : float, s
        ``MAX_BURST``, the burst allowance, >= 0: 150 ms (Section 4.4).
    mean_packet_size : int, bytes
        ``MEAN_PKTSIZE`` of the safeguard (no random drop while at most two
        such packets wait), >= 1.  The RFC leaves its value to the
        implementation; 1500 bytes (an Ethernet MTU, as Linux's ``2 * mtu``)
        by default, an unstated value.
    ecn : bool
        ECN (Section 5.1): an ECN-capable data packet (``TcpReno(ecn=True)``
        and the like) chosen for an early drop is marked (congestion
        experienced) and admitted instead while ``drop_prob <= 0.1`` (the
        RFC's ``mark_ecnth`` of 10 %); above that it is dropped, as other
        packets are.  False by default.
    dq_rate_estimator : bool
        Estimate the delay from the departure rate (Section 5.2) instead of
        timestamps; False by default (see above).
    record : bool
        Record the trace channels ``pie_prob`` (``drop_prob`` after every
        update, at the update's time) and ``pie_drops`` (``drop_prob`` at every
        early drop or mark, at its time) in ``SimulationResult.traces``.

    References
    ----------
    R. Pan, P. Natarajan, F. Baker, G. White, "Proportional Integral Controller
    Enhanced (PIE): A Lightweight Control Scheme to Address the Bufferbloat
    Problem", RFC 8033, February 2017: Section 4 (the basic scheme: random
    dropping, drop probability, latency, burst tolerance), Section 5 (ECN,
    dequeue rate estimation), Appendix A (the basic pseudo-code).  R. Pan et al.,
    "PIE: A lightweight control scheme to address the bufferbloat problem",
    IEEE HPSR 2013.  Compared with Linux ``net/sched/sch_pie.c``.

    Examples
    --------
    >>> from qosmodels.mechanisms import Pie
    >>> q = Pie()
    >>> q.target, q.t_update, q.alpha, q.beta, q.max_burst, q.kind
    (0.015, 0.015, 0.125, 1.25, 0.15, 'pie')
    """

    target: float = 0.015
    t_update: float = 0.015
    alpha: float = 0.125
    beta: float = 1.25
    max_burst: float = 0.15
    mean_packet_size: int = 1500
    ecn: bool = False
    dq_rate_estimator: bool = False
    record: bool = False

    kind: ClassVar[str] = "pie"
    kernel: ClassVar[str] = "queues.pie"

    def __post_init__(self):
        n = "Pie"
        set_ = object.__setattr__
        set_(self, "target", real(n, "target", self.target, gt=0, unit="s"))
        set_(self, "t_update", real(n, "t_update", self.t_update, ge=1e-6, unit="s"))
        set_(self, "alpha", real(n, "alpha", self.alpha, ge=0, unit="1/s"))
        set_(self, "beta", real(n, "beta", self.beta, ge=0, unit="1/s"))
        set_(self, "max_burst", real(n, "max_burst", self.max_burst, ge=0, unit="s"))
        set_(self, "mean_packet_size",
             integer(n, "mean_packet_size", self.mean_packet_size, ge=1, unit="bytes"))
        _flag(n, "ecn", self.ecn)
        _flag(n, "dq_rate_estimator", self.dq_rate_estimator)
        _flag(n, "record", self.record)
