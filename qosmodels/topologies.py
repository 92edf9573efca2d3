"""Topology builders: the classic shapes and the papers' networks by name.

Each builder returns a validated :class:`~qosmodels.Network`.  Capacities are
bit/s and delays seconds (use :mod:`qosmodels.units` to write them).  The
papers' topologies follow their texts; where a text leaves a value open the
docstring says what was chosen.

:data:`TOPOLOGIES` maps the names the command line accepts to the builders.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence

from . import _seed
from . import _validate as v
from .budget import check_memory
from .errors import ScenarioError, ScenarioTypeError
from .network import (
    DEFAULT_BUFFER,
    MAX_BUFFER,
    MAX_DELAY,
    MAX_PACKET_SIZE,
    MAX_RATE,
    MAX_WEIGHT,
    MIN_RATE,
    MIN_WEIGHT,
    Flow,
    Link,
    Network,
)
from .units import Mbps, kbps, ms

__all__ = [
    "TOPOLOGIES",
    "abe_dumbbell",
    "acc_linear",
    "acc_parking_lot",
    "aggregate_rate_control",
    "dumbbell",
    "parking_lot",
    "pps_multi_hop",
    "pps_multiple_bottleneck",
    "pps_one_hop",
    "pps_ten_flow",
    "random_network",
    "topology",
]


def _per_item(name: str, value, n: int, owner: str | None = None, check=None) -> list:
    """Broadcast a scalar to ``n`` items, or check a sequence has ``n`` items; ``check(owner,
    name, item)`` validates (and converts) each item."""
    label = f"{owner}.{name}" if owner else name
    if isinstance(value, (list, tuple)) or (hasattr(value, "__len__") and hasattr(value, "dtype")):
        if len(value) != n:
            raise ScenarioError(f"{label} must have {n} entries (one per item), got {len(value)}")
        items = list(value)
        if check is not None:
            items = [check(owner, f"{name}[{i}]", x) for i, x in enumerate(items)]
        return items
    if check is not None:
        value = check(owner, name, value)
    return [value] * n


# ------------------------------------------------------------------ argument checks and budget
# Bytes one link, one flow and one hop of a route take in a built Network (Python objects,
# the routing arrays and the derived per-flow arrays), measured with tracemalloc on dumbbells,
# parking lots and random networks of 10**4 to 10**5 elements, rounded up.
_LINK_BYTES, _FLOW_BYTES, _HOP_BYTES = 1000, 1500, 100


def _budget(owner: str, *, links: float, flows: float, hops: float, parameter: str,
            fix: str) -> None:
    """Refuse (BudgetError) a network whose estimated size is over the memory budget."""
    n_bytes = float(links) * _LINK_BYTES + float(flows) * _FLOW_BYTES + float(hops) * _HOP_BYTES
    check_memory(owner, n_bytes, parameter=parameter, fix=fix)


def _capacity(owner: str, name: str, value) -> float:
    x = v.real(owner, name, value, gt=0, unit="bit/s")
    if not MIN_RATE <= x <= MAX_RATE:
        raise ScenarioError(f"{owner}.{name} must be between {MIN_RATE:g} and {MAX_RATE:g} "
                            f"bit/s, got {value!r}; check the unit (Mbps(10) is 10e6 bit/s)")
    return x


def _delay(owner: str, name: str, value) -> float:
    return v.real(owner, name, value, ge=0, le=MAX_DELAY, unit="s")


def _buffer(owner: str, name: str, value) -> int:
    return v.integer(owner, name, value, ge=1, le=MAX_BUFFER, unit="packets")


def _packet_size(owner: str, name: str, value) -> int:
    return v.integer(owner, name, value, ge=1, le=MAX_PACKET_SIZE, unit="bytes")


def _weight(owner: str, name: str, value) -> float:
    x = v.real(owner, name, value, gt=0)
    if not MIN_WEIGHT <= x <= MAX_WEIGHT:
        raise ScenarioError(f"{owner}.{name} must be between {MIN_WEIGHT:g} and {MAX_WEIGHT:g}, "
                            f"got {value!r}; weights are relative, rescale them together")
    return x


def _flag(owner: str, name: str, value) -> bool:
    if not isinstance(value, bool):
        raise ScenarioTypeError(f"{owner}.{name} must be True or False, got {value!r}")
    return value


def dumbbell(
    n_flows: int,
    capacity: float = Mbps(10),
    delay: float = ms(20),
    *,
    access_capacity: float | Sequence[float] | None = None,
    access_delay: float | Sequence[float] = 0.0,
    buffer: int = DEFAULT_BUFFER,
    access_buffer: int = DEFAULT_BUFFER,
    reverse: bool = False,
    weights: float | Sequence[float] = 1.0,
    packet_size: int = 1000,
) -> Network:
    """``n_flows`` sources sharing one bottleneck link.

    Nodes: sources ``s0..s{n-1}``, routers ``r0`` and ``r1``, destinations
    ``d0..d{n-1}``.  Flow i follows ``s_i -> r0 -> r1 -> d_i``; the bottleneck
    is ``r0->r1``.

    Parameters
    ----------
    n_flows : int
        Number of flows, >= 1.
    capacity : float, bit/s
        Bottleneck capacity.
    delay : float, s
        Bottleneck propagation delay.
    access_capacity : float or sequence of float, bit/s, optional
        Capacity of each access link ``s_i->r0`` (and ``r1->d_i``); default
        100 times the bottleneck, so that it does not constrain.
    access_delay : float or sequence of float, s
        One-way propagation delay of each flow's access link ``s_i->r0``
        (the egress ``r1->d_i`` has zero delay); a sequence gives flows
        different round-trip times.
    buffer, access_buffer : int, packets
        Buffers of the bottleneck and of the access links.
    reverse : bool
        Also declare the reverse links (``r1->r0``, ``r0->s_i``, ``d_i->r1``),
        with the same capacities and delays, so that ACKs queue on the way back.
    weights : float or sequence of float
        Flow weights.
    packet_size : int, bytes
        Packet size of every flow.

    Raises
    ------
    ScenarioError
        If an argument is outside the range a :class:`~qosmodels.Link` or
        :class:`~qosmodels.Flow` accepts (the message names this builder's
        parameter), or a per-item sequence has the wrong length.
    ScenarioTypeError
        If an argument has the wrong type.
    BudgetError
        If the network would not fit in the memory budget (:mod:`qosmodels.budget`).

    Examples
    --------
    >>> from qosmodels.topologies import dumbbell
    >>> dumbbell(3).n_flows
    3
    """
    owner = "dumbbell"
    n = v.integer(owner, "n_flows", n_flows, ge=1)
    reverse = _flag(owner, "reverse", reverse)
    _budget(owner, links=(2 * n + 1) * (2 if reverse else 1), flows=n, hops=3 * n,
            parameter=f"n_flows={n}", fix="use fewer flows")
    capacity = _capacity(owner, "capacity", capacity)
    delay = _delay(owner, "delay", delay)
    buffer = _buffer(owner, "buffer", buffer)
    access_buffer = _buffer(owner, "access_buffer", access_buffer)
    packet_size = _packet_size(owner, "packet_size", packet_size)
    if access_capacity is None:
        access_capacity = min(100 * capacity, MAX_RATE)
    acap = _per_item("access_capacity", access_capacity, n, owner, _capacity)
    adel = _per_item("access_delay", access_delay, n, owner, _delay)
    ws = _per_item("weights", weights, n, owner, _weight)
    links = [Link("r0", "r1", capacity, delay, buffer)]
    flows = []
    for i in range(n):
        links.append(Link(f"s{i}", "r0", acap[i], adel[i], access_buffer))
        links.append(Link("r1", f"d{i}", acap[i], 0.0, access_buffer))
        flows.append(Flow(route=[f"s{i}", "r0", "r1", f"d{i}"], weight=ws[i],
                          packet_size=packet_size))
    if reverse:
        links += [Link(link.dst, link.src, link.capacity, link.delay, link.buffer)
                  for link in list(links)]
    return Network(links=links, flows=flows)


def parking_lot(
    n_links: int,
    capacity: float | Sequence[float] = Mbps(10),
    delay: float | Sequence[float] = ms(10),
    *,
    n_long: int = 1,
    n_short: int | Sequence[int] = 1,
    buffer: int = DEFAULT_BUFFER,
    long_weight: float = 1.0,
    short_weight: float = 1.0,
    packet_size: int = 1000,
) -> Network:
    """A chain of ``n_links`` links crossed by long flows, with short flows on each link.

    Nodes ``r0..r{n}``; link j is ``r{j}->r{j+1}``.  The ``n_long`` long flows
    (``long0``, ...) cross every link; link j also carries ``n_short[j]``
    one-hop flows (``short{j}_{k}``).  Long flows come first in the flow list.

    Closed forms (unit weights, equal capacities c, one short flow per link,
    m long flows): proportional fairness gives each long flow ``c / (m + n)``
    and each short flow ``c n / (m + n)``; max-min gives every flow
    ``c / (m + 1)``.

    Parameters
    ----------
    n_links : int
        Number of links in the chain, >= 1.
    capacity, delay : float or sequence of float
        Per-link capacity (bit/s) and propagation delay (s).
    n_long : int
        Number of flows crossing every link, >= 0.
    n_short : int or sequence of int
        Number of one-hop flows on each link, >= 0.
    buffer : int, packets
        Buffer of every link.
    long_weight, short_weight : float
        Weights of the long and the short flows.
    packet_size : int, bytes
        Packet size of every flow.

    Raises
    ------
    ScenarioError
        If an argument is outside the range a :class:`~qosmodels.Link` or
        :class:`~qosmodels.Flow` accepts (the message names this builder's
        parameter), or a per-item sequence has the wrong length.
    ScenarioTypeError
        If an argument has the wrong type.
    BudgetError
        If the network would not fit in the memory budget (:mod:`qosmodels.budget`).

    Examples
    --------
    >>> from qosmodels.topologies import parking_lot
    >>> parking_lot(3, n_long=2).n_flows
    5
    """
    owner = "parking_lot"
    n = v.integer(owner, "n_links", n_links, ge=1)
    m = v.integer(owner, "n_long", n_long, ge=0)
    _budget(owner, links=n, flows=m, hops=float(m) * n, parameter=f"n_links={n}, n_long={m}",
            fix="use fewer links or long flows")
    caps = _per_item("capacity", capacity, n, owner, _capacity)
    dels = _per_item("delay", delay, n, owner, _delay)
    shorts = _per_item("n_short", n_short, n, owner,
                       lambda o, f, k: v.integer(o, f, k, ge=0))
    _budget(owner, links=n, flows=m + sum(shorts), hops=float(m) * n + sum(shorts),
            parameter=f"n_short (n_links={n}, {sum(shorts)} short flows)",
            fix="use fewer short flows")
    buffer = _buffer(owner, "buffer", buffer)
    long_weight = _weight(owner, "long_weight", long_weight)
    short_weight = _weight(owner, "short_weight", short_weight)
    packet_size = _packet_size(owner, "packet_size", packet_size)
    links = [Link(f"r{j}", f"r{j + 1}", caps[j], dels[j], buffer) for j in range(n)]
    route = [f"r{j}" for j in range(n + 1)]
    flows = [Flow(route=route, weight=long_weight, packet_size=packet_size, name=f"long{k}")
             for k in range(m)]
    for j in range(n):
        flows += [Flow(route=[f"r{j}", f"r{j + 1}"], weight=short_weight,
                       packet_size=packet_size, name=f"short{j}_{k}") for k in range(shorts[j])]
    if not flows:
        raise ScenarioError("parking_lot needs at least one flow: set n_long or n_short above 0")
    return Network(links=links, flows=flows)


def acc_parking_lot(capacity: float = Mbps(9), delay: float = ms(10)) -> Network:
    """The ACC paper's Figure 2 parking lot: two bottlenecks, one long and two short flows.

    Two links of 9 Mb/s; the long flow crosses both, one short flow uses each.
    Weighted proportional fairness with equal targets gives the long flow
    3 Mb/s and each short flow 6 Mb/s.  The paper does not give the link
    delays; 10 ms each is our choice (equilibrium rates do not depend on it).

    References
    ----------
    Y. Xia, D. Harrison, S. Kalyanaraman et al., "Accumulation-based congestion
    control", IEEE/ACM Trans. Networking, 2005, Section III, Figure 2.
    """
    return parking_lot(2, _capacity("acc_parking_lot", "capacity", capacity),
                       _delay("acc_parking_lot", "delay", delay), n_long=1, n_short=1)


def acc_linear(n_bottlenecks: int, capacity: float = Mbps(100), delay: float = ms(4)) -> Network:
    """The ACC paper's Figure 9(a): N bottlenecks of 100 Mb/s, 4 ms each.

    Three long flows cross all N links and one short flow uses each link.
    Proportional fairness gives each long flow ``100 / (3 + N)`` Mb/s and each
    short flow ``100 N / (3 + N)`` Mb/s.  The paper says the long flows have
    "very different RTTs" without giving them; they share the chain here
    (equilibrium rates do not depend on delays).

    Raises
    ------
    ScenarioError
        If ``n_bottlenecks < 1`` or ``capacity`` or ``delay`` is out of range.
    BudgetError
        If the network would not fit in the memory budget.

    References
    ----------
    Xia et al., "Accumulation-based congestion control", Section V-A, Figure 9.
    """
    n = v.integer("acc_linear", "n_bottlenecks", n_bottlenecks, ge=1)
    _budget("acc_linear", links=n, flows=n + 3, hops=4.0 * n, parameter=f"n_bottlenecks={n}",
            fix="use fewer bottlenecks")
    return parking_lot(n, _capacity("acc_linear", "capacity", capacity),
                       _delay("acc_linear", "delay", delay), n_long=3, n_short=1)


# ---------------------------------------------------------------------- papers' topologies
def _rest_of(total: float, part: float) -> float:
    """The ``d >= 0`` with ``part + d == total`` in floating point, where such a ``d`` exists.

    ``total - part`` can be one unit in the last place off; nudging it makes
    summed route delays reproduce a stated round-trip time to the bit.  With
    ``part == 0`` it is always exact; otherwise rounding can leave one unit in
    the last place when no float ``d`` hits ``total``.
    """
    rest = total - part
    for _ in range(8):
        got = part + rest
        if got == total:
            break
        rest = math.nextafter(rest, math.inf if got < total else -math.inf)
    return max(rest, 0.0)


def _access_delays(owner: str, rtt, delay: float, n: int) -> list[float]:
    """One-way access delays so that each flow's round trip over access + shared link is its rtt."""
    shared = _delay(owner, "delay", delay)
    out = []
    for i, r in enumerate(_per_item("rtt", rtt, n, owner)):
        r = v.real(owner, "rtt", r, gt=0, le=2 * MAX_DELAY, unit="s")
        if r / 2 < shared:
            raise ScenarioError(
                f"{owner}.rtt of flow {i} is {r!r} s, shorter than the round trip over the shared "
                f"link alone (2 * delay = {2 * shared!r} s); lower delay or raise rtt"
            )
        out.append(_rest_of(r / 2, shared))
    return out


