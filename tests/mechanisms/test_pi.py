"""qosmodels.mechanisms.pi.Pi: its defaults (Hollot et al.'s example as ns-2 ships it) and
its validation rules, one test each (DESIGN.md, practice 1)."""

import dataclasses
import math

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import Pi, QueueSpec


def test_the_defaults_are_the_papers_example_as_ns2_ships_it():
    # ns-2 tcl/lib/ns-default.tcl: Queue/PI a_ 0.00001822, b_ 0.00001816, w_ 170, qref_ 50
    q = Pi()
    assert (q.a, q.b, q.sampling_rate, q.q_ref, q.ecn, q.record) == (
        1.822e-5, 1.816e-5, 170.0, 50.0, False, False)
    assert isinstance(q, QueueSpec) and q.kind == "pi" and q.kernel == "queues.pi"
    assert q.n_classes == 1


def test_fields_are_normalised_and_frozen():
    q = Pi(a=0, b=1, sampling_rate=100, q_ref=20)
    assert all(isinstance(getattr(q, f), float) for f in ("a", "b", "sampling_rate", "q_ref"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.a = 0.1


@pytest.mark.parametrize("field, unit", [("a", "1/packet"), ("b", "1/packet"),
                                         ("q_ref", "packets")])
@pytest.mark.parametrize("value, match", [
    (-1e-5, r"must be >= 0 \(in {u}\), got -1e-05"),
    (math.inf, r"must be finite \(in {u}\), got inf"),
    (math.nan, r"must be finite \(in {u}\), got nan"),
])
def test_gains_and_reference_must_be_non_negative_and_finite(field, unit, value, match):
    with pytest.raises(ScenarioError, match=rf"Pi\.{field} " + match.format(u=unit)):
        Pi(**{field: value})


@pytest.mark.parametrize("value, match", [
    (0, r"must be > 0 \(in Hz\), got 0"),
    (-170, r"must be > 0 \(in Hz\), got -170"),
    (math.inf, r"must be finite \(in Hz\), got inf"),
    (1e300, r"must be <= 1000000.0 \(in Hz\), got 1e\+300"),
])
def test_sampling_rate_must_be_positive_and_finite(value, match):
    with pytest.raises(ScenarioError, match=rf"Pi\.sampling_rate {match}"):
        Pi(sampling_rate=value)


@pytest.mark.parametrize("field", ["a", "b", "sampling_rate", "q_ref"])
def test_numbers_must_be_numbers(field):
    with pytest.raises(ScenarioTypeError, match=rf"Pi\.{field} must be a real number"):
        Pi(**{field: "50"})


@pytest.mark.parametrize("field", ["ecn", "record"])
def test_flags_must_be_booleans(field):
    with pytest.raises(ScenarioTypeError, match=rf"Pi\.{field} must be True or False, got 1"):
        Pi(**{field: 1})
