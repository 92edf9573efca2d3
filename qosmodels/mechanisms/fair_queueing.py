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
    and, by default, no ``F`` or ``S`` is rolled back: a conversation is
    charged for what it sent into a full buffer (the paper's rule,
    ``charge_drops=True``).

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
    charge_drops : bool
        ``True`` (the paper's rule): a dropped packet's finish number stays
        charged to its conversation.  ``False``: a drop rolls it back (see
        Notes), so a conversation's bids follow what it got through, not
        what it offered.

    Notes
    -----
    DKS leave ``F`` and ``S`` unchanged on a drop as "a small penalty for
    ill-behaved hosts" and note that later work (Heybey and Davin, 1989)
    questions it.  With that rule, a conversation that keeps offering more
    than its share has bids running ahead of ``R`` at the rate of its excess,
    so among greedy sources the one whose finish numbers grow slowest takes
    the line: four CBR sources of weights 1, 1, 2, 4, each offering the whole
    1 Mb/s of a link (buffer 60, 1000-byte packets, 50 s measured after 10 s),
    get 0.0038, 0.0038, 0.0061 and 0.986 Mb/s.  With ``charge_drops=False``
    they get their weighted max-min shares, 1/8, 1/8, 2/8 and 4/8 of the line
    (0.1250, 0.1250, 0.2501, 0.5000 Mb/s; ``tests/sim/test_fair_queueing.py``).

    The rollback (``charge_drops=False``): the dropped packet is the last of
    its conversation's ring, hence the conversation's latest numbered packet,
    and the conversation's finish number goes back by its ``P / n_alpha``,
    to the packet's ``S = max(F_prev, R(t_arrival))``.  If ``R`` has
    already reached the lowered number (the packet had started, or finished,
    in the emulation), the conversation leaves the active set at the drop
    and ``N_ac`` loses its weight from then on; ``R``'s past is not
    rewritten, since until the drop the emulation was indeed serving those
    bits (keeping the conversation in the active set with a key ``R`` has
    passed would make ``R`` step backwards).  Otherwise it stays active and
    its key follows the lowered number.  An arrival whose own conversation
    already fills the whole buffer is dropped without being numbered (the
    same as numbering it and rolling it back).  A second drop from a
    conversation that the first left idle in the emulation lowers its
    finish number by the second packet's ``P / n_alpha`` again; the number
    stays between that packet's ``S`` and ``R``, so the conversation stays
    idle, and only a later bid with ``delta > 0`` can see the difference.
    :class:`~qosmodels.mechanisms.Decbit` with ``fq_bit=True`` always
    charges drops.

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
    Research and Experience 1, 1990, 3-26), Section 2.2 (drops: the paragraph
    after the definition of the bid).
    """

    delta: float = 0.0
    record_round: bool = False
    charge_drops: bool = True

    kind: ClassVar[str] = "fq"
    kernel: ClassVar[str] = "queues.fair_queueing"

    def __post_init__(self):
        if not isinstance(self.record_round, bool):
            raise ScenarioTypeError(
                f"FairQueueing.record_round must be True or False, got {self.record_round!r}")
        if not isinstance(self.charge_drops, bool):
            raise ScenarioTypeError(
                f"FairQueueing.charge_drops must be True (the paper's rule) or False (roll "
                f"finish numbers back on a drop), got {self.charge_drops!r}")
        if isinstance(self.delta, (int, float)) and self.delta == math.inf:
            return  # the paper's extreme case: bids from the previous finish number only
        object.__setattr__(self, "delta",
                           real("FairQueueing", "delta", self.delta, ge=0, unit="bytes"))
