"""First-come first-served drop-tail queue: the default discipline of a link, and DCTCP's
step-marking switch queue (Alizadeh et al., SIGCOMM 2010, Section 3.1; RFC 8257, Section 3.1)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .._validate import real
from ._base import QueueSpec

__all__ = ["DropTail"]


@dataclass(frozen=True)
class DropTail(QueueSpec):
    """First-come first-served queue that drops arrivals when the buffer is full.

    With ``mark_threshold = K`` it is also DCTCP's marking queue: an arriving
    data packet of an ECN-capable flow (``TcpReno(ecn=True)``, :class:`Dctcp`)
    is CE-marked when the queue it finds on arrival holds *more than* ``K``
    packets, ``q > K``.  Alizadeh et al. mark "if the queue occupancy is
    greater than K upon its arrival" (Section 3.1), and RFC 8257 (Section 3.1)
    marks when "the queue length is greater than" the threshold; strict ``>``
    is that wording, so ``K = 0`` marks every packet that has to wait behind
    another and never one that finds the queue empty.  The queue is counted
    as every discipline here counts its buffer: packets waiting, the one
    being transmitted excluded (the instantaneous queue, not an average:
    the paper's marking is RED with ``w_q = 1`` and ``min_th = max_th = K``).
    A packet the full buffer drops is not marked (nor counted in the link's
    marks); ACKs and packets of flows that are not ECN-capable are never
    marked.  Marking consumes no randomness, so runs without ECN-capable
    flows are the same with or without a threshold.

    Parameters
    ----------
    mark_threshold : float or None, packets
        Keyword only.  DCTCP's marking threshold ``K`` (>= 0); ``None`` (default): no marking,
        the plain drop-tail queue.  Alizadeh et al. use ``K = 20`` packets at
        1 Gb/s and ``K = 65`` at 10 Gb/s (Section 3.4), and show that the queue
        never empties when ``K > C RTT / 7`` (:func:`qosmodels.dctcp.k_min`).

    References
    ----------
    M. Alizadeh, A. Greenberg, D. Maltz, J. Padhye, P. Patel, B. Prabhakar,
    S. Sengupta, M. Sridharan, "Data Center TCP (DCTCP)", SIGCOMM 2010, Section
    3.1 ("Simple Marking at the Switch") and Section 3.3 (the guideline for
    ``K``); S. Bensley et al., RFC 8257, October 2017, Section 3.1.

    Examples
    --------
    >>> from qosmodels.mechanisms import DropTail
    >>> DropTail().mark_threshold is None
    True
    >>> DropTail(mark_threshold=20).mark_threshold
    20.0
    """

    mark_threshold: float | None = field(default=None, kw_only=True)

    kind: ClassVar[str] = "droptail"
    kernel: ClassVar[str] = "queues.droptail"

    def __post_init__(self):
        if self.mark_threshold is not None:
            object.__setattr__(self, "mark_threshold",
                               real("DropTail", "mark_threshold", self.mark_threshold, ge=0,
                                    unit="packets"))
