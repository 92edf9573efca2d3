"""aqm-mgt: the Misra-Gong-Towsley fluid model's mean queue against packets, NewReno over RED."""

from __future__ import annotations

import math

import pytest

from qosmodels.experiments import Check, Side, aqm_mgt
from qosmodels.mechanisms import DropTail

from .quick_runs import validate_quick


@pytest.fixture(scope="module")
def quick():
    return validate_quick(["aqm-mgt"])


def _kind(check):
    if check.quantity.startswith("timeouts in"):
        return "count"
    return "queue, timeouts" if check.quantity.endswith("MGT with timeouts") else "queue"


def test_rows_and_verdicts_in_the_quick_form(quick):
    ns, cs, tps = aqm_mgt.GRID[True]
    assert len(quick.checks) == 3 * len(ns) * len(cs) * len(tps) == 12
    kinds = [_kind(c) for c in quick.checks]
    assert kinds == ["queue"] * 4 + ["queue, timeouts"] * 4 + ["count"] * 4
    for c in quick.checks[:4]:
        # the reference is the closed-form equilibrium; the fluid model settles on it (within
        # 1.5 %), the packets sit 20-47 % below it (quick form, measured), declared
        assert c.verdict == "known difference" and c.known.cause == "mechanism differs"
        assert c.known.sides == ("packets",) and c.source == "closed form"
        assert c.fluid.value == pytest.approx(c.expected, rel=0.015)
        assert 0.5 * c.expected < c.packets.value < 0.9 * c.expected
        assert c.note.endswith("within 10 %: none")
        assert "std" in c.packets.method and "peak-to-peak" in c.packets.method
        assert "std" in c.fluid.method
    for plain, c in zip(quick.checks[:4], quick.checks[4:8]):
        # the model with timeouts: its equilibrium lies below the one without, the fluid
        # model settles on it (within 3 %; the Tp = 0.2 s points oscillate a little), and
        # the packets (the same run) stay 19-41 % below it (quick form, measured), declared
        assert c.verdict == "known difference" and c.known is aqm_mgt.KNOWN_TO
        assert c.expected < plain.expected and c.packets.value == plain.packets.value
        assert c.fluid.value == pytest.approx(c.expected, rel=0.03)
        assert 0.55 * c.expected < c.packets.value < 0.85 * c.expected
        assert c.note.endswith("with timeouts within 10 %: none")
    for c in quick.checks[8:]:
        # the model's timeouts in the 30 s window against the packets': the model's fluid
        # integral meets its closed form (within 5 %), the packets time out far less often
        assert c.verdict == "known difference" and c.known is aqm_mgt.KNOWN_COUNT
        assert c.fluid.value == pytest.approx(c.expected, rel=0.05)
        assert 0 < c.packets.value < 0.5 * c.expected
        assert c.note.endswith("the fluid model's within 10 %: none")
    assert quick.regressions == ()


def test_the_equilibrium_with_timeouts_by_hand():
    # SIGCOMM 2000, Section 2.3: 0 = 1/R - (1 - Q) W^2 p / (2 R) + (1 - W) W p Q / R at
    # W(t - R) = W; with Q = 3/W (W >= 3) that is p (W^2 / 2 + 3 W / 2 - 3) = 1
    n, c, tp = 30, 1250.0, 0.05
    q0 = aqm_mgt.equilibrium(n, c, tp, timeouts=3.0)
    W = (c * tp + q0) / n
    p = 0.1 * (q0 - 50) / 540
    assert W > 3 and p * (W * W / 2 + 1.5 * W - 3) == pytest.approx(1.0, rel=1e-9)
    assert q0 < aqm_mgt.equilibrium(n, c, tp) - 10
    # small windows (W < k): Q = 1, every loss a timeout: p W (W - 1) = 1
    q1 = aqm_mgt.equilibrium(n, c, tp, timeouts=20.0)
    W1 = (c * tp + q1) / n
    assert W1 < 20 and 0.1 * (q1 - 50) / 540 * W1 * (W1 - 1) == pytest.approx(1.0, rel=1e-9)
    # the timeout rate at the equilibrium: p0 C Q(W0)
    assert aqm_mgt.timeout_rate(n, c, tp) == pytest.approx(p * c * 3 / W, rel=1e-12)


def test_the_fluid_model_with_timeouts_settles_on_its_equilibrium():
    m = aqm_mgt.measure(30, 10e6, 0.05, 40.0, 10.0, timeout_k=3.0)
    q0 = aqm_mgt.equilibrium(30, 1250.0, 0.05, timeouts=3.0)
    assert m["fluid_to_mean"] == pytest.approx(q0, rel=1e-6) and m["fluid_to_std"] < 0.01
    assert m["fluid_to_count"] == pytest.approx(30 * aqm_mgt.timeout_rate(30, 1250.0, 0.05),
                                                rel=1e-4)
    # the packets' timeouts in the window: fewer than the run's, more than none here
    assert 0 < m["timeouts_window"] < m["timeouts"]
    # without timeout_k the keys of the model with timeouts are absent
    assert "fluid_to_mean" not in aqm_mgt.measure(10, 10e6, 0.05, 2.0, 1.0)


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
                                                          "spacing": 0, "timeout_k": 3.0}
    # the paper's Q(w) = min(1, 3/w) (Reno) by default, its Sack form min(1, 1/w) explored
    assert next(u for u in exp.unstated if u.name == "timeout_k").values == (1.0,)
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
