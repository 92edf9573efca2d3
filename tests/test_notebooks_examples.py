"""The notebooks and example scripts are tests: each must run to the end without error.

Every ``notebooks/*.ipynb`` is executed with nbclient (kernel ``python3``, in
the notebooks folder, with ``QOSMODELS_QUICK=1`` so that sweeps are short),
and every ``examples/*.py`` is run in a subprocess.  The files are found by
glob, so a new notebook or example is tested without touching this file.

Teaching cells hold no assertions: a notebook's checks live in
``tests/notebook_checks/<notebook name>.py`` and run in its kernel after its
last cell, with its variables in scope.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CHECKS = Path(__file__).resolve().parent / "notebook_checks"
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
    checks = CHECKS / f"{path.stem}.py"
    if checks.is_file():
        nb.cells.append(nbformat.v4.new_code_cell(checks.read_text()))
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


def test_checks_are_named_after_notebooks():
    names = {p.stem for p in NOTEBOOKS}
    assert {p.stem for p in CHECKS.glob("*.py")} <= names


def _asserts(line: str) -> bool:
    """An assert statement, or a call of numpy's or pandas' assertion helpers."""
    code = line.split("#", 1)[0].strip()
    return code.startswith("assert ") or "testing.assert" in code or "assert_allclose(" in code


def test_the_assertion_finder():
    assert _asserts("    assert x == 1")
    assert _asserts("np.testing.assert_allclose(a, b)")
    assert _asserts("pd.testing.assert_frame_equal(a, b)")
    assert not _asserts("print('assert nothing')  # assert")
    assert not _asserts("assertion = 3")


#: The parameters a reader would want to move, and the notebooks that offer them as sliders.
SLIDERS = {"01-fair-allocation": ["alpha"], "03-acc-fluid": ["kappa", "delay_ms"],
           "04-fair-queueing": ["delta", "rho"], "05-abe": ["beta_star"],
           "09-designing-an-aqm": ["N", "C_Mbps", "Tp_ms", "gain", "w_q", "max_p"],
           "10-modern-senders": ["N", "C_Gbps", "RTT_us", "K", "RTT_ms"]}


@pytest.mark.parametrize("stem", sorted(SLIDERS))
def test_teaching_notebooks_have_sliders(stem):
    nbformat = pytest.importorskip("nbformat")

    nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
    interactive = "\n".join(cell.source for cell in nb.cells
                            if cell.cell_type == "code" and "@interact(" in cell.source)
    missing = [name for name in SLIDERS[stem] if f"{name}=" not in interactive]
    assert not missing, f"{stem}.ipynb: no ipywidgets slider for {missing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_teaching_cells_hold_no_assertions(path: Path):
    nbformat = pytest.importorskip("nbformat")

    nb = nbformat.read(path, as_version=4)
    cells = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
             and any(_asserts(line) for line in cell.source.splitlines())]
    assert not cells, (f"{path.name}: cells {cells} assert; move the checks to "
                       f"tests/notebook_checks/{path.stem}.py")


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
