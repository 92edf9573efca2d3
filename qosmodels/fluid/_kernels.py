"""The Numba integrator of the fluid models (imported only when a model is solved).

One jitted function, :func:`integrate`, holds the time loop and calls one jitted
function per part of the step (see below).  The kernel runs without Numba's
reference-counting runtime (``_nrt=False``) and allocates nothing: :func:`workspace`
builds its arrays.  It sees only flat arrays built by :mod:`qosmodels.fluid._compile` and
returns a status code; :func:`qosmodels.fluid.solve_fluid` turns codes into
errors.

The scheme, step ``n -> n + 1`` of size ``dt``:

* The network is an exact FIFO fluid: every hop keeps the cumulative bits of
  its flow that arrived (``A``) and departed (``D``); a link's departures are
  ``min(c dt, backlog)`` per step (so a queue is clamped at zero exactly) and
  the bits departing at ``t`` are those that arrived when the link's
  cumulative arrivals equalled its cumulative departures (found by a forward
  search, linear interpolation between grid points).  Bits beyond the buffer
  are dropped in proportion to each flow's arrivals in the step.
* A hop's input is the previous hop's departures delayed by the previous
  link's propagation delay: ``A_{h+1}(t) = D_h(t - d_h)`` (kept non-decreasing
  when a delay changes), read from a ring buffer of history.  A zero-delay link's
  next hops (and, under ``coarse_dt``, those of a link shorter than ``dt``) read
  the departures it computed in the same step (:func:`same_step`): such links are
  processed before their next hops (``link_order``).
* The accumulation of eq (1) is a sum over the path of queues shifted by the
  propagation delays between routers.  It is carried along the path like the
  data: ``S_h(t) = S_{h-1}(t - d_{h-1}) + q_h(t)``, so the accumulation at the
  egress is ``S_H(t - d_H)`` and the sender sees it a reverse-path delay
  later; the forward queueing delay (the sojourns ``W``) is carried the same
  way.  Each hop's line then only needs its own link's delay of history, and
  a flow's measurement is one lookup instead of one per hop.
* Windows and EWMA filters are ODEs in time, with delayed inputs read from the
  history; windows use Heun's method (predictor-corrector), the source's
  cumulative sent bits the trapezoidal rule.  Every lookup's lag is split once
  into whole steps and a fraction (again when an event changes a delay).
* RED links (for the Reno control law) keep an exponentially averaged queue
  and a marking probability, also kept in the history.  PI and PIE links (Reno
  only; ``aqm``) update their probability at their sampling instants ``k T``
  from the queue (PI: ``p += a (q - q_ref) - b (q_old - q_ref)``, clamped to
  [0, 1]) or its delay ``q / c`` (PIE: RFC 8033's ``calculate_drop_prob``,
  :func:`qosmodels.fluid._mgt_kernel.pie_update`), held between them.

Histories are rings, each a power of two just longer than the lags read from it,
laid out so that one step's writes, and as far as possible its reads, are contiguous
(issue 37: at 10^4 flows a layout with one column per flow, a column's steps contiguous,
cost one scattered cache line per flow, history and step):

* per hop, ``hist_s`` (``(ring_s, hops, 3)``, time-major) holds lines of ``(D, S, W)`` as
  long as the longest link delay, hops in link order (grouped by link, ``link_hop_ptr``):
  a step writes one row in order, and since every hop of a link is read by the next hops
  at the same lag, that link's delay, :func:`transfer` reads them as one slice of two rows;
* per flow, ``hist_e`` (the accumulation and forward queueing delay at the egress),
  ``hist_x`` (Reno's rate) and ``hist_loss`` are time-major ``(ring, flows)``, their
  columns in the order of the flows' lags (``e_order`` and ``x_order``, sorted by
  :mod:`qosmodels.fluid._compile`): a step writes one row, in order (:func:`egress`,
  :func:`flow_rows`: a scattered write fetches a cache line first, and cost more than the
  scattered reads that replaced them; issue 37, session 47), and :func:`gather` reads the
  flows of one lag as one slice;
* per link (``hist_p``, ``hist_w``, ``hist_v``) and Monaco's ``hist_r``: a row per column
  (small, they stay in cache); per link, the arrivals as one block of rows
  ``(cumulative accepted bits, then each hop's)`` as long as the link's longest sojourn
  (a full buffer).

Indices the compiler knows to be non-negative (``& POS``) need no negative-index
wraparound code; the per-hop and per-flow indices and lags, read every step, are int32
(half the bytes streamed; widened to int64 before ``& POS``).  Each link's slice of an old
row of ``hist_s`` or ``hist_a`` is too short for the hardware prefetcher (about 12 cache
lines, a different row per link): :func:`transfer` and :func:`queues` prefetch the rows of
the link ``AHEAD`` places on (:mod:`qosmodels.fluid._prefetch`; hints only, no value
changes).  The marking probabilities a flow's marks were made with (one per RED hop, each at
its own lag) are read link by link by :func:`marks_seen`, within each link's row of
``hist_p``, into a per-hop array that :func:`measure` reads in route order (read flow by
flow they were scattered over the whole of ``hist_p``; issue 37, session 47: Reno/RED at
10^4 flows about 0.9x the CPU time).  :func:`measure` adds a flow's per-hop terms over
lists of only the hops that carry one (:func:`term_lists`), and reads the losses seen
in flow order itself, mostly the current value (issue 37, session 52).

The step is split into jitted functions, one concept each, called once per step
(:func:`transfer` once per link; a call per step, not per flow, costs nothing measurable):
:func:`set_lags` (when a delay changes), :func:`gather` and :func:`measure` (the delayed
measurements; :func:`marks_seen` for RED), :func:`predict`, the network (:func:`transfer`,
:func:`queues`, :func:`egress`, :func:`mark`, :func:`avq`), :func:`correct`, :func:`flow_rows` and
:func:`save`; the per-flow and per-link formulas shared by two of them are inlined helpers.
Each part covers a span of the flows (or columns), links or ``link_order`` positions given
by its first two arguments: :func:`integrate` passes all of them, the threaded loop of
:mod:`qosmodels.fluid._threads` one span per thread (``solve_fluid(threads=...)``).
Their arithmetic, and its order, is that of the single loop they replaced: the outputs are
bit-identical to it (checked on 35 scenarios when the split was made).

Status codes: see ``STATUS_*`` below.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._mgt_kernel import pie_update
from ._prefetch import prefetch_range

#: How many links ahead :func:`transfer` and :func:`queues` prefetch a link's history rows
#: (:mod:`qosmodels.fluid._prefetch`; 2-4 measured alike, 1 and 8 slower, issue 37).
AHEAD = 3

#: The largest int64: ``x & (m & POS)`` is known to the compiler to be >= 0.
POS = 0x7FFFFFFFFFFFFFFF

STATUS_OK = 0
STATUS_NONFINITE = 1  # a window, rate or queue became NaN or infinite
STATUS_HISTORY = 2  # a lookup needed older history than the ring buffer holds

CTRL_P, CTRL_AIAD, CTRL_MW, CTRL_RENO = 0, 1, 2, 3
EST_IDEAL, EST_VEGAS, EST_VEGAS_K, EST_MONACO = 0, 1, 2, 3
AQM_RED, AQM_PI, AQM_PIE = 0, 1, 2  # as in _compile

_JIT = dict(cache=True, error_model="numpy", _nrt=False)


# ------------------------------------------------------------------ history lookups
@njit(inline="always", **_JIT)
def at(h, col, base, fr, nmax, m):
    # column-major history h (shape (columns, ring), ring = m + 1) of column col at step
    # position base + fr, clamped to nmax; zero before t = 0 (inlined at each call)
    m = m & POS
    if fr > 0.0:
        if base + 1 > nmax:
            return h[col, nmax & m]
        if base < 0:
            return 0.0
        a = h[col, base & m]
        return a + fr * (h[col, (base + 1) & m] - a)
    if base > nmax:
        base = nmax
    if base < 0:
        return 0.0
    return h[col, base & m]


@njit(inline="always", **_JIT)
def at_t(h, col, base, fr, nmax, m):
    # as at(), for a time-major history (shape (ring, columns))
    m = m & POS
    if fr > 0.0:
        if base + 1 > nmax:
            return h[nmax & m, col]
        if base < 0:
            return 0.0
        a = h[base & m, col]
        return a + fr * (h[(base + 1) & m, col] - a)
    if base > nmax:
        base = nmax
    if base < 0:
        return 0.0
    return h[base & m, col]


@njit(inline="always", **_JIT)
def pair_t(h, col, base, fr, nmax, m):
    # as at_t(), for a time-major history of tuples (shape (ring, columns, k), k >= 2): the
    # first two components, both interpolated
    m = m & POS
    if fr > 0.0:
        if base + 1 > nmax:
            return h[nmax & m, col, 0], h[nmax & m, col, 1]
        if base < 0:
            return 0.0, 0.0
        b0 = base & m
        b1 = (base + 1) & m
        a0 = h[b0, col, 0]
        a1 = h[b0, col, 1]
        return a0 + fr * (h[b1, col, 0] - a0), a1 + fr * (h[b1, col, 1] - a1)
    if base > nmax:
        base = nmax
    if base < 0:
        return 0.0, 0.0
    return h[base & m, col, 0], h[base & m, col, 1]


# ------------------------------------------------------------------ lags
@njit(inline="always", **_JIT)
def split(lag, inv_dt):
    # a lag as (whole steps k, fraction fr): the value lag seconds before step n1
    # is hist[n1 - k] + fr * (hist[n1 - k + 1] - hist[n1 - k])
    m = lag * inv_dt
    k = int(math.ceil(m - 1e-9))
    fr = k - m
    if fr < 0.0:
        fr = 0.0
    return k, fr


@njit(inline="always", **_JIT)
def rev_delay(h, delay, hop_link, hop_rev):
    # the delay of hop h's reverse path: its declared reverse link, else its own link's
    r = hop_rev[h]
    if r >= 0:
        return delay[r]
    return delay[hop_link[h]]


@njit(**_JIT)
def set_lags(inv_dt, delay, hop_link, hop_rev, route_ptr, rttp, ack_k, ack_f, rev_k, rev_f,
             lk_k, lk_f, drev_k, drev_f, rttp_k, rttp_f, eg_k, eg_f, e_order, x_order, ek, ef,
             xk, xf, j_hop, pj_k, pj_f):
    """The constant lags of every lookup from the links' current ``delay`` (recomputed when
    an event changes a delay): per hop, to the sender's ACK (``ack``) and from its reverse
    link (``rev``); per link, from its departures to the next hops (``lk``); per flow, the
    reverse path (``drev``), the propagation round trip (``rttp``) and the last link
    (``eg``); and copies in the column orders of the per-flow histories, read by
    :func:`gather` in sequence: the egress accumulation's (``ek``, ``ef``: the last hop's
    ``ack``) in ``e_order``, the round trip's (``xk``, ``xf``) in ``x_order``; and the hops'
    ``ack`` in the order :func:`marks_seen` reads them (``pj_k``, ``pj_f``; ``j_hop``: the
    hop at each position, grouped by link as ``link_hop_ptr``, by lag within a link)."""
    n_flows = route_ptr.shape[0] - 1
    for l in range(delay.shape[0]):
        lk_k[l], lk_f[l] = split(delay[l], inv_dt)
    for i in range(n_flows):
        h0 = route_ptr[i]
        h1 = route_ptr[i + 1]
        drev = 0.0
        dfwd = 0.0
        for h in range(h0, h1):
            drev += rev_delay(h, delay, hop_link, hop_rev)
            dfwd += delay[hop_link[h]]
        rttp[i] = dfwd + drev
        sf = 0.0
        for h in range(h1 - 1, h0 - 1, -1):
            sf += delay[hop_link[h]]
            ack_k[h], ack_f[h] = split(sf + drev, inv_dt)
        sr = 0.0
        for h in range(h0, h1):
            sr += rev_delay(h, delay, hop_link, hop_rev)
            rev_k[h], rev_f[h] = split(sr, inv_dt)
        drev_k[i], drev_f[i] = split(drev, inv_dt)
        rttp_k[i], rttp_f[i] = split(rttp[i], inv_dt)
        eg_k[i], eg_f[i] = split(delay[hop_link[h1 - 1]], inv_dt)
    for r in range(n_flows):
        hl = route_ptr[e_order[r] + 1] - 1  # the flow's last hop (in route order)
        ek[r] = ack_k[hl]
        ef[r] = ack_f[hl]
        xk[r] = rttp_k[x_order[r]]
        xf[r] = rttp_f[x_order[r]]
    for j in range(j_hop.shape[0]):
        pj_k[j] = ack_k[j_hop[j]]
        pj_f[j] = ack_f[j_hop[j]]


# ------------------------------------------------------------------ the sources
@njit(inline="always", **_JIT)
def rhs(i, wi, active, control, estimator, pkt_bits, rtt, rttp, est_m, est_tq, est_a, target,
        kappa):
    # the control law's dw/dt for flow i at window wi, given est_* and rtt
    if not active[i]:
        return 0.0
    if control == CTRL_RENO:
        # Misra-Gong-Towsley: one packet per RTT up, half a window down per mark
        return pkt_bits[i] / rtt[i] - 0.5 * wi * est_m[i]
    if estimator == EST_VEGAS or estimator == EST_VEGAS_K:
        a = wi / rtt[i] * est_tq[i]
    else:
        a = est_a[i]
    e = a - target[i]
    if control == CTRL_P:
        return -kappa / rtt[i] * e
    if control == CTRL_AIAD:
        if e > 0.0:
            return -kappa * pkt_bits[i] / rtt[i]
        if e < 0.0:
            return kappa * pkt_bits[i] / rtt[i]
        return 0.0
    # CTRL_MW
    return -kappa / rtt[i] * (rttp[i] / rtt[i]) * pkt_bits[i] * e / wi


@njit(inline="always", **_JIT)
def rate(i, wi, active, rtt, max_rate):
    if not active[i]:
        return 0.0
    r = wi / rtt[i]
    if r > max_rate[i]:
        r = max_rate[i]
    return r


@njit(**_JIT)
def gather(fa, fb, n1, nmax, mask, control, e_order, x_order, ek, ef, xk, xf, hist_e, hist_x,
           g):
    """The per-flow delayed reads at time n1 dt from the history up to step nmax, each in
    the order of its history's columns (flows sorted by that lag, so that the flows reading
    the same step read one contiguous slice of it): the accumulation and forward queueing
    delay reaching the egress a reverse-path delay ago (``g[:, 0]``, ``g[:, 1]``) and the
    rate a propagation round trip ago (``g[:, 2]``, Reno).  (The losses seen, mostly the
    current value, are read by :func:`measure` in flow order.)  Columns ``fa`` to ``fb - 1``
    (all: ``0, F``; one thread's span: :mod:`._threads`)."""
    for r in range(fa, fb):
        i = e_order[r]
        g[i, 0], g[i, 1] = pair_t(hist_e, r, n1 - ek[r], ef[r], nmax, mask)
    if control == CTRL_RENO:
        for r in range(fa, fb):
            g[x_order[r], 2] = at_t(hist_x, r, n1 - xk[r], xf[r], nmax, mask)


@njit(**_JIT)
def marks_seen(la, lb, n1, nmax, mask, link_hop_ptr, red, j_hop, pj_k, pj_f, hist_p, p_hop):
    """The marking probability of every hop of a marking link when the marks reaching its
    flow's sender at time n1 dt were made, its ``ack`` lag earlier (``p_hop``, in route
    order), from the history up to step nmax: read link by link, so that one link's hops,
    each at its own lag (sorted), walk that link's row of ``hist_p`` (read flow by flow, in
    :func:`measure`, they were scattered reads over the whole history).  Links ``la`` to
    ``lb - 1`` (all: ``0, L``; one thread's span: :mod:`._threads`)."""
    for l in range(la, lb):
        if not red[l]:
            continue
        for j in range(link_hop_ptr[l], link_hop_ptr[l + 1]):
            p_hop[np.int64(j_hop[j]) & POS] = at(hist_p, l, n1 - pj_k[j], pj_f[j], nmax, mask)


@njit(**_JIT)
def term_lists(route_ptr, hop_link, hop_rev, red, avd, term_ptr, term_hop):
    """The hops of every flow that add a term to :func:`measure`'s sums, as three lists per
    flow, each in route order: flow i's marking hops (a RED, PI or PIE link: ``red``) are
    ``term_hop[term_ptr[3 i]:term_ptr[3 i + 1]]``, its AVD hops the next slice, its hops with
    a declared reverse link the one after (``term_ptr``: ``3 F + 1`` entries, ``term_hop``
    at least the hops' count times three).  Each sum, over its own list, adds the same terms
    in the same order as one pass over all the flow's hops testing each hop's link (the
    scheme it replaced, issue 37, session 52), without reading the hops that add nothing:
    at 10^4 flows with 144 reverse hops of 30 034, most flows' lists are empty."""
    n_flows = route_ptr.shape[0] - 1
    k = 0
    term_ptr[0] = 0
    for i in range(n_flows):
        for kind in range(3):
            for h in range(route_ptr[i], route_ptr[i + 1]):
                l = hop_link[h]
                if ((kind == 0 and red[l]) or (kind == 1 and avd[l])
                        or (kind == 2 and hop_rev[h] >= 0)):
                    term_hop[k] = h
                    k += 1
            term_ptr[3 * i + kind + 1] = k


@njit(**_JIT)
def measure(
    fa, fb, t1, n1, nmax, mask, term_ptr, term_hop, hop_link, hop_rev, ack_k, ack_f,
    rev_k, rev_f, drev_k, drev_f, p_hop, hist_v, hist_w, hist_r, g, rttp,
    start, stop, pkt_bits, control, estimator, kk, rtt_p_error, x, rtt, active, est_p, est_m,
    est_a, est_tq, min_rtt, ep_start, ep_min, ep_hist, ep_count, loss_acted, last_halve, halve,
    rttp_k, rttp_f, x_col, loss, loss_step, hist_loss,
):
    """Every flow's rtt, accumulation estimate and loss signal at time t1 = n1 dt, from the
    history up to step nmax and the reads of :func:`gather` and :func:`marks_seen`; flows
    ``fa`` to ``fb - 1`` (all: ``0, F``; one thread's span: :mod:`._threads`).  The per-hop
    terms run over the flow's lists of :func:`term_lists` (``term_ptr``, ``term_hop``); the
    losses seen are the flow's ``loss`` unless it lost bits within its propagation round
    trip (``rttp_k``, ``rttp_f``), else read from its column ``x_col[i]`` of ``hist_loss``."""
    for i in range(fa, fb):
        # the accumulation (eq (1)) and the forward queueing delay reaching the
        # egress, a reverse-path delay ago
        acc = g[i, 0]
        qf = g[i, 1]
        # the per-hop terms, each over its own list of the flow's hops in route order
        # (term_lists): marking hops, AVD hops, hops with a reverse link
        t0 = term_ptr[3 * i] & POS
        pnot = 1.0
        for k in range(t0, term_ptr[3 * i + 1]):
            pnot *= 1.0 - p_hop[np.int64(term_hop[k]) & POS]
        virt = 0.0
        for k in range(term_ptr[3 * i + 1], term_ptr[3 * i + 2]):
            h = np.int64(term_hop[k]) & POS
            virt += at(hist_v, hop_link[h], n1 - ack_k[h], ack_f[h], nmax, mask)
        qb = 0.0
        for k in range(term_ptr[3 * i + 2], term_ptr[3 * i + 3]):
            h = np.int64(term_hop[k]) & POS
            qb += at(hist_w, hop_rev[h], n1 - rev_k[h], rev_f[h], nmax, mask)
        rtt[i] = rttp[i] + qf + qb
        was = active[i]
        active[i] = start[i] <= t1 < stop[i]
        if control == CTRL_RENO:
            # marks reaching the sender now: packets sent a round trip ago, times the
            # probability that one of the path's RED links marked them
            est_p[i] = 1.0 - pnot
            est_m[i] = g[i, 2] / pkt_bits[i] * est_p[i]
        if estimator == EST_IDEAL:
            est_a[i] = acc + x[i] * virt
        elif estimator == EST_MONACO:
            est_a[i] = (qf + virt) * at(hist_r, i, n1 - drev_k[i], drev_f[i], nmax, mask)
        elif active[i]:
            if not was:
                ep_start[i] = t1
            s = rtt[i]
            if s < min_rtt[i]:
                min_rtt[i] = s
            if estimator == EST_VEGAS:
                base = min_rtt[i]
            else:
                if t1 - ep_start[i] >= rtt[i]:
                    ep_hist[i, ep_count[i] % kk] = ep_min[i]
                    ep_count[i] += 1
                    ep_min[i] = np.inf
                    ep_start[i] = t1
                if s < ep_min[i]:
                    ep_min[i] = s
                base = ep_min[i]
                for j in range(min(ep_count[i], kk - 1)):
                    v = ep_hist[i, (ep_count[i] - 1 - j) % kk]
                    if v < base:
                        base = v
            est_tq[i] = rtt[i] - (base + rtt_p_error)
        # the losses, seen one propagation round trip after they happened
        b = n1 - rttp_k[i]
        if b >= loss_step[i]:
            seen = loss[i]  # no loss since: the history from b on is the current value
        else:
            seen = at_t(hist_loss, np.int64(x_col[i]) & POS, b, rttp_f[i], nmax, mask)
        if seen > loss_acted[i] + 1e-9 and t1 - last_halve[i] >= rtt[i]:
            halve[i] = True
            loss_acted[i] = seen
            last_halve[i] = t1


@njit(**_JIT)
def predict(fa, fb, dt, w, f, w_min, w_pred, x, sent, active, rtt, max_rate):
    """Heun's predictor of every window, the rates at it and the sources' cumulative sent
    bits (trapezoidal rule); flows ``fa`` to ``fb - 1``."""
    for i in range(fa, fb):
        wp = w[i] + dt * f[i]
        if wp < w_min[i]:
            wp = w_min[i]
        w_pred[i] = wp
        xp = x[i]
        x[i] = rate(i, wp, active, rtt, max_rate)
        sent[i] += 0.5 * dt * (xp + x[i])


@njit(**_JIT)
def correct(fa, fb, n, n1, s1, dt, inv_dt, smask, control, estimator, kappa, w, w_pred, f, x, halve,
            w_min, active, pkt_bits, rtt, rttp, est_m, est_tq, est_a, target, max_rate, last_j,
            eg_k, eg_f, tau, rbar, hist_r, hist_s):
    """Heun's corrector, the loss response (halving), the rates and slopes at the new
    windows and Monaco's EWMA filter (at n = -1, t = 0: rates and slopes only); the
    time-major per-flow histories of step n1 follow (:func:`flow_rows`).  Flows ``fa`` to
    ``fb - 1``."""
    for i in range(fa, fb):
        if n >= 0:
            wn = w[i] + 0.5 * dt * (f[i] + rhs(i, w_pred[i], active, control, estimator,
                                               pkt_bits, rtt, rttp, est_m, est_tq, est_a,
                                               target, kappa))
            if halve[i]:
                wn *= 0.5
                halve[i] = False
            if wn < w_min[i]:
                wn = w_min[i]
            w[i] = wn
        x[i] = rate(i, w[i], active, rtt, max_rate)
        f[i] = rhs(i, w[i], active, control, estimator, pkt_bits, rtt, rttp, est_m, est_tq,
                   est_a, target, kappa)
        if n < 0:
            continue
        hl = np.int64(last_j[i]) & POS  # the flow's last hop, in link order
        if estimator == EST_MONACO:
            b = n1 - eg_k[i]
            r_in = (pair_t(hist_s, hl, b, eg_f[i], n1, smask)[0]
                    - pair_t(hist_s, hl, b - 1, eg_f[i], n1, smask)[0]) * inv_dt
            rbar[i] += (1.0 - math.exp(-dt / tau[i])) * (r_in - rbar[i])
            hist_r[i, s1] = rbar[i]


@njit(**_JIT)
def flow_rows(fa, fb, s1, control, x_order, x, loss, loss_step, hist_x, hist_loss):
    """Row ``s1`` of the time-major per-flow histories ``hist_loss`` (cumulative lost bits)
    and, for Reno, ``hist_x`` (rates), in the order of their columns (``x_order``): one
    sequential row each (written flow by flow, they were scattered writes); columns ``fa``
    to ``fb - 1``."""
    for r in range(fa, fb):
        i = x_order[r]
        if loss_step[i] > 0:  # (before a flow's first loss its history is all zero)
            hist_loss[s1, r] = loss[i]
        if control == CTRL_RENO:
            hist_x[s1, r] = x[i]


# ------------------------------------------------------------------ the network
@njit(inline="always", **_JIT)
def same_step(l, lk_k, lk_f):
    # link l's next hops read the lines it writes this step (a zero delay, or under
    # coarse_dt a delay shorter than one step: lag k = 1 with a fraction): its transfer
    # follows its queue, and link_order processes those next hops after it
    k = lk_k[l]
    return k == 0 or (k == 1 and lk_f[l] > 0.0)


@njit(**_JIT)
def transfer(l, n1, smask, link_hop_ptr, j_next, lk_k, lk_f, hist_s, h_in):
    """The lines of link l's hops, read a link delay ago, into the inputs of the hops that
    follow them (``h_in``: the next hop's cumulative input, partial accumulation and
    queueing delay): one contiguous slice of two time-major rows."""
    b = n1 - lk_k[l]
    fr = lk_f[l]
    b0 = b & smask
    b1 = (b + 1) & smask
    for jp in range(link_hop_ptr[l], link_hop_ptr[l + 1]):
        j = j_next[jp]
        if j < 0:
            continue
        a = hist_s[b0, jp, 0]
        h_in[j, 0] = a + fr * (hist_s[b1, jp, 0] - a)
        a = hist_s[b0, jp, 1]
        h_in[j, 1] = a + fr * (hist_s[b1, jp, 1] - a)
        a = hist_s[b0, jp, 2]
        h_in[j, 2] = a + fr * (hist_s[b1, jp, 2] - a)


@njit(**_JIT)
def transfers(la, lb, n1, smask, link_hop_ptr, j_next, lk_k, lk_f, hist_s, h_in):
    """:func:`transfer` of links ``la`` to ``lb - 1`` (all: ``0, L``) but those whose next
    hops read this step's lines (:func:`same_step`: :func:`queues` transfers them), each
    prefetching the rows of the link ``AHEAD`` places on."""
    for l in range(la, lb):
        if l + AHEAD < lb:
            lines_ahead(l + AHEAD, n1, smask, link_hop_ptr, lk_k, hist_s)
        if not same_step(l, lk_k, lk_f):
            transfer(l, n1, smask, link_hop_ptr, j_next, lk_k, lk_f, hist_s, h_in)


@njit(inline="always", **_JIT)
def lines_ahead(l, n1, smask, link_hop_ptr, lk_k, hist_s):
    # prefetch the two rows of link l's lines that transfer(l) will read
    b = n1 - lk_k[l]
    n_hops = hist_s.shape[1]
    p0 = link_hop_ptr[l]
    p1 = link_hop_ptr[l + 1]
    for r in (b & smask, (b + 1) & smask):
        prefetch_range(hist_s, (r * n_hops + p0) * 3, (r * n_hops + p1) * 3)


@njit(inline="always", **_JIT)
def queue_ahead(l, n, smask, link_hop_ptr, a_off, a_mask, ptr, hist_a, hist_s):
    # prefetch what queues() will touch first at link l: its arrival rows of steps n and
    # n + 1, those around its last departure position, and its lines' row of step n + 1
    p0 = link_hop_ptr[l]
    p1 = link_hop_ptr[l + 1]
    wl = p1 - p0 + 1
    am = a_mask[l]
    for k in (n, n + 1, ptr[l], ptr[l] + 1):
        r = a_off[l] + (k & am) * wl
        prefetch_range(hist_a, r, r + wl)
    r = ((n + 1) & smask) * hist_s.shape[1]
    prefetch_range(hist_s, (r + p0) * 3, (r + p1) * 3)


@njit(inline="always", **_JIT)
def depart(l, n1, departed, ptr, hist_a, a_off, am, wl):
    # the step position (k, fr) at which link l's cumulative arrivals equalled its
    # cumulative departures: a forward search from the last one, linear between steps
    k = ptr[l]
    tgt = departed[l]
    while k < n1 and hist_a[(a_off[l] + ((k + 1) & am) * wl) & POS] < tgt:
        k += 1
    if k >= n1:
        return n1, 0.0
    a0 = hist_a[(a_off[l] + (k & am) * wl) & POS]
    a1 = hist_a[(a_off[l] + ((k + 1) & am) * wl) & POS]
    fr = (tgt - a0) / (a1 - a0) if a1 > a0 else 0.0
    if fr < 0.0:
        fr = 0.0
    return k, fr


@njit(**_JIT)
def queues(oa, ob, n, s1, dt, smask, cap, buf, link_order, link_hop_ptr, a_off, a_mask, j_prev,
           j_flow, j_next, lk_k, lk_f, sent, h_in, offered, inc, lam_l, queue, departed, ptr,
           hist_a, hist_s, hist_w, loss, loss_step, defer, hop_lost, dropped):
    """The FIFO queues of the links at positions ``oa`` to ``ob - 1`` of ``link_order``
    (zero-delay dependencies first; all: ``0, L``) from step n to n1 = n + 1; returns
    ``(status, link)``.

    A hop's input is its flow's sent bits (first hops) or the previous hop's departures read
    a link delay ago by :func:`transfer` (before this loop; for a zero-delay link, right
    after it).  Bits beyond the buffer are dropped in proportion to each hop's arrivals;
    departures are the arrivals at the departing bits' arrival time (:func:`depart`), and the
    hop's line holds ``(D, S, W)``: ``S_h(t) = S_{h-1}(t - d_{h-1}) + (A_h - D_h)(t)``.

    A flow's lost bits are added to ``loss`` link by link in this order; with ``defer``
    (threads: two links of a flow may be in different threads' spans) they are kept per hop
    in ``hop_lost``, the link flagged in ``dropped``, and :func:`add_losses` adds them
    afterwards in the same order.
    """
    n1 = n + 1
    t1 = n1 * dt
    c1 = n1 & smask
    for o in range(oa, ob):
        if o + AHEAD < ob:
            queue_ahead(link_order[o + AHEAD], n, smask, link_hop_ptr, a_off, a_mask, ptr,
                        hist_a, hist_s)
        # (indices and-ed with POS: known >= 0, no wraparound code; they are >= 0)
        l = link_order[o] & POS
        p0 = link_hop_ptr[l] & POS
        p1 = link_hop_ptr[l + 1]
        # the link's arrival history: rows of (cumulative accepted bits, then its hops')
        wl = p1 - p0 + 1
        am = a_mask[l] & POS
        r0 = (a_off[l] + (n & am) * wl) & POS
        r1 = (a_off[l] + (n1 & am) * wl) & POS
        lam = 0.0
        for j in range(p0, p1):
            if j_prev[j] < 0:
                v = sent[np.int64(j_flow[j]) & POS]
            else:
                v = h_in[j, 0]
            if v < offered[j]:
                v = offered[j]
            inc[j - p0] = v - offered[j]  # (inc: a scratch of the link's hops)
            offered[j] = v
            lam += inc[j - p0]
        backlog = queue[l] + lam
        served = cap[l] * dt
        if served > backlog:
            served = backlog
        qn = backlog - served
        drop = qn - buf[l]
        keep = 1.0
        if drop > 0.0:
            qn = buf[l]
            keep = 1.0 - drop / lam
        else:
            drop = 0.0
        al = hist_a[r0] + lam - drop
        hist_a[r1] = al
        for j in range(p0, p1):
            acc_in = inc[j - p0] * keep
            hist_a[(r1 + 1 + j - p0) & POS] = hist_a[(r0 + 1 + j - p0) & POS] + acc_in
            if acc_in < inc[j - p0]:
                if defer:
                    hop_lost[j] = inc[j - p0] - acc_in
                    dropped[l] = True
                else:
                    fh = np.int64(j_flow[j]) & POS
                    loss[fh] += inc[j - p0] - acc_in
                    loss_step[fh] = n1
        departed[l] += served
        if qn <= 1e-9 * cap[l] * dt:
            qn = 0.0
            departed[l] = al
            k = n1
            fr = 0.0
        else:
            k, fr = depart(l, n1, departed, ptr, hist_a, a_off, am, wl)
            if k <= n1 - am + 1:
                return STATUS_HISTORY, l
        ptr[l] = k
        queue[l] = qn
        lam_l[l] = lam
        # departures D = A at the departing bits' arrival time; the partial
        # accumulation S_h(t) = S_{h-1}(t - d_{h-1}) + q_h(t)
        soj = t1 - (k + fr) * dt  # the sojourn of the bits departing at t1
        hist_w[l, s1] = soj
        ka = a_off[l] + (k & am) * wl + 1 - p0
        kb = a_off[l] + ((k + 1) & am) * wl + 1 - p0
        for j in range(p0, p1):
            if fr > 0.0:
                a = hist_a[(ka + j) & POS]
                dd = a + fr * (hist_a[(kb + j) & POS] - a)
            else:
                dd = hist_a[(ka + j) & POS]
            sj = hist_a[(r1 + 1 + j - p0) & POS] - dd + h_in[j, 1]
            wj = soj + h_in[j, 2]
            hist_s[c1, j, 0] = dd
            hist_s[c1, j, 1] = sj
            hist_s[c1, j, 2] = wj
        if same_step(l, lk_k, lk_f):  # (a zero-delay link): next hops read this step's lines
            transfer(l, n1, smask, link_hop_ptr, j_next, lk_k, lk_f, hist_s, h_in)
    return STATUS_OK, -1


@njit(**_JIT)
def add_losses(n1, link_order, link_hop_ptr, j_flow, hop_lost, dropped, loss, loss_step):
    """The lost bits :func:`queues` kept per hop (``defer``) added to their flows' ``loss``
    in its order (links in ``link_order``, their hops in order): the same sums, bit for bit,
    as when added within :func:`queues`; the kept values and flags are cleared."""
    for o in range(link_order.shape[0]):
        l = link_order[o] & POS
        if not dropped[l]:
            continue
        dropped[l] = False
        for j in range(link_hop_ptr[l], link_hop_ptr[l + 1]):
            d = hop_lost[j]
            if d > 0.0:  # (kept only where acc_in < inc: then inc - acc_in > 0)
                fh = np.int64(j_flow[j]) & POS
                loss[fh] += d
                loss_step[fh] = n1
                hop_lost[j] = 0.0


@njit(**_JIT)
def egress(fa, fb, n1, s1, smask, e_order, last_j, hist_s, hist_e):
    """The egress accumulation and forward queueing delay of every flow at step n1 (the
    ``(S, W)`` of its last hop's line, written by :func:`queues`) into row ``s1`` of
    ``hist_e``, in the order of its columns: one sequential row (written from
    :func:`queues`, hop by hop, they were scattered writes, each a cache line to fetch).
    Columns ``fa`` to ``fb - 1``."""
    c1 = n1 & smask
    for r in range(fa, fb):
        j = np.int64(last_j[e_order[r]]) & POS
        hist_e[s1, r, 0] = hist_s[c1, j, 1]
        hist_e[s1, r, 1] = hist_s[c1, j, 2]


@njit(**_JIT)
def mark(la, lb, t1, s1, dt, red, aqm, aqm_prm, aqm_s, cap, queue, avgq, red_rate, red_min, red_max,
         red_maxp, red_top, pmark, hist_p):
    """The marking probability of every marking link after its queue of step s1: RED's
    averaged ramp (gentle up to 1 at ``red_top``), or PI / PIE updated at their sampling
    instants ``k T`` (``aqm_s``: p, the queue at the last sample, bits, and k) and held
    between them.  Links ``la`` to ``lb - 1``."""
    for l in range(la, lb):
        if not red[l]:
            continue
        qn = queue[l]
        if aqm[l] == AQM_RED:
            avgq[l] += (1.0 - math.exp(-red_rate[l] * dt)) * (qn - avgq[l])
            a = avgq[l]
            if a < red_min[l]:
                pm = 0.0
            elif a < red_max[l]:
                pm = red_maxp[l] * (a - red_min[l]) / (red_max[l] - red_min[l])
            elif a < red_top[l]:  # gentle RED: up to 1 at 2 max_th
                pm = red_maxp[l] + (1.0 - red_maxp[l]) * (a - red_max[l]) / red_max[l]
            else:
                pm = 1.0
        else:
            pm = aqm_s[l, 0]
            while t1 >= aqm_s[l, 2] * aqm_prm[l, 2] - 1e-12 * dt:
                qo = aqm_s[l, 1]
                if aqm[l] == AQM_PI:
                    pm = (pm + aqm_prm[l, 0] * (qn - aqm_prm[l, 3])
                          - aqm_prm[l, 1] * (qo - aqm_prm[l, 3]))
                    pm = min(max(pm, 0.0), 1.0)
                else:
                    pm = pie_update(pm, qn / cap[l], qo / cap[l], aqm_prm[l, 0],
                                    aqm_prm[l, 1], aqm_prm[l, 3])
                aqm_s[l, 1] = qn
                aqm_s[l, 2] += 1.0
            aqm_s[l, 0] = pm
        pmark[l] = pm
        hist_p[l, s1] = pm


@njit(**_JIT)
def avq(la, lb, s1, dt, avd, avd_gamma, avd_alpha, cap, buf, lam_l, vq, vcap, vdelay, hist_v):
    """AVD's adaptive virtual queue at every AVD link, from the step's arrivals ``lam_l``
    (Kunniyur and Srikant: ``d c_virtual / dt = alpha (gamma c - arrival rate)``); links
    ``la`` to ``lb - 1``."""
    for l in range(la, lb):
        if not avd[l]:
            continue
        lam = lam_l[l]
        q = vq[l] + lam - vcap[l] * dt
        if q < 0.0:
            q = 0.0
        if q > buf[l]:
            q = buf[l]
        vq[l] = q
        c = vcap[l] + avd_alpha * (avd_gamma * cap[l] * dt - lam)
        if c < 0.0:
            c = 0.0
        if c > cap[l]:
            c = cap[l]
        vcap[l] = c
        vdelay[l] = q / c if c > 0.0 else buf[l] / cap[l]
        hist_v[l, s1] = vdelay[l]


# ------------------------------------------------------------------ saving
@njit(**_JIT)
def save(
    row, t1, nrow, smask, control, estimator, last_j, eg_k, eg_f, hist_s, w, x, rtt, est_p, est_tq,
    est_a, active, loss, queue, vdelay, pmark, departed, out_t, out_w, out_x, out_rtt, out_est,
    out_acc, out_q, out_vq, out_mark, out_dep, out_deliv, out_lost,
):
    """Write the state at step nrow (time t1) to row ``row`` of the outputs; return the
    index of the first non-finite window or rate (flows) or queue (``F + link``), or -1."""
    n_flows = w.shape[0]
    n_links = queue.shape[0]
    out_t[row] = t1
    for i in range(n_flows):
        out_w[row, i] = w[i]
        out_x[row, i] = x[i]
        out_rtt[row, i] = rtt[i]
        if control == CTRL_RENO:
            out_est[row, i] = est_p[i]
        elif estimator == EST_VEGAS or estimator == EST_VEGAS_K:
            out_est[row, i] = w[i] / rtt[i] * est_tq[i] if active[i] else 0.0
        else:
            out_est[row, i] = est_a[i]
        hl = np.int64(last_j[i]) & POS
        d, a = pair_t(hist_s, hl, nrow - eg_k[i], eg_f[i], nrow, smask)
        out_deliv[row, i] = d
        out_acc[row, i] = a
        out_lost[row, i] = loss[i]
    for l in range(n_links):
        out_q[row, l] = queue[l]
        out_vq[row, l] = vdelay[l]
        out_mark[row, l] = pmark[l]
        out_dep[row, l] = departed[l]
    for i in range(n_flows):
        if not (math.isfinite(w[i]) and math.isfinite(x[i])):
            return i
    for l in range(n_links):
        if not math.isfinite(queue[l]):
            return n_flows + l
    return -1


# ------------------------------------------------------------------ the time loop
# ``_nrt=False`` compiles without Numba's reference-counting runtime: the kernel
# allocates nothing (:func:`workspace` builds its arrays), so borrowed arrays are
# safe (as in qosmodels/sim/_kernels/engine.py).
@njit(**_JIT)
def integrate(
    dt, save_every, ring, ring_s, a_off, a_mask,
    cap, delay0, buf, link_order, link_hop_ptr, j_prev, j_flow, j_next, hop_pos, j_hop, last_j,
    e_order, e_col, x_order, x_col,
    avd, avd_gamma, avd_alpha,
    red, red_min, red_max, red_maxp, red_rate, red_top, aqm, aqm_prm,
    hop_flow, hop_link, hop_rev,
    route_ptr, start, stop, pkt_bits, target, max_rate, w0, w_min, tau,
    control, kappa, estimator, rtt_p_error, vegas_k,
    ev_time, ev_link, ev_delay,
    out_t, out_w, out_x, out_rtt, out_est, out_acc, out_q, out_vq, out_mark, out_dep, out_deliv,
    out_lost, work, n_from, n_to, progress,
):
    """Integrate the fluid model; fill the ``out_*`` arrays; return ``(status, step, index)``.

    Runs iterations ``n_from`` to ``n_to - 1`` of the time loop (the first call starts at
    -1, which only measures and saves the state at t = 0; iteration n >= 0 advances from
    step n to step n + 1): every state lives in ``work`` and in ``progress`` (int64: the
    next delay change to apply, then the steps done), so a run cut into consecutive calls
    gives the same numbers as one call, and Python sees Ctrl-C between calls.  ``step`` is
    ``n_to`` when the call's iterations all ran.

    ``ring`` is the length in steps of the per-flow and per-link histories and ``ring_s``
    that of the per-hop lines (powers of two); link ``l``'s arrival history starts at
    ``a_off[l]`` and holds ``a_mask[l] + 1`` steps.  ``out_*`` have one row per saved time
    (every ``save_every`` steps, row 0 at t = 0).
    """
    n_links = cap.shape[0]
    mask = (ring - 1) & POS
    smask = (ring_s - 1) & POS
    inv_dt = 1.0 / dt
    (delay, hist_a, h_in, hist_w, hist_v, hist_r, hist_loss, offered, inc, lam_l,
     queue, departed, ptr, vq, vcap, vdelay, sent, w, x, f, rtt, rttp, est_a, est_tq, rbar,
     loss, loss_acted, loss_step, last_halve, halve, active, min_rtt, ep_start, ep_min,
     ep_hist, ep_count, w_pred, hist_s, hist_p, hist_x, hist_e, avgq, pmark, est_m, est_p,
     g, ack_k, ack_f, rev_k, rev_f, lk_k, lk_f, drev_k, drev_f,
     rttp_k, rttp_f, eg_k, eg_f, aqm_s, ek, ef, xk, xf, pj_k, pj_f, p_hop, hop_lost,
     dropped, term_ptr, term_hop) = work
    n_flows = w.shape[0]
    kk = max(vegas_k, 1)
    any_avd = False
    any_red = False
    for l in range(n_links):
        if avd[l]:
            any_avd = True
        if red[l]:
            any_red = True
    # per-hop terms of the measurements: RED marks, AVD virtual delays, reverse queues
    term_lists(route_ptr, hop_link, hop_rev, red, avd, term_ptr, term_hop)
    n_events = ev_time.shape[0]
    ev = progress[0]
    changed = True  # (the lags depend on the delays only: recomputed on every call)
    for n in range(n_from, n_to):
        n1 = n + 1
        t1 = n1 * dt
        s1 = n1 & mask
        while ev < n_events and ev_time[ev] <= t1 + 1e-12:
            delay[ev_link[ev]] = ev_delay[ev]
            ev += 1
            progress[0] = ev
            changed = True
        if changed:
            set_lags(inv_dt, delay, hop_link, hop_rev, route_ptr, rttp, ack_k, ack_f, rev_k,
                     rev_f, lk_k, lk_f, drev_k, drev_f, rttp_k, rttp_f, eg_k, eg_f, e_order,
                     x_order, ek, ef, xk, xf, j_hop, pj_k, pj_f)
            changed = False
        # ---- measurements at t1 (history up to step n) and the predictor
        nmax = max(n, 0)
        gather(0, n_flows, n1, nmax, mask, control, e_order, x_order, ek, ef, xk, xf, hist_e,
               hist_x, g)
        if any_red:
            marks_seen(0, n_links, n1, nmax, mask, link_hop_ptr, red, j_hop, pj_k, pj_f, hist_p,
                       p_hop)
        measure(0, n_flows, t1, n1, nmax, mask, term_ptr, term_hop, hop_link, hop_rev,
                ack_k, ack_f, rev_k, rev_f, drev_k, drev_f, p_hop, hist_v, hist_w, hist_r, g,
                rttp, start, stop, pkt_bits, control, estimator, kk, rtt_p_error, x, rtt, active,
                est_p, est_m, est_a, est_tq, min_rtt, ep_start, ep_min, ep_hist, ep_count,
                loss_acted, last_halve, halve, rttp_k, rttp_f, x_col, loss, loss_step, hist_loss)
        if n >= 0:
            predict(0, n_flows, dt, w, f, w_min, w_pred, x, sent, active, rtt, max_rate)
            # ---- the network: the delayed inputs, the queues, the marks, AVD
            transfers(0, n_links, n1, smask, link_hop_ptr, j_next, lk_k, lk_f, hist_s, h_in)
            status, l = queues(0, n_links, n, s1, dt, smask, cap, buf, link_order, link_hop_ptr,
                               a_off, a_mask, j_prev, j_flow, j_next, lk_k, lk_f, sent, h_in,
                               offered, inc, lam_l, queue, departed, ptr, hist_a, hist_s,
                               hist_w, loss, loss_step, False, hop_lost, dropped)
            if status != STATUS_OK:
                return status, n1, l
            egress(0, n_flows, n1, s1, smask, e_order, last_j, hist_s, hist_e)
            mark(0, n_links, t1, s1, dt, red, aqm, aqm_prm, aqm_s, cap, queue, avgq, red_rate,
                 red_min, red_max, red_maxp, red_top, pmark, hist_p)
            if any_avd:
                avq(0, n_links, s1, dt, avd, avd_gamma, avd_alpha, cap, buf, lam_l, vq, vcap,
                    vdelay, hist_v)
        # ---- corrector, loss response, EWMA filters, the per-flow histories
        correct(0, n_flows, n, n1, s1, dt, inv_dt, smask, control, estimator, kappa, w, w_pred,
                f, x, halve, w_min, active, pkt_bits, rtt, rttp, est_m, est_tq, est_a, target,
                max_rate, last_j, eg_k, eg_f, tau, rbar, hist_r, hist_s)
        if n >= 0:
            flow_rows(0, n_flows, s1, control, x_order, x, loss, loss_step, hist_x, hist_loss)
        if n1 % save_every == 0:
            bad = save(n1 // save_every, t1, n1, smask, control, estimator, last_j, eg_k, eg_f,
                       hist_s, w, x, rtt, est_p, est_tq, est_a, active, loss, queue, vdelay,
                       pmark, departed, out_t, out_w, out_x, out_rtt, out_est, out_acc, out_q,
                       out_vq, out_mark, out_dep, out_deliv, out_lost)
            if bad >= 0:
                return STATUS_NONFINITE, n1, bad
    progress[1] = n_to
    return STATUS_OK, n_to, -1


#: The kernel's state and history arrays, in the order :func:`integrate` unpacks ``work``.
WORK = (
    "delay", "hist_a", "h_in", "hist_w", "hist_v", "hist_r", "hist_loss",
    "offered", "inc", "lam_l", "queue", "departed", "ptr", "vq", "vcap", "vdelay", "sent", "w",
    "x", "f", "rtt", "rttp", "est_a", "est_tq", "rbar", "loss", "loss_acted", "loss_step",
    "last_halve", "halve", "active", "min_rtt", "ep_start", "ep_min", "ep_hist", "ep_count",
    "w_pred", "hist_s", "hist_p", "hist_x", "hist_e", "avgq", "pmark", "est_m", "est_p", "g",
    "ack_k", "ack_f", "rev_k", "rev_f", "lk_k", "lk_f", "drev_k",
    "drev_f", "rttp_k", "rttp_f", "eg_k", "eg_f", "aqm_s", "ek", "ef", "xk", "xf",
    "pj_k", "pj_f", "p_hop", "hop_lost", "dropped", "term_ptr", "term_hop",
)


def workspace(ring, ring_s, a_size, cap, delay0, w0, hop_flow, vegas_k):
    """The kernel's state and history arrays, zeroed (the kernel allocates nothing).

    ``ring`` is the length of the per-link and per-flow histories, ``ring_s``
    that of the short per-hop lines, ``a_size`` the total size of the
    per-link arrival histories.  Returned as one tuple in the order of :data:`WORK`.
    """
    L, H, F = cap.shape[0], hop_flow.shape[0], w0.shape[0]
    z = {name: np.zeros(F) for name in (
        "x", "f", "rtt", "rttp", "rbar", "loss", "loss_acted", "sent", "w_pred", "ep_start",
        "drev_f", "rttp_f", "eg_f", "ef", "xf")}
    z.update({name: np.zeros(L) for name in ("queue", "departed", "vq", "vdelay", "lam_l",
                                              "lk_f")})
    # per hop, in link order (position j, grouped by link_hop_ptr): the cumulative offered
    # input (before drops); (inc) a scratch for one link's hops' increments of it (its first
    # entries only: a short scratch stays in cache); (h_in) the previous hop's line (see hist_s)
    # arriving now: departures D, partial sums S, bits, and W, s (zero for first hops)
    # (hop_lost: a hop's lost bits of the step, kept by queues for add_losses, threads only)
    z.update({name: np.zeros(H) for name in ("offered", "inc", "ack_f", "rev_f", "pj_f",
                                              "p_hop", "hop_lost")})
    for name, n in (("ptr", L), ("lk_k", L), ("loss_step", F), ("ep_count", F)):
        z[name] = np.zeros(n, np.int64)
    # the per-flow and per-hop lags in whole steps, read every step: int32 (a ring is far
    # shorter than 2**31 steps)
    for name, n in (("drev_k", F), ("rttp_k", F), ("eg_k", F), ("ek", F), ("xk", F),
                    ("ack_k", H), ("rev_k", H), ("pj_k", H)):
        z[name] = np.zeros(n, np.int32)
    # measure's lists of the hops adding a term (filled by term_lists): per flow three
    # slices (marking, AVD, reverse-link hops); a hop can be in all three
    z["term_ptr"] = np.zeros(3 * F + 1, np.int64)
    z["term_hop"] = np.zeros(max(3 * H, 1), np.int32)
    kk = max(vegas_k, 1)
    z.update(
        delay=delay0.copy(),
        # cumulative accepted arrivals, bits: per link a block of rows (step), each row the
        # link's total then its hops' (in link order); see CompiledFluid.a_off
        hist_a=np.zeros(a_size),
        hist_w=np.zeros((L, ring)),  # sojourn of the bits departing, s
        hist_v=np.zeros((L, ring)),  # AVD virtual queueing delay, s
        hist_p=np.zeros((L, ring)),  # RED marking probability per link
        hist_r=np.zeros((F, ring)),  # Monaco EWMA of the egress rate, bit/s
        # time-major, columns in the order CompiledFluid.x_order: cumulative lost bits per
        # flow, sending rate per flow, bit/s
        hist_loss=np.zeros((ring, F)),
        hist_x=np.zeros((ring, F)),
        # time-major, columns in the order CompiledFluid.e_order: the accumulation reaching
        # the egress (eq (1)), bits, and the forward queueing delay, s
        hist_e=np.zeros((ring, F, 2)),
        # the per-flow reads of gather: egress accumulation and queueing delay, rate (Reno)
        g=np.zeros((F, 3)),
        h_in=np.zeros((H, 3)),  # see the comment above "offered"
        # per hop, time-major, in link order, short lines of (cumulative departures D, bits;
        # partial accumulation S: the flow's bits queued at this hop and, shifted by the
        # propagation delays, at the hops before it, bits; the same partial sum W of
        # queueing delays, s)
        hist_s=np.zeros((ring_s, H, 3)),
        vcap=cap.copy(), w=w0.copy(),
        est_a=np.zeros(F),  # accumulation estimate (ideal, Monaco), bits
        est_tq=np.zeros(F),  # queueing-delay estimate (Vegas), s
        est_m=np.zeros(F),  # Reno: marks per second reaching the sender
        est_p=np.zeros(F),  # Reno: the path's marking probability seen
        last_halve=np.full(F, -np.inf), halve=np.zeros(F, np.bool_),
        active=np.zeros(F, np.bool_), min_rtt=np.full(F, np.inf),
        ep_min=np.full(F, np.inf), ep_hist=np.full((F, kk), np.inf),
        avgq=np.zeros(L),  # RED's averaged queue, bits
        pmark=np.zeros(L),  # RED's marking probability
        # PI / PIE links: probability, the queue at the last sample (bits), the next sample's k
        aqm_s=np.zeros((L, 3)),
        dropped=np.zeros(L, np.bool_),  # a link that dropped this step (threads only)
    )
    z["aqm_s"][:, 2] = 1.0
    return tuple(z[name] for name in WORK)
