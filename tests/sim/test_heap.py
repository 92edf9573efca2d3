"""The event heap (qosmodels.sim._kernels.heap) against Python's heapq.

Events are pushed and popped in random interleavings, with many equal times;
the kernel's heap must give them back in heapq's order of (time, push order),
keep its heap property after every operation, count its size and its largest
size, and refuse a push when full.
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
def _pop(S):
    """The root's (time, payload), removed as the engine removes it."""
    t, d = S.hv[K.HV_T], int(S.hv[K.HV_D])
    heap.pop_root(S)
    return t, d


def empty_heap(size):
    """A compiled scenario's arrays with an empty event heap of ``size`` slots."""
    c = compile_scenario(Network([Link("a", "b", 1e6, 0.01)], [Flow(["a", "b"])]), 1.0,
                         seed=0, limits=Limits(heap_size=size))
    c.gi[K.GI_HEAP_N] = 0
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
