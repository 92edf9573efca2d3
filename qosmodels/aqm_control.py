"""The linearised TCP/AQM loop of Hollot, Misra, Towsley and Gong, and AQM controller design.

The Misra-Gong-Towsley fluid model of N TCP flows through one bottleneck
(:mod:`qosmodels.fluid.mgt`; units: packets, seconds)::

    dW/dt = 1/R(t) - W(t) W(t-R) p(t-R) / (2 R(t-R)),   dq/dt = N W/R - C,   R = q/C + T_p

has, for a queue ``q0`` held by the AQM, the operating point
``R0 = q0/C + T_p``, ``W0 = R0 C / N``, ``p0 = 2 / W0**2``.  Linearised about it
(Hollot et al., INFOCOM 2001 "A control theoretic analysis of RED" and IEEE TAC
2002), with ``dW(t-R0)`` replaced by ``dW(t)`` and
the dependence of the delay on the queue neglected, the loss probability drives
the queue through the plant::

    P(s) = (C**2 / 2N) e^{-s R0} / ((s + 2N/(R0**2 C)) (s + 1/R0))

:func:`plant` evaluates it (and, with ``exact_delay=True``, the linearisation
that keeps ``dW(t-R0)`` as a delayed term).  :func:`derive` obtains the partial
derivatives with SymPy from the nonlinear equations, so that the closed form
can be checked against the model rather than copied.

Controllers (frequency responses from ``controller_response``):

- RED, continuous form of the EWMA with sampling interval ``delta = 1/C``
  (Hollot et al. 2001): ``C_RED(s) = L_RED / (s/K + 1)``,
  ``L_RED = max_p / (max_th - min_th)``, ``K = -ln(1 - w_q) / delta``.
- PI (Hollot et al., INFOCOM 2001 "On designing improved controllers for AQM
  routers supporting TCP flows"): ``C_PI(s) = K_PI (s/z + 1) / s``.

:func:`margins` computes gain and phase margins and the crossover frequency
numerically; :func:`red_stable` is the RED Proposition (for all ``N >= N^-``
and ``R0 <= R^+`` the loop is stable if
``L_RED (R^+ C)**3 / (2 N^-)**2 <= sqrt(w_g**2 / K**2 + 1)`` with
``w_g = 0.1 min(2N^-/((R^+)**2 C), 1/R^+)``); :func:`design_pi` is the PI
design rule (the zero cancels the TCP pole, ``z = 2N^-/((R^+)**2 C)``, and
``K_PI`` puts the unity-gain crossover at ``w_g``) with its discrete gains
``a``, ``b`` of ``p[k] = p[k-1] + a (q[k] - q_ref) - b (q[k-1] - q_ref)``.

Sources and what was checked
----------------------------
We could not open a copy of the papers from this machine (the searches we
could run returned their abstracts only), so the formulas here are the ones
the papers are known for, as the issue quotes them, and no section or equation
numbers are given.  What can be derived was derived and tested instead of
trusted: the plant from the nonlinear equations (:func:`derive`, SymPy); the
PI gain from ``|P C| = 1`` at ``w_g`` with the TCP pole cancelled (the formula in
:func:`design_pi`); the Proposition's left side as the loop's low-frequency
gain at the worst case, ``L_RED (R^+ C)**3/(2N^-)**2``; ``K = -ln(1 - w_q) C`` as
the rate of the per-packet EWMA (the same rate :func:`~qosmodels.fluid.solve_fluid`
gives RED).  Not derivable and not checked: the factor 0.1 in the Proposition's
``w_g``, and the crossover the PI paper chose (the default here, ``w_g = z``, is
a documented choice of ours; the printed ``a``, ``b`` imply ``w_g = 0.520`` rad/s,
1.7 % below it, see the ``aqm-pi-design`` experiment).  The PI example's
printed numbers (N^- = 60, C = 3750 packet/s, R^+ = 0.246 s, q_ref = 50
packets, 170 Hz, ``a = 1.822e-5``, ``b = 1.816e-5``: ns-2's ``pi.cc`` ships the
same defaults) are compared with :func:`design_pi` in the tests and there.

References
----------
V. Misra, W.-B. Gong, D. Towsley, "Fluid-based analysis of a network of AQM
routers supporting TCP flows with an application to RED", SIGCOMM 2000.
C. V. Hollot, V. Misra, D. Towsley, W.-B. Gong, "A control theoretic analysis
of RED", INFOCOM 2001.
C. V. Hollot, V. Misra, D. Towsley, W.-B. Gong, "On designing improved
controllers for AQM routers supporting TCP flows", INFOCOM 2001.
C. V. Hollot, V. Misra, D. Towsley, W.-B. Gong, "Analysis and design of
controllers for AQM routers supporting TCP flows", IEEE Trans. Automatic
Control 47(6), 2002.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _validate as v
from ._repr import ShortRepr
from .errors import ScenarioError, ScenarioTypeError, SolverError

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["OperatingPoint", "linearize", "red_operating_point", "RedController",
           "PiController", "plant", "controller_response", "loop", "Margins", "margins",
           "RedStability", "red_stable", "PiDesign", "design_pi", "discretize_pi",
           "MgtLinearization", "derive", "dominant_root"]


# --------------------------------------------------------------------------- operating point
@dataclass(frozen=True, repr=False)
class OperatingPoint(ShortRepr):
    """An equilibrium of the MGT fluid model (one bottleneck, N identical flows).

    Attributes
    ----------
    N : float
        Number of TCP flows.
    C : float, packet/s
        Bottleneck capacity.
    Tp : float, s
        Round-trip propagation delay.
    q0 : float, packets
        Queue at the operating point.
    R0 : float, s
        Round-trip time ``q0/C + Tp``.
    W0 : float, packets
        Window ``R0 C / N``.
    p0 : float
        Loss (mark) probability ``2 / W0**2``.
    """

    N: float
    C: float
    Tp: float
    q0: float
    R0: float
    W0: float
    p0: float

    @property
    def tcp_pole(self) -> float:
        """``2N / (R0**2 C)``, rad/s: the window's pole."""
        return 2.0 * self.N / (self.R0 ** 2 * self.C)

    @property
    def queue_pole(self) -> float:
        """``1 / R0``, rad/s: the queue's pole."""
        return 1.0 / self.R0

    @property
    def gain(self) -> float:
        """``C**2 / (2N)``: the plant's numerator, packets/s**2 per unit of probability."""
        return self.C ** 2 / (2.0 * self.N)

    def to_pandas(self) -> pandas.DataFrame:
        import pandas as pd

        return pd.DataFrame({k: [getattr(self, k)] for k in
                             ("N", "C", "Tp", "q0", "R0", "W0", "p0")})


