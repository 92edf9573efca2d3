"""qosmodels.dctcp: the synchronised-sawtooth analysis of Alizadeh et al. (SIGCOMM 2010,
Section 3.3) against values computed by hand here, an independent step-by-step integration of
the sawtooth (utilisation), and SymPy for the alpha equation's derivation."""

import math

import pytest

from qosmodels import ScenarioError, dctcp
from qosmodels.errors import ScenarioTypeError


def test_critical_window_and_the_bdp():
    # W* = (C RTT + K) / N: (80 + 20) / 2 = 50 packets
    assert dctcp.critical_window(2, 80.0, 20.0) == 50.0
    # 1 Gb/s x 1 ms / 1500 bytes = 83.33 packets
    assert dctcp.bdp(1e9, 1e-3, 1500) == pytest.approx(1e6 / 12000, rel=1e-15)


def test_alpha_solves_the_printed_cubic_by_hand():
    # W* = 50: alpha^2 (1 - alpha/4) = 101/2601 = 0.0388312; by hand 0.2022 -> 0.0388181 (below),
    # 0.2023 -> 0.0388555 (above), so 0.2022 < alpha < 0.2023; sqrt(2/50) = 0.2
    a = dctcp.alpha(2, 80.0, 20.0)
    assert 0.2022 < a < 0.2023
    assert a * a * (1 - a / 4) == pytest.approx(101 / 2601, rel=1e-12)
    assert dctcp.alpha_approx(2, 80.0, 20.0) == pytest.approx(0.2, rel=1e-15)
    # W* = 1 (N = 100): the cubic's right side 3/4 is its value at alpha = 1
    assert dctcp.alpha(100, 80.0, 20.0) == pytest.approx(1.0, abs=1e-12)


def test_alpha_approaches_sqrt_2_over_w_for_large_windows():
    for w in (1e2, 1e4, 1e6):
        rel = dctcp.alpha(1, w, 0.0) / math.sqrt(2 / w) - 1
        assert abs(rel) < 2.0 / math.sqrt(w)  # the correction is O(1/sqrt(W*))


def test_amplitude_period_and_queue_extremes_by_hand():
    # N = 2, C RTT + K = 100: A ~ sqrt(2 x 2 x 100) / 2 = 10; A = 2 (51) alpha / 2 = 51 alpha
    assert dctcp.amplitude_approx(2, 80.0, 20.0) == pytest.approx(10.0, rel=1e-15)
    assert 51 * 0.2022 < dctcp.amplitude(2, 80.0, 20.0) < 51 * 0.2023
    assert dctcp.period(2, 80.0, 20.0) == pytest.approx(dctcp.amplitude(2, 80.0, 20.0) / 2)
    # Q_max = K + N = 22; Q_min = 22 - 10 = 12 with the closed-form amplitude
    assert dctcp.q_max(2, 20.0) == 22.0
    assert dctcp.q_min(2, 80.0, 20.0, exact=False) == pytest.approx(12.0, rel=1e-15)
    assert dctcp.q_min(2, 80.0, 20.0) == pytest.approx(22 - dctcp.amplitude(2, 80.0, 20.0))


def test_the_guideline_k_above_a_seventh_of_the_bdp():
    # B = 84 packets: K > 12.  At K = 12 the worst N = (B + K) / 8 = 12 has Q_min = 24 -
    # sqrt(2 x 12 x 96) / 2 = 24 - 24 = 0, and no N does worse (closed-form amplitude)
    assert dctcp.k_min(84.0) == pytest.approx(12.0, rel=1e-15)
    assert dctcp.q_min(12, 84.0, 12.0, exact=False) == pytest.approx(0.0, abs=1e-12)
    assert min(dctcp.q_min(n, 84.0, 12.0, exact=False) for n in range(1, 400)) > -1e-12
    assert min(dctcp.q_min(n, 84.0, 11.0, exact=False) for n in range(1, 400)) < 0
    assert min(dctcp.q_min(n, 84.0, 13.0, exact=False) for n in range(1, 400)) > 0


def _sawtooth_utilisation(n, b, k, steps=200_000):
    """The utilisation of the synchronised sawtooth by brute force: the aggregate window
    rises by n packets per round trip from (1 - alpha/2) N (W*+1) to N (W*+1); a round trip
    lasts max(1, W/B) base RTTs and carries min(W, B) packets."""
    a = dctcp.alpha(n, b, k)
    hi = b + k + n
    lo = hi * (1 - a / 2)
    dw = (hi - lo) / steps
    busy = total = 0.0
    for i in range(steps):
        w = lo + (i + 0.5) * dw
        dt = dw / n * max(1.0, w / b)
        total += dt
        busy += dt * min(1.0, w / b)
    return busy / total


@pytest.mark.parametrize("n, b, k", [(10, 83.3, 5.0), (40, 83.3, 2.0), (3, 100.0, 0.0)])
def test_utilisation_against_an_integration_of_the_sawtooth(n, b, k):
    assert dctcp.q_min(n, b, k) < 0  # the link idles in these cases
    u = dctcp.utilisation(n, b, k)
    assert u < 1
    assert u == pytest.approx(_sawtooth_utilisation(n, b, k), abs=1e-6)


def test_the_link_stays_busy_above_the_guideline():
    for n in (2, 5, 10, 20, 40):
        assert dctcp.q_min(n, 83.3, 20.0) > 0
        assert dctcp.utilisation(n, 83.3, 20.0) == 1.0


def test_sympy_derives_the_printed_alpha_equation():
    pytest.importorskip("sympy")
    import sympy as sp

    d = dctcp.derive()
    assert d["difference"] == 0
    w = sp.symbols("W", positive=True)
    assert sp.simplify(d["large_w"] - sp.sqrt(2 / w)) == 0
    a = sp.symbols("alpha", positive=True)
    # the derivation's equation has the numeric root too
    root = dctcp.alpha(2, 80.0, 20.0)
    assert float(d["definition"].subs({a: root, w: 50})) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("call, err, match", [
    (lambda: dctcp.alpha(0, 80, 20), ScenarioError, r"dctcp.alpha.*n_flows must be >= 1"),
    (lambda: dctcp.alpha(2, 0, 20), ScenarioError, r"bdp must be > 0 \(in packets\)"),
    (lambda: dctcp.amplitude(2, 80, -1), ScenarioError, r"k must be >= 0 \(in packets\)"),
    (lambda: dctcp.q_max(2.5, 20), ScenarioError, r"dctcp.q_max.n_flows must be a whole"),
    (lambda: dctcp.k_min("84"), ScenarioTypeError, r"dctcp.k_min.bdp must be a real number"),
    (lambda: dctcp.bdp(1e9, 0, 1500), ScenarioError, r"dctcp.bdp.rtt must be > 0 \(in s\)"),
])
def test_bad_input_is_refused_with_the_field_named(call, err, match):
    with pytest.raises(err, match=match):
        call()
