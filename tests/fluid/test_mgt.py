"""The Misra-Gong-Towsley fluid model with RED and PI (qosmodels.fluid.mgt).

References, none computed by the integrator under test:

- the equilibrium W0 = R0 C / N, p0 = 2 / W0**2, R0 = q0/C + Tp (Hollot et al., INFOCOM 2001),
  with RED's q0 found here by a root finder on the ramp, and PI's q0 = q_ref;
- the decay rate and frequency of a small perturbation: the rightmost root of the linearised
  loop's characteristic equation ``1 + P(s) C(s) = 0``, which depends only on the closed-form
  plant (tested against a SymPy derivation in tests/test_aqm_control.py);
- the existing network fluid model ``solve_fluid(control="Reno")`` (a second implementation of
  the same equations, in bits, with exact FIFO delays) for the equilibrium on a dumbbell;
- with timeouts: the window equation of the SIGCOMM 2000 paper's Section 2.3 written out by
  hand (one Heun step traced, and the equilibrium it implies found by a root finder).

The examples: N = 60 flows, C = 3750 packet/s, Tp = 0.2 s (Hollot et al.'s example network,
R^+ = 0.246 s).  RED's ramp is max_p = 0.1 over 540 packets from min_th = 50 (the ramp width
is the one of the papers' RED design as we reconstruct it: L_RED = 1.85e-4; min_th is ours);
its weight is either the design's w_q = 1 - exp(-0.005/C) = 1.33e-6 (K = 0.005 rad/s), the
faster 5e-5 and 1e-4 (stable, lightly damped), or ns-2's default 0.002 (unstable).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.signal import find_peaks

from qosmodels.aqm_control import design_pi, dominant_root, margins
from qosmodels.errors import BudgetError, ScenarioError, ScenarioTypeError
from qosmodels.fluid.mgt import MgtResult, PiLaw, RedLaw, mgt_scenario, solve_mgt

N, C, TP, BUF = 60, 3750.0, 0.2, 800.0
W_DESIGN = -math.expm1(-0.005 / C)  # K = 0.005 rad/s


def _red_q0(min_th, max_th, max_p, Tp=TP):
    """RED's equilibrium queue, by hand: the ramp equals 2 / W0^2 with W0 = (q/C + Tp) C / N."""
    return brentq(lambda q: max_p * (q - min_th) / (max_th - min_th)
                  - 2 * N ** 2 / (q + C * Tp) ** 2, min_th, max_th, xtol=1e-12)


def test_red_equilibrium_matches_the_closed_form():
    law = RedLaw(50, 590, 0.1, W_DESIGN)
    r = solve_mgt(N, C, TP, law, BUF, 3000.0)
    q0 = _red_q0(50, 590, 0.1)
    W0 = (q0 / C + TP) * C / N
    assert r.mean_queue(100) == pytest.approx(q0, rel=0.01)
    assert r.W[-1] == pytest.approx(W0, rel=0.01)
    assert r.p[-1] == pytest.approx(2 / W0 ** 2, rel=0.01)
    assert r.swing(100) < 0.01 * q0


def test_pi_design_holds_q_ref_at_the_closed_form_operating_point():
    d = design_pi(N, C, 0.246, 170)
    r = solve_mgt(N, C, TP, PiLaw.from_design(d, 50), BUF, 60.0)
    W0 = (50 / C + TP) * C / N
    assert r.mean_queue(10) == pytest.approx(50, rel=0.01)
    assert r.W[-1] == pytest.approx(W0, rel=0.01)
    assert r.p[-1] == pytest.approx(2 / W0 ** 2, rel=0.01)
    assert r.swing(10) < 0.5


def _decay(r, q0, t0, t1):
    """Decay rate (1/s) and angular frequency (rad/s) of q - q0 from its peaks in [t0, t1]."""
    e = np.abs(r.q - q0)
    pk, _ = find_peaks(e)
    tp, ap = r.t[pk], e[pk]
    sel = (tp >= t0) & (tp <= t1)
    rate = np.polyfit(tp[sel], np.log(ap[sel]), 1)[0]
    return rate, math.pi / np.mean(np.diff(tp[sel]))  # |e| peaks twice a period


