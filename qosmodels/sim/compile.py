"""Lower a :class:`~qosmodels.Network` and run options to the kernel's flat arrays.

:func:`compile_scenario` is the only place that knows both the Python
descriptions and the kernel's column layout
(:mod:`qosmodels.sim._kernels.layout`).  It validates what only a
simulation needs (a flow's packet class against the priority queues on its
path) and sizes every array the kernel writes into, so the kernel never
allocates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ..network import Network

from .. import _seed
from .._validate import integer, real
from ..budget import check_memory, memory_budget, parse_size
from ..errors import ScenarioError, ScenarioTypeError
from ._kernels import layout as K
from .contract import provides

__all__ = ["Record", "Limits", "Compiled", "compile_scenario", "kernel_module", "pack_params",
           "trace_channels", "ACK_SIZE"]

#: Size of an acknowledgement, bytes (40: IP and TCP headers, no options).
ACK_SIZE = 40

#: Effectively unlimited application data for greedy senders, packets.
_GREEDY = np.int64(2**62)


@dataclass(frozen=True)
class Record:
    """What a simulation records besides its per-flow and per-link totals.

    Parameters
    ----------
    interval : float or None, s
        Sampling interval of the time series (throughput, queue lengths,
        windows); ``None``: ``duration / 500``.
    cwnd : bool
        Sample each window flow's congestion window.
    delay_bins : int
        Bins of each flow's queueing-delay histogram.  Bin edges run from 0 to
        the largest queueing delay the flow's path allows (every buffer on it
        full of the network's largest packets); the last bin also holds
        anything above.
    trace_points : int
        Room for trace-channel points (all channels together; 24 bytes each,
        allocated only when a mechanism of the network records a channel).
    """

    interval: float | None = None
    cwnd: bool = True
    delay_bins: int = 200
    trace_points: int = 1_000_000

    def __post_init__(self):
        if self.interval is not None:
            object.__setattr__(self, "interval",
                               real("Record", "interval", self.interval, gt=0, unit="s"))
        if not isinstance(self.cwnd, bool):
            raise ScenarioTypeError(f"Record.cwnd must be True or False, got {self.cwnd!r}")
        object.__setattr__(self, "delay_bins",
                           integer("Record", "delay_bins", self.delay_bins, ge=1))
        object.__setattr__(self, "trace_points",
                           integer("Record", "trace_points", self.trace_points, ge=1))


@dataclass(frozen=True)
class Limits:
    """Capacity limits of a run.  ``None`` picks a size from the scenario
    (generous, and reported in the result); a run that reaches a limit stops
    with a :class:`~qosmodels.errors.SimulationError` naming the field to raise.

    Parameters
    ----------
    max_events : int or None
        Events the run may process in all (``None``: unlimited).
    max_packets : int or None
        Packets (data and acknowledgements) alive at once.
    heap_size : int or None
        Pending events at once.
    memory : int, str or None
        Bytes the run's arrays may take (or a size such as ``"8G"``); ``None``:
        :func:`qosmodels.budget.memory_budget`, a quarter of the machine's
        memory by default.  A scenario whose arrays would need more is refused
        before anything is allocated, naming the parameter that sized them.
    """

    max_events: int | None = None
    max_packets: int | None = None
    heap_size: int | None = None
    memory: int | str | None = None

    def __post_init__(self):
        for name in ("max_events", "max_packets", "heap_size"):
            value = getattr(self, name)
            if value is not None:
                # (the kernel counts in int64: 2**62 is as good as no limit)
                object.__setattr__(self, name, integer("Limits", name, value, ge=1, le=2**62))
        if self.memory is not None:
            try:
                object.__setattr__(self, "memory", parse_size(self.memory))
            except ScenarioError as e:
                raise type(e)(f"Limits.memory: {e}") from None


class _Memory:
    """The run's arrays, estimated before they are allocated, against the memory budget
    (``Limits.memory`` or :func:`qosmodels.budget.memory_budget`)."""

    def __init__(self, limits: Limits):
        self.budget = limits.memory if limits.memory is not None else memory_budget()
        self.total = 0.0

    def need(self, n_bytes: float, parameter: str, fix: str) -> None:
        """Count ``n_bytes`` more (sized by ``parameter``); raise BudgetError, naming
        ``parameter`` and ``fix``, when the run's arrays so far exceed the budget."""
        self.total += n_bytes
        if not n_bytes >= self.total / 2:
            parameter += f", with the run's other arrays ({self.total - n_bytes:.3g} bytes)"
        check_memory("simulate", self.total, parameter=parameter, fix=fix, budget=self.budget,
                     raise_with="simulate(..., limits=Limits(memory=...))")


class Compiled(NamedTuple):
    """The kernel's arrays (argument order of ``_kernels.engine.run``)."""

    #: The kernel passes a value of this class by reference (``_kernels/_byref.py``).
    __qosmodels_state__ = True

    lf: np.ndarray
    li: np.ndarray
    slot: np.ndarray
    ring: np.ndarray
    ff: np.ndarray
    fi: np.ndarray
    r_ptr: np.ndarray
    r_link: np.ndarray
    a_ptr: np.ndarray
    a_link: np.ndarray
    a_delay: np.ndarray
    pi: np.ndarray
    pf: np.ndarray
    free: np.ndarray
    hv: np.ndarray
    ooo: np.ndarray
    stime: np.ndarray
    hist: np.ndarray
    thr_s: np.ndarray
    q_s: np.ndarray
    cw_s: np.ndarray
    gi: np.ndarray
    gf: np.ndarray
    rng: np.ndarray
    work: np.ndarray
    tr_t: np.ndarray
    tr_c: np.ndarray
    tr_v: np.ndarray
    tm: np.ndarray
    tmi: np.ndarray
    lk_ptr: np.ndarray
    lk_pos: np.ndarray
    hs: np.ndarray
    hsi: np.ndarray
    sq_meta: np.ndarray
    sq_key: np.ndarray
    sq_seq: np.ndarray
    sq_pkt: np.ndarray
    ef: np.ndarray
    ei: np.ndarray
    e_mem: np.ndarray
    pipe: np.ndarray


