"""Fairness metrics against hand-computed values (Jain, Chiu, Hawe 1984)."""

import numpy as np
import pytest

from qosmodels import ScenarioError, coefficient_of_variation, jain_index, maxmin_jain_index


def test_jain_index_extremes_and_a_hand_value():
    assert jain_index([3, 3, 3]) == 1.0
    assert jain_index([1, 0, 0, 0]) == 0.25
    # (1 + 2 + 3)^2 / (3 * (1 + 4 + 9)) = 36 / 42
    assert jain_index([1, 2, 3]) == pytest.approx(36 / 42)
    assert jain_index([0, 0]) == 1.0


def test_maxmin_normalised_index():
    # rates exactly proportional to their fair shares are perfectly fair
    assert maxmin_jain_index([1, 2, 4], [1, 2, 4]) == pytest.approx(1.0)
    # normalised values 1, 0.5 -> (1.5)^2 / (2 * 1.25) = 0.9
    assert maxmin_jain_index([2, 1], [2, 2]) == pytest.approx(0.9)


def test_coefficient_of_variation():
    assert coefficient_of_variation([2, 2, 2]) == 0.0
    assert coefficient_of_variation([1, 3]) == pytest.approx(0.5)  # std 1, mean 2


def test_metric_validation():
    with pytest.raises(ScenarioError, match="non-empty 1-d"):
        jain_index([])
    with pytest.raises(ScenarioError, match="must be >= 0"):
        jain_index([1, -1])
    with pytest.raises(ScenarioError, match="must be finite"):
        jain_index([1, np.nan])
    with pytest.raises(ScenarioError, match="shape of rates"):
        maxmin_jain_index([1, 2], [1])
    with pytest.raises(ScenarioError, match="fair_shares must be > 0"):
        maxmin_jain_index([1, 2], [1, 0])
    with pytest.raises(ScenarioError, match="undefined"):
        coefficient_of_variation([0, 0])
