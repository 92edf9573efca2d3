"""DualPI2, the DualQ Coupled AQM for L4S (De Schepper, Briscoe, White, RFC 9332, 2023)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ..errors import ScenarioError, ScenarioTypeError
from ._base import QueueSpec, _flag

__all__ = ["DualPi2"]

#: The schedulers, in the order the kernel codes them (0, 1): RFC 9332's two examples of a
#: conditional-priority scheduler, the time-shifted FIFO and weighted round robin.
SCHEDULERS = ("tshift", "wrr")


@dataclass(frozen=True)
class DualPi2(QueueSpec):
    """DualPI2 (RFC 9332): an L4S queue with a shallow ramp marking threshold and a
    Classic queue under PI2, coupled so that scalable (L4S) and Classic flows get
    about the same rate, behind a conditional-priority scheduler.

    **Classifier** (RFC 9332, Section 2.3 and Appendix A's ``dualpi2_enqueue``): a
    data packet whose ECN field is ECT(1) (a source with ``ect1=True``, e.g.
    :class:`~qosmodels.mechanisms.Dctcp`) or CE (marked by an earlier queue) joins
    the L queue; not-ECT and ECT(0) packets, and ACKs, join the Classic queue.  An
    arrival that finds ``Link.buffer`` packets waiting in the two queues together is
    dropped (cause "overflow"; the RFC's shared ``limit``, counted here in packets).

    **Base probability** (``dualpi2_update``, Appendix A.2's form): every
    ``t_update`` seconds, with ``curq`` the larger of the two queues' head sojourn
    times (0 for an empty queue) and ``prevq`` the previous update's,
    ``p' <- p' + alpha (curq - target) + beta (curq - prevq)``, bounded to [0, 1];
    the coupled L probability is ``p_CL = k p'`` and the Classic one
    ``p_C = p'^2`` (Section 2.4: ``p_C = (p_CL / k)^2``).

    **Scheduler** (Section 2.5.2 and Appendix A), one of the RFC's two examples of a
    conditional-priority scheduler, by ``scheduler``:

    * ``"tshift"`` (default), time-shifted FIFO: the L queue is served unless the
      Classic head packet has waited more than ``tshift`` longer than the L head;
    * ``"wrr"``, weighted round robin as Linux ``sch_dualpi2.c`` runs it (its
      ``dequeue_packet``, "C-queue starvation protection"): a credit, in bits here (bytes
      there), decides: the L queue is served while it is not empty and the credit is <= 0
      or the Classic queue is empty, else the Classic queue.  Serving an L packet of ``b``
      bits while Classic packets wait adds ``w_C b`` to the credit, serving a Classic
      packet while L packets wait takes ``w_L b`` off, with ``w_C = c_protection`` and
      ``w_L = 1 - c_protection``; a packet the AQM drops changes nothing; when both
      queues are empty the credit goes back to ``MTU (w_C - w_L)`` (negative for
      ``c_protection`` < 0.5: the L queue first).  While both queues hold packets the
      Classic queue thus gets ``c_protection`` of the bits sent, at least.  ``MTU`` is
      the largest packet of the flows whose data or ACKs cross the link (Linux: the
      device's MTU plus its link-layer header).

    **At dequeue** (``dualpi2_dequeue``, with Appendix A.2's overload branches and
    ``Th_len``; ``recur(q, x)`` adds ``x`` to the queue's own accumulator and fires,
    taking 1 off, when it passes 1: a de-randomised, linear marking):

    * an L packet, while ``p_CL < 1`` (``p_Lmax`` = 1): the native AQM ``laqm`` gives
      0 below ``min_th`` of sojourn time, ``(sojourn - min_th) / range`` up to
      ``min_th + range`` and 1 above (a step at ``min_th`` if ``range`` is 0), and 0
      unless more than ``th_len`` packets are left in the L queue after this one;
      ``p_L = max(laqm, p_CL)`` and the packet is marked CE when ``recur(lq, p_L)``
      fires;
    * an L packet under overload (``p_CL >= 1``, i.e. ``p' >= 1/k``): dropped when
      ``recur(lq, p_C)`` fires (the RFC's "revert to Classic drop"), else marked when
      ``recur(lq, p_CL)`` fires;
    * a Classic packet: when ``recur(cq, p_C)`` fires, marked if ECN-capable
      (ECT(0)) and ``p_C < p_Cmax = min(1/k^2, 1)``, else dropped ("overload disables
      ECN"), and the scheduler goes on to the next packet (cause "early").

    A packet arriving at an idle link is sent at once and gets the dequeue's
    treatment with a sojourn time of 0 (it passes through the empty queues).

    Choices where RFC 9332 leaves a value open, declared:

    * ``t_update`` = 16 ms, ``alpha`` = 0.16 Hz and ``beta`` = 3.2 Hz, the values the
      issue quotes and Linux ``sch_dualpi2.c``'s defaults (41/256 and 819/256 Hz, gains
      per second of queue delay applied at each update, as here).  RFC 9332 Figure 2
      derives them from ``RTT_max`` = 100 ms: ``Tupdate = min(target, RTT_max / 3)``
      = 15 ms, ``alpha = 0.1 Tupdate / RTT_max^2`` = 0.15 Hz, ``beta = 0.3 / RTT_max``
      = 3.0 Hz (pass ``t_update=0.015, alpha=0.15, beta=3.0`` for them);
    * ``tshift`` = 50 ms: ns-3's ``DualPi2QueueDisc`` default (which follows the
      IETF draft); the RFC leaves the scheduler's parameter open;
    * the L queue's ``laqm`` takes the dequeued packet's own sojourn time (as Linux);
      Linux's heuristic of no drop below 2 MTU queued (older versions) is not done
      (not in the RFC); the buffer is counted in packets, not bytes;
    * the updates start at the first arrival and go on while the queue is idle.

    What could be checked, and against what: RFC 9332's own text could not be
    fetched in this work.  Its Appendix A pseudo-code (Figures 2, 4 and 5) was read
    as two independent re-implementations quote it line by line (picoquic's
    ``dualq_aqm.c``, "based on code sample for dualq pi2 in RFC 9332", and a Go
    ``dualpi2`` of the ``mengelbart/netsim`` family), which agree on: the classifier
    (ECT(1) and CE to L), ``recur`` per queue for both the L and the Classic signal,
    ``Th_len`` tested on the L queue's length after the dequeue, ``p_L = max(laqm,
    p_CL)``, the overload branches with ``p_Cmax = min(1/k^2, 1)``, ``curq`` the larger
    of the two queues' delays in A.2, and Figure 2's parameters above; and compared
    with Linux ``net/sched/sch_dualpi2.c`` (L4STeam and mainline): the same
    ``max(qdelay_c, qdelay_l)`` update, gains and overload rule (ECN-capable Classic
    packets dropped once ``k p' > 1``), drops at dequeue by default, but random rolls
    (``p_C`` as two rolls of ``p'``) instead of ``recur``, a step at 1 ms instead of the
    ramp, and a weighted round robin (10 % Classic) instead of the time-shifted FIFO.
    Fixed after that check (session 43): ``curq`` was the Classic queue's alone, the
    Classic signal a uniform draw, ``Th_len`` counted the dequeued packet, and
    ECN-capable Classic packets were marked above ``p_Cmax``.

    Parameters
    ----------
    target : float, s
        The Classic queue's delay target, > 0: 15 ms (RFC 9332, Figure 2).
    t_update : float, s
        ``Tupdate``, the period of ``p'``'s update, >= 1 us: 16 ms (Linux's; the
        RFC's ``min(target, RTT_max / 3)`` is 15 ms, see above).
    alpha, beta : float, 1/s
        PI2's integral and proportional gains, >= 0: 0.16 and 3.2 Hz (see above).
    k : float
        The coupling factor, > 0: 2 (RFC 9332, Section 2.4 and Figure 2).
    min_th : float, s
        ``minTh``, the start of the L queue's marking ramp, >= 0: 800 us (Figure 2).
    range : float, s
        ``range``, the ramp's width, >= 0: 400 us (Figure 2), so the ramp ends at
        1.2 ms; 0 makes it a step at ``min_th``.
    th_len : int, packets
        ``Th_len``: no native marking unless more packets than this are left in the
        L queue after the dequeued one, >= 0: 1 (Figure 2).
    tshift : float, s
        The time-shifted FIFO's shift, >= 0: 50 ms (see above); read with
        ``scheduler="tshift"`` only.
    scheduler : {"tshift", "wrr"}
        The conditional-priority scheduler (see above): ``"tshift"`` (default, as ns-3's
        ``DualPi2QueueDisc``) or ``"wrr"`` (as Linux).  RFC 9332 gives both as examples
        and requires neither, so the choice is the user's.
    c_protection : float
        ``"wrr"``'s Classic weight ``w_C``, the share of the bits the Classic queue gets
        at least while both queues are backlogged, in [0, 1]: 0.10 (Linux's default
        ``c_protection`` of 10 %); read with ``scheduler="wrr"`` only.
    record : bool
        Record the trace channels ``dualpi2_prob`` (``p'`` after every update),
        ``dualpi2_l_marks`` (``p_L`` at every L mark) and ``dualpi2_c_signals``
        (``p_C`` at every Classic mark or drop, and at every overload drop of an
        L packet) in ``SimulationResult.traces``.

    References
    ----------
    K. De Schepper, B. Briscoe, G. White, "Dual-Queue Coupled Active Queue
    Management (AQM) for Low Latency, Low Loss, and Scalable Throughput (L4S)",
    RFC 9332, January 2023: Section 2.4 (the coupling), 2.5 (classifier,
    scheduler, overload), Appendix A (DualPI2's pseudo-code and parameters).
    Compared with C. Huitema, picoquic ``picoquictest/dualq_aqm.c`` (2025) and Linux
    ``net/sched/sch_dualpi2.c`` (K. De Schepper, O. Albisser, H. Steen, O. Tilmans).
    B. Briscoe, K. De Schepper, M. Bagnulo, G. White, RFC 9331 (the ECT(1)
    identifier).  K. De Schepper et al., "PI2: A Linearized AQM for both Classic
    and Scalable TCP", ACM CoNEXT 2016.  Compared with ns-3's
    ``DualPi2QueueDisc`` and Linux ``net/sched/sch_dualpi2.c``.

    Examples
    --------
    >>> from qosmodels.mechanisms import DualPi2
    >>> q = DualPi2()
    >>> q.target, q.t_update, q.alpha, q.beta, q.k, q.min_th, q.range, q.kind
    (0.015, 0.016, 0.16, 3.2, 2.0, 0.0008, 0.0004, 'dualpi2')
    """

    target: float = 0.015
    t_update: float = 0.016
    alpha: float = 0.16
    beta: float = 3.2
    k: float = 2.0
    min_th: float = 800e-6
    range: float = 400e-6
    th_len: int = 1
    tshift: float = 0.05
    record: bool = False
    scheduler: str = "tshift"
    c_protection: float = 0.10

    kind: ClassVar[str] = "dualpi2"
    kernel: ClassVar[str] = "queues.dualpi2"

    def __post_init__(self):
        n = "DualPi2"
        set_ = object.__setattr__
        set_(self, "target", real(n, "target", self.target, gt=0, unit="s"))
        set_(self, "t_update", real(n, "t_update", self.t_update, ge=1e-6, unit="s"))
        set_(self, "alpha", real(n, "alpha", self.alpha, ge=0, unit="1/s"))
        set_(self, "beta", real(n, "beta", self.beta, ge=0, unit="1/s"))
        set_(self, "k", real(n, "k", self.k, gt=0))
        set_(self, "min_th", real(n, "min_th", self.min_th, ge=0, unit="s"))
        set_(self, "range", real(n, "range", self.range, ge=0, unit="s"))
        set_(self, "th_len", integer(n, "th_len", self.th_len, ge=0, unit="packets"))
        set_(self, "tshift", real(n, "tshift", self.tshift, ge=0, unit="s"))
        _flag(n, "record", self.record)
        if not isinstance(self.scheduler, str):
            raise ScenarioTypeError(
                f"{n}.scheduler must be one of {list(SCHEDULERS)}, got {self.scheduler!r}")
        if self.scheduler not in SCHEDULERS:
            raise ScenarioError(
                f"{n}.scheduler must be one of {list(SCHEDULERS)} (the time-shifted FIFO or "
                f"weighted round robin, RFC 9332 Section 2.5.2), got {self.scheduler!r}")
        set_(self, "c_protection", real(n, "c_protection", self.c_protection, ge=0, le=1))
