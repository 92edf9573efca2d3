"""Network calculus: arrival and service curves, and the delay and backlog bounds they give.

The deterministic network calculus of Cruz and of Le Boudec and Thiran, for the
piecewise-linear families the library's mechanisms need:

* arrival curves that are **concave and piecewise linear**, the minimum of
  affine pieces ``b_k + r_k t`` (``t > 0``; every curve is 0 at ``t = 0``):
  the token bucket ``b + r t`` and, with a peak rate ``p`` and a largest
  packet ``M``, the dual bucket (IntServ's T-SPEC) ``min(M + p t, b + r t)``
  (:class:`TokenBucketCurve`);
* service curves that are **rate-latency**, ``R (t - T)+`` (:class:`RateLatency`),
  the family closed under concatenation: ``RateLatency(R1, T1) (x) RateLatency(R2,
  T2) = RateLatency(min(R1, R2), T1 + T2)`` (:func:`concatenate`, "pay bursts
  only once"), and under blind multiplexing (:func:`residual`, the service a
  FIFO or lower-priority flow is left by a token-bucket cross traffic).

The bounds are the deviations between the two curves: the delay bound is the
horizontal deviation ``h(alpha, beta)`` (:func:`delay_bound`), the backlog bound
the vertical deviation ``v(alpha, beta)`` (:func:`backlog_bound`), and the
output of a flow through a server has the arrival curve ``alpha (/) beta``
(min-plus deconvolution, :func:`output_curve`).  For a concave piecewise-linear
``alpha`` and a rate-latency ``beta`` both deviations are attained at a
breakpoint of ``alpha`` or at ``T``, which is how they are computed here; the
tests check them against brute-force evaluation on fine grids.

Units: bits, bit/s and seconds throughout (SI; :mod:`qosmodels.units` converts).

References
----------
J.-Y. Le Boudec, P. Thiran, *Network Calculus: A Theory of Deterministic
Queuing Systems for the Internet*, LNCS 2050, Springer, 2001 (online 2020),
Sections 1.2-1.5 and 1.7 (Theorems 1.4.1-1.4.4, 1.4.6).  R. L. Cruz, "A calculus
for network delay", IEEE Trans. Information Theory 37(1), 1991.  A. K. Parekh,
R. G. Gallager, "A generalized processor sharing approach to flow control in
integrated services networks: the single-node case", IEEE/ACM Trans.
Networking 1(3), 1993 (the PGPS latency of :func:`pgps_service`).  L. Lenzini, E.
Mingozzi, G. Stea, "Tradeoffs between low complexity, low latency, and fairness with
deficit round-robin schedulers", IEEE/ACM Trans. Networking 12(4), 2004 (the DRR latency of
:func:`drr_service`, derived again in its docstring); M. Shreedhar, G. Varghese, "Efficient
fair queuing using deficit round robin", SIGCOMM 1995.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import _validate as v
from ._repr import ShortRepr
from .errors import ScenarioError, ScenarioTypeError

__all__ = ["TokenBucketCurve", "RateLatency", "delay_bound", "backlog_bound", "concatenate",
           "residual", "output_curve", "pgps_service", "drr_service", "service_curve",
           "FIFO_KINDS", "trace_envelope", "PathBound", "path_bound", "arrival_of",
           "shaper_service"]


@dataclass(frozen=True)
class TokenBucketCurve:
    """A token-bucket arrival curve ``alpha(t) = b + r t`` (``t > 0``), with an optional peak.

    With ``peak`` the curve is the dual bucket ``min(max_packet + peak t, b + r t)``:
    at most ``max_packet`` bits at once and ``peak`` bit/s in the short run, ``b``
    bits of burst and ``r`` bit/s in the long run (IntServ's T-SPEC).

    Parameters
    ----------
    b : float, bits
        The burst, >= 0.
    r : float, bit/s
        The sustained rate, >= 0 and finite.
    peak : float or None, bit/s
        The peak rate, >= ``r`` (None: no peak constraint).
    max_packet : float, bits
        The largest packet, ``0 <= max_packet <= b`` (used only with ``peak``).

    Examples
    --------
    >>> a = TokenBucketCurve(b=8000.0, r=1e6)
    >>> a(0.0), a(0.001)
    (0.0, 9000.0)
    """

    b: float
    r: float
    peak: float | None = None
    max_packet: float = 0.0

    def __post_init__(self):
        set_ = object.__setattr__
        o = "TokenBucketCurve"
        set_(self, "b", v.real(o, "b", self.b, ge=0, unit="bits"))
        set_(self, "r", v.real(o, "r", self.r, ge=0, unit="bit/s"))
        set_(self, "max_packet", v.real(o, "max_packet", self.max_packet, ge=0, unit="bits"))
        if self.peak is not None:
            set_(self, "peak", v.real(o, "peak", self.peak, ge=self.r, unit="bit/s"))
            if self.max_packet > self.b:
                raise ScenarioError(f"{o}.max_packet must be <= b = {self.b!r} bits (a packet "
                                    f"larger than the burst never conforms), got "
                                    f"{self.max_packet!r}")

    @property
    def pieces(self) -> tuple[tuple[float, float], ...]:
        """The affine pieces ``(burst, rate)`` whose minimum is the curve for ``t > 0``."""
        if self.peak is None:
            return ((self.b, self.r),)
        return ((self.max_packet, self.peak), (self.b, self.r))

    @property
    def breakpoints(self) -> tuple[float, ...]:
        """Where the curve's slope changes, s (besides ``t = 0``)."""
        if self.peak is None or self.peak == self.r:
            return ()
        return ((self.b - self.max_packet) / (self.peak - self.r),)

    def __call__(self, t: float) -> float:
        """The curve at ``t`` s, bits (0 at ``t <= 0``)."""
        t = float(t)
        if t <= 0.0:
            return 0.0
        return min(b + r * t for b, r in self.pieces)

    @property
    def rate(self) -> float:
        """The long-run rate (the last slope), bit/s."""
        return self.r


@dataclass(frozen=True)
class RateLatency:
    """A rate-latency service curve ``beta(t) = R (t - T)+``.

    Parameters
    ----------
    R : float, bit/s
        The rate, > 0.
    T : float, s
        The latency, >= 0.

    Examples
    --------
    >>> RateLatency(R=1e6, T=0.01)(0.02)
    10000.0
    """

    R: float
    T: float = 0.0

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "R", v.real("RateLatency", "R", self.R, gt=0, unit="bit/s"))
        set_(self, "T", v.real("RateLatency", "T", self.T, ge=0, unit="s"))

    def __call__(self, t: float) -> float:
        """The curve at ``t`` s, bits."""
        return self.R * max(float(t) - self.T, 0.0)


