"""The fluid integrator on threads: the step's parts over spans of flows and links.

:func:`integrate_threads` is :func:`qosmodels.fluid._kernels.integrate`'s time loop with the
per-flow and per-link parts run on ``nt`` threads (``numba.prange``, one span per thread),
three parallel regions a step:

1. ``inputs``: per thread, a block of flows that owns the same range of columns of the
   per-flow histories (:func:`plan` orders the columns by block, then by lag): the previous
   step's rate and loss rows (:func:`~._kernels.flow_rows`, deferred to here),
   :func:`~._kernels.gather`, :func:`~._kernels.measure` and :func:`~._kernels.predict`;
   and a span of links' :func:`~._kernels.transfers` (rows of finished steps only);
2. ``links``: :func:`~._kernels.queues` (with ``defer``: the lost bits kept per hop), then in
   the calling thread :func:`~._kernels.add_losses`, which adds them to the flows in the
   serial order;
3. ``after``: :func:`~._kernels.egress`, :func:`~._kernels.mark`, :func:`~._kernels.avq`,
   :func:`~._kernels.correct` and the next step's :func:`~._kernels.marks_seen` (each link's
   own rows of ``hist_p``, just written by ``mark``; :func:`marks` computes them at a call's
   start and after a delay change);

and :func:`~._kernels.save` in the calling thread.  Each part writes only the elements of its
span (a flow's, a column's, a link's or its hops'), and what a part reads was written before
the region boundary that precedes it, or in the same thread (``flow_rows``, ``gather`` and
``measure`` over the same flows and columns; ``mark`` then ``marks_seen`` over the same
links); there is no reduction across spans.  So every value is computed by the same
arithmetic in the same order as in the serial loop: the outputs are bit-identical
(``tests/fluid/test_threads.py``), whatever the number of threads.  (Four regions, with a
barrier between the reads and the measurements, cost a third more waiting when a thread is
descheduled: ``benchmarks/RESULTS.md``, session 48.)

A link whose next hops read the lines it writes in the same step (a zero delay, or under
``coarse_dt`` a delay below ``dt``: :func:`~._kernels.same_step`) makes the order of the
links matter: while there is one, :func:`~._kernels.queues` runs in the calling thread over
all links in ``link_order``, as in the serial loop.

The Python side is below (:func:`thread_count`, :func:`plan` with the spans, :func:`run_slice`
with the process-wide lock, :class:`LoopChoice`); :func:`qosmodels.fluid.run_compiled` calls it.
"""

from __future__ import annotations

import os
import threading

import numpy as np
from numba import njit, prange

from .. import _validate as v
from ..errors import ScenarioError
from ._kernels import (
    STATUS_NONFINITE,
    STATUS_OK,
    add_losses,
    avq,
    correct,
    egress,
    flow_rows,
    gather,
    mark,
    marks_seen,
    measure,
    predict,
    queues,
    same_step,
    save,
    set_lags,
    term_lists,
    transfers,
)

_JIT = dict(cache=True, error_model="numpy", _nrt=False)
_PAR = dict(_JIT, parallel=True)


def spans(weight: np.ndarray, nt: int) -> np.ndarray:
    """Bounds ``b`` (int64, shape ``(nt + 1,)``) of ``nt`` contiguous spans of the items
    ``0 .. len(weight) - 1``, item ``k`` in span ``t`` when ``b[t] <= k < b[t + 1]``, each
    span about the same total ``weight`` (the work per item: one per flow, the hops of a
    link)."""
    c = np.concatenate(([0.0], np.cumsum(np.asarray(weight, dtype=np.float64))))
    b = np.searchsorted(c, c[-1] * np.arange(nt + 1) / nt, side="left").astype(np.int64)
    b[0], b[-1] = 0, len(weight)
    return np.maximum.accumulate(b)


