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

Verdicts
--------
Every row gets exactly one of :data:`VERDICTS` (:attr:`Check.verdict`):

* ``"reproduced"``: every present side within its tolerance, at the library's
  documented defaults;
* ``"reachable"``: outside at the defaults, but within tolerance for a setting
  of the experiment's declared unstated parameters
  (:class:`~qosmodels.experiments.registry.Unstated`) that
  ``validate(explore=True)`` ran; :attr:`Check.reachable_at` names it and
  :attr:`Check.band` gives the span of values the settings gave;
* ``"known difference"``: outside, not shown reachable, and declared next to
  the row in the experiment's code (:class:`Known`: a cause among
  :data:`CAUSES` -- unstated parameter, mechanism differs, paper
  inconsistent, statistical, or the quick form's short run -- the evidence, and the largest error the declaration
  covers, so that a change that makes the difference worse is noticed);
* ``"fails"``: outside and not declared, or worse than declared: a regression
  or an unexplained miss.

Rows that cannot fail by construction (a formula identical on both sides, a
share any working mechanism gives) carry ``sanity=True``: they keep their
verdict but are counted apart from the reproductions.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import KW_ONLY, dataclass, replace
from typing import Iterable

from ..errors import ScenarioError, ScenarioTypeError

__all__ = ["Bounds", "Side", "Check", "Known", "SIDES", "SOURCES", "VERDICTS", "CAUSES",
           "PAPERS", "paper_of", "signed_deviation"]

#: The sides a row can carry, from the most abstract to the most physical.
SIDES = ("theory", "fluid", "packets")

#: Where a row's ``expected`` value may come from.
SOURCES = ("paper (measured)", "paper (stated)", "closed form", "independent implementation")

#: A row's verdict, one of these (:attr:`Check.verdict`).
VERDICTS = ("reproduced", "reachable", "known difference", "fails")

#: Why a row is a known difference (:class:`Known`): the paper leaves a parameter unstated
#: and no plausible value reaches its number; the library's mechanism differs from the
#: paper's text; the paper contradicts itself; the difference is within the statistics
#: of the paper's own single run; or only the quick form's shorter runs and fewer seeds
#: miss (``"short run"``: declared for the quick form alone, the full form reproducing the
#: row or declaring its own cause).
CAUSES = ("unstated parameter", "mechanism differs", "paper inconsistent", "statistical",
          "short run")


#: The papers (and the textbook checks), keyed by the experiment-name prefix that marks
#: their experiments; :func:`paper_of` maps a name to one of these.  ``calibrated-*``
#: experiments run a paper's mechanism with a parameter fitted to its printed numbers
#: where its text states another value: they are counted apart, not as the paper's.
PAPERS = {
    "dks": "Fair queueing (Demers, Keshav, Shenker)",
    "acc": "Accumulation-based congestion control (ACC, Monaco)",
    "abe": "Asymmetric Best-Effort (ABE)",
    "pps": "Probabilistic Packet Scheduling (PPS)",
    "tokenbucket": "Rate control of TCP aggregates (token buckets)",
    "dctcp": "Data Center TCP (DCTCP, Alizadeh et al.)",
    "aqm": "Modern queue management (CoDel, PIE, PI, FQ-CoDel; RFCs, Hollot et al.)",
    "cubic": "CUBIC (RFC 9438)",
    "l4s": "L4S coexistence (DualPI2, RFC 9332; TCP Prague)",
    "bbr": "BBR version 1 (Cardwell et al.; Ware et al. 2019; Scherrer et al. 2022)",
    "textbook": "Textbook checks (M/D/1, parking lots, Reno/RED fluid)",
    "calibrated": "Calibrated variants (a parameter fitted to a paper, not its text)",
}


def paper_of(experiment: str) -> str:
    """The key of :data:`PAPERS` an experiment belongs to (by its name's prefix)."""
    head = experiment.split("-", 1)[0]
    return head if head in PAPERS else "textbook"


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


def _relative_signed(value: float, ref: float) -> float:
    """``(value - ref) / |ref|``, ``value - ref`` when ``ref`` is 0."""
    d = value - ref
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
        return _magnitude(signed_deviation(value, self))

    def as_list(self) -> list:
        """``[lower, upper]`` with ``None`` for an open end (JSON-ready)."""
        return [self.lower, self.upper]

    def __str__(self) -> str:
        if self.lower is None:
            return f"<= {_fmt(self.upper)}"
        if self.upper is None:
            return f">= {_fmt(self.lower)}"
        return f"[{_fmt(self.lower)}, {_fmt(self.upper)}]"


