"""RTT sampling of the TCP senders: ``TcpReno.rtt_samples`` ("segment" or "ack").

Reference values come from the Jacobson/Karels estimator of RFC 6298
(Section 2: first sample ``srtt = R``, ``rttvar = R/2``; then ``rttvar <-
3/4 rttvar + 1/4 |srtt - R|``, ``srtt <- 7/8 srtt + 1/8 R``; ``RTO = srtt +
4 rttvar``), iterated here over the sequence of RTTs that the path gives in
closed form, independently of the kernel.
"""

from __future__ import annotations

import pytest

from qosmodels import Flow, Link, Network
from qosmodels.sim import RandomLoss, TcpNewReno, simulate
from qosmodels.sim._kernels import layout as K
from qosmodels.sim.compile import compile_scenario

from .rfc6298 import estimator

D = 0.05           # s, propagation delay of the only link (ACKs: propagation only)
C = 100e6          # bit/s
PKT = 1000         # bytes
TX = PKT * 8 / C   # s, transmission time of a data packet
R = 2 * D + TX     # s, RTT of a packet that finds the link idle
W = 4              # packets: initial and maximum window


def _net(mode, queue=None, min_rto=1e-6):
    src = TcpNewReno(initial_window=W, max_window=W, min_rto=min_rto, rtt_samples=mode)
    kw = {} if queue is None else dict(queue=queue)
    return Network([Link("a", "b", C, D, buffer=100, **kw)],
                   [Flow(["a", "b"], packet_size=PKT, source=src)])


def _run_kernel(mode, duration):
    from qosmodels.sim._kernels.engine import run

    c = compile_scenario(_net(mode), duration, seed=0)
    assert run(c, duration, 10**7) == K.ST_OK
    return c


# The first W packets leave together at t = 0: packet k (0-based) waits for k
# others, so its RTT is 2D + (k+1) TX.  Each ACK releases one packet onto an idle
# link, so every later packet has RTT R = 2D + TX; the ACKs of round j >= 1 arrive
# at j R + k TX.  In 1 s that is 9 rounds (9 R + 3 TX < 1 < 10 R): 36 new ACKs.
ROUNDS = 9


@pytest.mark.parametrize("mode, samples", [
    # "ack": a sample from every new ACK -- the first round's four, then R
    ("ack", [2 * D + (k + 1) * TX for k in range(W)] + [R] * (W * (ROUNDS - 1))),
    # "segment": one timed packet per round, the first packet of each round (RTT R)
    ("segment", [R] * ROUNDS),
])
def test_smoothed_rtt_and_rto_follow_the_estimator_over_the_closed_form_rtts(mode, samples):
    c = _run_kernel(mode, 1.0)
    assert c.fi[0, K.FI_ACKS_ARRIVED] == W * ROUNDS
    srtt, rttvar, rto = estimator(samples)
    assert c.ff[0, K.FF_SRTT] == pytest.approx(srtt, rel=1e-9)
    assert c.ff[0, K.FF_RTTVAR] == pytest.approx(rttvar, rel=1e-9)
    assert c.ff[0, K.FF_RTO] == pytest.approx(rto, rel=1e-9)


def test_per_ack_sampling_converges_faster():
    # 36 samples against 9: rttvar decays as (3/4)^n towards 0 on a constant RTT
    ack = _run_kernel("ack", 1.0)
    seg = _run_kernel("segment", 1.0)
    assert ack.ff[0, K.FF_RTTVAR] < 0.01 * seg.ff[0, K.FF_RTTVAR]
    assert ack.ff[0, K.FF_RTO] == pytest.approx(R, rel=1e-3)


def test_both_modes_give_the_same_goodput_on_an_uncongested_path():
    # window-limited, no loss: W packets per RTT R, whatever the RTO
    res = {m: simulate(_net(m, min_rto=0.2), 20.0, seed=1, warmup=5.0) for m in ("segment", "ack")}
    for r in res.values():
        assert int(r.counters["timeouts"].sum()) == 0
        assert r.throughput[0] == pytest.approx(W * PKT * 8 / R, rel=2e-3)
    assert res["ack"].throughput[0] == res["segment"].throughput[0]


def test_per_ack_sampling_never_times_a_retransmitted_packet():
    # Karn: with losses, a sample taken from a retransmitted packet's first send
    # would include a timeout (min_rto 1 s) or a recovery (>= R); the estimator must
    # stay within the RTTs the path can give, [R, R + (W-1) TX]
    from qosmodels.sim._kernels.engine import run

    net = _net("ack", queue=RandomLoss(p=0.05), min_rto=1.0)
    c = compile_scenario(net, 60.0, seed=3)
    assert run(c, 60.0, 10**8) == K.ST_OK
    assert c.fi[0, K.FI_RETX] > 50 and c.fi[0, K.FI_TIMEOUTS] > 0
    assert R - 1e-12 <= c.ff[0, K.FF_SRTT] <= R + (W - 1) * TX + 1e-12