def kernel_module(spec):
    """The kernel module that carries out ``spec`` (named by the spec's ``kernel``).

    Importing it imports Numba: this is called when a run is compiled, never
    when a network is described.
    """
    from ._kernels import dispatch, dispatch_edges

    table = {**dispatch.QUEUES, **dispatch.SOURCES, **dispatch_edges.EDGES}
    try:
        return table[spec.kernel]
    except (AttributeError, KeyError):
        raise ScenarioTypeError(
            f"{type(spec).__name__} names no simulator kernel (kernel = "
            f"{getattr(spec, 'kernel', None)!r}); the packet simulator runs "
            f"{sorted(table)}"
        ) from None


def pack_params(spec, kmod=None) -> np.ndarray:
    """``spec``'s parameter row: the fields its kernel module lists in ``PARAMS``, in order.

    An entry of ``PARAMS`` is a field name (``None`` packs as 0, booleans as 0
    or 1) or a pair ``(label, function of the spec)`` for a derived value.
    """
    kmod = kernel_module(spec) if kmod is None else kmod
    row = np.zeros(K.PARAM_ROW)
    if len(kmod.PARAMS) > K.PARAM_ROW:  # a programming error of the kernel module
        raise RuntimeError(f"{kmod.__name__}.PARAMS has more than {K.PARAM_ROW} entries")
    for j, entry in enumerate(kmod.PARAMS):
        value = entry[1](spec) if isinstance(entry, tuple) else getattr(spec, entry)
        row[j] = 0.0 if value is None else float(value)
    return row


def _edges(network) -> list[tuple[object, tuple[int, ...]]]:
    """``(aggregate, member flows)`` of each aggregate with an edge element, in order."""
    return [(agg, network.aggregate_members(agg.name)) for agg in network.aggregates
            if agg.edge is not None]


def _owners(network) -> list[tuple[int, int, object, str, int]]:
    """``(kind, index, spec, name, members)`` of every owner of mechanism state: each
    link's queue (``K.OWNER_LINK``), then each flow's source (``K.OWNER_FLOW``), then each
    aggregate's edge element (``K.OWNER_EDGE``, with its number of member flows)."""
    return ([(K.OWNER_LINK, l, link.queue, link.name, 0) for l, link in enumerate(network.links)]
            + [(K.OWNER_FLOW, i, flow.source, name, 0)
               for i, (flow, name) in enumerate(zip(network.flows, network.flow_names))]
            + [(K.OWNER_EDGE, e, agg.edge, agg.name, len(members))
               for e, (agg, members) in enumerate(_edges(network))])


def _channels(spec, kind=K.OWNER_LINK, members=0) -> tuple[str, ...]:
    """The trace channels ``spec``'s kernel module records for it (its ``traces(spec)``;
    an edge element's ``traces(spec, n_members)``)."""
    fn = getattr(kernel_module(spec), "traces", None)
    if not fn:
        return ()
    return tuple(fn(spec, members) if kind == K.OWNER_EDGE else fn(spec))


def trace_channels(network) -> list[tuple[str, str]]:
    """The trace channels the network's mechanisms record, in channel-number order:
    ``(name, owner)`` pairs, ``owner`` a link's or a flow's or an aggregate's name
    (links' queues first, in link order, then flows' sources, then edge elements)."""
    return [(ch, name) for kind, _, spec, name, m in _owners(network)
            for ch in _channels(spec, kind, m)]


def _seed_state(seed) -> np.ndarray:
    """MRG32k3a state (six integers) from an int, a SeedSequence or a Generator (the rule of
    :mod:`qosmodels._seed`)."""
    ss = _seed.seed_sequence("simulate", seed)
    words = ss.generate_state(6, dtype=np.uint64).astype(object)
    m1, m2 = 4294967087, 4294944443
    state = [int(w) % m1 for w in words[:3]] + [int(w) % m2 for w in words[3:]]
    if not any(state[:3]):
        state[0] = 1
    if not any(state[3:]):
        state[3] = 1
    return np.array(state, dtype=np.int64)


def ack_paths(r_ptr, r_link, rev, delays, every_stretch=False):
    """The ACK paths: ``(a_ptr, a_link, a_delay)``.

    Flow ``i``'s ACKs cross ``a_link[a_ptr[i]:a_ptr[i + 1]]`` in order: the
    declared reverse links of its forward hops, last hop first, and for each
    stretch of hops without one a pseudo-hop ``-1`` of pure propagation delay
    (``a_delay``, the stretch's forward ``delays`` summed, s; 0 for real links).
    A route with no declared reverse link has one pseudo-hop.  A stretch of
    zero delay between declared links has none unless ``every_stretch`` (a run
    whose delays change keeps its paths' shape and updates ``a_delay``).
    (:func:`compile_scenario` then numbers each pseudo-hop ``-1 - k``, ``k`` its
    pipe among the stretches': ``_kernels.heap``.)"""
    F = r_ptr.shape[0] - 1
    a_ptr = np.zeros(F + 1, dtype=np.int64)
    a_link_l: list[int] = []
    a_delay_l: list[float] = []
    for i in range(F):
        fwd = r_link[r_ptr[i]:r_ptr[i + 1]]
        back = rev[r_ptr[i]:r_ptr[i + 1]]  # reverse link of each forward hop (-1: undeclared)
        pending = 0.0
        stretch = False  # undeclared hops since the last declared one
        # the ACK crosses the forward hops in reverse order
        for h in range(len(fwd) - 1, -1, -1):
            if back[h] < 0:
                pending += delays[fwd[h]]
                stretch = True
            else:
                if pending > 0.0 or (every_stretch and stretch):
                    a_link_l.append(-1)
                    a_delay_l.append(pending)
                    pending = 0.0
                    stretch = False
                a_link_l.append(int(back[h]))
                a_delay_l.append(0.0)
        if pending > 0.0 or len(a_link_l) == a_ptr[i] or (every_stretch and stretch):
            a_link_l.append(-1)
            a_delay_l.append(pending)
        a_ptr[i + 1] = len(a_link_l)
    return a_ptr, np.array(a_link_l, dtype=np.int64), np.array(a_delay_l, dtype=np.float64)


