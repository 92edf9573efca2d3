"""The public API is typed: ``py.typed`` ships, and a user's script passes ``mypy --strict``.

``tests/typecheck/user_script.py`` builds a network with mechanisms and an
aggregate, allocates, solves the fluid model, simulates, replicates, sweeps
on a process pool, saves and loads, and plots.  mypy checks it against
qosmodels' annotations (errors inside qosmodels itself are not reported,
as for an installed package); a deliberately wrong copy must fail, so the
check is not vacuous.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "typecheck" / "user_script.py"

pytest.importorskip("mypy")


def mypy(path: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, MYPYPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                           "--cache-dir", str(tmp_path / ".mypy_cache"), str(path)],
                          capture_output=True, text=True, env=env, cwd=tmp_path)


def test_py_typed_ships_with_the_package():
    import qosmodels

    assert (Path(qosmodels.__file__).parent / "py.typed").is_file()
    assert 'qosmodels = ["py.typed"]' in (ROOT / "pyproject.toml").read_text()


def test_a_user_script_passes_mypy_strict(tmp_path):
    out = mypy(SCRIPT, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found" in out.stdout


def test_mypy_finds_the_installed_package(tmp_path):
    # issue 38: after `pip install -e .` mypy reported 'Cannot find implementation or library
    # stub for module named "qosmodels"': setuptools installed the package through an import
    # hook that mypy does not run.  pyproject's package-dir makes it a static .pth.  Here mypy
    # looks for qosmodels as a user's would: no MYPYPATH, no PYTHONPATH, outside the clone.
    assert 'package-dir = { "" = "." }' in (ROOT / "pyproject.toml").read_text()
    script = tmp_path / "uses_qosmodels.py"
    script.write_text("import qosmodels\n\nrate: int = qosmodels.Mbps(1)\n")
    env = {k: v for k, v in os.environ.items() if k not in ("MYPYPATH", "PYTHONPATH")}
    out = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental",
                          "--follow-imports=silent", str(script)],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert "import-not-found" not in out.stdout, (
        out.stdout + "\nmypy does not find the installed qosmodels: an editable install made "
        "before pyproject's package-dir uses an import hook; reinstall with pip install -e .")
    # found, and checked against its annotations (Mbps returns a float)
    assert 'expression has type "float", variable has type "int"' in out.stdout, out.stdout


def test_mypy_catches_a_wrong_call(tmp_path):
    bad = tmp_path / "bad.py"
    text = SCRIPT.read_text()
    assert "res = q.simulate(net, 5.0, seed=0)" in text
    bad.write_text(text.replace("res = q.simulate(net, 5.0, seed=0)",
                                'res = q.simulate(net, "5 s", seed=0)'))
    out = mypy(bad, tmp_path)
    assert out.returncode == 1
    assert 'Argument 2 to "simulate" has incompatible type "str"; expected "float"' in out.stdout
    shutil.rmtree(tmp_path / ".mypy_cache", ignore_errors=True)
