"""SACK (RFC 2018) and RFC 6675's loss recovery in the packet simulator.

References come from :mod:`tests.sim.sack_replay`, a plain-Python replay written from
the RFCs' text (not from the kernel), and from the hand trace below.

Hand-traced scenario (times in ms).  One ``TcpNewReno(sack=True)`` flow over one 8 Mb/s
link (1000-byte packets: 1 ms each), 10 ms each way (ACKs: propagation only), a buffer of
100 packets that drops, periodically, the arrival that brings the running sum of p = 3/16
to 1 (``RandomLoss(p=3/16, periodic=True)``: arrivals 6, 11, 16, 22, 27, 32, ...).  The
flow starts with 20 packets and ssthresh 20 (congestion avoidance at once).  At t = 0
packets 0-19 reach the link; 5, 10 and 15 are dropped: three losses in one window of 20.
The 17 others leave at 1, 2, ..., 17 ms, reach the receiver 10 ms later and their ACKs
come back at 21 .. 37 ms.  ACKs 1-5 (21-25 ms) are new: cwnd 20 -> 20.05 -> ... and each
sends one new packet, 20-24 (21 is the 22nd arrival: dropped).  Packets 6, 7, 8 (ACKed at
26, 27, 28 ms) each SACK new data above the hole at 5: the third is the third duplicate
ACK, so at 28 ms the recovery starts: RecoveryPoint = 24 (HighData), ssthresh = cwnd =
FlightSize / 2 = (25 - 5) / 2 = 10, packet 5 resent (HighRxt = 5).  Only 5 is lost then
(``IsLost``: three SACKed above it); ``SetPipe`` counts the 16 packets not SACKed in 6-24
and the retransmission of 5: 17 > cwnd = 10, so nothing more leaves.  Packets 10 and 15
become lost as the packets above them are SACKed (11-13 at 30-32 ms, 16-18 at 35-37 ms)
and are resent as the pipe falls below cwnd: by 49 ms, one round trip after the fast
retransmit, 5, 10, 15 and the fourth loss (21) have all been resent, where NewReno
without SACK has resent one hole (the next waits for a partial ACK).  The retransmission
of 10 is itself dropped (the periodic rule does not spare it): RFC 6675 without RACK
waits for the retransmission timer then, as the replay shows (cumulative ACK 10 from
that point on).
"""

from __future__ import annotations

import pytest

from qosmodels import Flow, Link, Network
from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.mechanisms import BbrV1, Cubic, Dctcp, TcpNewReno, TcpReno
from qosmodels.sim import RandomLoss, Record, simulate

from .sack_replay import replay

P = 3.0 / 16.0
W0 = 20


def _net(sack=True, max_window=64, n_blocks=3):
    src = TcpNewReno(initial_window=W0, initial_ssthresh=W0, max_window=max_window,
                     sack=sack, sack_blocks=n_blocks)
    return Network([Link("a", "b", 8e6, 0.010, 100, queue=RandomLoss(p=P, periodic=True))],
                   [Flow(["a", "b"], packet_size=1000, source=src)])


def _kernel(until, sack=True, n_blocks=3):
    res = simulate(_net(sack, n_blocks=n_blocks), until, seed=1,
                   record=Record(interval=0.0005, cwnd=True), progress=False)
    c = res.counters
    return (int(c["sent"][0]), int(c["retransmitted"][0]), int(c["fast_retransmits"][0]),
            int(c["timeouts"][0]), round(float(res.cwnd_series[-1, 0]), 6))


def _replayed(until, n_blocks=3):
    s, _ = replay(w0=W0, ssthresh=W0, max_window=64, n_blocks=n_blocks, p=P, tx=0.001,
                  delay=0.010, until=until)
    return s.sent, s.retx, s.fast_rtx, 0, round(s.cwnd, 6)


# ------------------------------------------------------------------------------ hand trace

