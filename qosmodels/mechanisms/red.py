"""Random early detection (Floyd and Jacobson, IEEE/ACM Trans. Networking 1(4), 1993)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ..errors import ScenarioError
from ._base import QueueSpec, _flag

__all__ = ["Red"]



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
    mark : bool
        Mark packets (ECN congestion experienced) instead of dropping them
        early; forced drops above ``max_th`` (or ``2 max_th`` if gentle) remain
        drops.  Senders with ``ecn=True`` halve their window on a mark.
    typical_packet_size : int, bytes
        Size used to convert idle time into "empty arrivals".
    record_average : bool
        Record the average queue (packets) at every arrival as the trace
        channel ``red_average`` (``SimulationResult.traces``); one point per
        arrival, so long runs may need ``Record(trace_points=...)``.

    References
    ----------
    S. Floyd, V. Jacobson, IEEE/ACM Trans. Networking 1(4), 1993, Section 4
    and Figure 2; S. Floyd, "Optimum functions for computing the drop
    probability" (gentle RED), 1997.
    """

    min_th: float = 5.0
    max_th: float = 15.0
    max_p: float = 0.1
    w_q: float = 0.002
    gentle: bool = False
    mark: bool = False
    typical_packet_size: int = 1000
    record_average: bool = False

    kind: ClassVar[str] = "red"
    kernel: ClassVar[str] = "queues.red"

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "min_th", real("Red", "min_th", self.min_th, ge=0, unit="packets"))
        set_(self, "max_th", real("Red", "max_th", self.max_th, gt=0, unit="packets"))
        if not self.min_th < self.max_th:
            raise ScenarioError(
                f"Red.min_th must be below Red.max_th, got min_th = {self.min_th!r} and "
                f"max_th = {self.max_th!r} packets"
            )
        set_(self, "max_p", real("Red", "max_p", self.max_p, gt=0))
        if self.max_p > 1:
            raise ScenarioError(f"Red.max_p must be in (0, 1], got {self.max_p!r}")
        set_(self, "w_q", real("Red", "w_q", self.w_q, gt=0))
        if self.w_q > 1:
            raise ScenarioError(f"Red.w_q must be in (0, 1], got {self.w_q!r}")
        _flag("Red", "gentle", self.gentle)
        _flag("Red", "mark", self.mark)
        _flag("Red", "record_average", self.record_average)
        set_(self, "typical_packet_size",
             integer("Red", "typical_packet_size", self.typical_packet_size, ge=1, unit="bytes"))
