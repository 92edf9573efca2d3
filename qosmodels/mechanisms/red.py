"""Random early detection (Floyd and Jacobson, IEEE/ACM Trans. Networking 1(4), 1993) and its
enhancement for marked packets, ERED (Feng et al. 1997, as Mehra, Tewari and Kandlur use it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ..errors import ScenarioError, ScenarioTypeError
from ._base import QueueSpec, _flag

__all__ = ["Red", "Ered"]

#: RED's rules for spacing early drops, in the order the kernel codes them (0, 1, 2).
SPACINGS = ("floyd", "ns2-wait", "bernoulli")
#: The queue kinds whose kernel reads ``spacing`` (RED's own verdict); the other
#: disciplines built on RED (AbeQueue, TicketRed) space as Floyd and Jacobson only.
_SPACED_KINDS = ("red", "ered")


def spacing_code(spec) -> int:
    """The kernel's code of ``spec.spacing`` (0 "floyd", 1 "ns2-wait", 2 "bernoulli")."""
    return SPACINGS.index(spec.spacing)


def curve_fields(owner: str, spec, lo: str, hi: str, mp: str, curve: str = "") -> None:
    """Validate, in place, one RED curve of ``spec``: thresholds ``lo < hi`` (packets,
    ``lo >= 0``) and the drop probability ``mp`` at ``hi`` in (0, 1].  ``curve`` names it
    in messages (``"in curve's "``: RIO's two curves)."""
    set_ = object.__setattr__
    set_(spec, lo, real(owner, lo, getattr(spec, lo), ge=0, unit="packets"))
    set_(spec, hi, real(owner, hi, getattr(spec, hi), gt=0, unit="packets"))
    if not getattr(spec, lo) < getattr(spec, hi):
        raise ScenarioError(
            f"{owner}.{lo} must be below {owner}.{hi}, got {lo} = {getattr(spec, lo)!r} and "
            f"{hi} = {getattr(spec, hi)!r} packets; raise {hi} or lower {lo}")
    set_(spec, mp, real(owner, mp, getattr(spec, mp), gt=0))
    if getattr(spec, mp) > 1:
        raise ScenarioError(
            f"{owner}.{mp} must be in (0, 1] (the {curve}drop probability at {hi}), got "
            f"{getattr(spec, mp)!r}")


