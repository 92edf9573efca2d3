"""Every run ends and every array is bounded (issue 13): the simulator's work and memory
budgets, refusals before anything runs, slices that let Ctrl-C through.

References: the events a run really processes (its ``events`` field) for the upper bound
of ``predicted_events``; a run without slices for the sliced one (bit-identical fields).
"""

from __future__ import annotations

import dataclasses
import os
import signal

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, simulate, topologies
from qosmodels.errors import BudgetError, ScenarioError, SimulationError
from qosmodels.sim import (
    Cbr,
    GenericWindow,
    Limits,
    OnOff,
    Poisson,
    Priority,
    Record,
    TcpNewReno,
    TcpReno,
)
from qosmodels.sim.compile import DEFAULT_MAX_EVENTS, compile_scenario, predicted_events

simulate_mod = __import__("qosmodels.sim.simulate", fromlist=["simulate"])


def one_link(source=None, capacity=1e6, delay=0.01, buffer=100):
    kw = {} if source is None else {"source": source}
    return Network([Link("a", "b", capacity, delay, buffer)], [Flow(["a", "b"], **kw)])


@pytest.mark.parametrize("net, term", [
    (one_link(OnOff(on_time=1e-300, off_time=1e-300)), "on/off switches"),
    (one_link(Cbr(rate=1e15)), "open-loop sources make"),
    (one_link(TcpNewReno(min_rto=1e-300, initial_rto=1e-300, max_rto=1e-300)),
     "retransmission timeouts"),
])
def test_runs_that_would_not_end_are_refused_before_they_start(net, term):
    with pytest.raises(BudgetError, match=rf"simulate would take about .* events \(duration = 1 s; "
                                          rf"mostly [^)]*{term}.*max_events="):
        simulate(net, 1.0, seed=1)


def test_a_long_duration_is_refused_and_max_events_lets_it_run_to_that_budget():
    net = one_link()
    with pytest.raises(BudgetError, match=r"duration = 1e\+09 s; mostly packets forwarded"):
        simulate(net, 1e9, seed=1)
    # an explicit budget is the user's: the run starts and stops there, with a status
    with pytest.raises(SimulationError, match=r"event budget exhausted \(max_events = 5000\)"):
        simulate(net, 1e9, seed=1, max_events=5000)


@pytest.mark.parametrize("source", [None, Cbr(rate=2e6), Poisson(rate=0.5e6),
                                    OnOff(rate=3e6, on_time=0.2, off_time=0.3)])
def test_predicted_events_bound_the_events_of_the_run(source):
    net = topologies.dumbbell(4, capacity=2e6, delay=0.01)
    if source is not None:
        net = net.replace(flows=[f if k % 2 else dataclasses.replace(f, source=source)
                                 for k, f in enumerate(net.flows)])
    r = simulate(net, 30.0, seed=3)
    bound, _ = predicted_events(net, 30.0)
    assert r.events <= bound <= 30 * r.events  # an upper bound, and not a vacuous one


