"""``solve_fluid(threads=...)``: the integrator's parts on threads (issue 37).

The threaded loop (:mod:`qosmodels.fluid._threads`) must give the serial loop's numbers bit
for bit (each thread writes only its own flows', links' and hops' elements, and the lost bits
are added to the flows in the serial order): checked on small networks that exercise every
path (drops at two links of a flow, zero-delay links, delay changes, RED, PI, AVD, Monaco,
reverse links) and on a medium random network, with the size threshold lowered so that the
threads run, in a subprocess with two Numba threads (whatever the machine's CPUs).  The
reference is the serial loop, itself checked against an independent replay and the papers
elsewhere (``test_kernel_parts.py``, ``test_acc.py``); here only the equality is at stake.

Python threads: Numba's ``workqueue`` layer aborts the process when two threads enter
parallel code at once; ``solve_fluid`` calls from a ``ThreadPoolExecutor`` run in a
subprocess under that layer (an abort fails the test instead of killing pytest) and must
give the serial numbers.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import qosmodels
from qosmodels import ScenarioError, ScenarioTypeError
from qosmodels.fluid import solve_fluid
from qosmodels.fluid._threads import spans
from qosmodels.topologies import acc_parking_lot

FIELDS = ("t", "rates", "windows", "rtt", "estimates", "accumulation", "queues",
          "virtual_delays", "marking", "departed", "delivered", "lost")

# scenarios as (name, code building the network and the solve_fluid keywords)
SCENARIOS = r'''
from qosmodels import Flow, Link, Network, mechanisms
from qosmodels.fluid import LinkChange
from qosmodels.fluid.scenarios import acc_dynamic_flows, acc_reverse_dumbbell
from qosmodels.topologies import acc_parking_lot, dumbbell, random_network
from qosmodels.units import Mbps, ms

def cases():
    pl = acc_parking_lot()
    yield "P_events", pl, dict(t_end=4.0, kappa=0.2, estimator="monaco",
                               events=[LinkChange(2.0, "r0->r1", ms(40))])
    yield "avd_vegas", acc_dynamic_flows(20, time_scale=0.3), dict(
        t_end=4.0, kappa=0.2, estimator="vegas-k", avd_links=["r0->r1"])
    yield "reno_droptail", dumbbell(10, Mbps(10), ms(20), buffer=30), dict(
        t_end=4.0, control="Reno")
    two = Network([Link("a", "b", Mbps(10), ms(5), 15), Link("b", "c", Mbps(8), ms(7), 15)],
                  [Flow(["a", "b", "c"], name="long")]
                  + [Flow(["a", "b"], name=f"x{k}") for k in range(3)]
                  + [Flow(["b", "c"], name=f"y{k}") for k in range(3)])
    yield "reno_drops_2links", two, dict(t_end=5.0, control="Reno")
    yield "reno_rev", acc_reverse_dumbbell(), dict(t_end=3.0, control="Reno",
                                                   red_links=["r0->r1", "r1->r0"])
    yield "zero_delay", dumbbell(3, Mbps(10), ms(10), access_delay=0.0), dict(
        t_end=3.0, kappa=0.2)
    pi = dumbbell(20, Mbps(30), ms(40)).replace_link(
        "r0->r1", queue=mechanisms.Pi(a=1.822e-5, b=1.816e-5, sampling_rate=170, q_ref=50))
    yield "reno_pi", pi, dict(t_end=3.0, control="Reno")
    net = random_network(300, 40, seed=3)
    yield "random300_acc", net, dict(t_end=1.5, kappa=0.2)
    yield "random300_reno", net, dict(t_end=1.5, control="Reno",
                                      red_links=[lk.name for lk in net.links])
    yield "random300_coarse", net, dict(t_end=1.5, control="Reno", dt=2e-3, coarse_dt=True,
                                        red_links=[lk.name for lk in net.links])
'''

RUN = SCENARIOS + r'''
import sys
import numpy as np
from qosmodels.fluid import _threads, solve_fluid

_threads.THREADS_MIN_WORK = 0  # threads on these small networks too
out = {}
for name, net, kw in cases():
    for th in (1, 2):
        r = solve_fluid(net, threads=th, **kw)
        for f in FIELDS:
            out[f"{name}.{th}.{f}"] = getattr(r, f)
out["threaded_slices"] = np.array(_threads._state["slices"])
np.savez(sys.argv[1], **out)
'''


def _env(**extra) -> dict:
    root = str(Path(qosmodels.__file__).resolve().parent.parent)
    path = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=root + (os.pathsep + path if path else ""), **extra)


def test_threaded_loop_gives_the_serial_numbers_bit_for_bit(tmp_path):
    # OMP_WAIT_POLICY=PASSIVE: GNU OpenMP's idle threads sleep at a region's end instead of
    # spinning.  The numbers are the same (only how a thread waits changes: the 241 arrays
    # were compared, equal); the time is not: these small networks run thousands of parallel
    # regions, and with another process on one of the two cores a spinning thread kept the
    # other off the free core at every region (the run 18-42 s instead of 4-7 s, measured)
    out = tmp_path / "runs.npz"
    code = f"FIELDS = {FIELDS!r}\n" + RUN
    env = _env(NUMBA_NUM_THREADS="2", OMP_WAIT_POLICY="PASSIVE")
    subprocess.run([sys.executable, "-c", code, str(out)], env=env, check=True, timeout=900)
    runs = np.load(out)
    assert int(runs["threaded_slices"]) >= 10  # (the threads did run: one slice a case or more)
    names = sorted({k.split(".")[0] for k in runs.files if k != "threaded_slices"})
    assert len(names) == 10
    for name in names:
        for f in FIELDS:
            a, b = runs[f"{name}.1.{f}"], runs[f"{name}.2.{f}"]
            assert np.array_equal(a, b, equal_nan=True), (name, f)
        assert np.abs(runs[f"{name}.1.rates"]).max() > 0  # (a run that did something)
    # the drop-tail cases lost bits (the deferred loss sums were exercised)
    assert runs["reno_droptail.2.lost"][-1].sum() > 0
    assert np.all(runs["reno_drops_2links.2.lost"][-1] > 0)  # (both links dropped)


POOL = SCENARIOS + r'''
from concurrent.futures import ThreadPoolExecutor
import numpy as np
from qosmodels.fluid import _threads, solve_fluid

_threads.THREADS_MIN_WORK = 0
jobs = [(name, net, kw) for name, net, kw in cases() if name.startswith("random300")] * 2
serial = [solve_fluid(net, threads=1, **kw) for name, net, kw in jobs]
with ThreadPoolExecutor(2) as pool:
    futs = [pool.submit(solve_fluid, net, threads=2, **kw) for name, net, kw in jobs]
    res = [f.result() for f in futs]
for a, b in zip(serial, res):
    for f in ("rates", "queues", "lost", "marking"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
import numba
print("OK", numba.threading_layer(), _threads._state["slices"])
'''


@pytest.mark.parametrize("layer", ["workqueue", "default"])
def test_solve_fluid_from_python_threads_neither_aborts_nor_differs(layer):
    env = _env(NUMBA_NUM_THREADS="2", NUMBA_THREADING_LAYER=layer)
    p = subprocess.run([sys.executable, "-c", POOL], env=env, capture_output=True, text=True,
                       timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    ok = [line for line in p.stdout.splitlines() if line.startswith("OK")]
    assert ok, p.stdout[-2000:]
    if layer == "workqueue":
        assert ok[0].split()[1] == "workqueue"
    assert int(ok[0].split()[2]) >= 1  # (some slices ran on threads)


@pytest.mark.parametrize("bad, exc", [(0, ScenarioError), (-2, ScenarioError),
                                      (1.5, ScenarioError), ("2", ScenarioTypeError),
                                      (True, ScenarioTypeError)])
def test_bad_threads_are_refused_naming_the_field(bad, exc):
    with pytest.raises(exc, match="threads"):
        solve_fluid(acc_parking_lot(), 1.0, threads=bad)


def test_more_threads_than_numba_allows_are_refused():
    from numba import config

    top = int(config.NUMBA_NUM_THREADS)
    with pytest.raises(ScenarioError, match="NUMBA_NUM_THREADS"):
        solve_fluid(acc_parking_lot(), 1.0, threads=top + 1)


def test_spans_cover_the_items_in_order_with_balanced_weights():
    w = np.array([5, 1, 1, 1, 1, 1, 5, 0, 0, 1], dtype=float)
    for nt in (1, 2, 3, 4):
        b = spans(w, nt)
        assert b[0] == 0 and b[-1] == len(w) and np.all(np.diff(b) >= 0) and len(b) == nt + 1
    assert list(spans(w, 2)) == [0, 4, 10]  # 8 and 8 of the 16
    assert list(spans(np.ones(8), 4)) == [0, 2, 4, 6, 8]
    assert list(spans(np.ones(3), 4)) == [0, 1, 2, 3, 3]  # (a span may be empty)


def test_loop_choice_probes_both_loops_then_runs_the_faster_and_probes_again():
    from qosmodels.fluid._threads import LoopChoice

    every = LoopChoice.EVERY
    c = LoopChoice(True, 3200)
    assert c.next() == (True, 100)  # a probe of each loop, 1/32 of a slice
    c.record(True, 100, 3.0)  # threads: 30 ms a step (a loaded machine)
    assert c.next() == (False, 100)
    c.record(False, 100, 1.0)  # serial: 10 ms a step
    for interval in (every, 2 * every, 4 * every):  # (doubled each time the probe loses)
        for _ in range(interval):
            assert c.next() == (False, 3200)
            c.record(False, 3200, 32.0)
        assert c.next() == (True, 100)  # probed again
        c.record(True, 100, 2.0)  # 20 ms: still slower
    assert LoopChoice.EVERY_MAX == 4 * every  # (the interval stays at its cap)
    for _ in range(LoopChoice.EVERY_MAX):
        assert c.next() == (False, 3200)
    assert c.next() == (True, 100)
    c.record(True, 100, 0.5)  # the cores are free now: 5 ms a step
    for _ in range(every):
        assert c.next() == (True, 3200)
        c.record(True, 3200, 16.0)
    assert c.next() == (False, 100)  # (the interval back to EVERY: the probe won)
    fixed = LoopChoice(False, 800)  # an explicit thread count: threads throughout
    fixed.record(True, 800, 100.0)
    fixed.record(False, 800, 1.0)
    assert [fixed.next() for _ in range(20)] == [(True, 800)] * 20


FORK = SCENARIOS + r'''
import os
import numpy as np
from qosmodels.fluid import _threads, solve_fluid

_threads.THREADS_MIN_WORK = 0
name, net, kw = [c for c in cases() if c[0] == "random300_acc"][0]
a = solve_fluid(net, threads=2, **kw)
pid = os.fork()
if pid == 0:  # the child: under GNU OpenMP a parallel region here would terminate it
    b = solve_fluid(net, threads=2, **kw)
    os._exit(0 if np.array_equal(a.rates, b.rates) and np.array_equal(a.queues, b.queues)
             else 3)
_, code = os.waitpid(pid, 0)
print("CHILD", os.waitstatus_to_exitcode(code), _threads._state["layer"])
'''


def test_a_child_forked_after_a_threaded_run_integrates_and_agrees():
    p = subprocess.run([sys.executable, "-c", FORK], env=_env(NUMBA_NUM_THREADS="2"),
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    line = [x for x in p.stdout.splitlines() if x.startswith("CHILD")]
    assert line and line[0].split()[1] == "0", (p.stdout[-2000:], p.stderr[-2000:])