def _check(owner: str, arrival, service) -> None:
    if not isinstance(arrival, TokenBucketCurve):
        raise ScenarioTypeError(f"{owner}: arrival must be a TokenBucketCurve, got "
                                f"{type(arrival).__name__}")
    if not isinstance(service, RateLatency):
        raise ScenarioTypeError(f"{owner}: service must be a RateLatency, got "
                                f"{type(service).__name__}")
    if arrival.rate > service.R:
        raise ScenarioError(
            f"{owner}: the arrival's rate r = {arrival.rate:g} bit/s exceeds the service rate "
            f"R = {service.R:g} bit/s, so the backlog and the delay grow without bound; give "
            f"a server with R >= r")


def delay_bound(arrival: TokenBucketCurve, service: RateLatency) -> float:
    """The delay bound, the horizontal deviation ``h(alpha, beta)``, s.

    For a token bucket ``(b, r)`` through ``RateLatency(R, T)`` with ``r <= R`` it is
    ``T + b / R`` (Le Boudec and Thiran, Theorem 1.4.2); with a peak it is ``T +
    max(M / R, alpha(theta) / R - theta)`` at the peak's breakpoint ``theta``
    (IntServ's guaranteed-service bound ``T + (M + (b - M)(p - R)+ / (p - r)) / R``).

    Raises
    ------
    ScenarioError
        If ``r > R`` (no finite bound).
    """
    _check("delay_bound", arrival, service)
    # sup over t > 0 of alpha(t) / R - t: alpha concave, so at t -> 0+ or a breakpoint
    candidates = [min(b for b, _ in arrival.pieces)] + [
        arrival(t) - service.R * t for t in arrival.breakpoints]
    return service.T + max(candidates) / service.R