def _star(owner: str, names, sources, rtt, weights, capacity, delay, access_capacity, buffer,
          access_buffer, packet_size, routers=("r0", "r1")) -> Network:
    """Flows ``source_i -> routers[0] -> routers[1]`` sharing the link between the routers,
    with each flow's round-trip propagation delay set to its ``rtt`` (see :func:`_rest_of`)."""
    a, b = routers
    n = len(names)
    _budget(owner, links=n + 1, flows=n, hops=2 * n, parameter=f"{n} flows",
            fix="use fewer flows")
    capacity = _capacity(owner, "capacity", capacity)
    access_capacity = _capacity(owner, "access_capacity", access_capacity)
    buffer = _buffer(owner, "buffer", buffer)
    access_buffer = _buffer(owner, "access_buffer", access_buffer)
    packet_size = _packet_size(owner, "packet_size", packet_size)
    access = _access_delays(owner, rtt, delay, n)
    links = [Link(a, b, capacity, delay, buffer)]
    flows = []
    for i, name in enumerate(names):
        links.append(Link(sources[i], a, access_capacity, access[i], access_buffer))
        flows.append(Flow(route=[sources[i], a, b], weight=weights[i], packet_size=packet_size,
                          name=name))
    return Network(links=links, flows=flows)


def _tickets(owner: str, name: str, values) -> list[float]:
    return [_weight(owner, name, t) for t in values]


