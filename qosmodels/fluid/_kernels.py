"""The Numba integrator of the fluid models (imported only when a model is solved).

One jitted function, :func:`integrate`, holds the whole time loop; its helpers
are inner functions closing over the arrays (passing arrays to separately
jitted helpers in a hot loop costs 4-5x, ../shared/reference-sim/README.md).
It sees only flat arrays built by :mod:`qosmodels.fluid._compile` and returns
a status code; :func:`qosmodels.fluid.solve_fluid` turns codes into errors.

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
* Windows and EWMA filters are ODEs in time, with delayed inputs read from the
  history; windows use Heun's method (predictor-corrector), the source's
  cumulative sent bits the trapezoidal rule.  Every lookup's lag is split once
  into whole steps and a fraction (again when an event changes a delay).
* RED links (for the Reno control law) keep an exponentially averaged queue
  and a marking probability, also kept in the history.

The history arrays are blocked, ``(ring / 8, columns, 8)``: the eight
consecutive steps of one column share a cache line.  The arrivals ``A`` are
the exception: ``(ring, hops)`` with the hops in link order (``link_hops``),
so that a link's FIFO lookup reads its hops' arrivals at one step from
consecutive memory (on 1 000 flows and 100 links this took ~20% off the run).

Status codes: see ``STATUS_*`` below.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

STATUS_OK = 0
STATUS_NONFINITE = 1  # a window, rate or queue became NaN or infinite
STATUS_HISTORY = 2  # a lookup needed older history than the ring buffer holds

CTRL_P, CTRL_AIAD, CTRL_MW, CTRL_RENO = 0, 1, 2, 3
EST_IDEAL, EST_VEGAS, EST_VEGAS_K, EST_MONACO = 0, 1, 2, 3


# ``_nrt=False`` compiles without Numba's reference-counting runtime: the kernel
# allocates nothing (:func:`workspace` builds its arrays), so borrowed arrays are
# safe, and the inlined inner functions no longer pay an atomic incref/decref per
# captured array on every call (as in qosmodels/sim/_kernels/engine.py).
@njit(cache=True, error_model="numpy", _nrt=False)
def integrate(
    n_steps, dt, save_every, ring,
    cap, delay0, buf, link_order, link_hop_ptr, link_hops, avd, avd_gamma, avd_alpha,
    red, red_min, red_max, red_maxp, red_rate, red_top,
    hop_flow, hop_link, hop_rev,
    route_ptr, start, stop, pkt_bits, target, max_rate, w0, w_min, tau,
    control, kappa, estimator, rtt_p_error, vegas_k,
    ev_time, ev_link, ev_delay,
    out_t, out_w, out_x, out_rtt, out_est, out_acc, out_q, out_vq, out_mark, out_dep, out_deliv,
    out_lost, work,
):
    """Integrate the fluid model; fill the ``out_*`` arrays; return ``(status, step, index)``.

    ``ring`` is the history length in steps, a power of two.  ``out_*`` have
    one row per saved time (every ``save_every`` steps, row 0 at t = 0).
    """
    n_links = cap.shape[0]
    n_flows = start.shape[0]
    mask = ring - 1
    inv_dt = 1.0 / dt

    (
        delay,
        hist_a,
        hist_d,
        hist_al,
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
        last_halve,
        halve,
        active,
        min_rtt,
        ep_start,
        ep_min,
        ep_hist,
        ep_count,
        w_pred,
        x_prev,
        hist_q,
        hist_p,
        hist_x,
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
        acc_k,
        acc_f,
        eg_k,
        eg_f,
    ) = work
    kk = max(vegas_k, 1)

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

    def hist_at(h, col, base, fr, nmax):
        # history h at step position base + fr, clamped to nmax; zero before t = 0
        # (h is one of the hist_* arrays; the kernel runs without reference
        # counting, so passing it costs nothing)
        if fr > 0.0:
            if base + 1 > nmax:
                return h[(nmax & mask) >> 3, col, (nmax & mask) & 7]
            if base < 0:
                return 0.0
            a = h[(base & mask) >> 3, col, (base & mask) & 7]
            return a + fr * (h[((base + 1) & mask) >> 3, col, ((base + 1) & mask) & 7] - a)
        if base > nmax:
            base = nmax
        if base < 0:
            return 0.0
        return h[(base & mask) >> 3, col, (base & mask) & 7]

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
                acc_k[h], acc_f[h] = split(sf)
            sr = 0.0
            for h in range(h0, h1):
                sr += rev_delay(h)
                rev_k[h], rev_f[h] = split(sr)
                if h > h0:
                    in_k[h], in_f[h] = split(delay[hop_link[h - 1]])
            drev_k[i], drev_f[i] = split(drev)
            rttp_k[i], rttp_f[i] = split(rttp[i])
            eg_k[i], eg_f[i] = split(delay[hop_link[h1 - 1]])

    def measure(t1, n1, nmax):
        # every flow's rtt, accumulation estimate and loss signal at time t1 = n1 dt,
        # from the history up to step nmax
        for i in range(n_flows):
            h0 = route_ptr[i]
            h1 = route_ptr[i + 1]
            qf = 0.0
            acc = 0.0
            virt = 0.0
            qb = 0.0
            pnot = 1.0
            for h in range(h0, h1):
                l = hop_link[h]
                b = n1 - ack_k[h]
                fr = ack_f[h]
                qf += hist_at(hist_w, l, b, fr, nmax)
                if red[l]:
                    pnot *= 1.0 - hist_at(hist_p, l, b, fr, nmax)
                if avd[l]:
                    virt += hist_at(hist_v, l, b, fr, nmax)
                if estimator == EST_IDEAL:
                    acc += hist_at(hist_q, h, b, fr, nmax)
                r = hop_rev[h]
                if r >= 0:
                    qb += hist_at(hist_w, r, n1 - rev_k[h], rev_f[h], nmax)
            rtt[i] = rttp[i] + qf + qb
            was = active[i]
            active[i] = start[i] <= t1 < stop[i]
            if control == CTRL_RENO:
                # marks reaching the sender now: packets sent a round trip ago, times the
                # probability that one of the path's RED links marked them
                est_p[i] = 1.0 - pnot
                est_m[i] = hist_at(hist_x, i, n1 - rttp_k[i], rttp_f[i], nmax) / pkt_bits[i] * est_p[i]
            if estimator == EST_IDEAL:
                est_a[i] = acc + x[i] * virt
            elif estimator == EST_MONACO:
                est_a[i] = (qf + virt) * hist_at(hist_r, i, n1 - drev_k[i], drev_f[i], nmax)
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
            seen = hist_at(hist_loss, i, n1 - rttp_k[i], rttp_f[i], nmax)
            if seen > loss_acted[i] + 1e-9 and t1 - last_halve[i] >= rtt[i]:
                halve[i] = True
                loss_acted[i] = seen
                last_halve[i] = t1

    def save(row, t1, nrow):
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
            acc = 0.0
            for h in range(route_ptr[i], route_ptr[i + 1]):
                acc += hist_at(hist_q, h, nrow - acc_k[h], acc_f[h], nrow)
            out_acc[row, i] = acc
            hl = route_ptr[i + 1] - 1
            out_deliv[row, i] = hist_at(hist_d, hl, nrow - eg_k[i], eg_f[i], nrow)
            out_lost[row, i] = loss[i]
        for l in range(n_links):
            out_q[row, l] = queue[l]
            out_vq[row, l] = vdelay[l]
            out_mark[row, l] = pmark[l]
            out_dep[row, l] = departed[l]

    # ---------------------------------------------------------------- the time loop
    # Iteration n = -1 only measures and saves the state at t = 0; iteration n >= 0
    # advances from step n to step n + 1.  Each helper has a single call site, which
    # keeps the inlined kernel (and its compile time) small.
    n_events = ev_time.shape[0]
    ev = 0
    changed = True
    for n in range(-1, n_steps):
        n1 = n + 1
        t1 = n1 * dt
        s1 = n1 & mask
        s0 = n & mask
        while ev < n_events and ev_time[ev] <= t1 + 1e-12:
            delay[ev_link[ev]] = ev_delay[ev]
            ev += 1
            changed = True
        if changed:
            set_lags()
            changed = False

        # ---- measurements at t1 (history up to step n) and the predictor
        for i in range(n_flows):
            x_prev[i] = x[i]
        measure(t1, n1, max(n, 0))
        if n < 0:
            n_net = 0
        else:
            n_net = n_links
            for i in range(n_flows):
                wp = w[i] + dt * f[i]
                if wp < w_min[i]:
                    wp = w_min[i]
                w_pred[i] = wp
                x[i] = rate(i, wp)
                sent[i] += 0.5 * dt * (x_prev[i] + x[i])

        # ---- the network, link by link (zero-delay dependencies in order)
        for o in range(n_net):
            l = link_order[o]
            lam = 0.0
            for j in range(link_hop_ptr[l], link_hop_ptr[l + 1]):
                h = link_hops[j]
                if h == route_ptr[hop_flow[h]]:
                    v = sent[hop_flow[h]]
                else:
                    v = hist_at(hist_d, h - 1, n1 - in_k[h], in_f[h], n1)
                if v < offered[h]:
                    v = offered[h]
                inc[h] = v - offered[h]
                offered[h] = v
                lam += inc[h]
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
            al = hist_al[s0 >> 3, l, s0 & 7] + lam - drop
            hist_al[s1 >> 3, l, s1 & 7] = al
            for j in range(link_hop_ptr[l], link_hop_ptr[l + 1]):
                h = link_hops[j]
                acc_in = inc[h] * keep
                hist_a[s1, j] = hist_a[s0, j] + acc_in
                loss[hop_flow[h]] += inc[h] - acc_in
            departed[l] += served
            if qn <= 1e-9 * cap[l] * dt:
                qn = 0.0
                departed[l] = al
                k = n1
                fr = 0.0
            else:
                k = ptr[l]
                tgt = departed[l]
                while k < n1 and hist_al[((k + 1) & mask) >> 3, l, ((k + 1) & mask) & 7] < tgt:
                    k += 1
                if k >= n1:
                    k = n1
                    fr = 0.0
                else:
                    a0 = hist_al[(k & mask) >> 3, l, (k & mask) & 7]
                    a1 = hist_al[((k + 1) & mask) >> 3, l, ((k + 1) & mask) & 7]
                    fr = (tgt - a0) / (a1 - a0) if a1 > a0 else 0.0
                    if fr < 0.0:
                        fr = 0.0
                if k <= n1 - ring + 2:
                    return STATUS_HISTORY, n1, l
            ptr[l] = k
            queue[l] = qn
            if red[l]:
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
                pmark[l] = pm
                hist_p[s1 >> 3, l, s1 & 7] = pm
            ka = k & mask
            kb = (k + 1) & mask
            for j in range(link_hop_ptr[l], link_hop_ptr[l + 1]):
                h = link_hops[j]
                if fr > 0.0:
                    dd = hist_a[ka, j] + fr * (hist_a[kb, j] - hist_a[ka, j])
                else:
                    dd = hist_a[ka, j]
                hist_d[s1 >> 3, h, s1 & 7] = dd
                hist_q[s1 >> 3, h, s1 & 7] = hist_a[s1, j] - dd
            hist_w[s1 >> 3, l, s1 & 7] = t1 - (k + fr) * dt
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
                hist_v[s1 >> 3, l, s1 & 7] = vdelay[l]

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
            hl = route_ptr[i + 1] - 1
            if estimator == EST_MONACO:
                b = n1 - eg_k[i]
                r_in = (hist_at(hist_d, hl, b, eg_f[i], n1) - hist_at(hist_d, hl, b - 1, eg_f[i], n1)) * inv_dt
                rbar[i] += (1.0 - math.exp(-dt / tau[i])) * (r_in - rbar[i])
                hist_r[s1 >> 3, i, s1 & 7] = rbar[i]
            hist_loss[s1 >> 3, i, s1 & 7] = loss[i]
            hist_x[s1 >> 3, i, s1 & 7] = x[i]

        if n1 % save_every == 0:
            row = n1 // save_every
            save(row, t1, n1)
            for i in range(n_flows):
                if not (math.isfinite(w[i]) and math.isfinite(x[i])):
                    return STATUS_NONFINITE, n1, i
            for l in range(n_links):
                if not math.isfinite(queue[l]):
                    return STATUS_NONFINITE, n1, n_flows + l
    return STATUS_OK, n_steps, -1


def workspace(ring, cap, delay0, w0, hop_flow, vegas_k):
    """The kernel's state and history arrays, zeroed (the kernel allocates nothing).

    Returned as one tuple in the order :func:`integrate` unpacks it.
    """
    n_links = cap.shape[0]
    n_hops = hop_flow.shape[0]
    n_flows = w0.shape[0]
    delay = delay0.copy()
    # cumulative accepted arrivals per hop, bits, (step, position j of the hop in link_hops)
    hist_a = np.zeros((ring, n_hops))
    hist_d = np.zeros((ring >> 3, n_hops, 8))  # cumulative departures per hop, bits
    hist_al = np.zeros((ring >> 3, n_links, 8))  # cumulative accepted arrivals per link, bits
    hist_w = np.zeros((ring >> 3, n_links, 8))  # sojourn of the bits departing, s
    hist_v = np.zeros((ring >> 3, n_links, 8))  # AVD virtual queueing delay, s
    hist_r = np.zeros((ring >> 3, n_flows, 8))  # Monaco EWMA of the egress rate, bit/s
    hist_loss = np.zeros((ring >> 3, n_flows, 8))  # cumulative lost bits per flow
    offered = np.zeros(n_hops)  # cumulative offered input of each hop (before drops)
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
    x_prev = np.zeros(n_flows)
    hist_q = np.zeros((ring >> 3, n_hops, 8))  # queued bits per hop, A - D
    hist_p = np.zeros((ring >> 3, n_links, 8))  # RED marking probability per link
    hist_x = np.zeros((ring >> 3, n_flows, 8))  # sending rate per flow, bit/s
    avgq = np.zeros(n_links)  # RED's averaged queue, bits
    pmark = np.zeros(n_links)  # RED's marking probability
    est_m = np.zeros(n_flows)  # Reno: marks per second reaching the sender
    est_p = np.zeros(n_flows)  # Reno: the path's marking probability seen
    ack_k = np.zeros(n_hops, np.int64)  # lag from a hop's departure to the sender's ACK
    ack_f = np.zeros(n_hops)
    rev_k = np.zeros(n_hops, np.int64)  # lag from a reverse hop's departure to the sender
    rev_f = np.zeros(n_hops)
    in_k = np.zeros(n_hops, np.int64)  # lag from the previous hop's departure to this hop
    in_f = np.zeros(n_hops)
    drev_k = np.zeros(n_flows, np.int64)
    drev_f = np.zeros(n_flows)
    rttp_k = np.zeros(n_flows, np.int64)
    rttp_f = np.zeros(n_flows)
    acc_k = np.zeros(n_hops, np.int64)  # lag from a hop's departure to the egress
    acc_f = np.zeros(n_hops)
    eg_k = np.zeros(n_flows, np.int64)
    eg_f = np.zeros(n_flows)
    return (
        delay,
        hist_a,
        hist_d,
        hist_al,
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
        last_halve,
        halve,
        active,
        min_rtt,
        ep_start,
        ep_min,
        ep_hist,
        ep_count,
        w_pred,
        x_prev,
        hist_q,
        hist_p,
        hist_x,
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
        acc_k,
        acc_f,
        eg_k,
        eg_f,
    )
