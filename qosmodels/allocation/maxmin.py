"""Weighted max-min fairness by exact progressive filling (no solver).

Flow-weighted max-min: all unfrozen flows grow at speed ``w_i`` along a common
level T (rate ``w_i T``); when a link saturates, its flows freeze.  The link
that saturates next is found in closed form, ``T_l = (c_l - frozen_l) / W_l``
with ``W_l`` the unfrozen weight on link l, so the result is exact up to
floating point and needs at most one pass per distinct saturation level.

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

from ..errors import SolverError

_REL = 1e-12
#: A link's unfrozen weight is summed again exactly when subtractions have brought it
#: below this fraction of its last exact value (their rounding error would then exceed
#: about 1e-12 of it).
_CANCEL = 1e-4


def progressive_filling(R: sp.csr_matrix, c: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, int]:
    """Flow-weighted max-min rates.

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
