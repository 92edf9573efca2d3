"""solve_fluid refuses runs that would not end or would not fit in memory (issue 13)."""

from __future__ import annotations

import pytest

from qosmodels import budget
from qosmodels.errors import BudgetError, ScenarioError
from qosmodels.fluid import solve_fluid
from qosmodels.fluid._compile import DEFAULT_MAX_WORK, compile_fluid
from qosmodels.topologies import acc_parking_lot


def test_a_run_over_the_work_budget_is_refused_naming_dt_and_t_end():
    net = acc_parking_lot()  # 3 flows, 2 links, 4 hops: 25 units a step
    with pytest.raises(BudgetError, match=r"t_end / dt = 1e\+09 / 0\.001 s = 1e\+12 steps of 9 "
                                          r"hops, flows and links\), over its budget"):
        solve_fluid(net, t_end=1e9)
    with pytest.raises(BudgetError, match=r"1e\+10 steps"):
        compile_fluid(net, t_end=1000.0, dt=1e-7)
    # just inside the budget, it compiles (nothing runs)
    steps = int(DEFAULT_MAX_WORK / 25)
    comp = compile_fluid(net, t_end=steps * 1e-4 * 0.999, dt=1e-4, save_dt=1000.0)
    assert comp.n_steps <= steps


def test_max_steps_is_the_users_budget():
    net = acc_parking_lot()
    with pytest.raises(ScenarioError, match=r"1e\+05 steps .* over max_steps = 10; use a larger dt"):
        compile_fluid(net, t_end=10.0, dt=1e-4, max_steps=10)
    comp = compile_fluid(net, t_end=1e9, max_steps=10**12, save_dt=1e6)  # allowed, not run
    assert comp.n_steps == 10**12
    with pytest.raises(ScenarioError, match="solve_fluid.max_steps must be >= 1"):
        compile_fluid(net, t_end=1.0, max_steps=0)


def test_saved_samples_over_the_memory_budget_are_refused():
    old = budget.set_memory_budget("1G")
    try:
        with pytest.raises(BudgetError, match=r"saved samples \(1e\+09 of them: t_end / save_dt\)"):
            solve_fluid(acc_parking_lot(), t_end=1e6, save_dt=1e-3, max_steps=10**10)
    finally:
        budget.set_memory_budget(old)


@pytest.mark.parametrize("kwargs", [
    dict(kappa=0.2, estimator="monaco", events="jump"),   # a delay change inside a slice
    dict(control="reno", red_links=["r0->r1"]),           # Reno over RED: loss and mark histories
    dict(kappa=0.2, control="mw", estimator="vegas"),
])
def test_a_run_in_slices_gives_the_numbers_of_one_call(monkeypatch, kwargs):
    import numpy as np

    import qosmodels.fluid as fluid
    from qosmodels.fluid.scenarios import acc_delay_jump
    from qosmodels.topologies import dumbbell

    kwargs = dict(kwargs)
    if kwargs.pop("events", None):
        net, change = acc_delay_jump()
        kwargs["events"] = [change]
        kwargs["red_links"] = []
    else:
        net = dumbbell(3, 10e6, 0.01, buffer=50)
    whole = solve_fluid(net, 20.0, **kwargs)
    monkeypatch.setattr(fluid, "SLICE_WORK", 997.0)  # some 40 steps a slice, not a divisor
    sliced = solve_fluid(net, 20.0, **kwargs)
    for field in ("t", "rates", "windows", "rtt", "estimates", "queues", "marking",
                  "delivered", "lost"):
        np.testing.assert_array_equal(getattr(sliced, field), getattr(whole, field))


def test_ctrl_c_between_slices_raises_cleanly(monkeypatch, python_sigint):
    import os
    import signal

    import qosmodels.fluid as fluid
    from qosmodels.fluid import _kernels

    real, calls = _kernels.integrate, []

    def integrate(*args):
        out = real(*args)
        calls.append(args[-2])  # n_to
        if len(calls) == 3:
            os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C: Python sees it after the call
        return out

    monkeypatch.setattr(_kernels, "integrate", integrate)
    monkeypatch.setattr(fluid, "SLICE_WORK", 2500.0)  # 100 steps a slice on the parking lot
    with pytest.raises(KeyboardInterrupt, match=r"solve_fluid interrupted at t = 0\.299 s of 100 s"):
        solve_fluid(acc_parking_lot(), t_end=100.0, dt=1e-3)
    assert calls == [99, 199, 299]
