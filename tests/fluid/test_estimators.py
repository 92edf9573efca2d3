"""Accumulation estimators (Vegas, Vegas-k, Monaco), AVD, dynamic flows and the kappa sweep.

Reference values are closed forms of the fluid model's equilibrium, derived
in the comments from the paper's equations (Xia et al. 2005, eqs (7)-(12)).
"""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels import ScenarioError
from qosmodels.fluid import solve_fluid
from qosmodels.fluid.scenarios import acc_delay_jump, acc_dynamic_flows, acc_reverse_dumbbell
from qosmodels.fluid.stability import kappa_sweep, oscillation
from qosmodels.topologies import acc_linear, dumbbell
from qosmodels.units import Mbps, ms

A_STAR = 3000 * 8  # bits
PKT = 8000.0


@pytest.mark.parametrize("error", [0.0, 0.005, 0.01])
def test_vegas_rtt_p_error_inflates_the_queue(error):
    # eq (11) with rtt_p_hat = rtt_p + e: a* = x (t_q - e) per flow; n equal
    # flows share c, x = c / n, so the queue is c t_q = n a* + c e.
    net = dumbbell(3, Mbps(10), ms(10), access_delay=[ms(1), ms(5), ms(10)])
    r = solve_fluid(net, 40.0, kappa=0.2, estimator="vegas", rtt_p_error=error)
    assert r.queues[-1, 0] == pytest.approx(3 * A_STAR + 10e6 * error, rel=1e-6)
    np.testing.assert_allclose(r.rates[-1], 10e6 / 3, rtol=1e-6)


@pytest.mark.parametrize("cr", [5, 25])
def test_vegas_reverse_path_bias_eq12(cr):
    # eq (12): a_V = x (t_q^f + t_q^b).  The reverse link is saturated by the 7
    # reverse flows, whose own ACKs see an idle forward link: t_q^b = 7 a* / c_r.
    # The forward flows then settle at x = a* / t_q^b = c_r / 7 with no forward
    # queue: forward utilisation c_r / c_f.
    net = acc_reverse_dumbbell(Mbps(cr))
    r = solve_fluid(net, 30.0, kappa=0.2, estimator="vegas")
    np.testing.assert_allclose(r.rates[-1, :7], cr * 1e6 / 7, rtol=1e-6)
    assert r.queue_delays[-1, 1] == pytest.approx(7 * A_STAR / (cr * 1e6), rel=1e-6)
    assert r.queues[-1, 0] == pytest.approx(0.0, abs=1e-3)
    # Monaco measures the forward queueing delay only and fills the forward link
    m = solve_fluid(net, 30.0, kappa=0.2, estimator="monaco")
    assert m.utilisation(20, 30)[0] > 0.94
    # the ideal estimator does too, and neither loses bits
    assert m.lost[-1].sum() == 0


def test_vegas_unbiased_without_errors():
    net = acc_linear(3)
    r = solve_fluid(net, 40.0, kappa=0.2, estimator="vegas")
    np.testing.assert_allclose(r.mean("rates", 30, 40)[[0, 3]], [100e6 / 6, 50e6], rtol=5e-3)


def test_delay_jump_vegas_vegas_k_monaco():
    net, change = acc_delay_jump()
    # Vegas keeps rtt_p = 26 ms after the rtt_p grows to 106 ms: a_V = x * 80 ms = a*
    v = solve_fluid(net, 40.0, kappa=0.2, estimator="vegas", events=[change])
    assert v.mean("rates", 20, 40)[0] == pytest.approx(A_STAR / 0.080, rel=1e-3)
    assert v.queues[-1, 0] == 0
    # Vegas-k forgets: its base RTT includes its own standing queue, which grows to loss
    k = solve_fluid(net, 100.0, kappa=0.2, estimator="vegas-k", events=[change])
    assert k.lost[-1, 0] > 0
    assert k.queues[:, 0].max() == pytest.approx(100 * PKT, rel=1e-9)
    # Monaco measures the forward queueing delay directly: back to full use and a*
    m = solve_fluid(net, 60.0, kappa=0.2, estimator="monaco", events=[change])
    assert m.utilisation(40, 60)[0] == pytest.approx(1.0, rel=1e-3)
    assert m.queues[-1, 0] == pytest.approx(A_STAR, rel=1e-4)
    assert m.lost[-1, 0] == 0


