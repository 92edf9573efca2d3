"""Token buckets at the edge of an aggregate of TCP connections: shaping, policing, marking.

The aggregate-rate-control paper conditions the traffic of an aggregate of
connections against one traffic specification ``(b, r_m, p, L_m)``
(:class:`qosmodels.tokenbucket.TokenBucket`) and compares three ways to share
its tokens among the connections: a **partitioned** bucket (independent
buckets of rate ``r_m / n``), a **common** bucket (one bucket; when the
shaping timer fires, waiting connections are served in a **sequential**,
**FCFS** or **LRU** order) and **logical partitions** (one bucket, each
connection with rate ``r_m / n`` and depth ``b rtt_i / sum rtt``, the
tokens overflowing a full logical bucket shared equally among the others).

References
----------
A. Mehra, R. Tewari, D. Kandlur, "Design considerations for rate control of
aggregated TCP connections" (the aggregate-rate-control paper), Sections 3.2-3.3
(traffic specification, policing with marking, shaping), 4.1 (the qosmgr agent,
shaping timer 15 ms, triggers), 4.2.1-4.2.3 (partitioned, common and logical
buckets).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ..errors import ScenarioError, ScenarioTypeError
from ..tokenbucket import Partition, TokenBucket, partition
from ._base import EdgeSpec, _flag

__all__ = ["AggregateBucket"]

SHARINGS = ("partitioned", "common", "logical")
ORDERS = ("sequential", "fcfs", "lru")
ACTIONS = ("shape", "police", "mark")
DEPTH_RULES = ("rtt", "equal")


def _choice(field, value, allowed):
    if not isinstance(value, str):
        raise ScenarioTypeError(f"AggregateBucket.{field} must be one of {list(allowed)}, "
                                f"got {value!r}")
    if value not in allowed:
        raise ScenarioError(f"AggregateBucket.{field} must be one of {list(allowed)}, "
                            f"got {value!r}")
    return value


@dataclass(frozen=True)
class AggregateBucket(EdgeSpec):
    """A token bucket conditioning an :class:`~qosmodels.Aggregate`'s data at its ingress.

    A data packet of ``L`` bytes of member ``i`` is compliant (in profile)
    when the bucket it draws on holds at least ``L`` tokens (bytes), and
    the peak-rate bucket too when ``peak_rate`` is finite (depth
    ``max_packet``, rate ``peak_rate``; one for the aggregate, or one per
    connection when partitioned).  A compliant packet spends its tokens and
    carries the in-profile mark (``MARK_IN_PROFILE``, which an
    :class:`~qosmodels.mechanisms.Ered` queue favours).

    Parameters
    ----------
    rate : float, bit/s
        ``r_m``, the aggregate's token rate, > 0.
    depth : float, bytes
        ``b``, the aggregate's depth, >= ``max_packet``.
    peak_rate : float, bit/s
        ``p`` >= ``rate``; ``math.inf`` (default): no peak-rate limit.
    max_packet : float, bytes
        ``L_m``; every member's packets must fit (default 1500).
    sharing : {"logical", "common", "partitioned"}
        ``"partitioned"``: each member has its own bucket, rate ``r_m / n``,
        depth as ``depths`` says; tokens a full bucket cannot hold are lost.
        ``"common"``: every member draws on one bucket.  ``"logical"``: one
        bucket of logical partitions, rate ``r_m / n`` and depth as
        ``depths`` says each; the tokens a full partition cannot hold go in
        equal shares to the partitions that are not full (water filling,
        :func:`qosmodels.tokenbucket.logical_fill`), so the partitions never
        hold more than ``b`` together and tokens are lost only when all are
        full.
    order : {"fcfs", "sequential", "lru"} or None
        Common bucket only: the order in which the shaping timer lets the
        waiting members send.  ``"sequential"``: member order of the
        aggregate; ``"fcfs"``: by the time each became non-compliant;
        ``"lru"``: the member least recently given tokens first.  ``None``
        (default): ``"fcfs"`` for a common bucket.
    action : {"shape", "police", "mark"}
        ``"shape"``: a window sender (TCP) that is not compliant is held
        back until it is (its packets are not sent, as in the paper's
        qosmgr, which TCP's output routine consults); a packet produced
        anyway (a fast retransmission, an open-loop source's packet) waits
        in the member's hold of ``limit`` packets, in order.  Held senders
        and packets go on when the shaping timer fires, or when the member
        sends again (an ACK's trigger).  ``"police"``: non-compliant packets
        are dropped.  ``"mark"``: non-compliant packets are sent without the
        in-profile mark (out of profile, best effort).
    depths : {"rtt", "equal"}
        Partitioned and logical buckets: depths ``b rtt_i / sum rtt``
        (``"rtt"``, the paper's proportionate share; ``rtt_i`` the member's
        round-trip propagation delay, ``Network.rtt``) or ``b / n``.
    timer : float, s
        Period of the aggregate's shaping timer (default 0.015, the paper's
        15 ms; it ticks at multiples of the period).  0: a timer set to the
        instant the next waiting member becomes compliant (an exact shaper:
        :meth:`qosmodels.tokenbucket.TokenBucket.shape` for one member).
    limit : int, packets
        Per member, the packets a shaping edge holds at most; beyond it a
        packet is dropped (counted in ``counters["edge_dropped"]``).
    record : bool
        Record the trace channels ``tokens`` (tokens held by the whole
        bucket after each change, bytes), ``tokens_m<i>`` (member ``i``'s
        partition, partitioned and logical buckets) and ``sent`` (bytes of
        each packet leaving the edge, at its time).
    quantum : int or math.inf, packets
        Shaping only: the packets a member may send per trigger, i.e. at one
        instant (an ACK that makes TCP's output routine run, or the member's
        turn at a timer tick, held packets and the deferred send together).
        A member that has sent ``quantum`` packets at a trigger waits for
        the next tick of the timer, as a non-compliant one does (in FCFS
        order from then).  ``math.inf`` (default): every packet that
        conforms goes.  The paper leaves it unstated ("the fairness policy
        controls which connection ... is allowed to transmit next and the
        number of packets it can transmit", Section 4.1).

    References
    ----------
    Aggregate-rate-control paper, Sections 3.2-3.3, 4.1 and 4.2.

    Examples
    --------
    >>> from qosmodels.mechanisms import AggregateBucket
    >>> AggregateBucket(rate=600e3, depth=30_000, sharing="common", order="lru").bucket.rate
    600000.0
    """

    rate: float
    depth: float
    peak_rate: float = math.inf
    max_packet: float = 1500.0
    sharing: str = "logical"
    order: str | None = None
    action: str = "shape"
    depths: str = "rtt"
    timer: float = 0.015
    limit: int = 1000
    record: bool = False
    quantum: float = math.inf

    kind: ClassVar[str] = "token-bucket"
    kernel: ClassVar[str] = "edges.token_bucket"

    def __post_init__(self):
        set_ = object.__setattr__
        o = "AggregateBucket"
        set_(self, "rate", real(o, "rate", self.rate, gt=0, unit="bit/s"))
        set_(self, "max_packet", real(o, "max_packet", self.max_packet, gt=0, unit="bytes"))
        set_(self, "depth", real(o, "depth", self.depth, gt=0, unit="bytes"))
        if self.depth < self.max_packet:
            raise ScenarioError(
                f"AggregateBucket.depth must be >= max_packet = {self.max_packet:g} bytes (a "
                f"largest packet would never conform), got {self.depth!r}; raise depth or lower "
                f"max_packet")
        p = self.peak_rate
        if not (isinstance(p, float) and p == math.inf):
            p = real(o, "peak_rate", p, gt=0, unit="bit/s")
            if p < self.rate:
                raise ScenarioError(
                    f"AggregateBucket.peak_rate must be >= rate = {self.rate:g} bit/s, got {p!r}; "
                    f"use math.inf for no peak-rate limit")
            set_(self, "peak_rate", p)
        _choice("sharing", self.sharing, SHARINGS)
        _choice("action", self.action, ACTIONS)
        _choice("depths", self.depths, DEPTH_RULES)
        if self.order is None:
            if self.sharing == "common":
                set_(self, "order", "fcfs")
        else:
            _choice("order", self.order, ORDERS)
            if self.sharing != "common":
                raise ScenarioError(
                    f"AggregateBucket.order applies to a common bucket only (sharing="
                    f"'common'), got order={self.order!r} with sharing={self.sharing!r}; "
                    f"drop order or use sharing='common'")
        set_(self, "timer", real(o, "timer", self.timer, ge=0, unit="s"))
        set_(self, "limit", integer(o, "limit", self.limit, ge=1, unit="packets"))
        _flag(o, "record", self.record)
        q = self.quantum
        if not (isinstance(q, float) and q == math.inf):
            set_(self, "quantum", integer(o, "quantum", q, ge=1, unit="packets"))
            if self.action != "shape":
                raise ScenarioError(
                    f"AggregateBucket.quantum limits the packets a shaped member sends per "
                    f"trigger; it applies to action='shape' only, got quantum={q!r} with "
                    f"action={self.action!r}; drop quantum or use action='shape'")

    @property
    def bucket(self) -> TokenBucket:
        """The aggregate's specification ``(b, r_m, p, L_m)`` as the analytic side's object."""
        return TokenBucket(depth=self.depth, rate=self.rate, peak_rate=self.peak_rate,
                           max_packet=self.max_packet)

    def partition(self, rtts) -> Partition:
        """Per-member rates and depths (partitioned and logical buckets) for members of
        round-trip times ``rtts`` (s): :func:`qosmodels.tokenbucket.partition`."""
        return partition(self.bucket, rtts, self.depths)
