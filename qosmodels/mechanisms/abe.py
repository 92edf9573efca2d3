"""The Asymmetric Best-Effort router: colour-aware RED, Green dropping control, EDF and the
alpha control loop (Hurley, Le Boudec and Thiran).

ABE here is the *Asymmetric* (or Alternative) Best-Effort service of Hurley,
Le Boudec and Thiran (1999), not RFC 8511's "Alternative Backoff with ECN".
The analytic side (eqs (2)-(7), the control law) is :mod:`qosmodels.abe`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ..errors import ScenarioError, ScenarioTypeError
from .red import Red

__all__ = ["AbeQueue"]


@dataclass(frozen=True)
class AbeQueue(Red):
    """The ABE router of Section III-B: Packet Admission Control, then EDF.

    Every packet is Green or Blue by its flow's source (``green=True`` on any
    source spec; :class:`TcpFriendly` is Green by default).  On arrival:

    1. RED on the whole queue (:class:`Red`'s average, ``count`` and curve; the
       paper's "two-stage" probability) gives ``p``; a Blue packet is dropped
       with ``p``, a Green one with ``alpha p`` (computed after RED's second
       stage, as the paper says).  A full buffer (``Link.buffer`` packets
       waiting, both colours together) drops either colour.
    2. *Green dropping control*: a Green packet RED keeps is admitted only if
       fewer than ``l0`` waiting packets have a deadline before now.  This
       bounds a Green packet's queueing delay by ``l0`` packets plus the one
       in service; a Blue packet's is at most the buffer's drain time plus
       ``blue_delay``.
    3. The deadline of a Green packet is its arrival time, of a Blue one its
       arrival time plus ``blue_delay`` (``D``); the link serves the earliest
       deadline first.

    Every ``period`` (``T1``) the router measures the Blue and Green loss
    ratios (drops over arrivals of each colour) and the boost (mean Blue
    minus mean Green queueing delay, floored at 0), filters them (EWMA
    weights ``gamma1``, ``gamma2``) and updates ``alpha`` by eq (7),
    ``alpha <- alpha (beta*^2 (1 + B/tau_e)^2 q_b / q_g)^K1 delta^(-K2)``,
    through :func:`qosmodels.abe.law_step`, the same code as
    :class:`qosmodels.abe.ControlLaw`.  A period in which a colour offered no
    packet leaves ``alpha`` and the filters as they were.

    The run's trace channels (``SimulationResult.traces``), one point per
    period: ``alpha``, the measured ``q_blue`` and ``q_green``, the measured
    ``boost`` (s) and the mean queueing delays ``green_delay`` and
    ``blue_delay`` (s), NaN for a colour absent from the period.  Drops by
    Green dropping control count among the link's forced drops.

    Parameters
    ----------
    beta_star : float
        Target Blue/Green throughput ratio ``beta*``, >= 1 (paper: 3 in
        Section II, 1.5 in Section IV).
    l0 : int, packets
        ``L0``, >= 1 (paper: 10).
    blue_delay : float, s
        ``D``, the extra deadline of Blue packets, >= 0 (paper: 0.1 and 0.2).
    rtt : float, s
        ``tau_e``, the typical Green round-trip time, > 0 (paper: 0.14).
    k1, k2 : float
        Gains of eq (7), > 0, with ``k1`` below the loop's stability bound
        ``2 (1 + gamma1) / (1 - gamma1)`` (:meth:`qosmodels.abe.ControlLaw.stability`;
        paper: 1.1 and 1.1, Figure 8: 2.0 and 1.1).
    gamma1, gamma2 : float
        EWMA weights of the old loss ratios and boost, in [0, 1) (paper: 0.3, 0.5).
    period : float, s
        ``T1``, > 0 (paper: 0.5; Figure 8: 0.1).
    initial_q_blue : float
        The filter's initial Blue loss ratio, in (0, 1] (paper: 0.05).
    initial_boost : float or None, s
        The filter's initial boost, >= 0; None: ``blue_delay / 2`` (the paper's choice).
    alpha : float or None
        A fixed ``alpha`` (>= 1) and no control loop (``alpha=1, blue_delay=0``
        with ``l0`` at least the buffer is flat best effort: RED, packet for
        packet); None (default): ``alpha`` starts from eq (5) at the initial
        ``q_b`` and boost and follows the loop.
    min_th, max_th, max_p, w_q, gentle, typical_packet_size, record_average
        RED's, as for :class:`Red`, with the paper's defaults (min_th 0,
        max_th 40, max_p 0.2, w_q 0.02).  ``mark`` must stay False (ABE's
        negative feedback is loss).

    References
    ----------
    P. Hurley, J.-Y. Le Boudec, P. Thiran, "The Asymmetric Best-Effort
    Service", Section III-B (PAC and EDF), III-C (the control loop), IV-B
    (parameters) and Appendix A.

    Examples
    --------
    >>> from qosmodels.mechanisms import AbeQueue
    >>> q = AbeQueue(beta_star=1.5, l0=10, blue_delay=0.1)
    >>> q.kind, q.max_th, round(q.initial_alpha, 4), q.boost0
    ('abe', 40.0, 3.2381, 0.05)
    """

    min_th: float = 0.0
    max_th: float = 40.0
    max_p: float = 0.2
    w_q: float = 0.02
    beta_star: float = 1.5
    l0: int = 10
    blue_delay: float = 0.1
    rtt: float = 0.14
    k1: float = 1.1
    k2: float = 1.1
    gamma1: float = 0.3
    gamma2: float = 0.5
    period: float = 0.5
    initial_q_blue: float = 0.05
    initial_boost: float | None = None
    alpha: float | None = None

    kind: ClassVar[str] = "abe"
    kernel: ClassVar[str] = "queues.abe"
    colour_aware: ClassVar[bool] = True

    def __post_init__(self):
        super().__post_init__()
        n = "AbeQueue"
        set_ = object.__setattr__
        if self.mark:
            raise ScenarioError(
                "AbeQueue.mark must be False: ABE's negative feedback is loss (Green packets "
                "are dropped alpha times more often); use Red(mark=True) for ECN marking")
        # the loop's fields, validated by the law itself (its messages, under this name)
        law = _law(self)
        for name in _LAW_FIELDS:
            set_(self, name, getattr(law, name))
        set_(self, "l0", integer(n, "l0", self.l0, ge=1, unit="packets"))
        set_(self, "blue_delay", real(n, "blue_delay", self.blue_delay, ge=0, unit="s"))
        bound = 2.0 * (1.0 + self.gamma1) / (1.0 - self.gamma1)
        if self.alpha is None and not self.k1 < bound:
            raise ScenarioError(
                f"AbeQueue.k1 = {self.k1!r} is at or above the control loop's stability bound "
                f"2 (1 + gamma1) / (1 - gamma1) = {bound:.4g} for gamma1 = {self.gamma1!r} "
                f"(Jury test, qosmodels.abe.ControlLaw.stability); lower k1 or raise gamma1")
        q0 = real(n, "initial_q_blue", self.initial_q_blue, gt=0)
        if q0 > 1:
            raise ScenarioError(f"AbeQueue.initial_q_blue must be in (0, 1] (a loss ratio), "
                                f"got {q0!r}")
        set_(self, "initial_q_blue", q0)
        if self.initial_boost is not None:
            set_(self, "initial_boost",
                 real(n, "initial_boost", self.initial_boost, ge=0, unit="s"))
        if self.alpha is not None:
            set_(self, "alpha", real(n, "alpha", self.alpha, ge=1))

    @classmethod
    def flat(cls, **red) -> AbeQueue:
        """Flat best effort in an ABE queue: ``alpha`` fixed at 1, ``D = 0`` and no Green
        dropping control (``l0`` beyond any buffer), which is :class:`Red` packet for
        packet with colours still counted (the paper's "flat best-effort" runs).
        ``red``: RED's parameters, the paper's by default."""
        return cls(alpha=1.0, blue_delay=0.0, l0=2**31, **red)

    @property
    def boost0(self) -> float:
        """The filter's initial boost, s (``initial_boost``, or ``blue_delay / 2``)."""
        return self.blue_delay / 2.0 if self.initial_boost is None else self.initial_boost

    @property
    def initial_alpha(self) -> float:
        """``alpha`` at the start: the fixed one, or eq (5) at ``initial_q_blue`` and
        :attr:`boost0` (Section III-C.2)."""
        if self.alpha is not None:
            return self.alpha
        from .. import abe

        return abe.alpha(self.beta_star, self.initial_q_blue, self.boost0, self.rtt)

    @property
    def law(self):
        """The control law as a :class:`qosmodels.abe.ControlLaw` (for its fixed point and
        stability analysis)."""
        return _law(self)


#: The fields an AbeQueue shares with :class:`qosmodels.abe.ControlLaw`.
_LAW_FIELDS = ("beta_star", "rtt", "k1", "k2", "gamma1", "gamma2", "period")


def _law(spec):
    """``spec``'s control law; a bad field raises the law's error, named as the spec's."""
    from .. import abe

    try:
        return abe.ControlLaw(**{name: getattr(spec, name) for name in _LAW_FIELDS})
    except (ScenarioError, ScenarioTypeError) as e:
        raise type(e)(str(e).replace("ControlLaw.", "AbeQueue.")) from None
