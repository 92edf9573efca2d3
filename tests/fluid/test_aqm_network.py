"""PI and PIE as fluid laws: PieLaw in the MGT model, and Pi / Pie links in the network
fluid model ``solve_fluid(control="Reno")``.

References, none computed by the code under test:

- RFC 8033's ``calculate_drop_prob`` (Section 4.2, Appendix A), worked by hand for each band
  of its auto-tuning table, and replayed here in plain Python over the queues the solvers
  saved (so the replay checks when and how the laws update, not the queues themselves);
- PI's discrete recursion ``p[k] = p[k-1] + a (q[k] - q_ref) - b (q[k-1] - q_ref)`` (Hollot et
  al., INFOCOM 2001), replayed the same way;
- the closed-form operating point of Hollot et al.: the integral action holds ``q0 = q_ref``
  (PI) or ``q0 = target C`` (PIE), ``R0 = q0/C + Tp``, ``W0 = R0 C/N``, ``p0 = 2/W0**2``.

``solve_mgt`` and the network solver are two implementations of the MGT equations and are
compared with each other as sides, at equilibrium: they are not the same model in a
transient (the network model delays the marks by the propagation round trip and carries the
data along the path; MGT delays them by ``R(t) = q/C + Tp``), so their start-up transients
differ (measured on the 60-flow dumbbell under PI: overshoot 273.5 packets at 4.28 s in the
network model, 295.6 at 4.44 s in MGT).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from qosmodels import mechanisms
from qosmodels.errors import ScenarioError
from qosmodels.fluid import solve_fluid
from qosmodels.fluid.mgt import PieLaw, PiLaw, mgt_scenario, solve_mgt
from qosmodels.topologies import dumbbell

N, C, PKT = 60, 3750.0, 1000  # Hollot et al.'s example: 60 flows, 3750 packet/s


def _net(queue, delay=0.1, access_delay=0.0005, buffer=800):
    """The 60-flow dumbbell, 30 Mb/s bottleneck under ``queue``, round trip 2 ``delay``."""
    net = dumbbell(N, C * 8 * PKT, delay - 2 * access_delay, access_delay=access_delay,
                   packet_size=PKT)
    return net.replace_link("r0->r1", queue=queue, buffer=buffer)


def _pie_by_hand(p, qdelay, old, alpha=0.125, beta=1.25, target=0.015):
    """RFC 8033, Appendix A, ``calculate_drop_prob`` (without the burst allowance)."""
    d = alpha * (qdelay - target) + beta * (qdelay - old)
    for bound, div in ((1e-6, 2048), (1e-5, 512), (1e-4, 128), (1e-3, 32), (1e-2, 8),
                       (0.1, 2)):
        if p < bound:
            d /= div
            break
    p += d
    if qdelay == 0 and old == 0:
        p *= 0.98
    return min(max(p, 0.0), 1.0)


@pytest.mark.parametrize("p, qdelay, old, expected", [
    # p >= 0.1: no scaling; d = 0.125 (-0.005) + 1.25 (-0.002) = -0.003125
    (0.5, 0.010, 0.012, 0.496875),
    # p < 0.1: d = 0.125 (0.005) + 1.25 (0.002) = 0.003125, halved
    (0.05, 0.020, 0.018, 0.0515625),
    # p < 1e-6: d = 0.125 (0.015) + 1.25 (0.03) = 0.039375, over 2048
    (0.0, 0.030, 0.0, 0.039375 / 2048),
    # p < 1e-3: over 32
    (5e-4, 0.030, 0.0, 5e-4 + 0.039375 / 32),
    # idle queue: d = -0.001875, then the decay: (0.2 - 0.001875) 0.98
    (0.2, 0.0, 0.0, 0.198125 * 0.98),
    # bounded below
    (0.0, 0.0, 0.0, 0.0),
    # bounded above: 0.99 + 0.125 (0.985) + 1.25 (1) > 1
    (0.99, 1.0, 0.0, 1.0),
])
def test_pie_update_against_the_hand_computation(p, qdelay, old, expected):
    from qosmodels.fluid._mgt_kernel import pie_update

    assert pie_update(p, qdelay, old, 0.125, 1.25, 0.015) == pytest.approx(expected, rel=1e-14)
    assert _pie_by_hand(p, qdelay, old) == pytest.approx(expected, rel=1e-14)


def _replay(t, q, T, step, p0=0.0):
    """Replay a sampled law over the saved queue: at the first saved time at or after each
    k T (k = 1, 2, ...), ``p = step(p, q_now, q_at_last_sample)``; returns p at every save."""
    out = np.empty_like(q)
    p, q_old, k = p0, q[0], 1
    dt = t[1] - t[0]
    for i in range(len(t)):
        while i > 0 and t[i] >= k * T - 1e-12 * dt:
            p = step(p, q[i], q_old)
            q_old = q[i]
            k += 1
        out[i] = p
    return out


def _pi_step(a, b, q_ref):
    return lambda p, q, qo: min(max(p + a * (q - q_ref) - b * (qo - q_ref), 0.0), 1.0)


def test_mgt_pie_updates_replay_rfc_8033_over_its_queue():
    law = PieLaw()
    dt = 5e-4
    r = solve_mgt(N, C, 0.1, law, 800, 4.0, dt=dt, save_dt=dt)
    expected = _replay(r.t, r.q, law.t_update,
                       lambda p, q, qo: _pie_by_hand(p, q / C, qo / C))
    assert r.p.max() > 0.01  # the law did act
    np.testing.assert_allclose(r.p, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("queue", [mechanisms.Pi(), mechanisms.Pie()])
def test_network_laws_replay_their_recursions_over_the_link_queue(queue):
    dt = 2.5e-4
    net = _net(queue, delay=0.05)
    f = solve_fluid(net, 3.0, control="Reno", dt=dt, save_dt=dt)
    j = net.link_id("r0->r1")
    q = f.queues[:, j] / (8.0 * PKT)  # packets
    if isinstance(queue, mechanisms.Pi):
        T, step = 1 / queue.sampling_rate, _pi_step(queue.a, queue.b, queue.q_ref)
    else:
        T = queue.t_update
        step = lambda p, qn, qo: _pie_by_hand(p, qn / C, qo / C)  # noqa: E731
    expected = _replay(f.t, q, T, step)
    assert f.marking[:, j].max() > 1e-3
    np.testing.assert_allclose(f.marking[:, j], expected, rtol=1e-9, atol=1e-15)
    # the marks reach the windows: the other links do not mark
    assert np.all(np.delete(f.marking, j, axis=1) == 0)


def test_mgt_pie_equilibrium_is_the_closed_form_operating_point():
    """PIE's integral action holds qdelay = target: q0 = 0.015 s x 3750 = 56.25 packets."""
    Tp = 0.1
    r = solve_mgt(N, C, Tp, PieLaw(), 2000, 150.0)
    q0 = 0.015 * C
    W0 = (q0 / C + Tp) * C / N
    assert r.mean_queue(20) == pytest.approx(q0, rel=1e-9)  # measured 56.25 to 1e-13
    assert r.W[-1] == pytest.approx(W0, rel=1e-9)
    assert r.p[-1] == pytest.approx(2 / W0 ** 2, rel=1e-9)
    assert r.swing(20) < 1e-6
    op = PieLaw().operating_point(N, C, Tp)
    assert (op.q0, op.W0) == (q0, W0)


