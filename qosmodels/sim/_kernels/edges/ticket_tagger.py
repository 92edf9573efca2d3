"""PPS's ticket tagger at a flow's ingress (spec: :class:`qosmodels.mechanisms.TicketTagger`).

Each member keeps a TSW estimate of its throughput (packets/s: on ACKs for a
window sender, on sends for an open-loop one) and tags every data packet
with ``OutTktRate / AvgRate`` tickets (``PF_TAG0``), quantised.

Receiver variant: the member's sink tags each ACK (``PF_TAG1``) with
``AckOutTktRate / AckAvgRate`` and the ACK's tickets are relabelled by every
receiver-variant :mod:`..queues.ticket_red` link of the route, last to first,
when the ACK leaves the sink (a shortcut: the links' ACK rates are TSW
averages over a minute, to which the ACK's propagation time back is
immaterial); the source's ``OutTktRate`` is the TSW rate of the ACK tickets
reaching it.

Hooks (through :mod:`..dispatch_edges`): :func:`ingress` (tag a data packet),
:func:`on_ack` (an ACK reaches a member's sender), :func:`on_echo` (a
member's receiver turns a data packet into its ACK).

References
----------
Zhang, Wang, Peterson, Krishnamurthy, "Probabilistic Packet Scheduling",
Sections 2.3 (tagging, TSW), 2.7.1 (ACK tagging and relabelling), 2.8
(policing at the source), 4 (UDP: the sending rate).
"""

import numpy as np

from .._jit import POS, handler
from ..layout import (
    EDGE_PASS,
    EF_EP,
    EI_TRACE0,
    FF_ES,
    FI_MEMBER,
    FI_WINDOWED,
    GF_NOW,
    PF_TAG0,
    PF_TAG1,
)
from ..queues import ticket_red
from ..trace import record
from ..tsw import quantise, update

CODE = 2

# parameter columns
TT_WINDOW = 0
TT_LEVELS = 1
TT_UNIT = 2
TT_POLICE = 3
TT_RECEIVER = 4
PARAMS = ("window", ("levels", lambda s: s.levels), "unit", "police",
          ("receiver", lambda s: s.variant == "receiver"))

# a member's state (in its flow's row)
M_TKT = FF_ES          # OutTktRate, t/s (receiver variant: the ACK tickets' TSW rate)
M_AVG = FF_ES + 1      # AvgRate, packets/s
M_FRONT = FF_ES + 2    # their TSW front
M_ACT = FF_ES + 3      # ActualTktRate (policing)
M_ACT_F = FF_ES + 4
M_SINK = FF_ES + 5     # receiver variant: the sink's AckOutTktRate, t/s
M_SINK_AVG = FF_ES + 6  # ... the sink's AckAvgRate, ACKs/s
M_SINK_F = FF_ES + 7


def traces(spec, n_members) -> tuple[str, ...]:
    """``tag_m<i>``: member ``i``'s tag on each of its data packets (if ``record``)."""
    return tuple(f"tag_m{i}" for i in range(n_members)) if spec.record else ()


def hold_capacity(spec) -> int:
    """A tagger holds nothing."""
    return 0


def setup_edge(spec, network, members, ef, ff, fi) -> None:
    """Each member's tickets: given, or the tickets issued to its first link (receiver
    variant: its last link) shared equally among the tagged flows starting (ending) there."""
    from ....errors import ScenarioError

    def ticket_red(q):  # a TicketRed queue (by its kernel: the kernels import no spec)
        return getattr(q, "kernel", None) == "queues.ticket_red"

    names = network.flow_names
    receiver = spec.variant == "receiver"
    given = spec.member_tickets(len(members))
    for k, f in enumerate(members):
        route = network.flow_links(f)
        if receiver and not network.flows[f].source.windowed:
            raise ScenarioError(
                f"flow {names[f]!r} has a {type(network.flows[f].source).__name__} source, "
                f"which sends no ACKs to carry receiver tickets; use "
                f"TicketTagger(variant='sender') for it")
        for l in route:
            q = network.links[l].queue
            if ticket_red(q) and q.variant != spec.variant:
                raise ScenarioError(
                    f"flow {names[f]!r} is tagged {spec.variant}-based but link "
                    f"{network.links[l].name!r} runs TicketRed(variant={q.variant!r}); use one "
                    f"variant throughout")
        if given is not None:
            tickets = given[k]
        else:
            end = int(route[-1] if receiver else route[0])
            q = network.links[end].queue
            if not ticket_red(q) or q.tickets is None:
                which = "last" if receiver else "first"
                raise ScenarioError(
                    f"flow {names[f]!r}'s {which} link {network.links[end].name!r} is issued no "
                    f"tickets (its queue is {type(q).__name__}"
                    f"{' with tickets=None' if ticket_red(q) else ''}), so the "
                    f"flow has nothing to tag with; give that link TicketRed(tickets=...) or the "
                    f"flow TicketTagger(tickets=...)")
            sharing = [g for g in range(network.n_flows)
                       if int(network.flow_links(g)[-1 if receiver else 0]) == end
                       and _tagged(network, g, spec.kernel)]
            tickets = q.tickets / len(sharing)
        if receiver:
            ff[f, M_SINK] = tickets
        else:
            ff[f, M_TKT] = tickets
        ff[f, M_AVG] = ff[f, M_FRONT] = ff[f, M_ACT] = ff[f, M_ACT_F] = 0.0
        ff[f, M_SINK_AVG] = ff[f, M_SINK_F] = 0.0


