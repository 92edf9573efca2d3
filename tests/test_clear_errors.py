"""Issue 33's vague errors: each names the argument and the fix, as a ScenarioError /
ScenarioTypeError (ValueError / TypeError), and nothing else raises first."""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, abe, fq, pps
from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.sim import simulate


@pytest.mark.parametrize("call, names", [
    (lambda: abe.throughput([0.01, 0.02], [0.1, 0.2, 0.3]), ("loss", "rtt")),
    (lambda: abe.loss_for_throughput([10.0, 20.0], [0.1, 0.2, 0.3]), ("rate", "rtt")),
    (lambda: abe.throughput_small_loss([0.01, 0.02], [0.1, 0.2, 0.3]), ("loss", "rtt")),
    (lambda: abe.alpha(1.5, [0.01, 0.02], 0.0, [0.1, 0.2, 0.3]), ("q_blue", "rtt")),
    (lambda: abe.delta(1.5, [0.01, 0.02], [0.0, 0.1, 0.2], 0.1), ("q_blue", "boost")),
    (lambda: abe.throughput_ratio([1.0, 2.0], [0.01, 0.02, 0.03], 0.0, 0.1),
     ("alpha", "q_blue")),
    (lambda: pps.exchange_rate([1.0, 2.0], [1.0, 2.0, 3.0]),
     ("out_ticket_rate", "in_ticket_rate")),
    (lambda: pps.packet_tag([1.0, 2.0], [1.0, 2.0, 3.0]), ("out_ticket_rate", "avg_rate")),
    (lambda: pps.poor_flow_rate([1.0, 2.0], 1.0, [1.0, 2.0, 3.0]),
     ("poor_rate", "poor_tickets")),
    (lambda: pps.tred_multiplier([1.0, 2.0], [1.0, 2.0, 3.0]), ("expect_tkt", "in_tkt")),
    (lambda: pps.tred_drop_probability(0.1, [1.0, 2.0], [1.0, 2.0, 3.0]),
     ("expect_tkt", "in_tkt")),
    (lambda: pps.udp_drop_probability([1.0, 2.0], [1.0, 2.0, 3.0]), ("in_tkt", "avg_tkt")),
])
def test_arrays_of_different_lengths_are_named(call, names):
    with pytest.raises(ScenarioError, match="do not broadcast together") as err:
        call()
    for name in names:
        assert f"{name} of shape" in str(err.value)
    assert isinstance(err.value, ValueError)


def test_arrays_that_broadcast_still_work():
    got = abe.throughput([0.01, 0.02], 0.1)
    assert got.shape == (2,) and np.all(got > 0)
    assert pps.exchange_rate([1.0, 2.0], 2.0).tolist() == [0.5, 1.0]


def test_a_capacity_too_small_to_compute_with_is_refused():
    with pytest.raises(ScenarioError, match="capacity = 5e-324 bit/s is too small"):
        fq.fair_queue([0.0, 0.1], [0, 1], [1000, 1000], capacity=5e-324)
    # a small but workable capacity still runs
    r = fq.fair_queue([0.0, 0.1], [0, 1], [1000, 1000], capacity=1e-3)
    assert np.all(np.isfinite(r.fq_departure))


def test_simulate_refuses_limits_that_are_not_limits():
    net = Network([Link("a", "b", 1e6, 0.01)], [Flow(["a", "b"])])
    with pytest.raises(ScenarioTypeError, match="simulate.limits must be a qosmodels.sim.Limits"):
        simulate(net, 1.0, seed=0, limits="big")


# ----------------------------------------------- runs that would not end are refused


def test_a_generic_timer_storm_is_refused_before_it_starts():
    # initial_rtt = 1e-300: the generic timer fires every 2e-300 s until the first RTT
    # sample, some 1e298 timeouts; refused by the work budget, naming the cause
    from qosmodels.errors import BudgetError
    from qosmodels.mechanisms import GenericWindow

    net = Network([Link("a", "b", 1e6, 0.01, buffer=5)],
                  [Flow(["a", "b"], source=GenericWindow(initial_rtt=1e-300))])
    with pytest.raises(BudgetError, match=r"generic timeouts before the first RTT sample"):
        simulate(net, 10.0, seed=0, progress=False)


def test_replicate_refuses_what_would_not_end():
    from qosmodels.errors import BudgetError
    from qosmodels.sim import replicate

    net = Network([Link("a", "b", 1e6, 0.01)], [Flow(["a", "b"])])
    with pytest.raises(ScenarioError, match=r"replicate.n must be <= 1000000"):
        replicate(net, 10**9, 1.0, seed=0, progress=False)
    with pytest.raises(BudgetError, match=r"n = 1000000 runs of about"):
        replicate(net, 10**6, 10**4, seed=0, progress=False)


def test_run_loop_refuses_periods_that_would_take_minutes():
    from qosmodels.errors import BudgetError

    with pytest.raises(BudgetError, match=r"periods = 10000000"):
        abe.run_loop(periods=10**7, packets=None, seed=0)


# ------------------------------------------------ replications that do not vary (issue 38)


def test_replicate_warns_when_every_run_is_the_same():
    from qosmodels.errors import IdenticalReplicationsWarning
    from qosmodels.mechanisms import Poisson
    from qosmodels.sim import replicate

    net = Network([Link("a", "b", 1e6, 0.01)], [Flow(["a", "b"])])  # greedy NewReno, alone
    with pytest.warns(IdenticalReplicationsWarning, match="the 3 runs are identical"):
        replicate(net, 3, 1.0, seed=0, progress=False)
    noisy = net.replace(flows=[Flow(["a", "b"], source=Poisson(rate=5e5))])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", IdenticalReplicationsWarning)
        res = replicate(noisy, 3, 1.0, seed=0, progress=False)
    assert len({float(r.throughput[0]) for r in res.runs}) > 1


def test_sweep_warns_when_no_replication_depends_on_its_seed():
    import warnings

    from qosmodels import sweep
    from qosmodels.errors import IdenticalReplicationsWarning

    with pytest.warns(IdenticalReplicationsWarning, match="replications of every grid point"):
        sweep(lambda n, seed: {"x": 2.0 * n}, {"n": [1, 2]}, seeds=3, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IdenticalReplicationsWarning)
        sweep(lambda n, seed: {"x": float(np.random.default_rng(seed).normal(n))},
              {"n": [1, 2]}, seeds=3, seed=0)
        sweep(lambda n, seed: {"x": 2.0 * n}, {"n": [1, 2]}, seeds=1, seed=0)  # nothing to say