@pytest.mark.parametrize("w_q", [5e-5, 1e-4])
def test_small_red_perturbation_decays_as_the_linear_model_predicts(w_q):
    law = RedLaw(50, 590, 0.1, w_q)
    op = law.operating_point(N, C, TP)
    s = dominant_root(op, law.controller(C))
    assert s.real < 0 and s.imag > 0
    r = solve_mgt(N, C, TP, law, BUF, 40.0, q_init=op.q0 + 1.0, W_init=op.W0, save_dt=0.005)
    rate, freq = _decay(r, op.q0, 3.0, 30.0)
    # measured: w_q = 5e-5: -0.190 /s, 0.944 rad/s against -0.183 +- 0.945j;
    #           w_q = 1e-4: -0.110 /s, 1.303 rad/s against -0.0995 +- 1.298j
    assert rate == pytest.approx(s.real, rel=0.15)
    assert freq == pytest.approx(s.imag, rel=0.03)


def test_small_pi_perturbation_decays_as_the_linear_model_predicts():
    d = design_pi(N, C, 0.246, 170)
    law = PiLaw.from_design(d, 50)
    op = law.operating_point(N, C, TP)
    s = dominant_root(op, d.controller)  # -0.299, real: no overshoot expected from it
    r = solve_mgt(N, C, TP, law, BUF, 25.0, q_init=51.0, W_init=op.W0, p_init=op.p0,
                  save_dt=0.01)
    e = np.abs(r.q - 50)
    sel = (r.t >= 5) & (r.t <= 20)
    rate = np.polyfit(r.t[sel], np.log(e[sel]), 1)[0]  # measured -0.2992 /s
    assert rate == pytest.approx(s.real, rel=0.02)


def test_ns_default_red_oscillates_while_pi_settles():
    """Same network, same RED ramp: with ns-2's weight 0.002 the loop is unstable (the
    Proposition fails, gain margin 0.89) and the fluid model settles into a limit cycle;
    the PI design holds q_ref = 50."""
    red = RedLaw(50, 590, 0.1, 0.002)
    op = red.operating_point(N, C, TP)
    assert not margins(op, red.controller(C)).stable
    r = solve_mgt(N, C, TP, red, BUF, 100.0, save_dt=0.005)
    swing = r.swing(20)  # measured: 175 packets peak to peak (15 to 190) around q0 = 103
    assert swing > 100
    assert r.q[r.window(20)].min() < op.q0 < r.q[r.window(20)].max()
    # the limit cycle's period is near the linear model's unstable mode (2 pi / 3.31 = 1.90 s)
    s = dominant_root(op, red.controller(C))
    assert s.real > 0
    pk, _ = find_peaks(r.q[r.window(20)], prominence=20)
    period = np.mean(np.diff(r.t[r.window(20)][pk]))  # measured 1.94 s
    assert period == pytest.approx(2 * math.pi / s.imag, rel=0.1)
    pi = solve_mgt(N, C, TP, PiLaw.from_design(design_pi(N, C, 0.246, 170), 50), BUF, 100.0)
    assert pi.swing(20) < 0.5 and pi.mean_queue(20) == pytest.approx(50, abs=0.5)


def test_jitted_and_plain_python_kernels_agree():
    from qosmodels.fluid._mgt_kernel import integrate_mgt

    out_j = [np.empty(201) for _ in range(6)]
    out_p = [np.empty(201) for _ in range(6)]
    prm = np.array([1.822e-5, 1.816e-5, 1 / 170, 50.0])
    args = (N, C, TP, BUF, 1e-3, 2000, 10, 1, prm, 1.0, 0.0, 0.0, 0.0, 512)
    assert integrate_mgt(*args, *out_j) == 0
    assert integrate_mgt.py_func(*args, *out_p) == 0
    for a, b in zip(out_j, out_p):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