def link_changes(network: Network, events, duration: float) -> list[tuple[float, int, float]]:
    """Validate ``simulate``'s ``events``: ``(time, link index, new delay)`` in time order.

    Raises
    ------
    ScenarioTypeError
        An event that is not a :class:`~qosmodels.LinkChange`.
    ScenarioError
        A link the network does not have, or a time at or after ``duration``.
    """
    from ..network import LinkChange

    if isinstance(events, LinkChange):
        events = [events]
    if events is None:
        return []
    if isinstance(events, (str, bytes)) or not hasattr(events, "__iter__"):
        raise ScenarioTypeError(f"simulate.events must be a sequence of qosmodels.LinkChange, "
                                f"got {events!r}")
    out = []
    for k, e in enumerate(events):
        if not isinstance(e, LinkChange):
            raise ScenarioTypeError(f"simulate.events[{k}] must be a qosmodels.LinkChange, got "
                                    f"{e!r}")
        if not e.time < duration:
            raise ScenarioError(f"simulate.events[{k}].time = {e.time!r} s is not before the end "
                                f"of the run ({duration!r} s), so it would never happen; drop it "
                                f"or lengthen the run")
        out.append((e.time, network.link_id(e.link), e.delay))
    out.sort(key=lambda r: r[0])  # stable: changes at one time apply in the order given
    return out


#: Predicted events above which ``simulate`` refuses a run unless given ``max_events``
#: (about 10-20 minutes of the kernel on a 2-core machine), and the events a run without
#: ``max_events`` may process.
DEFAULT_MAX_EVENTS = 10**10


def predicted_events(network: Network, duration: float,
                     enough: float | None = None) -> tuple[float, str]:
    """An upper bound on the events a run of ``duration`` s processes, and its largest term.

    The sustained packet work is bounded by a linear programme (``scipy.optimize.linprog``):
    the largest sum of flow packet rates, each weighted by the events one packet causes
    (two per link it crosses, two per link or delay stretch its ACK crosses, three at
    the ends), with every link carrying at most its capacity, a window source at most
    its window per round-trip propagation delay and an open-loop source at most its
    rate.  To it are added what no capacity bounds: packets an open-loop source makes
    (dropped or not), on/off toggles, retransmission timeouts at the smallest RTO, the
    generic timer's expiries (every ``beta * initial_rtt``, not backed off) until a
    window source's first RTT sample a round trip in, and flows starting and stopping.  Timers of queue mechanisms (DECbit cycles, ABE
    periods, token refills) are left out; the running budget catches those.

    With ``enough``, a looser bound that needs no linear programme (every flow at
    its own bottleneck's capacity, as if alone) is returned when it is below
    ``enough``.

    Returns
    -------
    events : float
    term : str
        What contributes most, for the message of a refusal.
    """
    from scipy.optimize import linprog

    F = network.n_flows
    if F == 0:
        return 0.0, "no flows"
    ptr = np.asarray(network.route_ptr)
    fwd = np.asarray(network.route_links)
    bits = np.array([8.0 * f.packet_size for f in network.flows])
    hops = np.diff(ptr).astype(float)
    weight = 4.0 * hops + 3.0  # a link each way (ACKs: links or delay stretches), and the ends
    upper = np.full(F, np.inf)
    made = np.zeros(F)     # packets an open-loop source makes, per second
    toggles = np.zeros(F)  # on/off switches and timeouts, per second
    early = np.zeros(F)    # generic timeouts before the first RTT sample, in all
    rtt = np.asarray(network.rtt)
    for i, flow in enumerate(network.flows):
        src = flow.source
        rate = getattr(src, "rate", None)
        if rate is not None:
            upper[i] = made[i] = rate / bits[i]
        if getattr(src, "windowed", False):
            window = getattr(src, "max_window", getattr(src, "window", None))
            if window is not None and rtt[i] > 0:
                upper[i] = min(upper[i], float(window) / rtt[i])
            if getattr(src, "min_rto", None):
                toggles[i] += 1.0 / src.min_rto
            initial, beta = getattr(src, "initial_rtt", None), getattr(src, "beta", None)
            if initial is not None and beta is not None:
                # the generic timer, not backed off, fires every beta * initial_rtt until the
                # first RTT sample, at least a round trip in: each a go-back-N of the window
                first = min(max(rtt[i], 0.0), duration)
                early[i] = first / (beta * initial) * (float(window or 1) + 1.0)
        on, off = getattr(src, "on_time", None), getattr(src, "off_time", None)
        if on is not None and off is not None:
            toggles[i] += 2.0 / (on + off)
    cols = np.repeat(np.arange(F), np.diff(ptr))
    path_min = np.full(F, np.inf)
    np.minimum.at(path_min, cols, np.asarray(network.capacities, dtype=float)[fwd])
    alone = np.minimum(upper, path_min / bits)  # each flow as if alone on its path
    extra = (2.0 * made.sum() + toggles.sum()) * duration + early.sum() + 4.0 * F + 1.0
    if enough is not None and float(np.sum(weight * alone)) * duration + extra <= enough:
        return float(np.sum(weight * alone)) * duration + extra, "packets forwarded"
    import scipy.sparse as sp

    a = sp.csr_matrix(network.routing_matrix.multiply(bits[None, :]))  # bits per packet on l
    res = linprog(-weight, A_ub=a, b_ub=np.asarray(network.capacities, dtype=float),
                  bounds=[(0.0, None if not np.isfinite(u) else u) for u in upper],
                  method="highs")
    forwarding = -res.fun if res.status == 0 else float(np.sum(weight * alone))
    terms = {"packets forwarded at the links' capacities": forwarding * duration,
             "packets the open-loop sources make (at their rates)": 2.0 * made.sum() * duration,
             "on/off switches and retransmission timeouts (at min_rto)":
                 toggles.sum() * duration,
             "generic timeouts before the first RTT sample (every beta * initial_rtt of "
             "a window source)": early.sum()}
    total = sum(terms.values()) + 4.0 * F + 1.0
    return total, max(terms, key=terms.get)


