"""Monaco's control loop in packets: when its pairs of control packets leave, and what
the flows hold.

References, independent of the kernel:

* Section IV-B.1 of the paper: "The subsequent pair of forward control packets is
  generated after the arrival of the reverse OB control packet at the ingress node";
  eq (10), ``cwnd(n+1) = cwnd(n) - kappa (a_M - a*)``, once per control period.  The
  timing is checked against :func:`replay`, a plain-Python event replay of one
  Monaco flow with a window of one packet over one link (written from the paper's
  text and the simulator's documented link model, not from the kernel);
* eq (10)'s sum over the control periods: ``sum_n (a_n - a*) = (W_first - W_last) /
  kappa`` while the window stays inside its bounds, so the estimates average a* up to
  a window's change over the number of periods;
* the paper's steady state (Section V-A, "on average 3 packets for each flow"): a flow
  holds a* by Little's law (rate x mean queueing delay).

Xia, Harrison, Kalyanaraman, Ramachandran, Venkatesan, "Accumulation-based Congestion
Control", Sections IV-B and V-A.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools

import numpy as np
import pytest

from qosmodels import Flow, Link, Network, ScenarioError, simulate
from qosmodels.mechanisms import Accumulation
from qosmodels.units import Mbps

DATA_BITS = 8000.0   # 1000-byte data packets (Table I)
ACK_BITS = 320.0     # 40-byte ACKs, control packets and echoes


def replay(capacity, delay, horizon):
    """Echo arrival times (s) of one Monaco flow whose window is held at one packet,
    over one link of ``capacity`` bit/s and one-way ``delay`` s, the ACKs and echoes
    taking the same delay back (no reverse link: no queue, no transmission).

    The link sends one packet at a time (non-preemptive), an out-of-band packet before
    any queued data or in-band packet, the others first in first out.  The sender
    sends data packet k+1 when data packet k is acknowledged, no earlier than its
    leaky bucket allows (one packet every ``rtt / W``, ``rtt`` the last acknowledged
    packet's round trip, timed from its sending).  The first pair leaves with the first
    acknowledgement, ahead of the data packet it releases; every later pair leaves when
    the previous pair's echo arrives (the paper's rule), the out-of-band packet first.
    The receiver echoes a pair when its in-band packet arrives.
    """
    events, order = [], itertools.count()

    def at(t, what, arg=None):
        heapq.heappush(events, (t, next(order), what, arg))

    lane, fifo, busy = [], [], [False]
    sent = {}               # data packet -> when it was sent
    st = {"una": 0, "nxt": 0, "rtt": 0.0, "pace": 0.0, "pairs": 0, "pace_timer": None}
    echoes = []

    def enqueue(t, packet):  # packet: ("data", k) | ("ob", n) | ("ib", n)
        if not busy[0]:
            start(t, packet)
        elif packet[0] == "ob":
            lane.append(packet)
        else:
            fifo.append(packet)

    def start(t, packet):
        busy[0] = True
        bits = DATA_BITS if packet[0] == "data" else ACK_BITS
        at(t + bits / capacity, "txdone", packet)

    def send_pair(t):
        n = st["pairs"]
        st["pairs"] += 1
        enqueue(t, ("ob", n))
        enqueue(t, ("ib", n))

    def try_send(t):
        if st["nxt"] >= st["una"] + 1:
            return
        if t < st["pace"]:
            if st["pace_timer"] is None or st["pace"] < st["pace_timer"]:
                st["pace_timer"] = st["pace"]
                at(st["pace"], "pace")
            return
        gap = st["rtt"]  # rtt / W, W = 1
        st["pace"] = (st["pace"] if st["pace"] > t - gap else t) + gap
        k = st["nxt"]
        st["nxt"] += 1
        sent[k] = t
        enqueue(t, ("data", k))

    at(0.0, "send")
    while events:
        t, _, what, arg = heapq.heappop(events)
        if t > horizon:
            break
        if what == "send":
            try_send(t)
        elif what == "pace":
            if st["pace_timer"] == t:
                st["pace_timer"] = None
                try_send(t)
        elif what == "txdone":
            busy[0] = False
            at(t + delay, "rx", arg)
            if lane:
                start(t, lane.pop(0))
            elif fifo:
                start(t, fifo.pop(0))
        elif what == "rx":
            kind, n = arg
            if kind == "data":
                at(t + delay, "ack", n)
            elif kind == "ib":
                at(t + delay, "echo", n)
        elif what == "ack":
            st["rtt"] = t - sent[arg]
            st["una"] = arg + 1
            if st["pairs"] == 0:
                send_pair(t)
            try_send(t)
        elif what == "echo":
            echoes.append(t)
            send_pair(t)
    return np.array(echoes)


def one_link(capacity, delay, **source):
    src = Accumulation(control="P", estimator="monaco", kappa=0.5, target=3000, **source)
    return Network([Link("a", "b", capacity, delay, buffer=1000)],
                   [Flow(["a", "b"], source=src, packet_size=1000)])


@pytest.mark.parametrize("capacity", [Mbps(1), Mbps(10)])
def test_a_pair_leaves_when_the_previous_echo_arrives(capacity):
    # a data packet takes 8 ms (0.8 ms) to send, a control packet 0.32 ms (0.032 ms): a
    # pair that finds a data packet on the link waits for it, and the next pair leaves
    # only when this one's echo is back
    net = one_link(capacity, 0.01, max_window=1, record=True)
    r = simulate(net, 2.0, seed=0, progress=False)
    got = r.traces["monaco_estimate"].index.to_numpy()
    want = replay(capacity, 0.01, 2.0)
    assert len(want) > 60
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    gaps = np.diff(want)
    bare = 0.02 + 2 * ACK_BITS / capacity  # two delays, two control packets' transmissions
    assert (gaps >= bare - 1e-12).all()
    assert (gaps > bare + 1e-9).sum() > 10  # some pairs waited behind a data packet


def test_estimates_average_the_target_by_eq10():
    # eq (10) summed over the periods: sum (a_n - a*) = (W_first - W_last) / kappa
    net = one_link(Mbps(10), 0.005, record=True)
    r = simulate(net, 20.0, seed=0, warmup=10.0, progress=False)
    est = r.traces["monaco_estimate"]
    late = est[est.index >= 10.0].to_numpy()
    assert len(late) > 300
    w = r.cwnd_series[:, 0] if r.cwnd_series.size else None
    spread = 0.0 if w is None else float(np.nanmax(w) - np.nanmin(w))
    assert abs(late.mean() - 3.0) <= 0.05 + spread / 0.5 / len(late)


def test_control_size_validation():
    with pytest.raises(ValueError, match="control_size"):
        Accumulation(estimator="vegas", control_size=1000)
    with pytest.raises(ValueError, match="record"):
        Accumulation(estimator="vegas", record=True)
    with pytest.raises(ValueError, match="control_size"):
        Accumulation(estimator="monaco", control_size=0)
    with pytest.raises(TypeError, match="record"):
        Accumulation(estimator="monaco", record=1)
    assert dataclasses.replace(Accumulation(estimator="monaco"), control_size=1000).control_size \
        == 1000


def test_one_flow_holds_its_target_over_the_packet_phase():
    # The paper's steady state: a flow holds a* (3 packets).  Monaco's in-band packet
    # samples the queue once per control period at an instant tied to the bottleneck's
    # packet service (its pair leaves when an echo arrives, and the echo when the
    # previous in-band packet leaves the bottleneck behind a data packet), so one run
    # holds a* at that phase of the 0.8 ms packet time, and its time average (Little's
    # law) lies up to a packet away.  Moving the round trip across one packet time
    # (access delay + 0 to 0.35 ms, both ways) moves the phase over its whole range:
    # every run lies within a packet of a*, and their mean within a quarter packet
    # (measured: a* - 0.23; the earlier timing, a pair at the end of each round of the
    # window sent ahead of the data packet its ACK released, gave a* + 0.58).
    from qosmodels.fluid.scenarios import acc_delay_jump

    base, _ = acc_delay_jump()  # one flow, 10 Mb/s, no delay change (no events passed)
    src = Accumulation(control="P", estimator="monaco", kappa=0.5, target=3000)
    held = []
    for k in range(8):
        links = list(base.links)
        links[1] = dataclasses.replace(links[1], delay=0.001 + k * 0.05e-3)
        net = base.replace(links=links,
                           flows=[dataclasses.replace(f, source=src) for f in base.flows])
        r = simulate(net, 30.0, seed=0, warmup=15.0, progress=False)
        assert r.utilisation[0] > 0.99
        held.append(float(r.throughput[0] / DATA_BITS * r.mean_queueing_delay[0]))
    held = np.array(held)
    assert (np.abs(held - 3.0) < 1.0).all()
    assert abs(held.mean() - 3.0) < 0.25
    assert held.max() - held.min() > 0.5  # the phase matters: the sawtooth is there


def test_loss_halves_the_window_at_the_echo():
    # a* = 10 packets cannot fit a 6-packet buffer: every estimate is below a*, so eq (10)
    # only ever opens the window, until data are lost; the in-band packet's data count then
    # makes the echo say decrease-due-to-loss, and the sender halves (a retransmission
    # timeout halves too).  So every decrease of the window is a halving (to at least 1),
    # some are made when an echo arrives, and no more of those than packets were lost.
    from qosmodels.sim import Record

    src = Accumulation(control="P", estimator="monaco", kappa=0.5, target=10000,
                       record=True)
    net = Network([Link("a", "b", Mbps(10), 0.005, buffer=6)],
                  [Flow(["a", "b"], source=src, packet_size=1000)])
    r = simulate(net, 20.0, seed=0, record=Record(interval=0.001), progress=False)
    lost = int(r.counters["dropped"][0])
    assert lost > 0
    w = r.cwnd_series[:, 0]
    t = r.t[:len(w)]
    down = np.flatnonzero(w[1:] < w[:-1] - 1e-12)
    ratio = w[down + 1] / w[down]
    assert len(down) > 0
    assert np.all(np.isclose(ratio, 0.5) | np.isclose(w[down + 1], 1.0))
    echoes = r.traces["monaco_estimate"].index.to_numpy()
    at_echo = [((echoes > t[d] - 1e-12) & (echoes <= t[d + 1] + 1e-12)).any() for d in down]
    assert 0 < sum(at_echo) <= lost
    assert len(down) - sum(at_echo) <= r.counters["timeouts"][0]
    assert (r.traces["monaco_estimate"].to_numpy() < 10.0).all()


# ---------------------------------------------------------------- timeout_halves=False
def _lossy(**source):
    """The lossy run of test_loss_halves_the_window_at_the_echo (a* = 10 packets over a
    6-packet buffer), the window sampled every millisecond, Monaco's estimates recorded."""
    from qosmodels.sim import Record

    src = Accumulation(control="P", estimator="monaco", kappa=0.5, target=10000,
                       record=True, **source)
    net = Network([Link("a", "b", Mbps(10), 0.005, buffer=6)],
                  [Flow(["a", "b"], source=src, packet_size=1000)])
    return simulate(net, 20.0, seed=0, record=Record(interval=0.001), progress=False)


