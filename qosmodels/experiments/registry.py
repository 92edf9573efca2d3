"""The registry of reproducible experiments: register them, run them, report their rows.

Each experiment returns rows (:class:`~qosmodels.experiments.rows.Check`, with
its sides); :func:`validate` runs experiments and collects their rows in a
:class:`ValidationReport`, which ``qosmodels validate`` prints side by side.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable

from ..errors import ScenarioError, ScenarioTypeError
from ..parallel import run_tasks
from .rows import SIDES, SOURCES, Bounds, Check, Side

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["Bounds", "Side", "Check", "Experiment", "ValidationReport", "register", "experiments",
           "validate", "SIDES", "SOURCES"]


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
        ``run(*, sides: frozenset[str], quick: bool) -> list[Check]``.
    """

    name: str
    title: str
    paper: str
    sides: tuple[str, ...]
    run: Callable[..., list[Check]]


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


def register(name: str, *, title: str, paper: str, sides: Iterable[str]):
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
    """
    declared = _check_sides(sides, f"register({name!r})")

    def deco(fn: Callable[..., list[Check]]):
        if name in _REGISTRY:
            raise RuntimeError(f"experiment {name!r} is registered twice")
        _REGISTRY[name] = Experiment(name=name, title=title, paper=paper, sides=declared, run=fn)
        return fn

    return deco


def experiments() -> dict[str, Experiment]:
    """The registered experiments by name (a copy), after importing every experiment module."""
    from . import _load_all

    _load_all()
    return dict(_REGISTRY)


@dataclass(frozen=True)
class ValidationReport:
    """The rows of one or more experiments.

    Attributes
    ----------
    checks : tuple of Check
    seconds : dict of str to float
        Wall time of each experiment run, s.
    sides : tuple of str
        The sides that were asked for.
    quick : bool
        Whether the short (CI) form was run.
    """

    checks: tuple[Check, ...]
    seconds: dict = field(default_factory=dict)
    sides: tuple[str, ...] = SIDES
    quick: bool = False

    @property
    def ok(self) -> bool:
        """True when every row is within its tolerances."""
        return all(c.ok for c in self.checks)

    @property
    def failures(self) -> tuple[Check, ...]:
        """The rows with a side outside its tolerance."""
        return tuple(c for c in self.checks if not c.ok)

    def to_pandas(self) -> pandas.DataFrame:
        """One row per check, with the columns of :meth:`Check.as_dict`."""
        import pandas as pd

        return pd.DataFrame([c.as_dict() for c in self.checks])

    def to_json(self) -> str:
        """A JSON list with one object per row (:meth:`Check.as_dict`): ``experiment``,
        ``quantity``, ``expected``, ``measured``, ``tolerance``, ``ok``, ``paper``, ``theory``,
        ``fluid``, ``packets``, ``source``, per-side tolerances, CIs and methods, ``note``."""
        return json.dumps([c.as_dict() for c in self.checks], indent=2)

    def __str__(self) -> str:
        from ._table import render

        return render(self, {n: f"{e.title} ({e.paper})" for n, e in _REGISTRY.items()})


def validate(names: Iterable[str] | None = None, *, sides: Iterable[str] | None = None,
             quick: bool = False,
             progress: Callable[[str, float, list], None] | None = None,
             executor=None) -> ValidationReport:
    """Run registered experiments and collect their rows.

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
        in the order they finish.
    executor : None, concurrent.futures.Executor or distributed.Client
        Who runs the experiments (:func:`qosmodels.sweep`'s machinery): None
        runs them here one after another; a ``ProcessPoolExecutor`` runs
        them in parallel.  The report is the same, in registration order.

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
    checks = [c for rows, _ in outs for c in rows]
    seconds = {t[0]: out[1] for t, out in zip(tasks, outs)}
    return ValidationReport(checks=tuple(checks), seconds=seconds, sides=want, quick=bool(quick))


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


def _run_experiment(name: str, asked: frozenset, quick: bool) -> tuple[list[Check], float]:
    """One experiment's rows restricted to the asked sides, and its wall time in s.

    Module level and looked up by name, so that a process pool or a Dask
    worker can run it.
    """
    exp = experiments()[name]
    t0 = time.perf_counter()
    kept = []
    for c in exp.run(sides=asked, quick=quick):
        extra = set(c.sides) - set(exp.sides)
        if extra:
            raise RuntimeError(f"experiment {name!r} returned side(s) {sorted(extra)} it did not "
                               f"register (registered: {list(exp.sides)})")
        r = c.restricted(asked)
        if r is not None:
            kept.append(r)
    return kept, time.perf_counter() - t0
