"""Exact solver for weighted alpha-fair allocation: a primal-dual interior-point method.

Solves ``max sum_i U_i(x_i)  s.t.  R x <= c`` (see :mod:`.problem` for U) in
the variables rates x > 0, link prices p > 0 and slacks s = c - R x > 0,
following the central path of

.. math:: U'(x) = R^T p, \\qquad R x + s = c, \\qquad p \\circ s = \\mu.

Eliminating the rate and slack steps leaves one L x L symmetric positive
definite system per iteration,

.. math:: (R D R^T + S P^{-1}) \\Delta p = \\text{rhs}, \\qquad D = 1 / (-U''(x)),

factorised once and used for Mehrotra's predictor (which picks the centring
target) and the step.  The start is feasible, so ``R x + s = c`` holds
exactly throughout; the rate step is an ascent direction of the primal
barrier function and is backtracked on it (Armijo), which makes the method
globally convergent for every alpha > 0.  Dense Cholesky serves up to a few
thousand links, a sparse LU beyond.  The method stops when the *certified*
relative duality gap (dual value at the prices minus utility at the rates,
over ``p . c``) is below ``tol``.

References
----------
S. Wright, *Primal-Dual Interior-Point Methods*, SIAM 1997 (Mehrotra's
heuristic, Ch. 10).  J. Nocedal and S. Wright, *Numerical Optimization*, 2nd
ed., Section 19.4 (line searches on the barrier for primal-dual steps).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..errors import SolverError
from .problem import Problem, marginal, rate_at_price, relative_gap, utility_diff

#: Above this many constraint rows the Newton system is factorised sparsely.
DENSE_LIMIT = 3000

_TAU = 0.995  # fraction to the boundary


@dataclass
class IPMResult:
    x: np.ndarray  # scaled rates, feasible
    p: np.ndarray  # scaled prices, all rows
    gap: float
    iterations: int
    status: str


def solve_alpha_fair(prob: Problem, alpha: float, *, tol: float = 1e-10,
                     max_iter: int = 200) -> IPMResult:
    """Solve the scaled weighted alpha-fair problem.

    Parameters
    ----------
    prob : Problem
        The scaled problem.
    alpha : float
        Fairness parameter, > 0.
    tol : float
        Target certified relative duality gap.
    max_iter : int
        Iteration limit; reaching it raises :class:`SolverError`.

    Raises
    ------
    SolverError
        If the method does not reach ``tol`` (status ``"max_iterations"``) or
        meets a singular system or a stalled line search (status ``"numerical"``).
    """
    RT = prob.R.T.tocsr()
    # Start: rates at half the equal split of their tightest link (feasible).
    n_on = np.asarray(prob.R.sum(axis=1)).ravel()
    share = np.where(n_on > 0, prob.c / np.maximum(n_on, 1.0), np.inf)
    x0 = 0.5 * _min_over_route(RT, share)
    # Work in units where a typical starting rate is 1, so that x^-alpha stays
    # representable for large alpha; the relative gap is invariant under this.
    k = float(np.median(x0))
    sub = dataclasses.replace(prob, c=prob.c / k)
    x, p, gap, it = _path_following(sub, RT, x0 / k, alpha, tol, max_iter)
    return IPMResult(x=prob.feasible(x * k), p=p * k**-alpha, gap=gap, iterations=it,
                     status="optimal")


def _path_following(prob, RT, x, alpha, tol, max_iter):
    """Feasible primal-dual path following with a barrier line search.

    Each iteration takes the Newton direction of the primal-dual system, an
    ascent direction of ``phi(x) = sum U(x) + mu_target sum log(c - R x)``;
    the rate step is backtracked until phi rises enough, the price step is
    cut to keep prices positive and kept within a factor of ``mu_target / s``.
    """
    R, c, w = prob.R, prob.c, prob.w
    m = R.shape[0]
    s = c - R @ x
    p = _start_prices(x, s, w, alpha, R, RT)

    best_gap = np.inf
    for it in range(1, max_iter + 1):
        g = marginal(x, w, alpha)
        d = x / (alpha * g)  # 1 / (-U''(x)), since -U'' = alpha U' / x
        r_d = RT @ p - g
        mu = float(p @ s) / m

        gap = relative_gap(x, p, prob, alpha)
        best_gap = min(best_gap, gap)
        if gap <= tol:
            # Polish: the rates that maximise the Lagrangian at these prices,
            # scaled to feasibility, are exact in directions the objective
            # barely sees (flows sharing a route split evenly); keep them
            # when their certified gap is no worse.
            xq = prob.feasible(rate_at_price(RT @ p, w, alpha))
            gap_q = relative_gap(xq, p, prob, alpha)
            if gap_q <= gap:
                return xq, p, gap_q, it - 1
            return x, p, gap, it - 1

        solve = _factorise(R, RT, d, s / p)
        base = -(R @ (d * r_d))
        # predictor (affine scaling), only to choose the centring target (Mehrotra)
        dp_a, dx_a, ds_a = _directions(solve, RT, R, d, r_d, -p * s, p, base)
        a_aff = min(_max_step(p, dp_a), _max_step(s, ds_a), _max_step(x, dx_a), 1.0)
        mu_aff = float((p + a_aff * dp_a) @ (s + a_aff * ds_a)) / m
        sigma = float(np.clip((mu_aff / mu) ** 3, 1e-3, 0.5))
        target = sigma * mu

        dp, dx, ds = _directions(solve, RT, R, d, r_d, target - p * s, p, base)
        # rate step: fraction to the boundary, then Armijo backtracking on the barrier
        t = min(1.0, _TAU * min(_max_step(s, ds), _max_step(x, dx)))
        slope = float((g - RT @ (target / s)) @ dx)
        while True:
            xn, sn = x + t * dx, s + t * ds
            if _barrier_rise(xn, sn, x, s, w, alpha, target) >= 1e-4 * t * slope:
                break
            t *= 0.5
            if t < 1e-14:
                raise SolverError("the interior-point line search failed to make progress",
                                  status="numerical")
        x, s = xn, sn  # exact in exact arithmetic; avoids cancellation in c - R x
        # price step: positive, and within a factor 1e6 of the central value target / s
        tp = min(1.0, _TAU * _max_step(p, dp))
        central = target / s
        p = np.clip(p + tp * dp, central * 1e-6, central * 1e6)
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(p)) and np.all(s > 0)):
            raise SolverError("the interior-point method produced invalid iterates; for very "
                              "large alpha use fairness='maxmin'", status="numerical")

    raise SolverError(
        f"the interior-point method did not reach a relative duality gap of {tol:g} in "
        f"{max_iter} iterations (best {best_gap:.3g}); raise max_iter, loosen tol, or use "
        f"solver='cvxpy'", status="max_iterations",
    )


def _start_prices(x, s, w, alpha, R, RT):
    """Starting prices: spread each flow's marginal utility over its hops, per link."""
    hops = np.asarray(RT.sum(axis=1)).ravel()
    n_on = np.asarray(R.sum(axis=1)).ravel()
    p = (R @ (marginal(x, w, alpha) / hops)) / np.maximum(n_on, 1.0)
    return np.where(n_on > 0, np.maximum(p, 1e-12 * p.max()), 1.0 / s)


