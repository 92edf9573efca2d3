"""ACC Figure 9 as the paper runs it (acc-fig9-paper): the network, the theory side against
an independent closed form, the packets side replayed from the raw series, and the quick
form's verdicts."""

import math

import pytest

from qosmodels import ScenarioError
from qosmodels.experiments import acc_fig9, experiments
from qosmodels.topologies import acc_linear

from .quick_runs import validate_quick

#: The quick form's rows outside tolerance (declared with their measured numbers).
QUICK_OUTSIDE = {
    *(f"as the paper runs it: {what}, N={n}" for n in (2, 5, 9)
      for what in ("long-flow rate", "short-flow rate", "long-flow C.O.V.")),
    "as the paper runs it: N=5, long flows' transient",
}


@pytest.fixture(scope="module")
def quick():
    return validate_quick(["acc-fig9-paper"])


def _row(report, quantity):
    (c,) = [c for c in report.checks if c.quantity == quantity]
    return c


# ---------------------------------------------------------------- the network
def test_paper_net_mixes_avd_and_droptail_and_spreads_the_long_flows_rtts():
    net, avd = acc_fig9.paper_net(5)
    assert avd == (1, 3)
    kinds = [type(link.queue).__name__ for link in net.links]
    assert kinds[:5] == ["DropTail", "Avq", "DropTail", "Avq", "DropTail"]
    assert all(net.links[k].queue.gamma == 0.98 and net.links[k].queue.avd for k in avd)
    # Figure 10's "evenly ranging from 1ms to 100ms": 1, 50.5 and 100 ms one way
    assert [float(net.links[5 + k].delay) for k in range(3)] == pytest.approx(
        [0.001, 0.0505, 0.1])
    base = acc_linear(5)
    rtt = net.rtt
    assert list(rtt[:3] - base.rtt[:3]) == pytest.approx([0.002, 0.101, 0.2])
    assert list(rtt[3:]) == list(base.rtt[3:])  # the short flows as in acc_linear
    assert list(net.capacities[:5]) == [100e6] * 5 and list(net.delays[:5]) == [0.004] * 5
    # the other parity, and one round trip for the three
    net0, avd0 = acc_fig9.paper_net(4, 0.001, avd_offset=0, alpha=0.6)
    assert avd0 == (0, 2) and net0.links[0].queue.alpha == 0.6
    assert len(set(net0.rtt[:3])) == 1
    for n in range(2, 10):  # both kinds at every N of the paper
        assert 0 < len(acc_fig9.paper_net(n)[1]) < n


def test_paper_net_refuses_bad_input():
    with pytest.raises(ScenarioError, match=r"paper_net.long_access_delay must be >= 0.001"):
        acc_fig9.paper_net(5, 0.0)
    with pytest.raises(ScenarioError, match=r"paper_net.avd_offset must be >= 0"):
        acc_fig9.paper_net(5, avd_offset=-1)
    with pytest.raises(ScenarioError, match=r"paper_net.n must be >= 1"):
        acc_fig9.paper_net(0)


# ---------------------------------------------------------------- the theory side
def _bisect(f, lo, hi):
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if f(lo) * f(mid) <= 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def test_theory_is_weighted_proportional_fairness_with_avd_at_its_target():
    """N = 2, link 2 AVD: with equal weights a*, prices p_l = a*/x_S(l) and
    1/x_L = 1/x_S0 + 1/x_S1, 3 x_L + x_S0 = C, 3 x_L + x_S1 = 0.98 C; bisection on x_L."""
    c = 100e6

    def excess(x):  # decreasing in x on (0, 0.98 C / 3)
        return 1 / x - 1 / (c - 3 * x) - 1 / (0.98 * c - 3 * x)

    x_long = _bisect(excess, 1.0, 0.98 * c / 3 - 1.0)
    x = acc_fig9.theory_rates(*acc_fig9.paper_net(2))
    assert list(x[:3]) == pytest.approx([x_long] * 3, rel=1e-6)
    assert x[3] == pytest.approx(c - 3 * x_long, rel=1e-6)
    assert x[4] == pytest.approx(0.98 * c - 3 * x_long, rel=1e-6)
    # without an AVD link (offset past the chain): 100/(3+N) and 100N/(3+N)
    x = acc_fig9.theory_rates(*acc_fig9.paper_net(6, avd_offset=6))
    assert x[0] == pytest.approx(100e6 / 9, rel=1e-6) and x[3] == pytest.approx(600e6 / 9,
                                                                                rel=1e-6)


