"""The Telnet delay analysis of fair queueing and the FCFS curve of Figure 1.

A single FQ gateway (line rate mu = 1, times in units of the packet time)
carries N FTP conversations that always have packets of size P_F waiting,
and one Telnet conversation.  This module gives

* the emulation delay A(P) -- the extra queueing delay of packetised FQ over
  bit-by-bit round robin for a Telnet packet of size P arriving at an idle
  Telnet queue, averaged over the arrival phase -- as the paper's SymPy
  ``Piecewise`` bounds (:func:`emulation_delay_bounds`) and computed exactly
  for any FTP synchronisation (:func:`emulation_delay`);
* D_N(P) for delta = 0 and general delta (:func:`delay_expr`), the Poisson
  closed form derived from it (:func:`poisson_delay_expr`) with its limits,
  and the vectorised :func:`telnet_delay`;
* the FCFS curve of Figure 1, derived from the model the paper states
  (N W FTP packets always queued, Poisson Telnet, deterministic service):
  :func:`fcfs_delay_expr` and :func:`fcfs_telnet_delay`;
* Monte-Carlo checks of both curves: :func:`simulate_telnet_fq` (the exact
  round-number computation of :func:`~qosmodels.fq.fair_queue` on Poisson
  traces) and :func:`simulate_telnet_fcfs` (an explicit FIFO).

"Queueing delay" is, as in the paper, the time from arrival to the start of
transmission (FCFS at rho -> 0 gives (N W - 1/2) P: N W - 1 whole packets
and half of the one in service).

A correction to the printed formula: the paper's Poisson expression for
D_N(P)/P starts with ``rho / (2 (1 - rho))``, but D_0[(N+1)P] -- the waiting
time of M/D/1 with service time (N+1)P and load rho -- is
``(N+1) rho / (2 (1 - rho))`` (Pollaczek-Khinchine).  The exact round-number
computation agrees with the corrected term (e.g. N = 3, rho = 0.5:
3.52 P measured, 3.50 P corrected, 2.00 P as printed); both forms have the
limits the paper states (N P / 2 and P / 2 as rho -> 0), which is why the
misprint does not show there.  :func:`poisson_delay_expr` gives the
corrected form, ``poisson_delay_expr(printed=True)`` the printed one.

References
----------
A. Demers, S. Keshav, S. Shenker, "Analysis and simulation of a fair
queueing algorithm", Internetworking: Research and Experience 1 (1990),
section "Delay" (A(P), D_N(P), the Poisson formula, Figure 1).
"""

from __future__ import annotations

import math
import numbers
from collections import deque
from dataclasses import dataclass

import numpy as np

from .. import _seed, budget
from .. import _validate as v
from .._arrays import real_array, safe_repr
from ..errors import ScenarioError, ScenarioTypeError

__all__ = [
    "emulation_delay_bounds", "emulation_delay", "phase_delay", "delay_expr",
    "poisson_delay_expr", "fcfs_delay_expr", "telnet_limits", "telnet_delay",
    "fcfs_telnet_delay", "simulate_telnet_fq", "simulate_telnet_fcfs", "TelnetMonteCarlo",
]


# ----------------------------------------------------------------------------- validation
_N_MAX = 2**53  # counts beyond are not exact as floats


def _check_N(owner, N, name="N", what="number of FTP conversations") -> int:
    if isinstance(N, (bool, np.bool_)) or not isinstance(N, numbers.Real):
        raise ScenarioTypeError(f"{owner}.{name} ({what}) must be an integer >= 1, got "
                                f"{safe_repr(N)} of type {type(N).__name__}")
    if isinstance(N, numbers.Integral):
        n = int(N)
    elif not math.isfinite(N) or N != int(N):
        raise ScenarioError(f"{owner}.{name} ({what}) must be an integer >= 1, got {N!r}")
    else:
        n = int(N)
    if n < 1:
        raise ScenarioError(f"{owner}.{name} ({what}) must be >= 1, got {safe_repr(N)}")
    if n > _N_MAX:
        raise ScenarioError(f"{owner}.{name} ({what}) must be <= 2**53 (larger counts are not "
                            f"exact as floats), got {safe_repr(N)}")
    return n


def _check_pos(owner, name, value, *, ge=None, gt=None) -> float:
    return v.real(owner, name, value, ge=ge, gt=gt)


def _check_bool(owner, name, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ScenarioTypeError(f"{owner}.{name} must be True or False, got {safe_repr(value)} "
                                f"of type {type(value).__name__}")
    return bool(value)


def _check_count(owner, name, value, ge) -> int:
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)) \
            and abs(int(value)) > _N_MAX:
        raise ScenarioError(f"{owner}.{name} must be <= 2**53, got {safe_repr(value)}")
    return v.integer(owner, name, value, ge=ge)


