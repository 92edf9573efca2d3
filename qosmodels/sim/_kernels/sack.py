"""Selective acknowledgements: the receiver's SACK option (RFC 2018) and the sender's
scoreboard and loss recovery (RFC 6675), in packets.

A flow with SACK (``FI_WINDOWED >> SACK_SHIFT`` = the blocks an ACK carries, 3 or 4) has
a region of ``B`` slots in ``ooo`` and ``stime`` (``B`` a power of two, 32 or more times its
largest window, from its source's ``setup``); ``FI_OOO_MASK`` is ``B/4 - 1``, so the
receiver's out-of-order bitmap and every ring keyed by sequence number use the lower
quarter, laid out as BBR's eight sub-rings (sub-ring ``j`` of packet ``seq`` at ``(seq + j
Q) & mask``, ``Q = B/32``): 0 the send times (``sender.transmit``), BBR's 1-5, 6 the
scoreboard (``-(seq + 1)``: SACKed; anything else, e.g. a value another sub-ring left
there for an older packet: not) and 7 the serial + 1 of the ACK that first SACKed it.
The rest of the region, in ``stime``, holds the flow's SACK header (``H_*``, integers as
exact floats, 0 meaning none) and then the ring of SACK options: the receiver writes the
blocks of ACK number ``k`` (its serial, ``FI_ACKS_SENT`` when sent) in record ``k mod R``
(``1 + k``, then the blocks' left and right edges, right exclusive; an empty block 0, 0)
and puts ``k`` on the ACK (``PF_COUNT``); the sender reads that record when the ACK arrives
and checks the serial (``ST_SACK_RING`` if the ring has come round: more than ``R`` ACKs
in flight).  So the sender sees exactly the blocks the ACK carried when it was sent.

Receiver (RFC 2018, Section 4): the first block is the one holding the segment that
triggered the ACK, unless that segment advanced the cumulative ACK; then the blocks of the
previous ACK's option, in their order, each as it stands now (a block grows as the holes
beside it fill), left out once the cumulative ACK has passed it or when an earlier block
of this option covers it; at most the flow's number of blocks.  D-SACK (RFC 2883) is not
modelled.

Sender (RFC 6675, Sections 4 and 5), the per-ACK parts shared by the SACK senders:
:func:`update` (``Update()``: the scoreboard from the ACK's blocks; the count of newly
SACKed packets, which makes the ACK a duplicate in Section 2's sense), :func:`lost_bound`
(``IsLost()`` with DupThresh = 3: a packet is lost when three or more packets above it are
SACKed; with full-sized segments this is both of the RFC's conditions), :func:`set_pipe`
(``SetPipe()``), :func:`next_seg` (``NextSeg()``'s rules 1-4; rule 2 new data up to the
flow's largest window) and :func:`send_recovery` (step (C)).  The senders keep ``DupAcks``
(``FI_DUPACKS``), ``RecoveryPoint`` (``FI_RECOVER``) and the recovery flag (``FI_IN_REC``);
``HighRxt`` and ``RescueRxt`` are in the header.  RACK (RFC 8985) and FACK are not
modelled: a lost retransmission waits for the timer.  :func:`clear` empties the scoreboard
on a retransmission timeout (RFC 2018, Section 8: after a timeout the sender does not
trust the SACK information it held); the go-back-N then skips the packets SACKed by the
ACKs that arrive after it (:func:`skip_sacked`; RFC 6675, Section 5.1: ``Update()`` goes
on after a timeout).

What could be checked: the rules above were written from the RFCs' text as their authors
state it (2018 Section 4, 6675 Sections 2, 4, 5); the RFC text itself could not be
retrieved in the session that wrote this module (the stored search corpus had only its
abstract), so the wording was not re-read against it.  The kernel is checked against an
independent plain-Python replay of those rules (``tests/sim/sack_replay.py``).

References
----------
RFC 2018, Sections 3, 4 and 8; RFC 6675, Sections 2, 4, 5 and 5.1.
"""

