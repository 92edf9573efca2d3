"""qosmodels.mechanisms.token_bucket.AggregateBucket: its validation rules, one test each
(DESIGN.md, practice 1), the rules checked when a network is compiled, and the analytic
objects it hands out (``bucket``, ``partition``)."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest

from qosmodels import Aggregate, Flow, Link, Network, ScenarioError
from qosmodels.errors import ScenarioTypeError
from qosmodels.mechanisms import AggregateBucket, Cbr, TcpNewReno
from qosmodels.sim.compile import compile_scenario
from qosmodels.tokenbucket import PAPER_RTTS, TokenBucket, partition


# ------------------------------------------------------------------ construction
@pytest.mark.parametrize("depth", [999.0, 1.0, 999.999])
def test_a_depth_below_max_packet_is_refused_with_the_fix(depth):
    with pytest.raises(ScenarioError, match=(
            rf"AggregateBucket.depth must be >= max_packet = 1000 bytes \(a largest packet would "
            rf"never conform\), got {depth!r}; raise depth or lower max_packet")):
        AggregateBucket(rate=1e6, depth=depth, max_packet=1000)


def test_a_depth_equal_to_max_packet_is_accepted():
    assert AggregateBucket(rate=1e6, depth=1500).depth == 1500.0  # default max_packet 1500


@pytest.mark.parametrize("field, value, msg", [
    ("rate", 0, r"AggregateBucket.rate must be > 0 \(in bit/s\), got 0"),
    ("rate", -1e6, r"AggregateBucket.rate must be > 0 \(in bit/s\), got -1000000.0"),
    ("rate", math.inf, r"AggregateBucket.rate must be finite \(in bit/s\), got inf"),
    ("depth", 0, r"AggregateBucket.depth must be > 0 \(in bytes\), got 0"),
    ("max_packet", 0, r"AggregateBucket.max_packet must be > 0 \(in bytes\), got 0"),
    ("peak_rate", 0.0, r"AggregateBucket.peak_rate must be > 0 \(in bit/s\), got 0.0"),
    ("peak_rate", math.nan, r"AggregateBucket.peak_rate must be finite \(in bit/s\), got nan"),
    ("timer", -0.015, r"AggregateBucket.timer must be >= 0 \(in s\), got -0.015"),
    ("timer", math.inf, r"AggregateBucket.timer must be finite \(in s\), got inf"),
    ("limit", 0, r"AggregateBucket.limit must be >= 1 \(in packets\), got 0"),
    ("limit", -3, r"AggregateBucket.limit must be >= 1 \(in packets\), got -3"),
    ("limit", 2.5, r"AggregateBucket.limit must be a whole number \(in packets\), got 2.5"),
    ("quantum", 0, r"AggregateBucket.quantum must be >= 1 \(in packets\), got 0"),
    ("quantum", 1.5, r"AggregateBucket.quantum must be a whole number \(in packets\), got 1.5"),
    ("quantum", math.nan, r"AggregateBucket.quantum must be finite \(in packets\), got nan"),
    ("quantum", -math.inf, r"AggregateBucket.quantum must be finite \(in packets\), got -inf"),
])
def test_out_of_range_numbers_are_refused(field, value, msg):
    kw = dict(rate=1e6, depth=5000, max_packet=1000) | {field: value}
    with pytest.raises(ScenarioError, match=msg):
        AggregateBucket(**kw)


@pytest.mark.parametrize("field, value", [("rate", "1e6"), ("depth", None), ("timer", True),
                                          ("limit", "10"), ("max_packet", [1000]),
                                          ("quantum", "2"), ("quantum", True)])
def test_numbers_must_be_numbers(field, value):
    kw = dict(rate=1e6, depth=5000, max_packet=1000) | {field: value}
    with pytest.raises(ScenarioTypeError, match=rf"AggregateBucket.{field} must be a"):
        AggregateBucket(**kw)


@pytest.mark.parametrize("peak", [999_999.0, 1.0])
def test_a_peak_rate_below_the_rate_is_refused_with_the_fix(peak):
    with pytest.raises(ScenarioError, match=(
            rf"AggregateBucket.peak_rate must be >= rate = 1e\+06 bit/s, got {peak!r}; use "
            rf"math.inf for no peak-rate limit")):
        AggregateBucket(rate=1e6, depth=5000, peak_rate=peak)


def test_a_peak_rate_equal_to_the_rate_and_an_infinite_one_are_accepted():
    assert AggregateBucket(rate=1e6, depth=5000, peak_rate=1e6).peak_rate == 1e6
    assert AggregateBucket(rate=1e6, depth=5000).peak_rate == math.inf


@pytest.mark.parametrize("field, allowed", [
    ("sharing", "['partitioned', 'common', 'logical']"),
    ("action", "['shape', 'police', 'mark']"),
    ("depths", "['rtt', 'equal']"),
])
@pytest.mark.parametrize("value", ["shared", "Common", ""])
def test_unknown_names_are_refused_with_the_choices(field, allowed, value):
    kw = dict(rate=1e6, depth=5000) | {field: value}
    if field == "sharing":
        kw["order"] = None
    with pytest.raises(ScenarioError, match=re.escape(
            f"AggregateBucket.{field} must be one of {allowed}, got {value!r}")):
        AggregateBucket(**kw)


@pytest.mark.parametrize("field", ["sharing", "action", "depths", "order"])
def test_names_must_be_strings(field):
    kw = dict(rate=1e6, depth=5000, sharing="common") | {field: 1}
    with pytest.raises(ScenarioTypeError, match=rf"AggregateBucket.{field} must be one of"):
        AggregateBucket(**kw)


def test_an_unknown_order_is_refused_with_the_choices():
    with pytest.raises(ScenarioError, match=(
            r"AggregateBucket.order must be one of \['sequential', 'fcfs', 'lru'\], "
            r"got 'random'")):
        AggregateBucket(rate=1e6, depth=5000, sharing="common", order="random")


@pytest.mark.parametrize("sharing", ["partitioned", "logical"])
@pytest.mark.parametrize("order", ["sequential", "fcfs", "lru"])
def test_an_order_without_a_common_bucket_is_refused_with_the_fix(sharing, order):
    with pytest.raises(ScenarioError, match=(
            rf"AggregateBucket.order applies to a common bucket only \(sharing='common'\), got "
            rf"order={order!r} with sharing={sharing!r}; drop order or use sharing='common'")):
        AggregateBucket(rate=1e6, depth=5000, sharing=sharing, order=order)


def test_the_default_order_is_fcfs_for_a_common_bucket_and_none_otherwise():
    assert AggregateBucket(rate=1e6, depth=5000, sharing="common").order == "fcfs"
    for sharing in ("partitioned", "logical"):
        assert AggregateBucket(rate=1e6, depth=5000, sharing=sharing).order is None


@pytest.mark.parametrize("value", [1, 0, "yes", None])
def test_record_must_be_a_bool(value):
    with pytest.raises(ScenarioTypeError,
                       match=rf"AggregateBucket.record must be True or False, got {value!r}"):
        AggregateBucket(rate=1e6, depth=5000, record=value)


def test_defaults_are_the_papers():
    # Section 4.1: a 15 ms shaping timer; Section 4.2.3: logical partitions with depths
    # weighted by the RTT; shaping (qosmgr holds TCP back)
    s = AggregateBucket(rate=600e3, depth=30_000)
    assert (s.timer, s.sharing, s.depths, s.action) == (0.015, "logical", "rtt", "shape")
    assert s.max_packet == 1500.0 and s.peak_rate == math.inf and s.limit == 1000
    assert s.record is False
    assert type(s.rate) is float and type(s.limit) is int
    assert s.quantum == math.inf  # unstated in the paper: every conforming packet goes


def test_a_quantum_is_a_whole_number_of_packets():
    assert AggregateBucket(rate=1e6, depth=5000, quantum=2).quantum == 2
    q = AggregateBucket(rate=1e6, depth=5000, quantum=3.0).quantum
    assert q == 3 and type(q) is int


@pytest.mark.parametrize("action", ["police", "mark"])
def test_a_quantum_without_shaping_is_refused_with_the_fix(action):
    with pytest.raises(ScenarioError, match=rf"quantum.*action='shape' only, got quantum=2 "
                                            rf"with action='{action}'; drop quantum"):
        AggregateBucket(rate=1e6, depth=5000, action=action, quantum=2)
    assert AggregateBucket(rate=1e6, depth=5000, action=action).quantum == math.inf


def test_the_spec_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        AggregateBucket(rate=1e6, depth=5000).rate = 2e6


# ------------------------------------------------------------------ analytic objects
def test_bucket_is_the_analytic_token_bucket():
    s = AggregateBucket(rate=800e3, depth=10_000, peak_rate=1.6e6, max_packet=1000)
    assert s.bucket == TokenBucket(depth=10_000, rate=800e3, peak_rate=1.6e6, max_packet=1000)
    assert isinstance(s.bucket, TokenBucket)
    assert AggregateBucket(rate=1e6, depth=5000).bucket.peak_rate == math.inf


@pytest.mark.parametrize("rule", ["rtt", "equal"])
def test_partition_is_the_analytic_partition(rule):
    s = AggregateBucket(rate=800e3, depth=32_000, depths=rule)
    got = s.partition(PAPER_RTTS)
    want = partition(TokenBucket(depth=32_000, rate=800e3, max_packet=1500), PAPER_RTTS, rule)
    for field in ("rates", "depths", "rate_windows", "rtts"):
        np.testing.assert_array_equal(getattr(got, field), getattr(want, field))
    assert got.rule == rule and got.rtt_av == want.rtt_av
    # the paper's numbers (tokenbucket.partition's doctest): 200 kb/s each, depths by RTT
    if rule == "rtt":
        assert got.depths.tolist() == [1280.0, 7680.0, 7680.0, 15360.0]
    else:
        assert got.depths.tolist() == [8000.0] * 4


# ------------------------------------------------------------------ checked when compiled
def two_flows(edge, sizes=(1000, 1000), delays=(0.01, 0.02)):
    links = [Link("s", "r", 1e7, 0.0, 100), Link("r", "a", 1e7, delays[0], 100),
             Link("r", "b", 1e7, delays[1], 100)]
    flows = [Flow(["s", "r", "a"], source=TcpNewReno(), packet_size=sizes[0], name="x"),
             Flow(["s", "r", "b"], source=Cbr(rate=1e5), packet_size=sizes[1], name="y")]
    return Network(links, flows, aggregates=[Aggregate("agg", flows=["x", "y"], edge=edge)])


def test_a_members_packets_larger_than_max_packet_are_refused_with_the_fix():
    net = two_flows(AggregateBucket(rate=1e6, depth=8000, max_packet=1000, sharing="common"),
                    sizes=(1000, 1200))
    with pytest.raises(ScenarioError, match=(
            r"flow 'y' sends 1200-byte packets through an AggregateBucket of max_packet = 1000 "
            r"bytes; raise max_packet to at least 1200")):
        compile_scenario(net, 1.0, seed=0)


@pytest.mark.parametrize("depths, depth, small, need", [
    # equal: 2500 / 2 = 1250 < 1500 -> b >= 3000
    ("equal", 2500.0, "x", "3000"),
    # rtt 20 ms and 40 ms round trips: x holds 3000 / 3 = 1000 < 1500 -> b >= 4500
    ("rtt", 3000.0, "x", "4500"),
])
def test_a_partition_shallower_than_a_members_packet_is_refused_with_the_fix(depths, depth,
                                                                            small, need):
    net = two_flows(AggregateBucket(rate=1e6, depth=depth, max_packet=1500, depths=depths,
                                    sharing="logical"), sizes=(1500, 1000))
    with pytest.raises(ScenarioError, match=(
            rf"AggregateBucket: flow {small!r}'s partition holds [0-9.]+ bytes, less than its "
            rf"1500-byte packets \(depths={depths!r}\); raise depth to at least {need} bytes")):
        compile_scenario(net, 1.0, seed=0)


def test_the_needed_depth_in_the_message_is_enough():
    # the depth the message asks for compiles (x's partition then holds 1500 exactly)
    net = two_flows(AggregateBucket(rate=1e6, depth=4500, max_packet=1500, depths="rtt",
                                    sharing="partitioned"), sizes=(1500, 1000))
    compile_scenario(net, 1.0, seed=0)


@pytest.mark.parametrize("sharing", ["partitioned", "logical"])
def test_rtt_depths_need_round_trip_delays(sharing):
    net = two_flows(AggregateBucket(rate=1e6, depth=8000, max_packet=1000, sharing=sharing),
                    delays=(0.0, 0.02))
    with pytest.raises(ScenarioError, match=(
            r"AggregateBucket\(depths='rtt'\) shares the depth in proportion to the members' "
            r"round-trip propagation delays, but flow\(s\) \['x'\] have none; give their links a "
            r"delay or use depths='equal'")):
        compile_scenario(net, 1.0, seed=0)
    # equal depths, or a common bucket, need no delay
    for edge in (AggregateBucket(rate=1e6, depth=8000, max_packet=1000, sharing=sharing,
                                 depths="equal"),
                 AggregateBucket(rate=1e6, depth=8000, max_packet=1000, sharing="common")):
        compile_scenario(two_flows(edge, delays=(0.0, 0.02)), 1.0, seed=0)


def test_an_aggregate_needs_flows():
    with pytest.raises(ScenarioError, match=r"Aggregate 'a': flows must name at least one flow, "
                                            r"got none"):
        Aggregate("a", flows=[], edge=AggregateBucket(rate=1e6, depth=5000))


def test_an_aggregates_flows_must_share_their_ingress():
    links = [Link("s", "d", 1e6, 0.01), Link("t", "d", 1e6, 0.01)]
    flows = [Flow(["s", "d"], name="x"), Flow(["t", "d"], name="y")]
    with pytest.raises(ScenarioError, match=(
            r"Aggregate 'a': its flows enter the network at different nodes \['s', 't'\]; an "
            r"aggregate's flows must share their first node")):
        Network(links, flows, aggregates=[
            Aggregate("a", flows=["x", "y"], edge=AggregateBucket(rate=1e6, depth=5000))])


@pytest.mark.parametrize("sharing", ["partitioned", "logical"])
@pytest.mark.parametrize("depth, delay", [(116.0, 0.01), (162.0, 0.025)])
def test_a_partition_of_exactly_one_packet_is_accepted(sharing, depth, delay):
    # one member, depths="rtt": its partition is b rtt / rtt, which rounds to one unit
    # in the last place below b for these values; depth = max_packet = the member's
    # packet size must compile (the kernel counts tokens short by less than its EPS as
    # enough, so such a partition passes the packet)
    net = Network([Link("s", "d", 1e6, delay)],
                  [Flow(["s", "d"], source=Cbr(rate=1e5), packet_size=int(depth), name="x")],
                  aggregates=[Aggregate("a", flows=["x"], edge=AggregateBucket(
                      rate=1e6, depth=depth, max_packet=depth, sharing=sharing))])
    assert AggregateBucket(rate=1e6, depth=depth, max_packet=depth).partition(
        net.rtt).depths[0] < depth  # the rounding this test is about
    compile_scenario(net, 1.0, seed=0)