def test_the_hand_traced_losses_and_the_start_of_the_recovery():
    # before 28 ms: 20 + 5 new packets, no retransmission; at 28 ms the fast retransmit,
    # ssthresh = cwnd = (25 - 5) / 2 = 10
    assert _kernel(0.0275)[:4] == (25, 0, 0, 0)
    sent, retx, frx, to, cwnd = _kernel(0.0285)
    assert (frx, to, cwnd) == (1, 0, 10.0)
    assert retx >= 1


def test_all_three_holes_are_resent_in_the_first_round_trip_of_the_recovery():
    # the recovery starts at 28 ms; one round trip (21 ms) later the three first holes
    # (5, 10, 15) and the fourth loss (21, dropped at 21 ms) have been resent, still one
    # fast retransmit, no timeout
    s, _ = replay(w0=W0, ssthresh=W0, max_window=64, n_blocks=3, p=P, tx=0.001, delay=0.010,
                  until=0.049)
    k = _kernel(0.049)
    assert k[2:4] == (1, 0)
    assert k[1] >= 4 and s.retx >= 4
    # without SACK, NewReno has resent one hole by then (the next waits for a partial ACK)
    assert _kernel(0.049, sack=False)[1] == 1


@pytest.mark.parametrize("until", [0.0215, 0.0285, 0.0305, 0.0375, 0.0495, 0.0705, 0.1005,
                                   0.1505, 0.2005, 0.2505])
def test_the_kernel_follows_the_plain_python_replay_of_rfc_6675(until):
    assert _kernel(until) == _replayed(until)


@pytest.mark.parametrize("until", [0.0505, 0.1505])
def test_four_blocks_per_ack_follow_the_replay_too(until):
    assert _kernel(until, n_blocks=4) == _replayed(until, n_blocks=4)


def test_the_acks_carry_the_blocks_rfc_2018_orders():
    # the kernel's option ring (what each ACK carried) against the replay's receiver
    from qosmodels.sim._kernels import layout as K
    from qosmodels.sim._kernels import sack as KS
    from qosmodels.sim._variant import kernel_for
    from qosmodels.sim.compile import compile_scenario

    net = _net()
    until = 0.12
    c = compile_scenario(net, until, seed=1)
    run = kernel_for(net)
    assert run(c, until, 10**7) == K.ST_OK
    _, acks = replay(w0=W0, ssthresh=W0, max_window=64, n_blocks=3, p=P, tx=0.001,
                     delay=0.010, until=until)
    n = int(c.fi[0, K.FI_ACKS_SENT])
    assert n == len(acks) > 40
    off, q = int(c.fi[0, K.FI_OOO_OFF]), int(c.fi[0, K.FI_OOO_MASK]) + 1
    rs = 1 + 2 * 3
    ring = (3 * q - KS.N_H) // rs
    assert ring >= n  # nothing overwritten: every record is there
    with_blocks = 0
    for k, (_, blocks) in enumerate(acks):
        r = off + q + KS.N_H + k * rs
        assert c.stime[r] == k + 1
        got = [(int(c.stime[r + 1 + 2 * j]), int(c.stime[r + 2 + 2 * j])) for j in range(3)]
        assert got == blocks + [(0, 0)] * (3 - len(blocks)), k
        with_blocks += bool(blocks)
    assert with_blocks > 20
    # RFC 2018's order on an ACK of the trace: ACK 8 (packet 8, the third above the hole
    # at 5) carries [6, 9) alone; the first ACK after 10 is lost, for packet 11, carries
    # [11, 12) first, then [6, 10)
    assert acks[7] == (5, [(6, 9)])
    i = next(i for i, (a, b) in enumerate(acks) if b and b[0] == (11, 12))
    assert acks[i][1][:2] == [(11, 12), (6, 10)]


def test_a_seed_gives_the_same_run_twice():
    assert _kernel(0.3) == _kernel(0.3)


# ------------------------------------------------------------------------------ refusals

@pytest.mark.parametrize("cls", [TcpReno, TcpNewReno, Cubic, BbrV1])
def test_sack_must_be_a_bool(cls):
    with pytest.raises(ScenarioTypeError, match=r"sack must be True or False, got 'yes'"):
        cls(sack="yes")


