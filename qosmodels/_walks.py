"""The random walks of :func:`~qosmodels.topologies.random_network`, compiled.

``random_network`` builds each route by drawing a start node with ``rng.integers(len(starts))``
and then, at each hop, the next node with ``rng.integers(len(candidates))``.  Those draws
depend on the walk so far, so they cannot be drawn as one array; a Python loop over 10**6
flows takes about 10 s.  Here the same draws are made in compiled code from the generator's
raw 32-bit stream: NumPy's ``Generator.integers(n)`` (int64, ``n`` below 2**32) is
Lemire's bounded-integer method on ``next_uint32`` (``buffered_bounded_lemire_uint32`` in
NumPy's ``distributions.c``), consuming nothing when ``n == 1``.  The raw stream is read
with ``integers(0, 2**32, dtype=uint32)``, which returns ``next_uint32`` unchanged; the
generator is then left exactly where the draw-by-draw loop would have left it, so the
networks and any later draws from a caller's generator are unchanged (tested against the
draw-by-draw loop in ``tests/test_from_arrays.py``).

References
----------
D. Lemire, "Fast random integer generation in an interval", ACM Trans. Modeling and
Computer Simulation 29(1), 2019.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


@njit(cache=True)
def _bounded(raw, pos, n):
    """An integer uniform in 0..n-1 as ``Generator.integers(n)`` draws it from ``raw[pos:]``;
    returns (value, next position), position -1 when ``raw`` runs out."""
    if n == 1:
        return 0, pos
    nn = np.uint64(n)
    if pos >= raw.shape[0]:
        return 0, -1
    m = raw[pos] * nn
    pos += 1
    left = m & _MASK32
    if left < nn:
        threshold = (_TWO32 - nn) % nn
        while left < threshold:
            if pos >= raw.shape[0]:
                return 0, -1
            m = raw[pos] * nn
            pos += 1
            left = m & _MASK32
    return np.int64(m >> np.uint64(32)), pos


@njit(cache=True)
def _walks(starts, succ_ptr, succ_node, succ_link, hops, raw, n_nodes, max_links):
    n_flows = hops.shape[0]
    ptr = np.zeros(n_flows + 1, dtype=np.int64)
    links = np.empty(max_links, dtype=np.int64)
    visited = np.full(n_nodes, -1, dtype=np.int64)
    max_deg = 1
    for a in range(n_nodes):
        max_deg = max(max_deg, succ_ptr[a + 1] - succ_ptr[a])
    nxt = np.empty(max_deg, dtype=np.int64)
    nxt_link = np.empty(max_deg, dtype=np.int64)
    pos = 0
    n = 0
    for i in range(n_flows):
        k, pos = _bounded(raw, pos, starts.shape[0])
        if pos < 0:
            return ptr, links[:0], -1
        node = starts[k]
        visited[node] = i
        for _ in range(hops[i]):
            cnt = 0
            for j in range(succ_ptr[node], succ_ptr[node + 1]):
                b = succ_node[j]
                if visited[b] != i:
                    nxt[cnt] = b
                    nxt_link[cnt] = succ_link[j]
                    cnt += 1
            if cnt == 0:
                break
            k, pos = _bounded(raw, pos, cnt)
            if pos < 0:
                return ptr, links[:0], -1
            links[n] = nxt_link[k]
            n += 1
            node = nxt[k]
            visited[node] = i
        ptr[i + 1] = n
    return ptr, links[:n], pos


def random_walks(rng: np.random.Generator, pairs: np.ndarray, n_nodes: int,
                 hops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The routes of ``random_network`` as a CSR pair (indptr, link indices).

    Parameters
    ----------
    rng : numpy.random.Generator
        Advanced exactly as the draw-by-draw walk advances it.
    pairs : ndarray of int64, shape (L, 2)
        Each link's (src, dst) node numbers; a node's successors are taken in link order.
    n_nodes : int
        Number of nodes.
    hops : ndarray of int64, shape (F,)
        Each flow's intended number of hops (a walk stops early at a node whose
        successors it has all visited).
    """
    src, dst = pairs[:, 0], pairs[:, 1]
    order = np.argsort(src, kind="stable")
    succ_ptr = np.zeros(n_nodes + 1, dtype=np.int64)
    succ_ptr[1:] = np.cumsum(np.bincount(src, minlength=n_nodes))
    starts = np.unique(src).astype(np.int64)  # the nodes with a way out, sorted
    steps = np.minimum(hops, n_nodes - 1).astype(np.int64)
    max_links = int(steps.sum())
    size = hops.shape[0] + max_links + 64 + hops.shape[0] // 1000  # a margin for rejections
    state = rng.bit_generator.state
    while True:
        raw = rng.integers(0, 1 << 32, dtype=np.uint32, size=size).astype(np.uint64)
        ptr, links, used = _walks(starts, succ_ptr, dst[order].astype(np.int64),
                                  order.astype(np.int64), hops.astype(np.int64), raw,
                                  n_nodes, max_links)
        rng.bit_generator.state = state
        if used >= 0:
            break
        size *= 2  # more rejections than the margin: draw again with more
    if used:
        rng.integers(0, 1 << 32, dtype=np.uint32, size=used)  # leave rng where the loop would
    return ptr, links.copy()
