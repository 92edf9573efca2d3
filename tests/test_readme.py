"""The README's code runs as written (issue 38): the sweep example, as a script in processes
started with ``spawn`` (macOS, Windows), gives replications that vary."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def _python_blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_the_sweep_example_runs_under_spawn_and_its_replications_vary(tmp_path):
    (block,) = [b for b in _python_blocks() if "q.sweep(" in b]
    assert 'if __name__ == "__main__":' in block
    script = tmp_path / "sweep_example.py"
    script.write_text("import multiprocessing\nmultiprocessing.set_start_method('spawn', "
                      "force=True)\n" + block.replace(
                          "    print(df.groupby", "    df.to_csv('out.csv')\n    print(df.groupby"))
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "IdenticalReplicationsWarning" not in out.stderr
    import pandas as pd

    df = pd.read_csv(tmp_path / "out.csv")
    assert len(df) == 15
    spread = df.groupby("n")["goodput_Mbps"].std()
    assert (spread > 0).all(), spread


def _commands():
    """The README's indented shell commands under "Set-up on a fresh machine"."""
    text = README.read_text()
    setup = text[text.index("## Set-up on a fresh machine"):text.index("### Contributor notes")]
    return [line.strip() for line in setup.splitlines() if line.startswith("    pip install")]


def test_the_set_up_is_quick_with_the_warmup_and_the_tests_are_what_ci_runs():
    # issue 38: a set-up a newcomer runs in minutes (the quick form, the compile ahead of it)
    # and a test command that CI runs verbatim
    setup, tests = _commands()
    assert setup == 'pip install -e ".[all]" && qosmodels warmup && qosmodels validate --quick'
    assert tests == 'pip install -e ".[test]" && pytest'
    ci = (README.parent / ".ci" / "run").read_text().splitlines()
    assert ci[-1] == tests
    from qosmodels.cli import _parser

    for part in setup.split(" && ")[1:]:  # every qosmodels command parses as written
        args = _parser().parse_args(part.split()[1:])
        assert args.command in ("warmup", "validate")
    assert args.quick and not args.names


def test_the_second_paragraph_is_short_and_points_to_the_list():
    paragraphs = README.read_text().split("\n\n")
    assert len(paragraphs[2].splitlines()) <= 8, paragraphs[2]
    assert "docs/index.md" in paragraphs[2]
    assert "## The papers' mechanisms in packets" in (
        README.parent / "docs" / "index.md").read_text()
