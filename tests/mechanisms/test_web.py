"""The web-traffic spec: validation, the Pareto scale, ns-2's defaults."""

from __future__ import annotations

import pytest

from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.mechanisms import TcpNewReno, WebTraffic


def test_defaults_are_ns2_large_scale_web_traffic_example():
    w = WebTraffic()
    # tcl/ex/large-scale-web-traffic.tcl: objSize ParetoII avg_ 12 (packets of 1000 bytes),
    # shape_ 1.2; interPage Exponential avg_ 15 (s)
    assert (w.mean_size, w.shape, w.think_time) == (12000.0, 1.2, 15.0)
    assert isinstance(w, TcpNewReno) and w.windowed and w.kind == "web"


def test_scale_gives_the_mean():
    # Pareto(x_m, a) has mean a x_m / (a - 1)
    for mean, shape in ((12000.0, 1.2), (5000.0, 2.5), (40.0, 1.01)):
        w = WebTraffic(mean_size=mean, shape=shape)
        assert shape * w.scale / (shape - 1) == pytest.approx(mean, rel=1e-12)


@pytest.mark.parametrize("kwargs, match", [
    ({"mean_size": 0}, r"WebTraffic.mean_size must be > 0"),
    ({"shape": 1.0}, r"WebTraffic.shape must be > 1"),
    ({"shape": 0.5}, r"WebTraffic.shape must be > 1"),
    ({"think_time": 0}, r"WebTraffic.think_time must be > 0"),
    ({"think_time": float("inf")}, r"WebTraffic.think_time"),
    ({"max_window": 0}, r"WebTraffic.max_window must be >= 1"),
])
def test_bad_web(kwargs, match):
    with pytest.raises(ScenarioError, match=match):
        WebTraffic(**kwargs)


@pytest.mark.parametrize("kwargs", [{"mean_size": "1e4"}, {"shape": None}, {"think_time": True}])
def test_bad_types(kwargs):
    with pytest.raises((ScenarioTypeError, ScenarioError), match="WebTraffic"):
        WebTraffic(**kwargs)
