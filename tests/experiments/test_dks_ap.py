"""dks-ap: the Delay section's nonpreemptive A(P) bounds against packet runs.

Demers, Keshav, Shenker (1990), section "Delay": Delta = A(P_T - delta), bounded by the
extremal FTP synchronisations l_alpha = 0 and l_alpha = alpha / N.
"""

from __future__ import annotations

import math

import pytest

from qosmodels.experiments import Bounds, dks

from .quick_runs import validate_quick

N_ROWS = len(dks.AP_ROWS)


@pytest.fixture(scope="module")
def quick_rows():
    report = validate_quick(["dks-ap"])
    return {c.quantity: c for c in report.checks}


def test_the_rows_exist_and_none_fails_in_the_quick_form(quick_rows):
    assert len(quick_rows) == N_ROWS + len(dks.DN_RHOS) == 14
    for q in ("A(P_T), P_T=0.5 P_F, l_alpha=alpha/N", "A(P_T), P_T=0.5 P_F, l_alpha=0",
              "A(P_T), P_T=0.8 P_F, l=(0, 0.1, 0.2)", "A(P_T), P_T=1.5 P_F, l_alpha=0",
              "A(P_T - delta), P_T=1 P_F, delta=1 P_F, l_alpha=alpha/N"):
        assert q in quick_rows, q
    assert all(c.verdict != "fails" for c in quick_rows.values())
    a_rows = list(quick_rows.values())[:N_ROWS]
    assert all(c.source == "paper (stated)" and c.packets is not None and c.theory is not None
               for c in a_rows)
    dn = [c for q, c in quick_rows.items() if q.startswith("D_N(P_T)")]
    assert len(dn) == 2 and all(c.source == "closed form" and c.packets.ci > 0 for c in dn)


@pytest.mark.parametrize("P, lower, upper", [
    (0.04, 0.5, 0.5),            # k = 0: P_F/2 <= A <= P_F/2 {1 + 0}
    (0.5, 0.5, 2 / 3),           # k = 1, eps = 1/2: P_F/2 (1 + (1 + 0)/3)
    (0.8, 0.9, 1.1),             # N (P - P_F/2) = 0.9; k = 2, eps = 0.4: 0.5 (1 + 3.6/3)
    (1.0, 1.5, 1.5), (1.5, 3.0, 3.0),   # N (P - P_F/2)
    (0.0, 0.5, 0.5), (-0.3, 0.5, 0.5),  # delta >= P_T: as P = 0
])
def test_printed_bounds_are_the_papers_formulas(P, lower, upper):
    lo, hi = dks.printed_ap_bounds(P, 3)
    assert lo == pytest.approx(lower) and hi == pytest.approx(upper)


def test_packets_lie_in_the_papers_range_and_the_synchronisation_matters_below_P_F(quick_rows):
    by = {(p, s, d): quick_rows[q] for (p, s, d), q in zip(dks.AP_ROWS, list(quick_rows)[:N_ROWS])}
    for (p, sync, delta), c in by.items():
        lo, hi = dks.printed_ap_bounds(p - delta, 3)
        v = c.packets.value
        assert lo * (1 - 0.005) <= v <= hi * (1 + 0.005), (p, sync, delta, v)
    # P_T < P_F: the aligned FTPs delay the Telnet more than the staggered ones
    for p in (0.5, 0.8):
        gap = by[(p, "aligned", 0.0)].packets.value - by[(p, "staggered", 0.0)].packets.value
        assert gap > 0.15, (p, gap)
    # P_T >= P_F: no dependence on the phases (the paper's equality)
    for p in (1.0, 1.5):
        a, s = (by[(p, y, 0.0)].packets.value for y in ("aligned", "staggered"))
        assert a == pytest.approx(s, rel=0.005)
    between = by[(0.8, "between", 0.0)]
    assert isinstance(between.expected, Bounds) and between.expected.lower < \
        between.packets.value < between.expected.upper


