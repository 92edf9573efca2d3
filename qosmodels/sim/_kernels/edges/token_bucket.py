"""Token buckets at an aggregate's ingress (spec: :class:`qosmodels.mechanisms.AggregateBucket`).

Tokens are bytes and accrue lazily, when the edge is consulted: a common
bucket (and the aggregate's peak-rate bucket) keeps its level and the time
of its last refill in the edge's row; a partitioned bucket keeps one level
and refill time per member (in the member flow's row); logical partitions
keep one level per member and refill all of them together, the aggregate's
``r_m dt`` tokens poured by water filling (equal shares, a full partition's
share going to the others, as :func:`qosmodels.tokenbucket.logical_fill`).

Hooks (reached through :mod:`..dispatch`):

* :func:`ingress`: every data packet a member's sender puts out: pass it
  (marked in profile if it conforms and spends its tokens), mark it out of
  profile, drop it (policing, or a full hold), or hold it (shaping);
* :func:`gate`: asked by a window sender before each packet under shaping:
  may it send now?  (The paper's qosmgr, which TCP's output routine
  consults: a sender that may not send is held back, its packets are not
  made.)  Held packets go first;
* :func:`on_timer`: the aggregate's shaping timer: the waiting members, in
  the bucket's order, get their held packets out and their senders
  another try (a deferred send).

Under shaping, a finite ``quantum`` caps the packets a member sends at one
trigger: at one instant (an ACK's, or the timer's tick with the deferred send
it makes); a member at its cap waits for the timer as a non-compliant one does.

The helpers called from several places (refilling, a packet leaving, arming the
timer, flushing a hold) are real functions (``rare_handler``), not inlined: each
inlined copy costs Numba's compile time, and only flows behind a bucket call
them.

Units: tokens and sizes in bytes, rates in bytes/s, times in s.

References
----------
Aggregate-rate-control paper, Sections 3.2-3.3, 4.1, 4.2.1-4.2.3.
"""

import math

import numpy as np

from .._jit import POS, handler, rare_handler
from ..fifo import peek_head, pop_head, push_tail
from ..layout import (
    EDGE_GONE,
    EDGE_PASS,
    EF_EP,
    EF_ES,
    EI_M0,
    EI_N,
    EI_TIMER0,
    EI_TRACE0,
    EM_FLOW,
    EM_ORDER,
    FF_BITS,
    FF_ES,
    FI_DROPS,
    FI_DROPS_W,
    FI_EDGE_BLOCKED,
    FI_EDGE_DROPS,
    FI_EDGE_HELD,
    FI_EDGE_HOLD,
    FI_EDGE_IN,
    FI_EDGE_IN_W,
    FI_EDGE_OUT,
    FI_EDGE_OUT_W,
    FI_ES,
    FI_MEMBER,
    FI_WINDOWED,
    GF_NOW,
    MARK_IN_PROFILE,
    PF_BITS,
    PI_MARK,
    SL_CAP,
    SL_COUNT,
    TM_DEADLINE,
    W_BITS,
    W_FORWARD,
    W_SEND,
)
from ..pool import defer, in_window, release
from ..timers import is_off, set_deadline
from ..trace import record

CODE = 1

SHARING = {"partitioned": 0, "common": 1, "logical": 2}
ORDER = {"sequential": 0, "fcfs": 1, "lru": 2}
ACTION = {"shape": 0, "police": 1, "mark": 2}
SH_PARTITIONED, SH_COMMON, SH_LOGICAL = 0, 1, 2
ORD_SEQUENTIAL, ORD_FCFS, ORD_LRU = 0, 1, 2
ACT_SHAPE, ACT_POLICE, ACT_MARK = 0, 1, 2

