"""The rate-based TCP-friendly source (``qosmodels.sim._kernels.sources.tcp_friendly``).

References, independent of the kernel:

* RFC 5348, Section 5.4 (the Average Loss Interval method), typed here from the RFC's
  pseudo-code, for the loss event rate;
* RFC 5348, Section 3.1 (the TCP throughput equation), typed here from the RFC with its
  recommended ``b = 1`` and ``t_RTO = 4 R`` (Section 4.3), and a value worked by hand,
  for ``equation="rfc5348"``;
* the ABE paper's eq (2) (:func:`qosmodels.abe.throughput`, itself checked against the
  printed formula and SymPy in ``tests/test_abe.py``): on a link that drops packets
  independently with probability ``q``, the source's rate settles near ``x(q_e, R)``,
  ``q_e`` its loss event rate (at most ``q``), so its goodput is never far below the
  TCP-friendly rate for its loss ``x(q, R)``.
"""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, abe, simulate
from qosmodels.mechanisms import RandomLoss, TcpFriendly
from qosmodels.sim._kernels.sources import tcp_friendly as tf

from .jitcall import jitcall

RFC_WEIGHTS = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2]  # RFC 5348, Section 5.4, n = 8


def rfc_loss_event_rate(closed, open_interval):
    """RFC 5348 Section 5.4's pseudo-code: ``I_0`` the open interval, ``I_1..I_k`` the
    closed ones, newest first."""
    intervals = [open_interval] + list(closed)
    k = len(closed)
    w = RFC_WEIGHTS
    i_tot0 = sum(intervals[i] * w[i] for i in range(k))
    i_tot1 = sum(intervals[i] * w[i - 1] for i in range(1, k + 1))
    w_tot = sum(w[i] for i in range(k))
    return w_tot / max(i_tot0, i_tot1)


def test_weights_are_rfc_5348s():
    assert [jitcall(tf.weight)(i) for i in range(8)] == pytest.approx(RFC_WEIGHTS, abs=1e-15)


@pytest.mark.parametrize("k", range(1, 9))
def test_average_loss_interval_against_the_rfc(k):
    rng = np.random.default_rng(k)
    for _ in range(50):
        closed = rng.integers(1, 500, size=k).astype(float)
        open_interval = float(rng.integers(1, 800))
        hist = np.zeros(8)
        hist[:k] = closed
        got = jitcall(tf.loss_event_rate)(hist, open_interval)
        assert got == pytest.approx(rfc_loss_event_rate(closed, open_interval), rel=1e-13)


def test_the_first_interval_inverts_eq_2():
    # the synthesised first interval 1/q gives back the receive rate through eq (2)
    for x, r in ((20.0, 0.14), (80.0, 0.3), (1000.0, 0.05)):
        q = jitcall(tf._q_of_x)(x * r)
        assert abe.throughput(q, r) == pytest.approx(x, rel=1e-12)


def rfc_5348_rate(p, rtt, s=1.0, b=1.0):
    """RFC 5348, Section 3.1: ``X = s / (R sqrt(2 b p / 3) + t_RTO (3 sqrt(3 b p / 8)) p
    (1 + 32 p^2))``, with ``t_RTO = 4 R`` (Section 4.3); ``s = 1`` packet gives packets/s."""
    t_rto = 4.0 * rtt
    return s / (rtt * np.sqrt(2.0 * b * p / 3.0)
                + t_rto * (3.0 * np.sqrt(3.0 * b * p / 8.0) * p * (1.0 + 32.0 * p ** 2)))


def test_rfc_rate_is_rfc_5348s_equation():
    # by hand, p = 0.01, R = 0.1 s: sqrt(0.02 / 3) = 0.0816497, 3 sqrt(0.03 / 8) = 0.1837117;
    # 0.1 * 0.0816497 + 0.4 * 0.1837117 * 0.01 * 1.0032 = 0.00890217 s -> 112.332 packets/s
    assert jitcall(tf.rfc_rate)(0.01, 0.1) == pytest.approx(112.332, abs=1e-3)
    for p in (1e-6, 1e-3, 0.02, 0.1, 0.3, 1.0):
        for r in (0.01, 0.14, 0.5):
            assert jitcall(tf.rfc_rate)(p, r) == pytest.approx(rfc_5348_rate(p, r), rel=1e-13)
    # the timeout term is what eq (2) lacks: near the paper's 15 + 15 flat runs' loss event
    # rate (0.12) eq (2) gives more than twice RFC 5348's rate, at small p about sqrt(4/3)
    assert abe.throughput(0.12, 0.2) / rfc_5348_rate(0.12, 0.2) > 2.0
    assert abe.throughput(1e-6, 0.2) / rfc_5348_rate(1e-6, 0.2) == pytest.approx(
        np.sqrt(4.0 / 3.0), rel=1e-3)