def backlog_bound(arrival: TokenBucketCurve, service: RateLatency) -> float:
    """The backlog bound, the vertical deviation ``v(alpha, beta)``, bits.

    ``b + r T`` for a token bucket through ``RateLatency(R, T)`` with ``r <= R``
    (Theorem 1.4.1); with a peak, the largest of ``alpha(T)`` and ``alpha(theta) -
    R (theta - T)+`` at the peak's breakpoint ``theta``.

    Raises
    ------
    ScenarioError
        If ``r > R`` (no finite bound).
    """
    _check("backlog_bound", arrival, service)
    # alpha - beta is concave between the breakpoints of alpha and T, and falls after the
    # last (r <= R): its sup is at t -> 0+ or at one of them
    burst = min(b for b, _ in arrival.pieces)
    return max([burst] + [arrival(t) - service(t)
                          for t in (service.T, *arrival.breakpoints) if t > 0.0])


def concatenate(*services: RateLatency) -> RateLatency:
    """The service curve of servers in tandem: their min-plus convolution, ``RateLatency(min R,
    sum T)`` (Theorem 1.4.6): a flow pays its burst once, at the slowest rate, rather than
    once per hop.

    Raises
    ------
    ScenarioError, ScenarioTypeError
        With no server, or one that is not a :class:`RateLatency`.
    """
    if not services:
        raise ScenarioError("concatenate needs at least one RateLatency service curve")
    for k, s in enumerate(services):
        if not isinstance(s, RateLatency):
            raise ScenarioTypeError(f"concatenate: service {k} must be a RateLatency, got "
                                    f"{type(s).__name__}")
    return RateLatency(R=min(s.R for s in services), T=math.fsum(s.T for s in services))


def residual(service: RateLatency, cross: TokenBucketCurve) -> RateLatency:
    """The service left to a flow by cross traffic ``cross`` served before it or FIFO with
    it (blind multiplexing, Le Boudec and Thiran Theorem 6.2.1): ``[beta - alpha_cross]+``,
    for a token bucket ``(b_c, r_c)`` the rate-latency curve ``RateLatency(R - r_c, T + (b_c +
    r_c T) / (R - r_c))``.  The peak of ``cross`` is not used (a valid, looser curve).

    Raises
    ------
    ScenarioError
        If ``r_c >= R`` (nothing is left).
    """
    if not isinstance(service, RateLatency) or not isinstance(cross, TokenBucketCurve):
        raise ScenarioTypeError("residual(service, cross) takes a RateLatency and a "
                                "TokenBucketCurve")
    left = service.R - cross.r
    if not left > 0.0:
        raise ScenarioError(f"residual: the cross traffic's rate {cross.r:g} bit/s leaves "
                            f"nothing of the service rate R = {service.R:g} bit/s; it must be "
                            f"below R")
    return RateLatency(R=left, T=service.T + (cross.b + cross.r * service.T) / left)


def output_curve(arrival: TokenBucketCurve, service: RateLatency) -> TokenBucketCurve:
    """An arrival curve of the flow's output from the server: ``alpha (/) beta``, for a
    token bucket ``TokenBucketCurve(b + r T, r)`` (Theorem 1.4.3: the burst grows by what
    arrives during the latency).  For a curve with a peak the peak is dropped (the result
    bounds the output of its ``(b, r)`` part, a valid, looser curve).

    Raises
    ------
    ScenarioError
        If ``r > R``.
    """
    _check("output_curve", arrival, service)
    return TokenBucketCurve(b=arrival.b + arrival.r * service.T, r=arrival.r)


def pgps_service(capacity: float, share: float, max_packet: float,
                 flow_packet: float | None = None) -> RateLatency:
    """The PGPS (packet-by-packet weighted fair queueing) server as a rate-latency curve.

    A flow with the weight share ``phi_i / sum_j phi_j`` of a link of ``capacity`` gets the
    guaranteed rate ``R = share * capacity`` with latency ``L_i / R + L_max / C``
    (Parekh and Gallager 1993: PGPS finishes every packet no later than GPS plus
    ``L_max / C``; GPS is a rate-latency server of latency ``L_i / R`` for packets of at
    most ``L_i`` bits).

    Parameters
    ----------
    capacity : float, bit/s
        The line rate ``C``, > 0.
    share : float
        ``phi_i / sum_j phi_j``, in (0, 1].
    max_packet : float, bits
        ``L_max``, the largest packet on the link, > 0.
    flow_packet : float or None, bits
        ``L_i``, the flow's largest packet (None: ``max_packet``).
    """
    o = "pgps_service"
    c = v.real(o, "capacity", capacity, gt=0, unit="bit/s")
    s = v.real(o, "share", share, gt=0, le=1)
    lmax = v.real(o, "max_packet", max_packet, gt=0, unit="bits")
    li = lmax if flow_packet is None else v.real(o, "flow_packet", flow_packet, gt=0,
                                                 le=lmax, unit="bits")
    rate = s * c
    return RateLatency(R=rate, T=li / rate + lmax / c)