@pytest.mark.parametrize("queue, delay, t_end", [(mechanisms.Pi(), 0.1, 60.0),
                                                 (mechanisms.Pie(), 0.05, 60.0)])
def test_network_equilibrium_is_the_closed_form_and_agrees_with_solve_mgt(queue, delay, t_end):
    """Pi: q0 = q_ref = 50 packets exactly (integral action), Pie: q0 = target C = 56.25;
    W0 = R0 C / N, p0 = 2 / W0**2 with R0 = q0 / C + Tp (Tp = 0.199 and 0.099 s).
    Measured (Pi, 60 s): network q 50.0000066, MGT 50.0000024; p 0.0113562149 both
    (closed form 0.011356214989, network 9e-9 below).  Pie: network 56.2499999948, MGT
    56.25; p equal to 1.3e-11."""
    net = _net(queue, delay=delay)
    j = net.link_id("r0->r1")
    sc = mgt_scenario(net, "r0->r1")
    q0 = queue.q_ref if isinstance(queue, mechanisms.Pi) else queue.target * C
    R0 = q0 / C + sc.Tp
    W0 = R0 * C / N
    p0 = 2 / W0 ** 2
    f = solve_fluid(net, t_end, control="Reno")
    qn = float(f.queues[-1, j]) / (8 * PKT)
    assert qn == pytest.approx(q0, rel=1e-6)
    assert float(f.windows[-1, 0]) / (8 * PKT) == pytest.approx(W0, rel=1e-6)
    assert float(f.marking[-1, j]) == pytest.approx(p0, rel=1e-6)
    assert f.lost[-1].sum() == 0  # the law, not the buffer, did the work
    # the MGT model (a side): the same equilibrium
    m = sc.solve(t_end, dt=f.dt)
    assert m.q[-1] == pytest.approx(qn, rel=1e-6)
    assert m.p[-1] == pytest.approx(float(f.marking[-1, j]), rel=1e-6)