def test_vegas_k_memory():
    # with a long enough memory Vegas-k behaves like Vegas before any change
    net = dumbbell(2, Mbps(10), ms(10))
    a = solve_fluid(net, 20.0, kappa=0.2, estimator="vegas")
    b = solve_fluid(net, 20.0, kappa=0.2, estimator="vegas-k", vegas_k=10_000)
    np.testing.assert_allclose(b.rates, a.rates, rtol=1e-12)


def test_dynamic_flows_fig6():
    # Figure 6: 10, 5, 5 flows entering at 0, 10, 20 s and leaving at 30, 40, 50 s
    r = solve_fluid(acc_dynamic_flows(90), 50.0, kappa=0.2, estimator="monaco")
    phases = [((5, 10), 10), ((15, 20), 15), ((25, 30), 20), ((35, 40), 10), ((45, 50), 5)]
    for (t0, t1), n in phases:
        thr = r.throughput(t0, t1)
        on = thr > 0
        assert on.sum() == n
        np.testing.assert_allclose(thr[on], 30e6 / n, rtol=1e-2)
        assert r.mean("queues", t0, t1)[0] == pytest.approx(3 * n * PKT, rel=2e-2)
    assert r.lost[-1].sum() == 0


def test_underprovisioned_buffer_fig7_and_avd_fig8():
    droptail = solve_fluid(acc_dynamic_flows(55), 50.0, kappa=0.2, estimator="monaco")
    assert droptail.lost[-1].sum() > 0
    lost_at = droptail.t[np.argmax(droptail.lost.sum(axis=1) > 0)]
    assert 20.0 <= lost_at < 30.0  # the 20-flow phase needs 60 packets
    avd = solve_fluid(acc_dynamic_flows(55), 50.0, kappa=0.2, estimator="monaco",
                      avd_links=["r0->r1"], avd_utilisation=0.98)
    assert avd.lost[-1].sum() == 0
    assert avd.utilisation()[0] == pytest.approx(0.98, abs=0.015)
    assert avd.mean("queues")[0] < 0.1 * droptail.mean("queues")[0]
    assert np.all(avd.virtual_delays[:, 0] >= 0) and avd.mean("virtual_delays", 45, 49)[0] > 0
    assert np.all(avd.virtual_delays[:, 1:] == 0)


def test_kappa_sweep_nine_links():
    # 9-link parking lot, 2 ms links, three long flows: settles at kappa <= 0.3,
    # oscillates at 0.5 (the statement, reproduced by the fluid model)
    sweep = kappa_sweep(acc_linear(9, delay=ms(2)), [0.2, 0.3, 0.5], t_end=60.0)
    assert sweep.settled.tolist() == [True, True, False]
    assert sweep.critical() == 0.5
    assert sweep.amplitude[2] > 0.1
    assert list(sweep.to_pandas().columns) == ["kappa", "amplitude", "settled"]


def test_oscillation_window_validation():
    r = solve_fluid(dumbbell(1), 1.0)
    assert oscillation(r, window=0.5) >= 0
    with pytest.raises(ScenarioError, match="window must be > 0"):
        oscillation(r, window=0)


def test_scenarios_validate():
    with pytest.raises(ScenarioError, match="n_forward must be >= 1"):
        acc_reverse_dumbbell(n_forward=0)
    with pytest.raises(ScenarioError, match="time_scale must be > 0"):
        acc_dynamic_flows(time_scale=0)
