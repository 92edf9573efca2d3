"""The network model: links, flows, aggregates of flows and the network they form.

:class:`Link`, :class:`Flow`, :class:`Aggregate` and :class:`Network` are
frozen, validated descriptions.  They are checked when built, so every analysis (``allocate``,
the fluid models, the packet simulator) can trust them, and they are lowered
to the same arrays (the routing matrix, delays, capacities) for all of them,
so theory and packets always describe the same network.

Units are SI throughout: capacities in bit/s, delays in seconds, packet sizes
in bytes, buffers in packets.
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import numpy as np

from . import _validate as v
from ._limits import (  # noqa: F401  (re-exported: their home before they had their own)
    DEFAULT_BUFFER,
    MAX_BUFFER,
    MAX_DELAY,
    MAX_PACKET_SIZE,
    MAX_RATE,
    MAX_TIME,
    MAX_WEIGHT,
    MIN_RATE,
    MIN_WEIGHT,
    _rate,
)
from .errors import MissingExtra, ScenarioError, ScenarioTypeError
from .mechanisms import DropTail, EdgeSpec, QueueSpec, SourceSpec, TcpNewReno

if TYPE_CHECKING:  # pragma: no cover
    import pathlib

    import networkx
    import pandas
    import scipy.sparse

__all__ = ["Link", "Flow", "Aggregate", "Network", "LinkChange"]

#: The parts of a network, in the order ``Network.to_dict`` writes them.
_PARTS = ("links", "flows", "aggregates")


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


@dataclass(frozen=True)
class Link:
    """A one-way link between two nodes.

    Parameters
    ----------
    src, dst : str
        The nodes the link joins; packets travel from ``src`` to ``dst``.
        Integers are accepted and turned into strings.
    capacity : float, bit/s
        Transmission rate, in [1e-3, 1e18] (:data:`MIN_RATE`, :data:`MAX_RATE`).
    delay : float, s
        Propagation delay, in [0, 1e6] (:data:`MAX_DELAY`).
    buffer : int, packets
        Size of the queue at the link's input, in [1, 10**9] (:data:`MAX_BUFFER`).
    queue : QueueSpec
        The queue discipline (default :class:`~qosmodels.mechanisms.DropTail`).

    Raises
    ------
    ScenarioTypeError
        If a field has the wrong type (a capacity given as a string, a
        fractional buffer given as a str, a queue that is not a spec).
    ScenarioError
        If a number is not finite or outside its range, or the link is a self-loop.

    Examples
    --------
    >>> from qosmodels import Link
    >>> from qosmodels.units import Mbps, ms
    >>> Link("a", "b", capacity=Mbps(10), delay=ms(20)).name
    'a->b'
    """

    src: str
    dst: str
    capacity: float
    delay: float = 0.0
    buffer: int = DEFAULT_BUFFER
    queue: QueueSpec = field(default_factory=DropTail)

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "src", v.node_name("Link", "src", self.src))
        set_(self, "dst", v.node_name("Link", "dst", self.dst))
        if self.src == self.dst:
            raise ScenarioError(
                f"Link.dst must differ from Link.src, got a self-loop at node {self.src!r}"
            )
        set_(self, "capacity", _rate("Link", "capacity", self.capacity))
        set_(self, "delay", v.real("Link", "delay", self.delay, ge=0, le=MAX_DELAY, unit="s"))
        set_(self, "buffer", v.integer("Link", "buffer", self.buffer, ge=1, le=MAX_BUFFER,
                                       unit="packets"))
        if not isinstance(self.queue, QueueSpec):
            raise ScenarioTypeError(
                f"Link.queue must be a queue discipline spec (a qosmodels.mechanisms.QueueSpec such as "
                f"DropTail()), got {self.queue!r}"
            )

    @property
    def key(self) -> tuple[str, str]:
        """The pair ``(src, dst)`` that identifies the link in a network."""
        return (self.src, self.dst)

    @property
    def name(self) -> str:
        """``"src->dst"``, the link's name in tables and plots."""
        return f"{self.src}->{self.dst}"


