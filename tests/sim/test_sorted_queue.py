"""The kernel's per-link sorted queue (``qosmodels/sim/_kernels/sorted_queue.py``).

Random sequences of push / pop / remove / peek on several links at once are run
through the jitted functions (from small ``@njit`` drivers, one operation per call
and a whole sequence in one call) and through the same functions as pure Python,
each checked after every operation against a sorted-list reference per link
(DESIGN.md, practice 6: two implementations that must agree).
"""

from __future__ import annotations

import bisect
import doctest
import types

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from numba import njit
from numba.core.registry import CPUDispatcher

from qosmodels.sim._kernels import sorted_queue as sq
from qosmodels.sim._kernels.sorted_queue import N_SQ, SQ_CAP, SQ_N, SQ_OFF, sorted_queue_layout

PUSH, POP, REMOVE, PEEK = 0, 1, 2, 3
POS_COL = 1  # the heap-position column of the test's packet table
N_COLS = 3   # columns 0 and 2 hold sentinels that no operation may touch


def pure_python(module):
    """The module's jitted functions as plain Python, calling one another as plain Python.

    ``f.py_func`` alone would still call the jitted private helpers through the
    module's globals; here every function gets a copy of those globals in which
    each dispatcher is replaced by its pure-Python copy.
    """
    g = dict(vars(module))
    names = [n for n, v in g.items()
             if isinstance(v, CPUDispatcher)  # plain functions under NUMBA_DISABLE_JIT=1:
             or (isinstance(v, types.FunctionType) and v.__module__ == module.__name__
                 and n.startswith(("sq_", "_sift", "_delete")))]
    assert {"sq_push", "sq_pop", "sq_remove", "_sift_up", "_sift_down", "_delete_at"} <= set(names)
    for n in names:
        f = getattr(g[n], "py_func", g[n])
        g[n] = types.FunctionType(f.__code__, g, n, f.__defaults__, f.__closure__)
    assert not any(isinstance(v, CPUDispatcher) for v in g.values())
    return types.SimpleNamespace(**{n: g[n] for n in names})


def make_apply(m):
    """One operation on link ``l``: returns (integer result, float result)."""
    sq_push, sq_pop, sq_remove = m.sq_push, m.sq_pop, m.sq_remove
    sq_peek, sq_peek_key = m.sq_peek, m.sq_peek_key

    def apply(meta, key, seq, pkt, pi, pos_col, op, l, p, k, s):
        if op == PUSH:
            return (1 if sq_push(meta, l, key, seq, pkt, pi, pos_col, p, k, s) else 0), 0.0
        if op == POP:
            return sq_pop(meta, l, key, seq, pkt, pi, pos_col), 0.0
        if op == REMOVE:
            return (1 if sq_remove(meta, l, key, seq, pkt, pi, pos_col, p) else 0), 0.0
        return sq_peek(meta, l, pkt), sq_peek_key(meta, l, key)

    return apply


PY = pure_python(sq)
py_apply = make_apply(PY)
jit_apply = njit(make_apply(sq))


@njit
def jit_run_all(meta, key, seq, pkt, pi, pos_col, ops, keys, out_i, out_f, out_n):
    """A whole sequence in one jitted call (rows of ``ops``: op, link, packet, seq)."""
    for t in range(ops.shape[0]):
        l = ops[t, 1]
        r, f = jit_apply(meta, key, seq, pkt, pi, pos_col, ops[t, 0], l, ops[t, 2], keys[t],
                         ops[t, 3])
        out_i[t] = r
        out_f[t] = f
        out_n[t] = sq.sq_len(meta, l)


# ----------------------------------------------------------------------------- checks

def new_state(caps, n_packets):
    meta, key, seq, pkt = sorted_queue_layout(caps)
    pi = np.empty((n_packets, N_COLS), dtype=np.int64)
    pi[:, 0] = 1000 + np.arange(n_packets)
    pi[:, POS_COL] = -1
    pi[:, 2] = -7
    return [meta, key, seq, pkt, pi]


def snapshot(state):
    return [a.copy() for a in state]


def assert_consistent(state, ref, caps):
    """Lengths, contents, heap order, positions and untouched columns, on every link."""
    meta, key, seq, pkt, pi = state
    n_packets = pi.shape[0]
    assert (pi[:, 0] == 1000 + np.arange(n_packets)).all()
    assert (pi[:, 2] == -7).all()
    assert meta[:, SQ_CAP].tolist() == list(caps)
    assert meta[:, SQ_OFF].tolist() == np.concatenate([[0], np.cumsum(caps)[:-1]]).tolist()
    expected_pos = np.full(n_packets, -1)
    for l, entries in enumerate(ref):
        off, n = meta[l, SQ_OFF], meta[l, SQ_N]
        assert n == len(entries) <= caps[l]
        # the same (key, seq, packet) entries as the reference
        got = sorted(zip(key[off:off + n].tolist(), seq[off:off + n].tolist(),
                         pkt[off:off + n].tolist()))
        assert got == entries
        # heap order on (key, seq)
        for i in range(1, n):
            par = (i - 1) // 2
            assert (key[off + par], seq[off + par]) <= (key[off + i], seq[off + i]), (l, i)
        for i in range(n):
            expected_pos[pkt[off + i]] = i
    # positions: each queued packet's column points at it, every other packet's is -1
    assert pi[:, POS_COL].tolist() == expected_pos.tolist()


