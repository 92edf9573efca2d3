"""Retransmission-timer rules of the TCP senders: ``TcpReno.timer`` and ``Cubic.timer``.

One NewReno flow (or one CUBIC flow, whose window here is capped at W too) with a fixed window of W = 20 packets crosses one link
(10 Mb/s, 50 ms, a 4-packet buffer); ACKs see the propagation delay only.
At t = 0 the whole window reaches the link: packet 0 is sent, 1..4 wait and
5..19 are dropped.  Everything after that follows in closed form (TX is the
transmission time of a packet, D the propagation delay):

* packet k <= 4 is acknowledged at 2D + (k+1) TX (an RTT sample 2D + (k+1) TX);
  the last new ACK arrives at ``T_NEW = 2D + 5 TX``;
* each of those five ACKs sends one new packet (20..24) onto the idle link;
  their duplicate ACKs arrive at 4D + (j+2) TX, the third at
  ``T_FR = 4D + 4 TX``: fast retransmit of packet 5;
* every retransmission finds the link idle, so partial ACK k (of packet
  5 + k) arrives at ``T_FR + k (2D + TX)``; the 15 holes take until
  ``T_FR + 15 (2D + TX)`` to repair.

The reference values follow from these times, the RFC 6298 estimator
(iterated here on the closed-form samples) and the rules being tested:
RFC 6298 5.1 and 5.3 (the fast retransmit does not restart a running timer;
every new ACK does), RFC 6582 Section 3.2 step 5 (the "Impatient" variant
restarts the timer on the first partial ACK only, "Slow-but-Steady" on each),
and RFC 6298 Section 5 (the backed-off RTO collapses to the estimator's value
at the next new ACK).
"""

from __future__ import annotations

import pytest

from qosmodels import Flow, Link, Network
from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.sim import Cubic, TcpNewReno, TcpReno, simulate
from qosmodels.sim._kernels import layout as K
from qosmodels.sim._kernels.sources import cubic, reno
from qosmodels.sim.compile import compile_scenario, pack_params

from .rfc6298 import estimator

D = 0.05               # s
C = 10e6               # bit/s
PKT = 1000             # bytes
TX = PKT * 8 / C       # s
W = 20                 # packets: initial and maximum window
B = 4                  # packets of buffer
HOLES = W - 1 - B      # packets 5..19 lost at t = 0
T_NEW = 2 * D + 5 * TX           # last new ACK before the recovery
T_FR = 4 * D + 4 * TX            # third duplicate ACK: fast retransmit
RT = 2 * D + TX                  # round trip of a retransmission on an idle link
EPS = 1e-7                       # s, around event times


def T_PARTIAL(k):
    return T_FR + k * RT


RULES = ("reference", "impatient", "slow-but-steady")
#: The senders with NewReno's recovery (RFC 6582) and a ``timer`` option.  CUBIC's
#: recovery is NewReno's too: with ``max_window = W`` its window stays at W until the
#: fast retransmit, and in the recovery (cwnd = 0.7 W + 3, inflated by the duplicate
#: ACKs) the new packets it sends leave one transmission time apart, so every
#: retransmission still finds the link idle and the times above hold.
SENDERS = {"newreno": TcpNewReno, "cubic": Cubic}


def _estimator_rto(samples, lo):
    return max(lo, estimator(samples)[2])


def _compiled(timer, min_rto, rtt_samples, sender="newreno", **options):
    src = SENDERS[sender](initial_window=W, max_window=W, min_rto=min_rto,
                          rtt_samples=rtt_samples, timer=timer, **options)
    net = Network([Link("a", "b", C, D, buffer=B)],
                  [Flow(["a", "b"], packet_size=PKT, source=src)])
    return compile_scenario(net, 3.0, seed=0)


def _run_to(c, t):
    from qosmodels.sim._kernels.engine import run

    assert run(c, t, 10**7) == K.ST_OK
    return c


# --------------------------------------------------------------------------- fast retransmit
# min_rto ~ 0 and a sample per ACK: the RTO is the estimator's value after the five
# samples 2D + (k+1) TX, about 1.7 RTT -- shorter than the 4D from the last new ACK to
# the first partial ACK, longer than the RT between partial ACKs.
RTO5 = _estimator_rto([2 * D + (k + 1) * TX for k in range(5)], 0.0)


def test_premises_of_the_fast_retransmit_scenario():
    assert RT < RTO5 < T_PARTIAL(1) - T_NEW
    assert T_FR < T_NEW + RTO5 < T_FR + RTO5


