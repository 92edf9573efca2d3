"""Reference solutions through CVXPY with the Clarabel conic solver.

The same scaled problems as the exact solvers (:mod:`.problem`), written as
disciplined convex programs.  CVXPY is imported here only, when asked for.
"""

from __future__ import annotations

import numpy as np

from ..errors import MissingExtra, SolverError
from .problem import Problem


def _cvxpy():
    try:
        import cvxpy as cp
    except ImportError as exc:  # pragma: no cover - cvxpy is a dependency
        raise MissingExtra("solver='cvxpy' needs CVXPY: pip install cvxpy clarabel") from exc
    return cp


def solve_alpha_fair_cvxpy(prob: Problem, alpha: float, *,
                           solver_options: dict | None = None) -> tuple[np.ndarray, np.ndarray, str]:
    """Weighted alpha-fair allocation by CVXPY + Clarabel.

    Returns
    -------
    x, p : ndarray
        Scaled rates and prices (all rows of the problem).
    status : str
        CVXPY's status.
    """
    cp = _cvxpy()
    x = cp.Variable(prob.n_flows, pos=True)
    w = prob.w
    try:
        if alpha == 1.0:
            objective = w @ cp.log(x)
        elif alpha < 1.0:
            objective = (w**alpha / (1.0 - alpha)) @ cp.power(x, 1.0 - alpha)
        else:
            objective = -(w**alpha / (alpha - 1.0)) @ cp.power(x, 1.0 - alpha)
    except ArithmeticError as exc:  # CVXPY's rational approximation of x**(1 - alpha)
        # divides by zero for a large alpha (tests/fuzz found it at alpha = 2048)
        raise SolverError(f"CVXPY could not build x**(1 - alpha) ({type(exc).__name__}: "
                          f"{exc})", status="canonicalization_error") from exc
    cons = [prob.R @ x <= prob.c]
    return _solve(cp, cp.Maximize(objective), cons, x, solver_options)


def solve_max_throughput_cvxpy(prob: Problem, *,
                               solver_options: dict | None = None):
    """Maximum weighted throughput ``max w.x s.t. R x <= c, x >= 0`` by CVXPY + Clarabel."""
    cp = _cvxpy()
    x = cp.Variable(prob.n_flows, nonneg=True)
    cons = [prob.R @ x <= prob.c]
    return _solve(cp, cp.Maximize(prob.w @ x), cons, x, solver_options)


def _solve(cp, objective, cons, x, solver_options):
    problem = cp.Problem(objective, cons)
    try:
        problem.solve(solver=cp.CLARABEL, **(solver_options or {}))
    except cp.error.SolverError as exc:
        raise SolverError(f"CVXPY/Clarabel failed: {exc}", status="solver_error") from exc
    except ArithmeticError as exc:  # in the canonicalisation, as above
        raise SolverError(f"CVXPY could not build the cone problem ({type(exc).__name__}: "
                          f"{exc})", status="canonicalization_error") from exc
    if problem.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
        raise SolverError(f"CVXPY/Clarabel returned status {problem.status!r}",
                          status=str(problem.status))
    p = np.maximum(np.asarray(cons[0].dual_value, dtype=np.float64), 0.0)
    return np.asarray(x.value, dtype=np.float64), p, str(problem.status)