def pps_one_hop(
    tickets: Sequence[float] = (100, 200, 300, 400, 500, 600, 700, 800, 900),
    capacity: float = Mbps(1.5),
    rtt: float | Sequence[float] = ms(26),
    *,
    delay: float = 0.0,
    access_capacity: float = Mbps(10),
    buffer: int = DEFAULT_BUFFER,
    access_buffer: int = DEFAULT_BUFFER,
    packet_size: int = 1000,
) -> Network:
    """The PPS paper's Figure 4: nine TCP flows with 100..900 tickets/s over one bottleneck.

    Flow ``flow{k}`` (k = 1..9, as the paper numbers them) follows
    ``s{k} -> r0 -> r1``; the bottleneck is ``r0->r1`` (1.5 Mb/s).  Router
    ``r0`` issues ``tickets[k-1]`` t/s to input link ``s{k}->r0``; all tickets
    are in ``r0``'s currency, so ``Flow.weight`` is the flow's ticket rate and
    ticket-weighted sharing gives flow k ``1.5 Mb/s * k / 45``.

    Parameters
    ----------
    tickets : sequence of float, tickets/s
        Ticket rate of each flow (one flow per entry); default 100, 200, ..., 900.
    capacity : float, bit/s
        Bottleneck capacity (paper: 1.5 Mb/s).
    rtt : float or sequence of float, s
        Round-trip propagation delay of every flow, or one per flow (paper:
        26 ms for all; Section 3.7 reruns this figure with flow 1, or flow 9,
        at 300 ms and the others at 30 ms).  The builder puts ``rtt / 2 - delay``
        on each access link so that ``net.rtt`` equals ``rtt`` (bit for bit with
        the default ``delay=0``, to one unit in the last place otherwise).
    delay : float, s
        Propagation delay of the bottleneck (default 0: the text gives only RTTs).
    access_capacity : float, bit/s
        Capacity of each access link ``s{k}->r0`` (not given; 10 Mb/s does not constrain).
    buffer, access_buffer : int, packets
        Buffers of the bottleneck and the access links (not given in the text).
    packet_size : int, bytes
        Packet size of every flow (not given in the text).

    Raises
    ------
    ScenarioError
        If ``tickets`` is empty or not positive, ``rtt`` has the wrong length or
        is shorter than ``2 * delay``.

    Notes
    -----
    The paper runs TRED (ticket-based RED) at the bottleneck; its thresholds,
    the access links and the packet size are not stated, and the queue here is
    the default drop-tail.

    References
    ----------
    M. Zhang, R. Wang, L. Peterson, A. Krishnamurthy, "Probabilistic Packet
    Scheduling: Achieving Proportional Share Bandwidth Allocation", Princeton
    TR-632-01, 2001, Section 3.1, Figure 4 (and Section 3.7, Figures 11-12).

    Examples
    --------
    >>> from qosmodels.topologies import pps_one_hop
    >>> net = pps_one_hop()
    >>> net.n_flows, net.flow_names[0], float(net.weights[-1])
    (9, 'flow1', 900.0)
    """
    owner = "pps_one_hop"
    if isinstance(tickets, (str, bytes)) or not isinstance(tickets, Sequence) or not tickets:
        raise ScenarioError(
            f"{owner}.tickets must be a non-empty sequence of ticket rates (one per flow), "
            f"got {tickets!r}"
        )
    ws = _tickets(owner, "tickets", tickets)
    n = len(ws)
    names = [f"flow{k}" for k in range(1, n + 1)]
    sources = [f"s{k}" for k in range(1, n + 1)]
    return _star(owner, names, sources, rtt, ws, capacity, delay, access_capacity, buffer,
                 access_buffer, packet_size)