@dataclass(frozen=True)
class Flow:
    """A flow of packets along a fixed route.

    Parameters
    ----------
    route : sequence of str
        The nodes the flow visits, source first; at least two distinct nodes,
        and each consecutive pair must be a declared link of the network.
    weight : float
        Weight in fair allocations (Kelly's willingness to pay, an ACC
        accumulation target, a PPS ticket rate), in [1e-100, 1e100]
        (:data:`MIN_WEIGHT`, :data:`MAX_WEIGHT`).
    packet_size : int or None, bytes
        Size of the flow's data packets, in [1, 10**6] (:data:`MAX_PACKET_SIZE`).
        ``None`` (the default) takes the source's ``packet_size`` if it names
        one, else 1000; naming two different sizes is an error.
    start : float, s
        When the flow starts sending, in [0, 1e12] (:data:`MAX_TIME`).
    stop : float or None, s
        When it stops (``None``: never); must exceed ``start``, at most 1e12.
    source : SourceSpec
        How the flow generates packets (default :class:`~qosmodels.mechanisms.TcpNewReno`).
    max_rate : float or None, bit/s
        The most the flow can use (its demand, or the rate of its access);
        ``None`` means unlimited; else in [1e-3, 1e18] like a capacity.
        Allocations respect it.
    name : str or None
        A label; the network names unnamed flows ``"f0"``, ``"f1"``, ...

    Raises
    ------
    ScenarioTypeError
        If a field has the wrong type.
    ScenarioError
        If a number is not finite or outside its range, the route is not a
        loop-free path of two or more nodes, ``stop <= start``, or the packet
        size disagrees with the source's.

    Examples
    --------
    >>> from qosmodels import Flow
    >>> Flow(route=["a", "b", "c"], weight=2.0).hops
    2
    """

    route: tuple[str, ...]
    weight: float = 1.0
    packet_size: int | None = None
    start: float = 0.0
    stop: float | None = None
    source: SourceSpec = field(default_factory=TcpNewReno)
    max_rate: float | None = None
    name: str | None = None

    if TYPE_CHECKING:  # what the constructor accepts (it stores the route as a tuple)
        def __init__(self, route: Sequence[str], weight: float = 1.0,
                     packet_size: int | None = None, start: float = 0.0,
                     stop: float | None = None, source: SourceSpec = ...,
                     max_rate: float | None = None, name: str | None = None) -> None: ...

    def __post_init__(self):
        set_ = object.__setattr__
        route = self.route
        if isinstance(route, (str, bytes)) or not isinstance(route, Iterable):
            raise ScenarioTypeError(
                f"Flow.route must be a sequence of node names such as ['a', 'b', 'c'], "
                f"got {route!r}"
            )
        route = tuple(v.node_name("Flow", "route", n) for n in route)
        if len(route) < 2:
            raise ScenarioError(
                f"Flow.route must visit at least two nodes (source and destination), got {route!r}"
            )
        seen = set()
        for n in route:
            if n in seen:
                raise ScenarioError(
                    f"Flow.route must not visit a node twice (node {n!r} repeats in {route!r}); "
                    f"give a loop-free path"
                )
            seen.add(n)
        set_(self, "route", route)
        weight = v.real("Flow", "weight", self.weight, gt=0)
        if not MIN_WEIGHT <= weight <= MAX_WEIGHT:
            raise ScenarioError(
                f"Flow.weight must be between {MIN_WEIGHT:g} and {MAX_WEIGHT:g}, got "
                f"{self.weight!r}; weights are relative, so rescale all of them together")
        set_(self, "weight", weight)
        set_(self, "start", v.real("Flow", "start", self.start, ge=0, le=MAX_TIME, unit="s"))
        if self.stop is not None:
            stop = v.real("Flow", "stop", self.stop, le=MAX_TIME, unit="s")
            if not stop > self.start:
                raise ScenarioError(
                    f"Flow.stop must be later than Flow.start = {self.start!r} s (or None for "
                    f"never), got {self.stop!r}"
                )
            set_(self, "stop", stop)
        if not isinstance(self.source, SourceSpec):
            raise ScenarioTypeError(
                f"Flow.source must be a source spec (a qosmodels.mechanisms.SourceSpec such as TcpNewReno()), "
                f"got {self.source!r}"
            )
        src_size = getattr(self.source, "packet_size", None)
        if self.packet_size is None:
            size = 1000 if src_size is None else src_size
            set_(self, "packet_size", v.integer("Flow", "packet_size (from its source)", size,
                                                ge=1, le=MAX_PACKET_SIZE, unit="bytes"))
        else:
            size = v.integer("Flow", "packet_size", self.packet_size, ge=1, le=MAX_PACKET_SIZE,
                             unit="bytes")
            if src_size is not None and src_size != size:
                raise ScenarioError(
                    f"Flow.packet_size = {size} bytes differs from its source's packet_size = "
                    f"{src_size} bytes; give the size in one place (when replacing the source "
                    f"with dataclasses.replace, pass packet_size=None as well)"
                )
            set_(self, "packet_size", size)
        if self.max_rate is not None:
            set_(self, "max_rate", _rate("Flow", "max_rate", self.max_rate))
        if self.name is not None and not isinstance(self.name, str):
            raise ScenarioTypeError(f"Flow.name must be a str or None, got {self.name!r}")

    @property
    def hops(self) -> int:
        """Number of links on the route."""
        return len(self.route) - 1

    @property
    def hop_keys(self) -> tuple[tuple[str, str], ...]:
        """The ``(src, dst)`` keys of the links the route crosses, in order."""
        return tuple(zip(self.route[:-1], self.route[1:]))


