"""RAP, a rate-based AIMD source (spec: :class:`qosmodels.mechanisms.Rap`).

R. Rejaie, M. Handley, D. Estrin, "RAP: An End-to-end Rate-based Congestion Control
Mechanism for Realtime Streams in the Internet", IEEE INFOCOM 1999, Section III; ns-2's
``rap/rap.cc`` was read as a comparison (its defaults fill what the text leaves open,
marked "ns-2" below).  The source sends one packet every gap ``IPG`` (an open-loop
tick), the receiver returns a feedback packet for every data packet
(:func:`feedback`: the packet's sequence number and the packets received so far, as
TFRC's receiver here), and the sender

* samples the RTT from one packet at a time and keeps ``SRTT`` and the mean deviation
  ``VAR`` by Jacobson's EWMAs with gain :data:`DELTA` (ns-2), the loss timeout
  ``MU SRTT + PHI VAR`` (ns-2's 1.2 and 4) and, with ``fine_grain``, a short- and a
  long-term RTT average ``FRTT``, ``XRTT`` (gains 0.9 and 0.01, ns-2);
* increases the rate once per ``SRTT`` (timer slot 1): ``IPG <- IPG SRTT / (IPG +
  SRTT)``, one more packet per round trip;
* on a loss decreases it, ``IPG <- IPG / beta``, marks every packet sent so far
  inactive (the cluster-loss rule: their losses are not acted on) and restarts the
  increase timer one ``SRTT`` later;
* detects a loss by ACKs: the smallest active hole (a sequence number the receiver
  missed) is lost once a packet :data:`ACK_THRESH` or more above it is acknowledged
  (ns-2's rule, TCP's three duplicate ACKs); and by timeout: the packet being timed
  for the RTT is lost if not acknowledged within the timeout (timer slot 0).

The first RTT sample sets ``IPG = SRTT`` (ns-2); before it ``IPG`` is
:data:`INIT_IPG`.  Units: times in s, rates in packets/s.
"""

from .._jit import POS, handler, rare_handler
from ..heap import push
from ..layout import (
    EV_BITS,
    EV_SOURCE,
    FF_RTT_T0,
    FF_SP,
    FF_SRTT,
    FF_SS,
    FI_ARRIVED,
    FI_RTT_SEQ,
    FI_SENT,
    FI_SND_NXT,
    FI_SS,
    FI_TIMER0,
    FI_TIMING,
    FI_TRACE0,
    GF_NOW,
    PI_SEQ,
)
from ..sender import record_rtt
from ..timers import cancel, set_deadline
from ..trace import record

CODE = 25
RAP_BETA = 0
RAP_FINE = 1                 # 1: the fine-grain adaptation
PARAMS = ("beta", "fine_grain")
#: Timer slots: the loss timeout of the packet being timed (0), the increase step (1).
TIMERS = 2
SLOT_STEP = 1

DELTA = 0.5                  # gain of the SRTT and VAR EWMAs (ns-2's delta_)
MU = 1.2                     # timeout = MU SRTT + PHI VAR (ns-2's mu_, phi_)
PHI = 4.0
K_FRTT = 0.9                 # fine grain: short-term RTT gain (ns-2's kfrtt_)
K_XRTT = 0.01                # ... long-term RTT gain (ns-2's kxrtt_)
ACK_THRESH = 3               # a hole is lost once a packet this far above it is acked
INIT_IPG = 1.0               # s, before the first RTT sample
INIT_SRTT = 2.0              # s, the step length and the timeout before any sample (ns-2)
MAX_IPG = 64.0               # s (RFC 5348's t_mbi; RAP states no bound)
SEQ_BITS = 32                # a feedback's PI_SEQ: data sequence number | received << 32
SEQ_MASK = (1 << SEQ_BITS) - 1

