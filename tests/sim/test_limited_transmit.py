"""Limited transmit (RFC 3042) in the Reno-family and CUBIC senders.

Hand-traced scenario (times in ms).  One flow over one 8 Mb/s link (1000-byte packets: 1 ms
each), 10 ms each way (ACKs: propagation only, so a round trip of 21 ms for a packet that
finds the link idle), a buffer of 100 packets that drops the 16th, 32nd, ... arrival
(``RandomLoss(p=1/16, periodic=True)``, exact in binary).  The window is 3 packets and stays
so: ``initial_window = initial_ssthresh = 3`` and congestion avoidance adds ``increase =
1e-6`` packets per round trip (Reno family), or CUBIC without the Reno-friendly region, whose
``W_cubic(t + RTT) = 0.4 (t + RTT)^3 + 3`` adds under 0.001 packets in the first 0.2 s.

Packet ``3r + i`` (``i`` = 0, 1, 2) is sent at ``21 r + i`` ms: the ACK of packet ``k`` comes
back 21 ms after it was sent and releases packet ``k + 3``.  Packet 15 (sent at 105 ms) is
the 16th arrival: dropped.  Packets 16 and 17 (106, 107 ms) reach the receiver and their
duplicate ACKs (cumulative ACK 15) come back at 127 and 128 ms; no more data is in flight.

* Without limited transmit the window is full (SND.NXT = 18 = SND.UNA + 3): nothing leaves
  on the two duplicate ACKs, no third one comes, and the flow waits for its retransmission
  timer (first armed with the initial RTO of 1 s; under the reference timer rules the
  pending expiry is not moved earlier, so the timeout comes at about 1 s).
* With it (RFC 3042, Section 2) packet 18 leaves at 127 ms (4 outstanding <= cwnd + 2) and
  packet 19 at 128 ms (5 outstanding); cwnd stays 3.  Their duplicate ACKs come back at 148
  and 149 ms: the third duplicate ACK (148 ms) starts the fast retransmit of 15 with
  FlightSize = 20 - 15 - 2 = 3 (the two limited-transmit packets left out: RFC 5681, Section
  3.2, step 2), so ``ssthresh = max(3/2, 2) = 2`` (2.5 if they were counted) and, with
  window inflation, ``cwnd = ssthresh + 3 = 5``; the fourth (149 ms) inflates it to 6, which
  lets packet 20 leave.  The retransmission reaches the receiver at 159 ms; its ACK
  (cumulative 20 > recover 19) at 169 ms ends the recovery, ``cwnd = ssthresh = 2``, and
  packet 21 leaves.  Sent by then: 18 + 2 + 1 + 1 + 1 = 23; one retransmission, one fast
  retransmit, no timeout.
* ns-3's classic recovery (``recovery="pipe"``): each of the two duplicate ACKs counts one
  packet SACKed above SND.UNA (ns-3's ``AddRenoSack`` with ``LimitedTransmit``), so the pipe
  lets 18 and 19 leave at the same times; at 148 ms ``ssthresh = max((20 - 15 - 3) / 2, 2) =
  2`` (three marks), ``cwnd = 2``; at 149 ms a fourth mark moves the send limit to SND.UNA +
  cwnd + marks = 15 + 2 + 4 = 21, so 20 leaves; at 169 ms the recovery ends, ``cwnd = 2``
  (+ 1e-6/2), 21 leaves.
* SACK (RFC 6675, Section 5): the ACKs at 127 and 128 ms SACK 16, then 17 (duplicate ACKs
  1 and 2, SND.UNA not lost); step (3): ``SetPipe`` = 2 (15 and 17, then 15 and 18 not
  SACKed), ``cwnd - pipe >= 1``: 18, then 19 leave.  At 148 ms (three SACKed above 15) step
  (4): ``ssthresh = cwnd = max((20 - 15 - 2) / 2, 2) = 2``, 15 resent; at 149 ms 19 is
  SACKed, the pipe is 1 (the retransmission) and NextSeg's rule 2 sends 20; at 169 ms the
  cumulative ACK 20 ends the recovery (``cwnd = 2``) and 21 leaves.
* CUBIC (RFC 9438, Section 4.6): the same packets at the same times; at 148 ms ``ssthresh =
  0.7 min(FlightSize, cwnd) = 0.7 x 3 = 2.1``, ``cwnd = 5.1``, then 6.1, then 2.1 at 169 ms.
"""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels import Flow, Link, Network
from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.mechanisms import Cubic, Dctcp, Prague, TcpNewReno, TcpReno, TcpVegas
from qosmodels.sim import RandomLoss, Record, simulate

