"""The experiments registry and its checks."""

import json

import pytest

from qosmodels import ScenarioError
from qosmodels.experiments import Check, _load_all, experiments, validate


def test_registered_experiments():
    _load_all()
    assert {"parking-lot-proportional", "parking-lot-maxmin", "acc-fig9"} <= set(experiments())


def test_validate_all_within_tolerance():
    report = validate()
    assert report.ok and len(report.checks) >= 32
    assert "all within tolerance" in str(report)
    df = report.to_pandas()
    assert {"experiment", "quantity", "expected", "measured", "tolerance", "ok"} <= set(df.columns)


def test_acc_fig9_values_are_the_papers():
    checks = validate(["acc-fig9"]).checks
    by = {c.quantity: c for c in checks}
    assert by["long-flow rate, N=5"].expected == pytest.approx(12.5)  # the paper's 12.5 Mb/s
    assert by["short-flow rate, N=5"].expected == pytest.approx(62.5)


def test_check_verdict_and_json():
    bad = Check("x", "q", expected=10.0, measured=11.0, tolerance=0.05)
    good = Check("x", "q", expected=10.0, measured=10.4, tolerance=0.05)
    assert not bad.ok and good.ok and bad.error == pytest.approx(0.1)
    zero = Check("x", "q", expected=0.0, measured=0.01, tolerance=0.1)
    assert zero.ok  # absolute when expected is 0
    assert json.loads(json.dumps(bad.as_dict()))["ok"] is False


def test_unknown_experiment():
    with pytest.raises(ScenarioError, match="unknown experiment"):
        validate(["no-such-thing"])