def signed_deviation(value: float, expected: float | Bounds) -> float:
    """Signed relative deviation of ``value`` from ``expected``.

    Its magnitude is :meth:`Side.error`'s (the deviation the verdicts judge); its sign says
    on which side of the reference ``value`` lies.

    Parameters
    ----------
    value : float
        A side's value, in the row's unit (NaN gives NaN, +-inf gives +-inf).
    expected : float or Bounds
        The row's reference.

    Returns
    -------
    float
        ``(value - expected) / |expected|`` (``value - expected`` when ``expected`` is 0);
        for a range, 0 inside it, else the same measured from the nearer end.

    Examples
    --------
    >>> signed_deviation(0.9, 1.0), signed_deviation(3.0, Bounds(2.5, 3.5))
    (-0.09999999999999998, 0.0)
    >>> signed_deviation(7.0, Bounds(2.5, 3.5))
    1.0
    """
    v = float(value)
    if not math.isfinite(v):
        return v
    if isinstance(expected, Bounds):
        if expected.lower is not None and v < expected.lower:
            return _relative_signed(v, expected.lower)
        if expected.upper is not None and v > expected.upper:
            return _relative_signed(v, expected.upper)
        return 0.0
    return _relative_signed(v, float(expected))


def _magnitude(signed: float) -> float:
    """A signed deviation's size, inf for a value that measured nothing (NaN or inf)."""
    return abs(signed) if math.isfinite(signed) else math.inf