@dataclass(frozen=True)
class Aggregate:
    """A named group of flows entering the network at one node, optionally behind one
    edge element (a token bucket, a marker, a tagger) that all their packets cross
    before their first link.

    An aggregate of one flow gives that flow an edge element of its own.

    Parameters
    ----------
    name : str
        Unique among the network's aggregates.
    flows : sequence of int or str
        The member flows, by index in ``Network.flows`` or by name; at least
        one, no repeats.  They must share their first node (the ingress).
    edge : EdgeSpec or None
        The element at the aggregate's ingress; ``None`` describes the group
        only (for analyses and results).  A flow belongs to at most one
        aggregate with an edge element.

    Examples
    --------
    >>> from qosmodels import Aggregate, Flow, Link, Network
    >>> net = Network([Link("s", "r", 1e6), Link("r", "d", 1e6)],
    ...               [Flow(["s", "r", "d"], name="x"), Flow(["s", "r"], name="y")],
    ...               aggregates=[Aggregate("clients", flows=["x", 1])])
    >>> net.aggregate_members("clients")
    (0, 1)
    """

    name: str
    flows: tuple = ()
    edge: EdgeSpec | None = None

    if TYPE_CHECKING:  # what the constructor accepts (it stores the flows as a tuple)
        def __init__(self, name: str, flows: Sequence[int | str] = (),
                     edge: EdgeSpec | None = None) -> None: ...

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise ScenarioTypeError(f"Aggregate.name must be a non-empty str, got {self.name!r}")
        members = self.flows
        if isinstance(members, (str, bytes)) or not isinstance(members, Iterable):
            raise ScenarioTypeError(
                f"Aggregate {self.name!r}: flows must be a sequence of flow indices or names, "
                f"got {members!r}")
        members = tuple(members)
        if not members:
            raise ScenarioError(f"Aggregate {self.name!r}: flows must name at least one flow, "
                                f"got none")
        for m in members:
            if isinstance(m, bool) or not isinstance(m, (numbers.Integral, str)):
                raise ScenarioTypeError(
                    f"Aggregate {self.name!r}: a member flow must be an index (int) or a name "
                    f"(str), got {m!r}")
            if isinstance(m, numbers.Integral) and m < 0:
                raise ScenarioError(f"Aggregate {self.name!r}: flow index {m!r} is negative; "
                                    f"use 0 .. F-1")
        members = tuple(int(m) if isinstance(m, numbers.Integral) else m for m in members)
        if len(set(members)) != len(members):
            raise ScenarioError(f"Aggregate {self.name!r}: flows {list(members)} repeat a flow; "
                                f"list each once")
        if self.edge is not None and not isinstance(self.edge, EdgeSpec):
            raise ScenarioTypeError(
                f"Aggregate {self.name!r}: edge must be an edge element spec (a "
                f"qosmodels.mechanisms.EdgeSpec) or None, got {self.edge!r}")
        object.__setattr__(self, "flows", members)


@dataclass(frozen=True)
class LinkChange:
    """An event: a link's propagation delay changes at a given time (Figure 5 of the ACC paper).

    :func:`~qosmodels.fluid.solve_fluid` and :func:`~qosmodels.sim.simulate` take a
    sequence of them as ``events``.

    Parameters
    ----------
    time : float, s
        When the change happens, > 0.
    link : str, tuple or int
        The link, as ``"src->dst"``, ``(src, dst)`` or an index.
    delay : float, s
        The new propagation delay, in [0, 1e6] like :attr:`Link.delay`.

    Raises
    ------
    ScenarioError
        If ``time`` or ``delay`` is not finite or outside its range.

    Examples
    --------
    >>> from qosmodels import LinkChange
    >>> LinkChange(10.0, "r0->r1", delay=0.052).delay
    0.052
    """

    time: float
    link: object
    delay: float

    def __post_init__(self):
        object.__setattr__(self, "time", v.real("LinkChange", "time", self.time, gt=0,
                                                le=MAX_TIME, unit="s"))
        object.__setattr__(self, "delay",
                           v.real("LinkChange", "delay", self.delay, ge=0, le=MAX_DELAY, unit="s"))