# flow float state
RP_IPG = FF_SS               # the inter-packet gap, s
RP_VAR = FF_SS + 1           # mean deviation of the RTT, s
RP_TIMEOUT = FF_SS + 2       # loss timeout, s
RP_FRTT = FF_SS + 3          # short-term RTT average (fine grain), s
RP_XRTT = FF_SS + 4          # long-term RTT average (fine grain), s
# flow integer state
RPI_HIGH = FI_SS             # highest sequence number acknowledged, -1: none
RPI_LOST = FI_SS + 1         # packets the receiver has missed, as of RPI_HIGH's ACK
RPI_INACT = FI_SS + 2        # packets up to this sequence number are inactive, -1: none
RPI_PEND = FI_SS + 3         # smallest active hole not yet declared lost, -1: none


def traces(spec) -> tuple[str, ...]:
    """Trace channels, if ``record``: the rate ``1 / IPG`` (packets/s) at every ACK."""
    return ("rap_rate",) if spec.record else ()


def setup_flow(spec, network, i, ff, fi) -> None:
    """Refuses an edge element in front of the flow (its ACK hook would misread the
    feedback's packed sequence number)."""
    from ....errors import ScenarioError

    for agg in network.aggregates:
        if agg.edge is not None and i in network.aggregate_members(agg.name):
            raise ScenarioError(
                f"flow {network.flow_names[i]!r} has a Rap source behind the edge element "
                f"of aggregate {agg.name!r}; the simulator does not run Rap behind an edge "
                f"element: take the flow out of the aggregate or give it a window source")


def setup(spec, ff, fi) -> int:
    """Initial gap and timeout; no RTT sample, ACK or loss yet.  (Open loop: no window.)"""
    ff[RP_IPG] = INIT_IPG
    ff[FF_SRTT] = -1.0
    ff[RP_TIMEOUT] = INIT_SRTT
    fi[RPI_HIGH] = -1
    fi[RPI_INACT] = -1
    fi[RPI_PEND] = -1
    return 0


@handler
def start(S, f):
    """The first packet at once; the first increase step ``INIT_SRTT`` later."""
    now = S.gf[GF_NOW]
    push(S, now, (f << EV_BITS) | EV_SOURCE)
    set_deadline(S, (S.fi[f, FI_TIMER0] + SLOT_STEP) & POS, now + INIT_SRTT, True)


@handler
def next_tick(S, f, now):
    """After a packet: time it if none is being timed (and watch it with the loss
    timeout); the next one a gap later (``IPG``, times ``FRTT / XRTT`` with fine grain)."""
    ff, fi = S.ff, S.fi
    if fi[f, FI_TIMING] == 0:
        fi[f, FI_TIMING] = 1
        fi[f, FI_RTT_SEQ] = fi[f, FI_SENT] - 1
        ff[f, FF_RTT_T0] = now
        set_deadline(S, fi[f, FI_TIMER0] & POS, now + ff[f, RP_TIMEOUT], True)
    gap = ff[f, RP_IPG]
    if ff[f, FF_SP + RAP_FINE] > 0.0 and ff[f, FF_SRTT] > 0.0:
        gap = gap * ff[f, RP_FRTT] / ff[f, RP_XRTT]
    return now + gap


@handler
def send_limit(S, f):
    """Nothing to send on feedback (the ticks send)."""
    return S.fi[f, FI_SND_NXT]


@handler
def feedback(S, f, p):
    """Turn data packet ``p`` into its ACK: its sequence number and the packets received."""
    S.pi[p, PI_SEQ] = (S.pi[p, PI_SEQ] & SEQ_MASK) | (S.fi[f, FI_ARRIVED] << SEQ_BITS)
    return True


@handler
def decrease(S, f, now):
    """A loss: ``IPG <- IPG / beta``; every packet sent so far becomes inactive; the next
    increase one ``SRTT`` later."""
    ff, fi = S.ff, S.fi
    ipg = ff[f, RP_IPG] / ff[f, FF_SP + RAP_BETA]
    ff[f, RP_IPG] = ipg if ipg < MAX_IPG else MAX_IPG
    fi[f, RPI_INACT] = fi[f, FI_SENT] - 1
    fi[f, RPI_PEND] = -1
    srtt = ff[f, FF_SRTT]
    step = srtt if srtt > 0.0 else INIT_SRTT
    set_deadline(S, (fi[f, FI_TIMER0] + SLOT_STEP) & POS, now + step, True)


