"""Token buckets for aggregated TCP: the theory side of Sections 3-5.

The aggregate-fair window increase on the paper's RTTs (50, 300, 300, 600 ms)
checked against the paper's formula and, through the RTT-by-RTT sawtooth
(:func:`qosmodels.tokenbucket.simulate_sawtooth`), against the sawtooth closed
form ``sqrt(3 f / (2 p)) / rtt`` re-typed here and against its two promises
(equal throughputs; the aggregate sends as much as four standard TCPs at the
mean RTT); the shaper's output against the arrival curve (checked here pair by
pair, not with the library's checker); the largest burst; the aggregate depth
condition.  Every row here has a theory side only; the token buckets of Section
4.2 in packets (partitioned, common and logical, shaping and marking) are
``tokenbucket-fairness`` (:mod:`.tokenbucket_fairness`).  The window increase
has no packet side yet: the simulator's TCP has no ``f(rtt_i)`` increase.

References
----------
Aggregate-rate-control paper, Sections 3.2-3.3, 4.2 and 5.
"""

from __future__ import annotations

import numpy as np

from .. import tokenbucket as tbm
from ..fairness import jain_index
from .registry import Check, Side, register

PAPER = "Design considerations for rate control of aggregated TCP connections"


def _sawtooth(p: float, rtt: float, f: float) -> float:
    """AIMD sawtooth throughput, packets/s: one loss every 1/p packets, +f per RTT, halving."""
    return float(np.sqrt(3 * f / (2 * p)) / rtt)


def _excess(tb, t, s) -> float:
    """Largest excess, bytes, of any run of output packets over the arrival curve
    ``min(p dt + L_m, r dt + b)``, over all pairs i <= j (re-implemented here)."""
    cum = np.concatenate([[0.0], np.cumsum(s)])
    i, j = np.triu_indices(len(t))
    sent = cum[j + 1] - cum[i]
    dt = t[j] - t[i]
    curve = np.minimum(tb.peak_rate / 8 * dt + tb.max_packet, tb.rate / 8 * dt + tb.depth)
    return float(np.max(sent - curve))


@register("tokenbucket-window-increase",
          title="Aggregate-fair window increase rtt_i^2/rtt_av^2 on RTTs 50/300/300/600 ms",
          paper=PAPER + ", Section 5", sides=("theory",))
def window(*, sides, quick) -> list[Check]:
    name = "tokenbucket-window-increase"
    rtts = tbm.PAPER_RTTS
    rtt_av = sum(rtts) / len(rtts)
    f = tbm.window_increase(rtts)
    checks = [Check(
        name, f"f(rtt_{i + 1} = {r * 1e3:g} ms)", r**2 / rtt_av**2, source="paper (stated)",
        unit="packets/RTT",
        theory=Side(float(fi), 1e-12, method="qosmodels.tokenbucket.window_increase"),
        reference="paper: f(rtt_i) = rtt_i^2 / rtt_av^2, rtt_av the mean (312.5 ms); sanity: "
                  "the same formula on both sides", sanity=True)
        for i, (r, fi) in enumerate(zip(rtts, f))]
    p = 1e-5
    sim = np.array([tbm.simulate_sawtooth(p, r, fi) for r, fi in zip(rtts, f)])
    method = "simulate_sawtooth (RTT by RTT), loss 1e-5 per packet, f = window_increase"
    checks.append(Check(
        name, "Jain index of sawtooth throughputs", 1.0, source="paper (stated)",
        theory=Side(jain_index(sim), 1e-3, method=method),
        reference="paper: RTT fairness, equal throughputs"))
    checks.append(Check(
        name, "aggregate throughput", len(rtts) * _sawtooth(p, rtt_av, 1.0),
        source="closed form", unit="packets/s",
        theory=Side(float(sim.sum()), 0.02, method="sum of " + method),
        reference="aggregate fairness: n standard TCPs (f = 1) at rtt_av, n sqrt(3/(2p))/rtt_av"))
    for i, (r, fi, x) in enumerate(zip(rtts, f, sim)):
        checks.append(Check(
            name, f"sawtooth x, rtt_{i + 1} = {r * 1e3:g} ms", _sawtooth(p, r, float(fi)),
            source="closed form", unit="packets/s",
            theory=Side(float(x), 0.02, method="simulate_sawtooth (RTT by RTT)"),
            reference="sawtooth W/2 -> W in W/(2f) RTTs, 1/p packets per cycle: "
                      "sqrt(3 f / (2 p)) / rtt"))
    return checks


@register("tokenbucket-conformance",
          title="Token-bucket shaper output vs arrival curve; largest burst; depth condition",
          paper=PAPER + ", Sections 3.2, 4.2", sides=("theory",))
def conformance(*, sides, quick) -> list[Check]:
    name = "tokenbucket-conformance"
    tb = tbm.TokenBucket(depth=10_000, rate=800_000, peak_rate=1_600_000, max_packet=1000)
    rng = np.random.default_rng(2026)
    t = np.cumsum(rng.exponential(0.002, 400))
    s = rng.uniform(40, 1000, 400)
    out = tb.shape(t, s)
    checks = [Check(
        name, "max excess of output over arrival curve", 0.0, source="paper (stated)",
        unit="bytes",
        theory=Side(max(0.0, _excess(tb, out.departures, out.sizes)), 1e-6,
                    method="TokenBucket.shape on a seeded Poisson trace (400 packets, 4 Mb/s "
                           "offered), excess over all packet pairs"),
        reference="(b, r, p, L_m) arrival curve min(p t + L_m, r t + b) (Section 3.2)")]
    # the largest burst: packets a backlog gets through at peak spacing
    back = tb.shape(np.zeros(60), np.full(60, 1000.0))
    gaps = np.diff(back.departures)
    n_peak = 1 + int(np.argmax(~np.isclose(gaps, 8 * 1000 / tb.peak_rate)))
    b, r, p, lm = tb.depth, tb.rate, tb.peak_rate, tb.max_packet
    checks.append(Check(
        name, "largest burst at peak rate", (p * b - r * lm) / (p - r), source="closed form",
        unit="bytes",
        theory=Side(n_peak * 1000.0, 1e-12,
                    method="backlog of 1000-byte packets through TokenBucket.shape"),
        reference="(p b - r L_m)/(p - r), where the arrival curve's branches meet"))
    # the smallest aggregate depth for which RTT-proportional partitions lose no tokens
    rate = 1e6
    lo, hi = 1000.0, 1e6
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        part = tbm.partition(tbm.TokenBucket(depth=mid, rate=rate, max_packet=1000),
                             tbm.PAPER_RTTS, "rtt")
        if np.all(part.depths >= part.rate_windows):
            hi = mid
        else:
            lo = mid
    checks.append(Check(
        name, "smallest depth without token loss, 1 Mb/s", rate * np.mean(tbm.PAPER_RTTS) / 8,
        source="paper (stated)", unit="bytes",
        theory=Side(hi, 1e-9, method="bisection on b_i >= r_i rtt_i, RTT-proportional partition"),
        reference="paper: b >= r_m rtt_av; sanity: the bisection tests the same condition the "
                  "formula states", sanity=True))
    return checks