def _check_rho(owner, rho, hi: float, what: str) -> np.ndarray:
    r = real_array(owner, "rho", rho)
    bad = ~(np.isfinite(r) & (r >= 0) & (r < hi))
    if np.any(bad):
        raise ScenarioError(
            f"{owner}.rho must lie in [0, {hi:g}) for {what}, got "
            f"{np.atleast_1d(r)[np.atleast_1d(bad)][0]!r}"
        )
    return r


def _finite(owner, x, why):
    if not np.all(np.isfinite(x)):
        raise ScenarioError(f"{owner}: the result is not a finite float for these inputs: {why}")
    return x


# ----------------------------------------------------------------------------- symbols
def _sym():
    import sympy as sp

    return dict(
        P=sp.Symbol("P", real=True), P_F=sp.Symbol("P_F", positive=True),
        N=sp.Symbol("N", positive=True, integer=True), rho=sp.Symbol("rho", nonnegative=True),
        delta=sp.Symbol("delta", nonnegative=True), t=sp.Symbol("t", nonnegative=True),
        lam=sp.Symbol("lambda", positive=True), W=sp.Symbol("W", positive=True, integer=True),
    )


def emulation_delay_bounds(preemptive: bool = True):
    """The paper's A(P): lower and upper bounds as SymPy ``Piecewise`` in P, P_F, N.

    Where the paper gives an equality (P >= P_F) both bounds are the same
    expression.  k and epsilon are the paper's ``P = P_F (k + epsilon) / N``,
    i.e. ``k = floor(N P / P_F)``.  Units: P, P_F and A in bits (= time at
    mu = 1).

    Parameters
    ----------
    preemptive : bool
        The preemptive (True) or nonpreemptive (False) packetised algorithm.

    Raises
    ------
    ScenarioTypeError
        If ``preemptive`` is not a bool.

    Returns
    -------
    lower, upper : sympy.Piecewise
        Valid for P >= 0; for P < 0 (delta > P_T) both algorithms behave as
        at P = 0 (the Telnet packet is first in line), so evaluate at
        ``max(P, 0)``.

    Notes
    -----
    The lower bound is attained by the staggered synchronisation
    ``l_alpha = alpha / N`` and, nonpreemptively, the upper bound by the
    aligned one ``l_alpha = 0`` (:func:`emulation_delay` computes both
    exactly; the tests check the bounds against it).

    References
    ----------
    Demers, Keshav, Shenker (1990), section "Delay", the two displays of
    A(P) ("Preemptive", "Nonpreemptive").
    """
    preemptive = _check_bool("fq.emulation_delay_bounds", "preemptive", preemptive)
    import sympy as sp

    s = _sym()
    P, PF, N = s["P"], s["P_F"], s["N"]
    lin = N * (P - PF / 2)
    hi_cut = PF / 2 * (1 + 1 / N)
    lo_cut = PF / 2 * (1 - 1 / N)
    if preemptive:
        quad = N * P**2 / (2 * PF)
        lower = sp.Piecewise(
            (lin, P >= hi_cut),
            ((PF / 2 + lin) ** 2 / (2 * PF), P >= lo_cut),
            (sp.Integer(0), True),
        )
        upper = sp.Piecewise((lin, P >= PF), (quad, True))
    else:
        k = sp.floor(N * P / PF)
        eps = N * P / PF - k
        ub = PF / 2 * (1 + (k**2 + k * (2 * eps - 1)) / N)
        lower = sp.Piecewise((lin, P >= hi_cut), (PF / 2, True))
        upper = sp.Piecewise((lin, P >= PF), (ub, True))
    return lower, upper


