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
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CHECKS = Path(__file__).resolve().parent / "notebook_checks"
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))

TIMEOUT = 600  # s, per notebook cell and per example
#: s: the longest single wait for a kernel message (see :func:`_waits_in_slices`)
SLICE = 2.0


def _waits_in_slices(get_msg):
    """``get_msg`` of a kernel client's channel, waiting in polls of at most :data:`SLICE`.

    Under load a notebook sometimes stalled for exactly its cell timeout and then passed
    (600 s in CI, with ipykernel 6.31 and 7.4 alike).  Reproduced on 2026-11-27, twice: the
    kernel idle with 2-3 s of CPU since its start, nbclient waiting inside a cell; a
    ``kernel_info_request`` from a second client was answered at once and changed nothing;
    at 600 s the kernel started working again and the notebook passed.  So the reply had
    arrived, and the client slept in one long ``poll`` of its ZMQ socket that missed the
    socket's wake-up; the poll's own timeout ends with a non-blocking ``poll(0)``, which
    found the reply.  Short polls bound such a stall at :data:`SLICE` seconds; the total
    wait, and the timeout, are unchanged.
    """

    async def get_msg_in_slices(timeout=None):
        from queue import Empty

        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = SLICE if deadline is None else min(SLICE, deadline - time.monotonic())
            try:
                return await get_msg(timeout=max(left, 0.0))
            except Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise

    return get_msg_in_slices


def _client_class(nbclient):
    class SlicedWaitClient(nbclient.NotebookClient):
        """nbclient's client whose shell and IOPub waits use :func:`_waits_in_slices`."""

        async def async_start_new_kernel_client(self):
            kc = await super().async_start_new_kernel_client()
            for channel in (kc.shell_channel, kc.iopub_channel):
                channel.get_msg = _waits_in_slices(channel.get_msg)
            return kc

    return SlicedWaitClient


def _quick_env() -> dict[str, str]:
    env = dict(os.environ)
    env["QOSMODELS_QUICK"] = "1"
    env.setdefault("MPLBACKEND", "Agg")  # examples must not open windows
    return env


def test_waits_in_slices():
    import asyncio
    from queue import Empty

    calls = []

    async def late(timeout=None):  # a reply found on the third poll
        calls.append(timeout)
        if len(calls) < 3:
            raise Empty
        return "reply"

    assert asyncio.run(_waits_in_slices(late)(timeout=None)) == "reply"
    assert calls == [SLICE, SLICE, SLICE]

    async def silent(timeout=None):  # no reply: the caller's timeout still holds
        await asyncio.sleep(timeout)
        raise Empty

    start = time.monotonic()
    with pytest.raises(Empty):
        asyncio.run(_waits_in_slices(silent)(timeout=0.3))
    assert 0.29 < time.monotonic() - start < 1.5


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
    client = _client_class(nbclient)(
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
           "10-modern-senders": ["N", "C_Gbps", "RTT_us", "K", "RTT_ms"],
           "11-sender-options": ["N", "timeout_ms"]}


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
