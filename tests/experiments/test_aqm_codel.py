"""aqm-codel: CoDel's standing delay against its 5 ms target, utilisation, drop spacing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qosmodels.experiments import aqm_codel
from qosmodels.mechanisms import Codel, DropTail

from .quick_runs import validate_quick


@pytest.fixture(scope="module")
def quick():
    return validate_quick(["aqm-codel"])


def test_rows_and_verdicts_in_the_quick_form(quick):
    rows = {c.quantity: c for c in quick.checks}
    assert len(rows) == 3 * len(aqm_codel.FLOWS)
    # the target held with 5 and 10 flows; 20 and 50 flows hold a standing delay above it
    # (measured 11.8 and 21.3 ms), declared with the loss rates measured (MANY_FLOWS)
    known = sorted(q for q, c in rows.items() if c.verdict == "known difference")
    assert known == ["standing queueing delay, N = 20", "standing queueing delay, N = 50"]
    assert all(rows[q].note for q in known)
    assert [q for q, c in rows.items()
            if c.verdict not in ("reproduced", "known difference")] == []
    for n in aqm_codel.FLOWS:
        d = rows[f"standing queueing delay, N = {n}"]
        assert d.expected == 0.005 and d.tolerance == 0.5 and d.source == "paper (stated)"
        assert rows[f"bottleneck utilisation, N = {n}"].packets.value > 0.95
        s = rows[f"max |gap - interval/sqrt(count)|, N = {n}"]
        assert s.expected.upper == pytest.approx(8e-4) and 0 < s.packets.value <= 8e-4 * (1 + 1e-6)
    assert rows["standing queueing delay, N = 5"].packets.value < rows[
        "standing queueing delay, N = 50"].packets.value


def test_drop_gaps_hand_trace():
    # one cycle 1, 2, 3 at the law's times, a new cycle starting at 2 (count - lastcount),
    # then 3: the cycle boundary 3 -> 2 is not a gap
    t = [0.0, 0.1, 0.1 + 0.1 / math.sqrt(2), 5.0, 5.0 + 0.1 / math.sqrt(2)]
    gaps, count = aqm_codel.drop_gaps(t, [1, 2, 3, 2, 3])
    np.testing.assert_allclose(gaps, [0.1, 0.1 / math.sqrt(2), 0.1 / math.sqrt(2)])
    np.testing.assert_array_equal(count, [1, 2, 2])
    assert aqm_codel.spacing_error(gaps, count) == pytest.approx(0.0, abs=1e-15)
    assert aqm_codel.spacing_error(gaps + 3e-4, count) == pytest.approx(3e-4)
    assert math.isnan(aqm_codel.spacing_error([], []))


def test_standing_delay_hand_series():
    # 1 ms samples; windows of 100 ms whose minima are 2 and 4 packets: 3 packets of
    # 1000 bytes at 10 Mb/s = 2.4 ms
    t = np.arange(300) * 1e-3
    q = np.full(300, 9.0)
    q[120], q[250] = 2.0, 4.0
    assert aqm_codel.standing_delay(t, q, start=0.1) == pytest.approx(3 * 8e-4)


def test_the_rows_can_fail():
    # drop-tail with its 1000-packet buffer: a standing delay far above the target
    m = aqm_codel.measure(5, DropTail(), 30.0, 10.0)
    assert m["standing"] > 10 * aqm_codel.TARGET
    # the drop gaps of CoDel with interval 200 ms against the 100 ms law, and those of the
    # RFC's CoDel against a law interval/count, fall outside the L/C bound
    m = aqm_codel.measure(5, Codel(interval=0.2, record_drops=True), 30.0, 10.0)
    assert aqm_codel.spacing_error(m["gaps"], m["count"]) > 10 * 8e-4
    m = aqm_codel.measure(5, Codel(record_drops=True), 30.0, 10.0)
    assert aqm_codel.spacing_error(m["gaps"], m["count"]) <= 8e-4 * (1 + 1e-6)
    wrong = np.max(np.abs(m["gaps"] - 0.1 / m["count"]))
    assert wrong > 10 * 8e-4
