"""qosmodels.mechanisms.codel.Codel: its defaults (RFC 8289's) and its validation rules, one
test each (DESIGN.md, practice 1)."""

import dataclasses
import math

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import Codel, QueueSpec


def test_the_defaults_are_rfc_8289s():
    # RFC 8289, Section 4: target 5 ms, interval 100 ms; MAXPACKET an MTU (1500: Ethernet's)
    q = Codel()
    assert (q.target, q.interval, q.mtu, q.mark, q.record_drops) == (0.005, 0.1, 1500, False,
                                                                     False)
    assert isinstance(q, QueueSpec) and q.kind == "codel" and q.kernel == "queues.codel"
    assert q.n_classes == 1


def test_fields_are_normalised_and_frozen():
    q = Codel(target=1, interval=2, mtu=9000.0)
    assert isinstance(q.target, float) and isinstance(q.interval, float)
    assert q.mtu == 9000 and isinstance(q.mtu, int)
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.target = 0.01


@pytest.mark.parametrize("field", ["target", "interval"])
@pytest.mark.parametrize("value, match", [
    (0, r"must be > 0 \(in s\), got 0"),
    (-0.005, r"must be > 0 \(in s\), got -0.005"),
    (math.inf, r"must be finite \(in s\), got inf"),
    (math.nan, r"must be finite \(in s\), got nan"),
])
def test_times_must_be_positive_and_finite(field, value, match):
    with pytest.raises(ScenarioError, match=rf"Codel\.{field} {match}"):
        Codel(**{field: value})


@pytest.mark.parametrize("field", ["target", "interval"])
def test_times_must_be_numbers(field):
    with pytest.raises(ScenarioTypeError,
                       match=rf"Codel\.{field} must be a real number \(in s\), got '5ms'"):
        Codel(**{field: "5ms"})


@pytest.mark.parametrize("value, error, match", [
    (0, ScenarioError, r"Codel\.mtu must be >= 1 \(in bytes\), got 0"),
    (-1500, ScenarioError, r"Codel\.mtu must be >= 1 \(in bytes\), got -1500"),
    (1500.5, ScenarioError, r"Codel\.mtu must be a whole number \(in bytes\), got 1500.5"),
    (None, ScenarioTypeError, r"Codel\.mtu must be an integer \(in bytes\), got None"),
])
def test_mtu_must_be_a_positive_whole_number_of_bytes(value, error, match):
    with pytest.raises(error, match=match):
        Codel(mtu=value)


@pytest.mark.parametrize("field", ["mark", "record_drops"])
def test_flags_must_be_booleans(field):
    with pytest.raises(ScenarioTypeError, match=rf"Codel\.{field} must be True or False, got 1"):
        Codel(**{field: 1})