@pytest.mark.parametrize("n", [0, 5])
def test_sack_blocks_between_one_and_four(n):
    with pytest.raises(ScenarioError, match="sack_blocks"):
        TcpNewReno(sack=True, sack_blocks=n)


def test_sack_replaces_the_pipe_recovery_so_both_are_refused():
    with pytest.raises(ScenarioError, match=r"recovery='pipe'.*use recovery='inflation'"):
        TcpNewReno(sack=True, recovery="pipe")


def test_the_reno_family_without_sack_code_refuses_it():
    with pytest.raises(ScenarioError, match=r"Dctcp.sack=True is not modelled"):
        Dctcp(sack=True)


def test_sack_is_off_by_default():
    assert not TcpReno().sack and not Cubic().sack and not BbrV1().sack
    assert TcpNewReno().sack_blocks == 3


# ------------------------------------------------------------------------------ the others

@pytest.mark.parametrize("src", [Cubic(sack=True, max_window=64), BbrV1(sack=True, max_window=64)])
def test_cubic_and_bbr_with_sack_repair_each_loss_once_without_a_timeout(src):
    # one arrival in a hundred dropped: each loss resent once, plus at most one rescue
    # retransmission (NextSeg rule 4) per recovery, no timeout
    net = Network([Link("a", "b", 8e6, 0.010, 100, queue=RandomLoss(p=0.01, periodic=True))],
                  [Flow(["a", "b"], packet_size=1000, source=src)])
    c = simulate(net, 5.0, seed=1, progress=False).counters
    assert int(c["timeouts"][0]) == 0
    assert int(c["fast_retransmits"][0]) >= 10
    drops, frx = int(c["dropped"][0]), int(c["fast_retransmits"][0])
    assert drops <= int(c["retransmitted"][0]) <= drops + frx


def test_after_a_timeout_the_go_back_n_skips_what_the_receiver_sacked():
    # the retransmission of 10 is dropped, so the recovery stalls at cumulative ACK 10
    # (the replay: 74 packets sent, 63 of 11-73 SACKed); the timer fires before 1 s and
    # the sender goes back to 10: the ACKs after the timeout SACK 11-73 again (RFC 6675,
    # Section 5.1: Update() goes on), so only 10 is resent, not the packets above it
    s, acks = replay(w0=W0, ssthresh=W0, max_window=64, n_blocks=3, p=P, tx=0.001,
                     delay=0.010, until=0.5)
    assert s.una == 10 and s.nxt == 74 and len(s.sacked) == 63
    before, after = (simulate(_net(), t, seed=1, progress=False).counters for t in (0.5, 1.0))
    assert int(before["timeouts"][0]) == 0 and int(after["timeouts"][0]) == 1
    assert int(after["retransmitted"][0]) - int(before["retransmitted"][0]) == 1
    assert int(after["sent"][0]) - int(before["sent"][0]) == 1


def _timer_run(timer, sack):
    # one NewReno flow on a 60 ms path (round trip about 0.12 s, minimum RTO 0.2 s), every
    # 50th arrival dropped
    src = TcpNewReno(initial_window=20, initial_ssthresh=20, max_window=64, sack=sack,
                     timer=timer)
    net = Network([Link("a", "b", 8e6, 0.060, 100, queue=RandomLoss(p=0.02, periodic=True))],
                  [Flow(["a", "b"], packet_size=1000, source=src)])
    c = simulate(net, 3.0, seed=1, progress=False).counters
    return int(c["timeouts"][0]), int(c["fast_retransmits"][0])


def test_the_timer_rules_hold_with_sack_too():
    # ``timer="impatient"`` (ns-3's rules) does not restart the retransmission timer on the
    # fast retransmit: it runs on from the last new ACK, and here it fires before the
    # retransmission is acknowledged, with SACK as without.  "reference" restarts it there:
    # no timeout.  (Until session 51 the SACK sender restarted it whatever ``timer`` said,
    # and had no timeout here with either rule.)
    assert _timer_run("reference", True)[0] == 0
    assert _timer_run("reference", False)[0] == 0
    impatient = _timer_run("impatient", False)
    assert impatient[0] >= 1
    assert _timer_run("impatient", True)[0] == impatient[0]


