"""qosmodels.mechanisms.dctcp.Dctcp: its defaults (RFC 8257's) and its validation rules, one
test each (DESIGN.md, practice 1)."""

import dataclasses
import math

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import Dctcp, SourceSpec, TcpNewReno


def test_the_defaults_are_rfc_8257s():
    # RFC 8257, Section 3.3: g SHOULD be 1/16, DCTCP.Alpha initialised to 1; ECN always
    s = Dctcp()
    assert (s.g, s.initial_alpha, s.ecn, s.record_alpha) == (1 / 16, 1.0, True, False)
    assert isinstance(s, SourceSpec) and isinstance(s, TcpNewReno)
    assert (s.kind, s.kernel, s.windowed) == ("dctcp", "sources.dctcp", True)
    # NewReno's window and timer fields, with their defaults
    assert (s.max_window, s.initial_window, s.min_rto, s.recovery) == (1000, 1, 0.2,
                                                                       "inflation")


def test_fields_are_normalised_and_frozen():
    s = Dctcp(g=1, initial_alpha=0, max_window=64)
    assert (s.g, s.initial_alpha) == (1.0, 0.0)
    assert isinstance(s.g, float) and isinstance(s.initial_alpha, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.g = 0.5


def test_dctcp_is_always_ecn_capable():
    with pytest.raises(ScenarioError, match=r"Dctcp.ecn must be True \(DCTCP's data packets "
                                            r"are always ECN-capable; use TcpNewReno"):
        Dctcp(ecn=False)


@pytest.mark.parametrize("value, match", [
    (0, r"Dctcp\.g must be > 0, got 0"),
    (-0.1, r"Dctcp\.g must be > 0, got -0.1"),
    (1.5, r"Dctcp\.g must be <= 1, got 1.5"),
    (math.nan, r"Dctcp\.g must be finite, got nan"),
])
def test_the_gain_must_be_in_0_1(value, match):
    with pytest.raises(ScenarioError, match=match):
        Dctcp(g=value)


@pytest.mark.parametrize("value, match", [
    (-0.5, r"Dctcp\.initial_alpha must be >= 0, got -0.5"),
    (1.01, r"Dctcp\.initial_alpha must be <= 1, got 1.01"),
    (math.inf, r"Dctcp\.initial_alpha must be finite, got inf"),
])
def test_the_initial_alpha_must_be_a_fraction(value, match):
    with pytest.raises(ScenarioError, match=match):
        Dctcp(initial_alpha=value)


def test_the_gain_must_be_a_number():
    with pytest.raises(ScenarioTypeError, match=r"Dctcp\.g must be a real number"):
        Dctcp(g="1/16")


def test_record_alpha_must_be_a_boolean():
    with pytest.raises(ScenarioTypeError, match=r"Dctcp\.record_alpha must be True or False, "
                                                r"got 1"):
        Dctcp(record_alpha=1)


def test_newrenos_rules_still_apply():
    with pytest.raises(ScenarioError, match=r"Dctcp\.max_window must be >= 1"):
        Dctcp(max_window=0)
    with pytest.raises(ScenarioError, match=r"Dctcp\.recovery must be 'inflation'"):
        Dctcp(recovery="sack")


def test_ect1_is_off_by_default_and_must_be_a_boolean():
    assert Dctcp().ect1 is False and Dctcp(ect1=True).ect1 is True
    with pytest.raises(ScenarioTypeError, match=r"Dctcp\.ect1 must be True or False, got 1"):
        Dctcp(ect1=1)