def pps_ten_flow(
    rtt: float | Sequence[float] | str = ms(30),
    capacity: float = Mbps(1.0),
    *,
    n_flows: int = 10,
    tickets: float | Sequence[float] = 200.0,
    delay: float = 0.0,
    access_capacity: float = Mbps(10),
    buffer: int = DEFAULT_BUFFER,
    access_buffer: int = DEFAULT_BUFFER,
    packet_size: int = 1000,
) -> Network:
    """The PPS paper's Figure 10: ten flows with 200 tickets/s each over a 1 Mb/s bottleneck.

    Flow ``flow{k}`` (k = 1..10) follows ``s{k} -> r0 -> r1``; the bottleneck
    is ``r0->r1``.  Every input link is issued 200 t/s by ``r0`` (one
    currency), so ``Flow.weight`` is 200 and each flow's fair share is 0.1 Mb/s.

    Parameters
    ----------
    rtt : float, sequence of float, or "varied", s
        Round-trip propagation delay: one value for all flows (paper's first
        run: 30 ms), one per flow, or ``"varied"`` for the paper's second run,
        in which the RTTs grow "incrementally from 30 ms to 300 ms": flow k gets
        ``30 k`` ms here (Table 6 lists the RTTs but not which flow had which).
        ``net.rtt`` equals these values (``rtt / 2 - delay`` is put on each
        access link; bit for bit with the default ``delay=0``).
    capacity : float, bit/s
        Bottleneck capacity (paper: 1.0 Mb/s).
    n_flows : int
        Number of flows (paper: 10).
    tickets : float or sequence of float, tickets/s
        Ticket rate issued to each input link (paper: 200 t/s).
    delay : float, s
        Propagation delay of the bottleneck (default 0: the text gives only RTTs).
    access_capacity : float, bit/s
        Capacity of each access link (not given; 10 Mb/s does not constrain).
    buffer, access_buffer : int, packets
        Buffers of the bottleneck and the access links (not given).
    packet_size : int, bytes
        Packet size of every flow (not given).

    Raises
    ------
    ScenarioError
        If ``n_flows < 1``, a per-flow sequence has the wrong length, ``rtt`` is
        an unknown string or shorter than ``2 * delay``, or a ticket rate is not
        positive.

    References
    ----------
    Zhang, Wang, Peterson, Krishnamurthy, "Probabilistic Packet Scheduling",
    Section 3.7, Figure 10 and Table 6.
    """
    owner = "pps_ten_flow"
    n = v.integer(owner, "n_flows", n_flows, ge=1)
    _budget(owner, links=n + 1, flows=n, hops=2 * n, parameter=f"n_flows={n}",
            fix="use fewer flows")
    if isinstance(rtt, str):
        if rtt != "varied":
            raise ScenarioError(
                f"{owner}.rtt must be a number of seconds, a sequence of them or 'varied', "
                f"got {rtt!r}"
            )
        rtt = [ms(30 * k) for k in range(1, n + 1)]
    ws = _tickets(owner, "tickets", _per_item("tickets", tickets, n, owner))
    names = [f"flow{k}" for k in range(1, n + 1)]
    sources = [f"s{k}" for k in range(1, n + 1)]
    return _star(owner, names, sources, rtt, ws, capacity, delay, access_capacity, buffer,
                 access_buffer, packet_size)


#: Tickets/s each PPS link is issued by its downstream entity (Sections 3.2 and 3.6).
_PPS_TICKETS_FIG6 = {"S0->S3": 1000.0, "S1->S3": 500.0, "S2->S4": 1000.0,
                     "S3->S5": 900.0, "S4->S5": 300.0}
_PPS_TICKETS_FIG9 = {**_PPS_TICKETS_FIG6, "S5->S6": 1200.0}
_PPS_ROUTES = {"A": ["S0", "S3", "S5", "S6"], "B": ["S1", "S3", "S5", "S6"],
               "C": ["S2", "S4", "S5", "S6"]}


def _pps_link_tickets(owner: str, defaults: dict, link_tickets) -> dict:
    """The paper's per-link ticket rates, with the entries of ``link_tickets`` replacing them."""
    t = dict(defaults)
    if link_tickets is None:
        return t
    if not isinstance(link_tickets, Mapping):
        raise ScenarioError(
            f"{owner}.link_tickets must be a mapping from link ('S0->S3' or ('S0', 'S3')) to "
            f"tickets/s, got {link_tickets!r}"
        )
    for key, value in link_tickets.items():
        name = key if isinstance(key, str) else "->".join(str(k) for k in key)
        if name not in defaults:
            raise ScenarioError(
                f"{owner}.link_tickets names link {key!r}, which is not issued tickets in this "
                f"topology; the ticketed links are {sorted(defaults)}"
            )
        t[name] = _weight(owner, f"link_tickets[{name!r}]", value)
    return t


def _pps_s5_tickets(t: dict, active: Sequence[str]) -> dict[str, float]:
    """Each active flow's tickets in S5's currency (Section 2.5: XRate = OutTktRate / InTktRate,
    InTktRate counting the active flows' tickets only)."""
    first = {"A": "S0->S3", "B": "S1->S3", "C": "S2->S4"}
    second = {"A": "S3->S5", "B": "S3->S5", "C": "S4->S5"}
    out = {}
    for f in active:
        in_rate = sum(t[first[g]] for g in active if second[g] == second[f])
        out[f] = t[first[f]] * t[second[f]] / in_rate
    return out


def _pps_active(owner: str, active) -> list[str]:
    if isinstance(active, str) or not isinstance(active, Sequence):
        raise ScenarioError(f"{owner}.active must be a sequence of flow names, got {active!r}")
    bad = [f for f in active if f not in _PPS_ROUTES]
    if bad or not active or len(set(active)) != len(active):
        raise ScenarioError(
            f"{owner}.active must name each of the flows 'A', 'B', 'C' at most once, and at "
            f"least one of them, got {active!r}"
        )
    return [f for f in _PPS_ROUTES if f in active]


def pps_multi_hop(
    capacity: float = Mbps(1.0),
    *,
    active: Sequence[str] = ("A", "B", "C"),
    link_tickets: Mapping | None = None,
    other_capacity: float = Mbps(10),
    delay: float = ms(10),
    buffer: int = DEFAULT_BUFFER,
    packet_size: int = 1000,
) -> Network:
    """The PPS paper's Figure 6: three multi-hop flows relabelled into S5's currency.

    Links ``S0->S3``, ``S1->S3``, ``S2->S4``, ``S3->S5``, ``S4->S5`` and the
    bottleneck ``S5->S6`` (1 Mb/s).  Flow A runs ``S0-S3-S5-S6``, B
    ``S1-S3-S5-S6`` and C ``S2-S4-S5-S6``.

    Tickets are per link, each in the currency of the entity issuing them:
    S3 issues 1000 t/s to ``S0->S3`` and 500 to ``S1->S3``; S4 issues 1000 to
    ``S2->S4``; S5 issues 900 to ``S3->S5`` and 300 to ``S4->S5``.  Relabelling
    at ``S3->S5`` (exchange rate 900 / 1500) and ``S4->S5`` (300 / 1000) turns
    these into 600, 300 and 300 t/s in S5's currency, the currency of the
    bottleneck.  **``Flow.weight`` holds those S5-currency tickets**, computed
    from the per-link values above (override them with ``link_tickets``), so
    ticket-weighted sharing gives the paper's expected 0.5, 0.25 and
    0.25 Mb/s (Table 1).

    Parameters
    ----------
    capacity : float, bit/s
        Capacity of the bottleneck ``S5->S6`` (paper: 1 Mb/s).
    active : sequence of {"A", "B", "C"}
        The flows present.  Exchange rates count only active tickets, so
        ``active=("B", "C")`` (Section 3.3, the first 300 s) gives B 900 and C
        300 t/s in S5's currency, hence 0.75 and 0.25 Mb/s.
    link_tickets : mapping, optional
        Per-link ticket rates replacing the paper's, keyed ``"S0->S3"`` (or
        ``("S0", "S3")``); Section 3.4 uses ``{"S0->S3": 600, "S1->S3": 900}``,
        which gives A 0.3, B 0.45 and C 0.25 Mb/s.
    other_capacity : float, bit/s
        Capacity of every other link (not given; 10 Mb/s does not constrain).
    delay : float, s
        Propagation delay of every link (not given; 10 ms is our choice).
    buffer : int, packets
        Buffer of every link (not given).
    packet_size : int, bytes
        Packet size of every flow (not given).

    Raises
    ------
    ScenarioError
        If ``active`` names an unknown flow, repeats one or is empty, or
        ``link_tickets`` names a link that is not ticketed or gives a rate <= 0.

    Notes
    -----
    Section 3.5 makes B a 0.16 Mb/s constant-rate source; model it with
    ``pps_multi_hop().replace_flow("B", max_rate=kbps(160))`` (A and C then
    share the remaining 0.84 Mb/s 2:1: 0.56 and 0.28 Mb/s).  Section 2.6 says
    that with B silent A and C divide the link 2:1, but the exchange rule with
    active tickets (which Section 3.3's 0.75 / 0.25 follows) gives 3:1; this
    builder follows the rule.

    References
    ----------
    Zhang, Wang, Peterson, Krishnamurthy, "Probabilistic Packet Scheduling",
    Sections 2.6 (Figure 2) and 3.2-3.5, Figure 6, Tables 1-2.
    """
    owner = "pps_multi_hop"
    capacity = _capacity(owner, "capacity", capacity)
    other_capacity = _capacity(owner, "other_capacity", other_capacity)
    delay = _delay(owner, "delay", delay)
    buffer = _buffer(owner, "buffer", buffer)
    packet_size = _packet_size(owner, "packet_size", packet_size)
    flows_on = _pps_active(owner, active)
    t = _pps_link_tickets(owner, _PPS_TICKETS_FIG6, link_tickets)
    w = _pps_s5_tickets(t, flows_on)
    links = [Link(*key.split("->"), other_capacity, delay, buffer) for key in _PPS_TICKETS_FIG6]
    links.append(Link("S5", "S6", capacity, delay, buffer))
    flows = [Flow(route=_PPS_ROUTES[f], weight=w[f], packet_size=packet_size, name=f)
             for f in flows_on]
    return Network(links=links, flows=flows)


