"""Fairness metrics.

References
----------
R. Jain, D. Chiu, W. Hawe, "A quantitative measure of fairness and
discrimination for resource allocation in shared computer systems", DEC
TR-301, 1984.

The max-min-normalised index is the variant of the aggregate-rate-control
paper (../shared/papers/aggregate-tcp-rate-control-token-buckets.txt): Jain's
index of ``R_i / s_i`` where ``s_i`` is flow i's max-min fair share.
"""

from __future__ import annotations

import numpy as np

from .errors import ScenarioError

__all__ = ["jain_index", "maxmin_jain_index", "coefficient_of_variation"]


def _rates(name: str, x) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 1 or a.size == 0:
        raise ScenarioError(f"{name} must be a non-empty 1-d sequence of rates, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ScenarioError(f"{name} must be finite, got {a!r}")
    if np.any(a < 0):
        raise ScenarioError(f"{name} must be >= 0, got {a!r}")
    return a


def jain_index(rates) -> float:
    """Jain's fairness index ``(sum x)^2 / (n sum x^2)``, in ``[1/n, 1]``.

    Parameters
    ----------
    rates : array_like, shape (n,)
        Non-negative throughputs (any unit).

    Returns
    -------
    float
        1 when all rates are equal; 1/n when one flow has everything.  An
        all-zero vector counts as equal shares and gives 1.

    Examples
    --------
    >>> jain_index([1, 1, 1, 1])
    1.0
    >>> jain_index([1, 0, 0, 0])
    0.25
    """
    x = _rates("rates", rates)
    sq = float(np.sum(x * x))
    if sq == 0.0:
        return 1.0
    return float(np.sum(x)) ** 2 / (x.size * sq)


def maxmin_jain_index(rates, fair_shares) -> float:
    """Jain's index of rates normalised by their max-min fair shares, ``jain(R_i / s_i)``.

    Parameters
    ----------
    rates : array_like, shape (n,)
        Measured throughputs.
    fair_shares : array_like, shape (n,)
        Each flow's max-min fair share ``s_i`` (> 0), in the same unit; for a
        flow that wants less than its share, the share is its demand.

    Returns
    -------
    float
        1 when every flow gets the same fraction of its fair share.
    """
    x = _rates("rates", rates)
    s = _rates("fair_shares", fair_shares)
    if s.shape != x.shape:
        raise ScenarioError(
            f"fair_shares must have the shape of rates {x.shape}, got {s.shape}"
        )
    if np.any(s <= 0):
        raise ScenarioError("fair_shares must be > 0 (a max-min share is positive)")
    return jain_index(x / s)


def coefficient_of_variation(rates) -> float:
    """Coefficient of variation: population standard deviation over mean.

    Examples
    --------
    >>> coefficient_of_variation([2, 2, 2])
    0.0
    """
    x = _rates("rates", rates)
    mean = float(np.mean(x))
    if mean == 0.0:
        raise ScenarioError("the coefficient of variation of all-zero rates is undefined")
    return float(np.std(x)) / mean