def compile_scenario(network: Network, duration: float, *, seed, warmup: float = 0.0,
                     record: Record | None = None, limits: Limits | None = None,
                     changes=()) -> Compiled:
    """Lower ``network`` and the run options to a :class:`Compiled` tuple of arrays.

    The work is done in named phases, in this order (each phase's function says what it
    fills): the run options (:func:`_options`), the flows' rows (:func:`_flow_rows`), the
    edge elements' (:func:`_edge_rows`), the receivers' buffers (:func:`_flow_buffers`),
    the trace channels and timer slots (:func:`_timers`), the route rules
    (:func:`_check_routes`), the data and ACK paths (:func:`_paths`), the crossings
    (:func:`_crossings`), the links' rows and class slots (:func:`_link_rows`), the edge
    holds and out-of-band lanes (:func:`_edge_holds`, :func:`_oob_lanes`), the sorted
    queues (:func:`_sorted_queues`), the delay histograms (:func:`_histograms`), the time
    series (:func:`_time_series`), the packet pool and event heap (:func:`_pool_size`,
    :func:`_pool_and_heap`) and the global rows (:func:`_globals`).  The memory budget
    (``Limits.memory``) is checked as each phase sizes its arrays.

    Parameters
    ----------
    network : Network
    duration : float, s
        Simulated time, > 0.
    seed : int, SeedSequence or Generator
    warmup : float, s
        Start of the measurement window, in ``[0, duration)``.
    record : Record or None
    limits : Limits or None
    changes : sequence of (float, int, float)
        The run's link delay changes (:func:`link_changes`): the ACK paths keep a
        pseudo-hop for every stretch of undeclared reverse links, and the
        packet pool counts each link's largest delay.

    Returns
    -------
    Compiled
    """
    duration, warmup, record, limits = _options(network, duration, warmup, record, limits)
    rng = _seed_state(seed)
    L, F = network.n_links, network.n_flows
    edges = _edges(network)
    edge_kmods = [kernel_module(agg.edge) for agg, _ in edges]  # refuses what cannot run
    lf = np.zeros((L, K.N_LF))  # links' rows: filled by _link_rows, after the crossings
    li = np.zeros((L, K.N_LI), dtype=np.int64)
    ff, fi, ooo_sizes = _flow_rows(network)
    ef, ei, e_mem = _edge_rows(network, edges, edge_kmods, ff, fi)
    mem = _Memory(limits)
    ooo, stime, ooo_sizes = _flow_buffers(fi, ooo_sizes, mem)
    n_tr, tm, tmi = _timers(network, record, li, fi, ei)
    _check_routes(network)
    r_ptr, r_link, a_ptr, a_link, a_delay, n_pipes = _paths(network, changes)
    queue_kmods = [kernel_module(link.queue) for link in network.links]
    lk_ptr, lk_pos, x_flow, hs, hsi = _crossings(network, queue_kmods, r_ptr, r_link, a_ptr,
                                                 a_link)
    slot, s, off = _link_rows(network, queue_kmods, edges, lk_ptr, lk_pos, x_flow, lf, li, hs,
                              hsi, mem)
    s, off, held = _edge_holds(edges, edge_kmods, fi, slot, s, off)
    slot, off = _oob_lanes(network, li, slot, s, off)
    mem.need(8.0 * off, f"the links' buffers ({off} packets in all)", "give the links smaller "
             "buffers (Link.buffer, in packets)")
    ring = np.full(max(off, 1), -1, dtype=np.int64)
    sq_meta, sq_key, sq_seq, sq_pkt = _sorted_queues(network, queue_kmods, lk_ptr)
    hist = _histograms(network, record, ff, r_ptr, r_link, mem)
    interval, thr_s, q_s, cw_s = _time_series(duration, record, F, L, mem)
    pool = _pool_size(network, limits, ff, changes, ooo_sizes, held)
    pi, pf, free, hv, heap, timer_rows, n_events = _pool_and_heap(network, duration, limits,
                                                                  pool, tm.shape[0], mem)
    gi, gf = _globals(record, warmup, duration, interval, thr_s.shape[0], heap, timer_rows,
                      n_events, pool)
    return Compiled(lf, li, slot, ring, ff, fi, r_ptr, r_link, a_ptr, a_link, a_delay,
                    pi, pf, free, hv, ooo, stime, hist, thr_s, q_s, cw_s, gi, gf, rng,
                    np.zeros(pool + 2 * F + 16, dtype=np.int64),
                    np.zeros(n_tr), np.zeros(n_tr, dtype=np.int64), np.zeros(n_tr), tm, tmi,
                    lk_ptr, lk_pos, hs, hsi, sq_meta, sq_key, sq_seq, sq_pkt, ef, ei, e_mem,
                    np.full((L + n_pipes, K.N_PP), -1, dtype=np.int64))  # _kernels.heap


# ------------------------------------------------------------------------------------------
# the phases of compile_scenario, in the order it calls them


def _options(network, duration, warmup, record, limits):
    """The run options, checked: ``(duration, warmup, record, limits)`` (defaults filled)."""
    from ..network import Network  # here: qosmodels.network imports the specs of this package

    if not isinstance(network, Network):
        raise ScenarioTypeError(
            f"network must be a qosmodels.Network, got {type(network).__name__}")
    duration = real("simulate", "duration", duration, gt=0, unit="s")
    warmup = real("simulate", "warmup", warmup, ge=0, unit="s")
    if not warmup < duration:
        raise ScenarioError(
            f"simulate.warmup must be shorter than duration = {duration!r} s, got {warmup!r}; the "
            f"measurement window is [warmup, duration]"
        )
    record = Record() if record is None else record
    limits = Limits() if limits is None else limits
    if not isinstance(record, Record):
        raise ScenarioTypeError(f"record must be a qosmodels.sim.Record, got {record!r}")
    if not isinstance(limits, Limits):
        raise ScenarioTypeError(f"limits must be a qosmodels.sim.Limits, got {limits!r}")
    return duration, warmup, record, limits


