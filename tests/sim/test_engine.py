"""The simulator's engine: conservation, determinism, limits, bad run options, jit against no-jit.

The specs' own validation is tested in ``tests/mechanisms/``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qosmodels import Flow, Link, Network, ScenarioError, SimulationError, topologies
from qosmodels.sim import (
    Cbr,
    GenericWindow,
    Limits,
    OnOff,
    Poisson,
    Priority,
    RandomLoss,
    Record,
    Red,
    TcpNewReno,
    TcpReno,
    replicate,
    simulate,
)

QUIET = Record(interval=0.5, cwnd=False)


def mixed_network(seed: int, n_flows: int, n_links: int) -> Network:
    """A random network whose flows use every kind of source and links every discipline."""
    base = topologies.random_network(n_flows, n_links, seed=seed, capacity=(1e6, 5e6),
                                     delay=(0.001, 0.02))
    rng = np.random.default_rng(seed)
    queues = [lambda: None, lambda: Red(min_th=2, max_th=6, max_p=0.2, w_q=0.05),
              lambda: Priority(classes=2), lambda: RandomLoss(0.02)]
    links = []
    for link in base.links:
        q = queues[rng.integers(len(queues))]()
        buffer = int(rng.integers(1, 30))
        links.append(Link(link.src, link.dst, link.capacity, link.delay, buffer=buffer,
                          queue=q if q is not None else link.queue))
    sources = [lambda: TcpReno(), lambda: TcpNewReno(max_window=20),
               lambda: GenericWindow(window=4, priority=1), lambda: Cbr(rate=8e5),
               lambda: Poisson(rate=5e5), lambda: Poisson(rate=5e5, window=3),
               lambda: OnOff(rate=2e6, on_time=0.2, off_time=0.3)]
    flows = []
    for f in base.flows:
        src = sources[rng.integers(len(sources))]()
        flows.append(Flow(f.route, source=src, start=float(rng.uniform(0, 0.5)),
                          stop=float(rng.uniform(2, 4)) if rng.random() < 0.3 else None))
    return Network(links, flows)


def assert_packets_conserved(c):
    """Every data packet and ACK sent was delivered, dropped or is still in the network,
    and every packet offered to a link left it, was dropped, waits or is being sent
    (``c``: a result's ``counters``)."""
    np.testing.assert_array_equal(c["sent"], c["arrived"] + c["dropped"] + c["in_flight"])
    np.testing.assert_array_equal(c["acks_sent"],
                                  c["acks_arrived"] + c["acks_dropped"] + c["acks_in_flight"])
    np.testing.assert_array_equal(
        c["link_arrivals"],
        c["link_departures"] + c["link_dropped"] + c["link_waiting"] + c["link_in_service"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n_flows=st.integers(1, 8), n_links=st.integers(2, 6),
       duration=st.floats(0.5, 4.0))
def test_conservation_on_random_networks(seed, n_flows, n_links, duration):
    net = mixed_network(seed, n_flows, n_links)
    res = simulate(net, duration, seed=seed, record=QUIET)
    c = res.counters
    assert_packets_conserved(c)
    buffers = np.array([link.buffer * link.queue.n_classes for link in net.links])
    assert np.all(c["link_max_waiting"] <= buffers)
    assert np.all(res.queue_series <= buffers)
    assert np.all(c["delivered"] <= c["arrived"])
    assert np.all(res.utilisation <= 1 + 1e-9)
    # goodput never exceeds what the path can carry
    caps = net.capacities
    for i in range(net.n_flows):
        assert res.throughput[i] <= caps[net.flow_links(i)].min() * (1 + 1e-9) + 1e-9


def test_same_seed_same_result_and_different_seeds_differ():
    net = mixed_network(4, 6, 4)
    a = simulate(net, 3.0, seed=7, record=QUIET)
    b = simulate(net, 3.0, seed=7, record=QUIET)
    c = simulate(net, 3.0, seed=8, record=QUIET)
    np.testing.assert_array_equal(a.throughput, b.throughput)
    np.testing.assert_array_equal(a.queue_series, b.queue_series)
    assert a.events == b.events
    assert not np.array_equal(a.queue_series, c.queue_series)


def test_generator_and_seedsequence_seeds():
    net = topologies.dumbbell(1, capacity=1e6, delay=0.01)
    net = net.replace(flows=[Flow(net.flows[0].route, source=Poisson(rate=5e5))])
    a = simulate(net, 2.0, seed=np.random.SeedSequence(3), record=QUIET)
    b = simulate(net, 2.0, seed=np.random.SeedSequence(3), record=QUIET)
    assert a.events == b.events


_NOJIT = """
import json, sys
sys.path.insert(0, {root!r})
from tests.sim.test_engine import mixed_network
from qosmodels.sim import simulate, Record
r = simulate(mixed_network(5, 5, 4), 1.5, seed=3, record=Record(interval=0.5, cwnd=True))
print(json.dumps({{k: v.tolist() for k, v in r.counters.items()}} |
                 {{"thr": r.throughput.tolist(), "qd": r.mean_queueing_delay.tolist(),
                   "cw": r.cwnd_series.tolist(), "events": r.events}}))
"""


def test_kernel_equals_pure_python_run():
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))  # the repository
    code = _NOJIT.format(root=root)
    out = {}
    for flag in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=flag)
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=600, cwd=root)
        assert proc.returncode == 0, proc.stderr
        out[flag] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["0"]["events"] > 1000
    assert out["0"] == out["1"]


