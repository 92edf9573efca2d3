"""Ticket-based RED with PPS relabelling (spec: :class:`qosmodels.mechanisms.TicketRed`).

A data packet's tag (``PF_TAG0``, tickets in the currency of the node the
link leaves) updates the link's TSW rate of arriving tickets ``InTktRate``,
the least recent tag ``MinTkt`` and, for tags in ``[MinTkt, K MinTkt)``, the
TSW rates whose ratio is ``ExpectTkt``; RED's probability is multiplied by
``(ExpectTkt / InTkt)^exponent`` (the UDP rule: ``max(0, 1 - InTkt / AvgTkt)``,
with augmentation of survivors); a packet kept is relabelled with the
exchange rate into the currency of the node the link enters and quantised.
ACKs meet plain RED.  In the receiver variant the ticket tagger's echo hook
(:mod:`..edges.ticket_tagger`) walks an ACK's tickets back over the links
(:func:`ack_relabel`), whose ``AckInTktRate`` is then the data's
``OutTktRate``.

Everything RED is :mod:`.red`'s (average, count, thresholds, marking); the
parameters after RED's are this module's.

References
----------
Zhang, Wang, Peterson, Krishnamurthy, "Probabilistic Packet Scheduling",
Princeton TR-632-01, 2001: Sections 2.4.2 (TRED), 2.5 (XRate), 2.7.1 (ACK
tickets), 2.8 (policing), 3.4 (tickets reissued during a run), 4 (UDP).
"""

import math

from .._jit import handler, rare_handler
from ..layout import (
    GF_NOW,
    KIND_DATA,
    LF_CAP,
    LF_QP,
    LF_QS,
    LI_CODE,
    LI_DROP_EARLY,
    LI_DROP_FORCED,
    LI_QS,
    LI_TRACE0,
    PF_BITS,
    PF_TAG0,
    PI_KIND,
)
from ..rng import rand
from ..trace import record
from ..tsw import quantise, update
from . import red

CODE = 8

# parameter columns after RED's
TR_TICKETS = len(red.PARAMS)  # issued t/s (0: none, the currency passes)
TR_K = TR_TICKETS + 1
TR_WINDOW = TR_TICKETS + 2
TR_MIN_INT = TR_TICKETS + 3
TR_EXP = TR_TICKETS + 4
TR_FLAGS = TR_TICKETS + 5     # F_UDP | F_POLICE | F_RECEIVER
TR_LEVELS = TR_TICKETS + 6    # 0: unquantised
TR_UNIT = TR_TICKETS + 7
TR_RE_AT = TR_TICKETS + 8     # time of the reissue, s
TR_RE_TICKETS = TR_TICKETS + 9  # t/s issued from then on (0: no reissue)
F_UDP, F_POLICE, F_RECEIVER = 1, 2, 4
PARAMS = red.PARAMS + (
    ("tickets", lambda s: 0.0 if s.tickets is None else s.tickets),
    "k", "window", "min_interval", "exponent",
    ("flags", lambda s: (F_UDP * (s.rule == "udp") + F_POLICE * s.police
                         + F_RECEIVER * (s.variant == "receiver"))),
    ("levels", lambda s: s.levels),
    "unit",
    ("reissue_at", lambda s: 0.0 if s.reissue is None else s.reissue[0]),
    ("reissued", lambda s: 0.0 if s.reissue is None else s.reissue[1]),
)

# the link's float state
Q_IN = LF_QS             # InTktRate, t/s (TSW over the data arriving)
Q_IN_F = LF_QS + 1       # ... its front
Q_EXP_T = LF_QS + 2      # ExpectTktRate (TSW over tags in [MinTkt, K MinTkt))
Q_EXP_P = LF_QS + 3      # ExpectPktRate
Q_EXP_F = LF_QS + 4      # their front
Q_MIN_CUR = LF_QS + 5    # least tag of the current MinTkt interval
Q_MIN_PREV = LF_QS + 6   # ... of the previous one
Q_MIN_T0 = LF_QS + 7     # start of the current interval, s
Q_ACT = LF_QS + 8        # ActualTktRate: the tickets handed on unpoliced (policing)
Q_ACT_F = LF_QS + 9
Q_ACK = LF_QS + 10       # AckInTktRate (receiver variant)
Q_ACK_F = LF_QS + 11
# the link's integer state
QI_TRACE = LI_QS         # the first of this module's trace channels, -1: none


