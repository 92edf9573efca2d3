"""The TCP Reno / RED fluid model (Misra, Gong and Towsley 2000) on the fluid infrastructure.

The reference is the square-root law of the fluid model, x = (P / rtt) sqrt(2 / p)
(a window that grows one packet per round trip and loses half of itself per
mark), with the RED queue found here by an independent root finder.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy.optimize import brentq

from qosmodels import ScenarioError
from qosmodels.fluid import DEFAULT_RED, Red, reno_equilibrium, solve_fluid
from qosmodels.fluid.stability import oscillation
from qosmodels.topologies import dumbbell, parking_lot
from qosmodels.units import Mbps, ms

PKT = 8000.0


def test_square_root_law_single_bottleneck():
    n, c = 10, 10e6
    net = dumbbell(n, Mbps(10), ms(20), access_delay=ms(1))
    rttp = float(net.rtt[0])  # 2 * (20 + 1) ms
    red = DEFAULT_RED

    def p_of(q):  # RED's linear part, in packets
        return red.max_p * (q - red.min_th) / (red.max_th - red.min_th)

    def excess(q):  # n flows at the square-root law against the capacity
        rtt = rttp + q * PKT / c
        return n * PKT / rtt * math.sqrt(2.0 / p_of(q)) - c

    q_star = brentq(excess, red.min_th + 1e-9, red.max_th)
    r = solve_fluid(net, 100.0, control="Reno", red_links=["r0->r1"])
    assert oscillation(r, 10.0) < 1e-6  # settled
    assert r.mean("queues", 80, 100)[0] / PKT == pytest.approx(q_star, rel=1e-4)
    assert r.mean("marking", 80, 100)[0] == pytest.approx(p_of(q_star), rel=1e-4)
    rtt = r.mean("rtt", 80, 100)
    p = r.mean("estimates", 80, 100)  # the path marking probability the senders see
    np.testing.assert_allclose(r.mean("rates", 80, 100), PKT / rtt * np.sqrt(2 / p), rtol=1e-4)
    assert r.lost[-1].sum() == 0
    eq = reno_equilibrium(net, ["r0->r1"])
    assert eq.queues[0] / PKT == pytest.approx(q_star, rel=1e-8)
    np.testing.assert_allclose(eq.rates, c / n, rtol=1e-8)


def test_reno_two_red_links_parking_lot():
    # the long flow sees both links' marks: p = 1 - (1 - p1)(1 - p2)
    net = parking_lot(2, Mbps(10), ms(10), n_long=1, n_short=4)
    eq = reno_equilibrium(net, [0, 1])
    r = solve_fluid(net, 120.0, control="Reno", red_links=[0, 1])
    assert oscillation(r, 10.0) < 1e-4
    np.testing.assert_allclose(r.mean("rates", 100, 120), eq.rates, rtol=1e-3)
    np.testing.assert_allclose(r.mean("queues", 100, 120), eq.queues, rtol=1e-3)
    assert eq.path_marking[0] == pytest.approx(1 - (1 - eq.marking[0]) * (1 - eq.marking[1]))
    assert eq.rates[0] < eq.rates[1]  # the long flow is penalised


def test_reno_droptail_overflow_sawtooth():
    # without RED the only signal is buffer overflow: windows halve, the link stays busy
    net = dumbbell(4, Mbps(10), ms(20), buffer=50)
    r = solve_fluid(net, 40.0, control="Reno")
    assert r.lost[-1].sum() > 0
    assert r.utilisation(10, 40)[0] > 0.9
    assert np.all(r.marking == 0)


def test_red_from_link_queue_equals_red_links():
    # the same RED, given as the link's queue spec (as the packet simulator reads it) or listed
    red = Red(min_th=20, max_th=80, max_p=0.1, w_q=0.002, gentle=True)
    net = dumbbell(4, Mbps(10), ms(20), buffer=200)
    listed = solve_fluid(net, 20.0, control="Reno", red_links=["r0->r1"], red=red)
    links = [dataclasses.replace(l, queue=red) if l.key == ("r0", "r1") else l for l in net.links]
    own = solve_fluid(net.replace(links=links), 20.0, control="Reno")
    np.testing.assert_array_equal(listed.queues, own.queues)
    eq = reno_equilibrium(net.replace(links=links))
    np.testing.assert_allclose(eq.rates, reno_equilibrium(net, ["r0->r1"], red).rates)


def test_red_without_gentle_marks_everything_above_max_th():
    net = dumbbell(4, Mbps(10), ms(20), buffer=200)
    g = reno_equilibrium(net, ["r0->r1"], Red(min_th=2, max_th=4, max_p=0.01, gentle=True))
    h = reno_equilibrium(net, ["r0->r1"], Red(min_th=2, max_th=4, max_p=0.01, gentle=False))
    # with a tiny max_p the equilibrium sits above max_th: gentle ramps, non-gentle caps at max_th
    assert h.queues[net.link_id("r0->r1")] <= 4 * 8000 * (1 + 1e-9)
    assert g.queues[net.link_id("r0->r1")] > h.queues[net.link_id("r0->r1")]


def test_red_validation():
    with pytest.raises(ScenarioError, match=r"red_links\[0\]: no link 'x->y'"):
        solve_fluid(dumbbell(1), 1.0, control="Reno", red_links=["x->y"])
    with pytest.raises(ScenarioError, match="no RED link"):
        reno_equilibrium(dumbbell(1), [])
    with pytest.raises(TypeError, match="red must be a qosmodels.mechanisms.Red"):
        solve_fluid(dumbbell(1), 1.0, control="Reno", red_links=["r0->r1"], red=object())
