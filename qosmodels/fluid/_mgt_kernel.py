"""The Numba integrator of the Misra-Gong-Towsley model (imported only when a model is solved).

One jitted function, :func:`integrate_mgt`, sees only numbers and arrays and returns a status
code; :func:`qosmodels.fluid.mgt.solve_mgt` validates the inputs and explains the codes.

The scheme, step ``n -> n + 1`` of size ``dt`` (``dt <= Tp / 2``, so every delayed value the
step reads lies at or before step ``n``): the state ``(W, q, x)`` (window, queue, RED's
averaged queue) follows Heun's method (predictor-corrector); the delayed ``W(t-R)``,
``p(t-R)``, ``R(t-R)`` with ``R = q(t)/C + Tp`` are linearly interpolated from ring buffers of
the past steps (before time 0: the initial values).  The queue is clamped to ``[0, buffer]``
(its derivative is zeroed at a bound it would cross, and the step's result clamped), the
window to ``>= 0``.  The loss probability: RED's ramp of ``x`` (Hollot et al. 2001: 0 below
``min_th``, linear to ``max_p`` at ``max_th``, 1 above; "gentle": linear from ``max_p`` to 1
between ``max_th`` and ``2 max_th``), or the discrete PI controller
``p[k] = p[k-1] + a (q[k] - q_ref) - b (q[k-1] - q_ref)`` updated at the sampling instants
``k / sampling_rate`` (clamped to [0, 1], as ns-2's ``pi.cc`` does), held between them; or
PIE's ``calculate_drop_prob`` (RFC 8033, Section 4.2 and Appendix A) at the instants
``k t_update``, on the fluid queueing delay ``q/C``: ``d = alpha (q/C - target) + beta (q/C -
q_old/C)``, divided by the auto-tuning factor of the current ``p`` (2048 below 1e-6, 512 below
1e-5, 128 below 1e-4, 32 below 1e-3, 8 below 1e-2, 2 below 0.1, else 1), added to ``p``, then
``p`` times 0.98 when both delays are 0, clamped to [0, 1]; held between the instants.

Timeouts (:func:`integrate_mgt_to` with ``to_k > 0``; off in :func:`integrate_mgt`): the
window's derivative is Misra, Gong and Towsley's Section 2.3 form (SIGCOMM 2000), a loss being
a timeout with probability ``Q(W) = min(1, to_k / W)`` (``to_k`` = 3: the paper's, after
Padhye et al.)::

    dW/dt = 1/R - (1 - Q(W)) W W(t-R) p(t-R) / (2 R(t-R))
                + (1 - W) Q(W) W(t-R) p(t-R) / R(t-R)

and the expected timeouts of one flow, ``int Q(W) W(t-R) p(t-R) / R(t-R) dt``, are integrated
by the same Heun steps (saved cumulatively).  With ``to_k = 0`` the step computes exactly the
expressions of the model without timeouts.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

LAW_RED, LAW_PI, LAW_PIE = 0, 1, 2
STATUS_OK, STATUS_NONFINITE = 0, 1


@njit(cache=True)
def _lookup(h, n, u, mask, before):
    """Value at step position ``u`` (may be fractional) of the ring ``h`` holding steps <= n."""
    if u < 0.0:
        return before
    k = int(math.floor(u))
    f = u - k
    if k >= n:
        return h[n & mask]
    return h[k & mask] * (1.0 - f) + h[(k + 1) & mask] * f


@njit(cache=True)
def _ramp(x, min_th, max_th, max_p, gentle):
    if x < min_th:
        return 0.0
    if x <= max_th:
        return max_p * (x - min_th) / (max_th - min_th)
    if gentle != 0.0 and x < 2.0 * max_th:
        return max_p + (1.0 - max_p) * (x - max_th) / max_th
    return 1.0


@njit(cache=True)
def pie_update(p, qdelay, qdelay_old, alpha, beta, target):
    """RFC 8033's ``calculate_drop_prob`` (Appendix A) without its burst allowance: the new
    drop probability from the old ``p`` and the delays now and at the last update, s."""
    d = alpha * (qdelay - target) + beta * (qdelay - qdelay_old)
    if p < 0.000001:
        d /= 2048.0
    elif p < 0.00001:
        d /= 512.0
    elif p < 0.0001:
        d /= 128.0
    elif p < 0.001:
        d /= 32.0
    elif p < 0.01:
        d /= 8.0
    elif p < 0.1:
        d /= 2.0
    p += d
    if qdelay == 0.0 and qdelay_old == 0.0:
        p *= 0.98
    return min(max(p, 0.0), 1.0)


@njit(cache=True)
def _q_timeout(W, to_k):
    """The probability that a loss is a timeout at window ``W``: ``min(1, to_k / W)``."""
    if W <= to_k:
        return 1.0
    return to_k / W


@njit(cache=True)
def integrate_mgt(N, C, Tp, buffer, dt, n_steps, save_every, law, prm, W_init, q_init,
                  x_init, p_init, ring, out_t, out_W, out_q, out_p, out_x, out_R):
    """Integrate the model without timeouts; fill the ``out_*`` arrays (one row per
    ``save_every`` steps); return a status.

    ``prm``: RED ``(min_th, max_th, max_p, K, gentle)``; PI ``(a, b, T, q_ref)``; PIE
    ``(alpha, beta, T, target)`` (1/s, 1/s, s, s).
    """
    return integrate_mgt_to(N, C, Tp, buffer, dt, n_steps, save_every, law, prm, W_init,
                            q_init, x_init, p_init, ring, out_t, out_W, out_q, out_p, out_x,
                            out_R, 0.0, np.empty(0))


@njit(cache=True)
def integrate_mgt_to(N, C, Tp, buffer, dt, n_steps, save_every, law, prm, W_init, q_init,
                     x_init, p_init, ring, out_t, out_W, out_q, out_p, out_x, out_R, to_k,
                     out_to):
    """:func:`integrate_mgt` with timeouts when ``to_k > 0`` (``Q(W) = min(1, to_k / W)``);
    ``out_to`` (as long as the others; unused when ``to_k = 0``) gets the expected
    timeouts of one flow since 0."""
    mask = ring - 1
    hW = np.empty(ring)
    hp = np.empty(ring)
    hR = np.empty(ring)
    W = W_init
    q = q_init
    x = x_init
    if law == LAW_RED:
        p = _ramp(x, prm[0], prm[1], prm[2], prm[4])
    else:
        p = p_init
    q_old = q  # PI: the queue at the previous sample
    next_sample = prm[2] if law != LAW_RED else 0.0
    k_sample = 1
    W0 = W
    p0 = p
    R0 = q / C + Tp
    K = prm[3] if law == LAW_RED else 0.0
    timeouts = to_k > 0.0
    n_to = 0.0  # expected timeouts of one flow since 0
    r1 = 0.0
    r2 = 0.0
    j = 0
    for n in range(n_steps + 1):
        t = n * dt
        R = q / C + Tp
        hW[n & mask] = W
        hp[n & mask] = p
        hR[n & mask] = R
        if n % save_every == 0:
            out_t[j] = t
            out_W[j] = W
            out_q[j] = q
            out_p[j] = p
            out_x[j] = x
            out_R[j] = R
            if timeouts:
                out_to[j] = n_to
            j += 1
        if n == n_steps:
            break
        # ---- predictor
        u = (t - R) / dt
        Wd = _lookup(hW, n, u, mask, W0)
        pd = _lookup(hp, n, u, mask, p0)
        Rd = _lookup(hR, n, u, mask, R0)
        if timeouts:
            Q = _q_timeout(W, to_k)
            r1 = Q * Wd * pd / Rd
            fW1 = 1.0 / R - (1.0 - Q) * W * Wd * pd / (2.0 * Rd) + (1.0 - W) * r1
        else:
            fW1 = 1.0 / R - W * Wd * pd / (2.0 * Rd)
        fq1 = N * W / R - C
        if (q <= 0.0 and fq1 < 0.0) or (q >= buffer and fq1 > 0.0):
            fq1 = 0.0
        fx1 = K * (q - x)
        Wp = max(W + dt * fW1, 0.0)
        qp = min(max(q + dt * fq1, 0.0), buffer)
        xp = x + dt * fx1
        # ---- corrector, at t + dt (its delayed values lie at or before step n)
        Rp = qp / C + Tp
        u = (t + dt - Rp) / dt
        Wd = _lookup(hW, n, u, mask, W0)
        pd = _lookup(hp, n, u, mask, p0)
        Rd = _lookup(hR, n, u, mask, R0)
        if timeouts:
            Q = _q_timeout(Wp, to_k)
            r2 = Q * Wd * pd / Rd
            fW2 = 1.0 / Rp - (1.0 - Q) * Wp * Wd * pd / (2.0 * Rd) + (1.0 - Wp) * r2
            n_to += 0.5 * dt * (r1 + r2)
        else:
            fW2 = 1.0 / Rp - Wp * Wd * pd / (2.0 * Rd)
        fq2 = N * Wp / Rp - C
        if (qp <= 0.0 and fq2 < 0.0) or (qp >= buffer and fq2 > 0.0):
            fq2 = 0.0
        fx2 = K * (qp - xp)
        W = max(W + 0.5 * dt * (fW1 + fW2), 0.0)
        q = min(max(q + 0.5 * dt * (fq1 + fq2), 0.0), buffer)
        x = x + 0.5 * dt * (fx1 + fx2)
        if not (math.isfinite(W) and math.isfinite(q) and math.isfinite(x)):
            return STATUS_NONFINITE
        # ---- the loss probability at t + dt
        if law == LAW_RED:
            p = _ramp(x, prm[0], prm[1], prm[2], prm[4])
        elif law == LAW_PIE:
            while (n + 1) * dt >= next_sample - 1e-12 * dt:
                p = pie_update(p, q / C, q_old / C, prm[0], prm[1], prm[3])
                q_old = q
                k_sample += 1
                next_sample = k_sample * prm[2]
        else:
            while (n + 1) * dt >= next_sample - 1e-12 * dt:
                p = p + prm[0] * (q - prm[3]) - prm[1] * (q_old - prm[3])
                p = min(max(p, 0.0), 1.0)
                q_old = q
                k_sample += 1
                next_sample = k_sample * prm[2]
    return STATUS_OK
