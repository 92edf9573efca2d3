"""Fuzz: every queue and source spec with any parameters, run in packets.

Each spec either refuses its parameters with a ScenarioError naming the field, or runs:
packets are conserved, every output is finite, the same seed gives the same run, and the
network given is left as it was.  Specs that need a partner (a Green flow needs an ABE
queue, TicketRed a ticket tagger, a DECbit source a DECbit gateway) may be refused at
``simulate`` with a ScenarioError saying so.
"""

from __future__ import annotations

import copy

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st

from qosmodels import Flow, Link, Network, mechanisms, simulate
from qosmodels.errors import BudgetError, ScenarioError
from qosmodels.mechanisms._base import QueueSpec, SourceSpec

from ..sim.test_engine import assert_packets_conserved
from .strategies import FUZZ, any_value, error_names, numeric_fields

QUEUES = [getattr(mechanisms, n) for n in mechanisms.__all__
          if isinstance(getattr(mechanisms, n), type)
          and issubclass(getattr(mechanisms, n), QueueSpec)
          and getattr(mechanisms, n) is not QueueSpec]
SOURCES = [getattr(mechanisms, n) for n in mechanisms.__all__
           if isinstance(getattr(mechanisms, n), type)
           and issubclass(getattr(mechanisms, n), SourceSpec)
           and getattr(mechanisms, n) is not SourceSpec]


@st.composite
def spec(draw, classes):
    cls = draw(st.sampled_from(classes))
    fields = numeric_fields(cls)
    kw = {}
    if fields and draw(st.booleans()):
        name = draw(st.sampled_from(fields))
        kw[name] = draw(any_value)
    return cls, kw


def run_checked(net: Network, duration: float):
    before = copy.deepcopy(net)
    try:
        a = simulate(net, duration, seed=11, progress=False)
    except BudgetError:
        return None  # refused before it started: a clear answer
    except ScenarioError as e:  # a partner missing: the message says what to add
        assert len(str(e)) > 40 and ("queue" in str(e) or "source" in str(e)
                                     or "Flow" in str(e) or "Link" in str(e)), str(e)
        return None
    assert net == before, "simulate changed the network it was given"
    c = a.counters
    assert_packets_conserved(c)
    for field in ("throughput", "utilisation", "mean_queueing_delay", "drop_rate"):
        v = np.asarray(getattr(a, field), dtype=float)
        assert np.all(np.isfinite(v) | np.isnan(v)), field  # NaN: a flow that delivered nothing
        assert not np.any(np.isinf(v)), field
    assert np.all(a.utilisation <= 1 + 1e-9)
    b = simulate(net, duration, seed=11, progress=False)
    np.testing.assert_array_equal(a.throughput, b.throughput)
    assert a.events == b.events
    return a


@FUZZ
@given(q=spec(QUEUES), s=spec(SOURCES), duration=st.sampled_from([0.5, 2.0]))
def test_any_queue_with_any_source(q, s, duration):
    (qcls, qkw), (scls, skw) = q, s
    try:
        queue = qcls(**qkw)
    except ScenarioError as e:
        assert qkw and error_names(e, qcls.__name__, next(iter(qkw))), str(e)
        return
    try:
        source = scls(**skw)
    except ScenarioError as e:
        assert skw and error_names(e, scls.__name__, next(iter(skw))), str(e)
        return
    try:
        net = Network([Link("a", "b", 2e6, 0.01, 40, queue=queue),
                       Link("b", "c", 1e6, 0.005, 20)],
                      [Flow(["a", "b", "c"], source=source), Flow(["a", "b"])])
    except ScenarioError as e:  # e.g. a packet size the link cannot hold
        assert any(w in str(e) for w in ("Flow", "Link", "Network")), str(e)
        return
    run_checked(net, duration)


@FUZZ
@given(seed=st.integers(0, 2**32), n_flows=st.integers(1, 6), n_links=st.integers(2, 5))
def test_random_mixed_networks(seed, n_flows, n_links):
    from ..sim.test_engine import mixed_network

    run_checked(mixed_network(seed, n_flows, n_links), 2.0)


@FUZZ
@given(value=any_value, field=st.sampled_from(["duration", "warmup", "max_events"]))
def test_simulate_arguments(value, field):
    net = Network([Link("a", "b", 1e6, 0.01)], [Flow(["a", "b"])])
    kw = {"duration": 1.0, field: value}
    assume(not (field == "warmup" and value == 0))
    try:
        r = simulate(net, seed=1, progress=False, **kw)
    except ScenarioError as e:
        assert field in str(e), str(e)
        return
    except Exception as e:  # SimulationError: a budget reached while running
        assert field == "max_events" and "max_events" in str(e), repr(e)
        return
    assert r.events > 0 and np.all(np.isfinite(r.throughput))


def test_determinism_across_processes():
    import json
    import subprocess
    import sys
    from pathlib import Path

    from ..sim.test_engine import mixed_network

    code = ("import json, sys; sys.path.insert(0, %r)\n"
            "from tests.sim.test_engine import mixed_network\n"
            "from qosmodels import simulate\n"
            "r = simulate(mixed_network(7, 5, 4), 3.0, seed=3, progress=False)\n"
            "print(json.dumps([r.events, r.throughput.tolist()]))\n"
            % str(Path(__file__).resolve().parents[2]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    events, thr = json.loads(out.strip().splitlines()[-1])
    here = simulate(mixed_network(7, 5, 4), 3.0, seed=3, progress=False)
    assert events == here.events and thr == here.throughput.tolist()