# parameter columns, in PARAMS order
TB_RATE = 0     # r_m, bytes/s
TB_DEPTH = 1    # b, bytes
TB_PEAK = 2     # p, bytes/s; 0: no peak-rate bucket
TB_LM = 3       # L_m, bytes (the peak-rate bucket's depth)
TB_SHARING = 4
TB_ORDER = 5
TB_ACTION = 6
TB_TIMER = 7    # shaping-timer period, s; 0: exact
TB_QUANTUM = 8  # packets a member may send per trigger (shaping); 0: no limit
PARAMS = (
    ("rate_bytes", lambda s: s.rate / 8.0),
    "depth",
    ("peak_bytes", lambda s: 0.0 if math.isinf(s.peak_rate) else s.peak_rate / 8.0),
    "max_packet",
    ("sharing", lambda s: SHARING[s.sharing]),
    ("order", lambda s: ORDER[s.order] if s.order is not None else 0),
    ("action", lambda s: ACTION[s.action]),
    "timer",
    ("quantum", lambda s: 0.0 if math.isinf(s.quantum) else float(s.quantum)),
)

#: Timer slots of an edge: the shaping timer.
TIMERS = 1

# the edge's state
ES_TOK = EF_ES       # the common bucket's tokens
ES_PTOK = EF_ES + 1  # the aggregate's peak-rate tokens (common and logical buckets)
ES_LAST = EF_ES + 2  # time of the last refill (common and logical buckets)
# a member's state (in its flow's rows)
M_TOK = FF_ES        # partitioned and logical: the member's tokens
M_DEPTH = FF_ES + 1  # ... its depth
M_RATE = FF_ES + 2   # ... its rate, bytes/s
M_PTOK = FF_ES + 3   # partitioned: the member's peak-rate tokens
M_LAST = FF_ES + 4   # partitioned: time of its last refill
M_KEY = FF_ES + 5    # since when it has been non-compliant (inf: it is not); FCFS order
M_LRU = FF_ES + 6    # when it last spent tokens (-1: never); LRU order
M_QT = FF_ES + 7     # the instant (trigger) M_QN counts the packets of (-1: none yet)
M_WAIT = FI_ES       # 1: the shaping timer is to wake it (held packets or a held sender)
M_QN = FI_ES + 1     # packets it sent at the instant M_QT (counted with a finite quantum)

#: Tokens short of a packet by less than this (bytes) count as enough: the time a
#: timer computed for a packet to conform may land a rounding error short of it.
EPS = 1e-9


def traces(spec, n_members) -> tuple[str, ...]:
    """Trace channels: ``tokens`` (whole bucket), ``sent`` (bytes of each packet leaving),
    and with partitions one ``tokens_m<i>`` per member."""
    if not spec.record:
        return ()
    parts = () if spec.sharing == "common" else tuple(f"tokens_m{i}" for i in range(n_members))
    return ("tokens", "sent") + parts


def hold_capacity(spec) -> int:
    """Packets each member's hold keeps at most (shaping)."""
    return spec.limit if spec.action == "shape" else 0


