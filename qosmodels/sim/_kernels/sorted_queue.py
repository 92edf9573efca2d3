"""A per-link sorted queue: indexed binary min-heaps of packet ids in one arena.

Schedulers that serve packets by a tag rather than in arrival order (fair
queueing serves the smallest bid, earliest-deadline-first the earliest
deadline) and mechanisms that take a packet out of the middle of a queue
(dropping from the longest conversation, policers) need, per link, a queue
of packet ids ordered by a float key, with insertion, pop-min, peek-min and
removal of any queued packet in O(log n).  This module gives every link a
binary min-heap; all links' heaps live in one arena, as the kernel's FIFO
rings do, and each queued packet's position in its heap is kept in a column
of the packet table, so a packet can be removed without searching.

Layout
------
meta : ndarray of int64, shape (L, N_SQ)
    One row per link: ``meta[l, SQ_OFF]`` is the offset of the link's heap
    in the arena, ``meta[l, SQ_CAP]`` its capacity (packets, 0 for a link
    without a sorted queue) and ``meta[l, SQ_N]`` the packets queued.
key : ndarray of float64, shape (sum of capacities,)
    The arena of keys (bid, deadline, ...), in seconds or whatever unit the
    scheduler uses; never NaN (``inf`` is allowed).
seq : ndarray of int64, shape (sum of capacities,)
    The arena of tie-break sequence numbers.
pkt : ndarray of int64, shape (sum of capacities,)
    The arena of packet ids.
pi : ndarray of int64, shape (P, ...)
    The packet table; column ``pos_col`` holds the packet's position in its
    link's heap, relative to the link's offset, and -1 while it is in no
    sorted queue.  Whoever builds ``pi`` fills that column with -1.

:func:`sorted_queue_layout` builds ``meta`` and the three arena arrays from
per-link capacities.

Invariants
----------
For every link ``l`` with ``off = meta[l, SQ_OFF]``, ``cap = meta[l, SQ_CAP]``
and ``n = meta[l, SQ_N]``:

1. ``0 <= n <= cap``; the links' slices ``[off, off + cap)`` of the arena
   do not overlap.  Entries ``[off + n, off + cap)`` are stale and never read.
2. Heap order on the pair (key, seq), compared lexicographically: for every
   ``0 < i < n``, with ``par = (i - 1) // 2``, the entry at ``off + par`` is
   not greater than the entry at ``off + i``.  Smaller keys come out first;
   equal keys in increasing ``seq`` (FIFO among equals when ``seq`` grows
   with arrival time, as the event heap's sequence numbers do).  If two
   entries share both key and seq their order is unspecified.
3. Positions: for every ``0 <= i < n``, ``pi[pkt[off + i], pos_col] == i``;
   every packet in no sorted queue has ``pi[p, pos_col] == -1``.  A packet is
   in at most one sorted queue at a time.

Every function keeps these invariants; none allocates, so all inline into a
kernel compiled with ``_nrt=False``.  The functions carry the kernel's
``@handler`` decorator (:mod:`._jit`): Numba types and lowers each once and
LLVM inlines it at each call site.  They have no Python entry point: they are
called from jitted code, as in the Examples below.  ``.py_func`` gives the
Python source, but it calls the private helpers (``_sift_up``, ``_sift_down``,
``_delete_at``) through the module's globals, that is jitted; the tests rebind
those to their ``.py_func`` for a run in pure Python.  They do not check their
arguments beyond what is documented (a link index out of range is undefined
behaviour, as in the rest of the kernel).

Until session 55 they were ``@njit(inline="always")``, which Numba inlines in
its own IR: each of the fair-queueing kernel's 34 call sites received a copy
to be typed and lowered again (about 3 % of the compile of a kernel with every
mechanism; ``benchmarks/RESULTS.md``, "Session 55").

References
----------
- The design: a per-link sorted queue keyed by (tag, seq), an indexed binary
  heap in one arena with an offset and capacity per link, the packet's heap
  position stored on the packet for O(log n) removal.
- A. Demers, S. Keshav, S. Shenker, "Analysis and simulation of a fair
  queueing algorithm", Proc. ACM SIGCOMM 1989, pp. 1-12, section 2.2: packets
  are sent in increasing order of their bids (finish numbers); when the
  buffer is full, the last packet of the conversation using the most buffer
  space is dropped (a removal from the middle of the queue).
- C. L. Liu, J. W. Layland, "Scheduling algorithms for multiprogramming in a
  hard-real-time environment", J. ACM 20(1), 1973: earliest-deadline-first,
  the second user of this queue (keys are deadlines).
- R. W. Floyd, "Algorithm 113: Treesort", CACM 5(8), 1962, and J. W. J.
  Williams, "Algorithm 232: Heapsort", CACM 7(6), 1964: the binary heap.

Examples
--------
>>> import numpy as np
>>> from numba import njit
>>> @njit
... def push(meta, l, key, seq, pkt, pi, packets, keys):
...     return [sq_push(meta, l, key, seq, pkt, pi, 0, p, k, p)
...             for p, k in zip(packets, keys)]
>>> @njit
... def remove_then_pop(meta, l, key, seq, pkt, pi, p, pops):
...     removed = sq_remove(meta, l, key, seq, pkt, pi, 0, p)
...     left = sq_len(meta, l)
...     return removed, left, [sq_pop(meta, l, key, seq, pkt, pi, 0) for _ in range(pops)]
>>> meta, key, seq, pkt = sorted_queue_layout([2, 0, 3])
>>> meta[:, SQ_OFF].tolist(), meta[:, SQ_CAP].tolist()
([0, 2, 2], [2, 0, 3])
>>> pi = np.full((4, 1), -1, dtype=np.int64)          # column 0: heap position
>>> push(meta, 2, key, seq, pkt, pi, np.arange(4), np.array([5.0, 2.0, 5.0, 1.0]))
[True, True, True, False]
>>> pi[:, 0].tolist()                                  # heap positions; packet 3 is in none
[1, 0, 2, -1]
>>> remove_then_pop(meta, 2, key, seq, pkt, pi, 0, 3)
(True, 2, [1, 2, -1])
"""

