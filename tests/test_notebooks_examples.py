"""The notebooks and example scripts are tests: each must run to the end without error.

Every ``notebooks/*.ipynb`` is executed with nbclient (kernel ``python3``, in
the notebooks folder, with ``QOSMODELS_QUICK=1`` so that sweeps are short),
and every ``examples/*.py`` is run in a subprocess.  The files are found by
glob, so a new notebook or example is tested without touching this file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))

TIMEOUT = 600  # s, per notebook cell and per example


def _quick_env() -> dict[str, str]:
    env = dict(os.environ)
    env["QOSMODELS_QUICK"] = "1"
    env.setdefault("MPLBACKEND", "Agg")  # examples must not open windows
    return env


def test_there_is_something_to_run():
    assert NOTEBOOKS, f"no notebooks found in {ROOT / 'notebooks'}"
    assert EXAMPLES, f"no examples found in {ROOT / 'examples'}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path: Path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")

    nb = nbformat.read(path, as_version=4)
    # the kernel inherits this process's environment
    monkeypatch.setenv("QOSMODELS_QUICK", "1")
    monkeypatch.delenv("MPLBACKEND", raising=False)  # let the kernel use its inline backend
    client = nbclient.NotebookClient(
        nb,
        timeout=TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},  # working directory
        allow_errors=False,
    )
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as exc:
        pytest.fail(f"{path.name}: a cell raised an error\n{exc}", pytrace=False)

    errors = [
        (i, out.get("ename"), out.get("evalue"))
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert not errors, f"{path.name}: cells with errors (index, name, value): {errors}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_saved_without_outputs(path: Path):
    nbformat = pytest.importorskip("nbformat")

    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    dirty = [
        i for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count"))
    ]
    assert not dirty, f"{path.name}: clear the outputs of cells {dirty} before saving"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path: Path):
    proc = subprocess.run(
        [sys.executable, str(path)],
        check=False,
        cwd=ROOT,
        env=_quick_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, (
        f"{path.name} exited with status {proc.returncode}\n"
        f"--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    )
    assert proc.stdout.strip(), f"{path.name} printed nothing"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_has_a_docstring(path: Path):
    import ast

    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert doc and doc.strip(), f"{path.name} needs a module docstring saying what it shows"
