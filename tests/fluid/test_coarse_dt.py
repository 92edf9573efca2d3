"""``solve_fluid(coarse_dt=True)``: a step above the shortest link's delay (issue 37).

Off by default.  On, a link shorter than ``dt`` is handled like a zero-delay link (its next
hops read the lines it wrote in the same step, so it is processed before them).  Checked
here: with every delay above ``dt`` the option changes nothing, bit for bit; the links are
ordered behind the short ones; the coarse step's error against a fine step of the default
scheme (3 us, a hundredth of the short link's delay) shrinks about as dt squared, and is
small at a step 3.3 times the short link's delay; and the refusals.  The references are runs
of the default scheme at a fine step (a convergence check of one model, as
``test_convergence_order_is_two``).
"""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, ScenarioError, ScenarioTypeError
from qosmodels.fluid import compile_fluid, solve_fluid
from qosmodels.units import Mbps, ms


def short_access() -> Network:
    """A 0.3 ms access link into a 10 Mb/s, 10 ms bottleneck, declared after it (so that the
    links' own order would process the bottleneck first), and a second flow on the
    bottleneck alone."""
    links = [Link("r", "s", Mbps(10), ms(10)), Link("h", "r", Mbps(50), ms(0.3)),
             Link("g", "r", Mbps(50), ms(4))]
    return Network(links, [Flow(["h", "r", "s"], name="A"), Flow(["g", "r", "s"], name="B")])


def test_identical_when_every_delay_is_above_dt():
    net = short_access()
    kw = dict(t_end=3.0, kappa=0.2, dt=2e-4, save_dt=0.01)
    a = solve_fluid(net, **kw)
    b = solve_fluid(net, coarse_dt=True, **kw)
    for name in ("rates", "windows", "rtt", "queues", "accumulation", "delivered"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def test_a_link_shorter_than_dt_is_processed_before_its_next_hops():
    comp = compile_fluid(short_access(), t_end=1.0, dt=1e-3, coarse_dt=True)
    order = list(comp.link_order)
    assert order.index(1) < order.index(0)  # h->r (0.3 ms) before r->s
    default = compile_fluid(short_access(), t_end=1.0)
    assert list(default.link_order) == [0, 1, 2]  # (no zero-delay link: declared order)


def test_coarse_steps_converge_to_a_fine_step():
    net = short_access()
    kw = dict(t_end=2.0, kappa=0.2, save_dt=0.01)
    ref = solve_fluid(net, dt=3e-6, **kw)
    errs = []
    for dt in (2e-3, 1e-3):
        r = solve_fluid(net, dt=dt, coarse_dt=True, **kw)
        assert r.dt == dt
        t = np.arange(0.0, 1.99, 0.01)
        x = np.array([np.interp(t, r.t, r.rates[:, i]) for i in range(2)])
        xr = np.array([np.interp(t, ref.t, ref.rates[:, i]) for i in range(2)])
        errs.append(np.abs(x - xr).max() / xr.max())
    # measured (2026-11-28): 1.5e-4 at 2 ms, 4.0e-5 at 1 ms (7.7e-4 at 4 ms): about second
    # order, as the default scheme; at 1 ms, 3.3 times the access link's delay, the rates
    # are within 2e-4 of the fine step's (relative to the largest rate)
    assert errs[0] / errs[1] > 2.5, errs
    assert errs[1] < 2e-4, errs


@pytest.mark.parametrize("kw,exc,match", [
    (dict(coarse_dt=True), ScenarioError, r"coarse_dt=True\) needs an explicit dt"),
    (dict(coarse_dt="yes", dt=1e-3), ScenarioTypeError, r"coarse_dt must be True or False"),
    (dict(dt=1e-3), ScenarioError, r"dt must be below the smallest positive .*coarse_dt=True"),
])
def test_refusals(kw, exc, match):
    with pytest.raises(exc, match=match):
        solve_fluid(short_access(), 1.0, **kw)


def test_a_step_of_a_round_trip_is_refused():
    net = Network([Link("a", "b", Mbps(10), ms(0.3))], [Flow(["a", "b"])])  # rtt_p 0.6 ms
    solve_fluid(net, 0.1, dt=0.5e-3, coarse_dt=True)
    with pytest.raises(ScenarioError, match=r"dt must be below the shortest round-trip "
                                            r"propagation delay \(0.0006"):
        solve_fluid(net, 0.1, dt=0.6e-3, coarse_dt=True)


def test_a_cycle_of_links_shorter_than_dt_is_refused():
    # as test_acc's zero-delay cycle, with 0.2 ms links and dt = 1 ms
    d = ms(0.2)
    loop = Network(links=[Link("a", "b", 1e6, d), Link("b", "c", 1e6, d),
                          Link("c", "a", 1e6, d), Link("c", "d", 1e6, 0.01),
                          Link("b", "a", 1e6, 0.01), Link("c", "b", 1e6, 0.01),
                          Link("a", "c", 1e6, 0.01)],
                   flows=[Flow(["a", "b", "c", "d"]), Flow(["b", "c", "a"]),
                          Flow(["c", "a", "b"])])
    solve_fluid(loop, 0.1, dt=1e-4)  # (the default scheme runs it)
    with pytest.raises(ScenarioError, match=r"zero-delay links in a cycle .*coarse_dt=True"):
        solve_fluid(loop, 0.1, dt=1e-3, coarse_dt=True)