@njit(**_PAR)
def inputs(nt, fs, ls, n, dt, t1, n1, nmax, mask, smask, s_prev, rows_due, control, e_order,
           x_order, ek, ef, xk, xf, hist_e, hist_x, hist_loss, loss, loss_step, g, term_ptr,
           term_hop, hop_link, hop_rev, ack_k, ack_f, rev_k, rev_f, drev_k, drev_f,
           p_hop, hist_v, hist_w, hist_r, rttp, start, stop, pkt_bits, estimator, kk,
           rtt_p_error, x, rtt, active, est_p, est_m, est_a, est_tq, min_rtt, ep_start, ep_min,
           ep_hist, ep_count, loss_acted, last_halve, halve, w, f, w_min, w_pred, sent, max_rate,
           link_hop_ptr, j_next, lk_k, lk_f, hist_s, h_in, rttp_k, rttp_f, x_col):
    """Region 1, per thread: its block of flows (whose columns of the per-flow histories are
    the same range, :func:`plan`): the last step's rate and loss rows (``rows_due``), the
    delayed reads, the measurements and (``n >= 0``) the predictor; and its span of links'
    transfers (``n >= 0``)."""
    for t in prange(nt):
        fa, fb = fs[t], fs[t + 1]
        if rows_due:
            flow_rows(fa, fb, s_prev, control, x_order, x, loss, loss_step, hist_x, hist_loss)
        gather(fa, fb, n1, nmax, mask, control, e_order, x_order, ek, ef, xk, xf, hist_e,
               hist_x, g)
        measure(fa, fb, t1, n1, nmax, mask, term_ptr, term_hop, hop_link, hop_rev,
                ack_k, ack_f, rev_k, rev_f, drev_k, drev_f, p_hop, hist_v, hist_w, hist_r, g,
                rttp, start, stop, pkt_bits, control, estimator, kk, rtt_p_error, x, rtt, active,
                est_p, est_m, est_a, est_tq, min_rtt, ep_start, ep_min, ep_hist, ep_count,
                loss_acted, last_halve, halve, rttp_k, rttp_f, x_col, loss, loss_step,
                hist_loss)
        if n >= 0:
            predict(fa, fb, dt, w, f, w_min, w_pred, x, sent, active, rtt, max_rate)
            transfers(ls[t], ls[t + 1], n1, smask, link_hop_ptr, j_next, lk_k, lk_f, hist_s,
                      h_in)


@njit(**_PAR)
def marks(nt, ls, n1, nmax, mask, link_hop_ptr, red, j_hop, pj_k, pj_f, hist_p, p_hop):
    """The marking probabilities the flows' senders see at n1 (:func:`~._kernels.marks_seen`)
    over the threads' spans of links: at a run's (or a call's) start and after a delay
    change; otherwise region 3 computes them for the next step."""
    for t in prange(nt):
        marks_seen(ls[t], ls[t + 1], n1, nmax, mask, link_hop_ptr, red, j_hop, pj_k, pj_f,
                   hist_p, p_hop)


@njit(**_PAR)
def links(nt, os_, tstat, n, s1, dt, smask, cap, buf, link_order, link_hop_ptr, a_off, a_mask,
          j_prev, j_flow, j_next, lk_k, lk_f, sent, h_in, offered, inc_t, lam_l, queue, departed,
          ptr, hist_a, hist_s, hist_w, loss, loss_step, hop_lost, dropped):
    """Region 3: the queues of each thread's span of ``link_order`` positions, the lost bits
    kept per hop; ``tstat[t]``: the span's ``(status, link)``; ``inc_t[t]``: its scratch."""
    for t in prange(nt):
        st, l = queues(os_[t], os_[t + 1], n, s1, dt, smask, cap, buf, link_order,
                       link_hop_ptr, a_off, a_mask, j_prev, j_flow, j_next, lk_k, lk_f, sent,
                       h_in, offered, inc_t[t], lam_l, queue, departed, ptr, hist_a, hist_s,
                       hist_w, loss, loss_step, True, hop_lost, dropped)
        tstat[t, 0] = st
        tstat[t, 1] = l


