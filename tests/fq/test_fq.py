"""qosmodels.fq: exact BR / packetised FQ, the Telnet delay analysis, Figure 1, max-min share.

Reference values come from hand-worked traces, an independent fluid (GPS)
simulation, the Parekh-Gallager / Greenberg-Madras emulation bounds, the
event-driven computation (for the phase model behind A(P)), SymPy
derivations, Monte Carlo (fixed seeds, stated tolerances) and
``qosmodels.allocate(..., "maxmin")``.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosmodels import Flow, Link, Network, ScenarioError, allocate
from qosmodels.fq import (
    emulation_delay,
    emulation_delay_bounds,
    fair_queue,
    fcfs_delay_expr,
    fcfs_telnet_delay,
    maxmin_share,
    phase_delay,
    poisson_delay_expr,
    simulate_telnet_fcfs,
    simulate_telnet_fq,
    telnet_delay,
    telnet_limits,
)

sp = pytest.importorskip("sympy")


# ----------------------------------------------------------------------------- hand-worked BR
def test_br_two_conversations_by_hand():
    # line 8 bit/s = 1 byte/s.  t=0: conv 0 sends 2 bytes, conv 1 sends 1 byte; t=1: conv 0 sends 1.
    # R grows at 1/2 while both are active: R(1) = 0.5, R(2) = 1 (conv 1 done, F = 1), then at 1:
    # conv 0's packets F = 2 and F = 3 (S = max(F_prev = 2, R(1) = 0.5)) finish at t = 3 and t = 4.
    r = fair_queue([0.0, 0.0, 1.0], [0, 1, 0], [2, 1, 1], capacity=8.0)
    assert r.start_number.tolist() == [0.0, 0.0, 2.0]
    assert r.finish_number.tolist() == [2.0, 1.0, 3.0]
    assert r.bid.tolist() == [2.0, 1.0, 3.0]  # delta = 0: B = F
    np.testing.assert_allclose(r.br_departure, [3.0, 2.0, 4.0])
    np.testing.assert_allclose(r.br_start, [0.0, 0.0, 3.0])
    np.testing.assert_allclose(r.round_number([0.0, 1.0, 2.0, 3.0, 4.0, 9.0]),
                               [0.0, 0.5, 1.0, 2.0, 3.0, 3.0])
    np.testing.assert_allclose(r.active_conversations([0.0, 1.5, 2.5, 4.5]), [2, 2, 1, 0])
    # nonpreemptive FQ: smallest F first -> packet 1 on [0,1], packet 0 on [1,3], packet 2 on [3,4]
    np.testing.assert_allclose(r.fq_start, [1.0, 0.0, 3.0])
    np.testing.assert_allclose(r.fq_departure, [3.0, 1.0, 4.0])
    assert r.fq_order().tolist() == [1, 0, 2]
    df = r.to_pandas()
    assert list(df["F"]) == [2.0, 1.0, 3.0] and len(df) == 3


def test_bid_with_delta_by_hand():
    # as above, plus conv 1 sending 1 byte at t = 3.5.  Conv 1 is idle from R = 1 (t = 2); conv 0
    # alone moves R at 1 byte/s, so R(3.5) = 2.5: S = 2.5, F = 3.5, and the bid is
    # B = 1 + max(F_prev = 1, R - delta): 3.5 for delta = 0, 2.5 for delta = 1, 2 for delta = inf
    tr = ([0.0, 0.0, 1.0, 3.5], [0, 1, 0, 1], [2, 1, 1, 1])
    for delta, bid in ((0.0, 3.5), (1.0, 2.5), (np.inf, 2.0)):
        r = fair_queue(*tr, capacity=8.0, delta=delta)
        assert r.start_number[3] == 2.5 and r.finish_number[3] == 3.5
        assert r.bid[3] == bid
    # delta = 1: B = 2.5 < F = 3 of conv 0's packet on the line during [3, 4]:
    # nonpreemptive FQ waits for it, preemptive FQ takes the line at once
    assert r.fq_start[3] == 4.0
    r = fair_queue(*tr, capacity=8.0, delta=1.0)
    assert r.fq_start[3] == 4.0 and r.fq_preemptive_start[3] == 3.5
    np.testing.assert_allclose(r.fq_preemptive_departure, [3.0, 1.0, 5.0, 4.5])


def test_weighted_conversations_by_hand():
    # n = (2, 1): a 2-byte packet of conv 0 counts 1 round; N_ac = 3, R grows at 1/3 byte/s
    r = fair_queue([0.0, 0.0], [0, 1], [2, 1], capacity=8.0, weights=[2.0, 1.0])
    assert r.finish_number.tolist() == [1.0, 1.0]
    np.testing.assert_allclose(r.br_departure, [3.0, 3.0])  # conv 0 is served at 2/3 byte/s
    np.testing.assert_allclose(r.active_conversations([0.5]), [3.0])


def _gps_departures(times, conv, sizes, weights, rate):
    """Independent fluid GPS: weighted processor sharing of the backlogged queues, event by event."""
    order = np.argsort(times, kind="stable")
    n_conv = len(weights)
    queues = [[] for _ in range(n_conv)]  # [packet index, remaining bytes]
    dep = np.empty(len(times))
    t, i = 0.0, 0
    while i < len(order) or any(queues):
        busy = [c for c in range(n_conv) if queues[c]]
        t_next = times[order[i]] if i < len(order) else np.inf
        if not busy:
            t = t_next
        else:
            wsum = sum(weights[c] for c in busy)
            # time until some head-of-line packet finishes
            dt = min(queues[c][0][1] * wsum / (weights[c] * rate) for c in busy)
            step = min(dt, t_next - t)
            for c in busy:
                queues[c][0][1] -= step * weights[c] * rate / wsum
            t += step
            for c in busy:
                if queues[c][0][1] <= 1e-9:
                    dep[queues[c].pop(0)[0]] = t
        while i < len(order) and times[order[i]] <= t:
            j = order[i]
            queues[conv[j]].append([j, sizes[j]])
            i += 1
    return dep


traces = st.integers(2, 40).flatmap(lambda n: st.tuples(
    st.lists(st.floats(0, 20, allow_nan=False), min_size=n, max_size=n),
    st.lists(st.integers(0, 3), min_size=n, max_size=n),
    st.lists(st.integers(1, 1500), min_size=n, max_size=n),
    st.lists(st.sampled_from([1.0, 2.0, 0.5]), min_size=4, max_size=4),
))


@settings(max_examples=60, deadline=None)
@given(traces)
def test_br_equals_fluid_gps_and_fq_stays_within_pmax(trace):
    times, conv, sizes, weights = (np.array(x) for x in trace)
    cap = 8000.0  # 1000 bytes/s
    r = fair_queue(times, conv, sizes, capacity=cap, weights=weights)
    tol = 1e-6
    # BR via round numbers == an independent weighted processor-sharing simulation
    np.testing.assert_allclose(r.br_departure, _gps_departures(times, conv, sizes, weights, 1000.0),
                               atol=1e-6)
    # Parekh-Gallager: nonpreemptive FQ finishes within P_max / C of BR; preemptive never later
    assert np.all(r.fq_departure <= r.br_departure + r.max_size * 8 / cap + tol)
    assert np.all(r.fq_preemptive_departure <= r.br_departure + tol)
    # all three are work conserving: same busy periods, same last departure
    assert r.fq_departure.max() == pytest.approx(r.br_departure.max(), abs=tol)
    assert r.fq_preemptive_departure.max() == pytest.approx(r.br_departure.max(), abs=tol)
    # no packet starts before it arrives; nonpreemptive transmissions do not overlap
    assert np.all(r.fq_start >= r.times - tol)
    o = np.argsort(r.fq_start)
    assert np.all(r.fq_start[o][1:] >= r.fq_departure[o][:-1] - tol)


# ----------------------------------------------------------------------------- A(P)
def _ftp_trace(N, sync, telnet_times, telnet_sizes, horizon=400.0):
    """N backlogged FTPs (1-byte packets, capacity 8 bit/s: times in packet times) plus Telnets."""
    if sync == "staggered":  # FTP a joins when R = a/N; a FTPs are active before it
        starts = np.concatenate([[0.0], np.cumsum([a / N for a in range(1, N)])])
    else:
        starts = np.zeros(N)
    nf = int(horizon / N) + 20
    times = np.concatenate([np.repeat(starts, nf), telnet_times])
    conv = np.concatenate([np.repeat(np.arange(N), nf), np.full(len(telnet_times), N)])
    sizes = np.concatenate([np.ones(N * nf), telnet_sizes])
    return times, conv, sizes


@pytest.mark.parametrize("N", [1, 2, 3, 4])
@pytest.mark.parametrize("sync", ["staggered", "aligned"])
@pytest.mark.parametrize("delta", [0.0, 0.3])
def test_phase_delay_equals_event_driven_fq(N, sync, delta):
    # single Telnet packets far apart (each finds the Telnet idle) at random phases
    rng = np.random.default_rng(N)
    tt = 20.0 + np.cumsum(rng.uniform(4 * (N + 1), 6 * (N + 1), 10))
    pt = rng.choice([0.2, 0.45, 0.7, 1.0, 1.6], len(tt))
    times, conv, sizes = _ftp_trace(N, sync, tt, pt, horizon=tt[-1] + 40)
    r = fair_queue(times, conv, sizes, capacity=8.0, delta=delta)
    tel = conv == N
    rounds = r.round_number(tt)
    for pre, start in ((True, r.fq_preemptive_start), (False, r.fq_start)):
        pred = [phase_delay(x, p - delta, N, 1.0, sync, pre) for x, p in zip(rounds, pt)]
        np.testing.assert_allclose((start - r.times)[tel], pred, atol=1e-9)


@pytest.mark.parametrize("preemptive", [True, False])
@pytest.mark.parametrize("N", [2, 3, 4])
def test_emulation_delay_bounds_against_exact_phase_averages(preemptive, N):
    s = {x.name: x for x in emulation_delay_bounds(preemptive)[0].free_symbols}
    lo, hi = (sp.lambdify(s["P"], e.subs({s["N"]: N, s["P_F"]: 1}))
              for e in emulation_delay_bounds(preemptive))
    P = np.linspace(0.0, 1.4, 29)
    L = np.array([float(lo(p)) for p in P])
    U = np.array([float(hi(p)) for p in P])
    tol = 1e-3  # midpoint rule over 2e4 phases; the phase delay jumps
    # the extremal synchronisations attain the paper's bounds
    np.testing.assert_allclose(emulation_delay(P, N, 1.0, "staggered", preemptive), L, atol=tol)
    np.testing.assert_allclose(emulation_delay(P, N, 1.0, "aligned", preemptive), U, atol=tol)
    # and any other synchronisation lies between them (the paper's claim)
    rng = np.random.default_rng(10 + N)
    for _ in range(5):
        a = emulation_delay(P, N, 1.0, np.sort(rng.uniform(0, 1, N)), preemptive, n_phase=4000)
        assert np.all(a >= L - 2e-3) and np.all(a <= U + 2e-3)
    # equality for P >= P_F: N (P - P_F / 2)
    big = P >= 1
    np.testing.assert_allclose(L[big], N * (P[big] - 0.5))
    np.testing.assert_allclose(U[big], N * (P[big] - 0.5))


# ----------------------------------------------------------------------------- D_N, Poisson
def test_poisson_formula_derivation_and_printed_misprint():
    e = poisson_delay_expr()
    s = {x.name: x for x in e.free_symbols}
    N, rho, m = s["N"], s["rho"], s["m"]
    # the M/D/1 (Pollaczek-Khinchine) wait with service (N+1)P plus A(P) = N P / 2, minus the
    # delta reduction: written out by hand
    hand = ((N + 1) * rho / (2 * (1 - rho)) + N / 2
            - (N + 1) * (1 - rho) / rho * (1 - sp.exp(-rho * N / (N + 1) * m)))
    assert sp.simplify(e - hand) == 0
    # the printed first term rho/(2(1-rho)) misses N rho / (2 (1 - rho))
    assert sp.simplify(e - poisson_delay_expr(printed=True) - N * rho / (2 * (1 - rho))) == 0
    f = sp.lambdify((N, rho, m), e)
    rhos = np.array([0.1, 0.5, 0.9])
    for n, d in ((3, 0.0), (3, 1.0), (5, 0.2)):
        mm = min(d, (1 - 1 / n) / 2)
        np.testing.assert_allclose(telnet_delay(n, rhos, delta=d), f(n, rhos, mm), rtol=1e-12)
        np.testing.assert_allclose(telnet_delay(n, rhos, delta=2 * d, packet_time=2.0),
                                   2 * f(n, rhos, mm), rtol=1e-12)


def test_symbolic_limits():
    L = telnet_limits()
    N, W = sp.Symbol("N", positive=True, integer=True), sp.Symbol("W", positive=True, integer=True)
    assert sp.simplify(L["fq_delta0_rho0"] - N / 2) == 0  # N P / 2
    assert L["fq_deltaP_rho0"] == sp.Rational(1, 2)  # P / 2
    assert L["fq_rho1"] == sp.oo  # diverges as rho -> 1
    assert sp.simplify(L["fcfs_rho0"] - (N * W - sp.Rational(1, 2))) == 0  # (N W - 1/2) P
    assert L["fcfs_at_rho1"].is_finite is not False and sp.oo not in L["fcfs_at_rho1"].atoms()
    assert L["fcfs_rhoN1"] == sp.oo  # finite only below rho = N + 1
    # the printed formula has the same rho -> 0 limits (why the misprint is invisible there)
    assert sp.simplify(L["printed_delta0_rho0"] - N / 2) == 0
    assert L["printed_deltaP_rho0"] == sp.Rational(1, 2)
    # numeric functions at the limits
    assert telnet_delay(3, 0.0) == pytest.approx(1.5)
    assert telnet_delay(3, 0.0, delta=1.0) == pytest.approx(0.5)
    assert fcfs_telnet_delay(3, 5, 0.0) == pytest.approx(14.5)
    assert telnet_delay(3, 1 - 1e-9) > 1e8
    assert np.isfinite(fcfs_telnet_delay(3, 5, 3.999))


def test_fcfs_closed_form_matches_sympy():
    e = fcfs_delay_expr()
    s = {x.name: x for x in e.free_symbols}
    f = sp.lambdify((s["N"], s["W"], s["rho"]), e)
    rhos = np.array([0.0, 0.7, 2.0, 3.9])
    np.testing.assert_allclose(fcfs_telnet_delay(3, 5, rhos), f(3, 5, rhos), rtol=1e-12)


@pytest.mark.parametrize("rho", [0.5, 2.0, 3.0])
def test_fcfs_against_monte_carlo(rho):
    # seeded FIFO simulation; tolerance 4 standard errors (batch means) and at most 5 %
    mc = simulate_telnet_fcfs(3, 5, rho, n_packets=6000, seed=11)
    exact = fcfs_telnet_delay(3, 5, rho)
    assert abs(mc.mean - exact) <= 4 * mc.stderr
    assert abs(mc.mean - exact) <= 0.05 * exact


@pytest.mark.parametrize("delta", [0.0, 1.0])
def test_fq_curve_against_round_number_monte_carlo(delta):
    # N = 3, rho = 0.5, 3000 Telnet packets, seed 5: within 4 batch-means standard errors and 8 %
    mc = simulate_telnet_fq(3, 0.5, delta=delta, n_packets=3000, seed=5)
    exact = telnet_delay(3, 0.5, delta=delta)
    assert abs(mc.mean - exact) <= 4 * mc.stderr
    assert abs(mc.mean - exact) <= 0.08 * exact
    # the printed formula (2.0 P at delta = 0) is far outside
    assert abs(mc.mean - (exact - 3 * 0.5 / (2 * 0.5))) > 10 * mc.stderr


# ----------------------------------------------------------------------------- max-min share
def _one_link(demands, weights, capacity):
    flows = [Flow(route=["a", "b"], weight=w, max_rate=None if np.isinf(d) else d)
             for d, w in zip(demands, weights)]
    return Network(links=[Link("a", "b", capacity=capacity)], flows=flows)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0.01, 100.0), st.floats(0.1, 5.0)), min_size=1, max_size=12),
       st.floats(1.0, 300.0), st.booleans())
def test_maxmin_share_against_allocate(dw, capacity, one_unlimited):
    demands = np.array([d for d, _ in dw])
    weights = np.array([w for _, w in dw])
    if one_unlimited:
        demands[0] = np.inf
    rates, level = maxmin_share(demands, capacity, weights)
    ref = allocate(_one_link(demands, weights, capacity), "maxmin").rates
    np.testing.assert_allclose(rates, ref, rtol=1e-9, atol=1e-9)
    if np.isfinite(level):
        assert rates.sum() == pytest.approx(capacity, rel=1e-9)
        np.testing.assert_allclose(rates, np.minimum(demands, weights * level), rtol=1e-12)
    else:
        np.testing.assert_array_equal(rates, demands)


def test_maxmin_share_paper_example():
    rates, level = maxmin_share([1.0, 4.0, 10.0], 9.0)
    assert rates.tolist() == [1.0, 4.0, 4.0] and level == 4.0


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("call, match", [
    (lambda: telnet_delay(0, 0.5), r"N .* must be >= 1"),
    (lambda: telnet_delay(2.5, 0.5), r"N .* must be an integer"),
    (lambda: telnet_delay(3, 1.0), r"rho must lie in \[0, 1\)"),
    (lambda: telnet_delay(3, [0.2, -0.1]), r"rho must lie in \[0, 1\)"),
    (lambda: telnet_delay(3, 0.5, delta=-1.0), r"delta must be >= 0"),
    (lambda: telnet_delay(3, 0.5, packet_time=0.0), r"packet_time must be > 0"),
    (lambda: fcfs_telnet_delay(3, 5, 4.0), r"rho must lie in \[0, 4\)"),
    (lambda: fcfs_telnet_delay(0, 5, 1.0), r"N .* must be >= 1"),
    (lambda: fcfs_telnet_delay(3, 0, 1.0), r"W .* must be >= 1"),
    (lambda: fair_queue([0.0], [0], [-5], capacity=8.0), r"sizes must be > 0 bytes"),
    (lambda: fair_queue([0.0], [0], [0], capacity=8.0), r"sizes must be > 0 bytes"),
    (lambda: fair_queue([0.0], [0], [5], capacity=8.0, delta=-1), r"delta must be a number >= 0"),
    (lambda: fair_queue([0.0], [0], [5], capacity=0.0), r"capacity must be > 0"),
    (lambda: fair_queue([0.0], [-1], [5], capacity=8.0), r"conversations must be >= 0"),
    (lambda: fair_queue([0.0, 1.0], [0], [5], capacity=8.0), r"same length"),
    (lambda: fair_queue([np.nan], [0], [5], capacity=8.0), r"times must be finite"),
    (lambda: fair_queue([], [], [], capacity=8.0), r"trace is empty"),
    (lambda: fair_queue([0.0], [1], [5], capacity=8.0, weights=[1.0]), r"one entry per conv"),
    (lambda: fair_queue([0.0], [0], [5], capacity=8.0, weights=[0.0]), r"weights must be"),
    (lambda: maxmin_share([1.0, -1.0], 5.0), r"demands must be >= 0"),
    (lambda: maxmin_share([1.0], 0.0), r"capacity must be > 0"),
    (lambda: maxmin_share([1.0, 2.0], 1.0, [1.0]), r"weights must have the shape"),
    (lambda: simulate_telnet_fq(3, 0.0, seed=1), r"rho must be > 0"),
    (lambda: phase_delay(0.1, 0.5, 3, 1.0, sync=[0.0, 2.0, 0.1]), r"sync phases must be"),
])
def test_bad_input_raises(call, match):
    with pytest.raises(ScenarioError, match=match):
        call()


def test_fq_does_not_import_heavy_modules():
    code = ("import sys, qosmodels.fq; "
            "print(sorted(m for m in ('sympy', 'matplotlib', 'numba') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