# ---- timeouts (SIGCOMM 2000, Section 2.3): dW/dt = 1/R - (1 - Q(W)) W Wd pd / (2 Rd)
#      + (1 - W) Wd pd Q(W) / Rd, Q(w) = min(1, 3/w) (Padhye et al.); the references below are
#      hand-written from that text, not the integrator's code

def _paper_dW(W, Wd, pd, R, Rd, k=3.0):
    """The window's derivative as Section 2.3 prints it (one flow)."""
    Q = min(1.0, k / W) if W > 0 else 1.0
    return 1 / R + (1 - Q) * (-W * Wd / (2 * Rd)) * pd + (1 - W) * Wd / Rd * Q * pd


def _to_q0(n, c, tp, k=3.0, min_th=50, max_th=590, max_p=0.1):
    """The equilibrium with timeouts, by hand: dW/dt = 0 with W(t - R) = W = (c tp + q) / n
    and p = RED's ramp at q, i.e. p W ((1 - Q) W / 2 + Q (W - 1)) = 1."""
    def g(q):
        W = (c * tp + q) / n
        return _paper_dW(W, W, max_p * (q - min_th) / (max_th - min_th), 1.0, 1.0, k)
    return brentq(g, min_th, max_th, xtol=1e-12)


def test_timeouts_off_is_the_model_without_them_bit_for_bit():
    from qosmodels.fluid._mgt_kernel import integrate_mgt, integrate_mgt_to

    law = RedLaw(50, 590, 0.1, 0.002)
    a = solve_mgt(N, C, TP, law, BUF, 20.0)
    b = solve_mgt(N, C, TP, law, BUF, 20.0, timeouts=False)
    assert a.timeouts is None and b.timeouts is None and b.inputs["timeouts"] == 0.0
    for f in ("t", "W", "q", "p", "avg", "rtt"):
        assert np.array_equal(getattr(a, f), getattr(b, f))
    # the kernel with to_k = 0 runs exactly the equations without timeouts
    prm = np.array([50.0, 590.0, 0.1, law.K(C), 0.0])
    args = (N, C, TP, BUF, 1e-3, 3000, 10, 0, prm, 1.0, 0.0, 0.0, 0.0, 512)
    o1 = [np.empty(301) for _ in range(6)]
    o2 = [np.empty(301) for _ in range(6)]
    integrate_mgt(*args, *o1)
    integrate_mgt_to(*args, *o2, 0.0, np.empty(0))
    assert all(np.array_equal(x, y) for x, y in zip(o1, o2))
    # and with timeouts the trajectory differs
    c = solve_mgt(N, C, TP, law, BUF, 20.0, timeouts=True)
    assert not np.array_equal(a.W, c.W)


def test_one_step_with_timeouts_is_the_papers_equation():
    # constant history, RED's average frozen (w_q tiny): p, W(t-R), R(t-R) are the initial
    # values, and one Heun step from W = 10 is the paper's derivative at W and at the
    # predictor, averaged -- computed here by hand
    law = RedLaw(50, 590, 0.1, 1e-15)
    dt, q_init, W0 = 1e-3, 200.0, 10.0
    r = solve_mgt(N, C, TP, law, BUF, dt, dt=dt, W_init=W0, q_init=q_init, save_dt=dt,
                  timeouts=True)
    p0 = 0.1 * (q_init - 50) / 540
    R0 = q_init / C + TP
    f1 = _paper_dW(W0, W0, p0, R0, R0)
    qp = q_init + dt * (N * W0 / R0 - C)
    f2 = _paper_dW(W0 + dt * f1, W0, p0, qp / C + TP, R0)
    assert r.W[1] == pytest.approx(W0 + dt * (f1 + f2) / 2, rel=1e-12)
    assert f1 != pytest.approx(1 / R0 - W0 * W0 * p0 / (2 * R0), rel=1e-3)
    # the expected timeouts of the step: Q(W) W p / R, trapezoid
    rate = lambda W: min(1, 3 / W) * W0 * p0 / R0  # noqa: E731
    assert r.timeouts[1] == pytest.approx(dt * (rate(W0) + rate(W0 + dt * f1)) / 2, rel=1e-12)
    assert r.timeouts[0] == 0.0


