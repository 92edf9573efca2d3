"""The ABE specs: AbeQueue's and TcpFriendly's validation, and the colour every source takes."""

from __future__ import annotations

import dataclasses

import pytest

from qosmodels import abe
from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.mechanisms import (
    AbeQueue,
    Cbr,
    DecbitWindow,
    GenericWindow,
    OnOff,
    Poisson,
    Red,
    TcpFriendly,
    TcpNewReno,
    TcpReno,
)


def test_defaults_are_the_papers():
    q = AbeQueue()
    # Section IV-B: RED min_th 0, max_th 40, max_p 0.2, w 0.02; L0 10; tau_e 0.14;
    # K1 = K2 = 1.1, T1 = 0.5, gamma1 0.3, gamma2 0.5; initial q_b 0.05 and B = D/2
    assert (q.min_th, q.max_th, q.max_p, q.w_q) == (0.0, 40.0, 0.2, 0.02)
    assert (q.l0, q.rtt, q.k1, q.k2, q.period, q.gamma1, q.gamma2) == (
        10, 0.14, 1.1, 1.1, 0.5, 0.3, 0.5)
    assert q.initial_q_blue == 0.05 and q.boost0 == q.blue_delay / 2
    assert isinstance(q, Red) and q.colour_aware
    # alpha starts from eq (5) at the initial values (Section III-C.2)
    assert q.initial_alpha == abe.alpha(1.5, 0.05, q.blue_delay / 2, 0.14)
    assert q.law == abe.ControlLaw(beta_star=1.5, rtt=0.14, k1=1.1, k2=1.1, gamma1=0.3,
                                   gamma2=0.5, period=0.5)


def test_flat_is_fixed_alpha_one_no_offset_no_control():
    q = AbeQueue.flat(max_th=30.0)
    assert (q.alpha, q.blue_delay, q.initial_alpha, q.max_th) == (1.0, 0.0, 1.0, 30.0)
    assert q.l0 >= 2**31


@pytest.mark.parametrize("kwargs, match", [
    ({"beta_star": 0.9}, r"AbeQueue.beta_star must be >= 1"),
    ({"l0": 0}, r"AbeQueue.l0 must be >= 1"),
    ({"l0": 2.5}, r"AbeQueue.l0"),
    ({"blue_delay": -0.1}, r"AbeQueue.blue_delay must be >= 0"),
    ({"rtt": 0}, r"AbeQueue.rtt must be > 0"),
    ({"k1": 0}, r"AbeQueue.k1 must be > 0"),
    ({"k2": -1}, r"AbeQueue.k2 must be > 0"),
    ({"gamma1": 1.0}, r"AbeQueue.gamma1 must be in \[0, 1\)"),
    ({"gamma2": -0.1}, r"AbeQueue.gamma2 must be >= 0"),
    ({"k1": 3.8}, r"stability bound .* = 3.714"),
    ({"period": 0}, r"AbeQueue.period must be > 0"),
    ({"initial_q_blue": 0}, r"AbeQueue.initial_q_blue must be > 0"),
    ({"initial_q_blue": 1.5}, r"in \(0, 1\]"),
    ({"initial_boost": -1}, r"AbeQueue.initial_boost must be >= 0"),
    ({"alpha": 0.5}, r"AbeQueue.alpha must be >= 1"),
    ({"mark": True}, r"AbeQueue.mark must be False"),
    ({"min_th": 40, "max_th": 40}, r"AbeQueue.min_th must be below AbeQueue.max_th"),
])
def test_bad_abe_queue(kwargs, match):
    with pytest.raises(ScenarioError, match=match):
        AbeQueue(**kwargs)


def test_the_stability_bound_is_the_control_laws():
    # the spec refuses exactly where ControlLaw's Jury test says the loop is unstable
    for g1 in (0.0, 0.3, 0.6):
        bound = abe.ControlLaw(gamma1=g1).stability(0.02, 0.05).k1_max
        AbeQueue(gamma1=g1, k1=bound * 0.999)
        with pytest.raises(ScenarioError, match="stability bound"):
            AbeQueue(gamma1=g1, k1=bound * 1.001)
    AbeQueue(k1=5.0, alpha=2.0)  # no loop, no bound


@pytest.mark.parametrize("spec", [TcpReno, TcpNewReno, GenericWindow, DecbitWindow, Cbr,
                                  Poisson, OnOff, TcpFriendly])
def test_every_source_takes_a_colour(spec):
    assert spec(green=True).green is True
    assert spec(green=False).green is False
    assert dataclasses.replace(spec(), green=True).green
    with pytest.raises(ScenarioTypeError, match=rf"{spec.__name__}.green must be True or False"):
        spec(green=1)


def test_tcp_friendly_is_green_by_default_and_validates():
    assert TcpFriendly().green and not TcpReno().green
    assert TcpFriendly.feedback and not TcpFriendly.windowed
    with pytest.raises(ScenarioError, match=r"TcpFriendly.initial_rate must be > 0"):
        TcpFriendly(initial_rate=0)
    with pytest.raises(ScenarioTypeError, match=r"TcpFriendly.record must be True or False"):
        TcpFriendly(record="yes")


def test_tcp_friendly_loss_estimator():
    assert TcpFriendly().loss == "events" and TcpFriendly(loss="packets").loss == "packets"
    with pytest.raises(ScenarioError, match=r"TcpFriendly.loss must be 'events' .* got 'ratio'"):
        TcpFriendly(loss="ratio")


def test_tcp_friendly_equation():
    assert TcpFriendly().equation == "eq2"
    assert TcpFriendly(equation="rfc5348").equation == "rfc5348"
    with pytest.raises(ScenarioError, match=r"TcpFriendly.equation must be 'eq2' .* or "
                                            r"'rfc5348' .* got 'tfrc'"):
        TcpFriendly(equation="tfrc")
