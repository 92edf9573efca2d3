"""qosmodels.mechanisms.window: GenericWindow's validation rules."""

import pytest

from qosmodels import ScenarioError
from qosmodels.mechanisms import GenericWindow


@pytest.mark.parametrize("kwargs, match", [
    (dict(window=0), r"GenericWindow.window must be >= 1 \(in packets\)"),
    (dict(beta=1.0), r"GenericWindow.beta must be > 1"),
    (dict(rtt_gain=0.0), r"GenericWindow.rtt_gain must be > 0"),
    (dict(rtt_gain=1.5), r"GenericWindow.rtt_gain must be in \(0, 1\]"),
    (dict(initial_rtt=0.0), r"GenericWindow.initial_rtt must be > 0 \(in s\)"),
    (dict(packet_size=0), r"GenericWindow.packet_size must be >= 1 \(in bytes\)"),
    (dict(priority=-1), r"GenericWindow.priority must be >= 0"),
])
def test_bad_generic_window(kwargs, match):
    with pytest.raises(ScenarioError, match=match):
        GenericWindow(**kwargs)


def test_generic_window_is_windowed_and_accepts_a_gain_of_one():
    g = GenericWindow(rtt_gain=1, window=8.0)
    assert g.rtt_gain == 1.0 and g.window == 8 and type(g.window) is int
    assert g.windowed and g.packet_size is None