def phase_delay(r, P, N: int, P_F: float = 1.0, sync="staggered", preemptive: bool = True):
    """Queueing delay of one Telnet packet arriving at round number r (exact, vectorised).

    The N FTPs are always backlogged with packets of size P_F and finish
    numbers ``F = (i + l_alpha) P_F``; the Telnet queue is idle and its
    packet gets the bid ``B = r + P`` (P stands for ``P_T - delta``).  By
    work conservation the packetised server has sent, at that moment, the
    packets with F <= r and then, in F order, as many bits as BR has
    partly served; the packet waits for the rest of the FTP packets with
    F < B (and, nonpreemptively, for the one on the line).

    Parameters
    ----------
    r : array_like
        Round number at arrival (bits; any real).
    P : float
        ``P_T - delta`` (bits).
    N : int
        Number of FTPs.
    P_F : float
        FTP packet size (bits).
    sync : "staggered", "aligned" or array_like of shape (N,)
        The phases ``l_alpha`` in [0, 1): ``alpha / N``, all 0, or given.
    preemptive : bool

    Returns
    -------
    ndarray
        Queueing delay (time at mu = 1, i.e. bits).

    Raises
    ------
    ScenarioTypeError
        If an argument is not a number (or ``preemptive`` not a bool).
    ScenarioError
        If ``r`` or ``P`` is not finite, ``N < 1``, ``P_F <= 0``, the phases
        are not N numbers in [0, 1), the delay overflows (``|r| / P_F`` and
        ``|P| / P_F`` must stay below about 1e300), or the ``r.size x N``
        tables exceed the memory budget (BudgetError).
    """
    owner = "fq.phase_delay"
    N = _check_N(owner, N)
    P_F = _check_pos(owner, "P_F", P_F, gt=0)
    P = _check_pos(owner, "P", P)
    preemptive = _check_bool(owner, "preemptive", preemptive)
    r = real_array(owner, "r", r)
    if not np.all(np.isfinite(r)):
        raise ScenarioError(f"{owner}.r must be finite (round numbers in bits), got a "
                            f"non-finite value")
    l = _sync(sync, N)
    budget.check_memory(owner, 12 * 8.0 * max(r.size, 1) * N,
                        parameter=f"r of {r.size} round numbers times N = {N}",
                        fix="give fewer round numbers or fewer FTPs")
    with np.errstate(all="ignore"):
        out = _phase_delay(r, P, N, P_F, l, preemptive)
    return _finite(owner, out, "r / P_F or P / P_F overflows; keep them below about 1e300")


def _phase_delay(r, P, N, P_F, l, preemptive):
    r = r[..., None]
    a = r / P_F - l  # the FTP packet index i at which (i + l) P_F crosses r
    f_cur = (np.floor(a) + 1 + l) * P_F  # smallest F > r per FTP (in progress in BR)
    partial = np.sum(P_F - (f_cur - r), axis=-1)
    count = np.maximum(np.ceil(a + P / P_F) - np.floor(a) - 1, 0)  # packets with r < F < r + P
    work = P_F * np.sum(count, axis=-1)
    wait = np.maximum(work - partial, 0.0)
    if preemptive:
        return wait
    f_sorted = np.sort(f_cur, axis=-1)
    m = np.minimum(np.floor(partial / P_F).astype(np.int64), N - 1)
    f_line = np.take_along_axis(f_sorted, m[..., None], axis=-1)[..., 0]
    residual = (m + 1) * P_F - partial
    return np.where(f_line < r[..., 0] + P, np.maximum(wait, residual), residual)


def _sync(sync, N):
    if isinstance(sync, str):
        if sync == "staggered":
            return np.arange(N) / N
        if sync == "aligned":
            return np.zeros(N)
        raise ScenarioError(f"sync must be 'staggered', 'aligned' or N phases, got {sync!r}")
    l = real_array("fq.phase_delay", "sync", sync, what="'staggered', 'aligned' or N phases")
    if l.shape != (N,) or not np.all((l >= 0) & (l < 1)):
        raise ScenarioError(f"sync phases must be N = {N} numbers in [0, 1), got {sync!r}")
    return l


def emulation_delay(P, N: int, P_F: float = 1.0, sync="staggered", preemptive: bool = True,
                    n_phase: int = 20000):
    """A(P) for a given FTP synchronisation: :func:`phase_delay` averaged over the phase.

    The average over a uniform arrival round number in one FTP period is
    taken by the midpoint rule on ``n_phase`` points (error O(1/n_phase) from
    the jumps of the phase delay).

    Parameters
    ----------
    P : float or array_like
        ``P_T - delta`` (bits).
    N, P_F, sync, preemptive
        As in :func:`phase_delay`.

    n_phase : int
        Points of the midpoint rule, >= 1.

    Returns
    -------
    float or ndarray
        A(P) in bits (time at mu = 1).

    Raises
    ------
    ScenarioTypeError, ScenarioError
        As :func:`phase_delay`; ``P`` finite, ``n_phase >= 1`` and within the
        memory budget (``n_phase x N`` tables).
    """
    owner = "fq.emulation_delay"
    N = _check_N(owner, N)
    P_F = _check_pos(owner, "P_F", P_F, gt=0)
    n_phase = _check_count(owner, "n_phase", n_phase, 1)
    preemptive = _check_bool(owner, "preemptive", preemptive)
    Ps = np.atleast_1d(real_array(owner, "P", P))
    if not np.all(np.isfinite(Ps)):
        raise ScenarioError(f"{owner}.P must be finite (P_T - delta, bits), got {P!r}")
    l = _sync(sync, N)
    budget.check_memory(owner, 12 * 8.0 * n_phase * N, parameter=f"n_phase={n_phase} times "
                        f"N = {N}", fix="use a smaller n_phase")
    r = (np.arange(n_phase) + 0.5) / n_phase * P_F
    with np.errstate(all="ignore"):
        out = np.array([_phase_delay(r, float(p), N, P_F, l, preemptive).mean() for p in Ps])
    _finite(owner, out, "P / P_F overflows; keep it below about 1e300")
    return out[0] if np.ndim(P) == 0 else out


