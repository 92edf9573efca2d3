"""The shared validators (``qosmodels._validate``): each bound, and what the message names."""

from __future__ import annotations

import math

import pytest

from qosmodels._validate import integer, real
from qosmodels.errors import ScenarioError, ScenarioTypeError


@pytest.mark.parametrize("kw, bad, good", [
    ({"gt": 0}, 0.0, 1e-300), ({"ge": 0}, -1e-300, 0.0),
    ({"lt": 1}, 1.0, 1 - 1e-16), ({"le": 1}, 1 + 1e-15, 1.0),
])
def test_real_bounds(kw, bad, good):
    assert real("Owner", "x", good, **kw) == good
    (op, bound), = kw.items()
    sign = {"gt": ">", "ge": ">=", "lt": "<", "le": "<="}[op]
    with pytest.raises(ScenarioError, match=rf"Owner\.x must be {sign} {bound} \(in s\), got"):
        real("Owner", "x", bad, unit="s", **kw)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 10**400, -10**400])
def test_real_refuses_non_finite(value):
    with pytest.raises(ScenarioError, match="Owner.x must be finite"):
        real("Owner", "x", value)
    if not isinstance(value, float):
        with pytest.raises(ScenarioError, match="Owner.x must be finite, got an integer of 401"):
            integer("Owner", "x", value)


@pytest.mark.parametrize("value", ["1.0", True, None, [1.0], 1j])
def test_real_refuses_non_numbers(value):
    with pytest.raises(ScenarioTypeError, match="Owner.x must be a real number"):
        real("Owner", "x", value)


def test_integer_bounds_and_types():
    assert integer("Owner", "n", 3.0, ge=1, le=3) == 3
    with pytest.raises(ScenarioError, match=r"Owner\.n must be <= 3, got 4"):
        integer("Owner", "n", 4, le=3)
    with pytest.raises(ScenarioError, match=r"Owner\.n must be >= 1, got 0"):
        integer("Owner", "n", 0, ge=1)
    with pytest.raises(ScenarioError, match="whole number"):
        integer("Owner", "n", 2.5)
    with pytest.raises(ScenarioTypeError, match="must be an integer"):
        integer("Owner", "n", False)