@pytest.mark.parametrize("k", [True, 1.0])
def test_timeouts_settle_on_the_equilibrium_with_timeouts(k):
    # N = 30, C = 1250 packet/s, Tp = 0.05 s, ns-2's w_q: the model settles within 100 s
    kk = 3.0 if k is True else k
    law = RedLaw(50, 590, 0.1, 0.002)
    r = solve_mgt(30, 1250.0, 0.05, law, 800, 100.0, timeouts=k)
    q0 = _to_q0(30, 1250.0, 0.05, kk)
    W0 = (1250 * 0.05 + q0) / 30
    p0 = 0.1 * (q0 - 50) / 540
    assert r.mean_queue(20) == pytest.approx(q0, rel=1e-6) and r.swing(20) < 1e-6
    assert r.W[-1] == pytest.approx(W0, rel=1e-6) and r.p[-1] == pytest.approx(p0, rel=1e-6)
    # timeouts lower the equilibrium queue (q0 without them: 195.75 packets)
    assert q0 < _red_q0_at(30, 1250.0, 0.05) - 5
    # the model's timeouts over the last 50 s: p0 C Q(W0) per second
    assert r.timeout_count(50.0) == pytest.approx(50 * p0 * 1250 * min(1, kk / W0), rel=1e-4)


def _red_q0_at(n, c, tp):
    return brentq(lambda q: 0.1 * (q - 50) / 540 - 2 * n ** 2 / (q + c * tp) ** 2, 50, 590)


def test_timeouts_in_the_scenario_and_the_jitted_kernel():
    from qosmodels.fluid._mgt_kernel import integrate_mgt_to
    from qosmodels.mechanisms import Red

    sc = mgt_scenario(_red_dumbbell(Red(50, 590, 0.1, 5e-5)), "r0->r1")
    a = sc.solve(5.0, timeouts=True)
    b = solve_mgt(N, C, TP, RedLaw(50, 590, 0.1, 5e-5), BUF, 5.0, timeouts=3.0)
    assert np.array_equal(a.W, b.W) and np.array_equal(a.timeouts, b.timeouts)
    assert np.all(np.diff(a.timeouts) >= 0) and a.timeouts[-1] > 0
    out_j = [np.empty(201) for _ in range(7)]
    out_p = [np.empty(201) for _ in range(7)]
    prm = np.array([50.0, 590.0, 0.1, 0.5, 0.0])
    args = (N, C, TP, BUF, 1e-3, 2000, 10, 0, prm, 1.0, 0.0, 0.0, 0.0, 512)
    assert integrate_mgt_to(*args, *out_j[:6], 3.0, out_j[6]) == 0
    assert integrate_mgt_to.py_func(*args, *out_p[:6], 3.0, out_p[6]) == 0
    for x, y in zip(out_j, out_p):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12)


def test_timeout_refusals():
    law = RedLaw(50, 590, 0.1, 0.002)
    with pytest.raises(ScenarioTypeError, match=r"timeouts must be False, True .* got 'reno'"):
        solve_mgt(N, C, TP, law, BUF, 1.0, timeouts="reno")
    for bad in (0, -1.0, math.inf):
        with pytest.raises(ScenarioError, match=r"solve_mgt\.timeouts must be a number k > 0"):
            solve_mgt(N, C, TP, law, BUF, 1.0, timeouts=bad)
    with pytest.raises(ScenarioError, match=r"solved without timeouts"):
        solve_mgt(N, C, TP, law, BUF, 1.0).timeout_count(0.5)


