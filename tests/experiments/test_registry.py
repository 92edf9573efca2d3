"""The experiments registry, its rows (Check, Side, Bounds) and every experiment in quick form."""

import json
import math
import re

import pytest

from qosmodels import ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.experiments import (
    SIDES,
    SOURCES,
    Bounds,
    Check,
    Side,
    ValidationReport,
    experiments,
    register,
    validate,
)
from qosmodels.experiments import registry as reg

from .quick_runs import validate_quick

#: Every registered experiment, by the names later work relies on.
NAMES = {
    "dks-fig1", "dks-ap", "acc-fig2", "acc-fig4", "acc-fig5", "acc-fig6", "acc-fig9", "acc-fig10",
    "acc-fig11", "acc-fig9-paper",
    "abe-eq5", "abe-limits", "abe-control-loop",
    "abe-fig2", "abe-fig3", "abe-fig6", "abe-fig7", "abe-fig8",
    "pps-table1", "pps-table2", "pps-table3", "pps-table4", "pps-table5",
    "pps-table6", "pps-table7", "pps-table8", "pps-table9",
    "pps-fig5", "pps-fig7", "pps-fig8", "pps-fig11", "pps-udp", "calibrated-pps",
    "tokenbucket-window-increase", "tokenbucket-conformance", "tokenbucket-fairness",
    "netcalc-tokenbucket", "netcalc-pgps", "netcalc-drr", "dctcp-sawtooth", "dctcp-fluid",
    "cubic-response", "bbr-share",
    "aqm-pi-design",
    "aqm-fqcodel", "aqm-pie", "aqm-codel", "aqm-mgt",
    "aqm-dualpi2", "l4s-coexistence", "l4s-rtt-independence",
    "md1", "parking-lot-proportional", "parking-lot-maxmin", "fluid-reno-red",
    "dks-table2", "dks-table3", "dks-table4", "dks-table5", "dks-table6", "dks-table7",
}