def drr_service(capacity: float, quanta, flow: int, max_packets) -> RateLatency:
    """Deficit round robin as a rate-latency server for one of its conversations.

    Conversation ``i`` of a DRR link (Shreedhar and Varghese, Fig. 3) whose conversations have
    the quanta ``Q_j`` (bits per round; ``F = sum_j Q_j``) and the largest packets ``L_j``
    (bits) gets ``RateLatency(R_i, T_i)`` with

    ``R_i = Q_i C / F``,  ``T_i = ((F - Q_i)(1 + L_i / Q_i) + sum_j L_j) / C``,

    the latency of Lenzini, Mingozzi and Stea (2004, their tight bound).  Derivation (as
    checked here): let ``i`` be backlogged from ``s``.  A conversation's deficit counter is
    below its largest packet after every visit that leaves it backlogged, so ``k``
    consecutive visits to ``j`` send at most ``k Q_j + L_j`` bits, and ``k`` visits to the
    backlogged ``i`` at least ``k Q_i - L_i`` (its counter starts at 0).  Between two visits
    to ``i`` every other conversation is visited at most once, and at most once before
    ``i``'s first, so ``i``'s ``m``-th visit starts at the latest at ``tau_m = (m F - Q_i +
    sum_{j != i} L_j) / C`` (the line is busy: ``i`` is backlogged), having received at
    least ``(m - 1) Q_i - L_i`` bits; during the visit it is served at ``C`` until it has
    received at least ``m Q_i - L_i``.  The line through these corners, of slope ``Q_i C /
    F``, meets the time axis at ``T_i`` above, and the service stays above it between them.
    The bound counts bits as they leave (the packet's last bit at the end of its
    transmission), so a packet's sojourn, queueing plus its own transmission, is what the
    delay bound bounds.

    Parameters
    ----------
    capacity : float, bit/s
        The line rate ``C``, > 0.
    quanta : sequence of float, bits
        Every conversation's quantum per round (``Drr.quantum`` times the flow's weight, in
        bits), each > 0.
    flow : int
        The conversation ``i``, an index into ``quanta``.
    max_packets : sequence of float, bits
        Every conversation's largest packet, each > 0, as long as ``quanta``.

    Examples
    --------
    >>> s = drr_service(1e6, [8000.0, 8000.0], 0, [8000.0, 8000.0])
    >>> s.R, s.T
    (500000.0, 0.032)
    """
    o = "drr_service"
    c = v.real(o, "capacity", capacity, gt=0, unit="bit/s")
    q = [v.real(o, f"quanta[{k}]", x, gt=0, unit="bits") for k, x in enumerate(quanta)]
    lmax = [v.real(o, f"max_packets[{k}]", x, gt=0, unit="bits")
            for k, x in enumerate(max_packets)]
    if not q:
        raise ScenarioError("drr_service: quanta is empty; give every conversation's quantum")
    if len(lmax) != len(q):
        raise ScenarioError(f"drr_service: max_packets has {len(lmax)} entries and quanta "
                            f"{len(q)}; give one largest packet per conversation")
    i = v.integer(o, "flow", flow, ge=0)
    if i >= len(q):
        raise ScenarioError(f"drr_service: flow = {i} but there are {len(q)} conversations; "
                            f"give an index below {len(q)}")
    frame = math.fsum(q)
    latency = ((frame - q[i]) * (1.0 + lmax[i] / q[i]) + math.fsum(lmax)) / c
    return RateLatency(R=q[i] * c / frame, T=latency)


#: Queue disciplines whose packets leave first come, first served (one FIFO, whatever
#: their drop or mark rule): the aggregate of their flows sees the line as a constant-rate
#: server, ``RateLatency(C, 0)``.
FIFO_KINDS = frozenset({"droptail", "red", "ered", "codel", "avq", "random-loss", "rio",
                        "ticket-red", "decbit", "pie", "pi"})


