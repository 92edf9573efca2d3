"""Reference formulations of the ACC fluid model for the other integrators (jitcdde, solve_ivp).

These are the independent second implementations the Numba integrator is
compared with (benchmarks/bench_fluid.py, the slow test in
tests/fluid/test_reference.py).  They write the same model in the classic
per-flow form, which an adaptive DDE or ODE solver can take, instead of the
kernel's cumulative arrival curves:

* states: windows ``w_i`` (bits) and per-flow, per-hop queues ``q_ih`` (bits);
* ``x_i = w_i / rtt_i``, ``rtt_i(t) = rtt_p,i + sum_h Q_l(t - s_h) / c_l``
  (``s_h``: the propagation time from hop h's link back to the sender);
* a FIFO link serves flows in proportion to their queued bits, smoothed near
  an empty queue: ``dq_ih/dt = (lambda_ih (Q_l + eta) - c_l q_ih) / (Q_l + eps)``,
  so queues stay non-negative without a projection, an empty queue can grow
  (``eta``, one byte, seeds it) and the equilibrium is the kernel's up to
  ``eta / Q_l`` (a saturated link carries ``c_l Q_l / (Q_l + eta)``;
  ``q_ih / Q_l = lambda_ih / c_l``);
* a hop's input is the previous hop's output one propagation delay earlier;
* P control on the ideal accumulation, eq (1), fed back over the reverse
  propagation delay.

Nothing here is imported by ``import qosmodels`` or ``import qosmodels.fluid``;
jitcdde is imported inside :func:`jitcdde_model` and is not a dependency.
"""

from __future__ import annotations

import numpy as np

from ..network import Network

__all__ = ["jitcdde_model", "ivp_rhs", "initial_state", "solve_lsoda", "EPS_BITS", "ETA_BITS",
           "LSODA_RTOL", "LSODA_ATOL"]

#: Smoothing of the empty queue, bits (one 1000-byte packet).
EPS_BITS = 8000.0
#: Seed of an empty queue, bits (one byte).
ETA_BITS = 8.0
#: Initial queue of every hop, bits.
Q0_BITS = 0.0
#: Tolerances of ``solve_fluid(method="lsoda")`` (relative; absolute in bits).
LSODA_RTOL = 1e-8
LSODA_ATOL = 1e-6


def _layout(net: Network):
    hop_link = net.route_links
    ptr = net.route_ptr
    F, H = net.n_flows, len(hop_link)
    delays = net.delays
    rev = net.reverse_route_links
    rev_d = np.where(rev >= 0, delays[np.maximum(rev, 0)], delays[hop_link])
    return hop_link, ptr, F, H, delays, rev, rev_d


def initial_state(net: Network, initial_window: float = 1.0) -> np.ndarray:
    """``[w_0..w_{F-1}, q_0..q_{H-1}]`` at t = 0: one-packet windows, near-empty queues."""
    pkt = net.packet_sizes * 8.0
    return np.concatenate([initial_window * pkt, np.full(len(net.route_links), Q0_BITS)])


def jitcdde_model(net: Network, *, kappa: float = 0.2, target: float = 3000,
                  eps: float = EPS_BITS, verbose: bool = False):
    """A :class:`jitcdde.jitcdde` integrator of the reference DDE (P control, ideal estimator).

    The caller sets the past (``constant_past(initial_state(net))``), handles
    the initial discontinuities and integrates.  State order as
    :func:`initial_state`.
    """
    from jitcdde import jitcdde, t, y

    hop_link, ptr, F, H, delays, rev, rev_d = _layout(net)
    cap = net.capacities
    a_star = target * 8.0

    def w(i, lag=0.0):
        return y(i, t - lag) if lag > 0 else y(i)

    def q(h, lag=0.0):
        return y(F + h, t - lag) if lag > 0 else y(F + h)

    link_hops = [[h for h in range(H) if hop_link[h] == l] for l in range(net.n_links)]

    def Q(l, lag=0.0):
        return sum(q(h, lag) for h in link_hops[l])

    rttp = net.rtt

    def rtt(i, lag=0.0):
        hs = range(ptr[i], ptr[i + 1])
        drev = float(sum(rev_d[h] for h in hs))
        total = rttp[i]
        sf = 0.0
        for h in reversed(hs):
            sf += delays[hop_link[h]]
            total = total + Q(hop_link[h], lag + sf + drev) / cap[hop_link[h]]
        sr = 0.0
        for h in hs:
            sr += rev_d[h]
            if rev[h] >= 0:
                total = total + Q(rev[h], lag + sr) / cap[rev[h]]
        return total

    def lam(i, h, lag=0.0):
        if h == ptr[i]:
            return w(i, lag) / rtt(i, lag)
        p = h - 1
        lp = lag + delays[hop_link[p]]
        lk = hop_link[p]
        return (cap[lk] * q(p, lp) + (eps - ETA_BITS) * lam(i, p, lp)) / (Q(lk, lp) + eps)

    f = []
    for i in range(F):
        hs = range(ptr[i], ptr[i + 1])
        drev = float(sum(rev_d[h] for h in hs))
        acc = 0
        sf = 0.0
        for h in reversed(hs):
            sf += delays[hop_link[h]]
            acc = acc + q(h, sf + drev)
        f.append(-kappa / rtt(i) * (acc - a_star))
    for h in range(H):
        i = int(np.searchsorted(ptr, h, side="right") - 1)
        l = hop_link[h]
        f.append((lam(i, h) * (Q(l) + ETA_BITS) - cap[l] * q(h)) / (Q(l) + eps))
    # a hop's input reaches back over the upstream delays and then a round trip
    max_delay = 2.0 * float(np.max(net.rtt)) + 1e-6
    return jitcdde(f, max_delay=max_delay, verbose=verbose)


