"""Exact solver for weighted alpha-fair allocation: a primal-dual interior-point method.

Solves ``max sum_i U_i(x_i)  s.t.  R x <= c`` (see :mod:`.problem` for U) in
the variables rates x > 0, link prices p > 0 and slacks s = c - R x > 0,
following the central path of

.. math:: U'(x) = R^T p, \\qquad R x + s = c, \\qquad p \\circ s = \\mu.

Eliminating the rate and slack steps leaves one L x L symmetric positive
definite system per iteration,

.. math:: (R D R^T + S P^{-1}) \\Delta p = \\text{rhs}, \\qquad D = 1 / (-U''(x)),

solved twice (Mehrotra's predictor, which picks the centring target, then
the corrector, whose right-hand side carries Mehrotra's second-order term
``-dp_aff * ds_aff``; when that direction does not raise the barrier below,
the step falls back to the plain Newton direction for the target, one more
solve).  The start is feasible, so ``R x + s = c`` holds exactly
throughout; the rate step is an ascent direction of the primal barrier
function and is backtracked on it (Armijo); a stalled line search re-centres
the prices, and a failed run is retried once from half the max-min rates.
Measured on random networks of 20 to 1 500 flows (unit and spread weights;
with the plain steps only, before the logarithmic form below):
no failure in 300 at alpha = 1, 2 or 10, 1 in 600 at alpha = 5, but more
than half raise SolverError at alpha = 30; and from alpha = 5 on, a small
certified gap no longer pins the rates of high-rate flows (the gap is
dominated by the flows with the smallest normalised rates).  :func:`allocate`
therefore uses it up to alpha = 2 only and :mod:`.logdual` above.  The
method stops when the
*certified* relative duality gap (dual value at the prices minus utility at
the rates, over ``p . c``) is below ``tol``; once it is, up to ``_EXTRA``
more iterations seek a stationarity residual below ``_STATIONARITY``, and
the best point with a gap below ``tol`` is returned (rounding can make that
residual unreachable when alpha is large and rates span decades).

The stationarity equation is linearised in logarithmic form first.  For the
alpha-fair utility ``U'(x) = q`` is a monomial equation, ``alpha log(x / w) =
-log q``, linear in ``log x`` and ``log q`` (the change of variables of
geometric programming, Boyd et al. 2007); Newton's iterates are invariant
under linear transformations of the equations but not under nonlinear ones
(Deuflhard 2004, Ch. 1), and the step of the equivalent equation
``log U'(x) = log q`` is ``alpha dx / x + dq / q = log(U'(x) / q)``: the same
reduced system with ``D = x / (alpha q)`` and a right-hand side in
``log(U'(x) / q)`` (:func:`_directions`).  Near the solution (``U'(x) = q``)
the two steps agree; far from it the plain step raises a rate by at most a
factor ``1 + 1 / alpha`` per iteration, whatever its price, while the
logarithmic one follows ``log(U'(x) / q)``, so flows whose optimal rate is
decades above their start (on links with much spare capacity) no longer
take one iteration per factor 1.5 at alpha 2.  Where the logarithmic step is
cut below :data:`_LOG_MIN_STEP` by the fraction to the boundary or the line
search, or is not an ascent direction of the barrier (a flow driven against a
link whose price must still rise by decades), the iteration takes the plain
step instead (one more factorisation or pair of solves); a run that fails
with it is repeated with plain steps only, the method as it was before.  On
300 random networks of 20 to 1 500 flows (alpha 0.5, 1, 2): no failure,
10.0 / 10.3 / 11.7 iterations on average (at most 15 / 16 / 20) against
13.7 / 15.8 / 24.6 (at most 20 / 26 / 49) with plain steps only; largest
relative distance of the rates from the log-price solver's (:mod:`.logdual`,
tol 1e-12; every third network) 5.2e-6 / 3.7e-7 / 5.7e-7 against 2.3e-5 /
1.7e-8 / 9.4e-9, medians 3.7e-10 / 2.0e-10 / 2.8e-11 against 1.4e-9 /
3.8e-10 / 9.3e-11 (the certified gap pins the objective, not every rate).

Linear algebra.  Up to :data:`DENSE_LIMIT` links the system is formed
densely and factorised by Cholesky.  Above, it is solved by conjugate
gradients preconditioned by its diagonal: on random (expander-like) topologies
a sparse factorisation fills in almost completely (a 10 000-link random
network needs a dense factor), while the diagonally scaled system is well
enough conditioned for a few tens of iterations per solve.  ``R D R^T`` is
assembled from a sparsity pattern computed once (one sparse product per
iteration; one-hop flows only touch the diagonal), or applied matrix-free
when routes are long.  The solves are inexact: an error ``rho`` in the
reduced system leaves primal feasibility and the dual equation exact and
perturbs only complementarity, by ``p * rho``, so conjugate gradients stop as
soon as ``|p_l rho_l| <= eta mu_target`` for every link, the condition of
inexact interior-point methods.  The certified gap does not depend on the
linear solver.  If conjugate gradients miss their tolerance within their
iteration cap, the step is taken with the inexact direction, unless a sparse
factorisation is cheap (narrow envelope after reverse Cuthill-McKee
ordering), which then replaces them for the rest of the solve.

References
----------
S. Wright, *Primal-Dual Interior-Point Methods*, SIAM 1997 (Mehrotra's
heuristic, Ch. 10).  J. Nocedal and S. Wright, *Numerical Optimization*, 2nd
ed., Section 19.4 (line searches on the barrier for primal-dual steps).
P. Deuflhard, *Newton Methods for Nonlinear Problems: Affine Invariance and
Adaptive Algorithms*, Springer 2004.  S. Boyd, S.-J. Kim,
L. Vandenberghe, A. Hassibi, "A tutorial on geometric programming", Optim.
Eng. 8, 2007 (monomials are linear in logarithmic variables).
S. Bellavia, "Inexact interior-point method", J. Optim. Theory Appl. 96,
1998; J. Gondzio, "Convergence analysis of an inexact feasible interior point
method for convex quadratic programming", SIAM J. Optim. 23(3), 2013
(accuracy of the Newton systems relative to mu).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import reverse_cuthill_mckee

from ..errors import SolverError
from .problem import Problem, marginal, rate_at_price, relative_gap, utility_diff
from .problem import dot as _dot

#: Up to this many constraint rows the Newton system is factorised densely
#: (Cholesky); above, it is solved by preconditioned conjugate gradients, which
#: were faster on random networks from about 50-100 links on.
DENSE_LIMIT = 50
#: Iteration cap of one conjugate-gradient solve; after a solve that missed its
#: tolerance the next ones get ``CG_MAX_ITER // 5`` until one succeeds.
CG_MAX_ITER = 1000
#: Relative accuracy of the complementarity equations in an inexact Newton step.
_ETA = 0.1
_FORM_RATIO = 8.0  # form R D R^T when sum(hops^2) <= this * nnz(R)
_DIRECT_FLOPS = 3e8  # a sparse factorisation this cheap replaces failing CG
_TINY = 5e4  # links x flows up to which the dense path keeps R dense

_TAU = 0.995  # fraction to the boundary
_STATIONARITY = 1e-8  # relative |R^T p - U'(x)| / U'(x) sought once the gap is met
_EXTRA = 8  # iterations spent seeking stationarity after the gap is met
_PCLIP = 1e6  # prices are kept within this factor of their central value
_MAX_STALLS = 10  # line-search stalls (each followed by re-centring) before giving up
#: The certified gap is computed only once its lower bound ``p . s / p . c`` is below this
#: multiple of tol.  Measured at alpha 2 on random_network(10**6, 10**5): the bound is within
#: 0.5-25 % of the gap until the gap is near 1e-6, and skipping the gap on the 21 of 29
#: iterations where the bound exceeds 1e-9 leaves every iterate and decision as before.
_GAP_SKIP = 10.0
#: Newton's step on the logarithm of the stationarity equation first (see the module
#: docstring).  Measured on random_network(n, n // 10), alpha 0.5 / 1 / 2, at 10**6 flows: 16 /
#: 13 / 14 iterations instead of 15 / 18 / 29; at 10**5: 14 / 12 / 12 instead of 15 / 17 / 29
#: (benchmarks/RESULTS.md, issue 37).
_LOG_FORM = True
#: A step on the logarithmic form cut below this (by the fraction to the boundary or the
#: line search) is replaced by the plain Newton step of the same iteration.
_LOG_MIN_STEP = 0.1
#: Mehrotra's second-order term in the corrector's right-hand side.  Measured on
#: random_network(n, n // 10), alpha 0.5 / 1 / 2: 15 / 18 / 29 iterations instead of 20 / 28
#: / 42 at 10**6 flows, 15 / 17 / 29 instead of 20 / 24 / 35 at 10**5, and rates closer to
#: the certified log-price solver's (tol 1e-13) in 7 of 9 cases at 100 to 10**4 flows
#: (benchmarks/RESULTS.md, issue 37).
_CORRECTOR = True


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
    try:
        return _solve_from(prob, RT, x0, alpha, tol, max_iter, _CORRECTOR, _LOG_FORM)
    except SolverError as first:
        # Then the method as it was before the logarithmic form: plain Newton steps, with
        # the second-order term, then without it.  With the term the line search stalls on
        # about 1 network in 150 at alpha = 2 (measured); the method without it gets
        # through them.
        retries = [(_CORRECTOR, False)] if _LOG_FORM else []
        if _CORRECTOR:
            retries.append((False, False))
        for corrector, log_form in retries:
            try:
                return _solve_from(prob, RT, x0, alpha, tol, max_iter, corrector, log_form)
            except SolverError:
                pass
        # Rarely the iterates jam at the boundary; a second start, half the
        # max-min rates (feasible, and balanced differently), gets through.
        from .maxmin import progressive_filling

        x1 = 0.5 * progressive_filling(prob.R, prob.c, prob.w)[0]
        try:
            return _solve_from(prob, RT, x1, alpha, tol, max_iter, False, False)
        except SolverError:
            raise first from None


def _solve_from(prob, RT, x0, alpha, tol, max_iter, corrector, log_form=False) -> IPMResult:
    # Work in units where a typical starting rate is 1, so that x^-alpha stays
    # representable for large alpha; the relative gap is invariant under this.
    k = float(np.median(x0))
    sub = dataclasses.replace(prob, c=prob.c / k)
    x, p, gap, it = _path_following(sub, RT, x0 / k, alpha, tol, max_iter, corrector,
                                    log_form)
    return IPMResult(x=prob.feasible(x * k), p=p * k**-alpha, gap=gap, iterations=it,
                     status="optimal")


def _path_following(prob, RT, x, alpha, tol, max_iter, corrector=False, log_form=False):
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

    system = _NewtonSystem(R, RT)
    best_gap = np.inf
    stalls = 0
    done = None  # (x, p, gap, stationarity, iteration) of the best point with gap <= tol
    extra = 0
    for it in range(1, max_iter + 1):
        g = marginal(x, w, alpha)
        q = RT @ p
        r_d = q - g
        mu = _dot(p, s) / m

        # The certified gap is (p . s + B) / (p . c) with B >= 0 (x is feasible; B is
        # the Lagrangian's shortfall at the rates, sum_i max_y [U_i(y) - q_i y] - [U_i(x_i)
        # - q_i x_i]), so p . s / p . c bounds it from below.  While that bound is well
        # above tol the gap cannot be met, and computing it (a sparse product with R and
        # R^T, a median and transcendental functions over the flows) is skipped.
        if m * mu > _GAP_SKIP * tol * _dot(p, c):
            if done is not None:
                return _finish(prob, RT, done, alpha)
            gap = np.inf
        else:
            gap = relative_gap(x, p, prob, alpha)
            best_gap = min(best_gap, gap)
        # The gap is second order in the error of rates and prices, so once it is
        # met a few more iterations seek first-order stationarity too (prices
        # accurate to ~1e-8).  Rounding can make that unreachable (large alpha,
        # rates spread over decades): then the best point with gap <= tol is kept.
        if gap <= tol:
            stat = float(np.max(np.abs(r_d) / g))
            if done is None or stat <= done[3]:
                done = (x, p, gap, stat, it - 1)
            if stat <= _STATIONARITY or extra >= _EXTRA:
                return _finish(prob, RT, done, alpha)
            extra += 1
        elif done is not None:
            return _finish(prob, RT, done, alpha)

        # Newton's step on log U'(x) = log q first (the rates' steps then scale with
        # log(U'(x) / q) rather than with 1 - q / U'(x)), the plain one if that step is
        # cut below _LOG_MIN_STEP or does not raise the barrier.
        for form in ("log", "std") if log_form else ("std",):
            if form == "log":
                # alpha dx / x + dq / q = log(U'(x) / q), i.e. dx = a - D dq
                d = x / (alpha * q)
                a = (x / alpha) * np.log(g / q)
                base = R @ a
            else:
                d = x / (alpha * g)  # 1 / (-U''(x)), since -U'' = alpha U' / x
                a = None
                base = -(R @ (d * r_d))
            system.update(d, s / p)
            # predictor (affine scaling), only to choose the centring target (Mehrotra)
            dp_a, dx_a, ds_a = _directions(system, RT, R, d, a, r_d, -p * s, p, base, _ETA * mu)
            a_aff = min(_max_step(p, dp_a), _max_step(s, ds_a), _max_step(x, dx_a), 1.0)
            mu_aff = _dot(p + a_aff * dp_a, s + a_aff * ds_a) / m
            sigma = float(np.clip((mu_aff / mu) ** 3, 1e-3, 0.5))
            target = sigma * mu

            rhs = target - p * s
            corrected = corrector
            dp, dx, ds = _directions(system, RT, R, d, a, r_d,
                                     rhs - dp_a * ds_a if corrected else rhs, p, base,
                                     _ETA * target, dp_a)
            t, xn, sn = _rate_step(x, s, dx, ds, g, RT, w, alpha, target, form == "log")
            if t is None and corrected:
                dp, dx, ds = _directions(system, RT, R, d, a, r_d, rhs, p, base, _ETA * target,
                                         dp_a)
                t, xn, sn = _rate_step(x, s, dx, ds, g, RT, w, alpha, target, form == "log")
            if t is not None and (form == "std" or t >= _LOG_MIN_STEP):
                break
        if t is None:
            # Stalled.  At the optimum this is rounding: the barrier cannot rise
            # measurably; accept the certified point.  Otherwise the prices have
            # drifted from the path: raise those below target / s and go on.
            if done is not None:
                return _finish(prob, RT, done, alpha)
            stalls += 1
            if stalls > _MAX_STALLS:
                raise SolverError("the interior-point line search failed to make progress",
                                  status="numerical")
            p = np.maximum(p, target / s)
            continue
        x, s = xn, sn  # exact in exact arithmetic; avoids cancellation in c - R x
        # price step: positive, and within a factor _PCLIP of the central value target / s
        tp = min(1.0, _TAU * _max_step(p, dp))
        central = target / s
        p = np.clip(p + tp * dp, central / _PCLIP, central * _PCLIP)
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(p)) and np.all(s > 0)):
            if done is not None:
                return _finish(prob, RT, done, alpha)
            raise SolverError("the interior-point method produced invalid iterates; for very "
                              "large alpha use fairness='maxmin'", status="numerical")

    if done is not None:
        return _finish(prob, RT, done, alpha)
    best_gap = min(best_gap, relative_gap(x, p, prob, alpha))
    raise SolverError(
        f"the interior-point method did not reach a relative duality gap of {tol:g} in "
        f"{max_iter} iterations (best {best_gap:.3g}); raise max_iter, loosen tol, or use "
        f"solver='cvxpy'", status="max_iterations",
    )


def _rate_step(x, s, dx, ds, g, RT, w, alpha, target, ascent=False):
    """The rate step: fraction to the boundary, then Armijo backtracking on the barrier
    ``phi = sum U + target sum log s``; ``(t, x + t dx, s + t ds)``, or ``(None, None,
    None)`` if no step down to 1e-14 raises it enough, or if ``ascent`` is set and ``dx``
    is not an ascent direction of ``phi`` (checked for the logarithmic step, which, unlike
    the plain one, is not one by construction)."""
    t = min(1.0, _TAU * min(_max_step(s, ds), _max_step(x, dx)))
    slope = _dot(g - RT @ (target / s), dx)
    if ascent and not slope > 0:
        return None, None, None
    while t >= 1e-14:
        xn, sn = x + t * dx, s + t * ds
        if _barrier_rise(xn, sn, x, s, w, alpha, target) >= 1e-4 * t * slope:
            return t, xn, sn
        t *= 0.5
    return None, None, None


def _finish(prob, RT, done, alpha):
    """``(x, p, gap, iterations)`` from the best certified point, polished."""
    x, p, gap, _, it = done
    return _polished(prob, RT, x, p, gap, alpha) + (it,)


def _polished(prob, RT, x, p, gap, alpha):
    """The rates that maximise the Lagrangian at the prices, scaled to feasibility, if their
    certified gap is no worse: they are exact in directions the objective barely sees (flows
    sharing a route split evenly)."""
    xq = prob.feasible(rate_at_price(RT @ p, prob.w, alpha))
    gap_q = relative_gap(xq, p, prob, alpha)
    return (xq, p, gap_q) if gap_q <= gap else (x, p, gap)


def _start_prices(x, s, w, alpha, R, RT):
    """Starting prices: per link, the smallest share ``U'_i(x_i) / hops_i`` of its flows.

    Route prices then never exceed marginal utilities, so the first rate steps
    raise rates instead of cutting them (with the mean share, flows with small
    marginal utility, when alpha is large, faced prices far above it).
    """
    hops = np.diff(RT.indptr).astype(np.float64)
    on = np.diff(R.indptr) > 0
    share = (marginal(x, w, alpha) / hops)[R.indices]
    p = 1.0 / s
    p[on] = np.minimum.reduceat(share, R.indptr[:-1][on])
    return np.where(on, np.maximum(p, 1e-12 * p[on].max()), p)


def _barrier_rise(xn, sn, x, s, w, alpha, mu) -> float:
    """``phi(xn) - phi(x)`` for ``phi = sum U + mu sum log s``, without cancellation."""
    if np.any(xn <= 0) or np.any(sn <= 0):
        return -np.inf
    return float(np.sum(utility_diff(xn, x, w, alpha)) + mu * np.sum(np.log(sn / s)))


def _directions(system, RT, R, d, a, r_d, r_c, p, base, tol, dp0=None):
    """Newton directions for a given complementarity residual ``r_c``.

    From ``dx = a - D R^T dp`` (the linearised stationarity equation), ``ds =
    -R dx`` and ``S dp + P ds = r_c``.  For the plain Newton step ``U'(x) +
    U''(x) dx = R^T (p + dp)``: ``D = 1 / (-U''(x))`` and ``a = -D r_d`` with
    ``r_d = R^T p - U'(x)`` (``a`` is None then, and ``dx = -D (r_d + R^T dp)``);
    for the logarithmic form ``log U'(x) + (U''(x) / U'(x)) dx = log q + dq / q``:
    ``D = x / (alpha q)`` and ``a = (x / alpha) log(U'(x) / q)``.  ``base`` is
    ``R a``.  A residual rho of the reduced system leaves the first two equations
    exact and the third off by ``p * rho``, so an iterative solve is asked for
    ``|p * rho| <= tol``.
    """
    dp = system.solve(r_c / p + base, tol / p, dp0)
    dx = -d * (r_d + RT @ dp) if a is None else a - d * (RT @ dp)
    ds = -(R @ dx)
    return dp, dx, ds


class _NewtonSystem:
    """Solver for ``(R diag(d) R^T + diag(e)) y = b``, the Newton system of each iteration.

    Up to :data:`DENSE_LIMIT` rows the matrix is formed densely and factorised
    by Cholesky.  Above, it is solved by conjugate gradients preconditioned by
    its diagonal, on the sparse matrix when it is sparse enough (routes short
    compared with the number of links), matrix-free as ``R (d * (R^T v)) + e v``
    otherwise.  Conjugate gradients stop as soon as every row's residual is
    within its tolerance (see :meth:`solve`).  If they fail to get there within
    their iteration cap, the system switches for the rest of the solve to a
    sparse LU factorisation when that is cheap (see :func:`_direct_affordable`;
    never for a matrix-free system, whose matrix may be dense), and otherwise
    returns the inexact solution.

    Parameters
    ----------
    R : scipy.sparse.csr_matrix, shape (M, F)
        Routing matrix.
    RT : scipy.sparse.csr_matrix, shape (F, M)
        Its transpose.
    """

    def __init__(self, R: sp.csr_matrix, RT: sp.csr_matrix):
        self.R, self.RT = R, RT
        m = R.shape[0]
        self.direct = m <= DENSE_LIMIT
        self.dense = self.direct
        self.R2 = R.multiply(R).tocsr()
        hops = np.diff(RT.indptr).astype(np.float64)
        # Form R D R^T only when its entries (at most sum_i hops_i^2) are few.
        self.formed = not self.direct and float(hops @ hops) <= _FORM_RATIO * max(R.nnz, 1)
        self.pattern = _GramPattern(R, RT) if self.formed else None
        # Tiny problems: a dense R makes forming R D R^T cheaper than sparse products.
        self.Rd = R.toarray() if self.dense and m * R.shape[1] <= _TINY else None
        self.cg_iterations = 0
        self._affordable = None
        self._cap = CG_MAX_ITER
        self._solve = None
        self._M = None

    def update(self, d: np.ndarray, e: np.ndarray) -> None:
        """Set the matrix to ``R diag(d) R^T + diag(e)``.

        Raises
        ------
        SolverError
            If a direct factorisation finds the matrix singular or not
            positive definite (status ``"numerical"``).
        """
        self.d, self.e = d, e
        if self.direct:
            self._factorise()
            return
        self.diag = self.R2 @ d + e
        self._M = self.pattern.matrix(d, self.diag) if self.formed else None

    def _matrix(self) -> sp.csr_matrix:
        if self._M is None:
            if self.pattern is not None:
                self._M = self.pattern.matrix(self.d, self.R2 @ self.d + self.e)
            else:
                self._M = (self.R @ sp.diags(self.d) @ self.RT + sp.diags(self.e)).tocsr()
        return self._M

    def _factorise(self) -> None:
        if self.Rd is not None:
            M = (self.Rd * self.d) @ self.Rd.T
            M.flat[:: M.shape[0] + 1] += self.e
        else:
            M = self._matrix()
        self._M = None
        if self.dense:
            try:
                factor = la.cho_factor(M if self.Rd is not None else M.toarray(), lower=True,
                                       check_finite=False)
            except la.LinAlgError:
                raise SolverError("the Newton system is not positive definite",
                                  status="numerical") from None
            self._solve = lambda b: la.cho_solve(factor, b, check_finite=False)
            return
        try:
            self._solve = spla.splu(M.tocsc(), permc_spec="MMD_AT_PLUS_A").solve
        except RuntimeError as exc:
            raise SolverError(f"the Newton system is singular ({exc})",
                              status="numerical") from exc

    def _matvec(self, v: np.ndarray) -> np.ndarray:
        if self._M is not None:
            return self._M @ v
        return self.R @ (self.d * (self.RT @ v)) + self.e * v

    def solve(self, b: np.ndarray, atol: np.ndarray, x0: np.ndarray | None = None) -> np.ndarray:
        """Solve the system, to within ``|residual_l| <= atol_l`` for an iterative solve.

        Parameters
        ----------
        b : ndarray, shape (M,)
            Right-hand side.
        atol : ndarray, shape (M,)
            Per-row residual tolerance of the conjugate gradients (ignored
            by the direct solvers, which are exact up to rounding).
        x0 : ndarray, shape (M,), optional
            Starting point of the conjugate gradients.

        Returns
        -------
        ndarray, shape (M,)
        """
        if self.direct:
            return self._solve(b)
        y, converged = self._pcg(b, atol, x0)
        self._cap = CG_MAX_ITER if converged else max(CG_MAX_ITER // 5, 1)
        if converged:
            return y
        if self._affordable is None:
            self._affordable = self.formed and _direct_affordable(self._M)
        if self._affordable:  # factorise from now on
            self.direct = True
            self._factorise()
            return self._solve(b)
        if not np.all(np.isfinite(y)):
            raise SolverError("conjugate gradients broke down on the Newton system",
                              status="numerical")
        return y  # inexact; the step and the certified gap stay valid

    def _pcg(self, b, atol, x0):
        """Jacobi-preconditioned conjugate gradients from ``x0`` (or 0).

        Returns the last iterate (the best in the energy norm) and whether
        every ``|residual_l| <= atol_l``; at most :data:`CG_MAX_ITER` iterations
        (a fifth of that after a failed solve).
        """
        inv = 1.0 / self.diag
        if x0 is None:
            y = np.zeros_like(b)
            r = b.copy()
        else:
            y = x0.copy()
            r = b - self._matvec(y)
        z = inv * r
        q = z.copy()
        rz = _dot(r, z)
        for _ in range(self._cap):
            if np.all(np.abs(r) <= atol):
                return y, True
            Mq = self._matvec(q)
            qMq = _dot(q, Mq)
            if not (rz > 0 and qMq > 0 and np.isfinite(rz / qMq)):
                return y, False  # breakdown (rounding): keep what we have
            self.cg_iterations += 1
            step = rz / qMq
            y += step * q
            r -= step * Mq
            z = inv * r
            rz, rz_old = _dot(r, z), rz
            q *= rz / rz_old
            q += z
        return y, bool(np.all(np.abs(r) <= atol))


def _direct_affordable(M: sp.csr_matrix) -> bool:
    """Whether a sparse factorisation of ``M`` is cheap: its envelope after a
    reverse Cuthill-McKee ordering (which bounds the fill) costs at most
    :data:`_DIRECT_FLOPS` to factorise."""
    perm = reverse_cuthill_mckee(M, symmetric_mode=True)
    P = M[perm][:, perm].tocsr()
    rows = np.repeat(np.arange(P.shape[0]), np.diff(P.indptr))
    first = np.full(P.shape[0], P.shape[0])
    np.minimum.at(first, rows, P.indices)
    width = np.maximum(np.arange(P.shape[0]) - first, 0).astype(np.float64)
    return float(width @ width) <= _DIRECT_FLOPS


class _GramPattern:
    """The sparsity pattern of ``R diag(d) R^T``, to form it for new ``d`` in one pass.

    Every ordered pair (j, k), j != k, of links on one flow's route contributes
    ``r_ji r_ki d_i`` to entry (j, k).  The pattern (sorted columns per row, every
    diagonal entry present) is found once by the symbolic phase of Gustavson's sparse
    product (:func:`._gram.gram_pattern`, compiled by Numba), with each entry's terms
    as a sparse entries x flows matrix, so that :meth:`matrix` is one product; each entry
    adds its flows' terms in increasing flow order.  The diagonal, ``(R * R) d + e``, is
    computed separately.

    Parameters
    ----------
    R : scipy.sparse.csr_matrix, shape (M, F)
        Routing matrix (canonical CSR).
    RT : scipy.sparse.csr_matrix, shape (F, M)
        Its transpose (canonical CSR).
    """

    def __init__(self, R: sp.csr_matrix, RT: sp.csr_matrix):
        from ._gram import gram_pattern

        if not R.has_sorted_indices:  # each entry adds its flows in increasing order
            R = R.sorted_indices()
        m = R.shape[0]
        hops = np.diff(RT.indptr).astype(np.int64)
        self.indptr, self.indices, self.diag_pos, g_ptr, g_flow, g_coef = gram_pattern(
            R.indptr, R.indices, R.data, RT.indptr, RT.indices, RT.data, m,
            int(hops @ (hops - 1)))
        self.m = m
        # entries x flows: row e holds r_ji r_ki for each flow i with a pair (j, k) at entry e,
        # in increasing flow order
        self.gather = sp.csr_matrix((g_coef, g_flow, g_ptr), shape=(self.indices.size, hops.size))

    def matrix(self, d: np.ndarray, diag: np.ndarray) -> sp.csr_matrix:
        """``R diag(d) R^T`` off the diagonal, ``diag`` on it, as CSR."""
        data = self.gather @ d
        data[self.diag_pos] = diag
        return sp.csr_matrix((data, self.indices, self.indptr), shape=(self.m, self.m))


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
