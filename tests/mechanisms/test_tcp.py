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


# --------------------------------------------------------------------------- increase
@pytest.mark.parametrize("kw, match", [
    (dict(increase="rtt3"), r"TcpNewReno\.increase must be a number > 0 .*'by-k'.*'constant-rate'"
                            r".*'rtt2'.*got 'rtt3'"),
    (dict(increase=""), r"TcpNewReno\.increase must be a number > 0"),
    (dict(increase=0), r"TcpNewReno\.increase must be > 0 \(in packets per RTT\), got 0"),
    (dict(increase=-1.0), r"TcpNewReno\.increase must be > 0"),
    (dict(increase=float("inf")), r"TcpNewReno\.increase must be finite"),
    (dict(increase="constant-rate"), r"TcpNewReno\.increase='constant-rate' needs "
                                     r"increase_rate.*got None"),
    (dict(increase="by-k"), r"TcpNewReno\.increase='by-k' needs increase_k.*got None"),
    (dict(increase="by-k", increase_k=0.5), r"TcpNewReno\.increase_k must be >= 1"),
    (dict(increase="constant-rate", increase_rate=0), r"TcpNewReno\.increase_rate must be > 0 "
                                                      r"\(in packets/s\^2\)"),
    (dict(increase="rtt2", rtt=0), r"TcpNewReno\.rtt must be > 0 \(in s\)"),
    (dict(increase="rtt2", rtt_av=-0.1), r"TcpNewReno\.rtt_av must be > 0 \(in s\)"),
    (dict(increase="by-k", increase_k=2, increase_threshold=-1),
     r"TcpNewReno\.increase_threshold must be >= 0 \(in s\)"),
    # a field of another increase: named, with the increases that use it
    (dict(rtt_av=0.1), r"TcpNewReno\.rtt_av = 0\.1 is used only with increase = 'rtt2' or "
                       r"'by-k', but increase = 1\.0; drop rtt_av"),
    (dict(increase=2.0, rtt=0.1), r"TcpNewReno\.rtt = 0\.1 is used only with increase = 'rtt2' "
                                  r"or 'constant-rate' or 'by-k'"),
    (dict(increase="rtt2", increase_k=2), r"TcpNewReno\.increase_k = 2 is used only with "
                                          r"increase = 'by-k', but increase = 'rtt2'"),
    (dict(increase="rtt2", increase_rate=1.0), r"increase_rate = 1\.0 is used only with "
                                               r"increase = 'constant-rate'"),
    (dict(increase="constant-rate", increase_rate=1.0, rtt_av=0.2),
     r"rtt_av = 0\.2 is used only with increase = 'rtt2' or 'by-k'"),
    (dict(increase="rtt2", increase_threshold=0.2),
     r"increase_threshold = 0\.2 is used only with increase = 'by-k'"),
    # ns-3's byte arithmetic has no scaled increase
    (dict(increase=2.0, window_arithmetic="bytes", segment_size=958),
     r"TcpNewReno\.increase = 2\.0 needs window_arithmetic='packets'.*use increase=1\.0"),
    (dict(increase="rtt2", window_arithmetic="bytes", segment_size=958),
     r"TcpNewReno\.increase = 'rtt2' needs window_arithmetic='packets'"),
])
def test_bad_increase(kw, match):
    with pytest.raises(ScenarioError, match=match):
        TcpNewReno(**kw)


@pytest.mark.parametrize("kw", [dict(increase=True), dict(increase=None), dict(increase=[1.0]),
                                dict(increase="rtt2", rtt="0.1"),
                                dict(increase="rtt2", rtt_av=True)])
def test_increase_fields_have_types(kw):
    with pytest.raises(ScenarioTypeError, match=r"TcpReno\.(increase|rtt|rtt_av) must be a"):
        TcpReno(**kw)


def test_good_increases_are_kept_as_floats():
    assert TcpReno().increase == 1.0 and isinstance(TcpReno(increase=2).increase, float)
    assert TcpReno(increase=1, window_arithmetic="bytes", segment_size=958).increase == 1.0
    s = TcpNewReno(increase="by-k", increase_k=3, increase_threshold=0, rtt=1, rtt_av=2)
    assert (s.increase_k, s.increase_threshold, s.rtt, s.rtt_av) == (3.0, 0.0, 1.0, 2.0)
    assert all(isinstance(v, float) for v in (s.increase_k, s.increase_threshold, s.rtt, s.rtt_av))
    c = TcpReno(increase="constant-rate", increase_rate=4)
    assert c.increase_rate == 4.0 and isinstance(c.increase_rate, float)