@njit(**_PAR)
def after(nt, fs, ls, n, n1, s1, t1, dt, inv_dt, mask, smask, any_avd, any_red, link_hop_ptr,
          j_hop, pj_k, pj_f, p_hop, e_order, last_j, hist_s,
          hist_e, red, aqm, aqm_prm, aqm_s, cap, queue, avgq, red_rate, red_min, red_max,
          red_maxp, red_top, pmark, hist_p, avd, avd_gamma, avd_alpha, buf, lam_l, vq, vcap,
          vdelay, hist_v, control, estimator, kappa, w, w_pred, f, x, halve, w_min, active,
          pkt_bits, rtt, rttp, est_m, est_tq, est_a, target, max_rate, eg_k, eg_f, tau, rbar,
          hist_r):
    """Region 3: (``n >= 0``) the egress rows, the marks and AVD per link; the corrector;
    with ``any_red``, the marking probabilities of the next step (:func:`marks`: the rows
    of ``hist_p`` they read are the thread's own links', just written)."""
    for t in prange(nt):
        fa, fb, la, lb = fs[t], fs[t + 1], ls[t], ls[t + 1]
        if n >= 0:
            egress(fa, fb, n1, s1, smask, e_order, last_j, hist_s, hist_e)
            mark(la, lb, t1, s1, dt, red, aqm, aqm_prm, aqm_s, cap, queue, avgq, red_rate,
                 red_min, red_max, red_maxp, red_top, pmark, hist_p)
            if any_avd:
                avq(la, lb, s1, dt, avd, avd_gamma, avd_alpha, cap, buf, lam_l, vq, vcap,
                    vdelay, hist_v)
        if any_red:
            marks_seen(la, lb, n1 + 1, max(n1, 0), mask, link_hop_ptr, red, j_hop, pj_k, pj_f,
                       hist_p, p_hop)
        correct(fa, fb, n, n1, s1, dt, inv_dt, smask, control, estimator, kappa, w, w_pred,
                f, x, halve, w_min, active, pkt_bits, rtt, rttp, est_m, est_tq, est_a, target,
                max_rate, last_j, eg_k, eg_f, tau, rbar, hist_r, hist_s)


