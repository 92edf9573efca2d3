"""Lower a :class:`~qosmodels.Network` and the solver's options to flat arrays for the kernel.

:func:`compile_fluid` validates the options (with messages naming the
parameter, its value and what would be valid) and returns a
:class:`CompiledFluid`: C-contiguous arrays of fixed dtypes and the integer
codes of the control law and estimator.  Nothing here imports Numba.
"""

from __future__ import annotations

import math
import numbers
from typing import NamedTuple, Sequence

import numpy as np

from .. import _validate as v
from ..budget import check_memory, check_work
from ..errors import ScenarioError, ScenarioTypeError
from ..mechanisms import Pi, Pie, Red
from ..network import LinkChange, Network
from .estimators import CTRL_RENO, control_code, estimator_code

__all__ = ["LinkChange", "Red", "DEFAULT_RED", "CompiledFluid", "compile_fluid",
           "MAX_HISTORY_BYTES"]

#: RED of ``red_links`` when ``red`` is not given (the reference simulator's settings, gentle).
DEFAULT_RED = Red(min_th=20.0, max_th=80.0, max_p=0.1, w_q=0.002, gentle=True)

#: The law of a link that marks (``CompiledFluid.red``): RED's averaged ramp, the discrete
#: PI controller, PIE's drop probability (the last two under ``control="Reno"`` only).
AQM_RED, AQM_PI, AQM_PIE = 0, 1, 2

#: Largest history ring buffer the solver will allocate, bytes.
MAX_HISTORY_BYTES = 2 * 1024**3
#: Default number of saved time points.
DEFAULT_SAVES = 2000
#: Integration work (steps x (hops + flows + links + 16)) above which ``solve_fluid``
#: refuses a run unless given ``max_steps``: some 5-10 minutes of the kernel on a 2-core
#: machine (measured: 13 ns a unit on a 1000-flow random network, 32 ns on the parking lot).
DEFAULT_MAX_WORK = 2e10


class CompiledFluid(NamedTuple):
    """Everything the kernel needs, as flat arrays (shapes: L links, H hops, F flows, E events)."""

    n_steps: int
    dt: float
    save_every: int
    ring: int  # steps of the per-link and per-flow histories (a power of two)
    ring_s: int  # steps of the per-hop departure lines (a power of two)
    a_off: np.ndarray  # (L + 1,) int64: start of each link's arrival history in one flat array
    a_mask: np.ndarray  # (L,) int64: each link's arrival-history length (a power of two) - 1
    cap: np.ndarray  # (L,) bit/s
    delay0: np.ndarray  # (L,) s
    buf: np.ndarray  # (L,) bits
    link_order: np.ndarray  # (L,) int64, processing order
    link_hop_ptr: np.ndarray  # (L + 1,) int64
    # (per-hop and per-flow indices are int32, streamed every step: half the bytes of int64)
    j_prev: np.ndarray  # (H,) int32: position of the same flow's previous hop, -1 for its first
    j_flow: np.ndarray  # (H,) int32: the flow of the hop at position j
    j_next: np.ndarray  # (H,) int32: position of the same flow's next hop, -1 for its last
    hop_pos: np.ndarray  # (H,) int64: position j of each hop in link order
    # (H,) int32: the hops (route order) in the order marks_seen reads them: by link (as
    # link_hop_ptr groups them), then by lag (_mark_order)
    j_hop: np.ndarray
    last_j: np.ndarray  # (F,) int32: position of each flow's last hop
    # (F,) int32 each: the flows in the column order of the time-major per-flow histories
    # (sorted by the lag of their reads, so that the flows of one lag read one contiguous
    # slice), and each flow's column: e_* for the egress accumulation (lag: the last link's
    # delay + the reverse path), x_* for the rate and losses (lag: the propagation round trip)
    e_order: np.ndarray
    e_col: np.ndarray
    x_order: np.ndarray
    x_col: np.ndarray
    avd: np.ndarray  # (L,) bool
    avd_gamma: float
    avd_alpha: float
    red: np.ndarray  # (L,) bool: the link marks with a probability (RED, or PI/PIE: aqm)
    red_min: np.ndarray  # (L,) bits
    red_max: np.ndarray  # (L,) bits
    red_maxp: np.ndarray  # (L,)
    red_rate: np.ndarray  # (L,) 1/s, RED's averaging rate
    red_top: np.ndarray  # (L,) bits: average at and above which everything is marked
    aqm: np.ndarray  # (L,) int64: a marking link's law, AQM_RED, AQM_PI or AQM_PIE
    # (L, 4): PI (a, b per bit; 1 / sampling_rate, s; q_ref, bits), PIE (alpha, beta, 1/s;
    # t_update, s; target, s); zero for other links
    aqm_prm: np.ndarray
    hop_flow: np.ndarray  # (H,) int64
    hop_link: np.ndarray  # (H,) int64
    hop_rev: np.ndarray  # (H,) int64, declared reverse link or -1
    route_ptr: np.ndarray  # (F + 1,) int64
    start: np.ndarray  # (F,) s
    stop: np.ndarray  # (F,) s (inf: never)
    pkt_bits: np.ndarray  # (F,) bits
    target: np.ndarray  # (F,) bits
    max_rate: np.ndarray  # (F,) bit/s
    w0: np.ndarray  # (F,) bits
    w_min: np.ndarray  # (F,) bits
    tau: np.ndarray  # (F,) s, Monaco's EWMA time constant
    control: int
    kappa: float
    estimator: int
    rtt_p_error: float
    vegas_k: int
    ev_time: np.ndarray  # (E,) s
    ev_link: np.ndarray  # (E,) int64
    ev_delay: np.ndarray  # (E,) s

    def kernel_args(self) -> tuple:
        """The kernel's leading arguments: every field after ``n_steps`` (the caller
        gives the kernel its range of steps)."""
        return tuple(self)[1:]


