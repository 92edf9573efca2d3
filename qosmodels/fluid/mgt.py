"""The Misra-Gong-Towsley TCP/AQM fluid model of one bottleneck, with RED, PI or PIE.

N identical TCP Reno flows in congestion avoidance share a bottleneck of capacity ``C``
(packet/s) with round-trip propagation delay ``Tp``; windows ``W`` and the queue ``q`` are in
packets (SIGCOMM 2000, for one link, as Hollot et al., INFOCOM 2001, write it)::

    dW/dt = 1/R(t) - W(t) W(t - R) p(t - R) / (2 R(t - R))
    dq/dt = N W(t)/R(t) - C        (0 <= q <= buffer)
    R(t)  = q(t)/C + Tp

The loss (mark) probability ``p`` comes from a law:

- :class:`RedLaw` -- RED with the continuous form of its EWMA that Hollot et al. use
  (INFOCOM 2001 "A control theoretic analysis of RED"):
  ``dx/dt = (ln(1 - w_q)/delta) (x - q)`` with ``delta = 1/C`` (the queue is sampled at
  every packet), and the ramp ``p = 0`` below ``min_th``, ``max_p (x - min_th)/(max_th -
  min_th)`` up to ``max_th``, 1 above (RED without the "gentle" option, as in the paper;
  ``gentle=True`` ramps on to 1 at ``2 max_th``).
- :class:`PiLaw` -- the discrete PI controller of Hollot et al. (INFOCOM 2001 "On designing
  improved controllers ..."; ns-2 ``pi.cc``): at ``sampling_rate`` Hz,
  ``p[k] = p[k-1] + a (q[k] - q_ref) - b (q[k-1] - q_ref)``, clamped to ``[0, 1]``.
- :class:`PieLaw` -- PIE's drop probability (RFC 8033, Section 4.2 and Appendix A's
  ``calculate_drop_prob``) as a fluid law: every ``t_update`` seconds, from the fluid queueing
  delay ``q/C``, ``p += (alpha (q/C - target) + beta (q/C - q_old/C)) / f(p)`` with the
  auto-tuning factor ``f`` of the RFC's table, ``p *= 0.98`` when both delays are 0, clamped
  to ``[0, 1]``.

:func:`solve_mgt` integrates the delay-differential equation with a fixed step (Heun's method,
delayed values interpolated from a history; see :mod:`qosmodels.fluid._mgt_kernel`).  The
linearisation, margins and PI design are in :mod:`qosmodels.aqm_control`.

Timeouts (``solve_mgt(..., timeouts=True)``; off by default, the form above): Section 2.3 of
the SIGCOMM 2000 paper ("Modeling Timeouts") splits the losses into timeouts (TO) and triple
duplicate acks (TD): "Let Q(w) denote the probability that the loss is a TO loss, given that
the window size at the time of a loss is w.  We use the simplified function Q(w) = min(1,
3/w) derived in [13]" (Padhye, Firoiu, Towsley, Kurose, SIGCOMM 1998), and Equation (4)
becomes (one flow, the paper's symbols: ``W(t - tau)``, ``R(q(t - tau))``, ``p(x(t - tau))``
the delayed values; ``Q`` of the current window)::

    dW/dt = 1/R(q) + (1 - Q(W)) (- W W(t-tau) / (2 R(q(t-tau)))) p(x(t-tau))
                   + (1 - W) W(t-tau) / R(q(t-tau)) Q(W) p(x(t-tau))

a TD loss halving the window and a TO loss setting it to 1.  Its Section 3.5 adds that
``Q(w) = min(1, 3/w)`` "seems valid for Reno" and ``min(1, 1/w)`` "seems to work for Sack"
(``timeouts=1.0`` here; a number ``k`` gives ``Q(w) = min(1, k/w)``, ``True`` is the paper's
3).  The queue equation is unchanged: the paper's timeout model has no term for the time a
flow spends waiting for its retransmission timer (no idle period, no backoff) and none for
the slow start that follows (it left slow start out altogether, Section 3.7); this library
adds none.  :attr:`MgtResult.timeouts` integrates the model's rate of TO losses, ``Q(W)``
times the loss rate ``W(t-tau) p(t-tau) / R(q(t-tau))``.  Read in the paper's text
(Sections 2.1, 2.3, 3.5 and 3.7) as a full-text conversion of the SIGCOMM paper held in a
public repository (its equations as LaTeX; the printed page was not seen): Equation (4) there
is the form above, so the timeout terms are added to exactly this module's window equation.

Not modelled (as in the papers' model): slow start, and timeouts unless asked for; losses at
a full buffer do not reach the senders (the queue is only clamped at ``buffer``; give a
buffer large enough that RED's or PI's ``p`` does the work, and read ``q`` against it).

References
----------
V. Misra, W.-B. Gong, D. Towsley, "Fluid-based analysis of a network of AQM routers
supporting TCP flows with an application to RED", SIGCOMM 2000, pp. 151-160 (Section 2.3:
timeouts).
J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP throughput: a simple model and
its empirical validation", SIGCOMM 1998 (the ``Q(w) = min(1, 3/w)`` the paper takes).
C. V. Hollot, V. Misra, D. Towsley, W.-B. Gong, "A control theoretic analysis of RED" and
"On designing improved controllers for AQM routers supporting TCP flows", INFOCOM 2001.
R. Pan, P. Natarajan, F. Baker, G. White, "Proportional Integral Controller Enhanced (PIE)",
RFC 8033, 2017: Section 4.2 and Appendix A (the drop probability's update).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .. import _validate as v
from .._repr import ShortRepr
from ..budget import check_memory
from ..errors import ScenarioError, ScenarioTypeError, SimulationError
from ._steps import ring_size, step_plan

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from ..aqm_control import OperatingPoint

__all__ = ["RedLaw", "PiLaw", "PieLaw", "solve_mgt", "MgtResult", "MgtScenario", "mgt_scenario",
           "DEFAULT_MAX_STEPS"]

#: Steps ``solve_mgt`` runs without being given ``max_steps`` (about 10-20 s of the kernel).
DEFAULT_MAX_STEPS = 10 ** 8
#: Saved samples when ``save_dt`` is not given.
DEFAULT_SAVES = 4000


@dataclass(frozen=True)
class RedLaw:
    """RED as Hollot et al. model it: an EWMA (continuous form) and the ramp.

    Parameters
    ----------
    min_th, max_th : float, packets
        Thresholds, ``0 <= min_th < max_th``.
    max_p : float
        Probability at ``max_th``, in (0, 1].
    w_q : float
        EWMA weight per packet arrival, in (0, 1).
    gentle : bool
        Above ``max_th``, rise linearly from ``max_p`` to 1 at ``2 max_th`` (Floyd's "gentle"
        RED) instead of jumping to 1 (the papers' RED; default).
    """

    min_th: float
    max_th: float
    max_p: float
    w_q: float
    gentle: bool = False

    def __post_init__(self):
        v.real("RedLaw", "min_th", self.min_th, ge=0, unit="packets")
        v.real("RedLaw", "max_th", self.max_th, gt=self.min_th, unit="packets")
        v.real("RedLaw", "max_p", self.max_p, gt=0, le=1)
        v.real("RedLaw", "w_q", self.w_q, gt=0, lt=1)
        if not isinstance(self.gentle, bool):
            raise ScenarioTypeError(f"RedLaw.gentle must be a bool, got {self.gentle!r}")

    def K(self, C: float) -> float:
        """The averaging filter's pole ``-ln(1 - w_q) C``, rad/s, at capacity C (packet/s)."""
        return -math.log1p(-self.w_q) * C

    def controller(self, C: float):
        """The linearised controller (:class:`~qosmodels.aqm_control.RedController`)."""
        from ..aqm_control import RedController

        return RedController.from_red(self.min_th, self.max_th, self.max_p, self.w_q, C)

    def operating_point(self, N, C, Tp) -> OperatingPoint:
        """The equilibrium on the ramp (:func:`~qosmodels.aqm_control.red_operating_point`;
        refused when it lies above ``max_th``)."""
        from ..aqm_control import red_operating_point

        return red_operating_point(N, C, Tp, self.min_th, self.max_th, self.max_p)


@dataclass(frozen=True)
class PiLaw:
    """The discrete PI AQM: ``p[k] = p[k-1] + a (q[k] - q_ref) - b (q[k-1] - q_ref)``.

    Parameters
    ----------
    a, b : float, 1/packet
        Gains, ``a > 0``, ``b >= 0`` (the papers' example: 1.822e-5, 1.816e-5).
    sampling_rate : float, Hz
        Updates per second, > 0 (the example: 170).
    q_ref : float, packets
        Queue the controller holds, >= 0 (the example: 50).
    """

    a: float
    b: float
    sampling_rate: float
    q_ref: float

    def __post_init__(self):
        v.real("PiLaw", "a", self.a, gt=0, unit="1/packet")
        v.real("PiLaw", "b", self.b, ge=0, unit="1/packet")
        v.real("PiLaw", "sampling_rate", self.sampling_rate, gt=0, unit="Hz")
        v.real("PiLaw", "q_ref", self.q_ref, ge=0, unit="packets")

    @classmethod
    def from_design(cls, design, q_ref) -> PiLaw:
        """The law of a :class:`~qosmodels.aqm_control.PiDesign` holding ``q_ref``."""
        return cls(a=design.a, b=design.b, sampling_rate=design.sampling_rate, q_ref=q_ref)

    def operating_point(self, N, C, Tp) -> OperatingPoint:
        """The equilibrium: the integral action holds ``q0 = q_ref`` (while ``a > b``)."""
        from ..aqm_control import linearize

        return linearize(N, C, Tp, self.q_ref)


@dataclass(frozen=True)
class PieLaw:
    """PIE's drop probability (RFC 8033) as a fluid law on the queueing delay ``q/C``.

    Every ``t_update`` seconds (at ``k t_update``, k = 1, 2, ..., from the start of the run),
    with ``qdelay = q/C`` the fluid queue's delay and ``qdelay_old`` the one at the previous
    update (at the first: ``q_init/C``), RFC 8033's ``calculate_drop_prob`` (Section 4.2,
    Appendix A)::

        d = alpha (qdelay - target) + beta (qdelay - qdelay_old)
        d /= 2048, 512, 128, 32, 8, 2 while p < 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1 (else 1)
        p += d;  p *= 0.98 if qdelay == qdelay_old == 0;  p bounded to [0, 1]

    and ``p`` is held between updates.  The integral term holds ``qdelay = target`` at any
    equilibrium, so the operating point is Hollot et al.'s with ``q0 = target C``.

    What of PIE the fluid law leaves out (the packet simulator's
    :class:`~qosmodels.mechanisms.Pie` has them): the burst allowance (Section 4.4: no drop
    during the first ``max_burst`` = 150 ms of a burst after an idle spell), the enqueue
    safeguard (no drop while ``qdelay_old < target/2`` and ``p < 0.2``, or while at most two
    packets wait), and the optional elements of Section 5 (de-randomisation through an
    accumulated probability, the 2 % cap per update, the departure-rate estimate).  Its delay
    is ``q/C``, the delay a bit arriving now will see; the packet PIE measures the sojourn of
    the last packet that left (timestamps) -- the same at equilibrium, and a delay ago in a
    transient.  The burst allowance and safeguard act only while the delay is low or the
    queue was idle, not at the operating point, where ``qdelay = target``.

    Parameters
    ----------
    target : float, s
        ``QDELAY_REF``, > 0 (RFC 8033: 15 ms).
    t_update : float, s
        ``T_UPDATE``, > 0 (RFC 8033: 15 ms).
    alpha, beta : float, 1/s
        The weights, >= 0, not both 0 (RFC 8033: 0.125 and 1.25).
    """

    target: float = 0.015
    t_update: float = 0.015
    alpha: float = 0.125
    beta: float = 1.25

    def __post_init__(self):
        v.real("PieLaw", "target", self.target, gt=0, unit="s")
        v.real("PieLaw", "t_update", self.t_update, gt=0, unit="s")
        v.real("PieLaw", "alpha", self.alpha, ge=0, unit="1/s")
        v.real("PieLaw", "beta", self.beta, ge=0, unit="1/s")
        if self.alpha == 0 and self.beta == 0:
            raise ScenarioError("PieLaw: alpha and beta are both 0, so p never moves; give "
                                "alpha > 0 (RFC 8033: alpha 0.125, beta 1.25 1/s)")

    @classmethod
    def from_pie(cls, pie) -> PieLaw:
        """The law of a :class:`~qosmodels.mechanisms.Pie` (its ``target``, ``t_update``,
        ``alpha``, ``beta``; the burst allowance, safeguard and ECN have no counterpart)."""
        return cls(target=pie.target, t_update=pie.t_update, alpha=pie.alpha, beta=pie.beta)

    def operating_point(self, N, C, Tp) -> OperatingPoint:
        """The equilibrium: the integral action holds ``q0/C = target`` (while ``alpha > 0``)."""
        from ..aqm_control import linearize

        return linearize(N, C, Tp, self.target * v.real("PieLaw.operating_point", "C", C,
                                                        gt=0, unit="packet/s"))


@dataclass(frozen=True, repr=False)
class MgtResult(ShortRepr):
    """Trajectories of the MGT model, sampled every ``save_dt`` seconds.

    Attributes
    ----------
    t : ndarray, shape (T,), s
    W : ndarray, shape (T,), packets
        Window of each flow.
    q : ndarray, shape (T,), packets
        Queue.
    p : ndarray, shape (T,)
        Loss (mark) probability.
    avg : ndarray, shape (T,), packets
        RED's averaged queue (for PI and PIE: a copy of ``q``, which they do not average).
    rtt : ndarray, shape (T,), s
        ``q/C + Tp``.
    law : RedLaw, PiLaw or PieLaw
    inputs : dict
        ``N``, ``C``, ``Tp``, ``buffer``, ``t_end``, ``dt``, ``W_init``, ``q_init``,
        ``timeouts`` (the ``k`` of ``Q(w) = min(1, k/w)``, 0 when off).
    timeouts : ndarray, shape (T,), or None
        With timeouts: the expected number of timeouts of one flow since 0, the integral of
        ``Q(W) W(t-R) p(t-R) / R(t-R)``; None without.
    """

    t: np.ndarray
    W: np.ndarray
    q: np.ndarray
    p: np.ndarray
    avg: np.ndarray
    rtt: np.ndarray
    law: object
    inputs: dict = field(default_factory=dict)
    timeouts: np.ndarray | None = None

    def window(self, duration: float) -> np.ndarray:
        """Boolean mask of the samples in the last ``duration`` seconds."""
        duration = v.real("MgtResult.window", "duration", duration, gt=0, unit="s")
        return self.t >= self.t[-1] - duration

    def swing(self, duration: float = 20.0) -> float:
        """Peak-to-peak queue over the last ``duration`` seconds, packets."""
        q = self.q[self.window(duration)]
        return float(q.max() - q.min())

    def mean_queue(self, duration: float = 20.0) -> float:
        """Mean queue over the last ``duration`` seconds, packets."""
        return float(self.q[self.window(duration)].mean())

    def timeout_count(self, duration: float = 20.0) -> float:
        """The model's expected timeouts of all ``N`` flows over the last ``duration`` seconds
        (from the saved samples that span it; refused when solved without timeouts)."""
        if self.timeouts is None:
            raise ScenarioError("MgtResult.timeout_count: this result was solved without "
                                "timeouts; solve with solve_mgt(..., timeouts=True)")
        n = self.timeouts[self.window(duration)]
        return float(self.inputs["N"] * (n[-1] - n[0]))

    def to_pandas(self) -> pandas.DataFrame:
        import pandas as pd

        return pd.DataFrame({"W": self.W, "q": self.q, "p": self.p, "avg": self.avg,
                             "rtt": self.rtt}, index=pd.Index(self.t, name="t"))

    def plot(self, ax=None, **kwargs):
        """Queue (and RED's average), window and probability against time (three panels)."""
        from .._plot import drawn, panels

        axes = panels(ax, 3, rows=True, sharex=True)
        data = (("q", self.q, "queue (packets)"), ("W", self.W, "window (packets)"),
                ("p", self.p, "loss probability"))
        for a, (name, y, label) in zip(axes, data):
            a.plot(self.t, y, label=name, **kwargs)
            if name == "q" and isinstance(self.law, RedLaw):
                a.plot(self.t, self.avg, "--", label="avg")
                a.legend()
            a.set_ylabel(label)
        axes[-1].set_xlabel("time (s)")
        return drawn(axes)


@dataclass(frozen=True)
class MgtScenario:
    """The MGT model's inputs read from a :class:`~qosmodels.Network` (:func:`mgt_scenario`).

    Attributes
    ----------
    N : int
        Flows through the bottleneck.
    C : float, packet/s
        Its capacity over the flows' packet size.
    Tp : float, s
        The flows' round-trip propagation delay.
    buffer : float, packets
        The bottleneck's buffer.
    law : RedLaw, PiLaw or PieLaw
        Its AQM's law.
    link : str
        The bottleneck's name.
    packet_size : int, bytes
    """

    N: int
    C: float
    Tp: float
    buffer: float
    law: RedLaw
    link: str
    packet_size: int

    def solve(self, t_end, **options) -> MgtResult:
        """:func:`solve_mgt` on this scenario (``options``: ``dt``, ``W_init``, ``timeouts``,
        ...)."""
        return solve_mgt(self.N, self.C, self.Tp, self.law, self.buffer, t_end, **options)


def mgt_scenario(network, link) -> MgtScenario:
    """Read N, C, Tp, the buffer and the AQM from a network whose flows share one AQM bottleneck.

    The same :class:`~qosmodels.Network` the packet simulator and ``solve_fluid`` run (for
    instance ``dumbbell(n, queue=...)`` with a :class:`~qosmodels.mechanisms.Red` on
    ``"r0->r1"``) is lowered to the single-bottleneck model: every flow must cross ``link``,
    start at 0 and never stop, and all flows must have the same round-trip propagation delay
    and packet size; ``link.queue`` must be a ``Red`` (its ``min_th``, ``max_th``, ``max_p``,
    ``w_q``, ``gentle``; ``mark`` and the idle-time decay have no counterpart in the model), a
    ``Pi`` (:class:`PiLaw` of its ``a``, ``b``, ``sampling_rate``, ``q_ref``; ``a`` must be
    > 0) or a ``Pie`` (:meth:`PieLaw.from_pie`).
    Other links are assumed never to queue (the model has one queue), which is for the
    caller to ensure (a dumbbell's access links are 100 times faster by default).

    Examples
    --------
    >>> from qosmodels import Link, Network
    >>> from qosmodels.mechanisms import Red
    >>> from qosmodels.topologies import dumbbell
    >>> net = dumbbell(60, 30e6, 0.1, packet_size=1000)
    >>> bott = net.links[net.link_id("r0->r1")]
    >>> net = net.replace(links=[l if l is not bott else Link(l.src, l.dst, l.capacity,
    ...                          l.delay, buffer=800, queue=Red(50, 590, 0.1, 5e-5))
    ...                          for l in net.links])
    >>> sc = mgt_scenario(net, "r0->r1")
    >>> sc.N, sc.C, round(sc.Tp, 3), sc.buffer
    (60, 3750.0, 0.2, 800.0)
    """
    from ..mechanisms import Pi, Pie, Red
    from ..network import Network

    if not isinstance(network, Network):
        raise ScenarioTypeError(f"mgt_scenario: network must be a Network, got {network!r}")
    j = network.link_id(link)
    lk = network.links[j]
    name = network.link_names[j]
    if type(lk.queue) not in (Red, Pi, Pie):
        raise ScenarioError(f"mgt_scenario: link {name!r} must have queue=Red(...), Pi(...) or "
                            f"Pie(...) (the model's AQM), got {lk.queue!r}")
    crossing = [j in set(network.flow_links(i).tolist()) for i in range(network.n_flows)]
    if not all(crossing):
        bad = [i for i, c in enumerate(crossing) if not c]
        raise ScenarioError(f"mgt_scenario: every flow must cross {name!r}; flows {bad} do not "
                            f"(the model has one bottleneck shared by all its flows)")
    for i, f in enumerate(network.flows):
        if f.start != 0.0 or f.stop is not None:
            raise ScenarioError(f"mgt_scenario: Flow {i} has start={f.start!r}, stop={f.stop!r}; "
                                f"the model's flows are active throughout (start=0, stop=None)")
    rtt = network.rtt
    if not np.allclose(rtt, rtt[0], rtol=1e-12, atol=0.0):
        raise ScenarioError(f"mgt_scenario: the flows' round-trip propagation delays differ "
                            f"({float(rtt.min())!r} to {float(rtt.max())!r} s); the model's N "
                            f"flows share one Tp: give them equal access delays")
    sizes = network.packet_sizes
    if not np.all(sizes == sizes[0]):
        raise ScenarioError(f"mgt_scenario: the flows' packet sizes differ "
                            f"({sorted(set(sizes.tolist()))} bytes); the model counts one "
                            f"packet size")
    q = lk.queue
    if type(q) is Red:
        law = RedLaw(q.min_th, q.max_th, q.max_p, q.w_q, gentle=q.gentle)
    elif type(q) is Pi:
        law = PiLaw(q.a, q.b, q.sampling_rate, q.q_ref)
    else:
        law = PieLaw.from_pie(q)
    return MgtScenario(N=network.n_flows, C=lk.capacity / (8.0 * float(sizes[0])),
                       Tp=float(rtt[0]), buffer=float(lk.buffer), law=law, link=name,
                       packet_size=int(sizes[0]))


def solve_mgt(N, C, Tp, law, buffer, t_end, *, dt=None, W_init=1.0, q_init=0.0,
              avg_init=None, p_init=None, save_dt=None, max_steps=None,
              timeouts=False) -> MgtResult:
    """Integrate the MGT fluid model of N TCP flows through one AQM bottleneck.

    Parameters
    ----------
    N : float
        Number of flows, > 0.
    C : float, packet/s
        Capacity, > 0.
    Tp : float, s
        Round-trip propagation delay, > 0.
    law : RedLaw, PiLaw or PieLaw
        The AQM.
    buffer : float, packets
        Buffer, > 0 (the queue is clamped to it; see the module docstring).
    t_end : float, s
        Length of the run, > 0.
    dt : float, s, optional
        Step, at most ``Tp / 2``.  Default ``min(1 ms, Tp / 20)``.
    W_init, q_init : float, packets
        Initial window (>= 0) and queue (in ``[0, buffer]``); constant history before 0.
    avg_init : float, packets, optional
        RED only: the initial averaged queue (>= 0; default ``q_init``).
    p_init : float, optional
        PI and PIE only: the controller's initial probability, in [0, 1] (default 0).
    save_dt : float, s, optional
        Sampling of the result (rounded to a multiple of ``dt``); default ``t_end / 4000``.
    max_steps : int, optional
        Refuse runs of more than this many steps (default :data:`DEFAULT_MAX_STEPS`).
    timeouts : bool or float
        ``False`` (default): the model without timeouts.  ``True``: Section 2.3's window
        equation, a loss a timeout with probability ``Q(W) = min(1, 3/W)`` (the paper's,
        Reno's); a number ``k > 0``: ``Q(W) = min(1, k/W)`` (Section 3.5: ``k = 1`` for Sack).
        See the module docstring; :attr:`MgtResult.timeouts` counts them.

    Returns
    -------
    MgtResult

    Examples
    --------
    >>> from qosmodels.fluid.mgt import PiLaw, solve_mgt
    >>> r = solve_mgt(60, 3750, 0.2, PiLaw(1.822e-5, 1.816e-5, 170, 50), 800, 60.0)
    >>> round(r.mean_queue(10.0))
    50
    """
    N = v.real("solve_mgt", "N", N, gt=0, unit="flows")
    C = v.real("solve_mgt", "C", C, gt=0, unit="packet/s")
    Tp = v.real("solve_mgt", "Tp", Tp, gt=0, unit="s")
    if not isinstance(law, (RedLaw, PiLaw, PieLaw)):
        raise ScenarioTypeError(f"solve_mgt: law must be a RedLaw(min_th, max_th, max_p, w_q), "
                                f"a PiLaw(a, b, sampling_rate, q_ref) or a PieLaw(target, "
                                f"t_update, alpha, beta), got {law!r}")
    buffer = v.real("solve_mgt", "buffer", buffer, gt=0, unit="packets")
    t_end = v.real("solve_mgt", "t_end", t_end, gt=0, unit="s")
    dt = min(1e-3, Tp / 20.0) if dt is None else v.real("solve_mgt", "dt", dt, gt=0,
                                                         le=Tp / 2, unit="s")
    W_init = v.real("solve_mgt", "W_init", W_init, ge=0, unit="packets")
    q_init = v.real("solve_mgt", "q_init", q_init, ge=0, le=buffer, unit="packets")
    if isinstance(law, RedLaw):
        if p_init is not None:
            raise ScenarioError("solve_mgt: p_init is the PI/PIE controller's initial state; RED's "
                                "probability follows its averaged queue: give avg_init instead")
        x_init = q_init if avg_init is None else v.real("solve_mgt", "avg_init", avg_init, ge=0,
                                                        unit="packets")
        p0 = 0.0
    else:
        if avg_init is not None:
            raise ScenarioError(f"solve_mgt: avg_init is RED's averaged queue; the "
                                f"{type(law).__name__} does not average: give p_init instead")
        x_init = q_init
        p0 = 0.0 if p_init is None else v.real("solve_mgt", "p_init", p_init, ge=0, le=1)
    if timeouts is False:
        to_k = 0.0
    elif timeouts is True:
        to_k = 3.0
    elif isinstance(timeouts, numbers.Real) and not isinstance(timeouts, np.bool_):
        to_k = float(timeouts)
        if not (math.isfinite(to_k) and to_k > 0):
            raise ScenarioError(f"solve_mgt.timeouts must be a number k > 0 (Q(w) = min(1, "
                                f"k/w); the paper's 3 is timeouts=True), or False for no "
                                f"timeouts, got {timeouts!r}")
    else:
        raise ScenarioTypeError(f"solve_mgt: timeouts must be False, True (Q(w) = min(1, 3/w), "
                                f"the paper's) or a number k > 0 (Q(w) = min(1, k/w)), got "
                                f"{timeouts!r}")
    save_dt = t_end / DEFAULT_SAVES if save_dt is None else v.real(
        "solve_mgt", "save_dt", save_dt, gt=0, unit="s")
    n_steps, save_every, n_saves = step_plan("solve_mgt", t_end, dt, save_dt, max_steps,
                                              DEFAULT_MAX_STEPS, 6)
    r_max = buffer / C + Tp
    ring = ring_size(r_max, dt)
    check_memory("solve_mgt", 3 * 8 * ring, parameter=f"a history of {ring} steps "
                 f"(buffer / C + Tp = {r_max:.4g} s at dt = {dt!r} s)",
                 fix="use a smaller buffer or a larger dt")
    if isinstance(law, RedLaw):
        code = 0
        prm = np.array([law.min_th, law.max_th, law.max_p, law.K(C), float(law.gentle)])
    elif isinstance(law, PiLaw):
        code = 1
        prm = np.array([law.a, law.b, 1.0 / law.sampling_rate, law.q_ref])
    else:
        code = 2
        prm = np.array([law.alpha, law.beta, law.t_update, law.target])
    from ._mgt_kernel import STATUS_NONFINITE, integrate_mgt, integrate_mgt_to

    out = [np.empty(n_saves) for _ in range(6)]
    if to_k == 0.0:
        n_to = None
        status = integrate_mgt(N, C, Tp, buffer, dt, n_steps, save_every, code, prm, W_init,
                               q_init, x_init, p0, ring, *out)
    else:
        n_to = np.empty(n_saves)
        status = integrate_mgt_to(N, C, Tp, buffer, dt, n_steps, save_every, code, prm,
                                  W_init, q_init, x_init, p0, ring, *out, to_k, n_to)
    if status == STATUS_NONFINITE:
        raise SimulationError(f"solve_mgt: the state became non-finite; use a smaller dt "
                              f"(got {dt!r} s)")
    t, W, q, p, x, R = out
    if code != 0:
        x = q.copy()
    return MgtResult(t=t, W=W, q=q, p=p, avg=x, rtt=R, law=law,
                     inputs={"N": N, "C": C, "Tp": Tp, "buffer": buffer, "t_end": t_end,
                             "dt": dt, "W_init": W_init, "q_init": q_init, "avg_init": x_init,
                             "p_init": p0, "timeouts": to_k}, timeouts=n_to)
