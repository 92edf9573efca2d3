"""qosmodels.mechanisms.tcp: TcpReno's and TcpNewReno's validation rules, one test each.

How the rules behave in a run is tested in ``tests/sim/`` (``test_tcp.py``,
``test_timer.py``, ``test_rtt.py``)."""

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import TcpNewReno, TcpReno


@pytest.mark.parametrize("make, match", [
    (lambda: TcpNewReno(max_window=0), r"TcpNewReno.max_window must be >= 1"),
    (lambda: TcpReno(initial_window=0), r"TcpReno.initial_window must be >= 1"),
    (lambda: TcpReno(min_rto=1.0, max_rto=0.5), r"TcpReno.max_rto must be >= min_rto"),
    (lambda: TcpReno(packet_size=0), r"TcpReno.packet_size must be >= 1"),
    (lambda: TcpReno(initial_ssthresh=1), r"TcpReno.initial_ssthresh must be >= 2 \(in packets\)"),
    (lambda: TcpReno(min_rto=0), r"TcpReno.min_rto must be > 0 \(in s\)"),
    (lambda: TcpReno(max_rto=0), r"TcpReno.max_rto must be > 0 \(in s\)"),
    (lambda: TcpNewReno(initial_rto=0), r"TcpNewReno.initial_rto must be > 0 \(in s\)"),
    (lambda: TcpReno(priority=-1), r"TcpReno.priority must be >= 0"),
])
def test_bad_tcp(make, match):
    with pytest.raises(ScenarioError, match=match):
        make()


def test_ecn_must_be_a_boolean():
    with pytest.raises(ScenarioTypeError, match=r"TcpNewReno.ecn must be True or False, got 1"):
        TcpNewReno(ecn=1)


@pytest.mark.parametrize("value", ["rfc6298", "", None, 0, "Impatient"])
def test_timer_must_be_a_named_rule(value):
    with pytest.raises(ScenarioError, match=r"TcpNewReno\.timer must be 'reference', "
                                            r"'impatient' or 'slow-but-steady'"):
        TcpNewReno(timer=value)


@pytest.mark.parametrize("value", ["acks", "", None, 1, "Segment"])
def test_rtt_samples_must_be_segment_or_ack(value):
    with pytest.raises(ScenarioError, match=r"TcpNewReno\.rtt_samples must be 'segment'.*or 'ack'"):
        TcpNewReno(rtt_samples=value)


def test_recovery_must_be_inflation_or_pipe():
    with pytest.raises(ScenarioError, match=r"TcpNewReno\.recovery must be 'inflation'"):
        TcpNewReno(recovery="sack")
    with pytest.raises(ScenarioError, match=r"TcpReno\.recovery must be 'inflation'"):
        TcpReno(recovery=None)


def test_window_arithmetic_is_validated():
    with pytest.raises(ScenarioError, match=r"TcpNewReno\.window_arithmetic must be 'packets'"):
        TcpNewReno(window_arithmetic="octets")
    with pytest.raises(ScenarioError, match=r"window_arithmetic='bytes' needs segment_size"):
        TcpReno(window_arithmetic="bytes")
    with pytest.raises(ScenarioError, match=r"TcpNewReno\.segment_size"):
        TcpNewReno(window_arithmetic="bytes", segment_size=0)
    with pytest.raises(ScenarioTypeError, match=r"TcpNewReno\.segment_size"):
        TcpNewReno(window_arithmetic="bytes", segment_size="958")


def test_newreno_is_a_reno_with_its_own_kind_on_the_same_kernel():
    r, n = TcpReno(), TcpNewReno()
    assert isinstance(n, TcpReno) and r.windowed and n.windowed
    assert (r.kind, n.kind) == ("reno", "newreno")
    assert r.kernel == n.kernel == "sources.reno"
    assert TcpReno(initial_ssthresh=2, max_rto=0.2).initial_ssthresh == 2.0  # boundaries accepted
