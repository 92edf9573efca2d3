"""Micro-benchmark: the kernel's sorted queue against its plain FIFO ring.

The "hold" model of priority-queue benchmarks (Jones, "An empirical comparison
of priority-queue and event-set implementations", CACM 29(4), 1986): a queue
is filled to a depth D, then each step takes the first packet out and puts it
back, ``pairs`` times, in one jitted driver compiled as the engine's ``run``
is (``_nrt=False``, ``error_model="numpy"``):

- ``fifo``: the engine's FIFO ring (a class slot's offset, capacity, head and
  count; the same code as ``enqueue`` / ``dequeue`` in ``engine.py``), the
  DropTail / RED fast path and the baseline;
- ``heap``: :mod:`qosmodels.sim._kernels.sorted_queue`, ``sq_pop`` then
  ``sq_push`` of the same packet with key = the popped key + an exponential
  increment (mean 1) and a growing sequence number, as fair queueing's bids
  and EDF's deadlines grow;
- ``heap remove``: ``sq_remove`` of a uniformly chosen queued packet, then
  ``sq_push`` of it as above (dropping from the middle, policers).

Each time is the minimum CPU time (``time.process_time``) over ``--reps``
interleaved runs, divided by ``pairs``: nanoseconds per operation pair.
Random numbers are drawn before timing (NumPy, fixed seed).

    python benchmarks/bench_sorted_queue.py [--pairs 1000000] [--depths 10 100 1000] [--reps 5]

Seen on the development machine (2 shared x86_64 cores, load about 2; numba
0.68.1; three runs, ns per pair): FIFO 1.5-1.6 at every depth; heap pop+push
34-35 (D = 10), 65-71 (D = 100), 93-100 (D = 1000); heap remove+push 30-31,
34-39, 35-39.  Compile: 1-2 s per driver.
"""

from __future__ import annotations

import argparse
import platform
import time

import numba
import numpy as np
from numba import njit

from qosmodels.sim._kernels.layout import N_PI, N_SL, SL_CAP, SL_COUNT, SL_HEAD, SL_OFF
from qosmodels.sim._kernels.sorted_queue import (
    sorted_queue_layout,
    sq_len,
    sq_peek_key,
    sq_pop,
    sq_push,
    sq_remove,
)

POS = 0x7FFFFFFFFFFFFFFF
POS_COL = N_PI  # the heap position: one column after today's packet columns
LINK = 1        # the measured link sits between two others in the arena
MASK = (1 << 16) - 1


@njit(error_model="numpy", _nrt=False)
def fifo_hold(slot, ring, depth, pairs):
    s = LINK
    cap = slot[s, SL_CAP]
    for p in range(depth):  # fill
        j = slot[s, SL_HEAD] + slot[s, SL_COUNT]
        if j >= cap:
            j -= cap
        ring[(slot[s, SL_OFF] + j) & POS] = p
        slot[s, SL_COUNT] += 1
    check = 0
    for _ in range(pairs):
        # dequeue
        cnt = slot[s, SL_COUNT]
        h = slot[s, SL_HEAD]
        p = ring[(slot[s, SL_OFF] + h) & POS]
        h += 1
        if h == cap:
            h = 0
        slot[s, SL_HEAD] = h
        slot[s, SL_COUNT] = cnt - 1
        check += p
        # enqueue
        cnt = slot[s, SL_COUNT]
        j = slot[s, SL_HEAD] + cnt
        if j >= cap:
            j -= cap
        ring[(slot[s, SL_OFF] + j) & POS] = p
        slot[s, SL_COUNT] = cnt + 1
    return check


@njit(error_model="numpy", _nrt=False)
def heap_hold(meta, key, seq, pkt, pi, depth, pairs, incs):
    l = LINK
    order = 0
    for p in range(depth):  # fill
        sq_push(meta, l, key, seq, pkt, pi, POS_COL, p, incs[p & MASK], order)
        order += 1
    check = 0
    for i in range(pairs):
        k = sq_peek_key(meta, l, key)
        p = sq_pop(meta, l, key, seq, pkt, pi, POS_COL)
        check += p
        sq_push(meta, l, key, seq, pkt, pi, POS_COL, p, k + incs[i & MASK], order)
        order += 1
    return check + sq_len(meta, l)


