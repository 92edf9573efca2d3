"""qosmodels.mechanisms.profile_marker.ProfileMarker: its validation rules, one test each
(DESIGN.md, practice 1), and the per-member profiles checked when a network is compiled."""

import dataclasses
import math

import pytest

from qosmodels import Aggregate, Flow, Link, Network, ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import Cbr, ProfileMarker
from qosmodels.sim.compile import compile_scenario


@pytest.mark.parametrize("value, match", [
    (-1.0, r"ProfileMarker.profile must be >= 0 \(in bit/s\), got -1.0"),
    (math.inf, r"ProfileMarker.profile must be finite \(in bit/s\), got inf"),
    ([1e6, -5.0], r"ProfileMarker.profile\[1\] must be >= 0 \(in bit/s\), got -5.0"),
    ([1e6, math.nan], r"ProfileMarker.profile\[1\] must be finite \(in bit/s\), got nan"),
    ([], r"ProfileMarker.profile must give a rate \(bit/s\), or one per member flow, got an "
         r"empty sequence"),
])
def test_bad_profiles_are_refused(value, match):
    with pytest.raises(ScenarioError, match=match):
        ProfileMarker(profile=value)


@pytest.mark.parametrize("value", ["1e6", None, True, {"a": 1}.keys()])
def test_a_profile_must_be_a_rate_or_rates(value):
    with pytest.raises(ScenarioTypeError, match=r"ProfileMarker.profile"):
        ProfileMarker(profile=value)


@pytest.mark.parametrize("value, match", [
    (0, r"ProfileMarker.window must be > 0 \(in s\), got 0"),
    (-1.0, r"ProfileMarker.window must be > 0 \(in s\), got -1.0"),
    (math.inf, r"ProfileMarker.window must be finite \(in s\), got inf"),
])
def test_window_must_be_positive_and_finite(value, match):
    with pytest.raises(ScenarioError, match=match):
        ProfileMarker(profile=1e6, window=value)


def test_record_must_be_a_boolean():
    with pytest.raises(ScenarioTypeError, match=r"ProfileMarker.record must be True or False"):
        ProfileMarker(profile=1e6, record="yes")


def test_profiles_one_rate_or_one_per_member():
    m = ProfileMarker(profile=3e5)
    assert m.profile == 3e5 and type(m.profile) is float
    assert m.profiles(3) == (3e5, 3e5, 3e5)
    many = ProfileMarker(profile=[6e5, 4e5, 0])
    assert many.profile == (6e5, 4e5, 0.0) and many.profiles(3) == (6e5, 4e5, 0.0)
    assert ProfileMarker(profile=(1e6,)).profiles(1) == (1e6,)
    with pytest.raises(ScenarioError, match=(
            r"ProfileMarker.profile gives 3 rates but its aggregate has 2 member flows; give one "
            r"rate per member \(in the aggregate's member order\) or a single rate for all")):
        many.profiles(2)
    assert (m.window, m.record, m.kind, m.kernel) == (1.0, False, "tsw-marker",
                                                      "edges.profile_marker")


def test_a_profile_per_member_must_match_the_aggregate_when_compiled():
    net = Network([Link("s", "d", 1e6, 0.01)],
                  [Flow(["s", "d"], source=Cbr(rate=1e5)), Flow(["s", "d"], source=Cbr(rate=1e5))],
                  aggregates=[Aggregate("a", flows=[0, 1],
                                        edge=ProfileMarker(profile=[1e5, 2e5, 3e5]))])
    with pytest.raises(ScenarioError, match=r"gives 3 rates but its aggregate has 2 member"):
        compile_scenario(net, 1.0, seed=0)


def test_profile_marker_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        ProfileMarker(profile=1.0).window = 2.0
