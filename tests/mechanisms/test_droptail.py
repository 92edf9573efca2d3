"""qosmodels.mechanisms.droptail: the default queue discipline, and its DCTCP marking threshold
(Alizadeh et al. 2010, Section 3.1; RFC 8257, Section 3.1), one test per validation rule."""

import dataclasses
import math

import pytest

from qosmodels import Link, ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import DropTail, QueueSpec


def test_droptail_is_the_default_queue_with_one_class():
    q = DropTail()
    assert isinstance(q, QueueSpec)
    assert q.n_classes == 1
    assert (q.kind, q.kernel) == ("droptail", "queues.droptail")
    assert Link("a", "b", 1e6).queue == q
    assert [f.name for f in dataclasses.fields(q)] == ["mark_threshold"]
    assert q.mark_threshold is None  # no marking: the plain drop-tail queue


def test_droptail_takes_no_positional_arguments():
    with pytest.raises(TypeError):
        DropTail(10)


def test_the_marking_threshold_is_a_number_of_packets():
    q = DropTail(mark_threshold=20)
    assert q.mark_threshold == 20.0 and isinstance(q.mark_threshold, float)
    assert DropTail(mark_threshold=0).mark_threshold == 0.0
    assert DropTail(mark_threshold=20) == DropTail(mark_threshold=20.0) != DropTail()


@pytest.mark.parametrize("value, match", [
    (-1, r"DropTail\.mark_threshold must be >= 0 \(in packets\), got -1"),
    (math.inf, r"DropTail\.mark_threshold must be finite \(in packets\), got inf"),
    (math.nan, r"DropTail\.mark_threshold must be finite \(in packets\), got nan"),
])
def test_the_marking_threshold_must_be_finite_and_not_negative(value, match):
    with pytest.raises(ScenarioError, match=match):
        DropTail(mark_threshold=value)


@pytest.mark.parametrize("value", ["20", True])
def test_the_marking_threshold_must_be_a_real_number(value):
    with pytest.raises(ScenarioTypeError, match=r"DropTail\.mark_threshold must be a real number"):
        DropTail(mark_threshold=value)