# ---------------------------------------------------------------- the packets side
@pytest.fixture(scope="module")
def run2():
    net, avd = acc_fig9.paper_net(2)
    return acc_fig9.run_packets(net), avd


def test_window_rates_and_transient_replayed_from_the_series(run2):
    r, _ = run2
    starts = r.t.tolist()[:-1]
    rows = r.throughput_series.tolist()
    inside = [row for t, row in zip(starts, rows) if 30.0 - 1e-9 <= t < 50.0 - 1e-9]
    assert len(inside) == 200
    means = [sum(row[k] for row in inside) / len(inside) for k in range(5)]
    assert list(acc_fig9.window_rates(r)) == pytest.approx(means, rel=1e-12)
    sec = []
    for a in range(50):
        x = [sum(row[:3]) / 3 for t, row in zip(starts, rows) if a - 1e-9 <= t < a + 1 - 1e-9]
        sec.append(sum(x) / len(x))
    final = sum(sec[30:]) / 20
    start = min([a for a in range(50) if all(abs(v / final - 1) <= 0.05 for v in sec[a:])]
                + [50])
    assert acc_fig9.transient(r) == start
    # the run: 50 s of Monaco over one droptail and one AVD link; AVD's link near 0.98
    assert r.network.links[1].queue.avd and not math.isnan(means[0])
    assert r.duration == pytest.approx(50.0)


# ---------------------------------------------------------------- the rows
def test_registered_with_its_unstated_parameters():
    e = experiments()["acc-fig9-paper"]
    assert {u.name: u.default for u in e.unstated} == {
        "long_access_delay": 0.1, "avd_offset": 1, "avq_alpha": 0.15, "control_size": 40}
    assert set(e.sides) == {"theory", "packets"}


def test_quick_form_rows(quick):
    assert not quick.regressions and not quick.stale
    qs = [c.quantity for c in quick.checks]
    assert all(q.startswith("as the paper runs it: ") for q in qs)
    assert len(qs) == 3 * 3 + 2
    n5 = _row(quick, "as the paper runs it: long-flow rate, N=5")
    assert n5.expected == 12.0 and n5.source == "paper (measured)"
    assert n5.theory.value == pytest.approx(12.398, abs=1e-3)  # AVD links at 98 Mb/s
    n2 = _row(quick, "as the paper runs it: short-flow rate, N=2")
    assert n2.expected == pytest.approx(40.0) and n2.source == "paper (stated)"
    outside = {c.quantity for c in quick.checks if not c.ok}
    assert outside == QUICK_OUTSIDE
    for c in quick.checks:
        if not c.ok:
            assert c.verdict == "known difference" and c.cause == "unstated parameter"
            assert "long_access_delay" in c.known.note and c.note
    q = _row(quick, "as the paper runs it: N=5, AVD queue over droptail queue")
    assert q.verdict == "reproduced" and q.packets.value < 1.0


def test_unstated_parameters_reach_the_run(monkeypatch):
    seen = {}

    class Seen(Exception):
        pass

    def stub(net, control_size=40):
        seen["net"], seen["size"] = net, control_size
        raise Seen

    monkeypatch.setattr(acc_fig9, "run_packets", stub)
    e = experiments()["acc-fig9-paper"]
    with pytest.raises(Seen):
        e.call(sides=frozenset({"packets"}), quick=True,
               params={"long_access_delay": 0.025, "avd_offset": 0, "avq_alpha": 0.6,
                       "control_size": 1000})
    net = seen["net"]
    assert seen["size"] == 1000
    assert [float(net.links[2 + k].delay) for k in range(3)] == pytest.approx(
        [0.001, 0.013, 0.025])
    assert [type(link.queue).__name__ for link in net.links[:2]] == ["Avq", "DropTail"]
    assert net.links[0].queue.alpha == 0.6