@njit(error_model="numpy", _nrt=False)
def heap_remove_hold(meta, key, seq, pkt, pi, depth, pairs, incs, picks):
    l = LINK
    order = 0
    for p in range(depth):  # fill
        sq_push(meta, l, key, seq, pkt, pi, POS_COL, p, incs[p & MASK], order)
        order += 1
    check = 0
    for i in range(pairs):
        p = picks[i & MASK]  # every packet 0 .. depth - 1 is queued
        k = sq_peek_key(meta, l, key)
        if sq_remove(meta, l, key, seq, pkt, pi, POS_COL, p):
            check += 1
        sq_push(meta, l, key, seq, pkt, pi, POS_COL, p, k + incs[i & MASK], order)
        order += 1
    return check + sq_len(meta, l)


def fifo_state(depth):
    slot = np.zeros((3, N_SL), dtype=np.int64)
    caps = [4, depth, 4]
    slot[:, SL_CAP] = caps
    slot[1:, SL_OFF] = np.cumsum(caps)[:-1]
    return slot, np.full(sum(caps), -1, dtype=np.int64)


def heap_state(depth):
    meta, key, seq, pkt = sorted_queue_layout([4, depth, 4])
    pi = np.zeros((depth, POS_COL + 1), dtype=np.int64)
    pi[:, POS_COL] = -1
    return meta, key, seq, pkt, pi


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1_000_000)
    ap.add_argument("--depths", type=int, nargs="+", default=[10, 100, 1000])
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args(argv)

    rng = np.random.default_rng(20240601)
    incs = rng.exponential(1.0, MASK + 1)

    t0 = time.perf_counter()
    fifo_hold(*fifo_state(2), 2, 10)
    t1 = time.perf_counter()
    heap_hold(*heap_state(2), 2, 10, incs)
    t2 = time.perf_counter()
    heap_remove_hold(*heap_state(2), 2, 10, incs, np.zeros(MASK + 1, dtype=np.int64))
    t3 = time.perf_counter()
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"numba {numba.__version__}, numpy {np.__version__}")
    print(f"# compile: fifo {t1 - t0:.1f} s, heap {t2 - t1:.1f} s, heap remove {t3 - t2:.1f} s")
    print(f"# {args.pairs} pairs per run, minimum CPU time of {args.reps} interleaved runs")
    print(f"{'depth':>6} {'fifo ns/pair':>13} {'heap ns/pair':>13} {'heap/fifo':>10} "
          f"{'remove+push ns':>15}")
    for depth in args.depths:
        picks = rng.integers(0, depth, MASK + 1)
        best = {"fifo": np.inf, "heap": np.inf, "remove": np.inf}
        checks = {}
        for _ in range(args.reps):
            st = fifo_state(depth)
            t = time.process_time()
            checks["fifo"] = fifo_hold(*st, depth, args.pairs)
            best["fifo"] = min(best["fifo"], time.process_time() - t)
            st = heap_state(depth)
            t = time.process_time()
            checks["heap"] = heap_hold(*st, depth, args.pairs, incs)
            best["heap"] = min(best["heap"], time.process_time() - t)
            st = heap_state(depth)
            t = time.process_time()
            checks["remove"] = heap_remove_hold(*st, depth, args.pairs, incs, picks)
            best["remove"] = min(best["remove"], time.process_time() - t)
        assert checks["remove"] == args.pairs + depth, checks  # every remove found its packet
        ns = {k: v / args.pairs * 1e9 for k, v in best.items()}
        print(f"{depth:>6} {ns['fifo']:>13.1f} {ns['heap']:>13.1f} "
              f"{ns['heap'] / ns['fifo']:>9.1f}x {ns['remove']:>15.1f}")


if __name__ == "__main__":
    main()
