"""Queueing theory against the packet simulator.

References: Pollaczek-Khinchine (M/D/1 mean wait rho S / (2 (1 - rho)));
M/G/1/K blocking from the embedded Markov chain at departures (Gross and
Harris, Fundamentals of Queueing Theory, Section 5.1.5); Floyd and Jacobson
1993 for RED; Demers, Keshav, Shenker 1989, Figure 1, for the FCFS Telnet delay
(closed form in :func:`qosmodels.fq.fcfs_telnet_delay`).
"""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels import Flow, Link, Network
from qosmodels.experiments.textbook import md1k_loss
from qosmodels.fq import fcfs_telnet_delay
from qosmodels.sim import Cbr, GenericWindow, Poisson, Record, Red, TcpNewReno, simulate

C = 1e6            # bit/s
SIZE = 1000        # bytes
S = 8 * SIZE / C   # service time, s
QUIET = Record(interval=1000.0, cwnd=False)


def one_link(rho, buffer):
    return Network([Link("a", "b", C, 0.0, buffer=buffer)],
                   [Flow(["a", "b"], source=Poisson(rate=rho * C, packet_size=SIZE))])


@pytest.mark.parametrize("rho, packets", [(0.5, 2_000_000), (0.9, 8_000_000)])
def test_md1_mean_wait_matches_pollaczek_khinchine(rho, packets):
    res = simulate(one_link(rho, 10**6), packets * S / rho, seed=11, warmup=1000 * S,
                   record=QUIET)
    expected = rho * S / (2 * (1 - rho))
    assert res.mean_queueing_delay[0] == pytest.approx(expected, rel=0.02)
    assert res.utilisation[0] == pytest.approx(rho, rel=0.01)


@pytest.mark.parametrize("rho, buffer", [(0.8, 4), (1.2, 9)])
def test_md1k_loss_probability_is_exact(rho, buffer):
    K = buffer + 1  # the buffer holds waiting packets; one more is in transmission
    res = simulate(one_link(rho, buffer), 1_000_000 * S / rho, seed=5, warmup=100 * S,
                   record=QUIET)
    expected = md1k_loss(rho, K)
    assert 0.01 < expected < 0.3
    assert res.drop_rate[0] == pytest.approx(expected, rel=0.03)
    assert res.link_drops["overflow"][0] > 0 and res.link_drops["early"][0] == 0


def test_md1k_reference_against_a_direct_queue_simulation():
    # the reference itself, against M/D/1/K queued directly in continuous time (unit service)
    rng = np.random.default_rng(0)
    rho, K = 0.8, 3
    arr = np.cumsum(rng.exponential(1 / rho, 400_000))
    in_sys_departures: list[float] = []
    busy_until = 0.0
    lost = 0
    for t in arr:
        in_sys_departures = [d for d in in_sys_departures if d > t]
        if len(in_sys_departures) >= K:
            lost += 1
            continue
        start = max(t, busy_until)
        busy_until = start + 1.0
        in_sys_departures.append(busy_until)
    assert lost / len(arr) == pytest.approx(md1k_loss(rho, K), rel=0.03)


def test_red_average_queue_stays_between_thresholds_under_overload():
    red = Red(min_th=10, max_th=40, max_p=0.1, w_q=0.002)
    links = [Link(f"s{i}", "r", 100e6, 0.001) for i in range(20)]
    links.append(Link("r", "d", 10e6, 0.02, buffer=200, queue=red))
    flows = [Flow([f"s{i}", "r", "d"], source=TcpNewReno(), start=0.05 * i) for i in range(20)]
    res = simulate(Network(links, flows), 60.0, seed=3, warmup=20.0,
                   record=Record(interval=0.01, cwnd=False))
    q = res.queue_series[res.t >= 20.0, -1]
    assert red.min_th < q.mean() < red.max_th
    assert res.link_drops["early"][-1] > 0
    assert res.link_drops["overflow"][-1] == 0
    assert res.utilisation[-1] > 0.95


def red_early_fraction(avg, red):
    """Fraction of arrivals dropped by RED's uniform-spacing rule at a fixed average queue:
    with p_b fixed the gap between drops is uniform on 1..1/p_b, so the rate is
    1 / E[gap] = 2 p_b / (1 + p_b)  (Floyd and Jacobson 1993, Section 7)."""
    pb = red.max_p * (avg - red.min_th) / (red.max_th - red.min_th)
    gaps = np.arange(1, int(np.floor(1 / pb)) + 1)
    probs = pb / (1 - (gaps - 1) * pb) * np.concatenate(
        ([1.0], np.cumprod(1 - pb / (1 - (gaps[:-1] - 1) * pb))))
    return 1.0 / np.sum(gaps * probs / probs.sum())


