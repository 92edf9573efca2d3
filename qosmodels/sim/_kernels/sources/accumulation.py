"""The ACC window source (spec: :class:`qosmodels.mechanisms.Accumulation`).

The parameter row starts with the generic window's columns (:mod:`.window`),
so the RTT average, the timeout and going back N are the generic ones; every
ACK that acknowledges new data is an RTT sample, timed from the first
transmission of the oldest packet it acknowledges.  A *round* ends when
everything sent at the last decision is acknowledged; then the round's
samples give ``rtt`` (their mean) and the estimator's ``rtt_p``, the
accumulation estimate is ``a = (W / rtt)(rtt - rtt_p)`` packets, and the
control law moves the real window ``W`` (``floor(W)`` outstanding).

Monaco's control loop runs on its own clock, as Section IV-B.1 has it: the
first pair of control packets leaves at the first round's end; each later
pair "after the arrival of the reverse OB control packet" (the echo), and the
echo's arrival is the control period at which eq (10) moves the window.  A
pair whose echo does not come back within the flow's retransmission timeout
(``beta`` times the averaged RTT: "similar to that of TCP") is replaced by a
new pair with a larger number (the control timer, slot 2); an echo of an
older pair is ignored.  The data rounds then only give the mean RTT of the
pacing rate ``W / rtt``.  Loss is detected as the paper says: the in-band
packet carries the count of data packets the sender has sent (``PF_COUNT``),
the receiver compares it with the data packets that have arrived, and when
more are missing than at the last in-band packet the echo says
"decrease-due-to-loss" (``PF_TAG1`` = 1) and the sender halves the window
instead of applying eq (10).  A retransmission timeout still halves the window
too and goes back N: the paper does not say what Monaco does on a data timeout,
and a flow whose in-band packets are lost with its data gets no echo to report
the loss (the control timer only replaces the pair).  With ``timeout_halves=False``
(``ACC_ECHO_ONLY`` = 1) the echo's decrease-due-to-loss is the only response to
loss, the one the paper's text gives; the timeout then only recovers the data
(going back N, the generic window's reliability, which the paper does not describe).

References
----------
Y. Xia, D. Harrison, S. Kalyanaraman, K. Ramachandran, A. Venkatesan,
"Accumulation-based Congestion Control", eqs (3), (5)-(8); Mo, La, Anantharam,
Walrand, INFOCOM 1999 (Vegas-k).
"""

import numpy as np

from .._jit import POS, handler, rare_handler
from ..layout import (
    FF_ACK_BITS,
    FF_BITS,
    FF_RTO,
    FF_SP,
    FF_SS,
    FI_ARRIVED,
    FI_DELIVERED,
    FI_OOO_MASK,
    FI_OOO_OFF,
    FI_SENT,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_SS,
    FI_TIMER0,
    FI_TRACE0,
    GF_NOW,
    KIND_ACK,
    MARK_CTRL,
    MARK_OOB,
    PF_BITS,
    PF_COUNT,
    PF_QDELAY,
    PF_TAG0,
    PF_TAG1,
    PF_VDELAY,
    PI_HOP,
    PI_KIND,
    PI_MARK,
    PI_SEQ,
    W_BITS,
    W_FORWARD,
)
from ..pool import defer, release
from ..sender import new_packet
from ..timers import set_deadline
from ..trace import record
from . import window as generic

CODE = 8

CTRL_P, CTRL_AIAD, CTRL_MW = 0, 1, 2
EST_VEGAS, EST_VEGAS_K, EST_MONACO = 0, 1, 2
K_MAX = 8

