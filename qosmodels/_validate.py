"""Small validators shared by the frozen scenario classes.

Each raises :class:`~qosmodels.errors.ScenarioError` (or its ``TypeError``
flavour) naming the owner, the field, the value and what would be valid.
"""

from __future__ import annotations

import math
import numbers

from .errors import ScenarioError, ScenarioTypeError


def real(owner: str, field: str, value, *, gt=None, ge=None, lt=None, le=None,
         unit: str = "") -> float:
    """Check that ``value`` is a finite real number with the given bounds; return it as float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ScenarioTypeError(
            f"{owner}.{field} must be a real number{_unit(unit)}, got {value!r} "
            f"of type {type(value).__name__}"
        )
    v = _float(owner, field, value, unit)
    if not math.isfinite(v):
        raise ScenarioError(f"{owner}.{field} must be finite{_unit(unit)}, got {value!r}")
    if gt is not None and not v > gt:
        raise ScenarioError(f"{owner}.{field} must be > {gt}{_unit(unit)}, got {value!r}")
    if ge is not None and not v >= ge:
        raise ScenarioError(f"{owner}.{field} must be >= {ge}{_unit(unit)}, got {value!r}")
    if lt is not None and not v < lt:
        raise ScenarioError(f"{owner}.{field} must be < {lt}{_unit(unit)}, got {value!r}")
    if le is not None and not v <= le:
        raise ScenarioError(f"{owner}.{field} must be <= {le}{_unit(unit)}, got {value!r}")
    return v


def integer(owner: str, field: str, value, *, ge=None, le=None, unit: str = "") -> int:
    """Check that ``value`` is an integer (an integral float is accepted) with the given bounds."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ScenarioTypeError(
            f"{owner}.{field} must be an integer{_unit(unit)}, got {value!r} "
            f"of type {type(value).__name__}"
        )
    if isinstance(value, numbers.Integral):
        n = int(value)  # exact: no detour through a float, which rounds above 2**53
        _float(owner, field, n, unit)  # (refuses an int beyond the float range, as for reals)
    else:
        v = _float(owner, field, value, unit)
        if not math.isfinite(v):
            raise ScenarioError(f"{owner}.{field} must be finite{_unit(unit)}, got {value!r}")
        if v != int(v):
            raise ScenarioError(f"{owner}.{field} must be a whole number{_unit(unit)}, "
                                f"got {value!r}")
        n = int(v)
    if ge is not None and n < ge:
        raise ScenarioError(f"{owner}.{field} must be >= {ge}{_unit(unit)}, got {value!r}")
    if le is not None and n > le:
        raise ScenarioError(f"{owner}.{field} must be <= {le}{_unit(unit)}, got {value!r}")
    return n


def node_name(owner: str, field: str, value) -> str:
    """Node names are strings (integers are accepted and turned into strings)."""
    if isinstance(value, bool) or not isinstance(value, (str, numbers.Integral)):
        raise ScenarioTypeError(
            f"{owner}.{field} must be a node name (str or int), got {value!r} "
            f"of type {type(value).__name__}"
        )
    name = str(value)
    if not name:
        raise ScenarioError(f"{owner}.{field} must be a non-empty node name, got ''")
    return name


def _float(owner: str, field: str, value, unit: str) -> float:
    try:
        return float(value)
    except OverflowError:  # an int beyond the float range, such as 10**400
        raise ScenarioError(f"{owner}.{field} must be finite{_unit(unit)}, got an integer of "
                            f"{len(str(abs(int(value))))} digits") from None


def _unit(unit: str) -> str:
    return f" (in {unit})" if unit else ""


def broadcast(owner: str, **arrays) -> None:
    """Refuse arrays that do not broadcast together, naming them and their shapes.

    ``arrays`` maps each argument's name to its value (already validated, e.g. as
    NumPy arrays).  Raises :class:`~qosmodels.errors.ScenarioError` rather than
    NumPy's anonymous broadcasting error.
    """
    import numpy as np

    try:
        np.broadcast_shapes(*(np.shape(a) for a in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k} of shape {np.shape(a)}" for k, a in arrays.items())
        raise ScenarioError(
            f"{owner}: the arguments do not broadcast together ({shapes}); give arrays of "
            f"the same length, or a scalar for all but one of them") from None