def test_red_drop_curve_matches_configuration():
    # w_q = 1: the average is the instantaneous queue; a constant-rate overload keeps the
    # link busy and the queue in [min_th, max_th], where it must settle at the level whose
    # configured p_b drops exactly the excess
    red = Red(min_th=5, max_th=45, max_p=0.2, w_q=1.0)
    for overload in (1.02, 1.05):
        net = Network([Link("a", "b", C, 0.0, buffer=1000, queue=red)],
                      [Flow(["a", "b"], source=Cbr(rate=overload * C, packet_size=SIZE))])
        res = simulate(net, 200_000 * S, seed=9, warmup=1000 * S,
                       record=Record(interval=S, cwnd=False))
        lost = 1 - 1 / overload  # what must be dropped for the rest to fit the link
        assert res.drop_rate[0] == pytest.approx(lost, rel=0.05)
        # the queue level at which the configured curve drops that fraction
        from scipy.optimize import brentq

        # (bracketed from p_b = 1e-3 up: red_early_fraction builds an array of 1/p_b gaps,
        # 2e8 of them, 1.6 GB, at min_th + 1e-6)
        lowest = red.min_th + 1e-3 / red.max_p * (red.max_th - red.min_th)
        level = brentq(lambda a: red_early_fraction(a, red) - lost, lowest, red.max_th - 1e-6)
        q = res.queue_series[res.t >= res.warmup, 0]
        assert q.mean() == pytest.approx(level, rel=0.15)


def test_red_gentle_and_forced_drops():
    # a heavy unresponsive overload pushes the average above max_th: forced drops
    # without gentle mode, far fewer with it
    out = {}
    for gentle in (False, True):
        red = Red(min_th=5, max_th=15, max_p=0.1, w_q=0.02, gentle=gentle)
        net = Network([Link("a", "b", C, 0.0, buffer=100, queue=red)],
                      [Flow(["a", "b"], source=Cbr(rate=3 * C, packet_size=SIZE))])
        out[gentle] = simulate(net, 20_000 * S, seed=1, record=QUIET)
    assert out[False].link_drops["forced"][0] > 0
    assert out[True].counters["link_max_waiting"][0] > out[False].counters["link_max_waiting"][0]
    for r in out.values():
        assert r.throughput[0] == pytest.approx(C, rel=0.01)


@pytest.mark.parametrize("rho", [0.5, 2.0])
def test_fcfs_telnet_delay_figure_1(rho):
    # N FTPs of window W on infinitely fast links and a Poisson Telnet through one FCFS
    # gateway: the Telnet's mean wait against the closed form derived in qosmodels.fq
    N, W = 3, 5
    fast = 1e13
    links = [Link(f"s{i}", "g", fast, 0.0, buffer=1000) for i in range(N + 1)]
    links.append(Link("g", "d", C, 0.0, buffer=1000))
    flows = [Flow([f"s{i}", "g", "d"], source=GenericWindow(window=W, packet_size=SIZE))
             for i in range(N)]
    lam = rho / (S * (N + 1))  # rho = lambda P (N + 1), the paper's normalisation
    flows.append(Flow([f"s{N}", "g", "d"], source=Poisson(rate=lam * 8 * SIZE, packet_size=SIZE)))
    res = simulate(Network(links, flows), 200_000 * S, seed=2, warmup=100 * S, record=QUIET)
    expected = fcfs_telnet_delay(N, W, rho, packet_time=S)
    assert res.mean_queueing_delay[N] == pytest.approx(expected, rel=0.02)
    assert res.utilisation[-1] == pytest.approx(1.0, abs=1e-3)


def test_delay_spread_and_longest_wait_of_a_deterministic_burst():
    # a CBR source at twice the line rate for n packets: packet k arrives at k T / 2 and
    # starts service at k T, so it waits k T / 2 (T = 8 ms, the packet time): mean
    # (n - 1) T / 4, population standard deviation (T / 2) sqrt((n^2 - 1) / 12), longest
    # (n - 1) T / 2
    n, T = 9, 0.008
    net = Network([Link("a", "b", 1e6, 0.01, buffer=100)],
                  [Flow(["a", "b"], source=Cbr(rate=2e6), stop=(n - 0.5) * T / 2)])
    r = simulate(net, 1.0, seed=0)
    assert r.delivered_packets[0] == n
    assert r.mean_queueing_delay[0] == pytest.approx((n - 1) * T / 4, rel=1e-9)
    assert r.queueing_delay_std[0] == pytest.approx(T / 2 * np.sqrt((n * n - 1) / 12), rel=1e-6)
    assert r.max_queueing_delay[0] == pytest.approx((n - 1) * T / 2, rel=1e-9)
    # a flow with no packet in the window has none of the three
    late = simulate(net, 1.0, seed=0, warmup=0.5)
    assert np.isnan([late.mean_queueing_delay[0], late.queueing_delay_std[0],
                     late.max_queueing_delay[0]]).all()
