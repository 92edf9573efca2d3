"""A rate-based TCP-friendly source (spec: :class:`qosmodels.mechanisms.TcpFriendly`).

TFRC (RFC 5348) with RFC 5348's TCP throughput equation or, in its place, the ABE
paper's eq (2) (the spec's ``equation``): the source sends one packet every ``1 / X`` seconds (an open-loop tick), the
receiver returns a feedback packet for every data packet
(:func:`receiver_feedback`, which packs the data packet's sequence number and
the number of packets received so far into the feedback's ``PI_SEQ``), and
on each feedback the sender

* takes an RTT sample when it acknowledges the packet being timed (one at a
  time, as TCP without timestamps; EWMA with weight 0.1, RFC 5348 Section
  4.3);
* measures the receive rate ``X_recv`` over intervals of at least one RTT;
* counts losses as sequence numbers the receiver never got (sent minus
  received), grouping losses detected within one RTT of a loss event's first
  into that event (RFC 5348 Section 5.2, with detection times standing in for
  send times), or, with ``loss="packets"``, making every lost packet an event
  of its own (the loss *ratio* of eq (2)'s model);
* estimates the loss event rate ``p`` by the Average Loss Interval method over
  the last 8 loss intervals with weights 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2, the
  open interval counted when it raises the mean (RFC 5348 Section 5.4;
  Floyd, Handley, Padhye, Widmer, SIGCOMM 2000, Section 3.1); the first
  interval is synthesised from the receive rate at the first loss by
  inverting the equation (RFC 5348 Section 6.3.1: eq (2) in closed form,
  RFC 5348's by bisection, :func:`rfc_p_of_x`);
* sets ``X = max(min(x(p, R), 2 X_recv), 1/64)`` packets/s, ``x`` RFC 5348's
  equation with ``b = 1`` and ``t_RTO = 4 R`` (:func:`rfc_rate`) or the ABE
  paper's eq (2) (:func:`qosmodels.abe._x`, one copy), ``R`` the smoothed
  RTT; before the first loss it doubles ``X`` once per RTT, capped at twice
  the receive rate, starting from 4 packets per RTT at the first RTT sample
  (RFC 5348 Sections 4.2 and 4.3);
* without feedback for ``max(4 R, 2 / X)`` seconds it halves ``X`` (the
  no-feedback timer, RFC 5348 Section 4.4), down to one packet per 64 s.

Units: rates in packets/s, times in s.
"""

import numpy as np

from .... import abe as _abe
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
from ..timers import set_deadline
from ..trace import record

CODE = 7
TF_INIT_RATE = 0
TF_EVENTS = 1                # 1: losses within one RTT form one event; 0: every loss is one
TF_RFC = 2                   # 1: RFC 5348's TCP throughput equation; 0: the ABE paper's eq (2)
PARAMS = ("initial_rate", ("events", lambda spec: spec.loss == "events"),
          ("rfc5348", lambda spec: spec.equation == "rfc5348"))
#: Timer slots of a flow: the no-feedback timer (slot 0, the one a window flow's RTO uses).
TIMERS = 1

N_HIST = 8                   # loss intervals kept
MIN_RATE = 1.0 / 64.0        # packets/s (RFC 5348's t_mbi = 64 s)
W_INIT = 4.0                 # packets per RTT at the first RTT sample
RTT_WEIGHT = 0.1
SEQ_BITS = 32                # a feedback's PI_SEQ: data sequence number | received << 32
SEQ_MASK = (1 << SEQ_BITS) - 1

#: Eq (2) and its inverse, compiled from :mod:`qosmodels.abe` (one copy of each).
_x = handler(_abe._x)
_q_of_x = handler(_abe._q_of_x)

P_LOW = 1e-12                # the inversion's bracket of loss event rates: [P_LOW, 1]
INVERT_STEPS = 64            # bisection steps on log p (the bracket shrinks 2^-64-fold in log)