def _tagged(network, g, kernel) -> bool:
    """Whether flow ``g`` stands behind an edge element of kernel ``kernel``."""
    return any(agg.edge is not None and agg.edge.kernel == kernel
               and g in network.aggregate_members(agg.name) for agg in network.aggregates)


@handler
def _tsw_pair(S, f, tickets, packets, now, win):
    """The sender's TSW of ACK tickets and acknowledged packets (one front)."""
    ff = S.ff
    d = now - ff[f, M_FRONT] + win
    ff[f, M_TKT] = (ff[f, M_TKT] * win + tickets) / d
    ff[f, M_AVG] = (ff[f, M_AVG] * win + packets) / d
    ff[f, M_FRONT] = now


@handler
def ingress(S, e, f, p):
    """Tag data packet ``p`` of member ``f``: ``OutTktRate / AvgRate`` (policed, quantised)."""
    ff, ef = S.ff, S.ef
    now = S.gf[GF_NOW]
    win = ef[e, EF_EP + TT_WINDOW]
    if S.fi[f, FI_WINDOWED] == 0:  # open loop: the sending rate
        update(ff, f, M_AVG, M_FRONT, 1.0, now, win)
    rate = ff[f, M_AVG]
    floor = 1.0 / win  # before any estimate: one packet per window
    tag = ff[f, M_TKT] / (rate if rate > floor else floor)
    if ef[e, EF_EP + TT_POLICE] > 0.0:
        # ActualTktRate: the TSW rate of the unpoliced tags (see ticket_red.relabel)
        raw = tag
        if ff[f, M_ACT] > 0.0:
            tag *= ff[f, M_TKT] / ff[f, M_ACT]
        update(ff, f, M_ACT, M_ACT_F, raw, now, win)
    tag = quantise(tag, ef[e, EF_EP + TT_LEVELS], ef[e, EF_EP + TT_UNIT])
    S.pf[p, PF_TAG0] = tag
    if S.ei[e, EI_TRACE0] >= 0:
        record(S, S.ei[e, EI_TRACE0] + S.fi[f, FI_MEMBER], tag)
    return EDGE_PASS


@handler
def on_ack(S, e, f, p, acked):
    """An ACK of member ``f`` newly acknowledging ``acked`` packets reaches the sender."""
    now = S.gf[GF_NOW]
    win = S.ef[e, EF_EP + TT_WINDOW]
    if S.ef[e, EF_EP + TT_RECEIVER] > 0.0:
        _tsw_pair(S, f, S.pf[p, PF_TAG1], np.float64(acked), now, win)
    else:
        update(S.ff, f, M_AVG, M_FRONT, np.float64(acked), now, win)


@handler
def on_echo(S, e, f, p):
    """Member ``f``'s receiver made ACK ``p`` (receiver variant: tag it and relabel its
    tickets over the route's links, last to first)."""
    if S.ef[e, EF_EP + TT_RECEIVER] <= 0.0:
        return
    ff, ef = S.ff, S.ef
    now = S.gf[GF_NOW]
    win = ef[e, EF_EP + TT_WINDOW]
    rate = update(ff, f, M_SINK_AVG, M_SINK_F, 1.0, now, win)
    tag = quantise(ff[f, M_SINK] / rate, ef[e, EF_EP + TT_LEVELS], ef[e, EF_EP + TT_UNIT])
    for j in range(S.r_ptr[f + 1] - 1, S.r_ptr[f] - 1, -1):
        l = S.r_link[j & POS] & POS
        if ticket_red.is_receiver(S, l):
            tag = ticket_red.ack_relabel(S, l, tag, now)
    S.pf[p, PF_TAG1] = tag


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "edge_ingress": ingress,
    "edge_ack": on_ack,
    "edge_echo": on_echo,
}
