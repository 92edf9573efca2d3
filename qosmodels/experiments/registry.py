"""The registry of reproducible experiments: register them, run them, report their rows.

Each experiment returns rows (:class:`~qosmodels.experiments.rows.Check`, with
its sides); :func:`validate` runs experiments and collects their rows in a
:class:`ValidationReport`, which ``qosmodels validate`` prints side by side,
summary first.

An experiment declares the parameters its paper leaves unstated
(:class:`Unstated`: the library's default, a plausible range and why); its
``run`` then receives them as ``params``.  ``validate(explore=True)`` runs
every experiment with a row outside tolerance again at each declared value of
each such parameter (one at a time, the others at their defaults) and at
every combination of the groups it declares ``jointly``, records
each explored row's band and marks it ``"reachable"`` where a setting it ran
brought the row within tolerance (:mod:`._explore`).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable, Iterable

from ..errors import ScenarioError, ScenarioTypeError
from ..parallel import run_tasks
from .rows import (
    CAUSES,
    PAPERS,
    SIDES,
    SOURCES,
    VERDICTS,
    Bounds,
    Check,
    Known,
    Side,
    paper_of,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["Bounds", "Side", "Check", "Known", "Unstated", "Experiment", "ValidationReport",
           "register", "experiments", "validate", "SIDES", "SOURCES", "VERDICTS", "CAUSES",
           "PAPERS", "paper_of"]

@dataclass(frozen=True)
class Unstated:
    """A parameter the paper leaves unstated, declared by the experiment that picks it.

    Parameters
    ----------
    name : str
        The key under which the experiment's ``run`` receives it in ``params``.
    default : float
        The value the library uses (the documented default), in ``unit``.
    values : tuple of float
        The plausible range, as the values ``validate(explore=True)`` runs
        (the default need not be among them); at least one, every one other
        than the default.
    why : str
        One sentence on why that range (the era's links and buffers, ns-2's
        defaults, the paper's own hints).
    unit : str
        Unit of ``default`` and ``values`` (SI, or "packets").

    Examples
    --------
    >>> u = Unstated("buffer", 15, (10, 20, 30), "the era's gateways held 10-30 packets",
    ...              unit="packets")
    >>> u.low, u.high
    (10.0, 30.0)
    """

    name: str
    default: float
    values: tuple
    why: str
    unit: str = ""

    def __post_init__(self):
        where = f"Unstated({self.name!r})"
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ScenarioError(f"Unstated.name must be an identifier str, got {self.name!r}")
        for attr in ("why", "unit"):
            if not isinstance(getattr(self, attr), str):
                raise ScenarioTypeError(f"{where}.{attr} must be a str, got "
                                        f"{getattr(self, attr)!r}")
        if not self.why.strip():
            raise ScenarioError(f"{where}.why must say why the range is plausible, got "
                                f"{self.why!r}")
        values = tuple(self.values) if not isinstance(self.values, (int, float)) else (self.values,)
        for v in (self.default, *values):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
                raise ScenarioTypeError(f"{where}: default and values must be real numbers, "
                                        f"got {v!r}")
        if not values or self.default in values:
            raise ScenarioError(f"{where}.values must be one or more values other than the "
                                f"default {self.default!r}, got {self.values!r}")
        object.__setattr__(self, "values", values)

    @property
    def low(self) -> float:
        """The range's lower end (the default included)."""
        return float(min(self.default, *self.values))

    @property
    def high(self) -> float:
        """The range's upper end (the default included)."""
        return float(max(self.default, *self.values))


@dataclass(frozen=True)
class Experiment:
    """A registered experiment.

    Attributes
    ----------
    name : str
    title : str
        One line: what it reproduces.
    paper : str
        The paper, figure or table (or textbook) it reproduces.
    sides : tuple of str
        The sides its rows can carry, a subset of :data:`SIDES`.
    run : callable
        ``run(*, sides: frozenset[str], quick: bool) -> list[Check]``; with
        ``params`` too (every declared unstated parameter's value, by name)
        when ``unstated`` is not empty.
    unstated : tuple of Unstated
        The parameters the paper leaves unstated and this experiment picks.
    jointly : tuple of tuple of str
        Groups of unstated parameters that ``validate(explore=True)`` also runs
        together, over every combination of their declared values (beside the
        one-at-a-time runs), for effects that appear only when both move.
    """

    name: str
    title: str
    paper: str
    sides: tuple[str, ...]
    run: Callable[..., list[Check]]
    unstated: tuple[Unstated, ...] = ()
    jointly: tuple[tuple[str, ...], ...] = ()

    @property
    def defaults(self) -> dict:
        """The declared unstated parameters at their defaults, by name."""
        return {u.name: u.default for u in self.unstated}

    def call(self, *, sides, quick: bool, params: dict | None = None) -> list[Check]:
        """``run`` with ``params`` over the defaults (refused if it names an undeclared one),
        without the declarations made for the other form (``Known.form``)."""
        if not self.unstated:
            if params:
                raise ScenarioError(f"experiment {self.name!r} declares no unstated parameter; "
                                    f"got {sorted(params)}")
            rows = self.run(sides=sides, quick=quick)
        else:
            unknown = sorted(set(params or {}) - set(self.defaults))
            if unknown:
                raise ScenarioError(f"experiment {self.name!r}: unknown unstated parameter(s) "
                                    f"{unknown}; declared: {sorted(self.defaults)}")
            rows = self.run(sides=sides, quick=quick,
                            params={**self.defaults, **(params or {})})
        return [c if c.known is None or c.known.holds_in(quick) else replace(c, known=None)
                for c in rows]


_REGISTRY: dict[str, Experiment] = {}


def _check_sides(sides, owner: str) -> tuple[str, ...]:
    if isinstance(sides, str):
        sides = [s for s in sides.split(",") if s.strip()]
    out = []
    for s in sides:
        if not isinstance(s, str):
            raise ScenarioTypeError(f"{owner}: a side must be a str, got {s!r}")
        s = s.strip()
        if s not in SIDES:
            raise ScenarioError(f"{owner}: unknown side {s!r}; sides are {', '.join(SIDES)}")
        if s not in out:
            out.append(s)
    if not out:
        raise ScenarioError(f"{owner}: no side given; sides are {', '.join(SIDES)}")
    return tuple(n for n in SIDES if n in out)


#: The most combinations one ``jointly`` group may ask ``validate(explore=True)`` to run.
MAX_JOINT_SETTINGS = 64


def register(name: str, *, title: str, paper: str, sides: Iterable[str],
             unstated: Iterable[Unstated] = (), jointly: Iterable[Iterable[str]] = ()):
    """Decorator registering ``fn(*, sides, quick) -> list[Check]`` as experiment ``name``.

    Parameters
    ----------
    name : str
        Registered name, after the paper and its figure or table (``"acc-fig4"``).
    title, paper : str
        One-line description, and the paper, figure or table reproduced.
    sides : iterable of str
        The sides the experiment's rows can carry (a subset of :data:`SIDES`);
        :func:`validate` skips the experiment when none of them is asked for.
    unstated : iterable of Unstated
        The parameters the paper leaves unstated; ``fn`` is then called with
        ``params={name: value}`` as well (every one, the defaults unless
        ``validate(explore=True)`` varies one).
    jointly : iterable of iterable of str
        Groups of two or more declared unstated parameters that
        ``validate(explore=True)`` also varies together, over the product of
        their declared values (at most :data:`MAX_JOINT_SETTINGS` combinations
        per group), where the paper's result may need more than one of them off
        its default.
    """
    declared = _check_sides(sides, f"register({name!r})")
    unstated = tuple(unstated)
    for u in unstated:
        if not isinstance(u, Unstated):
            raise ScenarioTypeError(f"register({name!r}): unstated must hold Unstated, got {u!r}")
    dup = sorted({u.name for u in unstated if [v.name for v in unstated].count(u.name) > 1})
    if dup:
        raise ScenarioError(f"register({name!r}): unstated parameter(s) {dup} declared twice")
    groups = _check_jointly(name, jointly, unstated)

    def deco(fn: Callable[..., list[Check]]):
        if name in _REGISTRY:
            raise RuntimeError(f"experiment {name!r} is registered twice")
        _REGISTRY[name] = Experiment(name=name, title=title, paper=paper, sides=declared, run=fn,
                                     unstated=unstated, jointly=groups)
        return fn

    return deco


def _check_jointly(name: str, jointly, unstated: tuple[Unstated, ...]
                   ) -> tuple[tuple[str, ...], ...]:
    """``register``'s ``jointly``, checked: groups of two or more declared names, bounded."""
    where = f"register({name!r}): jointly"
    if isinstance(jointly, str):
        raise ScenarioTypeError(f"{where} must be groups of parameter names, such as "
                                f"[('timer', 'quantum')], got {jointly!r}")
    values = {u.name: u.values for u in unstated}
    groups = []
    for group in jointly:
        if isinstance(group, str) or not all(isinstance(g, str) for g in group):
            raise ScenarioTypeError(f"{where}: a group must be a tuple of parameter names, "
                                    f"got {group!r}")
        group = tuple(group)
        unknown = sorted(set(group) - set(values))
        if unknown:
            raise ScenarioError(f"{where}: {unknown} not declared unstated; declared: "
                                f"{sorted(values)}")
        if len(set(group)) < 2 or len(set(group)) != len(group):
            raise ScenarioError(f"{where}: a group names two or more different parameters, "
                                f"got {group!r}")
        n = math.prod(len(values[g]) for g in group)
        if n > MAX_JOINT_SETTINGS:
            raise ScenarioError(f"{where}: {group!r} would run {n} combinations, more than "
                                f"{MAX_JOINT_SETTINGS}; declare fewer values or a smaller group")
        groups.append(group)
    return tuple(groups)


def experiments() -> dict[str, Experiment]:
    """The registered experiments by name (a copy), after importing every experiment module."""
    from . import _load_all

    _load_all()
    return dict(_REGISTRY)


@dataclass(frozen=True, repr=False)
class ValidationReport:
    """The rows of one or more experiments.

    Attributes
    ----------
    checks : tuple of Check
        Every row, each with its :attr:`~Check.verdict`.
    seconds : dict of str to float
        Wall time of each experiment run, s (its explored runs included).
    sides : tuple of str
        The sides that were asked for.
    quick : bool
        Whether the short (CI) form was run.
    explored : bool
        Whether the unstated parameters were explored (``validate(explore=True)``).
    compile_seconds : float
        Time spent compiling the packet kernel before the experiments ran, s
        (0 when it was already compiled or not needed).
    """

    checks: tuple[Check, ...]
    seconds: dict = field(default_factory=dict)
    sides: tuple[str, ...] = SIDES
    quick: bool = False
    explored: bool = False
    compile_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """True when every row is within its tolerances."""
        return all(c.ok for c in self.checks)

    @property
    def passed(self) -> bool:
        """True when no row's verdict is ``"fails"`` (what ``qosmodels validate``'s exit
        status says)."""
        return not self.regressions

    @property
    def failures(self) -> tuple[Check, ...]:
        """The rows with a side outside its tolerance (whatever their verdict)."""
        return tuple(c for c in self.checks if not c.ok)

    @property
    def regressions(self) -> tuple[Check, ...]:
        """The rows whose verdict is ``"fails"``: outside tolerance and not explained."""
        return tuple(c for c in self.checks if c.verdict == "fails")

    @property
    def stale(self) -> tuple[Check, ...]:
        """Rows that declare a known difference and yet are reproduced: the declaration is
        out of date."""
        return tuple(c for c in self.checks if c.stale)

    def counts(self, by: str = "experiment") -> pandas.DataFrame:
        """Rows per verdict, per experiment (``by="experiment"``) or per paper (``"paper"``).

        Columns: ``rows`` (sanity rows excluded), one per verdict, ``sanity`` (rows that
        cannot fail, counted apart), ``seconds`` (wall time, per experiment only).
        """
        import pandas as pd

        if by not in ("experiment", "paper"):
            raise ScenarioError(f"counts(by=...) must be 'experiment' or 'paper', got {by!r}")
        table: dict[str, dict] = {}
        for c in self.checks:
            key = c.experiment if by == "experiment" else paper_of(c.experiment)
            r = table.setdefault(key, {"rows": 0, **{v: 0 for v in VERDICTS}, "sanity": 0})
            if c.sanity:
                r["sanity"] += 1
            else:
                r["rows"] += 1
                r[c.verdict] += 1
        df = pd.DataFrame.from_dict(table, orient="index",
                                    columns=["rows", *VERDICTS, "sanity"]).fillna(0)
        if by == "experiment":
            df["seconds"] = [self.seconds.get(k, float("nan")) for k in df.index]
        df.index.name = by
        return df.astype({n: int for n in ("rows", *VERDICTS, "sanity")})

    def to_pandas(self) -> pandas.DataFrame:
        """One row per check, with the columns of :meth:`Check.as_dict`."""
        import pandas as pd

        return pd.DataFrame([c.as_dict() for c in self.checks])

    def plot(self, ax=None, *, kind: str = "rows", by: str = "paper", experiments=None,
             verdicts=None, max_rows: int = 60, linthresh: float = 0.1, **kwargs):
        """The rows as a forest plot: each side's signed deviation from the row's reference
        beside the tolerance and the explored span (:mod:`qosmodels.experiments._plot`); or
        with ``kind="counts"`` the verdicts per paper or experiment as stacked bars.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure if omitted.
        kind : {"rows", "counts"}
            One line per row (default), or one stacked bar per paper or experiment.
        by : {"paper", "experiment"}
            What ``kind="counts"`` groups by.
        experiments : str or list of str, optional
            Only these experiments' rows (names in this report).
        verdicts : str or list of str, optional
            Only rows with these verdicts (:data:`VERDICTS`), e.g.
            ``["known difference", "fails"]``.
        max_rows : int
            The most rows drawn, in the report's order; the title says how many more
            the selection holds (``kind="rows"``).
        linthresh : float
            Relative deviation within which the axis is linear (logarithmic beyond).
        **kwargs
            Passed to the side markers' ``plot`` calls (``kind="counts"``: to ``barh``).

        Returns
        -------
        matplotlib.axes.Axes

        Raises
        ------
        ScenarioError
            An experiment or verdict not in the report, a selection without rows, an
            unknown ``kind`` or ``by``, or a ``max_rows`` below 1.
        """
        from ._plot import plot_report

        return plot_report(self, ax, kind=kind, by=by, experiments=experiments,
                           verdicts=verdicts, max_rows=max_rows, linthresh=linthresh, **kwargs)

    def to_json(self) -> str:
        """A JSON list with one object per row (:meth:`Check.as_dict`): ``experiment``,
        ``quantity``, ``expected``, ``measured``, ``tolerance``, ``ok``, ``paper``, ``theory``,
        ``fluid``, ``packets``, ``source``, per-side tolerances, CIs and methods, ``note``,
        ``verdict``, ``cause``, ``band``, ``reachable_at``, ``sanity``."""
        return json.dumps([c.as_dict() for c in self.checks], indent=2)

    def summary(self, width: int | None = None) -> str:
        """The summary the report opens with: the totals (rows by verdict), then one line per
        experiment, then per paper."""
        from ._table import render_summary

        return render_summary(self, width)

    def __str__(self) -> str:
        from ._table import render

        return render(self, {n: f"{e.title} ({e.paper})" for n, e in _REGISTRY.items()})

    def __repr__(self) -> str:
        """One line: the rows per verdict (sanity rows apart, as in :meth:`summary`), the
        experiments, the form (not every row: a full report holds over a thousand;
        ``str(report)`` prints them)."""
        verdicts = [c.verdict for c in self.checks if not c.sanity]
        n_exp = len(dict.fromkeys(c.experiment for c in self.checks))
        counts = ", ".join(f"{verdicts.count(v)} {v}" for v in VERDICTS)
        n_sanity = len(self.checks) - len(verdicts)
        return (f"ValidationReport({len(self.checks)} rows in {n_exp} experiments: {counts}; "
                f"{n_sanity} sanity apart; quick={self.quick}, explored={self.explored})")

    def _repr_html_(self) -> str:
        """In Jupyter: the one line, the rows per verdict per experiment, then the rows outside
        tolerance with their verdicts and causes (``to_pandas()`` has every column)."""
        import html

        head = f"<p><code>{html.escape(repr(self))}</code></p>"
        if not self.checks:
            return head
        out = head + self.counts("experiment").to_html(float_format=lambda x: f"{x:.1f}")
        off = self.to_pandas()
        off = off.loc[~off["ok"], ["experiment", "quantity", "expected", "measured",
                                   "tolerance", "verdict", "cause"]]
        if len(off):
            out += (f"<p>{len(off)} rows outside tolerance (<code>report.failures</code>; "
                    f"<code>report.plot(verdicts=...)</code> draws them):</p>"
                    + off.to_html(max_rows=30, index=False))
        return out


def validate(names: Iterable[str] | None = None, *, sides: Iterable[str] | None = None,
             quick: bool = False,
             progress: Callable[[str, float, list], None] | None = None,
             executor=None, explore: bool = False) -> ValidationReport:
    """Run registered experiments and collect their rows, each with its verdict.

    Parameters
    ----------
    names : iterable of str, optional
        Experiments to run (default: all, in registration order).
    sides : iterable of str or str, optional
        Sides to compute, among ``"theory"``, ``"fluid"``, ``"packets"`` (a
        comma-separated str is accepted); default all.  Experiments skip the
        work of the others, experiments with none of them are not run, and
        rows left without a side are dropped.
    quick : bool
        Run the short form: shorter horizons and fewer seeds (for CI), with
        the wider packet tolerances the smaller samples need.
    progress : callable, optional
        Called as ``progress(name, seconds, checks)`` after each experiment,
        in the order they finish (explored runs are reported with the setting
        in the name, ``"acc-fig4 [gain=0.5]"``).
    executor : None, concurrent.futures.Executor or distributed.Client
        Who runs the experiments (:func:`qosmodels.sweep`'s machinery): None
        runs them here one after another; a ``ProcessPoolExecutor`` or a Dask
        client runs them in parallel.  The report is the same, in
        registration order.
    explore : bool
        Also run every experiment with a row outside tolerance at each
        declared value of each of its unstated parameters (:class:`Unstated`,
        one at a time, the others at their defaults, and every combination of
        each group declared ``jointly``): rows get their
        :attr:`~Check.band`, and those a setting brought within tolerance
        become ``"reachable"`` with :attr:`~Check.reachable_at`.

    Returns
    -------
    ValidationReport

    Raises
    ------
    ScenarioError
        If a name is not registered or a side is unknown.
    """
    regs = experiments()
    want = SIDES if sides is None else _check_sides(sides, "validate(sides=...)")
    selected = _select(names)
    tasks = [(n, frozenset(want) & frozenset(regs[n].sides), bool(quick)) for n in selected]
    tasks = [t for t in tasks if t[1]]  # experiments with none of the asked sides are not run

    def done(i: int, out: tuple[list[Check], float]) -> None:
        if progress is not None:
            progress(tasks[i][0], out[1], out[0])

    outs = run_tasks(_run_experiment, tasks, executor=executor, progress=False,
                     desc="validate", describe=lambda t: f"of experiment {t[0]!r}", on_done=done)
    rows = {t[0]: out[0] for t, out in zip(tasks, outs)}
    seconds = {t[0]: out[1] for t, out in zip(tasks, outs)}
    if explore:
        from ._explore import explore_rows

        rows = explore_rows(rows, tasks, seconds, registry=regs, run=_run_experiment,
                            executor=executor, progress=progress)
    checks = [c for t in tasks for c in rows[t[0]]]
    return ValidationReport(checks=tuple(checks), seconds=seconds, sides=want, quick=bool(quick),
                            explored=bool(explore))


def _select(names: Iterable[str] | str | None) -> list[str]:
    """The experiments ``names`` asks for (all when empty), each once; raises on an unknown one."""
    regs = experiments()
    if isinstance(names, str):
        names = [names]
    selected = list(regs) if not names else list(dict.fromkeys(names))
    unknown = [n for n in selected if n not in regs]
    if unknown:
        raise ScenarioError(f"unknown experiment(s) {', '.join(unknown)}; registered experiments "
                            f"are {', '.join(regs)}")
    return selected


def _run_experiment(name: str, asked: frozenset, quick: bool,
                    params: dict | None = None) -> tuple[list[Check], float]:
    """One experiment's rows restricted to the asked sides, and its wall time in s;
    ``params`` sets some of its declared unstated parameters.

    Module level and looked up by name, so that a process pool or a Dask
    worker can run it.
    """
    exp = experiments()[name]
    t0 = time.perf_counter()
    kept = []
    for c in exp.call(sides=asked, quick=quick, params=params):
        extra = set(c.sides) - set(exp.sides)
        if extra:
            raise RuntimeError(f"experiment {name!r} returned side(s) {sorted(extra)} it did not "
                               f"register (registered: {list(exp.sides)})")
        r = c.restricted(asked)
        if r is not None:
            kept.append(r)
    return kept, time.perf_counter() - t0
