"""Exploring the parameters a paper leaves unstated: bands and reachable rows.

An experiment declares the parameters its paper does not give
(:class:`~qosmodels.experiments.registry.Unstated`: the library's default and
a plausible range).  :func:`explore_rows` runs every experiment with a row
outside tolerance once per declared value of each such parameter -- one
parameter at a time, the others at their defaults -- and once per combination
of the values of each group the experiment declares ``jointly`` -- through the same
machinery as :func:`qosmodels.sweep` (serially, on a process pool or on a Dask
cluster, with the same result whichever runs it), and then, for every row
outside tolerance at the defaults:

* its **band** is the span ``(low, high)`` of the row's most physical side
  over the default and every explored setting;
* it is **reachable** when some explored setting brought every side the
  defaults left outside tolerance within it; ``reachable_at`` names the first
  such setting in declaration order (parameter, then value).

A row becomes reachable only from a run made here: nothing is inferred
between the values run.  Rows are matched across runs by their quantity.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from typing import Callable

from ..parallel import run_tasks
from .rows import Check

__all__ = ["explore_rows", "settings"]


def settings(experiment) -> list[dict]:
    """The explored settings of an experiment, in order.

    ``{name: value}`` for each declared value of each unstated parameter, in declaration
    order (one parameter at a time); then, for each group declared ``jointly``, every
    combination of its parameters' declared values (the product, the last name varying
    fastest).
    """
    one = [{u.name: v} for u in experiment.unstated for v in u.values]
    values = {u.name: u.values for u in experiment.unstated}
    joint = [dict(zip(group, combo)) for group in getattr(experiment, "jointly", ())
             for combo in itertools.product(*(values[g] for g in group))]
    return one + joint


def _label(name: str, setting: dict) -> str:
    return f"{name} [{', '.join(f'{k}={v:g}' for k, v in setting.items())}]"


def explore_rows(rows: dict[str, list[Check]], tasks: list[tuple], seconds: dict, *,
                 registry: dict, run: Callable[..., tuple[list[Check], float]],
                 executor=None,
                 progress: Callable[[str, float, list], None] | None = None
                 ) -> dict[str, list[Check]]:
    """The rows with their bands and reachable settings filled in.

    Parameters
    ----------
    rows : dict of str to list of Check
        Each experiment's rows at the defaults.
    tasks : list of tuple
        The ``(name, sides, quick)`` the default runs were made with.
    seconds : dict of str to float
        Wall time per experiment, s; the explored runs' times are added here.
    registry : dict of str to Experiment
        The registered experiments by name.
    run : callable
        ``run(name, sides, quick, params) -> (rows, seconds)``, module level (a process
        pool or a Dask worker calls it): the registry's runner of one experiment.
    executor, progress
        As for :func:`~qosmodels.experiments.validate`.

    Returns
    -------
    dict of str to list of Check
    """
    runs = []
    for name, asked, quick in tasks:
        if registry[name].unstated and any(not c.ok for c in rows[name]):
            runs += [(name, asked, quick, s) for s in settings(registry[name])]
    if not runs:
        return rows

    def done(i: int, out) -> None:
        if progress is not None:
            progress(_label(runs[i][0], runs[i][3]), out[1], out[0])

    outs = run_tasks(run, runs, executor=executor, progress=False,
                     desc="explore", describe=lambda t: _label(t[0], t[3]), on_done=done)
    by_name: dict[str, list[tuple[dict, dict[str, Check]]]] = {}
    for (name, _, _, setting), (got, secs) in zip(runs, outs):
        seconds[name] = seconds.get(name, 0.0) + secs
        by_name.setdefault(name, []).append((setting, {c.quantity: c for c in got}))
    out = dict(rows)
    for name, explored in by_name.items():
        out[name] = [_explored(c, explored) if not c.ok else c for c in rows[name]]
    return out


def _explored(c: Check, explored: list[tuple[dict, dict[str, Check]]]) -> Check:
    """Row ``c`` (outside tolerance at the defaults) with its band and reachable setting."""
    failing = c.failing
    values = [c.measured]
    reachable = None
    for setting, got in explored:
        other = got.get(c.quantity)
        if other is None:
            continue
        side = getattr(other, c.primary)
        if side is not None:
            values.append(side.value)
        fixed = all(getattr(other, n) is not None and getattr(other, n).ok(other.expected)
                    for n in failing)
        if reachable is None and fixed:
            reachable = dict(setting)
    finite = [v for v in values if math.isfinite(v)]
    band = (min(finite), max(finite)) if finite else (math.nan, math.nan)
    return replace(c, band=band, reachable_at=reachable)
