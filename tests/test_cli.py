"""The qosmodels command."""

import json
import subprocess
import sys

import pytest

from qosmodels.cli import main


def test_help_and_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    assert "validate" in capsys.readouterr().out


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "acc-fig9" in out and "parking-lot" in out and "pps-one-hop" in out


def test_allocate_table(capsys):
    assert main(["allocate", "parking-lot", "-p", "n_links=3", "--fairness", "maxmin"]) == 0
    out = capsys.readouterr().out
    assert "long0" in out and "5.0" in out and "r0->r1" in out


def test_allocate_json(capsys):
    assert main(["allocate", "acc-linear", "-p", "n_bottlenecks=5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["flows"][0]["rate_bps"] == pytest.approx(12.5e6)


def test_allocate_errors_exit_2(capsys):
    assert main(["allocate", "nope"]) == 2
    assert "unknown topology" in capsys.readouterr().err
    assert main(["allocate", "parking-lot", "-p", "bogus=1"]) == 2
    assert "bad parameter" in capsys.readouterr().err
    assert main(["allocate", "parking-lot", "-p", "n_links=2", "--fairness", "alpha"]) == 2
    assert "needs alpha" in capsys.readouterr().err


def test_validate_json_fields(capsys):
    assert main(["validate", "parking-lot-maxmin", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all({"experiment", "quantity", "expected", "measured", "tolerance", "ok"}
                        <= set(r) for r in rows)
    assert all(r["ok"] for r in rows)


def test_validate_unknown_exits_2(capsys):
    assert main(["validate", "nope"]) == 2


def test_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "qosmodels.cli", "validate", "acc-fig9"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and "all within tolerance" in out.stdout


def test_simulate_table_and_json(capsys):
    assert main(["simulate", "dumbbell", "-p", "n_flows=2", "--duration", "5"]) == 0
    out = capsys.readouterr().out
    assert "goodput_Mbps" in out and "maxmin_Mbps" in out and "r0->r1" in out
    assert main(["simulate", "dumbbell", "-p", "n_flows=2", "--duration", "5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["flows"]) == 2
    # packets never beat the link: the two goodputs fit in the 10 Mb/s bottleneck
    assert sum(f["goodput_Mbps"] for f in data["flows"]) <= 10.0 + 1e-9
    assert main(["simulate", "dumbbell", "-p", "n_flows=1", "--duration", "5", "--warmup", "5"]) == 2
    assert "warmup must be shorter than duration" in capsys.readouterr().err