def test_limits_raise_simulation_errors_naming_the_field():
    net = topologies.dumbbell(4, capacity=1e6, delay=0.01)
    with pytest.raises(SimulationError, match=r"event budget exhausted.*max_events"):
        simulate(net, 5.0, seed=0, max_events=1000)
    with pytest.raises(SimulationError, match=r"packet pool full.*max_packets"):
        simulate(net, 5.0, seed=0, limits=Limits(max_packets=10))
    with pytest.raises(SimulationError, match=r"event heap full.*heap_size"):
        simulate(net, 5.0, seed=0, limits=Limits(heap_size=6, max_packets=10_000))


@pytest.mark.parametrize("kwargs, match", [
    (dict(duration=0.0), r"duration must be > 0"),
    (dict(duration=-1.0), r"duration must be > 0"),
    (dict(duration=float("nan")), r"duration must be finite"),
    (dict(duration=1.0, warmup=1.0), r"warmup must be shorter than duration"),
    (dict(duration=1.0, warmup=-0.1), r"warmup must be >= 0"),
    (dict(duration=1.0, seed=-1), r"simulate\.seed must be a non-negative int, .* got the "
                                  r"negative integer -1"),
    (dict(duration=1.0, seed="x"), r"simulate\.seed must be a non-negative int, a numpy "
                                   r"SeedSequence or Generator, got 'x'; pass seed=0"),
    (dict(duration=1.0, max_events=0), r"max_events must be >= 1"),
    (dict(duration=1.0, record=dict(interval=0.0)), r"Record.interval must be > 0"),
    (dict(duration=1.0, record=dict(delay_bins=0)), r"Record.delay_bins must be >= 1"),
    (dict(duration=1.0, limits=dict(max_packets=0)), r"Limits.max_packets must be >= 1"),
])
def test_bad_run_options(kwargs, match):
    net = topologies.dumbbell(1)
    kwargs.setdefault("seed", 0)
    with pytest.raises(ScenarioError, match=match):
        if isinstance(kwargs.get("limits"), dict):
            kwargs["limits"] = Limits(**kwargs["limits"])
        simulate(net, **kwargs)


def test_priority_class_beyond_queue_is_refused_before_running():
    net = Network([Link("a", "b", 1e6, queue=Priority(classes=2))],
                  [Flow(["a", "b"], source=Cbr(rate=1e5, priority=2))])
    with pytest.raises(ScenarioError, match=r"priority class 2.*2 classes"):
        simulate(net, 1.0, seed=0)


