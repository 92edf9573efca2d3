"""DualPI2, the DualQ Coupled AQM for L4S (De Schepper, Briscoe, White, RFC 9332, 2023)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ._base import QueueSpec, _flag

__all__ = ["DualPi2"]


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

    **Base probability** (``dualpi2_update``): every ``t_update`` seconds, with
    ``curq`` the sojourn time of the Classic queue's head packet (0 if it is
    empty) and ``prevq`` the previous update's,
    ``p' <- p' + alpha (curq - target) + beta (curq - prevq)``, bounded to [0, 1];
    the coupled L probability is ``p_CL = k p'`` and the Classic one
    ``p_C = p'^2`` (Section 2.4: ``p_C = (p_CL / k)^2``).

    **Scheduler** (Section 2.5.2 and Appendix A): time-shifted FIFO, one of the
    RFC's example conditional-priority schedulers: the L queue is served unless the
    Classic head packet has waited more than ``tshift`` longer than the L head.
    (The RFC's other example, weighted round robin, is not provided.)

    **At dequeue** (``dualpi2_dequeue``, with Appendix A.2's overload branch and
    ``Th_len``):

    * an L packet, while ``p_CL < 1``: the native AQM ``laqm`` gives 0 below
      ``min_th`` of sojourn time, ``(sojourn - min_th) / range`` up to
      ``min_th + range`` and 1 above (a step at ``min_th`` if ``range`` is 0),
      and 0 unless the L queue held more than ``th_len`` packets (this one
      included); ``p_L = max(laqm, p_CL)`` and the packet is marked CE when
      ``recur(lq, p_L)`` fires (an accumulator that fires each time it passes
      1: a de-randomised, linear marking);
    * an L packet under overload (``p_CL >= 1``, i.e. ``p' >= 1/k``): dropped
      with probability ``p_C`` (a uniform draw; the RFC's "revert to Classic
      drop"), else marked when ``recur(lq, p_CL)`` fires;
    * a Classic packet: with probability ``p_C`` (a uniform draw), marked if
      ECN-capable (ECT(0)), else dropped, and the scheduler goes on to the next
      packet (cause "early").

    A packet arriving at an idle link is sent at once and gets the dequeue's
    treatment with a sojourn time of 0 (it passes through the empty queues).

    Choices where RFC 9332 leaves a value open, declared:

    * ``alpha`` = 0.16 Hz and ``beta`` = 3.2 Hz, the values the issue quotes and
      Linux ``sch_dualpi2.c``'s defaults (41/256 and 819/256 Hz); RFC 9332
      Figure 2's formulas ``alpha = 0.1 Tupdate / RTT_max^2`` and ``beta = 0.3 /
      RTT_max`` give 0.16 Hz and 3.0 Hz for ``RTT_max`` = 100 ms, ``Tupdate`` =
      16 ms (read in a re-implementation quoting the figure, not in the RFC);
    * ``tshift`` = 50 ms: ns-3's ``DualPi2QueueDisc`` default (which follows the
      IETF draft); the RFC's own default could not be read here;
    * the Classic queue's signal is a uniform draw against ``p_C`` (Appendix A.1)
      rather than ``recur(cq, p_C)``, and the L queue's is ``recur`` (both RFC
      forms); Linux's heuristic of no drop below 2 MTU queued is not done (not in
      the RFC); the buffer is counted in packets, not bytes;
    * the updates start at the first arrival and go on while the queue is idle.

    What could be checked: RFC 9332's text itself could not be fetched in this
    work; the pseudo-code above is transcribed from memory of its Appendix A
    (Figures 2-5) and compared with ns-3's ``DualPi2QueueDisc`` (the same
    classifier, ``recur``, update and time-shifted FIFO) and with Linux
    ``sch_dualpi2.c``'s overload handling as its patches describe it.  The
    tests replay this transcription, so a misremembered line of the RFC would
    not be caught by them.

    Parameters
    ----------
    target : float, s
        The Classic queue's delay target, > 0: 15 ms (RFC 9332, Figure 2).
    t_update : float, s
        ``Tupdate``, the period of ``p'``'s update, >= 1 us: 16 ms
        (``min(target, RTT_max / 3)`` rounded as in the issue and Linux).
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
        ``Th_len``: no native marking unless the L queue holds more packets than
        this, >= 0: 1 (Figure 2).
    tshift : float, s
        The time-shifted FIFO's shift, >= 0: 50 ms (see above).
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
