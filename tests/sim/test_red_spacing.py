"""RED's spacing rules (``Red.spacing``): Floyd and Jacobson's, ns-2's ``wait_``, Bernoulli.

At kernel level a small jitted driver offers packets to a compiled one-link Red network
through ``dispatch.queue_admit`` with the queue held at a chosen level (``w_q = 1``: the
average is the queue, so ``p_b`` is fixed).  The references are computed here, not by the
kernel:

* drop positions: a plain-Python replay of each rule's text (Floyd and Jacobson 1993,
  Figure 2; ns-2.35 ``queue/red.cc``, ``REDQueue::modify_p`` with ``wait_`` and
  ``enque``'s restart of ``count`` at 1; an independent draw per packet) fed with the
  same uniform draws the kernel makes (the link's random stream, copied before the run);
* long-run fractions: the renewal closed forms at ``1 / p_b = m`` whole, derived by hand
  from each rule's hazard -- Floyd: the gap after a drop is uniform on ``1 .. m - 1``,
  fraction ``2 p_b``; wait: uniform on ``m .. 2m - 1``, fraction ``2 p_b / (3 - p_b)``;
  Bernoulli: ``p_b``.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from qosmodels import Flow, Link, Network, ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import AbeQueue, Ered, Red, TicketRed
from qosmodels.mechanisms.red import SPACINGS
from qosmodels.sim import TcpReno
from qosmodels.sim._kernels.layout import (
    KIND_DATA,
    LI_CODE,
    LI_DROP_EARLY,
    LI_DROP_FORCED,
    LI_TX,
    LI_WAITING,
    PI_FLOW,
    PI_KIND,
)
from qosmodels.sim._kernels.queues import red as red_kernel
from qosmodels.sim._kernels.rng import rand
from qosmodels.sim.compile import compile_scenario

# the kernel's dispatch, from the queue tests' variant (tests/sim/queue_kernels.py)
from .queue_kernels import queue_admit


@njit
def offer(S, l, p, levels, verdict):
    """Offer packet ``p`` to link ``l`` once per entry of ``levels`` (the queue waiting
    then; with ``w_q = 1`` the average), the link busy (no idle decay)."""
    for i in range(levels.shape[0]):
        S.li[l, LI_TX] = p
        S.li[l, LI_WAITING] = levels[i]
        verdict[i] = queue_admit(S, S.li[l, LI_CODE], l, p)


@njit
def draws(S, n):
    """The next ``n`` uniform draws of ``S``'s stream (on a copy of the state)."""
    out = np.empty(n)
    for i in range(n):
        out[i] = rand(S)
    return out


def kernel_state(queue):
    net = Network([Link("a", "b", 1e6, 0.0, buffer=1000, queue=queue)],
                  [Flow(["a", "b"], source=TcpReno())])
    S = compile_scenario(net, 1.0, seed=7)
    S.pi[0, PI_FLOW] = 0
    S.pi[0, PI_KIND] = KIND_DATA
    return S


def run(queue, levels):
    S = kernel_state(queue)
    verdict = np.empty(len(levels), dtype=np.int64)
    offer(S, 0, 0, np.asarray(levels, dtype=np.int64), verdict)
    return verdict


def pb_of(avg, q):
    """``p_b`` on the (non-gentle) ramp, Floyd and Jacobson's Figure 2."""
    return q.max_p * (avg - q.min_th) / (q.max_th - q.min_th)


def replay(q, levels, u):
    """The rules' text in plain Python: per arrival 0 accept, 1 early, 2 forced; ``u`` the
    uniform draws, one taken per arrival tested on the ramp (none for the wait rule's
    restart)."""
    out, count, k = [], -1, 0
    for avg in levels:
        if avg < q.min_th:
            count = -1
            out.append(0)
            continue
        if avg >= q.max_th:
            count = 0
            out.append(2)
            continue
        count += 1
        if q.spacing == "ns2-wait" and count == 0:
            count = 1  # ns-2's enque: old == 0, count = 1, no test
            out.append(0)
            continue
        pb = pb_of(avg, q)
        if q.spacing == "floyd":
            pa = pb / (1 - count * pb) if count * pb < 1 else 1.0
        elif q.spacing == "ns2-wait":
            x = count * pb
            pa = 0.0 if x < 1 else (pb / (2 - x) if x < 2 else 1.0)
        else:
            pa = pb
        drop = u[k] < min(pa, 1.0)
        k += 1
        if drop:
            count = 0
        out.append(1 if drop else 0)
    return out


def test_the_kernels_codes_are_the_specs():
    assert red_kernel.SPACINGS == SPACINGS == ("floyd", "ns2-wait", "bernoulli")
    assert (red_kernel.SPACING_FLOYD, red_kernel.SPACING_WAIT,
            red_kernel.SPACING_BERNOULLI) == (0, 1, 2)