def test_strict_priority_serves_class_zero_first():
    # a high-priority CBR at 30% and a low-priority CBR at 100% of the link
    net = Network([Link("a", "b", 1e6, 0.0, buffer=50, queue=Priority(classes=2))],
                  [Flow(["a", "b"], source=Cbr(rate=3e5, priority=0)),
                   Flow(["a", "b"], source=Cbr(rate=1e6, priority=1))])
    res = simulate(net, 50.0, seed=0, warmup=5.0, record=QUIET)
    assert res.throughput[0] == pytest.approx(3e5, rel=0.01)
    assert res.throughput[1] == pytest.approx(7e5, rel=0.01)
    assert res.mean_queueing_delay[0] < 0.008 + 1e-9  # waits at most one packet in service
    assert res.counters["dropped"][0] == 0


def test_acks_queue_on_declared_reverse_links():
    # reverse bottleneck 20 kb/s: 40-byte ACKs take 16 ms each, so ACK-clocked goodput
    # is capped at 1000-byte packets every 16 ms = 500 kb/s on a 10 Mb/s forward path
    links = [Link("a", "b", 10e6, 0.005), Link("b", "a", 20e3, 0.005, buffer=1000)]
    net = Network(links, [Flow(["a", "b"], source=TcpNewReno(max_window=50))])
    res = simulate(net, 60.0, seed=0, warmup=20.0, record=QUIET)
    assert res.throughput[0] == pytest.approx(500e3, rel=0.02)
    assert res.utilisation[1] == pytest.approx(1.0, abs=0.01)


def test_start_and_stop_times():
    net = Network([Link("a", "b", 1e6, 0.0)],
                  [Flow(["a", "b"], source=Cbr(rate=1e5), start=2.0, stop=4.0)])
    res = simulate(net, 10.0, seed=0, record=Record(interval=1.0))
    assert res.counters["sent"][0] == pytest.approx(2.0 * 1e5 / 8000, abs=1)
    assert res.throughput_series[:2, 0].max() == 0 and res.throughput_series[5:, 0].max() == 0


def test_onoff_long_run_average():
    net = Network([Link("a", "b", 1e7, 0.0, buffer=1000)],
                  [Flow(["a", "b"], source=OnOff(rate=1e6, on_time=0.5, off_time=1.5))])
    res = simulate(net, 2000.0, seed=1, record=QUIET)
    assert res.throughput[0] == pytest.approx(0.25e6, rel=0.05)


def test_replicate_gives_means_and_intervals():
    net = Network([Link("a", "b", 1e6, 0.0, buffer=10**5)],
                  [Flow(["a", "b"], source=Poisson(rate=5e5))])
    rep = replicate(net, 5, 200.0, seed=1, warmup=10.0, record=QUIET)
    assert len({r.events for r in rep.runs}) == 5
    hw = rep.half_width("mean_queueing_delay")[0]
    assert 0 < hw < 0.002
    assert abs(rep.mean_queueing_delay[0] - 0.004) < 3 * hw + 1e-4  # M/D/1: rho S / (2(1-rho))
    df = rep.to_pandas()
    assert list(df.columns) == ["throughput", "throughput_ci", "mean_queueing_delay",
                                "mean_queueing_delay_ci"]
    with pytest.raises(ScenarioError, match="replicate.n must be >= 2"):
        replicate(net, 1, 1.0, seed=0)


def test_replicate_in_a_process_pool_gives_the_serial_runs():
    """The runs' seeds are spawned before anything is submitted: a pool changes nothing."""
    from concurrent.futures import ProcessPoolExecutor

    net = Network([Link("a", "b", 1e6, 0.01, buffer=50)],
                  [Flow(["a", "b"], source=Poisson(rate=3e5)) for _ in range(3)])
    serial = replicate(net, 3, 4.0, seed=7, warmup=1.0, record=QUIET)
    with ProcessPoolExecutor(2) as pool:
        pooled = replicate(net, 3, 4.0, seed=7, warmup=1.0, record=QUIET, executor=pool)
    for a, b in zip(serial.runs, pooled.runs):
        assert a.events == b.events
        np.testing.assert_array_equal(a.throughput, b.throughput)
        np.testing.assert_array_equal(a.mean_queueing_delay, b.mean_queueing_delay)
    assert len({r.events for r in serial.runs}) == 3


