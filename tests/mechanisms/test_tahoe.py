"""qosmodels.mechanisms.tahoe: TcpTahoe's defaults and validation rules, one test each.

How the rules behave in a run is tested in ``tests/sim/test_tahoe.py``."""

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import TcpReno, TcpTahoe


def test_defaults_are_4_3bsd_tahoes():
    # tcp_timer.h 7.6: TCPTV_MIN 1 s, TCPTV_REXMTMAX 64 s; tcp_subr.c: srtt + 2 rttvar,
    # initial rttvar 4 x TCPTV_SRTTDFLT (3 s) halved = 6 s; tcp_backoff up to 64;
    # tcprexmtthresh 3
    s = TcpTahoe()
    assert (s.min_rto, s.max_rto, s.initial_rto, s.rto_k, s.max_backoff,
            s.dupack_threshold) == (1.0, 64.0, 6.0, 2.0, 64, 3)
    assert (s.kind, s.kernel, s.windowed) == ("tahoe", "sources.tahoe", True)


def test_it_is_not_a_reno():
    # its own spec: the Reno-only fields (recovery, increase, timer rules) are not there
    assert not isinstance(TcpTahoe(), TcpReno)
    with pytest.raises(TypeError):
        TcpTahoe(recovery="inflation")


@pytest.mark.parametrize("make, match", [
    (lambda: TcpTahoe(max_window=0), r"TcpTahoe.max_window must be >= 1 \(in packets\)"),
    (lambda: TcpTahoe(initial_window=0), r"TcpTahoe.initial_window must be >= 1"),
    (lambda: TcpTahoe(initial_ssthresh=1.5),
     r"TcpTahoe.initial_ssthresh must be >= 2 \(in packets\)"),
    (lambda: TcpTahoe(min_rto=0), r"TcpTahoe.min_rto must be > 0 \(in s\)"),
    (lambda: TcpTahoe(max_rto=-1.0), r"TcpTahoe.max_rto must be > 0 \(in s\)"),
    (lambda: TcpTahoe(min_rto=2.0, max_rto=1.0),
     r"TcpTahoe.max_rto must be >= min_rto = 2.0 s, got 1.0; raise max_rto"),
    (lambda: TcpTahoe(initial_rto=0), r"TcpTahoe.initial_rto must be > 0 \(in s\)"),
    (lambda: TcpTahoe(rto_k=0), r"TcpTahoe.rto_k must be > 0"),
    (lambda: TcpTahoe(max_backoff=0), r"TcpTahoe.max_backoff must be >= 1"),
    (lambda: TcpTahoe(dupack_threshold=0), r"TcpTahoe.dupack_threshold must be >= 1"),
    (lambda: TcpTahoe(packet_size=0), r"TcpTahoe.packet_size must be >= 1"),
    (lambda: TcpTahoe(priority=-1), r"TcpTahoe.priority must be >= 0"),
    (lambda: TcpTahoe(min_rto=float("inf")), r"TcpTahoe.min_rto must be finite"),
])
def test_bad_tahoe(make, match):
    with pytest.raises(ScenarioError, match=match):
        make()


@pytest.mark.parametrize("make, match", [
    (lambda: TcpTahoe(max_window="5"), r"TcpTahoe.max_window must be an integer"),
    (lambda: TcpTahoe(rto_k=None), r"TcpTahoe.rto_k must be a real number"),
    (lambda: TcpTahoe(dupack_threshold=True), r"TcpTahoe.dupack_threshold must be an integer"),
    (lambda: TcpTahoe(green=1), r"TcpTahoe.green must be True or False, got 1"),
])
def test_wrong_types(make, match):
    with pytest.raises(ScenarioTypeError, match=match):
        make()


def test_integral_floats_are_accepted_as_integers():
    s = TcpTahoe(max_window=5.0, max_backoff=64.0)
    assert s.max_window == 5 and isinstance(s.max_window, int)
    assert s.max_backoff == 64 and isinstance(s.max_backoff, int)
