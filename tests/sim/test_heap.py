"""The event heaps (qosmodels.sim._kernels.heap) against Python's heapq.

Events are pushed and popped in random interleavings, with many equal times;
the kernel's heap must give them back in heapq's order of (time, push order),
keep its heap property after every operation, count its size and its largest
size, and refuse a push when full.  Timers' events go to a heap of their own
(the main one when its rows are full); the earlier of the two roots, taken as
the engine takes it, gives heapq's order again; so do packets propagating in
pipes, with their events behind the pipe's head, and those that overtake.
"""

from __future__ import annotations

import heapq

import numpy as np
import pytest
from numba import njit

from qosmodels import Flow, Link, Network
from qosmodels.sim._kernels import heap
from qosmodels.sim._kernels import layout as K
from qosmodels.sim.compile import Limits, compile_scenario

from .jitcall import jitcall

push = jitcall(heap.push)


@njit
def _pop(S, timers=False):
    """The root's (time, payload) of the main heap or the timers', removed as the engine
    removes it."""
    base = S.gi[K.GI_HEAP_CAP] if timers else 0
    r = K.N_HV * base
    t, d = S.hv[r + K.HV_T], int(S.hv[r + K.HV_D])
    heap.pop_at(S, base, K.GI_TIMER_N if timers else K.GI_HEAP_N)
    return t, d


def empty_heap(size):
    """A compiled scenario's arrays with an empty event heap of ``size`` slots."""
    c = compile_scenario(Network([Link("a", "b", 1e6, 0.01)], [Flow(["a", "b"])]), 1.0,
                         seed=0, limits=Limits(heap_size=size))
    c.gi[K.GI_HEAP_N] = 0
    c.gi[K.GI_TIMER_N] = 0
    c.gi[K.GI_PIPED] = 0
    c.gi[K.GI_HEAP_MAX] = 0
    c.gi[K.GI_ORDER] = 0
    return c


