"""qosmodels.sweep and the run machinery under replicate: order, seeds, executors, errors.

The reference for a sweep's table is a plain loop written here with
``itertools.product`` and ``SeedSequence.spawn``: the documented rule, coded
a second time.  Every executor (serial, threads, a process pool, a Dask
``LocalCluster``) must give that same table.
"""

from __future__ import annotations

import itertools
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

import qosmodels
from qosmodels import ScenarioError, ScenarioTypeError, sweep

GRID = {"n": [1, 5, 9], "kind": ["a", "b"]}


def draw(n, kind, seed):
    """A stochastic function of the grid: a mean of n normals, shifted by kind."""
    x = np.random.default_rng(seed).normal(size=n)
    return {"mean": float(x.mean()) + (kind == "b"), "first": float(x[0])}


def reference_table(grid, seeds, seed, common=False):
    """The documented rule, written independently of qosmodels.parallel."""
    points = list(itertools.product(*grid.values()))
    children = np.random.SeedSequence(seed).spawn(seeds if common else len(points) * seeds)
    ints = [int(c.generate_state(1, np.uint64)[0]) // 2 for c in children]
    rows = []
    for i, combo in enumerate(points):
        params = dict(zip(grid, combo))
        for r in range(seeds):
            s = ints[r if common else i * seeds + r]
            rows.append({**params, "replication": r, "seed": s, **draw(**params, seed=s)})
    return pd.DataFrame(rows)


def test_serial_matches_the_documented_rule():
    df = sweep(draw, GRID, seeds=3, seed=11)
    ref = reference_table(GRID, 3, 11)
    pd.testing.assert_frame_equal(df, ref)
    assert list(df.columns) == ["n", "kind", "replication", "seed", "mean", "first"]
    assert df["seed"].nunique() == len(df)  # every run its own seed


def test_common_seeds_repeat_each_replication_across_the_grid():
    df = sweep(draw, GRID, seeds=2, seed=3, common_seeds=True)
    pd.testing.assert_frame_equal(df, reference_table(GRID, 2, 3, common=True))
    assert df.groupby("replication")["seed"].nunique().tolist() == [1, 1]


def test_same_seed_same_table_and_seed_sequence_untouched():
    ss = np.random.SeedSequence(5)
    a = sweep(draw, GRID, seed=ss)
    b = sweep(draw, GRID, seed=ss)
    pd.testing.assert_frame_equal(a, b)
    assert ss.n_children_spawned == 0
    assert not a.equals(sweep(draw, GRID, seed=6))


def test_seed_none_records_a_root_that_reruns_the_sweep():
    df = sweep(draw, GRID, seeds=2)
    again = sweep(draw, GRID, seeds=2, seed=df.attrs["seed"])
    pd.testing.assert_frame_equal(df, again)


def test_empty_grid_runs_the_replications_alone():
    df = sweep(draw_plain, {}, seeds=4, seed=0)
    assert list(df.columns) == ["replication", "seed", "value"]
    assert df["replication"].tolist() == [0, 1, 2, 3]


def draw_plain(seed):
    return {"value": float(np.random.default_rng(seed).random())}


@pytest.mark.parametrize("make", [lambda: ThreadPoolExecutor(3),
                                  lambda: ProcessPoolExecutor(2)], ids=["threads", "processes"])
def test_executors_give_the_serial_table(make):
    with make() as ex:
        df = sweep(draw, GRID, seeds=3, seed=11, executor=ex)
    pd.testing.assert_frame_equal(df, reference_table(GRID, 3, 11))


def test_dask_local_cluster_gives_the_serial_table():
    distributed = pytest.importorskip("distributed")  # the test extra installs it
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        df = sweep(draw, GRID, seeds=2, seed=11, executor=client)
        # a function defined on the fly (a notebook's) travels by value to Dask
        local = sweep(lambda seed: {"twice": 2 * seed}, {}, seeds=2, seed=0, executor=client)
    pd.testing.assert_frame_equal(df, reference_table(GRID, 2, 11))
    assert (local["twice"] == 2 * local["seed"]).all()


def test_progress_bar_counts_runs(capsys):
    sweep(draw, GRID, seed=0, progress=True)
    err = capsys.readouterr().err
    assert "sweep" in err and "/6" in err


calls = []


def counting(n, seed):
    calls.append(n)
    return {"n2": n * n}


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(fn=3, grid={"n": [1]}), ScenarioTypeError, "sweep.fn must be a callable"),
    (dict(grid=[("n", [1])]), ScenarioTypeError, "sweep.grid must be a mapping"),
    (dict(grid={"n": 3}), ScenarioTypeError, r"grid\['n'\] must be a list of values, got 3; write \[3\]"),
    (dict(grid={"n": "abc"}), ScenarioTypeError, r"grid\['n'\] must be a list"),
    (dict(grid={"n": []}), ScenarioError, r"grid\['n'\] is empty"),
    (dict(grid={"seed": [1]}), ScenarioError, "'seed' is a column the sweep adds itself"),
    (dict(grid={"not valid": [1]}), ScenarioError, "not a valid parameter name"),
    (dict(seeds=0), ScenarioError, "sweep.seeds must be an int >= 1"),
    (dict(seeds=True), ScenarioError, "sweep.seeds must be an int >= 1"),
    (dict(seed=-1), ScenarioError, "sweep.seed must be"),
    (dict(seed=1.5), ScenarioTypeError, "sweep.seed must be"),
    (dict(executor="processes"), ScenarioTypeError, "executor must be None"),
    (dict(progress="yes"), ScenarioTypeError, "progress must be True, False or None"),
    (dict(common_seeds=1), ScenarioTypeError, "common_seeds must be True or False"),
])
def test_bad_input_raises_before_any_run(kwargs, error, match):
    args = dict(fn=counting, grid={"n": [1, 2]}, seed=0) | kwargs
    calls.clear()
    with pytest.raises(error, match=match):
        sweep(args.pop("fn"), args.pop("grid"), **args)
    assert calls == []


