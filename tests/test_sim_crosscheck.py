"""Cross-simulator check of the packet simulator against ns-3 (issue 3).

The benchmark dumbbell -- N NewReno flows on 100 Mb/s, 1 ms access links
sharing a 10 Mb/s, 20 ms bottleneck with a 100-packet drop-tail buffer,
1000-byte packets -- is simulated by qosmodels and by ns-3 (the PyPI wheel
``ns3``), configured alike as described in ``benchmarks/crosscheck_ns3.py``:
classic recovery, no SACK, no timestamps, no delayed ACKs, no limited
transmit, initial window 1, minimum RTO 0.2 s, 100-packet device queues with
the default FqCoDel queue disc removed.  The reference value, ns-3's
aggregate goodput, is an independent simulation.

ns-3 and ns.py both install a package called ``ns``, so ns-3 usually lives in
its own virtual environment: the test uses ``ns`` from this interpreter if it
is ns-3, else the interpreter named by ``$NS3_PYTHON``, and skips when
neither has ns-3.  Run with ``python -m pytest tests/test_sim_crosscheck.py -m slow``
(about a minute per case: importing ns-3's cppyy bindings alone takes ~8 s).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "crosscheck_ns3.py"


def _has_ns3(python: str) -> bool:
    try:
        proc = subprocess.run([python, "-c", "from ns import ns; ns.Simulator"],
                              capture_output=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def _ns3_python() -> str | None:
    if importlib.util.find_spec("ns") is not None and _has_ns3(sys.executable):
        return sys.executable
    env = os.environ.get("NS3_PYTHON")
    if env and _has_ns3(env):
        return env
    return None


def _crosscheck():
    spec = importlib.util.spec_from_file_location("crosscheck_ns3", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def ns3_python():
    python = _ns3_python()
    if python is None:
        pytest.skip("ns-3 is not importable here nor in $NS3_PYTHON "
                    "(python3 -m venv /tmp/ns3venv && /tmp/ns3venv/bin/pip install ns3; "
                    "export NS3_PYTHON=/tmp/ns3venv/bin/python)")
    return python


@pytest.mark.slow
@pytest.mark.parametrize("n_flows", [
    8,
    # Measured on 2026-11-21: qosmodels 9.9996 Mb/s, ns-3 9.7218 Mb/s (+2.86%). About 2.8% of
    # ns-3's data arrivals are duplicates, from timeouts (ns-3 restarts its retransmission
    # timer neither on the fast retransmit nor on later partial ACKs) followed by go-back-N;
    # qosmodels' default rules (the C reference's) restart it.  With ns-3's rules
    # (test_dumbbell_with_ns3_rules_matches_ns3 below) the 64-flow case agrees.  Kept as a
    # strict xfail so that the day the default rules agree the test says so.
    pytest.param(64, marks=pytest.mark.xfail(
        strict=True, reason="qosmodels' default TCP rules differ from ns-3's: ns-3 loses 2.9% "
                            "of goodput to timeouts and duplicates at 64 flows "
                            "(see benchmarks/RESULTS.md)")),
])
def test_dumbbell_aggregate_goodput_matches_ns3(ns3_python, n_flows):
    # 300 simulated seconds, measured from 50 s: long enough for the slow-start
    # transient (and the long NewReno recoveries it can leave) to be over.
    cc = _crosscheck()
    ours, ns3 = cc.compare(n_flows, duration=300.0, warmup=50.0, seed=1, python=ns3_python)
    assert ns3["aggregate"] > 0
    assert ours["aggregate"] == pytest.approx(ns3["aggregate"], rel=0.02), (
        f"{n_flows} flows: qosmodels {ours['aggregate'] / 1e6:.4f} Mb/s, "
        f"ns-3 {ns3['aggregate'] / 1e6:.4f} Mb/s "
        f"(drop rates {ours['drop_rate']:.4f} and {ns3['drop_rate']:.4f})")


@pytest.mark.slow
@pytest.mark.parametrize("n_flows", [
    # Measured on 2026-11-21 with ns-3's rules: 8 flows 8.9304 against 10.0000 Mb/s (-10.7%).
    # In ns-3 every one of the 1592 fast retransmits in the window came within 20 ms of the
    # first duplicate ACK; in qosmodels (recovery="pipe", reference timer: no timeouts to
    # disturb the count) 219 of 1568 (14%) come a round trip later (the loss falls among
    # the last two packets of the flow's window, which travels as one burst), so the
    # impatient timer fires; the go-back-N duplicates then give duplicate ACKs, a false fast
    # retransmit, and ns-3's Reno-SACK bookkeeping (reproduced by recovery="pipe", checked
    # against ns-3's own TcpTxBuffer) resends the first unacknowledged packet on every ACK
    # until the next timeout.  Where losses fall inside a burst is a phase effect of this
    # deterministic dumbbell, not a TCP rule.
    pytest.param(8, marks=pytest.mark.xfail(
        strict=True, reason="phase effect: losses at the end of a window burst (never in "
                            "ns-3's run) lead to timeouts with ns-3's timer rules")),
    64,
])
def test_dumbbell_with_ns3_rules_matches_ns3(ns3_python, n_flows):
    # qosmodels with ns-3's TCP rules: an RTT sample per ACK, the "impatient" timer and
    # ns-3's classic recovery without SACK.  64 flows, measured on 2026-11-21: 9.8248
    # against 9.7218 Mb/s (+1.06%); retransmissions 40801 / 41036, fast retransmits 10680 /
    # 10741 over the whole run.
    cc = _crosscheck()
    ours, ns3 = cc.compare(n_flows, duration=300.0, warmup=50.0, seed=1, python=ns3_python,
                           rtt_samples="ack", timer="impatient", recovery="pipe", trace=True)
    assert ours["aggregate"] == pytest.approx(ns3["aggregate"], rel=0.02), (
        f"{n_flows} flows: qosmodels {ours['aggregate'] / 1e6:.4f} Mb/s, "
        f"ns-3 {ns3['aggregate'] / 1e6:.4f} Mb/s")
    assert ours["retransmitted"] == pytest.approx(ns3["trace"]["retransmitted"], rel=0.05)
    assert ours["fast_retransmits"] == pytest.approx(ns3["trace"]["fast_retransmits"], rel=0.05)
