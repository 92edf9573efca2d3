"""bbr-share: BBRv1's share against Cubic in deep drop-tail buffers (the window-cap
argument of :mod:`qosmodels.bbr`), two BBRv1 flows' standing queue, a lone flow's
utilisation; and :mod:`qosmodels.bbr`'s closed forms and refusals."""

from __future__ import annotations

import pytest

from qosmodels import ScenarioError
from qosmodels.bbr import deep_buffer_share, send_quantum, standing_queue
from qosmodels.errors import ScenarioTypeError
from qosmodels.experiments import bbr as be
from qosmodels.experiments import validate

from .quick_runs import validate_quick


@pytest.fixture(scope="module")
def quick():
    return validate_quick(["bbr-share"])


def test_no_row_fails_in_the_quick_form(quick):
    assert [c.quantity for c in quick.checks if c.verdict == "fails"] == []
    share = [c for c in quick.checks if "share" in c.quantity]
    assert len(share) == len(be.BUFFERS[True])
    deep4, deep16 = share
    assert deep4.verdict == "reproduced" and abs(deep4.packets.value - 0.5) < 0.1
    # far below one half at 16 BDP, as declared with the measured numbers
    assert deep16.verdict == "known difference" and deep16.known.sides == ("packets",)
    assert 0.0 < deep16.packets.value < 0.4
    assert deep4.theory.value == deep16.theory.value == 0.5
    queue, util = [c for c in quick.checks if "share" not in c.quantity]
    assert queue.verdict == util.verdict == "reproduced"
    assert queue.expected == pytest.approx(be.BDP + 12.0)


def _fixed_point(g, b_over_bdp, steps=200):
    """The window-cap argument by plain iteration, in BDP units: BBR's flight p (1 + B)
    against its cap g x (its rate p) x (the RTprop its PROBE_RTT sees, the others' backlog
    (1 - p)(1 + B)); the share p the two agree at, found by bisection."""
    lo, hi = 1e-9, 1 - 1e-9
    for _ in range(steps):
        p = (lo + hi) / 2
        cap = g * p * max((1 - p) * (1 + b_over_bdp), 1.0)  # RTprop >= propagation
        if cap > p * (1 + b_over_bdp):  # room under the cap: the share grows
            lo = p
        else:
            hi = p
    return (lo + hi) / 2


@pytest.mark.parametrize("g, b", [(2.0, 2.0), (2.0, 16.0), (1.5, 4.0), (3.0, 4.0)])
def test_deep_buffer_share_is_the_window_caps_fixed_point(g, b):
    assert deep_buffer_share(b, g) == pytest.approx(_fixed_point(g, b), abs=1e-9)


def test_standing_queue_and_send_quantum_by_hand():
    # 10 Mb/s is between 1.2 and 24 Mb/s: 2 packets; 100 Mb/s: 100e6 x 1 ms = 12500 bytes
    assert send_quantum(10e6, 1000) == 2.0
    assert send_quantum(1e6, 1000) == 1.0
    assert send_quantum(100e6, 1000) == pytest.approx(12.5)
    assert send_quantum(1e9, 1000) == pytest.approx(65.536)  # the 64 KB cap
    assert standing_queue(51.0, 2, 2.0) == 51.0 + 12.0
    assert standing_queue(100.0, 4, 1.0, cwnd_gain=3.0) == 200.0 + 12.0


@pytest.mark.parametrize("call, match", [
    (lambda: deep_buffer_share(1.0), r"deep_buffer_share: buffer_bdp must be > cwnd_gain - 1 "
                                     r"= 1 BDP .*got 1.0"),
    (lambda: deep_buffer_share(0), r"deep_buffer_share.buffer_bdp must be > 0"),
    (lambda: deep_buffer_share(4.0, 1.0), r"deep_buffer_share.cwnd_gain must be > 1"),
    (lambda: standing_queue(51.0, 1, 2.0), r"standing_queue.n_flows must be >= 2"),
    (lambda: standing_queue(-1.0, 2, 2.0), r"standing_queue.bdp must be > 0"),
    (lambda: send_quantum(0.0, 1000), r"send_quantum.rate must be > 0"),
])
def test_refusals_name_the_field(call, match):
    with pytest.raises(ScenarioError, match=match):
        call()


def test_wrong_types():
    with pytest.raises(ScenarioTypeError, match=r"standing_queue.n_flows must be an integer"):
        standing_queue(51.0, "2", 2.0)


def test_the_send_quantum_is_declared_unstated():
    # The draft leaves the quantum to the implementation: bbr-share declares it, the default
    # (0) the draft's rule by pacing rate (BbrV1(send_quantum=None)), 1 (ns-3's) and 2 explored.
    from qosmodels.experiments import experiments

    exp = experiments()["bbr-share"]
    assert exp.unstated == (be.SEND_QUANTUM,)
    u = be.SEND_QUANTUM
    assert (u.name, u.default, u.values, u.unit) == ("bbr_send_quantum", 0, (1, 2), "packets")
    assert be._bbr({"bbr_send_quantum": 0}).send_quantum is None
    assert be._bbr(None).send_quantum is None
    assert be._bbr({"bbr_send_quantum": 1}).send_quantum == 1
    assert be._bbr({"bbr_send_quantum": 2}) == be._bbr({"bbr_send_quantum": 2.0})


@pytest.mark.parametrize("q, theory", [(0, 12.0), (1, 6.0), (2, 12.0)])
def test_standing_queue_theory_follows_the_declared_quantum(q, theory):
    # BDP + 3 N q with N = 2: q = 2 packets under the draft's rule at 10 Mb/s (0) and when
    # fixed at 2; 1 packet fixed.  The row's reference (written out) and its theory side
    # (qosmodels.bbr.standing_queue) both take the run's quantum.
    from qosmodels.experiments import experiments

    rows = experiments()["bbr-share"].call(sides=frozenset({"theory"}), quick=True,
                                           params={"bbr_send_quantum": q})
    queue = next(c for c in rows if c.quantity.startswith("standing queue"))
    assert queue.theory.value == pytest.approx(be.BDP + theory, rel=1e-12)
    assert queue.expected == pytest.approx(be.BDP + theory, rel=1e-12)


def test_theory_side_alone_runs():
    # `validate bbr-share --sides theory` used to stop with "has no side" (the utilisation row
    # has a packets side only); it now leaves that row out.
    report = validate(["bbr-share"], sides=["theory"], quick=True)
    assert len(report.checks) == len(be.BUFFERS[True]) + 1
    assert all(c.packets is None and c.theory is not None for c in report.checks)
