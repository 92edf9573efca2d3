"""A long fluid run shows a progress bar with the time left (issue 33: runs that take
minutes silently)."""

from __future__ import annotations

import importlib

import numpy as np

from qosmodels import Flow, Link, Network
from qosmodels.fluid import solve_fluid


def test_a_long_fluid_run_shows_a_bar_and_a_short_one_does_not(capsys, monkeypatch):
    progress = importlib.import_module("qosmodels._progress")
    fluid = importlib.import_module("qosmodels.fluid")
    net = Network([Link("a", "b", 1e6, 0.01)], [Flow(["a", "b"])])
    quiet = solve_fluid(net, 2.0)
    assert "solve_fluid" not in capsys.readouterr().err
    monkeypatch.setattr(progress, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(fluid, "SLICE_WORK", 1000.0)  # many slices: the bar counts them
    shown = solve_fluid(net, 2.0)
    err = capsys.readouterr().err
    assert "solve_fluid" in err and "slice" in err
    np.testing.assert_array_equal(quiet.rates, shown.rates)  # slicing changes nothing
