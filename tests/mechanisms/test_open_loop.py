"""qosmodels.mechanisms.open_loop: Cbr, Poisson and OnOff validation rules."""

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import Cbr, OnOff, Poisson


@pytest.mark.parametrize("make, match", [
    (lambda: Cbr(rate=0.0), r"Cbr.rate must be > 0 \(in bit/s\)"),
    (lambda: Cbr(rate=float("inf")), r"Cbr.rate must be finite"),
    (lambda: Cbr(packet_size=-5), r"Cbr.packet_size must be >= 1"),
    (lambda: Cbr(priority=-1), r"Cbr.priority must be >= 0"),
])
def test_bad_cbr(make, match):
    with pytest.raises(ScenarioError, match=match):
        make()


@pytest.mark.parametrize("make, match", [
    (lambda: Poisson(rate=-1.0), r"Poisson.rate must be > 0"),
    (lambda: Poisson(window=0), r"Poisson.window must be >= 1 \(in packets\)"),
    (lambda: Poisson(beta=1.0), r"Poisson.beta must be > 1"),
    (lambda: Poisson(rtt_gain=0.0), r"Poisson.rtt_gain must be > 0"),
    (lambda: Poisson(rtt_gain=2.0), r"Poisson.rtt_gain must be in \(0, 1\]"),
    (lambda: Poisson(initial_rtt=0.0), r"Poisson.initial_rtt must be > 0 \(in s\)"),
    (lambda: Poisson(packet_size=0), r"Poisson.packet_size must be >= 1"),
    (lambda: Poisson(priority=-1), r"Poisson.priority must be >= 0"),
])
def test_bad_poisson(make, match):
    with pytest.raises(ScenarioError, match=match):
        make()


@pytest.mark.parametrize("make, match", [
    (lambda: OnOff(rate=0.0), r"OnOff.rate must be > 0"),
    (lambda: OnOff(on_time=0.0), r"OnOff.on_time must be > 0 \(in s\)"),
    (lambda: OnOff(off_time=0.0), r"OnOff.off_time must be > 0 \(in s\)"),
    (lambda: OnOff(packet_size=0), r"OnOff.packet_size must be >= 1"),
    (lambda: OnOff(priority=-1), r"OnOff.priority must be >= 0"),
])
def test_bad_onoff(make, match):
    with pytest.raises(ScenarioError, match=match):
        make()


def test_onoff_exponential_must_be_a_boolean():
    with pytest.raises(ScenarioTypeError, match=r"OnOff.exponential must be True or False, got 0"):
        OnOff(exponential=0)


def test_only_a_poisson_source_with_a_window_is_windowed():
    assert not Cbr().windowed and not OnOff().windowed
    assert not Poisson().windowed
    assert Poisson(window=3).windowed
