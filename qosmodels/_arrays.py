"""Array arguments of the closed forms: type checks and "finite out" checks.

The scalar validators are in :mod:`qosmodels._validate`; these are their
array companions, used by the closed forms of :mod:`qosmodels.abe`,
:mod:`qosmodels.pps`, :mod:`qosmodels.fq`, :mod:`qosmodels.tokenbucket`,
:mod:`qosmodels.fairness` and :mod:`qosmodels.units`.
"""

from __future__ import annotations

import numbers

import numpy as np

from .errors import ScenarioError, ScenarioTypeError

__all__ = ["real_array", "all_finite", "safe_repr"]


def safe_repr(value, limit: int = 80) -> str:
    """``repr(value)``, shortened (and never failing on a huge integer)."""
    try:
        text = repr(value)
    except ValueError:  # an int beyond sys.get_int_max_str_digits()
        return "an integer too large to print"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _wrong(owner: str, field: str, value, what: str):
    return ScenarioTypeError(
        f"{owner}.{field} must be {what}, got {safe_repr(value)} of type {type(value).__name__}")


def real_array(owner: str, field: str, value, *, what: str = "a real number or an array of them"
               ) -> np.ndarray:
    """``value`` as a float64 array, refusing what is not made of real numbers.

    Strings, bytes, None, booleans, complex numbers and arrays of them raise
    :class:`~qosmodels.errors.ScenarioTypeError` naming ``owner.field``; an
    integer too large for a float raises :class:`~qosmodels.errors.ScenarioError`.
    Ranges and finiteness are the caller's to check.
    """
    if value is None or isinstance(value, (str, bytes, bool, np.bool_, complex, np.complexfloating)):
        raise _wrong(owner, field, value, what)
    if isinstance(value, (list, tuple)):  # NumPy would turn True into 1.0 and '1' into a str
        try:
            items = np.array(value, dtype=object).ravel().tolist()
        except (TypeError, ValueError):
            raise _wrong(owner, field, value, what) from None
        if not all(isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))
                   for x in items):
            raise _wrong(owner, field, value, what)
    try:
        a = np.asarray(value)
    except (TypeError, ValueError):
        raise _wrong(owner, field, value, what) from None
    kind = a.dtype.kind
    if kind == "O":
        flat = a.ravel().tolist()
        if not all(isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))
                   for x in flat):
            raise _wrong(owner, field, value, what)
    elif kind not in "iuf":
        raise _wrong(owner, field, value, what)
    try:
        return a.astype(np.float64)
    except OverflowError:
        raise ScenarioError(
            f"{owner}.{field} must fit in a float (|x| < 1.8e308), got {safe_repr(value)}"
        ) from None


def all_finite(*arrays) -> bool:
    """Whether every element of every array (or scalar) is finite."""
    return all(bool(np.all(np.isfinite(np.asarray(a, dtype=np.float64)))) for a in arrays)
