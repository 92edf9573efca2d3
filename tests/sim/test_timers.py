"""Timer slots (qosmodels.sim._kernels.timers): lazy deadlines owned by links, flows or edges.

Each rule by a hand-traced case on a compiled scenario's arrays; the handlers
are called from Python through jitted trampolines (``jitcall``).
"""

from __future__ import annotations

import numpy as np

from qosmodels import Flow, Link, Network
from qosmodels.mechanisms import Cbr, TcpNewReno
from qosmodels.sim._kernels import layout as K
from qosmodels.sim._kernels import timers
from qosmodels.sim.compile import compile_scenario

from .jitcall import jitcall

set_deadline, cancel, due = (jitcall(h) for h in (timers.set_deadline, timers.cancel, timers.due))


def scenario():
    net = Network([Link("a", "b", 1e6, 0.01)],
                  [Flow(["a", "b"], source=TcpNewReno()), Flow(["a", "b"], source=Cbr()),
                   Flow(["a", "b"], source=TcpNewReno())])
    return compile_scenario(net, 10.0, seed=0)


def pending(c):
    """(time, slot) of the timer events in the heaps (the main one and the timers')."""
    rows = c.hv.reshape(-1, K.N_HV)
    cap = c.gi[K.GI_HEAP_CAP]
    ev = np.concatenate([rows[:c.gi[K.GI_HEAP_N]], rows[cap:cap + c.gi[K.GI_TIMER_N]]])
    d = ev[:, K.HV_D].astype(np.int64)
    sel = (d & ((1 << K.EV_BITS) - 1)) == K.EV_TIMER
    return sorted(zip(ev[sel, K.HV_T].tolist(), (d[sel] >> K.EV_BITS).tolist()))


def test_slots_are_given_to_the_owners_that_need_them():
    c = scenario()
    assert c.fi[:, K.FI_TIMER0].tolist() == [0, -1, 1]  # window flows only
    assert c.tmi[:2, K.TMI_OWNER_KIND].tolist() == [K.OWNER_FLOW] * 2
    assert c.tmi[:2, K.TMI_OWNER].tolist() == [0, 2]
    assert c.li[0, K.LI_TIMER0] == -1  # DropTail needs none
    assert np.all(c.tm[:, K.TM_DEADLINE] == np.inf)


def test_a_later_deadline_leaves_the_event_and_it_sleeps_on():
    c = scenario()
    set_deadline(c, 1, 1.0, False)
    assert pending(c) == [(1.0, 1)]
    set_deadline(c, 1, 3.0, False)  # later: no new event
    assert pending(c) == [(1.0, 1)] and c.tm[1, K.TM_DEADLINE] == 3.0
    c.gf[K.GF_NOW] = 1.0
    assert not due(c, 1)  # fires at 1.0, deadline moved to 3.0: sleeps on
    assert (3.0, 1) in pending(c)
    c.gf[K.GF_NOW] = 3.0
    assert due(c, 1) and c.tm[1, K.TM_DEADLINE] == np.inf


def test_an_earlier_deadline_fires_on_time_only_when_asked():
    c = scenario()
    set_deadline(c, 0, 2.0, False)
    set_deadline(c, 0, 1.0, False)  # earlier, not early: still the event at 2.0
    assert pending(c) == [(2.0, 0)]
    c.gf[K.GF_NOW] = 2.0
    assert due(c, 0)  # fires late, at the old time
    c = scenario()
    set_deadline(c, 0, 2.0, True)
    set_deadline(c, 0, 1.0, True)  # earlier and early: a new event at 1.0
    assert pending(c) == [(1.0, 0), (2.0, 0)]
    c.gf[K.GF_NOW] = 1.0
    assert due(c, 0)
    c.gf[K.GF_NOW] = 2.0
    assert not due(c, 0)  # the stale event is recognised by its time


def test_a_cancelled_timer_does_not_fire():
    c = scenario()
    set_deadline(c, 0, 1.0, False)
    cancel(c, 0)
    c.gf[K.GF_NOW] = 1.0
    assert not due(c, 0)
    assert pending(c) == [(1.0, 0)]  # (the event itself stays; it found no deadline)