# parameter columns (the first four are the generic window's)
ACC_MAX_WINDOW = generic.GEN_WINDOW
ACC_CONTROL = 4
ACC_ESTIMATOR = 5
ACC_KAPPA = 6
ACC_TARGET = 7       # bytes
ACC_K = 8
ACC_RTT_ERROR = 9    # s
ACC_CTRL_BITS = 10   # Monaco: the in-band control packet's size, bits (0: an ACK's)
ACC_ECHO_ONLY = 11   # Monaco: 1 if only the echo's decrease-due-to-loss halves (0: a timeout too)
PARAMS = ("max_window", "beta", "rtt_gain", "initial_rtt",
          ("control", lambda s: ("P", "AIAD", "MW").index(s.control)),
          ("estimator", lambda s: ("vegas", "vegas-k", "monaco").index(s.estimator)),
          "kappa", "target", "k", "rtt_error",
          ("control_size", lambda s: 8.0 * (s.control_size or 0)),
          ("timeout_halves", lambda s: 0.0 if s.timeout_halves else 1.0))
#: Timer slots of a flow: its retransmission timer, Monaco's pacing and Monaco's control
#: timer (a pair's echo overdue).
TIMERS = 3
SLOT_PACE = 1
SLOT_CONTROL = 2

# float state (FF_SS + ...)
AS_W = 0             # the window, packets
AS_SUM = 1           # the round's RTT samples, summed, s
AS_MIN = 2           # the smallest RTT since the start, s
AS_ROUND_MIN = 3     # the round's smallest sample, s
AS_RING = 4          # Vegas-k: the last K_MAX rounds' smallest samples, s (inf: none)
# ... where Monaco keeps, instead, its receiver's and sender's estimator state
MS_T_OB = 4          # receiver: when the last out-of-band packet arrived, s
MS_OB_PAIR = 5       # ... its pair number (-1: none)
MS_T_IB = 6          # receiver: when the last in-band packet arrived, s (-1: none)
MS_DELIV_IB = 7      # ... the data packets delivered by then
MS_RBAR = 8          # receiver: EWMA of the egress rate, bit/s
MS_EST = 9           # sender: the last accumulation estimate echoed, packets (for the record)
MS_PACE = 10         # sender: when the leaky bucket lets the next packet go, s
MS_RTT = 11          # sender: the last round's mean RTT, s (0: none yet, no pacing)
MS_LOST = 12         # receiver: data packets lost by the last in-band packet's arrival
# integer state (FI_SS + ...)
AI_ROUND_END = 0     # the round ends when SND.UNA reaches this sequence number
AI_N = 1             # the round's samples
AI_RING_POS = 2      # Vegas-k: where the next round's minimum goes; Monaco: the next pair


def setup(spec, ff, fi) -> int:
    """Initial state of a flow (its rows ``ff``, ``fi``); returns its largest window, packets."""
    generic.setup_estimator(spec, ff, fi)
    ff[FF_SS + AS_W] = spec.initial_window
    ff[FF_SS + AS_MIN] = np.inf
    ff[FF_SS + AS_ROUND_MIN] = np.inf
    ff[FF_SS + AS_RING:FF_SS + AS_RING + K_MAX] = np.inf
    fi[FI_SS + AI_ROUND_END] = 1  # the first decision when the first packet is acknowledged
    if spec.estimator == "monaco":
        ff[FF_SS + MS_OB_PAIR] = -1.0
        ff[FF_SS + MS_T_IB] = -1.0
        ff[FF_SS + MS_RBAR] = 0.0
        ff[FF_SS + MS_EST] = 0.0
        ff[FF_SS + MS_PACE] = 0.0
        ff[FF_SS + MS_RTT] = 0.0
        ff[FF_SS + MS_LOST] = 0.0
    return int(np.ceil(spec.max_window))


def traces(spec) -> tuple[str, ...]:
    """Trace channels: Monaco's estimate at each control period (the echo's arrival),
    packets, if ``record``."""
    return ("monaco_estimate",) if spec.record and spec.estimator == "monaco" else ()


