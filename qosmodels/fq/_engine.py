"""Exact bit-by-bit round robin and packetised fair queueing for an arrival trace.

Pure Python event loops over NumPy arrays (the computation is sequential by
nature: every arrival moves the round number).  Everything here sees only
arrays; :func:`qosmodels.fq.fair_queue` validates the inputs and wraps the
output in a :class:`~qosmodels.fq.FairQueueResult`.

Units inside: times in s, sizes and round numbers in bytes (per unit weight),
the line rate in bytes/s.
"""

from __future__ import annotations

import heapq
import math

import numpy as np


def bit_round_robin(times, conv, sizes, weights, rate, delta):
    """Round number, start/finish numbers and bids of the BR discipline.

    Parameters
    ----------
    times : ndarray of float64, shape (n,)
        Arrival times (s), sorted ascending.
    conv : ndarray of int64, shape (n,)
        Conversation index of each packet, in ``range(n_conv)``.
    sizes : ndarray of float64, shape (n,)
        Packet sizes (bytes).
    weights : ndarray of float64, shape (n_conv,)
        Slots per round of each conversation (``n_alpha``).
    rate : float
        Line rate (bytes/s).
    delta : float
        The bid offset (bytes of round number).

    Returns
    -------
    S, F, B : ndarray, shape (n,)
        Start and finish numbers and bids (bytes of round number).
    bp_t, bp_R, bp_N : ndarray
        Breakpoints of R(t): at time ``bp_t[k]`` the round number is
        ``bp_R[k]`` and ``N_ac = bp_N[k]`` (weight sum of active conversations)
        until the next breakpoint; R is linear in between (constant when
        ``N_ac = 0``).
    """
    n = len(times)
    n_conv = len(weights)
    S = np.empty(n)
    F = np.empty(n)
    B = np.empty(n)
    f_last = [0.0] * n_conv  # F of the conversation's latest packet (F_0 = 0)
    active = [False] * n_conv
    w = [float(x) for x in weights]
    heap: list[tuple[float, int]] = []  # (F_last, conversation) of active ones, lazily pruned
    R = 0.0
    t_last = float(times[0]) if n else 0.0
    n_ac = 0.0
    n_active = 0  # count of active conversations (guards n_ac rounding to a tiny non-zero)
    bp_t = [t_last]
    bp_R = [0.0]
    bp_N = [0.0]
    ts = times.tolist()
    cs = conv.tolist()
    ps = sizes.tolist()
    for i in range(n):
        t = ts[i]
        # conversations whose last bit is served (R reaches their F_last) before t
        while heap:
            f_min, c = heap[0]
            if not active[c] or f_last[c] != f_min:
                heapq.heappop(heap)
                continue
            t_hit = t_last + (f_min - R) * n_ac / rate
            if t_hit > t:
                break
            heapq.heappop(heap)
            R = f_min
            t_last = t_hit
            active[c] = False
            n_active -= 1
            n_ac = n_ac - w[c] if n_active else 0.0
            bp_t.append(t_last)
            bp_R.append(R)
            bp_N.append(n_ac)
        if n_active:
            R += (t - t_last) * rate / n_ac
        t_last = t
        a = cs[i]
        p = ps[i] / w[a]
        fp = f_last[a]
        s = fp if fp > R else R
        S[i] = s
        F[i] = s + p
        rd = R - delta
        B[i] = p + (fp if fp > rd else rd)
        f_last[a] = s + p
        heapq.heappush(heap, (s + p, a))
        if not active[a]:
            active[a] = True
            n_active += 1
            n_ac += w[a]
        bp_t.append(t)
        bp_R.append(R)
        bp_N.append(n_ac)
    # drain: every remaining conversation finishes in order of its F_last
    while heap:
        f_min, c = heapq.heappop(heap)
        if not active[c] or f_last[c] != f_min:
            continue
        t_last = t_last + (f_min - R) * n_ac / rate
        R = f_min
        active[c] = False
        n_active -= 1
        n_ac = n_ac - w[c] if n_active else 0.0
        bp_t.append(t_last)
        bp_R.append(R)
        bp_N.append(n_ac)
    return S, F, B, np.array(bp_t), np.array(bp_R), np.array(bp_N)