def delay_expr(general_delta: bool = True):
    """D_N(P_T) in terms of the sole-source quantities D_0 and I_0 (SymPy).

    ``D_N = D_0[(N+1) P_T] + A(P_T) - Integral(I_0[(N+1) P_T, t]
    (A(P_T) - A(P_T - min(t/N, delta))), (t, 0, oo))``; with
    ``general_delta=False`` the delta = 0 form ``D_0[(N+1)P_T] + A(P_T)``.
    D_0, I_0 and A are undefined SymPy functions.

    Raises
    ------
    ScenarioTypeError
        If ``general_delta`` is not a bool.

    References
    ----------
    Demers, Keshav, Shenker (1990), section "Delay", the two displays of D_N.
    """
    general_delta = _check_bool("fq.delay_expr", "general_delta", general_delta)
    import sympy as sp

    s = _sym()
    PT = sp.Symbol("P_T", positive=True)
    N, t, d = s["N"], s["t"], s["delta"]
    D0, I0, A = sp.Function("D_0"), sp.Function("I_0"), sp.Function("A")
    base = D0((N + 1) * PT) + A(PT)
    if not general_delta:
        return base
    return base - sp.Integral(I0((N + 1) * PT, t) * (A(PT) - A(PT - sp.Min(t / N, d))),
                              (t, 0, sp.oo))


def poisson_delay_expr(printed: bool = False, cap=None):
    """D_N(P)/P for Poisson Telnet, P_T = P_F = P, l_alpha = alpha/N, nonpreemptive (SymPy).

    Derived, not transcribed: D_0 is the Pollaczek-Khinchine waiting time
    of M/D/1 with service (N+1)P; an arrival finds the Telnet queue idle
    with probability 1 - rho, and then it has been idle for an Exp(lambda)
    time, so ``I_0(t) = (1 - rho) lambda exp(-lambda t)``; for the
    staggered synchronisation the nonpreemptive A(P) - A(P - s) is
    ``N min(s, P (1 - 1/N) / 2)``.  The integral is done by SymPy.

    Parameters
    ----------
    printed : bool
        Return the paper's printed expression instead (first term
        ``rho / (2 (1 - rho))``; see the module notes).
    cap : sympy expression, optional
        ``min(delta/P, (1 - 1/N)/2)`` as a symbol ``m`` if None (so limits
        can be taken in closed form); pass ``sympy.Min(...)`` for the full
        expression.

    Returns
    -------
    expr : sympy.Expr
        In the symbols ``N``, ``rho`` and ``m`` (or ``delta``, ``P`` through
        ``cap``).

    Raises
    ------
    ScenarioTypeError
        If ``printed`` is not a bool, or ``cap`` is neither None, a SymPy
        expression nor a real number.
    ScenarioError
        If ``cap`` is a number that is not finite or is < 0.

    References
    ----------
    Demers, Keshav, Shenker (1990), section "Delay", the display of
    D_N(P)/P; L. Kleinrock, *Queueing Systems* vol. 1 (1975), eq. (5.105)
    (Pollaczek-Khinchine mean wait).
    """
    printed = _check_bool("fq.poisson_delay_expr", "printed", printed)
    import sympy as sp

    if cap is not None and not isinstance(cap, sp.Basic):
        cap = sp.Float(v.real("fq.poisson_delay_expr", "cap", cap, ge=0))
    s = _sym()
    N, rho, t, lam = s["N"], s["rho"], s["t"], s["lam"]
    m = sp.Symbol("m", nonnegative=True) if cap is None else cap
    P = sp.Symbol("P", positive=True)
    if printed:
        return (rho / (2 * (1 - rho)) + N * rho / 2 + N * (1 - rho) * (
            sp.Rational(1, 2) - (N + 1) / (N * rho) * (1 - sp.exp(-rho * N / (N + 1) * m))))
    Ssvc = (N + 1) * P  # sole-source service time of the Telnet under BR
    D0 = lam * Ssvc**2 / (2 * (1 - lam * Ssvc))  # Pollaczek-Khinchine, deterministic service
    A_P = N * P / 2  # A(P) at P = P_F (equality regime)
    a = sp.Symbol("a", positive=True)  # a = N * delta' (time), delta' = m P
    I0 = (1 - lam * Ssvc) * lam * sp.exp(-lam * t)
    # integral of I0 * N * min(t/N, delta') = I0 * min(t, a), split at t = a
    red = sp.integrate(I0 * t, (t, 0, a)) + sp.integrate(I0 * a, (t, a, sp.oo))
    D = (D0 + A_P - red).subs(a, N * m * P)
    D = sp.expand(D.subs(lam, rho / ((N + 1) * P)) / P)
    # the same expression in the paper's layout, returned only once proven equal
    neat = ((N + 1) * rho / (2 * (1 - rho)) + N * rho / 2 + N * (1 - rho) * (
        sp.Rational(1, 2) - (N + 1) / (N * rho) * (1 - sp.exp(-rho * N / (N + 1) * m))))
    if sp.simplify(D - neat) != 0:  # pragma: no cover - would be a derivation error
        raise AssertionError("the derived D_N(P)/P differs from its displayed form")
    return neat