@rare_handler
def send_limit(S, f):
    """One past the last sequence number the window allows now: ``floor(W)`` outstanding;
    Monaco paces them, one packet per ``rtt / W`` (a leaky bucket of rate ``W / rtt``,
    ``rtt`` the last round's mean; the pacing timer, slot 1, waking the sender)."""
    ff, fi = S.ff, S.fi
    lim = fi[f, FI_SND_UNA] + np.int64(ff[f, FF_SS + AS_W])
    nxt = fi[f, FI_SND_NXT]
    if ff[f, FF_SP + ACC_ESTIMATOR] != EST_MONACO or nxt >= lim:
        return lim
    now = S.gf[GF_NOW]
    t = ff[f, FF_SS + MS_PACE]
    slot = (fi[f, FI_TIMER0] + SLOT_PACE) & POS
    if now < t:
        set_deadline(S, slot, t, True)
        return nxt
    gap = ff[f, FF_SS + MS_RTT] / ff[f, FF_SS + AS_W]
    ff[f, FF_SS + MS_PACE] = (t if t > now - gap else now) + gap
    if nxt + 1 < lim:
        set_deadline(S, slot, ff[f, FF_SS + MS_PACE], True)
    return nxt + 1


@handler
def on_timer(S, f, k):
    """Flow ``f``'s timer slot ``k`` (>= 1): the pacing timer (slot 1) lets the flow send
    again; the control timer (slot 2) replaces an overdue pair by a new one."""
    if k == SLOT_CONTROL:
        send_pair(S, f)
        return False
    return True


@handler
def rtt_p(S, f):
    """The estimator's round-trip propagation delay, s (its error included)."""
    ff = S.ff
    if ff[f, FF_SP + ACC_ESTIMATOR] == EST_MONACO:
        return ff[f, FF_SS + AS_MIN] + ff[f, FF_SP + ACC_RTT_ERROR]
    if ff[f, FF_SP + ACC_ESTIMATOR] == EST_VEGAS_K:
        k = np.int64(ff[f, FF_SP + ACC_K])
        pos = S.fi[f, FI_SS + AI_RING_POS]
        m = np.inf
        for j in range(k):  # the last k rounds, this one included
            v = ff[f, FF_SS + AS_RING + ((pos - 1 - j) % K_MAX)]
            if v < m:
                m = v
    else:
        m = ff[f, FF_SS + AS_MIN]
    return m + ff[f, FF_SP + ACC_RTT_ERROR]


@handler
def target_packets(S, f):
    """The target accumulation ``a*``, packets."""
    return S.ff[f, FF_SP + ACC_TARGET] * 8.0 / S.ff[f, FF_BITS]


@handler
def control_law(S, f, a, rtt, base):
    """Move the window by the control law for accumulation estimate ``a`` (packets),
    ``rtt`` the mean RTT and ``base`` the estimator's ``rtt_p`` (s; eq (5) only), then clip
    it to ``[1, max_window]``."""
    ff = S.ff
    w = ff[f, FF_SS + AS_W]
    target = target_packets(S, f)
    kappa = ff[f, FF_SP + ACC_KAPPA]
    law = ff[f, FF_SP + ACC_CONTROL]
    if law == CTRL_P:                                     # eq (6), eq (10)
        w -= kappa * (a - target)
    elif law == CTRL_AIAD:                                # eq (3)
        if a > target:
            w -= kappa
        elif a < target:
            w += kappa
    else:                                                 # eq (5)
        w -= kappa * (base / rtt) * (a - target) / w
    if w < 1.0:
        w = 1.0
    if w > ff[f, FF_SP + ACC_MAX_WINDOW]:
        w = ff[f, FF_SP + ACC_MAX_WINDOW]
    ff[f, FF_SS + AS_W] = w


@handler
def decide(S, f):
    """End of a round: Vegas' and Vegas-k's estimate and the control law; Monaco's mean
    RTT (its pacing rate) and, at the first round's end, its first pair."""
    ff, fi = S.ff, S.fi
    n = fi[f, FI_SS + AI_N]
    monaco = ff[f, FF_SP + ACC_ESTIMATOR] == EST_MONACO
    if n > 0:
        rtt = ff[f, FF_SS + AS_SUM] / n
        if monaco:
            ff[f, FF_SS + MS_RTT] = rtt
        else:
            pos = fi[f, FI_SS + AI_RING_POS]
            ff[f, FF_SS + AS_RING + pos] = ff[f, FF_SS + AS_ROUND_MIN]
            fi[f, FI_SS + AI_RING_POS] = (pos + 1) % K_MAX
            base = rtt_p(S, f)
            a = ff[f, FF_SS + AS_W] / rtt * (rtt - base)      # packets, eq (8)
            control_law(S, f, a, rtt, base)
    ff[f, FF_SS + AS_SUM] = 0.0
    ff[f, FF_SS + AS_ROUND_MIN] = np.inf
    fi[f, FI_SS + AI_N] = 0
    fi[f, FI_SS + AI_ROUND_END] = fi[f, FI_SND_NXT] + 1
    if monaco and fi[f, FI_SS + AI_RING_POS] == 0:  # the control loop starts
        send_pair(S, f)