def traces(spec) -> tuple[str, ...]:
    """RED's ``red_average`` (if ``record_average``), then ``xrate`` and ``expect_tkt``
    (if ``record``)."""
    return red.traces(spec) + (("xrate", "expect_tkt") if spec.record else ())


def setup_link(spec, network, l, xs, x_flow, lf, li, hs, hsi) -> None:
    """No history; this module's trace channels after RED's (RED records at
    ``LI_TRACE0`` only if it has its channel).  Refuses a flow whose data cross the link
    untagged (its packets would carry no tickets and TRED would starve it)."""
    from ....errors import ScenarioError

    tagged = {f for agg in network.aggregates
              if agg.edge is not None and agg.edge.kind == "ticket-tagger"
              for f in network.aggregate_members(agg.name)}
    for f in range(network.n_flows):
        if f not in tagged and l in network.flow_links(f):
            raise ScenarioError(
                f"flow {network.flow_names[f]!r} crosses link {network.links[l].name!r}, which "
                f"runs TicketRed, but no TicketTagger tags its packets: they would carry no "
                f"tickets and TRED would drop them first; put the flow behind a TicketTagger "
                f"(Aggregate(..., edge=TicketTagger(...)); qosmodels.pps.with_tickets does) or "
                f"give the link another queue")
    lf[Q_MIN_CUR] = lf[Q_MIN_PREV] = math.inf
    first = li[LI_TRACE0]
    n_red = len(red.traces(spec))
    li[QI_TRACE] = first + n_red if spec.record else -1
    if not n_red:
        li[LI_TRACE0] = -1


@handler
def expect_tkt(S, l):
    """ExpectTkt of link ``l`` (tickets; NaN before any tag in range)."""
    return S.lf[l, Q_EXP_T] / S.lf[l, Q_EXP_P]


@handler
def _measure(S, l, tag, now):
    """Arrival of a data packet with ``tag`` tickets: InTktRate, MinTkt and the Expect
    rates; returns InTktRate."""
    lf = S.lf
    win = lf[l, LF_QP + TR_WINDOW]
    in_rate = update(lf, l, Q_IN, Q_IN_F, tag, now, win)
    if now - lf[l, Q_MIN_T0] >= lf[l, LF_QP + TR_MIN_INT]:
        lf[l, Q_MIN_PREV] = lf[l, Q_MIN_CUR]
        lf[l, Q_MIN_CUR] = tag
        lf[l, Q_MIN_T0] = now
    elif tag < lf[l, Q_MIN_CUR]:
        lf[l, Q_MIN_CUR] = tag
    mint = min(lf[l, Q_MIN_CUR], lf[l, Q_MIN_PREV])
    if tag < lf[l, LF_QP + TR_K] * mint or tag == mint:
        d = now - lf[l, Q_EXP_F] + win
        lf[l, Q_EXP_T] = (lf[l, Q_EXP_T] * win + tag) / d
        lf[l, Q_EXP_P] = (lf[l, Q_EXP_P] * win + 1.0) / d
        lf[l, Q_EXP_F] = now
    return in_rate


@handler
def _udp(S, l, p, tag, in_rate):
    """The UDP rule: -1 to keep (the tag to carry on in ``PF_TAG0``), else the drop cause."""
    lf = S.lf
    avg = red.average(S, l)
    minth = lf[l, LF_QP + red.RED_MIN_TH]
    maxth = lf[l, LF_QP + red.RED_MAX_TH]
    gentle = lf[l, LF_QP + red.RED_GENTLE] > 0.0
    if avg < minth:
        return -1
    if avg >= maxth and (not gentle or avg >= 2.0 * maxth):
        return LI_DROP_FORCED
    avg_tkt = in_rate * S.pf[p, PF_BITS] / lf[l, LF_CAP]  # InTktRate / Capacity (packets/s)
    pr = 1.0 - tag / avg_tkt
    if pr > 0.0:
        if rand(S) < pr:
            return LI_DROP_EARLY
        S.pf[p, PF_TAG0] = avg_tkt  # survivors keep the flow's tickets: augmented
    return -1


