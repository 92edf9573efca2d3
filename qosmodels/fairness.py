"""Fairness metrics.

References
----------
R. Jain, D. Chiu, W. Hawe, "A quantitative measure of fairness and
discrimination for resource allocation in shared computer systems", DEC
TR-301, 1984.

The max-min-normalised index is the variant of the aggregate-rate-control
paper: Jain's
index of ``R_i / s_i`` where ``s_i`` is flow i's max-min fair share.
"""

from __future__ import annotations

import numpy as np

from ._arrays import real_array
from .errors import ScenarioError

__all__ = ["jain_index", "maxmin_jain_index", "coefficient_of_variation"]


def _rates(name: str, x, owner: str = "fairness") -> np.ndarray:
    a = real_array(owner, name, x, what="a non-empty 1-d sequence of rates")
    if a.ndim != 1 or a.size == 0:
        raise ScenarioError(
            f"{owner}.{name} must be a non-empty 1-d sequence of rates, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ScenarioError(f"{owner}.{name} must be finite, got {a!r}")
    if np.any(a < 0):
        raise ScenarioError(f"{owner}.{name} must be >= 0, got {a!r}")
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

    Raises
    ------
    ScenarioTypeError
        If ``rates`` is not made of real numbers (strings, bools, None, complex).
    ScenarioError
        If ``rates`` is empty, not 1-d, not finite or negative.

    Examples
    --------
    >>> jain_index([1, 1, 1, 1])
    1.0
    >>> jain_index([1, 0, 0, 0])
    0.25
    """
    x = _rates("rates", rates, "jain_index")
    return _jain(x)


def _jain(x: np.ndarray) -> float:
    with np.errstate(all="ignore"):
        sq = float(np.sum(x * x))
        if sq == 0.0 and not np.any(x > 0):
            return 1.0
        j = float(np.float64(np.sum(x)) ** 2 / (x.size * sq))
        if not (np.isfinite(j) and sq > 0):  # squares beyond the floats: scale by the largest
            y = x / x.max()
            j = float(np.float64(np.sum(y)) ** 2 / (y.size * float(np.sum(y * y))))
    return j


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

    Raises
    ------
    ScenarioTypeError
        If an argument is not made of real numbers.
    ScenarioError
        For rates that are empty, not finite or negative, fair shares <= 0,
        unequal shapes, or ratios ``rates / fair_shares`` beyond the floats.
    """
    x = _rates("rates", rates, "maxmin_jain_index")
    s = _rates("fair_shares", fair_shares, "maxmin_jain_index")
    if s.shape != x.shape:
        raise ScenarioError(
            f"fair_shares must have the shape of rates {x.shape}, got {s.shape}"
        )
    if np.any(s <= 0):
        raise ScenarioError("fair_shares must be > 0 (a max-min share is positive)")
    with np.errstate(all="ignore"):
        ratio = x / s
        if not np.all(np.isfinite(ratio)):  # the index is scale-free: normalise both first
            ratio = (x / x.max()) / (s / s.max()) if x.max() > 0 else ratio
    if not np.all(np.isfinite(ratio)):
        raise ScenarioError(
            "maxmin_jain_index: rates / fair_shares overflows (a fair share tiny against its "
            "rate); give both in units where their ratios stay below 1e300")
    return _jain(ratio)


def coefficient_of_variation(rates) -> float:
    """Coefficient of variation: population standard deviation over mean.

    Raises
    ------
    ScenarioTypeError
        If ``rates`` is not made of real numbers.
    ScenarioError
        If ``rates`` is empty, not finite or negative, or all zero (the
        coefficient is undefined).

    Examples
    --------
    >>> coefficient_of_variation([2, 2, 2])
    0.0
    """
    x = _rates("rates", rates, "coefficient_of_variation")
    if not np.any(x > 0):
        raise ScenarioError("the coefficient of variation of all-zero rates is undefined")
    with np.errstate(all="ignore"):
        mean = float(np.mean(x))
        cv = float(np.std(x)) / mean
        if not (np.isfinite(cv) and mean > 0):  # beyond the floats: the ratio is scale-free
            y = x / x.max()
            cv = float(np.std(y)) / float(np.mean(y))
    return cv