def heap_ordered(c):
    """Every event is no earlier, by (time, order), than its parent."""
    n = c.gi[K.GI_HEAP_N]
    key = c.hv[:K.N_HV * n].reshape(n, K.N_HV)[:, [K.HV_T, K.HV_O]].tolist()
    return all(key[(i - 1) // 2] < key[i] for i in range(1, n))


@pytest.mark.parametrize("seed", range(6))
def test_random_interleavings_come_out_in_heapqs_order(seed):
    rng = np.random.default_rng(seed)
    c = empty_heap(400)
    ref, order, biggest = [], 0, 0
    for step in range(3000):
        if ref and rng.random() < 0.45 + 0.1 * (len(ref) > 300):
            t, d = _pop(c)
            want_t, _, want_d = heapq.heappop(ref)
            assert (t, d) == (want_t, want_d), step
        else:
            t = float(rng.integers(0, 40)) * 0.25  # many ties
            d = int(rng.integers(0, 1 << 40))
            push(c, t, d)
            heapq.heappush(ref, (t, order, d))
            order += 1
            biggest = max(biggest, len(ref))
        assert c.gi[K.GI_HEAP_N] == len(ref)
        if step % 97 == 0:
            assert heap_ordered(c)
    while ref:  # drain
        want_t, _, want_d = heapq.heappop(ref)
        assert _pop(c) == (want_t, want_d)
    assert c.gi[K.GI_HEAP_MAX] == biggest


def test_sizes_around_a_full_level():
    # 1, 3, 7, 15, 31, 63 events fill whole levels: pop everything back for sizes around them
    for size in (1, 2, 3, 4, 6, 7, 8, 14, 15, 16, 62, 63, 64, 85):
        c = empty_heap(100)
        times = np.random.default_rng(size).permutation(size).astype(float)
        for j, t in enumerate(times):
            push(c, t, j)
        got = [_pop(c)[0] for _ in range(size)]
        assert got == sorted(times.tolist()), size
        assert c.gi[K.GI_HEAP_N] == 0


def test_a_full_heap_refuses_a_push():
    c = empty_heap(3)
    for t in (3.0, 1.0, 2.0):
        push(c, t, 0)
    assert c.gi[K.GI_STATUS] == K.ST_OK
    push(c, 0.5, 0)
    assert c.gi[K.GI_STATUS] == K.ST_HEAP_FULL and c.gi[K.GI_HEAP_N] == 3
    assert [_pop(c)[0] for _ in range(3)] == [1.0, 2.0, 3.0]


push_timer = jitcall(heap.push_timer)


def test_timers_have_a_heap_of_their_own_and_overflow_into_the_main_one():
    c = empty_heap(50)
    c.gi[K.GI_TIMER_CAP] = 3  # three timer rows: the fourth timer goes to the main heap
    rng = np.random.default_rng(0)
    ref, timers = [], []
    for j in range(12):
        t = float(rng.integers(0, 5))
        if j % 3 == 0:
            push_timer(c, t, j)
            timers.append((t, j))
        else:
            push(c, t, j)
        heapq.heappush(ref, (t, j))  # the push order is the order counter
    assert c.gi[K.GI_TIMER_N] == 3 and c.gi[K.GI_HEAP_N] == 9  # 4 timers, one overflowed
    assert c.gi[K.GI_HEAP_MAX] == 12  # both heaps counted together
    # the timers' own heap gives its three back in (time, order) order
    got = [_pop(c, True) for _ in range(3)]
    assert got == sorted(timers[:3])
    # taking the earlier of the two roots, as the engine does, gives heapq's order
    c2 = empty_heap(50)
    c2.gi[K.GI_TIMER_CAP] = 3
    for j, (t, d) in enumerate(sorted(ref, key=lambda e: e[1])):
        (push_timer if j % 3 == 0 else push)(c2, t, d)
    out = []
    cap = K.N_HV * c2.gi[K.GI_HEAP_CAP]
    while c2.gi[K.GI_HEAP_N] + c2.gi[K.GI_TIMER_N] > 0:
        key_main = (c2.hv[K.HV_T], c2.hv[K.HV_O]) if c2.gi[K.GI_HEAP_N] else (np.inf, np.inf)
        key_timer = ((c2.hv[cap + K.HV_T], c2.hv[cap + K.HV_O]) if c2.gi[K.GI_TIMER_N]
                     else (np.inf, np.inf))
        out.append(_pop(c2, True) if key_timer < key_main else _pop(c2))
    assert out == [heapq.heappop(ref) for _ in range(12)]


def test_the_heaps_together_hold_at_most_heap_size_events():
    c = empty_heap(4)
    for j in range(3):
        push_timer(c, float(j), j)
    push(c, 9.0, 3)
    assert c.gi[K.GI_STATUS] == K.ST_OK
    push_timer(c, 0.5, 4)
    assert c.gi[K.GI_STATUS] == K.ST_HEAP_FULL
    assert c.gi[K.GI_HEAP_N] + c.gi[K.GI_TIMER_N] == 4


enter_pipe = jitcall(heap.enter_pipe)


@njit
def _take(S):
    """The next event as the engine takes it (the main heap only here): (time, packet) for a
    pipe's head or a packet's own event, through ``leave_pipe`` for a pipe's."""
    t, d = S.hv[K.HV_T], int(S.hv[K.HV_D])
    heap.pop_root(S)
    kind, a = d & ((1 << K.EV_BITS) - 1), d >> K.EV_BITS
    if kind == K.EV_PIPE:
        a = heap.leave_pipe(S, a)
    return t, a


@pytest.mark.parametrize("seed", range(4))
def test_packets_in_pipes_come_out_in_heapqs_order(seed):
    # packets enter 3 pipes with delays that mostly keep their order and sometimes fall
    # (a packet that would overtake the pipe's last one), interleaved with taking events
    rng = np.random.default_rng(seed)
    c = empty_heap(300)._replace(pipe=np.full((3, K.N_PP), -1, dtype=np.int64))
    assert c.pi.shape[0] >= 280
    ref, order, now, p = [], 0, 0.0, 0
    delay = [0.5, 1.0, 0.25]
    for step in range(1500):
        if ref and rng.random() < 0.5:
            t, a = _take(c)
            want_t, _, want_p = heapq.heappop(ref)
            assert (t, a) == (want_t, want_p), step
            now = t
        else:
            q = int(rng.integers(0, 3))
            if rng.random() < 0.05:
                delay[q] = float(rng.choice([0.125, 0.5, 1.0, 2.0]))  # a LinkChange
            t = now + delay[q]
            p = (p + 1) % 280  # packet indices; at most 300 events pending
            enter_pipe(c, q, p, t, (p << K.EV_BITS) | K.EV_ARRIVE)
            heapq.heappush(ref, (t, order, p))
            order += 1
        pending = c.gi[K.GI_HEAP_N] + c.gi[K.GI_TIMER_N] + c.gi[K.GI_PIPED]
        assert pending == len(ref)
    assert c.gi[K.GI_STATUS] == K.ST_OK
    while ref:
        want_t, _, want_p = heapq.heappop(ref)
        assert _take(c) == (want_t, want_p)
    assert (c.pipe == -1).all() and c.gi[K.GI_PIPED] == 0