def fcfs_delay_expr():
    """Mean FCFS queueing delay of the Poisson Telnet in Figure 1's model (SymPy), in units of P.

    N W FTP packets are always in the gateway (other links infinitely fast,
    windows W); Telnet packets of size P arrive as Poisson(lambda) and
    ``rho = lambda P (N + 1)``.  An arrival finds N W FTP packets and T
    Telnet packets, one of them in service with a residual uniform on
    (0, P) (the line never idles), so it waits
    ``D = (N W - 1/2) P + E[T] P``; Little's law gives
    ``E[T] = lambda (D + P)``.  Solving (SymPy) gives
    ``D/P = ((N + 1)(N W - 1/2) + rho) / (N + 1 - rho)``, finite for rho < N + 1.

    References
    ----------
    Demers, Keshav, Shenker (1990), section "Delay", the paragraph on
    Figure 1 (the model and the limits); J. D. C. Little (1961), L = lambda W.
    """
    import sympy as sp

    s = _sym()
    N, W, rho = s["N"], s["W"], s["rho"]
    D = sp.Symbol("D")
    lamP = rho / (N + 1)  # lambda * P, with P = 1
    sol = sp.solve(sp.Eq(D, (N * W - sp.Rational(1, 2)) + lamP * (D + 1)), D)[0]
    return sp.simplify(sol)


def telnet_limits():
    """The limits the paper states, derived with ``sympy.limit``.

    Returns
    -------
    dict
        ``fq_delta0_rho0`` (D/P as rho -> 0 with delta = 0: N/2),
        ``fq_deltaP_rho0`` (delta = P: 1/2), ``fq_rho1`` (rho -> 1-: oo),
        ``fcfs_rho0`` (N W - 1/2), ``fcfs_at_rho1`` (finite),
        ``fcfs_rhoN1`` (rho -> (N+1)-: oo, taken at N = 3), and the printed formula's
        ``printed_delta0_rho0`` and ``printed_deltaP_rho0``.  All in units of P.
    """
    import sympy as sp

    s = _sym()
    N, rho = s["N"], s["rho"]
    m = sp.Symbol("m", nonnegative=True)
    cap_P = (1 - 1 / N) / 2  # min(delta/P, (1 - 1/N)/2) at delta = P (N >= 1)
    fq = poisson_delay_expr()
    pr = poisson_delay_expr(printed=True)
    fc = fcfs_delay_expr()
    out = {}
    for name, expr in (("fq", fq), ("printed", pr)):
        l0 = sp.limit(expr, rho, 0, dir="+")
        out[f"{name}_delta0_rho0"] = sp.simplify(l0.subs(m, 0))
        out[f"{name}_deltaP_rho0"] = sp.simplify(l0.subs(m, cap_P))
    out["fq_rho1"] = sp.limit(fq, rho, 1, dir="-")
    out["fcfs_rho0"] = sp.simplify(sp.limit(fc, rho, 0, dir="+"))
    out["fcfs_at_rho1"] = sp.simplify(fc.subs(rho, 1))
    out["fcfs_rhoN1"] = sp.limit(fc.subs(N, 3), rho, 4, dir="-")
    return out