def _flow_rows(network):
    """The flows' rows ``ff``, ``fi`` (their sources' codes, parameters and initial state,
    from the source modules' ``setup`` and ``setup_flow``) and each window flow's
    out-of-order buffer size (a power of two above its largest window; Python ints, as a
    window may be 2**63), 0 for open-loop flows."""
    F = network.n_flows
    ff = np.zeros((F, K.N_FF))
    fi = np.zeros((F, K.N_FI), dtype=np.int64)
    ooo_sizes = [0] * F
    for i, flow in enumerate(network.flows):
        src = flow.source
        windowed = bool(src.windowed)
        ff[i, K.FF_BITS] = 8.0 * flow.packet_size  # Flow resolves the source's size
        ff[i, K.FF_ACK_BITS] = 8.0 * ACK_SIZE
        ff[i, K.FF_START] = flow.start
        ff[i, K.FF_STOP] = np.inf if flow.stop is None else flow.stop
        kmod = kernel_module(src)
        ff[i, K.FF_SP:K.FF_SP + K.PARAM_ROW] = pack_params(src, kmod)
        ff[i, K.FF_SRTT] = -1.0
        fi[i, K.FI_CODE] = kmod.CODE
        fi[i, K.FI_CLASS] = src.priority
        fi[i, K.FI_WINDOWED] = int(windowed)
        fi[i, K.FI_RECOVER] = -1
        fi[i, K.FI_ECN_RECOVER] = -1
        fi[i, K.FI_APP_LIMIT] = _GREEDY
        fi[i, K.FI_MARK0] = K.MARK_GREEN if src.green else 0
        # the receiver's delayed ACKs (off unless the source asks), its timer after the source's
        from ._kernels import delack

        delack.setup(src, ff[i], fi[i], getattr(kmod, "TIMERS", 0))
        window = kmod.setup(src, ff[i], fi[i])  # the mechanism's initial state; its window
        if provides(kmod, "source", "setup_flow"):  # its state that depends on the network
            kmod.setup_flow(src, network, i, ff[i], fi[i])
        if windowed:
            ooo_sizes[i] = 1 << max(int(window), 1).bit_length()  # power of two > window
    return ff, fi, ooo_sizes


def _edge_rows(network, edges, edge_kmods, ff, fi):
    """The edge elements' rows ``ef``, ``ei`` and ``e_mem``: one row per aggregate with an
    edge element; its members' flows in ``e_mem`` (and the element's scratch space, as
    long); each member flow names its element and place in ``fi``."""
    E = len(edges)
    ef = np.zeros((max(E, 1), K.N_EF))
    ei = np.zeros((max(E, 1), K.N_EI), dtype=np.int64)
    fi[:, [K.FI_EDGE, K.FI_EDGE_HOLD]] = -1
    e_mem_l: list[int] = []
    for e, ((agg, members), kmod) in enumerate(zip(edges, edge_kmods)):
        ef[e, K.EF_EP:K.EF_EP + K.PARAM_ROW] = pack_params(agg.edge, kmod)
        ei[e, K.EI_CODE] = kmod.CODE
        ei[e, K.EI_M0] = len(e_mem_l)
        ei[e, K.EI_N] = len(members)
        for k, f in enumerate(members):
            fi[f, K.FI_EDGE] = e
            fi[f, K.FI_MEMBER] = k
        e_mem_l.extend(members)
        kmod.setup_edge(agg.edge, network, members, ef[e], ff, fi)
    e_mem = np.zeros((max(len(e_mem_l), 1), K.N_EM), dtype=np.int64)
    e_mem[:len(e_mem_l), K.EM_FLOW] = e_mem_l
    return ef, ei, e_mem


def _flow_buffers(fi, ooo_sizes, mem):
    """The receivers' out-of-order buffers ``ooo`` and the senders' send-time rings
    ``stime`` (checked against the memory budget; their offsets and masks in ``fi``), and
    the buffer sizes as an array."""
    sack = (fi[:, K.FI_WINDOWED] >> K.SACK_SHIFT) > 0
    per_ack = bool(fi[:, K.FI_PER_ACK].any()) or bool(sack.any())
    mem.need(float(sum(ooo_sizes)) * (9 if per_ack else 1),
             "the flows' windows (each window source keeps a buffer of its largest window, "
             f"max_window, or GenericWindow's window; the largest here is "
             f"{max(ooo_sizes, default=0) // 2} packets)",
             "give the window sources a smaller max_window (GenericWindow: window)")
    ooo_sizes = np.array(ooo_sizes, dtype=np.int64)
    ooo_off = np.concatenate(([0], np.cumsum(ooo_sizes)))
    fi[:, K.FI_OOO_OFF] = ooo_off[:-1]
    fi[:, K.FI_OOO_MASK] = np.maximum(ooo_sizes - 1, 0)
    # a SACK flow: the lower quarter of its region is the ring keyed by sequence number, the
    # rest its SACK header and ACK option ring (``_kernels/sack.py``)
    fi[sack, K.FI_OOO_MASK] = ooo_sizes[sack] // 4 - 1
    ooo = np.zeros(max(int(ooo_off[-1]), 1), dtype=np.uint8)
    # send times of the packets in flight (rtt_samples="ack"), a ring per flow laid out
    # like the receiver's out-of-order buffer: seq & mask never collides inside a window
    stime = np.zeros(max(int(ooo_off[-1]), 1) if per_ack else 1)
    return ooo, stime, ooo_sizes


