"""Asymmetric Best-Effort (ABE): the loss ratio ``alpha`` that buys Blue a throughput ratio ``beta*``.

ABE marks every best-effort packet Green (low delay, more losses) or Blue
(more delay, fewer losses).  The router drops Green packets with probability
``alpha * p`` where Blue ones see ``p``; this module holds the analytic side
of the paper's Section III-C and Appendix A:

* the throughput/loss formula, eq (2) (:func:`throughput`), and its small-loss
  limit, eq (3) (:func:`throughput_small_loss`);
* ``alpha`` as a function of the target ratio ``beta*``, the Blue loss ratio
  ``q_b``, the delay boost ``B`` and the Green round-trip time ``tau``, eq (5)
  (:func:`alpha`), its inverse (:func:`throughput_ratio`) and the quantity
  ``delta`` of eq (6) (:func:`delta`);
* the symbolic derivation of eq (5) from eqs (1), (2) and (4) with SymPy, its
  proof of equality with the printed form and the limits ``beta* -> sqrt(alpha)``
  (vanishing losses) and ``beta* -> alpha`` (growing losses) (:func:`derive`);
* the control law of eqs (6)-(7) with its EWMA filters as a discrete-time map
  (:class:`ControlLaw`): fixed point, Jacobian and local stability against the
  gains ``K1``, ``K2`` (:meth:`ControlLaw.stability`), and a closed-loop run
  driven by seeded synthetic loss measurements (:func:`run_loop`).

Units: round-trip times and boosts in seconds, throughputs in packets per
second (as in the paper, which counts packets), loss ratios dimensionless.

References
----------
P. Hurley, J.-Y. Le Boudec, P. Thiran, "The Asymmetric Best-Effort Service",
Section III-C (eqs (1)-(7)) and Appendix A.

Notes
-----
Two results of the model that the paper does not state:

* With separate gains the fixed point of eq (7) is **not** the target unless
  ``K1 == K2``: at equilibrium ``q_g / q_b = (beta*(1 + B/tau_e))**2 *
  delta**(-K2/K1)`` while Appendix A's target is ``(beta*(1 + B/tau_e))**2 /
  delta`` (:meth:`ControlLaw.fixed_point`).  The paper's Figure 8 run
  (``K1 = 2.0``, ``K2 = 1.1``) therefore aims, in this model, at a slightly
  different Green loss ratio than its Figure 6 runs (``K1 = K2 = 1.1``).
* With exogenous Blue losses and boost, local stability depends on ``K1`` and
  ``gamma1`` only: the loop is stable iff ``0 < K1 < 2 (1 + gamma1) / (1 -
  gamma1)`` (3.71 for the paper's ``gamma1 = 0.3``); ``K2`` moves the fixed
  point but not the eigenvalues.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from . import _seed, budget
from . import _validate as v
from ._arrays import real_array
from ._arrays import safe_repr as _safe
from ._repr import ShortRepr
from .errors import ScenarioError, ScenarioTypeError

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import sympy

__all__ = [
    "throughput",
    "throughput_small_loss",
    "loss_for_throughput",
    "alpha",
    "throughput_ratio",
    "green_loss_target",
    "delta",
    "derive",
    "ABEDerivation",
    "ControlLaw",
    "LoopState",
    "Stability",
    "LoopRun",
    "run_loop",
    "PAPER_LAW",
    "law_step",
]


# --------------------------------------------------------------------------- validation
def _arr(fn: str, name: str, value, *, lo=None, lo_open=False, hi=None, unit="", what=""):
    """``value`` as a float array checked against ``[lo, hi]`` (``lo`` open if ``lo_open``)."""
    a = real_array(fn, name, value)
    rng = _range_text(lo, lo_open, hi)
    suffix = f" ({what})" if what else ""
    unit_txt = f" {unit}" if unit else ""
    bad = ~np.isfinite(a)
    if lo is not None:
        bad |= (a <= lo) if lo_open else (a < lo)
    if hi is not None:
        bad |= a > hi
    if np.any(bad):
        first = float(a[bad].flat[0]) if a.ndim else float(a)
        raise ScenarioError(
            f"{fn}: {name} must be in {rng}{unit_txt}{suffix}, got {first!r}"
            + ("" if a.ndim == 0 else f" (one of {int(np.count_nonzero(bad))} bad entries)")
        )
    return a


def _range_text(lo, lo_open, hi) -> str:
    left = "(" if (lo is None or lo_open) else "["
    lo_t = "-inf" if lo is None else f"{lo:g}"
    hi_t = "inf)" if hi is None else f"{hi:g}]"
    return f"{left}{lo_t}, {hi_t}"


def _loss(fn, name, value):
    return _arr(fn, name, value, lo=0.0, lo_open=True, hi=1.0, what="a loss ratio")


def _rtt(fn, name, value):
    return _arr(fn, name, value, lo=0.0, lo_open=True, unit="s", what="a round-trip time")


def _boost(fn, name, value):
    return _arr(fn, name, value, lo=0.0, unit="s", what="the extra delay of Blue packets")


def _beta(fn, name, value):
    return _arr(fn, name, value, lo=1.0, what="the Blue/Green throughput ratio, >= 1")


def _finite(fn, x, why):
    """``x`` if every element is finite, else a ScenarioError saying ``why`` (which input
    made the closed form overflow and what range works)."""
    if not np.all(np.isfinite(x)):
        raise ScenarioError(f"{fn}: the result is not a finite float for these inputs: {why}")
    return x


def _scalar(fn, name, value, check):
    """One value checked by ``check`` (``_loss``, ``_boost``, ...), as a float."""
    a = check(fn, name, value)
    if a.size != 1:
        raise ScenarioError(f"{fn}: {name} must be a single number, got shape {a.shape}")
    return float(a.reshape(()))


def _check_state(fn, state) -> LoopState:
    """A LoopState (or 4-tuple) of finite floats: alpha > 0, the others >= 0."""
    if not isinstance(state, tuple) or len(state) != 4:
        raise ScenarioTypeError(
            f"{fn}: state must be a LoopState(alpha, q_blue, q_green, boost), got "
            f"{state!r:.80}")
    a, qb, qg, B = state
    return LoopState(v.real(fn, "state.alpha", a, gt=0),
                     v.real(fn, "state.q_blue", qb, ge=0),
                     v.real(fn, "state.q_green", qg, ge=0),
                     v.real(fn, "state.boost", B, ge=0, unit="s"))


def _out(x, *inputs):
    """A float when every input was a scalar, else the broadcast array."""
    if all(np.ndim(i) == 0 for i in inputs):
        return float(x)
    return x


# --------------------------------------------------------------------------- numerics
def _x(q, tau):
    """Eq (2) in the cancellation-free form ``2 / (tau (q + sqrt(q^2 + 2 q)))``."""
    return 2.0 / (tau * (q + np.sqrt(q * (q + 2.0))))


def _s(q):
    """``q - sqrt(q (q + 2))`` (negative, in (-1, 0) for q > 0) without cancellation."""
    return -2.0 * q / (q + np.sqrt(q * (q + 2.0)))


def throughput(loss, rtt):
    """Long-term throughput of a TCP-friendly source with loss ratio ``q``, eq (2).

    ``x = (-q + sqrt(2 q + q^2)) / (tau q)``, evaluated in the equivalent
    cancellation-free form ``2 / (tau (q + sqrt(q^2 + 2 q)))``.

    Parameters
    ----------
    loss : float or array_like
        Packet loss ratio ``q``, in (0, 1].
    rtt : float or array_like, s
        Round-trip time ``tau``, > 0.  Broadcast against ``loss``.

    Returns
    -------
    float or ndarray, packets/s
        A float when both inputs are scalars.

    Raises
    ------
    ScenarioTypeError
        If an argument is not a real number (a string, a bool, None, complex).
    ScenarioError
        If a loss ratio is outside (0, 1] or an RTT is not > 0 and finite, or
        if the throughput overflows (``rtt * sqrt(2 loss)`` below about 1e-308).

    References
    ----------
    Hurley, Le Boudec, Thiran, "The Asymmetric Best-Effort Service", Section
    III-C.1, eq (2) (from their ITC-16 note on AIMD fairness, ref. [11]).

    Examples
    --------
    >>> round(throughput(0.01, 0.1), 3)    # ~ sqrt(2)/(0.1 sqrt(0.01)) = 141.4 for small q
    131.774
    """
    fn = "abe.throughput"
    q = _loss(fn, "loss", loss)
    tau = _rtt(fn, "rtt", rtt)
    v.broadcast(fn, loss=q, rtt=tau)
    with np.errstate(all="ignore"):
        x = _x(q, tau)
    return _out(_finite(fn, x, _X_OVERFLOW), loss, rtt)


_X_OVERFLOW = ("the throughput 2 / (rtt (loss + sqrt(loss^2 + 2 loss))) overflows; it is finite "
               "while rtt * sqrt(2 loss) is above about 1e-308 (raise rtt or loss)")


def loss_for_throughput(rate, rtt):
    """The loss ratio at which eq (2) gives ``rate``: its inverse, ``q = 2 / (y (y + 2))``, ``y = x tau``.

    From ``2 / (x tau) = q + sqrt(q^2 + 2 q)``: squaring ``sqrt(q^2 + 2 q) =
    2/y - q`` gives ``2 q + 4 q / y = 4 / y^2``.  The packet simulator's
    :class:`~qosmodels.mechanisms.TcpFriendly` source uses it to start its loss
    history at its first loss (RFC 5348, Section 6.3.1).

    Parameters
    ----------
    rate : float or array_like, packets/s
        Throughput ``x``, > 0.
    rtt : float or array_like, s
        Round-trip time ``tau``, > 0.

    Returns
    -------
    float or ndarray
        The loss ratio ``q``, in (0, 1] when ``x tau >= sqrt(3) - 1``.

    Raises
    ------
    ScenarioTypeError
        If an argument is not a real number.
    ScenarioError
        If ``rate`` or ``rtt`` is not finite and > 0, or if ``q`` overflows
        (``rate * rtt`` below about 1e-308).

    Examples
    --------
    >>> q = loss_for_throughput(100.0, 0.14)
    >>> round(throughput(q, 0.14), 9)
    100.0
    """
    fn = "abe.loss_for_throughput"
    x = _arr(fn, "rate", rate, lo=0.0, lo_open=True, unit="packets/s")
    tau = _rtt(fn, "rtt", rtt)
    v.broadcast(fn, rate=x, rtt=tau)
    with np.errstate(all="ignore"):
        q = _q_of_x(x * tau)
    return _out(_finite(fn, q, "q = 2 / (y (y + 2)) with y = rate * rtt overflows; it is finite "
                              "while rate * rtt is above about 1e-308"), rate, rtt)


def _q_of_x(y):
    """Eq (2) inverted for ``y = x tau`` (packets per round trip); plain arithmetic (the
    packet simulator compiles it)."""
    return 2.0 / (y * (y + 2.0))


def throughput_small_loss(loss, rtt):
    """The small-loss limit of eq (2): ``x ~ C / (tau sqrt(q))`` with ``C = sqrt(2)``, eq (3).

    Parameters
    ----------
    loss : float or array_like
        Packet loss ratio, in (0, 1].
    rtt : float or array_like, s
        Round-trip time, > 0.

    Returns
    -------
    float or ndarray, packets/s

    Raises
    ------
    ScenarioTypeError
        If an argument is not a real number.
    ScenarioError
        If a loss ratio is outside (0, 1] or an RTT is not finite and > 0, or
        if the result overflows (``rtt * sqrt(loss)`` below about 1e-308).

    References
    ----------
    Hurley, Le Boudec, Thiran, Section III-C.1, eq (3); the constant ``C`` is
    derived in :func:`derive` as ``lim_{q->0} tau sqrt(q) x(q)``.
    """
    fn = "abe.throughput_small_loss"
    q = _loss(fn, "loss", loss)
    tau = _rtt(fn, "rtt", rtt)
    v.broadcast(fn, loss=q, rtt=tau)
    with np.errstate(all="ignore"):
        x = math.sqrt(2.0) / (tau * np.sqrt(q))
    return _out(_finite(fn, x, "sqrt(2) / (rtt sqrt(loss)) overflows; it is finite while "
                              "rtt * sqrt(loss) is above about 1e-308"), loss, rtt)


def alpha(beta_star, q_blue, boost, rtt):
    """The Green/Blue loss multiplier that gives Blue ``beta*`` times Green's throughput, eq (5).

    ``alpha = c^2 / (1 + (1 - c)(q_b - sqrt(q_b (q_b + 2))))`` with
    ``c = beta* (1 + B / tau)``: the solution of ``x(q_b, tau + B) = beta*
    x(alpha q_b, tau)`` (eqs (1), (2), (4)), derived symbolically in
    :func:`derive`.  It decreases in ``q_b`` from ``c^2`` (``q_b -> 0``) and
    tends to ``c`` as ``q_b`` grows; the Green loss ratio ``alpha q_b`` can
    exceed 1 at high Blue loss, meaning that no dropping ratio reaches
    ``beta*`` (check with :func:`green_loss_target`).

    Parameters
    ----------
    beta_star : float or array_like
        Target ratio of Blue to Green throughput, >= 1.
    q_blue : float or array_like
        Blue packet loss ratio ``q_b``, in (0, 1].
    boost : float or array_like, s
        Delay boost ``B`` (Blue RTT minus Green RTT), >= 0.
    rtt : float or array_like, s
        Green round-trip time ``tau`` (the router uses its guess ``tau_e``), > 0.
        All four inputs broadcast against each other.

    Returns
    -------
    float or ndarray
        ``alpha`` (dimensionless, >= 1); a float when all inputs are scalars.

    Raises
    ------
    ScenarioTypeError
        If an argument is not a real number (a string, a bool, None, complex).
    ScenarioError
        If ``beta_star < 1``, a loss ratio is outside (0, 1], ``boost < 0``,
        ``rtt <= 0`` or an argument is not finite; or if ``alpha`` overflows:
        it grows like ``c^2``, ``c = beta_star (1 + boost / rtt)``, which must
        stay below about 1e154.

    References
    ----------
    Hurley, Le Boudec, Thiran, "The Asymmetric Best-Effort Service", Section
    III-C.1, eq (5).

    Examples
    --------
    >>> round(alpha(1.5, 0.01, 0.0, 0.14), 4)
    2.1109
    >>> alpha(1.5, 1e-12, 0.0, 0.14) < 1.5 ** 2
    True
    """
    fn = "abe.alpha"
    b, q, B, tau = _law_args(fn, beta_star, q_blue, boost, rtt)
    with np.errstate(all="ignore"):
        a = _alpha(b, q, B, tau)
    return _out(_finite(fn, a, _C_OVERFLOW), beta_star, q_blue, boost, rtt)


_C_OVERFLOW = ("eq (5) grows like c^2 with c = beta_star (1 + boost / rtt), which overflows; "
               "keep c below about 1e154 (a smaller beta_star or boost / rtt)")


def _law_args(fn, beta_star, q_blue, boost, rtt):
    """Validate the four arguments of the eq (5)-(6) functions; arrays of float."""
    args = (_beta(fn, "beta_star", beta_star), _loss(fn, "q_blue", q_blue),
            _boost(fn, "boost", boost), _rtt(fn, "rtt", rtt))
    v.broadcast(fn, **dict(zip(("beta_star", "q_blue", "boost", "rtt"), args)))
    return args


def _alpha(b, q, B, tau):
    c = b * (1.0 + B / tau)
    return c * c / _delta(b, q, B, tau)


def delta(beta_star, q_blue, boost, rtt):
    """``delta = 1 + (1 - beta*(1 + B/tau_e)) (q_b - sqrt(q_b (q_b + 2)))``, eq (6).

    The denominator of eq (5): the target Green/Blue loss ratio is
    ``(beta*(1 + B/tau_e))^2 / delta`` (Appendix A).  ``delta >= 1``.

    Parameters
    ----------
    beta_star : float or array_like
        Target throughput ratio, >= 1.
    q_blue : float or array_like
        Blue loss ratio, in (0, 1].
    boost : float or array_like, s
        Delay boost, >= 0.
    rtt : float or array_like, s
        The router's typical Green RTT ``tau_e``, > 0.

    Returns
    -------
    float or ndarray

    Raises
    ------
    ScenarioTypeError
        If an argument is not a real number.
    ScenarioError
        On arguments out of range or not finite (as for :func:`alpha`), or if
        ``c = beta_star (1 + boost / rtt)`` overflows (keep it below about 1e300).

    References
    ----------
    Hurley, Le Boudec, Thiran, Section III-C.2, eq (6), and Appendix A.
    """
    fn = "abe.delta"
    b, q, B, tau = _law_args(fn, beta_star, q_blue, boost, rtt)
    with np.errstate(all="ignore"):
        d = _delta(b, q, B, tau)
    return _out(_finite(fn, d, "delta grows like c = beta_star (1 + boost / rtt), which "
                              "overflows; keep c below about 1e300"),
                beta_star, q_blue, boost, rtt)


def _delta(b, q, B, tau):
    return 1.0 + (1.0 - b * (1.0 + B / tau)) * _s(q)


def green_loss_target(beta_star, q_blue, boost, rtt):
    """The ideal Green loss ratio ``q_g* = alpha q_b`` of Appendix A.

    Parameters and units as :func:`alpha`.  Values above 1 mean that the
    target ``beta*`` cannot be reached at this Blue loss ratio.

    Raises
    ------
    ScenarioTypeError, ScenarioError
        As for :func:`alpha`.

    References
    ----------
    Hurley, Le Boudec, Thiran, eqs (4)-(5) and Appendix A.
    """
    fn = "abe.green_loss_target"
    b, q, B, tau = _law_args(fn, beta_star, q_blue, boost, rtt)
    with np.errstate(all="ignore"):
        g = _alpha(b, q, B, tau) * q
    return _out(_finite(fn, g, _C_OVERFLOW), beta_star, q_blue, boost, rtt)


def throughput_ratio(alpha, q_blue, boost, rtt):
    """Blue/Green throughput ratio ``beta = x_b / x_g`` reached with a given ``alpha``.

    The forward model of eqs (1), (2), (4): ``x_b = x(q_b, tau + B)``, ``x_g =
    x(alpha q_b, tau)``; the inverse of :func:`alpha`.  As losses vanish
    ``beta -> sqrt(alpha) / (1 + B/tau)``; as they grow, ``beta -> alpha / (1 +
    B/tau)`` (:func:`derive`).

    Parameters
    ----------
    alpha : float or array_like
        Green/Blue loss multiplier, >= 1 (eq (4)).
    q_blue : float or array_like
        Blue loss ratio, in (0, 1]; ``alpha * q_blue`` (the Green loss ratio)
        must also be <= 1.
    boost : float or array_like, s
        Delay boost, >= 0.
    rtt : float or array_like, s
        Green round-trip time, > 0.

    Returns
    -------
    float or ndarray

    Raises
    ------
    ScenarioTypeError
        If an argument is not a real number.
    ScenarioError
        On arguments out of range or not finite, or ``alpha * q_blue > 1``.

    Notes
    -----
    This is the first display of Appendix A, ``beta* = tau_e/(tau_e + B) *
    q_g (q_b - sqrt(q_b (q_b + 2))) / (q_b (q_g - sqrt(q_g (q_g + 2))))``,
    whose parentheses the extracted text lost.

    References
    ----------
    Hurley, Le Boudec, Thiran, Section III-C.1, eqs (1), (2), (4); Appendix A.
    """
    fn = "abe.throughput_ratio"
    a = _arr(fn, "alpha", alpha, lo=1.0, what="the Green/Blue loss multiplier, >= 1")
    q = _loss(fn, "q_blue", q_blue)
    B = _boost(fn, "boost", boost)
    tau = _rtt(fn, "rtt", rtt)
    v.broadcast(fn, alpha=a, q_blue=q, boost=B, rtt=tau)
    qg = a * q
    if np.any(qg > 1.0):
        raise ScenarioError(
            f"{fn}: alpha * q_blue is the Green loss ratio (eq (4)) and must be in (0, 1], "
            f"got {float(np.max(qg))!r}"
        )
    with np.errstate(all="ignore"):
        r = _x(q, tau + B) / _x(qg, tau)
        bad = ~(np.isfinite(r) & (r > 0))
        if np.any(bad):  # eq (2) over- or underflowed: the ratio without the 2 / tau factors
            g = q + np.sqrt(q * (q + 2.0))
            gg = qg + np.sqrt(qg * (qg + 2.0))
            r = np.where(bad, gg / g / (1.0 + B / tau), r)
    return _out(r, alpha, q_blue, boost, rtt)


# --------------------------------------------------------------------------- symbolic side
@dataclass(frozen=True)
class ABEDerivation:
    """Eq (5) derived with SymPy from eqs (1), (2), (4), and the limits of the paper.

    Attributes
    ----------
    symbols : dict of str to sympy.Symbol
        ``q_b``, ``q_g``, ``q``, ``tau``, ``B``, ``beta_star``, ``alpha`` (all
        positive).
    throughput : sympy.Expr
        Eq (2), ``x(q, tau)``, exactly as printed.
    small_loss_constant : sympy.Expr
        ``C = lim_{q->0} tau sqrt(q) x(q, tau)`` (eq (3)); ``sqrt(2)``.
    green_loss : sympy.Expr
        ``q_g`` solved from ``x(q_b, tau + B) = beta* x(q_g, tau)`` (eqs (1), (2)).
    alpha : sympy.Expr
        ``q_g / q_b`` (eq (4)): the derived eq (5).
    alpha_paper : sympy.Expr
        Eq (5) as printed.
    difference : sympy.Expr
        ``simplify(alpha - alpha_paper)``; 0 proves the two equal.
    alpha_at_zero_loss : sympy.Expr
        ``lim_{q_b->0} alpha``; ``(beta*(1 + B/tau))^2``.
    beta_small_loss : sympy.Expr
        ``lim_{q_b->0} x(q_b, tau + B) / x(alpha q_b, tau)``;
        ``sqrt(alpha) tau / (tau + B)`` (``sqrt(alpha)`` when ``B = 0``).
    beta_large_loss : sympy.Expr
        ``lim_{q_b->oo}`` of the same ratio; ``alpha tau / (tau + B)``.
    delta : sympy.Expr
        Eq (6), the denominator of eq (5).
    ideal_ratio : sympy.Expr
        Appendix A's ``q_g* / q_b`` written as ``(beta*(1 + B/tau))^2 / delta``.
    """

    symbols: dict
    throughput: sympy.Expr
    small_loss_constant: sympy.Expr
    green_loss: sympy.Expr
    alpha: sympy.Expr
    alpha_paper: sympy.Expr
    difference: sympy.Expr
    alpha_at_zero_loss: sympy.Expr
    beta_small_loss: sympy.Expr
    beta_large_loss: sympy.Expr
    delta: sympy.Expr
    ideal_ratio: sympy.Expr
    candidates: tuple = field(default=(), repr=False)

    @property
    def proved(self) -> bool:
        """True when the derived and printed eq (5) simplify to the same expression."""
        return self.difference == 0

    def alpha_function(self):
        """The derived eq (5) lambdified with NumPy: ``f(beta_star, q_b, B, tau)``."""
        import sympy as sp

        s = self.symbols
        return sp.lambdify((s["beta_star"], s["q_b"], s["B"], s["tau"]), self.alpha, "numpy")

    def throughput_function(self):
        """Eq (2) as printed, lambdified with NumPy: ``f(q, tau)``."""
        import sympy as sp

        s = self.symbols
        return sp.lambdify((s["q"], s["tau"]), self.throughput, "numpy")

    def latex(self) -> dict:
        """LaTeX of the main expressions, for notebooks."""
        import sympy as sp

        return {k: sp.latex(getattr(self, k)) for k in (
            "throughput", "alpha", "alpha_paper", "beta_small_loss", "beta_large_loss", "delta")}


@functools.lru_cache(maxsize=1)
def derive() -> ABEDerivation:
    """Derive eq (5) with SymPy, prove it equal to the paper's form and take the limits.

    The steps: write eq (2) as printed; solve ``x(q_b, tau + B) = beta*
    x(q_g, tau)`` (eqs (1), (2)) for ``q_g`` (SymPy's ``solve`` without its
    own root check, then each candidate is kept only if it satisfies the
    unsquared equation at random points: squaring introduces a spurious root);
    ``alpha = q_g / q_b`` (eq (4)); ``simplify(alpha - eq (5))``; the limits
    with ``sympy.limit``.  Cached: the first call takes about a second.

    Returns
    -------
    ABEDerivation

    Raises
    ------
    RuntimeError
        If no candidate root satisfies the equation (a SymPy regression).

    References
    ----------
    Hurley, Le Boudec, Thiran, Section III-C.1, eqs (1)-(5); Section III-C.2,
    eq (6); Appendix A.
    """
    import sympy as sp

    q_b, q_g, q, tau, B, beta, al = sp.symbols("q_b q_g q tau B beta_star alpha", positive=True)

    def x(loss, rtt):
        return (-loss + sp.sqrt(2 * loss + loss**2)) / (rtt * loss)  # eq (2) as printed

    eq12 = sp.Eq(x(q_b, tau + B), beta * x(q_g, tau))  # eqs (1) and (2)
    candidates = sp.solve(eq12, q_g, check=False)
    rng = np.random.default_rng(12345)
    good = []
    for cand in candidates:
        ok = True
        for _ in range(5):
            pt = {q_b: float(rng.uniform(0.001, 0.3)), tau: float(rng.uniform(0.02, 0.5)),
                  B: float(rng.uniform(0.0, 0.2)), beta: float(rng.uniform(1.0, 3.0))}
            qg_val = complex(cand.subs(pt).evalf())
            if abs(qg_val.imag) > 1e-12 or qg_val.real <= 0:
                ok = False
                break
            lhs = float(x(q_b, tau + B).subs(pt))
            rhs = float((beta * x(q_g, tau)).subs(pt).subs(q_g, qg_val.real))
            if abs(lhs - rhs) > 1e-9 * abs(lhs):
                ok = False
                break
        if ok:
            good.append(cand)
    if len(good) != 1:
        raise RuntimeError(f"expected one valid root of eqs (1)-(2) for q_g, found {len(good)}")
    green = good[0]
    alpha_d = green / q_b  # eq (4)
    c = beta * (1 + B / tau)
    alpha_p = c**2 / (1 + (1 - c) * (q_b - sp.sqrt(q_b * (q_b + 2))))  # eq (5) as printed
    diff = sp.simplify(alpha_d - alpha_p)
    delta_e = 1 + (1 - c) * (q_b - sp.sqrt(q_b * (q_b + 2)))  # eq (6) with tau_e = tau
    ratio = x(q_b, tau + B) / x(al * q_b, tau)
    return ABEDerivation(
        symbols={"q_b": q_b, "q_g": q_g, "q": q, "tau": tau, "B": B, "beta_star": beta,
                 "alpha": al},
        throughput=x(q, tau),
        small_loss_constant=sp.limit(tau * sp.sqrt(q) * x(q, tau), q, 0),
        green_loss=green,
        alpha=alpha_d,
        alpha_paper=alpha_p,
        difference=diff,
        alpha_at_zero_loss=sp.simplify(sp.limit(alpha_d, q_b, 0)),
        beta_small_loss=sp.simplify(sp.limit(ratio, q_b, 0)),
        beta_large_loss=sp.simplify(sp.limit(ratio, q_b, sp.oo)),
        delta=delta_e,
        ideal_ratio=c**2 / delta_e,
        candidates=tuple(candidates),
    )


# --------------------------------------------------------------------------- control loop
class LoopState(NamedTuple):
    """The state of the control loop, updated every ``T1``.

    Attributes
    ----------
    alpha : float
        Green/Blue loss multiplier in force.
    q_blue : float
        EWMA-filtered Blue loss ratio.
    q_green : float
        EWMA-filtered Green loss ratio.
    boost : float, s
        EWMA-filtered delay boost.
    """

    alpha: float
    q_blue: float
    q_green: float
    boost: float


def law_step(alpha, q_blue, q_green, boost, q_blue_m, q_green_m, boost_m, beta_star, rtt,
             k1, k2, gamma1, gamma2):
    """One period of the control loop in plain float arithmetic: the EWMA filters, then eq (7).

    The single copy of the law: :meth:`ControlLaw.update` calls it, and the packet
    simulator's ABE router (``qosmodels.sim._kernels.queues.abe``) compiles it with
    Numba, so it uses scalar ``math`` only.

    Returns
    -------
    (alpha, q_blue, q_green, boost, ok)
        The filtered state and the new ``alpha``; ``ok`` is False (and ``alpha``
        unchanged) when a filtered loss ratio is not > 0, where eq (7) is undefined.
    """
    qb = gamma1 * q_blue + (1.0 - gamma1) * q_blue_m
    qg = gamma1 * q_green + (1.0 - gamma1) * q_green_m
    B = gamma2 * boost + (1.0 - gamma2) * boost_m
    if not (qb > 0.0 and qg > 0.0):
        return alpha, qb, qg, B, False
    c = beta_star * (1.0 + B / rtt)
    s = -2.0 * qb / (qb + math.sqrt(qb * (qb + 2.0)))  # q_b - sqrt(q_b (q_b + 2)), eq (6)
    d = 1.0 + (1.0 - c) * s
    return alpha * (c * c * qb / qg) ** k1 * d ** (-k2), qb, qg, B, True


@dataclass(frozen=True)
class ControlLaw:
    """The multiplicative control law for ``alpha``, eqs (6)-(7), with its EWMA filters.

    Every period ``T1`` the router filters its measurements and updates
    ``alpha``::

        q_b   <- gamma1 q_b + (1 - gamma1) q_b^m
        q_g   <- gamma1 q_g + (1 - gamma1) q_g^m
        B     <- gamma2 B   + (1 - gamma2) B^m
        alpha <- alpha (beta*^2 (1 + B/tau_e)^2 q_b / q_g)^K1 delta^(-K2)

    with ``delta`` from eq (6) evaluated at the filtered ``q_b`` and ``B``.

    Parameters
    ----------
    beta_star : float
        Target Blue/Green throughput ratio, >= 1 (paper: 1.5).
    rtt : float, s
        ``tau_e``, the typical Green round-trip time, > 0 (paper: 0.14).
    k1, k2 : float
        Gains ``K1``, ``K2``, > 0 (paper: 1.1 and 1.1; Figure 8: 2.0 and 1.1).
    gamma1 : float
        EWMA weight of the old loss ratios, in [0, 1) (paper: 0.3).
    gamma2 : float
        EWMA weight of the old boost, in [0, 1) (paper: 0.5).
    period : float, s
        ``T1``, > 0 (paper: 0.5).

    References
    ----------
    Hurley, Le Boudec, Thiran, Section III-C.2 (eqs (6), (7) and the update
    list), Section IV-B (parameter values) and Appendix A (derivation).

    Examples
    --------
    >>> law = ControlLaw()
    >>> st = law.stability(q_blue=0.02, boost=0.05)
    >>> bool(st.stable), round(st.k1_max, 3)
    (True, 3.714)
    """

    beta_star: float = 1.5
    rtt: float = 0.14
    k1: float = 1.1
    k2: float = 1.1
    gamma1: float = 0.3
    gamma2: float = 0.5
    period: float = 0.5

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "beta_star", v.real("ControlLaw", "beta_star", self.beta_star, ge=1))
        set_(self, "rtt", v.real("ControlLaw", "rtt", self.rtt, gt=0, unit="s"))
        set_(self, "k1", v.real("ControlLaw", "k1", self.k1, gt=0))
        set_(self, "k2", v.real("ControlLaw", "k2", self.k2, gt=0))
        for name in ("gamma1", "gamma2"):
            g = v.real("ControlLaw", name, getattr(self, name), ge=0)
            if not g < 1:
                raise ScenarioError(f"ControlLaw.{name} must be in [0, 1) (an EWMA weight), got {g!r}")
            set_(self, name, g)
        set_(self, "period", v.real("ControlLaw", "period", self.period, gt=0, unit="s"))

    # -- the map
    def target_ratio(self, q_blue, boost):
        """Appendix A's ideal ``q_g* / q_b = (beta*(1 + B/tau_e))^2 / delta``.

        Raises
        ------
        ScenarioTypeError, ScenarioError
            As for :func:`alpha` (``q_blue`` in (0, 1], ``boost >= 0``, finite).
        """
        fn = "ControlLaw.target_ratio"
        q = _loss(fn, "q_blue", q_blue)
        B = _boost(fn, "boost", boost)
        v.broadcast(fn, q_blue=q, boost=B)
        with np.errstate(all="ignore"):
            r = _alpha(self.beta_star, q, B, self.rtt)
        return _out(_finite(fn, r, _C_OVERFLOW), q_blue, boost)

    def update(self, state: LoopState, q_blue_m: float, q_green_m: float,
               boost_m: float) -> LoopState:
        """One period of the loop: filter the measurements, then apply eq (7).

        Parameters
        ----------
        state : LoopState
            The state at the start of the period.
        q_blue_m, q_green_m : float
            Measured Blue and Green loss ratios in the period, in [0, 1].
        boost_m : float, s
            Measured boost in the period, >= 0.

        Returns
        -------
        LoopState

        Raises
        ------
        ScenarioTypeError
            If ``state`` is not a LoopState (or a 4-tuple) of real numbers, or
            a measurement is not a real number.
        ScenarioError
            If a measurement is out of range or not finite, the state is not
            finite (``alpha > 0``; ``q_blue``, ``q_green``, ``boost >= 0``), a
            filtered loss ratio falls to 0, or eq (7) overflows (the new
            ``alpha`` would not be a finite float > 0).

        References
        ----------
        Hurley, Le Boudec, Thiran, Section III-C.2 ("The action performed
        every T1 seconds").
        """
        fn = "ControlLaw.update"
        st = _check_state(fn, state)
        qbm = v.real(fn, "q_blue_m", q_blue_m, ge=0, le=1)
        qgm = v.real(fn, "q_green_m", q_green_m, ge=0, le=1)
        Bm = v.real(fn, "boost_m", boost_m, ge=0, unit="s")
        return self._update(st, qbm, qgm, Bm)

    def _update(self, state: LoopState, q_blue_m: float, q_green_m: float,
                boost_m: float) -> LoopState:
        """:meth:`update` on validated floats."""
        args = (state.alpha, state.q_blue, state.q_green, state.boost, q_blue_m, q_green_m,
                boost_m, self.beta_star, self.rtt, self.k1, self.k2, self.gamma1, self.gamma2)
        try:
            a, qb, qg, B, ok = law_step(*args)
        except OverflowError:  # a float power beyond 1.8e308
            _, qb, qg, B, ok = law_step(*args[:7], 1.0, self.rtt, 1.0, 0.0, self.gamma1,
                                        self.gamma2)  # the filters alone, for the message
            a = math.inf
        if not ok:
            raise ScenarioError(
                f"ControlLaw.update: the filtered loss ratios must stay > 0 for eq (7), got "
                f"q_blue={qb!r}, q_green={qg!r} (start the filters from positive values; with "
                f"gamma1 = 0 a period without losses empties them: use gamma1 > 0 or measure "
                f"over more packets)")
        if not (math.isfinite(a) and a > 0):
            raise ScenarioError(
                f"ControlLaw.update: eq (7) gives alpha = {a!r} (not a finite float > 0) from "
                f"alpha={state.alpha!r}, filtered q_blue={qb!r}, q_green={qg!r}, boost={B!r}: "
                f"the factor (c^2 q_blue / q_green)^k1 with c = beta_star (1 + boost / rtt) "
                f"over- or underflows; keep the filtered loss ratios within about 1e100 of "
                f"each other and boost / rtt moderate")
        return LoopState(a, qb, qg, B)

    def closed_loop(self, state: LoopState, q_blue: float, boost: float,
                    bias: float = 1.0) -> LoopState:
        """The loop closed on the noise-free plant ``q_g^m = min(1, bias alpha q_b)``.

        The Blue loss ratio ``q_blue`` and the boost are exogenous; the Green
        loss ratio responds to ``alpha`` as the dropper intends (eq (4)),
        up to a factor ``bias`` (1 = exact; > 1 models extra Green drops such
        as Green dropping control).

        Raises
        ------
        ScenarioTypeError, ScenarioError
            As :meth:`update`; ``q_blue`` in [0, 1], ``boost >= 0``, ``bias > 0``.
        """
        fn = "ControlLaw.closed_loop"
        st = _check_state(fn, state)
        q = v.real(fn, "q_blue", q_blue, ge=0, le=1)
        B = v.real(fn, "boost", boost, ge=0, unit="s")
        kappa = v.real(fn, "bias", bias, gt=0)
        qg_m = min(1.0, kappa * st.alpha * q)
        return self._update(st, q, qg_m, B)

    def fixed_point(self, q_blue, boost, bias: float = 1.0) -> LoopState:
        """The equilibrium of :meth:`closed_loop` for constant ``q_blue`` and ``boost``.

        ``alpha* = (c^2 / bias) delta^(-K2/K1)`` with ``c = beta*(1 + B/tau_e)``,
        so the Green/Blue loss ratio settles at ``c^2 delta^(-K2/K1)``: the
        Appendix A target ``c^2 / delta`` exactly when ``K1 == K2``.

        Parameters
        ----------
        q_blue : float
            Blue loss ratio, in (0, 1].
        boost : float, s
            Delay boost, >= 0.
        bias : float
            Plant factor, > 0 (see :meth:`closed_loop`).

        Returns
        -------
        LoopState

        Raises
        ------
        ScenarioError
            On bad inputs, or when the equilibrium Green loss ratio would
            exceed 1 (no equilibrium of the unsaturated plant).
        """
        fn = "ControlLaw.fixed_point"
        q = float(_scalar(fn, "q_blue", q_blue, _loss))
        B = float(_scalar(fn, "boost", boost, _boost))
        kappa = v.real(fn, "bias", bias, gt=0)
        with np.errstate(all="ignore"):
            c = self.beta_star * (1.0 + B / self.rtt)
            d = 1.0 + (1.0 - c) * float(_s(q))
            a = float(np.float64(c) * c / kappa * np.float64(d) ** (-self.k2 / self.k1))
            qg = kappa * a * q
        if not (math.isfinite(a) and a > 0):
            raise ScenarioError(
                f"{fn}: the equilibrium alpha (c^2 / bias) delta^(-k2/k1) = {a!r} is not a "
                f"finite float > 0 for q_blue={q!r}, boost={B!r}, bias={kappa!r}: keep "
                f"c = beta_star (1 + boost / rtt) below about 1e100 and bias moderate")
        if qg > 1.0:
            raise ScenarioError(
                f"{fn}: the equilibrium Green loss ratio bias*alpha*q_blue = {qg:.4g} exceeds 1; "
                f"lower beta_star or q_blue")
        return LoopState(float(a), q, float(qg), B)

    def jacobian(self, q_blue, boost, bias: float = 1.0) -> np.ndarray:
        """Jacobian of :meth:`closed_loop` at its fixed point, state order (alpha, q_b, q_g, B).

        Computed from the closed-form partial derivatives; the tests check it
        against finite differences of the map and against SymPy.

        Returns
        -------
        ndarray, shape (4, 4)

        Raises
        ------
        ScenarioError
            As :meth:`fixed_point`, or if an entry of the Jacobian overflows.
        """
        fp = self.fixed_point(q_blue, boost, bias)
        g1, g2, k1, k2, tau, b = self.gamma1, self.gamma2, self.k1, self.k2, self.rtt, self.beta_star
        a, qb, qg, B = fp
        kappa = float(bias)
        c = b * (1.0 + B / tau)
        root = math.sqrt(qb * (qb + 2.0))
        s = float(_s(qb))
        d = 1.0 + (1.0 - c) * s
        dd_dqb = (1.0 - c) * (1.0 - (qb + 1.0) / root)
        dd_dc = -s
        J = np.zeros((4, 4))
        # q_g' = g1 q_g + (1-g1) kappa alpha q_b^m   (q_b^m exogenous)
        dqg_da = (1.0 - g1) * kappa * qb
        J[2, 0] = dqg_da
        J[2, 2] = g1
        J[1, 1] = g1
        J[3, 3] = g2
        # alpha' = alpha (c'^2 q_b'/q_g')^k1 d'^-k2
        with np.errstate(all="ignore"):
            J[0, 0] = 1.0 - k1 * a * dqg_da / qg
            J[0, 2] = -k1 * a * g1 / qg
            J[0, 1] = a * (k1 / qb - k2 * dd_dqb / d) * g1
            dc_dB = b / tau
            J[0, 3] = a * (2.0 * k1 / c - k2 * dd_dc / d) * dc_dB * g2
        return _finite("ControlLaw.jacobian", J, "an entry overflows at this fixed point "
                       f"(alpha={a!r}, q_blue={qb!r}); use a smaller beta_star, boost / rtt "
                       "or larger loss ratios")

    def stability(self, q_blue, boost, bias: float = 1.0) -> Stability:
        """Local stability of the loop at its fixed point (eigenvalues of the Jacobian).

        The Jacobian is block triangular: the filters of ``q_b`` and ``B``
        contribute eigenvalues ``gamma1`` and ``gamma2``, and the (alpha, q_g)
        block has trace ``1 + gamma1 - K1 (1 - gamma1)`` and determinant
        ``gamma1``.  By the Jury test the loop is stable iff
        ``0 < K1 < 2 (1 + gamma1) / (1 - gamma1)``, whatever ``K2``.

        Parameters
        ----------
        q_blue : float
            Blue loss ratio, in (0, 1].
        boost : float, s
            Delay boost, >= 0.
        bias : float
            Plant factor (see :meth:`closed_loop`), > 0.

        Returns
        -------
        Stability
        """
        J = self.jacobian(q_blue, boost, bias)
        eig = np.linalg.eigvals(J)
        g1 = self.gamma1
        return Stability(
            law=self, fixed_point=self.fixed_point(q_blue, boost, bias), jacobian=J,
            eigenvalues=eig, spectral_radius=float(np.max(np.abs(eig))),
            k1_max=2.0 * (1.0 + g1) / (1.0 - g1),
        )


@dataclass(frozen=True)
class Stability:
    """Local stability of :class:`ControlLaw` at a fixed point.

    Attributes
    ----------
    law : ControlLaw
    fixed_point : LoopState
    jacobian : ndarray, shape (4, 4)
        State order (alpha, q_b, q_g, B).
    eigenvalues : ndarray of complex, shape (4,)
    spectral_radius : float
        Largest eigenvalue modulus; the fixed point is locally stable iff < 1.
    k1_max : float
        The stability bound ``2 (1 + gamma1) / (1 - gamma1)`` on ``K1``.
    """

    law: ControlLaw
    fixed_point: LoopState
    jacobian: np.ndarray
    eigenvalues: np.ndarray
    spectral_radius: float
    k1_max: float

    @property
    def stable(self) -> bool:
        """Whether every eigenvalue lies strictly inside the unit circle."""
        return bool(self.spectral_radius < 1.0)

    def to_pandas(self) -> pandas.DataFrame:
        """One row per eigenvalue: real part, imaginary part, modulus."""
        import pandas as pd

        e = self.eigenvalues
        return pd.DataFrame({"real": e.real, "imag": e.imag, "modulus": np.abs(e)})


@dataclass(frozen=True, repr=False)
class LoopRun(ShortRepr):
    """A run of the ABE control loop, one row per period ``T1``.

    Attributes
    ----------
    law : ControlLaw
    time : ndarray, s
        End of each period.
    alpha : ndarray
        ``alpha`` after each update (``alpha[0]`` is the initial value at time 0).
    q_blue, q_green, boost : ndarray
        Filtered values after each update (index 0: initial values).
    q_blue_measured, q_green_measured, boost_measured : ndarray
        The measurements of each period (NaN at index 0).
    q_blue_true, boost_true : ndarray
        The plant's Blue loss probability and boost in each period.
    target_ratio : ndarray
        Appendix A's ``q_g*/q_b`` for the true Blue loss and boost.
    beta : ndarray
        Throughput ratio ``x(q_b, tau + B) / x(min(1, bias alpha q_b), tau)``
        (eq (2)) implied by the true loss probabilities in force during each
        period (NaN at index 0).
    bias : float
        The plant factor used.
    seed : object
        The seed the measurements were drawn with.
    """

    law: ControlLaw
    time: np.ndarray
    alpha: np.ndarray
    q_blue: np.ndarray
    q_green: np.ndarray
    boost: np.ndarray
    q_blue_measured: np.ndarray
    q_green_measured: np.ndarray
    boost_measured: np.ndarray
    q_blue_true: np.ndarray
    boost_true: np.ndarray
    target_ratio: np.ndarray
    beta: np.ndarray
    bias: float
    seed: object = None

    @property
    def ratio(self) -> np.ndarray:
        """Filtered Green/Blue loss ratio ``q_g / q_b`` after each update."""
        return self.q_green / self.q_blue

    def tail_mean(self, name: str, fraction: float = 0.5) -> float:
        """Mean of a field over the last ``fraction`` of the periods."""
        fraction = v.real("LoopRun.tail_mean", "fraction", fraction, gt=0, le=1)
        x = getattr(self, name, None) if isinstance(name, str) else None
        if not isinstance(x, np.ndarray):
            raise ScenarioError(f"LoopRun.tail_mean: name must be an array field of LoopRun such "
                                f"as 'alpha', 'beta', 'ratio' or 'q_green', got {name!r}")
        x = x[1:]
        n = max(1, int(round(fraction * x.size)))
        return float(np.nanmean(x[-n:]))

    def to_pandas(self) -> pandas.DataFrame:
        """One row per period, indexed by time (s)."""
        import pandas as pd

        cols = ("alpha", "q_blue", "q_green", "boost", "q_blue_measured", "q_green_measured",
                "boost_measured", "q_blue_true", "boost_true", "target_ratio", "beta")
        d = {c: getattr(self, c) for c in cols}
        d["ratio"] = self.ratio
        return pd.DataFrame(d, index=pd.Index(self.time, name="time_s"))

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Two panels: ``alpha`` and the loss ratio against the target; the throughput ratio.

        Parameters
        ----------
        ax : matplotlib Axes or sequence of two, optional
            Where to draw (one Axes: the first panel only); a new figure if omitted.
        **kwargs
            Passed to the ``plot`` calls of the run's series.

        Returns
        -------
        matplotlib.axes.Axes or numpy.ndarray of Axes
            What was drawn on.
        """
        from ._plot import drawn, panels

        ax = panels(ax, 2)
        ax[0].plot(self.time, self.alpha, label="alpha", **kwargs)
        ax[0].plot(self.time, self.ratio, label="filtered q_g / q_b", **kwargs)
        ax[0].plot(self.time, self.target_ratio, "k--", label="target q_g*/q_b")
        ax[0].set_xlabel("time (s)")
        ax[0].set_ylabel("alpha; loss ratio q_g / q_b")
        ax[0].legend()
        if len(ax) > 1:
            ax[1].plot(self.time, self.beta, label="x_b / x_g (eq 2)", **kwargs)
            ax[1].axhline(self.law.beta_star, color="k", ls="--", label="beta*")
            ax[1].set_xlabel("time (s)")
            ax[1].set_ylabel("throughput ratio x_b / x_g")
            ax[1].legend()
        return drawn(ax)

    def _repr_html_(self) -> str:
        return (f"<p><b>LoopRun</b>: {self.time.size - 1} periods, final alpha "
                f"{self.alpha[-1]:.4g}, tail beta {self.tail_mean('beta'):.4g} "
                f"(target {self.law.beta_star:g})</p>")


def _integer(fn, name, value, **kw) -> int:
    """:func:`qosmodels._validate.integer`, also for integers too large for a float."""
    try:
        return v.integer(fn, name, value, **kw)
    except OverflowError:
        raise ScenarioError(f"{fn}.{name} must be an integer below 2**53, got "
                            f"{_safe(value)}") from None


def _per_period(fn, name, value, n, check):
    a = check(fn, name, value)
    if a.ndim == 0:
        return np.full(n, float(a))
    if a.shape != (n,):
        raise ScenarioError(f"{fn}: {name} must be a scalar or have one value per period "
                            f"(shape ({n},)), got shape {a.shape}")
    return a.astype(np.float64)


#: The most periods :func:`run_loop` steps in one call (about 20 s of plain Python).
MAX_LOOP_PERIODS = 10**6


def run_loop(law: ControlLaw | None = None, *, q_blue=0.02, boost=0.05, periods: int = 200,
             packets: int | None = 1000, bias: float = 1.0, boost_cv: float = 0.2,
             initial_q_blue: float = 0.05, initial_boost: float | None = None,
             initial_alpha: float | None = None, seed) -> LoopRun:
    """Run the control loop on a synthetic plant with seeded loss measurements.

    The plant: in each period the router's RED gives Blue packets the loss
    probability ``q_blue`` (exogenous) and Green ones ``min(1, bias * alpha *
    q_blue)`` (eq (4), ``bias = 1`` for an exact dropper).  With ``packets``
    given, each class sends that many packets per period and the measured loss
    ratios are binomial counts over ``packets``; the measured boost is Gamma
    distributed with mean ``boost`` and coefficient of variation ``boost_cv``.
    With ``packets=None`` the measurements are their expectations (the
    noise-free map :meth:`ControlLaw.closed_loop`).

    Initial values follow Section III-C.2: ``q_b`` from ``initial_q_blue``
    (paper: 0.05), ``B`` from ``initial_boost`` (paper: ``D/2``; default: the
    true boost), ``alpha`` from eq (5) at those values, ``q_g = alpha q_b``.

    Parameters
    ----------
    law : ControlLaw, optional
        Default: :data:`PAPER_LAW` (Section IV-B values).
    q_blue : float or array_like, shape (periods,)
        True Blue loss probability per period, in (0, 1].
    boost : float or array_like, shape (periods,), s
        True boost per period, >= 0.
    periods : int
        Number of updates, >= 1.
    packets : int or None
        Packets of each class per period (>= 1), or None for noise-free.
    bias : float
        Plant factor on Green losses, > 0.
    boost_cv : float
        Coefficient of variation of the boost measurement, >= 0.
    initial_q_blue : float
        Initial filtered Blue loss, in (0, 1].
    initial_boost : float, optional, s
        Initial filtered boost, >= 0.
    initial_alpha : float, optional
        Override the initial ``alpha`` (>= 1e-12); ``q_g`` starts at
        ``alpha q_b``.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the measurement noise; required (keyword), as for
        :func:`qosmodels.simulate`: the same seed gives the same run.  It is
        checked even when ``packets=None`` draws nothing.

    Returns
    -------
    LoopRun

    Raises
    ------
    ScenarioTypeError
        If an argument has the wrong type, or ``seed`` is not an int >= 0, a
        SeedSequence or a Generator.
    ScenarioError
        If an argument is out of range or not finite, a negative seed, or if
        the ``periods`` would need more memory than the budget or exceed
        :data:`MAX_LOOP_PERIODS` (:class:`~qosmodels.errors.BudgetError`); or if the
        law fails on the way (:meth:`ControlLaw.update`).

    References
    ----------
    Hurley, Le Boudec, Thiran, Section III-C.2 and Section IV-B.

    Examples
    --------
    >>> run = run_loop(periods=100, seed=1)
    >>> abs(run.tail_mean("beta") / 1.5 - 1) < 0.05
    True
    """
    fn = "abe.run_loop"
    law = PAPER_LAW if law is None else law
    if not isinstance(law, ControlLaw):
        raise ScenarioTypeError(f"{fn}: law must be a ControlLaw, got {law!r}")
    _seed.check(fn, seed)
    n = _integer(fn, "periods", periods, ge=1)
    budget.check_work(fn, n, MAX_LOOP_PERIODS, what="periods", parameter=f"periods = {n}",
                      fix="run fewer periods (the loop steps in plain Python, some 20 us a "
                          "period: 10^6 periods take about 20 s)")
    # 14 float64 arrays of n + 1 values: 8 outputs, 2 per-period inputs, target, time and
    # the two concatenated true series
    budget.check_memory(fn, 14 * 8.0 * (n + 1), parameter=f"periods={n}",
                        fix="run fewer periods")
    qb_true = _per_period(fn, "q_blue", q_blue, n, _loss)
    B_true = _per_period(fn, "boost", boost, n, _boost)
    if packets is not None:
        packets = _integer(fn, "packets", packets, ge=1, unit="packets per period")
    kappa = v.real(fn, "bias", bias, gt=0)
    cv = v.real(fn, "boost_cv", boost_cv, ge=0)
    q0 = float(_loss(fn, "initial_q_blue", initial_q_blue))
    B0 = float(B_true[0]) if initial_boost is None else float(_boost(fn, "initial_boost",
                                                                         initial_boost))
    if initial_alpha is None:
        with np.errstate(all="ignore"):
            a0 = float(_alpha(law.beta_star, q0, B0, law.rtt))
        _finite(fn, a0, "the initial alpha, eq (5), " + _C_OVERFLOW)
    else:
        a0 = v.real(fn, "initial_alpha", initial_alpha, ge=1e-12)
    rng = _seed.generator(fn, seed)

    out = {k: np.full(n + 1, np.nan) for k in (
        "alpha", "q_blue", "q_green", "boost", "qbm", "qgm", "Bm", "beta")}
    state = LoopState(a0, q0, a0 * q0, B0)
    out["alpha"][0], out["q_blue"][0], out["q_green"][0], out["boost"][0] = state
    for t in range(n):
        p = qb_true[t]
        pg = min(1.0, kappa * state.alpha * p)
        Bt = B_true[t]
        if packets is None:
            qbm, qgm, Bm = p, pg, Bt
        else:
            qbm = rng.binomial(packets, p) / packets
            qgm = rng.binomial(packets, pg) / packets
            Bm = Bt if (cv == 0 or Bt == 0) else rng.gamma(1.0 / cv**2, Bt * cv**2)
        with np.errstate(all="ignore"):
            out["beta"][t + 1] = _x(p, law.rtt + Bt) / _x(pg, law.rtt)
        state = law._update(state, float(qbm), float(qgm), float(Bm))
        out["alpha"][t + 1], out["q_blue"][t + 1], out["q_green"][t + 1], out["boost"][t + 1] = state
        out["qbm"][t + 1], out["qgm"][t + 1], out["Bm"][t + 1] = qbm, qgm, Bm
    target = np.empty(n + 1)
    with np.errstate(all="ignore"):
        target[0] = _alpha(law.beta_star, qb_true[0], B_true[0], law.rtt)
        target[1:] = _alpha(law.beta_star, qb_true, B_true, law.rtt)
    _finite(fn, target, "the target ratio, eq (5), " + _C_OVERFLOW)
    return LoopRun(
        law=law, time=law.period * np.arange(n + 1), alpha=out["alpha"], q_blue=out["q_blue"],
        q_green=out["q_green"], boost=out["boost"], q_blue_measured=out["qbm"],
        q_green_measured=out["qgm"], boost_measured=out["Bm"],
        q_blue_true=np.concatenate([[qb_true[0]], qb_true]),
        boost_true=np.concatenate([[B_true[0]], B_true]), target_ratio=target, beta=out["beta"],
        bias=kappa, seed=_seed.describe(seed),
    )


#: The control law with the parameters of the paper's Section IV-B.
PAPER_LAW = ControlLaw(beta_star=1.5, rtt=0.14, k1=1.1, k2=1.1, gamma1=0.3, gamma2=0.5, period=0.5)