# ----------------------------------------------------------------------------- numeric
def telnet_delay(N, rho, delta=0.0, packet_time=1.0):
    """Mean queueing delay of a Poisson Telnet under nonpreemptive FQ (vectorised over rho).

    N FTPs always backlogged with the staggered synchronisation
    ``l_alpha = alpha / N``, Telnet and FTP packets of the same size
    (``P_T = P_F = P``, transmission time ``packet_time``):

    ``D/P = (N+1) rho / (2 (1 - rho)) + N/2
    - (N+1)(1 - rho)/rho [1 - exp(-rho N/(N+1) min(delta/P, (1 - 1/N)/2))]``

    (the paper's formula with its first term corrected, see the module
    notes; derived in :func:`poisson_delay_expr`).

    Parameters
    ----------
    N : int
        Number of FTP conversations, >= 1.
    rho : float or array_like
        Telnet load relative to its fair share, ``lambda P (N + 1)``, in [0, 1).
    delta : float
        The promptness parameter, in the units of ``packet_time``, >= 0.
    packet_time : float
        Transmission time of one packet (``P / mu``), > 0.

    Returns
    -------
    float or ndarray
        Mean time from arrival to start of transmission, in the units of
        ``packet_time``.

    Raises
    ------
    ScenarioTypeError
        If an argument is not a number (a string, a bool, None, complex).
    ScenarioError
        If N is not an integer in [1, 2**53], rho outside [0, 1), delta < 0,
        packet_time <= 0 or an argument is not finite; or if the delay
        overflows (a packet_time near the float limit).

    References
    ----------
    Demers, Keshav, Shenker (1990), section "Delay", D_N(P)/P for the
    Poisson Telnet and Figure 1.

    Examples
    --------
    >>> from qosmodels.fq import telnet_delay
    >>> float(telnet_delay(3, 0.0)), float(telnet_delay(3, 0.0, delta=1.0))
    (1.5, 0.5)
    """
    owner = "fq.telnet_delay"
    N = _check_N(owner, N)
    delta = _check_pos(owner, "delta", delta, ge=0)
    packet_time = _check_pos(owner, "packet_time", packet_time, gt=0)
    r = _check_rho(owner, rho, 1.0, "telnet_delay (FQ diverges at rho = 1)")
    with np.errstate(all="ignore"):
        m = min(delta / packet_time, (1 - 1 / N) / 2)
        c = r * N / (N + 1)
        # (1 - exp(-c m)) / rho, continuous at rho = 0 (value N m / (N + 1))
        frac = np.where(r > 0, -np.expm1(-c * m) / np.where(r > 0, r, 1.0), N * m / (N + 1))
        d = (N + 1) * r / (2 * (1 - r)) + N / 2 - (N + 1) * (1 - r) * frac
        d = d * packet_time
    _finite(owner, d, "the delay in packet times times packet_time overflows; give "
                      "packet_time in a larger unit")
    return float(d) if np.ndim(d) == 0 else d


def fcfs_telnet_delay(N, W, rho, packet_time=1.0):
    """Mean FCFS queueing delay of the Poisson Telnet in Figure 1's model (vectorised over rho).

    ``D/P = ((N + 1)(N W - 1/2) + rho) / (N + 1 - rho)`` (derived in
    :func:`fcfs_delay_expr`): (N W - 1/2) P at rho -> 0, finite for
    rho < N + 1.

    Parameters
    ----------
    N : int
        Number of FTP conversations, >= 1.
    W : int
        FTP window (packets), >= 1.
    rho : float or array_like
        ``lambda P (N + 1)``, in [0, N + 1).
    packet_time : float
        Transmission time of one packet, > 0.

    Returns
    -------
    float or ndarray
        Mean time from arrival to start of transmission, in the units of
        ``packet_time``.

    Raises
    ------
    ScenarioTypeError
        If an argument is not a number (a string, a bool, None, complex).
    ScenarioError
        If N or W is not an integer in [1, 2**53], rho outside [0, N + 1),
        packet_time <= 0 or not finite; or if the delay overflows.

    References
    ----------
    Demers, Keshav, Shenker (1990), section "Delay", Figure 1 and the
    paragraph before it.

    Examples
    --------
    >>> from qosmodels.fq import fcfs_telnet_delay
    >>> float(fcfs_telnet_delay(3, 5, 0.0))
    14.5
    """
    owner = "fq.fcfs_telnet_delay"
    N = _check_N(owner, N)
    W = _check_N(owner, W, "W", "FTP window")
    packet_time = _check_pos(owner, "packet_time", packet_time, gt=0)
    r = _check_rho(owner, rho, N + 1.0, f"fcfs_telnet_delay (rho < N + 1 = {N + 1})")
    with np.errstate(all="ignore"):
        d = ((N + 1) * (N * W - 0.5) + r) / (N + 1 - r) * packet_time
    _finite(owner, d, "the delay in packet times (about N W) times packet_time overflows; "
                      "give packet_time in a larger unit")
    return float(d) if np.ndim(d) == 0 else d


