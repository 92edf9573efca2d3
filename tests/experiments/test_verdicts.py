"""Verdicts (reproduced, reachable, known difference, fails), unstated parameters and their
exploration, and the report's summary."""

import json
import math

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.experiments import Bounds, Check, Side, ValidationReport, validate
from qosmodels.experiments import registry as reg
from qosmodels.experiments._explore import settings
from qosmodels.experiments.registry import Unstated, paper_of, register
from qosmodels.experiments.rows import CAUSES, VERDICTS, Known


@pytest.fixture(autouse=True)
def _registered():
    """Import every experiment module before a test swaps the registry for a copy: a module
    first imported while the copy is in place would register into the copy only, and be
    missing from the registry once the test has restored it."""
    reg.experiments()


def row(value, *, known=None, tol=0.1, expected=10.0, **kw):
    return Check("x", "q", expected, source="paper (measured)", packets=Side(value, tol),
                 known=known, **kw)


# ============================================================================ Known
def test_known_rules():
    with pytest.raises(ScenarioError, match=r"Known.cause must be one of .*got 'bad luck'"):
        Known("bad luck", "why", 0.5)
    with pytest.raises(ScenarioError, match=r"Known.note must be a non-empty str"):
        Known("statistical", "  ", 0.5)
    with pytest.raises(ScenarioError, match=r"Known.max_error must be > 0"):
        Known("statistical", "why", 0.0)
    with pytest.raises(ScenarioError, match=r"Known.max_error must be finite"):
        Known("statistical", "why", math.inf)
    with pytest.raises(ScenarioError, match=r"Known.sides must be a non-empty subset"):
        Known("statistical", "why", 0.5, sides=("wind",))
    assert Known("statistical", "why", 0.5, sides="packets").sides == ("packets",)
    with pytest.raises(ScenarioTypeError, match=r"known must be a Known or None"):
        row(10.0, known="unstated parameter")
    with pytest.raises(ScenarioTypeError, match=r"sanity must be a bool"):
        row(10.0, sanity=1)


# ============================================================================ verdicts
def test_verdict_reproduced_within_tolerance():
    assert row(10.5).verdict == "reproduced" and row(10.5).cause is None


def test_verdict_fails_outside_tolerance_without_a_declaration():
    assert row(13.0).verdict == "fails"


def test_verdict_known_difference_while_the_difference_stays_as_declared():
    k = Known("mechanism differs", "the paper's source has no fast recovery", 0.4)
    c = row(13.0, known=k)
    assert c.verdict == "known difference" and c.cause == "mechanism differs"
    # worse than declared: noticed
    assert row(15.0, known=k).verdict == "fails" and row(15.0, known=k).cause is None
    # fixed: reproduced (and the report calls the declaration stale)
    assert row(10.2, known=k).verdict == "reproduced"
    rep = ValidationReport(checks=(row(10.2, known=k), row(13.0, known=k)))
    assert len(rep.stale) == 1 and rep.passed and not rep.ok
    # a declaration about a side that was not computed (--sides) is not stale
    theory_only = Check("x", "q", 10.0, source="closed form", theory=Side(10.0, 0.1),
                        known=Known("statistical", "packets only", 0.5, sides=("packets",)))
    assert not theory_only.stale and row(10.2, known=k).stale


def test_a_side_that_measured_nothing_is_covered_only_when_declared_unmeasured():
    k = Known("mechanism differs", "the conversation is shut out: no RTT sample", 0.3)
    assert row(math.nan, known=k).verdict == "fails"
    assert row(math.inf, known=Known("statistical", "why", 0.3, unmeasured=True)).verdict \
        == "fails"  # an infinite value is a measurement, and far off
    nan_ok = Known("mechanism differs", "no RTT sample in the window", 0.3, unmeasured=True)
    assert row(math.nan, known=nan_ok).verdict == "known difference"
    assert row(14.0, known=nan_ok).verdict == "fails"  # measured, and worse than declared
    with pytest.raises(ScenarioTypeError, match=r"Known.unmeasured must be a bool"):
        Known("statistical", "why", 0.3, unmeasured="yes")


