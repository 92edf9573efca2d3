r"""Exact weighted alpha-fair allocation for large alpha: a dual interior-point method in log-prices.

At the optimum of ``max sum_i U_i(x_i) s.t. R x <= c`` (see :mod:`.problem`
for U) each rate is ``x_i = w_i q_i^(-1/alpha)`` with ``q_i`` the sum of the
link prices on flow i's route.  For large alpha the prices ``p_l`` scale as
``(w / x)^alpha`` and span hundreds of decades between links (and leave the
floating-point range: with rates in bit/s, ``(1e-7)^100``), while the
objective and the usual relative duality gap are dominated by the flows with
the smallest normalised rates.  A method that measures progress by the
objective, or keeps ``p_l s_l`` (price times slack) equal on all links, then
cannot resolve the high-rate flows.  This solver avoids both:

* The unknowns are the log-prices ``pi_l = log p_l`` of the links that carry
  flows; the rates are always the maximisers of the Lagrangian,
  ``x_i = w_i exp(-lambda_i / alpha)`` with ``lambda_i = log sum_{l on i}
  exp(pi_l)`` (a log-sum-exp), so stationarity holds exactly and nothing
  overflows for any alpha.
* Primal feasibility and complementarity are reached by an interior-point
  method on the dual with *relative* centring,

  .. math:: \frac{p_l}{Q_l}\,\frac{s_l}{c_l} = \tau, \qquad s_l = c_l - (R x)_l > 0,
            \qquad Q_l = \min_{i \ni l} q_i:

  a link's slack relative to its capacity times its price relative to the
  cheapest route through it.  Binding links end with relative slack ~ tau,
  the others with a price that no route notices.  (Equal ``p_l s_l`` on all
  links, the usual central path, would ask for slacks below rounding on the
  links with the largest prices.)  The centring equations
  ``F_l(pi) = pi_l - log Q_l(pi) + log s_l(pi) - log(tau c_l) = 0`` are solved
  by Newton's method with a backtracking line search on ``|F|^2`` that keeps
  every slack positive; tau then drops tenfold (faster after an easy
  centring).  The Jacobian,

  .. math:: J = I - E_{i^*(l),\cdot} + \mathrm{diag}\!\left(\frac{1}{\alpha s}\right)
            R\, X\, E, \qquad E_{il} = p_l / q_i \in [0, 1],

  with ``i*(l)`` the cheapest flow through link l, has bounded entries; it
  is solved by LU (dense up to :data:`DENSE_LIMIT` links, sparse above).
  Keeping ``Q_l`` fixed during a centring (a weighted barrier path) was
  tried first and is slower: a link that is the whole price of some route
  then moves its price by only ~log 10 per centring.

The start is the weighted max-min allocation (progressive filling), the
alpha -> inf limit, with the saturated links priced at ``(0.95
theta_l)^-alpha`` (``theta_l`` the link's max-min level) and the others at a
thousandth of their cheapest route: strictly feasible, and close to the
solution when alpha is large.

The iterate is certified after each centring: rates feasible (``s > 0``),
stationarity exact by construction, the largest relative complementarity
``max_l (p_l / Q_l)(s_l / c_l)`` and the relative duality gap ``(D(p) - U(x))
/ (p . c) = p . s / p . c`` (an identity when x maximises the Lagrangian)
both at most ``tol``.  Unlike the duality gap alone, the per-link
complementarity pins every flow, whatever its rate: x is exactly the
alpha-fair allocation for the capacities ``R x`` (all within a relative
``tol`` of c on the links that matter to some flow), and a link whose price
is dropped changes its flows' rates by about ``(p_l / q_i) / alpha`` at most.

Measured (200 random networks of 5 to 30 flows on 2 to 12 links, the test
set of tests/allocation/test_large_alpha.py, unit weights): no failure at
alpha = 4, 5, 30, 100, 1e3 ... 1e6, 18 to 22 Newton steps on average; at
alpha = 2.2, 2.5 and 3, one network in 200 needs 290 to 420 steps (a
degenerate link, saturated with a vanishing price, where both its relative
slack and price fall only as sqrt(tau)), hence the default ``max_iter =
1000``.  On random_network(10000, 1000) a solve takes
about 2 to 6 s at alpha = 5, 30, 100 (19 to 26 steps, each a sparse LU of
the 1 000-link system; an iterative solver would be faster but is not done),
against 0.1 s for :mod:`.ipm` at alpha <= 2.

References
----------
J. Mo and J. Walrand, "Fair end-to-end window-based congestion control",
IEEE/ACM Trans. Networking 8(5), 2000 (x = w q^(-1/alpha); max-min as the
limit).  S. Wright, *Primal-Dual Interior-Point Methods*, SIAM 1997 (weighted
central paths, Ch. 5).  J. Nocedal and S. Wright, *Numerical Optimization*,
2nd ed., Section 11.2 (Newton's method for nonlinear equations with a line
search on the sum of squares).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..errors import ScenarioError, ScenarioTypeError, SolverError
from ..network import Network
from .problem import Problem

#: Up to this many links the Newton system is solved densely (LU).
DENSE_LIMIT = 400
_TINY = 5e4  # links x flows up to which R is kept dense
_CENTRED = 1.5  # |F|_inf below which an iterate counts as centred (p s within e^1.5 of mu)
_SHRINK = 0.1  # tau decrease per centring
_ARMIJO = 1e-4


@dataclass(frozen=True)
class LogPriceAllocation:
    """Weighted alpha-fair rates with their prices as logarithms (network units).

    Attributes
    ----------
    rates : ndarray, shape (F,), bit/s
        Per-flow rates, ``w_i q_i^(-1/alpha)``.
    log_prices : ndarray, shape (L,)
        Natural logarithm of each link's price in the network's units (the
        prices of :class:`~qosmodels.allocation.Allocation`, which leave the
        floating-point range for large alpha: they scale as ``(w / x)^alpha``);
        -inf for a link that carries no flow.
    relative_price : ndarray, shape (L,)
        Each link's price over the cheapest route price through it (0 to 1).
    duality_gap : float
        Certified relative duality gap.
    complementarity : float
        Largest ``relative_price_l * (c_l - load_l) / c_l`` over the links (and
        the private links of rate-capped flows).
    iterations : int
        Newton steps.
    status : str
        ``"optimal"``.
    """

    rates: np.ndarray
    log_prices: np.ndarray
    relative_price: np.ndarray
    duality_gap: float
    complementarity: float
    iterations: int
    status: str


def alpha_fair_log(network: Network, alpha: float, *, tol: float = 1e-10,
                   max_iter: int = 1000) -> LogPriceAllocation:
    """Weighted alpha-fair allocation with log-prices, for any alpha > 0.

    What :func:`~qosmodels.allocate` runs for ``fairness="alpha"`` with alpha
    above :data:`~qosmodels.allocation.LOG_PRICE_ALPHA`; call it directly to
    get the prices as logarithms, which stay finite for every alpha.

    Parameters
    ----------
    network : Network
        The network; weights from ``Flow.weight``, caps from ``Flow.max_rate``.
    alpha : float
        Fairness parameter, finite and > 0.
    tol : float
        Bound on the certified relative duality gap and on every link's
        relative complementarity, in (0, 1).
    max_iter : int
        Limit on the Newton steps, >= 1.

    Returns
    -------
    LogPriceAllocation

    Raises
    ------
    ScenarioError
        For alpha, tol or max_iter out of range or a network without flows.
    SolverError
        If the certificate is not reached (see :func:`solve_alpha_fair_log`).

    Examples
    --------
    >>> from qosmodels.topologies import parking_lot
    >>> r = alpha_fair_log(parking_lot(4, capacity=1e6), alpha=100)
    >>> float(round(r.rates[0] / (1e6 / (1 + 4 ** (1 / 100))), 9))  # long: c / (1 + n^(1/alpha))
    1.0
    """
    if not isinstance(network, Network):
        raise ScenarioTypeError(f"network must be a qosmodels.Network, got {type(network).__name__}")
    if network.n_flows == 0:
        raise ScenarioError("network.flows is empty: there is nothing to allocate; add a Flow")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating, np.integer)):
        raise ScenarioTypeError(f"alpha must be a real number > 0, got {alpha!r}")
    if not (np.isfinite(alpha) and alpha > 0):
        raise ScenarioError(f"alpha must be finite and > 0, got {alpha!r}; for the alpha -> "
                            f"infinity limit use allocate(..., fairness='maxmin')")
    if not (isinstance(tol, (int, float)) and 0 < tol < 1):
        raise ScenarioError(f"tol must be a number in (0, 1), got {tol!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ScenarioError(f"max_iter must be an integer >= 1, got {max_iter!r}")
    prob = Problem.from_network(network)
    res = solve_alpha_fair_log(prob, float(alpha), tol=tol, max_iter=int(max_iter))
    n = network.n_links
    return LogPriceAllocation(
        rates=prob.unscale_rates(res.x), log_prices=prob.unscale_log_prices(res.log_p, alpha),
        relative_price=res.relative_price[:n], duality_gap=res.gap,
        complementarity=res.complementarity, iterations=res.iterations, status=res.status)


@dataclass
class LogDualResult:
    """Result of :func:`solve_alpha_fair_log` (scaled units of the :class:`Problem`).

    Attributes
    ----------
    x : ndarray, shape (F,)
        Scaled rates, ``w q^(-1/alpha)``, feasible.
    log_p : ndarray, shape (M,)
        Natural logarithms of the scaled prices of all rows (-inf for rows
        that carry no flow).
    relative_price : ndarray, shape (M,)
        ``p_l / min_{i on l} q_i`` (0 for rows without flows): how much of
        the price of the cheapest route through the link it makes up.
    gap : float
        Certified relative duality gap ``(D(p) - U(x)) / (p . c)``.
    complementarity : float
        ``max_l relative_price_l * (c_l - (R x)_l) / c_l``.
    iterations : int
        Newton steps taken.
    status : str
        ``"optimal"``.
    """

    x: np.ndarray
    log_p: np.ndarray
    relative_price: np.ndarray
    gap: float
    complementarity: float
    iterations: int
    status: str


def solve_alpha_fair_log(prob: Problem, alpha: float, *, tol: float = 1e-10,
                         max_iter: int = 1000) -> LogDualResult:
    """Solve the scaled weighted alpha-fair problem in log-prices.

    Parameters
    ----------
    prob : Problem
        The scaled problem.
    alpha : float
        Fairness parameter, > 0 (meant for large alpha; correct for any).
    tol : float
        Bound on both the certified relative duality gap and the relative
        complementarity of every link.
    max_iter : int
        Limit on the number of Newton steps.

    Returns
    -------
    LogDualResult

    Raises
    ------
    SolverError
        If the certificate is not reached within ``max_iter`` Newton steps
        (status ``"max_iterations"``) or the line search cannot keep the
        rates feasible and reduce the residual (status ``"numerical"``).
    """
    a = float(alpha)
    R_all = prob.R.tocsr()
    on = np.diff(R_all.indptr) > 0
    R = R_all[on].tocsr()
    c = prob.c[on]
    w = prob.w
    st = _State(R, c, w, a)

    pi = _start(st, prob, on)
    ev = st.evaluate(pi)
    if ev is None:  # cannot happen: the start is strictly feasible
        raise SolverError("the starting prices are infeasible", status="numerical")
    tau = float(np.max(ev.rho * ev.s / c))
    iters = 0
    while True:
        log_mu = np.log(tau) + np.log(c)
        F = _residual(pi, ev, log_mu)
        steps = 0
        while np.max(np.abs(F)) > _CENTRED:
            steps += 1
            if iters >= max_iter:
                raise SolverError(
                    f"the log-price interior-point method did not reach the certificate "
                    f"(tol {tol:g}) in {max_iter} Newton steps (centring at tau = {tau:.3g}); "
                    f"raise max_iter or loosen tol", status="max_iterations")
            iters += 1
            step = -st.newton_solve(ev, F)
            pi, ev, F = _line_search(st, pi, ev, F, step, log_mu)
        comp = float(np.max(ev.rho * ev.s / c))
        gap = _gap(pi, ev.s, c)
        if gap <= tol and comp <= tol:
            break
        # Next target: shrink faster after an easy centring, but not (much) below what the
        # certificate needs.
        shrink = _SHRINK ** (1 + (steps <= 1) + (steps == 0))
        need = tau * min(tol / max(comp, 1e-300), tol / max(gap, 1e-300)) * 0.5
        tau = max(tau * shrink, min(need, tau))

    log_p = np.full(prob.R.shape[0], -np.inf)
    log_p[on] = pi
    rel = np.zeros(prob.R.shape[0])
    rel[on] = ev.rho
    return LogDualResult(x=ev.x, log_p=log_p, relative_price=rel, gap=gap, complementarity=comp,
                         iterations=iters, status="optimal")


_START_SLACK = 0.05  # relative slack of the links saturated by max-min, at the start
_START_PRICE = 1e-3  # relative price of the other links, at the start


def _start(st: _State, prob: Problem, on) -> np.ndarray:
    """Starting log-prices from the weighted max-min allocation (the alpha -> inf limit).

    A link that max-min fair rates saturate gets the price ``(theta_l (1 - delta))^-alpha``
    with ``theta_l`` its max-min level (the largest ``x_i / w_i`` on it): every flow then
    gets at most ``(1 - delta)`` times its max-min rate, so the start is strictly feasible.
    The other links get a price that is ``_START_PRICE`` of their cheapest route.
    """
    from .maxmin import progressive_filling

    R, c, w, a = st.R, st.c, st.w, st.a
    x, _ = progressive_filling(prob.R, prob.c, prob.w)
    z = x / w
    zmax = np.maximum.reduceat(z[R.indices], R.indptr[:-1])
    sat = R @ x >= c * (1.0 - 1e-9)
    pi = np.where(sat, -a * np.log((1.0 - _START_SLACK) * zmax), -np.inf)
    # route prices from the saturated links alone (every route crosses one)
    v = pi[st.RT.indices]
    mx = np.maximum.reduceat(v, st.RT.indptr[:-1])
    lam = mx + np.log(np.add.reduceat(np.exp(v - np.repeat(mx, st.hops)), st.RT.indptr[:-1]))
    logQ = np.minimum.reduceat(lam[R.indices], R.indptr[:-1])
    return np.where(sat, pi, logQ + np.log(_START_PRICE))


@dataclass
class _Eval:
    lam: np.ndarray  # log q_i
    x: np.ndarray
    s: np.ndarray
    logQ: np.ndarray
    rho: np.ndarray  # p_l / Q_l
    e: np.ndarray  # p_l / q_i on the entries of R^T
    cheapest: np.ndarray  # per link, the flow with the smallest route price


class _State:
    """The routing structure and the evaluation of rates, slacks and the Jacobian at pi."""

    def __init__(self, R: sp.csr_matrix, c, w, a):
        self.R, self.c, self.w, self.a = R, c, w, a
        self.RT = R.T.tocsr()
        self.hops = np.diff(self.RT.indptr)
        self.m = R.shape[0]
        # Small problems: dense copies make forming R X E cheaper than sparse products.
        if self.m * R.shape[1] <= _TINY:
            self.Rd = R.toarray()
            self.flow_of = np.repeat(np.arange(R.shape[1]), self.hops)  # RT's entries
        else:
            self.Rd = None

    def evaluate(self, pi) -> _Eval | None:
        RT = self.RT
        v = pi[RT.indices]
        starts = RT.indptr[:-1]
        mx = np.maximum.reduceat(v, starts)
        mx_e = np.repeat(mx, self.hops)
        ex = np.exp(v - mx_e)
        lam = mx + np.log(np.add.reduceat(ex, starts))
        x = self.w * np.exp(-lam / self.a)
        s = self.c - self.R @ x
        if not np.all(s > 0):
            return None
        e = np.exp(v - np.repeat(lam, self.hops))  # p_l / q_i, flow-major
        lam_r = lam[self.R.indices]
        logQ = np.minimum.reduceat(lam_r, self.R.indptr[:-1])
        rho = np.exp(pi - logQ)
        # the cheapest flow through each link (the one that sets Q_l)
        hit = lam_r == np.repeat(logQ, np.diff(self.R.indptr))
        last = np.maximum.reduceat(np.where(hit, np.arange(lam_r.size), -1), self.R.indptr[:-1])
        return _Eval(lam=lam, x=x, s=s, logQ=logQ, rho=rho, e=e, cheapest=self.R.indices[last])

    def newton_solve(self, ev: _Eval, F):
        """Solve ``J d = F`` with ``J = I - E[cheapest] + diag(1/(a s)) R X E``."""
        xe = ev.e * np.repeat(ev.x, self.hops)
        scale = 1.0 / (self.a * ev.s)
        if self.Rd is not None:
            E = np.zeros(self.RT.shape)
            E[self.flow_of, self.RT.indices] = xe
            Er = np.zeros(self.RT.shape)
            Er[self.flow_of, self.RT.indices] = ev.e
            return _dense_solve((self.Rd @ E) * scale[:, None] - Er[ev.cheapest], F)
        E = sp.csr_matrix((xe, self.RT.indices, self.RT.indptr), shape=self.RT.shape)
        K = (self.R @ E).tocsr()  # R X E, links x links
        Er = sp.csr_matrix((ev.e, self.RT.indices, self.RT.indptr), shape=self.RT.shape)
        K = K - sp.diags(1.0 / scale) @ Er[ev.cheapest]  # J = I + diag(scale) K
        if self.m <= DENSE_LIMIT:
            return _dense_solve(K.toarray() * scale[:, None], F)
        J = (sp.diags(scale) @ K + sp.identity(self.m)).tocsc()
        try:
            return spla.splu(J).solve(F)
        except RuntimeError as exc:
            raise SolverError(f"the Newton system is singular ({exc})", status="numerical") from exc


def _residual(pi, ev, log_mu):
    """Centring residual ``log p - log Q + log s - log(tau c)``."""
    return pi - ev.logQ + np.log(ev.s) - log_mu


def _dense_solve(J, F):
    """Solve ``(I + J) d = F`` by LU with partial pivoting (J is overwritten)."""
    J.flat[:: J.shape[0] + 1] += 1.0
    try:
        return la.solve(J, F, check_finite=False, overwrite_a=True)
    except la.LinAlgError:
        raise SolverError("the Newton system is singular", status="numerical") from None


def _line_search(st: _State, pi, ev, F, step, log_mu):
    """Backtrack on ``|F|^2`` from the full Newton step, keeping slacks positive."""
    f0 = float(F @ F)
    t = 1.0
    while t >= 1e-12:
        pn = pi + t * step
        en = st.evaluate(pn)
        if en is not None:
            Fn = _residual(pn, en, log_mu)
            if float(Fn @ Fn) <= (1.0 - 2.0 * _ARMIJO * t) * f0:
                return pn, en, Fn
        t *= 0.5
    raise SolverError("the log-price interior-point line search failed to make progress",
                      status="numerical")


def _gap(pi, s, c) -> float:
    """Relative duality gap ``p . s / p . c``, evaluated with prices shifted by their largest
    logarithm (so that it is finite for any alpha)."""
    top = float(np.max(pi + np.log(c)))
    p = np.exp(pi - top)
    return float(p @ s) / float(p @ c)
