"""qosmodels.mechanisms.priority: Priority's validation rules."""

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import Priority


@pytest.mark.parametrize("classes, match", [
    (1, r"Priority.classes must be >= 2"),
    (2.5, r"Priority.classes must be a whole number"),
])
def test_bad_priority_classes(classes, match):
    with pytest.raises(ScenarioError, match=match):
        Priority(classes=classes)


def test_priority_classes_must_be_a_number():
    with pytest.raises(ScenarioTypeError, match=r"Priority.classes must be an integer, got '2'"):
        Priority(classes="2")


def test_priority_has_its_classes():
    q = Priority(classes=3.0)
    assert q.classes == 3 and type(q.classes) is int
    assert q.n_classes == 3
    assert Priority().n_classes == 2