def _conversations(network, l: int):
    """The conversations of link ``l``: ``(flow index, weight, largest packet bits)`` of every
    flow whose data crosses it and of every flow whose ACKs cross it (a closed-loop source's
    receiver sends them back along the reverse links), as the simulator forms them."""
    from .sim.compile import ACK_SIZE

    out = []
    ptr, fwd, rev = network.route_ptr, network.route_links, network.reverse_route_links
    sizes = network.packet_sizes
    for i, f in enumerate(network.flows):
        hops = slice(int(ptr[i]), int(ptr[i + 1]))
        if l in fwd[hops]:
            out.append((i, float(f.weight), 8.0 * float(sizes[i])))
        if (f.source.windowed or f.source.feedback) and l in rev[hops]:
            out.append((i, float(f.weight), 8.0 * ACK_SIZE))
    return out


def service_curve(queue_spec, link, flow, network=None, *, cross=None) -> RateLatency:
    """The service curve a flow gets from a link's queue discipline.

    Parameters
    ----------
    queue_spec : QueueSpec or None
        The discipline (None: the link's own ``queue``).  Supported:

        * the FIFO disciplines (:data:`FIFO_KINDS`): the line as a constant-rate server,
          ``RateLatency(C, 0)``, the aggregate's service; with ``cross`` (the arrival curve of
          the other flows together) the flow's own, :func:`residual`;
        * ``FairQueueing(delta=0)`` (PGPS): :func:`pgps_service` with the flow's weight share
          of the conversations crossing the link (``network`` needed);
        * ``Drr``: :func:`drr_service` with every conversation's quantum ``quantum x weight``
          (``quantum=None``: the largest packet crossing the link), ``network`` needed;
        * ``Priority``: class 0 waits at most for one lower-class packet in transmission,
          ``RateLatency(C, L_low / C)`` (non-preemptive); a lower class gets that less the
          higher classes, which ``cross`` must bound (:func:`residual`).
    link : Link, str or int
        The link (a ``Link``; with ``network`` also its name or index).
    flow : Flow, str or int
        The flow (with ``network`` its index or name; its data must cross ``link``).
    network : Network or None
        The network both belong to; needed where the flow's share depends on the others.
    cross : TokenBucketCurve or None, keyword
        The arrival curve of the traffic served before or with the flow (FIFO, lower
        priority classes).

    Returns
    -------
    RateLatency

    Raises
    ------
    ScenarioError, ScenarioTypeError
        For a discipline without a known rate-latency curve (named), ``FairQueueing`` with
        ``delta > 0``, a missing ``network`` or ``cross``, or a flow that does not cross
        the link.

    Examples
    --------
    >>> from qosmodels import Flow, Link, Network
    >>> from qosmodels.mechanisms import Cbr, Drr
    >>> net = Network([Link("a", "b", 1e6, 0.001, queue=Drr(quantum=1000))],
    ...               [Flow(["a", "b"], source=Cbr(rate=1e5), packet_size=1000),
    ...                Flow(["a", "b"], source=Cbr(rate=1e5), packet_size=1000)])
    >>> service_curve(None, "a->b", 0, net)
    RateLatency(R=500000.0, T=0.032)
    """
    from .network import Flow, Link

    if network is None:
        if not isinstance(link, Link):
            raise ScenarioTypeError(f"service_curve: link must be a Link when no network is "
                                    f"given, got {link!r}; pass network= to name it")
        lk, l, i = link, None, None
    else:
        l = network.link_id(link.key if isinstance(link, Link) else link)
        lk = network.links[l]
        i = (network.flows.index(flow) if isinstance(flow, Flow) and flow in network.flows
             else network._flow_id(flow))
        if l not in network.flow_links(i):
            raise ScenarioError(f"service_curve: flow {network.flow_names[i]!r} does not cross "
                                f"link {lk.name!r}; give a link on its route "
                                f"{' -> '.join(network.flows[i].route)}")
    spec = lk.queue if queue_spec is None else queue_spec
    kind = getattr(spec, "kind", None)
    c = float(lk.capacity)

    def need_network(what):
        if network is None:
            raise ScenarioError(f"service_curve: {type(spec).__name__} shares the link by "
                                f"{what}, so the other flows matter; pass network= (the "
                                f"Network the link and the flow belong to)")

    if kind in FIFO_KINDS:
        line = RateLatency(R=c, T=0.0)
        return line if cross is None else residual(line, cross)
    if kind == "fq":
        if spec.delta != 0.0:
            raise ScenarioError(f"service_curve: FairQueueing(delta={spec.delta:g}) is not "
                                f"PGPS; no rate-latency curve is known for delta > 0; use "
                                f"delta = 0")
        need_network("weight")
        conv = _conversations(network, l)
        share = network.flows[i].weight / math.fsum(w for _, w, _ in conv)
        return pgps_service(c, share, max(s for *_, s in conv),
                            8.0 * float(network.packet_sizes[i]))
    if kind == "drr":
        need_network("quantum")
        conv = _conversations(network, l)
        q = spec.quantum
        if q is None:
            q = max(s for *_, s in conv) / 8.0
        k = next(k for k, (j, *_) in enumerate(conv) if j == i)  # its data conversation
        return drr_service(c, [8.0 * q * w for _, w, _ in conv], k, [s for *_, s in conv])
    if kind == "priority":
        need_network("class")
        mine = network.flows[i].source.priority
        conv = _conversations(network, l)
        low = [s for j, _, s in conv if network.flows[j].source.priority > mine]
        line = RateLatency(R=c, T=(max(low) if low else 0.0) / c)
        if mine == 0:
            return line
        if cross is None:
            raise ScenarioError(f"service_curve: flow {network.flow_names[i]!r} is in "
                                f"priority class {mine}; the classes before it take what "
                                f"they need, so give cross= (a TokenBucketCurve bounding "
                                f"their traffic together)")
        return residual(line, cross)
    raise ScenarioError(f"service_curve: no rate-latency service curve is known here for "
                        f"{type(spec).__name__} (kind {kind!r}); supported: the FIFO "
                        f"disciplines ({', '.join(sorted(FIFO_KINDS))}), FairQueueing "
                        f"(delta = 0), Drr and Priority")