def test_default_budget_enforced_while_running(monkeypatch):
    # a prediction below the budget whose run goes past it stops with a status
    monkeypatch.setattr(simulate_mod, "DEFAULT_MAX_EVENTS", 10**9)
    monkeypatch.setattr(simulate_mod, "predicted_events", lambda net, d, enough=None: (1.0, "none"))
    net = one_link()
    r = simulate(net, 2.0, seed=1)
    monkeypatch.setattr(simulate_mod, "DEFAULT_MAX_EVENTS", r.events // 2)
    with pytest.raises(SimulationError, match=rf"max_events = {r.events // 2}"):
        simulate(net, 2.0, seed=1)


def test_slices_change_nothing(monkeypatch):
    net = topologies.dumbbell(3, capacity=5e6, delay=0.01)
    whole = simulate(net, 20.0, seed=5)
    monkeypatch.setattr(simulate_mod, "SLICE_EVENTS", 997)
    sliced = simulate(net, 20.0, seed=5)
    assert sliced.events == whole.events
    for field in ("throughput", "mean_queueing_delay", "utilisation", "throughput_series",
                  "queue_series"):
        np.testing.assert_array_equal(getattr(sliced, field), getattr(whole, field))


def test_ctrl_c_between_slices_raises_cleanly(monkeypatch, python_sigint):
    from qosmodels.sim._kernels import engine

    real_run, calls = engine.run, []

    def run(c, t_stop, cap):
        status = real_run(c, t_stop, cap)
        calls.append(cap)
        if len(calls) == 3:
            os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C: Python sees it after the call
        return status

    real_run(compile_scenario(one_link(), 0.1, seed=1), -1.0, np.int64(1))  # compiled
    monkeypatch.setattr(engine, "run", run)
    monkeypatch.setattr(simulate_mod, "SLICE_EVENTS", 500)
    with pytest.raises(KeyboardInterrupt, match=r"simulate interrupted at t = .* of 100 s, "
                                                r"after 1500 events"):
        simulate(topologies.dumbbell(3, capacity=5e6, delay=0.01), 100.0, seed=5)
    assert len(calls) == 3


def test_memory_fat_link_sizes_its_pool_from_the_window_not_the_pipe():
    # 100 Gb/s x 0.5 s holds 1.6e8 ACK-sized packets; one NewReno flow never has more
    # than its window (1000) and as many ACKs in flight
    c = compile_scenario(one_link(capacity=1e11, delay=0.5), 0.01, seed=1)
    assert c.pi.shape[0] < 10_000
    r = simulate(one_link(capacity=1e11, delay=0.5), 0.01, seed=1)
    assert r.events > 0


@pytest.mark.parametrize("kw, match", [
    ({"record": Record(interval=1e-9)}, r"time series \(1e\+09 samples: duration / "
                                        r"Record.interval"),
    ({"net": one_link(TcpNewReno(max_window=2**40))}, r"flows' windows .*max_window"),
    ({"net": one_link(Cbr(rate=5e10), capacity=1e11, delay=0.5)}, r"packet pool \(67108864 "),
    ({"limits": Limits(memory="1K")}, r"over the budget of 1 KiB"),
])
def test_arrays_over_the_memory_budget_are_refused(kw, match):
    kw = dict(kw)
    net = kw.pop("net", one_link())
    kw.setdefault("limits", Limits(memory="4G"))  # the same on every machine
    with pytest.raises(BudgetError, match=match):
        compile_scenario(net, 1.0, seed=1, **kw)


@pytest.mark.parametrize("queue, source, match", [
    # found by the long fuzz run (QOSMODELS_FUZZ_EXAMPLES=400): an OverflowError, a numpy
    # "array is too big" and a 947 GiB allocation before
    (Priority(classes=3), GenericWindow(window=2**63), r"flows' windows .* 9223372036854775808 "
                                                        r"packets.*GenericWindow: window"),
    (Priority(classes=2**58), TcpReno(), r"class slots \(2\.88e\+17 of them: Priority\.classes"),
    (Priority(classes=31763988035.0), TcpReno(), r"947 GiB .* class slots"),
])
def test_huge_windows_and_class_counts_are_refused_before_allocating(queue, source, match):
    net = Network([Link("a", "b", 1e6, 0.01, queue=queue)], [Flow(["a", "b"], source=source)])
    with pytest.raises(BudgetError, match=match):
        compile_scenario(net, 0.5, seed=1, limits=Limits(memory="4G"))


@pytest.mark.parametrize("value", [2**62 + 1, 9.223372036854776e18, 2**64])
def test_max_events_beyond_int64_is_refused(value):
    with pytest.raises(ScenarioError, match=r"max_events must be <= 4611686018427387904"):
        simulate(one_link(), 1.0, seed=1, max_events=value)
    with pytest.raises(ScenarioError, match=r"Limits.max_events must be <= 4611686018427387904"):
        Limits(max_events=value)


def test_limits_memory_validation():
    assert Limits(memory="2G").memory == 2 * 2**30
    with pytest.raises(ScenarioError, match="Limits.memory"):
        Limits(memory="lots")
    with pytest.raises(ScenarioError, match="Limits.memory"):
        Limits(memory=-1)


def test_default_budget_is_generous_for_the_benchmark():
    # bench_sim.py's 64 flows for 1000 s: 6.8e6 events; predicted well inside the budget
    net = topologies.dumbbell(64, capacity=10e6, delay=0.02)
    bound, _ = predicted_events(net, 1000.0)
    assert bound < DEFAULT_MAX_EVENTS / 100
