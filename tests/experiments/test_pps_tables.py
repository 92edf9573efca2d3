"""pps-table1 ... pps-table9 with packets: the scenarios, the paper's columns, the quick rows.

Zhang, Wang, Peterson, Krishnamurthy, "Probabilistic Packet Scheduling", Sections
2.6 and 3.1-3.8, Tables 1-9.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq

from qosmodels.errors import ScenarioError
from qosmodels.experiments import experiments
from qosmodels.experiments import pps as pe
from qosmodels.mechanisms import Cbr, Red, Rio, TicketRed, TicketTagger
from qosmodels.pps import FIG6_TICKETS, tred_tcp_shares
from qosmodels.topologies import pps_multi_hop

from .quick_runs import validate_quick

NAMES = [f"pps-table{k}" for k in range(1, 10)]

#: The rows outside tolerance in the quick form, with the seeds 0-2 of :data:`pe.RUNS`
#: (each declared in :data:`pe.KNOWN`): the packets share bottlenecks as tickets^(3/5)
#: (TRED's cubic with TCP's square-root law), a lone Reno flow through RED leaves its
#: link idle part of the time, the long-RTT flows of Table 6 keep more of TCP's bias than
#: the paper's, and the exchange rule with active tickets gives 3:1 where Section 2.6
#: prints 2:1.  (Table 1's A/B row takes the paper's 0.48 / 0.25 as its reference since
#: issue 31, with TRED's steady state on its theory side: it was "A/B rate ratio in
#: packets, against TRED's steady state".)
FAILING = {
    ("pps-table1", "flow A rate in packets"),
    ("pps-table1", "flow B rate in packets"),
    ("pps-table1", "flow C rate in packets"),
    ("pps-table1", "A/B rate ratio"),
    ("pps-table1", "Section 2.6, B silent: A/C rate ratio"),
    ("pps-table2", "flow A rate in packets"),
    ("pps-table2", "flow C rate in packets"),
    ("pps-table3", "flow A rate in packets"),
    ("pps-table3", "flow C rate in packets"),
    ("pps-table4", "flow A rate in packets"),
    ("pps-table4", "flow C rate in packets"),
    ("pps-table5", "flow A rate in packets"),
    ("pps-table5", "flow B rate in packets"),
    ("pps-table5", "flow C rate in packets"),
    ("pps-table6", "RTT varied: flow 1 (RTT 30 ms) rate in packets"),
    ("pps-table6", "RTT varied: flow 9 (RTT 270 ms) rate in packets"),
    ("pps-table6", "RTT varied: flow 10 (RTT 300 ms) rate in packets"),
    *((f"pps-table{k}", f"flow {f} rate in packets") for k in (7, 8, 9) for f in "AC"),
    # DiffServ: the paper's RIO and marker settings are not given
    ("pps-table7", "flow C rate with DiffServ in packets"),
    *(("pps-table9", f"flow {f} rate with DiffServ in packets") for f in "ABC"),
}


@pytest.fixture(scope="module")
def report():
    return validate_quick(NAMES)


def rows(report, experiment):
    return {c.quantity: c for c in report.checks if c.experiment == experiment}


def test_exactly_these_rows_fail_and_each_has_a_note(report):
    assert {(c.experiment, c.quantity) for c in report.failures} == FAILING
    assert all(c.note for c in report.failures)
    assert not any(c.note for c in report.checks if c.ok and c.packets is not None)


def test_packet_rows_take_the_papers_measured_column(report):
    t3 = rows(report, "pps-table3")
    a = t3["flow A rate in packets"]
    assert (a.expected, a.paper, a.source) == (1.24, 1.24, "paper (measured)")
    assert a.packets.tolerance == 0.05 and a.packets.ci > 0 and "3 seeds" in a.packets.method
    assert t3["flow A rate"].expected == 1.33 and t3["flow A rate"].theory is not None
    t6 = rows(report, "pps-table6")
    assert t6["RTT varied: flow 10 (RTT 300 ms) rate in packets"].expected == 0.093
    assert t6["RTT varied: flow 1 (RTT 30 ms) rate in packets"].expected == 0.103
    assert t6["RTT 30 ms: total rate in packets"].expected == 0.997
    assert rows(report, "pps-table7")["total rate in packets"].expected == 1.19


def test_the_packets_follow_treds_steady_state_not_the_tickets(report):
    # the paper's 0.48 / 0.25 = 1.92 is the reference; the theory side is TRED's steady state,
    # (600/300)^(3/5) = 1.52; the packets (near 1.6) sit far from the paper, near the theory
    c = rows(report, "pps-table1")["A/B rate ratio"]
    assert (c.expected, c.source) == (pytest.approx(0.48 / 0.25), "paper (measured)")
    assert c.theory.value == pytest.approx(2 ** 0.6)
    assert 1.45 < c.packets.value < 1.75
    assert c.failing == ("theory", "packets") and c.verdict == "known difference"
    assert c.cause == "paper inconsistent"
    # every flow still gets within 15% of its ticket share at a shared bottleneck, and the
    # flows with more tickets get more
    t7 = rows(report, "pps-table7")
    got = [t7[f"flow {f} rate in packets"].packets.value for f in "ABC"]
    assert got[0] > got[1] > got[2]
    np.testing.assert_allclose(got, pe.FIG13_SHARES, rtol=0.25)


def test_pps_shares_in_proportion_where_diffserv_does_not(report):
    # Section 3.8: with profiles far below the capacity (Table 8) DiffServ shares the excess
    # "arbitrarily" while PPS keeps the order of the tickets; with profiles above it (Table
    # 9) DiffServ "degenerates to best effort"
    t8, t9 = rows(report, "pps-table8"), rows(report, "pps-table9")
    ds8 = [t8[f"flow {f} rate with DiffServ in packets"].packets.value for f in "ABC"]
    pps8 = [t8[f"flow {f} rate in packets"].packets.value for f in "ABC"]
    assert pps8[0] / pps8[2] > 1.8 > 1.4 > ds8[0] / ds8[2]
    assert all(x > 2.5 * p / 1e6 for x, p in zip(ds8, pe.PROFILES["Table 8"]))
    ds9 = [t9[f"flow {f} rate with DiffServ in packets"].packets.value for f in "ABC"]
    assert all(x < p / 1e6 for x, p in zip(ds9, pe.PROFILES["Table 9"]))
    assert t8["flow A rate with DiffServ in packets"].expected == 0.43


def test_tables_7_to_9_totals_are_the_papers_and_the_sum_of_the_flows(report):
    # issue 31: the Total rows of the "Measured DiffServ" and "Measured PPS" columns
    for k in (7, 8, 9):
        t = rows(report, f"pps-table{k}")
        for total, flow in (("total rate in packets", "flow {} rate in packets"),
                            ("total rate with DiffServ in packets",
                             "flow {} rate with DiffServ in packets")):
            c = t[total]
            assert c.expected == (1.19 if "DiffServ" not in total else 1.20)
            assert c.source == "paper (measured)" and c.reference.startswith(
                f"paper, Table {k}, Measured")
            # the packets' total is the sum of the flows' mean rates (a replay of the rows)
            flows = sum(t[flow.format(f)].packets.value for f in "ABC")
            assert c.packets.value == pytest.approx(flows, rel=1e-9)
            # a saturated 1.2 Mb/s link: neither scheme leaves more than 2% of it idle here
            assert 0.98 * 1.2 < c.packets.value <= 1.2
        assert c.verdict == "reproduced"


def test_scenarios_install_pps_and_the_papers_sources():
    net, tickets = pe.figure13()
    pn = pe.packet_network(net, tickets)
    assert all(isinstance(link.queue, TicketRed) for link in pn.links)
    assert [agg.edge.tickets for agg in pn.aggregates] == [600.0, 400.0, 200.0]
    assert all(isinstance(agg.edge, TicketTagger) and agg.edge.window == 60.0
               and agg.edge.bits == 8 for agg in pn.aggregates)
    assert all(f.source.kind == "reno" and f.source.max_window == 20 for f in pn.flows)
    # Table 2: B is a 0.16 Mb/s constant-rate source, and its tagger measures its sending rate
    net2, t2, demand = next(b for name, _, b in pe._cases() if name == "Table 2")()
    pn2 = pe.packet_network(net2, t2, demand)
    assert pn2.flows[1].source == Cbr(rate=160e3)
    assert pe.RUNS[False] == (600.0, 10) and pe.RUNS[True][0] == 600.0  # the paper's 600 s


def test_table6_builds_figure10():
    net, tickets = pe.table6("varied")
    assert net.n_flows == 10 and set(tickets.values()) == {200.0}
    np.testing.assert_allclose(net.rtt, [0.03 * k for k in range(1, 11)])
    assert len(pe.TABLE6_EQUAL) == len(pe.TABLE6_VARIED) == 10


# ------------------------------------------------------------------ issue 31: verdicts


def test_no_row_fails_in_the_quick_form(report):
    assert [(c.experiment, c.quantity, round(c.error, 3)) for c in report.checks
            if c.verdict == "fails"] == []
    # every row outside tolerance is declared, with a cause among the four and evidence
    for c in report.failures:
        assert c.verdict == "known difference" and c.known.note, (c.experiment, c.quantity)
    causes = {c.cause for c in report.failures}
    assert causes == {"paper inconsistent", "unstated parameter"}


def test_known_declarations_name_rows_that_exist(report):
    produced = {(c.experiment, c.quantity) for c in report.checks}
    assert set(pe.KNOWN) <= produced
    # every declaration the quick form carries still describes an outside row; the two
    # that hold for the full form only are inside in the quick form (0.407, 0.0904), the
    # quick-form-only one is outside (0.2207 against 0.21)
    assert not report.stale
    forms = {key: k.form for key, k in pe.KNOWN.items() if k.form is not None}
    assert forms == {("pps-table8", "flow B rate with DiffServ in packets"): "full",
                     ("pps-table6", "RTT varied: flow 8 (RTT 240 ms) rate in packets"): "full",
                     ("pps-table7", "flow C rate with DiffServ in packets"): "quick"}
    for (name, q), form in forms.items():
        c = rows(report, name)[q]
        assert (c.known is not None) is (form == "quick")
        assert c.verdict == ("known difference" if form == "quick" else "reproduced")
    # a declaration does not cover a side that deviates more than it says
    c = rows(report, "pps-table7")["flow C rate in packets"]
    assert not c.known.covers({"packets": c.known.max_error + 0.01})
    assert c.known.covers({"packets": c.errors["packets"]})


def test_paper_inconsistent_rows_quote_the_text_and_the_numbers(report):
    inconsistent = [c for c in report.checks if c.cause == "paper inconsistent"]
    assert len(inconsistent) >= 14
    for c in inconsistent:
        if c.quantity.startswith("Section 2.6"):
            assert "2:1" in c.known.note and c.known.sides == ("theory",)
        else:
            assert "(ExpectTkt / InTkt)^3" in c.known.note and "3/5" in c.known.note
    # Section 2.6: the exchange rule gives 3:1 on the theory side; the packets pass
    b = rows(report, "pps-table1")["Section 2.6, B silent: A/C rate ratio"]
    assert b.theory.value == pytest.approx(3.0) and b.failing == ("theory",)


def test_sanity_rows_are_the_ones_that_cannot_fail(report):
    sanity = {(c.experiment, c.quantity) for c in report.checks if c.sanity}
    assert pe.SANITY <= sanity
    t6 = {q for e, q in sanity if e == "pps-table6"}
    assert t6 == {"fair share of each flow",
                  *(f"RTT 30 ms: flow {k} (RTT 30 ms) rate in packets" for k in range(1, 11))}
    # the reference of Tables 7-9's theory rows is the 3:2:1 split of the tickets themselves
    t7 = rows(report, "pps-table7")["flow A rate"]
    assert t7.sanity and t7.expected == pe.FIG13_SHARES[0]
    # the paper's own expected column of Table 1 is a real check of the ticket ledger
    assert not rows(report, "pps-table1")["flow A rate"].sanity


def test_every_table_declares_the_unstated_parameters():
    regs = experiments()
    for name in NAMES:
        declared = {u.name: u for u in regs[name].unstated}
        want = {"red_min_th", "red_max_th", "red_max_p", "tcp_window", "tred_exponent"}
        if name in ("pps-table7", "pps-table8", "pps-table9"):
            want.add("marker_window")
        assert set(declared) == want, name
        assert regs[name].defaults == {k: pe.DEFAULTS[k] for k in want}
    # the defaults are ns-2's and the library's own
    red = Red()
    assert (pe.DEFAULTS["red_min_th"], pe.DEFAULTS["red_max_th"], pe.DEFAULTS["red_max_p"]) == (
        red.min_th, red.max_th, red.max_p)
    assert pe.DEFAULTS["tcp_window"] == pe.TCP_WINDOW == 20
    assert pe.DEFAULTS["marker_window"] == 1.0
    # TRED's power: the paper's text, whatever the calibrated variant uses
    assert pe.DEFAULTS["tred_exponent"] == 3.0 == TicketRed().exponent


def test_unstated_parameters_reach_the_network():
    net, tickets = pps_multi_hop(), FIG6_TICKETS
    base = pe.packet_network(net, tickets)
    assert all((q.min_th, q.max_th, q.max_p) == (5.0, 15.0, 0.1)
               for q in (link.queue for link in base.links))
    for name, value, read in (
            ("red_min_th", 2.0, lambda n: {link.queue.min_th for link in n.links}),
            ("red_max_th", 50.0, lambda n: {link.queue.max_th for link in n.links}),
            ("red_max_p", 0.02, lambda n: {link.queue.max_p for link in n.links}),
            ("tcp_window", 64.0, lambda n: {f.source.max_window for f in n.flows}),
            ("tred_exponent", 6.0, lambda n: {link.queue.exponent for link in n.links})):
        changed = pe.packet_network(net, tickets, params={name: value})
        assert read(changed) == {value}, name
        assert read(base) != {value}, name
        # TRED and the taggers are still installed, with the same tickets
        assert all(isinstance(link.queue, TicketRed) for link in changed.links)
        assert [a.edge.tickets for a in changed.aggregates] == [
            a.edge.tickets for a in base.aggregates]
    # a constant-rate flow keeps its source whatever the window
    net2, t2, demand = next(b for name, _, b in pe._cases() if name == "Table 2")()
    assert pe.packet_network(net2, t2, demand, {"tcp_window": 64.0}).flows[1].source == Cbr(
        rate=160e3)
    # DiffServ: the marker's window and the Reno window, and RIO stays at its defaults
    ds = pe.diffserv_network(pe.PROFILES["Table 9"], {"marker_window": 3.0, "tcp_window": 10.0})
    assert {a.edge.window for a in ds.aggregates} == {3.0}
    assert {f.source.max_window for f in ds.flows} == {10}
    assert any(link.queue == Rio() for link in ds.links)
    assert {a.edge.window for a in pe.diffserv_network(pe.PROFILES["Table 9"]).aggregates} == {1.0}
    with pytest.raises(ScenarioError, match="unknown PPS experiment parameter"):
        pe.packet_network(net, tickets, params={"red_minth": 2.0})


def test_experiment_runs_with_a_parameter_set():
    # one short run through the registry: the setting reaches the packets' method
    exp = experiments()["pps-table2"]
    got = exp.call(sides=frozenset({"packets"}), quick=True, params={"red_max_th": 30.0})
    assert got and all("RED 5/30 packets" in c.packets.method for c in got)


def test_treds_steady_state_agrees_with_an_independent_root_find():
    # Each flow's rate from the square-root law x = sqrt(3/2) / (R sqrt(p_i)) with TRED's
    # p_i = min(1, p0 (E / t_i)^3) and its tag t_i = T_i / x_i, solved per flow in log space,
    # p0 found so that the rates fill the link: the shares are tickets^(3/5), not the tickets.
    rtt, cap = 0.1, 125.0  # s, packets/s

    def shares(tickets):
        t = np.asarray(tickets, float)
        e = t.sum() / cap

        def rates(p0):
            def one(tk):
                return np.exp(brentq(lambda lx: lx - np.log(np.sqrt(1.5) / (rtt * np.sqrt(
                    min(1.0, p0 * (e * np.exp(lx) / tk) ** 3)))), -30, 30))
            return np.array([one(tk) for tk in t])

        p0 = np.exp(brentq(lambda lp: rates(np.exp(lp)).sum() - cap, -30, 0))
        x = rates(p0)
        return x / x.sum()

    for tickets in ([600, 300, 300], [600, 400, 200]):
        np.testing.assert_allclose(shares(tickets), tred_tcp_shares(tickets), rtol=1e-6)
    assert tred_tcp_shares([600, 300, 300])[0] / tred_tcp_shares([600, 300, 300])[1] == (
        pytest.approx(2 ** 0.6))


# ------------------------------------------------------- issue 32: the calibrated variant


def test_the_exponent_reaches_the_theory_side_too():
    # pps-table1's A/B theory row follows TRED's power: (600/300)^(n/(n+2))
    exp = experiments()["pps-table1"]
    for n in (3.0, 6.0):
        (row,) = [c for c in exp.call(sides=frozenset({"theory"}), quick=True,
                                      params={"tred_exponent": n})
                  if c.quantity == "A/B rate ratio"]
        assert row.theory.value == pytest.approx(2.0 ** (n / (n + 2)))


@pytest.fixture(scope="module")
def calibrated():
    return validate_quick(["calibrated-pps"])


def test_calibrated_rows_are_every_tables_tred_flows_at_the_fitted_power(calibrated):
    got = {c.quantity: c for c in calibrated.checks}
    # Tables 1-5 (Table 2's constant-rate B left out), Figure 13 once, Table 6's varied RTTs
    assert len(got) == 3 * 5 - 1 + 3 + 10
    assert all(c.quantity.endswith("TRED power 6") and "6" in c.packets.method
               for c in got.values())
    assert got["Tables 7-9: flow A rate in packets, TRED power 6"].expected == 0.58
    # counted apart from the paper's own rows
    assert set(calibrated.counts("paper").index) == {"calibrated"}
    assert [c.quantity for c in calibrated.checks if c.verdict == "fails"] == []
    assert set(pe.KNOWN_CALIBRATED) <= set(got)


def test_the_fitted_power_brings_more_printed_rates_within_5_percent(calibrated, report):
    # the point of the variant: under power 6 more of the same printed rates are
    # reproduced than under the text's cubic (quick form, the same seeds)
    table = {(c.experiment, c.quantity): c for c in report.checks}

    def at_power_3(q):
        label, rest = q.split(": ", 1)
        rest = rest.replace(", TRED power 6", "")
        if label == "Table 6 varied":
            return table[("pps-table6", f"RTT varied: {rest}")]
        name = "pps-table7" if label == "Tables 7-9" else "pps-table" + label.split()[1]
        return table[(name, rest)]

    pairs = [(c, at_power_3(c.quantity)) for c in calibrated.checks]
    assert all(c.expected == c3.expected for c, c3 in pairs)
    cal = sum(c.packets.ok(c.expected) for c, _ in pairs)
    cubic = sum(c3.packets.ok(c3.expected) for _, c3 in pairs)
    assert cal >= 17 and cal > cubic + 5, (cal, cubic)
