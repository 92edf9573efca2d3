"""Fair allocation of link capacity to flows: ``allocate(network, fairness=...)``.

Kelly's weighted proportional fairness, weighted alpha-fairness for any
alpha > 0, weighted max-min fairness (also with per-link weights) and maximum
throughput.  The convex cases have two solvers that must agree: an exact
primal-dual interior-point method (:mod:`.ipm`, the default; for alpha > 2 an
interior-point method on the dual in log-prices, :mod:`.logdual`) and CVXPY
with Clarabel (:mod:`.cvx`, the reference).  Max-min is computed exactly by
progressive filling (:mod:`.maxmin`); maximum throughput is a linear program
(HiGHS through SciPy, or CVXPY).
"""

from __future__ import annotations

import gc
import math
import numbers

import numpy as np
import scipy.sparse as sp

from ..errors import ScenarioError, ScenarioTypeError, SolverError
from ..network import Network
from .problem import Problem, relative_gap
from .result import Allocation

__all__ = ["allocate", "Allocation", "FAIRNESS", "SOLVERS"]

#: Fairness criteria :func:`allocate` knows.
FAIRNESS = ("proportional", "alpha", "maxmin", "max-throughput")
#: Solver choices.
SOLVERS = ("auto", "exact", "cvxpy")

_SATURATED = 1e-7  # utilisation within this of 1 counts as saturated
#: Below this alpha the exact solver is refused: the rates of flows that cross more
#: links than others fall like ``hops**(-1 / alpha)`` and leave the floating-point
#: range (measured on random networks: most fail at alpha = 1e-3, a few at 1e-2,
#: none from 0.02 on).  The alpha -> 0 limit is ``fairness="max-throughput"``.
MIN_EXACT_ALPHA = 0.02
#: Per-link max-min weights (``link_weights``) are accepted in this range, as
#: :attr:`Flow.weight <qosmodels.Flow>` is.
LINK_WEIGHT_RANGE = (1e-100, 1e100)
#: Above this alpha the exact solver is the log-price dual interior-point method
#: (:mod:`.logdual`): the primal-dual method's certified gap no longer pins the
#: rates of high-rate flows there, and its prices leave the floating-point range.
LOG_PRICE_ALPHA = 2.0