@pytest.mark.parametrize("fn, error, match", [
    (lambda n, seed: [n], ScenarioTypeError, "fn must return a dict of scalars, got list"),
    (lambda n, seed: {"x": np.ones(3)}, ScenarioTypeError, r"fn returned x=.*must be a scalar"),
    (lambda n, seed: {"n": 1}, ScenarioError, "'n', which is already a column"),
    (lambda n, seed: {1: 1}, ScenarioTypeError, "non-string name 1"),
    (lambda n, seed: {"a" if n == 1 else "b": 0}, ScenarioError, r"returned the names \['b'\]"),
])
def test_bad_results_are_named(fn, error, match):
    with pytest.raises(error, match=match):
        sweep(fn, {"n": [1, 2]}, seed=0)


def failing(n, seed):
    if n == 2:
        raise ZeroDivisionError("boom")
    return {"n": n}


@pytest.mark.parametrize("executor", [None, "threads"])
def test_an_exception_in_fn_names_its_run(executor):
    ex = ThreadPoolExecutor(2) if executor else None
    try:
        with pytest.raises(ZeroDivisionError, match="boom") as info:
            sweep(failing, {"n": [1, 2, 3]}, seed=0, executor=ex)
    finally:
        if ex:
            ex.shutdown()
    assert any("fn(n=2, seed=" in note for note in getattr(info.value, "__notes__", ["fn(n=2, seed="]))


def test_a_process_pool_refuses_a_lambda_with_a_fix():
    with ProcessPoolExecutor(1) as ex, pytest.raises(ScenarioTypeError, match="module level"):
        sweep(lambda seed: {"x": 1}, {}, seed=0, executor=ex)


def test_sweep_is_exported():
    assert "sweep" in qosmodels.__all__ and qosmodels.sweep is sweep


def test_the_delayed_bar_stays_hidden_for_a_short_call_and_shows_for_a_long_one(capsys,
                                                                                   monkeypatch):
    import time

    from qosmodels import _progress

    def run(delay):
        p = _progress.Progress(3, None, "work", "step")
        for _ in range(3):
            time.sleep(delay)
            p.update()
        p.close()
        return capsys.readouterr().err

    assert "work" not in run(0.0)  # done before PROGRESS_AFTER: no bar
    monkeypatch.setattr(_progress, "PROGRESS_AFTER", 0.05)
    assert "work" in run(0.1)      # still going after it: a bar
    p = _progress.Progress(3, False, "never", "step")
    p.update()
    p.close()
    assert p.bar is None and "never" not in capsys.readouterr().err
