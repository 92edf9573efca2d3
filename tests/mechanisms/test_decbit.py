"""qosmodels.mechanisms.decbit: Decbit's and DecbitWindow's validation rules and declarations."""

import pytest

from qosmodels import ScenarioError, ScenarioTypeError
from qosmodels.mechanisms import Decbit, DecbitWindow, DropTail, GenericWindow, Red


@pytest.mark.parametrize("kwargs, match", [
    (dict(capacity_factor=0.0), r"Decbit.capacity_factor must be > 0"),
    (dict(capacity_factor=1.5), r"Decbit.capacity_factor must be in \(0, 1\].*got 1.5"),
    (dict(capacity_factor=float("nan")), r"Decbit.capacity_factor must be finite"),
])
def test_bad_decbit(kwargs, match):
    with pytest.raises(ScenarioError, match=match):
        Decbit(**kwargs)


@pytest.mark.parametrize("field", ["selective", "record_average"])
def test_decbit_flags_must_be_booleans(field):
    with pytest.raises(ScenarioTypeError, match=rf"Decbit.{field} must be True or False, got 1"):
        Decbit(**{field: 1})


def test_decbit_defaults_follow_the_fair_queueing_paper():
    d = Decbit(selective=True, capacity_factor=1)
    assert d.capacity_factor == 1.0 and type(d.capacity_factor) is float
    assert Decbit().capacity_factor == 0.9 and not Decbit().selective
    assert Decbit.sets_decbit and not DropTail.sets_decbit and not Red.sets_decbit
    assert Decbit().n_classes == 1


@pytest.mark.parametrize("kwargs, match", [
    (dict(max_window=0), r"DecbitWindow.max_window must be >= 1 \(in packets\)"),
    (dict(max_window=2.5), r"DecbitWindow.max_window must be a whole number"),
    (dict(initial_window=0.5), r"DecbitWindow.initial_window must be >= 1 \(in packets\)"),
    (dict(initial_window=6), r"DecbitWindow.initial_window must be <= max_window = 5 packets"),
    (dict(increase=0), r"DecbitWindow.increase must be > 0 \(in packets\)"),
    (dict(decrease=0), r"DecbitWindow.decrease must be > 0"),
    (dict(decrease=1.0), r"DecbitWindow.decrease must be in \(0, 1\), got 1.0"),
    (dict(threshold=0), r"DecbitWindow.threshold must be > 0"),
    (dict(threshold=1.2), r"DecbitWindow.threshold must be in \(0, 1\]"),
    (dict(beta=1.0), r"DecbitWindow.beta must be > 1"),
    (dict(rtt_gain=0.0), r"DecbitWindow.rtt_gain must be > 0"),
    (dict(rtt_gain=1.5), r"DecbitWindow.rtt_gain must be in \(0, 1\]"),
    (dict(initial_rtt=0.0), r"DecbitWindow.initial_rtt must be > 0 \(in s\)"),
    (dict(packet_size=0), r"DecbitWindow.packet_size must be >= 1 \(in bytes\)"),
    (dict(priority=-1), r"DecbitWindow.priority must be >= 0"),
])
def test_bad_decbit_window(kwargs, match):
    with pytest.raises(ScenarioError, match=match):
        DecbitWindow(**kwargs)


def test_decbit_window_defaults_follow_ramakrishnan_and_jain():
    w = DecbitWindow()
    assert (w.max_window, w.initial_window, w.increase, w.decrease, w.threshold) == (
        5, 1.0, 1.0, 0.875, 0.5)
    assert w.windowed and w.needs_decbit and not GenericWindow.needs_decbit
    w = DecbitWindow(max_window=8.0, initial_window=8, threshold=1)
    assert type(w.max_window) is int and w.initial_window == 8.0 and w.threshold == 1.0


def test_fq_bit_is_fair_queueing_with_the_bit_rule():
    q = Decbit(fq_bit=True)
    assert (q.kind, q.kernel) == ("fq-bit", "queues.fair_queueing")
    assert (Decbit().kind, Decbit().kernel) == ("decbit", "queues.decbit")
    assert q.sets_decbit


@pytest.mark.parametrize("kwargs, field", [({"selective": True}, "selective"),
                                           ({"record_average": True}, "record_average")])
def test_fq_bit_refuses_the_fifo_gateways_options(kwargs, field):
    with pytest.raises(ScenarioError, match=field):
        Decbit(fq_bit=True, **kwargs)


def test_fq_bit_must_be_a_bool():
    with pytest.raises(ScenarioTypeError, match="fq_bit"):
        Decbit(fq_bit="yes")
