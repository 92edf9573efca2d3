"""RED with In and Out (RIO), the router half of Clark and Fang's allocated-capacity
DiffServ (IEEE/ACM Trans. Networking 6(4), 1998, Section 3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ..errors import ScenarioError
from ._base import QueueSpec, _flag
from .red import curve_fields

__all__ = ["Rio"]


@dataclass(frozen=True)
class Rio(QueueSpec):
    """RED with In and Out: two RED curves on one FIFO queue (Clark and Fang 1998).

    Packets carry the in-profile mark (``MARK_IN_PROFILE``) or not; an edge
    element sets it (Clark and Fang's TSW tagger,
    :class:`~qosmodels.mechanisms.ProfileMarker`, or a marking token bucket,
    :class:`~qosmodels.mechanisms.AggregateBucket` with ``action="mark"``).
    Every arrival updates ``avg_total``, the average of all packets waiting;
    an in packet also updates ``avg_in``, the average of the in packets
    waiting.  Both are RED's exponential average with weight ``w_q`` and
    RED's idle-time decay: ``avg_total`` decays over the time the link was
    idle (as :class:`Red`), ``avg_in`` over the time the in queue was idle (no
    in packet waiting nor in service), as if ``t / s`` empty packets had
    arrived, ``s`` the transmission time of a ``typical_packet_size`` packet.

    An in packet is judged by the *in* curve ``(min_in, max_in, max_p_in)`` on
    ``avg_in``; any other packet (out of profile, unmarked, an
    acknowledgement) by the *out* curve ``(min_out, max_out, max_p_out)`` on
    ``avg_total``.  Each curve is RED's (Floyd and Jacobson's Figure 2): below
    its minimum the packet is accepted; between minimum and maximum it is
    dropped with ``p_a = p_b / (1 - count p_b)``, ``p_b = max_p (avg - min) /
    (max - min)``, ``count`` the curve's own packets since its last drop;
    above its maximum it is dropped (in ``gentle`` mode ``p_b`` rises from
    ``max_p`` at the maximum to 1 at twice it instead).  A full buffer drops
    either kind (cause "overflow").  Because the out curve sees the whole
    queue and starts lower and steeper, out packets are dropped first and
    in packets only when the in traffic alone congests the queue.

    With no in packets a Rio link runs exactly as a :class:`Red` with the
    out curve's parameters (same seed, same run), and with only in packets
    as a :class:`Red` with the in curve's.  Rio drops; it does not set ECN
    marks.  The fluid models do not read Rio (it is no :class:`Red`).

    Parameters
    ----------
    min_in, max_in : float, packets
        The in curve's thresholds on ``avg_in``, ``0 <= min_in < max_in``.
    max_p_in : float
        The in curve's drop probability at ``max_in``, in (0, 1].
    min_out, max_out : float, packets
        The out curve's thresholds on ``avg_total``, ``0 <= min_out < max_out``.
    max_p_out : float
        The out curve's drop probability at ``max_out``, in (0, 1].
    w_q : float
        Weight of both exponential averages, in (0, 1].
    gentle : bool
        Both curves ramp from ``max_p`` to 1 between their maximum and twice it.
    typical_packet_size : int, bytes
        Size used to convert idle time into "empty arrivals".
    record_average : bool
        Record the trace channels ``rio_in_average`` (``avg_in`` at every in
        arrival) and ``rio_average`` (``avg_total`` at every arrival), packets.

    Notes
    -----
    The default curves, in ``(40, 70, 0.02)`` and out ``(10, 30, 0.5)``
    (packets, packets, probability), are the values quoted for Clark and
    Fang's simulations; they were not checked against the paper's text,
    which is not in this repository.  ``w_q = 0.002`` is RED's usual weight
    (Floyd and Jacobson); one weight serves both averages.

    References
    ----------
    D. Clark, W. Fang, "Explicit allocation of best-effort packet delivery
    service", IEEE/ACM Trans. Networking 6(4):362-373, 1998, Section 3
    (RIO); cited as [1] by the PPS paper (Zhang et al., "Probabilistic packet
    scheduling"), Section 3.8.  S. Floyd, V. Jacobson, IEEE/ACM Trans.
    Networking 1(4), 1993, Section 4 and Figure 2 (RED); S. Floyd, "Optimum
    functions for computing the drop probability", 1997 (gentle).

    Examples
    --------
    >>> from qosmodels.mechanisms import Rio
    >>> q = Rio()
    >>> (q.min_in, q.max_in, q.max_p_in), (q.min_out, q.max_out, q.max_p_out)
    ((40.0, 70.0, 0.02), (10.0, 30.0, 0.5))
    """

    min_in: float = 40.0
    max_in: float = 70.0
    max_p_in: float = 0.02
    min_out: float = 10.0
    max_out: float = 30.0
    max_p_out: float = 0.5
    w_q: float = 0.002
    gentle: bool = False
    typical_packet_size: int = 1000
    record_average: bool = False

    kind: ClassVar[str] = "rio"
    kernel: ClassVar[str] = "queues.rio"

    def __post_init__(self):
        set_ = object.__setattr__
        o = "Rio"
        for side in ("in", "out"):
            curve_fields(o, self, f"min_{side}", f"max_{side}", f"max_p_{side}",
                         curve=f"{side} curve's ")
        set_(self, "w_q", real(o, "w_q", self.w_q, gt=0))
        if self.w_q > 1:
            raise ScenarioError(f"Rio.w_q must be in (0, 1] (the averages' weight), got "
                                f"{self.w_q!r}")
        _flag(o, "gentle", self.gentle)
        _flag(o, "record_average", self.record_average)
        set_(self, "typical_packet_size",
             integer(o, "typical_packet_size", self.typical_packet_size, ge=1, unit="bytes"))
