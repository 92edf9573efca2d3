"""PPS's ticket tagger at a flow's ingress (``qosmodels.sim._kernels.edges.ticket_tagger``).

The tagger puts ``OutTktRate / AvgRate`` tickets on each data packet, ``AvgRate`` the
flow's throughput estimated by the time-sliding window (TSW) of Section 2.3 of the PPS
paper (Zhang, Wang, Peterson, Krishnamurthy 2001; Clark and Fang 1998):

    AvgRate <- (AvgRate * WinLength + AckedPackets) / (now - TswFront + WinLength),
    TswFront <- now,

from ``AvgRate = TswFront = 0``; an open-loop (UDP) source updates it with one packet on
each packet sent (Section 4: "we measure the sending rate"), a window (TCP) source on
each ACK with the packets it newly acknowledges.  Before the first estimate ``AvgRate``
counts as one packet per window (the kernel's floor, the docstring's rule).

References, computed here: a plain-Python TSW replay over a ``Cbr`` source's send
times (first at its start, then every ``size * 8 / rate`` seconds, accumulated in
floating point, as :func:`tests.sim.test_token_bucket.cbr_arrivals` computes them), the
closed form of its steady state (``AvgRate = 1 / dt`` exactly, a tag of ``T dt``), and
for a TCP source the measured goodput in packets/s (a tag of ``T / goodput``).
"""

from __future__ import annotations

import numpy as np
import pytest

from qosmodels import Aggregate, Flow, Link, Network, simulate
from qosmodels.mechanisms import Cbr, TcpReno, TicketTagger
from qosmodels.mechanisms.tickets import quantise

from .test_token_bucket import cbr_arrivals


def one_flow(source, tagger, *, cap=10e6, delay=0.001, buffer=1000, size=1000, start=0.0,
             duration, warmup=0.0, seed=1):
    """One flow behind ``tagger`` (aggregate ``"a"``) on one link."""
    net = Network([Link("s", "d", cap, delay, buffer)],
                  [Flow(["s", "d"], source=source, packet_size=size, start=start, name="f")],
                  aggregates=[Aggregate("a", flows=[0], edge=tagger)])
    return simulate(net, duration, seed=seed, warmup=warmup, progress=False)


def tsw_tags(times, tickets, window):
    """Tags of an open-loop source sending at ``times``: TSW with one packet per send,
    from rate 0 and front 0, the rate floored at one packet per window."""
    rate = front = 0.0
    out = []
    for t in times:
        rate = (rate * window + 1.0) / (t - front + window)
        front = t
        out.append(tickets / max(rate, 1.0 / window))
    return np.array(out)


@pytest.mark.parametrize("start", [0.0, 2.0], ids=["at-0", "late"])
def test_cbr_tags_are_the_tsw_replay_and_settle_at_t_dt(start):
    # 0.4 Mb/s of 1000-byte packets: dt = 0.02 s.  T = 100 t/s, WinLength 1 s.  Starting at
    # 0 the first estimate is exactly one packet per window; starting at 2 s it is 1/3
    # (the front is still at 0), floored to 1, so the floor acts on the first packet.
    # Every tag equals the replay's (to rounding), at the replay's send times; after
    # 30 windows the estimate has settled to 1/dt within e^-30 and the tag is T dt = 2
    T, W, rate, size, duration = 100.0, 1.0, 0.4e6, 1000, 30.01
    res = one_flow(Cbr(rate=rate), TicketTagger(tickets=T, window=W, bits=None, record=True),
                   size=size, start=start, duration=duration)
    s = res.traces["tag_m0[a]"]
    assert s is res.traces["tag_m0"]  # one owner records tag_m0: also keyed alone
    times = cbr_arrivals(rate, size, start, duration)
    np.testing.assert_array_equal(s.index.to_numpy(), times)
    want = tsw_tags(times, T, W)
    np.testing.assert_allclose(s.to_numpy(), want, rtol=1e-12)
    assert s.iloc[0] == T * W  # the floor: T / (1 packet per window); unfloored, a late
    # start's first tag would be T (start + W) = 300
    dt = size * 8 / rate
    np.testing.assert_allclose(s.to_numpy()[-10:], T * dt, rtol=1e-9)
    assert res.counters["edge_dropped"][0] == 0 and res.counters["delivered"][0] == len(times)