def _red_dumbbell(red, access_delay=0.0):
    """60 flows of 1000-byte packets, 30 Mb/s (3750 packet/s), RED on the bottleneck; round
    trip 0.2 s without access delay (0.199 s with 0.5 ms: the dumbbell counts one access
    link's delay each way)."""
    from qosmodels import Link
    from qosmodels.topologies import dumbbell

    net = dumbbell(N, C * 8000, 0.1 - 2 * access_delay, access_delay=access_delay,
                   packet_size=1000)
    j = net.link_id("r0->r1")
    links = [lk if i != j else Link(lk.src, lk.dst, lk.capacity, lk.delay, buffer=int(BUF),
                                    queue=red) for i, lk in enumerate(net.links)]
    return net.replace(links=links)


def test_scenario_from_a_network():
    from qosmodels.mechanisms import Red

    sc = mgt_scenario(_red_dumbbell(Red(50, 590, 0.1, 5e-5)), "r0->r1")
    assert (sc.N, sc.C, sc.buffer, sc.packet_size) == (60, 3750.0, 800.0, 1000)
    assert sc.Tp == pytest.approx(0.2, rel=1e-12)
    assert sc.law == RedLaw(50, 590, 0.1, 5e-5)
    r = sc.solve(30.0)
    assert r.inputs["N"] == 60 and r.law == sc.law


def test_gentle_red_ramps_to_one_at_twice_max_th():
    """Above max_th the papers' RED marks everything; gentle RED rises from max_p to 1 at
    2 max_th (read at t = 0 from an averaged queue set above max_th)."""
    for avg, gentle, p in ((80.0, True, 0.005 + 0.995 * 20 / 60), (80.0, False, 1.0),
                           (130.0, True, 1.0), (35.0, True, 0.005 * 25 / 50)):
        r = solve_mgt(N, C, TP, RedLaw(10, 60, 0.005, 1e-9, gentle=gentle), BUF, 0.1,
                      avg_init=avg, save_dt=0.001)
        assert r.p[0] == pytest.approx(p, rel=1e-12)
        assert r.avg[0] == avg


@pytest.mark.slow
def test_equilibrium_agrees_with_the_network_fluid_model():
    """solve_fluid(control="Reno") on the same dumbbell with the same RED on its bottleneck:
    same equilibrium (measured at Tp = 0.199 s: q 103.806 and 103.812 packets, W 14.1676 and
    14.1677; the transients differ, the network model delaying data and marks along the
    path).  About 50 s with the network kernel's compilation, 6 s without."""
    from qosmodels.fluid import solve_fluid
    from qosmodels.mechanisms import Red

    net = _red_dumbbell(Red(min_th=50, max_th=590, max_p=0.1, w_q=5e-5), access_delay=0.0005)
    sc = mgt_scenario(net, "r0->r1")
    f = solve_fluid(net, 60.0, control="Reno")
    q_net = float(f.queues[-1, net.link_id("r0->r1")]) / 8000
    m = sc.solve(60.0)
    assert m.q[-1] == pytest.approx(q_net, rel=1e-3)
    assert m.W[-1] == pytest.approx(float(f.windows[-1, 0]) / 8000, rel=1e-3)
    assert q_net == pytest.approx(_red_q0(50, 590, 0.1, sc.Tp), rel=1e-3)


def test_result_table_and_plot():
    r = solve_mgt(N, C, TP, RedLaw(50, 590, 0.1, 0.002), BUF, 2.0)
    assert isinstance(r, MgtResult)
    df = r.to_pandas()
    assert list(df.columns) == ["W", "q", "p", "avg", "rtt"] and len(df) == len(r.t)
    np.testing.assert_allclose(r.rtt, r.q / C + TP)
    import matplotlib

    matplotlib.use("Agg")
    axes = r.plot()
    assert len(axes) == 3


