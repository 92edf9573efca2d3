"""aqm-pi-design: the PI design example, RED's Proposition and the MGT fluid model."""

from __future__ import annotations

import math

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
    assert len(verdicts) == 14
    gains = {q for q in verdicts if q.startswith("PI discrete gain")}
    assert {verdicts[q] for q in gains} == {"known difference"}
    assert all(v == "reproduced" for q, v in verdicts.items() if q not in gains)
    # the design's gains are 1.7 % above the print at the default crossover w_g = z
    for c in quick.checks:
        if c.quantity in gains:
            assert c.theory.value / c.expected - 1 == pytest.approx(0.017, abs=0.001)
            assert c.expected in (1.822, 1.816) and c.unit == "1e-5/packet"
    packets = [c for c in quick.checks if c.packets is not None]
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