def test_a_declaration_covers_only_its_sides():
    k = Known("unstated parameter", "packets only", 0.5, sides=("packets",))
    both = Check("x", "q", 10.0, source="closed form", theory=Side(13.0, 0.1),
                 packets=Side(13.0, 0.1), known=k)
    assert both.verdict == "fails"  # the theory side is outside and not declared
    only = Check("x", "q", 10.0, source="closed form", theory=Side(10.0, 0.1),
                 packets=Side(13.0, 0.1), known=k)
    assert only.verdict == "known difference"


def test_verdict_reachable_wins_over_known_and_fails():
    c = row(13.0, reachable_at={"buffer": 30}, band=(12.0, 13.0))
    assert c.verdict == "reachable"
    d = json.loads(json.dumps(c.as_dict()))
    assert d["verdict"] == "reachable" and d["reachable_at"] == {"buffer": 30}
    assert d["band"] == [12.0, 13.0] and d["cause"] is None and d["ok"] is False


def test_verdict_with_a_range_reference():
    k = Known("paper inconsistent", "the text says 10-60%, its figure 80%", 0.5)
    assert row(0.7, expected=Bounds(0.1, 0.6), known=k).verdict == "known difference"
    assert row(0.5, expected=Bounds(0.1, 0.6)).verdict == "reproduced"


def test_as_dict_keeps_every_earlier_key_and_adds_the_verdicts():
    d = row(13.0, known=Known("statistical", "one run in the paper", 0.5)).as_dict()
    assert {"experiment", "quantity", "expected", "measured", "tolerance", "ok", "paper",
            "theory", "fluid", "packets", "source", "note", "failing", "method"} <= set(d)
    assert (d["verdict"], d["cause"], d["band"], d["reachable_at"]) == (
        "known difference", "statistical", None, None)
    assert d["known_note"] == "one run in the paper" and d["sanity"] is False
    assert set(VERDICTS) == {"reproduced", "reachable", "known difference", "fails"}
    assert set(CAUSES) == {"unstated parameter", "mechanism differs", "paper inconsistent",
                           "statistical", "short run"}


# ============================================================================ Unstated
def test_unstated_rules():
    with pytest.raises(ScenarioError, match=r"Unstated.name must be an identifier"):
        Unstated("host link", 1.0, (2.0,), "why")
    with pytest.raises(ScenarioError, match=r"values must be one or more values other than the "
                                            r"default 15"):
        Unstated("buffer", 15, (15,), "why")
    with pytest.raises(ScenarioError, match=r"values must be one or more"):
        Unstated("buffer", 15, (), "why")
    with pytest.raises(ScenarioTypeError, match=r"default and values must be real numbers"):
        Unstated("buffer", 15, ("20",), "why")
    with pytest.raises(ScenarioError, match=r"why must say why"):
        Unstated("buffer", 15, (20,), " ")
    u = Unstated("buffer", 15, (30, 10), "the era's gateways", unit="packets")
    assert (u.low, u.high) == (10.0, 30.0)


@pytest.fixture
def toy(monkeypatch):
    """Two toy experiments: one reaching its reference at buffer = 30, one that cannot."""
    monkeypatch.setattr(reg, "_REGISTRY", dict(reg._REGISTRY))
    calls = []

    @register("toy-buffer", title="t", paper="p", sides=("packets",),
              unstated=(Unstated("buffer", 15, (10, 30, 40), "why", unit="packets"),
                        Unstated("gain", 0.5, (1.0,), "why")))
    def toy_buffer(*, sides, quick, params):
        calls.append(dict(params))
        value = 100.0 * params["buffer"] / 30 * (2 * params["gain"])
        return [Check("toy-buffer", "throughput", 100.0, source="paper (measured)",
                      packets=Side(value, 0.05)),
                Check("toy-buffer", "fixed", 1.0, source="paper (measured)",
                      packets=Side(2.0, 0.05), known=Known("paper inconsistent", "why", 1.5)),
                Check("toy-buffer", "fine", 1.0, source="closed form", packets=Side(1.0, 0.05))]

    @register("toy-plain", title="t", paper="p", sides=("theory",))
    def toy_plain(*, sides, quick):
        return [Check("toy-plain", "q", 1.0, source="closed form", theory=Side(3.0, 0.1))]

    return calls


