"""Clark and Fang's TSW profile marker (``qosmodels.sim._kernels.edges.profile_marker``).

The references are independent of the kernel under test:

* closed forms for a constant-rate stream of ``b``-bit packets ``g`` s apart: the TSW
  estimate's fixed point is ``b / g`` exactly (``avg (g + W) = avg W + b``), reached
  geometrically, ``avg_n - b / g = (avg_1 - b / g) (W / (W + g))^(n - 1)``; above its
  profile ``P`` such a stream goes out of profile with probability ``(R - P) / R``
  per packet (``R = b / g``), independently, so the out count is binomial; below its
  profile nothing goes out;
* :func:`marker_reference`, a plain-Python TSW estimator and tagger written from the
  PPS paper's Section 2.3 (quoting Clark and Fang) with the test module's own
  MRG32k3a generator (``tests/sim/test_rio.py``), fed the same ingress times (Cbr
  sources: first packet at the flow's start, each next ``size * 8 / rate`` s later):
  the in and out counts, whole run and inside the window, must be the kernel's.
"""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels import Aggregate, Flow, Link, Network, simulate
from qosmodels.mechanisms import Cbr, ProfileMarker
from qosmodels.sim import Rio
from qosmodels.sim.compile import compile_scenario

from .test_rio import Mrg32k3a, assert_same_run, cbr_arrivals, tcp_bottleneck

SIZE = 1000
BITS = SIZE * 8.0


def behind_marker(flows, marker, *, cap=1e9):
    """Constant-rate ``flows`` ((rate, start, name)) of SIZE-byte packets, all behind
    ``marker``, on a fast drop-tail link (nothing lost, nothing else draws numbers)."""
    fl = [Flow(["s", "d"], source=Cbr(rate=r), packet_size=SIZE, start=st, name=n)
          for r, st, n in flows]
    return Network([Link("s", "d", cap, 0.001, buffer=100_000)], fl,
                   aggregates=[Aggregate("m", flows=[n for *_, n in flows], edge=marker)])


def marker_reference(arrivals, profiles, window, warmup, rng):
    """TSW estimator and probabilistic tagger per member over ``arrivals`` (sorted
    ``(time, member)``): in and out counts per member, whole run and from ``warmup`` on.
    The estimate starts at the member's profile, ``t_front`` at 0."""
    rate = list(profiles)
    front = [0.0] * len(profiles)
    counts = np.zeros((4, len(profiles)), dtype=int)  # in, out, in (window), out (window)
    for t, m in arrivals:
        packets_in_tsw = rate[m] * window
        rate[m] = (packets_in_tsw + BITS) / (t - front[m] + window)
        front[m] = t
        p = profiles[m]
        out = rate[m] > p and rng() < (rate[m] - p) / rate[m]
        counts[int(out), m] += 1
        if t >= warmup:
            counts[2 + int(out), m] += 1
    return counts


# ------------------------------------------------------------------ the TSW estimate
@pytest.mark.parametrize("rate, profile, window, start", [
    (1e6, 0.6e6, 1.0, 0.0), (0.3e6, 1e6, 0.25, 2.0), (2e6, 0.0, 0.9, 0.7)])
def test_the_tsw_estimate_of_a_cbr_source_converges_to_its_rate(rate, profile, window, start):
    duration = 40.0
    net = behind_marker([(rate, start, "f")], ProfileMarker(profile=profile, window=window,
                                                            record=True))
    res = simulate(net, duration, seed=1, progress=False)
    est = res.traces["tsw_rate_m0"]
    times = cbr_arrivals(rate, start, np.inf, duration)
    np.testing.assert_array_equal(est.index.to_numpy(), times)
    avg = est.to_numpy()
    g = BITS / rate
    # the first packet: the initial estimate (the profile) decayed over [0, start]
    assert avg[0] == pytest.approx((profile * window + BITS) / (start + window), rel=1e-12)
    # then geometric convergence to b / g, factor W / (W + g) per packet
    n = np.arange(avg.size)
    closed = rate + (avg[0] - rate) * (window / (window + g)) ** n
    np.testing.assert_allclose(avg, closed, rtol=1e-9)
    # at steady state (here over 40 windows) AvgRate = b / g: the packet rate times the
    # packet size, to rounding
    assert avg[-1] == pytest.approx(rate, rel=1e-12)


# ------------------------------------------------------------------ the tagger
@pytest.mark.parametrize("rate, profile", [(1e6, 0.6e6), (0.8e6, 0.2e6), (0.5e6, 0.45e6),
                                           (0.4e6, 0.0)])
