"""What every sender shares: sending a data packet and arming its retransmission timer.

The mechanism-specific parts (the window, the reaction to an ACK or a timeout)
are in the source modules (``sources/``), reached through :mod:`.dispatch`;
the handlers here are below them and call none.
"""

from ._jit import POS, handler
from .dispatch_edges import edge_ingress
from .layout import (
    EDGE_PASS,
    EI_CODE,
    FF_BITS,
    FF_RTO,
    FF_RTT_SUM_W,
    FF_RTT_T0,
    FI_CLASS,
    FI_EARLY_TIMER,
    FI_EDGE,
    FI_MARK0,
    FI_MAXSEQ,
    FI_OOO_MASK,
    FI_OOO_OFF,
    FI_PER_ACK,
    FI_RACK,
    FI_RETX,
    FI_RETX_W,
    FI_RTT_N_W,
    FI_RTT_SEQ,
    FI_SENT,
    FI_TIMER0,
    FI_TIMING,
    FI_WINDOWED,
    GF_NOW,
    GF_WARMUP,
    KIND_DATA,
    PF_BITS,
    PF_QDELAY,
    PF_TAG0,
    PF_TAG1,
    PF_VDELAY,
    PI_CLASS,
    PI_FLOW,
    PI_HOP,
    PI_KIND,
    PI_MARK,
    PI_SEQ,
    W_BITS,
    W_FORWARD,
)
from .pool import alloc, defer
from .rackstate import stamp
from .timers import set_deadline


@handler
def arm_timer(S, f):
    """(Re)start flow ``f``'s retransmission timer (its timer slot 0) with its current RTO.

    Under the RFC timer rules (``FI_EARLY_TIMER``) a deadline moved earlier
    (an RTO that shrank) fires on time; under the reference rules the timer
    fires at the old, later time (see :mod:`.timers`).
    """
    set_deadline(S, S.fi[f, FI_TIMER0] & POS, S.gf[GF_NOW] + S.ff[f, FF_RTO],
                 S.fi[f, FI_EARLY_TIMER] != 0)


@handler
def record_rtt(S, f, r):
    """Count RTT sample ``r`` (s) that flow ``f``'s estimator took, if inside the window
    (for the mean RTT estimate a result reports; the estimator itself is the source's)."""
    if S.gf[GF_NOW] >= S.gf[GF_WARMUP]:
        S.ff[f, FF_RTT_SUM_W] += r
        S.fi[f, FI_RTT_N_W] += 1


@handler
def new_packet(S, f, seq, mark, bits):
    """A fresh packet of flow ``f`` leaving its sender: number ``seq``, marks ``mark``,
    ``bits`` long, at hop 0, in the flow's class, tags cleared; -1 if the pool is full."""
    pi, pf = S.pi, S.pf
    p = alloc(S)
    if p < 0:
        return p
    pi[p, PI_FLOW] = f
    pi[p, PI_SEQ] = seq
    pi[p, PI_HOP] = 0
    pi[p, PI_KIND] = KIND_DATA
    pi[p, PI_MARK] = mark
    pi[p, PI_CLASS] = S.fi[f, FI_CLASS]
    pf[p, PF_BITS] = bits
    pf[p, PF_QDELAY] = 0.0
    pf[p, PF_TAG0] = 0.0
    pf[p, PF_TAG1] = 0.0
    pf[p, PF_VDELAY] = 0.0
    return p


@handler
def transmit(S, f, seq):
    """Send data packet ``seq`` of flow ``f`` towards its first hop (through its edge
    element, if it has one, which may mark, drop or hold it); False if the pool is full."""
    ff, fi = S.ff, S.fi
    p = new_packet(S, f, seq, fi[f, FI_MARK0], ff[f, FF_BITS])
    if p < 0:
        return False
    fi[f, FI_SENT] += 1
    if fi[f, FI_WINDOWED] != 0:
        per_ack = fi[f, FI_PER_ACK] != 0
        if fi[f, FI_RACK] != 0:  # RFC 8985 6.1: the transmit time (a SACK flow's ``rack``)
            stamp(S, f, seq, seq < fi[f, FI_MAXSEQ])
        if seq < fi[f, FI_MAXSEQ]:
            fi[f, FI_RETX] += 1
            if S.gf[GF_NOW] >= S.gf[GF_WARMUP]:
                fi[f, FI_RETX_W] += 1
            fi[f, FI_TIMING] = 0  # Karn: never time a retransmitted packet
            if fi[f, FI_PER_ACK] == 1:
                S.stime[(fi[f, FI_OOO_OFF] + (seq & fi[f, FI_OOO_MASK])) & POS] = -1.0
            # (FI_PER_ACK == 2 keeps the time of the first transmission)
        else:
            fi[f, FI_MAXSEQ] = seq + 1
            if per_ack:
                S.stime[(fi[f, FI_OOO_OFF] + (seq & fi[f, FI_OOO_MASK])) & POS] = S.gf[GF_NOW]
            elif fi[f, FI_TIMING] == 0:
                fi[f, FI_TIMING] = 1
                fi[f, FI_RTT_SEQ] = seq
                ff[f, FF_RTT_T0] = S.gf[GF_NOW]
    e = fi[f, FI_EDGE]
    if e >= 0 and edge_ingress(S, S.ei[e & POS, EI_CODE], e & POS, f, p) != EDGE_PASS:
        return True  # dropped or held by the flow's edge element
    defer(S, (p << W_BITS) | W_FORWARD)
    return True
