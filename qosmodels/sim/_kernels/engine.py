"""The event loop: one jitted function, its handlers inner functions over the arrays.

Keeping every handler an inner function of :func:`run` (rather than separate
jitted functions taking arrays) lets Numba compile the loop as one unit
without reference-counting array arguments per call; measured on the
reference scenario this is 4-5x faster (``shared/reference-sim/README.md``).

The kernel sees only arrays (columns named in :mod:`.layout`) and returns a
status code.  It can be called repeatedly with a later ``t_stop`` to continue
a run: all state lives in the arrays.

Random numbers come from L'Ecuyer's MRG32k3a, whose state (six integers)
is an array of the scenario; its integer arithmetic stays inside 63 bits, so
the kernel gives the same numbers with and without ``NUMBA_DISABLE_JIT``.

References
----------
P. L'Ecuyer, "Good parameters and implementations for combined multiple
recursive random number generators", Operations Research 47(1), 1999.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .layout import (
    CBR_RATE,
    EV_ARRIVE,
    EV_BITS,
    EV_SAMPLE,
    EV_SOURCE,
    EV_START,
    EV_STOP,
    EV_TIMER,
    EV_TXDONE,
    FF_ACK_BITS,
    FF_BITS,
    FF_BYTES_W,
    FF_CWND,
    FF_DEADLINE,
    FF_HIST_W,
    FF_ON_END,
    FF_QD_SUM,
    FF_RTO,
    FF_RTT_T0,
    FF_RTTVAR,
    FF_SP,
    FF_SRTT,
    FF_SSTHRESH,
    FF_TIMER_AT,
    FI_ACK_DROPS,
    FI_ACKS_ARRIVED,
    FI_ACKS_SENT,
    FI_ACTIVE,
    FI_APP_LIMIT,
    FI_ARRIVED,
    FI_CLASS,
    FI_CODE,
    FI_DELIV_W,
    FI_DELIVERED,
    FI_DROPS,
    FI_DUPACKS,
    FI_ECN_RECOVER,
    FI_FAST_RTX,
    FI_FIRST_PARTIAL,
    FI_HEAD_LOST,
    FI_IN_REC,
    FI_MARKED,
    FI_MAXSEQ,
    FI_OOO_MASK,
    FI_OOO_OFF,
    FI_QD_N,
    FI_RCV_NXT,
    FI_RECOVER,
    FI_RENO_SACKED,
    FI_RETX,
    FI_RTT_SEQ,
    FI_SENT,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_TIMEOUTS,
    FI_TIMER,
    FI_TIMING,
    FI_WINDOWED,
    GEN_BETA,
    GEN_GAIN,
    GEN_WINDOW,
    GF_END,
    GF_INTERVAL,
    GF_NOW,
    GF_WARMUP,
    GI_CWND_TRACE,
    GI_EVENTS,
    GI_FREE_TOP,
    GI_HEAP_MAX,
    GI_HEAP_N,
    GI_NBINS,
    GI_NSAMPLE,
    GI_ORDER,
    GI_POOL_MAX,
    GI_SAMPLE,
    GI_STATUS,
    GI_WORK_HEAD,
    GI_WORK_N,
    LF_BITS_W,
    LF_BUSY,
    LF_CAP,
    LF_DELAY,
    LF_IDLE_SINCE,
    LF_QP,
    LF_RED_AVG,
    LI_ARR_W,
    LI_ARRIVALS,
    LI_CODE,
    LI_DEP_W,
    LI_DEPARTURES,
    LI_DROP_EARLY,
    LI_DROP_FORCED,
    LI_DROP_OVERFLOW,
    LI_DROPS_W,
    LI_MARKS,
    LI_MAX_WAITING,
    LI_NSLOT,
    LI_RED_COUNT,
    LI_SLOT0,
    LI_TX,
    LI_WAITING,
    LOSS_P,
    ONOFF_EXP,
    ONOFF_OFF,
    ONOFF_ON,
    ONOFF_RATE,
    PF_BITS,
    PF_ENQ,
    PF_QDELAY,
    PI_ACK,
    PI_CLASS,
    PI_FLOW,
    PI_HOP,
    PI_MARK,
    PI_SEQ,
    PI_USED,
    POI_RATE,
    Q_PRIORITY,
    Q_RANDOM_LOSS,
    Q_RED,
    RED_GENTLE,
    RED_MARK,
    RED_MAX_P,
    RED_MAX_TH,
    RED_MIN_TH,
    RED_TYPICAL_SIZE,
    RED_W_Q,
    S_CBR,
    S_NEWRENO,
    S_ONOFF,
    S_POISSON,
    SL_CAP,
    SL_COUNT,
    SL_HEAD,
    SL_OFF,
    ST_BAD_CLASS,
    ST_HEAP_FULL,
    ST_MAX_EVENTS,
    ST_OK,
    ST_POOL_FULL,
    ST_RECEIVER_WINDOW,
    ST_TRACE_FULL,
    ST_WORK_FULL,
    TCP_ECN,
    TCP_MAX_RTO,
    TCP_MAX_WINDOW,
    TCP_MIN_RTO,
    TCP_RECOVERY,
    TCP_RTT_PER_ACK,
    TCP_SEGMENT,
    TCP_TIMER,
    TIMER_IMPATIENT,
    TIMER_REFERENCE,
    W_BITS,
    W_FORWARD,
    W_SEND,
)

# MRG32k3a moduli and normalisation (L'Ecuyer 1999)
_M1 = 4294967087
_M2 = 4294944443
_NORM = 2.328306549295727688e-10
_EV_MASK = (1 << EV_BITS) - 1
#: The largest int64: an index and-ed with it is known to the compiler to be >= 0,
#: so Numba's negative-index wraparound code goes (indices are never negative;
#: a -1 sentinel is tested before masking).
POS = 0x7FFFFFFFFFFFFFFF


# ``_nrt=False`` compiles without Numba's reference-counting runtime: the kernel
# allocates nothing, so borrowed arrays are safe, and the inlined inner functions
# no longer pay an atomic incref/decref per captured array on every call (in a
# profile of the benchmark these took ~45% of the loop's time).  The numpy error
# model drops Python's zero-division checks (the kernel never divides by zero).
@njit(cache=True, error_model="numpy", _nrt=False)
def run(lf, li, slot, ring, ff, fi, r_ptr, r_link, a_ptr, a_link, a_delay,
        pi, pf, free, ht, ho, hd, ooo, stime, hist, thr_s, q_s, cw_s, gi, gf, rng, work,
        t_stop, max_events):
    """Process events with time <= ``t_stop``; return a status code (layout ``ST_*``).

    All arguments are the arrays of a compiled scenario (see
    ``qosmodels.sim.compile.Compiled``) except ``t_stop`` (s) and
    ``max_events`` (the total event budget, counted over every call).
    """
    INF = np.inf
    heap_cap = ht.shape[0]
    work_cap = work.shape[0]

    # Handlers never call the heavy handlers (forward a packet, let a flow send)
    # directly: they append work items to a FIFO that the loop drains after each
    # event, in order.  Each heavy handler then has one call site, which keeps the
    # compiled loop small (Numba inlines inner functions at every call site).
    def defer(item):
        n = gi[GI_WORK_N]
        if n >= work_cap:
            gi[GI_STATUS] = ST_WORK_FULL
            return
        j = gi[GI_WORK_HEAD] + n
        if j >= work_cap:
            j -= work_cap
        work[j & POS] = item
        gi[GI_WORK_N] = n + 1

    # ------------------------------------------------------------------ random numbers
    def rand():
        p1 = (1403580 * rng[1] - 810728 * rng[0]) % _M1
        rng[0] = rng[1]
        rng[1] = rng[2]
        rng[2] = p1
        p2 = (527612 * rng[5] - 1370589 * rng[3]) % _M2
        rng[3] = rng[4]
        rng[4] = rng[5]
        rng[5] = p2
        if p1 > p2:
            return (p1 - p2) * _NORM
        return (p1 - p2 + _M1) * _NORM

    def expo(mean):
        return -mean * math.log(rand())

    # ------------------------------------------------------------------ event heap
    def push(t, d):
        n = gi[GI_HEAP_N] & POS
        if n >= heap_cap:
            gi[GI_STATUS] = ST_HEAP_FULL
            return
        o = gi[GI_ORDER]
        gi[GI_ORDER] = o + 1
        gi[GI_HEAP_N] = n + 1
        if n + 1 > gi[GI_HEAP_MAX]:
            gi[GI_HEAP_MAX] = n + 1
        i = n
        while i > 0:
            par = (i - 1) >> 1
            tp = ht[par]
            if tp < t or (tp == t and ho[par] < o):
                break
            ht[i] = tp
            ho[i] = ho[par]
            hd[i] = hd[par]
            i = par
        ht[i] = t
        ho[i] = o
        hd[i] = d

    def pop_into_root():
        # removes the root; the caller has read it already
        n = (gi[GI_HEAP_N] - 1) & POS
        gi[GI_HEAP_N] = n
        t = ht[n]
        o = ho[n]
        d = hd[n]
        i = 0
        while True:
            c = (2 * i + 1) & POS
            if c >= n:
                break
            if c + 1 < n and (ht[c + 1] < ht[c] or (ht[c + 1] == ht[c] and ho[c + 1] < ho[c])):
                c += 1
            if t < ht[c] or (t == ht[c] and o < ho[c]):
                break
            ht[i] = ht[c]
            ho[i] = ho[c]
            hd[i] = hd[c]
            i = c
        ht[i] = t
        ho[i] = o
        hd[i] = d

    # ------------------------------------------------------------------ packet pool
    def alloc():
        top = gi[GI_FREE_TOP] & POS
        if top == 0:
            gi[GI_STATUS] = ST_POOL_FULL
            return -1
        top -= 1
        gi[GI_FREE_TOP] = top
        p = free[top] & POS
        pi[p, PI_USED] = 1
        alive = free.shape[0] - top
        if alive > gi[GI_POOL_MAX]:
            gi[GI_POOL_MAX] = alive
        return p

    def release(p):
        pi[p, PI_USED] = 0
        top = gi[GI_FREE_TOP] & POS
        free[top] = p
        gi[GI_FREE_TOP] = top + 1

    def in_window():
        return gf[GF_NOW] >= gf[GF_WARMUP]

    # ------------------------------------------------------------------ links and queues
    def drop(l, p, cause):
        li[l, cause] += 1
        if in_window():
            li[l, LI_DROPS_W] += 1
        f = pi[p, PI_FLOW] & POS
        if pi[p, PI_ACK] == 0:
            fi[f, FI_DROPS] += 1
        else:
            fi[f, FI_ACK_DROPS] += 1
        release(p)

    def start_tx(l, p):
        now = gf[GF_NOW]
        li[l, LI_TX] = p
        tx = pf[p, PF_BITS] / lf[l, LF_CAP]
        a = now if now > gf[GF_WARMUP] else gf[GF_WARMUP]
        b = now + tx
        if b > gf[GF_END]:
            b = gf[GF_END]
        if b > a:
            lf[l, LF_BUSY] += b - a
        push(now + tx, (l << EV_BITS) | EV_TXDONE)

    def ecn_capable(p):
        if pi[p, PI_ACK] != 0:
            return False
        f = pi[p, PI_FLOW] & POS
        return fi[f, FI_CODE] <= S_NEWRENO and ff[f, FF_SP + TCP_ECN] > 0.0

    def red_verdict(l):
        # 0 accept, 1 early (drop or mark), 2 forced drop
        now = gf[GF_NOW]
        waiting = li[l, LI_WAITING]
        wq = lf[l, LF_QP + RED_W_Q]
        avg = lf[l, LF_RED_AVG]
        if li[l, LI_TX] < 0:
            s = lf[l, LF_QP + RED_TYPICAL_SIZE] * 8.0 / lf[l, LF_CAP]
            m = (now - lf[l, LF_IDLE_SINCE]) / s
            avg *= (1.0 - wq) ** m
        avg = (1.0 - wq) * avg + wq * waiting
        lf[l, LF_RED_AVG] = avg
        minth = lf[l, LF_QP + RED_MIN_TH]
        maxth = lf[l, LF_QP + RED_MAX_TH]
        maxp = lf[l, LF_QP + RED_MAX_P]
        gentle = lf[l, LF_QP + RED_GENTLE] > 0.0
        if avg < minth:
            li[l, LI_RED_COUNT] = -1
            return 0
        if avg >= maxth and (not gentle or avg >= 2.0 * maxth):
            li[l, LI_RED_COUNT] = 0
            return 2
        cnt = li[l, LI_RED_COUNT] + 1
        li[l, LI_RED_COUNT] = cnt
        if avg < maxth:
            pb = maxp * (avg - minth) / (maxth - minth)
        else:
            pb = maxp + (1.0 - maxp) * (avg - maxth) / maxth
        den = 1.0 - cnt * pb
        pa = pb / den if den > 0.0 else 1.0
        if rand() < pa:
            li[l, LI_RED_COUNT] = 0
            return 1
        return 0

    def enqueue(l, p):
        now = gf[GF_NOW]
        li[l, LI_ARRIVALS] += 1
        if now >= gf[GF_WARMUP]:
            li[l, LI_ARR_W] += 1
        code = li[l, LI_CODE]
        k = 0
        cause = -1
        if code == Q_PRIORITY:
            k = pi[p, PI_CLASS]
            if k >= li[l, LI_NSLOT]:
                gi[GI_STATUS] = ST_BAD_CLASS
                release(p)
                return
        elif code == Q_RED:
            v = red_verdict(l)
            if v == 2:
                cause = LI_DROP_FORCED
            elif v == 1:
                if lf[l, LF_QP + RED_MARK] > 0.0 and ecn_capable(p):
                    pi[p, PI_MARK] |= 1
                    li[l, LI_MARKS] += 1
                else:
                    cause = LI_DROP_EARLY
        elif code == Q_RANDOM_LOSS:
            if rand() < lf[l, LF_QP + LOSS_P]:
                cause = LI_DROP_EARLY
        s = (li[l, LI_SLOT0] + k) & POS
        cap = slot[s, SL_CAP]
        cnt = slot[s, SL_COUNT]
        if cause < 0 and li[l, LI_TX] >= 0 and cnt >= cap:
            cause = LI_DROP_OVERFLOW
        if cause >= 0:
            drop(l, p, cause)
            return
        pf[p, PF_ENQ] = now
        if li[l, LI_TX] < 0:
            start_tx(l, p)
            return
        j = slot[s, SL_HEAD] + cnt
        if j >= cap:
            j -= cap
        ring[(slot[s, SL_OFF] + j) & POS] = p
        slot[s, SL_COUNT] = cnt + 1
        w = li[l, LI_WAITING] + 1
        li[l, LI_WAITING] = w
        if w > li[l, LI_MAX_WAITING]:
            li[l, LI_MAX_WAITING] = w

    def dequeue(l):
        s0 = li[l, LI_SLOT0] & POS
        for s in range(s0, s0 + li[l, LI_NSLOT]):
            s &= POS
            cnt = slot[s, SL_COUNT]
            if cnt > 0:
                h = slot[s, SL_HEAD]
                p = ring[(slot[s, SL_OFF] + h) & POS] & POS
                h += 1
                if h == slot[s, SL_CAP]:
                    h = 0
                slot[s, SL_HEAD] = h
                slot[s, SL_COUNT] = cnt - 1
                li[l, LI_WAITING] -= 1
                return p
        return -1

    def on_txdone(l):
        now = gf[GF_NOW]
        p = li[l, LI_TX] & POS  # (a link finishing a transmission has one)
        li[l, LI_DEPARTURES] += 1
        if now >= gf[GF_WARMUP]:
            li[l, LI_DEP_W] += 1
            lf[l, LF_BITS_W] += pf[p, PF_BITS]
        pi[p, PI_HOP] += 1
        push(now + lf[l, LF_DELAY], (p << EV_BITS) | EV_ARRIVE)
        q = dequeue(l)
        if q >= 0:
            pf[q, PF_QDELAY] += now - pf[q, PF_ENQ]
            start_tx(l, q)
        else:
            li[l, LI_TX] = -1
            lf[l, LF_IDLE_SINCE] = now

    def forward(p):
        # the packet stands before hop PI_HOP of its path (never past its end)
        f = pi[p, PI_FLOW] & POS
        h = pi[p, PI_HOP] & POS
        if pi[p, PI_ACK] == 0:
            l = r_link[(r_ptr[f] + h) & POS] & POS
        else:
            j = (a_ptr[f] + h) & POS
            l = a_link[j]
            if l < 0:  # a stretch of undeclared reverse links: propagation only
                pi[p, PI_HOP] = h + 1
                push(gf[GF_NOW] + a_delay[j], (p << EV_BITS) | EV_ARRIVE)
                return
            l &= POS
        enqueue(l, p)

    # ------------------------------------------------------------------ senders
    def arm_timer(f):
        # The pending RTO event is lazy: a later deadline leaves it in the heap and
        # on_timer sleeps on.  An earlier deadline (an RTO that shrank) pushes a
        # new event under the RFC timer rules -- the one pending is then stale and
        # on_timer ignores it, by its time -- but not under the reference rules,
        # whose timer fires at the old, later time.
        dl = gf[GF_NOW] + ff[f, FF_RTO]
        ff[f, FF_DEADLINE] = dl
        if fi[f, FI_TIMER] == 0 or (dl < ff[f, FF_TIMER_AT]
                                    and ff[f, FF_SP + TCP_TIMER] != TIMER_REFERENCE):
            fi[f, FI_TIMER] = 1
            ff[f, FF_TIMER_AT] = dl
            push(dl, (f << EV_BITS) | EV_TIMER)

    def transmit(f, seq):
        p = alloc()
        if p < 0:
            return False
        pi[p, PI_FLOW] = f
        pi[p, PI_SEQ] = seq
        pi[p, PI_HOP] = 0
        pi[p, PI_ACK] = 0
        pi[p, PI_MARK] = 0
        pi[p, PI_CLASS] = fi[f, FI_CLASS]
        pf[p, PF_BITS] = ff[f, FF_BITS]
        pf[p, PF_QDELAY] = 0.0
        fi[f, FI_SENT] += 1
        if fi[f, FI_WINDOWED] != 0:
            per_ack = ff[f, FF_SP + TCP_RTT_PER_ACK] > 0.0
            if seq < fi[f, FI_MAXSEQ]:
                fi[f, FI_RETX] += 1
                fi[f, FI_TIMING] = 0  # Karn: never time a retransmitted packet
                if per_ack:
                    stime[(fi[f, FI_OOO_OFF] + (seq & fi[f, FI_OOO_MASK])) & POS] = -1.0
            else:
                fi[f, FI_MAXSEQ] = seq + 1
                if per_ack:
                    stime[(fi[f, FI_OOO_OFF] + (seq & fi[f, FI_OOO_MASK])) & POS] = gf[GF_NOW]
                elif fi[f, FI_TIMING] == 0:
                    fi[f, FI_TIMING] = 1
                    fi[f, FI_RTT_SEQ] = seq
                    ff[f, FF_RTT_T0] = gf[GF_NOW]
        defer((p << W_BITS) | W_FORWARD)
        return True

    def send_packets(f):
        if fi[f, FI_ACTIVE] == 0:
            return
        if fi[f, FI_CODE] <= S_NEWRENO:
            w = ff[f, FF_CWND]
            wmax = ff[f, FF_SP + TCP_MAX_WINDOW]
            if w > wmax:
                w = wmax
        else:
            w = ff[f, FF_SP + GEN_WINDOW]
        lim = fi[f, FI_SND_UNA] + np.int64(w)
        if fi[f, FI_RENO_SACKED] > 0:  # recovery="pipe": pipe = flight - SACKed < cwnd
            lim += fi[f, FI_RENO_SACKED]
            rwnd = fi[f, FI_SND_UNA] + np.int64(ff[f, FF_SP + TCP_MAX_WINDOW])
            if lim > rwnd:
                lim = rwnd
        if lim > fi[f, FI_APP_LIMIT]:
            lim = fi[f, FI_APP_LIMIT]
        nxt = fi[f, FI_SND_NXT]
        while nxt < lim:
            if not transmit(f, nxt):
                return
            nxt += 1
            fi[f, FI_SND_NXT] = nxt
        if ff[f, FF_DEADLINE] == INF and nxt > fi[f, FI_SND_UNA]:
            arm_timer(f)

    def rtt_sample(f, r):
        if fi[f, FI_CODE] <= S_NEWRENO:
            if ff[f, FF_SRTT] < 0.0:
                ff[f, FF_SRTT] = r
                ff[f, FF_RTTVAR] = r / 2.0
            else:
                e = r - ff[f, FF_SRTT]
                ff[f, FF_RTTVAR] = 0.75 * ff[f, FF_RTTVAR] + 0.25 * abs(e)
                ff[f, FF_SRTT] = 0.875 * ff[f, FF_SRTT] + 0.125 * r
            rto = ff[f, FF_SRTT] + 4.0 * ff[f, FF_RTTVAR]
            lo = ff[f, FF_SP + TCP_MIN_RTO]
            hi = ff[f, FF_SP + TCP_MAX_RTO]
            ff[f, FF_RTO] = lo if rto < lo else (hi if rto > hi else rto)
        else:
            g = ff[f, FF_SP + GEN_GAIN]
            ff[f, FF_SRTT] = (1.0 - g) * ff[f, FF_SRTT] + g * r
            ff[f, FF_RTO] = ff[f, FF_SP + GEN_BETA] * ff[f, FF_SRTT]

    def ca_increase(f, c):
        # congestion avoidance: cwnd + 1/cwnd per new ACK, or with window_arithmetic=
        # "bytes" ns-3's TcpNewReno::CongestionAvoidance on a window of whole bytes,
        # cwnd += max(1, (uint32_t)(S*S/cwnd)) bytes (the window kept as bytes / S)
        seg = ff[f, FF_SP + TCP_SEGMENT]
        if seg > 0.0:
            b = math.floor(c * seg + 0.5)
            d = math.floor(seg * seg / b)
            return (b + (d if d > 1.0 else 1.0)) / seg
        return c + 1.0 / c

    def halved(f, flight):
        # ssthresh = max(flight/2, 2); with window_arithmetic="bytes" ns-3's
        # TcpNewReno::GetSsThresh, max(2 S, bytesInFlight / 2) in integer bytes
        seg = ff[f, FF_SP + TCP_SEGMENT]
        if seg > 0.0:
            ss = math.floor(flight * seg / 2.0) / seg
        else:
            ss = flight / 2.0
        return ss if ss > 2.0 else 2.0

    def tcp_ack(f, a, ece):
        una = fi[f, FI_SND_UNA]
        newreno = fi[f, FI_CODE] == S_NEWRENO
        rules = np.int64(ff[f, FF_SP + TCP_TIMER])
        pipe = ff[f, FF_SP + TCP_RECOVERY] > 0.0
        if a > una:
            newly = a - una
            restart = True
            resend_head = False
            if pipe:
                # ns-3's TcpTxBuffer::DiscardUpTo: the duplicate ACKs' SACK marks sit on
                # una+1 .. una+s; those below a go with the acknowledged packets, and a
                # mark left on the new head moves to the next packet sent, if any, the
                # head being marked lost (so it is resent)
                sk = fi[f, FI_RENO_SACKED] - (newly - 1)
                room = fi[f, FI_MAXSEQ] - a - 1
                if sk > 0 and room >= 0:
                    resend_head = True
                if sk > room:
                    sk = room
                fi[f, FI_RENO_SACKED] = sk if sk > 0 else 0
                # the lost mark stays on that head until it is acknowledged
                fi[f, FI_HEAD_LOST] = 1 if resend_head else 0
            r = -1.0
            if ff[f, FF_SP + TCP_RTT_PER_ACK] > 0.0:
                # the oldest packet this ACK covers, unless it was retransmitted (Karn)
                t0 = stime[(fi[f, FI_OOO_OFF] + (una & fi[f, FI_OOO_MASK])) & POS]
                if t0 >= 0.0:
                    r = gf[GF_NOW] - t0
            elif fi[f, FI_TIMING] != 0 and a > fi[f, FI_RTT_SEQ]:
                r = gf[GF_NOW] - ff[f, FF_RTT_T0]
                fi[f, FI_TIMING] = 0
            if r >= 0.0:
                rtt_sample(f, r)
            fi[f, FI_SND_UNA] = a
            if fi[f, FI_SND_NXT] < a:
                fi[f, FI_SND_NXT] = a
            if fi[f, FI_IN_REC] != 0:
                if a > fi[f, FI_RECOVER] or not newreno:
                    ff[f, FF_CWND] = ff[f, FF_SSTHRESH]  # leave fast recovery
                    fi[f, FI_IN_REC] = 0
                    fi[f, FI_DUPACKS] = 0
                    if pipe:  # ns-3 ProcessAck: then IncreaseWindow, cwnd being ssthresh
                        ff[f, FF_CWND] = ca_increase(f, ff[f, FF_CWND])
                else:  # NewReno partial ACK: resend the next hole (below), deflate
                    if not pipe:  # (pipe: cwnd stays ssthresh)
                        c = ff[f, FF_CWND] - newly + 1.0
                        ff[f, FF_CWND] = c if c > 1.0 else 1.0
                    resend_head = True
                    if rules == TIMER_IMPATIENT:  # only the first partial ACK restarts
                        restart = fi[f, FI_FIRST_PARTIAL] != 0
                        fi[f, FI_FIRST_PARTIAL] = 0
            else:
                fi[f, FI_DUPACKS] = 0
                c = ff[f, FF_CWND]
                if c < ff[f, FF_SSTHRESH]:
                    c += 1.0
                else:
                    c = ca_increase(f, c)
                wmax = ff[f, FF_SP + TCP_MAX_WINDOW]
                ff[f, FF_CWND] = c if c < wmax else wmax
            if resend_head:  # (one call site: Numba inlines transmit at each)
                transmit(f, a)
            if ece and fi[f, FI_IN_REC] == 0 and a > fi[f, FI_ECN_RECOVER]:
                ff[f, FF_SSTHRESH] = halved(f, fi[f, FI_SND_NXT] - a)
                ff[f, FF_CWND] = ff[f, FF_SSTHRESH]
                fi[f, FI_ECN_RECOVER] = fi[f, FI_SND_NXT] - 1
            if restart and rules != TIMER_REFERENCE and ff[f, FF_SRTT] >= 0.0:
                # the RTO from the estimator, clearing any backoff (also when the
                # timer stops here: the next transmission starts it with this RTO)
                rto = ff[f, FF_SRTT] + 4.0 * ff[f, FF_RTTVAR]
                lo = ff[f, FF_SP + TCP_MIN_RTO]
                hi = ff[f, FF_SP + TCP_MAX_RTO]
                ff[f, FF_RTO] = lo if rto < lo else (hi if rto > hi else rto)
            if fi[f, FI_SND_UNA] == fi[f, FI_SND_NXT]:
                ff[f, FF_DEADLINE] = INF
            elif restart:
                arm_timer(f)
        elif a == una and fi[f, FI_SND_NXT] > una:
            if fi[f, FI_IN_REC] != 0:
                if pipe:  # ns-3 AddRenoSack: one more packet has left the network
                    sk = fi[f, FI_RENO_SACKED] + 1
                    room = fi[f, FI_MAXSEQ] - una - 1
                    fi[f, FI_RENO_SACKED] = sk if sk < room else room
                else:
                    ff[f, FF_CWND] += 1.0
            else:
                d = fi[f, FI_DUPACKS] + 1
                fi[f, FI_DUPACKS] = d
                # (pipe: ns-3's DupAck in CA_DISORDER also enters recovery on any
                # duplicate ACK while IsLost(SND.UNA): the head marked lost below a mark)
                if (d == 3 and (a > fi[f, FI_RECOVER] or not newreno)) or (
                        pipe and fi[f, FI_HEAD_LOST] != 0 and fi[f, FI_RENO_SACKED] > 0):
                    flight = fi[f, FI_SND_NXT] - una
                    if pipe:
                        # ns-3 EnterRecovery: one Reno SACK and the head lost, so
                        # BytesInFlight() + 1 packet = flight - SACKed packets
                        sk = fi[f, FI_RENO_SACKED] + 1
                        room = fi[f, FI_MAXSEQ] - una - 1
                        sk = sk if sk < room else room
                        fi[f, FI_RENO_SACKED] = sk
                        flight -= sk
                    ff[f, FF_SSTHRESH] = halved(f, flight)
                    fi[f, FI_RECOVER] = fi[f, FI_SND_NXT] - 1
                    fi[f, FI_IN_REC] = 1
                    ff[f, FF_CWND] = ff[f, FF_SSTHRESH] + (0.0 if pipe else 3.0)
                    fi[f, FI_FAST_RTX] += 1
                    transmit(f, a)
                    if rules == TIMER_REFERENCE:
                        arm_timer(f)
                    else:  # the timer runs on from the last new ACK
                        fi[f, FI_FIRST_PARTIAL] = 1
        defer((f << W_BITS) | W_SEND)

    def window_ack(f, a):
        if a > fi[f, FI_SND_UNA]:
            if fi[f, FI_TIMING] != 0 and a > fi[f, FI_RTT_SEQ]:
                rtt_sample(f, gf[GF_NOW] - ff[f, FF_RTT_T0])
                fi[f, FI_TIMING] = 0
            fi[f, FI_SND_UNA] = a
            if fi[f, FI_SND_NXT] < a:
                fi[f, FI_SND_NXT] = a
            if a == fi[f, FI_SND_NXT]:
                ff[f, FF_DEADLINE] = INF
            else:
                arm_timer(f)
        defer((f << W_BITS) | W_SEND)

    def on_timer(f):
        if fi[f, FI_TIMER] == 0 or gf[GF_NOW] != ff[f, FF_TIMER_AT]:
            return  # superseded by an earlier event, already handled
        fi[f, FI_TIMER] = 0
        dl = ff[f, FF_DEADLINE]
        if dl == INF or fi[f, FI_ACTIVE] == 0:
            return
        now = gf[GF_NOW]
        if now < dl:  # re-armed since: sleep until the new deadline
            fi[f, FI_TIMER] = 1
            ff[f, FF_TIMER_AT] = dl
            push(dl, (f << EV_BITS) | EV_TIMER)
            return
        fi[f, FI_TIMEOUTS] += 1
        if fi[f, FI_CODE] <= S_NEWRENO:
            # (recovery="pipe": ns-3's BytesInFlight() before the timeout, SACKed
            # packets excluded; the SACK marks are then dropped, ResetRenoSack)
            flight = fi[f, FI_SND_NXT] - fi[f, FI_SND_UNA] - fi[f, FI_RENO_SACKED]
            fi[f, FI_RENO_SACKED] = 0
            fi[f, FI_HEAD_LOST] = 0
            ff[f, FF_SSTHRESH] = halved(f, flight)
            ff[f, FF_CWND] = 1.0
            fi[f, FI_RECOVER] = fi[f, FI_MAXSEQ] - 1
            fi[f, FI_IN_REC] = 0
            fi[f, FI_DUPACKS] = 0
            rto = 2.0 * ff[f, FF_RTO]
            hi = ff[f, FF_SP + TCP_MAX_RTO]
            ff[f, FF_RTO] = rto if rto < hi else hi
        fi[f, FI_SND_NXT] = fi[f, FI_SND_UNA]  # go back N
        fi[f, FI_TIMING] = 0
        ff[f, FF_DEADLINE] = INF
        defer((f << W_BITS) | W_SEND)

    # ------------------------------------------------------------------ receivers
    def deliver(f, n):
        fi[f, FI_DELIVERED] += n
        if gf[GF_NOW] >= gf[GF_WARMUP]:
            fi[f, FI_DELIV_W] += n
            ff[f, FF_BYTES_W] += n * ff[f, FF_BITS] / 8.0

    def on_data(p):
        f = pi[p, PI_FLOW] & POS
        fi[f, FI_ARRIVED] += 1
        marked = pi[p, PI_MARK] & 1
        if marked != 0:
            fi[f, FI_MARKED] += 1
        if gf[GF_NOW] >= gf[GF_WARMUP]:
            qd = pf[p, PF_QDELAY]
            ff[f, FF_QD_SUM] += qd
            fi[f, FI_QD_N] += 1
            b = np.int64(qd / ff[f, FF_HIST_W])
            nb = gi[GI_NBINS]
            hist[f, (b if b < nb else nb - 1) & POS] += 1.0
        if fi[f, FI_WINDOWED] == 0:
            deliver(f, 1)
            release(p)
            return
        seq = pi[p, PI_SEQ]
        rn = fi[f, FI_RCV_NXT]
        off = fi[f, FI_OOO_OFF] & POS
        mask = fi[f, FI_OOO_MASK] & POS
        # goodput counts each packet once, when its first copy arrives (in order or
        # not): counting at in-order delivery instead would credit a window's worth of
        # buffered packets to the moment a hole is filled
        if seq == rn:
            deliver(f, 1)
            rn += 1
            while ooo[off + (rn & mask)] != 0:
                ooo[off + (rn & mask)] = 0
                rn += 1
            fi[f, FI_RCV_NXT] = rn
        elif seq > rn:
            if seq - rn > mask:
                gi[GI_STATUS] = ST_RECEIVER_WINDOW
            elif ooo[off + (seq & mask)] == 0:
                ooo[off + (seq & mask)] = 1
                deliver(f, 1)
        # the data packet becomes its cumulative acknowledgement
        pi[p, PI_ACK] = 1
        pi[p, PI_SEQ] = rn
        pi[p, PI_HOP] = 0
        pi[p, PI_MARK] = 2 if marked != 0 else 0
        pf[p, PF_BITS] = ff[f, FF_ACK_BITS]
        pf[p, PF_QDELAY] = 0.0
        fi[f, FI_ACKS_SENT] += 1
        defer((p << W_BITS) | W_FORWARD)

    def on_ack(p):
        f = pi[p, PI_FLOW] & POS
        a = pi[p, PI_SEQ]
        ece = (pi[p, PI_MARK] & 2) != 0
        release(p)
        fi[f, FI_ACKS_ARRIVED] += 1
        if fi[f, FI_ACTIVE] == 0:
            return
        if fi[f, FI_CODE] <= S_NEWRENO:
            tcp_ack(f, a, ece)
        else:
            window_ack(f, a)

    # ------------------------------------------------------------------ open-loop sources
    def source_tick(f):
        # one packet of an open-loop source (or, with a window, one packet handed
        # to the sender), then the next tick
        if fi[f, FI_ACTIVE] == 0:
            return
        now = gf[GF_NOW]
        code = fi[f, FI_CODE]
        bits = ff[f, FF_BITS]
        if fi[f, FI_WINDOWED] != 0:  # Poisson with a window
            fi[f, FI_APP_LIMIT] += 1
            defer((f << W_BITS) | W_SEND)
        else:  # sequence numbers of unacknowledged packets just count them
            transmit(f, fi[f, FI_SENT])
        if code == S_CBR:
            nxt = now + bits / ff[f, FF_SP + CBR_RATE]
        elif code == S_POISSON:
            nxt = now + expo(bits / ff[f, FF_SP + POI_RATE])
        else:  # S_ONOFF
            nxt = now + bits / ff[f, FF_SP + ONOFF_RATE]
            if nxt >= ff[f, FF_ON_END]:
                off = ff[f, FF_SP + ONOFF_OFF]
                on = ff[f, FF_SP + ONOFF_ON]
                if ff[f, FF_SP + ONOFF_EXP] > 0.0:
                    off = expo(off)
                    on = expo(on)
                nxt = ff[f, FF_ON_END] + off
                ff[f, FF_ON_END] = nxt + on
        push(nxt, (f << EV_BITS) | EV_SOURCE)

    def on_start(f):
        fi[f, FI_ACTIVE] = 1
        code = fi[f, FI_CODE]
        now = gf[GF_NOW]
        if code == S_POISSON:
            push(now + expo(ff[f, FF_BITS] / ff[f, FF_SP + POI_RATE]), (f << EV_BITS) | EV_SOURCE)
        elif code == S_CBR or code == S_ONOFF:
            if code == S_ONOFF:
                on = ff[f, FF_SP + ONOFF_ON]
                if ff[f, FF_SP + ONOFF_EXP] > 0.0:
                    on = expo(on)
                ff[f, FF_ON_END] = now + on
            push(now, (f << EV_BITS) | EV_SOURCE)  # the first packet leaves at once
        else:
            defer((f << W_BITS) | W_SEND)

    def on_sample():
        k = gi[GI_SAMPLE]
        if k >= gi[GI_NSAMPLE]:
            gi[GI_STATUS] = ST_TRACE_FULL
            return
        for f in range(fi.shape[0]):
            thr_s[k, f] = fi[f, FI_DELIVERED] * ff[f, FF_BITS]
        for l in range(li.shape[0]):
            q_s[k, l] = li[l, LI_WAITING]
        if gi[GI_CWND_TRACE] != 0:
            for f in range(fi.shape[0]):
                if fi[f, FI_CODE] <= S_NEWRENO:
                    cw_s[k, f] = ff[f, FF_CWND]
                elif fi[f, FI_WINDOWED] != 0:
                    cw_s[k, f] = ff[f, FF_SP + GEN_WINDOW]
        gi[GI_SAMPLE] = k + 1
        if k + 1 < gi[GI_NSAMPLE]:
            push((k + 1) * gf[GF_INTERVAL], EV_SAMPLE)

    # ------------------------------------------------------------------ the loop
    while gi[GI_HEAP_N] > 0:
        t = ht[0]
        if t > t_stop:
            break
        if gi[GI_EVENTS] >= max_events:
            return ST_MAX_EVENTS
        d = hd[0] & POS
        pop_into_root()
        gf[GF_NOW] = t
        gi[GI_EVENTS] += 1
        kind = d & _EV_MASK
        a = d >> EV_BITS
        if kind == EV_TXDONE:
            on_txdone(a)
        elif kind == EV_ARRIVE:
            f = pi[a, PI_FLOW] & POS
            if pi[a, PI_ACK] == 0:
                end = r_ptr[f + 1] - r_ptr[f]
            else:
                end = a_ptr[f + 1] - a_ptr[f]
            if pi[a, PI_HOP] < end:
                defer((a << W_BITS) | W_FORWARD)
            elif pi[a, PI_ACK] == 0:
                on_data(a)
            else:
                on_ack(a)
        elif kind == EV_TIMER:
            on_timer(a)
        elif kind == EV_SOURCE:
            source_tick(a)
        elif kind == EV_START:
            on_start(a)
        elif kind == EV_STOP:
            fi[a, FI_ACTIVE] = 0
            ff[a, FF_DEADLINE] = INF
        elif kind == EV_SAMPLE:
            on_sample()
        while gi[GI_WORK_N] > 0:
            h = gi[GI_WORK_HEAD] & POS
            item = work[h] & POS
            gi[GI_WORK_HEAD] = h + 1 if h + 1 < work_cap else 0
            gi[GI_WORK_N] -= 1
            if item & 1 == W_FORWARD:
                forward(item >> W_BITS)
            else:
                send_packets(item >> W_BITS)
        if gi[GI_STATUS] != ST_OK:
            return gi[GI_STATUS]
    return ST_OK
