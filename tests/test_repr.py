"""Short reprs of result dataclasses (qosmodels/_repr.py): no array printed element by element."""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels import abe, tokenbucket, topologies
from qosmodels._repr import MAX_SHOWN, brief
from qosmodels.fluid import acc_equilibrium, reno_equilibrium
from qosmodels.mechanisms import Red


def big_results():
    yield abe.run_loop(periods=200, seed=0)
    yield tokenbucket.TokenBucket(depth=3000, rate=1e6).shape(np.zeros(100), [1500] * 100)
    yield tokenbucket.partition(tokenbucket.TokenBucket(depth=3000, rate=1e6),
                                np.linspace(0.01, 0.5, 40))
    yield acc_equilibrium(topologies.acc_linear(8))
    yield reno_equilibrium(topologies.dumbbell(10).replace_link("r0->r1", queue=Red()))


@pytest.mark.parametrize("res", list(big_results()), ids=lambda r: type(r).__name__)
def test_reprs_are_short_and_name_the_class(res):
    text = repr(res)
    assert text.startswith(type(res).__name__ + "(") and len(text) < 700, text
    assert "<array " in text  # the long arrays by shape
    assert "<table" in res._repr_html_() or type(res).__name__ == "LoopRun"


def test_brief():
    assert brief(np.arange(MAX_SHOWN)) == "[0, 1, 2, 3, 4, 5]"
    assert brief(np.zeros((3, 4))) == "<array 3x4 float64>"
    assert brief(list(range(10))) == "<list of 10>"
    assert brief(0.1 + 0.2) == "0.3" and brief("x") == "'x'"


def test_reno_equilibrium_tables():
    eq = reno_equilibrium(topologies.dumbbell(3).replace_link("r0->r1", queue=Red()))
    flows, links = eq.to_pandas(), eq.to_pandas("links")
    assert list(flows.columns) == ["rate_bps", "path_marking", "rtt_s", "window_bits"]
    np.testing.assert_array_equal(flows["rate_bps"], eq.rates)
    assert links.loc["r0->r1", "marking"] == eq.marking[eq.network.link_id("r0->r1")] > 0
    with pytest.raises(ValueError, match="kind must be 'flows' or 'links'"):
        eq.to_pandas("nodes")