def step_work(net: Network) -> int:
    """Step-updates one integration step costs: hops + flows + links + 16 (what a step
    costs whatever the network); the unit of ``DEFAULT_MAX_WORK`` and of the kernel's
    slices."""
    return len(net.route_links) + net.n_flows + net.n_links + 16


def _per_flow(name: str, value, n: int, *, gt=None, ge=None, unit="") -> np.ndarray:
    if isinstance(value, (str, bytes)):
        raise ScenarioTypeError(f"{name} must be a number or a sequence of {n} numbers, got {value!r}")
    if isinstance(value, numbers.Real):
        x = v.real("solve_fluid", name, value, gt=gt, ge=ge, unit=unit)
        return np.full(n, x)
    try:
        seq = list(value)
    except TypeError:
        raise ScenarioTypeError(
            f"{name} must be a number or a sequence of {n} numbers (one per flow), got {value!r}"
        ) from None
    if len(seq) != n:
        raise ScenarioError(f"{name} must have {n} entries (one per flow), got {len(seq)}")
    return np.array([v.real("solve_fluid", f"{name}[{i}]", s, gt=gt, ge=ge, unit=unit)
                     for i, s in enumerate(seq)], dtype=np.float64)


def _link_order(net: Network, zero: np.ndarray) -> np.ndarray:
    """Links ordered so that a hop behind a zero-delay link (``zero``: also a link shorter
    than one step, under ``coarse_dt``) comes after that link."""
    n = net.n_links
    succ: list[set[int]] = [set() for _ in range(n)]
    indeg = np.zeros(n, dtype=np.int64)
    for i in range(net.n_flows):
        ls = net.flow_links(i)
        for a, b in zip(ls[:-1], ls[1:]):
            if zero[a] and b not in succ[a]:
                succ[a].add(int(b))
                indeg[b] += 1
    order = [l for l in range(n) if indeg[l] == 0]
    k = 0
    while k < len(order):
        for b in sorted(succ[order[k]]):
            indeg[b] -= 1
            if indeg[b] == 0:
                order.append(b)
        k += 1
    if len(order) < n:
        loop = [net.link_names[l] for l in range(n) if indeg[l] > 0]
        raise ScenarioError(
            f"the flows' routes chain zero-delay links in a cycle ({loop}; with "
            f"coarse_dt=True, links shorter than dt count as zero-delay); the fluid model "
            f"needs a delay of at least dt somewhere on every such cycle (or a smaller dt)"
        )
    return np.array(order, dtype=np.int64)


