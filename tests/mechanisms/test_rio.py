"""qosmodels.mechanisms.rio.Rio: its validation rules, one test each (DESIGN.md, practice 1)."""

import dataclasses
import math

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import Red, Rio


@pytest.mark.parametrize("side, lo, hi", [("in", 70, 40), ("in", 50, 50), ("out", 30, 10),
                                          ("out", 0.5, 0.5)])
def test_a_curve_whose_minimum_is_not_below_its_maximum_is_refused_with_the_fix(side, lo, hi):
    with pytest.raises(ScenarioError, match=(
            rf"Rio.min_{side} must be below Rio.max_{side}, got min_{side} = {float(lo)!r} and "
            rf"max_{side} = {float(hi)!r} packets; raise max_{side} or lower min_{side}")):
        Rio(**{f"min_{side}": lo, f"max_{side}": hi})


@pytest.mark.parametrize("side", ["in", "out"])
@pytest.mark.parametrize("value", [1.5, 1.0000001, 7])
def test_max_p_above_one_is_refused(side, value):
    with pytest.raises(ScenarioError, match=(
            rf"Rio.max_p_{side} must be in \(0, 1\] \(the {side} curve's drop probability at "
            rf"max_{side}\), got {value!r}")):
        Rio(**{f"max_p_{side}": value})


@pytest.mark.parametrize("side", ["in", "out"])
@pytest.mark.parametrize("value", [0, 0.0, -0.1])
def test_max_p_must_be_positive(side, value):
    with pytest.raises(ScenarioError, match=rf"Rio.max_p_{side} must be > 0, got {value!r}"):
        Rio(**{f"max_p_{side}": value})


@pytest.mark.parametrize("value, match", [
    (0, r"Rio.w_q must be > 0, got 0"),
    (-0.5, r"Rio.w_q must be > 0, got -0.5"),
    (1.5, r"Rio.w_q must be in \(0, 1\] \(the averages' weight\), got 1.5"),
    (math.nan, r"Rio.w_q must be finite, got nan"),
])
def test_w_q_must_be_in_zero_one(value, match):
    with pytest.raises(ScenarioError, match=match):
        Rio(w_q=value)


@pytest.mark.parametrize("field, value, match", [
    ("min_in", -1, r"Rio.min_in must be >= 0 \(in packets\), got -1"),
    ("min_out", -0.5, r"Rio.min_out must be >= 0 \(in packets\), got -0.5"),
    ("max_in", 0, r"Rio.max_in must be > 0 \(in packets\), got 0"),
    ("max_out", math.inf, r"Rio.max_out must be finite \(in packets\), got inf"),
    ("typical_packet_size", 0, r"Rio.typical_packet_size must be >= 1 \(in bytes\), got 0"),
    ("typical_packet_size", 1.5,
     r"Rio.typical_packet_size must be a whole number \(in bytes\), got 1.5"),
])
def test_out_of_range_numbers_are_refused(field, value, match):
    kw = {"min_in": 0.0, "min_out": 0.0} | {field: value}  # keep min < max where not tested
    with pytest.raises(ScenarioError, match=match):
        Rio(**kw)


@pytest.mark.parametrize("field, value", [("min_in", "40"), ("max_out", None), ("w_q", True),
                                          ("max_p_in", [0.02])])
def test_numbers_must_be_numbers(field, value):
    with pytest.raises(ScenarioTypeError, match=rf"Rio.{field} must be a real number"):
        Rio(**{field: value})


@pytest.mark.parametrize("field", ["gentle", "record_average"])
def test_flags_must_be_booleans(field):
    with pytest.raises(ScenarioTypeError, match=rf"Rio.{field} must be True or False, got 1"):
        Rio(**{field: 1})


def test_defaults_boundaries_and_types():
    q = Rio()
    assert (q.min_in, q.max_in, q.max_p_in) == (40.0, 70.0, 0.02)
    assert (q.min_out, q.max_out, q.max_p_out) == (10.0, 30.0, 0.5)
    assert (q.w_q, q.gentle, q.typical_packet_size, q.record_average) == (0.002, False, 1000,
                                                                          False)
    assert (q.kind, q.kernel, q.n_classes) == ("rio", "queues.rio", 1)
    edge = Rio(min_in=0, max_in=1, max_p_in=1, min_out=0, max_out=1, max_p_out=1, w_q=1)
    assert (edge.max_p_in, edge.max_p_out, edge.w_q) == (1.0, 1.0, 1.0)
    assert type(edge.min_in) is float and type(edge.max_out) is float
    assert not isinstance(q, Red)  # the fluid models must not read it as a RED


def test_rio_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Rio().min_in = 3.0
