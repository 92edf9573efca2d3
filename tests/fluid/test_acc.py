"""The ACC fluid model: equilibrium, Little's law, closed-form transients, convergence order, errors.

Reference values come from the allocation module (an independent convex
solver of the equilibrium's KKT conditions), from closed forms of the model
derived in the comments, or from the paper (Xia et al. 2005).
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, ScenarioError, ScenarioTypeError
from qosmodels.fluid import FluidResult, LinkChange, acc_equilibrium, solve_fluid
from qosmodels.topologies import acc_linear, acc_parking_lot, dumbbell
from qosmodels.units import Mbps, ms

A_STAR = 3000 * 8  # bits


def mesh() -> Network:
    """Four links, five flows of one to four hops (our test network)."""
    return Network(
        links=[Link("a", "b", Mbps(10), ms(5)), Link("b", "c", Mbps(8), ms(3)),
               Link("c", "d", Mbps(12), ms(7)), Link("d", "e", Mbps(100), ms(2))],
        flows=[Flow(["a", "b", "c", "d", "e"]), Flow(["a", "b"]), Flow(["b", "c", "d"]),
               Flow(["c", "d"]), Flow(["b", "c"])],
    )


TARGETS = [2000, 3000, 4000, 5000, 2500]  # bytes


# ---------------------------------------------------------------- equilibrium
@pytest.mark.parametrize("control,kappa", [("P", 0.2), ("AIAD", 0.1), ("MW", 1.0)])
def test_trajectories_converge_to_the_allocation(control, kappa):
    net = mesh()
    eq = acc_equilibrium(net, TARGETS)
    r = solve_fluid(net, 60.0, control=control, kappa=kappa, target=TARGETS)
    rates = r.mean("rates", 50.0, 60.0)
    np.testing.assert_allclose(rates, eq.rates, rtol=5e-3)
    # total queue = sum of targets (appendix, Prop. 1 with complementary slackness)
    assert r.mean("queues", 50.0, 60.0).sum() == pytest.approx(eq.targets.sum(), rel=5e-3)


def test_equilibrium_prices_are_queueing_delays():
    net = mesh()
    eq = acc_equilibrium(net, TARGETS)
    r = solve_fluid(net, 60.0, kappa=0.2, target=TARGETS)
    np.testing.assert_allclose(r.queue_delays[-1], eq.queue_delays, rtol=1e-4, atol=1e-9)
    np.testing.assert_allclose(r.rtt[-1], eq.rtt, rtol=1e-5)
    np.testing.assert_allclose(r.windows[-1], eq.windows, rtol=1e-4)
    assert r.equilibrium().rates == pytest.approx(eq.rates)


def test_parking_lot_three_laws_common_equilibrium():
    # Figure 2: one long and two short flows on two 9 Mb/s links -> 3, 6, 6 Mb/s
    net = acc_parking_lot()
    for control, kappa in (("P", 0.2), ("AIAD", 0.1), ("MW", 1.0)):
        r = solve_fluid(net, 80.0, control=control, kappa=kappa)
        np.testing.assert_allclose(r.mean("rates", 60, 80), [3e6, 6e6, 6e6], rtol=5e-3)


def test_fig9_long_and_short_flows():
    for n in (3, 7):
        r = solve_fluid(acc_linear(n), 60.0, kappa=0.2)
        rates = r.mean("rates", 40, 60)
        assert rates[0] == pytest.approx(100e6 / (3 + n), rel=5e-3)
        assert rates[3] == pytest.approx(100e6 * n / (3 + n), rel=5e-3)


def test_littles_law_accumulation_is_rate_times_queueing_delay():
    net = mesh()
    r = solve_fluid(net, 60.0, kappa=0.2, target=TARGETS)
    path_delay = (net.routing_matrix.T @ r.queue_delays[-1])
    np.testing.assert_allclose(r.accumulation[-1], r.rates[-1] * path_delay, rtol=1e-5)
    np.testing.assert_allclose(r.accumulation[-1], np.array(TARGETS) * 8, rtol=1e-5)
    np.testing.assert_allclose(r.estimates[-1], r.accumulation[-1], rtol=1e-6)


# ---------------------------------------------------------------- closed-form transients
def single_link(delay=ms(10)):
    return Network(links=[Link("a", "b", Mbps(100), delay)], flows=[Flow(["a", "b"])])


def test_window_ramp_while_the_link_is_idle():
    # Queue empty => accumulation 0 => eq (6): dw/dt = kappa a*/rtt_p, so
    # w(t) = w0 + kappa a* t / rtt_p; the rate x = w / rtt_p; and the bits
    # delivered are the bits sent one forward delay earlier:
    # sent(t) = (w0 t + kappa a* t^2 / (2 rtt_p)) / rtt_p.
    net = single_link(ms(10))
    rttp, kappa, w0 = 0.02, 0.5, 8000.0
    r = solve_fluid(net, 1.0, kappa=kappa, save_dt=0.01)
    t = r.t
    assert np.all(r.queues[:, 0] == 0)  # the link never fills in the first second
    np.testing.assert_allclose(r.windows[:, 0], w0 + kappa * A_STAR * t / rttp, rtol=1e-12)
    np.testing.assert_allclose(r.rates[:, 0], r.windows[:, 0] / rttp, rtol=1e-12)

    def sent(s):
        s = np.maximum(s, 0.0)
        return (w0 * s + kappa * A_STAR * s**2 / (2 * rttp)) / rttp

    # trapezoidal integration of a linear rate is exact; the delay is one step multiple
    np.testing.assert_allclose(r.delivered[:, 0], sent(t - 0.01), rtol=1e-9, atol=1e-6)


def test_monaco_and_ideal_agree_at_equilibrium():
    net = mesh()
    a = solve_fluid(net, 60.0, kappa=0.2, target=TARGETS)
    b = solve_fluid(net, 60.0, kappa=0.2, target=TARGETS, estimator="monaco")
    np.testing.assert_allclose(b.mean("rates", 50, 60), a.mean("rates", 50, 60), rtol=5e-3)


# ---------------------------------------------------------------- integrator
def test_convergence_order_is_two():
    # Error against a run with dt / 64, on the transient in which the queues
    # fill (P control): the fitted slope of log(error) against log(dt).
    net = acc_parking_lot()
    kw = dict(t_end=4.0, kappa=0.2, save_dt=0.01)
    ref = solve_fluid(net, dt=1e-3 / 64, **kw)
    dts = np.array([2e-3, 1e-3, 5e-4, 2.5e-4])
    err = [np.abs(solve_fluid(net, dt=dt, **kw).rates - ref.rates).max() for dt in dts]
    slope = np.polyfit(np.log(dts), np.log(err), 1)[0]
    assert 1.8 < slope < 2.3, (slope, err)


def test_jit_and_pure_python_kernels_agree():
    # The same kernel interpreted by Python (NUMBA_DISABLE_JIT=1) must give the jitted numbers.
    code = (
        "import numpy as np\n"
        "from qosmodels.topologies import acc_parking_lot\n"
        "from qosmodels.fluid import solve_fluid\n"
        "r = solve_fluid(acc_parking_lot(), 0.3, kappa=0.2, save_dt=0.05)\n"
        "print(repr(np.concatenate([r.rates.ravel(), r.queues.ravel()]).tolist()))\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, timeout=300)
    slow = np.array(eval(out.stdout))
    r = solve_fluid(acc_parking_lot(), 0.3, kappa=0.2, save_dt=0.05)
    fast = np.concatenate([r.rates.ravel(), r.queues.ravel()])
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-6)


def test_result_shapes_units_and_tables():
    net = mesh()
    r = solve_fluid(net, 2.0, kappa=0.2, target=TARGETS, save_dt=0.1)
    assert isinstance(r, FluidResult)
    assert r.t[0] == 0 and r.t[-1] == pytest.approx(2.0)
    assert r.rates.shape == (len(r.t), net.n_flows) and r.queues.shape == (len(r.t), net.n_links)
    assert r.queue_delays.shape == r.queues.shape
    df = r.to_pandas()
    assert ("rate_bps", "f0") in df.columns and len(df) == len(r.t)
    assert ("queue_bits", "a->b") in r.to_pandas("links").columns
    with pytest.raises(ScenarioError, match="kind"):
        r.to_pandas("nodes")
    assert "FluidResult(5 flows" in repr(r) and "<b>" in r._repr_html_()


def test_plot():
    import matplotlib

    matplotlib.use("Agg")
    r = solve_fluid(acc_parking_lot(), 2.0, kappa=0.2)
    ax = r.plot()
    assert len(ax) == 2 and ax[0].get_ylabel() == "rate (Mb/s)"


def test_flows_start_and_stop():
    net = dumbbell(2, Mbps(10), ms(10))
    net = net.replace_flow(1, start=5.0, stop=15.0)
    r = solve_fluid(net, 25.0, kappa=0.2)
    assert np.all(r.rates[r.t < 5.0, 1] == 0) and np.all(r.rates[r.t > 15.0, 1] == 0)
    assert r.throughput(0, 4.9)[1] == 0
    assert r.throughput(10, 15)[1] == pytest.approx(5e6, rel=1e-2)
    assert r.throughput(20, 25)[0] == pytest.approx(10e6, rel=1e-2)


def test_overflow_drops_and_halves_the_window():
    # a 3-packet buffer cannot hold the 4 flows' 12-packet accumulation
    net = dumbbell(4, Mbps(10), ms(10), buffer=3)
    r = solve_fluid(net, 20.0, kappa=0.2)
    assert r.lost[-1].sum() > 0
    assert r.queues.max() <= 3 * 8000 * (1 + 1e-12)
    drops = np.diff(r.windows[:, 0])
    assert np.any(drops < -0.3 * r.windows[:-1, 0])  # a halving shows as a sudden fall


def test_link_delay_change_event():
    # One flow; the bottleneck's delay grows by 40 ms each way.  The ideal
    # estimator is unaffected: the queue returns to a* and the link to full use.
    net = dumbbell(1, Mbps(10), ms(12))
    r = solve_fluid(net, 40.0, kappa=0.2, events=[LinkChange(10.0, "r0->r1", ms(52))])
    assert r.rtt[-1, 0] == pytest.approx(2 * 0.052 + A_STAR / 10e6, rel=1e-4)
    assert r.queues[-1, 0] == pytest.approx(A_STAR, rel=1e-4)


# ---------------------------------------------------------------- lazy imports
def test_import_does_not_load_numba():
    code = ("import sys, qosmodels.fluid, qosmodels.experiments.acc; "
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("kw,exc,match", [
    (dict(kappa=0.0), ScenarioError, r"kappa must be > 0"),
    (dict(kappa=-1), ScenarioError, r"kappa must be > 0"),
    (dict(kappa="big"), ScenarioTypeError, r"kappa must be a real number"),
    (dict(target=0), ScenarioError, r"target must be > 0"),
    (dict(target=[3000, 3000]), ScenarioError, r"target must have 3 entries"),
    (dict(target=[3000, -1, 3000]), ScenarioError, r"target\[1\] must be > 0"),
    (dict(t_end=0), ScenarioError, r"t_end must be > 0"),
    (dict(t_end=-5.0), ScenarioError, r"t_end must be > 0"),
    (dict(dt=0.01), ScenarioError, r"dt must be below the smallest positive propagation delay"),
    (dict(dt=0.02), ScenarioError, r"dt must be below"),
    (dict(dt=0), ScenarioError, r"dt must be > 0"),
    (dict(estimator="reno"), ScenarioError, r"estimator must be one of \['ideal', 'vegas'"),
    (dict(estimator=3), ScenarioTypeError, r"estimator must be one of"),
    (dict(control="PI"), ScenarioError, r"control must be one of \['P', 'AIAD', 'MW', 'RENO'\]"),
    (dict(vegas_k=0), ScenarioError, r"vegas_k must be >= 1"),
    (dict(initial_window=0), ScenarioError, r"initial_window must be > 0"),
    (dict(avd_links=["x->y"]), ScenarioError, r"avd_links\[0\]: no link 'x->y'"),
    (dict(avd_utilisation=1.2), ScenarioError, r"avd_utilisation must be <= 1"),
    (dict(events=["later"]), ScenarioTypeError, r"events\[0\] must be a qosmodels.fluid.LinkChange"),
    (dict(save_dt=0), ScenarioError, r"save_dt must be > 0"),
])
def test_bad_options(kw, exc, match):
    args = dict(t_end=1.0)
    args.update(kw)
    with pytest.raises(exc, match=match):
        solve_fluid(acc_parking_lot(), **args)


def test_bad_networks():
    with pytest.raises(ScenarioTypeError, match="network must be a qosmodels.Network"):
        solve_fluid("parking lot", 1.0)
    no_flows = Network(links=[Link("a", "b", 1e6, 0.01)])
    with pytest.raises(ScenarioError, match="network has no flows"):
        solve_fluid(no_flows, 1.0)
    instant = Network(links=[Link("a", "b", 1e6, 0.0)], flows=[Flow(["a", "b"])])
    with pytest.raises(ScenarioError, match="round-trip propagation delay of 0 s"):
        solve_fluid(instant, 1.0)
    loop = Network(links=[Link("a", "b", 1e6, 0.0), Link("b", "c", 1e6, 0.0),
                          Link("c", "a", 1e6, 0.0), Link("c", "d", 1e6, 0.01),
                          Link("b", "a", 1e6, 0.01), Link("c", "b", 1e6, 0.01),
                          Link("a", "c", 1e6, 0.01)],
                   flows=[Flow(["a", "b", "c", "d"]), Flow(["b", "c", "a"]), Flow(["c", "a", "b"])])
    with pytest.raises(ScenarioError, match="zero-delay links in a cycle"):
        solve_fluid(loop, 1.0)
    # a link whose full buffer takes 8e6 s to drain: its arrival history cannot be held
    slow = Network(links=[Link("a", "b", 1e3, 0.01, buffer=10**6)], flows=[Flow(["a", "b"])])
    with pytest.raises(ScenarioError, match=r"the delay history would need .* GB .*use a larger "
                                            r"dt or smaller buffers"):
        solve_fluid(slow, 1.0)


def test_bad_link_change():
    with pytest.raises(ScenarioError, match=r"LinkChange.time must be > 0"):
        LinkChange(0.0, "r0->r1", 0.01)
    with pytest.raises(ScenarioError, match=r"LinkChange.delay must be >= 0"):
        LinkChange(1.0, "r0->r1", -0.01)
    with pytest.raises(ScenarioError, match="no link 'q->r'"):
        solve_fluid(acc_parking_lot(), 1.0, events=[LinkChange(0.5, "q->r", 0.01)])
    with pytest.raises(ScenarioError, match="dt must be below"):  # the new delay is below dt
        solve_fluid(acc_parking_lot(), 1.0, dt=1e-3, events=[LinkChange(0.5, "r0->r1", 5e-4)])


def test_bad_equilibrium_targets():
    with pytest.raises(ScenarioError, match=r"targets must be > 0"):
        acc_equilibrium(acc_parking_lot(), 0)


def test_zero_delay_uncongested_hops_change_nothing():
    # A zero-delay link (read from the history at a lag of 0 steps, in link order) that
    # never queues must leave the trajectories exactly as in the network without it,
    # whether it is the first hop or sits between the bottleneck and the receiver.
    plain = Network(links=[Link("s0", "r", 1e8, 0.002), Link("r", "d", 1e7, 0.01),
                           Link("s1", "r", 1e8, 0.005)],
                    flows=[Flow(["s0", "r", "d"]), Flow(["s1", "r", "d"])])
    padded = Network(links=[Link("s0", "x", 1e9, 0.0), Link("x", "r", 1e8, 0.002),
                            Link("r", "y", 1e7, 0.01), Link("y", "d", 1e9, 0.0),
                            Link("s1", "r", 1e8, 0.005)],
                     flows=[Flow(["s0", "x", "r", "y", "d"]), Flow(["s1", "r", "y", "d"])])
    a = solve_fluid(plain, 5.0, kappa=0.2, dt=0.0005)
    b = solve_fluid(padded, 5.0, kappa=0.2, dt=0.0005)
    np.testing.assert_allclose(b.rates, a.rates, rtol=1e-12, atol=1e-6)
    np.testing.assert_allclose(b.accumulation, a.accumulation, rtol=1e-12, atol=1e-6)
    np.testing.assert_allclose(b.queues[:, 2], a.queues[:, 1], rtol=1e-12, atol=1e-6)
    assert b.queues[:, [0, 3]].max() == 0.0
