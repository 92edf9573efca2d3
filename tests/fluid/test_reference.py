"""The Numba integrator against independent formulations: scipy's LSODA and jitcdde.

The reference models (qosmodels.fluid._reference) write ACC in the classic
per-flow form (per-hop queues served in proportion to their content, smoothed
near empty) rather than the kernel's cumulative FIFO curves; they share only
the network description.  The delay-free ODE (solve_fluid(method="lsoda"),
solve_ivp's LSODA) must reach the same equilibrium as the Numba DDE and as the
allocation module's convex solver; jitcdde integrates the DDE itself (slow; skipped when
jitcdde is not installed: it is not a dependency).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from qosmodels import Flow, Network, ScenarioError
from qosmodels.fluid import LinkChange, acc_equilibrium, solve_fluid
from qosmodels.fluid._reference import initial_state, ivp_rhs
from qosmodels.topologies import acc_linear, dumbbell
from qosmodels.units import Mbps, ms


def single():
    return dumbbell(3, Mbps(10), ms(10), access_capacity=Mbps(20),
                    access_delay=[ms(1), ms(5), ms(10)])


@pytest.mark.parametrize("make", [single, lambda: acc_linear(4, delay=ms(2)),
                                  lambda: acc_linear(9, delay=ms(2))],
                         ids=["single", "linear4", "parking9"])
def test_lsoda_without_delays_reaches_the_same_equilibrium(make):
    net = make()
    lsoda = solve_fluid(net, 40.0, kappa=0.2, method="lsoda")
    fluid = solve_fluid(net, 40.0, kappa=0.2, method="numba")
    eq = acc_equilibrium(net)
    # the reference's total queue, and the Numba DDE's, are the sum of the targets
    assert lsoda.queues[-1].sum() == pytest.approx(eq.targets.sum(), rel=1e-3)
    assert fluid.queues[-1].sum() == pytest.approx(lsoda.queues[-1].sum(), rel=1e-3)
    np.testing.assert_allclose(lsoda.rates[-1], fluid.rates[-1], rtol=2e-3)
    np.testing.assert_allclose(lsoda.rates[-1], eq.rates, rtol=2e-3)
    # the same time grid and fields as the Numba result; what LSODA cannot fill is NaN
    np.testing.assert_allclose(lsoda.t, fluid.t)
    assert lsoda.rates.shape == fluid.rates.shape and lsoda.queues.shape == fluid.queues.shape
    assert np.isnan(lsoda.departed).all() and np.isnan(lsoda.lost).all() and np.isnan(lsoda.dt)
    np.testing.assert_allclose(lsoda.accumulation[-1], lsoda.rates[-1] * (
        net.routing_matrix.T @ (lsoda.queues[-1] / net.capacities)), rtol=1e-3)


def test_lsoda_option_is_the_reference_ode():
    # method="lsoda" is solve_ivp on the reference right-hand side, nothing else
    net = single()
    F = net.n_flows
    sol = solve_ivp(ivp_rhs(net, kappa=0.2), (0.0, 10.0), initial_state(net), method="LSODA",
                    t_eval=[10.0], rtol=1e-8, atol=1e-6)
    w = sol.y[:F, -1]
    r = solve_fluid(net, 10.0, kappa=0.2, method="lsoda", save_dt=0.5)
    # (different output grids change LSODA's internal steps: agreement to its accuracy)
    np.testing.assert_allclose(r.windows[-1], w, rtol=1e-5)
    assert solve_fluid(net, 1.0, kappa=0.2, method="auto").dt == solve_fluid(
        net, 1.0, kappa=0.2, method="numba").dt


@pytest.mark.parametrize("kw,match", [
    (dict(method="rk4"), r"method must be one of .*'rk4'"),
    (dict(method=3), r"method must be one of"),
    (dict(control="AIAD"), r"does not support control='AIAD'.*method='numba'"),
    (dict(estimator="vegas"), r"does not support estimator='vegas'.*method='numba'"),
    (dict(avd_links=["r0->r1"]), r"does not support avd_links.*method='numba'"),
    (dict(red_links=["r0->r1"]), r"does not support RED.*method='numba'"),
    (dict(events=[LinkChange(1.0, "r0->r1", delay=ms(20))]), r"does not support events"),
])
def test_lsoda_rejects_what_it_does_not_model(kw, match):
    kw = dict(dict(method="lsoda"), **kw) if "method" not in kw else kw
    with pytest.raises(ScenarioError, match=match):
        solve_fluid(single(), 1.0, **kw)


def test_lsoda_rejects_dynamic_flows_and_rate_caps():
    base = single()
    late = Network(base.links, [Flow(base.flows[0].route, start=1.0)] + list(base.flows[1:]))
    with pytest.raises(ScenarioError, match=r"does not support flows that start or stop"):
        solve_fluid(late, 2.0, method="lsoda")
    capped = Network(base.links, [Flow(base.flows[0].route, max_rate=Mbps(1))] + list(base.flows[1:]))
    with pytest.raises(ScenarioError, match=r"does not support Flow.max_rate"):
        solve_fluid(capped, 2.0, method="lsoda")


@pytest.mark.slow
def test_jitcdde_time_averaged_queue_within_one_percent():
    pytest.importorskip("jitcdde")
    from qosmodels.fluid._reference import jitcdde_model

    net = single()
    T = 20.0
    dde = jitcdde_model(net, kappa=0.2)
    dde.constant_past(initial_state(net))
    dde.compile_C(simplify=False, do_cse=False, verbose=False)
    dde.set_integration_parameters(atol=1e-6, rtol=1e-6, max_step=1e-4, first_step=1e-5)
    dde.adjust_diff()
    ts = np.arange(dde.t + 0.01, T + 1e-9, 0.01)
    states = np.array([dde.integrate(t) for t in ts])
    q_ref = states[:, net.n_flows:].sum(axis=1)
    r = solve_fluid(net, T, kappa=0.2, save_dt=0.01)
    q = r.queues.sum(axis=1)
    mean_ref = np.trapezoid(q_ref, ts) / (ts[-1] - ts[0])
    sel = r.t >= ts[0] - 1e-12
    mean = np.trapezoid(q[sel], r.t[sel]) / (r.t[sel][-1] - r.t[sel][0])
    assert mean == pytest.approx(mean_ref, rel=1e-2)
    # and the trajectories themselves: the window of each flow at 2, 5, 10 s
    for t in (2.0, 5.0, 10.0):
        i, j = np.argmin(np.abs(ts - t)), np.argmin(np.abs(r.t - t))
        np.testing.assert_allclose(r.windows[j], states[i, :net.n_flows], rtol=5e-2)
