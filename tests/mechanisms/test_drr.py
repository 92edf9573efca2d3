"""qosmodels.mechanisms.drr.Drr: its default and its validation rules, one test each
(DESIGN.md, practice 1)."""

import dataclasses
import math

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import Drr, QueueSpec


def test_the_default_quantum_is_left_to_the_link():
    # None: the largest packet size of the flows crossing the link (resolved when compiled)
    q = Drr()
    assert q.quantum is None
    assert isinstance(q, QueueSpec) and q.kind == "drr" and q.kernel == "queues.drr"
    assert q.n_classes == 1


def test_the_quantum_is_normalised_to_float_and_frozen():
    q = Drr(quantum=1500)
    assert q.quantum == 1500.0 and isinstance(q.quantum, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.quantum = 500.0


@pytest.mark.parametrize("bad", [0, -1500.0])
def test_a_quantum_not_above_zero_is_refused(bad):
    with pytest.raises(ScenarioError, match=r"Drr\.quantum must be > 0 \(in bytes\), got"):
        Drr(quantum=bad)


@pytest.mark.parametrize("bad", [math.inf, math.nan])
def test_a_quantum_not_finite_is_refused(bad):
    with pytest.raises(ScenarioError, match=r"Drr\.quantum must be finite"):
        Drr(quantum=bad)


@pytest.mark.parametrize("bad", ["1500", True, [1500]])
def test_a_quantum_not_a_number_is_refused(bad):
    with pytest.raises(ScenarioTypeError, match=r"Drr\.quantum must be a real number"):
        Drr(quantum=bad)