#: Capacities of S6->S7 and S6->S8 in the three runs of Section 3.6 (Tables 3-5).
_PPS_FIG9_SCENARIOS = {1: (Mbps(1), Mbps(10)), 2: (Mbps(10), Mbps(1)), 3: (Mbps(1), Mbps(1))}


def pps_multiple_bottleneck(
    scenario: int = 1,
    *,
    s6_s7_capacity: float | None = None,
    s6_s8_capacity: float | None = None,
    s3_s5_capacity: float = Mbps(2),
    s4_s5_capacity: float = Mbps(1),
    other_capacity: float = Mbps(10),
    link_tickets: Mapping | None = None,
    delay: float = ms(10),
    buffer: int = DEFAULT_BUFFER,
    packet_size: int = 1000,
) -> Network:
    """The PPS paper's Figure 9: three flows, two sinks, bottlenecks that move with the scenario.

    Figure 6 extended by ``S5->S6``, ``S6->S7`` and ``S6->S8``.  Flow A runs
    ``S0-S3-S5-S6-S8``, B ``S1-S3-S5-S6-S7`` and C ``S2-S4-S5-S6-S8``.
    ``S3->S5`` is 2 Mb/s and ``S4->S5`` 1 Mb/s; ``S6->S7`` and ``S6->S8`` are
    1 and 10 Mb/s (scenario 1, Table 3), 10 and 1 Mb/s (scenario 2, Table 4) or
    both 1 Mb/s (scenario 3, Table 5).

    Tickets are per link, in the issuer's currency: S3 issues 1000 t/s to
    ``S0->S3`` and 500 to ``S1->S3``, S4 1000 to ``S2->S4``, S5 900 to
    ``S3->S5`` and 300 to ``S4->S5``, S6 1200 to ``S5->S6``.  **``Flow.weight``
    holds each flow's tickets in S6's currency** (after the last relabelling,
    at ``S5->S6``): 600, 300 and 300 t/s.  Every exchange rate scales all the
    flows crossing a link alike, so these weights stand in the paper's ratios
    at every shared link (A:B = 1000:500 at ``S3->S5``, A:C = 600:300 at
    ``S6->S8``), and ticket-weighted max-min sharing gives the expected rates
    of Tables 3-5: (1.33, 0.67, 1.00), (0.67, 1.33, 0.33) and (0.67, 1.00,
    0.33) Mb/s for A, B, C.

    Parameters
    ----------
    scenario : {1, 2, 3}
        Which run of Section 3.6 sets ``S6->S7`` and ``S6->S8``.
    s6_s7_capacity, s6_s8_capacity : float, bit/s, optional
        Override the scenario's capacities of ``S6->S7`` and ``S6->S8``.
    s3_s5_capacity : float, bit/s
        Capacity of ``S3->S5`` (the paper: "the 2Mb/s bandwidth of link (S3, S5)").
    s4_s5_capacity : float, bit/s
        Capacity of ``S4->S5``.  The text does not state it; 1 Mb/s follows from
        C "obtain[ing] all the bandwidth of link (S4, S5)" with an expected 1.00 Mb/s.
    other_capacity : float, bit/s
        The access links and ``S5->S6`` (not given; ``S5->S6`` must carry 3 Mb/s
        in scenario 1 without being a bottleneck, so 10 Mb/s is our choice).
    link_tickets : mapping, optional
        Per-link ticket rates replacing the paper's, keyed ``"S0->S3"`` etc.
    delay : float, s
        Propagation delay of every link (not given; 10 ms is our choice).
    buffer : int, packets
        Buffer of every link (not given).
    packet_size : int, bytes
        Packet size of every flow (not given).

    Raises
    ------
    ScenarioError
        If ``scenario`` is not 1, 2 or 3, or ``link_tickets`` is invalid.

    References
    ----------
    Zhang, Wang, Peterson, Krishnamurthy, "Probabilistic Packet Scheduling",
    Section 3.6, Figure 9, Tables 3-5.
    """
    owner = "pps_multiple_bottleneck"
    k = v.integer(owner, "scenario", scenario)
    if k not in _PPS_FIG9_SCENARIOS:
        raise ScenarioError(f"{owner}.scenario must be 1, 2 or 3 (Tables 3-5), got {scenario!r}")
    c67, c68 = _PPS_FIG9_SCENARIOS[k]
    c67 = c67 if s6_s7_capacity is None else _capacity(owner, "s6_s7_capacity", s6_s7_capacity)
    c68 = c68 if s6_s8_capacity is None else _capacity(owner, "s6_s8_capacity", s6_s8_capacity)
    s3_s5_capacity = _capacity(owner, "s3_s5_capacity", s3_s5_capacity)
    s4_s5_capacity = _capacity(owner, "s4_s5_capacity", s4_s5_capacity)
    other_capacity = _capacity(owner, "other_capacity", other_capacity)
    delay = _delay(owner, "delay", delay)
    buffer = _buffer(owner, "buffer", buffer)
    packet_size = _packet_size(owner, "packet_size", packet_size)
    t = _pps_link_tickets(owner, _PPS_TICKETS_FIG9, link_tickets)
    w = _pps_s5_tickets(t, list(_PPS_ROUTES))
    xrate = t["S5->S6"] / sum(w.values())
    caps = {"S3->S5": s3_s5_capacity, "S4->S5": s4_s5_capacity}
    links = [Link(*key.split("->"), caps.get(key, other_capacity), delay, buffer)
             for key in _PPS_TICKETS_FIG9]
    links += [Link("S6", "S7", c67, delay, buffer), Link("S6", "S8", c68, delay, buffer)]
    sinks = {"A": "S8", "B": "S7", "C": "S8"}
    flows = [Flow(route=_PPS_ROUTES[f] + [sinks[f]], weight=w[f] * xrate,
                  packet_size=packet_size, name=f) for f in _PPS_ROUTES]
    return Network(links=links, flows=flows)


