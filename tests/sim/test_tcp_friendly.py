"""The rate-based TCP-friendly source (``qosmodels.sim._kernels.sources.tcp_friendly``).

References, independent of the kernel:

* RFC 5348, Section 5.4 (the Average Loss Interval method), typed here from the RFC's
  pseudo-code, for the loss event rate;
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


def lossy(q, rate=1e8, delay=0.05, record=False):
    """One TcpFriendly flow over a link that drops independently with probability ``q``,
    fast enough never to queue much: RTT = 2 ``delay`` plus transmission."""
    return Network([Link("a", "b", rate, delay, buffer=10_000, queue=RandomLoss(p=q))],
                   [Flow(["a", "b"], source=TcpFriendly(green=False, record=record))])


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
