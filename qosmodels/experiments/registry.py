"""The registry of reproducible experiments and the checks they report.

An experiment is a function returning a list of :class:`Check`: one quantity,
its reference value (a paper's table, a closed form), the value qosmodels
computed, and a relative tolerance.  ``qosmodels validate`` runs them and
prints the values side by side with a verdict.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from ..errors import ScenarioError

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["Check", "Experiment", "ValidationReport", "register", "experiments", "validate"]


@dataclass(frozen=True)
class Check:
    """One quantity of an experiment, its reference value and what qosmodels computed.

    Attributes
    ----------
    experiment : str
        The experiment's registered name.
    quantity : str
        What is compared, e.g. ``"long-flow rate, N=3"``.
    expected : float
        The reference value (from a paper's table, a closed form, ...).
    measured : float
        The value qosmodels computed (an allocation, a fluid equilibrium or a
        packet simulation).
    tolerance : float
        Allowed relative deviation ``|measured - expected| / |expected|``
        (absolute when ``expected`` is 0).
    unit : str
        Unit of ``expected`` and ``measured``.
    reference : str
        Where ``expected`` comes from.
    method : str
        How ``measured`` was obtained.
    theory : float or None
        The model's prediction, when ``measured`` comes from packets and the
        theory is a third column.
    """

    experiment: str
    quantity: str
    expected: float
    measured: float
    tolerance: float
    unit: str = ""
    reference: str = ""
    method: str = ""
    theory: float | None = None

    @property
    def error(self) -> float:
        """Relative deviation of ``measured`` from ``expected`` (absolute if expected is 0)."""
        if not math.isfinite(self.measured):
            return math.inf
        d = abs(float(self.measured) - float(self.expected))
        return d / abs(float(self.expected)) if self.expected != 0 else d

    @property
    def ok(self) -> bool:
        """Whether ``measured`` is within the tolerance of ``expected``."""
        return bool(self.error <= self.tolerance)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["error"] = float(self.error)
        d["ok"] = bool(self.ok)
        return d


@dataclass(frozen=True)
class Experiment:
    """A registered experiment: a name, what it reproduces, and the function that runs it."""

    name: str
    title: str
    paper: str
    run: Callable[[], list[Check]]


_REGISTRY: dict[str, Experiment] = {}


def register(name: str, *, title: str, paper: str):
    """Decorator registering ``fn() -> list[Check]`` as experiment ``name``."""

    def deco(fn: Callable[[], list[Check]]):
        if name in _REGISTRY:
            raise RuntimeError(f"experiment {name!r} is registered twice")
        _REGISTRY[name] = Experiment(name=name, title=title, paper=paper, run=fn)
        return fn

    return deco


def experiments() -> dict[str, Experiment]:
    """The registered experiments by name (a copy)."""
    return dict(_REGISTRY)


@dataclass(frozen=True)
class ValidationReport:
    """The checks of one or more experiments.

    Attributes
    ----------
    checks : tuple of Check
    """

    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        """True when every check is within its tolerance."""
        return all(c.ok for c in self.checks)

    @property
    def failures(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if not c.ok)

    def to_pandas(self) -> pandas.DataFrame:
        """One row per check, with ``error`` and ``ok`` columns."""
        import pandas as pd

        return pd.DataFrame([c.as_dict() for c in self.checks])

    def to_json(self) -> str:
        """A JSON list of objects with ``experiment``, ``quantity``, ``expected``,
        ``measured``, ``tolerance``, ``ok`` and the other fields of :class:`Check`."""
        return json.dumps([c.as_dict() for c in self.checks], indent=2)

    def __str__(self) -> str:
        head = ("experiment", "quantity", "expected", "theory", "measured", "unit", "tol", "error",
                "verdict")
        rows = [head]
        for c in self.checks:
            rows.append((
                c.experiment, c.quantity, f"{c.expected:.6g}",
                "" if c.theory is None else f"{c.theory:.6g}", f"{c.measured:.6g}", c.unit,
                f"{c.tolerance:.1e}", f"{c.error:.1e}", "ok" if c.ok else "FAIL",
            ))
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        lines = ["  ".join(s.ljust(w) for s, w in zip(r, widths)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        n_bad = len(self.failures)
        lines.append("")
        lines.append(f"{len(self.checks)} checks, {n_bad} outside tolerance" if n_bad
                     else f"{len(self.checks)} checks, all within tolerance")
        return "\n".join(lines)


def validate(names: Iterable[str] | None = None) -> ValidationReport:
    """Run registered experiments and collect their checks.

    Parameters
    ----------
    names : iterable of str, optional
        Experiments to run (default: all, in registration order).

    Raises
    ------
    ScenarioError
        If a name is not registered.
    """
    from . import _load_all

    _load_all()
    selected = list(_REGISTRY) if not names else list(names)
    unknown = [n for n in selected if n not in _REGISTRY]
    if unknown:
        raise ScenarioError(
            f"unknown experiment(s) {unknown}; registered experiments are {list(_REGISTRY)}"
        )
    checks: list[Check] = []
    for n in selected:
        checks.extend(_REGISTRY[n].run())
    return ValidationReport(checks=tuple(checks))
