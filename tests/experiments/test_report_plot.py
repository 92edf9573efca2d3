"""How a ``ValidationReport`` shows itself: ``plot`` (the rows' signed deviations, tolerances
and explored spans drawn where the verdicts judge them, and clear errors for a selection that
does not exist), a one-line ``repr`` and the Jupyter table."""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from qosmodels import ScenarioError  # noqa: E402
from qosmodels.errors import ScenarioTypeError  # noqa: E402
from qosmodels.experiments import Bounds, Check, Side, ValidationReport  # noqa: E402
from qosmodels.experiments._plot import VERDICT_COLORS, signed_deviation  # noqa: E402
from qosmodels.experiments.rows import Known  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _report():
    k = Known("unstated parameter", "the buffer is not given", 0.5, sides=("packets",))
    return ValidationReport(checks=(
        # reproduced: packets 10.4 against 10 (+4 %), theory exact
        Check("a", "rate", 10.0, source="paper (measured)", theory=Side(10.0, 1e-6),
              packets=Side(10.4, 0.05, ci=0.2)),
        # known difference, explored: packets 7 against 10 (-30 %), band 6-9
        Check("a", "queue", 10.0, source="paper (measured)", packets=Side(7.0, 0.05),
              known=k, band=(6.0, 9.0), paper=12.0),
        # reachable
        Check("b", "delay", 2.0, source="paper (stated)", fluid=Side(2.5, 0.1),
              band=(1.9, 2.5), reachable_at={"buffer": 20.0}),
        # fails, against a range: 7 s above [2.5, 3.5], +100 % of the upper end
        Check("b", "transient", Bounds(2.5, 3.5), source="paper (stated)",
              packets=Side(7.0, 0.0)),
    ))


def _markers(ax, marker):
    """(x, y) of every single-point line drawn with ``marker``."""
    out = []
    for line in ax.get_lines():
        if line.get_marker() == marker and len(line.get_xdata()) == 1:
            out.append((float(line.get_xdata()[0]), float(line.get_ydata()[0])))
    return sorted(out, key=lambda p: -p[1])


def test_sides_are_drawn_at_their_signed_deviation_top_row_first():
    rep = _report()
    assert [c.verdict for c in rep.checks] == ["reproduced", "known difference", "reachable",
                                               "fails"]
    ax = rep.plot()
    # packets markers: rows 0 (y 3), 1 (y 2), 3 (y 0); by hand: +0.04, -0.3, (7-3.5)/3.5
    pk = _markers(ax, "^")
    np.testing.assert_allclose(pk, [(0.04, 3), (-0.3, 2), (1.0, 0)], atol=1e-12)
    assert _markers(ax, "s") == [(0.25, 1.0)]  # fluid 2.5 against 2
    assert _markers(ax, "o") == [(0.0, 3.0)]  # theory exact
    assert _markers(ax, "D") == [(pytest.approx(0.2), 2.0)]  # the paper's 12 against 10
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["b: transient", "b: delay", "a: queue", "a: rate"]
    assert ax.get_xscale() == "symlog"
    assert ax.get_title() == "4 rows: 1 reproduced, 1 reachable, 1 known difference, 1 fails"
    # the range row's zero tolerance: a stroke at the reference in the verdict's colour
    assert _markers(ax, "|") == [(0.0, 0.0)]
    stroke = next(ln for ln in ax.get_lines() if ln.get_marker() == "|")
    assert matplotlib.colors.to_hex(stroke.get_color()) == matplotlib.colors.to_hex("tab:red")


def test_tolerance_bars_carry_the_verdicts_colours_and_widths():
    ax = _report().plot()
    bars = sorted(ax.patches, key=lambda p: -p.get_y())
    assert len(bars) == 4
    widths = [p.get_width() for p in bars]
    np.testing.assert_allclose(widths, [0.1, 0.1, 0.2, 0.0])
    lefts = [p.get_x() for p in bars]
    np.testing.assert_allclose(lefts, [-0.05, -0.05, -0.1, 0.0])
    colors = [matplotlib.colors.to_hex(p.get_facecolor(), keep_alpha=False) for p in bars]
    want = [matplotlib.colors.to_hex(VERDICT_COLORS[v]) for v in
            ("reproduced", "known difference", "reachable", "fails")]
    assert colors == want


def test_explored_span_and_interval_are_drawn():
    ax = _report().plot()
    spans = [ln for ln in ax.get_lines() if ln.get_label() == "explored span"
             or (len(ln.get_xdata()) == 2 and ln.get_linewidth() == 4)]
    got = sorted((float(ln.get_ydata()[0]), tuple(np.round(ln.get_xdata(), 12).tolist()))
                 for ln in spans)
    assert got == [(1.0, (-0.05, 0.25)), (2.0, (-0.4, -0.1))]
    # the packets' 95% interval of the first row: 10.4 +- 0.2 -> +0.02 .. +0.06
    whiskers = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 2
                and ln.get_linewidth() == 1]
    assert len(whiskers) == 1
    np.testing.assert_allclose(whiskers[0].get_xdata(), [0.02, 0.06])


def test_selection_and_the_rows_left_out():
    rep = _report()
    ax = rep.plot(verdicts=["known difference", "fails"])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b: transient", "a: queue"]
    ax = rep.plot(experiments="b", max_rows=1)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b: delay"]
    assert "1 more not shown" in ax.get_title()
    fig, own = plt.subplots()
    assert rep.plot(own) is own


