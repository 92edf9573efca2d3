"""Packet kernels specialised to a network's mechanisms (``qosmodels/sim/_variant.py``).

References: the dispatch modules' own text (a branch goes only when it names nothing but
mechanisms outside the set) and the whole kernel's results, which a variant must give bit
for bit on the networks it serves.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, topologies
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import AggregateBucket, Cbr, Codel, Red, TcpNewReno, TcpVegas
from qosmodels.network import Aggregate
from qosmodels.sim import _variant as V
from qosmodels.sim import compile_kernel, simulate

KERNELS = Path(V.__file__).parent / "_kernels"


def branches(source: str) -> set[str]:
    return set(re.findall(r"code == (\w+)\.CODE", source))


def test_the_core_set_keeps_its_branches_and_defaults_only():
    src = (KERNELS / "dispatch.py").read_text()
    out = V.specialise(src, V.CORE)
    ast.parse(out)
    kept = branches(out)
    # red's branch names ered too, reno's vegas and web: kept whole
    assert {"red", "reno", "cbr", "poisson", "onoff"} <= kept
    assert not kept & {"abe", "avq", "codel", "drr", "fair_queueing", "decbit", "rio",
                       "ticket_red", "priority", "random_loss", "tahoe", "accumulation",
                       "tcp_friendly", "decbit_window"}
    # every hook is still defined, with its default arm (GenericWindow's ACK handler)
    hooks = {n.name for n in ast.parse(src).body if isinstance(n, ast.FunctionDef)}
    assert hooks == {n.name for n in ast.parse(out).body if isinstance(n, ast.FunctionDef)}
    assert "window.on_ack(S, f, a)" in out


def test_the_whole_set_removes_nothing():
    for name in V.DISPATCH_FILES:
        src = (KERNELS / name).read_text()
        out = V.specialise(src, V.all_kernels())
        assert branches(out) == branches(src)
        assert ast.dump(ast.parse(out)) == ast.dump(ast.parse(src))


def test_a_branch_is_kept_while_any_mechanism_it_names_is_used():
    src = (KERNELS / "dispatch.py").read_text()
    out = V.specialise(src, frozenset({"queues.droptail", "sources.vegas"}))
    # "code == reno.CODE or code == vegas.CODE or ..." stays for Vegas, with Vegas's test only
    assert "vegas.on_ack" in out and "reno.send_limit" in out
    assert "if code == vegas.CODE:\n        return reno.send_limit(S, f)" in out
    assert "ered.admit" not in out


def test_edges_are_dropped_when_unused_and_kept_when_used():
    src = (KERNELS / "dispatch_edges.py").read_text()
    assert branches(V.specialise(src, V.CORE)) == set()
    kept = branches(V.specialise(src, V.CORE | {"edges.token_bucket"}))
    assert kept == {"token_bucket"}


def test_kernels_of_lists_links_flows_and_edges():
    net = Network([Link("a", "b", 1e6, 0.01, queue=Codel())],
                  [Flow(["a", "b"], source=TcpVegas()), Flow(["a", "b"], source=Cbr(rate=1e5))],
                  aggregates=[Aggregate("g", flows=[1], edge=AggregateBucket(rate=1e5,
                                                                             depth=3000))])
    assert V.kernels_of(net) == {"queues.codel", "sources.vegas", "sources.cbr",
                                 "edges.token_bucket"}
    assert V.kernels_of(net) <= V.all_kernels()


def test_compile_kernel_refuses_what_is_not_a_network():
    with pytest.raises(ScenarioTypeError, match="network must be a qosmodels.Network"):
        compile_kernel("dumbbell")


@pytest.fixture
def variant_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(V.CACHE_ENV, str(tmp_path))
    return tmp_path


def test_a_variant_gives_the_whole_kernels_results_bit_for_bit(variant_cache, monkeypatch):
    # NewReno over RED and a Codel link with ECN marks: the variant for these mechanisms (and
    # the core set) against the whole kernel, every result array equal
    net = topologies.dumbbell(3, capacity=5e6, delay=0.01)
    net = net.replace_link("r0->r1", queue=Red(mark=True))
    net = net.replace_flow(0, source=TcpNewReno(ecn=True))
    net = Network(list(net.links) + [Link("r1", "x", 2e6, 0.002, queue=Codel())],
                  list(net.flows) + [Flow(["r0", "r1", "x"], source=Cbr(rate=2.5e6))])
    whole = simulate(net, 15.0, seed=4, progress=False)
    monkeypatch.setattr(V, "full_kernel_ready", lambda: False)
    run = V.kernel_for(net)
    from qosmodels.sim._kernels.engine import run as full_run

    assert run is not full_run and run.__module__.startswith("qosmodels.sim._kv_")
    assert list(variant_cache.iterdir())  # written where the environment says
    part = simulate(net, 15.0, seed=4, progress=False)
    assert part.compile_time > 0.0  # it compiled the variant (a fresh cache directory)
    for name in ("throughput", "delivered_packets", "mean_queueing_delay",
                 "max_queueing_delay", "utilisation", "queue_series", "cwnd_series"):
        a, b = getattr(whole, name), getattr(part, name)
        assert np.array_equal(a, b, equal_nan=True), name
    for cause in whole.link_drops:
        assert np.array_equal(whole.link_drops[cause], part.link_drops[cause]), cause
    assert whole.link_drops["marks"].sum() > 0 and whole.link_drops["early"].sum() > 0
    # the same set again: the variant already imported, nothing compiled
    assert V.kernel_for(net) is run
    assert compile_kernel(net) == 0.0
    # a ready variant is preferred to a ready whole kernel (it runs faster); a set whose
    # variant is not ready runs on the whole kernel, and nothing is written for it
    monkeypatch.setattr(V, "full_kernel_ready", lambda: True)
    assert V.variant_ready(V.kernels_of(net) | V.CORE)
    assert V.kernel_for(net) is run
    other = Network([Link("a", "b", 1e6, 0.01)], [Flow(["a", "b"], source=TcpVegas())])
    before = sorted(variant_cache.iterdir())
    assert not V.variant_ready(V.kernels_of(other) | V.CORE)
    assert V.kernel_for(other) is full_run
    assert sorted(variant_cache.iterdir()) == before


def test_with_numba_disabled_a_run_uses_the_packages_own_loop(variant_cache, monkeypatch):
    # NUMBA_DISABLE_JIT=1 runs the kernel as plain Python: even where a variant is ready
    # (its copy of the sources on disk), the run takes the package's own modules, which a
    # replay patches (tests/sim/prr_replay.py); with Numba on, the ready variant
    from numba.core import config

    from qosmodels.sim._kernels.engine import run as full_run

    net = Network([Link("a", "b", 1e6, 0.01)], [Flow(["a", "b"])])
    monkeypatch.setattr(V, "variant_ready", lambda keep: True)
    monkeypatch.setattr(V, "variant_run", lambda keep: "the variant")
    assert V.kernel_for(net) == "the variant"
    monkeypatch.setattr(config, "DISABLE_JIT", True)
    assert V.kernel_for(net) is full_run


def test_rare_handlers_are_real_functions_in_the_whole_kernel_only(variant_cache):
    from qosmodels.sim._kernels._jit import RARE
    from qosmodels.sim._kernels.engine import run as full_run

    assert V.rare_names(full_run) == frozenset(RARE) and len(RARE) > 50
    variant = V.variant_run(V.CORE)
    assert variant is not full_run and V.rare_names(variant) == frozenset()
