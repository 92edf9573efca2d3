"""The Numba integrator against independent formulations: scipy's LSODA and jitcdde.

The reference models (qosmodels.fluid._reference) write ACC in the classic
per-flow form (per-hop queues served in proportion to their content, smoothed
near empty) rather than the kernel's cumulative FIFO curves; they share only
the network description.  The delay-free ODE (solve_ivp, LSODA) must reach the
same equilibrium; jitcdde integrates the DDE itself (slow; skipped when
jitcdde is not installed: it is not a dependency).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from qosmodels.fluid import acc_equilibrium, solve_fluid
from qosmodels.fluid._reference import initial_state, ivp_rhs
from qosmodels.topologies import acc_linear, dumbbell
from qosmodels.units import Mbps, ms


def single():
    return dumbbell(3, Mbps(10), ms(10), access_capacity=Mbps(20),
                    access_delay=[ms(1), ms(5), ms(10)])


@pytest.mark.parametrize("make", [single, lambda: acc_linear(4, delay=ms(2))])
def test_lsoda_without_delays_reaches_the_same_equilibrium(make):
    net = make()
    F = net.n_flows
    sol = solve_ivp(ivp_rhs(net, kappa=0.2), (0.0, 40.0), initial_state(net), method="LSODA",
                    t_eval=[40.0], rtol=1e-8, atol=1e-6)
    assert sol.status == 0
    w, q = sol.y[:F, -1], sol.y[F:, -1]
    Q = np.bincount(net.route_links, weights=q, minlength=net.n_links)
    fluid = solve_fluid(net, 40.0, kappa=0.2)
    eq = acc_equilibrium(net)
    # the reference's total queue, and the Numba DDE's, are the sum of the targets
    assert Q.sum() == pytest.approx(eq.targets.sum(), rel=1e-3)
    assert fluid.queues[-1].sum() == pytest.approx(Q.sum(), rel=1e-3)
    rtt = net.rtt + (net.routing_matrix.T @ (Q / net.capacities))
    np.testing.assert_allclose(w / rtt, fluid.rates[-1], rtol=2e-3)


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
