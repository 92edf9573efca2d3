"""Receivers: goodput, queueing delay and its histogram, out-of-order buffering, the ACK."""

import numpy as np

from ._jit import POS, handler
from .delack import arrive, echo
from .dispatch import receiver_control, receiver_echo, receiver_feedback
from .dispatch_edges import edge_echo
from .layout import (
    EI_CODE,
    FF_ACK_BITS,
    FF_BITS,
    FF_BYTES_W,
    FF_HIST_W,
    FF_QD_MAX,
    FF_QD_SQ,
    FF_QD_SUM,
    FI_ACKS_SENT,
    FI_ARRIVED,
    FI_ARRIVED_W,
    FI_CODE,
    FI_DA_M,
    FI_DELIV_W,
    FI_DELIVERED,
    FI_EDGE,
    FI_MARKED,
    FI_OOO_MASK,
    FI_OOO_OFF,
    FI_QD_N,
    FI_RCV_NXT,
    FI_WINDOWED,
    GF_NOW,
    GF_WARMUP,
    GI_NBINS,
    GI_STATUS,
    KIND_ACK,
    MARK_CE,
    MARK_CTRL,
    MARK_DECBIT,
    PF_BITS,
    PF_QDELAY,
    PI_FLOW,
    PI_HOP,
    PI_KIND,
    PI_MARK,
    PI_SEQ,
    ST_RECEIVER_WINDOW,
    W_BITS,
    W_FORWARD,
)
from .pool import defer, release
from .sack import report


@handler
def deliver(S, f, n):
    """Count ``n`` new (first-copy) packets of flow ``f`` as delivered."""
    S.fi[f, FI_DELIVERED] += n
    if S.gf[GF_NOW] >= S.gf[GF_WARMUP]:
        S.fi[f, FI_DELIV_W] += n
        S.ff[f, FF_BYTES_W] += n * S.ff[f, FF_BITS] / 8.0


@handler
def on_data(S, p):
    """Data packet ``p`` reaches its receiver; window flows (and open-loop sources that
    want feedback) turn it into their ACK, or, with delayed ACKs, may hold it back
    (:mod:`.delack`)."""
    ff, fi, pi, ooo = S.ff, S.fi, S.pi, S.ooo
    f = pi[p, PI_FLOW] & POS
    if pi[p, PI_MARK] & MARK_CTRL:  # a control packet: the source's receiver side, not data
        receiver_control(S, fi[f, FI_CODE], f, p)
        return
    fi[f, FI_ARRIVED] += 1
    if pi[p, PI_MARK] & (MARK_CE | MARK_DECBIT) != 0:
        fi[f, FI_MARKED] += 1
    if S.gf[GF_NOW] >= S.gf[GF_WARMUP]:
        fi[f, FI_ARRIVED_W] += 1
        qd = S.pf[p, PF_QDELAY]
        ff[f, FF_QD_SUM] += qd
        ff[f, FF_QD_SQ] += qd * qd
        if qd > ff[f, FF_QD_MAX]:
            ff[f, FF_QD_MAX] = qd
        fi[f, FI_QD_N] += 1
        b = np.int64(qd / ff[f, FF_HIST_W])
        nb = S.gi[GI_NBINS]
        S.hist[f, (b if b < nb else nb - 1) & POS] += 1.0
    if fi[f, FI_WINDOWED] == 0:
        deliver(S, f, 1)
        # an open-loop source may still want feedback (it sets the ACK's PI_SEQ)
        if not receiver_feedback(S, fi[f, FI_CODE], f, p):
            release(S, p)
            return
    else:
        seq = pi[p, PI_SEQ]
        rn = fi[f, FI_RCV_NXT]
        rn0 = rn
        off = fi[f, FI_OOO_OFF] & POS
        mask = fi[f, FI_OOO_MASK] & POS
        # goodput counts each packet once, when its first copy arrives (in order or
        # not): counting at in-order delivery instead would credit a window's worth of
        # buffered packets to the moment a hole is filled
        if seq == rn:
            deliver(S, f, 1)
            rn += 1
            while ooo[off + (rn & mask)] != 0:
                ooo[off + (rn & mask)] = 0
                rn += 1
            fi[f, FI_RCV_NXT] = rn
        elif seq > rn:
            if seq - rn > mask:
                S.gi[GI_STATUS] = ST_RECEIVER_WINDOW
            elif ooo[off + (seq & mask)] == 0:
                ooo[off + (seq & mask)] = 1
                deliver(S, f, 1)
        if fi[f, FI_DA_M] > 1 and arrive(S, f, p, seq, rn0):  # a delayed ACK (.delack)
            release(S, p)
            return
        if fi[f, FI_WINDOWED] > 1:  # the SACK option (RFC 2018) the ACK carries
            report(S, f, p, seq, rn)
        pi[p, PI_SEQ] = rn  # the cumulative acknowledgement
    # the data packet becomes its acknowledgement
    pi[p, PI_KIND] = KIND_ACK
    pi[p, PI_HOP] = 0
    pi[p, PI_MARK] = receiver_echo(S, fi[f, FI_CODE], f, p)
    if fi[f, FI_DA_M] > 1:  # (after the source's echo, which reads the data packet's marks)
        pi[p, PI_MARK] = echo(S, f, pi[p, PI_MARK])
    S.pf[p, PF_BITS] = ff[f, FF_ACK_BITS]
    S.pf[p, PF_QDELAY] = 0.0
    fi[f, FI_ACKS_SENT] += 1
    e = fi[f, FI_EDGE]
    if e >= 0:  # the flow's edge element may put tickets on the ACK (receiver-based PPS)
        edge_echo(S, S.ei[e & POS, EI_CODE], e & POS, f, p)
    defer(S, (p << W_BITS) | W_FORWARD)
