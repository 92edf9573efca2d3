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
Networking 1(3), 1993 (the PGPS latency of :func:`pgps_service`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import _validate as v
from .errors import ScenarioError, ScenarioTypeError

__all__ = ["TokenBucketCurve", "RateLatency", "delay_bound", "backlog_bound", "concatenate",
           "residual", "output_curve", "pgps_service"]


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