def test_the_first_interval_inverts_rfc_5348s_equation():
    # RFC 5348 Section 6.3.1: the p at which the equation gives the receive rate
    invert = jitcall(tf.rfc_p_of_x)
    for x, r in ((20.0, 0.14), (80.0, 0.3), (1000.0, 0.05), (3.0, 0.2), (0.5, 0.14)):
        p = invert(x, r)
        assert 0.0 < p <= 1.0
        assert rfc_5348_rate(p, r) == pytest.approx(x, rel=1e-9)
    # beyond the bracket: a rate the equation cannot go below gives p = 1, one it cannot
    # reach gives the bracket's low end
    assert invert(0.9 * rfc_5348_rate(1.0, 0.14), 0.14) == 1.0
    assert invert(10.0 * rfc_5348_rate(tf.P_LOW, 0.14), 0.14) == tf.P_LOW


def lossy(q, rate=1e8, delay=0.05, record=False, equation="eq2"):
    """One TcpFriendly flow over a link that drops independently with probability ``q``,
    fast enough never to queue much: RTT = 2 ``delay`` plus transmission."""
    return Network([Link("a", "b", rate, delay, buffer=10_000, queue=RandomLoss(p=q))],
                   [Flow(["a", "b"], source=TcpFriendly(green=False, record=record,
                                                        equation=equation))])


@pytest.mark.parametrize("q", [0.005, 0.02, 0.08])
def test_goodput_tracks_eq_2_on_a_lossy_link(q):
    net = lossy(q)
    r = simulate(net, 400.0, seed=5, warmup=100.0)
    pkts = r.throughput[0] / 8000.0
    rtt = float(net.rtt[0])
    sent = r.counters["sent"][0]
    measured_q = r.counters["dropped"][0] / sent
    friendly = abe.throughput(measured_q, rtt)
    # never starved below the TCP-friendly rate for its loss (its loss event rate is at
    # most its loss ratio, and eq (2) falls with loss) ...
    assert pkts >= 0.95 * friendly, (pkts, friendly)
    # ... and not far above it either: losses in one RTT group into one event
    assert pkts <= 1.3 * friendly, (pkts, friendly)
    assert measured_q == pytest.approx(q, rel=0.15)


@pytest.mark.parametrize("q", [0.005, 0.02, 0.08])
def test_goodput_tracks_rfc_5348s_equation_on_a_lossy_link(q):
    net = lossy(q, equation="rfc5348")
    r = simulate(net, 400.0, seed=5, warmup=100.0)
    pkts = r.throughput[0] / 8000.0
    rtt = float(net.rtt[0])
    measured_q = r.counters["dropped"][0] / r.counters["sent"][0]
    friendly = rfc_5348_rate(measured_q, rtt)
    # the same bounds as eq (2)'s: the loss event rate is at most the loss ratio, and
    # losses within one RTT count once
    assert 0.95 * friendly <= pkts <= 1.3 * friendly, (pkts, friendly)
    assert measured_q == pytest.approx(q, rel=0.15)
    # and the equation is the one in use: at q = 0.08 eq (2) is 1.8 times RFC 5348's
    if q == 0.08:
        assert pkts < 0.75 * abe.throughput(measured_q, rtt)


def test_recorded_loss_event_rate_stays_below_the_loss_ratio():
    q = 0.02
    r = simulate(lossy(q, record=True), 300.0, seed=2, warmup=50.0)
    p_e = r.traces["loss_event_rate"].loc[100.0:].dropna()
    assert len(p_e) > 1000
    assert 0.3 * q < p_e.median() <= 1.05 * q
    rate = r.traces["tfrc_rate"].loc[100.0:]
    assert (rate > 0).all()


def test_without_feedback_the_rate_halves_down_to_one_packet_per_64_s():
    # (almost) everything lost: no feedback; from 1 packet/s the no-feedback timer (2 s, then
    # max(4R, 2/X)) halves the rate to 1/64 packets/s: 2 + 4 + ... + 128 s of halving,
    # then one packet per 64 s
    r = simulate(lossy(1.0 - 1e-12), 1000.0, seed=1)
    sent = r.counters["sent"][0]
    # first 2 s at 1/s (3 packets at t = 0, 1, 2), then 1 packet in each doubling
    # interval ... and about (1000 - 254) / 64 = 12 at the floor
    assert 10 <= sent <= 30, sent
