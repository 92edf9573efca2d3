"""The Numba integrator of the DCTCP fluid model (imported only when the model is solved).

One jitted function, :func:`integrate_dctcp`, sees only numbers and arrays and returns a
status code; :func:`qosmodels.fluid.dctcp.solve_dctcp_fluid` validates the inputs and
explains the codes.

The scheme, step ``n -> n + 1`` of size ``dt`` (``dt <= R* / 2`` with ``R* = d + K/C``, so
the delayed value every stage reads lies at or before step ``n``): the state ``(W, alpha,
q)`` follows Heun's method (predictor-corrector, as :mod:`qosmodels.fluid._mgt_kernel`).
The delayed mark ``p(t - R*) = 1{q(t - R*) > K}`` is the indicator of the queue at ``t -
R*``, linearly interpolated from a ring buffer of the past steps' queue (before time 0: the
initial queue).  The queue's derivative is zeroed when it is empty and would go negative
(the projection ``[.]^+`` of a fluid queue) and the step's result clamped to ``>= 0``; the
window is clamped to ``>= 0``.  ``alpha`` stays in [0, 1] by itself (it relaxes towards
``p``, which is 0 or 1, with ``dt g / R <= 1/2``).

Reference: M. Alizadeh, A. Javanmard, B. Prabhakar, "Analysis of DCTCP: stability,
convergence, and fairness", SIGMETRICS 2011 (the fluid model).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

STATUS_OK, STATUS_NONFINITE = 0, 1


@njit(cache=True)
def _delayed_q(h, n, u, mask, before):
    """Queue at step position ``u`` (may be fractional) of the ring ``h`` holding steps <= n."""
    if u < 0.0:
        return before
    k = int(math.floor(u))
    f = u - k
    if k >= n:
        return h[n & mask]
    return h[k & mask] * (1.0 - f) + h[(k + 1) & mask] * f


@njit(cache=True)
def _rates(N, C, d, K, g, W, a, q, qd):
    """``(dW/dt, dalpha/dt, dq/dt)`` at window ``W``, alpha ``a``, queue ``q`` and delayed
    queue ``qd``."""
    R = d + q / C
    p = 1.0 if qd > K else 0.0
    fW = 1.0 / R - W * a * p / (2.0 * R)
    fa = g / R * (p - a)
    fq = N * W / R - C
    if q <= 0.0 and fq < 0.0:
        fq = 0.0
    return fW, fa, fq


@njit(cache=True)
def integrate_dctcp(N, C, d, K, g, dt, n_steps, save_every, W_init, a_init, q_init, ring,
                    out_t, out_W, out_a, out_q, out_p):
    """Integrate; fill the ``out_*`` arrays (one row per ``save_every`` steps); return a status.

    ``out_p`` holds the delayed mark ``p(t - R*)`` the senders see at each saved instant.
    """
    mask = ring - 1
    hq = np.empty(ring)
    lag = (d + K / C) / dt  # R* in steps
    W = W_init
    a = a_init
    q = q_init
    j = 0
    for n in range(n_steps + 1):
        hq[n & mask] = q
        qd = _delayed_q(hq, n, n - lag, mask, q_init)
        if n % save_every == 0:
            out_t[j] = n * dt
            out_W[j] = W
            out_a[j] = a
            out_q[j] = q
            out_p[j] = 1.0 if qd > K else 0.0
            j += 1
        if n == n_steps:
            break
        fW1, fa1, fq1 = _rates(N, C, d, K, g, W, a, q, qd)
        Wp = max(W + dt * fW1, 0.0)
        ap = a + dt * fa1
        qp = max(q + dt * fq1, 0.0)
        qd2 = _delayed_q(hq, n, n + 1.0 - lag, mask, q_init)
        fW2, fa2, fq2 = _rates(N, C, d, K, g, Wp, ap, qp, qd2)
        W = max(W + 0.5 * dt * (fW1 + fW2), 0.0)
        a = a + 0.5 * dt * (fa1 + fa2)
        q = max(q + 0.5 * dt * (fq1 + fq2), 0.0)
        if not (math.isfinite(W) and math.isfinite(a) and math.isfinite(q)):
            return STATUS_NONFINITE
    return STATUS_OK
