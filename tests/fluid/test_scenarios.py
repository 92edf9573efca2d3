"""The ACC paper's scenario networks (``qosmodels.fluid.scenarios``): what the paper fixes."""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.fluid import acc_equilibrium
from qosmodels.fluid.scenarios import acc_web_bottlenecks
from qosmodels.mechanisms import Avq, DropTail, WebTraffic


def test_figure_10_network():
    net = acc_web_bottlenecks(seed=3)
    names = net.flow_names
    assert net.n_flows == 2 + 6 + 1000
    assert isinstance(net.links[0].queue, Avq) and net.links[0].queue.avd
    assert all(isinstance(net.links[k].queue, DropTail) for k in (1, 2))
    assert np.all(net.capacities[:3] == 100e6)
    web = [f for f in net.flows if f.name.startswith("web")]
    assert all(isinstance(f.source, WebTraffic) and f.start == 30.0 for f in web)
    # the web sets cross R1->R2 and R2->R3, 500 each, over 25 access links each, 1-100 ms
    assert sum(f.route[1:3] == ("R1", "R2") for f in web) == 500
    assert sum(f.route[1:3] == ("R2", "R3") for f in web) == 500
    access = sorted({net.links[net.link_id((f.route[0], f.route[1]))].delay for f in web})
    assert len(access) == 25 and access[0] == pytest.approx(0.001) and access[-1] == 0.1
    # the short flows start in [0, 3) s, the same for the same seed
    starts = [f.start for f in net.flows if f.name.startswith("short")]
    assert all(0.0 <= s < 3.0 for s in starts) and len(set(starts)) == 6
    assert starts == [f.start for f in acc_web_bottlenecks(seed=3).flows
                      if f.name.startswith("short")]
    long1, long2 = net.flows[names.index("long1")], net.flows[names.index("long2")]
    assert (long1.start, long1.stop, long2.start, long2.stop) == (0.0, 50.0, 20.0, 40.0)


@pytest.mark.parametrize("n_long", [1, 2])
def test_figure_10_without_web_traffic_is_the_papers_theoretic_allocation(n_long):
    # 100/(6 + n) Mb/s for each long flow and 300/(6 + n) for each short one (Section V-B)
    net = acc_web_bottlenecks(seed=0, n_web=0)
    keep = [f for f in net.flows if f.name != "long2" or n_long == 2]
    eq = acc_equilibrium(net.replace(flows=keep), 3000)
    names = [f.name for f in keep]
    for name, rate in zip(names, eq.rates):
        share = (1.0 if name.startswith("long") else 3.0) * 100e6 / (6 + n_long)
        assert rate == pytest.approx(share, rel=1e-6), name


def test_figure_10_bad_input():
    with pytest.raises(ScenarioError, match="n_web_access must be even"):
        acc_web_bottlenecks(seed=0, n_web_access=5)
    with pytest.raises(ScenarioError, match="n_web must be >= 0"):
        acc_web_bottlenecks(seed=0, n_web=-1)
    with pytest.raises(ScenarioTypeError, match="web must be a WebTraffic source"):
        acc_web_bottlenecks(seed=0, web=DropTail())


def test_figure_10_web_source_is_passed_to_every_connection():
    w = WebTraffic(think_time=5.0)
    net = acc_web_bottlenecks(seed=0, n_web=10, n_web_access=2, web=w)
    assert [f.source for f in net.flows if f.name.startswith("web")] == [w] * 10