@rare_handler
def on_ack(S, f, a):
    """An ACK (``a``: its packed ``PI_SEQ``) reaches the sender."""
    ff, fi = S.ff, S.fi
    now = S.gf[GF_NOW]
    seq = a & SEQ_MASK
    received = a >> SEQ_BITS
    if fi[f, FI_TIMING] != 0 and seq >= fi[f, FI_RTT_SEQ]:
        if seq == fi[f, FI_RTT_SEQ]:  # the timed packet: an RTT sample
            r = now - ff[f, FF_RTT_T0]
            if ff[f, FF_SRTT] < 0.0:  # the first: one packet per RTT, a step one RTT on
                ff[f, FF_SRTT] = r
                ff[f, RP_VAR] = 0.0
                ff[f, RP_FRTT] = r
                ff[f, RP_XRTT] = r
                ff[f, RP_IPG] = r
                set_deadline(S, (fi[f, FI_TIMER0] + SLOT_STEP) & POS, now + r, True)
            else:
                d = r - ff[f, FF_SRTT]
                ff[f, FF_SRTT] += DELTA * d
                ff[f, RP_VAR] += DELTA * (abs(d) - ff[f, RP_VAR])
                if ff[f, FF_SP + RAP_FINE] > 0.0:
                    ff[f, RP_FRTT] = (1.0 - K_FRTT) * ff[f, RP_FRTT] + K_FRTT * r
                    ff[f, RP_XRTT] = (1.0 - K_XRTT) * ff[f, RP_XRTT] + K_XRTT * r
            ff[f, RP_TIMEOUT] = MU * ff[f, FF_SRTT] + PHI * ff[f, RP_VAR]
            record_rtt(S, f, r)
        fi[f, FI_TIMING] = 0  # the timed packet is acknowledged, or a hole (the ACK rule)
        cancel(S, fi[f, FI_TIMER0] & POS)
    high = fi[f, RPI_HIGH]
    if seq > high:
        lost = seq + 1 - received
        if lost > fi[f, RPI_LOST]:  # new holes, above the highest sequence number acked
            fi[f, RPI_LOST] = lost
            if fi[f, RPI_PEND] < 0:
                h = high + 1
                if h <= fi[f, RPI_INACT]:
                    h = fi[f, RPI_INACT] + 1
                if h < seq:
                    fi[f, RPI_PEND] = h
        fi[f, RPI_HIGH] = seq
    if fi[f, RPI_PEND] >= 0 and seq - fi[f, RPI_PEND] >= ACK_THRESH:
        decrease(S, f, now)
    if fi[f, FI_TRACE0] >= 0:
        record(S, fi[f, FI_TRACE0], 1.0 / ff[f, RP_IPG])


@handler
def on_timeout(S, f):
    """The timed packet's loss timeout: a loss, unless the packet is inactive."""
    if S.fi[f, FI_RTT_SEQ] > S.fi[f, RPI_INACT]:
        decrease(S, f, S.gf[GF_NOW])


@handler
def on_step(S, f, k):
    """The increase step (slot 1): one more packet per ``SRTT``; the next step ``SRTT``
    later.  Lets the flow send nothing (the ticks send)."""
    ff = S.ff
    srtt = ff[f, FF_SRTT]
    c = srtt if srtt > 0.0 else INIT_SRTT
    ipg = ff[f, RP_IPG]
    ff[f, RP_IPG] = ipg * c / (ipg + c)
    set_deadline(S, (S.fi[f, FI_TIMER0] + SLOT_STEP) & POS, S.gf[GF_NOW] + c, True)
    return False


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_start": start,
    "source_next_tick": next_tick,
    "source_send_limit": send_limit,
    "source_ack": on_ack,
    "source_timeout": on_timeout,
    "source_timer": on_step,
    "receiver_feedback": feedback,
}
