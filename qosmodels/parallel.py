"""Many independent runs: parameter sweeps and replications, serially or in parallel.

:func:`sweep` runs a function of a scenario over a parameter grid and seeds
and returns a tidy :class:`pandas.DataFrame`, one row per run.  The runs go
one after another (``executor=None``), on any
:class:`concurrent.futures.Executor` (a ``ProcessPoolExecutor`` uses every
core of one machine), or on a Dask cluster through a
``distributed.Client`` (many machines).  Each run's seed is spawned from one
:class:`numpy.random.SeedSequence` before anything is submitted, so the
table is the same whatever executes it and in whatever order the runs
finish.

:func:`run_tasks` is the machinery underneath, shared with
:func:`qosmodels.sim.replicate` and ``qosmodels validate --jobs N``: it
calls one function on a list of argument tuples through the chosen executor
and returns the results in the tasks' order.

A process pool or a Dask worker imports qosmodels afresh and loads the
packet kernel from Numba's on-disk cache (a second or two, once per
process); compile it first (:func:`qosmodels.sim.compile_kernel` or
``qosmodels warmup``) so that the workers do not all compile it at once.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import keyword
import numbers
import pickle
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from . import _seed
from ._progress import PROGRESS_AFTER, Progress
from .errors import ScenarioError, ScenarioTypeError

__all__ = ["sweep", "run_tasks", "PROGRESS_AFTER"]

#: Column names a sweep adds beside the grid's parameters.
RESERVED = ("replication", "seed")


def sweep(fn: Callable[..., Mapping[str, Any]], grid: Mapping[str, Sequence[Any]], *,
          seeds: int = 1, seed=None, executor=None, progress: bool | None = None,
          common_seeds: bool = False):
    """Run ``fn`` over every point of a parameter grid, ``seeds`` times each.

    Parameters
    ----------
    fn : callable
        Called as ``fn(**params, seed=s)`` with one value of each grid
        parameter and an int seed ``s``; returns a mapping from result names
        to scalars (numbers, bools, strings).  For a process pool or Dask it
        must be picklable: define it at module level (a notebook's functions
        work with Dask, which pickles them by value).
    grid : mapping of str to sequence
        Parameter name -> the values to try, e.g. ``{"n": [2, 4, 8],
        "buffer": [20, 100]}``.  Points are taken in ``itertools.product``
        order: the first parameter varies slowest.  ``{}`` runs ``fn`` with
        the seed alone.
    seeds : int
        Replications per grid point, >= 1.
    seed : int, numpy.random.SeedSequence, numpy.random.Generator or None
        Root of every run's seed (the one seeding rule of qosmodels).
        None draws fresh entropy from the operating system; the root is then
        recorded in ``df.attrs["seed"]`` so the sweep can be run again.
    executor : None, concurrent.futures.Executor or distributed.Client
        Who runs the calls: None runs them here, one after another; an
        Executor (``ProcessPoolExecutor(max_workers=2)``) or a Dask client
        runs them in parallel.  The table does not depend on it.
    progress : bool or None
        A tqdm progress bar over runs: always (True), never (False), or once
        the sweep has run :data:`PROGRESS_AFTER` seconds (None).
    common_seeds : bool
        False (default): every run has its own independent seed.  True:
        replication ``r`` uses the same seed at every grid point (common
        random numbers, which sharpen comparisons between grid points).

    Returns
    -------
    pandas.DataFrame
        One row per run, in grid order with replications innermost.
        Columns: the grid's parameters, ``replication`` (0 .. seeds - 1),
        ``seed`` (the int ``fn`` received) and ``fn``'s result names.
        ``attrs["seed"]`` holds the root seed's entropy.  For an
        xarray view, ``df.set_index([*grid, "replication"]).to_xarray()``.

    Raises
    ------
    ScenarioTypeError, ScenarioError
        For a bad ``fn``, ``grid``, ``seeds``, ``seed``, ``executor`` or
        ``progress``, before anything runs; or when ``fn`` returns something
        other than a mapping of scalars with the same names every run.
    Exception
        Whatever ``fn`` raised, with a note naming the run's parameters and
        seed (the other runs are cancelled).

    Examples
    --------
    >>> def fn(n, seed):
    ...     return {"mean": float(np.random.default_rng(seed).normal(n, 1, 100).mean())}
    >>> df = sweep(fn, {"n": [1, 10]}, seeds=3, seed=0)
    >>> list(df.columns), len(df)
    (['n', 'replication', 'seed', 'mean'], 6)
    >>> sweep(fn, {"n": [1, 10]}, seeds=3, seed=0).equals(df)
    True
    """
    import pandas as pd

    if not callable(fn):
        raise ScenarioTypeError(f"sweep.fn must be a callable fn(**params, seed=...), got {fn!r}")
    points = _grid_points(grid)
    if isinstance(seeds, bool) or not isinstance(seeds, numbers.Integral) or seeds < 1:
        raise ScenarioError(f"sweep.seeds must be an int >= 1 (replications per grid point), "
                            f"got {seeds!r}")
    seeds = int(seeds)
    if not isinstance(common_seeds, bool):
        raise ScenarioTypeError(f"sweep.common_seeds must be True or False, got {common_seeds!r}")
    _check_progress("sweep", progress)
    _executor_kind(executor)
    if seed is None:
        root = np.random.SeedSequence()
    else:
        root = _seed.fresh(_seed.seed_sequence("sweep", seed))
    n_runs = len(points) * seeds
    run_seeds = _int_seeds(root.spawn(seeds if common_seeds else n_runs))
    tasks, rows = [], []
    for i, params in enumerate(points):
        for r in range(seeds):
            s = run_seeds[r if common_seeds else i * seeds + r]
            tasks.append((fn, params, s))
            rows.append({**params, "replication": r, "seed": s})
    results = run_tasks(_call, tasks, executor=executor, progress=progress, desc="sweep",
                        describe=lambda task: _describe(task[1], task[2]))
    names = None
    for row, out, task in zip(rows, results, tasks):
        keys = _check_output(out, task, set(row))
        if names is None:
            names = keys
        elif keys != names:
            raise ScenarioError(
                f"sweep: fn returned the names {sorted(keys)} for {_describe(task[1], task[2])} "
                f"but {sorted(names)} for the first run; return the same names every run")
        row.update(out)
    df = pd.DataFrame(rows, columns=[*grid, *RESERVED, *results[0]])
    if seeds >= 2 and all(len({repr(tuple(results[i * seeds + r].items())) for r in range(seeds)})
                          == 1 for i in range(len(points))):
        import warnings

        from .errors import IdenticalReplicationsWarning

        warnings.warn(
            f"sweep: the {seeds} replications of every grid point returned the same values, so "
            f"nothing fn runs depends on its seed (a network with no random element gives the "
            f"same packets whatever the seed); draw something from the seed, e.g. the flows' "
            f"start times, for replications that vary", IdenticalReplicationsWarning,
            stacklevel=2)
    df.attrs["seed"] = root.entropy
    df.attrs["spawn_key"] = root.spawn_key
    return df


def run_tasks(func: Callable[..., Any], tasks: Sequence[tuple], *, executor=None,
              progress: bool | None = False, desc: str = "runs",
              describe: Callable[[tuple], str] | None = None,
              on_done: Callable[[int, Any], None] | None = None) -> list:
    """``[func(*task) for task in tasks]``, through an executor, in the tasks' order.

    Parameters
    ----------
    func : callable
        Picklable for a process pool (module level).
    tasks : sequence of tuple
        The arguments of each call.
    executor : None, concurrent.futures.Executor or distributed.Client
        As for :func:`sweep`.
    progress : bool or None
        As for :func:`sweep`.
    desc : str
        The progress bar's label.
    describe : callable, optional
        ``describe(task)`` names a task in the note added to its exception.
    on_done : callable, optional
        ``on_done(i, result)`` is called here as each task finishes, in the
        order they finish (to report progress).

    Returns
    -------
    list
        ``func``'s results, ``results[i]`` from ``tasks[i]``.
    """
    _check_progress(desc, progress)
    kind = _executor_kind(executor)
    tasks = list(tasks)
    bar = Progress(len(tasks), progress, desc, unit="run")
    try:
        if kind == "serial":
            out = []
            for i, task in enumerate(tasks):
                out.append(_run_one(func, task, describe))
                if on_done is not None:
                    on_done(i, out[-1])
                bar.update()
            return out
        if kind == "futures":
            if isinstance(executor, concurrent.futures.ProcessPoolExecutor):
                _check_picklable(func, tasks[:1])
            futures = {executor.submit(func, *task): i for i, task in enumerate(tasks)}
            wait = concurrent.futures.as_completed
        else:  # dask
            from distributed import as_completed as wait

            futures = {executor.submit(func, *task, pure=False): i for i, task in enumerate(tasks)}
        out = [None] * len(tasks)
        try:
            for fut in wait(list(futures)):
                i = futures[fut]
                try:
                    out[i] = fut.result()
                except Exception as exc:
                    if describe is not None:
                        _note(exc, f"raised by the run {describe(tasks[i])}")
                    raise
                if on_done is not None:
                    on_done(i, out[i])
                bar.update()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
        return out
    finally:
        bar.close()


def _call(fn, params, seed):
    """One sweep run (module level, so that a process pool can pickle it)."""
    return fn(**params, seed=seed)


def _run_one(func, task, describe):
    try:
        return func(*task)
    except Exception as exc:
        if describe is not None:
            _note(exc, f"raised by the run {describe(task)}")
        raise


def _note(exc: BaseException, text: str) -> None:
    """Add ``text`` to the traceback of ``exc`` (Python 3.11+; nothing on 3.10)."""
    if hasattr(exc, "add_note"):
        exc.add_note(text)


def _grid_points(grid) -> list[dict]:
    if not isinstance(grid, Mapping):
        raise ScenarioTypeError(f"sweep.grid must be a mapping of parameter names to lists of "
                                f"values, e.g. {{'n': [2, 4]}}, got {grid!r}")
    values = []
    for name, vals in grid.items():
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
            raise ScenarioError(f"sweep.grid: {name!r} is not a valid parameter name; use a "
                                f"Python identifier (fn receives it as a keyword)")
        if name in RESERVED:
            raise ScenarioError(f"sweep.grid: {name!r} is a column the sweep adds itself; "
                                f"sweep seeds with seeds= and seed=, and rename the parameter")
        if isinstance(vals, (str, bytes, Mapping)) or not isinstance(vals, Iterable):
            raise ScenarioTypeError(f"sweep.grid[{name!r}] must be a list of values, got "
                                    f"{vals!r}; write [{vals!r}] for a single value")
        vals = list(vals)
        if not vals:
            raise ScenarioError(f"sweep.grid[{name!r}] is empty; give at least one value")
        values.append(vals)
    return [dict(zip(grid, combo)) for combo in itertools.product(*values)]


def _check_output(out, task, taken) -> set:
    if not isinstance(out, Mapping):
        raise ScenarioTypeError(f"sweep: fn must return a dict of scalars, got {type(out).__name__} "
                                f"for {_describe(task[1], task[2])}")
    for key, value in out.items():
        if not isinstance(key, str):
            raise ScenarioTypeError(f"sweep: fn returned the non-string name {key!r}; name each "
                                    f"result with a string")
        if key in taken:
            raise ScenarioError(f"sweep: fn returned {key!r}, which is already a column (a grid "
                                f"parameter, 'replication' or 'seed'); rename that result")
        if not (value is None or isinstance(value, (numbers.Number, str, bool, np.generic))):
            raise ScenarioTypeError(
                f"sweep: fn returned {key}={value!r} ({type(value).__name__}) for "
                f"{_describe(task[1], task[2])}; each result must be a scalar (a number, bool or "
                f"string); return summaries such as a mean, or one name per element")
    return set(out)


def _describe(params, seed) -> str:
    inside = ", ".join(f"{k}={v!r}" for k, v in params.items())
    return f"fn({inside}{', ' if inside else ''}seed={seed})"


def _executor_kind(executor) -> str:
    if executor is None:
        return "serial"
    if isinstance(executor, concurrent.futures.Executor):
        return "futures"
    if type(executor).__module__.startswith("distributed") and hasattr(executor, "gather"):
        return "dask"
    raise ScenarioTypeError(f"executor must be None (run here), a concurrent.futures.Executor "
                            f"or a distributed.Client, got {executor!r}")


def _check_progress(owner, progress) -> None:
    if progress is not None and not isinstance(progress, bool):
        raise ScenarioTypeError(f"{owner}.progress must be True, False or None, got {progress!r}")


def _check_picklable(func, tasks) -> None:
    """A process pool pickles the function and its arguments: fail here, clearly, if it cannot."""
    for what, obj in (("the function", func), *(("an argument", a) for t in tasks for a in t)):
        try:
            pickle.dumps(obj)
        except Exception as exc:
            raise ScenarioTypeError(
                f"a process pool cannot pickle {what} {obj!r} ({exc}); define functions at "
                f"module level (not a lambda or a nested function), or use a Dask client, "
                f"which pickles them by value") from exc


def _int_seeds(children) -> list[int]:
    """One non-negative 63-bit int per child SeedSequence."""
    return [int(c.generate_state(1, np.uint64)[0] >> np.uint64(1)) for c in children]