def trace_envelope(times, sizes, rates) -> list[TokenBucketCurve]:
    """The smallest token-bucket arrival curves of a packet trace, one per rate.

    For each ``r`` in ``rates`` the least ``b`` with ``A(t) - A(s) <= b + r (t - s)`` for
    every ``s <= t``, where ``A`` counts the trace's bits with each packet arriving whole at
    its instant: ``b(r) = max over k <= m of (L_k + ... + L_m - r (t_m - t_k))``, computed in
    one pass per rate (the running minimum of ``S_{k-1} - r t_k``, ``S`` the cumulative
    bits).  Every curve bounds the trace; which to use depends on the server (the one with
    the smallest :func:`delay_bound`, say).

    Parameters
    ----------
    times : array_like, s
        The packets' arrival instants, non-decreasing, finite.
    sizes : array_like, bits
        Their sizes, > 0, as many as ``times``.
    rates : array_like, bit/s
        The token rates to fit, each >= 0 and finite.

    Returns
    -------
    list of TokenBucketCurve
        ``TokenBucketCurve(b(r), r)`` per rate, in the order given.

    Examples
    --------
    >>> [a.b for a in trace_envelope([0.0, 0.001, 0.002], [8000.0] * 3, [4e6, 8e6])]
    [16000.0, 8000.0]
    """
    o = "trace_envelope"
    t = np.asarray(times, dtype=float)
    x = np.asarray(sizes, dtype=float)
    rs = np.atleast_1d(np.asarray(rates, dtype=float))
    if t.ndim != 1 or x.shape != t.shape or t.size == 0:
        raise ScenarioError(f"{o}: times and sizes must be non-empty 1-D arrays of one length, "
                            f"got shapes {t.shape} and {x.shape}")
    if not np.all(np.isfinite(t)) or np.any(np.diff(t) < 0):
        raise ScenarioError(f"{o}: times must be finite and non-decreasing (sort the trace "
                            f"by arrival)")
    if not np.all(np.isfinite(x)) or np.any(x <= 0):
        raise ScenarioError(f"{o}: sizes must be finite and > 0 bits, got min {x.min()!r}")
    if rs.ndim != 1 or not np.all(np.isfinite(rs)) or np.any(rs < 0):
        raise ScenarioError(f"{o}: rates must be finite and >= 0 bit/s, got {rates!r}")
    cum = np.cumsum(x)
    before = cum - x  # S_{k-1}
    out = []
    for r in rs:
        low = np.minimum.accumulate(before - r * t)
        out.append(TokenBucketCurve(b=float(np.max(cum - r * t - low)), r=float(r)))
    return out