def run_sequence(apply, caps, actions, keys_pool, seq_sign):
    """Interpret ``actions`` against the reference and ``apply``, checking after each one.

    Returns the concrete operations, the results and the final state (to compare
    implementations with one another).
    """
    n_packets = int(sum(caps)) + 2  # a free packet always exists for a push
    state = new_state(caps, n_packets)
    meta, key, seq, pkt, pi = state
    ref = [[] for _ in caps]
    deepest = 0
    where = {}  # packet -> its reference entry's link
    ops, keys, results = [], [], []
    for t, (op, lsel, ksel, psel) in enumerate(actions):
        l = lsel % len(caps)
        p, k, s = 0, 0.0, seq_sign * t
        before = snapshot(state)
        changed = False
        if op == PUSH:
            free = [q for q in range(n_packets) if q not in where]
            p = free[psel % len(free)]
            k = keys_pool[ksel % len(keys_pool)]
            full = len(ref[l]) >= caps[l]
            r, f = apply(meta, key, seq, pkt, pi, POS_COL, PUSH, l, p, k, s)
            assert r == (0 if full else 1)
            if full:
                event("push refused by a full heap" + (" of capacity 0" if caps[l] == 0 else ""))
            else:
                bisect.insort(ref[l], (k, s, p))
                where[p] = l
                changed = True
        elif op == POP:
            r, f = apply(meta, key, seq, pkt, pi, POS_COL, POP, l, p, k, s)
            if ref[l]:
                assert r == ref[l][0][2]
                del where[ref[l].pop(0)[2]]
                changed = True
            else:
                assert r == -1
        elif op == REMOVE:
            if ref[l] and psel % 4:
                p = ref[l][psel % len(ref[l])][2]  # a packet queued here, anywhere in the heap
            else:
                p = psel % n_packets  # any packet: free, queued here or on another link
            queued_here = where.get(p) == l
            r, f = apply(meta, key, seq, pkt, pi, POS_COL, REMOVE, l, p, k, s)
            assert r == (1 if queued_here else 0)
            if queued_here:
                i = [e[2] for e in ref[l]].index(p)
                event("removed the minimum" if i == 0 else "removed from below the minimum")
                ref[l].pop(i)
                del where[p]
                changed = True
            else:
                event("remove refused" + (" (queued on another link)" if p in where else ""))
        else:
            r, f = apply(meta, key, seq, pkt, pi, POS_COL, PEEK, l, p, k, s)
            if ref[l]:
                assert r == ref[l][0][2]
                assert f == ref[l][0][0]
            else:
                assert r == -1 and f == np.inf
        if not changed:
            # a peek, a refused push or remove and a pop from an empty queue change nothing
            assert all((a == b).all() for a, b in zip(before, state)), op
        assert_consistent(state, ref, caps)
        deepest = max(deepest, len(ref[l]))
        ops.append((op, l, p, s))
        keys.append(k)
        results.append((int(r), float(f), len(ref[l])))
    event(f"longest queue: {'>= 8' if deepest >= 8 else '< 8'}")
    event(f"operations: {'>= 50' if len(actions) >= 50 else '< 50'}")
    return np.array(ops, dtype=np.int64).reshape(-1, 4), np.array(keys), results, state


# ----------------------------------------------------------------------------- strategies

KEYS = st.lists(
    st.one_of(st.sampled_from([0.0, -0.0, 1.0, 1.0, 2.5, -3.0, np.inf, -np.inf]),
              st.floats(allow_nan=False)),
    min_size=1, max_size=6)  # few distinct keys: many ties
CAPS = st.lists(st.sampled_from([0, 1, 1, 2, 3, 5, 8, 20]), min_size=1, max_size=5)
ACTION = st.tuples(st.sampled_from([PUSH, PUSH, PUSH, POP, REMOVE, REMOVE, PEEK]),
                   st.integers(0, 100), st.integers(0, 100), st.integers(0, 1000))