@handler
def rfc_rate(p, rtt):
    """RFC 5348's TCP throughput equation (Section 3.1) in packets/s, with ``b = 1`` and
    ``t_RTO = 4 R`` (the values the RFC recommends): ``1 / (R sqrt(2 p / 3) + 4 R (3
    sqrt(3 p / 8)) p (1 + 32 p^2))``; ``p`` the loss event rate, ``rtt`` (``R``) in s."""
    return 1.0 / (rtt * np.sqrt(2.0 * p / 3.0)
                  + 4.0 * rtt * (3.0 * np.sqrt(3.0 * p / 8.0)) * p * (1.0 + 32.0 * p * p))


@handler
def rfc_p_of_x(x, rtt):
    """The loss event rate at which :func:`rfc_rate` gives ``x`` packets/s (RFC 5348,
    Section 6.3.1: "finding some p such that the throughput equation gives X_target"), by
    bisection on ``log p`` over ``[P_LOW, 1]`` (the equation falls with ``p``); 1 when even
    ``p = 1`` gives ``x`` or more, ``P_LOW`` when ``P_LOW`` gives less."""
    if rfc_rate(1.0, rtt) >= x:
        return 1.0
    if rfc_rate(P_LOW, rtt) <= x:
        return P_LOW
    lo = P_LOW
    hi = 1.0
    for _ in range(INVERT_STEPS):
        mid = np.sqrt(lo * hi)
        if rfc_rate(mid, rtt) > x:
            lo = mid
        else:
            hi = mid
    return np.sqrt(lo * hi)

# flow float state
TF_X = FF_SS                 # sending rate, packets/s
TF_SS_T = FF_SS + 1          # last doubling (slow start), s
TF_EV_T = FF_SS + 2          # detection time of the current loss event's first loss, s
TF_MARK_T = FF_SS + 3        # start of the receive-rate measurement, s
TF_XRECV = FF_SS + 4         # receive rate, packets/s (0: not measured yet)
TF_HIST = FF_SS + 5          # closed loss intervals, newest first (0: none), packets
# flow integer state
TFI_MARK_N = FI_SS           # packets received at TF_MARK_T
TFI_LOST = FI_SS + 1         # losses seen
TFI_EV_SEQ = FI_SS + 2       # first lost sequence number of the current loss event, -1: none yet
TFI_HIGH = FI_SS + 3         # highest sequence number fed back, -1: none


def traces(spec) -> tuple[str, ...]:
    """Trace channels, if ``record``: the rate ``X`` (packets/s) and the loss event rate
    ``p`` at every feedback."""
    return ("tfrc_rate", "loss_event_rate") if spec.record else ()


def setup_flow(spec, network, i, ff, fi) -> None:
    """Refuses an edge element in front of the flow (its ACK hook would misread the
    feedback's packed sequence number)."""
    from ....errors import ScenarioError

    for agg in network.aggregates:
        if agg.edge is not None and i in network.aggregate_members(agg.name):
            raise ScenarioError(
                f"flow {network.flow_names[i]!r} has a TcpFriendly source behind the edge "
                f"element of aggregate {agg.name!r}; the simulator does not run TcpFriendly "
                f"behind an edge element: take the flow out of the aggregate or give it a "
                f"window source")


def setup(spec, ff, fi) -> int:
    """Initial rate; no RTT sample, loss or feedback yet.  (Open loop: no window.)"""
    ff[TF_X] = spec.initial_rate
    ff[FF_SRTT] = -1.0
    ff[TF_SS_T] = -np.inf
    ff[TF_EV_T] = -np.inf
    fi[TFI_EV_SEQ] = -1
    fi[TFI_HIGH] = -1
    return 0


@handler
def start(S, f):
    """The first packet at once; the no-feedback timer at 2 s (RFC 5348, Section 4.2)."""
    now = S.gf[GF_NOW]
    push(S, now, (f << EV_BITS) | EV_SOURCE)
    set_deadline(S, S.fi[f, FI_TIMER0] & POS, now + 2.0, False)