def setup_edge(spec, network, members, ef, ff, fi) -> None:
    """Initial state: buckets full, each member's partition (partitioned and logical)."""
    from ....errors import ScenarioError

    names = network.flow_names
    sizes = [network.flows[f].packet_size for f in members]
    for f, size in zip(members, sizes):
        if size > spec.max_packet:
            raise ScenarioError(
                f"flow {names[f]!r} sends {size}-byte packets through an AggregateBucket of "
                f"max_packet = {spec.max_packet:g} bytes; raise max_packet to at least {size}")
    ef[ES_TOK] = spec.depth
    ef[ES_PTOK] = spec.max_packet
    ef[ES_LAST] = 0.0
    if spec.sharing != "common":
        rtts = np.asarray(network.rtt)[list(members)]
        if len(members) == 1:  # one member has the whole bucket, whatever its RTT
            rtts = np.ones(1)
        if spec.depths == "rtt" and np.any(rtts <= 0):
            raise ScenarioError(
                "AggregateBucket(depths='rtt') shares the depth in proportion to the members' "
                f"round-trip propagation delays, but flow(s) "
                f"{[names[f] for f, r in zip(members, rtts) if r <= 0]} have none; give their "
                f"links a delay or use depths='equal'")
        part = spec.partition(rtts if spec.depths == "rtt" else np.ones(len(members)))
        for k, (f, size) in enumerate(zip(members, sizes)):
            # short by less than EPS (b rtt_i / sum rtt rounds: b = L_m with one member
            # can give L_m less one unit in the last place) passes, as in _conforms
            if part.depths[k] + EPS < size:
                raise ScenarioError(
                    f"AggregateBucket: flow {names[f]!r}'s partition holds "
                    f"{part.depths[k]:.6g} bytes, less than its {size}-byte packets (depths="
                    f"{spec.depths!r}); raise depth to at least "
                    f"{spec.depth * size / part.depths[k]:.6g} bytes")
            ff[f, M_TOK] = ff[f, M_DEPTH] = part.depths[k]
            ff[f, M_RATE] = part.rates[k] / 8.0
    for f in members:
        ff[f, M_PTOK] = spec.max_packet
        ff[f, M_LAST] = 0.0
        ff[f, M_KEY] = np.inf
        ff[f, M_LRU] = -1.0
        ff[f, M_QT] = -1.0
        fi[f, M_QN] = 0


# ---------------------------------------------------------------------- tokens
@handler
def _water_fill(S, e, add):
    """Pour ``add`` tokens into the logical partitions: equal shares, a full partition's
    share to the others; what no partition can hold is lost."""
    ff, e_mem = S.ff, S.e_mem
    m0 = S.ei[e, EI_M0]
    m1 = m0 + S.ei[e, EI_N]
    while add > 0.0:
        k = 0
        rmin = np.inf
        for j in range(m0, m1):
            f = e_mem[j, EM_FLOW] & POS
            room = ff[f, M_DEPTH] - ff[f, M_TOK]
            if room > 0.0:
                k += 1
                if room < rmin:
                    rmin = room
        if k == 0:
            return
        step = add / k
        done = rmin >= step
        if not done:
            step = rmin
        for j in range(m0, m1):
            f = e_mem[j, EM_FLOW] & POS
            room = ff[f, M_DEPTH] - ff[f, M_TOK]
            if room > 0.0:
                if room <= step:
                    ff[f, M_TOK] = ff[f, M_DEPTH]
                else:
                    ff[f, M_TOK] += step
        if done:
            return
        add -= step * k


@handler
def _partition_level(S, f, now):
    """A partitioned bucket's member ``f``: its tokens at ``now``, as refilling would make
    them (the state is not changed)."""
    ff = S.ff
    v = ff[f, M_TOK] + ff[f, M_RATE] * (now - ff[f, M_LAST])
    return v if v < ff[f, M_DEPTH] else ff[f, M_DEPTH]


@rare_handler
def _refill(S, e, f):
    """Bring the tokens member ``f`` draws on up to now."""
    ef, ff = S.ef, S.ff
    now = S.gf[GF_NOW]
    pk = ef[e, EF_EP + TB_PEAK]
    lm = ef[e, EF_EP + TB_LM]
    if ef[e, EF_EP + TB_SHARING] == SH_PARTITIONED:
        dt = now - ff[f, M_LAST]
        if dt > 0.0:
            ff[f, M_TOK] = _partition_level(S, f, now)
            ff[f, M_LAST] = now
            if pk > 0.0:
                v = ff[f, M_PTOK] + pk * dt
                ff[f, M_PTOK] = v if v < lm else lm
        return
    dt = now - ef[e, ES_LAST]
    if dt <= 0.0:
        return
    ef[e, ES_LAST] = now
    if pk > 0.0:
        v = ef[e, ES_PTOK] + pk * dt
        ef[e, ES_PTOK] = v if v < lm else lm
    add = ef[e, EF_EP + TB_RATE] * dt
    if ef[e, EF_EP + TB_SHARING] == SH_COMMON:
        v = ef[e, ES_TOK] + add
        b = ef[e, EF_EP + TB_DEPTH]
        ef[e, ES_TOK] = v if v < b else b
    else:
        _water_fill(S, e, add)


