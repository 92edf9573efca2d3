"""The DCTCP fluid model of Alizadeh, Javanmard and Prabhakar (SIGMETRICS 2011).

``N`` identical long-lived DCTCP flows share a bottleneck of capacity ``C`` (packet/s) whose
queue marks every packet while it holds more than ``K`` packets (step marking,
:class:`~qosmodels.mechanisms.DropTail` with ``mark_threshold=K``); ``d`` is the round-trip
propagation delay (s).  Windows and the queue are in packets::

    dW/dt     = 1/R(t) - W(t) alpha(t) / (2 R(t)) p(t - R*)
    dalpha/dt = g / R(t) (p(t - R*) - alpha(t))
    dq/dt     = N W(t) / R(t) - C                 (q >= 0)
    p(t)      = 1{q(t) > K},   R(t) = d + q(t)/C,   R* = d + K/C

This is the form issue 35 states.  It could not be checked against the paper's own text,
which was not retrievable from this project's references (only its abstract, which says
the model "exhibits limit cycle behavior" and is "not amenable to analysis by
linearization around a fixed point"), so the terms were checked against the
senders they describe instead -- additive increase of one packet per round trip, a cut of
``W alpha / 2`` once per round trip while marks arrive, RFC 8257's estimator ``alpha <- (1 -
g) alpha + g F`` once per round trip as ``dalpha/dt = g (p - alpha) / R`` -- and the mark
delay ``R*``, the round trip at the threshold, as the issue gives it (not ``R(t)``).

What the model implies (derived here, tested in ``tests/fluid/test_dctcp_fluid.py``):

* it has no fixed point off ``q = K`` (``p`` is 0 or 1); averaged over its limit cycle it
  sits where the queue hovers at ``K``: ``W = W* = (C d + K)/N`` and the time-averaged
  ``p`` equals the averaged ``alpha`` (the ``alpha`` equation), which with ``dW/dt = 0``
  gives ``alpha = sqrt(2/W*)`` (:func:`sliding_equilibrium`), the large-``W*`` form of the
  synchronised analysis (:func:`qosmodels.dctcp.alpha_approx`);
* over one period of a limit cycle whose queue never empties, ``int (p(t-R*) - alpha)/R dt
  = 0``, ``int (1/R - W alpha p(t-R*)/(2R)) dt = 0`` and the mean of ``N W / R`` is ``C``.

Stability: the paper's abstract says it analyses the limit cycles directly, "proving their
stability"; its conditions could not be read here.  :func:`g_guideline` gives the
condition on ``g`` of the DCTCP paper (Alizadeh et al., SIGCOMM 2010, Section 3.4, as
recalled, not checked against its text here): ``g < 1.386 / sqrt(2 (C RTT + K))``, so that
``alpha``'s moving average spans at least one sawtooth cycle; above it ``alpha`` follows
each cycle's marks and the fluid queue oscillates more (the experiment ``dctcp-fluid``
measures this).  :meth:`DctcpFluidResult.limit_cycle` measures the cycle a run settled on
and whether it settled.

The integrator is fixed-step Heun with the delayed queue interpolated from a history (see
:mod:`qosmodels.fluid._dctcp_kernel`).

References
----------
M. Alizadeh, A. Javanmard, B. Prabhakar, "Analysis of DCTCP: stability, convergence, and
fairness", SIGMETRICS 2011 (the fluid model and its limit cycle; sections not checked here).
M. Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, Sections 3.3-3.4.
S. Bensley et al., RFC 8257, 2017, Section 3.3 (``alpha``'s estimator).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .. import _validate as v
from .._repr import ShortRepr
from ..errors import ScenarioError, SimulationError
from ._steps import ring_size, step_plan

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["solve_dctcp_fluid", "DctcpFluidResult", "LimitCycle", "sliding_equilibrium",
           "g_guideline", "DEFAULT_MAX_STEPS"]

#: Steps ``solve_dctcp_fluid`` runs without being given ``max_steps``.
DEFAULT_MAX_STEPS = 10 ** 8
#: At most this many saved samples when ``save_dt`` is not given.
DEFAULT_SAVES = 200_000


def sliding_equilibrium(N, C, d, K) -> dict:
    """The model's averaged equilibrium: the queue at ``K``, ``W* = (C d + K)/N`` and
    ``alpha = p = sqrt(2/W*)``.

    Parameters
    ----------
    N : float
        Flows, > 0.
    C : float, packet/s
    d : float, s
        Round-trip propagation delay.
    K : float, packets
        Marking threshold.

    Returns
    -------
    dict
        ``"q"`` (packets), ``"W"`` (packets), ``"alpha"``, ``"p"`` (the fraction of time the
        senders see marks), ``"R"`` (s, ``d + K/C``).

    Examples
    --------
    >>> e = sliding_equilibrium(2, 1e5, 1e-3, 20)
    >>> e["W"], round(e["alpha"], 4)
    (60.0, 0.1826)
    """
    N = v.real("sliding_equilibrium", "N", N, gt=0, unit="flows")
    C = v.real("sliding_equilibrium", "C", C, gt=0, unit="packet/s")
    d = v.real("sliding_equilibrium", "d", d, gt=0, unit="s")
    K = v.real("sliding_equilibrium", "K", K, ge=0, unit="packets")
    w = (C * d + K) / N
    a = math.sqrt(2.0 / w)
    if a > 1.0:
        raise ScenarioError(f"sliding_equilibrium: W* = (C d + K)/N = {w:.4g} packets is below "
                            f"2, so alpha = sqrt(2/W*) would exceed 1; the model has no such "
                            f"equilibrium: use fewer flows or a larger K")
    return {"q": K, "W": w, "alpha": a, "p": a, "R": d + K / C}


def g_guideline(bdp, K) -> float:
    """``1.386 / sqrt(2 (B + K))``: the largest ``g`` of the DCTCP paper's guideline.

    Alizadeh et al. (SIGCOMM 2010, Section 3.4; recalled, not checked against its text here)
    ask that ``alpha``'s moving average span at least one sawtooth cycle of ``T_C ~ sqrt((B
    + K)/2)`` round trips: ``(1 - g)^T_C > 1/2``, i.e. ``g < ln 4 / sqrt(2 (B + K))``
    (``ln 4 = 1.386``).

    Parameters
    ----------
    bdp : float, packets
        ``B = C RTT``, > 0.
    K : float, packets
        Marking threshold, >= 0.

    Examples
    --------
    >>> round(g_guideline(84.0, 20.0), 4)
    0.0961
    """
    b = v.real("g_guideline", "bdp", bdp, gt=0, unit="packets")
    k = v.real("g_guideline", "K", K, ge=0, unit="packets")
    return math.log(4.0) / math.sqrt(2.0 * (b + k))


@dataclass(frozen=True)
class LimitCycle:
    """The cycle a run settled on (:meth:`DctcpFluidResult.limit_cycle`).

    Attributes
    ----------
    period : float, s
        Mean time between the queue's successive peaks.
    q_max, q_min : float, packets
        Mean of the cycles' peaks and troughs.
    amplitude : float, packets
        ``q_max - q_min``.
    spread : float, packets
        Largest minus smallest peak over the cycles measured (0 on an exact cycle).
    cycles : int
        Peaks found.
    settled : bool
        ``spread`` at most ``tol`` times the amplitude.
    """

    period: float
    q_max: float
    q_min: float
    amplitude: float
    spread: float
    cycles: int
    settled: bool


@dataclass(frozen=True, repr=False)
class DctcpFluidResult(ShortRepr):
    """Trajectories of the DCTCP fluid model, sampled every ``save_dt`` seconds.

    Attributes
    ----------
    t : ndarray, shape (T,), s
    W : ndarray, shape (T,), packets
        Window of each flow.
    alpha : ndarray, shape (T,)
        Each sender's ``alpha``.
    q : ndarray, shape (T,), packets
        Queue.
    p : ndarray, shape (T,)
        The mark the senders see, ``p(t - R*) = 1{q(t - R*) > K}`` (0 or 1).
    inputs : dict
        ``N``, ``C``, ``d``, ``K``, ``g``, ``t_end``, ``dt``, ``save_dt``, ``W_init``,
        ``alpha_init``, ``q_init``.
    """

    t: np.ndarray
    W: np.ndarray
    alpha: np.ndarray
    q: np.ndarray
    p: np.ndarray
    inputs: dict = field(default_factory=dict)

    @property
    def rtt(self) -> np.ndarray:
        """``R(t) = d + q(t)/C``, s."""
        return self.inputs["d"] + self.q / self.inputs["C"]

    def window(self, duration: float) -> np.ndarray:
        """Boolean mask of the samples in the last ``duration`` seconds."""
        duration = v.real("DctcpFluidResult.window", "duration", duration, gt=0, unit="s")
        return self.t >= self.t[-1] - duration

    def mean_queue(self, duration: float) -> float:
        """Mean queue over the last ``duration`` seconds, packets."""
        return float(self.q[self.window(duration)].mean())

    def mean_alpha(self, duration: float) -> float:
        """Mean ``alpha`` over the last ``duration`` seconds."""
        return float(self.alpha[self.window(duration)].mean())

    def swing(self, duration: float) -> float:
        """Peak-to-peak queue over the last ``duration`` seconds, packets."""
        q = self.q[self.window(duration)]
        return float(q.max() - q.min())

    def limit_cycle(self, duration: float, *, tol: float = 0.02) -> LimitCycle:
        """The queue's cycle over the last ``duration`` seconds.

        Peaks are the samples where the queue stops rising above ``K`` (a local maximum of
        the samples above ``K``), troughs the minimum between two peaks.

        Parameters
        ----------
        duration : float, s
            Should hold several cycles.
        tol : float
            ``settled`` when the peaks' spread is at most ``tol`` times the amplitude.

        Raises
        ------
        ScenarioError
            Fewer than three peaks in ``duration`` (lengthen it or the run).
        """
        tol = v.real("DctcpFluidResult.limit_cycle", "tol", tol, gt=0)
        m = self.window(duration)
        t, q = self.t[m], self.q[m]
        K = self.inputs["K"]
        inner = (q[1:-1] > K) & (q[1:-1] >= q[:-2]) & (q[1:-1] > q[2:])
        peaks = np.flatnonzero(inner) + 1
        if peaks.size < 3:
            raise ScenarioError(f"DctcpFluidResult.limit_cycle: {peaks.size} queue peaks in the "
                                f"last duration={duration!r} s; at least 3 are needed: give a "
                                f"longer duration (or run longer)")
        highs = q[peaks]
        lows = np.array([q[a:b].min() for a, b in zip(peaks[:-1], peaks[1:])])
        amp = float(highs.mean() - lows.mean())
        spread = float(highs.max() - highs.min())
        return LimitCycle(period=float(np.diff(t[peaks]).mean()), q_max=float(highs.mean()),
                          q_min=float(lows.mean()), amplitude=amp, spread=spread,
                          cycles=int(peaks.size), settled=bool(spread <= tol * max(amp, 1e-12)))

    def to_pandas(self) -> pandas.DataFrame:
        import pandas as pd

        return pd.DataFrame({"W": self.W, "alpha": self.alpha, "q": self.q, "p": self.p},
                            index=pd.Index(self.t, name="t"))

    def plot(self, ax=None, **kwargs):
        """Queue (with ``K``), window and ``alpha`` against time (three panels)."""
        from .._plot import drawn, panels

        axes = panels(ax, 3, rows=True, sharex=True)
        data = (("q", self.q, "queue (packets)"), ("W", self.W, "window (packets)"),
                ("alpha", self.alpha, "alpha"))
        for a, (name, y, label) in zip(axes, data):
            a.plot(self.t, y, label=name, **kwargs)
            if name == "q":
                a.axhline(self.inputs["K"], ls="--", color="grey", label="K")
                a.legend()
            a.set_ylabel(label)
        axes[-1].set_xlabel("time (s)")
        return drawn(axes)


def solve_dctcp_fluid(N, C, d, K, g, t_end, *, dt=None, W_init=1.0, alpha_init=1.0,
                      q_init=0.0, save_dt=None, max_steps=None) -> DctcpFluidResult:
    """Integrate the DCTCP fluid model of N flows through one step-marking queue.

    Parameters
    ----------
    N : float
        Number of flows, > 0.
    C : float, packet/s
        Capacity, > 0.
    d : float, s
        Round-trip propagation delay, > 0.
    K : float, packets
        Marking threshold, >= 0.
    g : float
        ``alpha``'s gain, in (0, 1] (RFC 8257: 1/16).
    t_end : float, s
        Length of the run, > 0.
    dt : float, s, optional
        Step, at most ``R* / 2`` with ``R* = d + K/C``.  Default ``R* / 200``.
    W_init, alpha_init, q_init : float
        Initial window (packets, >= 0), ``alpha`` (in [0, 1]; default 1, RFC 8257's
        initial value) and queue (packets, >= 0); the queue's history before 0 is
        ``q_init``.
    save_dt : float, s, optional
        Sampling of the result (rounded to a multiple of ``dt``); default ``dt``, or
        ``t_end / 200000`` if coarser.
    max_steps : int, optional
        Refuse runs of more than this many steps (default :data:`DEFAULT_MAX_STEPS`).

    Returns
    -------
    DctcpFluidResult

    Raises
    ------
    ScenarioError, ScenarioTypeError
        An input out of range (named in the message).
    BudgetError
        More than ``max_steps`` steps, or too large a result.

    Examples
    --------
    >>> r = solve_dctcp_fluid(2, 83_333.0, 1e-3, 20, 1 / 16, 1.0)
    >>> 15 < r.mean_queue(0.2) < 30
    True
    """
    N = v.real("solve_dctcp_fluid", "N", N, gt=0, unit="flows")
    C = v.real("solve_dctcp_fluid", "C", C, gt=0, unit="packet/s")
    d = v.real("solve_dctcp_fluid", "d", d, gt=0, unit="s")
    K = v.real("solve_dctcp_fluid", "K", K, ge=0, unit="packets")
    g = v.real("solve_dctcp_fluid", "g", g, gt=0, le=1)
    t_end = v.real("solve_dctcp_fluid", "t_end", t_end, gt=0, unit="s")
    r_star = d + K / C
    dt = r_star / 200.0 if dt is None else v.real("solve_dctcp_fluid", "dt", dt, gt=0,
                                                  le=r_star / 2, unit="s")
    W_init = v.real("solve_dctcp_fluid", "W_init", W_init, ge=0, unit="packets")
    alpha_init = v.real("solve_dctcp_fluid", "alpha_init", alpha_init, ge=0, le=1)
    q_init = v.real("solve_dctcp_fluid", "q_init", q_init, ge=0, unit="packets")
    save_dt = max(dt, t_end / DEFAULT_SAVES) if save_dt is None else v.real(
        "solve_dctcp_fluid", "save_dt", save_dt, gt=0, unit="s")
    n_steps, save_every, n_saves = step_plan("solve_dctcp_fluid", t_end, dt, save_dt, max_steps,
                                              DEFAULT_MAX_STEPS, 5)
    ring = ring_size(r_star, dt)
    from ._dctcp_kernel import STATUS_NONFINITE, integrate_dctcp

    out = [np.empty(n_saves) for _ in range(5)]
    status = integrate_dctcp(N, C, d, K, g, dt, n_steps, save_every, W_init, alpha_init,
                             q_init, ring, *out)
    if status == STATUS_NONFINITE:
        raise SimulationError(f"solve_dctcp_fluid: the state became non-finite; use a smaller "
                              f"dt (got {dt!r} s)")
    t, W, a, q, p = out
    return DctcpFluidResult(t=t, W=W, alpha=a, q=q, p=p,
                            inputs={"N": N, "C": C, "d": d, "K": K, "g": g, "t_end": t_end,
                                    "dt": dt, "save_dt": save_every * dt, "W_init": W_init,
                                    "alpha_init": alpha_init, "q_init": q_init})
