"""cubic-response: RFC 9438's response function against a Cubic flow over a random-loss link."""

from __future__ import annotations

import math

import pytest

from qosmodels.cubic import response_window, rfc9438_table_window
from qosmodels.experiments import cubic as ce
from qosmodels.experiments import validate


@pytest.fixture(scope="module")
def quick():
    return validate(["cubic-response"], quick=True)


def test_no_row_fails_in_the_quick_form(quick):
    assert [c.quantity for c in quick.checks if c.verdict == "fails"] == []
    assert len(quick.checks) == len(ce.GRID)
    for c, (p, rtt) in zip(quick.checks, ce.GRID):
        assert c.theory.value == pytest.approx(c.expected, rel=1e-12)
        # the packets never fall below the formula: random loss only raises the average
        assert c.packets.value > 0.9 * c.expected, c.quantity
        if (p, rtt) in ce.MEASURED:  # above the formula beyond tolerance, as declared
            assert c.verdict == "known difference" and c.note
            assert c.packets.value > (1 + ce.TOLERANCE) * c.expected
        else:
            assert c.verdict == "reproduced"


def test_the_written_out_reference_is_the_rfcs():
    for p, rtt in ce.GRID:
        assert ce.reference(p, rtt) == pytest.approx(response_window(p, rtt), rel=1e-12)
    # RFC 9438 Table 1's C = 0.4 column at p = 1e-4, RTT 0.1 s: 187; Table 2's: 120 (Reno's
    # column, 1.2 / sqrt(p), where the formula gives sqrt(1.5 / p) = 122.5)
    assert round(ce.reference(1e-4, 0.1)) == rfc9438_table_window(1e-4, 0.1) == 187
    assert ce.reference(1e-4, 0.01) == pytest.approx(math.sqrt(1.5e4))


def test_known_differences_cover_only_the_packets():
    for (p, rtt), (max_error, seen) in ce.MEASURED.items():
        k = ce._known(p, rtt)
        assert k.sides == ("packets",) and k.max_error == max_error and seen in k.note
    assert ce._known(1e-2, 0.01) is None