@pytest.mark.parametrize("sack", [False, True])
@pytest.mark.parametrize("sender", SENDERS)
@pytest.mark.parametrize("timer", RULES)
def test_fast_retransmit_restarts_the_timer_only_under_the_reference_rules(timer, sender, sack):
    # with SACK (RFC 6675's recovery) the third duplicate ACK starts the recovery at T_FR
    # too, and no new ACK arrives before the first retransmission's, at T_PARTIAL(1)
    c = _compiled(timer, 1e-6, "ack", sender, sack=sack)
    _run_to(c, (T_FR + T_NEW + RTO5) / 2)  # after the fast retransmit, before any expiry
    assert c.fi[0, K.FI_FAST_RTX] == 1 and c.fi[0, K.FI_IN_REC] == 1
    assert c.ff[0, K.FF_RTO] == pytest.approx(RTO5, rel=1e-9)
    started = T_FR if timer == "reference" else T_NEW
    assert c.tm[c.fi[0, K.FI_TIMER0], K.TM_DEADLINE] == pytest.approx(started + RTO5, rel=1e-9)
    # the RFC rules expire one RTO after the last new ACK, before the first partial ACK
    _run_to(c, T_NEW + RTO5 - EPS)
    assert c.fi[0, K.FI_TIMEOUTS] == 0
    _run_to(c, T_NEW + RTO5 + EPS)
    if timer == "reference":
        assert c.fi[0, K.FI_TIMEOUTS] == 0
    else:
        assert c.fi[0, K.FI_TIMEOUTS] == 1
        assert c.ff[0, K.FF_RTO] == pytest.approx(2 * RTO5, rel=1e-9)  # RFC 6298 5.5


@pytest.mark.parametrize("sender", SENDERS)
@pytest.mark.parametrize("timer", ["impatient", "slow-but-steady"])
def test_the_next_new_ack_clears_the_backoff(timer, sender):
    # the fast retransmission of packet 5 is acknowledged at T_PARTIAL(1), after the
    # timeout: a new ACK without an RTT sample (Karn), which restarts the timer with
    # the estimator's RTO, not the doubled one
    c = _run_to(_compiled(timer, 1e-6, "ack", sender), T_PARTIAL(1) + EPS)
    assert c.fi[0, K.FI_TIMEOUTS] == 1 and c.fi[0, K.FI_SND_UNA] == 6
    assert c.ff[0, K.FF_RTO] == pytest.approx(RTO5, rel=1e-9)
    assert c.tm[c.fi[0, K.FI_TIMER0], K.TM_DEADLINE] == pytest.approx(T_PARTIAL(1) + RTO5, rel=1e-9)


@pytest.mark.parametrize("sender", SENDERS)
@pytest.mark.parametrize("timer", RULES)
def test_rack_recovery_lets_only_the_reference_rules_restart_on_every_partial_ack(timer, sender):
    # with RACK (RFC 8985) the recovery starts on RACK's loss marks (here when its
    # reordering timer expires, about T_FR, and its RTO restarts then): under the RFC
    # rules it marks the first partial ACK as the one that may restart the timer,
    # whatever the sender (until session 52 a CUBIC flow's was never marked); under
    # "impatient" that ACK takes the mark away
    c = _compiled(timer, 1e-6, "ack", sender, sack=True, rack=True)
    _run_to(c, (T_FR + T_PARTIAL(1)) / 2)
    assert c.fi[0, K.FI_IN_REC] == 1 and c.fi[0, K.FI_FAST_RTX] == 1
    una = c.fi[0, K.FI_SND_UNA]
    assert una == 5
    assert c.fi[0, K.FI_FIRST_PARTIAL] == (timer != "reference")
    _run_to(c, T_PARTIAL(1) + EPS)
    assert c.fi[0, K.FI_IN_REC] == 1 and c.fi[0, K.FI_SND_UNA] > una
    assert c.fi[0, K.FI_FIRST_PARTIAL] == (timer == "slow-but-steady")


@pytest.mark.parametrize("sender", SENDERS)
def test_reference_partial_ack_restarts_with_the_current_rto(sender):
    c = _run_to(_compiled("reference", 1e-6, "ack", sender), T_PARTIAL(1) + EPS)
    assert c.fi[0, K.FI_TIMEOUTS] == 0 and c.fi[0, K.FI_SND_UNA] == 6
    assert c.tm[c.fi[0, K.FI_TIMER0], K.TM_DEADLINE] == pytest.approx(T_PARTIAL(1) + RTO5, rel=1e-9)


# --------------------------------------------------------------------------- partial ACKs
# min_rto = 0.5 s dominates the estimator (3 RTT at most), so every RTO is 0.5 s; the
# 15 holes take 15 RT ~ 1.5 s to repair: longer than an RTO, each hole shorter.
MIN_RTO = 0.5


