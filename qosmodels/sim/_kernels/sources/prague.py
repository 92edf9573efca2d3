"""TCP Prague sender (spec: :class:`qosmodels.mechanisms.Prague`).

DCTCP's kernel (:mod:`.dctcp`, itself on NewReno's :mod:`.reno`) does the window:
the growth, the loss recovery, the ``alpha`` estimate and the reduction
``cwnd (1 - alpha / 2)`` on ECN echoes.  This module adds the ECT(1) codepoint
(set at compile time), Linux ``tcp_prague.c``'s growth only on ACKs that echo no CE
(:func:`on_ack`, with ``ai_reduction``: an echoing ACK leaves the window as it was,
so congestion avoidance adds ``1 - p`` per round trip at a marked fraction ``p``)
and pacing: :func:`send_limit` lets the window's next new
packet leave only when the pacing clock allows, one packet per ``srtt / (ratio
cwnd)``, and the flow's timer slot 1 wakes the sender then.  The parameter row
starts with DCTCP's columns, so the DCTCP and Reno functions read it unchanged.

With ``rtt_scaling`` other than "none" (Linux ``prague_rtt_scaling``), :func:`on_ack`
applies Linux's RTT-independence rules around the same NewReno and DCTCP steps: the
congestion-avoidance growth scaled by :func:`ai_scale` (:func:`scale_growth`), the
``alpha`` update and the CE reduction each at most once per :func:`target_rtt`
(:func:`respond_rtt_scaled`; :func:`rtt_indep` says when the rules apply).  With "none"
the ACK computes what it computed before the option, so those outputs are unchanged.

References
----------
B. Briscoe, K. De Schepper, O. Albisser, J. Misund, O. Tilmans, M. Kuehlewind, A.S.
Ahmed, "Implementing the 'TCP Prague' Requirements for Low Latency Low Loss Scalable
Throughput (L4S)", draft-briscoe-iccrg-prague-congestion-control; RFC 9331, Section 4
(the Prague requirements); S. Bensley et al., RFC 8257, Section 3.3.
"""

import numpy as np

from .._jit import POS, handler, rare_handler
from ..layout import (
    FF_CWND,
    FF_SP,
    FF_SRTT,
    FF_SS,
    FF_SSTHRESH,
    FI_ECN_RECOVER,
    FI_IN_REC,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_SS,
    FI_TIMER0,
    GF_NOW,
)
from ..timers import set_deadline
from . import dctcp, reno

CODE = 24

# parameter columns: DCTCP's (reno.TCP_*, dctcp.DC_*), then Prague's
PR_PACE_SS = 14         # pacing ratio in slow start (0: no pacing)
PR_PACE_CA = 15         # pacing ratio in congestion avoidance
PARAMS = dctcp.PARAMS + (("pacing_ss", lambda s: s.pacing_ss_ratio if s.pacing else 0.0),
                         ("pacing_ca", lambda s: s.pacing_ca_ratio if s.pacing else 0.0))

#: Timer slots of a flow: its retransmission timer, the pacing timer.
TIMERS = 2
SLOT_PACE = 1

# float state (FF_SS + ...; reno's column 0, DCTCP's 1..3)
PS_NEXT = 4             # s, the pacing clock: the next new packet may leave at this time
PS_AI_REDUCTION = 5     # 1.0: ACKs echoing CE do not grow the window (ai_reduction); 0.0: they do
# RTT independence (rtt_scaling; per-flow state columns, the parameter row being full)
PS_RTT_MODE = 6         # RTT_NONE, RTT_RATE, RTT_SCALABLE or RTT_ADDITIVE
PS_RTT_TARGET = 7       # s, rtt_target
PS_RTT_TRANSITION = 8   # rounds out of slow start before the rules apply (rtt_transition)
PS_ROUND = 9            # rounds (alpha updates) counted out of slow start
PS_ALPHA_STAMP = 10     # s, time of the last alpha update (-inf: none yet)
PS_CWR_STAMP = 11       # s, time of the last CE reduction (-inf: none yet)

#: ``rtt_scaling``'s codes, Linux's ``RTT_CONTROL_*`` numbers
RTT_NONE = 0
RTT_RATE = 1
RTT_SCALABLE = 2
RTT_ADDITIVE = 3
RTT_CODES = {"none": RTT_NONE, "rate": RTT_RATE, "scalable": RTT_SCALABLE,
             "additive": RTT_ADDITIVE}
#: "scalable"'s constants, s: Linux's R0 = 128 and R1 = 12 RTT units of 128 us
SCALABLE_R0 = 0.016384
SCALABLE_R1 = 0.001536