#: The rows that fail against honest references, (experiment, quantity).  A fix or a
#: regression changes this set.  (The dks-table rows' failures are listed in
#: test_dks_tables.py, tokenbucket-fairness's in test_tokenbucket_fairness.py, the
#: pps-table rows' in test_pps_tables.py, pps-fig rows' in test_pps_figures.py, the abe-fig
#: rows' in test_abe_figures.py, dctcp-sawtooth's in test_dctcp_experiment.py,
#: cubic-response's in test_cubic_experiment.py, aqm-mgt's in test_aqm_mgt.py,
#: bbr-share's in test_bbr_experiment.py, acc-fig9-paper's in test_acc_fig9_paper.py.)
FAILING = {
    # CoDel's standing delay above its 5 ms target with 20 and 50 NewReno flows at 10 Mb/s
    # (11.8 and 21.3 ms in the quick form); not explained, reported as failing
    ("aqm-codel", "standing queueing delay, N = 20"),
    ("aqm-codel", "standing queueing delay, N = 50"),
    # the PI design rule with the crossover at the cancelled pole (w_g unstated): K_PI and the
    # discrete gains 1.7 % above the printed ones (reachable at w_g = 0.52 rad/s)
    ("aqm-pi-design", "PI discrete gain a at 170 Hz"),
    ("aqm-pi-design", "PI discrete gain b at 170 Hz"),
    # RED with ns-2's w_q under Floyd's spacing: the packets' queue oscillates (1.4 s) on
    # both sides of the linear model's boundary N* = 68 (reachable with ns-2's spacing or
    # independent drops for the stable points); N = 45's coherence 0.18 over the quick
    # form's 60 s (0.32 in the full form)
    *(("aqm-pi-design", f"RED ns-2's w_q, N = {n} ({s}, gain margin {g}): packets' queue "
                        f"oscillation")
      for n, s, g in ((45, "unstable", "0.67"), (90, "stable", "1.29"),
                      (150, "stable", "1.89"))),
    # eq (12) and the fluid model assume queues only at saturated links (Vegas above the
    # paper's 10%-60%); the packets' bursty two-way queues side with the paper at 35 Mb/s
    ("acc-fig4", "Vegas forward utilisation, c_r=35 Mb/s"),
    ("acc-fig4", "Vegas forward utilisation, c_r=45 Mb/s"),
    ("acc-fig4", "Monaco forward utilisation, c_r=35 Mb/s"),
    # ACC in packets (kappa 0.5; Monaco where the paper ran it): one deterministic run
    # settles at one phase of Monaco's once-per-control-period sample against the packet
    # time, so the rows that turn on it are means over offsets of the unstated delay; the
    # parking lot's rates are then within 3%, the MW law's queue (8.41 +- 0.28) not within
    # 5%; Monaco below 100% under moderate reverse congestion with the 1000-packet
    # reverse buffer (reachable with 50 packets)
    ("acc-fig2", "MW total queue"),
    ("acc-fig4", "Monaco forward utilisation, c_r=15 Mb/s"),
    ("acc-fig4", "Monaco forward utilisation, c_r=25 Mb/s"),
    # Figure 9's long flows below 100/(3+N): the ACK-sized in-band control packet's bias in
    # a chain of congested links (control_size, unstated; N = 5 takes the paper's measured
    # 12 and 65 Mb/s as reference and passes)
    *(("acc-fig9", f"long-flow rate, N={n}") for n in (4, 6, 7, 8, 9)),
    # (Figure 6's queue rows count the data packets waiting by Little's law since issue 31,
    # and Figure 7's utilisation is the link's busy time.)  With the paper's control-pair
    # timing (issue 32) the five flows of 45-50 s hold 2.62 packets each over offsets of the
    # access delay (their 40-byte in-band packet trails their data over the 10 Mb/s access
    # link), and eq (10) at kappa 0.5 swings over Figure 7's 55 packets and Figure 8's AVD
    # bottleneck: losses, timeouts and a link below the paper's 100% and 98%
    ("acc-fig6", "90 pkts: queue, 45-50 s"),
    ("acc-fig6", "55 pkts: utilisation 20-30 s"),
    # the same with the text's loss response only (timeout_halves=False, issue 32): 0.909
    ("acc-fig6", "55 pkts, loss from the echo only: utilisation 20-30 s"),
    ("acc-fig6", "AVD: utilisation 0-50 s"),
    # (issue 31's added rows) Figure 8's "without oscillation": the AVD bottleneck overflows
    # and losses halve windows (C.O.V. 0.50 > 5%);
    # Figure 9(f)'s ~10 s transient: 3 s with one RTT for the long flows (long_rtt_spread)
    ("acc-fig6", "AVD: largest throughput C.O.V. (0.5-s means)"),
    ("acc-fig9", "N=5 mixed: long flows' transient"),
    # Figure 5 in packets: one flow holds 2.74 +- 0.27 packets over the phase, and
    # with the delay jump in both directions its window needs about 7 s, not the paper's 3 s
    ("acc-fig5", "Monaco queue after recovery"),
    ("acc-fig5", "Monaco transient after the jump"),
    # Figure 9: the long flows share one RTT here (the paper's differ, unstated), so their
    # coefficient of variation stays under 1%, below the paper's 2%-5%
    *(("acc-fig9", f"long-flow C.O.V., N={n}") for n in range(2, 10)),
    # Figure 10, 40-50 s: the theory and the fluid leave out the web traffic (100/7 = 14.3
    # against the paper's measured 13); the packets, with web traffic, 13.73
    ("acc-fig10", "long1 rate, 40-50 s"),
}


@pytest.fixture(scope="module")
def quick_report():
    """Every experiment, quick form, with the progress calls recorded (the runs the other
    modules made already are not made again: ``quick_runs``)."""
    calls = []
    report = validate_quick(progress=lambda name, s, rows: calls.append((name, s, rows)))
    return report, calls


def row(report, experiment, quantity):
    (c,) = [c for c in report.checks if c.experiment == experiment and c.quantity == quantity]
    return c