@handler
def send_pair(S, f):
    """Monaco's next pair, out of band then in band, back to back; the control timer
    waits one retransmission timeout for its echo."""
    fi = S.fi
    pair = fi[f, FI_SS + AI_RING_POS]
    fi[f, FI_SS + AI_RING_POS] = pair + 1
    send_control(S, f, pair, True)
    send_control(S, f, pair, False)
    set_deadline(S, (fi[f, FI_TIMER0] + SLOT_CONTROL) & POS,
                 S.gf[GF_NOW] + S.ff[f, FF_RTO], True)


@handler
def send_control(S, f, pair, oob):
    """Send Monaco's control packet number ``pair`` of flow ``f`` (``oob``: out of band),
    the size of an ACK (the in-band one ``control_size`` if given), straight to the first
    link (no edge element sees it)."""
    bits = S.ff[f, FF_ACK_BITS]
    if not oob and S.ff[f, FF_SP + ACC_CTRL_BITS] > 0.0:
        bits = S.ff[f, FF_SP + ACC_CTRL_BITS]
    p = new_packet(S, f, pair, MARK_CTRL | MARK_OOB if oob else MARK_CTRL, bits)
    if p >= 0 and not oob:  # the byte count: data packets sent so far
        S.pf[p, PF_COUNT] = S.fi[f, FI_SENT]
    if p >= 0:
        defer(S, (p << W_BITS) | W_FORWARD)


@rare_handler
def receiver_control(S, f, p):
    """Monaco's egress: an out-of-band packet stamps its arrival; the in-band packet of
    the same pair measures the forward queueing time between them, times the EWMA of
    the egress rate (time constant rtt_p), adds the virtual delays the AVD links put on it
    (``PF_VDELAY``), and turns into the echo, out of band back to the sender with the
    estimate (packets) in its first tag."""
    ff, fi, pi, pf = S.ff, S.fi, S.pi, S.pf
    now = S.gf[GF_NOW]
    pair = pi[p, PI_SEQ]
    if pi[p, PI_MARK] & MARK_OOB:
        ff[f, FF_SS + MS_T_OB] = now
        ff[f, FF_SS + MS_OB_PAIR] = pair
        release(S, p)
        return
    delivered = fi[f, FI_DELIVERED]
    t_ib = ff[f, FF_SS + MS_T_IB]
    if t_ib >= 0.0 and now > t_ib:  # the egress rate since the last in-band packet
        r = (delivered - ff[f, FF_SS + MS_DELIV_IB]) * ff[f, FF_BITS] / (now - t_ib)
        tau = ff[f, FF_SS + AS_MIN]
        g = 1.0 - np.exp(-(now - t_ib) / tau) if tau < np.inf else 1.0
        ff[f, FF_SS + MS_RBAR] += g * (r - ff[f, FF_SS + MS_RBAR])
    ff[f, FF_SS + MS_T_IB] = now
    ff[f, FF_SS + MS_DELIV_IB] = delivered
    if ff[f, FF_SS + MS_OB_PAIR] != pair:  # its out-of-band twin was lost: no estimate
        release(S, p)
        return
    # data sent before this in-band packet and not arrived by now were lost (the path
    # keeps a flow's in-band packets in order); more than at the last one: a new loss
    lost = pf[p, PF_COUNT] - fi[f, FI_ARRIVED]
    new_loss = lost > ff[f, FF_SS + MS_LOST]
    ff[f, FF_SS + MS_LOST] = lost
    ftt_q = now - ff[f, FF_SS + MS_T_OB]
    if ftt_q < 0.0:
        ftt_q = 0.0
    # the forward queueing time, plus the virtual delays of the AVD links on the way
    pf[p, PF_TAG0] = (ftt_q + pf[p, PF_VDELAY]) * ff[f, FF_SS + MS_RBAR] / ff[f, FF_BITS]
    pf[p, PF_TAG1] = 1.0 if new_loss else 0.0
    pi[p, PI_KIND] = KIND_ACK
    pi[p, PI_MARK] = MARK_CTRL | MARK_OOB
    pi[p, PI_HOP] = 0
    pf[p, PF_BITS] = ff[f, FF_ACK_BITS]
    pf[p, PF_QDELAY] = 0.0
    defer(S, (p << W_BITS) | W_FORWARD)


