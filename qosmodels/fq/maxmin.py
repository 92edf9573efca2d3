"""The max-min fair share (water level) of one resource."""

from __future__ import annotations

import numpy as np

from .. import _validate as v
from .._arrays import real_array
from ..errors import ScenarioError

__all__ = ["maxmin_share"]


def maxmin_share(demands, capacity, weights=None):
    """Max-min fair rates on one resource and the water level ``mu_fair``.

    ``mu_i = min(w_i mu_fair, rho_i)`` with ``mu_fair`` set so that the
    rates add up to the capacity (weighted water filling; ``w_i = 1`` is the
    paper's ``mu_i = MIN(mu_fair, rho_i)``).  Computed exactly in one sort.

    Parameters
    ----------
    demands : array_like, shape (n,), bit/s
        The requests ``rho_i``, >= 0 (``inf``: takes whatever it is given).
    capacity : float, bit/s
        ``mu_total``, > 0.
    weights : array_like, shape (n,), optional
        Weights ``w_i`` > 0 (default 1).

    Returns
    -------
    rates : ndarray, shape (n,), bit/s
        The max-min fair allocation.
    level : float
        The fair share per unit weight ``mu_fair`` (bit/s); ``inf`` when the
        demands fit (every demand is met and any level at least
        ``max(rho_i / w_i)`` gives the same rates).

    Raises
    ------
    ScenarioTypeError
        For arguments that are not numbers (strings, bools, None, complex).
    ScenarioError
        For negative or NaN demands, capacity <= 0 or not finite, weights <= 0
        or not finite, mismatched lengths, or weights so small against the
        capacity that the level ``capacity / sum(weights)`` overflows.

    References
    ----------
    Demers, Keshav, Shenker (1990), section "Fairness" (the max-min
    criterion and ``mu_i = MIN(mu_fair, rho_i)``); Bertsekas and Gallager,
    *Data Networks*, Section 6.5.2.

    Examples
    --------
    >>> from qosmodels.fq import maxmin_share
    >>> rates, level = maxmin_share([1.0, 4.0, 10.0], 9.0)
    >>> rates.tolist(), level
    ([1.0, 4.0, 4.0], 4.0)
    """
    d = real_array("maxmin_share", "demands", demands, what="an array of numbers")
    if d.ndim != 1 or len(d) == 0:
        raise ScenarioError(f"maxmin_share: demands must be a non-empty 1-D array, got {demands!r}")
    if np.any(np.isnan(d)) or np.any(d < 0):
        raise ScenarioError(f"maxmin_share: demands must be >= 0 bit/s (inf allowed), got {d!r}")
    c = v.real("maxmin_share", "capacity", capacity, gt=0, unit="bit/s")
    if weights is None:
        w = np.ones_like(d)
    else:
        w = real_array("maxmin_share", "weights", weights, what="an array of numbers")
        if w.shape != d.shape:
            raise ScenarioError(
                f"maxmin_share: weights must have the shape of demands {d.shape}, got {w.shape}")
        if not np.all(np.isfinite(w) & (w > 0)):
            raise ScenarioError(f"maxmin_share: weights must be finite and > 0, got {w!r}")
    with np.errstate(all="ignore"):
        if d.sum() <= c:
            return d.copy(), float("inf")
        return _fill(d, w, c)


def _fill(d, w, c):
    ratio = d / w
    o = np.argsort(ratio, kind="stable")
    r_s, d_s, w_s = ratio[o], d[o], w[o]
    # if the level sits between r_s[k-1] and r_s[k], the first k demands are met
    # and the rest get w * level: level_k = (c - sum_{<k} d) / sum_{>=k} w
    met = np.concatenate([[0.0], np.cumsum(np.where(np.isfinite(d_s), d_s, 0.0))[:-1]])
    w_rest = np.cumsum(w_s[::-1])[::-1]
    level_k = (c - met) / w_rest
    lo = np.concatenate([[0.0], r_s[:-1]])
    ok = (level_k >= lo) & (level_k <= r_s)
    k = int(np.argmax(ok))
    level = float(level_k[k])
    if not np.isfinite(level):
        raise ScenarioError(
            f"maxmin_share: the fair level (capacity - met demands) / sum of weights = {level!r} "
            f"overflows: the weights (smallest {float(w.min())!r}) are too small against the "
            f"capacity {c!r}; scale the weights up (only their ratios matter)")
    return np.minimum(d, w * level), level