def abe_dumbbell(
    n_green: int = 15,
    n_blue: int = 15,
    capacity: float = Mbps(2),
    rtt: float = 0.14,
    *,
    queue=None,
    green_source="tfrc-eq2",
    blue_source=None,
    delay: float = 0.0,
    buffer: int = 50,
    access_capacity: float | None = None,
    access_buffer: int = DEFAULT_BUFFER,
    packet_size: int = 1000,
) -> Network:
    """The ABE paper's Figure 5: 15 Green and 15 Blue sources over one bottleneck.

    Green flows ``green0..`` leave ``g0..``, Blue flows ``blue0..`` leave
    ``b0..``; every flow follows ``source -> r1 -> r2`` and the bottleneck is
    the output of router r1, ``r1->r2``, with a 50-packet buffer and, by
    default, the paper's ABE router
    (:class:`~qosmodels.mechanisms.AbeQueue` with the Section IV-B
    parameters).  Green flows come first.  Green flows have a rate-based
    TCP-friendly source (:class:`~qosmodels.mechanisms.TcpFriendly`, by
    default TFRC's machinery rated by the paper's eq (2)), Blue flows TCP
    Reno, as in the paper; every flow has weight 1.

    Every source "has the same propagation delay to their respective sinks":
    the round-trip propagation delay of every flow is 0.14 s (the paper's
    tau_e "corresponds to the propagation delay of all sources").  Each access
    link gets ``rtt / 2 - delay`` so that ``net.rtt`` is ``rtt`` (bit for bit
    with the default ``delay=0``, to one unit in the last place otherwise).

    Parameters
    ----------
    n_green, n_blue : int
        Numbers of Green and Blue flows (paper: 15 each); at least one flow.
    capacity : float, bit/s
        Bottleneck capacity.  **Not given in the text**; 2 Mb/s is our choice:
        it makes the 50-packet buffer drain in 0.2 s, the scale of the EDF
        offsets D = 0.1 and 0.2 s the paper uses.
    rtt : float, s
        Round-trip propagation delay of every flow (paper: 0.14 s).
    queue : QueueSpec, optional
        The bottleneck's queue; default ``AbeQueue()`` (the paper's parameters,
        D = 0.1 s).  Flat best effort is ``AbeQueue.flat()`` (RED, packet for
        packet).  With a queue that does not read colours (``Red()``, say) the
        Green flows' sources are sent Blue (``green=False``): they are Green
        by name only.
    green_source : {"tfrc", "tfrc-eq2", "tfrc-ratio", "tfrc-eq2-ratio", "rap", "reno"} or \
SourceSpec
        The Green flows' source, by name or as a spec.  The paper's is "the
        rate-based TCP friendly type algorithm described in [6]" (Section
        IV-B), not given, of sources that "do not send more than a TCP source
        would for the same conditions of loss" (Section II-A):

        * ``"tfrc-eq2"`` (default): ``TcpFriendly()``, TFRC's machinery
          rated by the paper's eq (2), the authors' own TCP-friendly
          throughput (from their ITC-16 note, ref. [11]) that ABE's control
          law assumes Green sources follow.  The paper's source was "a simple
          one for simulation purposes" from its technical report [6], set
          apart from "more sophisticated" TCP-friendly protocols ([9] RAP and
          [10] Padhye et al.'s, whose equation RFC 5348 later took).  Eq (2)
          has no timeout term: in the 15 + 15 runs at 2 Mb/s it sends 2.3
          times RFC 5348's rate at the same loss event rate and takes 2.8
          times a Reno flow's goodput flat, where the paper's flat runs put
          Green about level with Reno (Blue/Green 1.058).
        * ``"tfrc"``: ``TcpFriendly(equation="rfc5348")``, TFRC with RFC
          5348's throughput equation (timeouts included): 0.78 times a Reno
          flow's goodput flat there, but its rate falls with loss much faster
          than eq (2) says, so ABE's loop, which sets Green's loss from eq (2),
          overshoots (Blue/Green 5.4 at D = 0.1 s against the paper's 1.45).
        * ``"tfrc-eq2-ratio"``: ``TcpFriendly(loss="packets")``, TFRC's
          machinery rated by eq (2) at its packet loss *ratio* (every lost
          packet closes a loss interval), the ``q`` of eq (2) ("relationship
          between long term throughput ... and packet loss ratio", Section
          III-C) and of ABE's control law.  Measured at 2 Mb/s: Blue/Green
          0.54 flat with 15 + 15 flows and 0.87 with 1 + 1 (10 seeds; the
          paper: 1.058 and 1.08), 1.64 with ABE at D = 0.1 s (4 seeds; paper
          1.45).
        * ``"tfrc-ratio"``: ``TcpFriendly(loss="packets",
          equation="rfc5348")``, RFC 5348's equation at the loss ratio:
          Blue/Green 1.69 and 0.97 flat, 15 with ABE at D = 0.1 s (4 seeds:
          the loop, which assumes eq (2), overshoots).
        * ``"rap"``: ``Rap()``, RAP (the paper's ref. [9]; Rejaie, Handley and
          Estrin's rate-based AIMD source, one more packet per RTT each RTT, the
          rate halved at most once per RTT on a loss, no timeouts to one packet).
        * ``"reno"``: ``TcpReno()``, window-based, not the paper's.

        No rate-based option meets the paper's flat ratios in both runs
        (within 10%); ``benchmarks/RESULTS.md`` ("ABE's Green source") tabulates
        them.  ``None`` is ``"tfrc-eq2"``.
    blue_source : SourceSpec, optional
        The Blue flows' source; default ``TcpReno()``.  A Green flow's source
        is made Green (``green=True``) when the queue reads colours, a Blue
        flow's Blue.
    delay : float, s
        Propagation delay of the bottleneck (default 0; the text gives only the RTT).
    buffer : int, packets
        Buffer at r1 (paper: 50).
    access_capacity : float, bit/s, optional
        Capacity of each access link (not given; default 100 times the bottleneck).
    access_buffer : int, packets
        Buffer of each access link.
    packet_size : int, bytes
        Packet size of every flow (not given).

    Raises
    ------
    ScenarioError
        If ``n_green`` or ``n_blue`` is negative, both are 0, ``rtt < 2 * delay``,
        or ``green_source`` is a name other than those above.
    ScenarioTypeError
        If ``queue`` is not a queue spec or a source is not a source spec (or,
        for ``green_source``, a name).

    References
    ----------
    P. Hurley, J.-Y. Le Boudec, P. Thiran, "The Asymmetric Best-Effort
    Service", Section IV-B, Figure 5.
    """
    from .mechanisms import AbeQueue, QueueSpec, Rap, SourceSpec, TcpFriendly, TcpReno

    owner = "abe_dumbbell"
    ng = v.integer(owner, "n_green", n_green, ge=0)
    nb = v.integer(owner, "n_blue", n_blue, ge=0)
    if ng + nb == 0:
        raise ScenarioError(f"{owner} needs at least one flow: set n_green or n_blue above 0")
    _budget(owner, links=ng + nb + 1, flows=ng + nb, hops=2 * (ng + nb),
            parameter=f"n_green={ng}, n_blue={nb}", fix="use fewer flows")
    cap = _capacity(owner, "capacity", capacity)
    queue = AbeQueue() if queue is None else queue
    if not isinstance(queue, QueueSpec):
        raise ScenarioTypeError(f"{owner}: queue must be a queue spec such as AbeQueue(), got "
                                f"{queue!r}")
    green_source = "tfrc-eq2" if green_source is None else green_source
    if isinstance(green_source, str):
        named = {"tfrc": TcpFriendly(equation="rfc5348"), "tfrc-eq2": TcpFriendly(),
                 "tfrc-ratio": TcpFriendly(loss="packets", equation="rfc5348"),
                 "tfrc-eq2-ratio": TcpFriendly(loss="packets"), "rap": Rap(),
                 "reno": TcpReno()}
        if green_source not in named:
            raise ScenarioError(f"{owner}.green_source must be one of {sorted(named)} or a "
                                f"source spec such as TcpFriendly(), got {green_source!r}")
        green_source = named[green_source]
    blue_source = TcpReno() if blue_source is None else blue_source
    for name, src in (("green_source", green_source), ("blue_source", blue_source)):
        if not isinstance(src, SourceSpec):
            raise ScenarioTypeError(f"{owner}: {name} must be a source spec such as "
                                    f"TcpReno(){' or a name' if name == 'green_source' else ''}"
                                    f", got {src!r}")
    if access_capacity is None:
        access_capacity = min(100 * cap, MAX_RATE)
    names = [f"green{i}" for i in range(ng)] + [f"blue{i}" for i in range(nb)]
    sources = [f"g{i}" for i in range(ng)] + [f"b{i}" for i in range(nb)]
    rtt = v.real(owner, "rtt", rtt, gt=0, unit="s")
    net = _star(owner, names, sources, rtt, [1.0] * (ng + nb), cap, delay, access_capacity,
                buffer, access_buffer, packet_size, routers=("r1", "r2"))
    green = dataclasses.replace(green_source, green=queue.colour_aware)
    blue = dataclasses.replace(blue_source, green=False)
    links = [dataclasses.replace(link, queue=queue) if link.name == "r1->r2" else link
             for link in net.links]
    return net.replace(links=links, flows=[dataclasses.replace(f, source=green if i < ng else blue)
                                           for i, f in enumerate(net.flows)])