def _deviation(value: float, expected: float | Bounds) -> float:
    return _magnitude(signed_deviation(value, expected))


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
class Known:
    """A declared, explained difference between a row and its reference.

    Declared in the experiment's code next to the row it explains (``Check(...,
    known=Known(...))``), so that the row's verdict is ``"known difference"``
    rather than ``"fails"`` while the difference stays as declared.

    Parameters
    ----------
    cause : str
        One of :data:`CAUSES`.
    note : str
        The evidence: a number the library measured (with how), or the paper's
        own text quoted.  Not empty.
    max_error : float
        The largest relative deviation from ``expected`` (as
        :meth:`Side.error` measures it) the declaration covers, > 0: a side
        that deviates more has changed since the difference was measured, and
        the row ``"fails"``.  Declare the measured deviation with some room for
        the quick form's shorter runs.
    sides : tuple of str
        The sides the declaration covers (default: every side); a failing
        side not named here makes the row ``"fails"``.
    unmeasured : bool
        Whether the declaration also covers a side that measured nothing
        (NaN), e.g. the round-trip time of a conversation shut out so
        completely that it took no sample in the measured window.  The note
        must say why nothing is measured.  Default False: a side that
        measured nothing fails.
    form : {None, "quick", "full"}
        The form of ``validate`` the declaration holds in (default None: both).
        For a row that lands just inside its tolerance in the other form, where
        the declaration would be reported as stale; its note gives both forms'
        values.  :meth:`Experiment.call <qosmodels.experiments.registry.Experiment.call>`
        drops it from the rows of the other form.

    Examples
    --------
    >>> k = Known("paper inconsistent", "Table 2 sums to 1.1 Mb/s on a 1 Mb/s line", 0.3)
    >>> k.covers({"packets": 0.2}), k.covers({"packets": 0.4})
    (True, False)
    """

    cause: str
    note: str
    max_error: float
    sides: tuple[str, ...] = SIDES
    unmeasured: bool = False
    form: str | None = None

    def __post_init__(self):
        if not isinstance(self.unmeasured, bool):
            raise ScenarioTypeError(f"Known.unmeasured must be a bool, got {self.unmeasured!r}")
        if self.form not in (None, "quick", "full"):
            raise ScenarioError(f"Known.form must be None (both forms), 'quick' or 'full', got "
                                f"{self.form!r}")
        if self.cause not in CAUSES:
            raise ScenarioError(f"Known.cause must be one of {list(CAUSES)}, got {self.cause!r}")
        _text("Known", "note", self.note, empty=False)
        m = _real("Known", "max_error", self.max_error)
        if not m > 0:
            raise ScenarioError(f"Known.max_error must be > 0 (the largest relative deviation "
                                f"the declaration covers), got {self.max_error!r}")
        object.__setattr__(self, "max_error", m)
        sides = (self.sides,) if isinstance(self.sides, str) else tuple(self.sides)
        bad = [s for s in sides if s not in SIDES]
        if bad or not sides:
            raise ScenarioError(f"Known.sides must be a non-empty subset of {list(SIDES)}, "
                                f"got {self.sides!r}")
        object.__setattr__(self, "sides", sides)

    def holds_in(self, quick: bool) -> bool:
        """Whether the declaration holds in the quick (``quick``) or the full form."""
        return self.form is None or self.form == ("quick" if quick else "full")

    def covers(self, errors: dict[str, float], missing: Iterable[str] = ()) -> bool:
        """Whether the failing sides' deviations ``errors`` (side name to relative deviation)
        are all declared here and within ``max_error``; the sides in ``missing`` measured
        nothing (NaN) and are covered only when ``unmeasured`` is set."""
        missing = set(missing)
        return all(n in self.sides and (self.unmeasured if n in missing else e <= self.max_error)
                   for n, e in errors.items())


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
    known : Known, optional
        A declared difference (cause, evidence, size) that makes the row a
        ``"known difference"`` rather than ``"fails"`` while it holds.
    sanity : bool
        The row cannot fail by construction (a formula identical on both
        sides, a share any working mechanism gives): reported, but counted
        apart from the reproductions.
    band : tuple of float, optional
        ``(low, high)``: the span of the primary side's value over the
        settings of the declared unstated parameters that
        ``validate(explore=True)`` ran (the default included); None when the
        row was not explored.
    reachable_at : dict, optional
        The first setting (parameter name to value) that ``validate(explore=True)``
        ran and that brought every side outside tolerance at the defaults within
        it; None otherwise.

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
    known: Known | None = None
    sanity: bool = False
    band: tuple[float, float] | None = None
    reachable_at: dict | None = None

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
        if self.known is not None and not isinstance(self.known, Known):
            raise ScenarioTypeError(f"{where}.known must be a Known or None, got "
                                    f"{self.known!r} of type {type(self.known).__name__}")
        if not isinstance(self.sanity, bool):
            raise ScenarioTypeError(f"{where}.sanity must be a bool, got {self.sanity!r}")
        if self.band is not None:
            lo, hi = (_real(where, "band", v, finite=False) for v in self.band)
            object.__setattr__(self, "band", (lo, hi))
        if self.reachable_at is not None and not isinstance(self.reachable_at, dict):
            raise ScenarioTypeError(f"{where}.reachable_at must be a dict or None, got "
                                    f"{self.reachable_at!r}")

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

    @property
    def verdict(self) -> str:
        """One of :data:`VERDICTS`: ``"reproduced"`` when every side is within tolerance;
        ``"reachable"`` when an explored setting brought it within (:attr:`reachable_at`);
        ``"known difference"`` when the failing sides are declared in :attr:`known` and
        within its ``max_error``; ``"fails"`` otherwise."""
        failing = self.failing
        if not failing:
            return "reproduced"
        if self.reachable_at is not None:
            return "reachable"
        if self.known is not None and self.known.covers(
                {n: getattr(self, n).error(self.expected) for n in failing},
                missing=[n for n in failing if math.isnan(getattr(self, n).value)]):
            return "known difference"
        return "fails"

    @property
    def stale(self) -> bool:
        """Whether the row declares a known difference yet reproduces, with a side the
        declaration covers present: the declaration is out of date."""
        return (self.known is not None and self.ok
                and any(getattr(self, n) is not None for n in self.known.sides))

    @property
    def cause(self) -> str | None:
        """The declared cause (:data:`CAUSES`) of a known difference, else None."""
        return self.known.cause if self.verdict == "known difference" else None

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
        verdict = self.verdict
        d.update(verdict=verdict, cause=self.cause,
                 known_note=self.known.note if self.known is not None else None,
                 band=None if self.band is None else [num(v) for v in self.band],
                 reachable_at=None if self.reachable_at is None else dict(self.reachable_at),
                 sanity=self.sanity)
        return d