# the hand trace's instants (s): before/after the duplicate ACKs at 127 and 128 ms, the
# fast retransmit at 148 ms, the inflated window at 149 ms, the full ACK at 169 ms
TIMES = (0.1265, 0.1275, 0.1285, 0.1485, 0.1495, 0.1695)


def _net(src, p=1.0 / 16.0):
    return Network([Link("a", "b", 8e6, 0.010, 100, queue=RandomLoss(p=p, periodic=True))],
                   [Flow(["a", "b"], packet_size=1000, source=src)])


def _run(src, until):
    """(sent, retransmitted, fast retransmits, timeouts, cwnd at ``until``)."""
    res = simulate(_net(src), until, seed=1, record=Record(interval=0.0005, cwnd=True),
                   progress=False)
    c = res.counters
    return (int(c["sent"][0]), int(c["retransmitted"][0]), int(c["fast_retransmits"][0]),
            int(c["timeouts"][0]), round(float(res.cwnd_series[-1, 0]), 6))


def _reno(cls, **kw):
    return cls(initial_window=3, initial_ssthresh=3, increase=1e-6, **kw)


def _cubic(**kw):
    return Cubic(initial_window=3, initial_ssthresh=3, tcp_friendliness=False, **kw)


# the hand trace with window inflation: 18 sent before 127 ms, 18 and 19 on the two
# duplicate ACKs, the fast retransmit at 148 ms (ssthresh 2, cwnd 2 + 3), packet 20 on the
# fourth duplicate ACK (cwnd 6), cwnd = ssthresh = 2 and packet 21 at 169 ms
INFLATION = [(18, 0, 0, 0, 3.0), (19, 0, 0, 0, 3.0), (20, 0, 0, 0, 3.0), (21, 1, 1, 0, 5.0),
             (22, 1, 1, 0, 6.0), (23, 1, 1, 0, 2.0)]


@pytest.mark.parametrize("cls", [TcpReno, TcpNewReno, Dctcp])
def test_the_hand_trace_with_window_inflation(cls):
    got = [_run(_reno(cls, limited_transmit=True), t) for t in TIMES]
    assert [g[:4] for g in got] == [e[:4] for e in INFLATION]
    assert [g[4] for g in got] == pytest.approx([e[4] for e in INFLATION], abs=1e-4)


def test_the_two_packets_are_left_out_of_flightsize_at_the_fast_retransmit():
    # ssthresh = max(3/2, 2) = 2 and cwnd = 5; counted, FlightSize 5 would give 2.5 and 5.5
    assert _run(_reno(TcpNewReno, limited_transmit=True), 0.1485)[4] == pytest.approx(5.0)


def test_the_hand_trace_with_ns3s_classic_recovery():
    got = [_run(_reno(TcpNewReno, limited_transmit=True, recovery="pipe"), t) for t in TIMES]
    assert [g[:4] for g in got] == [e[:4] for e in INFLATION]
    assert [g[4] for g in got] == pytest.approx([3.0, 3.0, 3.0, 2.0, 2.0, 2.0], abs=1e-4)


def test_the_hand_trace_with_sack_runs_rfc_6675_step_3():
    got = [_run(_reno(TcpNewReno, limited_transmit=True, sack=True), t) for t in TIMES]
    assert [g[:4] for g in got] == [e[:4] for e in INFLATION]
    assert [g[4] for g in got] == pytest.approx([3.0, 3.0, 3.0, 2.0, 2.0, 2.0], abs=1e-4)


@pytest.mark.parametrize("sack", [False, True])
def test_the_hand_trace_with_cubic(sack):
    got = [_run(_cubic(limited_transmit=True, sack=sack), t) for t in TIMES]
    assert [g[:4] for g in got] == [e[:4] for e in INFLATION]
    want = [3.0, 3.0, 3.0, 2.1, 2.1, 2.1] if sack else [3.0, 3.0, 3.0, 5.1, 6.1, 2.1]
    assert [g[4] for g in got] == pytest.approx(want, abs=1e-3)