def _common(owner: str, N, C, Tp) -> tuple[float, float, float]:
    N = v.real(owner, "N", N, gt=0, unit="flows")
    C = v.real(owner, "C", C, gt=0, unit="packet/s")
    Tp = v.real(owner, "Tp", Tp, gt=0, unit="s")
    return N, C, Tp


def linearize(N, C, Tp, q0) -> OperatingPoint:
    """The operating point of the MGT model at queue ``q0``.

    Parameters
    ----------
    N : float
        Number of flows, > 0.
    C : float, packet/s
        Capacity, > 0.
    Tp : float, s
        Round-trip propagation delay, > 0.
    q0 : float, packets
        Queue the AQM holds, >= 0.

    Returns
    -------
    OperatingPoint
        ``R0 = q0/C + Tp``, ``W0 = R0 C/N``, ``p0 = 2/W0**2`` (refused if ``p0 > 1``: no
        equilibrium of the model has a probability above 1).

    Examples
    --------
    >>> op = linearize(60, 3750, 0.2, 50)
    >>> round(op.R0, 4), round(op.W0, 3), round(op.p0, 5)
    (0.2133, 13.333, 0.01125)
    """
    N, C, Tp = _common("linearize", N, C, Tp)
    q0 = v.real("linearize", "q0", q0, ge=0, unit="packets")
    R0 = q0 / C + Tp
    W0 = R0 * C / N
    p0 = 2.0 / W0 ** 2
    if p0 > 1.0:
        raise ScenarioError(
            f"linearize: the operating point needs a loss probability 2/W0**2 = {p0:.4g} > 1 "
            f"(W0 = R0 C / N = {W0:.4g} packets); use fewer flows N (got {N!r}), a larger "
            f"capacity C or a longer Tp")
    return OperatingPoint(N=N, C=C, Tp=Tp, q0=q0, R0=R0, W0=W0, p0=p0)


def _ramp(x: float, min_th: float, max_th: float, max_p: float) -> float:
    if x < min_th:
        return 0.0
    if x <= max_th:
        return max_p * (x - min_th) / (max_th - min_th)
    return 1.0