@handler
def _levels(S, e, f):
    """(tokens, peak-rate tokens) member ``f`` may spend now (inf: no peak-rate bucket)."""
    ef, ff = S.ef, S.ff
    sh = ef[e, EF_EP + TB_SHARING]
    tok = ef[e, ES_TOK] if sh == SH_COMMON else ff[f, M_TOK]
    if ef[e, EF_EP + TB_PEAK] <= 0.0:
        return tok, np.inf
    return tok, (ff[f, M_PTOK] if sh == SH_PARTITIONED else ef[e, ES_PTOK])


@handler
def _conforms(S, e, f, size):
    tok, ptok = _levels(S, e, f)
    return tok + EPS >= size and ptok + EPS >= size


@handler
def _spend(S, e, f, size):
    ef, ff = S.ef, S.ff
    sh = ef[e, EF_EP + TB_SHARING]
    if sh == SH_COMMON:
        v = ef[e, ES_TOK] - size
        ef[e, ES_TOK] = v if v > 0.0 else 0.0
    else:
        v = ff[f, M_TOK] - size
        ff[f, M_TOK] = v if v > 0.0 else 0.0
    if ef[e, EF_EP + TB_PEAK] > 0.0:
        if sh == SH_PARTITIONED:
            v = ff[f, M_PTOK] - size
            ff[f, M_PTOK] = v if v > 0.0 else 0.0
        else:
            v = ef[e, ES_PTOK] - size
            ef[e, ES_PTOK] = v if v > 0.0 else 0.0
    now = S.gf[GF_NOW]
    ff[f, M_LRU] = now
    ff[f, M_KEY] = np.inf
    if ef[e, EF_EP + TB_QUANTUM] > 0.0:  # count the packet against this trigger's quantum
        if ff[f, M_QT] != now:
            ff[f, M_QT] = now
            S.fi[f, M_QN] = 0
        S.fi[f, M_QN] += 1


@handler
def _quota(S, e, f):
    """Whether member ``f`` may send one more packet at this trigger (always, with no
    quantum)."""
    q = S.ef[e, EF_EP + TB_QUANTUM]
    if q <= 0.0:
        return True
    return S.ff[f, M_QT] != S.gf[GF_NOW] or S.fi[f, M_QN] < q


@handler
def _wait_time(S, e, f, size):
    """Time (s) until member ``f`` holds ``size`` tokens if nobody spends meanwhile."""
    ef, ff = S.ef, S.ff
    sh = ef[e, EF_EP + TB_SHARING]
    rate = ef[e, EF_EP + TB_RATE]
    w = 0.0
    if sh == SH_COMMON:
        need = size - ef[e, ES_TOK]
        if need > 0.0:
            w = need / rate
    elif sh == SH_PARTITIONED:
        need = size - ff[f, M_TOK]
        if need > 0.0:
            w = need / ff[f, M_RATE]
    else:
        # water filling adds the same amount lam to every partition not yet full:
        # the member has `size` when lam = need, after sum_j min(room_j, need) tokens
        need = size - ff[f, M_TOK]
        if need > 0.0:
            total = 0.0
            m0 = S.ei[e, EI_M0]
            for j in range(m0, m0 + S.ei[e, EI_N]):
                g = S.e_mem[j, EM_FLOW] & POS
                room = ff[g, M_DEPTH] - ff[g, M_TOK]
                total += room if room < need else need
            w = total / rate
    pk = ef[e, EF_EP + TB_PEAK]
    if pk > 0.0:
        _, ptok = _levels(S, e, f)
        if size - ptok > 0.0 and (size - ptok) / pk > w:
            w = (size - ptok) / pk
    return w