@pytest.mark.parametrize("make", [
    lambda: _reno(TcpNewReno), lambda: _reno(TcpReno), lambda: _reno(TcpNewReno, sack=True),
    lambda: _reno(TcpNewReno, recovery="pipe"), lambda: _cubic(), lambda: _cubic(sack=True),
], ids=["newreno", "reno", "newreno-sack", "newreno-pipe", "cubic", "cubic-sack"])
def test_without_it_the_two_duplicate_acks_send_nothing_and_the_timer_fires(make):
    src = make()
    for t in TIMES:  # 18 packets sent, nothing more, up to 0.9 s
        assert _run(src, t)[:4] == (18, 0, 0, 0)
    assert _run(src, 0.9)[:4] == (18, 0, 0, 0)
    sent, retx, frx, timeouts, _ = _run(src, 1.2)
    assert (frx, timeouts) == (0, 1) and retx >= 1


def test_the_receivers_window_can_forbid_it():
    # max_window = 3: no packet may be outstanding beyond SND.UNA + 3 (RFC 3042, Section 2,
    # rule 1), so limited transmit sends nothing and the flow times out as without it
    src = _reno(TcpNewReno, limited_transmit=True, max_window=3)
    assert _run(src, 0.1495)[:4] == (18, 0, 0, 0)
    assert _run(src, 1.2)[2:4] == (0, 1)


def test_a_larger_window_gets_no_extra_packet_beyond_cwnd_plus_two():
    # window 4 (packet 4r + i at 21 r + i ms): packet 15 (the 16th arrival, the last of its
    # round) is lost and 16, 17, 18 give three duplicate ACKs at 105-107 ms; limited transmit
    # sends 19 at 105 ms and 20 at 106 ms (6 outstanding = cwnd + 2), the third duplicate
    # ACK (107 ms) is the fast retransmit, FlightSize = 21 - 15 - 2 = 4, ssthresh 2, cwnd 5
    src = TcpNewReno(initial_window=4, initial_ssthresh=4, increase=1e-6, limited_transmit=True)
    assert _run(src, 0.1045)[:4] == (19, 0, 0, 0)
    assert _run(src, 0.1055)[:4] == (20, 0, 0, 0)
    assert _run(src, 0.1065)[:4] == (21, 0, 0, 0)
    sent, retx, frx, timeouts, cwnd = _run(src, 0.1075)
    assert (sent, retx, frx, timeouts) == (22, 1, 1, 0)
    assert cwnd == pytest.approx(5.0)


def test_vegas_inherits_it():
    src = TcpVegas(initial_window=3, initial_ssthresh=3, limited_transmit=True)
    assert src.limited_transmit is True


# ------------------------------------------------------------------------------ refusals

@pytest.mark.parametrize("cls", [TcpReno, TcpNewReno, Cubic, Dctcp])
def test_limited_transmit_must_be_a_bool(cls):
    with pytest.raises(ScenarioTypeError, match=r"limited_transmit must be True or False, "
                                                r"got 1"):
        cls(limited_transmit=1)


def test_prague_refuses_it_with_pacing():
    with pytest.raises(ScenarioError, match=r"Prague.limited_transmit=True with pacing=True "
                                            r"is not modelled"):
        Prague(limited_transmit=True)
    assert Prague(limited_transmit=True, pacing=False).limited_transmit is True


@pytest.mark.parametrize("cls", [TcpReno, TcpNewReno, Cubic, Dctcp, Prague])
def test_it_is_off_by_default(cls):
    assert cls().limited_transmit is False


# ------------------------------------------------------------------------------ determinism

@pytest.mark.parametrize("make", [lambda: TcpNewReno(limited_transmit=True),
                                  lambda: Cubic(limited_transmit=True, sack=True)])
def test_a_seed_gives_the_same_run_twice(make):
    net = Network([Link("a", "b", 8e6, 0.010, 100, queue=RandomLoss(p=0.02))],
                  [Flow(["a", "b"], packet_size=1000, source=make()) for _ in range(2)])
    runs = [simulate(net, 2.0, seed=7, progress=False).counters for _ in range(2)]
    for k in ("sent", "retransmitted", "fast_retransmits", "timeouts", "delivered"):
        assert np.array_equal(runs[0][k], runs[1][k])
    assert int(runs[0]["fast_retransmits"].sum()) > 0