def red_operating_point(N, C, Tp, min_th, max_th, max_p) -> OperatingPoint:
    """The operating point with RED's ramp: the ``q0`` where ``p_RED(q0) = 2 / W0(q0)**2``.

    The averaged queue equals the queue at equilibrium, so ``q0`` solves
    ``max_p (q0 - min_th)/(max_th - min_th) = 2 N**2 / ((q0 + C Tp)**2)`` (packets).  The
    left side increases and the right decreases, so the root is unique; it must lie in
    ``[min_th, max_th]`` (otherwise RED's jump to 1 at ``max_th`` leaves no equilibrium and the
    call is refused, naming the fix).

    Examples
    --------
    >>> op = red_operating_point(60, 3750, 0.2, 50, 590, 0.1)
    >>> round(op.q0, 2), round(op.W0, 3)
    (103.39, 14.223)
    """
    from scipy.optimize import brentq

    N, C, Tp = _common("red_operating_point", N, C, Tp)
    min_th = v.real("red_operating_point", "min_th", min_th, ge=0, unit="packets")
    max_th = v.real("red_operating_point", "max_th", max_th, gt=min_th, unit="packets")
    max_p = v.real("red_operating_point", "max_p", max_p, gt=0, le=1)

    def gap(q):
        return max_p * (q - min_th) / (max_th - min_th) - 2.0 * N ** 2 / (q + C * Tp) ** 2

    if gap(max_th) < 0:
        raise ScenarioError(
            f"red_operating_point: RED's ramp reaches max_p = {max_p!r} at max_th = {max_th!r} "
            f"packets before the flows' equilibrium loss 2/W0**2 = {-gap(max_th) + max_p:.4g}; "
            f"no equilibrium on the ramp: raise max_p or max_th, or use fewer flows N")
    q0 = brentq(gap, min_th, max_th, xtol=1e-12, rtol=1e-14)
    return linearize(N, C, Tp, q0)


# --------------------------------------------------------------------------- controllers
@dataclass(frozen=True, repr=False)
class RedController(ShortRepr):
    """RED's linearised controller ``L_RED / (s/K + 1)`` (Hollot et al. 2001).

    Build it with :meth:`from_red` from RED's parameters, or give ``L_red`` and ``K``.

    Attributes
    ----------
    L_red : float, 1/packet
        Slope of the ramp, ``max_p / (max_th - min_th)``.
    K : float, rad/s
        Pole of the averaging filter, ``-ln(1 - w_q) / delta``, ``delta = 1/C`` the sampling
        interval (the queue is averaged at every packet arrival).
    """

    L_red: float
    K: float

    def __post_init__(self):
        v.real("RedController", "L_red", self.L_red, gt=0, unit="1/packet")
        v.real("RedController", "K", self.K, gt=0, unit="rad/s")

    @classmethod
    def from_red(cls, min_th, max_th, max_p, w_q, C) -> RedController:
        """``L_RED = max_p/(max_th - min_th)``, ``K = -C ln(1 - w_q)`` (C in packet/s)."""
        min_th = v.real("RedController", "min_th", min_th, ge=0, unit="packets")
        max_th = v.real("RedController", "max_th", max_th, gt=min_th, unit="packets")
        max_p = v.real("RedController", "max_p", max_p, gt=0, le=1)
        w_q = v.real("RedController", "w_q", w_q, gt=0, lt=1)
        C = v.real("RedController", "C", C, gt=0, unit="packet/s")
        return cls(L_red=max_p / (max_th - min_th), K=-math.log1p(-w_q) * C)

    def response(self, w: np.ndarray) -> np.ndarray:
        s = 1j * np.asarray(w, dtype=float)
        return self.L_red / (s / self.K + 1.0)


@dataclass(frozen=True, repr=False)
class PiController(ShortRepr):
    """The PI controller ``K_PI (s/z + 1) / s`` (Hollot et al., INFOCOM 2001).

    Attributes
    ----------
    K_pi : float, 1/(packet s)
        Integral gain.
    z : float, rad/s
        Zero.
    """

    K_pi: float
    z: float

    def __post_init__(self):
        v.real("PiController", "K_pi", self.K_pi, gt=0, unit="1/(packet s)")
        v.real("PiController", "z", self.z, gt=0, unit="rad/s")

    def response(self, w: np.ndarray) -> np.ndarray:
        s = 1j * np.asarray(w, dtype=float)
        return self.K_pi * (s / self.z + 1.0) / s


