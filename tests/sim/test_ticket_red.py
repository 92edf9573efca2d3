"""TRED at one link (``qosmodels.sim._kernels.queues.ticket_red``), measured at kernel level.

A small jitted driver offers packets with chosen tags (``PF_TAG0``), kinds and arrival
times to a compiled one-link :class:`~qosmodels.mechanisms.TicketRed` network through
``dispatch.queue_admit``, with the queue held at a chosen level (``w_q = 1``: RED's
average is the queue), as ``test_ered.py`` does for ERED.  The references are written
here, independently of the kernel:

* RED's ``p_b(avg)`` and the renewal closed form of the count spacing
  (:func:`tests.sim.test_ered.p_b`, :func:`tests.sim.test_ered.spaced_fractions`);
* a plain-Python replay of the link's estimators as the PPS paper states them
  (Zhang, Wang, Peterson, Krishnamurthy, "Probabilistic Packet Scheduling", 2001):
  ``InTktRate`` by TSW over every data arrival (Section 2.4.2, "TSW applied ... to the
  aggregation of all traffic arriving on a particular link"; the TSW update of Section
  2.3), ``MinTkt`` the least tag of the current and the previous ``min_interval``, and
  ``ExpectTkt = ExpectTktRate / ExpectPktRate``, TSW over the tags in
  ``[MinTkt, K MinTkt)`` (Section 2.4.2);
* TRED's drop probability in congestion avoidance, ``p (ExpectTkt / InTkt)^3`` capped
  at 1 (Section 2.4.2), and the UDP rule ``p = max(0, 1 - InTkt / AvgTkt)``,
  ``AvgTkt = InTktRate / Capacity``, with survivors' tags raised to AvgTkt (Section 4).

Tags are powers of two where the test needs ``ExpectTkt`` to equal a tag exactly: the
TSW ratio of a stream of equal tags ``t`` is then ``t`` bit for bit (scaling by a power
of two is exact), so the multiplier of those packets is exactly 1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

from qosmodels import Aggregate, Flow, Link, Network
from qosmodels.mechanisms import TcpReno, TicketRed, TicketTagger
from qosmodels.sim._kernels.layout import (
    GF_NOW,
    KIND_ACK,
    KIND_DATA,
    LF_QS,
    LI_CODE,
    LI_DROP_EARLY,
    LI_DROP_FORCED,
    LI_RED_COUNT,
    LI_TX,
    LI_WAITING,
    PF_BITS,
    PF_TAG0,
    PI_FLOW,
    PI_KIND,
)
from qosmodels.sim.compile import compile_scenario

# the kernel's dispatch, from the queue tests' variant (tests/sim/queue_kernels.py)
from .queue_kernels import queue_admit
from .test_ered import binomial_ok, p_b, spaced_fractions

ADMIT = -1
CAP = 1e6          # bit/s
BITS = 8000.0      # bits per packet: the link serves CAP / BITS = 125 packets/s
# the link's float state, as ticket_red.py lays it out (read back after each arrival)
Q_IN, Q_EXP_T, Q_EXP_P = LF_QS, LF_QS + 2, LF_QS + 3


@njit  # not cached: Numba's cache would not see a change in the kernel functions it calls
def offer(S, l, p, tags, kinds, times, waiting, fresh, verdict, tag_out, state):
    """Offer packet ``p`` to link ``l`` once per entry of ``tags`` (its ``PF_TAG0``), of kind
    ``kinds[i]`` at time ``times[i]``, the link busy with ``waiting`` packets queued;
    ``fresh``: reset RED's ``count`` to -1 before each arrival.  Writes the verdict (-1
    admit, else the drop cause's column), the tag the packet leaves with, and the link's
    InTktRate, ExpectTktRate and ExpectPktRate after the arrival."""
    for i in range(tags.shape[0]):
        S.gf[GF_NOW] = times[i]
        S.li[l, LI_TX] = p  # busy: no idle decay of the average
        S.li[l, LI_WAITING] = waiting
        if fresh:
            S.li[l, LI_RED_COUNT] = -1
        S.pi[p, PI_KIND] = kinds[i]
        S.pf[p, PF_TAG0] = tags[i]
        verdict[i] = queue_admit(S, S.li[l, LI_CODE], l, p)
        tag_out[i] = S.pf[p, PF_TAG0]
        state[i, 0] = S.lf[l, Q_IN]
        state[i, 1] = S.lf[l, Q_EXP_T]
        state[i, 2] = S.lf[l, Q_EXP_P]


class Link1:
    """A compiled one-link TicketRed network and the driver's arrays; packet 0 is a
    BITS-bit packet of the one flow, reused for every arrival."""

    def __init__(self, queue):
        self.q = queue
        # (the flow stands behind a tagger, as TicketRed requires; the driver writes the
        # tags itself and never calls it)
        net = Network([Link("a", "b", CAP, 0.0, buffer=1000, queue=queue)],
                      [Flow(["a", "b"], source=TcpReno())],
                      aggregates=[Aggregate("t", flows=[0], edge=TicketTagger(tickets=1.0))])
        self.S = compile_scenario(net, 1.0, seed=12)
        self.S.pi[0, PI_FLOW] = 0
        self.S.pf[0, PF_BITS] = BITS

    def run(self, tags, times, waiting, fresh, kinds=None):
        tags = np.asarray(tags, dtype=np.float64)
        n = len(tags)
        times = np.broadcast_to(np.asarray(times, dtype=np.float64), (n,)).copy()
        kinds = (np.full(n, KIND_DATA, dtype=np.int64) if kinds is None
                 else np.asarray(kinds, dtype=np.int64))
        verdict = np.empty(n, dtype=np.int64)
        tag_out = np.empty(n)
        state = np.empty((n, 3))
        offer(self.S, 0, 0, tags, kinds, times, waiting, fresh, verdict, tag_out, state)
        return verdict, tag_out, state


class Replay:
    """The link's ticket estimators in plain Python (the paper's Sections 2.3 and 2.4.2).

    TSW (Section 2.3): ``rate <- (rate * W + amount) / (now - front + W)``, ``front <-
    now``, every rate starting at 0 with its front at 0.  ``MinTkt``: the least tag of
    the current interval and of the previous one; an interval starts at the first
    arrival ``min_interval`` or more after the start of the one before (the first at
    time 0).  A tag in ``[MinTkt, K MinTkt)`` (MinTkt itself included, whatever K)
    updates the TSW rates of tickets and packets whose ratio is ExpectTkt."""

    def __init__(self, window, k, min_interval):
        self.w, self.k, self.mi = window, k, min_interval
        self.in_rate = self.in_front = 0.0
        self.exp_t = self.exp_p = self.exp_front = 0.0
        self.min_cur = self.min_prev = math.inf
        self.t0 = 0.0

    def arrive(self, tag, now):
        """A data arrival: returns (InTktRate, ExpectTkt) after it."""
        w = self.w
        self.in_rate = (self.in_rate * w + tag) / (now - self.in_front + w)
        self.in_front = now
        if now - self.t0 >= self.mi:
            self.min_prev, self.min_cur, self.t0 = self.min_cur, tag, now
        else:
            self.min_cur = min(self.min_cur, tag)
        mint = min(self.min_cur, self.min_prev)
        if mint <= tag < self.k * mint or tag == mint:
            d = now - self.exp_front + w
            self.exp_t = (self.exp_t * w + tag) / d
            self.exp_p = (self.exp_p * w + 1.0) / d
            self.exp_front = now
        return self.in_rate, self.exp_t / self.exp_p


def poisson_binomial_ok(hits, probs, sigmas=4.5):
    """``hits`` successes of independent trials with probabilities ``probs``: within
    ``sigmas`` standard deviations of the mean."""
    probs = np.asarray(probs, dtype=float)
    sd = math.sqrt(max(float(np.sum(probs * (1 - probs))), 1e-12))
    return abs(hits - probs.sum()) <= sigmas * sd


def tred(**kw):
    """A TicketRed holding the average at the queue (w_q = 1), tags unquantised and not
    relabelled (no tickets issued) unless ``kw`` says otherwise."""
    base = dict(min_th=2, max_th=12, max_p=0.37, w_q=1.0, bits=None, tickets=None, window=2.0)
    base.update(kw)
    return TicketRed(**base)


# ------------------------------------------------------------------ the multiplier
def test_tred_multiplier_at_a_fresh_count():
    # tags t1 = 4 on most packets and t2 = 8 >= K t1 = 5.6 on the others: MinTkt = 4 and
    # only t1 tags fall in [MinTkt, K MinTkt), so ExpectTkt = 4 exactly (a power of two).
    # The first arrival after a fresh count is dropped with RED's p_b(avg) times
    # (ExpectTkt / InTkt)^3: p_b for t1, p_b / 8 for t2, at every level of congestion
    # avoidance; below min_th nothing is dropped, at max_th and above everything (forced)
    q = tred()
    L = Link1(q)
    n = 40_000
    dt = 0.004
    clock = 0.0
    L.run([4.0] * 50, clock + dt * np.arange(50), waiting=0, fresh=True)  # MinTkt = 4
    clock += 50 * dt
    for level in range(0, 15):
        for tag, factor in ((4.0, 1.0), (8.0, 8.0)):
            # mostly the probed tag; every tenth packet a t1 keeps MinTkt and ExpectTkt
            tags = np.full(n, tag)
            tags[::10] = 4.0
            times = clock + dt * np.arange(n)
            clock = times[-1] + dt
            verdict, out, state = L.run(tags, times, level, fresh=True)
            probe = tags == tag if tag != 4.0 else np.ones(n, dtype=bool)
            assert np.all(state[:, 1] == 4.0 * state[:, 2])  # ExpectTkt == 4 bit for bit
            early = int(np.sum(verdict[probe] == LI_DROP_EARLY))
            forced = int(np.sum(verdict == LI_DROP_FORCED))
            if level >= q.max_th:
                assert forced == n, (level, tag)
                continue
            assert forced == 0
            expected = p_b(level, q) / factor
            assert binomial_ok(early, int(probe.sum()), expected), (
                level, tag, early / probe.sum(), expected)
            if level < q.min_th:
                assert early == 0
            # kept packets leave with their tag (no tickets issued: the currency passes)
            kept = verdict == ADMIT
            assert np.array_equal(out[kept], tags[kept])


# (shares of t2 above about 0.57 leave test_ered's renewal sum stuck on a subnormal tail,
# which its completeness check refuses)
@pytest.mark.parametrize("level, share", [(4, 0.5), (7, 0.2), (7, 0.55), (10, 0.5)])
def test_tred_with_a_shared_count_is_reds_spacing_divided_by_the_multiplier(level, share):
    # a long stream at a fixed average, t2 = 8 tags drawn independently with probability
    # `share` among t1 = 4 ones: one count for both, a t2 packet's p_a divided by
    # (t2 / ExpectTkt)^3 = 8 after the spacing; the renewal closed form of test_ered
    # gives each kind's drop fraction (the t2 packets play ERED's marked ones)
    q = tred()
    L = Link1(q)
    n = 300_000
    rng = np.random.default_rng(1000 * level + int(10 * share))
    is_t2 = rng.random(n) < share
    is_t2[0] = False  # MinTkt = 4 from the first arrival
    tags = np.where(is_t2, 8.0, 4.0)
    verdict, _, state = L.run(tags, 0.004 * np.arange(n), level, fresh=False)
    assert np.all(state[:, 1] == 4.0 * state[:, 2])
    want_1, want_2 = spaced_fractions(p_b(level, q), (8.0 / 4.0) ** 3, share)
    early = verdict == LI_DROP_EARLY
    assert not np.any(verdict == LI_DROP_FORCED)
    assert binomial_ok(int(early[~is_t2].sum()), int((~is_t2).sum()), want_1)
    assert binomial_ok(int(early[is_t2].sum()), int(is_t2.sum()), want_2)
    # and the t2 fraction is not RED's: the multiplier acted
    assert early[is_t2].mean() < early[~is_t2].mean() / 4


def test_expect_tkt_and_in_tkt_rate_follow_the_papers_estimators():
    # random tags over several MinTkt intervals, some below the running minimum, at
    # irregular times: the link's InTktRate and ExpectTkt after each arrival equal the
    # plain-Python replay; the drops at a fresh count follow
    # min(1, p_b (ExpectTkt / InTkt)^3) arrival by arrival (sum of Bernoulli trials)
    q = tred(window=1.5, min_interval=0.5, k=1.4)
    L = Link1(q)
    rng = np.random.default_rng(7)
    n = 60_000
    times = np.cumsum(rng.exponential(0.003, n))
    # a slowly drifting base tag, and a spread that puts some tags out of [MinTkt, K MinTkt)
    base = 3.0 + 2.0 * np.sin(times / 7.0)
    tags = base * rng.choice([1.0, 1.1, 1.3, 1.6, 2.5], size=n, p=[0.4, 0.2, 0.2, 0.1, 0.1])
    level = 6
    verdict, _, state = L.run(tags, times, level, fresh=True)
    rep = Replay(q.window, q.k, q.min_interval)
    ref = np.array([rep.arrive(t, s) for t, s in zip(tags, times)])
    np.testing.assert_allclose(state[:, 0], ref[:, 0], rtol=1e-12)
    np.testing.assert_allclose(state[:, 1] / state[:, 2], ref[:, 1], rtol=1e-12)
    expect = ref[:, 1]
    assert np.ptp(expect) > 1.0  # ExpectTkt moved: the replay's rule was exercised
    prob = np.minimum(1.0, p_b(level, q) * (expect / tags) ** 3)
    early = verdict == LI_DROP_EARLY
    assert poisson_binomial_ok(int(early.sum()), prob)
    for lo, hi in ((0.0, 0.05), (0.05, 0.2), (0.2, 1.0)):  # and per band of probability
        sel = (prob >= lo) & (prob < hi) if hi < 1 else (prob >= lo)
        assert sel.sum() > 1000
        assert poisson_binomial_ok(int(early[sel].sum()), prob[sel]), (lo, hi)


def test_acks_meet_plain_red_whatever_their_tag():
    # acknowledgements crossing a TicketRed are dropped with RED's p_b at a fresh count,
    # keep their tags and leave the link's ticket estimators alone (the multiplier would
    # be 1 / 8000 or 8 for these tags)
    q = tred()
    L = Link1(q)
    L.run([4.0] * 50, 0.004 * np.arange(50), waiting=0, fresh=True)
    before = L.S.lf[0].copy()
    n = 60_000
    for level in (3, 8):
        for tag in (0.5, 80.0, 0.0):
            verdict, out, _ = L.run(np.full(n, tag), 0.2 + 0.004 * np.arange(n), level,
                                    fresh=True, kinds=np.full(n, KIND_ACK))
            assert np.array_equal(out, np.full(n, tag))
            assert binomial_ok(int(np.sum(verdict == LI_DROP_EARLY)), n, p_b(level, q)), (
                level, tag)
    after = L.S.lf[0]
    span = slice(LF_QS, LF_QS + 12)
    np.testing.assert_array_equal(after[span], before[span])


def test_no_tickets_issued_keeps_the_currency_and_tickets_relabel():
    # a kept packet leaves with InTkt * XRate, XRate = tickets / InTktRate (Section 2.5):
    # the replay's InTktRate after the arrival, quantised by the plain rule when bits is set
    from qosmodels.mechanisms.tickets import quantise

    n = 2000
    rng = np.random.default_rng(3)
    times = np.cumsum(rng.exponential(0.01, n))
    tags = rng.uniform(1.0, 9.0, n)
    for kw in (dict(tickets=250.0), dict(tickets=250.0, bits=8, unit=0.05)):
        q = tred(**kw)
        L = Link1(q)
        verdict, out, _ = L.run(tags, times, waiting=0, fresh=True)  # below min_th: all kept
        assert np.all(verdict == ADMIT)
        rep = Replay(q.window, q.k, q.min_interval)
        in_rate = np.array([rep.arrive(t, s)[0] for t, s in zip(tags, times)])
        want = tags * q.tickets / in_rate
        if q.bits is not None:
            want = np.array([quantise(x, q.levels, q.unit) for x in want])
            assert len(np.unique(want)) > 20 and np.all(want <= q.levels * q.unit)
            np.testing.assert_allclose(out, want, rtol=1e-12)
        else:
            np.testing.assert_allclose(out, want, rtol=1e-12)


def test_reissued_tickets_relabel_from_their_time_on():
    # Section 3.4: from the reissue's time on, XRate = the new tickets / InTktRate; before it
    # the old; InTktRate (the replay's) runs on through the change
    n = 2000
    rng = np.random.default_rng(5)
    times = np.cumsum(rng.exponential(0.01, n))
    at = float(times[n // 2]) - 1e-9  # half the arrivals before the reissue, half after
    tags = rng.uniform(1.0, 9.0, n)
    q = tred(tickets=250.0, reissue=(at, 400.0))
    verdict, out, _ = Link1(q).run(tags, times, waiting=0, fresh=True)
    assert np.all(verdict == ADMIT)
    rep = Replay(q.window, q.k, q.min_interval)
    in_rate = np.array([rep.arrive(t, s)[0] for t, s in zip(tags, times)])
    issued = np.where(times >= at, 400.0, 250.0)
    assert (issued == 400.0).sum() == n // 2
    np.testing.assert_allclose(out, tags * issued / in_rate, rtol=1e-12)
    # a reissue after the last arrival changes nothing, bit for bit
    late = tred(tickets=250.0, reissue=(float(times[-1]) + 1.0, 400.0))
    _, out_late, _ = Link1(late).run(tags, times, waiting=0, fresh=True)
    _, out_none, _ = Link1(tred(tickets=250.0)).run(tags, times, waiting=0, fresh=True)
    assert np.array_equal(out_late, out_none)


# ------------------------------------------------------------------ the UDP rule
def test_udp_rule_drop_probability_and_augmentation():
    # Section 4 at one link: AvgTkt = InTktRate / Capacity with the capacity in packets/s
    # of the arriving packet (1 Mb/s over 8000-bit packets: 125 packets/s), InTktRate the
    # TSW rate of all data tags; p = max(0, 1 - InTkt / AvgTkt).  200 packets/s with tags
    # 1, 2 or 4: InTktRate settles near 467 t/s, AvgTkt near 3.7, so tags 1 and 2 are cut
    # (p about 0.73 and 0.46) and tag 4 passes untouched; a survivor with p > 0 carries
    # AvgTkt on (augmented), the others keep their tags
    q = tred(rule="udp", window=2.0)
    n = 40_000
    rng = np.random.default_rng(11)
    tags = rng.choice([1.0, 2.0, 4.0], size=n)
    times = np.arange(n) / 200.0
    rep = Replay(q.window, q.k, q.min_interval)
    in_rate = np.array([rep.arrive(t, s)[0] for t, s in zip(tags, times)])
    avg_tkt = in_rate * BITS / CAP
    prob = np.maximum(0.0, 1.0 - tags / avg_tkt)
    for level in (1, 5, 11, 12):
        L = Link1(q)
        verdict, out, state = L.run(tags, times, level, fresh=False)
        np.testing.assert_allclose(state[:, 0], in_rate, rtol=1e-12)
        kept = verdict == ADMIT
        if level < q.min_th:
            assert kept.all() and np.array_equal(out, tags)
            continue
        if level >= q.max_th:
            assert np.all(verdict == LI_DROP_FORCED)
            continue
        assert not np.any(verdict == LI_DROP_FORCED)
        early = verdict == LI_DROP_EARLY
        for tag in (1.0, 2.0, 4.0):
            sel = tags == tag
            assert poisson_binomial_ok(int(early[sel].sum()), prob[sel]), (level, tag)
        cut = prob > 0
        assert (kept & cut).sum() > 5000 and (kept & ~cut).sum() > 5000
        np.testing.assert_allclose(out[kept & cut], avg_tkt[kept & cut], rtol=1e-12)
        assert np.array_equal(out[kept & ~cut], tags[kept & ~cut])
        # the same probabilities, whatever the level between the thresholds: the rule
        # does not use RED's p_b
        assert early[tags == 1.0].mean() == pytest.approx(prob[tags == 1.0].mean(), abs=0.01)
