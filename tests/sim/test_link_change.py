"""Link delay changes during a packet run (``simulate(events=[LinkChange(...)])``).

The reference is the closed form of a one-packet window: the flow sends one packet per
round trip, so its goodput is ``packet bits / rtt`` with ``rtt`` the propagation delays
there and back plus the two transmissions.
"""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels import Flow, Link, LinkChange, Network, simulate
from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.mechanisms import GenericWindow, TcpNewReno

PKT = 1000  # bytes
C = 10e6    # bit/s
TX = 8.0 * PKT / C  # a data packet's transmission, s
ACK_TX = 8.0 * 40 / C


def one_packet_window(reverse: bool):
    links = [Link("a", "b", C, 0.010, 100)]
    if reverse:
        links.append(Link("b", "a", C, 0.010, 100))
    return Network(links, [Flow(["a", "b"], packet_size=PKT, source=GenericWindow(window=1))])


@pytest.mark.parametrize("reverse", [False, True])
def test_a_one_packet_window_runs_at_the_new_round_trip(reverse):
    net = one_packet_window(reverse)
    r = simulate(net, 20.0, seed=1, warmup=12.0, events=[LinkChange(10.0, "a->b", 0.040)])
    # undeclared reverse hop: the ACK takes the forward link's delay, so both ways change;
    # a declared reverse link keeps its own 10 ms and only the ACK's transmission there
    rtt = (0.040 + 0.040 + TX) if not reverse else (0.040 + 0.010 + TX + ACK_TX)
    assert r.throughput[0] == pytest.approx(8.0 * PKT / rtt, rel=0.005)
    before = simulate(net, 10.0, seed=1, warmup=2.0, events=[LinkChange(9.9, "a->b", 0.040)])
    rtt0 = (0.020 + TX) if not reverse else (0.020 + TX + ACK_TX)
    assert before.throughput[0] == pytest.approx(8.0 * PKT / rtt0, rel=0.01)


def test_a_change_to_the_same_delay_changes_nothing():
    links = [Link("s", "r", 100e6, 0.001, 100), Link("r", "d", C, 0.02, 50)]
    net = Network(links, [Flow(["s", "r", "d"], packet_size=PKT, source=TcpNewReno())] * 2)
    a = simulate(net, 20.0, seed=1)
    b = simulate(net, 20.0, seed=1, events=[LinkChange(5.0, "r->d", 0.02),
                                            LinkChange(7.5, 0, 0.001)])
    np.testing.assert_array_equal(a.throughput, b.throughput)
    assert a.events == b.events


def test_changes_apply_in_time_order_and_a_shorter_delay_speeds_the_flow_up():
    net = one_packet_window(False)
    r = simulate(net, 20.0, seed=1, warmup=15.0,
                 events=[LinkChange(12.0, "a->b", 0.002), LinkChange(5.0, "a->b", 0.050)])
    assert r.throughput[0] == pytest.approx(8.0 * PKT / (0.004 + TX), rel=0.005)


@pytest.mark.parametrize("events, error, match", [
    ([1.0], ScenarioTypeError, r"simulate.events\[0\] must be a qosmodels.LinkChange"),
    ("a->b", ScenarioTypeError, r"simulate.events must be a sequence"),
    ([LinkChange(25.0, "a->b", 0.1)], ScenarioError, r"events\[0\].time = 25.0 s is not before"),
    ([LinkChange(5.0, "b->c", 0.1)], ScenarioError, r"no link 'b->c' in this network"),
])
def test_bad_events(events, error, match):
    with pytest.raises(error, match=match):
        simulate(one_packet_window(False), 20.0, seed=1, events=events)


def test_link_change_validates_its_fields():
    with pytest.raises(ScenarioError, match="LinkChange.delay must be >= 0"):
        LinkChange(1.0, "a->b", -0.1)
    with pytest.raises(ScenarioError, match="LinkChange.time must be > 0"):
        LinkChange(0.0, "a->b", 0.1)
