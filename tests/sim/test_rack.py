"""RACK-TLP (RFC 8985) in the SACK senders: ``rack=True``, ``tlp=True``.

Hand-traced scenario: the one of ``tests/sim/test_sack.py`` (one ``TcpNewReno(sack=True)``
flow, 8 Mb/s, 10 ms each way, ``RandomLoss(p=3/16, periodic=True)`` dropping every
arrival that brings the running sum of p to 1).  Its module docstring traces the first
recovery: the retransmission of packet 10 is itself dropped, and RFC 6675 without RACK
can only wait for the retransmission timer.  With RACK the packets sent after that
retransmission (the other holes' retransmissions and new data) are SACKed one round trip
later, so RACK's step 5 finds the retransmission of 10 sent before the most recently
delivered packet and older than RACK.rtt + reo_wnd (reo_wnd = 0 in recovery): it is
marked lost and resent without a timeout.  The same holds for every later lost
retransmission of the periodic pattern, so over the run the timer never fires.
"""

from __future__ import annotations

import pytest

from qosmodels import Flow, Link, Network
from qosmodels.errors import ScenarioError, ScenarioTypeError
from qosmodels.mechanisms import Cubic, TcpNewReno, TcpReno
from qosmodels.sim import RandomLoss, simulate

P = 3.0 / 16.0


def _net(src):
    return Network([Link("a", "b", 8e6, 0.010, 100, queue=RandomLoss(p=P, periodic=True))],
                   [Flow(["a", "b"], packet_size=1000, source=src)])


def _run(src, until):
    c = simulate(_net(src), until, seed=1, progress=False).counters
    return {k: int(c[k][0]) for k in ("sent", "retransmitted", "fast_retransmits",
                                      "timeouts")}


def _newreno(**kw):
    return TcpNewReno(initial_window=20, initial_ssthresh=20, max_window=64, sack=True, **kw)


def test_without_rack_the_lost_retransmission_waits_for_the_timer():
    # the reference for the next test: RFC 6675 alone times out on the hand-traced run
    assert _run(_newreno(), 2.0)["timeouts"] >= 1


@pytest.mark.parametrize("kw", [{"rack": True}, {"rack": True, "tlp": True}])
def test_rack_resends_a_lost_retransmission_without_a_timeout(kw):
    base = _run(_newreno(), 2.0)
    with_rack = _run(_newreno(**kw), 2.0)
    assert with_rack["timeouts"] == 0
    # the recovery goes on instead of stalling for an RTO: more data gets through
    assert with_rack["sent"] > base["sent"]
    assert with_rack["fast_retransmits"] >= 1


def test_cubic_with_rack_has_no_timeout_on_the_hand_traced_run():
    src = Cubic(initial_window=20, max_window=64, sack=True, rack=True, tlp=True)
    assert _run(src, 2.0)["timeouts"] == 0


def _long(cls, **kw):
    # 50 ms each way, every arrival bringing the running sum of p = 0.2 to 1 dropped: the
    # retransmission timer (200 ms minimum) is under two round trips, and some
    # retransmissions are dropped again
    if cls is Cubic:
        src = Cubic(initial_window=20, max_window=64, sack=True, **kw)
    else:
        src = cls(initial_window=20, initial_ssthresh=20, max_window=64, sack=True, **kw)
    net = Network([Link("a", "b", 8e6, 0.050, 100, queue=RandomLoss(p=0.2, periodic=True))],
                  [Flow(["a", "b"], packet_size=1000, source=src)])
    c = simulate(net, 3.0, seed=1, progress=False).counters
    return {k: int(c[k][0]) for k in ("sent", "retransmitted", "fast_retransmits",
                                      "timeouts")}


@pytest.mark.parametrize("cls", [TcpNewReno, Cubic])
@pytest.mark.parametrize("kw", [{"rack": True}, {"rack": True, "tlp": True}])
def test_the_timer_restarts_when_rack_resends_the_first_unacknowledged_packet(cls, kw):
    # RACK finds a lost retransmission of the packet at SND.UNA and resends it; the
    # retransmission timer, last restarted by the ACK before, must restart then (as Linux
    # does, and as the sender without RACK does on entering the recovery), else it fires
    # before the new copy can be acknowledged.  The branch of session 45 (no restart, no
    # Section 9.3 reduction) had timeouts here: NewReno 4 with rack, 2 with rack and tlp;
    # Cubic 3 and 2; with the reduction but no restart 3, 2, 4, 1 (NUMBA_DISABLE_JIT=1 runs
    # with the restart patched out); RFC 6675 alone has 3 (both senders).
    assert _long(cls)["timeouts"] >= 1
    r = _long(cls, **kw)
    assert r["timeouts"] == 0
    assert r["fast_retransmits"] >= 5


