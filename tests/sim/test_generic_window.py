"""The fair-queueing paper's generic source in packets: timeouts and its RTT samples, hand-traced.

Demers, Keshav, Shenker (1990), "Flow control algorithms": packets not acknowledged before the
timeout are retransmitted and a new timeout set; "the rtt estimate for retransmitted packets is
the time from their first transmission to their acknowledgement".
"""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels import Flow, Link, Network
from qosmodels.sim import GenericWindow, Poisson, Record, simulate

QUIET = Record(interval=0.05, cwnd=False)


def _one_link(source):
    # 1000-byte packets at 8 Mb/s: 1 ms; 50 ms each way; the ACK's way back is pure delay
    return Network([Link("a", "b", 8e6, 0.05, buffer=100)], [Flow(["a", "b"], source=source)])


def test_a_retransmitted_packet_is_timed_from_its_first_transmission():
    # window 1, initial RTT 0.02 s, beta 2: RTO 0.04 s, shorter than the true RTT of 0.101 s.
    # t=0      send 0 (first transmission), timer 0.04
    # t=0.04   timeout: go back to 0, resend it (retx 1), timer 0.08 (no sample, RTO unchanged)
    # t=0.08   timeout: resend 0 (retx 2), timer 0.12
    # t=0.101  ACK 1 (of the first copy): one sample, 0.101 - 0 = 0.101 s (Karn's rule would
    #          take none); srtt = 0.875 * 0.02 + 0.125 * 0.101; send 1, timer 0.101 + 2 srtt
    # t=0.141, 0.181: ACKs 1 of the resent copies: duplicates, no sample
    # the run ends at 0.15, before packet 1's timer (0.1613) and its ACK (0.202)
    src = GenericWindow(window=1, packet_size=1000, initial_rtt=0.02, beta=2.0)
    r = simulate(_one_link(src), 0.15, seed=0, record=QUIET, progress=False)
    c = r.counters
    assert int(c["sent"][0]) == 4
    assert int(c["retransmitted"][0]) == int(c["retransmitted_window"][0]) == 2
    assert int(c["timeouts"][0]) == 2
    assert int(c["rtt_samples_window"][0]) == 1
    assert r.mean_rtt_estimate[0] == pytest.approx(0.101, abs=1e-12)


def test_every_new_ack_is_a_sample_and_timeouts_reset_without_backoff():
    # window 2, the true RTT: packet 0 acked at 0.101, packet 1 (sent at 0) at 0.102.
    # RTO from initial_rtt 1 s is 2 s: no timeout; each ACK samples the oldest packet it covers
    src = GenericWindow(window=2, packet_size=1000, initial_rtt=1.0)
    r = simulate(_one_link(src), 0.105, seed=0, record=QUIET, progress=False)
    c = r.counters
    assert int(c["rtt_samples_window"][0]) == 2 and int(c["retransmitted"][0]) == 0
    assert r.mean_rtt_estimate[0] == pytest.approx((0.101 + 0.102) / 2, abs=1e-12)


def test_windowed_poisson_reports_its_samples_and_open_loop_none():
    net = Network([Link("a", "b", 8e6, 0.05, buffer=100)],
                  [Flow(["a", "b"], source=Poisson(rate=8e4, packet_size=1000, window=5)),
                   Flow(["a", "b"], source=Poisson(rate=8e4, packet_size=1000))])
    r = simulate(net, 20.0, seed=3, warmup=5.0, record=QUIET, progress=False)
    assert r.counters["rtt_samples_window"][0] > 50
    assert r.mean_rtt_estimate[0] == pytest.approx(0.101, abs=0.01)
    assert np.isnan(r.mean_rtt_estimate[1]) and r.counters["rtt_samples_window"][1] == 0