def test_register_refuses_bad_unstated(monkeypatch):
    monkeypatch.setattr(reg, "_REGISTRY", dict(reg._REGISTRY))
    with pytest.raises(ScenarioTypeError, match=r"unstated must hold Unstated"):
        register("y", title="t", paper="p", sides=("theory",), unstated=({"buffer": 15},))
    u = Unstated("buffer", 15, (20,), "why")
    with pytest.raises(ScenarioError, match=r"\['buffer'\] declared twice"):
        register("y", title="t", paper="p", sides=("theory",), unstated=(u, u))


def test_experiment_call_passes_the_defaults_and_refuses_unknown_parameters(toy):
    exp = reg._REGISTRY["toy-buffer"]
    assert exp.defaults == {"buffer": 15, "gain": 0.5}
    exp.call(sides=frozenset({"packets"}), quick=True)
    exp.call(sides=frozenset({"packets"}), quick=True, params={"gain": 1.0})
    assert toy == [{"buffer": 15, "gain": 0.5}, {"buffer": 15, "gain": 1.0}]
    with pytest.raises(ScenarioError, match=r"unknown unstated parameter\(s\) \['delay'\]"):
        exp.call(sides=frozenset({"packets"}), quick=True, params={"delay": 1.0})
    with pytest.raises(ScenarioError, match=r"'toy-plain' declares no unstated parameter"):
        reg._REGISTRY["toy-plain"].call(sides=frozenset({"theory"}), quick=True,
                                        params={"gain": 1.0})
    assert settings(exp) == [{"buffer": 10}, {"buffer": 30}, {"buffer": 40}, {"gain": 1.0}]


def test_a_declaration_for_one_form_is_dropped_from_the_other(monkeypatch):
    # Known.form: a row just inside its tolerance in one form keeps no declaration there
    # (it would be stale), and the other form's row stays a known difference
    monkeypatch.setattr(reg, "_REGISTRY", dict(reg._REGISTRY))
    full_only = Known("statistical", "10.6 in the full form, 10.4 in the quick", 0.1,
                      form="full")

    @register("toy-forms", title="t", paper="p", sides=("packets",))
    def toy_forms(*, sides, quick):
        value = 10.4 if quick else 10.6  # 4 % and 6 % off 10, tolerance 5 %
        return [Check("toy-forms", "x", 10.0, source="closed form", packets=Side(value, 0.05),
                      known=full_only)]

    quick, full = (validate(["toy-forms"], quick=q).checks[0] for q in (True, False))
    assert quick.known is None and quick.verdict == "reproduced" and not quick.stale
    assert full.known is full_only and full.verdict == "known difference"
    assert (full_only.holds_in(False), full_only.holds_in(True)) == (True, False)
    assert Known("statistical", "n", 0.1).holds_in(True)
    with pytest.raises(ScenarioError, match=r"Known.form must be None.*'both'"):
        Known("statistical", "n", 0.1, form="both")


def test_without_explore_nothing_is_reachable(toy):
    rep = validate(["toy-buffer", "toy-plain"])
    v = {c.quantity: c.verdict for c in rep.checks}
    assert v == {"throughput": "fails", "fixed": "known difference", "fine": "reproduced",
                 "q": "fails"}
    assert not rep.passed and not rep.explored and all(c.band is None for c in rep.checks)
    assert len(toy) == 1