def _replay(telnet, phases, delta=0.0, n_phase=300, warm=30.0):
    """Plain-Python nonpreemptive FQ of ap_network's setting, mean Telnet wait (P_F = 1).

    FTP a starts at s_a (ap_network's start times) and stays backlogged, so its finish
    numbers are R(s_a) + 1, + 2, ...; one Telnet packet arrives at t0, its bid
    R(t0) + telnet - delta; the line sends, whenever free, the smallest finish number
    (bid) among the packets present.  t0 runs over n_phase midpoints of one FTP period.
    """
    N = len(phases)
    starts = [0.0]
    for a in range(1, N):
        starts.append(starts[-1] + a * (phases[a] - phases[a - 1]))

    def round_at(t):  # BR round number while only FTPs are active
        r = 0.0
        for a in range(N):
            end = starts[a + 1] if a + 1 < N else math.inf
            if t <= starts[a]:
                break
            r += (min(t, end) - starts[a]) / (a + 1)
        return r

    total = 0.0
    for j in range(n_phase):
        t0 = warm + (j + 0.5) / n_phase * N
        bid = round_at(t0) + telnet - delta
        nxt = [round_at(s) + 1 for s in starts]   # head packet's finish number per FTP
        t, sent = 0.0, False
        while not sent:
            present = [a for a in range(N) if starts[a] <= t + 1e-12]
            if not present:
                t = min(s for s in starts if s > t)
                continue
            a = min(present, key=lambda b: (nxt[b], starts[b]))
            if t >= t0 and bid < nxt[a]:
                total += t - t0
                sent = True
            else:
                t += 1.0
                nxt[a] += 1.0
    return total / n_phase


@pytest.mark.parametrize("p, sync", [(0.5, "aligned"), (0.8, "staggered"),
                                     (0.8, "between"), (1.5, "aligned")])
def test_a_plain_python_replay_agrees_with_the_packet_runs(quick_rows, p, sync):
    q = next(q for (pp, s, d), q in zip(dks.AP_ROWS, list(quick_rows)[:N_ROWS]) if (pp, s, d) == (p, sync, 0.0))
    replay = _replay(p, dks.SYNCS[sync])
    assert quick_rows[q].packets.value == pytest.approx(replay, rel=0.01)


def test_ap_network_places_the_ftps_and_the_telnet_as_documented():
    net = dks.ap_network(500, dks.SYNCS["staggered"], delta=1000.0)
    P = 8 * 1000 / 1e6
    starts = [f.start for f in net.flows]
    assert starts[:3] == pytest.approx([0.0, P / 3, P])   # 1 (1/3) P, then 2 (1/3) P
    assert starts[3] == pytest.approx(3 * P)
    telnet = net.flows[net.flow_names.index("telnet")].source
    period = 8 * 500 / telnet.rate
    assert period == pytest.approx(8 * 500 / 1e6 + 3 * P * (dks.AP_GAP + 0.618034), rel=1e-6)
    assert telnet.packet_size == 500
    assert net.links[-1].queue.delta == 1000.0
    aligned = dks.ap_network(500, dks.SYNCS["aligned"])
    assert [f.start for f in aligned.flows][:3] == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="phases"):
        dks.ap_network(500, (0.1, 0.2, 0.3))
    with pytest.raises(ValueError, match="gap"):
        dks.ap_network(1000, dks.SYNCS["staggered"], gap=0)


def test_dn_rows_are_the_papers_relation_with_a_poisson_d0(quick_rows):
    # D_0[(N+1)P_T]: M/D/1 wait 4 * 1.5 * rho / (2 (1 - rho)); A(1.5) = 3 (1.5 - 0.5)
    assert dks.dn_delay(1.5, 3, 0.3) == pytest.approx(1.8 / 1.4 + 3.0)
    assert dks.dn_delay(1.5, 3, 0.6) == pytest.approx(4.5 + 3.0)
    for rho in dks.DN_RHOS:
        c = quick_rows[f"D_N(P_T) = D_0[(N+1)P_T] + A(P_T), P_T=1.5 P_F, rho={rho}, l_alpha=0"]
        assert c.expected == pytest.approx(dks.dn_delay(1.5, 3, rho))
        # the Telnet's own load adds to A(P_T) = 3: the packets are above it
        assert c.packets.value > 3.0 + 0.5 * (c.expected - 3.0)
    net = dks.ap_network(1500, dks.SYNCS["aligned"], rho=0.3)
    telnet = net.flows[net.flow_names.index("telnet")].source
    assert telnet.kind == "poisson" and telnet.packet_size == 1500
    # rho = lambda P_T (N + 1) with P_T = 12 ms: lambda = 6.25 packets/s
    assert telnet.rate == pytest.approx(6.25 * 8 * 1500)
