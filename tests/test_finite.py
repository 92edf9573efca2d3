"""Finite in, finite out: the closed forms of abe, pps, fq, tokenbucket, fairness and units.

Every row either refuses its input with the right exception naming the
argument, or (for extreme but valid input) returns finite numbers; and every
stochastic entry point follows simulate's seeding rule.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from qosmodels import abe, budget, fairness, fq, pps, tokenbucket, units
from qosmodels.errors import BudgetError, ScenarioError, ScenarioTypeError
from qosmodels.topologies import pps_multi_hop, pps_one_hop

LS = abe.LoopState(1.0, 0.1, 0.1, 0.0)
TB = tokenbucket.TokenBucket(depth=10_000, rate=800_000, peak_rate=1_600_000, max_packet=1000)

# ------------------------------------------------------------------ the issue's examples
ISSUE = [
    (lambda: abe.PAPER_LAW.update(LS, float("nan"), .1, 0.), ScenarioError, r"q_blue_m must be finite"),
    (lambda: abe.alpha(1e300, .01, 0, .14), ScenarioError, r"abe\.alpha: .*beta_star"),
    (lambda: abe.throughput("0.01", "0.1"), ScenarioTypeError, r"abe\.throughput\.loss"),
    (lambda: pps.exchange_rate(True, True), ScenarioTypeError, r"exchange_rate\.out_ticket_rate"),
    (lambda: fq.telnet_delay(float("inf"), 0.5), ScenarioError, r"telnet_delay\.N"),
    (lambda: fq.simulate_telnet_fq(3, 0.5, n_packets=-5, seed=1), ScenarioError, r"n_packets must be >= 1"),
    (lambda: fq.fair_queue([0.], [10**12], [100], capacity=8000), BudgetError, r"conversations"),
]


@pytest.mark.parametrize("call, exc, match", ISSUE)
def test_issue_examples_raise(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_pps_tiny_tickets_give_finite_rates():
    net = pps_multi_hop()
    r = pps.fair_rates(net, {k: 1e-320 for k in pps.FIG6_TICKETS})
    assert np.all(np.isfinite(r.rates))
    np.testing.assert_allclose(r.rates, pps.fair_rates(net, {k: 1.0 for k in pps.FIG6_TICKETS}).rates)
    one = pps_one_hop()
    r = pps.fair_rates(one, {k: 1e-320 for k in one.link_names})
    assert np.all(np.isfinite(r.rates)) and r.rates.sum() > 0


def test_pps_tiny_flow_tickets_fail_fast_naming_the_tickets():
    t0 = time.perf_counter()
    with pytest.raises(ScenarioError, match=r"link S0->S3 .*tickets and flow_tickets"):
        pps.fair_rates(pps_multi_hop(), pps.FIG6_TICKETS,
                       flow_tickets={"A": 1e-320, "B": 1.0, "C": 1.0})
    assert time.perf_counter() - t0 < 2.0


# ------------------------------------------------------------------ types and ranges
BAD = [
    # abe
    (lambda: abe.alpha(True, .01, 0, .14), ScenarioTypeError, r"beta_star"),
    (lambda: abe.alpha(1.5, None, 0, .14), ScenarioTypeError, r"q_blue"),
    (lambda: abe.delta(1.5, .01, 1j, .14), ScenarioTypeError, r"boost"),
    (lambda: abe.green_loss_target(1.5, .01, 0, "x"), ScenarioTypeError, r"rtt"),
    (lambda: abe.throughput_small_loss(.01, b"1"), ScenarioTypeError, r"rtt"),
    (lambda: abe.loss_for_throughput([1, "2"], .1), ScenarioTypeError, r"rate"),
    (lambda: abe.throughput_ratio(2, .01, 0, float("inf")), ScenarioError, r"rtt"),
    (lambda: abe.PAPER_LAW.update(LS, .1, 1.5, 0.), ScenarioError, r"q_green_m must be <= 1"),
    (lambda: abe.PAPER_LAW.update(LS, .1, .1, "0"), ScenarioTypeError, r"boost_m"),
    (lambda: abe.PAPER_LAW.update((1.0, .1), .1, .1, 0.), ScenarioTypeError, r"state"),
    (lambda: abe.PAPER_LAW.update(abe.LoopState(float("nan"), .1, .1, 0.), .1, .1, 0.),
     ScenarioError, r"state\.alpha"),
    (lambda: abe.PAPER_LAW.closed_loop(LS, float("inf"), 0.), ScenarioError, r"q_blue"),
    (lambda: abe.PAPER_LAW.closed_loop(LS, .1, 0., bias=True), ScenarioTypeError, r"bias"),
    (lambda: abe.PAPER_LAW.target_ratio("0.1", 0.), ScenarioTypeError, r"q_blue"),
    (lambda: abe.PAPER_LAW.fixed_point([.1, .2], 0.), ScenarioError, r"q_blue must be a single"),
    (lambda: abe.run_loop(periods=5, seed=0).tail_mean("beta", "half"), ScenarioTypeError,
     r"fraction"),
    (lambda: abe.run_loop(periods=5, seed=0).tail_mean("nope"), ScenarioError, r"name"),
    (lambda: abe.run_loop(periods=10**15, seed=0), BudgetError, r"periods"),
    (lambda: abe.run_loop(periods=10**400, seed=0), ScenarioError, r"periods"),
    # pps
    (lambda: pps.packet_tag("1", 1.0), ScenarioTypeError, r"out_ticket_rate"),
    (lambda: pps.poor_flow_rate(1.0, [True], 2.0), ScenarioTypeError, r"tickets"),
    (lambda: pps.tred_multiplier(1.0, None), ScenarioTypeError, r"in_tkt"),
    (lambda: pps.tred_drop_probability(float("nan"), 1.0, 1.0), ScenarioError, r"red_probability"),
    (lambda: pps.tred_tcp_shares(["a"]), ScenarioTypeError, r"tickets"),
    (lambda: pps.udp_drop_probability(1.0, 0.0), ScenarioError, r"avg_tkt"),
    (lambda: pps.udp_one_hop(1.0, 1.0, 2.0, "1"), ScenarioTypeError, r"capacity"),
    # fq
    (lambda: fq.telnet_delay(True, 0.5), ScenarioTypeError, r"\.N"),
    (lambda: fq.telnet_delay(10**400, 0.5), ScenarioError, r"\.N .* <= 2\*\*53"),
    (lambda: fq.telnet_delay(3, "0.5"), ScenarioTypeError, r"rho"),
    (lambda: fq.telnet_delay(3, 0.5, delta=float("nan")), ScenarioError, r"delta"),
    (lambda: fq.fcfs_telnet_delay(3, 2.5, 1.0), ScenarioError, r"\.W"),
    (lambda: fq.fcfs_telnet_delay(3, 5, 1.0, packet_time="1"), ScenarioTypeError, r"packet_time"),
    (lambda: fq.simulate_telnet_fq(3, 0.5, warmup=-1, seed=1), ScenarioError, r"warmup"),
    (lambda: fq.simulate_telnet_fq(3, 0.5, preemptive=1, seed=1), ScenarioTypeError, r"preemptive"),
    (lambda: fq.simulate_telnet_fq(3, 0.5, n_packets=10**10, seed=1), BudgetError, r"n_packets"),
    (lambda: fq.simulate_telnet_fcfs(3, 5, 0.5, n_packets=0, seed=1), ScenarioError, r"n_packets"),
    (lambda: fq.simulate_telnet_fcfs(10**6, 10**6, 0.5, seed=1), BudgetError, r"N W"),
    (lambda: fq.fair_queue(["0"], [0], [5], capacity=8.0), ScenarioTypeError, r"times"),
    (lambda: fq.fair_queue([0.0], [0], [True], capacity=8.0), ScenarioTypeError, r"sizes"),
    (lambda: fq.fair_queue([0.0], "0", [5], capacity=8.0), ScenarioTypeError, r"conversations"),
    (lambda: fq.fair_queue([0.0], [0], [5], capacity=8.0, delta="1"), ScenarioTypeError, r"delta"),
    (lambda: fq.fair_queue([0.0], [0], [5], capacity=8.0, weights=["1"]), ScenarioTypeError,
     r"weights"),
    (lambda: fq.maxmin_share(["1"], 1.0), ScenarioTypeError, r"demands"),
    (lambda: fq.maxmin_share([1.0], 1.0, [None]), ScenarioTypeError, r"weights"),
    (lambda: fq.phase_delay([0.1, float("inf")], 0.5, 3), ScenarioError, r"phase_delay\.r"),
    (lambda: fq.phase_delay(0.1, 0.5, 3, preemptive="no"), ScenarioTypeError, r"preemptive"),
    (lambda: fq.emulation_delay(0.5, 3, n_phase=0), ScenarioError, r"n_phase"),
    (lambda: fq.emulation_delay(0.5, 3, n_phase=10**13), BudgetError, r"n_phase"),
    (lambda: fq.emulation_delay_bounds(preemptive="yes"), ScenarioTypeError, r"preemptive"),
    (lambda: fq.delay_expr(general_delta=0), ScenarioTypeError, r"general_delta"),
    (lambda: fq.poisson_delay_expr(printed=None), ScenarioTypeError, r"printed"),
    (lambda: fq.poisson_delay_expr(cap=-1.0), ScenarioError, r"cap"),
    # tokenbucket
    (lambda: TB.arrival_curve("1"), ScenarioTypeError, r"arrival_curve\.t"),
    (lambda: TB.conforms([0.0], [100.0], rtol="0"), ScenarioTypeError, r"rtol"),
    (lambda: TB.shape([0.0, "1"], [100.0, 100.0]), ScenarioTypeError, r"times"),
    (lambda: tokenbucket.partition(TB, [0.1], rule=1), ScenarioTypeError, r"rule"),
    (lambda: tokenbucket.partition(TB, [1e308, 1e308]), ScenarioError, r"RTTs"),
    (lambda: tokenbucket.logical_fill([0.0], [1.0], "1"), ScenarioTypeError, r"tokens"),
    (lambda: tokenbucket.window_increase([True, 0.1]), ScenarioTypeError, r"rtts"),
    (lambda: tokenbucket.constant_rate_increase([1e200], 1e10), ScenarioError, r"a \* rtt"),
    (lambda: tokenbucket.increase_by_k([0.1], k="2"), ScenarioTypeError, r"\.k"),
    (lambda: tokenbucket.sawtooth_throughput("0.01", 0.1), ScenarioTypeError, r"loss"),
    (lambda: tokenbucket.sawtooth_throughput(0.01, 1e-308), ScenarioError, r"rtt"),
    (lambda: tokenbucket.simulate_sawtooth(0.01, [0.1]), ScenarioTypeError, r"rtt"),
    (lambda: tokenbucket.simulate_sawtooth(1e-300, 0.1), BudgetError, r"cycles"),
    (lambda: tokenbucket.simulate_sawtooth(0.01, 0.1, cycles=10**400), ScenarioError, r"cycles"),
    # fairness
    (lambda: fairness.jain_index(["1", "2"]), ScenarioTypeError, r"jain_index\.rates"),
    (lambda: fairness.jain_index([True, False]), ScenarioTypeError, r"rates"),
    (lambda: fairness.maxmin_jain_index([1.0], [None]), ScenarioTypeError, r"fair_shares"),
    (lambda: fairness.coefficient_of_variation([1.0, float("nan")]), ScenarioError, r"rates"),
    # units
    (lambda: units.Mbps("10"), ScenarioTypeError, r"units\.Mbps\.x"),
    (lambda: units.ms(True), ScenarioTypeError, r"units\.ms\.x"),
    (lambda: units.kbps(float("inf")), ScenarioError, r"units\.kbps\.x must be finite"),
    (lambda: units.Gbps(1e300), ScenarioError, r"units\.Gbps\.x must be at most"),
    (lambda: units.to_Mbps("1e6"), ScenarioTypeError, r"to_Mbps\.x"),
]


@pytest.mark.parametrize("call, exc, match", BAD)
def test_bad_input_is_refused_naming_the_field(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_bad_input_changes_nothing():
    demands = np.array([1.0, 4.0, 10.0])
    with pytest.raises(ScenarioError):
        fq.maxmin_share(demands, 9.0, weights=[1.0, -1.0, 1.0])
    np.testing.assert_array_equal(demands, [1.0, 4.0, 10.0])
    q = np.array([0.01, 0.02])
    with pytest.raises(ScenarioError):
        abe.alpha(1e300, q, 0.0, 0.14)
    np.testing.assert_array_equal(q, [0.01, 0.02])


# ------------------------------------------------------------------ extreme but valid: finite
OVERFLOW = [
    (lambda: abe.throughput(1e-300, 1e-300), r"rtt \* sqrt\(2 loss\)"),
    (lambda: abe.throughput_small_loss(1e-300, 1e-300), r"rtt \* sqrt\(loss\)"),
    (lambda: abe.loss_for_throughput(1e-200, 1e-200), r"rate \* rtt"),
    (lambda: abe.delta(1.5, 0.5, 1e300, 1e-300), r"beta_star \(1 \+ boost / rtt\)"),
    (lambda: abe.green_loss_target(1e300, 0.01, 0.0, 0.14), r"beta_star"),
    (lambda: abe.PAPER_LAW.target_ratio(0.01, 1e300), r"beta_star"),
    (lambda: abe.PAPER_LAW.fixed_point(0.01, 1e300), r"beta_star \(1 \+ boost / rtt\)"),
    (lambda: abe.PAPER_LAW.update(abe.LoopState(1.0, .5, 1e-300, 0.), 1.0, 1e-300, 0.),
     r"eq \(7\) gives alpha"),
    (lambda: pps.packet_tag(1e300, 1e-300), r"out_ticket_rate / avg_rate"),
    (lambda: pps.exchange_rate(1e300, 1e-300), r"OutTktRate / InTktRate"),
    (lambda: pps.tred_multiplier(1e200, 1.0), r"expect_tkt / in_tkt"),
    (lambda: pps.udp_one_hop(1e-300, 1e300, 1e300, 1.0), r"ticket_rate / send_rate"),
    (lambda: fq.telnet_delay(3, 0.5, packet_time=1e308), r"packet_time"),
    (lambda: fq.fcfs_telnet_delay(3, 5, 0.5, packet_time=1e308), r"packet_time"),
    (lambda: fq.fair_queue([0.0, 1.0], [0, 0], [1e300, 1e300], capacity=1e-300), r"overflows"),
    (lambda: fq.phase_delay(1e300, 0.5, 3, 1e-300), r"r / P_F"),
    (lambda: fq.maxmin_share([10.0, 10.0], 1.0, [1e-320, 1e-320]), r"weights"),
    (lambda: TB.arrival_curve(1e305), r"rate \* t"),
    (lambda: tokenbucket.TokenBucket(depth=1e300, rate=1e300, peak_rate=1e300 * (1 + 1e-15))
     .max_burst, r"peak_rate - rate"),
    (lambda: tokenbucket.TokenBucket(depth=1e3, rate=1e-306, max_packet=1e3).shape([0.0, 0.0], [1e3, 1e3]),
     r"departure"),
    (lambda: tokenbucket.sawtooth_throughput(1e-300, 1e-200, loss_model="time"), r"rtt"),
]


@pytest.mark.parametrize("call, match", OVERFLOW)
def test_overflow_is_an_error_saying_why(call, match):
    with pytest.raises(ScenarioError, match=match):
        call()


FINITE = [
    lambda: abe.throughput_ratio(2.0, 1e-300, 0.0, 1e-300),
    lambda: abe.throughput_ratio(1.0, 1.0, 1e300, 1e-300),
    lambda: abe.alpha(1e150, 1e-300, 0.0, 1e300),
    lambda: pps.poor_flow_rate(1e300, 1e300, 1e300),
    lambda: pps.tred_drop_probability([0.0, 0.5], 1e200, 1.0),
    lambda: pps.tred_tcp_shares([1e308, 1e308, 1e308], exponent=1e10),
    lambda: pps.udp_one_hop(1.0, 1e300, 1e300, 1e300).fair_share,
    lambda: pps.udp_drop_probability(1e300, 1e-300),
    lambda: fq.maxmin_share([1e308, 1e308], 1.0)[0],
    lambda: fq.telnet_delay(2**53, 1 - 1e-16),
    lambda: tokenbucket.TokenBucket(depth=1e300, rate=1.0, peak_rate=2.0).max_burst.size,
    lambda: tokenbucket.window_increase([1e200, 1e-200, 1e308]),
    lambda: tokenbucket.window_increase([1e308, 1e308]),
    lambda: fairness.jain_index([1e200, 1e200, 0.0]),
    lambda: fairness.jain_index([1e-200, 0.0]),
    lambda: fairness.maxmin_jain_index([1e10, 1.0], [1e-300, 1.0]),
    lambda: fairness.coefficient_of_variation([1e300, 1e300, 0.0]),
]


@pytest.mark.parametrize("call", FINITE)
def test_extreme_valid_input_gives_finite_output(call):
    out = np.asarray(call(), dtype=float)
    assert out.size and np.all(np.isfinite(out))


def test_display_helpers_pass_missing_values_through():
    out = units.to_ms(np.array([1.0, np.nan]))
    assert out[0] == 1000.0 and np.isnan(out[1])


def test_extreme_values_are_right():
    assert fairness.jain_index([1e200, 1e200, 0.0]) == pytest.approx(2 / 3)
    assert fairness.jain_index([1e-200, 0.0]) == pytest.approx(0.5)
    assert fairness.coefficient_of_variation([1e300, 1e300, 0.0]) == pytest.approx(
        fairness.coefficient_of_variation([1.0, 1.0, 0.0]))
    np.testing.assert_allclose(tokenbucket.window_increase([1e308, 1e308]), [1.0, 1.0])
    np.testing.assert_allclose(pps.tred_tcp_shares([1e308, 1e308]), [0.5, 0.5])
    assert pps.tred_drop_probability(0.5, 1e200, 1.0) == 1.0
    assert pps.poor_flow_rate(1e300, 1e300, 1e300) == pytest.approx(1e300)
    rates, level = fq.maxmin_share([1e308, 1e308], 1.0)
    assert rates.tolist() == [0.5, 0.5] and level == 0.5
    # throughput_ratio's fallback agrees with the direct form where both work
    direct = abe.throughput_ratio(2.0, 1e-3, 0.05, 0.14)
    assert direct == pytest.approx(abe.throughput_ratio(2.0, 1e-3, 0.05, 0.14))
    assert abe.throughput_ratio(2.0, 1e-300, 0.0, 1e-300) == pytest.approx(math.sqrt(2.0), rel=1e-6)


# ------------------------------------------------------------------ one seeding rule
def _poisson_link():
    from qosmodels import Flow, Link, Network
    from qosmodels.mechanisms import Poisson

    return Network([Link("a", "b", 1e6, 0.01, buffer=5)],
                   [Flow(["a", "b"], source=Poisson(rate=9e5)) for _ in range(2)])


def _simulate(seed):
    from qosmodels.sim import simulate

    r = simulate(_poisson_link(), 2.0, seed=seed, progress=False)
    return np.concatenate([r.throughput, r.mean_queueing_delay])


def _replicate(seed):
    from qosmodels.sim import replicate

    r = replicate(_poisson_link(), 2, 1.0, seed=seed)
    return np.concatenate([r.throughput, r.mean_queueing_delay])


def _random_network(seed):
    from qosmodels.topologies import random_network

    net = random_network(6, 4, seed=seed)
    return np.concatenate([net.capacities, net.delays, net.route_ptr, net.route_links])


def _web_bottlenecks(seed):
    from qosmodels.fluid.scenarios import acc_web_bottlenecks

    net = acc_web_bottlenecks(seed=seed, n_web=20, n_web_access=4)
    return np.array([f.start for f in net.flows] + list(net.delays))


STOCHASTIC = [
    ("simulate", _simulate),
    ("acc_web_bottlenecks", _web_bottlenecks),
    ("replicate", _replicate),
    ("random_network", _random_network),
    ("abe.run_loop", lambda seed: abe.run_loop(periods=20, seed=seed).alpha),
    ("fq.simulate_telnet_fq", lambda seed: fq.simulate_telnet_fq(3, 0.5, n_packets=40, warmup=5,
                                                                  seed=seed).delays),
    ("fq.simulate_telnet_fcfs", lambda seed: fq.simulate_telnet_fcfs(2, 2, 0.5, n_packets=40,
                                                                      warmup=5, seed=seed).delays),
]


@pytest.mark.parametrize("owner, run", STOCHASTIC)
def test_same_seed_same_numbers(owner, run):
    np.testing.assert_array_equal(run(3), run(3))
    np.testing.assert_array_equal(run(np.random.SeedSequence(5)), run(np.random.SeedSequence(5)))
    np.testing.assert_array_equal(run(np.random.default_rng(9)), run(np.random.default_rng(9)))
    np.testing.assert_array_equal(run(np.int64(3)), run(3))
    assert not np.array_equal(run(3), run(4))


@pytest.mark.parametrize("owner, run", STOCHASTIC)
@pytest.mark.parametrize("seed, exc", [(None, ScenarioTypeError), (1.5, ScenarioTypeError),
                                       ("1", ScenarioTypeError), (True, ScenarioTypeError),
                                       (-1, ScenarioError)])
def test_bad_seed_is_refused_like_simulate(owner, run, seed, exc):
    with pytest.raises(exc, match=rf"{owner}\.seed must be a non-negative int, a numpy "
                                  rf"SeedSequence or Generator"):
        run(seed)


@pytest.mark.parametrize("call", [
    lambda: abe.run_loop(periods=20),
    lambda: fq.simulate_telnet_fq(3, 0.5, n_packets=10),
    lambda: fq.simulate_telnet_fcfs(3, 5, 0.5, n_packets=10),
])
def test_seed_is_a_required_keyword(call):
    with pytest.raises(TypeError, match="required keyword-only argument: 'seed'"):
        call()


def test_budget_is_honoured_by_fair_queue():
    old = budget.set_memory_budget(2**20)
    try:
        with pytest.raises(BudgetError, match=r"fq\.fair_queue .*packets"):
            fq.fair_queue(np.zeros(5000), np.zeros(5000, dtype=int), np.ones(5000), capacity=8.0)
        fq.fair_queue(np.zeros(10), np.zeros(10, dtype=int), np.ones(10), capacity=8.0)
    finally:
        budget.set_memory_budget(old)