@njit(**_JIT)
def integrate_threads(
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
    out_lost, work, n_from, n_to, progress, nt, fs, ls, os_, tstat, inc_t,
):
    """:func:`qosmodels.fluid._kernels.integrate` on ``nt`` threads (the same arguments, the
    same states in ``work`` and ``progress``, the same numbers), then: ``fs``, ``ls`` and
    ``os_`` (int64, ``(nt + 1,)``, :func:`spans`), the threads' spans of flows (and columns),
    of links and of positions in ``link_order``; ``tstat`` (int64, ``(nt, 2)``) and
    ``inc_t`` (``(nt, k)``, k the most hops of a link: each thread's scratch for
    :func:`~._kernels.queues`)."""
    n_links = cap.shape[0]
    mask = (ring - 1) & 0x7FFFFFFFFFFFFFFF
    smask = (ring_s - 1) & 0x7FFFFFFFFFFFFFFF
    inv_dt = 1.0 / dt
    (delay, hist_a, h_in, hist_w, hist_v, hist_r, hist_loss, offered, inc, lam_l,
     queue, departed, ptr, vq, vcap, vdelay, sent, w, x, f, rtt, rttp, est_a, est_tq, rbar,
     loss, loss_acted, loss_step, last_halve, halve, active, min_rtt, ep_start, ep_min,
     ep_hist, ep_count, w_pred, hist_s, hist_p, hist_x, hist_e, avgq, pmark, est_m, est_p,
     g, ack_k, ack_f, rev_k, rev_f, lk_k, lk_f, drev_k, drev_f,
     rttp_k, rttp_f, eg_k, eg_f, aqm_s, ek, ef, xk, xf, pj_k, pj_f, p_hop, hop_lost,
     dropped, term_ptr, term_hop) = work
    kk = max(vegas_k, 1)
    any_avd = False
    any_red = False
    for l in range(n_links):
        if avd[l]:
            any_avd = True
        if red[l]:
            any_red = True
    term_lists(route_ptr, hop_link, hop_rev, red, avd, term_ptr, term_hop)
    n_events = ev_time.shape[0]
    ev = progress[0]
    changed = True
    any_same = False
    rows_due = False  # flow_rows of the last iteration, not yet done (done in region 1)
    fresh = True
    s_prev = 0
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
            fresh = True  # (the lags of marks_seen changed: recomputed this step)
            any_same = False
            for l in range(n_links):
                if same_step(l, lk_k, lk_f):
                    any_same = True
        nmax = max(n, 0)
        if any_red and (fresh or n == n_from):  # (else region 3 computed them last step)
            marks(nt, ls, n1, nmax, mask, link_hop_ptr, red, j_hop, pj_k, pj_f, hist_p, p_hop)
        fresh = False
        inputs(nt, fs, ls, n, dt, t1, n1, nmax, mask, smask, s_prev, rows_due, control, e_order,
               x_order, ek, ef, xk, xf, hist_e, hist_x, hist_loss, loss, loss_step, g, term_ptr,
               term_hop, hop_link, hop_rev, ack_k, ack_f, rev_k, rev_f, drev_k,
               drev_f, p_hop, hist_v, hist_w, hist_r, rttp, start, stop, pkt_bits, estimator, kk,
               rtt_p_error, x, rtt, active, est_p, est_m, est_a, est_tq, min_rtt, ep_start,
               ep_min, ep_hist, ep_count, loss_acted, last_halve, halve, w, f, w_min, w_pred,
               sent, max_rate, link_hop_ptr, j_next, lk_k, lk_f, hist_s, h_in, rttp_k, rttp_f,
               x_col)
        rows_due = False
        if n >= 0:
            if any_same:  # the links' order matters: all of them here, in link_order
                status, l = queues(0, n_links, n, s1, dt, smask, cap, buf, link_order,
                                   link_hop_ptr, a_off, a_mask, j_prev, j_flow, j_next, lk_k,
                                   lk_f, sent, h_in, offered, inc, lam_l, queue, departed, ptr,
                                   hist_a, hist_s, hist_w, loss, loss_step, False, hop_lost,
                                   dropped)
                if status != STATUS_OK:
                    return status, n1, l
            else:
                links(nt, os_, tstat, n, s1, dt, smask, cap, buf, link_order, link_hop_ptr,
                      a_off, a_mask, j_prev, j_flow, j_next, lk_k, lk_f, sent, h_in, offered,
                      inc_t, lam_l, queue, departed, ptr, hist_a, hist_s, hist_w, loss,
                      loss_step, hop_lost, dropped)
                for t in range(nt):  # (the first failing link in link_order, as serially)
                    if tstat[t, 0] != STATUS_OK:
                        return tstat[t, 0], n1, tstat[t, 1]
                add_losses(n1, link_order, link_hop_ptr, j_flow, hop_lost, dropped, loss,
                           loss_step)
        after(nt, fs, ls, n, n1, s1, t1, dt, inv_dt, mask, smask, any_avd, any_red,
              link_hop_ptr, j_hop, pj_k, pj_f, p_hop, e_order, last_j, hist_s,
              hist_e, red, aqm, aqm_prm, aqm_s, cap, queue, avgq, red_rate, red_min, red_max,
              red_maxp, red_top, pmark, hist_p, avd, avd_gamma, avd_alpha, buf, lam_l, vq, vcap,
              vdelay, hist_v, control, estimator, kappa, w, w_pred, f, x, halve, w_min, active,
              pkt_bits, rtt, rttp, est_m, est_tq, est_a, target, max_rate, eg_k, eg_f, tau,
              rbar, hist_r)
        if n >= 0:
            rows_due = True
            s_prev = s1
        if n1 % save_every == 0:
            bad = save(n1 // save_every, t1, n1, smask, control, estimator, last_j, eg_k, eg_f,
                       hist_s, w, x, rtt, est_p, est_tq, est_a, active, loss, queue, vdelay,
                       pmark, departed, out_t, out_w, out_x, out_rtt, out_est, out_acc, out_q,
                       out_vq, out_mark, out_dep, out_deliv, out_lost)
            if bad >= 0:
                return STATUS_NONFINITE, n1, bad
    if rows_due:  # (the next call starts from finished rows, as the serial loop leaves them)
        for t in range(nt):
            flow_rows(fs[t], fs[t + 1], s_prev, control, x_order, x, loss, loss_step, hist_x,
                      hist_loss)
    progress[1] = n_to
    return STATUS_OK, n_to, -1


