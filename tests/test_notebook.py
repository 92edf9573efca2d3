"""qosmodels.notebook: sliders that are live with ipywidgets and a still figure without."""

from __future__ import annotations

import sys

import pytest

from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.notebook import STATIC_ENV, Slider, interact, slider


def test_slider_kinds():
    s = slider(3, 2, 8)
    assert s == Slider(3, 2, 8, 1, integer=True)
    assert isinstance(s.value, int)
    f = slider(0.3, 0.05, 0.8, 0.05)
    assert (f.value, f.low, f.high, f.step, f.integer, f.log) == (0.3, 0.05, 0.8, 0.05, False, False)
    assert slider(0.5, 0.0, 1.0).step == pytest.approx(0.01)
    g = slider(1.0, 0.01, 100.0, log=True)
    assert g.log and g.step == pytest.approx(0.2)  # 4 decades / 20
    # a float anywhere makes a float slider
    assert not slider(3, 2, 8.0).integer
    assert not slider(3, 2, 8, 0.5).integer


@pytest.mark.parametrize(("args", "kw", "field"), [
    ((1, 2, 8), {}, "value"),              # below the range
    ((9, 2, 8), {}, "value"),              # above it
    ((3, 8, 2), {}, "high"),               # empty range
    ((3, 3, 3), {}, "high"),
    ((3, 2, 8, 0), {}, "step"),
    ((3, 2, 8, -1), {}, "step"),
    ((0.5, 0.0, 1.0), {"log": True}, "low"),
    ((float("nan"), 0.0, 1.0), {}, "value"),
])
def test_slider_rejects(args, kw, field):
    with pytest.raises(ScenarioError, match=f"slider.{field}"):
        slider(*args, **kw)


@pytest.mark.parametrize(("kw", "field"), [({"log": 1}, "log"), ({"label": 3}, "label")])
def test_slider_rejects_types(kw, field):
    with pytest.raises(ScenarioTypeError, match=f"slider.{field}"):
        slider(1.0, 0.0, 2.0, **kw)


def test_interact_rejects():
    with pytest.raises(ScenarioTypeError, match="at least one slider"):
        interact()
    with pytest.raises(ScenarioTypeError, match="x= must be a slider"):
        interact(x=(0, 1))


def _recorder():
    calls = []

    def draw(alpha, n):
        calls.append((alpha, n))

    return draw, calls


def test_static_draws_once_at_the_starting_values(monkeypatch, capsys):
    monkeypatch.setenv(STATIC_ENV, "1")
    draw, calls = _recorder()
    out = interact(alpha=slider(1.0, 0.25, 32, log=True), n=slider(3, 2, 8, label="links N"))(draw)
    assert out is draw
    assert calls == [(1.0, 3)]
    line = capsys.readouterr().out
    assert "Drawn at alpha = 1, links N = 3" in line
    assert "alpha (0.25 to 32, log scale), links N (2 to 8)" in line
    assert "install ipywidgets" not in line


def test_without_ipywidgets_draws_once_and_says_how_to_get_sliders(monkeypatch, capsys):
    monkeypatch.delenv(STATIC_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import fails
    draw, calls = _recorder()
    interact(alpha=slider(2.0, 1.0, 4.0), n=slider(5, 1, 9))(draw)
    assert calls == [(2.0, 5)]
    assert "install ipywidgets" in capsys.readouterr().out


def test_live_builds_the_widgets_and_draws_through_them(monkeypatch):
    ipywidgets = pytest.importorskip("ipywidgets")
    monkeypatch.delenv(STATIC_ENV, raising=False)
    seen = {}

    def fake_interact(fn, **widgets):  # ipywidgets.interact displays, then calls fn once
        seen.update(widgets)
        fn(**{k: w.value for k, w in widgets.items()})

    monkeypatch.setattr(ipywidgets, "interact", fake_interact)
    draw, calls = _recorder()
    interact(alpha=slider(0.02, 1e-4, 0.3, 0.25, log=True, label="q_b"), n=slider(3, 2, 8))(draw)
    a, n = seen["alpha"], seen["n"]
    assert isinstance(a, ipywidgets.FloatLogSlider) and isinstance(n, ipywidgets.IntSlider)
    assert (a.base, a.min, a.max, a.step, a.description) == (10, pytest.approx(-4), pytest.approx(-0.5229, abs=1e-4),
                                                           0.25, "q_b")
    assert a.value == pytest.approx(0.02)
    assert (n.value, n.min, n.max, n.step, n.description) == (3, 2, 8, 1, "n")
    assert not a.continuous_update and not n.continuous_update  # redraw on release
    assert calls == [(pytest.approx(0.02), 3)]


def test_a_float_slider_widget():
    ipywidgets = pytest.importorskip("ipywidgets")
    w = slider(0.3, 0.05, 0.8, 0.05, label="kappa").widget("k")
    assert isinstance(w, ipywidgets.FloatSlider)
    assert (w.value, w.min, w.max, w.step, w.description) == (0.3, 0.05, 0.8, 0.05, "kappa")