def allocate(
    network: Network,
    fairness: str = "proportional",
    alpha: float | None = None,
    solver: str = "auto",
    *,
    link_weights=None,
    tol: float = 1e-10,
    max_iter: int | None = None,
) -> Allocation:
    """Allocate the network's capacity to its flows by a fairness criterion.

    Parameters
    ----------
    network : Network
        The network; flow weights come from ``Flow.weight`` and rate caps
        from ``Flow.max_rate``.
    fairness : {"proportional", "alpha", "maxmin", "max-throughput"}
        ``"proportional"``: Kelly's weighted proportional fairness, maximise
        ``sum w_i log x_i``.  ``"alpha"``: weighted alpha-fairness, maximise
        ``sum w_i^alpha x_i^(1-alpha) / (1-alpha)`` (so ``x_i = w_i q_i^(-1/alpha)``
        with ``q_i`` the route price; alpha = 1 is proportional, alpha -> inf
        weighted max-min).  ``"maxmin"``: weighted max-min fairness (``x_i / w_i``
        max-min fair).  ``"max-throughput"``: maximise ``sum w_i x_i``.
    alpha : float, optional
        Required for ``"alpha"`` (> 0, finite, and at least
        :data:`MIN_EXACT_ALPHA` = 0.02 with the exact solver); must be None or 1
        for ``"proportional"`` and None otherwise.
    solver : {"auto", "exact", "cvxpy"}
        ``"exact"`` (and ``"auto"``): the interior-point method for the
        convex criteria (for alpha > :data:`LOG_PRICE_ALPHA` the log-price
        dual method of :mod:`.logdual`, solver name ``"ipm-logprice"``, whose
        prices underflow to 0 when they fall below the floating-point range;
        :func:`.logdual.alpha_fair_log` returns their logarithms), progressive
        filling for max-min, HiGHS for maximum throughput.  ``"cvxpy"``: CVXPY
        with Clarabel (not for max-min).
    link_weights : array_like or sparse matrix, shape (L, F), optional
        For ``"maxmin"`` only: flow i's weight on link l (as PPS tickets in
        each link's currency), used instead of ``Flow.weight``.  Entries off
        the flows' routes are ignored; entries on them must be finite and in
        :data:`LINK_WEIGHT_RANGE` (1e-100 to 1e100).
    tol : float
        Relative duality gap the interior-point method must certify.
    max_iter : int or None
        Iteration limit of the interior-point method, >= 1 (``None``: 200 for
        the primal-dual method, 1000 Newton steps for the log-price method,
        which needs a few hundred on rare networks with alpha just above 2).

    Returns
    -------
    Allocation
        Rates (bit/s), link prices, utilisation, bottlenecks, solver status
        and duality gap.

    Raises
    ------
    ScenarioError
        For an unknown criterion or solver, a missing or invalid alpha (or
        one below :data:`MIN_EXACT_ALPHA` with the exact solver), an invalid
        ``tol`` or ``max_iter``, a network without flows, or bad link weights.
    SolverError
        If the solver fails; ``.status`` holds its status, and the message
        names the inputs (alpha, tol, max_iter, the spread of capacities and
        rate caps) and what to try.

    Examples
    --------
    >>> from qosmodels import allocate
    >>> from qosmodels.topologies import parking_lot
    >>> a = allocate(parking_lot(2, capacity=9e6))
    >>> [round(float(r) / 1e6, 6) for r in a.rates]
    [3.0, 6.0, 6.0]
    """
    if not isinstance(network, Network):
        raise ScenarioTypeError(f"network must be a qosmodels.Network, got {type(network).__name__}")
    if network.n_flows == 0:
        raise ScenarioError("network.flows is empty: there is nothing to allocate; add a Flow")
    if fairness not in FAIRNESS:
        raise ScenarioError(f"fairness must be one of {list(FAIRNESS)}, got {fairness!r}")
    if solver not in SOLVERS:
        raise ScenarioError(f"solver must be one of {list(SOLVERS)}, got {solver!r}")
    alpha = _check_alpha(fairness, alpha)
    if link_weights is not None and fairness != "maxmin":
        raise ScenarioError(
            f"link_weights applies to fairness='maxmin' only, got fairness={fairness!r}"
        )
    if isinstance(tol, bool) or not (isinstance(tol, numbers.Real) and 0 < tol < 1):
        raise ScenarioError(f"tol must be a number in (0, 1), got {tol!r}")
    if max_iter is not None and (isinstance(max_iter, bool)
                                 or not isinstance(max_iter, numbers.Integral) or max_iter < 1):
        raise ScenarioError(f"max_iter must be an integer >= 1 or None, got {max_iter!r}")
    if fairness == "alpha" and solver != "cvxpy" and alpha < MIN_EXACT_ALPHA:
        raise ScenarioError(
            f"alpha={alpha!r} is below {MIN_EXACT_ALPHA}, where the exact solver is reliable: "
            f"the rates of long flows fall like hops**(-1/alpha) and leave the floating-point "
            f"range; use alpha >= {MIN_EXACT_ALPHA}, fairness='max-throughput' for the "
            f"alpha -> 0 limit, or solver='cvxpy' (approximate there)")

    if fairness == "maxmin":
        if solver == "cvxpy":
            raise ScenarioError(
                "max-min fairness is computed exactly by progressive filling; use solver='auto' "
                "or 'exact' (solver='cvxpy' is for the convex criteria)"
            )
        return _maxmin(network, link_weights)

    prob = Problem.from_network(network)
    try:
        return _convex(network, prob, fairness, alpha, solver, tol, max_iter)
    except SolverError as exc:
        call = f"fairness={fairness!r}" + (f", alpha={alpha!r}" if fairness == "alpha" else "")
        advice = _advice(network, fairness, solver, tol, max_iter)
        raise SolverError(f"allocate({call}, solver={solver!r}) failed: {exc}; {advice}",
                          status=exc.status) from exc


def _advice(network, fairness, solver, tol, max_iter) -> str:
    """What to try after a solver failure, naming the inputs that make the problem hard."""
    rates = np.concatenate([network.capacities, network.max_rates[np.isfinite(network.max_rates)]])
    spread = float(rates.max() / rates.min())
    tips = []
    if spread > 1e3:
        tips.append(f"the capacities and max_rate values span a factor {spread:.3g} "
                    f"(from {rates.min():.3g} to {rates.max():.3g} bit/s): narrowing it helps")
    if solver != "cvxpy":
        tips.append("try solver='cvxpy'")
    else:
        tips.append("try solver='exact'")
    if fairness == "alpha":
        tips.append("a value of alpha closer to 1")
    if tol < 1e-8:
        tips.append(f"a looser tol (got {tol:g})")
    if max_iter is not None:
        tips.append(f"a larger max_iter (got {max_iter})")
    return ", ".join(tips)


