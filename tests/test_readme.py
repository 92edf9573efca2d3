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