def _column_orders(net: Network, delay0, hop_link, hop_rev, hop_flow):
    """The column orders of the time-major per-flow histories: the flows sorted by the lag
    at which they are read (with the initial delays), so that the flows of one lag read one
    contiguous slice of a step.  A layout only: any order gives the same numbers."""
    rev = np.where(hop_rev >= 0, delay0[np.maximum(hop_rev, 0)], delay0[hop_link])
    drev = np.bincount(hop_flow, weights=rev, minlength=net.n_flows)
    fwd = np.bincount(hop_flow, weights=delay0[hop_link], minlength=net.n_flows)
    egress = delay0[hop_link[net.route_ptr[1:] - 1]] + drev  # the accumulation's lag
    return (np.argsort(egress, kind="stable").astype(np.int32),
            np.argsort(fwd + drev, kind="stable").astype(np.int32))  # the round trip's


def _mark_order(net: Network, delay0, hop_link, hop_rev, hop_flow):
    """The order in which the kernel's ``marks_seen`` reads the hops' marking probabilities:
    grouped by link as ``link_hop_ptr`` groups them, and within a link by the lag at which
    they are read (the ACK lag: the rest of the forward path and the reverse path, with the
    initial delays), so that one link's reads walk its row of history in order.  A layout
    only: any order gives the same numbers."""
    d = delay0[hop_link]
    rev = np.where(hop_rev >= 0, delay0[np.maximum(hop_rev, 0)], d)
    drev = np.bincount(hop_flow, weights=rev, minlength=net.n_flows)
    csum = np.cumsum(d)
    # the forward delays from hop h to its flow's egress, h's own link included
    rest = csum[net.route_ptr[1:] - 1][hop_flow] - csum + d
    return np.lexsort((rest + drev[hop_flow], hop_link)).astype(np.int32)


def _marking(net: Network, red, red_links, ctrl: int, mean_pkt, cap) -> dict:
    """The marking links' arrays of :class:`CompiledFluid` (``red``, ``red_*``, ``aqm``,
    ``aqm_prm``): RED where a link's queue is a ``Red`` or ``red_links`` names it, PI and
    PIE (``control="Reno"`` only) where the link's queue is one."""
    L = net.n_links
    red = DEFAULT_RED if red is None else red
    if not isinstance(red, Red):
        raise ScenarioTypeError(f"red must be a qosmodels.mechanisms.Red, got {red!r}")
    # RED at a link: its own queue spec if it is a Red, else `red` where red_links names it
    specs: list = [link.queue if isinstance(link.queue, Red) else None for link in net.links]
    for k, link in enumerate(red_links or ()):
        try:
            specs[net.link_id(link)] = red
        except ScenarioError as exc:
            raise ScenarioError(f"red_links[{k}]: {exc}") from None
    # PI and PIE (TCP Reno only, where marks drive the windows): their own laws
    aqm = np.zeros(L, dtype=np.int64)
    aqm_prm = np.zeros((L, 4))
    if ctrl == CTRL_RENO:
        for l, link in enumerate(net.links):
            q = link.queue
            if type(q) not in (Pi, Pie):
                continue
            if specs[l] is not None:
                raise ScenarioError(
                    f"red_links names link {net.link_names[l]!r}, whose queue is "
                    f"{type(q).__name__}(...): it runs its own law; remove it from red_links "
                    f"(or give the link queue=Red(...))")
            if type(q) is Pi:
                aqm[l] = AQM_PI
                aqm_prm[l] = (q.a / mean_pkt[l], q.b / mean_pkt[l], 1.0 / q.sampling_rate,
                              q.q_ref * mean_pkt[l])
            else:
                aqm[l] = AQM_PIE
                aqm_prm[l] = (q.alpha, q.beta, q.t_update, q.target)
    red_on = np.array([sp is not None for sp in specs], dtype=np.bool_) | (aqm != AQM_RED)
    used = [sp if sp is not None else red for sp in specs]
    red_min = np.array([sp.min_th for sp in used]) * mean_pkt
    red_max = np.array([sp.max_th for sp in used]) * mean_pkt
    red_maxp = np.array([sp.max_p for sp in used])
    red_top = np.where([sp.gentle for sp in used], 2.0, 1.0) * red_max
    # per-packet EWMA as a rate: avg relaxes by w_q per packet time (w_q = 1: at once)
    w_q = np.minimum([sp.w_q for sp in used], 1.0 - 1e-12)
    red_rate = -np.log1p(-w_q) * cap / mean_pkt
    return dict(red=red_on, red_min=red_min, red_max=red_max, red_maxp=red_maxp,
                red_rate=red_rate, red_top=red_top, aqm=aqm, aqm_prm=aqm_prm)


