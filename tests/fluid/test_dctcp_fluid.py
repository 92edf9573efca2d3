"""The DCTCP fluid model (qosmodels.fluid.dctcp, Alizadeh, Javanmard, Prabhakar 2011).

References, none computed by the integrator under test:

- the averaged equilibrium, derived by hand from the equations: with the queue at K,
  ``W* = (C d + K)/N``, the time-averaged mark equals the averaged alpha (the alpha equation),
  and ``dW/dt = 0`` gives ``alpha^2 W*/2 = 1``, ``alpha = sqrt(2/W*)`` (the SIGCOMM 2010
  analysis's large-W* form);
- the period identities every periodic solution of the equations satisfies (integrals of
  the right-hand sides over one period vanish), evaluated here with numpy on the saved
  trajectory;
- one Heun step computed here in plain Python from the equations;
- the exact solution while the queue is empty and no mark arrives: W(t) = W0 + t/d,
  alpha(t) = alpha0 exp(-g t/d).

The network: 1 Gb/s, 1500-byte packets (C = 83 333 packet/s), d = 1.0122 ms (the
dctcp-sawtooth experiment's round trip with transmission times: C d = 84.35 packets),
K = 20 packets.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from qosmodels.errors import BudgetError, ScenarioError, ScenarioTypeError
from qosmodels.fluid.dctcp import (
    DctcpFluidResult,
    g_guideline,
    sliding_equilibrium,
    solve_dctcp_fluid,
)

C = 1e9 / (8 * 1500)
D = 84.35333333333335 / C
K = 20.0


@pytest.mark.parametrize("n", [2, 10])
def test_mean_alpha_is_the_averaged_equilibrium(n):
    w_star = (C * D + K) / n
    r = solve_dctcp_fluid(n, C, D, K, 1 / 16, 1.0)
    assert r.mean_alpha(0.5) == pytest.approx(math.sqrt(2 / w_star), rel=0.03)
    e = sliding_equilibrium(n, C, D, K)
    assert e["W"] == pytest.approx(w_star) and e["q"] == K
    assert e["alpha"] == pytest.approx(math.sqrt(2 / w_star))
    # the window averages W* when weighted by 1/R (the mean rate N W/R is C)
    m = r.window(0.5)
    assert np.mean(n * r.W[m] / r.rtt[m]) == pytest.approx(C, rel=0.01)


def test_period_identities_hold_over_one_cycle():
    r = solve_dctcp_fluid(2, C, D, K, 1 / 16, 1.0, dt=D / 1000)
    lc = r.limit_cycle(0.3)
    assert lc.settled and lc.q_min > 0  # the queue never empties: the link stays busy
    m = r.window(0.3)
    t, q, W, a, p = r.t[m], r.q[m], r.W[m], r.alpha[m], r.p[m]
    inner = (q[1:-1] > K) & (q[1:-1] >= q[:-2]) & (q[1:-1] > q[2:])
    pk = np.flatnonzero(inner) + 1
    s = slice(pk[0], pk[-1] + 1)  # a whole number of cycles
    R = D + q[s] / C
    tt = t[s]
    scale = np.trapezoid(a[s] / R, tt)
    assert abs(np.trapezoid((p[s] - a[s]) / R, tt)) < 0.01 * scale
    up = np.trapezoid(1 / R, tt)
    assert abs(up - np.trapezoid(W[s] * a[s] * p[s] / (2 * R), tt)) < 0.01 * up
    assert np.trapezoid(2 * W[s] / R, tt) / (tt[-1] - tt[0]) == pytest.approx(C, rel=0.002)


def test_one_heun_step_by_hand():
    # q_init > K: the history (before 0) is above K, so the senders see marks at once
    n, g, W0, a0, q0 = 3.0, 0.25, 40.0, 0.5, 30.0
    dt = 1e-5
    r = solve_dctcp_fluid(n, C, D, K, g, dt, dt=dt, W_init=W0, alpha_init=a0, q_init=q0,
                          save_dt=dt)

    def f(W, a, q):
        R = D + q / C
        return 1 / R - W * a / (2 * R), g / R * (1 - a), n * W / R - C

    k1 = f(W0, a0, q0)
    pred = [x + dt * k for x, k in zip((W0, a0, q0), k1)]
    k2 = f(*pred)
    want = [x + dt / 2 * (u + w) for x, u, w in zip((W0, a0, q0), k1, k2)]
    assert r.t.tolist() == [0.0, dt]
    assert (r.W[1], r.alpha[1], r.q[1]) == pytest.approx(want, rel=1e-13)
    assert r.p.tolist() == [1.0, 1.0]


def test_empty_queue_without_marks_is_exact():
    # one flow, a window far below C d: the queue stays empty, no mark arrives
    g = 0.1
    r = solve_dctcp_fluid(1, C, D, K, g, 0.02, W_init=5.0, alpha_init=0.8)
    assert r.q.max() == 0.0 and r.p.max() == 0.0
    np.testing.assert_allclose(r.W, 5.0 + r.t / D, rtol=1e-12)
    np.testing.assert_allclose(r.alpha, 0.8 * np.exp(-g * r.t / D), rtol=1e-6)


def test_larger_g_than_the_guideline_oscillates_more():
    b = C * D
    assert 1 / 16 < g_guideline(b, K) < 1 / 4
    small = solve_dctcp_fluid(2, C, D, K, 1 / 16, 1.0).limit_cycle(0.3)
    large = solve_dctcp_fluid(2, C, D, K, 1 / 4, 1.0).limit_cycle(0.3)
    assert small.settled and large.settled
    assert large.amplitude > 1.3 * small.amplitude


def test_g_guideline_closed_form():
    assert g_guideline(84.0, 20.0) == pytest.approx(math.log(4) / math.sqrt(208.0))
    # exp(-g T_C) = 1/2 at T_C = sqrt((B + K)/2) round trips; (1 - g)^T_C ~ 1/2 for small g
    b, k = 1000.0, 100.0
    tc = math.sqrt((b + k) / 2)
    assert math.exp(-g_guideline(b, k) * tc) == pytest.approx(0.5, rel=1e-12)
    assert (1 - g_guideline(b, k)) ** tc == pytest.approx(0.5, rel=0.02)


def test_result_table_and_plot():
    r = solve_dctcp_fluid(2, C, D, K, 1 / 16, 0.05)
    assert isinstance(r, DctcpFluidResult)
    df = r.to_pandas()
    assert list(df.columns) == ["W", "alpha", "q", "p"] and len(df) == len(r.t)
    assert set(np.unique(r.p)) <= {0.0, 1.0}
    import matplotlib

    matplotlib.use("Agg")
    assert len(r.plot()) == 3


@pytest.mark.parametrize("call, match", [
    (lambda: solve_dctcp_fluid(0, C, D, K, 0.1, 1.0), r"solve_dctcp_fluid\.N must be > 0"),
    (lambda: solve_dctcp_fluid(2, -1, D, K, 0.1, 1.0), r"solve_dctcp_fluid\.C must be > 0"),
    (lambda: solve_dctcp_fluid(2, C, 0, K, 0.1, 1.0), r"solve_dctcp_fluid\.d must be > 0"),
    (lambda: solve_dctcp_fluid(2, C, D, -1, 0.1, 1.0), r"solve_dctcp_fluid\.K must be >= 0"),
    (lambda: solve_dctcp_fluid(2, C, D, K, 1.5, 1.0), r"solve_dctcp_fluid\.g must be <= 1"),
    (lambda: solve_dctcp_fluid(2, C, D, K, 0.0, 1.0), r"solve_dctcp_fluid\.g must be > 0"),
    (lambda: solve_dctcp_fluid(2, C, D, K, 0.1, 1.0, dt=1e-3),
     r"solve_dctcp_fluid\.dt must be <= 0\.000626"),
    (lambda: solve_dctcp_fluid(2, C, D, K, 0.1, 1.0, alpha_init=2),
     r"solve_dctcp_fluid\.alpha_init must be <= 1"),
    (lambda: sliding_equilibrium(100, C, D, K), r"W\* = .* is below 2"),
    (lambda: g_guideline(0, K), r"g_guideline\.bdp must be > 0"),
    (lambda: solve_dctcp_fluid(2, C, D, K, 0.1, 0.01).limit_cycle(0.005),
     r"queue peaks in the last duration=0\.005 s; at least 3"),
])
def test_bad_inputs_are_refused(call, match):
    with pytest.raises(ScenarioError, match=match):
        call()


def test_wrong_types_and_budget():
    with pytest.raises(ScenarioTypeError, match=r"solve_dctcp_fluid\.N must be a real number"):
        solve_dctcp_fluid("2", C, D, K, 0.1, 1.0)
    with pytest.raises(BudgetError, match=r"t_end / dt = 100\.0 / .*max_steps"):
        solve_dctcp_fluid(2, C, D, K, 0.1, 100.0, max_steps=10 ** 5)


def test_the_limit_cycle_converges_as_dt_shrinks():
    # the default step (R*/200) against four times finer: the cycle within 1 %
    r_star = D + K / C
    coarse = solve_dctcp_fluid(2, C, D, K, 1 / 16, 1.0).limit_cycle(0.3)
    fine = solve_dctcp_fluid(2, C, D, K, 1 / 16, 1.0, dt=r_star / 800).limit_cycle(0.3)
    for what in ("period", "q_max", "q_min", "amplitude"):
        assert getattr(coarse, what) == pytest.approx(getattr(fine, what), rel=0.01), what


def test_the_kernel_interpreted_agrees_with_the_jitted():
    # the kernel run as plain Python (its py_func) against the compiled one
    from qosmodels.fluid._dctcp_kernel import integrate_dctcp

    dt, n_steps = (D + K / C) / 200, 4000
    outs = []
    for fn in (integrate_dctcp, integrate_dctcp.py_func):
        out = [np.empty(n_steps // 10 + 1) for _ in range(5)]
        assert fn(10.0, C, D, K, 0.25, dt, n_steps, 10, 1.0, 1.0, 0.0, 256, *out) == 0
        outs.append(out)
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    assert outs[0][3].max() > K  # the run reached marking
