"""qosmodels.mechanisms.random_loss: RandomLoss's validation rules."""

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import RandomLoss


@pytest.mark.parametrize("p, match", [
    (1.0, r"RandomLoss.p must be in \[0, 1\), got 1.0"),
    (-0.1, r"RandomLoss.p must be >= 0"),
    (float("nan"), r"RandomLoss.p must be finite"),
])
def test_bad_loss_probability(p, match):
    with pytest.raises(ScenarioError, match=match):
        RandomLoss(p)


def test_loss_probability_must_be_a_number():
    with pytest.raises(ScenarioTypeError, match=r"RandomLoss.p must be a real number"):
        RandomLoss("0.1")


def test_zero_loss_is_allowed():
    assert RandomLoss(0).p == 0.0
    assert RandomLoss().n_classes == 1


def test_periodic_must_be_a_flag():
    with pytest.raises(ScenarioTypeError, match=r"RandomLoss.periodic must be True or False"):
        RandomLoss(0.1, periodic=1)
    assert RandomLoss(0.1, periodic=True).periodic
