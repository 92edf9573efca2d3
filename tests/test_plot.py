"""One plotting convention for every result (qosmodels/_plot.py).

``plot(ax=None, **kwargs)``: a new figure with every panel; one Axes draws
the main panel there; a sequence draws one panel per Axes; the return value
is what was drawn on; ``**kwargs`` reach the drawing calls.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from qosmodels import ScenarioTypeError, abe, allocate, solve_fluid, topologies  # noqa: E402
from qosmodels.fq import fair_queue  # noqa: E402
from qosmodels.pps import FIG6_TICKETS, fair_rates  # noqa: E402
from qosmodels.tokenbucket import TokenBucket  # noqa: E402


def results():
    """(name, result, number of panels) for every result class with a plot."""
    yield "Allocation", allocate(topologies.parking_lot(2)), 2
    yield "FluidResult", solve_fluid(topologies.acc_parking_lot(), 1.0), 2
    yield "LoopRun", abe.run_loop(periods=5, seed=0), 2
    yield "TicketAllocation", fair_rates(topologies.pps_multi_hop(), FIG6_TICKETS), 2
    yield "FairQueueResult", fair_queue([0.0, 0.0, 1.0], [0, 1, 0], [2, 1, 1], capacity=8.0), 2
    yield "ShapedTraffic", TokenBucket(depth=3000, rate=1e6).shape([0, 0, 0], [1500] * 3), 1


RESULTS = list(results())


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.mark.parametrize("name, res, n", RESULTS, ids=[r[0] for r in RESULTS])
def test_the_convention(name, res, n):
    out = res.plot()
    if n == 1:
        assert isinstance(out, Axes)
    else:
        assert isinstance(out, np.ndarray) and len(out) == n
        assert all(isinstance(a, Axes) and a.has_data() for a in out)
    # one Axes of the user's own: the main panel is drawn there, and it comes back
    _, mine = plt.subplots()
    assert res.plot(ax=mine) is mine and mine.has_data()
    # one Axes per panel, in a figure of the user's own
    if n > 1:
        _, pair = plt.subplots(1, n)
        back = res.plot(ax=pair)
        assert list(back) == list(pair) and all(a.has_data() for a in pair)
    # every panel says what it shows
    for a in np.atleast_1d(out):
        assert a.get_ylabel() and a.get_xlabel() is not None


@pytest.mark.parametrize("name, res, n", RESULTS, ids=[r[0] for r in RESULTS])
def test_keyword_arguments_reach_the_data(name, res, n):
    _, mine = plt.subplots()
    res.plot(ax=mine, color="red")
    artists = mine.lines + mine.patches + mine.collections
    assert any(np.allclose(to_rgba(c), to_rgba("red")) for c in _colours(artists))


def _colours(artists):
    for a in artists:
        for getter in ("get_color", "get_facecolor", "get_edgecolor"):
            if hasattr(a, getter):
                c = getattr(a, getter)()
                if isinstance(c, str) or np.ndim(c) == 1:
                    yield c
                else:
                    yield from c


@pytest.mark.parametrize("bad", ["left", [1, 2], 3])
def test_bad_ax_is_named(bad):
    with pytest.raises(ScenarioTypeError, match="ax must be None, a matplotlib Axes"):
        allocate(topologies.parking_lot(2)).plot(ax=bad)


def test_abe_panels_have_y_labels():
    ax = abe.run_loop(periods=5, seed=0).plot()
    assert ax[0].get_ylabel() == "alpha; loss ratio q_g / q_b"
    assert ax[1].get_ylabel() == "throughput ratio x_b / x_g"
