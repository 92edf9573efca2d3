"""Probabilistic Packet Scheduling (PPS): ticket currencies, exchange rates and fair rates.

PPS gives each flow a share of the network in *tickets per second* (t/s).
Every entity (a host or a router) defines its own currency and issues some
t/s of it to each of its inputs; a packet carries tickets, and each link
relabels them into the currency of the next entity with the exchange rate

    XRate = OutTktRate / InTktRate                      (Section 2.5)

where OutTktRate is what the link is issued by the entity it enters and
InTktRate the *active* t/s it receives.  At a congested link, ticket-based RED
(TRED) drops packets so that every *poor* flow of the link (one the link
bottlenecks) gets

    InPktRate_p * InTktRate_c / InTktRate_p             (Sections 2.2, 2.6)

its tickets in the link's currency over all poor flows' tickets, times the
capacity the poor flows share; a *rich* flow (limited by its own demand or by
another link) gets what it can use.  This is weighted max-min fairness with a
weight per link (the flow's tickets in that link's currency), computed here
exactly.

This module offers:

* :func:`fair_rates` -- the sender-based algorithm: exchange rates, every
  flow's tickets in every link's currency, and the fair rates;
* :func:`receiver_fair_rates` -- the receiver-based algorithm (ACK tickets,
  Section 2.7), with the sender currency it reconstructs;
* the formulas of single packets and links, vectorised: :func:`packet_tag`,
  :func:`exchange_rate`, :func:`poor_flow_rate`, :func:`tred_multiplier`,
  :func:`tred_drop_probability`, :func:`udp_drop_probability`,
  :func:`udp_one_hop`;
* :func:`symbolic` and :func:`udp_proof` -- the same formulas as SymPy
  expressions, and the paper's Section 4 argument (UDP survivors get exactly
  their fair share and keep their tickets) done symbolically.

Units: rates in bit/s (the paper's packets/s times the packet size; only
ratios of rates enter), ticket rates in tickets/s.

References
----------
M. Zhang, R. Wang, L. Peterson, A. Krishnamurthy, "Probabilistic Packet
Scheduling: Achieving Proportional Share Bandwidth Allocation", Princeton
University TR-632-01, 2001.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _validate as v
from ._arrays import real_array
from .errors import ScenarioError, ScenarioTypeError, SolverError
from .mechanisms.tickets import TRED_K as _TRED_K
from .network import Network

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from .allocation import Allocation

__all__ = [
    "TicketAllocation",
    "fair_rates",
    "receiver_fair_rates",
    "with_tickets",
    "network_tickets",
    "packet_tag",
    "exchange_rate",
    "poor_flow_rate",
    "tred_multiplier",
    "tred_drop_probability",
    "tred_tcp_shares",
    "udp_drop_probability",
    "udp_one_hop",
    "UDPOutcome",
    "symbolic",
    "udp_proof",
    "FIG6_TICKETS",
    "FIG9_TICKETS",
    "TRED_K",
]

#: Tickets/s issued to each link of the paper's Figures 2 and 6 by the node the
#: link enters (Sections 2.6 and 3.2): S3 issues 1000 to (S0, S3) and 500 to
#: (S1, S3), S4 1000 to (S2, S4), S5 900 to (S3, S5) and 300 to (S4, S5).
FIG6_TICKETS: dict[tuple[str, str], float] = {
    ("S0", "S3"): 1000.0, ("S1", "S3"): 500.0, ("S2", "S4"): 1000.0,
    ("S3", "S5"): 900.0, ("S4", "S5"): 300.0,
}
#: Figure 9 (Section 3.6): Figure 6's tickets plus 1200 t/s issued by S6 to (S5, S6).
FIG9_TICKETS: dict[tuple[str, str], float] = {**FIG6_TICKETS, ("S5", "S6"): 1200.0}
#: TRED's ticket window factor: ExpectTkt averages the tags in [MinTkt, K MinTkt] (Section 2.4.2).
TRED_K = _TRED_K

_OWNER = "fair_rates"
_MAX_SWEEPS = 100_000
_RTOL = 1e-14


# ============================================================================ result
@dataclass(frozen=True)
class TicketAllocation:
    """The PPS fair allocation of a network, with the ticket ledger that produced it.

    Returned by :func:`fair_rates` (``variant="sender"``) and
    :func:`receiver_fair_rates` (``variant="receiver"``).  Per-link arrays follow
    ``network.links``, per-flow arrays ``network.flows``; inactive flows have
    rate 0 and no tickets.

    Attributes
    ----------
    network : Network
        The network (all flows, active or not).
    variant : {"sender", "receiver"}
        Which algorithm: data tickets (Section 2.5) or ACK tickets (Section 2.7).
    issued : dict of str to float, tickets/s
        The ticket rates given, by link name: for ``"sender"`` the t/s the node a
        link enters issues to it (OutTktRate); for ``"receiver"`` the t/s the
        node a link leaves issues to it in its receiver currency (AckOutTktRate).
    rates : ndarray, shape (F,), bit/s
        The fair rates.
    exchange_rates : ndarray, shape (L,)
        XRate = OutTktRate / InTktRate of each link (for ``"receiver"``:
        AckXRate = AckOutTktRate / AckInTktRate, and the data exchange rate is
        its inverse, Section 2.7.1).  1 for a link that is issued no tickets
        (its tickets pass through unchanged), NaN for a link no active flow crosses.
    in_ticket_rate, out_ticket_rate : ndarray, shape (L,), tickets/s
        Active t/s each link receives (InTktRate) and hands on (OutTktRate); for
        ``"receiver"`` the ACK tickets (AckInTktRate, AckOutTktRate).
    link_tickets : ndarray, shape (L, F), tickets/s
        Each flow's tickets in each link's currency: the weights of the fairness
        criterion.  ``"sender"``: InTktRate_c, the flow's t/s arriving at link
        (S, T) in S's currency (Section 2.6).  ``"receiver"``: AckInTktRate_c,
        the flow's ACK t/s arriving at (S, T) in T's receiver currency
        (Section 2.7.2).  0 off the flow's route.
    out_tickets : ndarray, shape (L, F), tickets/s
        The same after the link's relabelling (``link_tickets * exchange_rates``).
    poor : ndarray of bool, shape (L, F)
        ``poor[l, i]``: link l is a bottleneck of flow i (flow i is a *poor*
        flow of l, Section 2.1).  A flow poor nowhere is limited by its demand.
    bottlenecks : tuple of tuple of str
        For each flow, the names of the links where it is poor.
    active : ndarray of bool, shape (F,)
        Which flows are active.
    demand : ndarray, shape (F,), bit/s
        Each flow's demand (``inf`` for a greedy flow).
    allocation : Allocation
        The weighted max-min allocation of the active flows (link weights
        ``link_tickets``) from :func:`qosmodels.allocate`.
    """

    network: Network
    variant: str
    issued: dict
    rates: np.ndarray
    exchange_rates: np.ndarray
    in_ticket_rate: np.ndarray
    out_ticket_rate: np.ndarray
    link_tickets: np.ndarray
    out_tickets: np.ndarray
    poor: np.ndarray
    bottlenecks: tuple[tuple[str, ...], ...]
    active: np.ndarray
    demand: np.ndarray
    allocation: Allocation = field(repr=False)

    def __repr__(self) -> str:
        n_act = int(self.active.sum())
        return (f"TicketAllocation({self.variant}, {n_act} of {len(self.rates)} flows active, "
                f"{self.network.n_links} links)")

    # ------------------------------------------------------------------ look-ups
    def rate(self, flow) -> float:
        """The rate of one flow (index or name), bit/s."""
        return float(self.rates[self.network._flow_id(flow)])

    def exchange_rate(self, link) -> float:
        """The exchange rate of one link (``(src, dst)``, ``"src->dst"`` or index)."""
        return float(self.exchange_rates[self.network.link_id(link)])

    def tickets(self, flow, link) -> float:
        """A flow's tickets (t/s) in a link's currency (see :attr:`link_tickets`)."""
        return float(self.link_tickets[self.network.link_id(link), self.network._flow_id(flow)])

    @property
    def poor_ticket_rate(self) -> np.ndarray:
        """InTktRate_p: t/s each link receives from its poor flows, shape (L,)."""
        return (self.link_tickets * self.poor).sum(axis=1)

    @property
    def poor_rate(self) -> np.ndarray:
        """InPktRate_p (here in bit/s): rate of each link's poor flows, shape (L,)."""
        return (self.poor * self.rates[None, :]).sum(axis=1)

    def sender_tickets(self) -> tuple[dict[tuple[str, str], float], dict[str, float]]:
        """The sender currency that the receiver-based algorithm reconstructs (Section 2.7.1).

        Each link is issued what it receives on ACKs (``OutTktRate = AckInTktRate``),
        and each TCP source what its ACKs bring it (the ACK tickets leaving the
        flow's first link).  Passing these to :func:`fair_rates` (``tickets``,
        ``flow_tickets``) runs the sender-based algorithm on that currency; the
        paper shows it gives every flow ``InTktRate_c = AckOutTktRate_c`` and
        the same rates.

        Returns
        -------
        tickets : dict of (str, str) to float
            t/s issued to each link that active flows cross.
        flow_tickets : dict of str to float
            t/s issued to each active flow's source.

        Raises
        ------
        ScenarioError
            For a sender-based result (there is nothing to reconstruct).
        """
        if self.variant != "receiver":
            raise ScenarioError("sender_tickets() applies to receiver_fair_rates() results only; "
                                "this one is sender-based")
        net = self.network
        used = self.in_ticket_rate > 0
        tickets = {net.links[l].key: float(self.in_ticket_rate[l]) for l in np.flatnonzero(used)}
        flow_tickets = {}
        for i in np.flatnonzero(self.active):
            first = int(net.flow_links(i)[0])
            flow_tickets[net.flow_names[i]] = float(self.out_tickets[first, i])
        return tickets, flow_tickets

    # ------------------------------------------------------------------ tables and plots
    def to_pandas(self, kind: str = "flows") -> pandas.DataFrame:
        """A table of the allocation.

        Parameters
        ----------
        kind : {"flows", "links", "tickets"}
            ``"flows"``: rate (bit/s), demand, active, bottlenecks and the tickets
            at the (first) bottleneck.  ``"links"``: capacity, load, utilisation,
            tickets issued, InTktRate, OutTktRate, exchange rate, and the poor
            flows' tickets and rate.  ``"tickets"``: links x flows, each flow's
            tickets in each link's currency.
        """
        import pandas as pd

        net = self.network
        if kind == "flows":
            at_b = []
            for i, b in enumerate(self.bottlenecks):
                at_b.append(self.tickets(i, b[0]) if b else np.nan)
            return pd.DataFrame(
                {
                    "rate_bps": self.rates,
                    "demand_bps": self.demand,
                    "active": self.active,
                    "bottlenecks": [", ".join(b) for b in self.bottlenecks],
                    "tickets_at_bottleneck": at_b,
                    "route": ["-".join(f.route) for f in net.flows],
                },
                index=pd.Index(net.flow_names, name="flow"),
            )
        if kind == "links":
            load = net.routing_matrix @ self.rates
            return pd.DataFrame(
                {
                    "capacity_bps": net.capacities,
                    "load_bps": load,
                    "utilisation": load / net.capacities,
                    "issued_tps": [self.issued.get(n, np.nan) for n in net.link_names],
                    "in_ticket_rate": self.in_ticket_rate,
                    "out_ticket_rate": self.out_ticket_rate,
                    "exchange_rate": self.exchange_rates,
                    "poor_ticket_rate": self.poor_ticket_rate,
                    "poor_rate_bps": self.poor_rate,
                },
                index=pd.Index(net.link_names, name="link"),
            )
        if kind == "tickets":
            return pd.DataFrame(self.link_tickets, index=pd.Index(net.link_names, name="link"),
                                columns=pd.Index(net.flow_names, name="flow"))
        raise ScenarioError(f"kind must be 'flows', 'links' or 'tickets', got {kind!r}")

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Bar charts of the flows' rates (Mb/s) and the links' exchange rates.

        Parameters
        ----------
        ax : matplotlib Axes or sequence of two, optional
            Where to draw (one Axes: the rates only); a new figure if omitted.
        **kwargs
            Passed to the ``bar`` calls.

        Returns
        -------
        matplotlib.axes.Axes or numpy.ndarray of Axes
            What was drawn on.
        """
        from ._plot import drawn, panels

        ax = panels(ax, 2)
        net = self.network
        ax[0].bar(net.flow_names, self.rates / 1e6, **kwargs)
        ax[0].set_ylabel("rate (Mb/s)")
        ax[0].set_title(f"PPS fair rates ({self.variant}-based)")
        if len(ax) > 1:
            ax[1].bar(net.link_names, np.nan_to_num(self.exchange_rates), **kwargs)
            ax[1].set_ylabel("ACK exchange rate" if self.variant == "receiver"
                             else "exchange rate")
            ax[1].set_title("exchange rates")
            ax[1].tick_params(axis="x", labelrotation=90)
        return drawn(ax)

    def _repr_html_(self) -> str:
        return f"<p><b>{self!r}</b></p>{self.to_pandas().to_html()}"


# ============================================================================ the verbs
def fair_rates(network: Network, tickets: Mapping | None = None, demand=None, *, active=None,
               flow_tickets: Mapping | None = None) -> TicketAllocation:
    """PPS fair rates of a network's flows, sender-based (Sections 2.1-2.6).

    Each link ``(u, v)`` is issued ``tickets[(u, v)]`` t/s by ``v``, the node it
    enters, in ``v``'s currency.  A flow starts with the tickets of its first
    link, shared equally among the active flows that start on it (or with
    ``flow_tickets``).  At every link the active tickets arriving, InTktRate,
    are relabelled into the next node's currency with
    ``XRate = OutTktRate / InTktRate``, OutTktRate being the t/s the link is
    issued.  A flow's tickets in a link's currency are those it brings to the
    link (Section 2.6: "convert OutTktRate in P's currency into InTktRate_c t/s
    in S's currency" for the bottleneck (S, T)).  The rates are then the PPS
    fair shares: a poor flow of link l gets
    ``InPktRate_p * InTktRate_c / InTktRate_p``, a rich flow what its demand
    or another bottleneck lets it use -- weighted max-min fairness with the
    per-link weights InTktRate_c, computed exactly by
    ``qosmodels.allocate(..., "maxmin", link_weights=...)``.

    Parameters
    ----------
    network : Network
        The links (capacities in bit/s) and flows (routes).  ``Flow.weight``
        is not used: tickets come from ``tickets``.  ``Flow.max_rate`` caps a
        flow's rate like a demand.
    tickets : mapping from link to float, tickets/s, optional
        Keys are links as ``(src, dst)`` (or ``"src->dst"``); values > 0.  Every
        link that is the first link of an active flow needs an entry (unless
        ``flow_tickets`` gives all its flows' tickets); a link without an entry
        hands its tickets on unchanged (XRate = 1).  Omitted: the tickets the
        network holds (its :class:`~qosmodels.mechanisms.TicketRed` links and
        :class:`~qosmodels.mechanisms.TicketTagger` elements, as
        :func:`with_tickets` installs them; :func:`network_tickets`).
    demand : sequence of float or mapping from flow to float, bit/s, optional
        The most each flow can use (a constant-bit-rate source's rate), > 0;
        ``None`` or ``inf`` for a greedy flow.  A sequence has one entry per
        flow of the network; a mapping is keyed by flow name or index.  Combined
        with ``Flow.max_rate`` by taking the smaller.
    active : sequence of flow names or indices, or sequence of bool, optional
        The active flows (default: all).  Inactive flows get rate 0 and their
        tickets do not count in any InTktRate (Section 2.1: only active tickets).
    flow_tickets : mapping from flow to float, tickets/s, optional
        Tickets issued to a flow's source by the flow's first node, in that
        node's currency, overriding the equal split of the first link's
        tickets.  Required for a flow that starts at a node where other flows
        arrive on links and leave on the same link (the node is then both the
        flow's host and a router, and only it can say how it values the flow).
        All flows starting on one link must be given or none.

    Returns
    -------
    TicketAllocation
        ``.rates`` (bit/s, in flow order), ``.exchange_rates``,
        ``.link_tickets`` (each flow's tickets in each link's currency),
        ``.bottlenecks``, ``.to_pandas()``, ``.plot()``.

    Raises
    ------
    ScenarioError
        For a ``tickets`` key that is not a link of the network, a ticket rate
        that is not finite and > 0, a missing ticket rate on a first link, a
        demand <= 0 or of the wrong length, an unknown or empty set of active
        flows, or bad ``flow_tickets``.
    SolverError
        If the per-link weights make the max-min allocation non-unique
        (status ``"not_unique"``) or the exchange rates do not settle on a
        network whose routes feed each other in a cycle.

    Notes
    -----
    On networks whose links feed each other in a cycle (a flow's upstream
    link is, through other flows, downstream of itself), the exchange rates
    are a fixed point, found by iterating the relabelling; on the paper's
    tree-shaped networks one sweep per hop gives them exactly.

    Section 2.6 states that with flow B of Figure 2 silent, A and C share the
    bottleneck 2:1; the exchange rule with *active* tickets (which Section
    3.3's 0.75 / 0.25 Mb/s follows) gives 900 : 300, i.e. 3:1.  This function
    follows the rule.

    References
    ----------
    Zhang, Wang, Peterson, Krishnamurthy, "Probabilistic Packet Scheduling",
    Princeton TR-632-01, 2001: Section 2.1 (tickets, active tickets, poor and
    rich flows), 2.2 (fairness), 2.5 (XRate = OutTktRate / InTktRate), 2.6
    (fairness for multi-hop flows); Tables 1-5 (expected rates).

    Examples
    --------
    The paper's Figure 6 (Table 1): A, B and C hold 600, 300 and 300 t/s in
    S5's currency and share the 1 Mb/s bottleneck 2:1:1.

    >>> from qosmodels.pps import fair_rates, FIG6_TICKETS
    >>> from qosmodels.topologies import pps_multi_hop
    >>> r = fair_rates(pps_multi_hop(), FIG6_TICKETS)
    >>> [round(float(x) / 1e6, 3) for x in r.rates]
    [0.5, 0.25, 0.25]
    >>> r.exchange_rate(("S3", "S5")), r.tickets("A", ("S5", "S6"))
    (0.6, 600.0)
    """
    owner = _OWNER
    net = _check_network(owner, network)
    if tickets is None:
        tickets, flow_tickets = _from_network(owner, net, "sender", flow_tickets)
    act = _check_active(owner, net, active)
    T = _check_issued(owner, "tickets", net, tickets)
    cap = _check_demand(owner, net, demand)
    start_given = _check_flow_tickets(owner, "flow_tickets", net, flow_tickets, act)
    paths = [net.flow_links(i).tolist() if act[i] else [] for i in range(net.n_flows)]
    start = _start_tickets(owner, net, paths, T, start_given, act,
                           issued_name="tickets", start_name="flow_tickets", where="first",
                           node_of=lambda key: key[0])
    IN, OUT, in_rate, out_rate, xr = _ledger(net.n_links, paths, T, start, owner,
                                             ("tickets", "flow_tickets"), net)
    return _allocate(net, "sender", T, act, cap, IN, OUT, in_rate, out_rate, xr)


def receiver_fair_rates(network: Network, ack_tickets: Mapping | None = None, demand=None, *,
                        active=None,
                        sink_tickets: Mapping | None = None) -> TicketAllocation:
    """PPS fair rates, receiver-based: tickets travel on ACKs (Section 2.7).

    Each entity issues receiver-currency (R-currency) t/s to its *output* links
    and TCP sinks: ``ack_tickets[(u, v)]`` is issued to link ``(u, v)`` by
    ``u``, the node it leaves.  A flow's ACKs start at its sink with the
    tickets of its last link, shared equally among the active flows that end
    on it (or with ``sink_tickets``), and are relabelled hop by hop towards the
    source with ``AckXRate = AckOutTktRate / AckInTktRate``.  A poor flow of
    link (S, T) gets ``InPktRate_p * AckInTktRate_c / AckInTktRate_p``,
    AckInTktRate_c being its ACK tickets arriving at the link in T's
    R-currency (Section 2.7.2).

    The paper reconstructs a sender currency from the ACKs
    (``OutTktRate = AckInTktRate``) and shows that the sender-based algorithm
    on it gives every flow ``InTktRate_c = AckOutTktRate_c`` at every link and
    hence the same fair rates; :meth:`TicketAllocation.sender_tickets` returns
    that currency, so ``fair_rates(net, *result.sender_tickets())`` checks it.

    Parameters
    ----------
    network : Network
        Links and flows; routes are the data direction (source to sink).
    ack_tickets : mapping from link to float, tickets/s, optional
        ``(src, dst)`` (or ``"src->dst"``) to the R-currency t/s ``src`` issues
        to the link, > 0.  Every link that is the last link of an active flow
        needs an entry (unless ``sink_tickets`` gives its flows' tickets); a
        link without one hands ACK tickets on unchanged.  Omitted: the tickets the
        network holds (:func:`network_tickets`).
    demand : sequence or mapping, bit/s, optional
        As for :func:`fair_rates`.
    active : optional
        As for :func:`fair_rates`.
    sink_tickets : mapping from flow to float, tickets/s, optional
        R-currency t/s issued to a flow's sink by its last node, overriding the
        equal split of the last link's ACK tickets (required where the sink's
        node also forwards other flows over that link).

    Returns
    -------
    TicketAllocation
        With ``variant="receiver"``: ``.exchange_rates`` are AckXRate,
        ``.link_tickets`` AckInTktRate_c, ``.out_tickets`` AckOutTktRate_c.

    Raises
    ------
    ScenarioError, SolverError
        As for :func:`fair_rates`.

    References
    ----------
    Zhang, Wang, Peterson, Krishnamurthy, "Probabilistic Packet Scheduling",
    Section 2.7 (2.7.1 ACK tagging and relabelling, OutTktRate = AckInTktRate,
    XRate = 1 / AckXRate; 2.7.2 fairness), Figure 3.
    """
    owner = "receiver_fair_rates"
    net = _check_network(owner, network)
    if ack_tickets is None:
        ack_tickets, sink_tickets = _from_network(owner, net, "receiver", sink_tickets)
    act = _check_active(owner, net, active)
    T = _check_issued(owner, "ack_tickets", net, ack_tickets)
    cap = _check_demand(owner, net, demand)
    start_given = _check_flow_tickets(owner, "sink_tickets", net, sink_tickets, act)
    # ACK tickets travel the route backwards: the last link first
    paths = [net.flow_links(i)[::-1].tolist() if act[i] else [] for i in range(net.n_flows)]
    start = _start_tickets(owner, net, paths, T, start_given, act,
                           issued_name="ack_tickets", start_name="sink_tickets", where="last",
                           node_of=lambda key: key[1])
    IN, OUT, in_rate, out_rate, xr = _ledger(net.n_links, paths, T, start, owner,
                                             ("ack_tickets", "sink_tickets"), net)
    return _allocate(net, "receiver", T, act, cap, IN, OUT, in_rate, out_rate, xr)


# ============================================================================ in packets
def with_tickets(network: Network, tickets: Mapping, variant: str = "sender", *,
                 flow_tickets: Mapping | None = None, red=None, window: float = 60.0,
                 bits: int | None = 8, unit="auto", k: float = TRED_K, min_interval: float = 1.0,
                 rule: str = "tcp", police: bool = False, record: bool = False,
                 exponent: float = 3.0, reissue: Mapping | None = None) -> Network:
    """The network with PPS installed, for the packet simulator: tagging, relabelling, TRED.

    Every link's queue becomes a :class:`~qosmodels.mechanisms.TicketRed`
    issued ``tickets[link]`` (keeping the thresholds of a :class:`Red` queue,
    or taking ``red``'s), and every flow gets an :class:`~qosmodels.Aggregate`
    of its own (``"pps:<flow>"``) with a :class:`~qosmodels.mechanisms.TicketTagger`
    holding the tickets it starts with -- the ones :func:`fair_rates` (or
    :func:`receiver_fair_rates`) gives it from the same ``tickets``.  So
    ``fair_rates(network, tickets)`` is the theory of
    ``simulate(with_tickets(network, tickets), ...)``, and
    ``fair_rates(with_tickets(network, tickets))`` reads the tickets back.

    Parameters
    ----------
    network : Network
        Links with :class:`DropTail` or :class:`Red` queues; flows with any
        sources (window sources are TCP, open-loop ones UDP-like; receiver
        tickets need window sources).  No flow may already stand behind an
        edge element.
    tickets : mapping from link to float, tickets/s
        As for :func:`fair_rates` (``variant="sender"``: t/s issued to each
        link by the node it enters) or :func:`receiver_fair_rates`
        (``"receiver"``: receiver-currency t/s issued by the node it leaves).
    variant : {"sender", "receiver"}
        Data tickets (Section 2.5) or ACK tickets (Section 2.7).
    flow_tickets : mapping from flow to float, optional
        As ``flow_tickets`` of :func:`fair_rates` (``sink_tickets`` of
        :func:`receiver_fair_rates`).
    red : Red, optional
        RED parameters for every link (default: each link's own if it has a
        :class:`Red` queue, else ``Red()``'s).
    window : float, s
        TSW window of the taggers and links (default 60 s, the paper's).
    bits : int or None
        Tag width (default 8, the paper's); ``None``: unquantised tags.
    unit : "auto" or float, tickets
        Tickets per tag level.  ``"auto"``: each writer of tags (a flow's
        tagger, a link relabelling) gets the unit that puts the largest tag it
        is expected to write (the fair allocation's tickets over the flow's
        fair packet rate) at half its range, ``2^(bits-1)`` levels: a flow can
        fall to half its fair rate before its tags saturate.  A number: one
        unit for all; an expected tag beyond ``2^bits - 1`` levels is refused.
    k, min_interval, rule, police, record
        As for :class:`~qosmodels.mechanisms.TicketRed` (``police`` and
        ``record`` for the taggers too).
    exponent : float
        The power of TRED's multiplier ``(ExpectTkt / InTkt)^exponent``, > 0:
        3, the paper's text (Section 2.4.2), by default.  With TCP the rates
        settle in proportion to ``tickets^(n / (n + 2))`` (:func:`tred_tcp_shares`);
        the paper's printed rates imply a larger power (the ``calibrated-pps``
        experiment), so other values are there to explore that inconsistency.
    reissue : mapping from link to (float, float), optional
        ``{(src, dst): (time, tickets)}`` (or ``'src->dst'`` keys, as
        ``tickets``): the node issues the link ``tickets`` t/s
        from ``time`` (s) on (Section 3.4; :class:`~qosmodels.mechanisms.TicketRed`'s
        ``reissue``).  The taggers and tag units are set from ``tickets``
        (the allocation before the change).

    Returns
    -------
    Network

    Raises
    ------
    ScenarioError
        For what :func:`fair_rates` refuses (a flow whose first link is issued
        no tickets, tickets <= 0, NaN or infinite, ...), a link queue other
        than DropTail or Red, a flow already behind an edge element, a unit
        whose expected tags overflow ``bits``, or receiver tickets for a flow
        without ACKs.

    References
    ----------
    Zhang, Wang, Peterson, Krishnamurthy, "Probabilistic Packet Scheduling",
    Sections 2.3-2.8 and 3 (WinLength 60 s, 8-bit tags).

    Examples
    --------
    >>> from qosmodels.pps import with_tickets, fair_rates, FIG6_TICKETS
    >>> from qosmodels.topologies import pps_multi_hop
    >>> net = with_tickets(pps_multi_hop(), FIG6_TICKETS)
    >>> net.links[0].queue.kind, net.aggregates[0].edge.kind
    ('ticket-red', 'ticket-tagger')
    >>> [round(float(x) / 1e6, 3) for x in fair_rates(net).rates]
    [0.5, 0.25, 0.25]
    """
    import dataclasses

    from .mechanisms import DropTail, Red
    from .mechanisms.tickets import VARIANTS, TicketRed, TicketTagger
    from .network import Aggregate

    owner = "with_tickets"
    net = _check_network(owner, network)
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise ScenarioError(f"{owner}.variant must be one of {list(VARIANTS)}, got {variant!r}")
    if red is not None and not isinstance(red, Red):
        raise ScenarioTypeError(f"{owner}.red must be a qosmodels.mechanisms.Red (its thresholds "
                                f"for every link) or None, got {red!r}")
    for link in net.links:
        if not isinstance(link.queue, (DropTail, Red)) or isinstance(link.queue, TicketRed):
            raise ScenarioError(
                f"{owner}: link {link.name!r} has a {type(link.queue).__name__} queue; PPS runs "
                f"TRED at every link and replaces DropTail or Red queues only: give the link one "
                f"of those")
    for agg in net.aggregates:
        if agg.edge is not None:
            raise ScenarioError(
                f"{owner}: aggregate {agg.name!r} already has an edge element "
                f"({type(agg.edge).__name__}); PPS puts a ticket tagger at every flow's ingress, "
                f"and a flow stands behind one edge element at most")
    # the theory, from the same tickets: it validates them, and gives each flow's start
    # tickets and the tags to expect
    demand = [getattr(f.source, "rate", None) if not f.source.windowed else None
              for f in net.flows]
    demand = [np.inf if d is None else float(d) for d in demand]
    if variant == "sender":
        alloc = fair_rates(net, tickets, demand, flow_tickets=flow_tickets)
    else:
        alloc = receiver_fair_rates(net, tickets, demand, sink_tickets=flow_tickets)
        for f, name in zip(net.flows, net.flow_names):
            if not f.source.windowed:
                raise ScenarioError(
                    f"{owner}: flow {name!r} has a {type(f.source).__name__} source, which sends "
                    f"no ACKs to carry receiver tickets; use variant='sender'")
    pkt_rate = alloc.rates / (8.0 * np.array([f.packet_size for f in net.flows], dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        tags = np.maximum(alloc.link_tickets, alloc.out_tickets) / pkt_rate[None, :]
    tags = np.where(np.isfinite(tags), tags, 0.0)  # (L, F): the largest expected tag per hop
    firsts = [int(net.flow_links(i)[0 if variant == "sender" else -1]) for i in range(net.n_flows)]
    levels = 0 if bits is None else (1 << v.integer(owner, "bits", bits, ge=1)) - 1

    def unit_for(expected, who):
        if bits is None:
            return 1.0
        if isinstance(unit, str) and unit == "auto":
            return float(expected) / (1 << (bits - 1)) if expected > 0 else 1.0
        u = v.real(owner, "unit", unit, gt=0, unit="tickets")
        if expected / u > levels:
            raise ScenarioError(
                f"{owner}: {who} is expected to write tags of {expected:.4g} tickets, "
                f"{expected / u:.0f} units of {u:g}, more than {bits} bits hold ({levels}); "
                f"raise unit to at least {expected / levels:.4g}, use more bits, or unit='auto'")
        return u

    reissue = _check_reissue(owner, net, reissue)
    links = []
    for l, link in enumerate(net.links):
        base = red if red is not None else (link.queue if isinstance(link.queue, Red) else Red())
        fields = {f.name: getattr(base, f.name) for f in dataclasses.fields(Red)}
        q = TicketRed(**fields, tickets=alloc.issued.get(link.name), k=k,
                      window=window, min_interval=min_interval, rule=rule, police=police,
                      variant=variant, bits=bits, exponent=exponent,
                      unit=unit_for(tags[l].max(), f"link {link.name!r}"), record=record,
                      reissue=reissue.get(l))
        links.append(dataclasses.replace(link, queue=q))
    aggs = list(net.aggregates)
    taken = {a.name for a in aggs}
    for i, name in enumerate(net.flow_names):
        agg_name = f"pps:{name}"
        while agg_name in taken:
            agg_name += "'"
        taken.add(agg_name)
        start = float(alloc.link_tickets[firsts[i], i])
        tagger = TicketTagger(tickets=start, window=window, bits=bits,
                              unit=unit_for(tags[:, i].max(), f"flow {name!r}'s tagger"),
                              police=police, variant=variant, record=record)
        aggs.append(Aggregate(agg_name, flows=[i], edge=tagger))
    return net.replace(links=links, aggregates=aggs)


def network_tickets(network: Network) -> tuple[str, dict, dict]:
    """The tickets a network with PPS installed holds: ``(variant, tickets, flow_tickets)``.

    ``tickets`` maps each link whose :class:`~qosmodels.mechanisms.TicketRed`
    is issued tickets to them; ``flow_tickets`` each flow whose
    :class:`~qosmodels.mechanisms.TicketTagger` gives its tickets explicitly.
    :func:`fair_rates` and :func:`receiver_fair_rates` read them when called
    without ``tickets``.

    Raises
    ------
    ScenarioError
        If no link holds tickets, or the links and taggers mix the two variants.
    """
    from .mechanisms.tickets import TicketRed, TicketTagger

    net = _check_network("network_tickets", network)
    variants = set()
    tickets = {}
    for link in net.links:
        if isinstance(link.queue, TicketRed):
            variants.add(link.queue.variant)
            if link.queue.tickets is not None:
                tickets[link.key] = link.queue.tickets
    flow_tickets = {}
    for agg in net.aggregates:
        if isinstance(agg.edge, TicketTagger):
            variants.add(agg.edge.variant)
            members = net.aggregate_members(agg.name)
            given = agg.edge.member_tickets(len(members))
            if given is not None:
                flow_tickets.update({net.flow_names[f]: t for f, t in zip(members, given)})
    if not tickets:
        raise ScenarioError(
            "network_tickets: the network holds no PPS tickets (no TicketRed link is issued "
            "any); install PPS with qosmodels.pps.with_tickets, or pass the tickets explicitly")
    if len(variants) > 1:
        raise ScenarioError(f"network_tickets: the network mixes PPS variants "
                            f"{sorted(variants)}; use one")
    return variants.pop(), tickets, flow_tickets


# ============================================================================ the machinery
def _ledger(n_links: int, paths: list[list[int]], T: np.ndarray, start: np.ndarray,
            owner: str = _OWNER, names: tuple = ("tickets", "flow_tickets"), net=None):
    """Relabel tickets hop by hop: in, out (L, F), InTktRate, OutTktRate, XRate (L,).

    ``paths[i]`` lists the links flow i's tickets cross, in the order they
    cross them (empty for an inactive flow); ``T[l]`` is what link l is issued
    (NaN: pass through); ``start[i]`` the tickets flow i brings to its first link.
    Jacobi sweeps of the relabelling; on an acyclic link graph they are exact
    after (longest chain + 1) sweeps, on a cyclic one they converge to the
    fixed point.
    """
    n_flows = len(paths)
    hop_link = np.array([l for p in paths for l in p], dtype=np.int64)
    hop_flow = np.array([i for i, p in enumerate(paths) for _ in p], dtype=np.int64)
    first = np.array([k == 0 for p in paths for k in range(len(p))], dtype=bool)
    prev = np.arange(len(hop_link)) - 1  # the flow's previous hop (for non-first hops)
    passthrough = np.isnan(T)
    vals = np.where(first, start[hop_flow], 1.0)  # in-tickets per hop
    for sweep in range(_MAX_SWEEPS):
        in_rate = np.bincount(hop_link, weights=vals, minlength=n_links)
        with np.errstate(all="ignore"):
            xr = np.where(passthrough, 1.0, T / in_rate)
            out = vals * xr[hop_link]
        new = np.where(first, vals, out[np.maximum(prev, 0)])
        if not np.all(np.isfinite(new) & (new > 0)):
            _overflow(owner, names, net, T, hop_link, vals, xr, new)
        if np.array_equal(new, vals) or (
                sweep > n_links and np.max(np.abs(new - vals) / new) <= _RTOL):
            break
        vals = new
    else:
        raise SolverError(
            f"the PPS exchange rates did not settle after {_MAX_SWEEPS} sweeps: the routes feed "
            f"each other in a cycle whose relabelling does not converge", status="max_iterations")
    vals = new
    in_rate = np.bincount(hop_link, weights=vals, minlength=n_links)
    with np.errstate(divide="ignore", invalid="ignore"):
        xr = np.where(passthrough, 1.0, T / in_rate)
    xr = np.where(in_rate > 0, xr, np.nan)
    out = vals * xr[hop_link]
    if not np.all(np.isfinite(out) & (out > 0)):
        _overflow(owner, names, net, T, hop_link, vals, xr, out)
    IN = np.zeros((n_links, n_flows))
    OUT = np.zeros((n_links, n_flows))
    IN[hop_link, hop_flow] = vals
    OUT[hop_link, hop_flow] = out
    out_rate = np.bincount(hop_link, weights=out, minlength=n_links)
    return IN, OUT, in_rate, out_rate, xr


def _overflow(owner, names, net, T, hop_link, vals, xr, new):
    """Raise: relabelling a flow's tickets left the floats (an exchange rate or a flow's
    tickets over- or underflowed), naming the link and the arguments that set it."""
    bad = np.flatnonzero(~(np.isfinite(new) & (new > 0)))[0]
    l = int(hop_link[bad - 1] if bad > 0 and hop_link[bad - 1] != hop_link[bad]
            else hop_link[bad])
    lname = net.link_names[l] if net is not None else str(l)
    received = float(np.bincount(hop_link, weights=vals, minlength=len(T))[l])
    issued = "nothing (tickets pass through)" if np.isnan(T[l]) else f"{float(T[l])!r} t/s"
    raise ScenarioError(
        f"{owner}: relabelling the tickets at link {lname} leaves the floats: it is issued "
        f"{issued} and receives {received!r} t/s, an exchange rate of {float(xr[l])!r}, and a "
        f"flow's tickets become {float(new[bad])!r}; {names[0]} and {names[1]} must keep every "
        f"ticket rate and their ratios within about 1e-300 .. 1e300 (scale them: only ratios "
        f"matter)")


def _allocate(net, variant, T, act, cap, IN, OUT, in_rate, out_rate, xr) -> TicketAllocation:
    import dataclasses

    from .allocation import allocate

    idx = np.flatnonzero(act)
    flows = [dataclasses.replace(net.flows[i], max_rate=None if math.isinf(cap[i]) else cap[i],
                                 name=net.flow_names[i]) for i in idx]
    sub = net.replace(flows=flows)
    W = IN[:, idx]
    top = float(W.max())
    if not 2.0**-400 <= top <= 2.0**400:
        # only the ratios of the weights matter: bring them near 1 by a power of two, exactly
        W = np.ldexp(W, -math.frexp(top)[1])
        if np.any((IN[:, idx] > 0) & (W == 0)):
            raise ScenarioError(
                f"{_OWNER if variant == 'sender' else 'receiver_fair_rates'}: the flows' tickets "
                f"span more than the floats hold (largest {top!r} t/s, smallest "
                f"{float(IN[:, idx][IN[:, idx] > 0].min())!r}); keep their ratios within 1e300")
    alloc = allocate(sub, "maxmin", link_weights=W)
    rates = np.zeros(net.n_flows)
    rates[idx] = alloc.rates
    if not np.all(np.isfinite(rates)):
        raise ScenarioError(
            f"{_OWNER if variant == 'sender' else 'receiver_fair_rates'}: the fair rates are not "
            f"finite ({rates.tolist()!r}); the tickets' ratios are too extreme for the max-min "
            f"solver: keep them within about 1e300")
    poor = np.zeros((net.n_links, net.n_flows), dtype=bool)
    bottlenecks: list[tuple[str, ...]] = [()] * net.n_flows
    for j, i in enumerate(idx):
        bottlenecks[i] = alloc.bottlenecks[j]
        for name in alloc.bottlenecks[j]:
            poor[net.link_id(name), i] = True
    issued = {net.link_names[l]: float(T[l]) for l in np.flatnonzero(~np.isnan(T))}
    return TicketAllocation(
        network=net, variant=variant, issued=issued, rates=_ro(rates), exchange_rates=_ro(xr),
        in_ticket_rate=_ro(in_rate), out_ticket_rate=_ro(out_rate), link_tickets=_ro(IN),
        out_tickets=_ro(OUT), poor=_ro(poor), bottlenecks=tuple(bottlenecks), active=_ro(act),
        demand=_ro(cap), allocation=alloc,
    )


def _from_network(owner, net, variant, given):
    """Tickets and per-flow tickets a network with PPS installed holds (``network_tickets``)."""
    held, tickets, flow_tickets = network_tickets(net)
    if held != variant:
        raise ScenarioError(
            f"{owner}: the network holds {held}-based PPS tickets; use "
            f"{'fair_rates' if held == 'sender' else 'receiver_fair_rates'}, or pass the tickets")
    return tickets, (flow_tickets or None) if given is None else given


def _start_tickets(owner, net, paths, T, given, act, *, issued_name, start_name, where,
                   node_of) -> np.ndarray:
    """Tickets each active flow brings to its first hop (first link, or last for ACKs)."""
    start = np.full(net.n_flows, np.nan)
    by_link: dict[int, list[int]] = {}
    for i, p in enumerate(paths):
        if p:
            by_link.setdefault(p[0], []).append(i)
    crossing: dict[int, set[int]] = {}
    for i, p in enumerate(paths):
        for l in p[1:]:
            crossing.setdefault(l, set()).add(i)
    names = net.flow_names
    for l, starters in by_link.items():
        key, lname = net.links[l].key, net.link_names[l]
        have = [i for i in starters if not math.isnan(given[i])]
        if have and len(have) != len(starters):
            missing = [names[i] for i in starters if math.isnan(given[i])]
            raise ScenarioError(
                f"{owner}.{start_name} gives some but not all of the active flows whose {where} "
                f"link is {lname} (missing {missing}); give all of them or none"
            )
        if have:
            start[starters] = given[starters]
            continue
        others = crossing.get(l, set())
        if others:
            raise ScenarioError(
                f"{owner}: flow {names[starters[0]]!r} has {lname} as its {where} link, which also "
                f"carries flow {names[min(others)]!r} through node {node_of(key)!r}; the flow's "
                f"tickets in {node_of(key)!r}'s currency are not implied by {issued_name} -- give "
                f"them with {start_name}={{{names[starters[0]]!r}: ...}} (tickets/s, > 0), or give "
                f"the flow its own access link"
            )
        if math.isnan(T[l]):
            raise ScenarioError(
                f"{owner}.{issued_name} has no ticket rate for link {key!r}, the {where} link of "
                f"flow(s) {[names[i] for i in starters]}; add {issued_name}[{key!r}] = t/s (> 0), "
                f"or give the flows' tickets with {start_name}"
            )
        start[starters] = T[l] / len(starters)
    return np.where(act, start, 0.0)


# ---------------------------------------------------------------------------- input checks
def _check_network(owner: str, network) -> Network:
    if not isinstance(network, Network):
        raise ScenarioTypeError(
            f"{owner}: network must be a qosmodels.Network, got {type(network).__name__}")
    if network.n_flows == 0:
        raise ScenarioError(f"{owner}: network.flows is empty; add a Flow")
    return network


def _check_issued(owner: str, name: str, net: Network, tickets) -> np.ndarray:
    if not isinstance(tickets, Mapping):
        raise ScenarioTypeError(
            f"{owner}.{name} must be a mapping from link (src, dst) to tickets/s, got "
            f"{type(tickets).__name__}"
        )
    T = np.full(net.n_links, np.nan)
    for key, value in tickets.items():
        l = _link_key(owner, name, net, key)
        lname = net.link_names[l]
        if not math.isnan(T[l]):
            raise ScenarioError(f"{owner}.{name} gives link {lname} twice; give it once")
        T[l] = v.real(owner, f"{name}[{net.links[l].key!r}]", value, gt=0, unit="tickets/s")
    return T


def _link_key(owner: str, name: str, net: Network, key) -> int:
    """The link a key of mapping ``name`` names, ``(src, dst)`` or ``'src->dst'``."""
    if isinstance(key, numbers.Integral) and not isinstance(key, bool):
        raise ScenarioError(
            f"{owner}.{name} keys must be links as (src, dst) or 'src->dst', got the integer "
            f"{key!r}"
        )
    l = None
    if isinstance(key, str) or (isinstance(key, tuple) and len(key) == 2):
        try:
            l = net.link_id(key)
        except ScenarioError:
            l = None
    if l is None:
        raise ScenarioError(
            f"{owner}.{name} names link {key!r}, which is not in the network; links are "
            f"{list(net.link_names)}"
        )
    return l


def _check_reissue(owner: str, net: Network, reissue) -> dict:
    """``with_tickets``' ``reissue``: link index -> (time, tickets), validated by
    :class:`~qosmodels.mechanisms.TicketRed` when the queue is built."""
    if reissue is None:
        return {}
    if not isinstance(reissue, Mapping):
        raise ScenarioTypeError(
            f"{owner}.reissue must be a mapping from link (src, dst) to (time s, tickets t/s), "
            f"got {type(reissue).__name__}")
    return {_link_key(owner, "reissue", net, key): value for key, value in reissue.items()}


def _check_demand(owner: str, net: Network, demand) -> np.ndarray:
    d = np.full(net.n_flows, np.inf)
    if demand is None:
        pass
    elif isinstance(demand, Mapping):
        for key, value in demand.items():
            try:
                i = net._flow_id(key)
            except ScenarioError:
                raise ScenarioError(
                    f"{owner}.demand names flow {key!r}, which is not in the network; flows are "
                    f"{list(net.flow_names)} (or indices 0..{net.n_flows - 1})"
                ) from None
            d[i] = _demand_value(owner, f"demand[{key!r}]", value)
    elif isinstance(demand, (str, bytes)) or not isinstance(demand, (Sequence, np.ndarray)):
        raise ScenarioTypeError(
            f"{owner}.demand must be None, a sequence of bit/s (one per flow) or a mapping from "
            f"flow to bit/s, got {type(demand).__name__}"
        )
    else:
        if len(demand) != net.n_flows:
            raise ScenarioError(
                f"{owner}.demand must have {net.n_flows} entries (one per flow), got {len(demand)}"
            )
        for i, value in enumerate(demand):
            d[i] = _demand_value(owner, f"demand[{i}]", value)
    return np.minimum(d, net.max_rates)


def _demand_value(owner: str, name: str, value) -> float:
    if value is None:
        return math.inf
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ScenarioTypeError(
            f"{owner}.{name} must be a rate in bit/s (> 0), None or inf, got {value!r}")
    x = float(value)
    if math.isnan(x) or not x > 0:
        raise ScenarioError(
            f"{owner}.{name} must be > 0 (in bit/s; None or inf for a greedy flow), got {value!r}; "
            f"leave a silent flow out with active="
        )
    return x


def _check_active(owner: str, net: Network, active) -> np.ndarray:
    if active is None:
        return np.ones(net.n_flows, dtype=bool)
    if isinstance(active, (str, bytes)) or not isinstance(active, (Sequence, np.ndarray)):
        raise ScenarioTypeError(
            f"{owner}.active must be a sequence of flow names or indices, or of bool (one per "
            f"flow), got {active!r}"
        )
    items = list(active)
    if items and all(isinstance(a, (bool, np.bool_)) for a in items):
        if len(items) != net.n_flows:
            raise ScenarioError(
                f"{owner}.active as booleans must have {net.n_flows} entries (one per flow), got "
                f"{len(items)}"
            )
        act = np.array(items, dtype=bool)
    else:
        act = np.zeros(net.n_flows, dtype=bool)
        for a in items:
            try:
                i = net._flow_id(a)
            except ScenarioError:
                raise ScenarioError(
                    f"{owner}.active names flow {a!r}, which is not in the network; flows are "
                    f"{list(net.flow_names)} (or indices 0..{net.n_flows - 1})"
                ) from None
            act[i] = True
    if not act.any():
        raise ScenarioError(f"{owner}.active must name at least one flow, got {active!r}")
    return act


def _check_flow_tickets(owner: str, name: str, net: Network, given, act) -> np.ndarray:
    out = np.full(net.n_flows, np.nan)
    if given is None:
        return out
    if not isinstance(given, Mapping):
        raise ScenarioTypeError(
            f"{owner}.{name} must be a mapping from flow (name or index) to tickets/s, got "
            f"{type(given).__name__}"
        )
    for key, value in given.items():
        try:
            i = net._flow_id(key)
        except ScenarioError:
            raise ScenarioError(
                f"{owner}.{name} names flow {key!r}, which is not in the network; flows are "
                f"{list(net.flow_names)}"
            ) from None
        if not math.isnan(out[i]):
            raise ScenarioError(f"{owner}.{name} gives flow {net.flow_names[i]!r} twice")
        out[i] = v.real(owner, f"{name}[{key!r}]", value, gt=0, unit="tickets/s")
    return np.where(act, out, np.nan)


def _ro(a) -> np.ndarray:
    a = np.array(a)
    a.setflags(write=False)
    return a


# ============================================================================ formulas
def _arr(owner: str, name: str, x, *, gt=None, ge=None, le=None, unit: str = "") -> np.ndarray:
    """A float array of ``x`` after checking every element is finite and in range."""
    a = real_array(owner, name, x, what="a number or an array of numbers")
    u = f" (in {unit})" if unit else ""
    bad = ~np.isfinite(a)
    rng = []
    if gt is not None:
        bad |= ~(a > gt)
        rng.append(f"> {gt}")
    if ge is not None:
        bad |= ~(a >= ge)
        rng.append(f">= {ge}")
    if le is not None:
        bad |= ~(a <= le)
        rng.append(f"<= {le}")
    if bad.any():
        first = float(a[bad].ravel()[0]) if a.ndim else float(a)
        raise ScenarioError(f"{owner}: {name} must be finite and {' and '.join(rng)}{u}, "
                            f"got {first!r}")
    return a


def _out(a):
    return float(a) if np.ndim(a) == 0 else a


def _finite(owner, a, why):
    arrays = a if isinstance(a, tuple) else (a,)
    if not all(np.all(np.isfinite(x)) for x in arrays):
        raise ScenarioError(f"{owner}: the result is not a finite float for these inputs: {why}")
    return a




def packet_tag(out_ticket_rate, avg_rate):
    """Tickets a source tags on each packet: ``OutTktRate / AvgRate`` (Section 2.3).

    Parameters
    ----------
    out_ticket_rate : float or array_like, tickets/s
        Tickets issued to the source, >= 0.
    avg_rate : float or array_like, packets/s
        The source's throughput estimate (TSW), > 0.

    Returns
    -------
    float or ndarray, tickets per packet

    Raises
    ------
    ScenarioTypeError
        If an argument is not a number (a string, a bool, None, complex).
    ScenarioError
        If an argument is not finite or out of range, or if the tag
        overflows (``out_ticket_rate / avg_rate`` beyond 1.8e308).

    References
    ----------
    Zhang et al., "Probabilistic Packet Scheduling", Section 2.3.
    """
    t = _arr("packet_tag", "out_ticket_rate", out_ticket_rate, ge=0, unit="tickets/s")
    r = _arr("packet_tag", "avg_rate", avg_rate, gt=0, unit="packets/s")
    v.broadcast("packet_tag", out_ticket_rate=t, avg_rate=r)
    with np.errstate(all="ignore"):
        tag = t / r
    return _out(_finite("packet_tag", tag, "out_ticket_rate / avg_rate overflows; give the "
                                           "rates in units closer to each other"))


def exchange_rate(out_ticket_rate, in_ticket_rate):
    """A link's exchange rate ``XRate = OutTktRate / InTktRate`` (Section 2.5).

    Parameters
    ----------
    out_ticket_rate : float or array_like, tickets/s
        Tickets issued to the link by the entity it enters, > 0.
    in_ticket_rate : float or array_like, tickets/s
        Active tickets the link receives, > 0.

    Returns
    -------
    float or ndarray
        Multiply an arriving packet's tickets by it: ``OutTkt = InTkt * XRate``.

    Raises
    ------
    ScenarioTypeError
        If an argument is not a number (``exchange_rate(True, True)`` included).
    ScenarioError
        If an argument is not finite and > 0, or the ratio over- or
        underflows (the two ticket rates more than ~1e308 apart).

    References
    ----------
    Zhang et al., "Probabilistic Packet Scheduling", Section 2.5.
    """
    o = _arr("exchange_rate", "out_ticket_rate", out_ticket_rate, gt=0, unit="tickets/s")
    i = _arr("exchange_rate", "in_ticket_rate", in_ticket_rate, gt=0, unit="tickets/s")
    v.broadcast("exchange_rate", out_ticket_rate=o, in_ticket_rate=i)
    with np.errstate(all="ignore"):
        x = o / i
    if not np.all(np.isfinite(x) & (x > 0)):
        raise ScenarioError("exchange_rate: OutTktRate / InTktRate over- or underflows (the "
                            "result would not be a finite float > 0); the two ticket rates "
                            "must be within about 1e300 of each other")
    return _out(x)


def poor_flow_rate(poor_rate, tickets, poor_tickets):
    """A poor flow's fair share ``InPktRate_p * InTktRate_c / InTktRate_p`` (Sections 2.2, 2.6).

    Parameters
    ----------
    poor_rate : float or array_like, bit/s (or packets/s)
        InPktRate_p: what the link's poor flows get together, >= 0.
    tickets : float or array_like, tickets/s
        InTktRate_c: the flow's tickets in the link's currency, >= 0.
    poor_tickets : float or array_like, tickets/s
        InTktRate_p: all poor flows' tickets in that currency, > 0 and >= ``tickets``.

    Returns
    -------
    float or ndarray, in the unit of ``poor_rate``

    Raises
    ------
    ScenarioTypeError
        If an argument is not a number.
    ScenarioError
        If an argument is not finite or out of range, or ``tickets >
        poor_tickets``.

    References
    ----------
    Zhang et al., "Probabilistic Packet Scheduling", Section 2.2 (condition 2)
    and Section 2.6.
    """
    owner = "poor_flow_rate"
    r = _arr(owner, "poor_rate", poor_rate, ge=0)
    t = _arr(owner, "tickets", tickets, ge=0, unit="tickets/s")
    tp = _arr(owner, "poor_tickets", poor_tickets, gt=0, unit="tickets/s")
    v.broadcast(owner, poor_rate=r, tickets=t, poor_tickets=tp)
    if np.any(t > tp * (1 + 1e-12)):
        raise ScenarioError(f"{owner}: tickets must be <= poor_tickets (one poor flow's tickets "
                            f"are part of all poor flows' tickets), got {t!r} > {tp!r}")
    with np.errstate(all="ignore"):
        x = r * t / tp
        # r * t can overflow where the share itself cannot (t <= tp): the same share
        x = np.where(np.isfinite(x), x, r * (t / tp))
    return _out(x)


def tred_multiplier(expect_tkt, in_tkt):
    """TRED's factor on the RED drop probability, ``(ExpectTkt / InTkt)^3`` (Section 2.4.2).

    Parameters
    ----------
    expect_tkt : float or array_like, tickets
        ExpectTkt: the mean tag of arriving packets whose tag lies in
        ``[MinTkt, K MinTkt]`` (K = :data:`TRED_K`), > 0.
    in_tkt : float or array_like, tickets
        InTkt: the arriving packet's tag, > 0.

    Returns
    -------
    float or ndarray
        > 1 for packets carrying fewer tickets than expected, < 1 for more.

    Raises
    ------
    ScenarioTypeError
        If an argument is not a number.
    ScenarioError
        If an argument is not finite and > 0, or the cube overflows
        (``expect_tkt / in_tkt`` above about 5e102).

    References
    ----------
    Zhang et al., "Probabilistic Packet Scheduling", Section 2.4.2 (TRED
    pseudo-code: ``p = p * (ExpectTkt / InTkt)^3``).
    """
    e = _arr("tred_multiplier", "expect_tkt", expect_tkt, gt=0, unit="tickets")
    i = _arr("tred_multiplier", "in_tkt", in_tkt, gt=0, unit="tickets")
    v.broadcast("tred_multiplier", expect_tkt=e, in_tkt=i)
    with np.errstate(all="ignore"):
        m = (e / i) ** 3
    return _out(_finite("tred_multiplier", m, "(expect_tkt / in_tkt)^3 overflows; it is finite "
                                              "while expect_tkt / in_tkt is below about 5e102"))


def tred_drop_probability(red_probability, expect_tkt, in_tkt):
    """TRED's drop probability in congestion avoidance: ``min(1, p (ExpectTkt / InTkt)^3)``.

    Parameters
    ----------
    red_probability : float or array_like
        RED's drop probability p for the current average queue, in [0, 1].
    expect_tkt, in_tkt : float or array_like, tickets
        As for :func:`tred_multiplier`, > 0.

    Returns
    -------
    float or ndarray, in [0, 1]
        1 where the multiplier overflows (a packet with next to no tickets).

    Raises
    ------
    ScenarioTypeError
        If an argument is not a number.
    ScenarioError
        If an argument is not finite or out of range.

    References
    ----------
    Zhang et al., "Probabilistic Packet Scheduling", Section 2.4.2.
    """
    owner = "tred_drop_probability"
    p = _arr(owner, "red_probability", red_probability, ge=0, le=1)
    e = _arr(owner, "expect_tkt", expect_tkt, gt=0, unit="tickets")
    i = _arr(owner, "in_tkt", in_tkt, gt=0, unit="tickets")
    v.broadcast(owner, red_probability=p, expect_tkt=e, in_tkt=i)
    with np.errstate(all="ignore"):
        # the multiplier may overflow: min(1, p * inf) is 1 for p > 0, and 0 for p = 0
        x = np.where(p > 0, np.minimum(1.0, p * ((e / i) ** 3)), 0.0 * p)
    return _out(x)


def tred_tcp_shares(tickets, exponent: float = 3.0) -> np.ndarray:
    """Steady-state shares of one bottleneck's poor TCP flows under TRED: ``tickets^(n/(n+2))``.

    Flow ``i`` brings ``T_i`` t/s (in the bottleneck's currency) at a rate of
    ``x_i`` packets/s, so its packets carry ``t_i = T_i / x_i`` tickets; TRED
    drops them with ``p_i = p (E / t_i)^n`` (``n`` the exponent, 3 in the
    paper; ``p`` and ``E`` common to all flows), and a TCP flow's rate follows
    the square-root law ``x_i = c / (R sqrt(p_i))`` (equal RTTs ``R``).  Then
    ``x_i`` is proportional to ``t_i^(n/2) = (T_i / x_i)^(n/2)``, so
    ``x_i^(1 + n/2)`` is proportional to ``T_i^(n/2)``: the rates are in
    proportion to ``T_i^(n / (n + 2))`` -- ``T^(3/5)`` for the cubic, not the
    tickets themselves.  The paper's argument that poor flows' tags converge
    to one ``AvgTkt`` (Section 2.4.2) would give shares in proportion to the
    tickets; the packet simulator follows this steady state instead (the
    ``pps-table1`` experiment).

    Parameters
    ----------
    tickets : array_like, tickets/s
        Each poor flow's tickets in the bottleneck's currency, > 0.
    exponent : float
        The power of TRED's multiplier, > 0.

    Returns
    -------
    ndarray
        The shares of the poor flows' total rate, summing to 1.

    References
    ----------
    Zhang et al., "Probabilistic Packet Scheduling", Section 2.4.2 (TRED);
    M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic behavior of the
    TCP congestion avoidance algorithm", CCR 27(3), 1997 (the square-root law).

    Examples
    --------
    >>> from qosmodels.pps import tred_tcp_shares
    >>> [round(float(x), 3) for x in tred_tcp_shares([600, 300, 300])]
    [0.431, 0.284, 0.284]
    """
    t = _arr("tred_tcp_shares", "tickets", tickets, gt=0, unit="tickets/s")
    n = v.real("tred_tcp_shares", "exponent", exponent, gt=0)
    with np.errstate(all="ignore"):
        x = np.atleast_1d(t) ** (n / (n + 2.0))
        total = x.sum()
        if not (np.isfinite(total) and total > 0):  # scale by the largest before summing
            x = (np.atleast_1d(t) / t.max()) ** (n / (n + 2.0))
            total = x.sum()
    return x / total


def udp_drop_probability(in_tkt, avg_tkt):
    """PPS's drop probability for a non-responsive (UDP) packet: ``max(0, 1 - InTkt / AvgTkt)``.

    Parameters
    ----------
    in_tkt : float or array_like, tickets
        The packet's tag, >= 0.
    avg_tkt : float or array_like, tickets
        ``AvgTkt = InTktRate / Capacity``, the tag a packet must carry for the
        link's tickets to pay for its capacity, > 0.

    Returns
    -------
    float or ndarray, in [0, 1]
        A surviving packet with ``p > 0`` has its tag raised to AvgTkt.

    Raises
    ------
    ScenarioTypeError
        If an argument is not a number.
    ScenarioError
        If an argument is not finite or out of range.

    References
    ----------
    Zhang et al., "Probabilistic Packet Scheduling", Section 4.
    """
    i = _arr("udp_drop_probability", "in_tkt", in_tkt, ge=0, unit="tickets")
    a = _arr("udp_drop_probability", "avg_tkt", avg_tkt, gt=0, unit="tickets")
    v.broadcast("udp_drop_probability", in_tkt=i, avg_tkt=a)
    with np.errstate(all="ignore"):
        return _out(np.maximum(0.0, 1.0 - i / a))


@dataclass(frozen=True)
class UDPOutcome:
    """What one congested link does to a UDP flow (Section 4).

    Attributes
    ----------
    drop_probability : float or ndarray
        p = max(0, 1 - InTkt / AvgTkt).
    throughput : float or ndarray
        (1 - p) AvgRate: the rate that survives, in the unit of the rates given.
    fair_share : float or ndarray
        Capacity * OutTktRate_a / InTktRate.
    in_tkt : float or ndarray
        The tag on arrival, OutTktRate_a / AvgRate.
    avg_tkt : float or ndarray
        InTktRate / Capacity.
    out_tkt : float or ndarray
        The tag of a surviving packet: AvgTkt if p > 0, else InTkt.
    ticket_rate_out : float or ndarray, tickets/s
        Tickets per second the survivors carry: out_tkt * throughput.
    """

    drop_probability: object
    throughput: object
    fair_share: object
    in_tkt: object
    avg_tkt: object
    out_tkt: object
    ticket_rate_out: object


def udp_one_hop(send_rate, ticket_rate, link_ticket_rate, capacity) -> UDPOutcome:
    """A UDP flow through one congested PPS link: drops, throughput and tickets (Section 4).

    The source tags ``InTkt = OutTktRate_a / AvgRate``; the link expects
    ``AvgTkt = InTktRate / Capacity``, drops with ``p = max(0, 1 - InTkt /
    AvgTkt)`` and raises the survivors' tags to AvgTkt.  A flow sending more
    than its fair share ``Capacity * OutTktRate_a / InTktRate`` is cut to
    exactly that share; either way the survivors carry OutTktRate_a t/s (the
    tickets are conserved).

    Parameters
    ----------
    send_rate : float or array_like
        AvgRate, the UDP source's sending rate (packets/s, or bit/s if
        ``capacity`` is in bit/s), > 0.
    ticket_rate : float or array_like, tickets/s
        OutTktRate_a, the tickets issued to the source, > 0.
    link_ticket_rate : float or array_like, tickets/s
        InTktRate, the tickets the link receives (all its inputs), > 0 and
        >= ``ticket_rate``.
    capacity : float or array_like
        The link's capacity in the unit of ``send_rate``, > 0.

    Returns
    -------
    UDPOutcome

    Raises
    ------
    ScenarioTypeError
        If an argument is not a number.
    ScenarioError
        If an argument is not finite and > 0, ``ticket_rate >
        link_ticket_rate``, or a tag (``ticket_rate / send_rate``,
        ``link_ticket_rate / capacity``) overflows.

    References
    ----------
    Zhang et al., "Probabilistic Packet Scheduling", Section 4 (drop rule,
    throughput ``(1 - p) AvgRate = Capacity OutTktRate_a / InTktRate``, ticket
    augmentation ``AvgTkt (1 - p) AvgRate = OutTktRate_a``).
    """
    owner = "udp_one_hop"
    r = _arr(owner, "send_rate", send_rate, gt=0)
    t = _arr(owner, "ticket_rate", ticket_rate, gt=0, unit="tickets/s")
    T = _arr(owner, "link_ticket_rate", link_ticket_rate, gt=0, unit="tickets/s")
    c = _arr(owner, "capacity", capacity, gt=0)
    v.broadcast(owner, send_rate=r, ticket_rate=t, link_ticket_rate=T, capacity=c)
    if np.any(t > T * (1 + 1e-12)):
        raise ScenarioError(f"{owner}: ticket_rate must be <= link_ticket_rate (the flow's "
                            f"tickets are part of what the link receives), got {t!r} > {T!r}")
    with np.errstate(all="ignore"):
        in_tkt = t / r
        avg_tkt = T / c
        p = np.maximum(0.0, 1.0 - in_tkt / avg_tkt)
        thr = (1.0 - p) * r
        out_tkt = np.where(p > 0, avg_tkt, in_tkt)
        share = c * t / T
        share = np.where(np.isfinite(share), share, c * (t / T))  # c * t alone may overflow
        tro = out_tkt * thr
    _finite(owner, (in_tkt, avg_tkt, p, tro),
            "a tag (ticket_rate / send_rate or link_ticket_rate / capacity) or the tickets the "
            "survivors carry overflow; give the rates and ticket rates in units closer to "
            "each other")
    return UDPOutcome(
        drop_probability=_out(p), throughput=_out(thr), fair_share=_out(share),
        in_tkt=_out(in_tkt), avg_tkt=_out(avg_tkt), out_tkt=_out(out_tkt),
        ticket_rate_out=_out(tro),
    )


# ============================================================================ symbolic
def symbolic() -> dict:
    """The PPS formulas as SymPy expressions (SymPy is imported here, on use).

    Returns
    -------
    dict of str to sympy.Expr or sympy.Symbol
        ``"symbols"``: a dict of the positive symbols used (OutTktRate,
        InTktRate, AvgRate, Capacity, InTkt, AvgTkt, ExpectTkt, p_RED,
        InPktRate_p, InTktRate_p, InTktRate_c); ``"tag"`` (Section 2.3),
        ``"xrate"`` (2.5), ``"relabel"`` (OutTkt = InTkt XRate),
        ``"poor_share"`` (2.2/2.6), ``"tred_multiplier"`` and ``"tred_p"``
        (2.4.2), ``"udp_p"``, ``"udp_throughput"``, ``"udp_fair_share"`` and
        ``"udp_tickets_out"`` (Section 4, with the UDP flow's own OutTktRate_a
        and AvgRate).

    References
    ----------
    Zhang et al., "Probabilistic Packet Scheduling", Sections 2.2-2.6 and 4.
    """
    import sympy as sp

    names = ("OutTktRate", "InTktRate", "AvgRate", "Capacity", "InTkt", "AvgTkt", "ExpectTkt",
             "p_RED", "InPktRate_p", "InTktRate_p", "InTktRate_c", "OutTktRate_a")
    s = {n: sp.Symbol(n, positive=True) for n in names}
    in_tkt_udp = s["OutTktRate_a"] / s["AvgRate"]
    avg_tkt = s["InTktRate"] / s["Capacity"]
    p_udp = sp.Max(0, 1 - in_tkt_udp / avg_tkt)
    out_tkt_udp = sp.Piecewise((avg_tkt, p_udp > 0), (in_tkt_udp, True))
    return {
        "symbols": s,
        "tag": s["OutTktRate"] / s["AvgRate"],
        "xrate": s["OutTktRate"] / s["InTktRate"],
        "relabel": s["InTkt"] * s["OutTktRate"] / s["InTktRate"],
        "poor_share": s["InPktRate_p"] * s["InTktRate_c"] / s["InTktRate_p"],
        "tred_multiplier": (s["ExpectTkt"] / s["InTkt"]) ** 3,
        "tred_p": sp.Min(1, s["p_RED"] * (s["ExpectTkt"] / s["InTkt"]) ** 3),
        "udp_p": p_udp,
        "udp_throughput": (1 - p_udp) * s["AvgRate"],
        "udp_fair_share": s["Capacity"] * s["OutTktRate_a"] / s["InTktRate"],
        "udp_tickets_out": out_tkt_udp * (1 - p_udp) * s["AvgRate"],
    }


def udp_proof() -> dict:
    """Section 4's claims for a UDP flow at a congested link, proved with SymPy.

    Takes the expressions of :func:`symbolic` (``udp_p``, ``udp_throughput``,
    ``udp_tickets_out``), writes the fair share as
    ``f = Capacity OutTktRate_a / InTktRate`` and substitutes the two cases
    for the sending rate, with positive or non-negative symbols so that SymPy
    resolves the ``max`` and the tag rule itself:

    * over its share, ``AvgRate = f + e`` with e > 0: ``p = e / (f + e) > 0``,
      the survivors' rate ``(1 - p) AvgRate`` equals f exactly, and their
      tickets (tags raised to AvgTkt) equal OutTktRate_a;
    * within its share, ``AvgRate = f / (1 + w)`` with w >= 0: ``p = 0``, the
      flow keeps its rate and its tickets ``InTkt AvgRate = OutTktRate_a``.

    Returns
    -------
    dict
        SymPy expressions ``"over_p"``, ``"over_throughput_minus_fair"``,
        ``"over_tickets_minus_issued"``, ``"within_p"``,
        ``"within_throughput_minus_rate"``, ``"within_tickets_minus_issued"``,
        and ``"holds"``: True when ``over_p - e / (f + e)`` and every difference
        simplify to 0 and ``within_p`` to 0.

    References
    ----------
    Zhang et al., "Probabilistic Packet Scheduling", Section 4.
    """
    import sympy as sp

    ex = symbolic()
    s = ex["symbols"]
    fair = ex["udp_fair_share"]
    e = sp.Symbol("epsilon", positive=True)
    w = sp.Symbol("w", nonnegative=True)
    out = {}
    over = {s["AvgRate"]: fair + e}
    out["over_p"] = sp.simplify(ex["udp_p"].subs(over))
    out["over_throughput_minus_fair"] = sp.simplify(ex["udp_throughput"].subs(over) - fair)
    out["over_tickets_minus_issued"] = sp.simplify(
        ex["udp_tickets_out"].subs(over) - s["OutTktRate_a"])
    within = {s["AvgRate"]: fair / (1 + w)}
    out["within_p"] = sp.simplify(ex["udp_p"].subs(within))
    out["within_throughput_minus_rate"] = sp.simplify(
        ex["udp_throughput"].subs(within) - fair / (1 + w))
    out["within_tickets_minus_issued"] = sp.simplify(
        ex["udp_tickets_out"].subs(within) - s["OutTktRate_a"])
    out["holds"] = bool(
        sp.simplify(out["over_p"] - e / (fair + e)) == 0
        and out["over_throughput_minus_fair"] == 0
        and out["over_tickets_minus_issued"] == 0
        and out["within_p"] == 0
        and out["within_throughput_minus_rate"] == 0
        and out["within_tickets_minus_issued"] == 0
    )
    return out