def test_bad_selections_raise_and_name_the_value():
    rep = _report()
    with pytest.raises(ScenarioError, match=r"\['c'\] not in this report; it has 'a', 'b'"):
        rep.plot(experiments=["a", "c"])
    with pytest.raises(ScenarioError, match=r"\['bad'\] not in this report"):
        rep.plot(verdicts="bad")
    with pytest.raises(ScenarioError, match=r"no row of this report"):
        rep.plot(experiments="b", verdicts="reproduced")
    with pytest.raises(ScenarioTypeError, match=r"experiments=\.\.\.\) must be None, a str"):
        rep.plot(experiments=3)
    with pytest.raises(ScenarioError, match=r"max_rows=\.\.\.\) must be an int >= 1, got 0"):
        rep.plot(max_rows=0)
    with pytest.raises(ScenarioError, match=r"linthresh=\.\.\.\) must be a finite number > 0"):
        rep.plot(linthresh=-1.0)


@given(value=st.floats(-1e6, 1e6), ref=st.floats(-1e3, 1e3),
       lo=st.floats(-100, 100), width=st.floats(0, 100))
def test_signed_deviation_has_the_verdicts_magnitude(value, ref, lo, width):
    """|signed_deviation| is exactly Side.error, for points and ranges, and its sign is the
    side of the reference the value lies on."""
    for expected in (ref, Bounds(lo, lo + width), Bounds(lo, None), Bounds(None, lo)):
        d = signed_deviation(value, expected)
        assert abs(d) == Side(value, 0.0).error(expected)
        point = expected if not isinstance(expected, Bounds) else None
        if point is not None and d != 0:
            assert math.copysign(1, d) == math.copysign(1, value - point)
    assert math.isnan(signed_deviation(math.nan, 1.0))


def test_repr_is_one_line_and_the_html_shows_the_rows_outside_tolerance():
    rep = _report()
    text = repr(rep)
    assert text == ("ValidationReport(4 rows in 2 experiments: 1 reproduced, 1 reachable, "
                    "1 known difference, 1 fails; 0 sanity apart; quick=False, explored=False)")
    # a sanity row is counted apart from the verdicts, as in the summary
    more = ValidationReport(checks=rep.checks + (
        Check("b", "share", 1.0, source="closed form", packets=Side(1.0, 0.1), sanity=True),))
    assert repr(more) == ("ValidationReport(5 rows in 2 experiments: 1 reproduced, 1 reachable, "
                          "1 known difference, 1 fails; 1 sanity apart; quick=False, "
                          "explored=False)")
    page = rep._repr_html_()
    assert page.count("<table") == 2
    # the three rows outside tolerance are listed, the reproduced one is not
    for q in ("queue", "delay", "transient"):
        assert f"<td>{q}</td>" in page
    assert "<td>rate</td>" not in page
    empty = ValidationReport(checks=())
    assert repr(empty).startswith("ValidationReport(0 rows in 0 experiments")
    assert "<table" not in empty._repr_html_()


def _segments(ax):
    """(y, left, width, facecolor hex) of every bar, top bar first."""
    return sorted(((round(p.get_y() + p.get_height() / 2), p.get_x(), p.get_width(),
                    matplotlib.colors.to_hex(p.get_facecolor(), keep_alpha=False))
                   for p in ax.patches), key=lambda t: (-t[0], t[1]))


def test_counts_stack_the_verdicts_per_experiment_and_per_paper():
    rep = ValidationReport(checks=(
        *_report().checks,
        Check("b", "share", 1.0, source="closed form", packets=Side(1.0, 0.1), sanity=True),
        Check("pps-table1", "rate", 1.0, source="paper (measured)", packets=Side(1.0, 0.1)),
    ))
    hexes = {v: matplotlib.colors.to_hex(c) for v, c in VERDICT_COLORS.items()}
    ax = rep.plot(kind="counts", by="experiment")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["pps-table1", "b", "a"]
    assert _segments(ax) == [
        (2, 0, 1, hexes["reproduced"]), (2, 1, 1, hexes["known difference"]),
        (1, 0, 1, hexes["reachable"]), (1, 1, 1, hexes["fails"]),
        (1, 2, 1, matplotlib.colors.to_hex("0.8")),  # b's sanity row, apart and last
        (0, 0, 1, hexes["reproduced"])]
    texts = sorted((round(t.get_position()[1]), t.get_text().strip()) for t in ax.texts)
    assert texts == [(0, "100% reproduced, 100% with reachable"),
                     (1, "0% reproduced, 50% with reachable"),
                     (2, "50% reproduced, 50% with reachable")]
    # by paper: "a" and "b" are textbook rows (no paper prefix), pps-table1 is PPS
    ax = rep.plot(kind="counts")
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "Probabilistic Packet Scheduling (PPS)", "Textbook checks (M/D/1, parking lots, "
                                                  "Reno/RED fluid)"]
    assert ax.get_title() == "6 rows by verdict, per paper (sanity rows apart)"
    with pytest.raises(ScenarioError, match=r"plot\(kind=\.\.\.\) must be 'rows'.*got 'bars'"):
        rep.plot(kind="bars")
    with pytest.raises(ScenarioError, match=r"plot\(by=\.\.\.\) must be 'paper' or "):
        rep.plot(kind="counts", by="author")


def test_keyword_arguments_reach_the_marks_and_override_their_style():
    ax = _report().plot(markersize=11, color="k")
    marks = [ln for ln in ax.get_lines() if ln.get_marker() in ("o", "s", "^")]
    assert len(marks) == 5 and all(ln.get_markersize() == 11 for ln in marks)
    assert all(matplotlib.colors.to_hex(ln.get_color()) == "#000000" for ln in marks)
    ax = _report().plot(kind="counts", alpha=0.5)
    assert all(p.get_alpha() == 0.5 for p in ax.patches)