@pytest.mark.parametrize("spacing", SPACINGS)
@pytest.mark.parametrize("kind", [Red, Ered])
def test_drop_positions_replay_the_rules_text(spacing, kind):
    # a fixed level sequence that leaves and re-enters the ramp, touches max_th, and
    # stays on it long enough for several drops; the kernel's verdicts against the replay
    # fed with the same draws
    q = kind(min_th=4, max_th=14, max_p=0.5, w_q=1.0, spacing=spacing)
    rng = np.random.default_rng(3)
    levels = list(rng.integers(5, 14, 300)) + [2, 9, 9, 9, 14, 9, 9] + [3] + [8] * 200
    u = draws(kernel_state(q), len(levels))  # a second state of the same seed: same stream
    verdict = run(q, levels)
    got = [0 if v == -1 else (1 if v == LI_DROP_EARLY else 2) for v in verdict]
    assert v_ok(verdict)
    want = replay(q, levels, u)
    assert got == want
    assert sum(w == 1 for w in want) > 20  # the sequence exercises the spacing


def v_ok(verdict):
    return set(np.unique(verdict)) <= {-1, LI_DROP_EARLY, LI_DROP_FORCED}


@pytest.mark.parametrize("spacing, fraction", [
    ("floyd", lambda p: 2 * p),
    ("ns2-wait", lambda p: 2 * p / (3 - p)),
    ("bernoulli", lambda p: p),
])
@pytest.mark.parametrize("m", [10, 25])
def test_long_run_fractions_are_the_closed_forms(spacing, fraction, m):
    # p_b = 1/m held: the queue halfway up the ramp (min_th 0, max_th 10, level 5) and
    # max_p = 2/m
    q = Red(min_th=0, max_th=10, max_p=2.0 / m, w_q=1.0, spacing=spacing)
    assert pb_of(5, q) == pytest.approx(1.0 / m, rel=1e-15)
    n = 300_000
    verdict = run(q, [5] * n)
    early = int((verdict == LI_DROP_EARLY).sum())
    want = fraction(1.0 / m)
    # Bernoulli: binomial; the spaced rules are more regular than binomial
    se = np.sqrt(want * (1 - want) / n)
    assert abs(early / n - want) <= 4.5 * se
    # and the three rules are told apart at this size (their fractions differ by > 20 se)
    others = [f(1.0 / m) for s, f in (("floyd", lambda p: 2 * p),
                                      ("ns2-wait", lambda p: 2 * p / (3 - p)),
                                      ("bernoulli", lambda p: p)) if s != spacing]
    assert all(abs(o - want) > 20 * se for o in others)


def test_the_closed_forms_are_the_renewal_sums():
    # the references themselves, from the hazards h(c) by renewal: fraction = 1 / E[gap]
    def fraction(h):
        c = np.arange(1, 10_000, dtype=float)
        hz = np.array([min(1.0, h(x)) for x in c])
        surv = np.concatenate(([1.0], np.cumprod(1 - hz)[:-1]))
        assert surv[-1] == 0.0
        return 1.0 / surv.sum()

    for m in (10, 25):
        p = 1.0 / m
        assert fraction(lambda c: p / (1 - c * p) if c * p < 1 else 1.0) == pytest.approx(2 * p)
        assert fraction(lambda c: 0.0 if c * p < 1 else (p / (2 - c * p) if c * p < 2 else 1.0)
                        ) == pytest.approx(2 * p / (3 - p))


@pytest.mark.parametrize("value, err, match", [
    ("ns2", ScenarioError, r"Red.spacing must be one of \['floyd', 'ns2-wait', 'bernoulli'\]"),
    (1, ScenarioTypeError, r"Red.spacing must be one of .*got 1"),
])
def test_bad_spacing_is_refused(value, err, match):
    with pytest.raises(err, match=match):
        Red(spacing=value)


@pytest.mark.parametrize("make", [lambda: AbeQueue(spacing="bernoulli"),
                                  lambda: TicketRed(spacing="ns2-wait")])
def test_queues_built_on_red_by_other_rules_refuse_another_spacing(make):
    with pytest.raises(ScenarioError, match=r"spaces its early drops as Floyd and Jacobson"):
        make()


def test_the_default_is_floyd_and_packs_as_before():
    from qosmodels.sim.compile import pack_params
    assert Red().spacing == "floyd"
    assert pack_params(Red(gentle=True))[red_kernel.RED_GENTLE] == 1.0
    assert pack_params(Red())[red_kernel.RED_GENTLE] == 0.0
    assert pack_params(Red(gentle=True, spacing="bernoulli"))[red_kernel.RED_GENTLE] == 5.0
