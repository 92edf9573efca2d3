"""The rows experiments report: a quantity, its reference and the sides computed beside it.

An experiment (:mod:`.registry`) returns a list of :class:`Check`: one quantity
per row, its reference value ``expected`` (a paper's value, a closed form or
an independent implementation, never the library's own model of the same
thing), and up to three computed *sides* side by side:

* ``theory``: an analytic model of this library (a closed form, an
  equilibrium, an allocation, or a numerical run of an analytic model such as
  the sawtooth or the ABE control loop);
* ``fluid``: the fluid model, :func:`qosmodels.fluid.solve_fluid`;
* ``packets``: a packet-by-packet simulation, the mean over independent seeds
  with a Student-t confidence half-width (:func:`qosmodels.sim.replicate`, or a
  packet-level engine of the mechanism where the simulator lacks it; the
  side's ``method`` says which).

Each side carries its own tolerance.  ``qosmodels validate`` runs the
experiments and prints the sides next to each other with a verdict.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import KW_ONLY, dataclass, replace
from typing import Iterable

from ..errors import ScenarioError, ScenarioTypeError

__all__ = ["Bounds", "Side", "Check", "SIDES", "SOURCES"]

#: The sides a row can carry, from the most abstract to the most physical.
SIDES = ("theory", "fluid", "packets")

#: Where a row's ``expected`` value may come from.
SOURCES = ("paper (measured)", "paper (stated)", "closed form", "independent implementation")


def _real(owner: str, name: str, value, *, finite: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ScenarioTypeError(f"{owner}.{name} must be a real number, got {value!r} "
                                f"of type {type(value).__name__}")
    v = float(value)
    if finite and not math.isfinite(v):
        raise ScenarioError(f"{owner}.{name} must be finite, got {value!r}")
    return v


def _text(owner: str, name: str, value, *, empty: bool = True) -> str:
    if not isinstance(value, str):
        raise ScenarioTypeError(f"{owner}.{name} must be a str, got {value!r} "
                                f"of type {type(value).__name__}")
    if not empty and not value.strip():
        raise ScenarioError(f"{owner}.{name} must be a non-empty str, got {value!r}")
    return value


def _relative(value: float, ref: float) -> float:
    """``|value - ref| / |ref|``, absolute when ``ref`` is 0; inf for a non-finite value."""
    if not math.isfinite(value):
        return math.inf
    d = abs(value - ref)
    return d / abs(ref) if ref != 0 else d


def _fmt(x: float, digits: int = 4) -> str:
    if x is None:
        return "-"
    if not math.isfinite(x):
        return str(x)
    return f"{x:.{digits}g}"


@dataclass(frozen=True)
class Bounds:
    """A reference that is a range, for statements such as "10% ~ 60%" or "less than 10%".

    Parameters
    ----------
    lower, upper : float or None
        The range ``lower <= value <= upper``, in the row's unit; ``None``
        leaves that end open.  At least one end must be given, and
        ``lower <= upper``.

    Notes
    -----
    A value's deviation from the range is 0 inside it and, outside, its
    distance to the nearer end relative to that end (absolute when the end
    is 0), so that a side's ``tolerance`` reads as for a point reference.

    Examples
    --------
    >>> b = Bounds(0.10, 0.60)
    >>> str(b), b.deviation(0.5), round(b.deviation(0.75), 3)
    ('[0.1, 0.6]', 0.0, 0.25)
    """

    lower: float | None = None
    upper: float | None = None

    def __post_init__(self):
        if self.lower is None and self.upper is None:
            raise ScenarioError("Bounds needs lower, upper or both; got neither (for a single "
                                "value use a float as Check.expected)")
        for name in ("lower", "upper"):
            v = getattr(self, name)
            if v is not None:
                object.__setattr__(self, name, _real("Bounds", name, v))
        if self.lower is not None and self.upper is not None and not self.lower <= self.upper:
            raise ScenarioError(f"Bounds.lower must be <= Bounds.upper, got lower={self.lower!r}, "
                                f"upper={self.upper!r}")

    def deviation(self, value: float) -> float:
        """Relative distance of ``value`` outside the range (0 inside; inf if not finite)."""
        v = float(value)
        if not math.isfinite(v):
            return math.inf
        if self.lower is not None and v < self.lower:
            return _relative(v, self.lower)
        if self.upper is not None and v > self.upper:
            return _relative(v, self.upper)
        return 0.0

    def as_list(self) -> list:
        """``[lower, upper]`` with ``None`` for an open end (JSON-ready)."""
        return [self.lower, self.upper]

    def __str__(self) -> str:
        if self.lower is None:
            return f"<= {_fmt(self.upper)}"
        if self.upper is None:
            return f">= {_fmt(self.lower)}"
        return f"[{_fmt(self.lower)}, {_fmt(self.upper)}]"


def _deviation(value: float, expected: float | Bounds) -> float:
    if isinstance(expected, Bounds):
        return expected.deviation(value)
    return _relative(float(value), float(expected))


@dataclass(frozen=True)
class Side:
    """One computed side of a row: a value, its tolerance and how it was obtained.

    Parameters
    ----------
    value : float
        The computed value, in the row's unit.  NaN or inf is accepted (a
        simulation that measured nothing) and fails the row.
    tolerance : float
        Allowed relative deviation from the row's ``expected`` (absolute
        when ``expected`` is 0), >= 0.
    ci : float, optional
        Half-width of the confidence interval of ``value`` when it is a mean
        over independent seeds, >= 0, in the row's unit.
    method : str
        How ``value`` was computed (function, horizon, seeds, ...).

    Examples
    --------
    >>> s = Side(4.51, 0.02, ci=0.03, method="replicate, 5 seeds")
    >>> str(s), s.ok(4.5)
    ('4.51±0.03', True)
    """

    value: float
    tolerance: float
    ci: float | None = None
    method: str = ""

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "value", _real("Side", "value", self.value, finite=False))
        tol = _real("Side", "tolerance", self.tolerance)
        if tol < 0:
            raise ScenarioError(f"Side.tolerance must be >= 0 (a relative deviation), got "
                                f"{self.tolerance!r}")
        set_(self, "tolerance", tol)
        if self.ci is not None:
            ci = _real("Side", "ci", self.ci, finite=False)
            if not (ci >= 0 or (math.isnan(ci) and not math.isfinite(self.value))):
                raise ScenarioError(f"Side.ci must be None or a half-width >= 0, got {self.ci!r}")
            set_(self, "ci", ci)
        _text("Side", "method", self.method)

    def error(self, expected: float | Bounds) -> float:
        """Relative deviation of ``value`` from ``expected`` (a number or :class:`Bounds`)."""
        return _deviation(self.value, expected)

    def ok(self, expected: float | Bounds) -> bool:
        """Whether ``value`` is within ``tolerance`` of ``expected``."""
        return bool(self.error(expected) <= self.tolerance)

    def __str__(self) -> str:
        if self.ci is None:
            return _fmt(self.value)
        return f"{_fmt(self.value)}±{_fmt(self.ci, 2)}"


@dataclass(frozen=True)
class Check:
    """One row of an experiment: a quantity, its reference and every side that computes it.

    Parameters
    ----------
    experiment : str
        The experiment's registered name.
    quantity : str
        What is compared, e.g. ``"long-flow rate, N=3"``.
    expected : float or Bounds
        The reference, in ``unit``: a value, or a range when the paper states
        one ("10% ~ 60%", "less than 10%").
    source : str
        Where ``expected`` comes from, one of :data:`SOURCES`: ``"paper
        (measured)"`` (the paper's own simulation or experiment), ``"paper
        (stated)"`` (a value or formula the paper states), ``"closed form"``
        (derived independently of the model being checked) or
        ``"independent implementation"`` (a separate computation, e.g. a
        root find of the defining equations).
    theory, fluid, packets : Side, optional
        The computed sides (None where a side does not apply or was not
        asked for); at least one must be given.
    paper : float or Bounds, optional
        The value the paper prints for this quantity: its own measurement
        where it prints one, else the value it states; None when it prints
        none.  Shown for comparison, not checked.
    unit : str
        Unit of ``expected``, ``paper`` and the sides.
    reference : str
        Where ``expected`` comes from, in words (table, equation, page).
    note : str
        Why sides disagree with ``expected`` or with the paper, when they do.

    Attributes
    ----------
    measured, tolerance, method
        Value, tolerance and method of the most physical side present
        (packets, then fluid, then theory), for readers of the one-column
        form.
    ok : bool
        True when every present side is within its own tolerance.
    """

    experiment: str
    quantity: str
    expected: float | Bounds
    _: KW_ONLY
    source: str
    theory: Side | None = None
    fluid: Side | None = None
    packets: Side | None = None
    paper: float | Bounds | None = None
    unit: str = ""
    reference: str = ""
    note: str = ""

    def __post_init__(self):
        _text("Check", "experiment", self.experiment, empty=False)
        _text("Check", "quantity", self.quantity, empty=False)
        where = f"Check({self.experiment!r}, {self.quantity!r})"
        if not isinstance(self.expected, Bounds):
            object.__setattr__(self, "expected", _real(where, "expected", self.expected))
        if self.paper is not None and not isinstance(self.paper, Bounds):
            object.__setattr__(self, "paper", _real(where, "paper", self.paper))
        if self.source not in SOURCES:
            raise ScenarioError(f"{where}.source must be one of {list(SOURCES)}, "
                                f"got {self.source!r}")
        for name in SIDES:
            s = getattr(self, name)
            if s is not None and not isinstance(s, Side):
                raise ScenarioTypeError(f"{where}.{name} must be a Side or None, got {s!r} of "
                                        f"type {type(s).__name__} (wrap a number as "
                                        f"Side(value, tolerance))")
        if not self.sides:
            raise ScenarioError(f"{where} has no side: give at least one of theory=, fluid=, "
                                f"packets= (a Side)")
        for name in ("unit", "reference", "note"):
            _text(where, name, getattr(self, name))

    # -- the sides
    @property
    def sides(self) -> dict[str, Side]:
        """The present sides by name, in the order of :data:`SIDES`."""
        return {n: getattr(self, n) for n in SIDES if getattr(self, n) is not None}

    @property
    def primary(self) -> str:
        """Name of the most physical side present: packets, then fluid, then theory."""
        return next(n for n in reversed(SIDES) if getattr(self, n) is not None)

    @property
    def measured(self) -> float:
        """Value of the most physical side present."""
        return getattr(self, self.primary).value

    @property
    def tolerance(self) -> float:
        """Tolerance of the most physical side present."""
        return getattr(self, self.primary).tolerance

    @property
    def method(self) -> str:
        """Method of the most physical side present."""
        return getattr(self, self.primary).method

    @property
    def error(self) -> float:
        """Relative deviation of ``measured`` from ``expected`` (absolute if expected is 0)."""
        return getattr(self, self.primary).error(self.expected)

    @property
    def errors(self) -> dict[str, float]:
        """Relative deviation of each present side from ``expected``."""
        return {n: s.error(self.expected) for n, s in self.sides.items()}

    @property
    def failing(self) -> tuple[str, ...]:
        """Names of the present sides outside their tolerance."""
        return tuple(n for n, s in self.sides.items() if not s.ok(self.expected))

    @property
    def ok(self) -> bool:
        """Whether every present side is within its own tolerance of ``expected``."""
        return not self.failing

    def restricted(self, sides: Iterable[str]) -> Check | None:
        """This row with only the sides in ``sides`` (None when none of its sides is left)."""
        keep = set(sides)
        drop = {n: None for n in SIDES if n not in keep}
        if not any(getattr(self, n) is not None for n in SIDES if n in keep):
            return None
        return replace(self, **drop)

    def as_dict(self) -> dict:
        """A flat, JSON-ready dict: the one-column keys, every side's value, tolerance, CI and
        method, and the row's metadata.  Non-finite numbers become None."""
        def num(x):
            return None if x is None or not math.isfinite(x) else float(x)

        exp_range = self.expected if isinstance(self.expected, Bounds) else None
        paper_range = self.paper if isinstance(self.paper, Bounds) else None
        d = {
            "experiment": self.experiment,
            "quantity": self.quantity,
            "expected": None if exp_range else num(self.expected),
            "expected_range": exp_range.as_list() if exp_range else None,
            "measured": num(self.measured),
            "tolerance": self.tolerance,
            "error": num(self.error),
            "ok": self.ok,
            "paper": None if paper_range or self.paper is None else num(self.paper),
            "paper_range": paper_range.as_list() if paper_range else None,
        }
        for n in SIDES:
            s = getattr(self, n)
            d[n] = None if s is None else num(s.value)
        for n in SIDES:
            s = getattr(self, n)
            d[f"{n}_tolerance"] = None if s is None else s.tolerance
            d[f"{n}_ci"] = None if s is None else num(s.ci)
            d[f"{n}_method"] = None if s is None else s.method
        d.update(source=self.source, unit=self.unit, reference=self.reference,
                 method=self.method, failing=list(self.failing), note=self.note)
        return d
