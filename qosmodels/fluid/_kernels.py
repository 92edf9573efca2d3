"""The Numba integrator of the fluid models (imported only when a model is solved).

One jitted function, :func:`integrate`, holds the time loop; the per-flow
measurements (:func:`measure`) and the saving of results (:func:`save`) are
separate jitted functions called once per step (a call per step, not per flow,
costs nothing measurable, and fewer live arrays per function keep the compiled
loops from spilling array descriptors to the stack); the small helpers are
inner functions or inlined.  The kernel runs without Numba's reference-counting
runtime (``_nrt=False``) and allocates nothing: :func:`workspace` builds its
arrays.  It sees only flat arrays built by :mod:`qosmodels.fluid._compile` and
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
  when a delay changes), read from a ring buffer of history.
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

Histories are ``(columns, ring)`` arrays (a column's steps contiguous), each
ring a power of two just longer than the lags read from it: per flow and per
link, a round trip; per hop, ``(hops, ring_s, 3)`` lines of ``(D, S, W)`` as
long as the longest link delay, in link order (hops grouped by link,
``link_hop_ptr``), so that the network loop walks them sequentially; per
link, the arrivals as one block of rows ``(cumulative accepted bits, then
each hop's)`` as long as the link's longest sojourn (a full buffer).  Short histories stay in cache: on 1 000
flows and 100 links this layout, the carried sums and indices the compiler
knows to be non-negative (``& POS``: no negative-index wraparound code) took
the run from 6.0-6.8 s to 4.2-4.9 s (benchmarks/RESULTS.md).

Status codes: see ``STATUS_*`` below.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._mgt_kernel import pie_update

#: The largest int64: ``x & (m & POS)`` is known to the compiler to be >= 0.
POS = 0x7FFFFFFFFFFFFFFF

STATUS_OK = 0
STATUS_NONFINITE = 1  # a window, rate or queue became NaN or infinite
STATUS_HISTORY = 2  # a lookup needed older history than the ring buffer holds

CTRL_P, CTRL_AIAD, CTRL_MW, CTRL_RENO = 0, 1, 2, 3
EST_IDEAL, EST_VEGAS, EST_VEGAS_K, EST_MONACO = 0, 1, 2, 3
AQM_RED, AQM_PI, AQM_PIE = 0, 1, 2  # as in _compile


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def at(h, col, base, fr, nmax, m):
    # history h (shape (columns, ring), ring = m + 1) of column col at step
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


@njit(cache=True, error_model="numpy", _nrt=False, inline="always")
def pair_at(h, col, base, fr, nmax, m):
    # as at(), for a history of tuples (shape (columns, ring, k), k >= 2): the first two
    # components, both interpolated
    m = m & POS
    if fr > 0.0:
        if base + 1 > nmax:
            return h[col, nmax & m, 0], h[col, nmax & m, 1]
        if base < 0:
            return 0.0, 0.0
        b0 = base & m
        b1 = (base + 1) & m
        a0 = h[col, b0, 0]
        a1 = h[col, b0, 1]
        return a0 + fr * (h[col, b1, 0] - a0), a1 + fr * (h[col, b1, 1] - a1)
    if base > nmax:
        base = nmax
    if base < 0:
        return 0.0, 0.0
    return h[col, base & m, 0], h[col, base & m, 1]


@njit(cache=True, error_model="numpy", _nrt=False)
def measure(
    t1, n1, nmax, mask, route_ptr, hop_link, hop_rev, red, avd, hop_terms, ack_k, ack_f, rev_k,
    rev_f, rttp_k, rttp_f, drev_k, drev_f, hist_e, hist_p, hist_v, hist_w, hist_x, hist_r,
    hist_loss, rttp, start, stop, pkt_bits, control, estimator, kk, rtt_p_error, x, rtt, active,
    est_p, est_m, est_a, est_tq, min_rtt, ep_start, ep_min, ep_hist, ep_count, loss, loss_step,
    loss_acted, last_halve, halve,
):
    """Every flow's rtt, accumulation estimate and loss signal at time t1 = n1 dt,
    from the history up to step nmax."""
    n_flows = start.shape[0]
    for i in range(n_flows):
        h0 = route_ptr[i]
        h1 = route_ptr[i + 1]
        # the accumulation (eq (1)) and the forward queueing delay reaching the
        # egress, a reverse-path delay ago
        hl = (h1 - 1) & POS
        acc, qf = pair_at(hist_e, i, n1 - ack_k[hl], ack_f[hl], nmax, mask)
        virt = 0.0
        qb = 0.0
        pnot = 1.0
        if hop_terms:
            for h in range(h0, h1):
                l = hop_link[h]
                b = n1 - ack_k[h]
                fr = ack_f[h]
                if red[l]:
                    pnot *= 1.0 - at(hist_p, l, b, fr, nmax, mask)
                if avd[l]:
                    virt += at(hist_v, l, b, fr, nmax, mask)
                r = hop_rev[h]
                if r >= 0:
                    qb += at(hist_w, r, n1 - rev_k[h], rev_f[h], nmax, mask)
        rtt[i] = rttp[i] + qf + qb
        was = active[i]
        active[i] = start[i] <= t1 < stop[i]
        if control == CTRL_RENO:
            # marks reaching the sender now: packets sent a round trip ago, times the
            # probability that one of the path's RED links marked them
            est_p[i] = 1.0 - pnot
            est_m[i] = at(hist_x, i, n1 - rttp_k[i], rttp_f[i], nmax, mask) / pkt_bits[i] * est_p[i]
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
        # loss, seen one propagation round trip after it happened
        b = n1 - rttp_k[i]
        if b >= loss_step[i]:
            seen = loss[i]  # no loss since: the history from b on is the current value
        else:
            seen = at(hist_loss, i, b, rttp_f[i], nmax, mask)
        if seen > loss_acted[i] + 1e-9 and t1 - last_halve[i] >= rtt[i]:
            halve[i] = True
            loss_acted[i] = seen
            last_halve[i] = t1


@njit(cache=True, error_model="numpy", _nrt=False)
def save(
    row, t1, nrow, smask, control, estimator, last_j, eg_k, eg_f, hist_s, w, x, rtt, est_p, est_tq,
    est_a, active, loss, queue, vdelay, pmark, departed, out_t, out_w, out_x, out_rtt, out_est,
    out_acc, out_q, out_vq, out_mark, out_dep, out_deliv, out_lost,
):
    """Write the state at step nrow (time t1) to row ``row`` of the outputs."""
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
        hl = last_j[i] & POS
        d, a = pair_at(hist_s, hl, nrow - eg_k[i], eg_f[i], nrow, smask)
        out_deliv[row, i] = d
        out_acc[row, i] = a
        out_lost[row, i] = loss[i]
    for l in range(n_links):
        out_q[row, l] = queue[l]
        out_vq[row, l] = vdelay[l]
        out_mark[row, l] = pmark[l]
        out_dep[row, l] = departed[l]


# ``_nrt=False`` compiles without Numba's reference-counting runtime: the kernel
# allocates nothing (:func:`workspace` builds its arrays), so borrowed arrays are
# safe, and the inlined inner functions no longer pay an atomic incref/decref per
# captured array on every call (as in qosmodels/sim/_kernels/engine.py).
@njit(cache=True, error_model="numpy", _nrt=False)
def integrate(
    dt, save_every, ring, ring_s, a_off, a_mask,
    cap, delay0, buf, link_order, link_hop_ptr, j_prev, j_flow, hop_pos, last_j,
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

    Runs iterations ``n_from`` to ``n_to - 1`` of the time loop (see below;
    the first call starts at -1): every state lives in ``work`` and in
    ``progress`` (int64: the next delay change to apply, then the steps done),
    so a run cut into consecutive calls gives the same numbers as one call, and
    Python sees Ctrl-C between calls.  ``step`` is ``n_to`` when the call's
    iterations all ran.

    ``ring`` is the length in steps of the per-flow and per-link histories and
    ``ring_s`` that of the per-hop lines (powers of two); link ``l``'s arrival
    history starts at ``a_off[l]`` and holds ``a_mask[l] + 1`` steps.  ``out_*``
    have one row per saved time (every ``save_every`` steps, row 0 at t = 0).
    """
    n_links = cap.shape[0]
    n_flows = start.shape[0]
    # (masks and-ed with POS are known to be >= 0, so that indexing with `x & mask`
    # needs no negative-index wraparound)
    mask = (ring - 1) & POS
    smask = (ring_s - 1) & POS
    inv_dt = 1.0 / dt

    (
        delay,
        hist_a,
        s_in,
        w_in,
        hist_w,
        hist_v,
        hist_r,
        hist_loss,
        offered,
        inc,
        queue,
        departed,
        ptr,
        vq,
        vcap,
        vdelay,
        sent,
        w,
        x,
        f,
        rtt,
        rttp,
        est_a,
        est_tq,
        rbar,
        loss,
        loss_acted,
        loss_step,
        last_halve,
        halve,
        active,
        min_rtt,
        ep_start,
        ep_min,
        ep_hist,
        ep_count,
        w_pred,
        hist_s,
        hist_p,
        hist_x,
        hist_e,
        avgq,
        pmark,
        est_m,
        est_p,
        ack_k,
        ack_f,
        rev_k,
        rev_f,
        in_k,
        in_f,
        drev_k,
        drev_f,
        rttp_k,
        rttp_f,
        eg_k,
        eg_f,
        aqm_s,
    ) = work
    kk = max(vegas_k, 1)
    # per-hop terms of the measurements: RED marks, AVD virtual delays, reverse queues
    hop_terms = False
    for l in range(n_links):
        if red[l] or avd[l]:
            hop_terms = True
    for h in range(hop_link.shape[0]):
        if hop_rev[h] >= 0:
            hop_terms = True

    # ---------------------------------------------------------------- helpers
    def rev_delay(h):
        r = hop_rev[h]
        if r >= 0:
            return delay[r]
        return delay[hop_link[h]]

    def rhs(i, wi):
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

    def rate(i, wi):
        if not active[i]:
            return 0.0
        r = wi / rtt[i]
        if r > max_rate[i]:
            r = max_rate[i]
        return r

    def split(lag):
        # a lag as (whole steps k, fraction fr): the value lag seconds before step n1
        # is hist[n1 - k] + fr * (hist[n1 - k + 1] - hist[n1 - k])
        m = lag * inv_dt
        k = int(math.ceil(m - 1e-9))
        fr = k - m
        if fr < 0.0:
            fr = 0.0
        return k, fr

    def set_lags():
        # the constant lags of every lookup, recomputed when a delay changes
        for i in range(n_flows):
            h0 = route_ptr[i]
            h1 = route_ptr[i + 1]
            drev = 0.0
            dfwd = 0.0
            for h in range(h0, h1):
                drev += rev_delay(h)
                dfwd += delay[hop_link[h]]
            rttp[i] = dfwd + drev
            sf = 0.0
            for h in range(h1 - 1, h0 - 1, -1):
                sf += delay[hop_link[h]]
                ack_k[h], ack_f[h] = split(sf + drev)
            sr = 0.0
            for h in range(h0, h1):
                sr += rev_delay(h)
                rev_k[h], rev_f[h] = split(sr)
                if h > h0:
                    in_k[hop_pos[h]], in_f[hop_pos[h]] = split(delay[hop_link[h - 1]])
            drev_k[i], drev_f[i] = split(drev)
            rttp_k[i], rttp_f[i] = split(rttp[i])
            eg_k[i], eg_f[i] = split(delay[hop_link[h1 - 1]])

    # ---------------------------------------------------------------- the time loop
    # Iteration n = -1 only measures and saves the state at t = 0; iteration n >= 0
    # advances from step n to step n + 1.  Each helper has a single call site, which
    # keeps the inlined kernel (and its compile time) small.
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
            set_lags()
            changed = False

        # ---- measurements at t1 (history up to step n) and the predictor
        measure(
            t1, n1, max(n, 0), mask, route_ptr, hop_link, hop_rev, red, avd, hop_terms, ack_k,
            ack_f, rev_k, rev_f, rttp_k, rttp_f, drev_k, drev_f, hist_e, hist_p, hist_v, hist_w,
            hist_x, hist_r, hist_loss, rttp, start, stop, pkt_bits, control, estimator, kk,
            rtt_p_error, x, rtt, active, est_p, est_m, est_a, est_tq, min_rtt, ep_start, ep_min,
            ep_hist, ep_count, loss, loss_step, loss_acted, last_halve, halve,
        )
        if n < 0:
            n_net = 0
        else:
            n_net = n_links
            for i in range(n_flows):
                wp = w[i] + dt * f[i]
                if wp < w_min[i]:
                    wp = w_min[i]
                w_pred[i] = wp
                xp = x[i]
                x[i] = rate(i, wp)
                sent[i] += 0.5 * dt * (xp + x[i])

        # ---- the network, link by link (zero-delay dependencies in order)
        # A hop's input is read from the previous hop's line at a lag of k >= 2 steps
        # (dt is below every positive delay) or of 0 steps with no fraction (a zero-delay
        # link, computed earlier in this step by link_order), so these reads need no
        # clamping; before t = 0 they read slots not yet written, which are zero.
        for o in range(n_net):
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
                jp = j_prev[j]
                if jp < 0:
                    v = sent[j_flow[j] & POS]
                else:
                    jp &= POS
                    b = n1 - in_k[j]
                    fr = in_f[j]
                    b0 = b & smask
                    b1 = (b + 1) & smask
                    a = hist_s[jp, b0, 0]
                    v = a + fr * (hist_s[jp, b1, 0] - a)
                    a = hist_s[jp, b0, 1]
                    s_in[j] = a + fr * (hist_s[jp, b1, 1] - a)
                    a = hist_s[jp, b0, 2]
                    w_in[j] = a + fr * (hist_s[jp, b1, 2] - a)
                if v < offered[j]:
                    v = offered[j]
                inc[j] = v - offered[j]
                offered[j] = v
                lam += inc[j]
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
                acc_in = inc[j] * keep
                hist_a[(r1 + 1 + j - p0) & POS] = hist_a[(r0 + 1 + j - p0) & POS] + acc_in
                if acc_in < inc[j]:
                    fh = j_flow[j] & POS
                    loss[fh] += inc[j] - acc_in
                    loss_step[fh] = n1
            departed[l] += served
            if qn <= 1e-9 * cap[l] * dt:
                qn = 0.0
                departed[l] = al
                k = n1
                fr = 0.0
            else:
                k = ptr[l]
                tgt = departed[l]
                while k < n1 and hist_a[(a_off[l] + ((k + 1) & am) * wl) & POS] < tgt:
                    k += 1
                if k >= n1:
                    k = n1
                    fr = 0.0
                else:
                    a0 = hist_a[(a_off[l] + (k & am) * wl) & POS]
                    a1 = hist_a[(a_off[l] + ((k + 1) & am) * wl) & POS]
                    fr = (tgt - a0) / (a1 - a0) if a1 > a0 else 0.0
                    if fr < 0.0:
                        fr = 0.0
                if k <= n1 - am + 1:
                    return STATUS_HISTORY, n1, l
            ptr[l] = k
            queue[l] = qn
            if red[l]:
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
                    # PI or PIE: updated at the sampling instants k T (aqm_s: p, the queue
                    # at the last sample, bits, and k), held between them
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
            # departures D = A at the departing bits' arrival time; the partial
            # accumulation S_h(t) = S_{h-1}(t - d_{h-1}) + (A_h - D_h)(t)
            soj = t1 - (k + fr) * dt  # the sojourn of the bits departing at t1
            hist_w[l, s1] = soj
            ka = a_off[l] + (k & am) * wl + 1 - p0
            kb = a_off[l] + ((k + 1) & am) * wl + 1 - p0
            c1 = n1 & smask
            for j in range(p0, p1):
                if fr > 0.0:
                    a = hist_a[(ka + j) & POS]
                    dd = a + fr * (hist_a[(kb + j) & POS] - a)
                else:
                    dd = hist_a[(ka + j) & POS]
                hist_s[j, c1, 0] = dd
                hist_s[j, c1, 1] = hist_a[(r1 + 1 + j - p0) & POS] - dd + s_in[j]
                hist_s[j, c1, 2] = soj + w_in[j]
            if avd[l]:
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

        # ---- corrector, loss response, EWMA filters (at t = 0: rates and slopes only)
        for i in range(n_flows):
            if n >= 0:
                wn = w[i] + 0.5 * dt * (f[i] + rhs(i, w_pred[i]))
                if halve[i]:
                    wn *= 0.5
                    halve[i] = False
                if wn < w_min[i]:
                    wn = w_min[i]
                w[i] = wn
            x[i] = rate(i, w[i])
            f[i] = rhs(i, w[i])
            if n < 0:
                continue
            hl = last_j[i] & POS  # the flow's last hop, in link order
            if estimator == EST_MONACO:
                b = n1 - eg_k[i]
                r_in = (pair_at(hist_s, hl, b, eg_f[i], n1, smask)[0]
                        - pair_at(hist_s, hl, b - 1, eg_f[i], n1, smask)[0]) * inv_dt
                rbar[i] += (1.0 - math.exp(-dt / tau[i])) * (r_in - rbar[i])
                hist_r[i, s1] = rbar[i]
            hist_e[i, s1, 0] = hist_s[hl, n1 & smask, 1]
            hist_e[i, s1, 1] = hist_s[hl, n1 & smask, 2]
            if loss_step[i] > 0:  # (before a flow's first loss its history is all zero)
                hist_loss[i, s1] = loss[i]
            if control == CTRL_RENO:
                hist_x[i, s1] = x[i]

        if n1 % save_every == 0:
            row = n1 // save_every
            save(
                row, t1, n1, smask, control, estimator, last_j, eg_k, eg_f, hist_s, w, x, rtt,
                est_p, est_tq, est_a, active, loss, queue, vdelay, pmark, departed, out_t, out_w,
                out_x, out_rtt, out_est, out_acc, out_q, out_vq, out_mark, out_dep, out_deliv,
                out_lost,
            )
            for i in range(n_flows):
                if not (math.isfinite(w[i]) and math.isfinite(x[i])):
                    return STATUS_NONFINITE, n1, i
            for l in range(n_links):
                if not math.isfinite(queue[l]):
                    return STATUS_NONFINITE, n1, n_flows + l
    progress[1] = n_to
    return STATUS_OK, n_to, -1