def _timers(network, record, li, fi, ei):
    """The trace channels (numbered as :func:`trace_channels` lists them) and timer slots
    (as many per owner as its kernel module's ``TIMERS``); an owner's first of each in its
    row, -1: none.  Returns ``(n_tr, tm, tmi)``: the trace buffer's length and the timer
    slots' rows."""
    rows = {K.OWNER_LINK: (li, K.LI_TRACE0, K.LI_TIMER0),
            K.OWNER_FLOW: (fi, K.FI_TRACE0, K.FI_TIMER0),
            K.OWNER_EDGE: (ei, K.EI_TRACE0, K.EI_TIMER0)}
    li[:, [K.LI_TRACE0, K.LI_TIMER0]] = -1
    fi[:, [K.FI_TRACE0, K.FI_TIMER0]] = -1
    ei[:, [K.EI_TRACE0, K.EI_TIMER0]] = -1
    n_ch = 0
    slots: list[tuple[int, int, int]] = []
    for kind, j, spec, _, members in _owners(network):
        owner_rows, ch_col, tm_col = rows[kind]
        k = len(_channels(spec, kind, members))
        if k:
            owner_rows[j, ch_col] = n_ch
            n_ch += k
        n = getattr(kernel_module(spec), "TIMERS", 0)
        if kind == K.OWNER_FLOW:  # the receiver's delayed-ACK timer, if it has one
            from ._kernels import delack

            n += delack.timers(spec)
        if n:
            owner_rows[j, tm_col] = len(slots)
            slots.extend((kind, j, t) for t in range(n))
    n_tr = record.trace_points if n_ch else 1
    tm = np.zeros((max(len(slots), 1), K.N_TM))
    tm[:, K.TM_DEADLINE] = np.inf
    tmi = np.zeros((max(len(slots), 1), K.N_TMI), dtype=np.int64)
    for t_slot, (kind, j, t) in enumerate(slots):
        tmi[t_slot, K.TMI_OWNER_KIND], tmi[t_slot, K.TMI_OWNER], tmi[t_slot, K.TMI_K] = kind, j, t
    return n_tr, tm, tmi


def _route(network, i: int) -> tuple[list[int], list[int]]:
    """Flow ``i``'s forward links and the declared reverse links of its hops, in order."""
    ptr = network.route_ptr
    fwd = [int(j) for j in network.route_links[ptr[i]:ptr[i + 1]]]
    rev = [int(j) for j in network.reverse_route_links[ptr[i]:ptr[i + 1]] if j >= 0]
    return fwd, rev


def _crossed_either_way(network, i: int) -> set[int]:
    """The links flow ``i``'s data or ACKs cross (declared reverse links)."""
    fwd, rev = _route(network, i)
    return set(fwd) | set(rev)


def _check_routes(network) -> None:
    """The mechanisms' rules on the routes flows take, each stated by its spec: every queue
    a flow's data or ACKs cross can carry its packets (``QueueSpec.check_crossing``: its
    priority class at a Priority queue), then every source can run over the queues of its
    forward route (``SourceSpec.check_route``: DECbit windows need a bit-setting gateway,
    Green packets a colour-aware queue)."""
    links, names = network.links, network.flow_names
    routes = [_route(network, i) for i in range(network.n_flows)]
    for flow, name, (fwd, rev) in zip(network.flows, names, routes):
        for j in fwd + rev:
            links[j].queue.check_crossing(flow.source, name, links[j].name)
    for flow, name, (fwd, _) in zip(network.flows, names, routes):
        flow.source.check_route(name, [links[j].queue for j in fwd])


def _paths(network, changes):
    """The data and ACK paths: ``(r_ptr, r_link, a_ptr, a_link, a_delay, n_pipes)``
    (:func:`ack_paths`), each delay stretch of an ACK path numbered by its pipe
    (``_kernels.heap``): one pipe for each distinct delay, where ACKs of every flow whose
    stretch has that delay leave in the order they entered; a stretch's entry in ``a_link``
    becomes ``-1 -`` its pipe's number (``L +`` that number among all pipes)."""
    rev = np.asarray(network.reverse_route_links, dtype=np.int64)
    r_ptr = np.asarray(network.route_ptr, dtype=np.int64).copy()
    r_link = np.asarray(network.route_links, dtype=np.int64).copy()
    a_ptr, a_link, a_delay = ack_paths(r_ptr, r_link, rev, network.delays,
                                       every_stretch=bool(changes))
    stretches = a_link < 0
    stretch_delays, stretch_pipe = np.unique(a_delay[stretches], return_inverse=True)
    a_link[stretches] = -1 - stretch_pipe.astype(np.int64)
    return r_ptr, r_link, a_ptr, a_link, a_delay, len(stretch_delays)


def _crossings(network, queue_kmods, r_ptr, r_link, a_ptr, a_link):
    """The crossings (``_kernels.crossings``): ``(lk_ptr, lk_pos, x_flow, hs, hsi)``.

    Link ``l``'s crossings are the path positions ``lk_pos[lk_ptr[l]:lk_ptr[l + 1]]``
    (forward positions, then reverse ones, ACK positions only of flows whose receivers
    send ACKs); ``x_flow`` gives each position's flow; ``hs``, ``hsi`` hold each crossing's
    state, as wide as the queue modules' largest ``HOP_STATE``, ``HOP_STATE_INT``."""
    L, F = network.n_links, network.n_flows
    x_link = np.concatenate((r_link, a_link))  # forward positions, then reverse ones
    sends_acks = np.array([flow.source.windowed or flow.source.feedback
                           for flow in network.flows], dtype=bool)
    acked = np.repeat(sends_acks, np.diff(a_ptr))  # flows whose receivers send ACKs
    listed = x_link >= 0
    listed[r_link.shape[0]:] &= acked
    declared = np.flatnonzero(listed)
    lk_pos = declared[np.argsort(x_link[declared], kind="stable")].astype(np.int64)
    lk_ptr = np.zeros(L + 1, dtype=np.int64)
    np.cumsum(np.bincount(x_link[declared], minlength=L), out=lk_ptr[1:])
    x_flow = np.concatenate((np.repeat(np.arange(F), np.diff(r_ptr)),
                             np.repeat(np.arange(F), np.diff(a_ptr)))).astype(np.int64)
    hs = np.zeros((x_link.shape[0], max(getattr(m, "HOP_STATE", 0) for m in queue_kmods)))
    hsi = np.zeros((x_link.shape[0], max(getattr(m, "HOP_STATE_INT", 0) for m in queue_kmods)),
                   dtype=np.int64)
    return lk_ptr, lk_pos, x_flow, hs, hsi