# ------------------------------------------------------------------ the Python side
#: Step-updates of one step (hops + flows + links + 16, :func:`~._compile.step_work`) below
#: which ``solve_fluid`` runs the serial loop whatever ``threads`` says: a parallel region
#: costs some microseconds to start and join (four a step), more than a small step's work.
THREADS_MIN_WORK = 20_000

#: One parallel kernel at a time in the process: Numba's ``workqueue`` threading layer (its
#: fallback when neither TBB nor OpenMP is installed) aborts the process when two Python
#: threads enter parallel code at once.  A call that finds it taken runs its slice serially
#: (the same numbers), so concurrent ``solve_fluid`` calls never wait on each other.
_LOCK = threading.Lock()
#: The threading layer of the first threaded slice; a child forked from a GNU OpenMP process
#: (``unsafe``); the threaded slices run in this process and their steps (``slices``,
#: ``steps``: what the benchmark reports).
_state = {"layer": None, "unsafe": False, "slices": 0, "steps": 0}


def _after_fork_in_child() -> None:
    # GNU OpenMP cannot run parallel regions in a child forked after the parent ran one
    # (Numba then terminates the child): such a child runs the serial loop
    if _state["layer"] == "omp":
        _state["unsafe"] = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def thread_count(threads) -> int:
    """The number of threads ``solve_fluid(threads=...)`` asks for: ``None`` is Numba's
    current count (``numba.get_num_threads()``), an int from 1 to Numba's maximum
    (``NUMBA_NUM_THREADS``) itself; anything else is refused, naming the field."""
    if threads is None:
        import numba

        return int(numba.get_num_threads())
    n = v.integer("solve_fluid", "threads", threads, ge=1)
    from numba import config

    top = int(config.NUMBA_NUM_THREADS)
    if n > top:
        raise ScenarioError(
            f"solve_fluid.threads must be None or an integer from 1 to {top} (Numba's "
            f"NUMBA_NUM_THREADS on this machine), got {threads!r}; pass threads=None for "
            f"Numba's default")
    return n


def plan(comp, n_threads: int, work: int):
    """``(comp, extra)``: the arguments of :func:`integrate_threads` beyond the serial loop's
    for ``comp`` on ``n_threads`` threads, with ``comp``'s per-flow column orders grouped by
    the threads' blocks of flows; or ``(comp, None)`` when the serial loop is to run (one
    thread, a step of fewer than :data:`THREADS_MIN_WORK` step-updates, Numba without JIT,
    or a child forked from a process that ran GNU OpenMP).

    Thread ``t`` owns flows ``fs[t]`` to ``fs[t + 1] - 1`` and, in the time-major per-flow
    histories, the same range of columns: the columns are ordered by block, then by lag as
    :mod:`._compile` orders them (a layout only: any order gives the same numbers), so that
    one region reads a flow's delayed values and measures it without a barrier between."""
    from numba import config

    if (n_threads <= 1 or work < THREADS_MIN_WORK or config.DISABLE_JIT
            or _state["unsafe"]):
        return comp, None
    nt = n_threads
    hops = np.diff(comp.link_hop_ptr)
    n_flows = comp.w0.shape[0]
    fs = spans(np.ones(n_flows), nt)
    block = np.repeat(np.arange(nt), np.diff(fs))
    orders = {}
    for name in ("e", "x"):
        order = getattr(comp, f"{name}_order")
        order = order[np.argsort(block[order], kind="stable")].astype(np.int32)
        orders[f"{name}_order"] = order
        orders[f"{name}_col"] = np.argsort(order).astype(np.int32)
    comp = comp._replace(**orders)
    ls = spans(hops + 1, nt)
    os_ = spans(hops[comp.link_order] + 1, nt)
    return comp, (nt, fs, ls, os_, np.zeros((nt, 2), np.int64),
                  np.zeros((nt, max(1, int(hops.max()))), np.float64))