def test_explore_marks_the_rows_a_setting_reaches_and_records_bands(toy):
    seen = []
    rep = validate(["toy-buffer", "toy-plain"], explore=True,
                   progress=lambda n, s, rows: seen.append(n))
    c = {c.quantity: c for c in rep.checks}
    # default 50; buffer 10 -> 33.3, 30 -> 100 (reaches), 40 -> 133.3; gain 1 -> 100 (reaches)
    assert c["throughput"].verdict == "reachable"
    assert c["throughput"].reachable_at == {"buffer": 30}  # the first, in declaration order
    assert c["throughput"].band == pytest.approx((100 / 3, 400 / 3))
    # a declared difference that no setting fixes stays known, with its band
    assert c["fixed"].verdict == "known difference" and c["fixed"].band == (2.0, 2.0)
    assert c["fine"].band is None and c["fine"].verdict == "reproduced"
    # an experiment without unstated parameters is not run again
    assert c["q"].verdict == "fails" and c["q"].band is None
    assert seen == ["toy-buffer", "toy-plain", "toy-buffer [buffer=10]",
                    "toy-buffer [buffer=30]", "toy-buffer [buffer=40]", "toy-buffer [gain=1]"]
    assert len(toy) == 5 and rep.explored


def test_jointly_explores_every_combination_and_reaches_what_one_at_a_time_cannot(monkeypatch):
    """A row that needs two parameters off their defaults at once: one-at-a-time runs leave it
    outside, the declared joint group reaches it, and reachable_at names both."""
    monkeypatch.setattr(reg, "_REGISTRY", dict(reg._REGISTRY))
    calls = []

    @register("toy-joint", title="t", paper="p", sides=("packets",),
              unstated=(Unstated("timer", 0.015, (0.05, 0.075), "why", unit="s"),
                        Unstated("quantum", 2, (1, 4), "why", unit="packets")),
              jointly=[("timer", "quantum")])
    def toy_joint(*, sides, quick, params):
        calls.append(dict(params))
        value = 0.95 if (params["timer"], params["quantum"]) == (0.075, 1) else 0.995
        return [Check("toy-joint", "index", 0.95, source="paper (measured)",
                      packets=Side(value, 0.02))]

    exp = reg._REGISTRY["toy-joint"]
    assert exp.jointly == (("timer", "quantum"),)
    assert settings(exp) == [{"timer": 0.05}, {"timer": 0.075}, {"quantum": 1}, {"quantum": 4},
                             {"timer": 0.05, "quantum": 1}, {"timer": 0.05, "quantum": 4},
                             {"timer": 0.075, "quantum": 1}, {"timer": 0.075, "quantum": 4}]
    rep = validate(["toy-joint"], explore=True)
    (c,) = rep.checks
    assert c.verdict == "reachable" and c.reachable_at == {"timer": 0.075, "quantum": 1}
    assert c.band == pytest.approx((0.95, 0.995))
    assert len(calls) == 1 + 8 and calls[-2] == {"timer": 0.075, "quantum": 1}


def test_register_refuses_bad_jointly(monkeypatch):
    monkeypatch.setattr(reg, "_REGISTRY", dict(reg._REGISTRY))
    a = Unstated("timer", 0.015, (0.05,), "why")
    b = Unstated("quantum", 2, (1, 4), "why")
    big = Unstated("buffer", 15, tuple(range(16, 56)), "why")

    def reg_(jointly, unstated=(a, b)):
        register("y", title="t", paper="p", sides=("theory",), unstated=unstated,
                 jointly=jointly)

    with pytest.raises(ScenarioTypeError, match=r"jointly must be groups of parameter names"):
        reg_("timer")
    with pytest.raises(ScenarioTypeError, match=r"a group must be a tuple of parameter names"):
        reg_(["timer"])
    with pytest.raises(ScenarioError, match=r"\['gain'\] not declared unstated"):
        reg_([("timer", "gain")])
    with pytest.raises(ScenarioError, match=r"two or more different parameters"):
        reg_([("timer", "timer")])
    with pytest.raises(ScenarioError, match=r"would run 80 combinations, more than 64"):
        reg_([("buffer", "quantum")], unstated=(a, b, big))
    assert "y" not in reg._REGISTRY