# Hypothesis keeps lists short unless told: draw the length first, so that deep heaps occur.
ACTIONS = st.integers(0, 250).flatmap(lambda n: st.lists(ACTION, min_size=n, max_size=n))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(caps=CAPS, actions=ACTIONS, keys_pool=KEYS, seq_sign=st.sampled_from([1, -1]))
def test_random_operations_match_a_sorted_list_jitted_and_pure_python(caps, actions, keys_pool,
                                                                       seq_sign):
    # seq_sign -1: later pushes win ties, so the order cannot come from arrival order alone
    ops, keys, res_jit, state_jit = run_sequence(jit_apply, caps, actions, keys_pool, seq_sign)
    _, _, res_py, state_py = run_sequence(py_apply, caps, actions, keys_pool, seq_sign)
    assert res_jit == res_py
    for a, b in zip(state_jit, state_py):  # the same algorithm: even stale entries agree
        assert (a == b).all()
    # The whole sequence in one jitted call: same results, same final arrays.
    state = new_state(caps, int(sum(caps)) + 2)
    n = len(actions)
    out_i, out_f, out_n = np.zeros(n, np.int64), np.zeros(n), np.zeros(n, np.int64)
    jit_run_all(*state, POS_COL, ops, keys, out_i, out_f, out_n)
    assert [(int(a), float(b), int(c)) for a, b, c in zip(out_i, out_f, out_n)] == res_jit
    for a, b in zip(state, state_jit):
        assert (a == b).all()


# ----------------------------------------------------------------------------- ties and paths

@pytest.mark.parametrize("apply", [jit_apply, py_apply], ids=["jit", "python"])
def test_equal_keys_come_out_in_seq_order(apply):
    rng = np.random.default_rng(1)
    n = 40
    state = new_state([0, n], n)
    seqs = rng.permutation(n) * 3 - 50  # distinct, pushed in random order, some negative
    for p in range(n):
        k = 2.0 if p % 4 else 1.0  # two groups of equal keys
        assert apply(*state, POS_COL, PUSH, 1, p, k, int(seqs[p]))[0] == 1
    assert apply(*state, POS_COL, PUSH, 1, 0, 0.0, 0)[0] == 0  # full
    out = [apply(*state, POS_COL, POP, 1, 0, 0.0, 0)[0] for _ in range(n + 1)]
    ones = sorted((s, p) for p, s in enumerate(seqs) if p % 4 == 0)
    twos = sorted((s, p) for p, s in enumerate(seqs) if p % 4)
    assert out == [p for _, p in ones] + [p for _, p in twos] + [-1]


@pytest.mark.parametrize("apply", [jit_apply, py_apply], ids=["jit", "python"])
def test_remove_whose_refill_moves_up(apply):
    # Heap (one entry per position): 0; 10 1; 11 12 2 3.  Removing 11 (position 3) refills
    # its hole with the last entry, 3, which is smaller than its new parent 10: it moves up.
    state = new_state([7], 7)
    meta, key, seq, pkt, pi = state
    for p, k in enumerate([0.0, 10.0, 1.0, 11.0, 12.0, 2.0, 3.0]):
        apply(*state, POS_COL, PUSH, 0, p, k, p)
    assert key.tolist() == [0.0, 10.0, 1.0, 11.0, 12.0, 2.0, 3.0]
    assert apply(*state, POS_COL, REMOVE, 0, 3, 0.0, 0)[0] == 1
    assert key[:6].tolist() == [0.0, 3.0, 1.0, 10.0, 12.0, 2.0]
    assert pi[:, POS_COL].tolist() == [0, 3, 2, -1, 4, 5, 1]
    assert [apply(*state, POS_COL, POP, 0, 0, 0.0, 0)[0] for _ in range(7)] == [0, 2, 5, 6, 1, 4, -1]


def test_pure_python_copy_really_is_python():
    # The copies call each other, not the jitted helpers (else the comparison proves less).
    assert PY.sq_pop.__globals__["_delete_at"] is PY._delete_at
    assert not isinstance(PY.sq_push.__globals__["_sift_up"], CPUDispatcher)


# ----------------------------------------------------------------------------- layout

def test_layout_offsets_capacities_and_fills():
    meta, key, seq, pkt = sorted_queue_layout([3, 0, 1, 4])
    assert meta.shape == (4, N_SQ) and meta.dtype == np.int64 and meta.flags.c_contiguous
    assert meta[:, SQ_OFF].tolist() == [0, 3, 3, 4]
    assert meta[:, SQ_CAP].tolist() == [3, 0, 1, 4]
    assert meta[:, SQ_N].tolist() == [0, 0, 0, 0]
    assert key.shape == seq.shape == pkt.shape == (8,)
    assert (key.dtype, seq.dtype, pkt.dtype) == (np.float64, np.int64, np.int64)
    assert (pkt == -1).all() and np.isinf(key).all()


def test_layout_of_no_links_and_of_no_queues():
    meta, key, *_ = sorted_queue_layout([])
    assert meta.shape == (0, N_SQ) and key.shape == (0,)
    meta, key, *_ = sorted_queue_layout([0, 0])
    assert meta.tolist() == [[0, 0, 0], [0, 0, 0]] and key.shape == (0,)


def test_layout_rejects_bad_capacities_naming_the_link():
    with pytest.raises(ValueError, match=r"link 2 has capacity -1"):
        sorted_queue_layout([1, 2, -1])
    with pytest.raises(ValueError, match=r"must be integers.*float"):
        sorted_queue_layout([1.5, 2])
    with pytest.raises(ValueError, match=r"one-dimensional.*\(2, 1\)"):
        sorted_queue_layout([[1], [2]])


def test_module_docstring_example_runs():
    result = doctest.testmod(sq, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