def run_slice(args, n_from: int, n_to: int, progress, extra):
    """One slice of the run; returns ``(kernel's result, threaded)``: :func:`integrate_threads`
    when ``extra`` (:func:`plan`) is given and no other thread of the process is in a
    parallel kernel (else, and in a child forked from a process that ran GNU OpenMP, the
    serial :func:`~._kernels.integrate`: the same numbers)."""
    from ._kernels import integrate

    if extra is None or _state["unsafe"] or not _LOCK.acquire(blocking=False):
        return integrate(*args, n_from, n_to, progress), False
    import numba

    try:
        before = numba.get_num_threads()
        numba.set_num_threads(extra[0])
        try:
            out = integrate_threads(*args, n_from, n_to, progress, *extra)
        finally:
            numba.set_num_threads(before)
        if _state["layer"] is None:
            _state["layer"] = numba.threading_layer()
        _state["slices"] += 1
        _state["steps"] += out[1] - n_from
        return out, True
    finally:
        _LOCK.release()


class LoopChoice:
    """Which loop runs each slice of a run, and how long the slice is.

    With ``adaptive`` (``solve_fluid(threads=None)``), the threaded and the serial loops are
    timed on short probe slices (``1 / PROBE`` of a slice) at the start, and the slices run
    the loop that took less wall time per step (each full slice updating its loop's time);
    the other loop is probed again after ``EVERY`` full slices, an interval that doubles
    each time the probe loses (up to ``EVERY_MAX``) and is reset when it wins.  Threads help
    only when the cores are free: on a machine whose cores other processes use, a parallel
    region waits for a thread the system has not scheduled (issue 37: a step of the
    10^4-flow network took 25-32 ms on two threads against 1.1-1.6 ms on one while other
    processes ran, and 1.0-1.4 ms against 1.6-2.0 ms (Reno/RED) when they paused;
    ``benchmarks/RESULTS.md``, session 48).  A probe is ``1 / PROBE`` of a slice: where the
    threads are 25 times slower it costs about three quarters of a slice more than the serial
    loop would, once in ``EVERY_MAX`` slices at most.  The results are the same whichever
    loop runs.  Without ``adaptive``, every slice runs the threaded loop (an
    explicit ``threads``; :func:`run_slice` still falls back to the serial loop when the
    lock is taken).
    """

    PROBE = 32
    EVERY = 4
    EVERY_MAX = 16

    def __init__(self, adaptive: bool, chunk: int):
        self.adaptive = adaptive
        self.chunk = chunk
        self.per_step = {True: None, False: None}  # wall seconds per step of each loop
        self.every = self.EVERY
        self.full = 0  # full slices since the last probe
        self.probing = None  # the loop of the probe under way, if any

    def best(self) -> bool:
        return self.per_step[True] <= self.per_step[False]

    def next(self) -> tuple[bool, int]:
        """``(threads, steps)`` of the next slice."""
        if not self.adaptive:
            return True, self.chunk
        probe = max(1, self.chunk // self.PROBE)
        for mode in (True, False):
            if self.per_step[mode] is None:
                return mode, probe
        best = self.best()
        if self.full >= self.every:
            self.full = 0
            self.probing = not best
            return not best, probe
        self.full += 1
        return best, self.chunk

    def record(self, threaded: bool, steps: int, seconds: float) -> None:
        """A slice of ``steps`` steps took ``seconds`` (wall) on the loop it ran on."""
        if steps <= 0:
            return
        self.per_step[threaded] = seconds / steps
        if self.probing is not None and self.per_step[False] is not None:
            lost = self.best() != self.probing
            self.every = min(2 * self.every, self.EVERY_MAX) if lost else self.EVERY
            self.probing = None
