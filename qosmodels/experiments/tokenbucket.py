"""Token buckets for aggregated TCP: the theory side of Sections 3-5.

The aggregate-fair window increase on the paper's RTTs (50, 300, 300, 600 ms)
checked against its closed form and, through a simulated sawtooth, against
its two promises (equal throughputs; the aggregate sends as much as four
standard TCPs at the mean RTT); the shaper's output against the arrival
curve; the largest burst; the aggregate depth condition.  The packet side
joins when the simulator gains token buckets.

References
----------
Aggregate-rate-control paper, Sections 3.2-3.3, 4.2 and 5.
../shared/papers/aggregate-tcp-rate-control-token-buckets.txt
"""

from __future__ import annotations

import numpy as np

from .. import tokenbucket as tbm
from ..fairness import jain_index
from .registry import Check, register

PAPER = "Design considerations for rate control of aggregated TCP connections"


@register("tokenbucket-window-increase",
          title="Aggregate-fair window increase rtt_i^2/rtt_av^2 on RTTs 50/300/300/600 ms",
          paper=PAPER + ", Section 5")
def window() -> list[Check]:
    rtts = tbm.PAPER_RTTS
    rtt_av = sum(rtts) / len(rtts)
    f = tbm.window_increase(rtts)
    checks = [Check(
        experiment="tokenbucket-window-increase", quantity=f"f(rtt_{i + 1} = {r * 1e3:g} ms)",
        expected=r**2 / rtt_av**2, measured=float(fi), tolerance=1e-12, unit="packets/RTT",
        reference="paper: f(rtt_i) = rtt_i^2 / rtt_av^2, rtt_av the mean (312.5 ms)",
        method="qosmodels.tokenbucket.window_increase") for i, (r, fi) in enumerate(zip(rtts, f))]
    p = 1e-5
    sim = np.array([tbm.simulate_sawtooth(p, r, fi) for r, fi in zip(rtts, f)])
    checks.append(Check(
        experiment="tokenbucket-window-increase", quantity="Jain index of sawtooth throughputs",
        expected=1.0, measured=jain_index(sim), tolerance=1e-3,
        reference="RTT fairness: equal throughputs",
        method="simulate_sawtooth, loss 1e-5 per packet, f = window_increase"))
    checks.append(Check(
        experiment="tokenbucket-window-increase", quantity="aggregate throughput",
        expected=len(rtts) * tbm.simulate_sawtooth(p, rtt_av, 1.0), measured=float(sim.sum()),
        tolerance=0.02, unit="packets/s",
        reference="aggregate fairness: n standard TCPs with rtt_av (simulated)",
        method="sum of simulated sawtooth throughputs with f = window_increase"))
    for i, (r, fi) in enumerate(zip(rtts, f)):
        checks.append(Check(
            experiment="tokenbucket-window-increase",
            quantity=f"sawtooth x, rtt_{i + 1} = {r * 1e3:g} ms",
            expected=tbm.sawtooth_throughput(p, r, fi), measured=tbm.simulate_sawtooth(p, r, fi),
            tolerance=0.02, unit="packets/s", reference="sqrt(3 f / (2 p)) / rtt (SymPy derivation)",
            method="simulate_sawtooth (RTT by RTT)"))
    return checks


@register("tokenbucket-conformance",
          title="Token-bucket shaper output vs arrival curve; largest burst; depth condition",
          paper=PAPER + ", Sections 3.2, 4.2")
def conformance() -> list[Check]:
    tb = tbm.TokenBucket(depth=10_000, rate=800_000, peak_rate=1_600_000, max_packet=1000)
    rng = np.random.default_rng(2026)
    t = np.cumsum(rng.exponential(0.002, 400))
    s = rng.uniform(40, 1000, 400)
    out = tb.shape(t, s)
    viol = tbm._max_violation(tb, out.departures, out.sizes)
    checks = [Check(
        experiment="tokenbucket-conformance", quantity="max excess of output over arrival curve",
        expected=0.0, measured=max(0.0, viol), tolerance=1e-6, unit="bytes",
        reference="min(p t + L_m, r t + b), every interval of the output",
        method="TokenBucket.shape on a seeded Poisson trace (400 packets, 4 Mb/s offered)")]
    # the largest burst: packets a backlog gets through at peak spacing
    back = tb.shape(np.zeros(60), np.full(60, 1000.0))
    gaps = np.diff(back.departures)
    n_peak = 1 + int(np.argmax(~np.isclose(gaps, 8 * 1000 / tb.peak_rate)))
    b, r, p, lm = tb.depth, tb.rate, tb.peak_rate, tb.max_packet
    checks.append(Check(
        experiment="tokenbucket-conformance", quantity="largest burst at peak rate",
        expected=(p * b - r * lm) / (p - r), measured=n_peak * 1000.0, tolerance=1e-12,
        unit="bytes", reference="(p b - r L_m)/(p - r), where the arrival curve's branches meet",
        method="backlog of 1000-byte packets through TokenBucket.shape"))
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
        experiment="tokenbucket-conformance", quantity="smallest depth without token loss, 1 Mb/s",
        expected=rate * np.mean(tbm.PAPER_RTTS) / 8, measured=hi, tolerance=1e-9, unit="bytes",
        reference="paper: b >= r_m rtt_av", method="bisection on b_i >= r_i rtt_i, RTT-proportional"))
    return checks