def round_inverse(values, bp_t, bp_R, bp_N, rate):
    """First time at which R(t) reaches each of ``values`` (vectorised).

    ``values`` must lie in ``[bp_R[0], bp_R[-1]]``.
    """
    values = np.asarray(values, dtype=np.float64)
    k = np.searchsorted(bp_R, values, side="left")
    k = np.clip(k, 0, len(bp_R) - 1)
    exact = bp_R[k] == values
    km = np.maximum(k - 1, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        interp = bp_t[km] + (values - bp_R[km]) * bp_N[km] / rate
    return np.where(exact, bp_t[k], interp)


def round_at(t, bp_t, bp_R, bp_N, rate):
    """R(t) for an array of times (vectorised); constant before the first arrival."""
    t = np.asarray(t, dtype=np.float64)
    k = np.searchsorted(bp_t, t, side="right") - 1
    k = np.clip(k, 0, len(bp_t) - 1)
    slope = np.where(bp_N[k] > 0, rate / np.where(bp_N[k] > 0, bp_N[k], 1.0), 0.0)
    r = bp_R[k] + np.maximum(t - bp_t[k], 0.0) * slope
    # never beyond the next breakpoint (guards rounding at breakpoints)
    nxt = np.minimum(k + 1, len(bp_R) - 1)
    return np.minimum(r, np.where(k + 1 < len(bp_R), bp_R[nxt], r))


def active_at(t, bp_t, bp_N):
    """N_ac(t) (weight sum of the active conversations), right-continuous."""
    t = np.asarray(t, dtype=np.float64)
    k = np.searchsorted(bp_t, t, side="right") - 1
    return np.where(k >= 0, bp_N[np.clip(k, 0, len(bp_N) - 1)], 0.0)


def packetised_nonpreemptive(times, sizes, key, rate):
    """Send, whenever the line is free, the waiting packet with the smallest key.

    Ties are broken by arrival order.  Returns ``(start, departure)`` arrays (s).
    """
    n = len(times)
    start = np.empty(n)
    dep = np.empty(n)
    ts = times.tolist()
    ks = key.tolist()
    tx = (sizes / rate).tolist()
    heap: list[tuple[float, int]] = []
    i = 0
    t = -math.inf
    for _ in range(n):
        if not heap:
            if ts[i] > t:
                t = ts[i]
        while i < n and ts[i] <= t:
            heapq.heappush(heap, (ks[i], i))
            i += 1
        _, j = heapq.heappop(heap)
        start[j] = t
        t += tx[j]
        dep[j] = t
    return start, dep


def packetised_preemptive(times, sizes, key, rate):
    """Preemptive-resume service in key order: an arrival with a smaller key preempts.

    Returns ``(first_start, departure)`` arrays (s).
    """
    n = len(times)
    start = np.full(n, np.nan)
    dep = np.empty(n)
    ts = times.tolist()
    ks = key.tolist()
    rem = (sizes / rate).tolist()  # remaining transmission time of each packet
    heap: list[tuple[float, int]] = []
    i = 0
    t = -math.inf
    cur = -1
    done = 0
    while done < n:
        if cur < 0:
            if not heap:
                t = max(t, ts[i])
            while i < n and ts[i] <= t:
                heapq.heappush(heap, (ks[i], i))
                i += 1
            _, cur = heapq.heappop(heap)
            if start[cur] != start[cur]:  # NaN: first time in service
                start[cur] = t
        t_arr = ts[i] if i < n else math.inf
        fin = t + rem[cur]
        if fin <= t_arr:
            dep[cur] = fin
            t = fin
            cur = -1
            done += 1
            continue
        rem[cur] = fin - t_arr
        t = t_arr
        while i < n and ts[i] <= t:
            heapq.heappush(heap, (ks[i], i))
            i += 1
        if heap[0] < (ks[cur], cur):
            heapq.heappush(heap, (ks[cur], cur))
            _, cur = heapq.heappop(heap)
            if start[cur] != start[cur]:
                start[cur] = t
    return start, dep