# ============================================================================ registry
def test_registered_experiments_are_the_papers_names():
    assert set(experiments()) == NAMES
    for e in experiments().values():
        assert set(e.sides) <= set(SIDES) and e.title and e.paper


def test_register_rejects_an_unknown_side():
    with pytest.raises(ScenarioError, match=r"register\('x'\): unknown side 'wind'"):
        register("x", title="t", paper="p", sides=("theory", "wind"))
    with pytest.raises(ScenarioError, match=r"no side given"):
        register("x", title="t", paper="p", sides=())


def test_register_twice_is_an_error(monkeypatch):
    experiments()  # the registry loaded (the test must not depend on another having loaded it)
    monkeypatch.setattr(reg, "_REGISTRY", dict(reg._REGISTRY))
    with pytest.raises(RuntimeError, match="'md1' is registered twice"):
        register("md1", title="t", paper="p", sides=("packets",))(lambda **kw: [])


# ============================================================================ Side, Bounds, Check
def test_side_rules():
    with pytest.raises(ScenarioTypeError, match=r"Side.value must be a real number, got '1'"):
        Side("1", 0.1)
    with pytest.raises(ScenarioError, match=r"Side.tolerance must be >= 0"):
        Side(1.0, -0.1)
    with pytest.raises(ScenarioError, match=r"Side.tolerance must be finite"):
        Side(1.0, math.inf)
    with pytest.raises(ScenarioError, match=r"Side.ci must be None or a half-width >= 0"):
        Side(1.0, 0.1, ci=-0.2)
    with pytest.raises(ScenarioTypeError, match=r"Side.method must be a str"):
        Side(1.0, 0.1, method=3)
    nan = Side(math.nan, 0.1, ci=math.nan)  # a run that measured nothing fails, not raises
    assert not nan.ok(1.0) and nan.error(1.0) == math.inf


def test_bounds_rules():
    with pytest.raises(ScenarioError, match="Bounds needs lower, upper or both"):
        Bounds()
    with pytest.raises(ScenarioError, match=r"lower must be <= Bounds.upper, got lower=0.6"):
        Bounds(0.6, 0.1)
    with pytest.raises(ScenarioError, match="Bounds.upper must be finite"):
        Bounds(0.1, math.inf)
    b = Bounds(0.1, 0.6)
    assert b.deviation(0.3) == 0.0 and b.deviation(0.75) == pytest.approx(0.25)
    assert b.deviation(0.05) == pytest.approx(0.5)
    assert Bounds(upper=0.1).deviation(0.0) == 0.0 and str(Bounds(upper=0.1)) == "<= 0.1"
    assert str(Bounds(lower=0.5)) == ">= 0.5" and str(b) == "[0.1, 0.6]"


def test_check_rules():
    t = Side(1.0, 0.1)
    with pytest.raises(ScenarioError, match=r"Check\('x', 'q'\) has no side"):
        Check("x", "q", 1.0, source="closed form")
    with pytest.raises(ScenarioError, match=r"source must be one of .*got 'the model'"):
        Check("x", "q", 1.0, source="the model", theory=t)
    with pytest.raises(ScenarioTypeError, match=r"fluid must be a Side or None, got 0.9"):
        Check("x", "q", 1.0, source="closed form", fluid=0.9)
    with pytest.raises(ScenarioError, match=r"Check.quantity must be a non-empty str"):
        Check("x", " ", 1.0, source="closed form", theory=t)
    with pytest.raises(ScenarioError, match=r"expected must be finite"):
        Check("x", "q", math.nan, source="closed form", theory=t)
    with pytest.raises(ScenarioTypeError, match=r"paper must be a real number"):
        Check("x", "q", 1.0, source="closed form", theory=t, paper="1.0")
    with pytest.raises(TypeError):
        Check("x", "q", 1.0, "closed form", t)  # the sides are keyword-only