def _freq(owner: str, w) -> np.ndarray:
    if isinstance(w, (str, bytes)) or isinstance(w, bool):
        raise ScenarioTypeError(f"{owner}: w must be angular frequencies in rad/s (a number or "
                                f"an array), got {w!r}")
    try:
        arr = np.asarray(w, dtype=float)
    except (TypeError, ValueError):
        raise ScenarioTypeError(f"{owner}: w must be angular frequencies in rad/s (a number or "
                                f"an array), got {w!r}") from None
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ScenarioError(f"{owner}: w must be finite frequencies > 0 rad/s, got {w!r}")
    return arr


def _op(owner: str, op) -> OperatingPoint:
    if not isinstance(op, OperatingPoint):
        raise ScenarioTypeError(f"{owner}: op must be an OperatingPoint (from linearize or "
                                f"red_operating_point), got {op!r}")
    return op


def plant(op: OperatingPoint, w, *, exact_delay: bool = False) -> np.ndarray:
    """Frequency response ``P(jw)`` from the loss probability to the queue (packets).

    Parameters
    ----------
    op : OperatingPoint
    w : float or array, rad/s
        Angular frequencies, > 0.
    exact_delay : bool
        False (default): the papers' plant, with the delayed window ``dW(t-R0)`` replaced by
        ``dW(t)``: ``(C**2/2N) e^{-jwR0} / ((jw + 2N/(R0**2 C)) (jw + 1/R0))``.  True: the
        linearisation that keeps it, ``(C**2/2N) e^{-jwR0} / ((jw + N/(R0**2 C)
        (1 + e^{-jwR0})) (jw + 1/R0))`` (see :func:`derive`).

    Returns
    -------
    ndarray of complex, packets per unit of probability
    """
    op = _op("plant", op)
    s = 1j * _freq("plant", w)
    d = np.exp(-s * op.R0)
    if exact_delay:
        tcp = s + op.N / (op.R0 ** 2 * op.C) * (1.0 + d)
    else:
        tcp = s + op.tcp_pole
    return op.gain * d / (tcp * (s + op.queue_pole))


def controller_response(controller, w) -> np.ndarray:
    """``C(jw)`` of a :class:`RedController` or :class:`PiController`."""
    if not isinstance(controller, (RedController, PiController)):
        raise ScenarioTypeError(f"controller must be a RedController or PiController, got "
                                f"{controller!r}")
    return controller.response(_freq("controller_response", w))


def loop(op: OperatingPoint, controller, w, *, exact_delay: bool = False) -> np.ndarray:
    """The loop gain ``P(jw) C(jw)``."""
    return plant(op, w, exact_delay=exact_delay) * controller_response(controller, w)


# --------------------------------------------------------------------------- margins
@dataclass(frozen=True, repr=False)
class Margins(ShortRepr):
    """Stability margins of the loop ``P C`` (computed numerically).

    Attributes
    ----------
    crossover : float, rad/s
        Unity-gain crossover ``w_g``: ``|P C| = 1`` (NaN if the gain stays below 1).
    phase_margin : float, degrees
        ``180 + angle(P C)`` at ``w_g`` (inf if the gain stays below 1).
    phase_crossover : float, rad/s
        First frequency where the (unwrapped) phase reaches -180 degrees.
    gain_margin : float
        ``1 / |P C|`` there (a ratio, not dB).
    stable : bool
        ``phase_margin > 0`` and ``gain_margin > 1``.  For these loops ``|P C|`` decreases with
        the frequency (one gain crossover) and ``P C`` has no pole in the right half-plane
        (PI's integrator at 0 is indented), so by Nyquist this is the closed loop's
        stability.
    """

    crossover: float
    phase_margin: float
    phase_crossover: float
    gain_margin: float
    stable: bool

    def to_pandas(self) -> pandas.DataFrame:
        import pandas as pd

        return pd.DataFrame({k: [getattr(self, k)] for k in
                             ("crossover", "phase_margin", "phase_crossover", "gain_margin",
                              "stable")})


