"""qosmodels.mechanisms.cubic: Cubic's defaults and validation rules, one test each.

How the rules behave in a run is tested in ``tests/sim/test_cubic.py``."""

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import Cubic, TcpReno


def test_defaults_are_rfc_9438s():
    # RFC 9438: C SHOULD be 0.4 (Section 5.1), beta_cubic SHOULD be 0.7 (Section 4.6), fast
    # convergence SHOULD be implemented (4.7), the Reno-friendly region SHOULD be used (4.3)
    s = Cubic()
    assert (s.c, s.beta, s.fast_convergence, s.tcp_friendliness) == (0.4, 0.7, True, True)
    # the window and timer fields as TcpReno's
    r = TcpReno()
    assert (s.max_window, s.initial_window, s.initial_ssthresh, s.min_rto, s.max_rto,
            s.initial_rto, s.rtt_samples) == (r.max_window, r.initial_window,
                                              r.initial_ssthresh, r.min_rto, r.max_rto,
                                              r.initial_rto, r.rtt_samples)
    assert (s.kind, s.kernel, s.windowed, s.record) == ("cubic", "sources.cubic", True, False)


def test_it_is_not_a_reno():
    assert not isinstance(Cubic(), TcpReno)
    with pytest.raises(TypeError):
        Cubic(increase=2.0)


@pytest.mark.parametrize("make, match", [
    (lambda: Cubic(c=0), r"Cubic.c must be > 0 \(in segments/s\^3\), got 0"),
    (lambda: Cubic(c=-0.4), r"Cubic.c must be > 0"),
    (lambda: Cubic(beta=0), r"Cubic.beta must be > 0, got 0"),
    (lambda: Cubic(beta=1.0), r"Cubic.beta must be in \(0, 1\) .*RFC 9438 recommends 0.7\), "
                              r"got 1.0"),
    (lambda: Cubic(beta=1.5), r"Cubic.beta must be in \(0, 1\)"),
    (lambda: Cubic(c=float("nan")), r"Cubic.c must be finite"),
    (lambda: Cubic(rtt_samples="every"), r"Cubic.rtt_samples must be 'segment' .* or 'ack'"),
    (lambda: Cubic(max_window=0), r"Cubic.max_window must be >= 1 \(in packets\)"),
    (lambda: Cubic(initial_window=0), r"Cubic.initial_window must be >= 1"),
    (lambda: Cubic(initial_ssthresh=1), r"Cubic.initial_ssthresh must be >= 2 \(in packets\)"),
    (lambda: Cubic(min_rto=0), r"Cubic.min_rto must be > 0 \(in s\)"),
    (lambda: Cubic(min_rto=2.0, max_rto=1.0),
     r"Cubic.max_rto must be >= min_rto = 2.0 s, got 1.0; raise max_rto"),
    (lambda: Cubic(initial_rto=0), r"Cubic.initial_rto must be > 0 \(in s\)"),
    (lambda: Cubic(packet_size=0), r"Cubic.packet_size must be >= 1"),
    (lambda: Cubic(priority=-1), r"Cubic.priority must be >= 0"),
])
def test_bad_cubic(make, match):
    with pytest.raises(ScenarioError, match=match):
        make()


@pytest.mark.parametrize("make, match", [
    (lambda: Cubic(c="0.4"), r"Cubic.c must be a real number"),
    (lambda: Cubic(beta=None), r"Cubic.beta must be a real number"),
    (lambda: Cubic(fast_convergence=1), r"Cubic.fast_convergence must be True or False, got 1"),
    (lambda: Cubic(tcp_friendliness="yes"), r"Cubic.tcp_friendliness must be True or False"),
    (lambda: Cubic(record=0), r"Cubic.record must be True or False, got 0"),
    (lambda: Cubic(rtt_samples=None), r"Cubic.rtt_samples must be 'segment'"),
    (lambda: Cubic(max_window="5"), r"Cubic.max_window must be an integer"),
    (lambda: Cubic(green=1), r"Cubic.green must be True or False, got 1"),
])
def test_wrong_types(make, match):
    with pytest.raises(ScenarioTypeError, match=match):
        make()
