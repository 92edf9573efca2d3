"""Fair queueing (Demers, Keshav, Shenker, SIGCOMM 1989): packets sent in order of their bids."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from .._validate import real
from ..errors import ScenarioTypeError
from ._base import QueueSpec

__all__ = ["FairQueueing"]


@dataclass(frozen=True)
class FairQueueing(QueueSpec):
    """Packetised fair queueing with the promptness parameter delta (Demers, Keshav, Shenker).

    Each conversation (a flow's data crossing the link, or its ACKs crossing
    it) is served as in the bit-by-bit round robin it emulates.  The round
    number ``R(t)`` grows at ``dR/dt = mu / N_ac(t)``, ``mu`` the line rate
    and ``N_ac`` the sum of the weights ``n_alpha`` (:attr:`Flow.weight
    <qosmodels.Flow.weight>`) of the conversations active in the emulation,
    a conversation being active until ``R`` reaches the finish number of its
    latest packet; the active set is tracked exactly, not approximated by a
    self-clock.  A packet of ``P`` bits arriving at ``t`` gets

    * ``S = max(F_prev, R(t))`` and ``F = S + P / n_alpha`` (start and finish
      numbers; ``F_prev`` is its conversation's previous ``F``);
    * the bid ``B = P / n_alpha + max(F_prev, R(t) - delta)``,

    and whenever the line is free the waiting packet with the smallest bid is
    sent (non-preemptively, as the paper's simulations do; equal bids in
    arrival order).  With ``delta = 0`` the bid is ``F``.  When an arrival finds
    the buffer full, the last packet of the conversation using the most buffer
    (counting the arrival; the arrival's own conversation on a tie) is dropped,
    and no ``F`` or ``S`` is rolled back: a conversation is charged for what
    it sent into a full buffer.

    Parameters
    ----------
    delta : float, bytes
        The promptness parameter, >= 0, in round-number bytes (per unit
        weight), as :func:`qosmodels.fq.fair_queue` takes it: a conversation
        that has been inactive for ``delta`` rounds or more bids as if its
        previous packet had finished ``delta`` rounds ago.  ``math.inf`` is
        allowed (the bid then depends only on the previous finish number).
    record_round : bool
        Record the round number ``R`` (bytes per unit weight, as
        :meth:`qosmodels.fq.FairQueueResult.round_number`) at every arrival as
        the trace channel ``fq_round`` (``SimulationResult.traces``).

    Notes
    -----
    The buffer (``Link.buffer``, packets waiting) is shared: one conversation
    may fill it alone.  A link with fair queueing must have room for one
    packet per conversation crossing it (the compile step refuses a smaller
    buffer).  The packet simulator runs it; :func:`qosmodels.fq.fair_queue` is
    the same discipline on a fixed arrival trace (with infinite buffers), the
    reference the tests compare departure times with.

    References
    ----------
    A. Demers, S. Keshav, S. Shenker, "Analysis and simulation of a fair
    queueing algorithm", Proc. ACM SIGCOMM 1989, pp. 1-12 (and Internetworking:
    Research and Experience 1, 1990, 3-26), Section 2.2.
    """

    delta: float = 0.0
    record_round: bool = False

    kind: ClassVar[str] = "fq"
    kernel: ClassVar[str] = "queues.fair_queueing"

    def __post_init__(self):
        if not isinstance(self.record_round, bool):
            raise ScenarioTypeError(
                f"FairQueueing.record_round must be True or False, got {self.record_round!r}")
        if isinstance(self.delta, (int, float)) and self.delta == math.inf:
            return  # the paper's extreme case: bids from the previous finish number only
        object.__setattr__(self, "delta",
                           real("FairQueueing", "delta", self.delta, ge=0, unit="bytes"))
