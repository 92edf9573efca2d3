"""Fuzz: the scenario description (Link, Flow, Network) with any values.

Each call either raises a ScenarioError (or its TypeError flavour) naming the field, or
builds a network whose derived arrays are finite and consistent.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from qosmodels import Flow, Link, Network
from qosmodels.errors import ScenarioError

from .strategies import FUZZ, any_value, error_names, sane_positive

LINK_FIELDS = ("capacity", "delay", "buffer")
FLOW_FIELDS = ("packet_size", "weight", "start", "stop", "max_rate")


@FUZZ
@given(field=st.sampled_from(LINK_FIELDS), value=any_value)
def test_link_fields(field, value):
    kw = {"capacity": 1e6, "delay": 0.01, "buffer": 100, field: value}
    try:
        link = Link("a", "b", **kw)
    except ScenarioError as e:
        assert error_names(e, "Link", field), str(e)
        return
    got = getattr(link, field)
    assert np.isfinite(got) and got >= 0
    net = Network([link], [Flow(["a", "b"])])
    assert np.all(np.isfinite(net.capacities)) and np.all(net.capacities > 0)
    assert np.all(np.isfinite(net.delays)) and np.all(net.buffers >= 0)


@FUZZ
@given(field=st.sampled_from(FLOW_FIELDS), value=any_value)
def test_flow_fields(field, value):
    kw = {field: value}
    try:
        flow = Flow(["a", "b"], **kw)
        net = Network([Link("a", "b", 1e6, 0.01)], [flow])
    except ScenarioError as e:
        assert error_names(e, "Flow", field), str(e)
        return
    assert np.all(np.isfinite(net.rtt)) and np.all(net.rtt >= 0)
    assert np.all(np.isfinite(net.weights)) and np.all(net.weights > 0)


@FUZZ
@given(n=st.integers(1, 6), caps=st.lists(sane_positive, min_size=6, max_size=6),
       route=st.lists(st.integers(0, 6), min_size=1, max_size=8))
def test_routes(n, caps, route):
    # a chain of n links; a route of arbitrary node indices is valid only along the chain
    links = [Link(str(i), str(i + 1), caps[i] * 1e6, 0.001 * (i + 1)) for i in range(n)]
    nodes = [str(i) for i in route]
    try:
        net = Network(links, [Flow(nodes)])
    except ScenarioError as e:
        assert "route" in str(e) or "Flow" in str(e), str(e)
        return
    assert net.routing_matrix.shape == (n, 1)
    assert net.rtt[0] > 0