def ivp_rhs(net: Network, *, kappa: float = 0.2, target=3000, eps: float = EPS_BITS):
    """``f(t, state)`` of the reference model with every delay set to zero (an ODE for solve_ivp).

    The round-trip time keeps its propagation part, so ``x = w / (rtt_p + sum Q / c)``.
    ``target`` (bytes) is one number or one per flow.
    """
    hop_link, ptr, F, H, delays, rev, rev_d = _layout(net)
    cap = net.capacities
    a_star = np.asarray(target, dtype=np.float64) * 8.0
    flow_of = np.repeat(np.arange(F), np.diff(ptr))
    first = ptr[:-1]
    pos = np.arange(H) - ptr[flow_of]
    max_hops = int(pos.max()) + 1 if H else 0
    rttp = net.rtt
    cap_h = cap[hop_link]

    def f(t, s):
        w, q = s[:F], s[F:]
        Q = np.bincount(hop_link, weights=q, minlength=net.n_links)
        Qh = Q[hop_link]
        d = np.bincount(flow_of, weights=Qh / cap_h, minlength=F)
        d = d + np.bincount(flow_of, weights=np.where(rev >= 0, Q[np.maximum(rev, 0)] /
                                                        cap[np.maximum(rev, 0)], 0.0), minlength=F)
        rtt = rttp + d
        lam = np.empty(H)
        lam[first] = w / rtt
        for k in range(1, max_hops):
            hs = np.flatnonzero(pos == k)
            p = hs - 1
            lam[hs] = (cap_h[p] * q[p] + (eps - ETA_BITS) * lam[p]) / (Qh[p] + eps)
        acc = np.bincount(flow_of, weights=q, minlength=F)
        dw = -kappa / rtt * (acc - a_star)
        dq = (lam * (Qh + ETA_BITS) - cap_h * q) / (Qh + eps)
        return np.concatenate([dw, dq])

    return f


def _observables(net: Network, state: np.ndarray):
    """Windows, RTTs, per-link queues and per-flow accumulations of states ``(T, F + H)``."""
    hop_link, ptr, F, H, delays, rev, rev_d = _layout(net)
    w, q = state[:, :F], state[:, F:]
    L = net.n_links
    Q = np.zeros((len(state), L))
    np.add.at(Q.T, hop_link, q.T)
    Qd = Q / net.capacities
    rtt = net.rtt + np.asarray((net.routing_matrix.T @ Qd.T).T)
    # reverse-path queueing (declared reverse links), as in ivp_rhs
    flow_of = np.repeat(np.arange(F), np.diff(ptr))
    for h in np.flatnonzero(rev >= 0):
        rtt[:, flow_of[h]] += Qd[:, rev[h]]
    acc = np.zeros((len(state), F))
    np.add.at(acc.T, flow_of, q.T)
    return w, rtt, Q, acc


def solve_lsoda(net: Network, comp, options: dict):
    """``solve_fluid(method="lsoda")``: the model without propagation delays through LSODA.

    ``comp`` is the validated :class:`~qosmodels.fluid._compile.CompiledFluid` (targets,
    kappa, initial window, save interval); the caller has rejected the options this
    variant does not model.  Returns a :class:`~qosmodels.fluid.FluidResult`.
    """
    from scipy.integrate import solve_ivp

    from ..errors import SimulationError
    from .result import FluidResult

    t_end = float(options["t_end"])
    save = comp.save_every * comp.dt
    n = int(np.ceil(t_end / save - 1e-9))
    t = np.arange(n + 1) * save
    f = ivp_rhs(net, kappa=comp.kappa, target=comp.target / 8.0)
    y0 = initial_state(net, float(options.get("initial_window", 1.0)))
    sol = solve_ivp(f, (0.0, float(t[-1])), y0, method="LSODA", t_eval=t,
                    rtol=LSODA_RTOL, atol=LSODA_ATOL)
    if sol.status != 0 or not np.all(np.isfinite(sol.y)):
        raise SimulationError(f"solve_ivp (LSODA) failed on the delay-free fluid model: "
                              f"{sol.message}; try method='numba'")
    w, rtt, Q, acc = _observables(net, sol.y.T)
    F, L = net.n_flows, net.n_links
    nan_f, nan_l = np.full((len(t), F), np.nan), np.full((len(t), L), np.nan)
    return FluidResult(
        network=net, t=sol.t, rates=w / rtt, windows=w, rtt=rtt, estimates=acc,
        accumulation=acc.copy(), queues=Q, virtual_delays=np.zeros((len(t), L)),
        marking=np.zeros((len(t), L)), departed=nan_l, delivered=nan_f, lost=nan_f.copy(),
        targets=comp.target.copy(), dt=float("nan"), options=dict(options, method="lsoda"),
    )