def _barrier_rise(xn, sn, x, s, w, alpha, mu) -> float:
    """``phi(xn) - phi(x)`` for ``phi = sum U + mu sum log s``, without cancellation."""
    if np.any(xn <= 0) or np.any(sn <= 0):
        return -np.inf
    return float(np.sum(utility_diff(xn, x, w, alpha)) + mu * np.sum(np.log(sn / s)))


def _directions(solve, RT, R, d, r_d, r_c, p, base):
    """Newton directions for a given complementarity residual ``r_c``.

    From ``U'(x) + U''(x) dx = R^T (p + dp)``, ``ds = -R dx`` and
    ``S dp + P ds = r_c``.
    """
    dp = solve(r_c / p + base)
    dx = -d * (r_d + RT @ dp)
    ds = -(R @ dx)
    return dp, dx, ds


def _factorise(R, RT, d, diag):
    """A solver for ``(R diag(d) R^T + diag(diag)) y = b``."""
    m = R.shape[0]
    M = (R @ sp.diags(d) @ RT) + sp.diags(diag)
    if m <= DENSE_LIMIT:
        try:
            factor = la.cho_factor(M.toarray(), lower=True, check_finite=False)
        except la.LinAlgError:
            raise SolverError("the Newton system is not positive definite", status="numerical")
        return lambda b: la.cho_solve(factor, b, check_finite=False)
    try:
        lu = spla.splu(M.tocsc(), permc_spec="MMD_AT_PLUS_A")
    except RuntimeError as exc:
        raise SolverError(f"the Newton system is singular ({exc})", status="numerical") from exc
    return lu.solve


def _max_step(v: np.ndarray, dv: np.ndarray) -> float:
    """Largest step t (capped at 1/_TAU) such that v + t dv stays >= 0."""
    neg = dv < 0
    if not np.any(neg):
        return 1.0 / _TAU
    return float(min(1.0 / _TAU, np.min(-v[neg] / dv[neg])))


def _min_over_route(RT: sp.csr_matrix, per_link: np.ndarray) -> np.ndarray:
    """For each flow, the minimum of ``per_link`` over the links it crosses."""
    vals = per_link[RT.indices]
    return np.minimum.reduceat(vals, RT.indptr[:-1])
