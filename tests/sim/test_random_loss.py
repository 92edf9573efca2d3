"""RandomLoss in packets: independent drops at rate p, or one in every 1/p (periodic)."""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, simulate
from qosmodels.mechanisms import Cbr, RandomLoss


def run(queue, n=2000, seed=0):
    # a CBR flow of n packets through the lossy link, never queueing (10 x faster line)
    net = Network([Link("a", "b", 1e7, 0.001, queue=queue)],
                  [Flow(["a", "b"], source=Cbr(rate=1e6, packet_size=125), stop=n * 1e-3)])
    return simulate(net, n * 1e-3 + 0.1, seed=seed, progress=False)


@pytest.mark.parametrize("p", [0.1, 0.01, 0.25])
def test_periodic_loss_drops_exactly_one_in_every_one_over_p(p):
    # hand count: 2000 arrivals, one drop each time the running sum of p reaches 1
    res = run(RandomLoss(p, periodic=True))
    arrivals = int(res.delivered_packets[0] + res.link_drops["early"][0])
    assert arrivals in (2000, 2001)  # the CBR's ticks from 0 to its stop
    sums, drops = 0.0, 0
    for _ in range(arrivals):
        sums += p
        if sums >= 1.0:
            sums -= 1.0
            drops += 1
    assert res.link_drops["early"][0] == drops
    assert abs(drops - arrivals * p) <= 1


def test_periodic_loss_draws_nothing_random():
    a, b = run(RandomLoss(0.1, periodic=True), seed=1), run(RandomLoss(0.1, periodic=True), seed=2)
    assert np.array_equal(a.delivered_packets, b.delivered_packets)
    assert a.mean_queueing_delay[0] == b.mean_queueing_delay[0]


def test_independent_loss_varies_with_the_seed_around_p():
    counts = [int(run(RandomLoss(0.1), seed=s).link_drops["early"][0]) for s in range(4)]
    assert len(set(counts)) > 1
    assert all(abs(c - 200) < 5 * np.sqrt(2000 * 0.1 * 0.9) for c in counts)
