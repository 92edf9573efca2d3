"""aqm-mgt: the Misra-Gong-Towsley fluid model's mean queue against packets, NewReno over RED."""

from __future__ import annotations

import math

import pytest

from qosmodels.experiments import Check, Side, aqm_mgt, validate
from qosmodels.mechanisms import DropTail


@pytest.fixture(scope="module")
def quick():
    return validate(["aqm-mgt"], quick=True)


def test_rows_and_verdicts_in_the_quick_form(quick):
    ns, cs, tps = aqm_mgt.GRID[True]
    assert len(quick.checks) == len(ns) * len(cs) * len(tps) == 4
    for c in quick.checks:
        # the reference is the closed-form equilibrium; the fluid model settles on it (within
        # 1.5 %), the packets sit 20-47 % below it (quick form, measured), declared
        assert c.verdict == "known difference" and c.known.cause == "mechanism differs"
        assert c.known.sides == ("packets",) and c.source == "closed form"
        assert c.fluid.value == pytest.approx(c.expected, rel=0.015)
        assert 0.5 * c.expected < c.packets.value < 0.9 * c.expected
        assert c.note.endswith("within 10 %: none")
        assert "std" in c.packets.method and "peak-to-peak" in c.packets.method
        assert "std" in c.fluid.method
    assert quick.regressions == ()


def test_the_fluid_reference_sits_at_the_independent_equilibrium():
    # where the model settles (C = 10 Mb/s, Tp = 0.05 s) its mean queue is the root of the
    # equilibrium equations, found here by brentq; and the root solves them
    m = aqm_mgt.measure(30, 10e6, 0.05, 40.0, 10.0)
    q0 = aqm_mgt.equilibrium(30, 1250.0, 0.05)
    assert m["fluid_mean"] == pytest.approx(q0, rel=1e-3) and m["fluid_std"] < 0.01
    assert 0.1 * (q0 - 50) / 540 == pytest.approx(2 * 30 ** 2 / (1250 * 0.05 + q0) ** 2)
    # no root on the ramp: an equilibrium above max_th
    assert math.isnan(aqm_mgt.equilibrium(500, 1250.0, 0.05))


def test_a_row_can_fail():
    # drop-tail (800 packets) instead of RED in packets: the queue stands near the buffer,
    # far beyond the declared difference, and the row fails
    m = aqm_mgt.measure(30, 10e6, 0.05, 40.0, 10.0, queue=DropTail())
    q0 = aqm_mgt.equilibrium(30, 1250.0, 0.05)
    assert m["packets_mean"] > 2 * q0
    row = Check("aqm-mgt", "mean queue", q0, source="closed form",
                packets=Side(m["packets_mean"], aqm_mgt.TOLERANCE), known=aqm_mgt.KNOWN)
    assert row.verdict == "fails"


def test_unstated_parameters_are_declared():
    from qosmodels.experiments import experiments

    exp = experiments()["aqm-mgt"]
    assert {u.name: u.default for u in exp.unstated} == {"w_q": 0.002, "max_p": 0.1,
                                                          "spacing": 0}
    spacing = next(u for u in exp.unstated if u.name == "spacing")
    assert spacing.values == (1, 2)
    # the codes name Red's spacings, in Red's order
    from qosmodels.mechanisms.red import SPACINGS
    assert aqm_mgt.SPACINGS == SPACINGS and aqm_mgt.SPACINGS[0] == aqm_mgt.SPACING == "floyd"


def test_the_spacing_reaches_the_packets_and_orders_their_queue():
    # one quick point, the three spacings: the fluid side ignores the spacing (p_b), the
    # packets' mean queue rises as the drop rate at a given p_b falls -- floyd ~2 p_b,
    # bernoulli p_b, ns-2's wait_ ~2 p_b / 3 (the orders the full form measured at every
    # settled point: 122, 161, 182 packets here over 100 s)
    runs = {sp: aqm_mgt.measure(30, 10e6, 0.05, 40.0, 10.0, spacing=sp)
            for sp in aqm_mgt.SPACINGS}
    fluid = {m["fluid_mean"] for m in runs.values()}
    assert len(fluid) == 1
    q = {sp: m["packets_mean"] for sp, m in runs.items()}
    assert q["floyd"] < q["bernoulli"] < q["ns2-wait"]
    assert q["ns2-wait"] > 1.2 * q["floyd"]
