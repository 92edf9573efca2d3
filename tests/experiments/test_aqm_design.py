"""aqm-pi-design: the PI design example, RED's Proposition and the MGT fluid model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qosmodels.aqm_control import RedController, margins, red_operating_point
from qosmodels.experiments import aqm_design as ad
from qosmodels.experiments import validate

from .quick_runs import validate_quick


@pytest.fixture(scope="module")
def quick():
    return validate_quick(["aqm-pi-design"])


def test_rows_and_verdicts(quick):
    verdicts = {c.quantity: c.verdict for c in quick.checks}
    assert len(verdicts) == 18
    gains = {q for q in verdicts if q.startswith("PI discrete gain")}
    assert {verdicts[q] for q in gains} == {"known difference"}
    boundary = {q: v for q, v in verdicts.items() if "packets' queue oscillation" in q}
    assert boundary == {  # Floyd's spacing: oscillating on both sides of N* (quick form)
        "RED ns-2's w_q, N = 45 (unstable, gain margin 0.67): packets' queue oscillation":
            "known difference",
        "RED ns-2's w_q, N = 90 (stable, gain margin 1.29): packets' queue oscillation":
            "known difference",
        "RED ns-2's w_q, N = 150 (stable, gain margin 1.89): packets' queue oscillation":
            "known difference"}
    assert all(v == "reproduced" for q, v in verdicts.items()
               if q not in gains and q not in boundary)
    # the design's gains are 1.7 % above the print at the default crossover w_g = z
    for c in quick.checks:
        if c.quantity in gains:
            assert c.theory.value / c.expected - 1 == pytest.approx(0.017, abs=0.001)
            assert c.expected in (1.822, 1.816) and c.unit == "1e-5/packet"
    packets = [c for c in quick.checks if c.packets is not None
               and "packets' queue oscillation" not in c.quantity]
    assert [c.quantity for c in packets] == [
        "PI design (the printed a, b at 170 Hz), packets: mean queue",
        "RED with ns-2's w_q = 0.002, packets: queue std over the PI design's"]
    assert abs(packets[0].packets.value - 50.0) < 5.0  # 50.96 measured (quick)
    assert packets[1].packets.value > 1.2  # 1.34 measured (quick), 1.50 (full)


def test_the_packet_rows_can_fail():
    # drop-tail instead of PI: the same 60 flows fill the 800-packet buffer far past q_ref
    from qosmodels.mechanisms import DropTail

    q, _ = ad.packet_queue(DropTail(), quick=True)
    assert q.mean() > 5 * ad.Q_REF


def test_explore_reaches_the_print_at_the_crossover_it_implies():
    rep = validate(["aqm-pi-design"], quick=True, explore=True)
    for c in rep.checks:
        if c.quantity.startswith("PI discrete gain"):
            assert c.verdict == "reachable" and c.reachable_at == {"crossover": 0.52}


def test_closed_form_gain_margin_is_independent_of_margins():
    # the experiment's bisection on the written-out phase against aqm_control.margins, for
    # RED weights on both sides of instability: the check can fail
    op = red_operating_point(ad.N, ad.C, ad.TP, *ad.RAMP)
    seen = set()
    for w_q in (1e-5, 1e-4, 5e-4, 0.002, 0.01):
        ctl = RedController.from_red(*ad.RAMP, w_q, ad.C)
        gm, wp = ad._red_gain_margin(op, ctl.L_red, ctl.K)
        m = margins(op, ctl)
        assert gm == pytest.approx(m.gain_margin, rel=1e-6)
        assert wp == pytest.approx(m.phase_crossover, rel=1e-6)
        seen.add(gm > 1)
    assert seen == {True, False}


def test_example_constants():
    assert ad.Z == pytest.approx(0.52879, abs=1e-5)
    assert -math.log1p(-ad.W_Q_DESIGN) * ad.C == pytest.approx(0.005, rel=1e-9)


def test_coherence_of_a_sinusoid_noise_and_a_damped_oscillation():
    rng = np.random.default_rng(5)
    dt, period = 0.05, 2.0
    t = np.arange(4000) * dt
    assert ad.coherence(np.sin(2 * np.pi * t / period), dt, period) == pytest.approx(
        1.0, abs=1e-9)
    assert ad.coherence(rng.normal(size=4000), dt, period) < 0.1
    # an AR(2) process whose poles are exp((-a +- i w) dt): its autocorrelation decays as
    # exp(-a lag) (times a cosine), so at 4-6 periods it keeps about exp(-4 a P)
    a, w = 0.1, 2 * np.pi / period
    r = np.exp(-a * dt)
    x = np.zeros(200_000)
    e = rng.normal(size=len(x))
    for k in range(2, len(x)):
        x[k] = 2 * r * np.cos(w * dt) * x[k - 1] - r * r * x[k - 2] + e[k]
    assert ad.coherence(x, dt, period) == pytest.approx(np.exp(-4 * a * period), abs=0.05)
    assert math.isnan(ad.coherence(np.ones(100), dt, period))
    assert math.isnan(ad.coherence(np.sin(t[:300]), dt, period))  # lags past half the record


def test_boundary_is_where_the_gain_margin_crosses_one():
    def gm(n):
        return ad._red_gain_margin(*_loop(n))[0]

    def _loop(n):
        op, ctl = ad.red_ns2_loop(n)
        return op, ctl.L_red, ctl.K

    n_star = ad.boundary(gm)
    assert n_star == pytest.approx(67.978, abs=1e-3)
    assert gm(n_star - 0.5) < 1.0 < gm(n_star + 0.5)
    assert margins(*ad.red_ns2_loop(60)).gain_margin < 1 < margins(
        *ad.red_ns2_loop(90)).gain_margin


def test_fluid_model_oscillates_below_its_onset_and_settles_above():
    from qosmodels.fluid.mgt import RedLaw, solve_mgt

    onset = ad.fluid_onset(200.0)
    assert 68.0 < onset < 72.0  # 70.4: above N* = 68.0 by the slow decay near it
    lo, hi, mp = ad.RAMP
    for n, settles in ((onset - 4, False), (onset + 4, True)):
        r = solve_mgt(n, ad.C, ad.TP, RedLaw(lo, hi, mp, ad.W_Q_NS), ad.BUFFER, 200.0)
        q0 = ad.red_ns2_loop(n)[0].q0
        assert (r.swing(20.0) / q0 < 0.01) is settles