# ----------------------------------------------------------------------------- Monte Carlo
@dataclass(frozen=True)
class TelnetMonteCarlo:
    """Mean Telnet queueing delay measured on a simulated trace.

    Attributes
    ----------
    mean : float
        Mean time from arrival to start of transmission (units of packet_time).
    stderr : float
        Its standard error, by batch means over 20 batches (``inf`` when only
        one packet is measured: one value gives no error estimate).
    n : int
        Telnet packets measured (after the warm-up).
    delays : ndarray
        The per-packet delays.
    """

    mean: float
    stderr: float
    n: int
    delays: np.ndarray


def _batch_stats(d: np.ndarray, n_batches: int = 20) -> TelnetMonteCarlo:
    nb = min(n_batches, len(d))
    if nb < 2:
        return TelnetMonteCarlo(float(np.mean(d)), math.inf, len(d), d)
    cut = len(d) - len(d) % nb
    means = d[:cut].reshape(nb, -1).mean(axis=1)
    return TelnetMonteCarlo(float(d.mean()), float(means.std(ddof=1) / math.sqrt(nb)), len(d), d)


def simulate_telnet_fq(N, rho, delta=0.0, packet_time=1.0, *, n_packets=5000, warmup=200,
                       preemptive=False, seed) -> TelnetMonteCarlo:
    """Monte Carlo of the FQ curve by the exact round-number computation.

    Builds a trace -- N FTPs started one after the other so that their
    finish numbers are staggered (``l_alpha = alpha / N``), each with a
    backlog that lasts the whole run, and a Poisson Telnet of rate
    ``rho / ((N + 1) P)`` -- and runs :func:`~qosmodels.fq.fair_queue` on it.

    Parameters
    ----------
    N : int
        Number of FTPs, >= 1.
    rho : float
        Telnet load ``lambda P (N + 1)``, in (0, 1).
    delta, packet_time : float
        As in :func:`telnet_delay`.
    n_packets : int
        Telnet packets measured (after ``warmup`` more), >= 1.
    warmup : int
        Telnet packets discarded first, >= 0.
    preemptive : bool
        Measure preemptive instead of nonpreemptive FQ.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Required (keyword), as for :func:`qosmodels.simulate`: the same seed
        gives the same trace.

    Returns
    -------
    TelnetMonteCarlo

    Raises
    ------
    ScenarioTypeError
        If an argument has the wrong type (``seed`` not an int >= 0, a
        SeedSequence or a Generator).
    ScenarioError
        On values out of range (as :func:`telnet_delay`, rho > 0,
        ``n_packets >= 1``, ``warmup >= 0``), a negative seed, or if the
        trace (about ``(n_packets + warmup) (N + 1) / rho`` packets) would
        exceed the memory budget (BudgetError), before anything is drawn.
    """
    from .core import _BYTES_PER_CONVERSATION, _BYTES_PER_PACKET, fair_queue

    owner = "fq.simulate_telnet_fq"
    N = _check_N(owner, N)
    delta = _check_pos(owner, "delta", delta, ge=0)
    packet_time = _check_pos(owner, "packet_time", packet_time, gt=0)
    rho = float(_check_rho(owner, rho, 1.0, "simulate_telnet_fq"))
    if rho <= 0:
        raise ScenarioError(f"{owner}: rho must be > 0 for a Monte Carlo (no Telnet packets), "
                            f"got {rho!r}")
    n_packets = _check_count(owner, "n_packets", n_packets, 1)
    warmup = _check_count(owner, "warmup", warmup, 0)
    preemptive = _check_bool(owner, "preemptive", preemptive)
    _seed.check(owner, seed)
    P = 1.0  # sizes in bytes with capacity 8 bit/s: one packet per unit time
    lam = rho / ((N + 1) * P)
    # the trace: N FTPs with a backlog over the horizon (about 1/N of the line each) and
    # the Telnet packets; the horizon is the expected one with 20 % to spare
    horizon = 1.2 * (n_packets + warmup) / lam + (N * N + 12 * N) * P
    n_trace = N * (horizon / (N * P) + 10) + n_packets + warmup
    budget.check_memory(owner, n_trace * (_BYTES_PER_PACKET + 5 * 8) + N * (
        _BYTES_PER_CONVERSATION + 32), parameter=f"a trace of about {n_trace:.3g} packets "
        f"(n_packets={n_packets}, warmup={warmup}, N={N}, rho={rho:g})",
                        fix="use fewer n_packets or a larger rho")
    rng = _seed.generator(owner, seed)
    starts = [0.0]
    for a in range(1, N):  # FTP a joins when R = a P / N, with a FTPs active before it
        starts.append(starts[-1] + (P / N) * a)
    t0 = starts[-1] + 2 * N * P
    gaps = rng.exponential(1 / lam, n_packets + warmup)
    tel = t0 + np.cumsum(gaps)
    horizon = tel[-1] + 10 * N * P
    n_ftp = int(horizon / (N * P)) + 10  # each FTP gets at most 1/N of the line
    times = np.concatenate([np.repeat(starts, n_ftp), tel])
    conv = np.concatenate([np.repeat(np.arange(N), n_ftp), np.full(len(tel), N)])
    sizes = np.full(len(times), P)
    res = fair_queue(times, conv, sizes, capacity=8.0, delta=delta)
    start = res.fq_preemptive_start if preemptive else res.fq_start
    d = (start - res.times)[conv == N][warmup:]
    with np.errstate(all="ignore"):
        d = d * packet_time
    _finite(owner, d, "the delays in packet times times packet_time overflow; give "
                      "packet_time in a larger unit")
    return _batch_stats(d)


