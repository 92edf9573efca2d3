"""The qosmodels command."""

import json
import re
import subprocess
import sys

import pytest

from qosmodels import topologies
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
    assert "dks-fig1" in out and "pps-table3" in out and "fq-fig1" not in out
    # each experiment's unstated parameters: default and the range --explore runs
    assert "unstated: capacity=2e+06 (1e+06-1e+07 bit/s)" in out
    # each topology's parameters, as -p takes them, with defaults (required ones as name=?)
    assert "-p n_links=? capacity=10000000.0 delay=0.01 n_long=1" in out
    assert "n_flows=? n_links=? max_hops=5" in out and "seed=?" in out


def test_a_saved_scenario_runs_as_its_topology_does(tmp_path, capsys):
    from qosmodels import topologies

    path = topologies.parking_lot(3, n_long=2).save(tmp_path / "lot.json")
    assert main(["allocate", "parking-lot", "-p", "n_links=3", "-p", "n_long=2", "--json"]) == 0
    named = json.loads(capsys.readouterr().out)
    assert main(["allocate", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == named
    path = topologies.dumbbell(2).save(tmp_path / "bell.yaml")
    assert main(["simulate", str(path), "--duration", "3", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["flows"]) == 2


def test_simulate_says_which_theory_describes_the_run(tmp_path, capsys):
    from qosmodels import topologies
    from qosmodels.fluid import reno_equilibrium
    from qosmodels.mechanisms import Red

    net = topologies.dumbbell(3).replace_link("r0->r1", queue=Red())
    path = net.save(tmp_path / "red.json")
    assert main(["simulate", str(path), "--duration", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"].startswith("TCP Reno/NewReno over RED: the Reno/RED fluid equilibrium")
    fluid = [f["reno_red_fluid_Mbps"] for f in out["flows"]]
    assert fluid == pytest.approx(reno_equilibrium(net).rates / 1e6)
    assert main(["simulate", "dumbbell", "-p", "n_flows=2", "--duration", "3"]) == 0
    text = capsys.readouterr().out
    assert "Which theory describes it: TCP Reno/NewReno over drop-tail: none of these" in text
    assert "reno_red_fluid_Mbps" not in text


def test_simulate_warns_where_the_theory_does_not_apply(tmp_path, capsys):
    # issue 38: over RED on a 3-link chain the Reno/RED model assumes saturated links; the
    # run leaves them at 80-85% and the output says so, naming the link and what it measured
    import dataclasses

    from qosmodels import topologies
    from qosmodels.mechanisms import FairQueueing, GenericWindow, Red

    chain = topologies.parking_lot(3)
    chain = chain.replace(links=[dataclasses.replace(link, queue=Red()) for link in chain.links])
    path = chain.save(tmp_path / "red-chain.json")
    assert main(["simulate", str(path), "--duration", "30", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    saturated = [w for w in out["warnings"] if "assumes link" in w]
    assert saturated and all("reno_red_fluid_Mbps" in w and "utilisation" in w
                             for w in saturated)
    util = {link["link"]: link["utilisation"] for link in out["links"]}
    for w in saturated:
        name = re.search(r"link '([^']+)'", w).group(1)
        assert util[name] < 0.9 and f"{util[name]:.0%}" in w
    assert main(["simulate", str(path), "--duration", "30"]) == 0
    assert "Warning: reno_red_fluid_Mbps assumes link" in capsys.readouterr().out
    # fair queueing on a dumbbell of greedy flows: its bottleneck is saturated, no warning
    fq = topologies.dumbbell(3)
    fq = fq.replace(links=[dataclasses.replace(link, queue=FairQueueing())
                           for link in fq.links],
                    flows=[dataclasses.replace(f, source=GenericWindow(window=20))
                           for f in fq.flows])
    path = fq.save(tmp_path / "fq.json")
    assert main(["simulate", str(path), "--duration", "10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"].startswith("fair queueing at every link: max-min")
    assert out["warnings"] == []


def test_simulate_takes_a_queue_and_a_source(capsys):
    assert main(["simulate", "dumbbell", "-p", "n_flows=2", "--duration", "5", "--queue",
                 "FairQueueing", "--source", "TcpTahoe", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {f["source"] for f in out["flows"]} == {"tahoe"}
    assert {link["queue"] for link in out["links"]} == {"fq"}
    assert main(["simulate", "dumbbell", "-p", "n_flows=2", "--queue", "Nope"]) == 2
    err = capsys.readouterr().err
    assert "no queue named 'Nope'; choose one of" in err and "FairQueueing" in err
    assert main(["simulate", "dumbbell", "-p", "n_flows=2", "--source", "Red"]) == 2
    assert "no source named 'Red'" in capsys.readouterr().err


def test_warmup_readies_both_kernels(capsys):
    assert main(["warmup"]) == 0
    out = capsys.readouterr().out
    assert "packet kernel ready" in out and "fluid kernel ready" in out


def test_validate_jobs_gives_the_serial_report(capsys):
    names = ["parking-lot-maxmin", "tokenbucket-window-increase", "abe-eq5"]
    assert main(["validate", *names, "--json"]) == 0
    serial = json.loads(capsys.readouterr().out)
    assert main(["validate", *names, "--json", "--jobs", "2"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out) == serial and len(serial) > 10
    assert sorted(re.findall(r"validate: ([\w-]+):", out.err)) == sorted(names)


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
    # (acc-fig9's packet rows fail at some N: the theory and fluid sides pass)
    assert main(["validate", "parking-lot-maxmin", "acc-fig9", "--json",
                 "--sides", "theory,fluid"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all({"experiment", "quantity", "expected", "measured", "tolerance", "ok",
                         "paper", "theory", "fluid", "packets", "source", "note",
                         "theory_tolerance", "fluid_tolerance", "packets_ci"} <= set(r)
                        for r in rows)
    assert all(r["ok"] for r in rows)
    fig9 = [r for r in rows if r["experiment"] == "acc-fig9"]
    # (at N = 5 the reference is the paper's measurement, 12 and 65 Mb/s)
    assert all(isinstance(r["theory"], float) and isinstance(r["fluid"], float)
               and r["packets"] is None
               and r["source"] == ("paper (measured)" if r["quantity"].endswith("N=5")
                                   else "paper (stated)") for r in fig9)
    assert all(r["measured"] == r["fluid"] for r in fig9)  # the most physical side present


def test_validate_table_and_progress_lines(capsys):
    # (the pps tables' packet rows fail against the paper's measured rates)
    assert main(["validate", "parking-lot-maxmin", "pps-table3", "--sides", "theory"]) == 0
    cap = capsys.readouterr()
    lines = cap.err.splitlines()
    assert lines[0].startswith("qosmodels validate: 2 experiments, the full form")
    # each experiment's line of the summary as it finishes: rows and their verdicts
    assert lines[1].startswith("qosmodels validate: parking-lot-maxmin: ")
    assert lines[1].endswith(" s, 8 rows: 8 reproduced")
    assert lines[2].startswith("qosmodels validate: pps-table3: ")
    assert "2 experiments in" in lines[3]
    out = cap.out.splitlines()
    # the summary first: the totals, then one line per experiment, then per paper
    assert re.match(r"\d+ rows in 2 experiments: \d+ reproduced, \d+ reachable, ", out[0])
    k = out.index("") + 1  # (the totals wrap at the terminal's width)
    assert out[k].split() == ["experiment", "rows", "reprod", "reach", "known", "FAILS",
                              "sanity", "s"]
    assert out[k + 1].startswith("parking-lot-maxmin") and out[k + 2].startswith("pps-table3")
    head = next(line.split() for line in out if line.strip().startswith("quantity"))
    assert head == ["quantity", "paper", "theory", "expected", "source", "tol", "verdict"]
    assert "all within tolerance" in cap.out and max(map(len, out)) <= 120


def test_validate_sides_option_and_failing_rows_exit_1(monkeypatch, capsys):
    from qosmodels.experiments import Check, Side, experiments, register
    from qosmodels.experiments import registry as reg

    experiments()  # the registered experiments loaded before the registry is copied
    monkeypatch.setattr(reg, "_REGISTRY", dict(reg._REGISTRY))

    @register("x-failing", title="t", paper="p", sides=("theory", "fluid"))
    def failing(*, sides, quick):
        return [Check("x-failing", "q", 1.0, source="closed form", note="why",
                      theory=Side(1.5, 0.1) if "theory" in sides else None,
                      fluid=Side(1.0, 0.1) if "fluid" in sides else None)]

    assert main(["validate", "x-failing", "--sides", "theory", "--json"]) == 1
    rows = json.loads(capsys.readouterr().out)
    assert [(r["verdict"], r["fluid"], r["theory"]) for r in rows] == [("fails", None, 1.5)]
    assert main(["validate", "x-failing", "--sides", "theory"]) == 1
    out = capsys.readouterr().out
    head = next(line for line in out.splitlines() if line.strip().startswith("quantity"))
    assert "FAIL t" in out and "1 outside tolerance" in out and "fluid" not in head
    assert main(["validate", "x-failing", "--sides", "fluid"]) == 0
    capsys.readouterr()
    # eq (12), acc-fig4's theory side, misses the paper at 35 and 45 Mb/s: a known
    # difference (the model's queues only at saturated links), so the exit is 0
    assert main(["validate", "acc-fig4", "--sides", "theory", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert all(r["fluid"] is None and r["theory"] is not None for r in rows)
    out = {r["quantity"]: r for r in rows if not r["ok"]}
    assert set(out) == {"Vegas forward utilisation, c_r=35 Mb/s",
                        "Vegas forward utilisation, c_r=45 Mb/s"}
    assert all(r["verdict"] == "known difference" and r["cause"] == "mechanism differs"
               and r["expected"] is None and r["expected_range"] == [0.1, 0.6] and r["note"]
               for r in out.values())
    assert {r["verdict"] for r in rows if r["ok"]} == {"reproduced"}


def test_validate_passes_quick_and_sides(monkeypatch, capsys):
    import qosmodels.experiments as ex
    from qosmodels.experiments import ValidationReport

    seen = {}

    def fake_validate(names, **kw):
        seen.update(names=names, **kw)
        return ValidationReport(checks=())

    monkeypatch.setattr(ex, "validate", fake_validate)
    assert main(["validate", "md1", "--quick", "--sides", "packets,theory"]) == 0
    assert seen["names"] == ["md1"] and seen["quick"] is True
    assert seen["sides"] == "packets,theory" and callable(seen["progress"])
    assert main(["validate"]) == 0
    assert seen["names"] is None and seen["quick"] is False and seen["sides"] is None
    assert seen["explore"] is False and seen["executor"] is None
    assert main(["validate", "md1", "--explore", "--executor", "process"]) == 0
    assert seen["explore"] is True
    assert type(seen["executor"]).__name__ == "ProcessPoolExecutor"


def test_validate_exit_status_follows_the_verdicts(monkeypatch, capsys):
    import qosmodels.experiments as ex
    from qosmodels.experiments import Check, Known, Side, ValidationReport

    bad = Check("x", "q", 1.0, source="closed form", theory=Side(2.0, 0.1))
    known = Check("x", "k", 1.0, source="closed form", theory=Side(2.0, 0.1),
                  known=Known("paper inconsistent", "the table contradicts the text", 1.5))
    for rows, status in (((known,), 0), ((known, bad), 1)):
        monkeypatch.setattr(ex, "validate", lambda names, rows=rows, **kw:
                            ValidationReport(checks=rows, seconds={"x": 0.1}))
        assert main(["validate", "md1", "--sides", "theory"]) == status
        out = capsys.readouterr().out.splitlines()
        head = out.index("") + 1  # (after the totals)
        assert out[head + 1].split()[:6] == ["x", str(len(rows)), "0", "0", "1", str(status)]


def test_validate_usage_errors_exit_2(capsys):
    assert main(["validate", "md1", "--executor", "cloud"]) == 2
    assert "invalid choice: 'cloud'" in capsys.readouterr().err
    assert main(["validate", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown experiment(s) nope" in err and len(err.strip().splitlines()) == 1
    assert main(["validate", "md1", "--sides", "theory,wind"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("qosmodels: error: validate(sides=...): unknown side 'wind'; sides are "
                           "theory, fluid, packets")
    assert main(["validate", "md1", "--sides", ""]) == 2
    assert "no side given" in capsys.readouterr().err


def test_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "qosmodels.cli", "validate", "acc-fig9",
                          "--sides", "theory,fluid"], capture_output=True, text=True)
    assert out.returncode == 0 and "all within tolerance" in out.stdout
    assert "qosmodels validate: acc-fig9: " in out.stderr and "Traceback" not in out.stderr
    bad = subprocess.run([sys.executable, "-m", "qosmodels.cli", "validate", "--sides", "x"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "unknown side 'x'" in bad.stderr


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


# --------------------------------------------------------------------------- bad arguments
@pytest.fixture
def no_simulator(monkeypatch):
    """Fail loudly if a test reaches the packet simulator (its kernel takes minutes to compile)."""
    import qosmodels.cli as cli

    def refuse(*args, **kw):
        raise AssertionError("the simulator was reached: arguments should be refused before it")

    monkeypatch.setattr(cli, "_run_simulation", refuse)


BAD = [
    ([], r"^qosmodels: error: the following arguments are required: COMMAND"),
    (["bogus"], r"^qosmodels: error: argument COMMAND: invalid choice: 'bogus'"),
    (["list", "extra"], r"unrecognized arguments: extra"),
    (["allocate"], r"^qosmodels allocate: error: the following arguments are required: topology"),
    (["allocate", "nope"], r"unknown topology 'nope'; registered topologies are"),
    # the reported example: a numpy traceback before
    (["allocate", "random", "-p", "n_flows=3", "-p", "n_links=4", "-p", "seed=-1"],
     r"random_network\.seed must be a non-negative int, .* got the negative integer -1$"),
    (["allocate", "random", "-p", "n_flows=3", "-p", "n_links=4", "-p", "seed=1.5"],
     r"random_network\.seed must be a non-negative int, .* got 1\.5; pass seed=0"),
    (["allocate", "random", "-p", "n_flows=3", "-p", "n_links=10**9", "-p", "seed=0"],
     r"random_network\.n_links must be an integer, got '10\*\*9'"),
    (["allocate", "random", "-p", "n_flows=3", "-p", "n_links=1e12", "-p", "seed=0"],
     r"random_network would need about .* n_links=1000000000000"),
    (["allocate", "random", "-p", "n_flows=3"],
     r"missing a required argument: 'n_links' \(give it with -p\)"),
    (["allocate", "random", "-p", "n_flows=3", "-p", "n_links=4"],
     r"missing a required argument: 'seed' \(give it with -p\)"),
    (["allocate", "parking-lot", "-p", "n_links"], r"argument -p/--param: parameter 'n_links' "
                                                  r"must be key=value"),
    (["allocate", "parking-lot", "-p", "=3"], r"must be key=value with a parameter name as key"),
    (["allocate", "parking-lot", "-p", "n_links=2", "-p", "n_links=3"],
     r"n_links is given twice"),
    (["allocate", "parking-lot", "-p", "n_links=2", "-p", "nlinks=3"],
     r"bad parameter for topology 'parking-lot': it takes no parameter 'nlinks'; its "
     r"parameters are n_links, "),
    (["allocate", "parking-lot", "-p", "n_links=abc"], r"parking_lot\.n_links must be an integer"),
    (["allocate", "parking-lot", "-p", "n_links=-1"], r"parking_lot\.n_links must be >= 1"),
    (["allocate", "parking-lot", "-p", "n_links=2.5"], r"parking_lot\.n_links must be a whole"),
    (["allocate", "parking-lot", "-p", "n_links=nan"], r"parking_lot\.n_links must be an integer"),
    (["allocate", "parking-lot", "-p", "n_links=1e400"], r"parking_lot\.n_links must be finite"),
    (["allocate", "parking-lot", "-p", "n_links=2", "-p", "capacity=-5"],
     r"parking_lot\.capacity must be > 0"),
    (["allocate", "parking-lot", "-p", "n_links=2", "-p", "capacity=" + "(" * 300 + "1"],
     r"parking_lot\.capacity must be a real number"),
    (["allocate", "parking-lot", "-p", "n_links=2", "-p", "buffer=18446744073709551616"],
     r"parking_lot\.buffer must be <= 1000000000"),
    (["allocate", "dumbbell", "-p", "n_flows=2", "-p", "reverse=yes"],
     r"dumbbell\.reverse must be True or False"),
    (["allocate", "parking-lot", "-p", "n_links=2", "--fairness", "alpha", "--alpha", "-1"],
     r"^qosmodels allocate: error: argument --alpha: must be > 0, got '-1'"),
    (["allocate", "parking-lot", "-p", "n_links=2", "--fairness", "alpha", "--alpha", "nan"],
     r"argument --alpha: must be finite, got 'nan'"),
    (["allocate", "parking-lot", "-p", "n_links=2", "--fairness", "alpha", "--alpha", "inf"],
     r"argument --alpha: must be finite, got 'inf'"),
    (["allocate", "parking-lot", "-p", "n_links=2", "--fairness", "alpha", "--alpha", "x"],
     r"argument --alpha: must be a number, got 'x'"),
    (["allocate", "parking-lot", "-p", "n_links=2", "--fairness", "alpha", "--alpha", "1e-9"],
     r"alpha=1e-09 is below 0\.02"),
    (["allocate", "parking-lot", "-p", "n_links=2", "--fairness", "maxmin", "--alpha", "2"],
     r"alpha applies to fairness='alpha' only"),
    (["allocate", "parking-lot", "-p", "n_links=2", "--fairness", "bogus"],
     r"argument --fairness: invalid choice: 'bogus'"),
    (["allocate", "parking-lot", "-p", "n_links=2", "--solver", "bogus"],
     r"argument --solver: invalid choice: 'bogus'"),
    (["allocate", "parking-lot", "-p", "n_links=2", "--fairness", "maxmin", "--solver", "cvxpy"],
     r"max-min fairness is computed exactly"),
    (["simulate", "nope"], r"unknown topology 'nope'"),
    (["simulate", "dumbbell", "-p", "n_flows=2", "--duration", "-1"],
     r"^qosmodels simulate: error: argument --duration: must be > 0, got '-1'"),
    (["simulate", "dumbbell", "-p", "n_flows=2", "--duration", "nan"],
     r"argument --duration: must be finite"),
    (["simulate", "dumbbell", "-p", "n_flows=2", "--duration", "inf"],
     r"argument --duration: must be finite"),
    (["simulate", "dumbbell", "-p", "n_flows=2", "--duration", "5", "--warmup", "5"],
     r"simulate\.warmup must be shorter than duration = 5\.0 s, got 5\.0"),
    (["simulate", "dumbbell", "-p", "n_flows=2", "--warmup", "-1"],
     r"argument --warmup: must be >= 0"),
    (["simulate", "dumbbell", "-p", "n_flows=2", "--seed", "-1"], r"argument --seed: must be >= 0"),
    (["simulate", "dumbbell", "-p", "n_flows=2", "--seed", "1.5"],
     r"argument --seed: must be an integer"),
    (["simulate", "dumbbell", "-p", "bogus=2"], r"it takes no parameter 'bogus'"),
    (["simulate", "dumbbell", "-p", "n_flows=10**12"], r"dumbbell\.n_flows must be an integer"),
    (["simulate", "dumbbell", "-p", "n_flows=1e12"], r"dumbbell would need about .* n_flows="),
    (["validate", "--bogus"], r"unrecognized arguments: --bogus"),
    (["simulate", "/nonexistent/scenario.json"], r"no scenario file '/nonexistent/scenario.json'"),
    (["allocate", "/nonexistent/scenario.yaml", "-p", "n=2"],
     r"-p sets a registered topology's parameters; a scenario file"),
    (["validate", "--jobs", "0"], r"argument --jobs: must be >= 1, got '0'"),
    (["validate", "--jobs", "two"], r"argument --jobs: must be an integer"),
    (["validate", "nope", "--jobs", "2"], r"unknown experiment\(s\) nope"),
]


@pytest.mark.parametrize("argv,match", BAD, ids=[" ".join(a)[:60] or "(none)" for a, _ in BAD])
def test_bad_arguments_give_one_line_and_exit_2(no_simulator, capsys, argv, match):
    assert main(argv) == 2
    cap = capsys.readouterr()
    err = cap.err
    assert cap.out == "" and err.endswith("\n") and len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    assert re.search(match, err), err


def test_internal_errors_stay_visible(monkeypatch):
    import qosmodels.cli as cli

    def bug(args):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(cli, "_allocate", bug)
    with pytest.raises(ZeroDivisionError):
        main(["allocate", "parking-lot", "-p", "n_links=2"])


def test_version_exits_0(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith("qosmodels ")


def test_python_dash_m_qosmodels_runs_the_same_command():
    ok = subprocess.run([sys.executable, "-m", "qosmodels", "allocate", "parking-lot", "-p",
                         "n_links=3", "--fairness", "maxmin"], capture_output=True, text=True)
    assert ok.returncode == 0 and "long0" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "qosmodels", "allocate", "random", "-p",
                          "n_flows=3", "-p", "n_links=4", "-p", "seed=-1"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == ("qosmodels: error: random_network.seed must be a non-negative int, a "
                          "numpy SeedSequence or Generator, got the negative integer -1\n")


def test_warmup_of_a_topology_compiles_only_what_it_needs(capsys, tmp_path, monkeypatch):
    # the network's variant is made ready even though the whole kernel is ready in the test
    # session (the network's runs then take the variant, which runs faster); the line names it
    from qosmodels.sim import _variant as V

    monkeypatch.setenv(V.CACHE_ENV, str(tmp_path))
    net = topologies.dumbbell(2)
    assert main(["warmup", "dumbbell", "-p", "n_flows=2"]) == 0
    out = capsys.readouterr().out
    assert "packet kernel for dumbbell's mechanisms ready" in out and "fluid kernel ready" in out
    assert V.variant_ready(V.kernels_of(net) | V.CORE)


def test_validate_plot_draws_the_report_and_refuses_a_bad_file_before_running(
        monkeypatch, capsys, tmp_path):
    import qosmodels.experiments as ex
    from qosmodels.experiments import Check, Known, Side, ValidationReport

    known = Check("x", "k", 1.0, source="closed form", theory=Side(2.0, 0.1),
                  known=Known("paper inconsistent", "the table contradicts the text", 1.5))
    ok = Check("x", "q", 1.0, source="closed form", theory=Side(1.0, 0.1))
    ran = []

    def fake_validate(names, **kw):
        ran.append(names)
        return ValidationReport(checks=(ok, known), seconds={"x": 0.1})

    monkeypatch.setattr(ex, "validate", fake_validate)
    for suffix in ("png", "svg", "pdf"):
        out = tmp_path / f"report.{suffix}"
        assert main(["validate", "md1", "--sides", "theory", "--plot", str(out)]) == 0
        assert f"the report is drawn in {out}" in capsys.readouterr().err
        head = out.read_bytes()[:8]
        assert {"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}[suffix] in head
    assert len(ran) == 3
    # a format Matplotlib does not write, or a folder that does not exist: exit 2, one line,
    # before any experiment runs, and no file
    for bad, why in ((tmp_path / "report.xyz", "must name a format Matplotlib writes"),
                     (tmp_path / "report", "must name a format Matplotlib writes"),
                     (tmp_path / "nowhere" / "report.png", "no folder")):
        assert main(["validate", "md1", "--sides", "theory", "--plot", str(bad)]) == 2
        err = capsys.readouterr().err
        assert why in err and len(err.strip().splitlines()) == 1
        assert not bad.exists()
    assert len(ran) == 3