import numpy as np

from ._jit import POS, handler, rare_handler
from .layout import (
    FI_ACKS_SENT,
    FI_APP_LIMIT,
    FI_MAXSEQ,
    FI_OOO_MASK,
    FI_OOO_OFF,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_WINDOWED,
    GI_STATUS,
    PF_COUNT,
    SACK_SHIFT,
    ST_SACK_RING,
)
from .rackstate import reserved
from .sender import transmit

#: sub-rings of the scoreboard and of the SACKing ACKs' serials among the eight
SUB_BOARD = 6
SUB_TAG = 7
N_SUB = 8
#: the RFC's DupThresh
DUP_THRESH = 3

# the header's slots (after the lower quarter), integers stored + 1 (0: none) unless said
H_SACKED = 0     # packets SACKed in [SND.UNA, SND.MAX): a count (stored as is)
H_HIGH_RXT = 1   # HighRxt + 1
H_RESCUE = 2     # RescueRxt + 1
H_HIGH_SACK = 3  # the highest SACKed packet + 1
H_SERIAL = 4     # the arriving ACK's serial + 1 (set by ``take``, consumed by ``update``)
H_NEW = 5        # packets the last ``update`` SACKed newly: a count
H_NEW_LO = 6     # ... the lowest of them (as is)
H_NEW_HI = 7     # ... the highest of them (as is)
N_H = 8


@handler
def blocks(S, f):
    """The SACK blocks flow ``f``'s ACKs carry (0: no SACK)."""
    return S.fi[f, FI_WINDOWED] >> SACK_SHIFT