from __future__ import annotations

import numpy as np

from ._jit import handler

SQ_OFF = 0  # offset of the link's heap in the arena
SQ_CAP = 1  # capacity of the link's heap, packets (0: the link has none)
SQ_N = 2    # packets queued
N_SQ = 3

#: The largest int64: an index and-ed with it is known to the compiler to be
#: >= 0, so Numba drops its negative-index wraparound code (as in the engine).
_POS = 0x7FFFFFFFFFFFFFFF


@handler
def sq_len(meta, l):
    """Packets queued on link ``l``."""
    return meta[l, SQ_N]


@handler
def sq_peek(meta, l, pkt):
    """The packet with the smallest (key, seq) on link ``l``, or -1 when empty."""
    if meta[l, SQ_N] == 0:
        return -1
    return pkt[meta[l, SQ_OFF] & _POS]


@handler
def sq_peek_key(meta, l, key):
    """The smallest key queued on link ``l``, or ``inf`` when empty.

    A queued key may itself be ``inf``: test :func:`sq_len` or
    :func:`sq_peek` to tell an empty queue.
    """
    if meta[l, SQ_N] == 0:
        return np.inf
    return key[meta[l, SQ_OFF] & _POS]


@handler
def _sift_up(off, i, k, s, p, key, seq, pkt, pi, pos_col):
    # Place (k, s, p) at heap position i or above: i is a hole whose
    # subtree is ordered and no smaller than (k, s).
    while i > 0:
        par = (i - 1) >> 1
        a = (off + par) & _POS
        kp = key[a]
        if kp < k or (kp == k and seq[a] <= s):
            break
        b = (off + i) & _POS
        q = pkt[a]
        key[b] = kp
        seq[b] = seq[a]
        pkt[b] = q
        pi[q & _POS, pos_col] = i
        i = par
    b = (off + i) & _POS
    key[b] = k
    seq[b] = s
    pkt[b] = p
    pi[p & _POS, pos_col] = i


@handler
def _sift_down(off, n, i, k, s, p, key, seq, pkt, pi, pos_col):
    # Place (k, s, p) at heap position i or below, in a heap of n entries
    # whose position i is a hole with everything above it no greater than (k, s).
    while True:
        c = (2 * i + 1) & _POS
        if c >= n:
            break
        a = (off + c) & _POS
        kc = key[a]
        sc = seq[a]
        if c + 1 < n:
            k1 = key[a + 1]
            s1 = seq[a + 1]
            if k1 < kc or (k1 == kc and s1 < sc):
                c += 1
                a += 1
                kc = k1
                sc = s1
        if k < kc or (k == kc and s <= sc):
            break
        b = (off + i) & _POS
        q = pkt[a]
        key[b] = kc
        seq[b] = sc
        pkt[b] = q
        pi[q & _POS, pos_col] = i
        i = c
    b = (off + i) & _POS
    key[b] = k
    seq[b] = s
    pkt[b] = p
    pi[p & _POS, pos_col] = i