# ---------------------------------------------------------------------- packets out
@handler
def _record(S, e, f, sent):
    """The trace points of a change: the bucket's tokens (and the member's), a packet sent."""
    ch = S.ei[e, EI_TRACE0]
    if ch < 0:
        return
    ef, ff = S.ef, S.ff
    sh = ef[e, EF_EP + TB_SHARING]
    if sh == SH_COMMON:
        record(S, ch, ef[e, ES_TOK])
    else:
        now = S.gf[GF_NOW]
        total = 0.0
        m0 = S.ei[e, EI_M0]
        for j in range(m0, m0 + S.ei[e, EI_N]):
            g = S.e_mem[j, EM_FLOW] & POS
            # a partition's level now, read without refilling: recording must not change
            # the run (refilling in two steps rounds differently)
            total += _partition_level(S, g, now) if sh == SH_PARTITIONED else ff[g, M_TOK]
        record(S, ch, total)
        record(S, ch + 2 + S.fi[f, FI_MEMBER], ff[f, M_TOK])
    if sent > 0.0:
        record(S, ch + 1, sent)


@rare_handler
def _out(S, e, f, p, in_profile):
    """Packet ``p`` of member ``f`` leaves the edge, in profile (marked) or not."""
    fi = S.fi
    w = in_window(S)
    if in_profile:
        S.pi[p, PI_MARK] |= MARK_IN_PROFILE
        fi[f, FI_EDGE_IN] += 1
        if w:
            fi[f, FI_EDGE_IN_W] += 1
    else:
        fi[f, FI_EDGE_OUT] += 1
        if w:
            fi[f, FI_EDGE_OUT_W] += 1
    _record(S, e, f, S.pf[p, PF_BITS] / 8.0)


@handler
def _drop(S, f, p):
    fi = S.fi
    fi[f, FI_EDGE_DROPS] += 1
    fi[f, FI_DROPS] += 1
    if in_window(S):
        fi[f, FI_DROPS_W] += 1
    release(S, p)


@rare_handler
def _arm(S, e, f, size):
    """Member ``f`` waits for ``size`` tokens: the timer is to wake it (at the next tick of
    a periodic timer, or when it will hold them)."""
    ff, fi = S.ff, S.fi
    now = S.gf[GF_NOW]
    fi[f, M_WAIT] = 1
    if ff[f, M_KEY] == np.inf:
        ff[f, M_KEY] = now
    period = S.ef[e, EF_EP + TB_TIMER]
    if period > 0.0:
        t = (math.floor(now / period) + 1.0) * period
        if t <= now:
            t += period
    else:
        t = now + _wait_time(S, e, f, size)
        if t <= now:  # tokens short by a rounding error: come back 1 ns later
            t = now + 1e-9
    slot = S.ei[e, EI_TIMER0] & POS
    if is_off(S, slot) or t < S.tm[slot, TM_DEADLINE]:
        set_deadline(S, slot, t, True)


@rare_handler
def _flush(S, e, f):
    """Send member ``f``'s held packets while they conform (tokens refilled) and the
    trigger's quantum allows; False if some remain (the member then waits)."""
    s = S.fi[f, FI_EDGE_HOLD] & POS
    while S.slot[s, SL_COUNT] > 0:
        p = peek_head(S, s)
        size = S.pf[p, PF_BITS] / 8.0
        if not (_conforms(S, e, f, size) and _quota(S, e, f)):
            _arm(S, e, f, size)
            return False
        pop_head(S, s)
        _spend(S, e, f, size)
        _out(S, e, f, p, True)
        defer(S, (p << W_BITS) | W_FORWARD)
    return True