def setup(spec, ff, fi) -> int:
    """Initial state of a flow (DCTCP's, ECT(1) included); returns its largest window."""
    window = dctcp.setup(spec, ff, fi)
    ff[FF_SS + PS_NEXT] = 0.0
    # (a per-flow state column: the parameter row's 16 columns are all taken)
    ff[FF_SS + PS_AI_REDUCTION] = 1.0 if spec.ai_reduction else 0.0
    ff[FF_SS + PS_RTT_MODE] = float(RTT_CODES[spec.rtt_scaling])
    ff[FF_SS + PS_RTT_TARGET] = spec.rtt_target
    ff[FF_SS + PS_RTT_TRANSITION] = float(spec.rtt_transition)
    ff[FF_SS + PS_ROUND] = 0.0
    ff[FF_SS + PS_ALPHA_STAMP] = -np.inf
    ff[FF_SS + PS_CWR_STAMP] = -np.inf
    return window


def setup_flow(spec, network, i, ff, fi) -> None:
    """Reno's increase per round trip (:func:`.reno.setup_flow`)."""
    reno.setup_flow(spec, network, i, ff, fi)


def traces(spec) -> tuple[str, ...]:
    """Trace channels: DCTCP's ``alpha``, if asked for."""
    return dctcp.traces(spec)


@rare_handler
def send_limit(S, f):
    """One past the last sequence number the window and the pacing clock allow now:
    NewReno's window limit; with pacing (and an RTT sample), at most one new packet,
    and only once the clock has come, which then moves on by ``srtt / (ratio cwnd)``
    (ratio ``pacing_ss_ratio`` while ``cwnd < ssthresh``, else ``pacing_ca_ratio``)."""
    ff, fi = S.ff, S.fi
    lim = reno.send_limit(S, f)
    nxt = fi[f, FI_SND_NXT]
    ss = ff[f, FF_SP + PR_PACE_SS]
    srtt = ff[f, FF_SRTT]
    if ss == 0.0 or nxt >= lim or srtt <= 0.0:
        return lim
    now = S.gf[GF_NOW]
    t = ff[f, FF_SS + PS_NEXT]
    slot = (fi[f, FI_TIMER0] + SLOT_PACE) & POS
    if now < t:
        set_deadline(S, slot, t, True)
        return nxt
    cwnd = ff[f, FF_CWND]
    ratio = ss if cwnd < ff[f, FF_SSTHRESH] else ff[f, FF_SP + PR_PACE_CA]
    t = now + srtt / (ratio * cwnd)
    ff[f, FF_SS + PS_NEXT] = t
    if nxt + 1 < lim:
        set_deadline(S, slot, t, True)
    return nxt + np.int64(1)


@rare_handler
def on_ack(S, f, a, ece):
    """Cumulative ACK ``a`` (``ece``: it echoes a CE mark): DCTCP's processing, except
    that with ``ai_reduction`` an ACK of new data that echoes CE, outside fast recovery,
    does not grow the window (Linux ``prague_update_cwnd``: the segments it counts are
    those acknowledged less those marked).  Outside recovery the only change NewReno's
    ACK makes to ``cwnd`` is the growth (it is called without the echo), so keeping
    the window it had undoes exactly that; DCTCP's reduction follows.  With an
    ``rtt_scaling``, the growth is scaled (:func:`scale_growth`) and DCTCP's step is
    :func:`respond_rtt_scaled`; with "none" the ACK does exactly what it did before the
    option."""
    ff, fi = S.ff, S.fi
    una = fi[f, FI_SND_UNA]
    c = ff[f, FF_CWND]
    hold = (ece and a > una and fi[f, FI_IN_REC] == 0
            and ff[f, FF_SS + PS_AI_REDUCTION] > 0.0)
    scaled = ff[f, FF_SS + PS_RTT_MODE] != 0.0
    grows = scaled and a > una and fi[f, FI_IN_REC] == 0 and c >= ff[f, FF_SSTHRESH]
    reno.on_ack(S, f, a, False)
    if hold:
        ff[f, FF_CWND] = c
    elif grows:
        scale_growth(S, f, c)
    if scaled:
        respond_rtt_scaled(S, f, una, a, ece)
    else:
        dctcp.respond(S, f, una, a, ece)


@handler
def target_rtt(S, f):
    """The target RTT ``T``, s: ``rtt_target``; with "additive", ``rtt_target + srtt``
    (Linux ``prague_dynamic_rtt_target``; ``srtt`` counted 0 before the first sample)."""
    ff = S.ff
    t = ff[f, FF_SS + PS_RTT_TARGET]
    srtt = ff[f, FF_SRTT]
    if ff[f, FF_SS + PS_RTT_MODE] == RTT_ADDITIVE and srtt > 0.0:
        t += srtt
    return t