@pytest.mark.parametrize("call, match", [
    (lambda: solve_mgt(N, C, TP, "red", BUF, 1.0), r"law must be a RedLaw.*or a PieLaw"),
    (lambda: solve_mgt(N, C, TP, RedLaw(50, 590, 0.1, 0.002), BUF, 1.0, dt=0.2),
     r"solve_mgt\.dt must be <= 0\.1"),
    (lambda: solve_mgt(0, C, TP, RedLaw(50, 590, 0.1, 0.002), BUF, 1.0),
     r"solve_mgt\.N must be > 0"),
    (lambda: solve_mgt(N, C, TP, RedLaw(50, 590, 0.1, 0.002), BUF, 1.0, q_init=900),
     r"solve_mgt\.q_init must be <= 800"),
    (lambda: solve_mgt(N, C, TP, RedLaw(50, 590, 0.1, 0.002), BUF, 1.0, p_init=0.1),
     r"give avg_init instead"),
    (lambda: solve_mgt(N, C, TP, PiLaw(1e-5, 1e-5, 170, 50), BUF, 1.0, avg_init=3),
     r"give p_init instead"),
    (lambda: solve_mgt(N, C, TP, PiLaw(1e-5, 1e-5, 170, 50), BUF, 1.0, p_init=2),
     r"solve_mgt\.p_init must be <= 1"),
    (lambda: RedLaw(50, 50, 0.1, 0.002), r"RedLaw\.max_th must be > 50"),
    (lambda: RedLaw(50, 590, 0.1, 1.0), r"RedLaw\.w_q must be < 1"),
    (lambda: PiLaw(0, 1e-5, 170, 50), r"PiLaw\.a must be > 0"),
    (lambda: PiLaw(1e-5, 1e-5, 0, 50), r"PiLaw\.sampling_rate must be > 0"),
])
def test_bad_inputs_are_refused(call, match):
    with pytest.raises(ScenarioError, match=match):
        call()


def test_scenario_refusals():
    from qosmodels import Flow
    from qosmodels.mechanisms import DropTail, Red

    net = _red_dumbbell(Red(50, 590, 0.1, 5e-5))
    with pytest.raises(ScenarioError, match=r"link 'r0->r1' must have queue=Red\(\.\.\.\), Pi"):
        mgt_scenario(_red_dumbbell(DropTail()), "r0->r1")
    with pytest.raises(ScenarioError, match=r"link 's0->r0' must have queue=Red"):
        mgt_scenario(net, "s0->r0")
    late = net.replace(flows=[dataclasses.replace(net.flows[0], start=1.0), *net.flows[1:]])
    with pytest.raises(ScenarioError, match=r"Flow 0 has start=1\.0"):
        mgt_scenario(late, "r0->r1")
    extra = net.replace(flows=[*net.flows, Flow(["s0", "r0"])])
    with pytest.raises(ScenarioError, match=r"flows \[60\] do not"):
        mgt_scenario(extra, "r0->r1")
    with pytest.raises(ScenarioTypeError, match="network must be a Network"):
        mgt_scenario("dumbbell", "r0->r1")


def test_wrong_types_and_budget():
    with pytest.raises(ScenarioTypeError, match=r"PiLaw\.q_ref must be a real number"):
        PiLaw(1e-5, 1e-5, 170, "50")
    with pytest.raises(BudgetError, match=r"t_end / dt = 1000\.0 / 0\.001.*max_steps"):
        solve_mgt(N, C, TP, RedLaw(50, 590, 0.1, 0.002), BUF, 1000.0, max_steps=10 ** 5)


@pytest.mark.parametrize("queue", ["Codel", "FqCodel"])
def test_the_network_fluid_model_refuses_aqm_laws_it_does_not_have(queue):
    # run as drop-tail they would be silently wrong: refused, naming the link and the way out
    # (Pi and Pie run their laws: tests/fluid/test_aqm_network.py)
    from qosmodels import mechanisms, topologies
    from qosmodels.errors import ScenarioError
    from qosmodels.fluid import solve_fluid

    net = topologies.dumbbell(2, capacity=10e6, delay=0.02).replace_link(
        "r0->r1", queue=getattr(mechanisms, queue)())
    with pytest.raises(ScenarioError, match=rf"link 'r0->r1' uses {queue}, .*queue=Red"
                                            rf"\(\.\.\.\), Pi\(\.\.\.\).*no fluid law"):
        solve_fluid(net, 1.0, control="Reno")
    solve_fluid(net.replace_link("r0->r1", queue=mechanisms.Red()), 0.1, control="Reno")