def _convex(network, prob, fairness, alpha, solver, tol, max_iter) -> Allocation:
    if fairness == "max-throughput":
        return _max_throughput(network, prob, solver)

    if solver == "cvxpy":
        from .cvx import solve_alpha_fair_cvxpy

        x, p, status = solve_alpha_fair_cvxpy(prob, alpha)
        x = prob.feasible(np.maximum(x, 1e-300))
        gap = relative_gap(x, p, prob, alpha)
        name, iters = "cvxpy-clarabel", 0
    elif alpha > LOG_PRICE_ALPHA:
        return _alpha_fair_log(network, fairness, alpha, tol,
                               1000 if max_iter is None else max_iter)
    else:
        from .ipm import solve_alpha_fair

        res = solve_alpha_fair(prob, alpha, tol=tol, max_iter=200 if max_iter is None else max_iter)
        x, p, status, iters, gap = res.x, res.p, res.status, res.iterations, res.gap
        name = "ipm"
    rates = prob.unscale_rates(x)
    prices = prob.unscale_prices(p, alpha)
    return _result(network, fairness, alpha, rates, prices, name, status, gap, iters,
                   priced=p[: network.n_links] > 1e-9 * max(float(p.max()), 1e-300))


def _alpha_fair_log(network, fairness, alpha, tol, max_iter) -> Allocation:
    from .logdual import alpha_fair_log

    res = alpha_fair_log(network, alpha, tol=tol, max_iter=max_iter)
    with np.errstate(over="ignore", under="ignore"):
        prices = np.exp(res.log_prices)  # underflow to 0 for large alpha in bit/s units
    return _result(network, fairness, alpha, res.rates, prices, "ipm-logprice", res.status,
                   res.duality_gap, res.iterations, priced=res.relative_price > 1e-9)


# ---------------------------------------------------------------------------- criteria
def _check_alpha(fairness: str, alpha):
    if fairness == "proportional":
        if alpha is not None and alpha != 1:
            raise ScenarioError(
                f"alpha must be None or 1 for fairness='proportional', got {alpha!r}; use "
                f"fairness='alpha' for other values"
            )
        return 1.0
    if fairness == "alpha":
        if alpha is None:
            raise ScenarioError("fairness='alpha' needs alpha, a finite number > 0 (e.g. alpha=2)")
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
            raise ScenarioTypeError(f"alpha must be a real number > 0, got {alpha!r}")
        if not (math.isfinite(alpha) and alpha > 0):
            raise ScenarioError(
                f"alpha must be finite and > 0, got {alpha!r}; for the alpha -> infinity limit "
                f"use fairness='maxmin'"
            )
        return float(alpha)
    if alpha is not None:
        raise ScenarioError(f"alpha applies to fairness='alpha' only, got alpha={alpha!r} with "
                            f"fairness={fairness!r}")
    return None


def _maxmin(network: Network, link_weights) -> Allocation:
    from .maxmin import progressive_filling, progressive_filling_per_link

    prob = Problem.from_network(network)
    if link_weights is None:
        x, rounds = progressive_filling(prob.R, prob.c, prob.w)
        norm_w = np.asarray(network.weights)
        per_link = None
    else:
        Wt = _link_weight_matrix(network, link_weights)
        n_extra = prob.R.shape[0] - network.n_links
        if n_extra:  # a capped flow's private link carries its weight on its first link
            capped = np.flatnonzero(np.isfinite(network.max_rates))
            first = network.route_links[network.route_ptr[capped]]
            extra = sp.csr_matrix(
                (np.asarray(Wt[first, capped]).ravel(), (np.arange(n_extra), capped)),
                shape=(n_extra, network.n_flows))
            Wfull = sp.vstack([Wt, extra], format="csr")
        else:
            Wfull = Wt
        x, rounds = progressive_filling_per_link(prob.R, prob.c, Wfull)
        norm_w, per_link = None, Wt
    rates = prob.unscale_rates(x)
    prices = np.full(network.n_links, np.nan)
    return _result(network, "maxmin", None, rates, prices, "progressive-filling", "optimal", 0.0,
                   rounds, maxmin_weights=norm_w, maxmin_link_weights=per_link)


