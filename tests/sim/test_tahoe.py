"""TcpTahoe (the fair-queueing paper's JK) in the packet simulator, against hand traces.

The traces follow the rules of :class:`qosmodels.mechanisms.TcpTahoe` (4.3BSD-Tahoe:
slow start while ``cwnd <= ssthresh``, fast retransmit without fast recovery,
go-back-N on a timeout, the Jacobson-Karels timer with ``srtt + 2 rttvar``, 1 s
and 64 s bounds and the backoff table 1, 2, 4, ... 64), worked out by hand below.
"""

from __future__ import annotations

import pytest

from qosmodels import Flow, Link, Network
from qosmodels.sim import Record, TcpReno, TcpTahoe, simulate
from qosmodels.sim._kernels import layout as K
from qosmodels.sim._kernels.sources import tahoe
from qosmodels.sim.compile import compile_scenario

from .jitcall import jitcall

# --------------------------------------------------------------------------- hand traces
#
# Times in ms.  One flow on one 8 Mb/s link (1000-byte packets: 1 ms each), 10 ms
# propagation each way (ACKs: propagation only), buffer 3 packets waiting.  The flow
# starts with cwnd = ssthresh = W0.  At t = 0 packets 0 .. W0-1 leave: 0 is sent at
# once, 1-3 wait, the rest are dropped.  0-3 reach the receiver at 11-14 and their ACKs
# 1-4 come back at 21-24.
#
# W0 = 5 (packet 4 lost):
#   21: ACK 1, cwnd 5 <= ssthresh 5: slow start, 6 (4.3BSD opens linearly only when
#       cwnd > ssthresh); una 1, limit 7: packets 5 and 6 leave.  Packet 0 was timed:
#       an RTT sample of 21 ms.
#   22: ACK 2, 6 > 5: congestion avoidance, 6 + 1/6 = 6.1667; packet 7.
#   23: ACK 3, 6.3288; packet 8.   24: ACK 4, 6.4868; packet 9 (10 packets sent).
#   5-9 leave the link at 22-26, reach the receiver at 32-36 above the hole: duplicate
#   ACKs of 4 at 42, 43, 44, 45, 46.
#   44: third duplicate: flight = 10 - 4 = 6, ssthresh = 3, cwnd = 1, packet 4 resent
#       alone (11 sent); SND.NXT stays at 10.
#   45, 46: more duplicates: nothing (Reno would inflate cwnd and send new data).
#   65: ACK 10 (4 arrived at 55, 5-9 were buffered): cwnd 1 -> 2 (slow start), packets
#       10 and 11 leave (13 sent).
#   86: ACK 11, cwnd 3, packets 12 and 13.  87: ACK 12, cwnd 3 <= ssthresh 3: slow
#       start again, 4; packets 14 and 15 (17 sent).
#
# W0 = 6 (packets 4 and 5 lost):
#   21-24: ACKs 1-4, cwnd 7, 7.1429, 7.2829, 7.4202; packets 6 and 7, then 8, 9, 10
#       (11 sent).  The sample at 21 ms gives srtt 0.021 s, rttvar 0.0105 s, so the RTO
#       is srtt + 2 rttvar = 0.042 s, clamped to min_rto = 1 s.
#   42-46: duplicate ACKs of 4 (packets 6-10).  44: the third: flight 11 - 4 = 7,
#       ssthresh 3.5, cwnd 1, packet 4 resent (12 sent), timer restarted: 1.044 s.
#   65: ACK 5 (4 arrived at 55; 5 is still missing): a new ACK, cwnd 2; SND.NXT is 11,
#       so nothing leaves (una + cwnd = 7); the timer restarts: 1.065 s.
#   1065: timeout: flight = 11 - 5 = 6, ssthresh 3, cwnd 1, go back N: packet 5 resent
#       (13 sent); the backed-off RTO is 2 x 0.042 s, still clamped to 1 s.
#   1086: ACK 11 (6-10 were buffered): cwnd 2, packets 11 and 12 (15 sent).


def _traced(w0, until, source=TcpTahoe):
    src = source(initial_window=w0, initial_ssthresh=w0)
    net = Network([Link("a", "b", 8e6, 0.010, 3)],
                  [Flow(["a", "b"], packet_size=1000, source=src)])
    res = simulate(net, until, seed=1, record=Record(interval=0.0005, cwnd=True))
    c = res.counters
    return (int(c["sent"][0]), int(c["retransmitted"][0]), int(c["fast_retransmits"][0]),
            int(c["timeouts"][0]), round(float(res.cwnd_series[-1, 0]), 4))


@pytest.mark.parametrize("until, expected", [
    (0.0435, (10, 0, 0, 0, 6.4868)),  # slow start at cwnd = ssthresh, then 1/cwnd steps
    (0.0445, (11, 1, 1, 0, 1.0)),     # third duplicate ACK: 4 resent, cwnd 1
    (0.0465, (11, 1, 1, 0, 1.0)),     # fourth and fifth: no inflation, nothing sent
    (0.0655, (13, 1, 1, 0, 2.0)),     # ACK 10: slow start, 10 and 11 leave
    (0.0865, (15, 1, 1, 0, 3.0)),
    (0.0875, (17, 1, 1, 0, 4.0)),     # ssthresh = 6/2 = 3: still slow start at cwnd 3
])
def test_one_loss_hand_traced(until, expected):
    assert _traced(5, until) == expected