@handler
def sq_push(meta, l, key, seq, pkt, pi, pos_col, p, k, s):
    """Queue packet ``p`` on link ``l`` with key ``k`` (float) and tie-break ``s``.

    Returns False, changing nothing, when the link's heap is full (or the
    link has none); True otherwise.  ``p`` must be in no sorted queue and
    ``k`` not NaN.  O(log n).
    """
    n = meta[l, SQ_N]
    if n >= meta[l, SQ_CAP]:
        return False
    meta[l, SQ_N] = n + 1
    _sift_up(meta[l, SQ_OFF], n, k, s, p, key, seq, pkt, pi, pos_col)
    return True


@handler
def _delete_at(meta, l, key, seq, pkt, pi, pos_col, i):
    # Remove the entry at heap position i (0 <= i < n) of link l.
    off = meta[l, SQ_OFF]
    n = meta[l, SQ_N] - 1
    meta[l, SQ_N] = n
    if i == n:
        return
    # Refill the hole at i with the last entry, then restore the order.
    a = (off + n) & _POS
    k = key[a]
    s = seq[a]
    p = pkt[a]
    if i > 0:
        b = (off + ((i - 1) >> 1)) & _POS
        kp = key[b]
        if k < kp or (k == kp and s < seq[b]):
            _sift_up(off, i, k, s, p, key, seq, pkt, pi, pos_col)
            return
    _sift_down(off, n, i, k, s, p, key, seq, pkt, pi, pos_col)


@handler
def sq_pop(meta, l, key, seq, pkt, pi, pos_col):
    """Remove and return the packet with the smallest (key, seq) on link ``l``.

    Returns -1 when the queue is empty.  The packet's position column
    becomes -1.  O(log n).
    """
    if meta[l, SQ_N] == 0:
        return -1
    p = pkt[meta[l, SQ_OFF] & _POS]
    _delete_at(meta, l, key, seq, pkt, pi, pos_col, 0)
    pi[p & _POS, pos_col] = -1
    return p


@handler
def sq_remove(meta, l, key, seq, pkt, pi, pos_col, p):
    """Remove packet ``p`` from link ``l``'s sorted queue, wherever it is.

    Returns True and sets the packet's position column to -1 if ``p`` was
    queued on link ``l``; returns False, changing nothing, if it was not
    (in no sorted queue, or in another link's).  O(log n).
    """
    i = pi[p, pos_col]
    if i < 0 or i >= meta[l, SQ_N] or pkt[(meta[l, SQ_OFF] + i) & _POS] != p:
        return False
    _delete_at(meta, l, key, seq, pkt, pi, pos_col, i)
    pi[p, pos_col] = -1
    return True


def sorted_queue_layout(capacities):
    """The arrays of sorted queues with the given per-link capacities.

    Parameters
    ----------
    capacities : sequence of int, length L
        Capacity of each link's heap, packets; 0 for a link without one.

    Returns
    -------
    meta : ndarray of int64, shape (L, N_SQ)
        Offsets (cumulative capacities), capacities, and zero lengths.
    key : ndarray of float64, shape (C,)
        ``C = sum(capacities)``; filled with ``inf``.
    seq : ndarray of int64, shape (C,)
        Filled with 0.
    pkt : ndarray of int64, shape (C,)
        Filled with -1.

    Raises
    ------
    ValueError
        If ``capacities`` is not a one-dimensional sequence of non-negative
        integers.
    """
    caps = np.asarray(capacities)
    if caps.ndim != 1:
        raise ValueError(
            f"capacities must be one-dimensional (one capacity per link); got shape {caps.shape}"
        )
    if caps.size and not np.issubdtype(caps.dtype, np.integer):
        raise ValueError(
            f"capacities must be integers (packets); got dtype {caps.dtype}: {caps.tolist()!r}"
        )
    caps = caps.astype(np.int64)
    bad = np.flatnonzero(caps < 0)
    if bad.size:
        raise ValueError(
            f"capacities must be >= 0 (0: the link has no sorted queue); link {int(bad[0])} "
            f"has capacity {int(caps[bad[0]])}"
        )
    meta = np.zeros((caps.size, N_SQ), dtype=np.int64)
    meta[:, SQ_CAP] = caps
    meta[1:, SQ_OFF] = np.cumsum(caps)[:-1]
    total = int(caps.sum())
    key = np.full(total, np.inf, dtype=np.float64)
    seq = np.zeros(total, dtype=np.int64)
    pkt = np.full(total, -1, dtype=np.int64)
    return meta, key, seq, pkt
