"""Networks built from flat arrays (:meth:`Network.from_arrays <qosmodels.Network.from_arrays>`).

A network of 10**6 flows built one :class:`~qosmodels.Flow` at a time spends most of its
time validating each flow's fields and building its default source.  Here every rule of
:class:`~qosmodels.Link`, :class:`~qosmodels.Flow` and :class:`~qosmodels.Network` is
checked on whole arrays; where a value breaks one, the per-object validator is called on
that value, so the message is the one the object path gives, prefixed with the array and
row.  The flows are a :class:`FlowView`, a read-only sequence that makes each
:class:`~qosmodels.Flow` when it is accessed; the per-flow arrays that ``allocate``,
``solve_fluid`` and ``simulate`` read (weights, routes, ...) are stored directly.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from . import _validate as v
from ._limits import (
    DEFAULT_BUFFER,
    MAX_BUFFER,
    MAX_DELAY,
    MAX_RATE,
    MAX_WEIGHT,
    MIN_RATE,
    MIN_WEIGHT,
    _rate,
)
from .errors import ScenarioError, ScenarioTypeError

_OWNER = "Network.from_arrays"


class FlowView(Sequence):
    """The flows of a network built by ``Network.from_arrays``, each made when accessed.

    Behaves as the tuple of :class:`~qosmodels.Flow` the object path stores: indexing
    (``view[i]``, slices give tuples), iteration, ``len``, ``==`` with a tuple of flows,
    hashing and concatenation.  A flow is made anew at each access (equal each time).
    """

    __slots__ = ("_flow_cls", "_nodes", "_src", "_dst", "_ptr", "_links", "_weights",
                 "_max_rates", "_names")

    def __init__(self, flow_cls, nodes, src, dst, ptr, links, weights, max_rates, names):
        self._flow_cls = flow_cls    # qosmodels.Flow
        self._nodes = nodes          # node names, tuple of str
        self._src = src              # per link, index into nodes
        self._dst = dst
        self._ptr = ptr              # CSR pointer of the routes, shape (F + 1,)
        self._links = links          # link indices in path order
        self._weights = weights
        self._max_rates = max_rates  # inf: no cap
        self._names = names          # tuple of str or None per flow, or None

    def __len__(self) -> int:
        return len(self._ptr) - 1

    def _flow(self, i: int):
        hops = self._links[self._ptr[i]:self._ptr[i + 1]]
        nodes = self._nodes
        route = [nodes[self._src[hops[0]]]] + [nodes[d] for d in self._dst[hops].tolist()]
        cap = float(self._max_rates[i])
        return self._flow_cls(route=route, weight=float(self._weights[i]),
                    max_rate=None if cap == np.inf else cap,
                    name=None if self._names is None else self._names[i])

    def __getitem__(self, i):
        n = len(self)
        if isinstance(i, slice):
            return tuple(self._flow(k) for k in range(*i.indices(n)))
        if isinstance(i, bool) or not isinstance(i, numbers.Integral):
            raise TypeError(f"tuple indices must be integers or slices, not {type(i).__name__}")
        k = int(i) + n if int(i) < 0 else int(i)
        if not 0 <= k < n:
            raise IndexError("tuple index out of range")
        return self._flow(k)

    def __iter__(self):
        for k in range(len(self)):
            yield self._flow(k)

    def names(self) -> tuple[str, ...]:
        """Each flow's name, ``"f<i>"`` where it has none."""
        if self._names is None:
            return tuple(f"f{i}" for i in range(len(self)))
        return tuple(f"f{i}" if m is None else m for i, m in enumerate(self._names))

    def __eq__(self, other):
        if isinstance(other, FlowView):
            if len(self) != len(other):
                return False
            if self._same_arrays(other):  # then every flow is equal, without making them
                return True
            return all(a == b for a, b in zip(self, other))
        if isinstance(other, tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def _same_arrays(self, other: FlowView) -> bool:
        eq = np.array_equal
        return (self._nodes == other._nodes and self._names == other._names
                and eq(self._ptr, other._ptr) and eq(self._links, other._links)
                and eq(self._src[self._links], other._src[other._links])
                and eq(self._dst[self._links], other._dst[other._links])
                and eq(self._weights, other._weights) and eq(self._max_rates, other._max_rates))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __add__(self, other):
        return tuple(self) + tuple(other)

    def __radd__(self, other):
        return tuple(other) + tuple(self)

    def __repr__(self) -> str:
        return repr(tuple(self))


# ---------------------------------------------------------------------------- checks
def _refuse(field: str, k: int, row: str, check, value) -> None:
    """Call the per-object validator ``check`` on the bad ``value``; re-raise its error
    with the array, the row and the value's position."""
    try:
        check(value)
    except (ScenarioError, ScenarioTypeError) as exc:
        raise type(exc)(f"{_OWNER}: {field}[{k}] ({row}): {exc}") from None


def _column(field: str, values, n: int, per: str, ok, check, row, dtype=np.float64):
    """``values`` as a read-only 1-D array of length ``n``.  ``ok`` flags the valid entries
    of a numeric array; the first invalid one goes through ``check`` (the per-object rule),
    which raises the object path's message."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise ScenarioTypeError(f"{_OWNER}: {field} must be an array of {n} numbers (one per "
                                f"{per}), got {type(values).__name__}") from exc
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ScenarioError(f"{_OWNER}: {field} must have shape ({n},), one value per {per}, "
                            f"got shape {arr.shape}")
    if arr.dtype.kind in "iuf":
        with np.errstate(invalid="ignore"):
            bad = np.flatnonzero(~ok(arr))
    else:  # booleans, text, objects: let the per-object rule judge each
        bad = range(n)
    for k in bad:
        _refuse(field, int(k), row(int(k)), check, arr[k].item() if arr.dtype.kind in "biuf"
                else arr[k])
    try:
        out = arr.astype(dtype)
    except (TypeError, ValueError, OverflowError) as exc:  # pragma: no cover - checked above
        raise ScenarioTypeError(f"{_OWNER}: {field} must hold numbers") from exc
    out.setflags(write=False)
    return out


def _index_array(field: str, values, what: str) -> np.ndarray:
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise ScenarioTypeError(f"{_OWNER}: {field} must be a 1-D array of integers ({what}), "
                                f"got {type(values).__name__}") from exc
    if arr.ndim != 1:
        raise ScenarioError(f"{_OWNER}: {field} must be 1-D ({what}), got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        raise ScenarioTypeError(f"{_OWNER}: {field} must hold integers ({what}), got dtype "
                                f"{arr.dtype}")
    return arr.astype(np.int64)


def _routes(routes, n_links: int) -> tuple[np.ndarray, np.ndarray]:
    """The CSR pair (indptr, link indices) of ``routes``, checked."""
    import scipy.sparse as sp

    if sp.issparse(routes):
        if routes.ndim != 2 or routes.shape[1] != n_links:
            raise ScenarioError(f"{_OWNER}: a sparse routes matrix must be flows x links, of "
                                f"shape (F, {n_links}), got shape {routes.shape}")
        m = sp.csr_matrix(routes, dtype=np.float64)
        m.sum_duplicates()
        m.eliminate_zeros()
        m.sort_indices()
        if np.any(m.data != 1.0):
            k = int(np.flatnonzero(m.data != 1.0)[0])
            i = int(np.searchsorted(m.indptr, k, side="right") - 1)
            raise ScenarioError(f"{_OWNER}: routes[{i}, {int(m.indices[k])}] is "
                                f"{float(m.data[k])!r}; a routes matrix holds 1 where a flow "
                                f"crosses a link and 0 elsewhere")
        return m.indptr.astype(np.int64), m.indices.astype(np.int64)
    if isinstance(routes, (str, bytes)) or not isinstance(routes, (tuple, list)) \
            or len(routes) != 2:
        raise ScenarioTypeError(
            f"{_OWNER}: routes must be a CSR pair (indptr, indices) or a scipy.sparse flows x "
            f"links matrix, got {type(routes).__name__}")
    ptr = _index_array("routes indptr", routes[0], "shape (F + 1,)")
    idx = _index_array("routes indices", routes[1], "link indices")
    if ptr.size == 0 or ptr[0] != 0:
        raise ScenarioError(f"{_OWNER}: routes indptr must start at 0 and have F + 1 entries, "
                            f"got {ptr[:3].tolist()}{'...' if ptr.size > 3 else ''}")
    if ptr[-1] != idx.size:
        raise ScenarioError(f"{_OWNER}: routes indptr must end at len(indices) = {idx.size}, "
                            f"got {int(ptr[-1])}")
    if np.any(np.diff(ptr) < 0):
        i = int(np.flatnonzero(np.diff(ptr) < 0)[0])
        raise ScenarioError(f"{_OWNER}: routes indptr must not decrease, got indptr[{i}] = "
                            f"{int(ptr[i])} > indptr[{i + 1}] = {int(ptr[i + 1])}")
    if idx.size and (idx.min() < 0 or idx.max() >= n_links):
        k = int(np.flatnonzero((idx < 0) | (idx >= n_links))[0])
        i = int(np.searchsorted(ptr, k, side="right") - 1)
        raise ScenarioError(f"{_OWNER}: routes of flow {i}: link index {int(idx[k])} is out of "
                            f"range 0..{n_links - 1}")
    return ptr, idx


def _ends(ends, n_links: int) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """Node names and each link's (src, dst) node indices from the given pairs."""
    if isinstance(ends, (str, bytes)) or not isinstance(ends, (Sequence, np.ndarray)) \
            or len(ends) != n_links:
        raise ScenarioError(f"{_OWNER}: ends must be a sequence of {n_links} (src, dst) pairs, "
                            f"one per link, got {type(ends).__name__}"
                            f"{f' of length {len(ends)}' if hasattr(ends, '__len__') else ''}")
    index: dict[str, int] = {}
    src = np.empty(n_links, dtype=np.int64)
    dst = np.empty(n_links, dtype=np.int64)
    for k, pair in enumerate(ends):
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise ScenarioTypeError(f"{_OWNER}: ends[{k}] must be a (src, dst) pair of node "
                                    f"names, got {pair!r}")
        a = v.node_name("Link", "src", pair[0].item() if isinstance(pair[0], np.generic)
                        else pair[0])
        b = v.node_name("Link", "dst", pair[1].item() if isinstance(pair[1], np.generic)
                        else pair[1])
        src[k] = index.setdefault(a, len(index))
        dst[k] = index.setdefault(b, len(index))
    return tuple(index), src, dst


def _inferred_ends(ptr, idx, n_links):
    """The fewest nodes that make every route a path: the end of each hop is the start of
    the next; nodes numbered in order of first appearance along the links."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    follow = np.ones(idx.size, dtype=bool)  # hop k is followed by hop k + 1 of the same flow
    follow[ptr[1:] - 1] = False
    follow = follow[:-1] if idx.size else follow
    a = 2 * idx[:-1][follow] + 1  # dst end of hop k
    b = 2 * idx[1:][follow]       # src end of hop k + 1
    g = sp.coo_matrix((np.ones(a.size), (a, b)), shape=(2 * n_links, 2 * n_links))
    n, label = connected_components(g, directed=False)
    _, first = np.unique(label, return_index=True)
    rank = np.empty(n, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(n)
    node = rank[label]
    return tuple(f"n{k}" for k in range(n)), node[0::2].copy(), node[1::2].copy()


def _repeating_flow(ptr, first, ends, hops) -> int:
    """The first flow whose node sequence (``first[i]``, then ``ends`` of each hop) repeats a
    node, or -1.  Short routes compare positions pairwise; long ones sort."""
    n_flows = hops.size
    seq = np.empty(ends.size + n_flows, dtype=np.int64)  # flow i at ptr[i] + i ...
    start = ptr[:-1] + np.arange(n_flows)
    seq[start] = first
    mask = np.ones(seq.size, dtype=bool)
    mask[start] = False
    seq[mask] = ends
    flow = np.repeat(np.arange(n_flows, dtype=np.int64), hops + 1)
    longest = int(hops.max()) if n_flows else 0
    bad = np.zeros(n_flows, dtype=bool)
    if longest <= 16:
        for d in range(1, longest + 1):
            same = (flow[d:] == flow[:-d]) & (seq[d:] == seq[:-d])
            bad[flow[d:][same]] = True
    else:
        n_nodes = int(seq.max()) + 1
        k = np.sort(flow * n_nodes + seq)
        bad[k[1:][k[1:] == k[:-1]] // n_nodes] = True
    return int(np.argmax(bad)) if bad.any() else -1


def network_from_arrays(cls, Link, Flow, capacities, routes, *, delays=None, buffers=None,
                        weights=None, max_rates=None, names=None, ends=None):
    """The body of :meth:`Network.from_arrays <qosmodels.Network.from_arrays>`.

    ``cls``, ``Link`` and ``Flow`` are the network, link and flow classes of
    :mod:`qosmodels.network`, passed in so that this module does not import it back.
    """
    from .mechanisms import DropTail
    try:
        n_links = len(capacities)
    except TypeError:
        raise ScenarioTypeError(f"{_OWNER}: capacities must be an array of link capacities "
                                f"(bit/s), got {capacities!r}") from None
    if n_links == 0:
        raise ScenarioError("Network.links must hold at least one Link, got none "
                            f"({_OWNER}: capacities is empty)")
    link_row = "link {}".format
    cap = _column("capacities", capacities, n_links, "link",
                  lambda a: (a >= MIN_RATE) & (a <= MAX_RATE),
                  lambda x: _rate("Link", "capacity", x), link_row)
    dly = _column("delays", np.zeros(n_links) if delays is None else delays, n_links, "link",
                  lambda a: (a >= 0) & (a <= MAX_DELAY),
                  lambda x: v.real("Link", "delay", x, ge=0, le=MAX_DELAY, unit="s"), link_row)
    buf = _column("buffers", np.full(n_links, DEFAULT_BUFFER) if buffers is None else buffers,
                  n_links, "link",
                  lambda a: (a >= 1) & (a <= MAX_BUFFER) & (a == np.floor(a)),
                  lambda x: v.integer("Link", "buffer", x, ge=1, le=MAX_BUFFER, unit="packets"),
                  link_row, dtype=np.int64)
    ptr, idx = _routes(routes, n_links)
    n_flows = ptr.size - 1

    # flow names first: the other flow messages name the flow
    if names is not None:
        if isinstance(names, (str, bytes)) or not hasattr(names, "__len__") \
                or len(names) != n_flows:
            raise ScenarioError(f"{_OWNER}: names must be a sequence of {n_flows} names (one "
                                f"per flow, None for 'f<i>'), got {type(names).__name__}")
        names = tuple(str(m) if isinstance(m, str) else m for m in names)  # (numpy str_ too)
        for i, m in enumerate(names):
            if m is not None and not isinstance(m, str):
                raise ScenarioTypeError(f"{_OWNER}: names[{i}]: Flow.name must be a str or "
                                        f"None, got {m!r}")
    full = (None if names is None else
            tuple(f"f{i}" if m is None else m for i, m in enumerate(names)))
    if full is not None and len(set(full)) != n_flows:
        seen: set[str] = set()
        for i, m in enumerate(full):
            if m in seen:
                raise ScenarioError(f"Network.flows[{i}].name {m!r} is used by another flow; "
                                    f"flow names must be unique ({_OWNER}: names[{i}])")
            seen.add(m)

    def name(i):
        return f"f{i}" if full is None else full[i]

    def flow_row(i):
        return f"flow {name(i)!r}"

    def flow_error(i, exc):
        return type(exc)(f"{_OWNER}: routes of flow {name(i)!r}: {exc}")

    wts = _column("weights", np.ones(n_flows) if weights is None else weights, n_flows, "flow",
                  lambda a: (a >= MIN_WEIGHT) & (a <= MAX_WEIGHT),
                  lambda x: Flow(route=("a", "b"), weight=x), flow_row)
    if max_rates is not None and not isinstance(max_rates, np.ndarray) \
            and hasattr(max_rates, "__iter__") and not isinstance(max_rates, (str, bytes)):
        max_rates = [np.inf if m is None else m for m in max_rates]  # None: no cap, as in Flow
    caps = _column("max_rates", np.full(n_flows, np.inf) if max_rates is None else max_rates,
                   n_flows, "flow", lambda a: (a == np.inf) | ((a >= MIN_RATE) & (a <= MAX_RATE)),
                   lambda x: _rate("Flow", "max_rate", x), flow_row)

    hops = np.diff(ptr)
    if np.any(hops < 1):
        i = int(np.flatnonzero(hops < 1)[0])
        raise ScenarioError(f"{_OWNER}: routes of flow {name(i)!r} cross no link; a flow "
                            f"crosses at least one link (Flow.route visits at least two nodes)")
    if ends is None:
        nodes, src, dst = _inferred_ends(ptr, idx, n_links)
    else:
        nodes, src, dst = _ends(ends, n_links)

    def link(k):  # the per-object Link (used to raise its own message)
        return Link(nodes[src[k]], nodes[dst[k]], capacity=float(cap[k]))

    loops = np.flatnonzero(src == dst)
    if loops.size:
        k = int(loops[0])
        how = ("" if ends is not None else
               "; the routes make this link's end the start of a link that leads back to it")
        try:
            link(k)
        except ScenarioError as exc:
            raise ScenarioError(f"{_OWNER}: link {k}: {exc}{how}") from None
    n_nodes = len(nodes)
    key = src * n_nodes + dst
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(key[order][1:] == key[order][:-1])
    if dup.size:
        pairs = [(int(order[j]), int(order[j + 1])) for j in dup]
        first, later = min(pairs, key=lambda p: p[1])
        raise ScenarioError(
            f"Network.links[{later}] repeats link {nodes[src[later]]}->{nodes[dst[later]]} "
            f"(already links[{first}]); declare each (src, dst) pair once ({_OWNER}: "
            f"{'ends' if ends is not None else 'the nodes inferred from the routes'})")

    flow_of_hop = np.repeat(np.arange(n_flows, dtype=np.int64), hops)
    if idx.size > 1:
        same = flow_of_hop[1:] == flow_of_hop[:-1]
        broken = np.flatnonzero(same & (dst[idx[:-1]] != src[idx[1:]]))
        if broken.size:
            k = int(broken[0])
            i, a, b = int(flow_of_hop[k]), int(idx[k]), int(idx[k + 1])
            raise ScenarioError(
                f"{_OWNER}: routes of flow {name(i)!r} "
                f"{idx[ptr[i]:ptr[i + 1]].tolist()} are not a path: link {a} "
                f"({nodes[src[a]]}->{nodes[dst[a]]}) is followed by link {b} "
                f"({nodes[src[b]]}->{nodes[dst[b]]}), which does not start at "
                f"{nodes[dst[a]]!r}; fix the route or ends")
    # loop-free routes: no node twice in a flow's sequence src(first hop), dst(each hop)
    repeats = _repeating_flow(ptr, src[idx[ptr[:-1]]], dst[idx], hops)
    if repeats >= 0:
        i = repeats
        h = idx[ptr[i]:ptr[i + 1]]
        route = [nodes[src[h[0]]]] + [nodes[d] for d in dst[h]]
        try:
            Flow(route=route)
        except ScenarioError as exc:
            raise flow_error(i, exc) from None

    queue = DropTail()
    links = []
    for k in range(n_links):  # checked above: build without checking again
        obj = object.__new__(Link)
        obj.__dict__.update(src=nodes[src[k]], dst=nodes[dst[k]], capacity=float(cap[k]),
                            delay=float(dly[k]), buffer=int(buf[k]), queue=queue)
        links.append(obj)
    links = tuple(links)
    index = dict(zip(zip([nodes[a] for a in src.tolist()], [nodes[b] for b in dst.tolist()]),
                     range(n_links)))

    # reverse link of each hop: the link dst -> src, if declared
    rkey = dst * n_nodes + src  # per link: the key of its reverse
    sorted_keys = key[order]
    pos = np.minimum(np.searchsorted(sorted_keys, rkey), n_links - 1)
    reverse = np.where(sorted_keys[pos] == rkey, order[pos], -1).astype(np.int64)[idx]

    net = object.__new__(cls)
    object.__setattr__(net, "links", links)
    object.__setattr__(net, "flows", FlowView(Flow, nodes, src, dst, ptr, idx, wts, caps, names))
    object.__setattr__(net, "aggregates", ())
    size = Flow(route=("a", "b")).packet_size  # the default source's packet size

    def ro(a):
        a = np.ascontiguousarray(a)
        a.setflags(write=False)
        return a

    net.__dict__.update(
        _index=index, _aggregate_members=(),
        capacities=cap, delays=dly, buffers=buf, weights=wts, max_rates=caps,
        packet_sizes=ro(np.full(n_flows, size, dtype=np.int64)),
        route_ptr=ro(ptr), route_links=ro(idx), reverse_route_links=ro(reverse),
    )
    return net