def _link_rows(network, queue_kmods, edges, lk_ptr, lk_pos, x_flow, lf, li, hs, hsi, mem):
    """The links' rows ``lf``, ``li`` and their class slots: a FIFO ring of ``buffer``
    packets each; a queue mechanism may ask for a number of its own (``slots(spec,
    n_crossings)``: fair queueing's one per conversation).  Then each queue module's
    ``setup_link`` (the link's and its crossings' first state).  Returns ``(slot, s,
    off)``: the slots' rows, sized for the edge members' holds too, the next free slot and
    the next free place in the packet ring."""
    links = network.links
    n_link_slots = [kmod.slots(link.queue, int(lk_ptr[l + 1] - lk_ptr[l]))
                    if provides(kmod, "queue", "slots") else link.queue.n_classes
                    for l, (link, kmod) in enumerate(zip(links, queue_kmods))]
    n_edge_slots = sum(len(members) for _, members in edges)
    mem.need(8.0 * K.N_SL * (sum(n_link_slots) + n_edge_slots),
             f"the queues' class slots ({sum(n_link_slots) + n_edge_slots:.3g} of them: "
             f"Priority.classes, fair queueing's conversations, edge members)",
             "use fewer classes")
    slot = np.zeros((max(sum(n_link_slots) + n_edge_slots, 1), K.N_SL), dtype=np.int64)
    s = off = 0
    for l, (link, kmod) in enumerate(zip(links, queue_kmods)):
        lf[l, K.LF_CAP] = link.capacity
        lf[l, K.LF_DELAY] = link.delay
        lf[l, K.LF_QP:K.LF_QP + K.PARAM_ROW] = pack_params(link.queue, kmod)
        li[l, K.LI_CODE] = kmod.CODE
        li[l, K.LI_SLOT0] = s
        li[l, K.LI_NSLOT] = n_link_slots[l]
        li[l, K.LI_TX] = -1
        li[l, K.LI_RED_COUNT] = -1
        for _ in range(n_link_slots[l]):
            slot[s, K.SL_OFF] = off
            slot[s, K.SL_CAP] = link.buffer
            off += link.buffer
            s += 1
        if provides(kmod, "queue", "setup_link"):  # the link's and its crossings' first state
            kmod.setup_link(link.queue, network, l, lk_pos[lk_ptr[l]:lk_ptr[l + 1]], x_flow,
                            lf[l], li[l], hs, hsi)
    return slot, s, off


def _edge_holds(edges, edge_kmods, fi, slot, s, off):
    """An edge element's members' holds: a FIFO ring each, of the element's
    ``hold_capacity(spec)`` packets, after the links' slots (``FI_EDGE_HOLD``).  Returns
    ``(s, off, held)``: the next free slot and ring place, and the packets held in all."""
    held = 0
    for (agg, members), kmod in zip(edges, edge_kmods):
        cap = kmod.hold_capacity(agg.edge)
        for f in members:
            fi[f, K.FI_EDGE_HOLD] = s
            slot[s, K.SL_OFF] = off
            slot[s, K.SL_CAP] = cap
            off += cap
            held += cap
            s += 1
    return s, off, held


def _oob_lanes(network, li, slot, s, off):
    """Out-of-band lanes (``LI_OOB``): a FIFO ring at every link a flow with out-of-band
    control packets (a source whose spec has ``out_of_band``: Monaco) crosses, either way:
    room for two per such flow, and two.  Returns ``(slot, off)``, the slots' rows grown by
    the lanes."""
    li[:, K.LI_OOB] = -1
    oob = np.zeros(network.n_links, dtype=np.int64)
    for i, flow in enumerate(network.flows):
        if flow.source.out_of_band:
            for j in _crossed_either_way(network, i):
                oob[j] += 1
    extra = int(np.count_nonzero(oob))
    if extra:
        slot = np.vstack([slot, np.zeros((extra, K.N_SL), dtype=np.int64)])
    for l in np.flatnonzero(oob):
        li[l, K.LI_OOB] = s
        slot[s, K.SL_OFF] = off
        slot[s, K.SL_CAP] = 2 * int(oob[l]) + 2
        off += 2 * int(oob[l]) + 2
        s += 1
    return slot, off


def _sorted_queues(network, queue_kmods, lk_ptr):
    """The sorted queues (``_kernels.sorted_queue``): per link two heaps (rows ``l`` and
    ``L + l`` of ``sq_meta``) of the sizes the queue mechanism asks (``sorted_queues(spec,
    buffer, n_crossings)``; none for the others); one entry for the others' sake.  Returns
    ``(sq_meta, sq_key, sq_seq, sq_pkt)``."""
    from ._kernels.sorted_queue import sorted_queue_layout

    caps = [kmod.sorted_queues(link.queue, link.buffer, int(lk_ptr[l + 1] - lk_ptr[l]))
            if provides(kmod, "queue", "sorted_queues") else (0, 0)
            for l, (link, kmod) in enumerate(zip(network.links, queue_kmods))]
    sq_meta, sq_key, sq_seq, sq_pkt = sorted_queue_layout([c[0] for c in caps]
                                                          + [c[1] for c in caps])
    if sq_key.shape[0] == 0:
        sq_key, sq_seq = np.full(1, np.inf), np.zeros(1, dtype=np.int64)
        sq_pkt = np.full(1, -1, dtype=np.int64)
    return sq_meta, sq_key, sq_seq, sq_pkt


def _histograms(network, record, ff, r_ptr, r_link, mem):
    """The queueing-delay histograms, ``Record.delay_bins`` per flow (each flow's bin width
    in ``ff[:, FF_HIST_W]``: the largest delay its path allows over the bins)."""
    F = network.n_flows
    max_bits = float(ff[:, K.FF_BITS].max()) if F else 8000.0
    per_link_max = np.array([link.buffer * link.queue.n_classes * max_bits / link.capacity
                             for link in network.links])
    nb = record.delay_bins
    for i in range(F):
        span = float(per_link_max[r_link[r_ptr[i]:r_ptr[i + 1]]].sum())
        ff[i, K.FF_HIST_W] = span / nb if span > 0 else 1.0
    mem.need(8.0 * F * nb, f"the delay histograms (Record.delay_bins = {nb} per flow)",
             "record fewer delay_bins")
    return np.zeros((F, nb))


