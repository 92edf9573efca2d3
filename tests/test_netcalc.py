"""qosmodels.netcalc against brute-force evaluation on fine grids and Le Boudec and Thiran's
closed forms (Network Calculus, chapter 1)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.netcalc import (
    RateLatency,
    TokenBucketCurve,
    backlog_bound,
    concatenate,
    delay_bound,
    drr_service,
    output_curve,
    path_bound,
    pgps_service,
    residual,
    service_curve,
    trace_envelope,
)


def brute_deviations(alpha, beta, horizon, n=20001):
    """The horizontal and vertical deviations on a grid, from the curves' values only (the
    least d with beta(t + d) >= alpha(t), by a search in beta's values on a finer grid)."""
    t = np.linspace(0.0, horizon, n)[1:]
    a = np.array([alpha(x) for x in t])
    b = np.array([beta(x) for x in t])
    backlog = float(np.max(a - b))
    u = np.linspace(0.0, 4.0 * horizon, 20 * n)
    bu = np.array([beta(x) for x in u])  # non-decreasing
    reach = u[np.minimum(np.searchsorted(bu, a, side="left"), len(u) - 1)]
    return float(np.max(np.maximum(reach - t, 0.0))), backlog


def test_textbook_token_bucket_through_rate_latency():
    # Le Boudec and Thiran, Theorems 1.4.1-1.4.2: delay <= T + b / R, backlog <= b + r T
    a = TokenBucketCurve(b=8000.0, r=1e6)
    s = RateLatency(R=2e6, T=0.01)
    assert delay_bound(a, s) == pytest.approx(0.01 + 8000.0 / 2e6)
    assert backlog_bound(a, s) == pytest.approx(8000.0 + 1e6 * 0.01)
    # the output's burst grows by what arrives during the latency (Theorem 1.4.3)
    assert output_curve(a, s) == TokenBucketCurve(b=8000.0 + 1e6 * 0.01, r=1e6)


def test_the_intserv_guaranteed_service_bound_with_a_peak():
    # T-SPEC (b, r, p, M) through RateLatency(R, T), r <= R <= p: T + (M + (b - M)(p - R)
    # / (p - r)) / R (RFC 2212's bound with C = M, D = T R... written as Le Boudec's)
    b, r, p, m = 80_000.0, 1e6, 10e6, 12_000.0
    s = RateLatency(R=2e6, T=0.01)
    a = TokenBucketCurve(b=b, r=r, peak=p, max_packet=m)
    assert delay_bound(a, s) == pytest.approx(0.01 + (m + (b - m) * (p - s.R) / (p - r)) / s.R)
    # a peak below R: the bound is the packet's own transmission after the latency
    slow = TokenBucketCurve(b=b, r=r, peak=1.5e6, max_packet=m)
    assert delay_bound(slow, s) == pytest.approx(0.01 + m / s.R)


@pytest.mark.parametrize("arrival, service, horizon", [
    (TokenBucketCurve(8000.0, 1e6), RateLatency(2e6, 0.01), 0.2),
    (TokenBucketCurve(8000.0, 1e6), RateLatency(1e6, 0.0), 0.2),  # r = R
    (TokenBucketCurve(80_000.0, 1e6, peak=10e6, max_packet=12_000.0), RateLatency(2e6, 0.01),
     0.3),
    (TokenBucketCurve(80_000.0, 1e6, peak=1.5e6, max_packet=12_000.0), RateLatency(2e6, 0.05),
     0.5),
    (TokenBucketCurve(0.0, 3e5), RateLatency(5e5, 0.02), 0.2),
])
def test_the_deviations_agree_with_brute_force_on_a_grid(arrival, service, horizon):
    delay, backlog = brute_deviations(arrival, service, horizon)
    step = horizon / 20000
    fast = max(arrival.peak or 0.0, arrival.r, service.R)
    # the grid misses the exact breakpoint by up to a step, on a slope of at most fast / R
    assert delay_bound(arrival, service) == pytest.approx(delay, abs=step * fast / service.R
                                                          + 4 * horizon / 400000 + 1e-9)
    assert backlog_bound(arrival, service) == pytest.approx(
        backlog, abs=2 * step * max(arrival.peak or 0.0, arrival.r, service.R) + 1e-6)