@handler
def on_echo(S, f, p):
    """The echo of the last pair reaches the sender: a control period, eq (10) with its
    estimate, and the next pair (the echo of an older pair, replaced after a timeout, is
    ignored); recorded on the ``monaco_estimate`` channel if asked for."""
    ff, fi = S.ff, S.fi
    if S.pi[p, PI_SEQ] != fi[f, FI_SS + AI_RING_POS] - 1:
        return
    a = S.pf[p, PF_TAG0]
    ff[f, FF_SS + MS_EST] = a
    if fi[f, FI_TRACE0] >= 0:
        record(S, fi[f, FI_TRACE0], a)
    if S.pf[p, PF_TAG1] > 0.0:  # decrease-due-to-loss: halve, as Reno
        w = 0.5 * ff[f, FF_SS + AS_W]
        ff[f, FF_SS + AS_W] = w if w > 1.0 else 1.0
    else:
        rtt = ff[f, FF_SS + MS_RTT]
        control_law(S, f, a, rtt, rtt_p(S, f))
    send_pair(S, f)


@rare_handler
def on_ack(S, f, a):
    """ACK ``a``: its RTT sample into the round, the generic window's sliding, RTT and
    timer, and at the end of a round the decision."""
    ff, fi = S.ff, S.fi
    una = fi[f, FI_SND_UNA]
    if a > una:
        r = S.gf[GF_NOW] - S.stime[(fi[f, FI_OOO_OFF] + (una & fi[f, FI_OOO_MASK])) & POS]
        ff[f, FF_SS + AS_SUM] += r
        fi[f, FI_SS + AI_N] += 1
        if r < ff[f, FF_SS + AS_ROUND_MIN]:
            ff[f, FF_SS + AS_ROUND_MIN] = r
        if r < ff[f, FF_SS + AS_MIN]:
            ff[f, FF_SS + AS_MIN] = r
    generic.on_ack(S, f, a)
    if a >= fi[f, FI_SS + AI_ROUND_END]:
        decide(S, f)


@handler
def on_timeout(S, f):
    """A retransmission timeout halves the window (at least 1; not with
    ``timeout_halves=False``, where only Monaco's echo does) and starts a new round."""
    if S.ff[f, FF_SP + ACC_ECHO_ONLY] == 0.0:
        w = 0.5 * S.ff[f, FF_SS + AS_W]
        S.ff[f, FF_SS + AS_W] = w if w > 1.0 else 1.0
    S.ff[f, FF_SS + AS_SUM] = 0.0
    S.ff[f, FF_SS + AS_ROUND_MIN] = np.inf
    S.fi[f, FI_SS + AI_N] = 0
    S.fi[f, FI_SS + AI_ROUND_END] = S.fi[f, FI_SND_NXT] + 1


@handler
def window(S, f):
    """The window ``W``, packets (for the recorded series)."""
    return S.ff[f, FF_SS + AS_W]


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": send_limit,
    "source_ack": on_ack,
    "source_timeout": on_timeout,
    "source_timer": on_timer,
    "receiver_control": receiver_control,
    "source_echo": on_echo,
    "source_window": window,
}
