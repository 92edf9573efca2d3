"""The FairQueueing spec: fields, validation, and what it tells the other analyses."""

from __future__ import annotations

import math

import pytest

from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.mechanisms import FairQueueing, QueueSpec


def test_defaults_and_fields():
    q = FairQueueing()
    assert isinstance(q, QueueSpec)
    assert q.delta == 0.0 and q.record_round is False and q.n_classes == 1
    assert q.charge_drops is True  # the paper's rule
    assert FairQueueing(charge_drops=False).charge_drops is False
    assert q.kind == "fq" and q.kernel == "queues.fair_queueing"
    assert FairQueueing(delta=1000).delta == 1000.0
    assert FairQueueing(delta=math.inf).delta == math.inf  # the paper's delta = infinity


@pytest.mark.parametrize("delta", [-1.0, -1e-9, math.nan, -math.inf])
def test_a_negative_or_undefined_delta_is_refused(delta):
    with pytest.raises(ScenarioError, match="FairQueueing.delta"):
        FairQueueing(delta=delta)


@pytest.mark.parametrize("delta", ["0", None, True])
def test_delta_must_be_a_number(delta):
    with pytest.raises(ScenarioTypeError, match="FairQueueing.delta"):
        FairQueueing(delta=delta)


def test_record_round_must_be_a_bool():
    with pytest.raises(ScenarioTypeError, match="record_round"):
        FairQueueing(record_round=1)


@pytest.mark.parametrize("value", [0, 1, "False", None])
def test_charge_drops_must_be_a_bool(value):
    with pytest.raises(ScenarioTypeError, match=r"FairQueueing.charge_drops.*got"):
        FairQueueing(charge_drops=value)


def test_frozen():
    with pytest.raises(AttributeError):
        FairQueueing().delta = 3.0