#: Slots simulate_telnet_fcfs may run (its Python loop does about 3e6 per second).
_FCFS_MAX_SLOTS = 1e9


def simulate_telnet_fcfs(N, W, rho, packet_time=1.0, *, n_packets=5000, warmup=200,
                         seed) -> TelnetMonteCarlo:
    """Monte Carlo of Figure 1's FCFS model with an explicit FIFO queue.

    The gateway holds a FIFO of packet labels, initially the N W FTP
    packets; the line sends one packet per packet time.  When an FTP packet
    finishes, the same FTP's next packet joins the tail at once (its ACK
    and the other links are infinitely fast); Telnet packets join the tail
    when they arrive (Poisson, ``lambda P = rho / (N + 1)``).

    Parameters
    ----------
    N, W : int
        FTPs and their window, >= 1.
    rho : float
        In (0, N + 1).
    packet_time : float
    n_packets, warmup : int
        Telnet packets measured (>= 1), and discarded first (>= 0).
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Required (keyword), as for :func:`qosmodels.simulate`.

    Returns
    -------
    TelnetMonteCarlo

    Raises
    ------
    ScenarioTypeError
        If an argument has the wrong type (``seed`` included).
    ScenarioError
        On values out of range, a negative seed, or (BudgetError) if the
        FIFO of ``N W`` packets and the Telnet lists would exceed the memory
        budget or the run more than 1e9 packet slots (about
        ``N W + (n_packets + warmup) (N + 1) / rho``), before anything is drawn.
    """
    owner = "fq.simulate_telnet_fcfs"
    N = _check_N(owner, N)
    W = _check_N(owner, W, "W", "FTP window")
    packet_time = _check_pos(owner, "packet_time", packet_time, gt=0)
    rho = float(_check_rho(owner, rho, N + 1.0, "simulate_telnet_fcfs"))
    if rho <= 0:
        raise ScenarioError(f"{owner}: rho must be > 0 for a Monte Carlo (no Telnet packets), "
                            f"got {rho!r}")
    n_packets = _check_count(owner, "n_packets", n_packets, 1)
    warmup = _check_count(owner, "warmup", warmup, 0)
    _seed.check(owner, seed)
    lam = rho / (N + 1)  # per packet time
    total = n_packets + warmup
    # the FIFO (a pointer per packet, N W FTP packets plus the waiting Telnets), the arrival
    # and start lists (a pointer and a float object each) and the 3 final arrays
    budget.check_memory(owner, 8.0 * (N * W + total) + total * (2 * 32 + 3 * 8),
                        parameter=f"N W = {N * W} FTP packets queued and {total} Telnet packets",
                        fix="use a smaller N, W or n_packets")
    budget.check_work(owner, N * W + 1.2 * total / lam, _FCFS_MAX_SLOTS, what="packet slots",
                      parameter=f"N W = {N * W} plus (n_packets + warmup) (N + 1) / rho",
                      fix="use fewer n_packets, a smaller window or a larger rho")
    rng = _seed.generator(owner, seed)
    arrivals = np.cumsum(rng.exponential(1 / lam, total)).tolist()
    queue: deque = deque(-1 for _ in range(N * W))  # -1: an FTP packet; k >= 0: Telnet k
    start = [0.0] * total
    i = 0
    slot = 0
    served = 0
    while served < total:
        t_end = (slot + 1) * 1.0
        head = queue.popleft()
        if head >= 0:
            start[head] = slot * 1.0
            served += 1
        while i < total and arrivals[i] < t_end:  # Telnets arriving during this slot
            queue.append(i)
            i += 1
        if head < 0:
            queue.append(-1)  # the FTP's next packet, released by the ACK at t_end
        slot += 1
    d = (np.array(start) - np.array(arrivals))[warmup:]
    with np.errstate(all="ignore"):
        d = d * packet_time
    _finite(owner, d, "the delays in packet times times packet_time overflow; give "
                      "packet_time in a larger unit")
    return _batch_stats(d)
