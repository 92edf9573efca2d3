"""The ACC source spec: validation, the paper's defaults."""

from __future__ import annotations

import pytest

from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.mechanisms import Accumulation


def test_defaults_are_table_i():
    s = Accumulation()
    # Table I: kappa 0.5, a* 3000 bytes (1000-byte packets)
    assert (s.control, s.estimator, s.kappa, s.target) == ("P", "vegas", 0.5, 3000.0)
    assert s.windowed and s.kind == "acc" and not s.green


def test_names_are_case_insensitive():
    s = Accumulation(control="aiad", estimator="Vegas-K", k=3)
    assert (s.control, s.estimator, s.k) == ("AIAD", "vegas-k", 3)
    assert Accumulation(control="mw").control == "MW"
    m = Accumulation(estimator="Monaco")
    assert m.estimator == "monaco" and m.out_of_band and not s.out_of_band


@pytest.mark.parametrize("kwargs, match", [
    ({"kappa": 0}, r"Accumulation.kappa must be > 0"),
    ({"kappa": -0.5}, r"Accumulation.kappa must be > 0"),
    ({"target": 0}, r"Accumulation.target must be > 0"),
    ({"k": 0}, r"Accumulation.k must be >= 1"),
    ({"k": 9}, r"Accumulation.k must be in \[1, 8\]"),
    ({"control": "PI"}, r"Accumulation.control must be one of \['P', 'AIAD', 'MW'\]"),
    ({"estimator": "ideal"},
     r"Accumulation.estimator must be one of \['vegas', 'vegas-k', 'monaco'\]"),
    ({"initial_window": 5, "max_window": 4}, r"initial_window must be <= max_window"),
    ({"max_window": 0.5}, r"Accumulation.max_window must be >= 1"),
    ({"beta": 1.0}, r"Accumulation.beta must be > 1"),
    # Vegas-k's window given to an estimator that has none
    ({"estimator": "vegas", "k": 3}, r"Accumulation.k = 3 applies only to estimator='vegas-k'"),
    ({"estimator": "monaco", "k": 2}, r"Accumulation.k = 2 applies only to estimator='vegas-k'"),
])
def test_bad_accumulation(kwargs, match):
    with pytest.raises(ScenarioError, match=match):
        Accumulation(**kwargs)


@pytest.mark.parametrize("kwargs", [{"control": 6}, {"estimator": None}, {"kappa": "0.5"}])
def test_bad_types(kwargs):
    with pytest.raises(ScenarioTypeError, match="Accumulation"):
        Accumulation(**kwargs)
