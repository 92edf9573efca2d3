"""dctcp-sawtooth: packets against the synchronised analysis of Alizadeh et al. (2010,
Section 3.3), in its quick form."""

from __future__ import annotations

import pytest

from qosmodels import dctcp
from qosmodels.experiments import dctcp as ex

from .quick_runs import validate_quick


@pytest.fixture(scope="module")
def quick():
    return validate_quick(["dctcp-sawtooth"])


def test_no_row_fails_and_only_the_declared_alpha_rows_differ(quick):
    assert [c.quantity for c in quick.checks if c.verdict == "fails"] == []
    assert len(quick.checks) == 4 * (len(ex.FLOWS) + 2 * len(ex.DELAYED_FLOWS))
    known = sorted(c.quantity for c in quick.checks if c.verdict == "known difference")
    assert known == sorted([f"N = {n}: alpha" for n, q in ex.KNOWN]
                           + [f"N = {n}, delayed ACKs (m = 2): {q}" for n, q in ex.DELAYED_KNOWN])


def test_the_delayed_ack_rows_are_labelled_and_their_alpha_is_the_fraction_marked(quick):
    # with delayed ACKs (m = 2) RFC 8257 3.2's echo keeps every ACK to packets of one CE
    # value, so alpha still follows the fraction of packets marked (measured 0.111 and
    # 0.1085 at N = 2, quick form), while it falls about a third below the analysis (the
    # window grows half a packet per round trip: declared rows)
    rows = {c.quantity: c for c in quick.checks}
    for n in ex.DELAYED_FLOWS:
        r = rows[f"N = {n}, delayed ACKs (m = 2): alpha"]
        assert "delayed_ack=2" in r.packets.method
        assert 0.5 < r.packets.value / r.expected < 0.75
        # growing per packet acknowledged (Linux) brings alpha back near the analysis
        # (measured, quick: 0.1775, 0.3965, 0.6084 against 0.198, 0.433, 0.769)
        g = rows[f"N = {n}, delayed ACKs (m = 2), growth per packet acknowledged: alpha"]
        assert g.verdict == "reproduced" and g.packets.value > r.packets.value * 1.15
    m = ex.measure(2, True, delayed_ack=2)
    assert m["alpha"] == pytest.approx(m["marked"], rel=0.05)
    assert m["drops"] == 0


def test_the_queue_peaks_near_k_plus_n_and_the_link_stays_busy(quick):
    rows = {c.quantity: c for c in quick.checks}
    for n in ex.FLOWS:
        q = rows[f"N = {n}: Q_max"]
        assert q.expected == ex.K + n
        assert abs(q.packets.value - q.expected) <= 3  # measured: within 1 (N < 40), 3 (40)
        # measured 1.0000 for N < 40; 0.9978 at N = 40 (2026-11-27, after the sender's
        # once-per-window fix: its deeper cycles touch the empty queue, 1st percentile 0)
        assert rows[f"N = {n}: utilisation"].packets.value > (0.999 if n < 40 else 0.995)


def test_the_references_are_independent_of_the_module():
    # numpy.roots on the cubic against qosmodels.dctcp's bisection, and by hand for W* = 50
    ref = ex.closed_forms(2, 80.0, 20.0)
    assert 0.2022 < ref["alpha"] < 0.2023
    assert ref["alpha"] == pytest.approx(dctcp.alpha(2, 80.0, 20.0), rel=1e-10)
    assert ref["amplitude_approx"] == pytest.approx(10.0)
    assert ex.bdp() == pytest.approx(84.35, abs=0.01)  # 1 Gb/s x 1.01224 ms / 1500 bytes


def test_the_senders_alpha_is_the_fraction_marked():
    # RFC 8257's estimator: alpha tracks the fraction of packets marked (measured 0.2054
    # and 0.2033 at N = 2, quick form; the analysis's alpha is 0.198)
    m = ex.measure(2, True)
    assert m["alpha"] == pytest.approx(m["marked"], rel=0.05)
    assert m["drops"] == 0