def test_explore_runs_nothing_more_when_every_row_is_within_tolerance(monkeypatch):
    monkeypatch.setattr(reg, "_REGISTRY", dict(reg._REGISTRY))
    calls = []

    @register("toy-fine", title="t", paper="p", sides=("theory",),
              unstated=(Unstated("gain", 0.5, (1.0,), "why"),))
    def fine(*, sides, quick, params):
        calls.append(params)
        return [Check("toy-fine", "q", 1.0, source="closed form", theory=Side(1.0, 0.1))]

    validate(["toy-fine"], explore=True)
    assert len(calls) == 1


# ============================================================================ the report
def test_counts_and_summary_put_sanity_rows_apart(toy):
    rep = validate(["toy-buffer", "toy-plain"])
    rep = ValidationReport(checks=rep.checks + (
        Check("dks-x", "s", 1.0, source="closed form", theory=Side(1.0, 0.1), sanity=True),),
        seconds=rep.seconds)
    by_exp = rep.counts()
    assert by_exp.loc["toy-buffer", ["rows", "reproduced", "known difference", "fails"]].tolist() \
        == [3, 1, 1, 1]
    assert by_exp.loc["dks-x", ["rows", "sanity"]].tolist() == [0, 1]
    by_paper = rep.counts("paper")
    assert set(by_paper.index) == {"textbook", "dks"}
    with pytest.raises(ScenarioError, match=r"by=.*'experiment' or 'paper'"):
        rep.counts("flow")
    text = str(rep)
    first = text.splitlines()
    # the totals first, then the per-experiment table
    assert first[0].startswith("5 rows in ") and "2 fails" in " ".join(first[:3])
    head = first.index("") + 1
    assert first[head].split()[:7] == ["experiment", "rows", "reprod", "reach", "known",
                                       "FAILS", "sanity"]
    assert any(line.startswith("toy-buffer") for line in first[head:head + 5])
    paper_head = next(i for i, line in enumerate(first) if line.startswith("paper"))
    assert first[paper_head].split()[-3:] == ["sanity", "%rep", "%r+r"]
    shares = {line.split()[0]: line.split()[-2:] for line in first[paper_head + 1:paper_head + 3]}
    # textbook: the toys' 4 rows, 1 reproduced and none reachable; dks: its sanity row only
    assert shares == {"Textbook": ["25", "25"], "Fair": ["-", "-"]}
    assert "2 rows fail (outside tolerance, not explained): in toy-buffer, toy-plain" in text
    assert "known difference (paper inconsistent): why" in text
    assert max(len(line) for line in rep.summary(width=90).splitlines()) <= 90


def test_paper_of_groups_experiments_by_prefix():
    assert [paper_of(n) for n in ("dks-table3", "acc-fig9", "pps-table1", "abe-fig2",
                                  "tokenbucket-fairness", "md1", "fluid-reno-red")] == [
        "dks", "acc", "pps", "abe", "tokenbucket", "textbook", "textbook"]
    assert [paper_of(n) for n in ("aqm-pie", "aqm-fqcodel", "aqm-pi-design", "dctcp-sawtooth",
                                  "cubic-response", "netcalc-drr")] == [
        "aqm", "aqm", "aqm", "dctcp", "cubic", "textbook"]


# ============================================================================ executors
def test_explore_gives_the_same_json_on_a_dask_cluster():
    """pps-table2's quick form has rows outside tolerance that its unstated RED thresholds
    reach: the explored report is the same, number for number, serially and on a Dask
    cluster of worker processes."""
    distributed = pytest.importorskip("distributed")  # the test extra installs it
    serial = validate(["pps-table2"], quick=True, explore=True)
    explored = [c for c in serial.checks if c.band is not None]
    assert explored and any(c.verdict == "reachable" for c in explored)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        spread = validate(["pps-table2"], quick=True, explore=True, executor=client)
    assert spread.to_json() == serial.to_json()