@handler
def next_tick(S, f, now):
    """After a packet: time it if none is being timed; the next one ``1 / X`` later."""
    fi = S.fi
    if fi[f, FI_TIMING] == 0:
        fi[f, FI_TIMING] = 1
        fi[f, FI_RTT_SEQ] = fi[f, FI_SENT] - 1
        S.ff[f, FF_RTT_T0] = now
    return now + 1.0 / S.ff[f, TF_X]


@handler
def send_limit(S, f):
    """Nothing to send on feedback (the ticks send)."""
    return S.fi[f, FI_SND_NXT]


@handler
def feedback(S, f, p):
    """Turn data packet ``p`` into its feedback: its sequence number and the packets received."""
    S.pi[p, PI_SEQ] = (S.pi[p, PI_SEQ] & SEQ_MASK) | (S.fi[f, FI_ARRIVED] << SEQ_BITS)
    return True


@handler
def weight(i):
    """ALI weight of interval ``i`` (0 the newest): 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2."""
    return 1.0 if i < N_HIST // 2 else 1.0 - (i - (N_HIST // 2 - 1)) / (N_HIST // 2 + 1.0)


@handler
def loss_event_rate(hist, open_interval):
    """RFC 5348's Average Loss Interval: ``p = 1 / I_mean`` from the closed intervals
    ``hist`` (newest first, 0 where none yet) and the open one (packets)."""
    k = 0
    while k < hist.shape[0] and hist[k] > 0.0:
        k += 1
    tot0 = 0.0
    tot1 = 0.0
    wtot = 0.0
    for i in range(k):
        w = weight(i)
        tot0 += w * (open_interval if i == 0 else hist[i - 1])
        tot1 += w * hist[i]
        wtot += w
    return wtot / (tot0 if tot0 > tot1 else tot1)


@handler
def close_intervals(S, f, first, n):
    """Losses at sequence numbers ``first .. first + n - 1`` each close a loss interval
    (the oldest intervals drop out of the history of :data:`N_HIST`)."""
    ff, fi = S.ff, S.fi
    if n > N_HIST:  # the last N_HIST of them close intervals of one packet each
        for j in range(N_HIST):
            ff[f, TF_HIST + j] = 1.0
        fi[f, TFI_EV_SEQ] = first + n - 1
        return
    for k in range(n):
        for j in range(N_HIST - 1, 0, -1):
            ff[f, TF_HIST + j] = ff[f, TF_HIST + j - 1]
        ff[f, TF_HIST] = first + k - fi[f, TFI_EV_SEQ]
        fi[f, TFI_EV_SEQ] = first + k