#: Client link capacity by RTT in the paper's unequal-bandwidth case (Section 4.1).
_AGG_UNEQUAL = {0.05: kbps(1000), 0.3: kbps(500), 0.6: kbps(100)}


def aggregate_rate_control(
    client_capacities: float | Sequence[float] | str = "equal",
    rtts: Sequence[float] = (0.05, 0.3, 0.3, 0.6),
    *,
    connections_per_client: int | Sequence[int] = 1,
    access_capacity: float = kbps(800),
    access_delay: float = 0.0,
    buffer: int = DEFAULT_BUFFER,
    client_buffer: int = DEFAULT_BUFFER,
    packet_size: int = 1000,
) -> Network:
    """The aggregate TCP rate control paper's Figure 1(b): one server, one router, its clients.

    Server ``S`` reaches the provider's router ``P`` over the access link
    ``S->P``, the bottleneck; client ``C{i}`` hangs off ``P`` on its own link
    ``P->C{i}``.  Data flow from the server to the clients: connection k of
    client i is ``c{i}_{k}``, route ``S -> P -> C{i}``.

    The paper's client links are 500 kb/s each ("equal bandwidth case") or
    1000, 500 and 100 kb/s ("unequal"); the RTTs are 50, 300 and 600 ms, and
    the figures show four connections, of 50, 300, 300 and 600 ms.  The
    client delays carry the RTT ("client connectivity ... direct links to the
    network provider with appropriate bandwidth and delay"): ``P->C{i}`` gets
    ``rtt_i / 2 - access_delay``, so that ``net.rtt`` (forward plus reverse
    propagation) equals ``rtts``: bit for bit with the default
    ``access_delay=0``, to one unit in the last place otherwise.

    Parameters
    ----------
    client_capacities : "equal", "unequal", float or sequence of float, bit/s
        ``"equal"``: 500 kb/s for every client.  ``"unequal"``: by RTT, 50 ms
        -> 1000 kb/s, 300 ms -> 500 kb/s, 600 ms -> 100 kb/s (the text lists
        the bandwidths and RTTs as parallel lists of three; pairing them in
        order is our reading).  A number or one value per client sets them.
    rtts : sequence of float, s
        Round-trip propagation delay of each client (one client per entry).
    connections_per_client : int or sequence of int
        TCP connections to each client (not stated; 1 each by default, which
        gives the four connections of the figures).  The other reading, three
        clients with two connections to the 300 ms one, is
        ``rtts=(0.05, 0.3, 0.6), connections_per_client=(1, 2, 1)``.
    access_capacity : float, bit/s
        Capacity of the access link ``S->P``.  **Not given in the text**, which
        says only that it is the bottleneck.  800 kb/s is our choice: below
        the clients' total, and the aggregate rate implied by the text (with an
        equal split, one connection capped at 100 kb/s leaves 3/4 * 800 + 100 =
        700 kb/s, the "87%" of Section 4.2.1).  With rate control the line must
        be faster than the aggregate rate, or policed connections could not
        send "much" more than it (Figure 6): the ``tokenbucket-fairness``
        experiment keeps the 800 kb/s as the aggregate's token rate and gives
        the access link 1.544 Mb/s (a T1, the text's example of an access
        line), still below the clients' total.
    access_delay : float, s
        Propagation delay of ``S->P`` (default 0), at most ``min(rtts) / 2``.
    buffer, client_buffer : int, packets
        Buffers of the access link and the client links (not given).
    packet_size : int, bytes
        Packet size of every connection (not given).

    Raises
    ------
    ScenarioError
        If ``rtts`` is empty, a per-client sequence has the wrong length,
        ``client_capacities`` is an unknown string, ``"unequal"`` meets an RTT
        other than 50, 300 or 600 ms, a client has no connection, or an RTT is
        shorter than ``2 * access_delay``.

    Notes
    -----
    The paper conditions the aggregate at the server (token buckets, shaping
    timer 15 ms, ERED routers with marked packets dropped 1.5 times less
    often); none of that is part of the topology.

    References
    ----------
    "Aggregate TCP rate control with token buckets" (Mehra, Tewari, Kandlur
    et al.), Section 4.1, Figure 1(b).
    """
    owner = "aggregate_rate_control"
    if isinstance(rtts, (str, bytes)) or not isinstance(rtts, Sequence) or not rtts:
        raise ScenarioError(
            f"{owner}.rtts must be a non-empty sequence of round-trip times in s (one per "
            f"client), got {rtts!r}"
        )
    rtt = [v.real(owner, "rtts", r, gt=0, le=2 * MAX_DELAY, unit="s") for r in rtts]
    n = len(rtt)
    if isinstance(client_capacities, str):
        if client_capacities == "equal":
            caps = [kbps(500)] * n
        elif client_capacities == "unequal":
            caps = []
            for r in rtt:
                match = [c for key, c in _AGG_UNEQUAL.items() if math.isclose(r, key)]
                if not match:
                    raise ScenarioError(
                        f"{owner}.client_capacities='unequal' pairs the paper's RTTs 50, 300 and "
                        f"600 ms with 1000, 500 and 100 kb/s; RTT {r!r} s has no pair, give the "
                        f"capacities explicitly"
                    )
                caps.append(match[0])
        else:
            raise ScenarioError(
                f"{owner}.client_capacities must be 'equal', 'unequal', a capacity in bit/s or "
                f"one per client, got {client_capacities!r}"
            )
    else:
        caps = _per_item("client_capacities", client_capacities, n, owner, _capacity)
    conns = _per_item("connections_per_client", connections_per_client, n, owner,
                      lambda o, f, k: v.integer(o, f, k, ge=1))
    _budget(owner, links=n + 1, flows=sum(conns), hops=2 * sum(conns),
            parameter=f"connections_per_client ({sum(conns)} connections)",
            fix="use fewer connections per client")
    access_capacity = _capacity(owner, "access_capacity", access_capacity)
    buffer = _buffer(owner, "buffer", buffer)
    client_buffer = _buffer(owner, "client_buffer", client_buffer)
    packet_size = _packet_size(owner, "packet_size", packet_size)
    a = _delay(owner, "access_delay", access_delay)
    links = [Link("S", "P", access_capacity, a, buffer)]
    flows = []
    for i in range(n):
        if rtt[i] / 2 < a:
            raise ScenarioError(
                f"{owner}.rtts[{i}] = {rtt[i]!r} s is shorter than the round trip over the access "
                f"link alone (2 * access_delay = {2 * a!r} s)"
            )
        links.append(Link("P", f"C{i}", caps[i], _rest_of(rtt[i] / 2, a), client_buffer))
        flows += [Flow(route=["S", "P", f"C{i}"], packet_size=packet_size, name=f"c{i}_{k}")
                  for k in range(conns[i])]
    return Network(links=links, flows=flows)


