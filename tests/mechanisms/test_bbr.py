"""qosmodels.mechanisms.bbr: BbrV1's defaults and validation rules, one test each.

How the rules behave in a run is tested in ``tests/sim/test_bbr.py``."""

import math

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import BbrV1


def test_defaults_are_the_drafts():
    # draft-cardwell-iccrg-bbr-congestion-control-00: BBRHighGain = 2/ln(2), cwnd gain 2 in
    # ProbeBW, BtlBwFilterLen 10 rounds, RTpropFilterLen 10 s, ProbeRTTDuration 200 ms,
    # BBRMinPipeCwnd 4 packets
    s = BbrV1()
    assert s.high_gain == pytest.approx(2 / math.log(2), rel=1e-15)
    assert (s.cwnd_gain, s.btlbw_rounds, s.rtprop_window, s.probe_rtt_time,
            s.min_pipe_cwnd) == (2.0, 10, 10.0, 0.2, 4)
    assert (s.initial_window, s.max_window) == (10, 1000)  # RFC 6928's initial window
    assert (s.kind, s.kernel, s.windowed, s.record) == ("bbr", "sources.bbr", True, False)


@pytest.mark.parametrize("make, match", [
    (lambda: BbrV1(high_gain=1.0), r"BbrV1.high_gain must be > 1, got 1.0"),
    (lambda: BbrV1(cwnd_gain=0), r"BbrV1.cwnd_gain must be > 0, got 0"),
    (lambda: BbrV1(cwnd_gain=float("inf")), r"BbrV1.cwnd_gain must be finite"),
    (lambda: BbrV1(btlbw_rounds=0), r"BbrV1.btlbw_rounds must be >= 1 \(in round trips\)"),
    (lambda: BbrV1(btlbw_rounds=2.5), r"BbrV1.btlbw_rounds must be a whole number"),
    (lambda: BbrV1(rtprop_window=0), r"BbrV1.rtprop_window must be > 0 \(in s\)"),
    (lambda: BbrV1(probe_rtt_time=-0.2), r"BbrV1.probe_rtt_time must be > 0 \(in s\)"),
    (lambda: BbrV1(min_pipe_cwnd=0), r"BbrV1.min_pipe_cwnd must be >= 1 \(in packets\)"),
    (lambda: BbrV1(max_window=0), r"BbrV1.max_window must be >= 1 \(in packets\)"),
    (lambda: BbrV1(initial_window=20, max_window=10),
     r"BbrV1.initial_window must be <= max_window = 10 packets, got 20; lower"),
    (lambda: BbrV1(min_rto=2.0, max_rto=1.0), r"BbrV1.max_rto must be >= min_rto = 2.0 s"),
    (lambda: BbrV1(initial_rto=0), r"BbrV1.initial_rto must be > 0 \(in s\)"),
    (lambda: BbrV1(priority=-1), r"BbrV1.priority must be >= 0"),
])
def test_bad_values(make, match):
    with pytest.raises(ScenarioError, match=match):
        make()


@pytest.mark.parametrize("make, match", [
    (lambda: BbrV1(high_gain="2.9"), r"BbrV1.high_gain must be a real number"),
    (lambda: BbrV1(btlbw_rounds="10"), r"BbrV1.btlbw_rounds must be an integer"),
    (lambda: BbrV1(record=1), r"BbrV1.record must be True or False, got 1"),
    (lambda: BbrV1(green="no"), r"BbrV1.green must be True or False"),
])
def test_wrong_types(make, match):
    with pytest.raises(ScenarioTypeError, match=match):
        make()