@rare_handler
def on_feedback(S, f, a):
    """A feedback packet (``a``: its packed ``PI_SEQ``) reaches the sender."""
    ff, fi = S.ff, S.fi
    now = S.gf[GF_NOW]
    seq = a & SEQ_MASK
    received = a >> SEQ_BITS
    if fi[f, FI_TIMING] != 0 and seq >= fi[f, FI_RTT_SEQ]:
        if seq == fi[f, FI_RTT_SEQ]:
            r = now - ff[f, FF_RTT_T0]
            if ff[f, FF_SRTT] < 0.0:
                ff[f, FF_SRTT] = r
                x0 = W_INIT / r
                if ff[f, TF_X] < x0:
                    ff[f, TF_X] = x0
                ff[f, TF_SS_T] = now
                ff[f, TF_MARK_T] = now
                fi[f, TFI_MARK_N] = received
            else:
                ff[f, FF_SRTT] = (1.0 - RTT_WEIGHT) * ff[f, FF_SRTT] + RTT_WEIGHT * r
            record_rtt(S, f, r)
        fi[f, FI_TIMING] = 0
    rtt = ff[f, FF_SRTT]
    if rtt > 0.0 and now - ff[f, TF_MARK_T] >= rtt:
        ff[f, TF_XRECV] = (received - fi[f, TFI_MARK_N]) / (now - ff[f, TF_MARK_T])
        ff[f, TF_MARK_T] = now
        fi[f, TFI_MARK_N] = received
    high = fi[f, TFI_HIGH]
    lost = seq + 1 - received
    if lost > fi[f, TFI_LOST] and rtt > 0.0:
        new = lost - fi[f, TFI_LOST]
        fi[f, TFI_LOST] = lost
        first = high + 1  # the first sequence number the receiver missed
        events = ff[f, FF_SP + TF_EVENTS] > 0.0
        if fi[f, TFI_EV_SEQ] < 0:  # the first loss: an interval that gives the receive rate
            xr = ff[f, TF_XRECV] if ff[f, TF_XRECV] > 0.0 else ff[f, TF_X]
            if ff[f, FF_SP + TF_RFC] > 0.0:
                ff[f, TF_HIST] = 1.0 / rfc_p_of_x(xr, rtt)
            else:
                ff[f, TF_HIST] = 1.0 / _q_of_x(xr * rtt)
            fi[f, TFI_EV_SEQ] = first
            ff[f, TF_EV_T] = now
            if not events:  # the other packets lost with it: one interval of 1 each
                close_intervals(S, f, first + 1, new - 1)
        elif not events:  # every lost packet closes an interval
            close_intervals(S, f, first, new)
        elif now - ff[f, TF_EV_T] > rtt:  # a new loss event closes the open interval
            close_intervals(S, f, first, 1)
            ff[f, TF_EV_T] = now
    elif lost > fi[f, TFI_LOST]:
        fi[f, TFI_LOST] = lost  # before any RTT sample: not counted as loss events
    if seq > high:
        fi[f, TFI_HIGH] = seq
    if rtt <= 0.0:
        return
    x = ff[f, TF_X]
    xrecv = ff[f, TF_XRECV]
    pe = np.nan
    if fi[f, TFI_EV_SEQ] < 0:  # slow start: double once per RTT
        if now - ff[f, TF_SS_T] >= rtt:
            x = 2.0 * x
            if xrecv > 0.0 and x > 2.0 * xrecv:
                x = 2.0 * xrecv
            ff[f, TF_SS_T] = now
    else:
        pe = loss_event_rate(ff[f, TF_HIST:TF_HIST + N_HIST],
                             float(fi[f, TFI_HIGH] - fi[f, TFI_EV_SEQ] + 1))
        if pe > 1.0:
            pe = 1.0
        x = rfc_rate(pe, rtt) if ff[f, FF_SP + TF_RFC] > 0.0 else _x(pe, rtt)
        if xrecv > 0.0 and x > 2.0 * xrecv:
            x = 2.0 * xrecv
    if x < MIN_RATE:
        x = MIN_RATE
    ff[f, TF_X] = x
    if fi[f, FI_TRACE0] >= 0:
        record(S, fi[f, FI_TRACE0], x)
        record(S, fi[f, FI_TRACE0] + 1, pe)
    quiet = 4.0 * rtt
    if quiet < 2.0 / x:
        quiet = 2.0 / x
    set_deadline(S, fi[f, FI_TIMER0] & POS, now + quiet, False)


@handler
def on_nofeedback(S, f):
    """No feedback for the no-feedback interval: halve the rate, wait again."""
    ff = S.ff
    x = 0.5 * ff[f, TF_X]
    if x < MIN_RATE:
        x = MIN_RATE
    ff[f, TF_X] = x
    rtt = ff[f, FF_SRTT]
    quiet = 4.0 * rtt if rtt > 0.0 else 2.0
    if quiet < 2.0 / x:
        quiet = 2.0 / x
    set_deadline(S, S.fi[f, FI_TIMER0] & POS, S.gf[GF_NOW] + quiet, False)


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_start": start,
    "source_next_tick": next_tick,
    "source_send_limit": send_limit,
    "source_ack": on_feedback,
    "source_timeout": on_nofeedback,
    "receiver_feedback": feedback,
}