def test_timeout_halves_is_validated():
    from qosmodels.errors import ScenarioTypeError

    with pytest.raises(ScenarioTypeError, match=r"Accumulation.timeout_halves must be True or False, got 0"):
        Accumulation(estimator="monaco", timeout_halves=0)
    with pytest.raises(ScenarioError,
                       match=r"timeout_halves = False applies only to estimator='monaco'"):
        Accumulation(estimator="vegas", timeout_halves=False)
    assert Accumulation(estimator="monaco").timeout_halves is True


def test_without_timeout_halving_only_the_echo_moves_the_window():
    """Replay of Section IV-B from the recorded estimates: with timeout_halves=False the
    window changes only when an echo arrives, and there either by eq (10), ``W - kappa
    (a - a*)`` clipped to [1, max_window] with the echoed ``a``, or by halving (to at least
    1, decrease-due-to-loss); never at a retransmission timeout."""
    r = _lossy(timeout_halves=False)
    assert r.counters["dropped"][0] > 0 and r.counters["timeouts"][0] > 0
    w = r.cwnd_series[:, 0]
    t = r.t[:len(w)]
    est = r.traces["monaco_estimate"]
    echo_t, echo_a = est.index.to_numpy(), est.to_numpy()
    halvings = checked = 0
    for i in range(len(w) - 1):
        inside = (echo_t > t[i] + 1e-12) & (echo_t <= t[i + 1] + 1e-12)
        if not inside.any():
            assert w[i + 1] == w[i], t[i]  # no echo, no change: a timeout leaves W alone
        elif inside.sum() == 1:
            (a,) = echo_a[inside]
            law = min(max(w[i] - 0.5 * (a - 10.0), 1.0), 1000.0)
            half = max(0.5 * w[i], 1.0)
            assert np.isclose(w[i + 1], law) or np.isclose(w[i + 1], half), t[i]
            halvings += not np.isclose(w[i + 1], law)
            checked += 1
    assert checked > 100 and 0 < halvings <= r.counters["dropped"][0]


def test_by_default_a_timeout_halves_too():
    # the same run with the default: some decreases fall between echoes (the timeouts')
    r = _lossy()
    w = r.cwnd_series[:, 0]
    t = r.t[:len(w)]
    echoes = r.traces["monaco_estimate"].index.to_numpy()
    down = np.flatnonzero(w[1:] < w[:-1] - 1e-12)
    off_echo = [d for d in down
                if not ((echoes > t[d] + 1e-12) & (echoes <= t[d + 1] + 1e-12)).any()]
    assert 0 < len(off_echo) <= r.counters["timeouts"][0]