@pytest.mark.parametrize("until, expected", [
    (0.0445, (12, 1, 1, 0, 1.0)),     # fast retransmit of 4
    (0.0655, (12, 1, 1, 0, 2.0)),     # ACK 5 opens the window but SND.NXT is ahead
    (1.0645, (12, 1, 1, 0, 2.0)),     # just before the timeout (1 s after ACK 5)
    (1.0655, (13, 2, 1, 1, 1.0)),     # timeout: go back N, 5 resent
    (1.0865, (15, 2, 1, 1, 2.0)),     # ACK 11: 11 and 12 leave
])
def test_two_losses_end_in_a_timeout_hand_traced(until, expected):
    assert _traced(6, until) == expected


def test_no_fast_recovery_unlike_reno():
    # the same loss: Tahoe's window is 1 after the third duplicate ACK and stays 1 on the
    # next ones; Reno's (test_tcp.py's trace: ssthresh 2.5, cwnd 2.5 + 3, then + 1) is 6.5
    # after the fourth and has sent a new packet
    tahoe_at = _traced(5, 0.0465)
    reno_at = _traced(5, 0.0465, TcpReno)
    assert tahoe_at[4] == 1.0 and reno_at[4] == 6.5
    assert tahoe_at[2] == reno_at[2] == 1


# --------------------------------------------------------------------------- the timer

def _replay(samples, k=2.0, lo=1.0, hi=64.0):
    """Jacobson-Karels in plain Python (Jacobson 1988, Appendix A; 4.3BSD's first sample:
    srtt = r, rttvar = r / 2): the unclamped srtt + k rttvar after each sample."""
    srtt = rttvar = None
    out = []
    for r in samples:
        if srtt is None:
            srtt, rttvar = r, r / 2
        else:
            err = r - srtt
            srtt += err / 8
            rttvar += (abs(err) - rttvar) / 4
        out.append(srtt + k * rttvar)
    return out


def _compiled(**kw):
    net = Network([Link("a", "b", 1e6, 0.01)], [Flow(["a", "b"], source=TcpTahoe(**kw))])
    return compile_scenario(net, 1.0, seed=0)


def test_initial_timeout_is_tahoes_six_seconds():
    c = _compiled()
    assert c.ff[0, K.FF_RTO] == 6.0 and c.ff[0, K.FF_SRTT] < 0
    assert _compiled(initial_rto=0.3).ff[0, K.FF_RTO] == 1.0  # clamped to min_rto


def test_estimator_matches_a_plain_replay_and_clamps():
    c = _compiled()
    samples = [2.0, 3.0, 1.5, 9.0, 0.5, 40.0, 40.0]
    for r, base in zip(samples, _replay(samples)):
        jitcall(tahoe.rtt_sample)(c, 0, r)
        assert c.ff[0, K.FF_SS + tahoe.THO_BASE_RTO] == pytest.approx(base, rel=1e-12)
        assert c.ff[0, K.FF_RTO] == pytest.approx(min(max(base, 1.0), 64.0), rel=1e-12)
    # the first sample of 2 s: srtt 2, rttvar 1, RTO 2 + 2 x 1 = 4 s (RFC 6298's k = 4: 6 s)
    c = _compiled()
    jitcall(tahoe.rtt_sample)(c, 0, 2.0)
    assert c.ff[0, K.FF_RTO] == 4.0
    c = _compiled(rto_k=4.0)
    jitcall(tahoe.rtt_sample)(c, 0, 2.0)
    assert c.ff[0, K.FF_RTO] == 6.0


def test_backoff_follows_the_4_3bsd_table_and_a_sample_clears_it():
    c = _compiled(max_window=5)
    jitcall(tahoe.rtt_sample)(c, 0, 0.5)  # srtt 0.5, rttvar 0.25: base 1.0 s
    rtos = []
    for _ in range(9):
        jitcall(tahoe.on_timeout)(c, 0)
        rtos.append(c.ff[0, K.FF_RTO])
    # tcp_backoff[] = 1, 2, 4, ..., 64, 64, ... times the unclamped base, then clamped to
    # [1, 64] s: the seventh timeout and later stay at 64 s
    assert rtos == [2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 64.0, 64.0, 64.0]
    assert c.fi[0, K.FI_SS + tahoe.THO_SHIFT] == 9
    assert (c.ff[0, K.FF_CWND], c.ff[0, K.FF_SSTHRESH]) == (1.0, 2.0)
    jitcall(tahoe.rtt_sample)(c, 0, 0.5)  # a sample: no backoff (0.5 s: base 0.9375 s)
    assert c.fi[0, K.FI_SS + tahoe.THO_SHIFT] == 0 and c.ff[0, K.FF_RTO] == 1.0
    # a base below min_rto is multiplied before the clamp: 0.3 x 2 = 0.6 -> 1 s, not 2 s
    c = _compiled(max_window=5, max_backoff=4)
    jitcall(tahoe.rtt_sample)(c, 0, 0.15)  # base 0.3 s
    rtos = []
    for _ in range(4):
        jitcall(tahoe.on_timeout)(c, 0)
        rtos.append(c.ff[0, K.FF_RTO])
    assert rtos == [1.0, 1.2, 1.2, 1.2]  # 0.6, 1.2, then the cap of 4: 1.2
