"""Max-min at scale: the heap-based progressive filling against the one it replaced and
against the max-min characterisation.

References, none computed by the code under test:
* ``progressive_filling_by_rounds``, the earlier implementation (every link's level
  recomputed at every level), an independent code path;
* the bottleneck characterisation of weighted max-min fairness (Bertsekas & Gallager,
  *Data Networks*, 2nd ed., 6.5.2), checked by the plain-Python loop ``check_maxmin``:
  the rates are feasible and every flow has a saturated link on which its normalised
  rate ``x_i / w_i`` is the largest among that link's flows;
* a hand-worked parking lot with weights and a rate cap.
"""

import numpy as np
import pytest

from qosmodels import Network, allocate
from qosmodels.allocation.maxmin import progressive_filling, progressive_filling_by_rounds
from qosmodels.allocation.problem import Problem
from qosmodels.topologies import random_network


def check_maxmin(R, c, w, x, rel=1e-9):
    """Plain-Python check of the characterisation on a (links x flows) 0/1 matrix."""
    R = R.tocsr()
    load = R @ x
    assert np.all(load <= c * (1 + rel)), "infeasible"
    links_of = R.tocsc()
    for i in range(R.shape[1]):
        ok = False
        for l in links_of.indices[links_of.indptr[i]:links_of.indptr[i + 1]]:
            on = R.indices[R.indptr[l]:R.indptr[l + 1]]
            saturated = load[l] >= c[l] * (1 - rel)
            if saturated and x[i] / w[i] >= max(x[on] / w[on]) * (1 - rel):
                ok = True
                break
        assert ok, f"flow {i} has no bottleneck link"


def _capped(net, seed, share=0.3):
    """The same network with rate caps on a random share of its flows."""
    rng = np.random.default_rng(seed)
    caps = np.where(rng.random(net.n_flows) < share, rng.uniform(1e5, 5e7, net.n_flows), np.inf)
    return Network.from_arrays(net.capacities, (net.route_ptr, net.route_links),
                               delays=net.delays, weights=net.weights, max_rates=caps,
                               ends=[link.key for link in net.links])


@pytest.mark.parametrize("seed, n_flows, n_links, weights", [
    (0, 200, 20, (1.0, 1.0)),
    (1, 500, 60, (0.1, 10.0)),
    (2, 1000, 30, (1.0, 1.0)),
    (3, 800, 100, (1e-6, 1.0)),   # wide weights: the cancellation re-sum path
    (4, 2000, 200, (0.5, 2.0)),
])
def test_agrees_with_by_rounds_and_is_maxmin(seed, n_flows, n_links, weights):
    for net in (random_network(n_flows, n_links, seed=seed, weights=weights),
                _capped(random_network(n_flows, n_links, seed=seed, weights=weights), seed)):
        p = Problem.from_network(net)
        x, rounds = progressive_filling(p.R, p.c, p.w)
        y, rounds_ref = progressive_filling_by_rounds(p.R, p.c, p.w)
        np.testing.assert_allclose(x, y, rtol=1e-9, atol=0)
        assert rounds == rounds_ref
        check_maxmin(p.R, p.c, p.w, x)


def test_hand_worked_parking_lot_with_weights_and_a_cap():
    # links 0 and 1 of 12 Mb/s.  Long flow L (weight 1) crosses both; S0 (weight 2) link 0;
    # S1 (weight 1, capped at 2 Mb/s) link 1.  Level T: link 0 has 3T = 12 -> T = 4;
    # link 1 has T + min(T, 2) = 12 -> T = 10 once S1 is capped at T = 2.  So link 0
    # saturates first at T = 4: L = 4, S0 = 8; S1 is capped at 2 (its cap binds at T = 2,
    # before either link): S1 = 2, then L = 4, S0 = 8.
    net = Network.from_arrays([12e6, 12e6], ([0, 2, 3, 4], [0, 1, 0, 1]),
                              weights=[1.0, 2.0, 1.0], max_rates=[np.inf, np.inf, 2e6],
                              names=["L", "S0", "S1"])
    a = allocate(net, "maxmin")
    np.testing.assert_allclose(a.rates, [4e6, 8e6, 2e6], rtol=1e-12)
    assert a.iterations == 2  # two levels: the cap (T = 2 Mb/s), then link 0 (T = 4 Mb/s)


def test_equal_levels_saturate_together():
    # three disjoint links, three levels; then two links of equal level: one level
    net = Network.from_arrays([2e6, 4e6, 9e6], ([0, 1, 2, 3, 4, 5, 6], [0, 0, 1, 1, 2, 2]))
    a = allocate(net, "maxmin")
    np.testing.assert_allclose(a.rates, [1e6, 1e6, 2e6, 2e6, 4.5e6, 4.5e6], rtol=1e-12)
    assert a.iterations == 3
    b = Network.from_arrays([2e6, 2e6], ([0, 1, 2], [0, 1]))
    assert allocate(b, "maxmin").iterations == 1


@pytest.mark.slow
def test_large_network_agrees_with_by_rounds():
    net = random_network(100_000, 10_000, seed=5, weights=(0.5, 2.0))
    p = Problem.from_network(net)
    x, rounds = progressive_filling(p.R, p.c, p.w)
    y, rounds_ref = progressive_filling_by_rounds(p.R, p.c, p.w)
    np.testing.assert_allclose(x, y, rtol=1e-9, atol=0)
    assert rounds == rounds_ref > 1000


def test_bottlenecks_are_the_saturated_links_where_a_flow_leads():
    # Allocation.bottlenecks, recomputed by a plain loop over each flow's route
    net = random_network(400, 40, seed=8, weights=(0.5, 2.0))
    a = allocate(net, "maxmin")
    x, w = np.asarray(a.rates), np.asarray(net.weights)
    load = net.routing_matrix @ x
    lead = np.zeros(net.n_links)
    for i in range(net.n_flows):
        for l in net.flow_links(i):
            lead[l] = max(lead[l], x[i] / w[i])
    expected = []
    for i in range(net.n_flows):
        expected.append(tuple(net.link_names[l] for l in net.flow_links(i)
                              if load[l] >= net.capacities[l] * (1 - 1e-7)
                              and x[i] / w[i] >= lead[l] * (1 - 1e-9)))
    assert a.bottlenecks == tuple(expected)
    assert all(a.bottlenecks)  # every flow of this uncapped network has one


def test_compiled_fill_equals_its_python_body():
    # the kernel run as plain Python (Numba's py_func) gives the same rates and levels
    from qosmodels.allocation import maxmin

    p = Problem.from_network(_capped(random_network(300, 30, seed=9, weights=(0.2, 5.0)), 9))
    R = p.R.tocsr()
    C = R.tocsc()
    args = (R.indptr.astype(np.int64), R.indices.astype(np.int64), C.indptr.astype(np.int64),
            C.indices.astype(np.int64), p.c, p.w, maxmin._CANCEL, maxmin._LEVEL_TIE)
    x, rounds = maxmin._fill(*args)
    y, rounds_py = maxmin._fill.py_func(*args)
    np.testing.assert_array_equal(x, y)
    assert rounds == rounds_py