def margins(op: OperatingPoint, controller, *, exact_delay: bool = False,
            w_min: float = 1e-5, w_max: float = 1e4, points: int = 20001) -> Margins:
    """Gain and phase margins of the loop, from a dense logarithmic grid refined by Brent.

    Parameters
    ----------
    op : OperatingPoint
    controller : RedController or PiController
    exact_delay : bool
        Use the linearisation that keeps ``dW(t-R0)`` (see :func:`plant`).
    w_min, w_max : float, rad/s
        Frequency range searched; ``points`` grid points (log-spaced).

    Examples
    --------
    >>> op = linearize(60, 3750, 0.2, 50)
    >>> m = margins(op, PiController(K_pi=9.78e-6, z=0.5288))
    >>> m.stable, round(m.crossover, 3), round(m.phase_margin, 1)
    (True, 0.375, 88.1)
    """
    from scipy.optimize import brentq

    op = _op("margins", op)
    w_min = v.real("margins", "w_min", w_min, gt=0, unit="rad/s")
    w_max = v.real("margins", "w_max", w_max, gt=w_min, unit="rad/s")
    points = v.integer("margins", "points", points, ge=100)
    w = np.geomspace(w_min, w_max, points)
    L = loop(op, controller, w, exact_delay=exact_delay)
    mag = np.abs(L)
    phase = np.unwrap(np.angle(L))
    # the unwrapped phase starts from the principal value at w_min: near 0 for RED, -pi/2 for PI

    def lg(x):
        return abs(loop(op, controller, np.array([x]), exact_delay=exact_delay)[0]) - 1.0

    def ph(x):
        return float(np.interp(np.log(x), np.log(w), phase)) + math.pi

    above = np.nonzero(mag >= 1.0)[0]
    if len(above) == 0:
        wg, pm = math.nan, math.inf
    else:
        k = above[-1]
        if k == points - 1:
            raise SolverError(f"margins: |P C| is still >= 1 at w_max = {w_max!r} rad/s; "
                              f"raise w_max", status="no_crossover")
        wg = brentq(lg, w[k], w[k + 1], xtol=1e-14 * w[k])
        L_g = loop(op, controller, np.array([wg]), exact_delay=exact_delay)[0]
        # the phase at wg, on the unwrapped branch of the grid
        base = float(np.interp(np.log(wg), np.log(w), phase))
        ang = np.angle(L_g)
        ang += 2 * math.pi * round((base - ang) / (2 * math.pi))
        pm = math.degrees(math.pi + ang)
    below = np.nonzero(phase <= -math.pi)[0]
    if len(below) == 0:
        wp, gm = math.nan, math.inf
    else:
        k = below[0]
        wp = w[k] if k == 0 else brentq(ph, w[k - 1], w[k], xtol=1e-14 * w[k])
        gm = 1.0 / abs(loop(op, controller, np.array([wp]), exact_delay=exact_delay)[0])
    return Margins(crossover=float(wg), phase_margin=float(pm), phase_crossover=float(wp),
                   gain_margin=float(gm), stable=bool(pm > 0 and gm > 1))


# --------------------------------------------------------------------------- RED Proposition
@dataclass(frozen=True, repr=False)
class RedStability(ShortRepr):
    """The RED Proposition's test (Hollot et al., INFOCOM 2001, and TAC 2002).

    Attributes
    ----------
    lhs : float
        ``L_RED (R^+ C)**3 / (2 N^-)**2``.
    rhs : float
        ``sqrt(w_g**2 / K**2 + 1)``.
    w_g : float, rad/s
        ``0.1 min(2N^-/((R^+)**2 C), 1/R^+)``.
    stable : bool
        ``lhs <= rhs``: a sufficient condition for every ``N >= N^-``, ``R0 <= R^+``.
    """

    lhs: float
    rhs: float
    w_g: float
    stable: bool

    def to_pandas(self) -> pandas.DataFrame:
        import pandas as pd

        return pd.DataFrame({k: [getattr(self, k)] for k in ("lhs", "rhs", "w_g", "stable")})


def red_stable(N_min, C, R_max, controller: RedController) -> RedStability:
    """Hollot et al.'s sufficient condition for the stability of the TCP/RED loop.

    Parameters
    ----------
    N_min : float
        Smallest number of flows the design must cover, > 0.
    C : float, packet/s
        Capacity, > 0.
    R_max : float, s
        Largest round-trip time, > 0.
    controller : RedController

    Examples
    --------
    >>> red = RedController.from_red(50, 590, 0.1, 0.002, 3750)
    >>> red_stable(60, 3750, 0.246, red).stable
    False
    """
    N, C, R = (v.real("red_stable", "N_min", N_min, gt=0, unit="flows"),
               v.real("red_stable", "C", C, gt=0, unit="packet/s"),
               v.real("red_stable", "R_max", R_max, gt=0, unit="s"))
    if not isinstance(controller, RedController):
        raise ScenarioTypeError(f"red_stable: controller must be a RedController, got "
                                f"{controller!r}")
    w_g = 0.1 * min(2.0 * N / (R * R * C), 1.0 / R)
    lhs = controller.L_red * (R * C) ** 3 / (2.0 * N) ** 2
    rhs = math.sqrt(w_g ** 2 / controller.K ** 2 + 1.0)
    return RedStability(lhs=lhs, rhs=rhs, w_g=w_g, stable=bool(lhs <= rhs))