@handler
def _board(S, f, seq):
    """Index in ``stime`` of packet ``seq``'s scoreboard entry."""
    fi = S.fi
    mask = fi[f, FI_OOO_MASK]
    return (fi[f, FI_OOO_OFF] + ((seq + SUB_BOARD * ((mask + 1) // N_SUB)) & mask)) & POS


@handler
def _tag(S, f, seq):
    """Index in ``stime`` of the serial + 1 of the ACK that SACKed packet ``seq``."""
    fi = S.fi
    mask = fi[f, FI_OOO_MASK]
    return (fi[f, FI_OOO_OFF] + ((seq + SUB_TAG * ((mask + 1) // N_SUB)) & mask)) & POS


@handler
def sacked(S, f, seq):
    """Whether packet ``seq`` (>= SND.UNA) is marked SACKed."""
    return S.stime[_board(S, f, seq)] == np.float64(-seq - 1)


@handler
def _head(S, f):
    """Index in ``stime`` of flow ``f``'s SACK header."""
    return (S.fi[f, FI_OOO_OFF] + S.fi[f, FI_OOO_MASK] + 1) & POS


@handler
def _record(S, f, k):
    """Index in ``stime`` of the option record of ACK serial ``k``."""
    fi = S.fi
    q = fi[f, FI_OOO_MASK] + 1
    rs = 1 + 2 * (fi[f, FI_WINDOWED] >> SACK_SHIFT)
    n = (3 * q - N_H - reserved(S, f)) // rs  # (RACK's state at the region's top)
    return (fi[f, FI_OOO_OFF] + q + N_H + (k % n) * rs) & POS


@handler
def _around(S, f, x, rn):
    """The received out-of-order block ``[left, right)`` holding packet ``x`` (> ``rn``,
    the cumulative ACK), from the receiver's bitmap."""
    ooo = S.ooo
    off = S.fi[f, FI_OOO_OFF]
    mask = S.fi[f, FI_OOO_MASK]
    lo = x
    while lo - 1 > rn and ooo[(off + ((lo - 1) & mask)) & POS] != 0:
        lo -= 1
    hi = x + 1
    while hi - rn <= mask and ooo[(off + (hi & mask)) & POS] != 0:
        hi += 1
    return lo, hi


@rare_handler
def report(S, f, p, seq, rn):
    """The receiver of flow ``f`` turns data packet ``seq`` into ACK ``p`` (cumulative ACK
    ``rn``): write the option it carries (RFC 2018, Section 4) in the ring and its serial
    on the ACK."""
    st = S.stime
    nb = S.fi[f, FI_WINDOWED] >> SACK_SHIFT
    k = S.fi[f, FI_ACKS_SENT]
    r = _record(S, f, k)
    n = 0
    if seq > rn:  # it did not advance the cumulative ACK: its block first
        lo, hi = _around(S, f, seq, rn)
        st[r + 1] = np.float64(lo)
        st[r + 2] = np.float64(hi)
        n = 1
    if k > 0:
        pr = _record(S, f, k - 1)
        for j in range(nb):
            if n >= nb:
                break
            lo0 = np.int64(st[pr + 1 + 2 * j])
            hi0 = np.int64(st[pr + 2 + 2 * j])
            if hi0 <= lo0 or lo0 <= rn:  # empty, or passed by the cumulative ACK
                continue
            lo, hi = _around(S, f, lo0, rn)
            dup = False
            for i in range(n):
                if np.int64(st[r + 1 + 2 * i]) == lo:
                    dup = True
            if not dup:
                st[r + 1 + 2 * n] = np.float64(lo)
                st[r + 2 + 2 * n] = np.float64(hi)
                n += 1
    for i in range(n, nb):
        st[r + 1 + 2 * i] = 0.0
        st[r + 2 + 2 * i] = 0.0
    st[r] = np.float64(k + 1)
    S.pf[p, PF_COUNT] = np.float64(k)


@handler
def take(S, f, p):
    """ACK ``p`` of SACK flow ``f`` reaches the sender: note its serial for :func:`update`
    (``ST_SACK_RING`` if its record was overwritten)."""
    k = np.int64(S.pf[p, PF_COUNT])
    h = _head(S, f)
    if S.stime[_record(S, f, k)] != np.float64(k + 1):
        S.gi[GI_STATUS] = ST_SACK_RING
        S.stime[h + H_SERIAL] = 0.0
    else:
        S.stime[h + H_SERIAL] = np.float64(k + 1)


@rare_handler
def update(S, f, a):
    """RFC 6675's ``Update()`` for cumulative ACK ``a`` (before SND.UNA moves): the
    entries below ``a`` leave the scoreboard, the ACK's blocks mark their packets SACKed.
    Returns the packets newly SACKed (> 0: a duplicate ACK in Section 2's sense); their
    range is kept in the header (``H_NEW_LO``, ``H_NEW_HI``), their entries hold the ACK's
    serial + 1."""
    fi, st = S.fi, S.stime
    h = _head(S, f)
    una = fi[f, FI_SND_UNA]
    top = fi[f, FI_MAXSEQ]
    n_sacked = np.int64(st[h + H_SACKED])
    base = a if a > una else una
    if n_sacked > 0 and a > una:
        for q in range(una, a if a < top else top):
            if sacked(S, f, q):
                st[_board(S, f, q)] = 0.0
                n_sacked -= 1
    if np.int64(st[h + H_HIGH_SACK]) - 1 < base:
        st[h + H_HIGH_SACK] = 0.0
    tag = st[h + H_SERIAL]
    st[h + H_SERIAL] = 0.0
    new = 0
    lo_n = np.int64(-1)
    hi_n = np.int64(-1)
    if tag > 0.0:
        nb = fi[f, FI_WINDOWED] >> SACK_SHIFT
        r = _record(S, f, np.int64(tag) - 1)
        hs = np.int64(st[h + H_HIGH_SACK]) - 1
        for j in range(nb):
            lo = np.int64(st[r + 1 + 2 * j])
            hi = np.int64(st[r + 2 + 2 * j])
            if lo < base:
                lo = base
            if hi > top:
                hi = top
            for q in range(lo, hi):
                if not sacked(S, f, q):
                    st[_board(S, f, q)] = np.float64(-q - 1)
                    st[_tag(S, f, q)] = tag
                    n_sacked += 1
                    new += 1
                    if lo_n < 0 or q < lo_n:
                        lo_n = q
                    if q > hi_n:
                        hi_n = q
            if hi - 1 > hs and hi > lo:
                hs = hi - 1
        st[h + H_HIGH_SACK] = np.float64(hs + 1)
    st[h + H_SACKED] = np.float64(n_sacked)
    st[h + H_NEW] = np.float64(new)
    st[h + H_NEW_LO] = np.float64(lo_n)
    st[h + H_NEW_HI] = np.float64(hi_n)
    return new


@handler
def sacked_count(S, f):
    """Packets marked SACKed above SND.UNA."""
    return np.int64(S.stime[_head(S, f) + H_SACKED])


@rare_handler
def lost_bound(S, f):
    """``IsLost()`` (DupThresh 3) as a bound: every packet not SACKed below the returned
    number is lost, none above it (SND.UNA when fewer than three are SACKed)."""
    st = S.stime
    h = _head(S, f)
    una = S.fi[f, FI_SND_UNA]
    if np.int64(st[h + H_SACKED]) < DUP_THRESH:
        return una
    q = np.int64(st[h + H_HIGH_SACK]) - 1
    n = 0
    while q >= una:
        if sacked(S, f, q):
            n += 1
            if n == DUP_THRESH:
                return q
        q -= 1
    return una


@rare_handler
def set_pipe(S, f, lb):
    """``SetPipe()``: the packets the sender believes are in the network, ``lb`` from
    :func:`lost_bound`: per packet in [SND.UNA, SND.NXT) not SACKed, one unless it is
    lost, and one more if it was retransmitted (at or below HighRxt)."""
    st = S.stime
    h = _head(S, f)
    hr = np.int64(st[h + H_HIGH_RXT]) - 1
    una = S.fi[f, FI_SND_UNA]
    if np.int64(st[h + H_SACKED]) == 0 and hr < una:  # nothing SACKed, lost or resent
        return S.fi[f, FI_SND_NXT] - una
    pipe = 0
    for q in range(una, S.fi[f, FI_SND_NXT]):
        if not sacked(S, f, q):
            if q >= lb:
                pipe += 1
            if q <= hr:
                pipe += 1
    return pipe


@rare_handler
def next_seg(S, f, lb, wmax):
    """``NextSeg()`` (RFC 6675, Section 4), ``lb`` from :func:`lost_bound`, ``wmax`` the
    largest window (the receiver's window for rule 2): ``(seq, rule)``, ``(-1, 0)`` if
    nothing may be sent.  Rule 4 sets RescueRxt."""
    fi, st = S.fi, S.stime
    h = _head(S, f)
    una = fi[f, FI_SND_UNA]
    nxt = fi[f, FI_SND_NXT]
    hr = np.int64(st[h + H_HIGH_RXT]) - 1
    hs = np.int64(st[h + H_HIGH_SACK]) - 1
    q0 = hr + 1 if hr + 1 > una else una
    # rule 1: the first lost packet above HighRxt (below the highest SACKed one)
    for q in range(q0, lb):
        if not sacked(S, f, q):
            return q, 1
    # rule 2: new data, as the receiver's window and the application allow
    if nxt < una + wmax and nxt < fi[f, FI_APP_LIMIT]:
        return nxt, 2
    # rule 3: the first packet not SACKed above HighRxt, below the highest SACKed one
    for q in range(q0, hs if hs < nxt else nxt):
        if not sacked(S, f, q):
            return q, 3
    # rule 4: one rescue retransmission per recovery, the highest packet not SACKed
    rescue = np.int64(st[h + H_RESCUE]) - 1
    if nxt > una and (rescue < 0 or una > rescue):
        q = nxt - 1
        while q >= una:
            if not sacked(S, f, q):
                return q, 4
            q -= 1
    return np.int64(-1), 0


@rare_handler
def start_recovery(S, f):
    """RFC 6675 step (4.3): HighRxt = SND.UNA (its retransmission is the caller's), and
    RescueRxt undefined (rule 4's once per recovery)."""
    st = S.stime
    h = _head(S, f)
    st[h + H_HIGH_RXT] = np.float64(S.fi[f, FI_SND_UNA] + 1)
    st[h + H_RESCUE] = 0.0


@handler
def resent(S, f, q, rule, recovery_point):
    """Step (C.2): packet ``q`` was resent by ``NextSeg()``'s ``rule`` (1, 3 or 4):
    HighRxt = ``q``, or for rule 4 RescueRxt = ``recovery_point`` (HighRxt unchanged)."""
    h = _head(S, f)
    if rule == 4:
        S.stime[h + H_RESCUE] = np.float64(recovery_point + 1)
    else:
        S.stime[h + H_HIGH_RXT] = np.float64(q + 1)


@handler
def new_tag(S, f):
    """The scoreboard value of the packets the last :func:`update` SACKed newly, and
    their range ``(tag, lo, hi)`` (``lo`` = -1: none)."""
    st = S.stime
    h = _head(S, f)
    lo = np.int64(st[h + H_NEW_LO])
    hi = np.int64(st[h + H_NEW_HI])
    if lo < 0:
        return 0.0, lo, hi
    return st[_tag(S, f, lo)], lo, hi


@handler
def tag_of(S, f, seq):
    """The serial + 1 of the ACK that SACKed packet ``seq`` (meaningful if it is)."""
    return S.stime[_tag(S, f, seq)]


@rare_handler
def send_recovery(S, f, cwnd, wmax, recovery_point):
    """RFC 6675 step (C): while ``cwnd - pipe >= 1``, send ``NextSeg()``'s packet (HighRxt
    moved by rules 1 and 3, RescueRxt set to ``recovery_point`` by rule 4, SND.NXT by rule
    2).  Returns the packets sent."""
    fi = S.fi
    lb = lost_bound(S, f)
    pipe = set_pipe(S, f, lb)
    sent = 0
    while cwnd - pipe >= 1.0:
        q, rule = next_seg(S, f, lb, wmax)
        if rule == 0:
            break
        if not transmit(S, f, q):
            break
        if rule == 2:
            fi[f, FI_SND_NXT] = q + 1
        else:
            resent(S, f, q, rule, recovery_point)
        pipe += 1
        sent += 1
    return sent


@rare_handler
def skip_sacked(S, f, lim):
    """After a timeout, while the sender goes back N (SND.NXT < SND.MAX): SND.NXT moved past
    the packets SACKed since (RFC 6675, Section 5.1: ``Update()`` goes on after a
    timeout, so the resending can use what the receiver reports); returns ``lim``
    lowered to the next SACKed packet, so the caller sends only packets not SACKed, and
    the number of packets skipped."""
    fi = S.fi
    nxt = fi[f, FI_SND_NXT]
    top = fi[f, FI_MAXSEQ]
    if nxt >= top or np.int64(S.stime[_head(S, f) + H_SACKED]) == 0:
        return lim, 0
    n = 0
    while nxt < top and sacked(S, f, nxt):
        nxt += 1
        n += 1
    fi[f, FI_SND_NXT] = nxt
    q = nxt
    while q < lim and q < top:
        if sacked(S, f, q):
            return q, n
        q += 1
    return lim, n


@rare_handler
def clear(S, f):
    """A retransmission timeout: the scoreboard emptied, HighRxt and RescueRxt undefined."""
    st = S.stime
    h = _head(S, f)
    if np.int64(st[h + H_SACKED]) > 0:
        for q in range(S.fi[f, FI_SND_UNA], S.fi[f, FI_MAXSEQ]):
            st[_board(S, f, q)] = 0.0
    for i in range(N_H):
        st[h + i] = 0.0