def compile_fluid(
    network: Network,
    *,
    t_end: float,
    control: str = "P",
    kappa: float = 0.5,
    target=3000,
    estimator: str = "ideal",
    dt: float | None = None,
    rtt_p_error: float = 0.0,
    vegas_k: int = 5,
    initial_window: float = 1.0,
    events: Sequence[LinkChange] = (),
    avd_links: Sequence = (),
    avd_utilisation: float = 0.98,
    avd_alpha: float = 0.15,
    red_links: Sequence = (),
    red: Red | None = None,
    save_dt: float | None = None,
    max_steps: int | None = None,
    coarse_dt: bool = False,
) -> CompiledFluid:
    """Validate the options and lower ``network`` to a :class:`CompiledFluid`.

    Parameters are those of :func:`qosmodels.fluid.solve_fluid`.
    """
    if not isinstance(network, Network):
        raise ScenarioTypeError(f"network must be a qosmodels.Network, got {network!r}")
    if network.n_flows == 0:
        raise ScenarioError("network has no flows; the fluid model needs at least one Flow")
    t_end = v.real("solve_fluid", "t_end", t_end, gt=0, unit="s")
    ctrl = control_code(control)
    kappa = v.real("solve_fluid", "kappa", kappa, gt=0)
    est = estimator_code(estimator)
    rtt_p_error = v.real("solve_fluid", "rtt_p_error", rtt_p_error, unit="s")
    vegas_k = v.integer("solve_fluid", "vegas_k", vegas_k, ge=1, unit="round trips")
    initial_window = v.real("solve_fluid", "initial_window", initial_window, gt=0, unit="packets")
    avd_gamma = v.real("solve_fluid", "avd_utilisation", avd_utilisation, gt=0, unit="fraction")
    if avd_gamma > 1:
        raise ScenarioError(f"solve_fluid.avd_utilisation must be <= 1 (a target utilisation), "
                            f"got {avd_utilisation!r}")
    avd_alpha = v.real("solve_fluid", "avd_alpha", avd_alpha, gt=0, unit="1/s")

    net = network
    L, F = net.n_links, net.n_flows
    pkt_bits = net.packet_sizes.astype(np.float64) * 8.0
    tgt = _per_flow("target", target, F, gt=0, unit="bytes") * 8.0

    # events
    if isinstance(events, LinkChange):
        events = [events]
    evs = []
    for k, e in enumerate(events or ()):
        if not isinstance(e, LinkChange):
            raise ScenarioTypeError(f"events[{k}] must be a qosmodels.fluid.LinkChange, got {e!r}")
        evs.append((e.time, net.link_id(e.link), e.delay))
    evs.sort(key=lambda r: r[0])
    ev_time = np.array([e[0] for e in evs], dtype=np.float64)
    ev_link = np.array([e[1] for e in evs], dtype=np.int64)
    ev_delay = np.array([e[2] for e in evs], dtype=np.float64)

    delay0 = net.delays.astype(np.float64).copy()
    max_delay = delay0.copy()
    zero = delay0 == 0
    for _, l, d in evs:
        max_delay[l] = max(max_delay[l], d)
        zero[l] |= d == 0

    # links used by the flows, forward and reverse
    hop_link = net.route_links.astype(np.int64)
    hop_rev = net.reverse_route_links.astype(np.int64)
    used = set(hop_link.tolist()) | {r for r in hop_rev.tolist() if r >= 0}
    positive = [d for l in used for d in [delay0[l]] + [e[2] for e in evs if e[1] == l] if d > 0]
    rttp = net.rtt
    bad = np.flatnonzero(rttp <= 0)
    if len(bad):
        raise ScenarioError(
            f"flow {net.flow_names[bad[0]]!r} has a round-trip propagation delay of 0 s; the "
            f"fluid model needs rtt_p > 0 (give its links a positive delay)"
        )
    d_min = min(positive)
    if not isinstance(coarse_dt, (bool, np.bool_)):
        raise ScenarioTypeError(f"solve_fluid.coarse_dt must be True or False, got {coarse_dt!r}")
    if coarse_dt and dt is None:
        raise ScenarioError("solve_fluid(coarse_dt=True) needs an explicit dt (the default dt "
                            "is already below every link's delay); pass dt=... in seconds")
    if dt is None:
        dt = min(0.9 * d_min, 1e-3)
    elif coarse_dt:
        dt = v.real("solve_fluid", "dt", dt, gt=0, unit="s")
        short_rtt = float(rttp.min())
        if not dt < short_rtt:
            raise ScenarioError(
                f"solve_fluid.dt must be below the shortest round-trip propagation delay "
                f"({short_rtt!r} s) even with coarse_dt=True, got {dt!r}; the feedback is read "
                f"from the history at a resolution of dt")
    else:
        dt = v.real("solve_fluid", "dt", dt, gt=0, unit="s")
        if not dt < d_min:
            raise ScenarioError(
                f"solve_fluid.dt must be below the smallest positive propagation delay of the "
                f"flows' links ({d_min!r} s), got {dt!r}; the delays are read from the history "
                f"at a resolution of dt (coarse_dt=True allows it, see solve_fluid)"
            )
    # links whose delay is under one step (only with coarse_dt; the kernel's test of a lag,
    # delay * (1 / dt) < 1, in the same arithmetic): their next hops read the line written in
    # the same step, so they are ordered like zero-delay links
    inv_dt = 1.0 / dt
    short = zero.copy()
    for l in range(L):
        short[l] |= delay0[l] * inv_dt < 1.0
    for _, l, d in evs:
        short[l] |= d * inv_dt < 1.0
    if save_dt is None:
        save_every = max(1, int(round(max(0.01, t_end / DEFAULT_SAVES) / dt)))
    else:
        save_dt = v.real("solve_fluid", "save_dt", save_dt, gt=0, unit="s")
        save_every = max(1, int(round(save_dt / dt)))
    steps_f = math.ceil(t_end / dt - 1e-9)
    size = step_work(net)
    if max_steps is None:
        check_work("solve_fluid", float(steps_f) * size, DEFAULT_MAX_WORK,
                   what="step-updates",
                   parameter=f"t_end / dt = {t_end:g} / {dt:g} s = {steps_f:.3g} steps of "
                             f"{size - 16} hops, flows and links",
                   fix="use a larger dt or a shorter t_end, or pass max_steps=... to allow it")
    else:
        max_steps = v.integer("solve_fluid", "max_steps", max_steps, ge=1)
        if steps_f > max_steps:
            raise ScenarioError(f"solve_fluid would take {steps_f:.3g} steps (t_end / dt = "
                                f"{t_end:g} / {dt:g} s), over max_steps = {max_steps}; use a "
                                f"larger dt, a shorter t_end or a larger max_steps")
    n_save_f = steps_f / save_every + 2
    check_memory("solve_fluid", 8.0 * n_save_f * (7 * F + 4 * L + 1),
                 parameter=f"the saved samples ({n_save_f:.3g} of them: t_end / save_dt)",
                 fix="save less often (a larger save_dt) or integrate a shorter t_end")
    n_steps = int(steps_f)
    n_steps = -(-n_steps // save_every) * save_every

    # per-link: buffers in bits (packets x mean packet size of the flows crossing)
    R = net.routing_matrix
    nflows_on = np.asarray(R.sum(axis=1)).ravel()
    bits_on = R @ pkt_bits
    mean_pkt = np.where(nflows_on > 0, bits_on / np.maximum(nflows_on, 1), 8000.0)
    buf = net.buffers.astype(np.float64) * mean_pkt
    cap = net.capacities.astype(np.float64).copy()

    avd = np.zeros(L, dtype=np.bool_)
    for k, link in enumerate(avd_links or ()):
        try:
            avd[net.link_id(link)] = True
        except ScenarioError as exc:
            raise ScenarioError(f"avd_links[{k}]: {exc}") from None

    marking = _marking(net, red, red_links, ctrl, mean_pkt, cap)

    # hops grouped by link
    order = np.argsort(hop_link, kind="stable")
    link_hop_ptr = np.zeros(L + 1, dtype=np.int64)
    np.add.at(link_hop_ptr, hop_link + 1, 1)
    link_hop_ptr = np.cumsum(link_hop_ptr).astype(np.int64)
    hop_flow = np.repeat(np.arange(F, dtype=np.int64), np.diff(net.route_ptr))
    hop_pos = np.empty(len(hop_link), dtype=np.int64)
    hop_pos[order] = np.arange(len(hop_link))
    first = np.zeros(len(hop_link), dtype=np.bool_)
    first[net.route_ptr[:-1]] = True
    prev_hop = np.arange(len(hop_link)) - 1
    j_prev = np.where(first[order], -1, hop_pos[np.maximum(prev_hop[order], 0)]).astype(np.int64)
    j_next = np.full(len(hop_link), -1, dtype=np.int64)
    j_next[j_prev[j_prev >= 0]] = np.flatnonzero(j_prev >= 0)
    e_order, x_order = _column_orders(net, delay0, hop_link, hop_rev, hop_flow)

    # histories, each as short as its longest lag (short histories stay in cache):
    # per link and flow, a round trip (worst delays); per hop, the link's delay; a
    # link's arrivals, its longest sojourn (a full buffer)
    def steps(lag):
        need = int(math.ceil(lag / dt)) + 8
        return 1 << max(4, (need - 1).bit_length())

    rev_max = np.where(hop_rev >= 0, max_delay[np.maximum(hop_rev, 0)], max_delay[hop_link])
    per_flow = np.zeros(F)
    np.add.at(per_flow, hop_flow, max_delay[hop_link] + rev_max)
    ring = steps(max(float(per_flow.max()), float(max_delay.max())))
    ring_s = steps(float(max_delay[hop_link].max()))
    a_len = np.array([steps(float(b / c)) for b, c in zip(buf, cap)], dtype=np.int64)
    a_off = np.zeros(L + 1, dtype=np.int64)
    a_off[1:] = np.cumsum(a_len * (np.diff(link_hop_ptr) + 1))
    n_hops = len(hop_link)
    nbytes = (ring * (3 * L + 5 * F) + 3 * ring_s * n_hops + int(a_off[-1])) * 8
    if nbytes > MAX_HISTORY_BYTES:
        lag = max(float(per_flow.max()), float((buf / cap).max()))
        raise ScenarioError(
            f"the delay history would need {nbytes / 1e9:.1f} GB (dt = {dt:g} s, lags up to "
            f"{lag:g} s); use a larger dt or smaller buffers"
        )
    n_save = n_steps // save_every + 1
    check_memory("solve_fluid", nbytes + 8.0 * n_save * (7 * F + 4 * L + 1),
                 parameter=f"the delay histories (dt = {dt:g} s) and the saved samples",
                 fix="use a larger dt, smaller buffers or a larger save_dt")

    start = np.array([f.start for f in net.flows], dtype=np.float64)
    stop = np.array([np.inf if f.stop is None else f.stop for f in net.flows], dtype=np.float64)
    return CompiledFluid(
        n_steps=n_steps, dt=float(dt), save_every=save_every, ring=ring, ring_s=ring_s,
        a_off=a_off, a_mask=a_len - 1,
        cap=cap, delay0=delay0, buf=buf, link_order=_link_order(net, short),
        link_hop_ptr=link_hop_ptr, j_prev=j_prev.astype(np.int32),
        j_flow=hop_flow[order].astype(np.int32), j_next=j_next.astype(np.int32),
        hop_pos=hop_pos, j_hop=_mark_order(net, delay0, hop_link, hop_rev, hop_flow),
        last_j=hop_pos[net.route_ptr[1:] - 1].astype(np.int32),
        e_order=e_order, e_col=np.argsort(e_order).astype(np.int32),
        x_order=x_order, x_col=np.argsort(x_order).astype(np.int32), avd=avd,
        avd_gamma=avd_gamma, avd_alpha=avd_alpha, **marking,
        hop_flow=hop_flow, hop_link=hop_link.copy(), hop_rev=hop_rev.copy(),
        route_ptr=net.route_ptr.astype(np.int64).copy(), start=start, stop=stop,
        pkt_bits=pkt_bits, target=tgt, max_rate=net.max_rates.astype(np.float64).copy(),
        w0=initial_window * pkt_bits, w_min=np.minimum(1.0, initial_window) * pkt_bits,
        tau=rttp.astype(np.float64).copy(),
        control=ctrl, kappa=kappa, estimator=est, rtt_p_error=rtt_p_error, vegas_k=vegas_k,
        ev_time=ev_time, ev_link=ev_link, ev_delay=ev_delay,
    )