@handler
def rtt_indep(S, f):
    """Whether the RTT-independence rules apply now (Linux ``prague_is_rtt_indep``): a
    heuristic is chosen, the flow is out of slow start and has counted
    ``rtt_transition`` rounds out of it."""
    ff = S.ff
    return (ff[f, FF_SS + PS_RTT_MODE] != 0.0 and ff[f, FF_CWND] >= ff[f, FF_SSTHRESH]
            and ff[f, FF_SS + PS_ROUND] >= ff[f, FF_SS + PS_RTT_TRANSITION])


@handler
def ai_scale(S, f):
    """The factor ``k`` of the congestion-avoidance increase ``k / cwnd`` per unmarked
    ACK (Linux ``prague_ai_ack_increase``): 1 before ``rtt_transition`` rounds or
    without an RTT sample; "rate" and "additive": ``(srtt / T)^2`` below the target
    ``T``, else 1; "scalable": ``(R0 / 8 + min(max(srtt - R1, 0), R0)) srtt / R0^2``."""
    ff = S.ff
    srtt = ff[f, FF_SRTT]
    mode = ff[f, FF_SS + PS_RTT_MODE]
    if (mode == RTT_NONE or srtt <= 0.0
            or ff[f, FF_SS + PS_ROUND] < ff[f, FF_SS + PS_RTT_TRANSITION]):
        return 1.0
    if mode == RTT_SCALABLE:
        x = srtt - SCALABLE_R1
        x = 0.0 if x < 0.0 else (SCALABLE_R0 if x > SCALABLE_R0 else x)
        return (SCALABLE_R0 / 8.0 + x) * srtt / (SCALABLE_R0 * SCALABLE_R0)
    t = target_rtt(S, f)
    if srtt >= t:
        return 1.0
    return (srtt / t) * (srtt / t)


@rare_handler
def scale_growth(S, f, c):
    """NewReno's congestion-avoidance step from ``c`` (the window before the ACK),
    ``cwnd + 1 / cwnd``, made ``cwnd + k / cwnd`` (:func:`ai_scale`; Linux
    ``ai_ack_increase``), if the ACK grew the window outside recovery."""
    ff = S.ff
    if S.fi[f, FI_IN_REC] != 0 or ff[f, FF_CWND] <= c:
        return
    k = ai_scale(S, f)
    if k != 1.0:  # (k = 1: NewReno's step as it is, bit for bit)
        w = c + k * (ff[f, FF_CWND] - c)
        wmax = ff[f, FF_SP + reno.TCP_MAX_WINDOW]
        ff[f, FF_CWND] = w if w < wmax else wmax


@rare_handler
def respond_rtt_scaled(S, f, una, a, ece):
    """DCTCP's step (:func:`.dctcp.respond`) under Linux ``tcp_prague.c``'s RTT
    independence: while :func:`rtt_indep`, an ``alpha`` update due (a round of data
    acknowledged) waits until ``T`` (:func:`target_rtt`) has passed since the last one,
    the packets acknowledged meanwhile counting in it, and a reduction due is skipped
    unless ``T`` has passed since the last one, the window of data that no other echo
    reduces starting all the same (Linux's CWR state).  An ``alpha`` update out of slow
    start counts a round (Linux ``prague_new_round``)."""
    ff, fi = S.ff, S.fi
    now = S.gf[GF_NOW]
    indep = rtt_indep(S, f)
    t = target_rtt(S, f)
    end = fi[f, FI_SS + dctcp.DI_WINDOW_END]
    update = a > una and a >= end
    wait = update and indep and now - ff[f, FF_SS + PS_ALPHA_STAMP] < t
    if wait:  # not this ACK: the observation window stays open
        fi[f, FI_SS + dctcp.DI_WINDOW_END] = a + 1
    # (as DCTCP's test, after NewReno's step, which may have ended a recovery)
    reduce = ece and a > una and fi[f, FI_IN_REC] == 0 and a > fi[f, FI_ECN_RECOVER]
    skip = reduce and indep and now - ff[f, FF_SS + PS_CWR_STAMP] < t
    if skip:
        fi[f, FI_ECN_RECOVER] = a
    dctcp.respond(S, f, una, a, ece)
    if wait:
        fi[f, FI_SS + dctcp.DI_WINDOW_END] = end
    elif update:
        ff[f, FF_SS + PS_ALPHA_STAMP] = now
        if ff[f, FF_CWND] >= ff[f, FF_SSTHRESH]:
            ff[f, FF_SS + PS_ROUND] += 1.0
    if skip:
        fi[f, FI_ECN_RECOVER] = fi[f, FI_SND_NXT]
    elif reduce:
        ff[f, FF_SS + PS_CWR_STAMP] = now


@handler
def on_timer(S, f, k):
    """The pacing clock (timer slot ``k``) has come due: let the flow send."""
    return True


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": send_limit,
    "source_ack": on_ack,
    "source_timeout": reno.on_timeout,
    "source_timer": on_timer,
    "source_window": reno.window,
}