def workspace(ring, ring_s, a_size, cap, delay0, w0, hop_flow, vegas_k):
    """The kernel's state and history arrays, zeroed (the kernel allocates nothing).

    ``ring`` is the length of the per-link and per-flow histories, ``ring_s``
    that of the short per-hop lines, ``a_size`` the total size of the
    per-link arrival histories.  Returned as one tuple in the order
    :func:`integrate` unpacks it.
    """
    n_links = cap.shape[0]
    n_hops = hop_flow.shape[0]
    n_flows = w0.shape[0]
    delay = delay0.copy()
    # cumulative accepted arrivals, bits: per link a block of rows (step), each row the
    # link's total then its hops' (in link order); see CompiledFluid.a_off
    hist_a = np.zeros(a_size)
    # per hop, in link order (position j, grouped by link_hop_ptr): the previous hop's partial
    # sums (see hist_s) arriving now, bits and s (zero for first hops)
    s_in = np.zeros(n_hops)
    w_in = np.zeros(n_hops)
    hist_w = np.zeros((n_links, ring))  # sojourn of the bits departing, s
    hist_v = np.zeros((n_links, ring))  # AVD virtual queueing delay, s
    hist_r = np.zeros((n_flows, ring))  # Monaco EWMA of the egress rate, bit/s
    hist_loss = np.zeros((n_flows, ring))  # cumulative lost bits per flow
    offered = np.zeros(n_hops)  # cumulative offered input of each hop (before drops), link order
    inc = np.zeros(n_hops)
    queue = np.zeros(n_links)
    departed = np.zeros(n_links)
    ptr = np.zeros(n_links, np.int64)
    vq = np.zeros(n_links)
    vcap = cap.copy()
    vdelay = np.zeros(n_links)
    sent = np.zeros(n_flows)
    w = w0.copy()
    x = np.zeros(n_flows)
    f = np.zeros(n_flows)
    rtt = np.zeros(n_flows)
    rttp = np.zeros(n_flows)
    est_a = np.zeros(n_flows)  # accumulation estimate (ideal, Monaco), bits
    est_tq = np.zeros(n_flows)  # queueing-delay estimate (Vegas), s
    rbar = np.zeros(n_flows)
    loss = np.zeros(n_flows)
    loss_acted = np.zeros(n_flows)
    loss_step = np.zeros(n_flows, np.int64)  # the step of each flow's latest loss (0: none)
    last_halve = np.full(n_flows, -np.inf)
    halve = np.zeros(n_flows, np.bool_)
    active = np.zeros(n_flows, np.bool_)
    min_rtt = np.full(n_flows, np.inf)
    kk = max(vegas_k, 1)
    ep_start = np.zeros(n_flows)
    ep_min = np.full(n_flows, np.inf)
    ep_hist = np.full((n_flows, kk), np.inf)
    ep_count = np.zeros(n_flows, np.int64)
    w_pred = np.zeros(n_flows)
    # per hop, in link order, short lines of (cumulative departures D, bits; partial
    # accumulation S: the flow's bits queued at this hop and, shifted by the propagation
    # delays, at the hops before it, bits; the same partial sum W of queueing delays, s)
    hist_s = np.zeros((n_hops, ring_s, 3))
    hist_p = np.zeros((n_links, ring))  # RED marking probability per link
    hist_x = np.zeros((n_flows, ring))  # sending rate per flow, bit/s
    # the accumulation reaching the egress (eq (1)), bits, and the queueing delay, s
    hist_e = np.zeros((n_flows, ring, 2))
    avgq = np.zeros(n_links)  # RED's averaged queue, bits
    pmark = np.zeros(n_links)  # RED's marking probability
    est_m = np.zeros(n_flows)  # Reno: marks per second reaching the sender
    est_p = np.zeros(n_flows)  # Reno: the path's marking probability seen
    ack_k = np.zeros(n_hops, np.int64)  # lag from a hop's departure to the sender's ACK
    ack_f = np.zeros(n_hops)
    rev_k = np.zeros(n_hops, np.int64)  # lag from a reverse hop's departure to the sender
    rev_f = np.zeros(n_hops)
    # lag from the previous hop's departure to this hop, in link order
    in_k = np.zeros(n_hops, np.int64)
    in_f = np.zeros(n_hops)
    drev_k = np.zeros(n_flows, np.int64)
    drev_f = np.zeros(n_flows)
    rttp_k = np.zeros(n_flows, np.int64)
    rttp_f = np.zeros(n_flows)
    eg_k = np.zeros(n_flows, np.int64)
    eg_f = np.zeros(n_flows)
    # PI / PIE links: probability, the queue at the last sample (bits), the next sample's k
    aqm_s = np.zeros((n_links, 3))
    aqm_s[:, 2] = 1.0
    return (
        delay,
        hist_a,
        s_in,
        w_in,
        hist_w,
        hist_v,
        hist_r,
        hist_loss,
        offered,
        inc,
        queue,
        departed,
        ptr,
        vq,
        vcap,
        vdelay,
        sent,
        w,
        x,
        f,
        rtt,
        rttp,
        est_a,
        est_tq,
        rbar,
        loss,
        loss_acted,
        loss_step,
        last_halve,
        halve,
        active,
        min_rtt,
        ep_start,
        ep_min,
        ep_hist,
        ep_count,
        w_pred,
        hist_s,
        hist_p,
        hist_x,
        hist_e,
        avgq,
        pmark,
        est_m,
        est_p,
        ack_k,
        ack_f,
        rev_k,
        rev_f,
        in_k,
        in_f,
        drev_k,
        drev_f,
        rttp_k,
        rttp_f,
        eg_k,
        eg_f,
        aqm_s,
    )