def test_check_verdict_every_side_within_its_tolerance():
    c = Check("x", "q", 10.0, source="closed form", theory=Side(10.0, 1e-9),
              fluid=Side(10.4, 0.05), packets=Side(11.0, 0.2, ci=0.5))
    assert c.ok and c.failing == ()
    assert (c.primary, c.measured, c.tolerance) == ("packets", 11.0, 0.2)
    assert c.error == pytest.approx(0.1) and c.errors["fluid"] == pytest.approx(0.04)
    bad = Check("x", "q", 10.0, source="closed form", theory=Side(10.0, 1e-9),
                fluid=Side(11.0, 0.05), packets=Side(11.0, 0.2))
    assert not bad.ok and bad.failing == ("fluid",)
    only_theory = Check("x", "q", 10.0, source="closed form", theory=Side(10.5, 0.01))
    assert only_theory.primary == "theory" and only_theory.measured == 10.5
    zero = Check("x", "q", 0.0, source="closed form", theory=Side(0.01, 0.1))
    assert zero.ok  # absolute when expected is 0


def test_check_with_a_range_reference():
    vegas = Check("acc", "u", Bounds(0.1, 0.6), source="paper (measured)", paper=Bounds(0.1, 0.6),
                  theory=Side(0.78, 0.05), fluid=Side(0.55, 0.05))
    assert vegas.failing == ("theory",) and vegas.error == 0.0  # measured is the fluid side
    d = json.loads(json.dumps(vegas.as_dict()))
    assert d["expected"] is None and d["expected_range"] == [0.1, 0.6]
    assert d["paper"] is None and d["paper_range"] == [0.1, 0.6]
    assert d["theory"] == 0.78 and d["failing"] == ["theory"] and d["ok"] is False


def test_check_as_dict_keys_and_json():
    c = Check("x", "q", 4.5, source="closed form", paper=2.25, unit="P", note="why",
              theory=Side(4.5, 1e-12, method="m1"), packets=Side(4.52, 0.05, ci=0.18, method="m2"))
    d = json.loads(json.dumps(c.as_dict()))
    assert {"experiment", "quantity", "expected", "measured", "tolerance", "ok", "paper",
            "theory", "fluid", "packets", "source", "note", "packets_ci",
            "theory_tolerance", "packets_method"} <= set(d)
    assert d["fluid"] is None and d["packets"] == 4.52 and d["packets_ci"] == 0.18
    assert d["measured"] == 4.52 and d["tolerance"] == 0.05 and d["method"] == "m2"
    assert d["paper"] == 2.25 and d["source"] == "closed form" and d["ok"] is True


def test_restricted_drops_sides_and_empty_rows():
    c = Check("x", "q", 1.0, source="closed form", theory=Side(1.0, 0.1), fluid=Side(1.0, 0.1))
    assert c.restricted({"fluid"}).sides.keys() == {"fluid"}
    assert c.restricted({"packets"}) is None


# ============================================================================ validate
def _fake(monkeypatch, sides, rows, calls):
    """Register a temporary experiment 'fake' returning ``rows``, recording its arguments."""
    monkeypatch.setattr(reg, "_REGISTRY", dict(reg._REGISTRY))

    def run(*, sides, quick):
        calls.append((set(sides), quick))
        return rows

    register("fake", title="a fake", paper="none", sides=sides)(run)


def test_validate_passes_sides_and_quick_and_filters_rows(monkeypatch):
    calls = []
    rows = [Check("fake", "both", 1.0, source="closed form", theory=Side(1.0, 0.1),
                  fluid=Side(5.0, 0.1)),
            Check("fake", "fluid only", 1.0, source="closed form", fluid=Side(1.0, 0.1))]
    _fake(monkeypatch, ("theory", "fluid"), rows, calls)
    report = validate(["fake"], sides="theory", quick=True)
    assert calls == [({"theory"}, True)]
    # the fluid side is stripped even though the function returned it; the fluid-only row goes
    assert [c.quantity for c in report.checks] == ["both"] and report.ok
    assert report.checks[0].fluid is None and report.sides == ("theory",) and report.quick
    assert not validate(["fake"]).ok  # with every side, the bad fluid side fails the row