def _ecn_synonym(owner: str, spec) -> None:
    """Resolve, in place, RED's ``ecn`` and its older synonym ``mark`` to one bool in both
    (None: the other's value, both None: False); given both, they must agree."""
    ecn, mark = spec.ecn, spec.mark
    if ecn is not None:
        _flag(owner, "ecn", ecn)
    if mark is not None:
        _flag(owner, "mark", mark)
    if ecn is not None and mark is not None and ecn != mark:
        raise ScenarioError(
            f"{owner}.ecn = {ecn!r} and {owner}.mark = {mark!r} disagree: mark is the older "
            f"name of ecn (ECN-mark instead of dropping early); give one of them")
    value = bool(ecn if ecn is not None else (mark if mark is not None else False))
    object.__setattr__(spec, "ecn", value)
    object.__setattr__(spec, "mark", value)


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
    ecn : bool or None
        Mark packets (ECN congestion experienced) instead of dropping them
        early; forced drops above ``max_th`` (or ``2 max_th`` if gentle) remain
        drops.  Only data packets of ECN-capable flows are marked (senders
        built with ``ecn=True``, which halve their window on a mark, and
        :class:`Dctcp`); others are dropped early as without ``ecn``.
        ``None`` (default): as ``mark``, else False.
    mark : bool or None
        The older name of ``ecn``, kept as a synonym: ``Red(mark=True)`` and
        ``Red(ecn=True)`` are the same queue (equal specs, the same results).
        Given both, they must agree.  After construction both fields hold
        the same bool.
    typical_packet_size : int, bytes
        Size used to convert idle time into "empty arrivals".
    record_average : bool
        Record the average queue (packets) at every arrival as the trace
        channel ``red_average`` (``SimulationResult.traces``); one point per
        arrival, so long runs may need ``Record(trace_points=...)``.
    spacing : {"floyd", "ns2-wait", "bernoulli"}
        How early drops are spaced (above).  Floyd and Jacobson's paper
        states "floyd"; ns-2's RED defaults to "ns2-wait"; the fluid models
        assume "bernoulli".  Red and Ered read it; the other queues built
        on RED (AbeQueue, TicketRed) refuse anything but "floyd".  The fluid
        models read ``p_b`` whatever the spacing.

    References
    ----------
    S. Floyd, V. Jacobson, IEEE/ACM Trans. Networking 1(4), 1993, Section 4
    and Figure 2; S. Floyd, "Optimum functions for computing the drop
    probability" (gentle RED), 1997.  ns-2.35, ``queue/red.cc``
    (``REDQueue::modify_p``, ``drop_early``, ``enque``) and
    ``tcl/lib/ns-default.tcl`` (``wait_ true``; ``gentle_`` true since
    23 April 2001, false before), read to state "ns2-wait"; not run here.
    """

    min_th: float = 5.0
    max_th: float = 15.0
    max_p: float = 0.1
    w_q: float = 0.002
    gentle: bool = False
    mark: bool | None = None
    typical_packet_size: int = 1000
    record_average: bool = False
    ecn: bool | None = None
    spacing: str = "floyd"

    kind: ClassVar[str] = "red"
    kernel: ClassVar[str] = "queues.red"

    def __post_init__(self):
        owner = type(self).__name__  # "Red", or a subclass's name (Ered) in its messages
        set_ = object.__setattr__
        curve_fields(owner, self, "min_th", "max_th", "max_p")
        set_(self, "w_q", real(owner, "w_q", self.w_q, gt=0))
        if self.w_q > 1:
            raise ScenarioError(f"{owner}.w_q must be in (0, 1], got {self.w_q!r}")
        _flag(owner, "gentle", self.gentle)
        _ecn_synonym(owner, self)
        _flag(owner, "record_average", self.record_average)
        set_(self, "typical_packet_size",
             integer(owner, "typical_packet_size", self.typical_packet_size, ge=1, unit="bytes"))
        if not isinstance(self.spacing, str):
            raise ScenarioTypeError(
                f"{owner}.spacing must be one of {list(SPACINGS)}, got {self.spacing!r}")
        if self.spacing not in SPACINGS:
            raise ScenarioError(
                f"{owner}.spacing must be one of {list(SPACINGS)} (Floyd and Jacobson's, "
                f"ns-2's wait_ rule, independent drops), got {self.spacing!r}")
        if self.spacing != "floyd" and self.kind not in _SPACED_KINDS:
            raise ScenarioError(
                f"{owner}.spacing = {self.spacing!r} is not available: {owner} spaces its early "
                f"drops as Floyd and Jacobson only; give spacing='floyd' or use Red")


@dataclass(frozen=True)
class Ered(Red):
    """Enhanced RED: RED with a lower early-drop probability for marked (in-profile) packets.

    One FIFO queue and one RED state (average queue, ``count``) for all
    packets, as :class:`Red`; a packet that carries the in-profile mark (set at
    the edge on packets that comply with their profile, e.g. by a token
    bucket) has its early-drop (or ECN-mark) probability divided by
    ``marked_factor``.  RED's probability is computed first, as for any
    packet: ``p_b`` from the average (between ``min_th`` and ``max_th``, and,
    if ``gentle``, on the ramp up to ``2 max_th``), then the uniform spacing
    ``p_a = p_b / (1 - count p_b)`` with the shared ``count`` (packets of
    either kind since the last early drop), capped at 1; a marked packet is
    then dropped with ``p_a / marked_factor``, an unmarked one with ``p_a``.
    In the same state a marked packet's drop probability is exactly
    ``1 / marked_factor`` of an unmarked one's (the paper's "1.5 times lower
    drop probability"), so two streams that see the same states (Poisson
    arrivals, say) lose early fractions in the ratio ``marked_factor``: at
    ``p_b = 0.05`` with half the packets marked, 11.0 % of the unmarked and
    7.3 % of the marked ones (the renewal argument in
    ``tests/sim/test_ered.py``).  Forced drops (the average above ``max_th``,
    or ``2 max_th`` if gentle) and buffer overflow are the same for both
    kinds.  Without marked packets Ered is :class:`Red`, draw for draw.

    The fluid models, which carry no marks, read an Ered as the :class:`Red`
    it extends (it is one: ``isinstance(Ered(), Red)``).

    Parameters
    ----------
    min_th, max_th, max_p, w_q, gentle, mark, typical_packet_size, record_average, spacing
        As for :class:`Red` (``spacing`` replaces the uniform spacing above by
        the rule it names; ``p_a`` is then divided by ``marked_factor`` alike).
    marked_factor : float
        ``>= 1``: a marked packet's early-drop probability ``p_a`` is the
        unmarked one's in the same state divided by it (1: no difference,
        plain RED).  The paper's default is 1.5.

    References
    ----------
    A. Mehra, R. Tewari, D. Kandlur, "Design considerations for rate control of
    aggregated TCP connections" (the aggregate-rate-control paper), Section 3.2
    (ERED: one FIFO queue, different discard probabilities for marked and
    unmarked packets) and Section 4.1 (ERED "assigns a lower drop probability
    for a marked packet when queue length is greater than the threshold", by
    default 1.5 times lower); its reference [8]: W. Feng, D. Kandlur, D. Saha,
    K. G. Shin, "Understanding TCP dynamics in an integrated services
    internet", NOSSDAV 1997.  RED: S. Floyd, V. Jacobson, IEEE/ACM Trans.
    Networking 1(4), 1993.

    Examples
    --------
    >>> from qosmodels.mechanisms import Ered
    >>> q = Ered(min_th=5, max_th=15, max_p=0.1)
    >>> q.marked_factor, q.kind
    (1.5, 'ered')
    """

    marked_factor: float = 1.5

    kind: ClassVar[str] = "ered"
    kernel: ClassVar[str] = "queues.ered"

    def __post_init__(self):
        super().__post_init__()
        factor = real("Ered", "marked_factor", self.marked_factor)
        if not factor >= 1:
            raise ScenarioError(
                f"Ered.marked_factor must be >= 1 (a marked packet's early-drop probability is "
                f"divided by it; 1 is plain RED, the paper's default 1.5), got {self.marked_factor!r}"
            )
        object.__setattr__(self, "marked_factor", factor)