def test_result_tables_and_plot():
    net = topologies.dumbbell(2, capacity=1e6, delay=0.01)
    res = simulate(net, 5.0, seed=0, warmup=1.0, record=Record(interval=0.1))
    assert list(res.to_pandas().index) == list(net.flow_names)
    assert list(res.to_pandas("links").index) == list(net.link_names)
    assert res.to_pandas("throughput").shape == (len(res.t) - 1, 2)
    assert res.to_pandas("cwnd").shape == (len(res.t), 2)
    assert "aggregate goodput" in res.summary() and "<table" in res._repr_html_()
    with pytest.raises(ValueError, match="choose 'flows'"):
        res.to_pandas("nope")
    import matplotlib

    matplotlib.use("Agg")
    axes = res.plot()
    assert len(axes) == 3 and [a.get_xlabel() for a in axes] == ["time (s)"] * 3
    # every data packet arriving in the window is in its flow's histogram
    assert res.delay_histogram.sum(axis=1).min() > 0


def test_plot_convention_and_smoothed_goodput():
    """The smoothed goodput keeps every bit: its time-weighted mean over the run is the
    goodput the kernel counts (``throughput``, a separate counter, warmup 0)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    net = topologies.dumbbell(2, capacity=1e6, delay=0.01)
    res = simulate(net, 10.0, seed=0, record=Record(interval=0.05))
    for smooth, n_steps in ((None, 50), (0, 200), (1.0, 10), (0.33, 30)):
        _, ax = plt.subplots()
        assert res.plot("throughput", ax=ax, smooth=smooth) is ax
        (first, *_) = ax.patches
        values, edges = first.get_data().values, first.get_data().edges
        assert len(values) == pytest.approx(n_steps, abs=n_steps // 4)
        mean = np.sum(values * np.diff(edges)) / (edges[-1] - edges[0])
        assert mean == pytest.approx(res.throughput[0] / 1e6, rel=1e-9)
    _, pair = plt.subplots(2)
    assert list(res.plot(("queue", "cwnd"), ax=pair, color="k")) == list(pair)
    with pytest.warns(DeprecationWarning, match="pass ax="):
        res.plot("queue", axes=[pair[0]])
    with pytest.raises(ScenarioError, match="unknown panel 'rate'"):
        res.plot("rate")
    with pytest.raises(ScenarioError, match="smooth must be a number of seconds"):
        res.plot(smooth=-1)
    plt.close("all")


def test_kernel_compiles_once_for_every_scenario():
    from qosmodels.sim._kernels.engine import run

    simulate(mixed_network(1, 3, 2), 0.5, seed=0, record=QUIET)
    n = len(run.signatures)
    for seed in (2, 3):  # other topologies, other mixes of mechanisms, other record options
        simulate(mixed_network(seed, 7, 5), 0.5, seed=seed, record=Record(interval=0.1))
    simulate(topologies.dumbbell(3), 0.5, seed=0, limits=Limits(max_packets=5000))
    assert len(run.signatures) == n == 1


def test_progress_bar_runs_in_chunks(capsys):
    net = topologies.dumbbell(2, capacity=1e6, delay=0.01)
    a = simulate(net, 2.0, seed=0, progress=True, record=QUIET)
    b = simulate(net, 2.0, seed=0, progress=False, record=QUIET)
    np.testing.assert_array_equal(a.throughput, b.throughput)
    assert "simulate" in capsys.readouterr().err
    with pytest.raises(TypeError, match="progress must be True, False or None"):
        simulate(net, 1.0, seed=0, progress="yes")