def test_validate_skips_experiments_without_the_asked_sides(monkeypatch):
    calls = []
    _fake(monkeypatch, ("theory",), [], calls)
    report = validate(["fake"], sides=["packets"])
    assert calls == [] and report.checks == () and report.seconds == {}


def test_validate_rejects_undeclared_sides(monkeypatch):
    calls = []
    _fake(monkeypatch, ("theory",), [Check("fake", "q", 1.0, source="closed form",
                                           packets=Side(1.0, 0.1))], calls)
    with pytest.raises(RuntimeError, match=r"returned side\(s\) \['packets'\] it did not register"):
        validate(["fake"])


def test_validate_usage_errors():
    with pytest.raises(ScenarioError, match="unknown experiment"):
        validate(["no-such-thing"])
    with pytest.raises(ScenarioError, match=r"unknown side 'fluids'; sides are theory, fluid"):
        validate(["md1"], sides="theory,fluids")


def test_sides_filter_skips_the_expensive_work(monkeypatch):
    import qosmodels.fluid
    import qosmodels.fq
    import qosmodels.sim

    experiments()  # loaded before the patches, so no experiment module binds them for good
    def boom(*args, **kwargs):
        raise AssertionError("a side that was not asked for was computed")

    monkeypatch.setattr(qosmodels.fluid, "solve_fluid", boom)
    monkeypatch.setattr(qosmodels.sim, "replicate", boom)
    monkeypatch.setattr(qosmodels.fq, "simulate_telnet_fq", boom)
    report = validate(["acc-fig4", "acc-fig9", "dks-fig1"], sides="theory", quick=True)
    assert report.checks and all(set(c.sides) == {"theory"} for c in report.checks)


# ======================================================================= every experiment, quick
def test_every_experiment_runs_in_quick_form(quick_report):
    report, calls = quick_report
    assert set(report.seconds) == NAMES and [n for n, _, _ in calls] == list(report.seconds)
    assert all(s >= 0 for _, s, _ in calls) and sum(len(r) for _, _, r in calls) == len(
        report.checks)
    for name in NAMES:
        assert any(c.experiment == name for c in report.checks), name
    assert all(c.source in SOURCES for c in report.checks)
    assert len(report.checks) >= 150


def test_exactly_these_rows_fail_and_each_has_a_note(quick_report):
    report, _ = quick_report
    assert {(c.experiment, c.quantity) for c in report.failures
            if not c.experiment.startswith(("dks-table", "pps-", "abe-fig", "calibrated-",
                                            "dctcp-", "cubic-", "aqm-mgt", "aqm-dualpi2",
                                            "l4s-", "bbr-", "acc-fig9-"))
            and c.experiment != "tokenbucket-fairness"} == FAILING
    assert all(c.note for c in report.failures)


def test_acc_fig4_reference_is_the_papers_statement(quick_report):
    report, _ = quick_report
    v35 = row(report, "acc-fig4", "Vegas forward utilisation, c_r=35 Mb/s")
    assert v35.expected == Bounds(0.10, 0.60) and v35.source == "paper (measured)"
    assert v35.theory.value == pytest.approx(35 / 45)  # eq (12), min(1, c_r/c_f)
    assert v35.fluid.value == pytest.approx(0.78, abs=0.01) and v35.failing == ("theory", "fluid")
    v45 = row(report, "acc-fig4", "Vegas forward utilisation, c_r=45 Mb/s")
    assert v45.fluid.value == pytest.approx(1.0, abs=0.01)
    # the packets side with the paper up to 35 Mb/s, not with eq (12) and the fluid
    assert v35.packets.value < 0.6 * 1.05 < v35.fluid.value
    assert v45.packets.value < 0.75 and v45.failing == ("theory", "fluid", "packets")
    v5 = row(report, "acc-fig4", "Vegas forward utilisation, c_r=5 Mb/s")
    assert v5.ok and not v5.note