@dataclass(frozen=True, repr=False)
class PathBound(ShortRepr):
    """A flow's end-to-end bounds along its route (:func:`path_bound`).

    Attributes
    ----------
    flow : str
        The flow's name.
    arrival : TokenBucketCurve
        Its arrival curve at the first hop, bits.
    links : tuple of str
        The links of its route, in order.
    hops : tuple of RateLatency
        The service curve used at each hop (with the packetizer's latency where it applies).
    service : RateLatency
        Their concatenation, the end-to-end service curve.
    delay : float, s
        The bound on a packet's time from its arrival at the first hop to its last bit
        leaving the last (queueing and transmission; propagation apart).
    propagation : float, s
        The links' propagation delays, summed.
    backlog : float, bits
        The bound on the flow's bits inside the path's queues and lines.
    """

    flow: str
    arrival: TokenBucketCurve
    links: tuple
    hops: tuple
    service: RateLatency
    delay: float
    propagation: float
    backlog: float

    @property
    def total_delay(self) -> float:
        """``delay + propagation``, s."""
        return self.delay + self.propagation

    def to_pandas(self):
        """One row per hop (its rate and latency) and one for the path (the bounds)."""
        import pandas as pd

        rows = [{"link": name, "rate_bps": h.R, "latency_s": h.T} for name, h in
                zip(self.links, self.hops)]
        rows.append({"link": "end to end", "rate_bps": self.service.R,
                     "latency_s": self.service.T, "delay_bound_s": self.delay,
                     "propagation_s": self.propagation, "backlog_bound_bits": self.backlog})
        return pd.DataFrame(rows).set_index("link")

    def plot(self, ax=None, observed: float | None = None, **kwargs):
        """The arrival curve and the end-to-end service curve, with the delay bound as their
        horizontal distance (and, if given, the ``observed`` worst delay, s, beside it).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure if omitted.
        observed : float or None, s
            A measured worst delay (queueing and transmission), drawn as a second arrow.
        **kwargs
            Passed to the curves' ``plot`` calls.

        Returns
        -------
        matplotlib.axes.Axes
        """
        from ._plot import drawn, panels

        ax = panels(ax, 1)
        a = ax[0]
        horizon = 2.0 * (self.service.T + self.delay) + 1e-12
        t = np.linspace(0.0, horizon, 400)
        kb = 1e3
        a.plot(t, [self.arrival(x) / kb for x in t], label="arrival curve", **kwargs)
        a.plot(t, [self.service(x) / kb for x in t], label="service curve (end to end)",
               **kwargs)
        burst = self.arrival(1e-15) / kb
        a.annotate("", xy=(self.delay, burst), xytext=(0.0, burst),
                   arrowprops={"arrowstyle": "<->", "color": "k"})
        a.text(self.delay / 2, burst, f"bound {self.delay * 1e3:.3g} ms", ha="center",
               va="bottom")
        if observed is not None:
            a.annotate("", xy=(observed, 0.6 * burst), xytext=(0.0, 0.6 * burst),
                       arrowprops={"arrowstyle": "<->", "color": "tab:red"})
            a.text(observed / 2, 0.6 * burst, f"observed {observed * 1e3:.3g} ms",
                   ha="center", va="bottom", color="tab:red")
        a.set_xlabel("time (s)")
        a.set_ylabel("kbit")
        a.set_title(f"{self.flow}: delay bound {self.delay * 1e3:.3g} ms")
        a.legend()
        return drawn(ax)


def arrival_of(network, flow) -> TokenBucketCurve:
    """The arrival curve a flow's token-bucket edge element gives its output.

    A flow that is a member of an aggregate shaped or policed by an
    :class:`~qosmodels.mechanisms.AggregateBucket` leaves the edge conforming to the
    aggregate's bucket, so its traffic, a part of the aggregate's, is bounded by
    ``TokenBucketCurve(b = 8 depth, r = rate)`` (bits, bit/s), with the peak-rate bucket
    ``(8 max_packet, peak_rate)`` when ``peak_rate`` is finite.  (A member's own partition
    would give a tighter curve; the aggregate's holds for every ``sharing``.)

    Raises
    ------
    ScenarioError
        If the flow is in no aggregate with an ``AggregateBucket`` that shapes or polices
        (``action="mark"`` lets non-conforming packets through).
    """
    from .mechanisms import AggregateBucket

    i = network._flow_id(flow)
    for agg in network.aggregates:
        edge = agg.edge
        if isinstance(edge, AggregateBucket) and i in network.aggregate_members(agg.name):
            if edge.action == "mark":
                raise ScenarioError(
                    f"arrival_of: aggregate {agg.name!r}'s AggregateBucket marks (action="
                    f"'mark'), so flow {network.flow_names[i]!r}'s traffic is not bounded by "
                    f"its bucket; give an arrival curve of your own")
            peak = None if math.isinf(edge.peak_rate) else float(edge.peak_rate)
            return TokenBucketCurve(b=8.0 * edge.depth, r=float(edge.rate), peak=peak,
                                    max_packet=8.0 * edge.max_packet if peak else 0.0)
    raise ScenarioError(f"arrival_of: flow {network.flow_names[i]!r} is in no aggregate "
                        f"with an AggregateBucket, so nothing bounds its traffic; give its "
                        f"arrival curve (a TokenBucketCurve)")