def test_concatenation_pays_the_burst_once():
    a = TokenBucketCurve(b=40_000.0, r=1e6)
    hops = [RateLatency(5e6, 0.002), RateLatency(3e6, 0.004), RateLatency(4e6, 0.001)]
    end = concatenate(*hops)
    assert end == RateLatency(R=3e6, T=0.007)
    # the end-to-end bound against the sum of per-hop bounds, each hop fed the previous output
    per_hop, arr = 0.0, a
    for s in hops:
        per_hop += delay_bound(arr, s)
        arr = output_curve(arr, s)
    assert delay_bound(a, end) == pytest.approx(0.007 + 40_000.0 / 3e6)
    assert delay_bound(a, end) < per_hop
    # the convolution's values on a grid: inf over s of beta1(s) + beta2(t - s)
    b1, b2 = hops[0], hops[1]
    conv = concatenate(b1, b2)
    for t in np.linspace(0.0, 0.05, 26):
        s = np.linspace(0.0, t, 2001)
        brute = float(np.min([b1(x) + b2(t - x) for x in s]))
        assert conv(t) == pytest.approx(brute, abs=1e-6 + 3e6 * t / 2000)


def test_residual_service_of_blind_multiplexing():
    s = RateLatency(R=10e6, T=0.001)
    cross = TokenBucketCurve(b=50_000.0, r=4e6)
    left = residual(s, cross)
    assert left.R == pytest.approx(6e6)
    assert left.T == pytest.approx(0.001 + (50_000.0 + 4e6 * 0.001) / 6e6)
    # [beta - alpha_cross]+ on a grid is at least the residual curve (it is a service curve)
    for t in np.linspace(0.0, 0.05, 51):
        assert max(s(t) - cross(t), 0.0) >= left(t) - 1e-6


def test_pgps_latency():
    # Parekh-Gallager: R = share * C, latency L_i / R + L_max / C
    s = pgps_service(capacity=10e6, share=0.25, max_packet=12_000.0, flow_packet=4000.0)
    assert s.R == pytest.approx(2.5e6)
    assert s.T == pytest.approx(4000.0 / 2.5e6 + 12_000.0 / 10e6)


@settings(max_examples=60, deadline=None)
@given(b=st.floats(0.0, 1e6), r=st.floats(0.0, 1e7), extra=st.floats(0.0, 1e7),
       T=st.floats(0.0, 0.5))
def test_no_point_of_the_curves_exceeds_the_bounds(b, r, extra, T):
    a = TokenBucketCurve(b=b, r=r)
    s = RateLatency(R=r + extra + 1.0, T=T)
    d, q = delay_bound(a, s), backlog_bound(a, s)
    assert math.isfinite(d) and math.isfinite(q)
    for t in np.linspace(1e-9, 2.0 + T, 200):
        assert a(t) - s(t) <= q * (1 + 1e-12) + 1e-9           # backlog
        assert s(t + d) >= a(t) * (1 - 1e-12) - 1e-6           # delay