def test_acc_fig9_values_are_the_papers(quick_report):
    report, _ = quick_report
    long5 = row(report, "acc-fig9", "long-flow rate, N=5")
    # the paper's measurement at N = 5 is the reference, 100/(3+N) the theory side
    assert long5.expected == long5.paper == 12.0 and long5.source == "paper (measured)"
    assert row(report, "acc-fig9", "short-flow rate, N=5").expected == 65.0
    assert long5.theory.value == pytest.approx(12.5) and long5.fluid is not None
    assert row(report, "acc-fig9", "long-flow rate, N=4").expected == pytest.approx(100 / 7)


def test_acc_fig10_values_are_the_papers(quick_report):
    report, _ = quick_report
    for quantity, paper in (("long1 rate, 3-20 s", 14.0), ("long1 rate, 20-30 s", 12.4),
                            ("long1 rate, 40-50 s", 13.0), ("short1_0 rate, 3-20 s", 43.0),
                            ("short1_0 rate, 20-30 s", 38.0)):
        c = row(report, "acc-fig10", quantity)
        assert c.paper == c.expected == paper and c.source == "paper (measured)"
        assert c.theory is not None and c.fluid is not None and c.packets is not None
    # the paper's statements, as ranges; only packets have web traffic
    little = row(report, "acc-fig10", "long1 rate with web traffic / without, 33-40 vs 23-30 s")
    assert little.expected == Bounds(0.8, 1.0) and little.theory is None


def test_packet_rows_carry_a_confidence_interval(quick_report):
    report, _ = quick_report
    md1 = [c for c in report.checks if c.experiment == "md1"]
    assert len(md1) == 4 and all(c.packets.ci > 0 and "4 seeds" in c.packets.method for c in md1)
    fcfs = row(report, "dks-fig1", "FCFS delay, rho=2.0")
    assert fcfs.theory is not None and fcfs.packets.ci > 0  # theory and packets in one row
    fq = row(report, "dks-fig1", "FQ delta=0 delay, rho=0.3")
    assert fq.paper < fq.expected and fq.note  # the printed formula's misprint


def test_no_row_takes_the_library_model_as_reference(quick_report):
    report, _ = quick_report
    for c in report.checks:
        assert "qosmodels." not in c.reference, (c.experiment, c.quantity, c.reference)


def test_table_fits_in_120_columns_and_json_round_trips(quick_report):
    report, _ = quick_report
    text = str(report)
    assert max(len(line) for line in text.splitlines()) <= 120
    flat = " ".join(text.split())  # the summary line wraps at 120 columns
    m = re.search(r"(\d+) outside tolerance \(in ([^)]*)\)", re.sub(r"-\s+", "-", flat))
    # (acc-fig4's Vegas rows, theory and fluid outside: a known difference since issue 31)
    assert m and int(m.group(1)) == len(report.failures) and "known t,f" in text
    assert set(m.group(2).split(", ")) == ({"acc-fig2", "acc-fig4", "acc-fig5", "acc-fig6",
                                            "acc-fig9", "acc-fig10", "acc-fig9-paper",
                                            "tokenbucket-fairness", "aqm-pi-design",
                                            "aqm-codel", "aqm-mgt"}
                                           | {f"dks-table{i}" for i in range(2, 8)}
                                           | {f"pps-table{i}" for i in range(1, 10)}
                                           | {"pps-fig5", "pps-fig7", "pps-fig8", "calibrated-pps"}
                                           | {"abe-fig2", "abe-fig3", "abe-fig6", "abe-fig8"}
                                           | {"dctcp-fluid", "dctcp-sawtooth", "cubic-response",
                                              "bbr-share"}
                                           | {"aqm-dualpi2", "l4s-coexistence",
                                              "l4s-rtt-independence"})
    rows = json.loads(report.to_json())
    assert len(rows) == len(report.checks)
    assert all({"experiment", "quantity", "expected", "measured", "tolerance", "ok", "paper",
                "theory", "fluid", "packets", "source"} <= set(r) for r in rows)
    df = report.to_pandas()
    assert {"experiment", "quantity", "expected", "measured", "tolerance", "ok"} <= set(df.columns)


def test_report_of_no_rows_is_ok():
    r = ValidationReport(checks=())
    assert r.ok and "0 checks" in str(r)