# ------------------------------------------------------------------------ kernel variants

def _reached(fn, seen=None):
    """The Python modules whose functions the kernel function ``fn`` reaches, through the
    names its code reads (globals, and attributes of the modules it imports): its call
    graph as Numba compiles it, found from the source's names, not by compiling."""
    import types

    seen = set() if seen is None else seen
    py = getattr(fn, "py_func", None)
    if py is None or py in seen:
        return set()
    seen.add(py)
    mods = {py.__module__}
    codes, names = [py.__code__], set()
    while codes:
        c = codes.pop()
        names |= set(c.co_names)
        codes += [k for k in c.co_consts if isinstance(k, types.CodeType)]
    g = py.__globals__
    for n in names:
        v = g.get(n)
        if isinstance(v, types.ModuleType):
            for a in names:
                mods |= _reached(getattr(v, a, None), seen)
        else:
            mods |= _reached(v, seen)
    return mods


def test_a_sack_sender_has_a_kernel_module_of_its_own():
    assert TcpNewReno(sack=True).kernel == TcpReno(sack=True, prr=True).kernel == "sources.reno_sack"
    assert TcpNewReno().kernel == "sources.reno"
    assert Cubic(sack=True).kernel == "sources.cubic_sack"
    assert Cubic().kernel == "sources.cubic"


def test_without_a_sack_flow_no_hook_of_the_core_variant_reaches_sack_or_prr():
    # the core variant (NewReno/Reno over drop-tail or RED, the open-loop sources) is
    # compiled from the hooks of its modules: none may reach the SACK scoreboard or PRR,
    # whose code a SACK flow's own module (sources.reno_sack) brings in
    from qosmodels.sim._kernels import dispatch
    from qosmodels.sim._variant import CORE

    pkg = "qosmodels.sim._kernels."
    for name in sorted(CORE):
        mod = dispatch.QUEUES.get(name) or dispatch.SOURCES[name]
        for hook, fn in mod.HOOKS.items():
            if isinstance(fn, str):
                continue
            bad = {m for m in _reached(fn) if m in (pkg + "sack", pkg + "prr")}
            assert not bad, f"{name}'s {hook} reaches {sorted(bad)}"
    # (and the check finds such a path: the SACK module's hooks reach both)
    reached = set().union(*(_reached(fn) for fn in
                            dispatch.SOURCES["sources.reno_sack"].HOOKS.values()))
    assert {pkg + "sack", pkg + "prr"} <= reached
    cubic = set().union(*(_reached(fn) for fn in dispatch.SOURCES["sources.cubic"].HOOKS.values()))
    assert pkg + "sack" not in cubic and pkg + "prr" not in cubic


@pytest.mark.parametrize("until", [0.0495, 0.2505])
def test_a_sack_flow_beside_a_flow_without_sack_follows_the_replay(until):
    # one network, the two kernel modules of NewReno side by side on disjoint links: the
    # hand-traced SACK flow still follows the RFC 6675 replay, and the flow without SACK
    # sends what it sends alone (each flow's code picks its own hooks)
    kw = dict(initial_window=W0, initial_ssthresh=W0, max_window=64)
    links = [Link(x, y, 8e6, 0.010, 100, queue=RandomLoss(p=P, periodic=True))
             for x, y in (("a", "b"), ("c", "d"))]
    net = Network(links, [Flow(["a", "b"], packet_size=1000, source=TcpNewReno(sack=True, **kw)),
                          Flow(["c", "d"], packet_size=1000, source=TcpNewReno(**kw))])
    res = simulate(net, until, seed=1, record=Record(interval=0.0005, cwnd=True),
                   progress=False)
    c = res.counters
    got = [(int(c["sent"][i]), int(c["retransmitted"][i]), int(c["fast_retransmits"][i]),
            int(c["timeouts"][i]), round(float(res.cwnd_series[-1, i]), 6)) for i in (0, 1)]
    assert got[0] == _replayed(until)
    assert got[1] == _kernel(until, sack=False)
    assert got[0][1] > got[1][1]  # (SACK resent more holes by then)