def test_a_cbr_above_its_profile_goes_out_with_probability_excess_over_rate(rate, profile):
    # after the 10 s warm-up the estimate is the rate to rounding (40 windows), so each
    # packet is out independently with probability (R - P) / R: binomial counts
    net = behind_marker([(rate, 0.0, "f")], ProfileMarker(profile=profile))
    res = simulate(net, 70.0, seed=3, warmup=10.0, progress=False)
    c = res.counters
    n_in, n_out = int(c["edge_in_profile_window"][0]), int(c["edge_out_of_profile_window"][0])
    n = n_in + n_out
    assert n == pytest.approx(60.0 * rate / BITS, abs=2)
    p = (rate - profile) / rate
    se = np.sqrt(max(p * (1 - p), 1e-12) / n)
    assert abs(n_out / n - p) <= 4.5 * se, (n_out / n, p)
    assert c["edge_in_profile"][0] + c["edge_out_of_profile"][0] == c["sent"][0]
    assert c["edge_dropped"][0] == 0 and c["edge_held"][0] == 0 and c["dropped"][0] == 0


@pytest.mark.parametrize("rate, profile, start", [(0.5e6, 0.6e6, 0.5), (1e6, 1.2e6, 3.0),
                                                  (0.2e6, 0.2e6 + 1.0, 5.0)])
def test_a_cbr_below_its_profile_is_all_in(rate, profile, start):
    # the estimate starts at the profile, decays over [0, start] below the rate (start
    # >= b / P), then rises to the rate without passing it: never above the profile
    assert start >= BITS / profile
    net = behind_marker([(rate, start, "f")], ProfileMarker(profile=profile))
    res = simulate(net, 30.0, seed=4, progress=False)
    c = res.counters
    assert c["edge_out_of_profile"][0] == 0
    assert c["edge_in_profile"][0] == c["sent"][0] > 100


def test_the_counts_replay_a_plain_python_marker_exactly():
    # three members with their own profiles (one below its rate, two above), staggered
    # starts, a warm-up inside the convergence: every tagging draw replayed
    flows = [(0.9e6, 0.0, "a"), (0.37e6, 0.213, "b"), (0.61e6, 1.47, "c")]
    profiles = (0.5e6, 0.6e6, 0.3e6)
    window, warmup, duration, seed = 0.8, 2.5, 30.5, 11
    net = behind_marker(flows, ProfileMarker(profile=profiles, window=window))
    arrivals = sorted((t, m) for m, (r, st, _) in enumerate(flows)
                      for t in cbr_arrivals(r, st, np.inf, duration))
    assert len({t for t, _ in arrivals}) == len(arrivals)
    rng = Mrg32k3a(compile_scenario(net, duration, seed=seed).rng)
    want = marker_reference(arrivals, profiles, window, warmup, rng)
    res = simulate(net, duration, seed=seed, warmup=warmup, progress=False)
    c = res.counters
    got = np.array([c["edge_in_profile"], c["edge_out_of_profile"],
                    c["edge_in_profile_window"], c["edge_out_of_profile_window"]])
    np.testing.assert_array_equal(got, want)
    assert want[1, 0] > 1000 and want[1, 2] > 1000 and want[1, 1] < want[0, 1] / 10


def test_window_senders_pass_unheld_and_runs_are_reproducible():
    # TCP members: the marker never holds a sender back nor drops (no gate, no hold);
    # every packet sent, retransmissions included, is counted in or out
    base = tcp_bottleneck(4)
    net = base.replace(aggregates=[Aggregate("g", flows=[0, 1, 2, 3],
                                             edge=ProfileMarker(profile=[2e6, 1.5e6,
                                                                         0.5e6, 0.0]))])
    net = net.replace_link("r->d", queue=Rio(min_in=10, max_in=30, min_out=3, max_out=12,
                                             w_q=0.02))
    a, b = (simulate(net, 15.0, seed=6, warmup=2.0, progress=False) for _ in range(2))
    assert_same_run(a, b)
    c = a.counters
    np.testing.assert_array_equal(c["edge_in_profile"] + c["edge_out_of_profile"], c["sent"])
    assert c["retransmitted"].sum() > 0
    assert c["edge_dropped"].sum() == c["edge_held"].sum() == c["edge_blocked"].sum() == 0
    assert c["edge_in_profile"][3] == 0 and c["edge_out_of_profile"][3] == c["sent"][3]
    assert not a.traces  # record=False: no channel
    other = simulate(net, 15.0, seed=9, warmup=2.0, progress=False)
    assert not np.array_equal(other.counters["edge_out_of_profile"], c["edge_out_of_profile"])