def shaper_service(network, flow) -> RateLatency:
    """The service curve a flow's token-bucket shaper offers it, as a rate-latency curve.

    A greedy shaper of shaping curve ``sigma`` offers ``sigma`` as a service curve (Le Boudec
    and Thiran, Theorem 1.5.1); for a bucket ``sigma(t) = b + r t >= r t``, so
    ``RateLatency(r, 0)`` is a (looser) rate-latency service curve of it.  The rate is the
    one the flow is sure of: the aggregate's ``rate`` for a ``"common"`` bucket (the curve is
    then the aggregate's, its members together), ``rate / n`` for a member of a
    ``"partitioned"`` or ``"logical"`` bucket of ``n`` members (its partition's rate; the
    logical bucket may give it more).

    Raises
    ------
    ScenarioError
        If the flow is in no aggregate with an ``AggregateBucket`` that shapes
        (``action="shape"``).
    """
    from .mechanisms import AggregateBucket

    i = network._flow_id(flow)
    for agg in network.aggregates:
        edge = agg.edge
        members = network.aggregate_members(agg.name)
        if isinstance(edge, AggregateBucket) and i in members and edge.action == "shape":
            n = 1 if edge.sharing == "common" else len(members)
            return RateLatency(R=float(edge.rate) / n, T=0.0)
    raise ScenarioError(f"shaper_service: flow {network.flow_names[i]!r} is in no aggregate "
                        f"whose AggregateBucket shapes (action='shape'); a policer or a marker "
                        f"offers no service curve")


def path_bound(network, flow, arrival: TokenBucketCurve | None = None, *,
               cross=None) -> PathBound:
    """A flow's end-to-end delay and backlog bounds through its route.

    Each hop's curve is :func:`service_curve` of its link's queue discipline; a packet is
    forwarded whole, when its last bit has left, so every hop but the last is followed by a
    packetizer, which costs the flow's largest packet ``L_i`` at the hop's rate (the
    combined system offers ``[beta - L_i]+``, Le Boudec and Thiran Theorem 1.7.1), except
    ``FairQueueing`` hops, whose PGPS curve already counts whole packets.  The hops are
    concatenated (Theorem 1.4.6: the burst is paid once) and the bounds are the deviations
    from ``arrival``.

    Parameters
    ----------
    network : Network
    flow : int or str
        The flow.
    arrival : TokenBucketCurve or None
        Its arrival curve where it enters (bits; its rate must be below every hop's rate).
        None: the one its token-bucket edge element gives it (:func:`arrival_of`).
    cross : mapping of link (name, index or pair) to TokenBucketCurve, optional
        The cross traffic's arrival curve at the hops that need one (FIFO for a flow's own
        curve, lower priority classes; see :func:`service_curve`).

    Returns
    -------
    PathBound
    """
    if arrival is None:
        arrival = arrival_of(network, flow)
    if not isinstance(arrival, TokenBucketCurve):
        raise ScenarioTypeError(f"path_bound: arrival must be a TokenBucketCurve or None, got "
                                f"{type(arrival).__name__}")
    i = network._flow_id(flow)
    crossing = {network.link_id(k): c for k, c in (cross or {}).items()}
    links = [int(x) for x in network.flow_links(i)]
    li = 8.0 * float(network.packet_sizes[i])
    hops = []
    for k, l in enumerate(links):
        h = service_curve(None, l, i, network, cross=crossing.get(l))
        if k + 1 < len(links) and network.links[l].queue.kind != "fq":
            h = RateLatency(R=h.R, T=h.T + li / h.R)
        hops.append(h)
    total = concatenate(*hops)
    return PathBound(flow=network.flow_names[i], arrival=arrival,
                     links=tuple(network.link_names[l] for l in links), hops=tuple(hops),
                     service=total, delay=delay_bound(arrival, total),
                     propagation=math.fsum(float(network.links[l].delay) for l in links),
                     backlog=backlog_bound(arrival, total))