def test_cbr_tags_quantised_to_8_bits():
    # 8-bit tags of 0.05 tickets a level: each tag is the replay's rounded to the nearest
    # level in [1, 255]; the first ones (T W = 100 tickets, 2000 levels) saturate at 255
    T, W, rate, size, duration = 100.0, 1.0, 0.4e6, 1000, 10.01
    tagger = TicketTagger(tickets=T, window=W, bits=8, unit=0.05, record=True)
    res = one_flow(Cbr(rate=rate), tagger, size=size, duration=duration)
    got = res.traces["tag_m0"].to_numpy()
    want = np.array([quantise(x, 255, 0.05) for x in tsw_tags(
        cbr_arrivals(rate, size, 0.0, duration), T, W)])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert got[0] == pytest.approx(255 * 0.05) and got[-1] == pytest.approx(40 * 0.05)
    levels = got / 0.05
    np.testing.assert_allclose(levels, np.round(levels), atol=1e-9)
    assert len(np.unique(np.round(levels))) > 20


def test_window_source_tags_follow_its_acked_rate():
    # a TcpReno flow alone on a 1 Mb/s link (40-packet drop-tail buffer, ~20 ms RTT) keeps
    # the link busy: 125 packets/s of goodput.  Its tagger's TSW runs on the ACKs (the
    # packets each newly acknowledges; WinLength 10 s), so at the end of the run the tag
    # is T / goodput (0.8 tickets), within 3 % (the sawtooth's dips in a 10 s window);
    # the estimate T / tag averaged over the measured 100 s is the goodput within 2 %
    T = 100.0
    res = one_flow(TcpReno(), TicketTagger(tickets=T, window=10.0, bits=None, record=True),
                   cap=1e6, delay=0.01, buffer=40, duration=200.0, warmup=100.0)
    good = res.throughput[0] / 8000.0  # packets/s
    assert good == pytest.approx(125.0, rel=0.01)
    s = res.traces["tag_m0"]
    assert s.iloc[-1] == pytest.approx(T / good, rel=0.03)
    window = s[s.index >= 100.0]
    assert (T / window).mean() == pytest.approx(good, rel=0.02)
    # one tag per data packet sent (retransmissions included)
    assert len(s) == res.counters["sent"][0]


def policed_tags(times, tickets, window):
    """:func:`tsw_tags` policed at the source (Section 2.8): each tag times
    ``OutTktRate / ActualTktRate`` (from the second packet on), ``ActualTktRate`` the TSW
    rate of the unpoliced tags, updated after each packet."""
    act = act_front = 0.0
    out = []
    for t, raw in zip(times, tsw_tags(times, tickets, window)):
        out.append(raw * tickets / act if act > 0 else raw)
        act = (act * window + raw) / (t - act_front + window)
        act_front = t
    return np.array(out)


def test_policed_cbr_tags_are_the_replay_and_settle_at_t_dt():
    # Section 2.8 at the source, OutTkt = OutTktRate / AvgRate * OutTktRate /
    # ActualTktRate, every tag as the replay computes it; a constant-rate source's
    # unpoliced tags settle at T dt and their rate at T, so ActualTktRate -> T and the
    # policed tags settle at T dt too.  (Measuring ActualTktRate on the policed tags
    # instead gives other tags from the second packet on, which this test tells apart.)
    T, W, rate, size, duration = 100.0, 1.0, 0.4e6, 1000, 30.01
    res = one_flow(Cbr(rate=rate), TicketTagger(tickets=T, window=W, bits=None, record=True,
                                                police=True),
                   size=size, start=2.0, duration=duration)
    times = cbr_arrivals(rate, size, 2.0, duration)
    got = res.traces["tag_m0"].to_numpy()
    want = policed_tags(times, T, W)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert not np.allclose(want[1:50], tsw_tags(times, T, W)[1:50], rtol=1e-3)  # it acted
    np.testing.assert_allclose(got[-10:], T * size * 8 / rate, rtol=1e-9)
