"""TCP in the packet simulator against what is known of it.

References: the bandwidth-delay product argument (one flow with a buffer of at
least one BDP keeps the link busy); T. V. Lakshman, U. Madhow, "The
performance of TCP/IP for networks with high bandwidth-delay products and
random loss", IEEE/ACM ToN 5(3), 1997 (throughput of competing flows goes as
RTT^-a, 1 <= a <= 2); M. Mathis et al., CCR 27(3), 1997 (the square-root law
B = MSS / RTT sqrt(3 / (2 p)) with an ACK per packet).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, jain_index, topologies
from qosmodels.sim import GenericWindow, RandomLoss, Record, Red, TcpNewReno, TcpReno, simulate
from qosmodels.sim._kernels.sources import reno
from qosmodels.sim.compile import pack_params

QUIET = Record(interval=1.0, cwnd=False)


@pytest.mark.parametrize("source", [TcpReno(), TcpNewReno()], ids=["reno", "newreno"])
def test_one_flow_fills_the_pipe(source):
    net = topologies.dumbbell(1, capacity=10e6, delay=0.02, buffer=100)  # BDP = 50 packets
    net = net.replace(flows=[Flow(net.flows[0].route, source=source)])
    res = simulate(net, 60.0, seed=0, warmup=10.0, record=QUIET)
    bottleneck = net.link_id(("r0", "r1"))
    assert res.utilisation[bottleneck] > 0.95
    assert res.throughput[0] > 0.95 * 10e6


def test_equal_rtt_flows_share_fairly_and_fill_the_link():
    net = topologies.dumbbell(8, capacity=10e6, delay=0.02, buffer=100)
    net = net.replace(flows=[Flow(f.route, source=TcpNewReno(), start=0.1 * i)
                             for i, f in enumerate(net.flows)])
    res = simulate(net, 300.0, seed=1, warmup=30.0, record=QUIET)
    assert res.utilisation[net.link_id(("r0", "r1"))] >= 0.95
    assert jain_index(res.throughput) >= 0.95


def test_rtt_bias_between_known_bounds():
    # access delays 2 ms and 42 ms: round trips 0.044 s and 0.124 s (x 2.8)
    net = topologies.dumbbell(2, capacity=10e6, delay=0.02, buffer=60,
                              access_delay=[0.002, 0.042])
    res = simulate(net, 400.0, seed=2, warmup=40.0, record=QUIET)
    ratio = res.throughput[0] / res.throughput[1]
    r = net.rtt[1] / net.rtt[0]
    a = np.log(ratio) / np.log(r)
    assert 0.8 <= a <= 2.2, (ratio, r, a)


@pytest.mark.parametrize("p", [0.002, 0.01])
def test_square_root_law_under_random_loss(p):
    rtt = 0.1
    links = [Link("a", "b", 1e9, rtt / 2, buffer=10_000, queue=RandomLoss(p))]
    net = Network(links, [Flow(["a", "b"], source=TcpNewReno(max_window=100_000))])
    res = simulate(net, 2000.0, seed=3, warmup=50.0, record=QUIET)
    mathis = 8000 / rtt * np.sqrt(3 / (2 * p))
    assert res.throughput[0] == pytest.approx(mathis, rel=0.20)
    assert res.drop_rate[0] == pytest.approx(p, rel=0.1)


def test_timeouts_back_off_and_recover():
    # a 1-packet buffer on a slow link: losses in slow start cause timeouts, and the flow
    # still ends up using the link
    net = Network([Link("a", "b", 1e6, 0.05, buffer=1)],
                  [Flow(["a", "b"], source=TcpReno())])
    res = simulate(net, 120.0, seed=0, warmup=20.0, record=QUIET)
    assert res.counters["timeouts"][0] + res.counters["fast_retransmits"][0] > 0
    assert res.throughput[0] > 0.1e6


def test_fixed_window_throughput_is_window_over_rtt():
    # a window-limited sender: W packets per round trip (transmission times included)
    W, rtt = 5, 0.1
    net = Network([Link("a", "b", 100e6, rtt / 2)],
                  [Flow(["a", "b"], source=GenericWindow(window=W, packet_size=1000))])
    res = simulate(net, 50.0, seed=0, warmup=5.0, record=QUIET)
    cycle = rtt + 8000 / 100e6  # ACKs see propagation only (undeclared reverse link)
    assert res.throughput[0] == pytest.approx(W * 8000 / cycle, rel=1e-3)
    assert res.counters["timeouts"][0] == 0


def test_generic_window_times_out_and_resends_on_loss():
    net = Network([Link("a", "b", 10e6, 0.05, queue=RandomLoss(0.05))],
                  [Flow(["a", "b"], source=GenericWindow(window=8, beta=2.0))])
    res = simulate(net, 200.0, seed=4, warmup=10.0, record=QUIET)
    c = res.counters
    assert c["timeouts"][0] > 0 and c["fast_retransmits"][0] == 0
    assert c["retransmitted"][0] > 0
    # every packet is eventually delivered in order: unique deliveries never exceed new data
    assert c["delivered"][0] <= c["sent"][0] - c["retransmitted"][0]
    assert res.throughput[0] > 0


def test_ecn_marks_replace_drops_for_ecn_senders():
    red = Red(min_th=5, max_th=30, max_p=0.1, w_q=0.01, mark=True)
    out = {}
    for ecn in (False, True):
        net = topologies.dumbbell(4, capacity=10e6, delay=0.02, buffer=200)
        links = [dataclasses.replace(l, queue=red) if l.key == ("r0", "r1") else l
                 for l in net.links]
        flows = [Flow(f.route, source=TcpNewReno(ecn=ecn), start=0.2 * i)
                 for i, f in enumerate(net.flows)]
        out[ecn] = simulate(Network(links, flows), 100.0, seed=5, warmup=20.0, record=QUIET)
    b = 0  # the bottleneck is the first link of dumbbell()
    assert out[True].link_drops["marks"][b] > 0 and out[True].link_drops["early"][b] == 0
    assert out[False].link_drops["marks"][b] == 0 and out[False].link_drops["early"][b] > 0
    assert out[True].counters["retransmitted"].sum() < out[False].counters["retransmitted"].sum()
    assert out[True].utilisation[b] > 0.9


# --------------------------------------------------------------------------- recovery="pipe"
#
# Hand-traced scenario (times in ms).  One NewReno flow on one 8 Mb/s link (1000-byte
# packets: 1 ms each), 10 ms propagation each way (ACKs: propagation only), buffer 3
# packets.  The flow starts with W0 packets and ssthresh W0 (congestion avoidance from
# the start).  At t = 0 packet 0 starts its transmission, 1-3 wait and the rest of the
# window is dropped.  Packets 0-3 reach the receiver at 11-14, their ACKs 1-4 come back
# at 21-24; each one opens the window (cwnd 5 -> 5.2 -> 5.3923 -> 5.5778 -> 5.7570 for
# W0 = 5) and sends one new packet W0, W0+1, ... at 21-24, which overtakes nothing:
# they arrive at 32-35 above the hole and give duplicate ACKs of 4 at 42, 43, 44, 45.
# The third, at 44, is the fast retransmit of packet 4.
#
# W0 = 5 (one loss, packet 4), "pipe" (ns-3 TcpClassicRecovery without SACK):
#   44: flight = 9 - 4 = 5 packets, one counted SACKed -> ssthresh = max((5 - 1)/2, 2)
#       = 2, cwnd = 2; packet 4 resent (pipe = 5 - 1 SACKed - 1 lost + 1 resent = 4).
#   45: fourth duplicate ACK, 2 SACKed: pipe = 5 - 2 - 1 + 1 = 3, nothing sent (a packet
#       leaves only while pipe + 1 <= cwnd; "inflation":
#       cwnd = 2.5 + 3 + 1 = 6.5 lets packet 9 go).
#   65: ACK 9 (4 arrived at 55) covers recover = 8: cwnd = ssthresh = 2, then one
#       congestion-avoidance step, 2.5; pipe = 0, so packets 9 and 10 leave.
# W0 = 6 (packets 4 and 5 lost), "pipe":
#   44: flight = 10 - 4 = 6, ssthresh = (6 - 1)/2 = 2.5 = cwnd; 4 resent.
#   45: 2 SACKed, pipe = 6 - 2 - 1 + 1 = 4: nothing sent.
#   65: partial ACK 5 (4 arrived at 55): the two SACK marks sat on 5 and 6, the
#       packets after the head; the one on 5, now the first unacknowledged packet,
#       moves to 7 and 5 is resent, once; cwnd stays 2.5; pipe = (10 - 5) - 2 SACKed
#       - 1 lost + 1 resent = 3, and 3 + 1 > 2.5: nothing new.
#   86: ACK 10 (5 arrived at 76) ends the recovery: cwnd = 2.5 + 1/2.5 = 2.9, packets
#       10 and 11 leave.

def _hand_traced(w0, recovery, until):
    src = TcpNewReno(initial_window=w0, initial_ssthresh=w0, recovery=recovery)
    net = Network([Link("a", "b", 8e6, 0.010, 3)],
                  [Flow(["a", "b"], packet_size=1000, source=src)])
    res = simulate(net, until, seed=1, record=Record(interval=0.0005, cwnd=True))
    c = res.counters
    return (int(c["sent"][0]), int(c["retransmitted"][0]), int(c["fast_retransmits"][0]),
            int(c["timeouts"][0]), round(float(res.cwnd_series[-1, 0]), 4))


@pytest.mark.parametrize("until, expected", [
    (0.0435, (9, 0, 0, 0, 5.757)),    # before the fast retransmit
    (0.0445, (10, 1, 1, 0, 2.0)),     # fast retransmit: cwnd = ssthresh = 2
    (0.0455, (10, 1, 1, 0, 2.0)),     # fourth duplicate ACK: nothing new
    (0.0655, (12, 1, 1, 0, 2.5)),     # recovery over: 9 and 10 leave
])
def test_pipe_recovery_one_loss_hand_traced(until, expected):
    assert _hand_traced(5, "pipe", until) == expected


@pytest.mark.parametrize("until, expected", [
    (0.0445, (11, 1, 1, 0, 2.5)),     # fast retransmit: ssthresh = (6 - 1)/2
    (0.0455, (11, 1, 1, 0, 2.5)),
    (0.0655, (12, 2, 1, 0, 2.5)),     # partial ACK: 5 resent once, cwnd unchanged
    (0.0865, (14, 2, 1, 0, 2.9)),     # recovery over: 10 and 11 leave
])
def test_pipe_recovery_two_losses_hand_traced(until, expected):
    assert _hand_traced(6, "pipe", until) == expected


def test_inflation_recovery_is_the_default_and_differs_from_pipe_as_traced():
    # the same first loss with RFC 6582 inflation: cwnd = 2.5 + 3 = 5.5 at the fast
    # retransmit, 6.5 after the fourth duplicate ACK, which sends packet 9 at 45 ms
    assert TcpNewReno().recovery == "inflation"
    assert _hand_traced(5, "inflation", 0.0445)[4] == 5.5
    assert _hand_traced(5, "inflation", 0.0455) == (11, 1, 1, 0, 6.5)


# --------------------------------------------------------------------------- window_arithmetic

def _ns3_cwnd_after_acks(cwnd_bytes, segment, n_acks):
    # ns-3.44 TcpNewReno::CongestionAvoidance, one call per ACK of new data, in plain
    # integers: cwnd += max(1, (uint32_t)(S * S / cwnd)) bytes
    for _ in range(n_acks):
        cwnd_bytes += max(1, (segment * segment) // cwnd_bytes)
    return cwnd_bytes


def _hand_traced_bytes(w0, until, segment):
    src = TcpNewReno(initial_window=w0, initial_ssthresh=w0, recovery="pipe",
                     window_arithmetic="bytes", segment_size=segment)
    net = Network([Link("a", "b", 8e6, 0.010, 3)],
                  [Flow(["a", "b"], packet_size=1000, source=src)])
    res = simulate(net, until, seed=1, record=Record(interval=0.0005, cwnd=True))
    c = res.counters
    return (int(c["sent"][0]), int(c["retransmitted"][0]), int(c["fast_retransmits"][0]),
            int(c["timeouts"][0]), float(res.cwnd_series[-1, 0]))


def test_byte_arithmetic_congestion_avoidance_steps_as_ns3():
    # The W0 = 5 scenario above: ACKs 1-4 at 21-24 ms, each a congestion-avoidance step
    # from 5 segments of 958 bytes: 4790 + 191 + 184 + 177 + 171 = 5513 bytes (packets:
    # 5.7570; bytes: 5513 / 958 = 5.7547).
    assert _ns3_cwnd_after_acks(5 * 958, 958, 4) == 5513
    sent, retx, frx, to, cwnd = _hand_traced_bytes(5, 0.0435, 958)
    assert (sent, retx, frx, to) == (9, 0, 0, 0)
    assert cwnd == 5513 / 958
    # the fast retransmit: ssthresh = max(2 S, bytesInFlight / 2) = 4 x 958 / 2 bytes;
    # after the recovery (65 ms) one step from 1916 bytes: + 479 = 2395 = 2.5 segments
    assert _hand_traced_bytes(5, 0.0445, 958)[4] == 2.0
    assert _hand_traced_bytes(5, 0.0655, 958) == (12, 1, 1, 0, 2395 / 958)


def test_byte_arithmetic_halves_in_whole_bytes():
    # The W0 = 6 scenario above with an odd segment of 1001 bytes: ssthresh = 5 x 1001 / 2
    # = 2502 bytes (integer division), not 2.5 segments; after the recovery (86 ms) one
    # step: 2502 + 1002001 // 2502 = 2502 + 400 = 2902 bytes.  The packets sent are those
    # of the packet arithmetic (2.4995 and 2.8991 segments allow 2, as 2.5 and 2.9 do).
    assert _hand_traced_bytes(6, 0.0445, 1001) == (11, 1, 1, 0, 2502 / 1001)
    assert _hand_traced_bytes(6, 0.0865, 1001) == (14, 2, 1, 0, 2902 / 1001)


def test_byte_arithmetic_follows_ns3_over_a_long_loss_free_run():
    # No loss (buffer of 100 packets, window capped below the BDP + buffer by the time
    # the run ends): every ACK of new data is one step, so the window after the run is
    # ns-3's integer recurrence applied once per delivered packet (slow start skipped:
    # ssthresh = initial window).
    src = TcpNewReno(initial_window=2, initial_ssthresh=2, window_arithmetic="bytes",
                     segment_size=958)
    net = Network([Link("a", "b", 8e6, 0.010, 100)],
                  [Flow(["a", "b"], packet_size=1000, source=src)])
    res = simulate(net, 1.5, seed=1, record=Record(interval=0.01, cwnd=True))
    c = res.counters
    assert int(c["retransmitted"][0]) == 0 and int(res.link_drops["overflow"][0]) == 0
    # packets acknowledged by the end: every one sent except those still in flight
    acked = int(c["sent"][0]) - int(np.floor(res.cwnd_series[-1, 0]))
    expected = _ns3_cwnd_after_acks(2 * 958, 958, acked) / 958
    assert float(res.cwnd_series[-1, 0]) == expected
    # and the packet arithmetic ends elsewhere (the steps are not truncated to bytes)
    res_p = simulate(net.replace(flows=[Flow(["a", "b"], packet_size=1000, source=TcpNewReno(
        initial_window=2, initial_ssthresh=2))]), 1.5, seed=1,
        record=Record(interval=0.01, cwnd=True))
    assert float(res_p.cwnd_series[-1, 0]) != expected


def test_window_arithmetic_is_packed():
    # its validation: tests/mechanisms/test_tcp.py
    assert pack_params(TcpNewReno())[reno.TCP_SEGMENT] == 0.0
    assert pack_params(TcpNewReno(segment_size=958))[reno.TCP_SEGMENT] == 0.0  # packets: unused
    assert pack_params(TcpNewReno(window_arithmetic="bytes", segment_size=958))[reno.TCP_SEGMENT] == 958


def test_recovery_rule_is_packed():
    # its validation: tests/mechanisms/test_tcp.py
    assert pack_params(TcpNewReno())[reno.TCP_RECOVERY] == reno.RECOVERY_INFLATION
    assert pack_params(TcpNewReno(recovery="pipe"))[reno.TCP_RECOVERY] == reno.RECOVERY_PIPE
