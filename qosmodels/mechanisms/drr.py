"""Deficit round robin (Shreedhar and Varghese, SIGCOMM 1995): round robin over
conversations, each visit's allowance a quantum of bytes plus what the last visit left."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import real
from ._base import QueueSpec, _flag

__all__ = ["Drr"]


@dataclass(frozen=True)
class Drr(QueueSpec):
    """Deficit round robin (DRR), the scheduler of Shreedhar and Varghese's Fig. 3.

    Each conversation crossing the link (a flow's data through it, or its ACKs
    through it) has its own FIFO queue and a deficit counter.  The
    conversations with packets waiting form the *active list*, served in round
    robin order, as the paper's pseudo-code does:

    * an arrival whose conversation has no packet waiting appends the
      conversation to the tail of the active list with its deficit counter at
      0 (``InsertActiveList``, ``DeficitCounter_i = 0``);
    * a *visit* to the conversation at the head of the list adds its quantum
      ``Q_i = quantum * n_i`` (``n_i`` its :attr:`Flow.weight
      <qosmodels.Flow.weight>`) to its deficit counter, then sends its head
      packets one after the other while the head packet's size is at most the
      counter, subtracting each packet's size;
    * the visit ends when the head packet is larger than the counter (the
      conversation goes to the tail of the list, keeping its counter) or when
      the conversation's queue is empty (it leaves the list and its counter
      goes back to 0).

    The packet simulator's link takes one packet at a time, when the previous
    transmission ends, so a visit spans several transmissions.  The pseudo-code
    is written as if a visit took no time; here the conversation being visited
    counts as active until its visit ends (it stays at the head of the list, as
    Linux's ``sch_drr`` keeps it), so an arrival of its own during the visit
    neither re-inserts it nor resets its counter, and is sent in the same visit
    if the counter allows (the pseudo-code's ``while`` re-tests the queue).
    Whether the queue is empty is decided when a packet is taken.  A packet
    that finds the link idle is sent at once (the active list is then empty,
    and the pseudo-code would visit its conversation, as many rounds as it
    takes, and send it: the same packet at the same time).

    The buffer (``Link.buffer``, packets waiting, all conversations together)
    is shared.  Shreedhar and Varghese leave the buffer policy to the
    implementation (their simulations drop from the longest queue); here, as
    in :class:`~qosmodels.mechanisms.FairQueueing`, an arrival that finds the
    buffer full drops the last packet of the conversation with the most
    packets waiting, counting the arrival (the arrival itself when its own
    conversation is the longest, on a tie too), cause "overflow".  A drop
    leaves the deficit counters alone.

    Parameters
    ----------
    quantum : float or None, bytes
        Quantum per unit weight, > 0: a conversation of weight ``n_i`` gets
        ``quantum * n_i`` bytes of allowance per round.  ``None`` (the default)
        takes the largest data packet size (:attr:`Flow.packet_size
        <qosmodels.Flow.packet_size>`) of the flows whose data or ACKs cross the
        link, since Shreedhar and Varghese advise a quantum of at least the
        largest packet so that every visit sends at least one packet; the paper
        leaves the value open.  Every conversation's quantum must come to at
        least 1 byte (the compile step refuses less), so a visit that cannot
        send is never repeated more than a packet's size in bytes times.
    record_dequeues : bool
        Record every packet the scheduler takes from its queues, at the instant
        its transmission starts, on the trace channel ``"drr_dequeues"``
        (:attr:`SimulationResult.traces <qosmodels.sim.SimulationResult>`):
        the value is the packet's flow index for a data packet, ``-1 - flow``
        for an acknowledgement or control packet (default False: nothing
        recorded).  A packet that finds the link idle is sent at once without
        entering a queue and is not recorded; so while every conversation
        stays backlogged the trace holds every packet sent.  One point per
        packet: size ``Record.trace_points`` for the run.

    Notes
    -----
    A conversation continuously backlogged over ``m`` consecutive whole visits
    is sent ``m * Q_i`` bytes, give or take its largest packet (its counter
    stays in ``[0, Max)`` between visits), which is what makes DRR fair: over
    any interval in which two conversations ``i`` and ``j`` stay backlogged,
    ``|sent_i / n_i - sent_j / n_j|`` (bytes per unit weight) is bounded;
    Shreedhar and Varghese's Theorem 1 gives ``Max + 2 * quantum`` (``Max`` the
    largest packet).  ``tests/sim/test_drr.py`` measures it on a trace of four
    backlogged conversations: 2000 bytes with ``quantum`` 500 or 1500, 3120
    with 3000, 4493 with 4500, each within ``quantum + Max``.

    References
    ----------
    M. Shreedhar, G. Varghese, "Efficient fair queuing using deficit round
    robin", Proc. ACM SIGCOMM 1995, pp. 231-242 (Fig. 3: the pseudo-code;
    Section 3: the algorithm, the quantum; Theorem 1: the fairness measure), and
    IEEE/ACM Transactions on Networking 4(3), 1996, pp. 375-385.

    Examples
    --------
    >>> from qosmodels.mechanisms import Drr
    >>> Drr().quantum is None, Drr(quantum=1500).quantum, Drr.kind
    (True, 1500.0, 'drr')
    >>> Drr(record_dequeues=True).record_dequeues
    True
    """

    quantum: float | None = None
    record_dequeues: bool = False

    kind: ClassVar[str] = "drr"
    kernel: ClassVar[str] = "queues.drr"

    def __post_init__(self):
        if self.quantum is not None:
            object.__setattr__(self, "quantum",
                               real("Drr", "quantum", self.quantum, gt=0, unit="bytes"))
        _flag("Drr", "record_dequeues", self.record_dequeues)