# --------------------------------------------------------------------------- PI design
_DISCRETISATIONS = ("bilinear", "forward", "backward")


def discretize_pi(K_pi, z, sampling_rate, method: str = "bilinear") -> tuple[float, float]:
    """Gains ``(a, b)`` of ``p[k] = p[k-1] + a e[k] - b e[k-1]`` for ``K_PI (s/z + 1)/s``.

    With ``T = 1/sampling_rate``, ``C(s) = K_PI/z + K_PI/s`` and the integrator ``1/s``
    replaced by ``T/2 (1 + z^-1)/(1 - z^-1)`` (``"bilinear"``, Tustin), ``T z^-1/(1 - z^-1)``
    (``"forward"`` Euler) or ``T/(1 - z^-1)`` (``"backward"`` Euler):

    - bilinear: ``a = K_PI (1/z + T/2)``, ``b = K_PI (1/z - T/2)``
    - forward: ``a = K_PI/z``, ``b = K_PI (1/z - T)``
    - backward: ``a = K_PI (1/z + T)``, ``b = K_PI/z``

    Examples
    --------
    >>> a, b = discretize_pi(1e-5, 0.5, 100.0)
    >>> round(a, 12), round(b, 12)
    (2.005e-05, 1.995e-05)
    """
    K = v.real("discretize_pi", "K_pi", K_pi, gt=0, unit="1/(packet s)")
    z = v.real("discretize_pi", "z", z, gt=0, unit="rad/s")
    fs = v.real("discretize_pi", "sampling_rate", sampling_rate, gt=0, unit="Hz")
    if method not in _DISCRETISATIONS:
        raise ScenarioError(f"discretize_pi: method must be one of {list(_DISCRETISATIONS)}, "
                            f"got {method!r}")
    T = 1.0 / fs
    if method == "bilinear":
        return K * (1.0 / z + T / 2.0), K * (1.0 / z - T / 2.0)
    if method == "forward":
        return K / z, K * (1.0 / z - T)
    return K * (1.0 / z + T), K / z


@dataclass(frozen=True, repr=False)
class PiDesign(ShortRepr):
    """A PI design for a TCP/AQM bottleneck (:func:`design_pi`).

    Attributes
    ----------
    K_pi : float, 1/(packet s)
        Continuous integral gain.
    z : float, rad/s
        Zero, at the TCP pole ``2N^-/((R^+)**2 C)``.
    crossover : float, rad/s
        The unity-gain crossover the gain was chosen for.
    sampling_rate : float, Hz
    a, b : float, 1/packet
        Discrete gains (``method``).
    method : str
        The discretisation (see :func:`discretize_pi`).
    margins : Margins
        Margins of the loop at the design's worst case (``N^-``, ``R^+``, the queue at
        ``R^+``).
    inputs : dict
        ``N_min``, ``C``, ``R_max``.
    """

    K_pi: float
    z: float
    crossover: float
    sampling_rate: float
    a: float
    b: float
    method: str
    margins: Margins
    inputs: dict

    @property
    def controller(self) -> PiController:
        return PiController(K_pi=self.K_pi, z=self.z)

    def to_pandas(self) -> pandas.DataFrame:
        import pandas as pd

        return pd.DataFrame({"K_pi": [self.K_pi], "z": [self.z], "crossover": [self.crossover],
                             "sampling_rate": [self.sampling_rate], "a": [self.a],
                             "b": [self.b], "phase_margin": [self.margins.phase_margin],
                             "gain_margin": [self.margins.gain_margin]})


