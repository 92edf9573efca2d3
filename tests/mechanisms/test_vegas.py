"""The TCP Vegas spec: validation, Brakmo and Peterson's defaults."""

from __future__ import annotations

import pytest

from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.mechanisms import TcpNewReno, TcpVegas


def test_defaults_are_brakmo_and_petersons():
    s = TcpVegas()
    # alpha 2, beta 4, gamma 1 (Brakmo and Peterson; ns-3's and Linux's defaults)
    assert (s.alpha, s.beta, s.gamma, s.loss_rule) == (2.0, 4.0, 1.0, "reno")
    assert s.kind == "vegas" and s.windowed and s.rtt_samples == "ack"
    # NewReno's recovery, timers and options come with it
    assert isinstance(s, TcpNewReno)
    assert TcpVegas(recovery="pipe", timer="impatient").recovery == "pipe"


@pytest.mark.parametrize("kwargs, match", [
    ({"alpha": -1}, r"TcpVegas.alpha must be >= 0"),
    ({"alpha": 5, "beta": 4}, r"TcpVegas.beta must be >= alpha = 5.0"),
    ({"gamma": -0.5}, r"TcpVegas.gamma must be >= 0"),
    ({"loss_rule": "halve"}, r"TcpVegas.loss_rule must be one of \['reno', 'ns-3'\]"),
    ({"rtt_estimate": "min"}, r"TcpVegas.rtt_estimate must be one of \[.sample., .smoothed.\]"),
    ({"rtt_samples": "segment"}, r"TcpVegas.rtt_samples must be 'ack'"),
    ({"ecn": True}, r"TcpVegas.ecn must be False"),
    ({"increase": 2.0}, r"TcpVegas.increase must be 1"),
    ({"max_window": 0}, r"TcpVegas.max_window must be >= 1"),
])
def test_bad_vegas(kwargs, match):
    with pytest.raises(ScenarioError, match=match):
        TcpVegas(**kwargs)


@pytest.mark.parametrize("kwargs", [{"alpha": "2"}, {"beta": None}, {"loss_rule": 1}])
def test_bad_types(kwargs):
    with pytest.raises((ScenarioTypeError, ScenarioError), match="TcpVegas"):
        TcpVegas(**kwargs)
