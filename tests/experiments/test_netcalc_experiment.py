"""netcalc-tokenbucket: the chapter-1 bounds against the packets' worst case."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosmodels.experiments import netcalc as ne
from qosmodels.mechanisms import Cbr, OnOff
from qosmodels.sim import simulate

from .quick_runs import validate_quick


@pytest.fixture(scope="module")
def quick():
    return validate_quick(["netcalc-tokenbucket"])


def test_every_row_holds_and_the_greedy_source_meets_the_bound(quick):
    assert [c.quantity for c in quick.checks if c.verdict != "reproduced"] == []
    greedy = [c for c in quick.checks if "greedy" in c.quantity]
    assert len(greedy) == 2 * len(ne.CASES)
    for c in greedy:  # tight: the bound is reached up to the burst's spread, never passed
        assert 0.95 * c.expected <= c.packets.value <= c.expected * (1 + 1e-9), c.quantity
        assert c.theory.value == pytest.approx(c.expected, rel=1e-12)


def test_a_deeper_bucket_than_the_curve_says_breaks_the_backlog_bound():
    # the check can fail: shaped to depth 2b, the same source leaves a backlog above b
    b, r, R = ne.CASES[0]
    res = simulate(ne.network(2 * b, r, R, Cbr(rate=ne.SPEED * r)), 2.0, seed=0,
                   progress=False)
    delay, backlog = ne.worst(res, R)
    assert backlog > 1.5 * b and delay > 1.5 * 8.0 * b / R


def test_the_greedy_tolerance_is_the_bursts_spread():
    b, r, R = 8_000, 0.5e6, 4e6  # 8 packets 80 us apart: the last waits 560 us less
    assert ne.greedy_tolerance(b, r, R) == pytest.approx(560e-6 / 0.016 + ne.GREEDY_SLACK)


def test_pgps_is_never_more_than_l_max_over_c_behind_gps():
    report = validate_quick(["netcalc-pgps"])
    single = [c for c in report.checks if "chain" not in c.quantity]
    assert len(single) == len(ne.PGPS_SEEDS[True])
    for c in single:
        assert c.verdict == "reproduced"
        assert 0.0 < c.theory.value <= 1.0  # some packet is late: the bound is not vacuous
        assert c.packets.value <= 1.0
    chains = [c for c in report.checks if "chain" in c.quantity]
    assert len(chains) == len(ne.PGPS_CHAIN_SEEDS[True])
    for c in chains:  # within the end-to-end bound, and not by a factor of two
        assert c.verdict == "reproduced" and 0.5 < c.packets.value <= 1.0


def test_the_chain_beats_a_bound_without_the_per_hop_latencies():
    # the check can fail: the burst term b/g alone is exceeded (the hops' latencies are real)
    from qosmodels.netcalc import path_bound

    net, arrival = ne.pgps_chain(2)
    pb = path_bound(net, 0, arrival)
    res = simulate(net, ne.PGPS_CHAIN_RUN[True], seed=0, progress=False)
    seen = res.max_queueing_delay[0] + sum(8000.0 / lk.capacity for lk in net.links)
    assert seen > arrival.b / pb.service.R


def test_pgps_lateness_is_measured_against_gps_not_fifo():
    # the check can fail: FIFO on the same trace is far more than L_max / C behind GPS
    import numpy as np

    from qosmodels import fq

    specs = ne.pgps_scenario(3)
    times, conv, sizes = ne.pgps_trace(specs)
    ref = fq.fair_queue(times, conv, sizes, capacity=ne.PGPS_CAPACITY,
                        weights=[w for *_, w in specs])
    fifo = np.empty_like(times)
    free = 0.0
    for k, (t, s) in enumerate(zip(times, sizes)):
        free = max(free, t) + 8.0 * s / ne.PGPS_CAPACITY
        fifo[k] = free
    unit = 8.0 * sizes.max() / ne.PGPS_CAPACITY
    assert ((fifo - ref.br_departure) / unit).max() > 5.0


def test_drr_rows_hold_and_are_not_vacuous():
    report = validate_quick(["netcalc-drr"])
    tagged = sum(1 for s in ne.DRR_SEEDS[True] for *_, tagged, _ in ne.drr_scenario(s)[1]
                 if tagged)
    assert len(report.checks) == tagged
    for c in report.checks:
        assert c.verdict == "reproduced", c.quantity
        assert 0.2 < c.packets.value <= 1.0, c.quantity  # the bound is within 5x of the worst


def test_drr_sojourn_exceeds_the_bound_above_the_guaranteed_rate():
    # the check can fail: a tagged flow sending at 1.5 R_i is not (L_i, r_i <= R_i)-bounded,
    # and its sojourn grows past the bound within the quick run
    from qosmodels.netcalc import service_curve

    net = ne.drr_network(0)
    r_i = service_curve(None, 0, 0, net).R
    size = net.flows[0].packet_size
    bound = (service_curve(None, 0, 0, net).T + 8.0 * size / r_i)
    net = net.replace_flow(0, source=Cbr(rate=1.5 * r_i, packet_size=size))
    res = simulate(net, ne.DRR_RUN[True], seed=0, progress=False)
    assert res.max_queueing_delay[0] + 8.0 * size / ne.DRR_CAPACITY > 2.0 * bound


@settings(max_examples=8, deadline=None, derandomize=True)
@given(b=st.integers(2_000, 60_000), r=st.floats(0.1e6, 2e6), extra=st.floats(1.0, 4.0),
       seed=st.integers(0, 2**16), greedy=st.booleans())
def test_no_packet_run_exceeds_the_bounds(b, r, extra, seed, greedy):
    # property: random (b, r) shaped sources through a link of rate R >= r never pass the
    # delay bound b/R or the backlog bound b (the greedy ones reach them up to their spread).
    # worst()'s backlog (packets waiting + the one in transmission, whole) exceeds the
    # bit-level backlog by the part of that packet already sent, all of it when the shaper
    # releases a packet at the instant the line finishes one (seen: 3000 bytes for b = 2000
    # at R = r, 5000 for b = 4500 at R = 2r), so it is held to b + L
    R = extra * r
    source = (Cbr(rate=ne.SPEED * r) if greedy else
              OnOff(rate=ne.SPEED * r, on_time=0.2, off_time=0.3))
    res = simulate(ne.network(b, r, R, source), 2.0, seed=seed, progress=False)
    delay, backlog = ne.worst(res, R)
    assert delay <= 8.0 * max(b, ne.PACKET) / R * (1 + 1e-9)
    assert backlog <= (max(b, ne.PACKET) + ne.PACKET) * (1 + 1e-9)