def _time_series(duration, record, F, L, mem):
    """The time series' arrays: ``(interval, thr_s, q_s, cw_s)``, the sampling interval
    (s) and the throughput, queue and window samples."""
    interval = record.interval if record.interval is not None else duration / 500.0
    n_float = math.floor(duration / interval + 1e-9) + 1
    mem.need(8.0 * n_float * (F + L + (F if record.cwnd else 0)),
             f"the time series ({n_float:.3g} samples: duration / Record.interval = "
             f"{duration:g} / {interval:g} s)",
             "record at a longer Record.interval, or without cwnd")
    n_samples = int(n_float)
    thr_s = np.zeros((n_samples, F))
    q_s = np.zeros((n_samples, L))
    cw_s = np.full((n_samples, F) if record.cwnd else (1, F), np.nan)
    return interval, thr_s, q_s, cw_s


def _pool_size(network, limits, ff, changes, ooo_sizes, held) -> int:
    """The packets alive at once the pool has room for: ``Limits.max_packets``, or every
    buffer full, every window open, every link's pipe full of the smallest packets, twice
    over, and room for open-loop sources."""
    if limits.max_packets is not None:
        return limits.max_packets
    links, F = network.links, network.n_flows
    min_bits = 8.0 * min(ACK_SIZE, *(ff[:, K.FF_BITS] / 8.0)) if F else 320.0
    longest = [link.delay for link in links]  # each link's largest delay in the run
    for _, l, d in changes:
        longest[l] = max(longest[l], d)
    # (a window source has at most its window of packets and as many ACKs in flight,
    # counted by ``windows``; the pipes count only where an open-loop source sends)
    # and, where a source states its rate, no more than twice what it sends in the
    # link's delay: a burst beyond waits in the buffers, counted by ``buffers``)
    open_loop = np.zeros(len(links))
    for i, flow in enumerate(network.flows):
        if not flow.source.windowed:
            rate = getattr(flow.source, "rate", None)
            for l in _crossed_either_way(network, i):
                open_loop[l] += (np.inf if rate is None else
                                 math.ceil(2.0 * rate * longest[l] / min_bits) + 2)
    pipes = int(sum(min(math.ceil(links[l].capacity * longest[l] / min_bits) + 1,
                        open_loop[l]) for l in np.flatnonzero(open_loop)))
    windows = int(sum(min(int(ooo_sizes[i]), 1 << 20) for i in range(F)))
    buffers = sum(link.buffer * link.queue.n_classes for link in links)
    pool = 2 * (buffers + windows + pipes) + held + 64 * F + 1024
    return min(pool, 1 << 26)


def _pool_and_heap(network, duration, limits, pool, n_timers, mem):
    """The packet pool and the event heap (``_kernels.heap``), checked against the memory
    budget, the heap holding the initial events sorted by (time, order) (a sorted array is a
    valid heap).  Returns ``(pi, pf, free, hv, heap, timer_rows, n_events)``."""
    L, F = network.n_links, network.n_flows
    heap = (limits.heap_size if limits.heap_size is not None
            else pool + L + 6 * F + 16 + 2 * n_timers)
    timer_rows = min(heap, 4 * n_timers + 16)  # the timers' own heap (_kernels.heap)
    mem.need(8.0 * (pool * (K.N_PI + K.N_PF + 2) + K.N_HV * (heap + timer_rows) + 2 * F + 16),
             f"the packet pool ({pool} packets: every buffer full, every window open and the "
             f"links open-loop sources cross full of their smallest packets, twice over) and "
             f"the event heap ({heap} events)",
             "give the scenario smaller buffers or windows, or set Limits(max_packets=..., "
             "heap_size=...) to what the run needs")
    pi = np.zeros((pool, K.N_PI), dtype=np.int64)
    pi[:, K.PI_QPOS] = -1
    pi[:, K.PI_FLOW] = -1  # free
    pf = np.zeros((pool, K.N_PF))
    free = np.arange(pool - 1, -1, -1, dtype=np.int64)
    events = [(0.0, K.EV_SAMPLE)]
    for i, flow in enumerate(network.flows):
        if flow.start <= duration:
            events.append((flow.start, (i << K.EV_BITS) | K.EV_START))
        if flow.stop is not None and flow.stop <= duration:
            events.append((flow.stop, (i << K.EV_BITS) | K.EV_STOP))
    events.sort(key=lambda e: e[0])  # stable: equal times keep insertion order
    if len(events) > heap:
        raise ScenarioError(f"Limits.heap_size = {heap} is below the {len(events)} initial events")
    hv = np.zeros(K.N_HV * (heap + timer_rows))  # (time, order, payload) per event: _kernels.heap
    hv[K.HV_T::K.N_HV] = np.inf
    for j, (t, d) in enumerate(events):
        hv[K.N_HV * j + K.HV_T], hv[K.N_HV * j + K.HV_O], hv[K.N_HV * j + K.HV_D] = t, j, d
    return pi, pf, free, hv, heap, timer_rows, len(events)


def _globals(record, warmup, duration, interval, n_samples, heap, timer_rows, n_events, pool):
    """The run's global rows ``gi``, ``gf``."""
    gi = np.zeros(K.N_GI, dtype=np.int64)
    gi[K.GI_HEAP_N] = n_events
    gi[K.GI_HEAP_CAP] = heap
    gi[K.GI_TIMER_CAP] = timer_rows
    gi[K.GI_ORDER] = n_events
    gi[K.GI_FREE_TOP] = pool
    gi[K.GI_NSAMPLE] = n_samples
    gi[K.GI_CWND_TRACE] = int(record.cwnd)
    gi[K.GI_NBINS] = record.delay_bins
    gf = np.zeros(K.N_GF)
    gf[K.GF_WARMUP] = warmup
    gf[K.GF_END] = duration
    gf[K.GF_INTERVAL] = interval
    return gi, gf
