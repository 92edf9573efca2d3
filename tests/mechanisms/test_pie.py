"""qosmodels.mechanisms.pie.Pie: its defaults (RFC 8033's) and its validation rules, one
test each (DESIGN.md, practice 1)."""

import dataclasses
import math

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import Pie, QueueSpec


def test_the_defaults_are_rfc_8033s():
    # RFC 8033, Section 4.2 and Appendix A: QDELAY_REF 15 ms, T_UPDATE 15 ms, alpha 1/8,
    # beta 1 + 1/4; Section 4.4: MAX_BURST 150 ms; MEAN_PKTSIZE unstated (1500 bytes)
    q = Pie()
    assert (q.target, q.t_update, q.alpha, q.beta, q.max_burst) == (0.015, 0.015, 0.125,
                                                                    1.25, 0.15)
    assert (q.mean_packet_size, q.ecn, q.dq_rate_estimator, q.record) == (1500, False, False,
                                                                          False)
    assert isinstance(q, QueueSpec) and q.kind == "pie" and q.kernel == "queues.pie"
    assert q.n_classes == 1


def test_fields_are_normalised_and_frozen():
    q = Pie(target=1, t_update=2, alpha=0, beta=3, max_burst=0, mean_packet_size=9000.0)
    assert all(isinstance(getattr(q, f), float)
               for f in ("target", "t_update", "alpha", "beta", "max_burst"))
    assert q.mean_packet_size == 9000 and isinstance(q.mean_packet_size, int)
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.target = 0.01


@pytest.mark.parametrize("value, match", [
    (0, r"must be > 0 \(in s\), got 0"),
    (-0.015, r"must be > 0 \(in s\), got -0.015"),
    (math.inf, r"must be finite \(in s\), got inf"),
    (math.nan, r"must be finite \(in s\), got nan"),
])
def test_target_must_be_positive_and_finite(value, match):
    with pytest.raises(ScenarioError, match=rf"Pie\.target {match}"):
        Pie(target=value)


@pytest.mark.parametrize("value, match", [
    (0, r"must be >= 1e-06 \(in s\), got 0"),
    (1e-300, r"must be >= 1e-06 \(in s\), got 1e-300"),
    (-0.015, r"must be >= 1e-06 \(in s\), got -0.015"),
    (math.inf, r"must be finite \(in s\), got inf"),
])
def test_t_update_must_be_at_least_a_microsecond_and_finite(value, match):
    # each update is a timer event: a period below float resolution would never advance
    with pytest.raises(ScenarioError, match=rf"Pie\.t_update {match}"):
        Pie(t_update=value)


@pytest.mark.parametrize("field, unit", [("alpha", "1/s"), ("beta", "1/s"),
                                         ("max_burst", "s")])
@pytest.mark.parametrize("value, match", [
    (-0.5, r"must be >= 0 \(in {u}\), got -0.5"),
    (math.inf, r"must be finite \(in {u}\), got inf"),
])
def test_weights_and_burst_must_be_non_negative_and_finite(field, unit, value, match):
    with pytest.raises(ScenarioError, match=rf"Pie\.{field} " + match.format(u=unit)):
        Pie(**{field: value})


@pytest.mark.parametrize("field", ["target", "t_update", "alpha", "beta", "max_burst"])
def test_numbers_must_be_numbers(field):
    with pytest.raises(ScenarioTypeError, match=rf"Pie\.{field} must be a real number"):
        Pie(**{field: "15ms"})


@pytest.mark.parametrize("value, error, match", [
    (0, ScenarioError, r"Pie\.mean_packet_size must be >= 1 \(in bytes\), got 0"),
    (1500.5, ScenarioError,
     r"Pie\.mean_packet_size must be a whole number \(in bytes\), got 1500.5"),
    (None, ScenarioTypeError, r"Pie\.mean_packet_size must be an integer \(in bytes\)"),
])
def test_mean_packet_size_must_be_a_positive_whole_number_of_bytes(value, error, match):
    with pytest.raises(error, match=match):
        Pie(mean_packet_size=value)


@pytest.mark.parametrize("field", ["ecn", "dq_rate_estimator", "record"])
def test_flags_must_be_booleans(field):
    with pytest.raises(ScenarioTypeError, match=rf"Pie\.{field} must be True or False, got 1"):
        Pie(**{field: 1})