# ---------------------------------------------------------------------- hooks
@handler
def ingress(S, e, f, p):
    """Data packet ``p`` of member ``f`` reaches the edge: ``EDGE_PASS`` (on to the first
    link, marked in profile if it conformed) or ``EDGE_GONE`` (dropped, or held)."""
    ef = S.ef
    size = S.pf[p, PF_BITS] / 8.0
    act = ef[e, EF_EP + TB_ACTION]
    _refill(S, e, f)
    if act == ACT_SHAPE:
        s = S.fi[f, FI_EDGE_HOLD] & POS
        if S.slot[s, SL_COUNT] == 0 and _conforms(S, e, f, size) and _quota(S, e, f):
            _spend(S, e, f, size)
            _out(S, e, f, p, True)
            return EDGE_PASS
        if S.slot[s, SL_COUNT] >= S.slot[s, SL_CAP]:
            _drop(S, f, p)
            return EDGE_GONE
        push_tail(S, s, p)
        S.fi[f, FI_EDGE_HELD] += 1
        if S.slot[s, SL_COUNT] == 1:
            _arm(S, e, f, size)
        return EDGE_GONE
    if _conforms(S, e, f, size):
        _spend(S, e, f, size)
        _out(S, e, f, p, True)
        return EDGE_PASS
    if act == ACT_POLICE:
        _drop(S, f, p)
        return EDGE_GONE
    _out(S, e, f, p, False)
    return EDGE_PASS


@handler
def gate(S, e, f, more):
    """May window sender ``f`` send a packet now (``more``: it has one to send)?  Under
    shaping, only if its held packets have gone, its next packet conforms and the
    trigger's quantum is not used up; if not, the member waits for the timer.
    ``more=False`` tells the edge the sender has nothing more to send: it is not
    waiting for tokens."""
    if S.ef[e, EF_EP + TB_ACTION] != ACT_SHAPE:
        return True
    _refill(S, e, f)
    if not _flush(S, e, f):
        return False
    if not more:  # not waiting for tokens
        S.ff[f, M_KEY] = np.inf
        S.fi[f, M_WAIT] = 0
        return True
    size = S.ff[f, FF_BITS] / 8.0
    if _conforms(S, e, f, size) and _quota(S, e, f):
        return True
    S.fi[f, FI_EDGE_BLOCKED] += 1
    _arm(S, e, f, size)
    return False


@handler
def on_timer(S, e):
    """The shaping timer: the waiting members in the bucket's order send their held
    packets while they conform; then the window senders among them whose holds are
    empty get a deferred send, in the same order (it asks :func:`gate` again)."""
    ef, ff, fi, e_mem = S.ef, S.ff, S.fi, S.e_mem
    m0 = S.ei[e, EI_M0]
    order = ef[e, EF_EP + TB_ORDER] if ef[e, EF_EP + TB_SHARING] == SH_COMMON else ORD_SEQUENTIAL
    # the waiting members, sorted by key (insertion sort, stable: member order breaks ties)
    cnt = 0
    for j in range(m0, m0 + S.ei[e, EI_N]):
        f = e_mem[j, EM_FLOW] & POS
        if fi[f, M_WAIT] == 0:
            continue
        if order == ORD_FCFS:
            key = ff[f, M_KEY]
        elif order == ORD_LRU:
            key = ff[f, M_LRU]
        else:
            key = float(j)
        i = m0 + cnt
        while i > m0:
            g = e_mem[i - 1, EM_ORDER] & POS
            kg = ff[g, M_KEY] if order == ORD_FCFS else (
                ff[g, M_LRU] if order == ORD_LRU else float(S.fi[g, FI_MEMBER] + m0))
            if kg <= key:
                break
            e_mem[i, EM_ORDER] = g
            i -= 1
        e_mem[i, EM_ORDER] = f
        cnt += 1
    for i in range(m0, m0 + cnt):
        f = e_mem[i, EM_ORDER] & POS
        fi[f, M_WAIT] = 0
        _refill(S, e, f)
        if _flush(S, e, f) and fi[f, FI_WINDOWED] != 0:
            defer(S, (f << W_BITS) | W_SEND)


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "edge_ingress": ingress,
    "edge_gate": gate,
    "edge_timer": on_timer,
}