def design_pi(N_min, C, R_max, sampling_rate, *, crossover=None,
              method: str = "bilinear") -> PiDesign:
    """Hollot et al.'s PI design rule for ``N >= N_min`` flows and round trips ``<= R_max``.

    The zero cancels the TCP pole of the worst case, ``z = 2 N_min / (R_max**2 C)``; with it
    the loop is ``K_PI (R_max C)**3/(2 N_min)**2 e^{-sR}/(s (s R_max + 1))`` and the gain
    that puts its unity-gain crossover at ``w_g`` is::

        K_PI = w_g sqrt((w_g R_max)**2 + 1) (2 N_min)**2 / (R_max C)**3

    Parameters
    ----------
    N_min : float
        Smallest number of flows, > 0.
    C : float, packet/s
        Capacity, > 0.
    R_max : float, s
        Largest round-trip time, > 0.
    sampling_rate : float, Hz
        Rate at which the router updates ``p`` (the papers' example: 170 Hz), > 0.
    crossover : float, rad/s, optional
        ``w_g``.  **Unstated** in what we could check of the papers; default ``z`` (the
        crossover at the cancelled pole, which gives a phase margin of about 75 degrees in
        the papers' example).  Must be below ``1/R_max`` for a useful phase margin; any
        value > 0 is accepted and the result's :attr:`PiDesign.margins` says what it gives.
    method : {"bilinear", "forward", "backward"}
        Discretisation of the gains (see :func:`discretize_pi`).

    Examples
    --------
    >>> d = design_pi(60, 3750, 0.246, 170)
    >>> round(d.z, 4), f"{d.K_pi:.4g}", f"{d.a:.4g}", f"{d.b:.4g}"
    (0.5288, '9.781e-06', '1.853e-05', '1.847e-05')
    """
    N = v.real("design_pi", "N_min", N_min, gt=0, unit="flows")
    C = v.real("design_pi", "C", C, gt=0, unit="packet/s")
    R = v.real("design_pi", "R_max", R_max, gt=0, unit="s")
    fs = v.real("design_pi", "sampling_rate", sampling_rate, gt=0, unit="Hz")
    z = 2.0 * N / (R * R * C)
    wg = z if crossover is None else v.real("design_pi", "crossover", crossover, gt=0,
                                            unit="rad/s")
    K = wg * math.sqrt((wg * R) ** 2 + 1.0) * (2.0 * N) ** 2 / (R * C) ** 3
    a, b = discretize_pi(K, z, fs, method)
    # the worst case: N_min flows whose round trip is R_max; the plant depends on N, C and R0
    # only, so any (q0, Tp) with q0/C + Tp = R_max gives it (_worst_case takes q0 = 0)
    op = _worst_case(N, C, R)
    m = margins(op, PiController(K_pi=K, z=z))
    return PiDesign(K_pi=K, z=z, crossover=wg, sampling_rate=fs, a=a, b=b, method=method,
                    margins=m, inputs={"N_min": N, "C": C, "R_max": R})


def _worst_case(N: float, C: float, R: float) -> OperatingPoint:
    W0 = R * C / N
    return OperatingPoint(N=N, C=C, Tp=R, q0=0.0, R0=R, W0=W0, p0=2.0 / W0 ** 2)


# --------------------------------------------------------------------------- roots
def dominant_root(op: OperatingPoint, controller, *, exact_delay: bool = False,
                  guess: complex | None = None) -> complex:
    """The closed loop's rightmost root ``s`` of ``1 + P(s) C(s) = 0`` (a quasi-polynomial).

    Found by Newton's method (numerical derivative) from each point of a grid in the upper
    half-plane ``Re s in [-3/R0, 1/R0]``, ``Im s in (0, 6 pi/R0]`` plus the real axis; the
    rightmost converged root is returned (its conjugate is also a root).  Its real part is
    the decay rate (1/s; > 0: unstable) and its imaginary part the angular frequency of a
    small perturbation.
    """
    op = _op("dominant_root", op)
    if not isinstance(controller, (RedController, PiController)):
        raise ScenarioTypeError(f"dominant_root: controller must be a RedController or "
                                f"PiController, got {controller!r}")

    def f(s):  # the characteristic quasi-polynomial, denominators multiplied out
        d = np.exp(-s * op.R0)
        tcp = s + (op.N / (op.R0 ** 2 * op.C) * (1.0 + d) if exact_delay else op.tcp_pole)
        if isinstance(controller, RedController):
            return ((s / controller.K + 1.0) * tcp * (s + op.queue_pole)
                    + controller.L_red * op.gain * d)
        return (s * tcp * (s + op.queue_pole)
                + controller.K_pi * (s / controller.z + 1.0) * op.gain * d)

    scale = 1.0 / op.R0
    starts = [complex(x, y) for x in np.linspace(-3, 1, 9) * scale
              for y in np.linspace(0, 6 * math.pi, 25) * scale]
    if guess is not None:
        starts.insert(0, complex(guess))
    best = None
    for s in starts:
        for _ in range(100):
            fs = f(s)
            h = 1e-7 * max(1.0, abs(s))
            dfs = (f(s + h) - fs) / h
            if dfs == 0 or not np.isfinite(dfs):
                break
            step = fs / dfs
            s = s - step
            if abs(step) < 1e-13 * max(1.0, abs(s)):
                break
        if not np.isfinite(s) or abs(f(s)) > 1e-8 * max(1.0, abs(f(0.0 + 0j))):
            continue
        if isinstance(controller, PiController) and abs(s) < 1e-9:
            continue
        if best is None or s.real > best.real + 1e-12:
            best = complex(s.real, abs(s.imag))
    if best is None:
        raise SolverError("dominant_root: Newton's method found no root from its grid of "
                          "starting points; give a guess", status="no_root")
    return best