# A real function (``rare_handler``), not inlined: only arrivals at TicketRed links pay a
# call, and the loop's compile time does not grow by a second copy of RED's verdict.
@rare_handler
def admit(S, l, p):
    """TRED's (or the UDP rule's) verdict; a data packet kept is relabelled."""
    lf = S.lf
    if S.pi[p, PI_KIND] != KIND_DATA:
        return red.admit(S, l, p)
    now = S.gf[GF_NOW]
    tag = S.pf[p, PF_TAG0]
    in_rate = _measure(S, l, tag, now)
    expect = expect_tkt(S, l)
    flags = int(lf[l, LF_QP + TR_FLAGS])
    if flags & F_UDP:
        cause = _udp(S, l, p, tag, in_rate)
    else:  # RED's p_a times (ExpectTkt / InTkt)^exponent: divided by its inverse
        cause = red.admit_divided_call(S, l, p, (tag / expect) ** lf[l, LF_QP + TR_EXP])
    if S.li[l, QI_TRACE] >= 0:
        record(S, S.li[l, QI_TRACE] + 1, expect)
    if cause >= 0:
        return cause
    relabel(S, l, p, in_rate, flags, now)
    return -1


@handler
def issued_now(S, l, now):
    """The t/s issued to link ``l`` at ``now``: its tickets, or its reissue from its time on
    (Section 3.4)."""
    lf = S.lf
    if lf[l, LF_QP + TR_RE_TICKETS] > 0.0 and now >= lf[l, LF_QP + TR_RE_AT]:
        return lf[l, LF_QP + TR_RE_TICKETS]
    return lf[l, LF_QP + TR_TICKETS]


@handler
def relabel(S, l, p, in_rate, flags, now):
    """Packet ``p`` kept at link ``l``: its tag into the next node's currency (XRate, with
    policing), quantised."""
    lf = S.lf
    issued = issued_now(S, l, now)
    out_rate = issued
    if flags & F_RECEIVER:  # OutTktRate = AckInTktRate
        out_rate = lf[l, Q_ACK]
    xr = out_rate / in_rate if issued > 0.0 and out_rate > 0.0 else 1.0
    tag = S.pf[p, PF_TAG0] * xr
    if flags & F_POLICE and issued > 0.0:
        # ActualTktRate: the TSW rate of the tickets the link would hand on unpoliced
        # (InTkt * XRate of the packets kept), so that the policed ones average out_rate;
        # measured on the policed tags it would settle at sqrt(unpoliced * out_rate)
        raw = tag
        if lf[l, Q_ACT] > 0.0:
            tag *= out_rate / lf[l, Q_ACT]
        update(lf, l, Q_ACT, Q_ACT_F, raw, now, lf[l, LF_QP + TR_WINDOW])
    S.pf[p, PF_TAG0] = quantise(tag, lf[l, LF_QP + TR_LEVELS], lf[l, LF_QP + TR_UNIT])
    if S.li[l, QI_TRACE] >= 0:
        record(S, S.li[l, QI_TRACE], xr)


@handler
def is_receiver(S, l):
    """Whether link ``l`` is a receiver-variant TRED link (relabels ACK tickets)."""
    return (S.li[l, LI_CODE] == CODE
            and (int(S.lf[l, LF_QP + TR_FLAGS]) & F_RECEIVER) != 0)


@handler
def ack_relabel(S, l, tag, now):
    """An ACK of a flow crossing link ``l`` carries ``tag`` receiver tickets: AckInTktRate,
    and the tag relabelled with ``AckXRate = AckOutTktRate / AckInTktRate`` (unchanged at a
    link issued none), quantised."""
    lf = S.lf
    ack_in = update(lf, l, Q_ACK, Q_ACK_F, tag, now, lf[l, LF_QP + TR_WINDOW])
    issued = issued_now(S, l, now)
    if issued > 0.0:
        tag = tag * issued / ack_in
    return quantise(tag, lf[l, LF_QP + TR_LEVELS], lf[l, LF_QP + TR_UNIT])


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_admit": admit,
}