def test_mgt_scenario_reads_pi_and_pie():
    sc = mgt_scenario(_net(mechanisms.Pi(a=2e-5, b=1.9e-5, sampling_rate=100, q_ref=40)),
                      "r0->r1")
    assert sc.law == PiLaw(2e-5, 1.9e-5, 100, 40)
    pie = mechanisms.Pie(target=0.02, t_update=0.03, alpha=0.0625, beta=1.25)
    sc = mgt_scenario(_net(pie), "r0->r1")
    assert sc.law == PieLaw(0.02, 0.03, 0.0625, 1.25)
    assert (sc.N, sc.C, sc.buffer) == (60, C, 800.0)


def test_network_refusals():
    net = _net(mechanisms.Pi())
    with pytest.raises(ScenarioError, match=r"red_links names link 'r0->r1'.*Pi\(\.\.\.\)"):
        solve_fluid(net, 1.0, control="Reno", red_links=["r0->r1"])
    for q in (mechanisms.Codel(), mechanisms.FqCodel()):
        with pytest.raises(ScenarioError, match=rf"uses {type(q).__name__}, .*no fluid law"):
            solve_fluid(_net(q), 1.0, control="Reno")


@pytest.mark.parametrize("call, match", [
    (lambda: PieLaw(target=0), r"PieLaw\.target must be > 0"),
    (lambda: PieLaw(t_update=-1), r"PieLaw\.t_update must be > 0"),
    (lambda: PieLaw(alpha=-0.1), r"PieLaw\.alpha must be >= 0"),
    (lambda: PieLaw(alpha=0, beta=0), r"alpha and beta are both 0"),
    (lambda: solve_mgt(N, C, 0.1, PieLaw(), 800, 1.0, avg_init=3), r"PieLaw does not average"),
    (lambda: solve_mgt(N, C, 0.1, PieLaw(), 800, 1.0, p_init=1.5), r"p_init must be <= 1"),
])
def test_pie_law_refusals(call, match):
    with pytest.raises(ScenarioError, match=match):
        call()


def test_pie_law_from_the_mechanism_and_its_p_init():
    law = PieLaw.from_pie(mechanisms.Pie())
    assert law == PieLaw(0.015, 0.015, 0.125, 1.25)
    r = solve_mgt(N, C, 0.1, law, 800, 0.01, p_init=0.3, save_dt=0.001)
    assert r.p[0] == 0.3 and math.isclose(r.avg[3], r.q[3])


def test_jit_and_pure_python_kernels_agree_with_pi_and_pie_links():
    # the network kernel interpreted by Python (NUMBA_DISABLE_JIT=1) gives the jitted numbers,
    # on a parking lot with a Pi link and a Pie link that both mark during the run
    import os
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "from qosmodels import mechanisms\n"
        "from qosmodels.fluid import solve_fluid\n"
        "from qosmodels.topologies import parking_lot\n"
        "net = parking_lot(2, 2e6, 0.005, n_long=1, n_short=2)\n"
        "net = net.replace_link(net.link_names[0], queue=mechanisms.Pi(q_ref=5)).replace_link(\n"
        "    net.link_names[1], queue=mechanisms.Pie(target=0.005))\n"
        "r = solve_fluid(net, 2.0, control='Reno', save_dt=0.05)\n"
        "print(repr(np.concatenate([r.windows.ravel(), r.queues.ravel(),\n"
        "                           r.marking.ravel()]).tolist()))\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, timeout=300)
    slow = np.array(eval(out.stdout))
    from qosmodels.topologies import parking_lot

    net = parking_lot(2, 2e6, 0.005, n_long=1, n_short=2)
    net = net.replace_link(net.link_names[0], queue=mechanisms.Pi(q_ref=5)).replace_link(
        net.link_names[1], queue=mechanisms.Pie(target=0.005))
    r = solve_fluid(net, 2.0, control="Reno", save_dt=0.05)
    assert np.all(r.marking.max(axis=0) > 1e-3)  # measured 0.0013 (PI) and 0.24 (PIE)
    fast = np.concatenate([r.windows.ravel(), r.queues.ravel(), r.marking.ravel()])
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-9)


def test_mgt_jitted_and_plain_python_kernels_agree_under_pie():
    from qosmodels.fluid._mgt_kernel import integrate_mgt

    out_j = [np.empty(201) for _ in range(6)]
    out_p = [np.empty(201) for _ in range(6)]
    prm = np.array([0.125, 1.25, 0.015, 0.015])
    args = (N, C, 0.1, 800.0, 1e-3, 4000, 20, 2, prm, 1.0, 0.0, 0.0, 0.0, 512)
    assert integrate_mgt(*args, *out_j) == 0
    assert integrate_mgt.py_func(*args, *out_p) == 0
    assert out_j[3].max() > 0.01
    for a, b in zip(out_j, out_p):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
