"""The package surface: curated exports, lazy heavy imports."""

import subprocess
import sys

import pytest

import qosmodels


def test_public_surface():
    for name in ["Network", "Link", "Flow", "allocate", "Allocation", "ScenarioError",
                 "SolverError", "jain_index", "Mbps", "ms"]:
        assert name in qosmodels.__all__ and hasattr(qosmodels, name)
    assert sorted(set(qosmodels.__all__)) == sorted(qosmodels.__all__)
    for name in qosmodels.__all__:
        assert hasattr(qosmodels, name), name


def test_heavy_dependencies_are_imported_lazily():
    code = ("import sys, qosmodels; "
            "print(sorted(m for m in ('cvxpy', 'sympy', 'numba', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_citation_cites_the_library_and_the_five_papers():
    yaml = pytest.importorskip("yaml")
    from pathlib import Path

    cff = yaml.safe_load((Path(__file__).resolve().parents[1] / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["title"].startswith("qosmodels")
    titles = " | ".join(r["title"] for r in cff["references"])
    for words in ("Fair Queueing", "Accumulation-based", "Asymmetric Best-Effort",
                  "Probabilistic Packet Scheduling", "TCP aggregates"):
        assert words in titles
