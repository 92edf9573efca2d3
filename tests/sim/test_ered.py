"""ERED (``qosmodels.sim._kernels.queues.ered``): RED whose early-drop probability ``p_a``
(after the count spacing) is divided by ``marked_factor`` for in-profile packets.

The two curves are measured at kernel level: a small jitted driver offers packets,
marked or not, to a compiled one-link Ered network through ``dispatch.queue_admit``
with the queue held at a chosen level (``w_q = 1``: the average is the queue).  The
references are closed forms from the papers, computed here independently of the
kernel:

* RED's ``p_b(avg)`` (Floyd and Jacobson 1993, Section 4 and Figure 2; the gentle
  ramp of Floyd 1997), the drop probability of the first arrival after a fresh
  ``count``, and ``p_b / marked_factor`` for a marked one (Mehra, Tewari and Kandlur,
  Section 4.1: "a 1.5 times lower drop probability"; ERED of Feng et al., NOSSDAV
  1997);
* the uniform spacing ``p_a = p_b / (1 - count p_b)`` of Figure 2 with one ``count``
  for both kinds, a marked packet's ``p_a`` divided by ``marked_factor``: the long-run
  drop fraction of each kind from the renewal argument over ``count`` (see
  :func:`spaced_fractions`), whose ratio is then ``marked_factor`` exactly.

Without marked packets an Ered link must run exactly as a Red one (same seed, same
result), which is checked end to end through ``simulate``.  End to end with marks, an
edge marker (:class:`~qosmodels.mechanisms.AggregateBucket` with ``action="mark"``)
sets them on one Poisson stream and not on another: each stream's arrivals see the
queue's time-average state (PASTA), so the ratio of their early-drop fractions is
``marked_factor`` in expectation.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from qosmodels import Flow, Link, Network, topologies
from qosmodels.sim import Ered, Record, Red, TcpNewReno, TcpReno, simulate
from qosmodels.sim._kernels.layout import (
    KIND_DATA,
    LI_CODE,
    LI_DROP_EARLY,
    LI_DROP_FORCED,
    LI_MARKS,
    LI_RED_COUNT,
    LI_TX,
    LI_WAITING,
    MARK_CE,
    MARK_IN_PROFILE,
    PI_FLOW,
    PI_KIND,
    PI_MARK,
)
from qosmodels.sim.compile import compile_scenario

# the kernel's dispatch, from the queue tests' variant (tests/sim/queue_kernels.py)
from .queue_kernels import queue_admit

ADMIT = -1


@njit
def offer(S, l, p, marked, waiting, fresh, verdict, ce):
    """Offer packet ``p`` to link ``l`` once per entry of ``marked`` (in profile or not),
    the link busy and ``waiting`` packets queued; ``fresh``: reset RED's ``count`` to -1
    before each arrival (as after the average was below ``min_th``).  Writes the
    queue's verdict (-1 admit, else the drop cause's column) and whether the packet
    left with the ECN congestion mark."""
    for i in range(marked.shape[0]):
        S.li[l, LI_TX] = p  # busy: no idle decay of the average
        S.li[l, LI_WAITING] = waiting
        if fresh:
            S.li[l, LI_RED_COUNT] = -1
        S.pi[p, PI_MARK] = MARK_IN_PROFILE if marked[i] else 0
        verdict[i] = queue_admit(S, S.li[l, LI_CODE], l, p)
        ce[i] = (S.pi[p, PI_MARK] & MARK_CE) != 0


def kernel_state(queue, ecn=False):
    """The compiled arrays of one link with ``queue`` and one flow, packet 0 a data
    packet of that flow (the driver reuses it for every arrival)."""
    net = Network([Link("a", "b", 1e6, 0.0, buffer=1000, queue=queue)],
                  [Flow(["a", "b"], source=TcpReno(ecn=ecn))])
    S = compile_scenario(net, 1.0, seed=12)
    S.pi[0, PI_FLOW] = 0
    S.pi[0, PI_KIND] = KIND_DATA
    return S


def run(S, marked, waiting, fresh):
    verdict = np.empty(len(marked), dtype=np.int64)
    ce = np.empty(len(marked), dtype=np.bool_)
    offer(S, 0, 0, np.asarray(marked, dtype=np.bool_), waiting, fresh, verdict, ce)
    return verdict, ce


def p_b(avg, q):
    """RED's early-drop probability at average queue ``avg`` (Floyd and Jacobson 1993,
    Figure 2; gentle: linear from max_p at max_th to 1 at 2 max_th, Floyd 1997)."""
    if avg < q.min_th:
        return 0.0
    if avg < q.max_th:
        return q.max_p * (avg - q.min_th) / (q.max_th - q.min_th)
    assert q.gentle and avg < 2 * q.max_th
    return q.max_p + (1 - q.max_p) * (avg - q.max_th) / q.max_th


def spaced_fractions(pb, factor, share_marked):
    """Long-run early-drop fraction of unmarked and of marked arrivals at a fixed average,
    under Figure 2's uniform spacing with one ``count`` for both kinds.

    ``count`` is incremented on every arrival and reset to 0 by a drop; an unmarked
    arrival that finds ``count = c`` (after the increment) is dropped with
    ``h(c) = min(1, p_b / (1 - c p_b))`` (1 once ``c p_b >= 1``), a marked one with
    ``h(c) / factor``.  Arrivals are marked independently with probability
    ``share_marked``.  Between two drops the ``c``-th arrival happens
    with probability ``R(c) = prod_{j < c} (1 - hbar(j))``, ``hbar`` the hazard averaged
    over the kinds; by renewal-reward the fraction of a kind's arrivals dropped is
    ``sum_c R(c) h_kind(c) / sum_c R(c)`` (marks independent of ``count``), so the
    unmarked fraction is ``factor`` times the marked one.
    """
    c = np.arange(1, 200_001, dtype=float)

    if pb == 0.0:
        hu = np.zeros_like(c)
    else:
        hu = np.ones_like(c)
        ok = c * pb < 1.0
        hu[ok] = np.minimum(1.0, pb / (1.0 - c[ok] * pb))
    hm = hu / factor
    hbar = share_marked * hm + (1 - share_marked) * hu
    R = np.concatenate(([1.0], np.cumprod(1.0 - hbar)[:-1]))
    assert R[-1] == 0.0  # the sum is complete: a drop is certain within the range
    return float(R @ hu / R.sum()), float(R @ hm / R.sum())


def binomial_ok(hits, n, p, sigmas=4.5):
    """``hits`` out of ``n`` is within ``sigmas`` standard errors of probability ``p``."""
    se = np.sqrt(max(p * (1 - p), 1e-12) / n)
    return abs(hits / n - p) <= sigmas * se


# ------------------------------------------------------------------ ERED's two curves
@pytest.mark.parametrize("gentle", [False, True])
def test_ereds_two_curves_at_a_fresh_count(gentle):
    # the first arrival above min_th (count reset to -1) is dropped with p_b itself:
    # unmarked packets follow RED's curve p_b(avg), marked ones p_b(avg) / marked_factor,
    # at every level of the average; forced drops above the top are the same for both
    q = Ered(min_th=2, max_th=12, max_p=0.37, w_q=1.0, gentle=gentle, marked_factor=1.5)
    S = kernel_state(q)
    n = 60_000
    top = int(2 * q.max_th if gentle else q.max_th)
    for level in range(0, top + 3):
        for marked in (False, True):
            verdict, _ = run(S, np.full(n, marked), level, fresh=True)
            early = int(np.sum(verdict == LI_DROP_EARLY))
            forced = int(np.sum(verdict == LI_DROP_FORCED))
            if level >= top:
                assert forced == n and early == 0, (level, marked)
                continue
            expected = p_b(level, q) / (q.marked_factor if marked else 1.0)
            assert forced == 0
            assert np.all((verdict == ADMIT) | (verdict == LI_DROP_EARLY))
            assert binomial_ok(early, n, expected), (level, marked, early / n, expected)


def test_the_factor_is_the_specs():
    # a factor of 4 at one level: the marked curve is p_b / 4, the unmarked unchanged;
    # a factor of 1 gives marked packets RED's curve
    for factor in (4.0, 1.0):
        q = Ered(min_th=2, max_th=12, max_p=0.5, w_q=1.0, marked_factor=factor)
        S = kernel_state(q)
        n = 100_000
        level = 9
        for marked, expected in ((False, p_b(level, q)), (True, p_b(level, q) / factor)):
            verdict, _ = run(S, np.full(n, marked), level, fresh=True)
            assert binomial_ok(int(np.sum(verdict == LI_DROP_EARLY)), n, expected), (
                factor, marked)


@pytest.mark.parametrize("level, share_marked", [(3, 0.5), (5, 0.3), (5, 0.8), (8, 0.5),
                                                 (8, 0.0), (8, 1.0)])
def test_uniform_spacing_with_a_shared_count(level, share_marked):
    # a long stream at a fixed average, marks drawn independently: the drop fraction of
    # each kind against the renewal closed form with one count for both kinds and the
    # marked packets' p_a divided by marked_factor.  Dividing p_b before the spacing
    # instead (about 2.6 times fewer marked drops at p_b = 0.05, not 1.5), or one count
    # per kind, gives other fractions that this test tells apart
    q = Ered(min_th=2, max_th=12, max_p=0.37, w_q=1.0, marked_factor=1.5)
    S = kernel_state(q)
    n = 400_000
    marked = np.random.default_rng(level * 100 + int(share_marked * 10)).random(n) < share_marked
    verdict, _ = run(S, marked, level, fresh=False)
    pb = p_b(level, q)
    want_u, want_m = spaced_fractions(pb, q.marked_factor, share_marked)
    early = verdict == LI_DROP_EARLY
    assert not np.any(verdict == LI_DROP_FORCED)
    # successive drops are negatively correlated (uniform spacing): binomial errors bound them
    if share_marked < 1:
        assert binomial_ok(int(early[~marked].sum()), int((~marked).sum()), want_u)
    if share_marked > 0:
        assert binomial_ok(int(early[marked].sum()), int(marked.sum()), want_m)


def test_the_closed_form_of_the_spacing_is_floyd_jacobsons_for_one_kind():
    # the reference itself, for one kind: after a drop count restarts at 1 and the c-th
    # arrival is dropped with p_b / (1 - c p_b), so each gap to the next drop has
    # probability p_b / (1 - p_b): uniform on {1, ..., 1/p_b - 1} (1/p_b an integer),
    # and the drop fraction is 1 / E[gap] = 2 p_b; for p_b = 1/10: gaps 1..9, mean 5
    u, m = spaced_fractions(0.1, 1.0, 0.5)
    assert u == pytest.approx(1 / 5, rel=1e-9) and m == pytest.approx(1 / 5, rel=1e-9)
    # and with marked packets' p_a divided by 1.5 the marked fraction is exactly the
    # unmarked one / 1.5, whatever the share of marked packets (the fewer marked drops
    # let count grow further, so unmarked packets lose a little more than alone)
    for share in (0.1, 0.5, 0.9):
        u, m = spaced_fractions(0.1, 1.5, share)
        assert u / m == pytest.approx(1.5, rel=1e-12) and m < 1 / 5 < u


def test_marked_packets_are_ecn_marked_less_often():
    # Ered(mark=True) with an ECN-capable flow: early verdicts become congestion marks
    # (admitted), at p_b for unmarked and p_b / marked_factor for in-profile packets
    q = Ered(min_th=2, max_th=12, max_p=0.37, w_q=1.0, mark=True)
    S = kernel_state(q, ecn=True)
    n = 60_000
    level = 10
    marks_before = int(S.li[0, LI_MARKS])
    total = 0
    for marked in (False, True):
        verdict, ce = run(S, np.full(n, marked), level, fresh=True)
        assert np.all(verdict == ADMIT)
        expected = p_b(level, q) / (q.marked_factor if marked else 1.0)
        assert binomial_ok(int(ce.sum()), n, expected), (marked, ce.mean(), expected)
        total += int(ce.sum())
    assert int(S.li[0, LI_MARKS]) - marks_before == total


# ------------------------------------------------------------------ without marks: RED
def _fields(res) -> dict:
    """Every array and number of a result (wall and compile time left out)."""
    out = {}
    for name, value in vars(res).items():
        if name in ("network", "wall_time", "compile_time", "limits"):
            continue
        items = value.items() if isinstance(value, dict) else [("", value)]
        for k, v in items:
            if isinstance(v, (np.ndarray, int, float, np.number)):
                out[f"{name}.{k}"] = np.asarray(v)
    return out


@pytest.mark.parametrize("kw", [dict(min_th=5, max_th=25, max_p=0.1, w_q=0.02),
                                dict(min_th=5, max_th=15, max_p=0.2, w_q=0.05, gentle=True,
                                     mark=True, record_average=True)],
                         ids=["drop", "gentle-ecn"])
def test_without_marked_packets_ered_is_red(kw):
    # no source sets MARK_IN_PROFILE: the same seed gives the same run, field for field
    ecn = kw.get("mark", False)
    base = topologies.dumbbell(6, 5e6, 0.02, buffer=60)
    base = Network(base.links, [Flow(f.route, source=TcpNewReno(ecn=ecn), start=0.1 * i)
                                for i, f in enumerate(base.flows)])
    runs = {}
    for cls in (Red, Ered):
        net = base.replace_link("r0->r1", queue=cls(**kw))
        runs[cls] = simulate(net, 20.0, seed=5, warmup=2.0,
                             record=Record(interval=0.1, cwnd=True))
    red, ered = runs[Red], runs[Ered]
    b = red.network.link_id("r0->r1")
    acted = red.link_drops["marks" if ecn else "early"][b]
    assert acted > 100  # RED acted on many arrivals: the comparison means something
    a, e = _fields(red), _fields(ered)
    assert a.keys() == e.keys() and len(a) > 10
    for k in a:
        np.testing.assert_array_equal(a[k], e[k], err_msg=k)
    assert red.traces.keys() == ered.traces.keys()
    assert ("red_average[r0->r1]" in ered.traces) == kw.get("record_average", False)
    for k, series in red.traces.items():
        np.testing.assert_array_equal(series.to_numpy(), ered.traces[k].to_numpy(), err_msg=k)
        np.testing.assert_array_equal(series.index.to_numpy(), ered.traces[k].index.to_numpy())


# ------------------------------------------------------------------ marked by an edge
def test_an_edge_markers_packets_are_dropped_marked_factor_times_less():
    # two Poisson streams of 0.55 Mb/s share a 1 Mb/s Ered link (10 % overload, which RED's
    # early drops absorb with the average about 23 packets, now and then just above
    # max_th: gentle, so that those arrivals are dropped early too); one crosses an
    # AggregateBucket marker whose bucket it never empties, so all its packets are in
    # profile.  Each stream is Poisson and independent of the queue's past, so its
    # arrivals see the time-average state (average, count) (PASTA): a marked arrival is
    # dropped early with on average 1 / marked_factor of an unmarked one's probability,
    # and the ratio of the two streams' early-drop fractions is marked_factor in
    # expectation.  Tolerance: each stream's drops are no more variable than binomial
    # (the spacing makes them more regular), so the ratio's relative standard error is
    # at most sqrt(1 / D_u + 1 / D_m) with D the drop counts; we allow 4 of them.
    from qosmodels import Aggregate
    from qosmodels.mechanisms import AggregateBucket, Poisson

    q = Ered(min_th=5, max_th=40, max_p=0.1, w_q=0.002, gentle=True, marked_factor=1.5)
    marker = AggregateBucket(rate=10e6, depth=1e6, max_packet=1000, sharing="common",
                             action="mark")
    net = Network([Link("s", "d", 1e6, 0.01, buffer=300, queue=q)],
                  [Flow(["s", "d"], source=Poisson(rate=0.55e6), packet_size=1000,
                        name="marked"),
                   Flow(["s", "d"], source=Poisson(rate=0.55e6), packet_size=1000,
                        name="plain")],
                  aggregates=[Aggregate("in", flows=["marked"], edge=marker)])
    res = simulate(net, 420.0, seed=11, warmup=20.0, progress=False)
    c = res.counters
    assert c["edge_out_of_profile"][0] == 0 and c["edge_in_profile"][0] == c["sent"][0]
    assert c["edge_in_profile"][1] == 0  # the plain stream has no edge
    # every drop is an early one: the fractions compare ERED's two probabilities only
    assert res.link_drops["forced"][0] == 0 and res.link_drops["overflow"][0] == 0
    drops = c["dropped_window"].astype(float)
    offered = drops + c["arrived_window"]
    frac = drops / offered
    ratio = frac[1] / frac[0]
    se = ratio * np.sqrt(1 / drops[0] + 1 / drops[1])
    assert drops.min() > 1000
    assert abs(ratio - q.marked_factor) <= 4 * se, (ratio, se, frac)