@pytest.mark.parametrize("call, error, match", [
    (lambda: TokenBucketCurve(b=-1.0, r=1.0), ScenarioError, r"TokenBucketCurve.b must be >= 0"),
    (lambda: TokenBucketCurve(b=1.0, r=2.0, peak=1.0), ScenarioError, r"peak must be >= 2"),
    (lambda: TokenBucketCurve(b=1.0, r=1.0, peak=2.0, max_packet=5.0), ScenarioError,
     r"max_packet must be <= b"),
    (lambda: RateLatency(R=0.0), ScenarioError, r"RateLatency.R must be > 0"),
    (lambda: delay_bound(TokenBucketCurve(1.0, 2e6), RateLatency(1e6)), ScenarioError,
     r"exceeds the service rate R = 1e\+06 bit/s"),
    (lambda: backlog_bound(RateLatency(1e6), TokenBucketCurve(1.0, 1.0)), ScenarioTypeError,
     r"arrival must be a TokenBucketCurve"),
    (lambda: concatenate(), ScenarioError, r"at least one"),
    (lambda: residual(RateLatency(1e6), TokenBucketCurve(1.0, 1e6)), ScenarioError,
     r"leaves nothing"),
    (lambda: pgps_service(1e6, 1.5, 1000.0), ScenarioError, r"share must be <= 1"),
])
def test_bad_curves_are_refused_with_the_field_named(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ------------------------------------------------------------------ DRR and service_curve
def test_drr_latency_by_hand():
    # ((F - Q_i)(1 + L_i / Q_i) + sum_j L_j) / C, worked by hand
    s = drr_service(1e6, [8000.0, 8000.0], 0, [8000.0, 8000.0])
    assert (s.R, s.T) == (5e5, pytest.approx((8000.0 * 2.0 + 16000.0) / 1e6))
    s = drr_service(1e6, [4000.0, 12000.0], 0, [8000.0, 2000.0])  # F = 16000
    assert s.R == pytest.approx(0.25e6)
    assert s.T == pytest.approx((12000.0 * 3.0 + 10000.0) / 1e6)  # 0.046 s
    s = drr_service(1e6, [4000.0, 12000.0], 1, [8000.0, 2000.0])
    assert s.R == pytest.approx(0.75e6)
    assert s.T == pytest.approx((4000.0 * (1.0 + 2000.0 / 12000.0) + 10000.0) / 1e6)


def _drr_replay_scenario(seed):
    """A random DRR line for :func:`tests.sim.test_drr.drr_replay`: on/off conversations of
    random packet sizes, weights and rates (up to the line's during "on"), the quantum per
    unit weight.  Returns (capacity, sizes, quanta bytes, the replay's departures)."""
    from .sim.test_drr import drr_replay

    rng = np.random.default_rng(seed)
    cap = 1e6
    n = int(rng.integers(2, 6))
    sizes = [int(rng.integers(40, 1501)) for _ in range(n)]
    weights = [float(rng.choice([0.5, 1.0, 2.0, 3.0])) for _ in range(n)]
    quantum = float(rng.choice([max(sizes), 500.0, 1500.0, 3000.0]))
    arrivals = []
    for i in range(n):
        t = float(rng.uniform(0.0, 0.2))
        while t < 3.0:
            gap = 8.0 * sizes[i] / (cap * float(rng.uniform(0.05, 1.0)))
            arrivals += [(t + k * gap, i, sizes[i]) for k in range(int(rng.integers(1, 40)))]
            t += int(rng.integers(1, 40)) * gap + float(rng.exponential(0.2))
    arrivals.sort(key=lambda a: (a[0], a[1]))
    quanta = [quantum * w for w in weights]
    deps, _ = drr_replay(arrivals, dict(enumerate(quanta)), cap)
    return cap, sizes, quanta, deps


def _service_shortfall(cap, sizes, deps, i, curve):
    """The most bits conversation ``i``'s departures fall below ``(A (x) beta)(t) = inf_{s <=
    t} A(s) + beta(t - s)`` (the min-plus service-curve property, Le Boudec and Thiran
    Definition 1.3.1), with ``A`` its arrivals and ``beta = curve``.  Checked when each of
    its transmissions starts, where its bit-level departures ``D`` are lowest (they rise only
    while it is on the line); ``s`` ranges over its arrival instants (``A(s-)``, where the
    infimum lies) and ``t`` itself."""
    bits = 8.0 * sizes[i]
    pk = [(a, t) for j, _, a, t in deps if j == i]
    arr = np.array([a for a, _ in pk])
    worst = 0.0
    for k, (_, t) in enumerate(pk):
        m = np.flatnonzero(arr <= t)
        need = min(len(m) * bits,
                   float(np.min(m * bits + curve.R * np.maximum(t - arr[m] - curve.T, 0.0))))
        worst = max(worst, need - k * bits)
    return worst


@pytest.mark.parametrize("seed", range(12))
def test_the_drr_service_curve_holds_on_a_replay_of_the_pseudo_code(seed):
    # an independent replay of Shreedhar and Varghese's Fig. 3 (tests/sim/test_drr.py): every
    # conversation's departures stay above A (x) beta for the curve drr_service gives it
    cap, sizes, quanta, deps = _drr_replay_scenario(seed)
    n = len(sizes)
    for i in range(n):
        curve = drr_service(cap, [8.0 * q for q in quanta], i, [8.0 * s for s in sizes])
        assert _service_shortfall(cap, sizes, deps, i, curve) <= 1e-6, i


def test_the_replay_check_can_fail():
    # the same check with half the latency finds departures below the curve in some scenario
    # (so the latency is not loose by a factor of two there), and with the latency but the
    # whole line's rate as well
    halves = fulls = 0
    for seed in range(12):
        cap, sizes, quanta, deps = _drr_replay_scenario(seed)
        for i in range(len(sizes)):
            c = drr_service(cap, [8.0 * q for q in quanta], i, [8.0 * s for s in sizes])
            halves += _service_shortfall(cap, sizes, deps, i, RateLatency(c.R, c.T / 2)) > 0
            fulls += _service_shortfall(cap, sizes, deps, i, RateLatency(cap, c.T)) > 0
    assert halves > 0 and fulls > 0


def _drr_net(quantum, specs, *, tcp=False):
    from qosmodels import Flow, Link, Network
    from qosmodels.mechanisms import Cbr, Drr, TcpNewReno

    links = [Link("a", "b", 1e6, 0.001, queue=Drr(quantum=quantum))]
    if tcp:
        links.append(Link("b", "a", 1e6, 0.001, queue=Drr(quantum=quantum)))
    flows = [Flow(["a", "b"], source=TcpNewReno() if tcp and k == 0 else Cbr(rate=1e5),
                  packet_size=size, weight=w) for k, (size, w) in enumerate(specs)]
    return Network(links, flows)


def test_service_curve_of_drr_counts_every_conversation():
    specs = [(1000, 1.0), (400, 2.0), (1500, 0.5)]
    net = _drr_net(None, specs)  # quantum None: the largest packet, 1500 bytes
    q = [8.0 * 1500 * w for _, w in specs]
    sizes = [8.0 * s for s, _ in specs]
    for i in range(3):
        assert service_curve(None, "a->b", i, net) == drr_service(1e6, q, i, sizes)
    net = _drr_net(700.0, specs)
    assert service_curve(None, 0, 1, net) == drr_service(
        1e6, [8.0 * 700 * w for _, w in specs], 1, sizes)
    # a TCP flow's ACKs come back over b->a as a conversation of 40-byte packets there; on
    # a->b its data is one conversation among the three
    net = _drr_net(1500.0, specs, tcp=True)
    assert service_curve(None, 0, 0, net) == drr_service(1e6, q, 0, sizes)


def test_service_curve_of_fifo_fair_queueing_and_priority():
    from qosmodels import Flow, Link, Network
    from qosmodels.mechanisms import Cbr, FairQueueing, Priority

    def net(queue, prio=(0, 0, 0)):
        return Network([Link("a", "b", 1e6, 0.001, queue=queue)],
                       [Flow(["a", "b"], source=Cbr(rate=1e5, priority=p), packet_size=s,
                             weight=w) for p, s, w in zip(prio, (1000, 500, 1500),
                                                          (1.0, 3.0, 1.0))])

    plain = Network([Link("a", "b", 1e6, 0.001)],
                    [Flow(["a", "b"], source=Cbr(rate=1e5))])
    assert service_curve(None, 0, 0, plain) == RateLatency(1e6, 0.0)
    cross = TokenBucketCurve(b=12000.0, r=3e5)
    assert service_curve(None, 0, 0, plain, cross=cross) == residual(RateLatency(1e6), cross)
    fq = service_curve(None, 0, 1, net(FairQueueing()))
    assert fq == pgps_service(1e6, 3.0 / 5.0, 8.0 * 1500, 8.0 * 500)
    pr = net(Priority(classes=2), prio=(0, 1, 1))
    # class 0 waits for at most one lower-class packet in transmission: 1500 bytes
    assert service_curve(None, 0, 0, pr) == RateLatency(1e6, 8.0 * 1500 / 1e6)
    with pytest.raises(ScenarioError, match="cross="):
        service_curve(None, 0, 1, pr)
    low = service_curve(None, 0, 2, pr, cross=cross)
    assert low == residual(RateLatency(1e6, 0.0), cross)  # nothing below class 1


def test_service_curve_refusals_name_the_problem():
    from qosmodels import Flow, Link, Network
    from qosmodels.mechanisms import AbeQueue, Cbr, Drr, FairQueueing

    net = _drr_net(None, [(1000, 1.0), (500, 1.0)])
    with pytest.raises(ScenarioError, match="pass network="):
        service_curve(None, net.links[0], net.flows[0])
    with pytest.raises(ScenarioError, match="delta = 0"):
        service_curve(FairQueueing(delta=0.5), 0, 0, net)
    with pytest.raises(ScenarioError, match="AbeQueue"):
        service_curve(AbeQueue(), 0, 0, net)
    with pytest.raises(ScenarioTypeError, match="Link"):
        service_curve(Drr(), "a->b", 0)
    two = Network([Link("a", "b", 1e6, 0.001), Link("b", "c", 1e6, 0.001)],
                  [Flow(["b", "c"], source=Cbr(rate=1e5))])
    with pytest.raises(ScenarioError, match="does not cross"):
        service_curve(None, "a->b", 0, two)
    for call, match in ((lambda: drr_service(1e6, [], 0, []), "empty"),
                        (lambda: drr_service(1e6, [1.0, 2.0], 2, [1.0, 1.0]), "flow = 2"),
                        (lambda: drr_service(1e6, [1.0], 0, [1.0, 2.0]), "max_packets"),
                        (lambda: drr_service(1e6, [0.0], 0, [1.0]), r"quanta\[0\]")):
        with pytest.raises(ScenarioError, match=match):
            call()


# ------------------------------------------------------------------ traces and paths
@pytest.mark.parametrize("seed", range(5))
def test_trace_envelope_is_the_least_bucket_over_every_pair(seed):
    rng = np.random.default_rng(seed)
    n = 120
    times = np.sort(rng.uniform(0.0, 1.0, n))
    times[10:14] = times[10]  # simultaneous arrivals
    sizes = rng.integers(320, 12_000, n).astype(float)
    rates = [0.0, 1e5, 5e5, float(sizes.sum() / times[-1]), 5e6]
    got = trace_envelope(times, sizes, rates)
    for curve, r in zip(got, rates):
        brute = max(sizes[k:m + 1].sum() - r * (times[m] - times[k])
                    for k in range(n) for m in range(k, n))
        assert curve.r == r and curve.b == pytest.approx(brute, rel=1e-12)
    bursts = [c.b for c in got]
    assert bursts == sorted(bursts, reverse=True) and bursts[0] == sizes.sum()


def test_trace_envelope_refuses_bad_traces():
    with pytest.raises(ScenarioError, match="non-decreasing"):
        trace_envelope([0.0, 1.0, 0.5], [1.0, 1.0, 1.0], [1.0])
    with pytest.raises(ScenarioError, match="one length"):
        trace_envelope([0.0, 1.0], [1.0], [1.0])
    with pytest.raises(ScenarioError, match="sizes"):
        trace_envelope([0.0, 1.0], [1.0, 0.0], [1.0])
    with pytest.raises(ScenarioError, match="rates"):
        trace_envelope([0.0, 1.0], [1.0, 1.0], [-1.0])


def _chain(queue):
    from qosmodels import Flow, Link, Network
    from qosmodels.mechanisms import Cbr

    hops = (("a", "b"), ("b", "c"), ("c", "d"))
    links = [Link(x, y, 2e6, 0.002, queue=queue) for x, y in hops]
    flows = [Flow(["a", "b", "c", "d"], source=Cbr(rate=1e5), packet_size=1000)]
    flows += [Flow([x, y], source=Cbr(rate=1e5, packet_size=1500), packet_size=1500)
              for x, y in hops]
    return Network(links, flows)


def test_path_bound_composes_the_hops_by_hand():
    from qosmodels.mechanisms import DropTail, FairQueueing

    arrival = TokenBucketCurve(b=40_000.0, r=3e5)
    # PGPS hops, share 1/2 of 2 Mb/s: T = 8000/1e6 + 12000/2e6 = 0.014 s each, no packetizer
    pb = path_bound(_chain(FairQueueing()), 0, arrival)
    assert [(h.R, h.T) for h in pb.hops] == [(1e6, pytest.approx(0.014))] * 3
    assert (pb.service.R, pb.service.T) == (1e6, pytest.approx(0.042))
    assert pb.delay == pytest.approx(0.042 + 40_000.0 / 1e6)
    assert pb.backlog == pytest.approx(40_000.0 + 3e5 * 0.042)
    assert pb.propagation == pytest.approx(0.006) and pb.total_delay == pb.delay + 0.006
    # FIFO hops with a (12000 bits, 5e5 bit/s) cross flow: residual R = 1.5e6, T = 0.008,
    # plus the packetizer's 8000 / 1.5e6 on the first two hops
    cross = TokenBucketCurve(b=12_000.0, r=5e5)
    pb = path_bound(_chain(DropTail()), 0, arrival, cross={"a->b": cross, "b->c": cross,
                                                            "c->d": cross})
    t = 12_000.0 / 1.5e6
    assert [h.T for h in pb.hops] == pytest.approx([t + 8000.0 / 1.5e6] * 2 + [t])
    assert pb.delay == pytest.approx(3 * t + 2 * 8000.0 / 1.5e6 + 40_000.0 / 1.5e6)
    table = pb.to_pandas()
    assert list(table.index) == ["a->b", "b->c", "c->d", "end to end"]
    assert table.loc["end to end", "delay_bound_s"] == pytest.approx(pb.delay)


def test_path_bound_plots_and_refuses():
    import matplotlib

    matplotlib.use("Agg")
    from qosmodels.mechanisms import FairQueueing

    pb = path_bound(_chain(FairQueueing()), 0, TokenBucketCurve(b=40_000.0, r=3e5))
    ax = pb.plot(observed=0.05)
    assert len(ax.lines) == 2
    with pytest.raises(ScenarioTypeError, match="TokenBucketCurve"):
        path_bound(_chain(FairQueueing()), 0, RateLatency(1e6))
    with pytest.raises(ScenarioError, match="exceeds the service rate"):
        path_bound(_chain(FairQueueing()), 0, TokenBucketCurve(b=1.0, r=1.5e6))


def test_arrival_of_reads_the_flows_token_bucket_edge():
    from qosmodels import Flow, Link, Network
    from qosmodels.mechanisms import AggregateBucket, Cbr
    from qosmodels.netcalc import arrival_of
    from qosmodels.network import Aggregate

    def net(edge):
        return Network([Link("a", "b", 4e6, 0.001)],
                       [Flow(["a", "b"], source=Cbr(rate=1e6)), Flow(["a", "b"])],
                       aggregates=[Aggregate("g", flows=[0], edge=edge)])

    a = arrival_of(net(AggregateBucket(rate=5e5, depth=20_000, max_packet=1000)), 0)
    assert (a.b, a.r, a.peak) == (160_000.0, 5e5, None)
    a = arrival_of(net(AggregateBucket(rate=5e5, depth=20_000, peak_rate=2e6,
                                       max_packet=1000)), 0)
    assert (a.peak, a.max_packet) == (2e6, 8000.0)
    shaped = net(AggregateBucket(rate=5e5, depth=20_000, max_packet=1000))
    assert path_bound(shaped, 0) == path_bound(shaped, 0, TokenBucketCurve(160_000.0, 5e5))
    assert path_bound(shaped, 0).delay == pytest.approx(160_000.0 / 4e6)
    with pytest.raises(ScenarioError, match="in no aggregate"):
        arrival_of(shaped, 1)
    with pytest.raises(ScenarioError, match="marks"):
        arrival_of(net(AggregateBucket(rate=5e5, depth=20_000, max_packet=1000,
                                       action="mark")), 0)


def test_shaper_service_is_the_rate_the_member_is_sure_of():
    from qosmodels import Flow, Link, Network
    from qosmodels.mechanisms import AggregateBucket, Cbr
    from qosmodels.netcalc import shaper_service
    from qosmodels.network import Aggregate

    def net(**kw):
        return Network([Link("a", "b", 4e6, 0.001)],
                       [Flow(["a", "b"], source=Cbr(rate=1e6)) for _ in range(3)],
                       aggregates=[Aggregate("g", flows=[0, 1], edge=AggregateBucket(
                           rate=6e5, depth=20_000, max_packet=1000, **kw))])

    assert shaper_service(net(sharing="common"), 0) == RateLatency(6e5, 0.0)
    assert shaper_service(net(sharing="partitioned"), 1) == RateLatency(3e5, 0.0)
    assert shaper_service(net(), 0) == RateLatency(3e5, 0.0)  # logical, the default
    with pytest.raises(ScenarioError, match="in no aggregate whose AggregateBucket shapes"):
        shaper_service(net(), 2)
    with pytest.raises(ScenarioError, match="policer"):
        shaper_service(net(action="police"), 0)