def _link_weight_matrix(network: Network, link_weights) -> sp.csr_matrix:
    shape = (network.n_links, network.n_flows)
    if sp.issparse(link_weights):
        W = sp.csr_matrix(link_weights, dtype=np.float64)
    else:
        try:
            W = sp.csr_matrix(np.asarray(link_weights, dtype=np.float64))
        except (TypeError, ValueError) as exc:
            raise ScenarioTypeError(
                f"link_weights must be an array of shape {shape} (links x flows), got "
                f"{type(link_weights).__name__}"
            ) from exc
    if W.shape != shape:
        raise ScenarioError(f"link_weights must have shape {shape} (links x flows), got {W.shape}")
    R = network.routing_matrix
    on_route = np.asarray(W[R.nonzero()]).ravel()
    lo, hi = LINK_WEIGHT_RANGE
    if not np.all(np.isfinite(on_route)) or np.any(on_route <= 0):
        bad = np.flatnonzero(~(np.isfinite(on_route) & (on_route > 0)))[0]
        l, i = R.nonzero()[0][bad], R.nonzero()[1][bad]
        raise ScenarioError(
            f"link_weights[{l}, {i}] (flow {network.flow_names[i]} on link "
            f"{network.link_names[l]}) must be finite and > 0, got {float(on_route[bad])!r}"
        )
    if np.any((on_route < lo) | (on_route > hi)):
        bad = np.flatnonzero((on_route < lo) | (on_route > hi))[0]
        l, i = R.nonzero()[0][bad], R.nonzero()[1][bad]
        raise ScenarioError(
            f"link_weights[{l}, {i}] (flow {network.flow_names[i]} on link "
            f"{network.link_names[l]}) must be between {lo:g} and {hi:g}, got "
            f"{float(on_route[bad])!r}; weights are relative per link, so rescale a link's "
            f"weights together"
        )
    return W.multiply(R).tocsr()


def _max_throughput(network: Network, prob: Problem, solver: str) -> Allocation:
    if solver == "cvxpy":
        from .cvx import solve_max_throughput_cvxpy

        x, p, status = solve_max_throughput_cvxpy(prob)
        name = "cvxpy-clarabel"
    else:
        from scipy.optimize import linprog

        res = linprog(-prob.w, A_ub=prob.R, b_ub=prob.c, bounds=(0, None), method="highs")
        if res.status != 0:
            raise SolverError(f"HiGHS failed on the maximum-throughput LP: {res.message}",
                              status=str(res.status))
        x, p, status, name = res.x, -res.ineqlin.marginals, "optimal", "highs"
    x = np.maximum(x, 0.0)
    primal = float(prob.w @ x)
    dual = float(p @ prob.c)
    gap = abs(dual - primal) / max(abs(dual), 1e-300)
    rates = prob.unscale_rates(x)
    prices = p[: network.n_links] * prob.w0 / prob.c0
    return _result(network, "max-throughput", None, rates, prices, name, status, gap, 0,
                   priced=p[: network.n_links] > 1e-9 * max(float(p.max()), 1e-300))


# ---------------------------------------------------------------------------- result
def _result(network, fairness, alpha, rates, prices, solver, status, gap, iters, *,
            priced=None, maxmin_weights=None, maxmin_link_weights=None) -> Allocation:
    R = network.routing_matrix
    util = (R @ rates) / network.capacities
    # one entry per (hop of a route): the link, its flow, and whether it limits the flow
    links = network.route_links
    flows = np.repeat(np.arange(network.n_flows), np.diff(network.route_ptr))
    limits = util[links] >= 1.0 - _SATURATED
    if priced is not None:
        limits &= priced[links]
    elif maxmin_weights is not None or maxmin_link_weights is not None:
        # a max-min bottleneck is where the flow's normalised rate is the link's largest
        if maxmin_link_weights is not None:
            w_hop = np.asarray(maxmin_link_weights[links, flows]).ravel()
        else:
            w_hop = np.asarray(maxmin_weights)[flows]
        norm = rates[flows] / w_hop
        link_max = np.zeros(network.n_links)
        np.maximum.at(link_max, links, norm)
        limits &= norm >= link_max[links] * (1 - 1e-9)
    # the limiting hops are in flow order, each flow's in path order: cut them per flow
    names = network.link_names
    limiting = [names[l] for l in links[limits].tolist()]
    ends = np.cumsum(np.bincount(flows[limits], minlength=network.n_flows)).tolist()
    # (one tuple per flow: without the cyclic garbage collector, which would otherwise
    # sweep the young tuples many times over, 3x slower at 10**5 flows)
    collecting = gc.isenabled()
    gc.disable()
    try:
        bottlenecks = tuple([tuple(limiting[a:b]) for a, b in zip([0] + ends[:-1], ends)])
    finally:
        if collecting:
            gc.enable()
    return Allocation(
        network=network, fairness=fairness, alpha=alpha,
        rates=_ro(rates), prices=_ro(prices), utilisation=_ro(util),
        bottlenecks=bottlenecks, solver=solver, status=status,
        duality_gap=float(gap), iterations=int(iters),
    )


def _ro(a) -> np.ndarray:
    a = np.array(a, dtype=np.float64)
    a.setflags(write=False)
    return a