def test_premises_of_the_partial_ack_scenario():
    assert _estimator_rto([2 * D + TX], MIN_RTO) == MIN_RTO
    assert RT < MIN_RTO < (HOLES - 1) * RT
    assert T_PARTIAL(5) < T_PARTIAL(1) + MIN_RTO < T_PARTIAL(6)


@pytest.mark.parametrize("sender", SENDERS)
def test_impatient_times_out_one_rto_after_the_first_partial_ack(sender):
    c = _compiled("impatient", MIN_RTO, "segment", sender)
    _run_to(c, T_PARTIAL(1) + MIN_RTO - EPS)
    assert c.fi[0, K.FI_TIMEOUTS] == 0 and c.fi[0, K.FI_SND_UNA] == 5 + 5
    _run_to(c, T_PARTIAL(1) + MIN_RTO + EPS)
    assert c.fi[0, K.FI_TIMEOUTS] == 1 and c.fi[0, K.FI_IN_REC] == 0
    assert c.ff[0, K.FF_RTO] == 2 * MIN_RTO
    # the hole resent at T_PARTIAL(5) is acknowledged at T_PARTIAL(6): a new ACK, the
    # RTO back to the estimator's (clamped) value
    _run_to(c, T_PARTIAL(6) + EPS)
    assert c.fi[0, K.FI_SND_UNA] == 11
    assert c.ff[0, K.FF_RTO] == MIN_RTO
    assert c.tm[c.fi[0, K.FI_TIMER0], K.TM_DEADLINE] == pytest.approx(T_PARTIAL(6) + MIN_RTO, rel=1e-12)


@pytest.mark.parametrize("sender", SENDERS)
@pytest.mark.parametrize("timer", ["reference", "slow-but-steady"])
def test_every_partial_ack_restarts_the_timer(timer, sender):
    # one hole per RT, no timeout: just before the last hole is repaired
    c = _run_to(_compiled(timer, MIN_RTO, "segment", sender), T_PARTIAL(HOLES) - EPS)
    assert c.fi[0, K.FI_TIMEOUTS] == 0 and c.fi[0, K.FI_FAST_RTX] == 1
    assert c.fi[0, K.FI_IN_REC] == 1 and c.fi[0, K.FI_DROPS] == HOLES
    assert c.fi[0, K.FI_SND_UNA] == 5 + HOLES - 1
    assert c.tm[c.fi[0, K.FI_TIMER0], K.TM_DEADLINE] == pytest.approx(T_PARTIAL(HOLES - 1) + MIN_RTO, rel=1e-12)
    _run_to(c, T_PARTIAL(HOLES) + EPS)
    assert c.fi[0, K.FI_IN_REC] == 0 and c.fi[0, K.FI_TIMEOUTS] == 0


# --------------------------------------------------------------------------- default, checks
def test_reference_is_the_default():
    assert TcpNewReno().timer == "reference" and TcpReno().timer == "reference"
    assert pack_params(TcpNewReno())[reno.TCP_TIMER] == reno.TIMER_REFERENCE
    assert pack_params(TcpNewReno(timer="impatient"))[reno.TCP_TIMER] == reno.TIMER_IMPATIENT
    assert pack_params(TcpNewReno(timer="slow-but-steady"))[reno.TCP_TIMER] == reno.TIMER_SLOW
    assert Cubic().timer == "reference"
    assert pack_params(Cubic())[cubic.CUB_TIMER] == reno.TIMER_REFERENCE
    assert pack_params(Cubic(timer="impatient"))[cubic.CUB_TIMER] == reno.TIMER_IMPATIENT
    assert pack_params(Cubic(timer="slow-but-steady"))[cubic.CUB_TIMER] == reno.TIMER_SLOW


@pytest.mark.parametrize("cls", [TcpNewReno, Cubic])
def test_a_bad_rule_is_refused_naming_the_field(cls):
    name = cls.__name__
    with pytest.raises(ScenarioError, match=rf"{name}\.timer must be 'reference', 'impatient' "
                                            r"or 'slow-but-steady'.*got 'ns-3'"):
        cls(timer="ns-3")
    with pytest.raises(ScenarioTypeError, match=rf"{name}\.timer must be 'reference', "
                                                r"'impatient' or 'slow-but-steady'.*got 1 of "
                                                r"type int"):
        cls(timer=1)


@pytest.mark.parametrize("timer", RULES)
def test_reno_accepts_every_rule(timer):
    # Reno leaves recovery on the first new ACK: no partial ACKs, the same run for the
    # two RFC variants
    src = TcpReno(initial_window=W, max_window=W, min_rto=MIN_RTO, timer=timer)
    net = Network([Link("a", "b", C, D, buffer=B)], [Flow(["a", "b"], packet_size=PKT, source=src)])
    r = simulate(net, 5.0, seed=0)
    assert int(r.counters["fast_retransmits"].sum()) >= 1