# --------------------------------------------------------------------------- symbolic side
@dataclass(frozen=True)
class MgtLinearization:
    """The MGT model's partial derivatives at its operating point, derived with SymPy.

    The window equation ``f = 1/R - W Wd pd / (2 Rd)`` (``Wd, pd, Rd`` the values one round
    trip ago, ``R = q/C + Tp``, ``Rd = qd/C + Tp``) and the queue equation
    ``g = N W / R - C``, differentiated and evaluated at ``W = Wd = R0 C/N``, ``q = qd = q0``,
    ``pd = 2/W0**2``.

    Attributes
    ----------
    symbols : dict of str to sympy.Symbol
        ``N``, ``C``, ``Tp``, ``q0`` (positive).
    f_W, f_Wd, f_q, f_qd, f_pd, g_W, g_q : sympy.Expr
        The partial derivatives (``f_W + f_Wd = -2N/(R0**2 C)``, ``f_pd = -R0 C**2/(2N**2)``,
        ``f_q + f_qd = 0``, ``g_W = N/R0``, ``g_q = -1/R0`` after simplification).
    plant_gain : sympy.Expr
        ``-g_W f_pd``: the numerator of the plant from ``dp`` to ``dq``; ``C**2/(2N)``.
    tcp_pole, queue_pole : sympy.Expr
        ``-(f_W + f_Wd)`` and ``-g_q``.
    """

    symbols: dict
    f_W: Any
    f_Wd: Any
    f_q: Any
    f_qd: Any
    f_pd: Any
    g_W: Any
    g_q: Any
    plant_gain: Any
    tcp_pole: Any
    queue_pole: Any


def derive() -> MgtLinearization:
    """Linearise the MGT equations symbolically (SymPy, imported here).

    Examples
    --------
    >>> import sympy
    >>> d = derive()
    >>> N, C = d.symbols["N"], d.symbols["C"]
    >>> sympy.simplify(d.plant_gain - C**2 / (2 * N))
    0
    """
    import sympy as sp

    N, C, Tp, q0 = sp.symbols("N C T_p q_0", positive=True)
    W, Wd, q, qd, pd = sp.symbols("W W_d q q_d p_d", positive=True)
    R = q / C + Tp
    Rd = qd / C + Tp
    f = 1 / R - W * Wd * pd / (2 * Rd)
    g = N * W / R - C
    R0 = q0 / C + Tp
    W0 = R0 * C / N
    at = {W: W0, Wd: W0, q: q0, qd: q0, pd: 2 / W0 ** 2}

    def d(expr, x):
        return sp.simplify(sp.diff(expr, x).subs(at))

    f_W, f_Wd, f_q, f_qd, f_pd = (d(f, x) for x in (W, Wd, q, qd, pd))
    g_W, g_q = d(g, W), d(g, q)
    return MgtLinearization(
        symbols={"N": N, "C": C, "Tp": Tp, "q0": q0}, f_W=f_W, f_Wd=f_Wd, f_q=f_q, f_qd=f_qd,
        f_pd=f_pd, g_W=g_W, g_q=g_q, plant_gain=sp.simplify(-g_W * f_pd),
        tcp_pole=sp.simplify(-(f_W + f_Wd)), queue_pole=sp.simplify(-g_q))