def _tail(**kw):
    # one packet in flight at a time (max_window 1): a dropped packet is a tail loss, no
    # packet after it can be SACKed, so neither DupThresh nor RACK can see it
    src = TcpNewReno(initial_window=1, max_window=1, sack=True, **kw)
    net = Network([Link("a", "b", 8e6, 0.010, 100, queue=RandomLoss(p=1 / 8, periodic=True))],
                  [Flow(["a", "b"], packet_size=1000, source=src)])
    c = simulate(net, 3.0, seed=1, progress=False).counters
    return {k: int(c[k][0]) for k in ("sent", "retransmitted", "timeouts")}


def test_a_tail_loss_is_repaired_by_the_probe_instead_of_the_timer():
    # every 8th packet is dropped; without TLP each drop costs an RTO (1 s minimum),
    # with it the probe (the last packet again, PTO = 2 SRTT + 200 ms < RTO) repairs it
    off, rack_only, tlp = _tail(), _tail(rack=True), _tail(rack=True, tlp=True)
    assert off["timeouts"] >= 3 and rack_only["timeouts"] == off["timeouts"]
    assert tlp["timeouts"] == 0
    assert tlp["retransmitted"] >= 3 and tlp["sent"] > off["sent"]


def test_rack_and_tlp_are_off_by_default():
    for cls in (TcpReno, TcpNewReno, Cubic):
        s = cls(sack=True)
        assert s.rack is False and s.tlp is False


# ------------------------------------------------------------------------------ refusals

@pytest.mark.parametrize("cls", [TcpReno, TcpNewReno, Cubic])
def test_rack_needs_sack(cls):
    with pytest.raises(ScenarioError, match=r"rack=True needs sack=True"):
        cls(rack=True)


@pytest.mark.parametrize("cls", [TcpReno, TcpNewReno, Cubic])
def test_tlp_needs_rack(cls):
    with pytest.raises(ScenarioError, match=r"tlp=True needs rack=True"):
        cls(sack=True, tlp=True)


@pytest.mark.parametrize("kw", [{"rack": 1}, {"rack": True, "tlp": 1}])
def test_rack_and_tlp_must_be_bools(kw):
    field = list(kw)[-1]
    with pytest.raises(ScenarioTypeError, match=rf"{field} must be True or False"):
        TcpNewReno(sack=True, **kw)


# ------------------------------------------------------------------------ kernel variants

def test_a_rack_sender_has_a_kernel_module_of_its_own():
    assert TcpNewReno(sack=True).kernel == TcpReno(sack=True).kernel == "sources.reno_sack"
    assert TcpNewReno(sack=True, rack=True).kernel == "sources.reno_rack"
    assert TcpReno(sack=True, rack=True, tlp=True).kernel == "sources.reno_rack"
    assert Cubic(sack=True).kernel == "sources.cubic_sack"
    assert Cubic(sack=True, rack=True).kernel == "sources.cubic_rack"


def test_a_variant_without_a_rack_flow_leaves_rack_out():
    # the variants prune the dispatch branches of unused modules: without a rack flow no
    # hook reaches RACK's ACK and timer handlers
    from pathlib import Path

    from qosmodels.sim._kernels import dispatch
    from qosmodels.sim._variant import CORE, kernels_of, specialise

    text = Path(dispatch.__file__).read_text()
    core = specialise(text, CORE | {"sources.cubic"})
    assert "on_ack_rack" not in core and "on_timeout_rack" not in core
    net = _net(_newreno(rack=True))
    keep = CORE | kernels_of(net)
    assert "sources.reno_rack" in keep
    assert "on_ack_rack" in specialise(text, keep)


def test_the_shared_rack_handlers_serve_reno_rack_and_cubic_rack_only():
    # reno_rack's ACK and timer handlers pick CUBIC's decrease for any flow whose code is
    # not reno_rack's: they must be the hooks of reno_rack and cubic_rack and of no other
    # module, and both senders keep the receiver's window in the column they read
    from qosmodels.sim._gen_dispatch import kernel_modules
    from qosmodels.sim._kernels.sources import cubic, cubic_rack, reno, reno_rack

    users = {m.__name__.rsplit(".", 1)[1] for m in kernel_modules()["source"]
             for h in ("source_ack", "source_timeout")
             if m.HOOKS.get(h) in (reno_rack.on_ack_rack, reno_rack.on_timeout_rack)}
    assert users == {"reno_rack", "cubic_rack"}
    assert cubic_rack.HOOKS["source_ack"] is reno_rack.on_ack_rack
    assert cubic_rack.HOOKS["source_timeout"] is reno_rack.on_timeout_rack
    assert reno_rack.MAX_WINDOW == reno.TCP_MAX_WINDOW == cubic.CUB_MAX_WINDOW
    assert reno_rack.CODE != cubic_rack.CODE
