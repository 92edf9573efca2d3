"""aqm-pie: PIE's mean queueing delay against its 15 ms target, and utilisation."""

from __future__ import annotations

import pytest

from qosmodels.experiments import aqm
from qosmodels.mechanisms import DropTail, Pie

from .quick_runs import validate_quick


@pytest.fixture(scope="module")
def quick():
    return validate_quick(["aqm-pie"])


def test_every_row_holds_in_the_quick_form(quick):
    assert [c.quantity for c in quick.checks if c.verdict != "reproduced"] == []
    assert len(quick.checks) == 2 * len(aqm.FLOWS[True])
    for c in quick.checks:
        if "delay" in c.quantity:
            assert c.expected == 0.015 and 0.0075 <= c.packets.value <= 0.0225


def test_the_delay_row_can_fail():
    # the same harness with the bottleneck's drop-tail buffer of 1000 packets: the queue
    # fills and the delay is many times the target, far outside the row's tolerance
    delay, util = aqm.measure(5, DropTail(), 30.0, 10.0)
    assert delay > 10 * aqm.TARGET and util > 0.95
    # and a target of 50 ms moves PIE's delay out of the 15 ms row's band
    delay, _ = aqm.measure(5, Pie(target=0.05), 30.0, 10.0)
    assert delay > aqm.TARGET * (1 + aqm.DELAY_TOLERANCE)