def random_network(
    n_flows: int,
    n_links: int,
    *,
    max_hops: int = 5,
    capacity: tuple[float, float] = (Mbps(1), Mbps(100)),
    delay: tuple[float, float] = (ms(1), ms(20)),
    weights: tuple[float, float] = (1.0, 1.0),
    seed,
) -> Network:
    """A random network of ``n_links`` links and ``n_flows`` flows on random loop-free paths.

    The links join about ``n_links / 3`` nodes; each flow crosses 1 to
    ``max_hops`` links.

    The nodes form a ring (so every node has a way out) plus random extra
    links; each flow starts at a random node and walks ``h`` hops, ``h``
    uniform in ``1..max_hops``, stopping early if it reaches a node with no
    unvisited successor.  Capacities, delays and weights are uniform in the
    given ranges.  Used for property tests and benchmarks.

    Parameters
    ----------
    n_flows : int
        Number of flows, >= 1.
    n_links : int
        Number of links, >= 2.
    max_hops : int
        Longest route, in links, >= 1.
    capacity : (float, float), bit/s
        Range of link capacities.
    delay : (float, float), s
        Range of link propagation delays.
    weights : (float, float)
        Range of flow weights.
    seed : int >= 0, numpy.random.SeedSequence or numpy.random.Generator
        Randomness, as :func:`~qosmodels.sim.simulate` takes it (required, as
        there); the same int or SeedSequence gives the same network.

    Raises
    ------
    ScenarioError
        If a count is below its minimum, a range is not ``(low, high)`` with
        ``low <= high`` and values a :class:`~qosmodels.Link` or
        :class:`~qosmodels.Flow` accepts, or ``seed`` is a negative int.
    ScenarioTypeError
        If a count is not an integer or ``seed`` is not one of the accepted kinds.
    BudgetError
        If the network would not fit in the memory budget (:mod:`qosmodels.budget`).

    Examples
    --------
    >>> from qosmodels.topologies import random_network
    >>> random_network(100, 10, seed=1).n_flows
    100
    """
    import numpy as np

    owner = "random_network"
    _seed.check(owner, seed)
    nf = v.integer(owner, "n_flows", n_flows, ge=1)
    nl = v.integer(owner, "n_links", n_links, ge=2)
    hmax = v.integer(owner, "max_hops", max_hops, ge=1, le=10**9)
    # (a route has at most one hop per link)
    _budget(owner, links=nl, flows=nf, hops=float(nf) * min(hmax, nl),
            parameter=f"n_links={nl}, n_flows={nf}, max_hops={hmax}",
            fix="use fewer links, flows or hops")
    check = {"capacity": _capacity, "delay": _delay, "weights": _weight}
    ranges = {}
    for name, rng_ in (("capacity", capacity), ("delay", delay), ("weights", weights)):
        if isinstance(rng_, (str, bytes)) or not hasattr(rng_, "__len__") or len(rng_) != 2:
            raise ScenarioTypeError(f"{owner}.{name} must be a range (low, high), got {rng_!r}")
        lo, hi = (check[name](owner, f"{name}[{k}]", x) for k, x in enumerate(rng_))
        if not lo <= hi:
            raise ScenarioError(f"{owner}.{name} must be a range (low, high) with "
                                f"low <= high, got {rng_!r}")
        ranges[name] = (lo, hi)
    capacity, delay, weights = ranges["capacity"], ranges["delay"], ranges["weights"]
    rng = _seed.generator(owner, seed)
    # about three links per node, and enough nodes for n_links distinct ordered pairs
    n_nodes = max(2, round(nl / 3), int(np.ceil((1 + np.sqrt(1 + 4 * nl)) / 2)))
    pairs = [(i, (i + 1) % n_nodes) for i in range(n_nodes)][: nl if n_nodes > 2 else 2]
    taken = set(pairs)
    while len(pairs) < nl:
        a, b = (int(t) for t in rng.integers(0, n_nodes, size=2))
        if a != b and (a, b) not in taken:
            taken.add((a, b))
            pairs.append((a, b))
    caps = rng.uniform(*capacity, size=nl)
    dels = rng.uniform(*delay, size=nl)
    hops = rng.integers(1, hmax + 1, size=nf)
    ws = rng.uniform(*weights, size=nf)
    # each flow starts at a random node with a way out (sorted by number) and walks
    # hops[i] hops, each to a random unvisited successor (successors in link order),
    # stopping early where there is none; compiled, with the same draws as that loop
    from ._walks import random_walks

    ptr, route_links = random_walks(rng, np.array(pairs, dtype=np.int64), n_nodes, hops)
    return Network.from_arrays(caps, (ptr, route_links),
                               delays=dels, weights=ws,
                               ends=[(f"n{a}", f"n{b}") for a, b in pairs])


#: Builders by the name the command line uses.
TOPOLOGIES: dict[str, Callable[..., Network]] = {
    "dumbbell": dumbbell,
    "parking-lot": parking_lot,
    "acc-parking-lot": acc_parking_lot,
    "acc-linear": acc_linear,
    "pps-one-hop": pps_one_hop,
    "pps-multi-hop": pps_multi_hop,
    "pps-multiple-bottleneck": pps_multiple_bottleneck,
    "pps-ten-flow": pps_ten_flow,
    "abe-dumbbell": abe_dumbbell,
    "aggregate-rate-control": aggregate_rate_control,
    "random": random_network,
}


def topology(name: str, **params) -> Network:
    """Build a registered topology by name, e.g. ``topology("parking-lot", n_links=3)``.

    Raises
    ------
    ScenarioError
        If the name is not registered.
    """
    try:
        builder = TOPOLOGIES[name]
    except KeyError:
        raise ScenarioError(
            f"unknown topology {name!r}; registered topologies are {sorted(TOPOLOGIES)}"
        ) from None
    return builder(**params)
