"""Weighted max-min fairness by exact progressive filling (no solver).

Flow-weighted max-min: all unfrozen flows grow at speed ``w_i`` along a common
level T (rate ``w_i T``); when a link saturates, its flows freeze.  The link
that saturates next is found in closed form, ``T_l = (c_l - frozen_l) / W_l``
with ``W_l`` the unfrozen weight on link l, so the result is exact up to
floating point and needs at most one pass per distinct saturation level.
:func:`progressive_filling` does each pass in time proportional to the flows it
freezes (their links' levels kept in a heap, each link's unfrozen weight and
frozen load updated as its flows freeze), so its cost is about
``(sum of hops) x log(links)`` however many levels there are;
:func:`progressive_filling_by_rounds`, the method it replaced, recomputes every
link's level at every pass, ``(levels x links)``, and is kept as a reference.

Per-link weights (a flow's weight differs per link, as PPS tickets do in each
link's currency): the allocation is characterised by a *level* ``theta_l`` per
link with ``x_i = min_l w_{l,i} theta_l``, every flow having a saturated link
where ``x_i / w_{l,i}`` is the largest among that link's flows.  The exact
algorithm repeatedly computes each link's level for its unfrozen flows,
``theta_l = residual_l / sum_i w_{l,i}``, and freezes the flows of every link
that is the tightest link of all its unfrozen flows; freezing never lowers the
other links' levels, so frozen rates are final.  With flow weights this is
ordinary progressive filling.  When no link is the tightest for all of its
flows (flows rank two links oppositely), the weighted max-min allocation is
not unique and a :class:`~qosmodels.errors.SolverError` says so.

References
----------
D. Bertsekas and R. Gallager, *Data Networks*, 2nd ed., Section 6.5.2.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit

from ..errors import SolverError

_REL = 1e-12
#: A link's unfrozen weight is summed again exactly when subtractions have brought it
#: below this fraction of its last exact value (their rounding error would then exceed
#: about 1e-12 of it).
_CANCEL = 1e-4


def progressive_filling_by_rounds(R: sp.csr_matrix, c: np.ndarray,
                                  w: np.ndarray) -> tuple[np.ndarray, int]:
    """Flow-weighted max-min rates, every link's level recomputed at every saturation level.

    The reference for :func:`progressive_filling`, which gives the same rates
    (up to the rounding of the sums it re-takes after cancellation) in far less time
    when there are many levels.

    Parameters
    ----------
    R : csr_matrix, shape (M, F)
        Routing matrix (0/1).
    c : ndarray, shape (M,)
        Capacities.
    w : ndarray, shape (F,)
        Weights, > 0.

    Returns
    -------
    x : ndarray, shape (F,)
        Rates.
    rounds : int
        Number of saturation levels passed.
    """
    R = R.tocsr()
    C = R.tocsc()  # columns: the links of each flow
    n_links, n_flows = R.shape
    unfrozen = np.ones(n_flows, dtype=bool)
    x = np.zeros(n_flows)
    W = R @ w  # unfrozen weight per link
    W_ref = W.copy()  # its value when last computed exactly
    n_open = R.getnnz(axis=1)  # unfrozen flows per link
    frozen_load = np.zeros(n_links)
    link_open = n_open > 0
    rounds = 0
    while unfrozen.any():
        rounds += 1
        with np.errstate(divide="ignore", invalid="ignore"):
            level = np.where(link_open, (c - frozen_load) / W, np.inf)
        T = float(level.min())
        if not np.isfinite(T):  # cannot happen: every flow crosses a link
            raise SolverError("progressive filling found flows on no link", status="degenerate")
        sat = np.flatnonzero(link_open & (level <= T * (1 + 1e-12)))
        flows = np.unique(np.concatenate([R.indices[R.indptr[l]:R.indptr[l + 1]] for l in sat]))
        flows = flows[unfrozen[flows]]
        x[flows] = w[flows] * T
        unfrozen[flows] = False
        # remove the frozen flows' weight from their links, add their load
        touched = []
        for i in flows:
            links = C.indices[C.indptr[i]:C.indptr[i + 1]]
            W[links] -= w[i]
            n_open[links] -= 1
            frozen_load[links] += x[i]
            touched.append(links)
        link_open[sat] = False
        link_open &= n_open > 0
        # Subtracting frozen weights cancels: where a link's unfrozen weight fell far below
        # its last exact value (flows of very different weights), sum it again exactly.
        if touched:
            touched = np.unique(np.concatenate(touched))
            redo = touched[link_open[touched] & (W[touched] < _CANCEL * W_ref[touched])]
            for l in redo:
                on = R.indices[R.indptr[l]:R.indptr[l + 1]]
                W[l] = W_ref[l] = float(np.sum(w[on[unfrozen[on]]]))
    return x, rounds


def progressive_filling(R: sp.csr_matrix, c: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, int]:
    """Flow-weighted max-min rates, each level touching only the flows it freezes.

    Progressive filling as in :func:`progressive_filling_by_rounds`, organised for
    large networks: the links' levels ``(c_l - frozen_l) / W_l`` sit in a binary
    heap; at each level the saturated links are popped (all within a relative
    1e-12 of the lowest level, as there), their unfrozen flows frozen in
    increasing index at rate ``w_i T``, and only the links those flows cross get
    their unfrozen weight, unfrozen count and frozen load updated and a new
    heap entry (stale entries are skipped when popped).  Freezing never lowers
    another link's level (the new level is a mediant of the old one and T), so the
    levels come out in increasing order.  Cost: about ``(sum of hops) x log(links)``.

    Parameters
    ----------
    R : csr_matrix, shape (M, F)
        Routing matrix (0/1); every flow crosses at least one row.
    c : ndarray, shape (M,)
        Capacities.
    w : ndarray, shape (F,)
        Weights, > 0.

    Returns
    -------
    x : ndarray, shape (F,)
        Rates.
    rounds : int
        Number of saturation levels passed.

    Raises
    ------
    SolverError
        If a flow crosses no link (status ``"degenerate"``).
    """
    R = sp.csr_matrix(R)
    C = R.tocsc()
    n_links, n_flows = R.shape
    if np.any(np.diff(C.indptr) == 0):
        raise SolverError("progressive filling found flows on no link", status="degenerate")
    x, rounds = _fill(R.indptr.astype(np.int64), R.indices.astype(np.int64),
                      C.indptr.astype(np.int64), C.indices.astype(np.int64),
                      np.ascontiguousarray(c, dtype=np.float64),
                      np.ascontiguousarray(w, dtype=np.float64), _CANCEL, _LEVEL_TIE)
    if rounds < 0:  # pragma: no cover - excluded by the check above
        raise SolverError("progressive filling found flows on no link", status="degenerate")
    return x, int(rounds)


#: Links whose levels are within this relative distance of the lowest saturate together.
_LEVEL_TIE = _REL


@njit(cache=True)
def _heap_push(key, item, size, k, l):
    """Push (k, l) on the binary min-heap ``key``/``item`` of ``size`` entries; new size."""
    j = size
    while j > 0:
        parent = (j - 1) // 2
        if key[parent] <= k:
            break
        key[j] = key[parent]
        item[j] = item[parent]
        j = parent
    key[j] = k
    item[j] = l
    return size + 1


@njit(cache=True)
def _heap_pop(key, item, size):
    """Remove the top of the heap; new size."""
    size -= 1
    k, l = key[size], item[size]
    j = 0
    while True:
        child = 2 * j + 1
        if child >= size:
            break
        if child + 1 < size and key[child + 1] < key[child]:
            child += 1
        if key[child] >= k:
            break
        key[j] = key[child]
        item[j] = item[child]
        j = child
    if size > 0:
        key[j] = k
        item[j] = l
    return size


@njit(cache=True)
def _fill(l_ptr, l_flow, f_ptr, f_link, c, w, cancel, tie):
    """The body of :func:`progressive_filling` on CSR (links -> flows) and CSC arrays."""
    n_links = c.shape[0]
    n_flows = w.shape[0]
    x = np.zeros(n_flows)
    frozen = np.zeros(n_flows, dtype=np.bool_)
    W = np.zeros(n_links)
    n_open = np.zeros(n_links, dtype=np.int64)
    load = np.zeros(n_links)
    for l in range(n_links):
        for k in range(l_ptr[l], l_ptr[l + 1]):
            W[l] += w[l_flow[k]]
        n_open[l] = l_ptr[l + 1] - l_ptr[l]
    W_ref = W.copy()
    level = np.full(n_links, np.inf)
    is_open = n_open > 0
    cap = n_links + f_link.shape[0] + 1
    key = np.empty(cap)
    item = np.empty(cap, dtype=np.int64)
    size = 0
    for l in range(n_links):
        if is_open[l]:
            level[l] = (c[l] - load[l]) / W[l]
            size = _heap_push(key, item, size, level[l], l)
    sat = np.empty(n_links, dtype=np.int64)
    todo = np.empty(n_flows, dtype=np.int64)
    touched = np.empty(n_links, dtype=np.int64)
    mark = np.zeros(n_links, dtype=np.bool_)
    n_frozen = 0
    rounds = 0
    while n_frozen < n_flows:
        # the lowest valid level, then every link within the tie tolerance of it
        T = np.inf
        n_sat = 0
        while size > 0:
            k, l = key[0], item[0]
            if not is_open[l] or k != level[l]:  # stale entry
                size = _heap_pop(key, item, size)
                continue
            if n_sat == 0:
                T = k
            elif not k <= T * (1.0 + tie):
                break
            size = _heap_pop(key, item, size)
            is_open[l] = False
            sat[n_sat] = l
            n_sat += 1
        if n_sat == 0:  # cannot happen: every flow crosses a link
            return x, -1
        rounds += 1
        n_todo = 0
        for s in range(n_sat):
            l = sat[s]
            for k in range(l_ptr[l], l_ptr[l + 1]):
                i = l_flow[k]
                if not frozen[i]:
                    frozen[i] = True
                    todo[n_todo] = i
                    n_todo += 1
        flows = np.sort(todo[:n_todo])
        n_touched = 0
        for i in flows:
            x[i] = w[i] * T
            for j in range(f_ptr[i], f_ptr[i + 1]):
                m = f_link[j]
                W[m] -= w[i]
                n_open[m] -= 1
                load[m] += x[i]
                if not mark[m]:
                    mark[m] = True
                    touched[n_touched] = m
                    n_touched += 1
        n_frozen += n_todo
        for t in range(n_touched):
            m = touched[t]
            mark[m] = False
            if not is_open[m]:
                continue
            if n_open[m] == 0:
                is_open[m] = False
                continue
            if W[m] < cancel * W_ref[m]:  # cancellation: sum the unfrozen weight again
                total = 0.0
                for k in range(l_ptr[m], l_ptr[m + 1]):
                    if not frozen[l_flow[k]]:
                        total += w[l_flow[k]]
                W[m] = total
                W_ref[m] = total
            level[m] = (c[m] - load[m]) / W[m]
            size = _heap_push(key, item, size, level[m], m)
    return x, rounds


def progressive_filling_per_link(R: sp.csr_matrix, c: np.ndarray,
                                 Wt: sp.csr_matrix) -> tuple[np.ndarray, int]:
    """Max-min rates with per-link weights.

    Parameters
    ----------
    R : csr_matrix, shape (M, F)
        Routing matrix (0/1).
    c : ndarray, shape (M,)
        Capacities.
    Wt : csr_matrix, shape (M, F)
        ``Wt[l, i]`` is flow i's weight on link l (> 0 wherever ``R[l, i] = 1``).

    Returns
    -------
    x : ndarray, shape (F,)
        Rates.
    rounds : int
        Number of freezing rounds.

    Raises
    ------
    SolverError
        If the allocation is not unique (status ``"not_unique"``).
    """
    R = R.tocsr()
    n_links, n_flows = R.shape
    Wt = Wt.multiply(R).tocsr()  # keep only entries on routes
    C = Wt.tocsc()
    link_of = np.repeat(np.arange(n_links), np.diff(Wt.indptr))  # row of each stored entry
    unfrozen = np.ones(n_flows, dtype=bool)
    x = np.zeros(n_flows)
    residual = c.astype(np.float64).copy()
    rounds = 0
    while unfrozen.any():
        rounds += 1
        active = unfrozen[Wt.indices]
        wsum = np.bincount(link_of, weights=Wt.data * active, minlength=n_links)
        with np.errstate(divide="ignore", invalid="ignore"):
            theta = np.where(wsum > 0, residual / wsum, np.inf)
        # each flow's offered rate on each of its links; its rate is the minimum
        offer = Wt.data * theta[link_of]
        y = np.full(n_flows, np.inf)
        np.minimum.at(y, Wt.indices, np.where(active, offer, np.inf))
        # a link is "final" if every unfrozen flow on it is tightest there
        tight = offer <= y[Wt.indices] * (1 + 1e-12)
        bad = np.bincount(link_of, weights=(active & ~tight).astype(float), minlength=n_links)
        final = (wsum > 0) & (bad == 0)
        if not final.any():
            raise SolverError(
                "the max-min allocation with per-link weights is not unique here: some flows "
                "rank their links in opposite orders (each link is the tightest for some of its "
                "flows but not for others); give consistent per-link weights or flow weights",
                status="not_unique",
            )
        sel = final[link_of] & active
        flows = np.unique(Wt.indices[sel])
        x[flows] = y[flows]
        unfrozen[flows] = False
        for i in flows:
            links = C.indices[C.indptr[i]:C.indptr[i + 1]]
            residual[links] -= x[i]
    return x, rounds