@dataclass(frozen=True)
class Network:
    """Links and the flows that cross them: the scenario every analysis takes.

    Parameters
    ----------
    links : sequence of Link
        The declared links; at most one link per ordered pair of nodes.
    flows : sequence of Flow
        The flows; each route must be a path of declared links.  May be empty.
    aggregates : sequence of Aggregate
        Named groups of flows sharing an ingress, each optionally behind an
        edge element.  May be empty.

    Notes
    -----
    A flow's reverse path (for ACKs) is its route reversed.  Where a reverse
    link is declared, it is used (and can congest); where it is not, the hop
    is taken as uncongested with the forward link's propagation delay.

    Examples
    --------
    >>> from qosmodels import Network, Link, Flow
    >>> net = Network(links=[Link("a", "b", capacity=1e6), Link("b", "c", capacity=2e6)],
    ...               flows=[Flow(route=["a", "b", "c"]), Flow(route=["b", "c"])])
    >>> net.routing_matrix.toarray()
    array([[1., 0.],
           [1., 1.]])
    """

    links: tuple[Link, ...]
    flows: tuple[Flow, ...] = ()
    aggregates: tuple[Aggregate, ...] = ()

    if TYPE_CHECKING:  # what the constructor accepts (it stores tuples)
        def __init__(self, links: Sequence[Link], flows: Sequence[Flow] = (),
                     aggregates: Sequence[Aggregate] = ()) -> None: ...

    def __post_init__(self):
        links, flows = self.links, self.flows
        if isinstance(links, Link) or not isinstance(links, Iterable):
            raise ScenarioTypeError(f"Network.links must be a sequence of Link, got {links!r}")
        if isinstance(flows, Flow) or not isinstance(flows, Iterable):
            raise ScenarioTypeError(f"Network.flows must be a sequence of Flow, got {flows!r}")
        links, flows = tuple(links), tuple(flows)
        for i, link in enumerate(links):
            if not isinstance(link, Link):
                raise ScenarioTypeError(f"Network.links[{i}] must be a Link, got {link!r}")
        for i, flow in enumerate(flows):
            if not isinstance(flow, Flow):
                raise ScenarioTypeError(f"Network.flows[{i}] must be a Flow, got {flow!r}")
        if not links:
            raise ScenarioError("Network.links must hold at least one Link, got none")
        index: dict[tuple[str, str], int] = {}
        for i, link in enumerate(links):
            if link.key in index:
                raise ScenarioError(
                    f"Network.links[{i}] repeats link {link.name} (already links[{index[link.key]}]);"
                    f" declare each (src, dst) pair once"
                )
            index[link.key] = i
        nodes = {n for link in links for n in link.key}
        names = set()
        for i, flow in enumerate(flows):
            for n in flow.route:
                if n not in nodes:
                    raise ScenarioError(
                        f"Network.flows[{i}].route has unknown node {n!r}; known nodes are "
                        f"{sorted(nodes)}"
                    )
            for a, b in flow.hop_keys:
                if (a, b) not in index:
                    raise ScenarioError(
                        f"Network.flows[{i}].route {list(flow.route)} is not a path of declared "
                        f"links: there is no link {a}->{b}; declare Link({a!r}, {b!r}, ...) or fix "
                        f"the route"
                    )
            name = flow.name if flow.name is not None else f"f{i}"
            if name in names:
                raise ScenarioError(
                    f"Network.flows[{i}].name {name!r} is used by another flow; flow names must be "
                    f"unique"
                )
            names.add(name)
        object.__setattr__(self, "links", links)
        object.__setattr__(self, "flows", flows)
        object.__setattr__(self, "aggregates", self._check_aggregates(flows))
        # the index is derived state; store it without making it a field
        self.__dict__["_index"] = index

    def _check_aggregates(self, flows) -> tuple[Aggregate, ...]:
        aggs = self.aggregates
        if isinstance(aggs, Aggregate) or not isinstance(aggs, Iterable):
            raise ScenarioTypeError(f"Network.aggregates must be a sequence of Aggregate, "
                                    f"got {aggs!r}")
        aggs = tuple(aggs)
        names = [f.name if f.name is not None else f"f{i}" for i, f in enumerate(flows)]
        seen: dict[str, int] = {}
        edge_of: dict[int, str] = {}
        members: list[tuple[int, ...]] = []
        for k, agg in enumerate(aggs):
            if not isinstance(agg, Aggregate):
                raise ScenarioTypeError(f"Network.aggregates[{k}] must be an Aggregate, got {agg!r}")
            if agg.name in seen:
                raise ScenarioError(f"Network.aggregates[{k}].name {agg.name!r} is used by "
                                    f"aggregates[{seen[agg.name]}]; aggregate names must be unique")
            seen[agg.name] = k
            idx = []
            for m in agg.flows:
                if isinstance(m, str):
                    if m not in names:
                        raise ScenarioError(f"Aggregate {agg.name!r}: no flow named {m!r}; flows "
                                            f"are {names}")
                    idx.append(names.index(m))
                elif m >= len(flows):
                    raise ScenarioError(f"Aggregate {agg.name!r}: flow index {m} is out of range "
                                        f"0..{len(flows) - 1}")
                else:
                    idx.append(m)
            if len(set(idx)) != len(idx):
                raise ScenarioError(f"Aggregate {agg.name!r}: flows {list(agg.flows)} name one "
                                    f"flow twice (by index and by name)")
            ingress = {flows[i].route[0] for i in idx}
            if len(ingress) > 1:
                raise ScenarioError(
                    f"Aggregate {agg.name!r}: its flows enter the network at different nodes "
                    f"{sorted(ingress)}; an aggregate's flows must share their first node")
            if agg.edge is not None:
                for i in idx:
                    if i in edge_of:
                        raise ScenarioError(
                            f"Aggregate {agg.name!r}: flow {names[i]!r} is already behind the "
                            f"edge element of aggregate {edge_of[i]!r}; a flow crosses at most "
                            f"one edge element")
                    edge_of[i] = agg.name
            members.append(tuple(idx))
        self.__dict__["_aggregate_members"] = tuple(members)
        return aggs

    # ------------------------------------------------------------------ sizes and names
    @property
    def n_links(self) -> int:
        """Number of links, L."""
        return len(self.links)

    @property
    def n_flows(self) -> int:
        """Number of flows, F."""
        return len(self.flows)

    @cached_property
    def nodes(self) -> tuple[str, ...]:
        """Node names in order of first appearance among the links."""
        return tuple(dict.fromkeys(n for link in self.links for n in link.key))

    @cached_property
    def link_names(self) -> tuple[str, ...]:
        """``"src->dst"`` for each link, in the order of :attr:`links`."""
        return tuple(link.name for link in self.links)

    @cached_property
    def flow_names(self) -> tuple[str, ...]:
        """Each flow's name (``"f<i>"`` where a flow has none), in the order of :attr:`flows`."""
        if hasattr(self.flows, "names"):  # the flows of Network.from_arrays, made on access
            return self.flows.names()
        return tuple(f.name if f.name is not None else f"f{i}" for i, f in enumerate(self.flows))

    @property
    def n_aggregates(self) -> int:
        """Number of aggregates."""
        return len(self.aggregates)

    def aggregate_members(self, aggregate) -> tuple[int, ...]:
        """The member flows' indices of an aggregate given by name or index."""
        if isinstance(aggregate, str):
            for k, agg in enumerate(self.aggregates):
                if agg.name == aggregate:
                    return self._aggregate_members[k]
            raise ScenarioError(f"no aggregate {aggregate!r} in this network; aggregates are "
                                f"{[a.name for a in self.aggregates]}")
        if isinstance(aggregate, numbers.Integral) and not isinstance(aggregate, bool) \
                and 0 <= int(aggregate) < self.n_aggregates:
            return self._aggregate_members[int(aggregate)]
        raise ScenarioError(f"aggregate {aggregate!r} is not a name or an index in "
                            f"0..{self.n_aggregates - 1}")

    def link_id(self, link) -> int:
        """Index of a link given as a ``(src, dst)`` pair, a ``"src->dst"`` name or an index.

        Raises
        ------
        ScenarioError
            If no such link is declared.
        """
        if isinstance(link, numbers.Integral) and not isinstance(link, bool):
            if 0 <= int(link) < self.n_links:
                return int(link)
            raise ScenarioError(f"link index {link!r} is out of range 0..{self.n_links - 1}")
        key = tuple(link.split("->")) if isinstance(link, str) else tuple(map(str, link))
        try:
            return self._index[key]
        except KeyError:
            raise ScenarioError(
                f"no link {link!r} in this network; links are {list(self.link_names)}"
            ) from None

    # ------------------------------------------------------------------ per-link arrays
    @cached_property
    def capacities(self) -> np.ndarray:
        """Link capacities, bit/s, shape (L,)."""
        return _readonly(np.array([link.capacity for link in self.links], dtype=np.float64))

    @cached_property
    def delays(self) -> np.ndarray:
        """Link propagation delays, s, shape (L,)."""
        return _readonly(np.array([link.delay for link in self.links], dtype=np.float64))

    @cached_property
    def buffers(self) -> np.ndarray:
        """Link buffers, packets, shape (L,)."""
        return _readonly(np.array([link.buffer for link in self.links], dtype=np.int64))

    # ------------------------------------------------------------------ per-flow arrays
    @cached_property
    def weights(self) -> np.ndarray:
        """Flow weights, shape (F,)."""
        return _readonly(np.array([f.weight for f in self.flows], dtype=np.float64))

    @cached_property
    def packet_sizes(self) -> np.ndarray:
        """Flow packet sizes, bytes, shape (F,)."""
        return _readonly(np.array([f.packet_size for f in self.flows], dtype=np.int64))

    @cached_property
    def max_rates(self) -> np.ndarray:
        """Flow rate limits, bit/s, shape (F,); ``inf`` where a flow has none."""
        return _readonly(np.array(
            [np.inf if f.max_rate is None else f.max_rate for f in self.flows], dtype=np.float64
        ))

    @cached_property
    def route_ptr(self) -> np.ndarray:
        """CSR row pointer of the routes, int64, shape (F + 1,): flow i's links are
        ``route_links[route_ptr[i]:route_ptr[i + 1]]``."""
        return _readonly(np.concatenate(
            [[0], np.cumsum([f.hops for f in self.flows], dtype=np.int64)]
        ).astype(np.int64))

    @cached_property
    def route_links(self) -> np.ndarray:
        """Link indices of every route in path order, int64, shape (sum of hops,)."""
        idx = [self._index[k] for f in self.flows for k in f.hop_keys]
        return _readonly(np.array(idx, dtype=np.int64))

    @cached_property
    def reverse_route_links(self) -> np.ndarray:
        """For each forward hop (aligned with :attr:`route_links`), the index of the declared
        reverse link ``dst->src``, or -1 where none is declared.  int64, shape (sum of hops,)."""
        idx = [self._index.get((b, a), -1) for f in self.flows for a, b in f.hop_keys]
        return _readonly(np.array(idx, dtype=np.int64))

    def flow_links(self, i: int) -> np.ndarray:
        """Indices of the links flow ``i`` crosses, in path order."""
        return self.route_links[self.route_ptr[i]:self.route_ptr[i + 1]]

    @cached_property
    def routing_matrix(self) -> scipy.sparse.csr_matrix:
        """The routing matrix R, links x flows: ``R[l, i] = 1`` if flow i crosses link l.

        scipy.sparse CSR, float64, shape (L, F).  Treat it as read-only.
        """
        import scipy.sparse as sp

        cols = np.repeat(np.arange(self.n_flows), np.diff(self.route_ptr))
        m = sp.csr_matrix(
            (np.ones(len(self.route_links)), (self.route_links, cols)),
            shape=(self.n_links, self.n_flows),
        )
        m.sum_duplicates()
        m.sort_indices()
        for a in (m.data, m.indices, m.indptr):
            a.setflags(write=False)
        return m

    @cached_property
    def forward_delay(self) -> np.ndarray:
        """Propagation delay from source to destination, s, shape (F,)."""
        return _readonly(self._sum_over_routes(self.delays[self.route_links]))

    @cached_property
    def reverse_delay(self) -> np.ndarray:
        """Propagation delay of the reverse path (the ACKs' way back), s, shape (F,).

        Declared reverse links contribute their own delay; undeclared ones the
        forward link's delay.
        """
        rev = self.reverse_route_links
        d = np.where(rev >= 0, self.delays[np.maximum(rev, 0)], self.delays[self.route_links])
        return _readonly(self._sum_over_routes(d))

    @cached_property
    def rtt(self) -> np.ndarray:
        """Round-trip propagation delay (forward + reverse), s, shape (F,)."""
        return _readonly(self.forward_delay + self.reverse_delay)

    def _sum_over_routes(self, per_hop: np.ndarray) -> np.ndarray:
        out = np.zeros(self.n_flows)
        cols = np.repeat(np.arange(self.n_flows), np.diff(self.route_ptr))
        np.add.at(out, cols, per_hop)
        return out

    # ------------------------------------------------------------------ what-ifs
    def replace(self, **changes) -> Network:
        """A copy with fields replaced (``links=...``, ``flows=...``), validated anew."""
        return dataclasses.replace(self, **changes)

    def replace_link(self, link, **changes) -> Network:
        """A copy with one link's fields changed, e.g. ``net.replace_link("a->b", capacity=2e6)``.

        ``link`` is a ``(src, dst)`` pair, a ``"src->dst"`` name or an index.
        """
        i = self.link_id(link)
        links = list(self.links)
        links[i] = dataclasses.replace(links[i], **changes)
        return self.replace(links=links)

    def replace_flow(self, flow, **changes) -> Network:
        """A copy with one flow's fields changed; ``flow`` is an index or a flow name."""
        i = self._flow_id(flow)
        flows = list(self.flows)
        flows[i] = dataclasses.replace(flows[i], **changes)
        return self.replace(flows=flows)

    def _flow_id(self, flow) -> int:
        if isinstance(flow, numbers.Integral) and not isinstance(flow, bool):
            if 0 <= int(flow) < self.n_flows:
                return int(flow)
        elif flow in self.flow_names:
            return self.flow_names.index(flow)
        raise ScenarioError(
            f"no flow {flow!r} in this network; give an index 0..{self.n_flows - 1} or one of "
            f"{list(self.flow_names)}"
        )

    # ------------------------------------------------------------------ large networks
    @classmethod
    def from_arrays(cls, capacities, routes, *, delays=None, buffers=None, weights=None,
                    max_rates=None, names=None, ends=None) -> Network:
        """Build a network from flat arrays, without a Python object per flow.

        For networks of 10**5 to 10**6 flows, where building one :class:`Flow`
        per flow costs more than the analysis.  Every value is checked, vectorised, by
        the rules :class:`Link`, :class:`Flow` and the constructor of
        :class:`Network` apply; a refusal names the array, the row (link index or
        flow name) and the fix.  The result equals the network the object path
        builds from the same data (same links, flows, routes and arrays); its links
        are :class:`Link` objects with a :class:`~qosmodels.mechanisms.DropTail`
        queue, and its flows are made on access (``net.flows[i]`` is a :class:`Flow`
        with the default source, ``TcpNewReno()``), so that only analyses that need
        them one by one (the packet simulator, ``to_dict``) pay for them.

        Parameters
        ----------
        capacities : array_like of float, shape (L,), bit/s
            Link capacities, as :attr:`Link.capacity`.
        routes : (indptr, indices) or scipy.sparse matrix
            The routes.  A CSR pair: flow i crosses links
            ``indices[indptr[i]:indptr[i + 1]]`` in path order (``indptr`` of
            shape (F + 1,) starting at 0; ``indices`` link indices in 0..L-1).  Or
            a flows x links sparse 0/1 matrix of shape (F, L); each flow then
            crosses its links in increasing link index, so give a CSR pair when the
            order differs.  Every flow crosses at least one link.
        delays : array_like of float, shape (L,), s, optional
            Link propagation delays (default 0), as :attr:`Link.delay`.
        buffers : array_like of int, shape (L,), packets, optional
            Link buffers (default 100), as :attr:`Link.buffer`.
        weights : array_like of float, shape (F,), optional
            Flow weights (default 1), as :attr:`Flow.weight`.
        max_rates : array_like of float, shape (F,), bit/s, optional
            Flow rate caps, ``inf`` (or ``None`` in a list) for none, the default; as
            :attr:`Flow.max_rate`.
        names : sequence of str or None, length F, optional
            Flow names (``None`` entries: ``"f<i>"``), unique.
        ends : sequence of (src, dst) pairs, length L, optional
            The nodes each link joins (str or int, as :attr:`Link.src`).  Without
            it the nodes are inferred from the routes, as the fewest nodes that make
            every route a path: the end of each hop is the start of the next, and
            the nodes are named ``"n0"``, ``"n1"``, ... in order of first
            appearance along the links.

        Returns
        -------
        Network
            With no aggregates.

        Raises
        ------
        ScenarioTypeError
            If an array has the wrong type (text where numbers belong, a route
            pointer that is not integer).
        ScenarioError
            If an array has the wrong shape, a value breaks the rule of its
            :class:`Link` or :class:`Flow` field, a route is empty, not a path of
            the links' ends or visits a node twice, two links join the same ordered
            pair of nodes, or two flows share a name.

        Examples
        --------
        >>> from qosmodels import Network
        >>> net = Network.from_arrays([1e6, 2e6], ([0, 2, 3], [0, 1, 1]))
        >>> net.link_names, net.flows[0].route
        (('n0->n1', 'n1->n2'), ('n0', 'n1', 'n2'))
        >>> net.routing_matrix.toarray()
        array([[1., 0.],
               [1., 1.]])
        """
        from ._from_arrays import network_from_arrays

        return network_from_arrays(cls, Link, Flow, capacities, routes, delays=delays,
                                   buffers=buffers, weights=weights, max_rates=max_rates,
                                   names=names, ends=ends)

    # ------------------------------------------------------------------ conversions
    def to_pandas(self) -> tuple[pandas.DataFrame, pandas.DataFrame]:
        """Two tables: links (indexed by name) and flows (indexed by name), in SI units."""
        import pandas as pd

        links = pd.DataFrame(
            {
                "src": [link.src for link in self.links],
                "dst": [link.dst for link in self.links],
                "capacity_bps": self.capacities,
                "delay_s": self.delays,
                "buffer_pkts": self.buffers,
                "queue": [link.queue.kind for link in self.links],
            },
            index=pd.Index(self.link_names, name="link"),
        )
        flows = pd.DataFrame(
            {
                "route": ["-".join(f.route) for f in self.flows],
                "weight": self.weights,
                "packet_size_bytes": self.packet_sizes,
                "start_s": [f.start for f in self.flows],
                "stop_s": [np.nan if f.stop is None else f.stop for f in self.flows],
                "source": [f.source.kind for f in self.flows],
                "max_rate_bps": self.max_rates,
                "rtt_s": self.rtt,
            },
            index=pd.Index(self.flow_names, name="flow"),
        )
        return links, flows

    def to_networkx(self) -> networkx.DiGraph:
        """A :class:`networkx.DiGraph` whose edges carry the links' fields (``capacity``,
        ``delay``, ``buffer``, ``queue``) and whose ``graph["flows"]`` holds the flows."""
        nx = _networkx()
        g = nx.DiGraph(flows=list(self.flows))
        g.add_nodes_from(self.nodes)
        for link in self.links:
            g.add_edge(link.src, link.dst, capacity=link.capacity, delay=link.delay,
                       buffer=link.buffer, queue=link.queue)
        return g

    @classmethod
    def from_networkx(cls, graph: networkx.DiGraph, flows: Sequence[Flow] | None = None) -> Network:
        """Build a network from a directed graph.

        Each edge becomes a :class:`Link`; its attributes ``capacity`` (required),
        ``delay``, ``buffer`` and ``queue`` are used where present.  Flows come
        from ``flows`` or, if that is None, from ``graph.graph["flows"]``.
        An undirected graph gives a link in each direction.
        """
        links = []
        for a, b, attrs in _directed_edges(graph):
            if "capacity" not in attrs:
                raise ScenarioError(
                    f"edge {a}->{b} of the graph has no 'capacity' attribute (bit/s); set "
                    f"graph.edges[{a!r}, {b!r}]['capacity']"
                )
            kw = {k: attrs[k] for k in ("capacity", "delay", "buffer", "queue") if k in attrs}
            links.append(Link(a, b, **kw))
        if flows is None:
            flows = graph.graph.get("flows", ())
        return cls(links=links, flows=flows)

    def to_dict(self) -> dict:
        """The network as plain data (dicts, lists, str, numbers, None), ready for JSON or YAML.

        Every field of every link, flow, aggregate and mechanism is written,
        defaults included; a mechanism is a dict whose ``"type"`` names its
        class in :mod:`qosmodels.mechanisms`.  ``Network.from_dict`` reads it
        back into an equal network.

        Examples
        --------
        >>> from qosmodels import topologies
        >>> net = topologies.dumbbell(2)
        >>> d = net.to_dict()
        >>> d["links"][0]["queue"]
        {'type': 'DropTail', 'mark_threshold': None}
        >>> Network.from_dict(d) == net
        True
        """
        from ._codec import FORMAT, plain, version

        out: dict = {"format": FORMAT, "qosmodels": version()}
        for part in _PARTS:
            out[part] = [plain(obj) for obj in getattr(self, part)]
        return out

    @classmethod
    def from_dict(cls, data: Mapping) -> Network:
        """The network that :meth:`to_dict` wrote as ``data``, validated as if built in code.

        Raises
        ------
        ScenarioError, ScenarioTypeError
            For an unknown key, field or mechanism type (the message lists the
            valid ones) and for any value the classes themselves refuse.
        """
        from ._codec import build, check_document

        check_document(data, _PARTS)
        return cls(**{part: [build(kind, item, f"{part}[{i}]")
                             for i, item in enumerate(data.get(part, []))]
                      for part, kind in zip(_PARTS, (Link, Flow, Aggregate))})

    def save(self, path) -> pathlib.Path:
        """Write the network to ``path``: JSON, or YAML when the suffix is ``.yaml``/``.yml``.

        ``qosmodels simulate PATH`` and ``qosmodels allocate PATH`` run a saved scenario.
        """
        from ._codec import write

        return write(self.to_dict(), path)

    @classmethod
    def load(cls, path) -> Network:
        """The network saved in ``path`` by :meth:`save` (or written by hand in that layout)."""
        from ._codec import read

        data = read(path)
        try:
            return cls.from_dict(data)
        except ScenarioError as exc:
            raise type(exc)(f"{path}: {exc}") from None

    def __repr__(self) -> str:
        aggs = f", {self.n_aggregates} aggregates" if self.aggregates else ""
        return (f"Network({self.n_links} links, {self.n_flows} flows, {len(self.nodes)} nodes"
                f"{aggs})")

    def _repr_html_(self) -> str:
        links, flows = self.to_pandas()
        return (f"<p><b>{self!r}</b></p><p>Links</p>{links.to_html()}"
                f"<p>Flows</p>{flows.to_html()}")


def _networkx():
    try:
        import networkx as nx
    except ImportError as exc:  # pragma: no cover - networkx is a dependency
        raise MissingExtra("networkx is needed for graph conversion: pip install networkx") from exc
    return nx


def _directed_edges(graph) -> list[tuple[object, object, Mapping]]:
    edges = list(graph.edges(data=True))
    if not graph.is_directed():
        edges = edges + [(b, a, d) for a, b, d in edges]
    return edges
