"""RACK-TLP loss detection (RFC 8985) for the SACK senders, in packets.

A SACK flow (:mod:`.sack`) with ``rack=True`` (``FI_RACK`` 1; with ``tlp=True`` 2; its
source kernel :mod:`.sources.reno_rack` or :mod:`.sources.cubic_rack`, so that variants
without such a flow do not compile this module's handlers) marks packets lost by time
instead of RFC 6675's DupThresh: each transmission stamps its time
(:func:`.rackstate.stamp`); each ACK, after the scoreboard update, runs Section 6.2's steps:

1. ``RACK.min_RTT``: the smallest round-trip time of a packet delivered by an ACK that was
   never retransmitted (Karn's rule, as RFC 6298's samples).  The RFC asks for a windowed
   minimum (Linux: 300 s, ``tcp_min_rtt_wlen``); a run here is shorter, so it is the
   minimum of the whole run.
2. ``RACK.xmit_ts``/``RACK.end_seq``: the most recently sent (``RACK_sent_after``: later
   time, or the same time and a higher number) of the packets the ACK newly delivers,
   cumulatively or selectively, leaving out a retransmitted one delivered less than
   ``RACK.min_RTT`` after its last transmission (the RFC's second ambiguity test; the
   first needs TCP timestamps, which the simulator does not model); ``RACK.rtt`` that of
   the latest-sent valid one.
3. ``RACK.reordering_seen``: a packet never retransmitted delivered below ``RACK.fack``
   (the highest delivered).
4. ``RACK.reo_wnd``: 0 when no reordering was seen and the flow is in fast or timeout
   recovery or has DupThresh (3) packets SACKed; else ``min(reo_wnd_mult x min_RTT / 4,
   SRTT)``.  The receiver sends no D-SACK (RFC 2883 is not modelled, :mod:`.sack`), so the
   D-SACK adaptation never runs and ``reo_wnd_mult`` stays 1.
5. ``RACK_detect_loss``: a packet not delivered, not already marked lost (or resent
   since), sent before the ``RACK`` packet is lost when ``RACK.rtt + reo_wnd - (now -
   xmit_ts) <= 0`` (the RFC's ``xmit_ts + rtt + reo_wnd - now``, the terms grouped so that a
   packet sent at the same instant as the RACK packet gets exactly 0); otherwise the
   reordering timer (the flow's timer slot 0, ``MODE_REO``) is armed for the largest
   remaining time, and runs step 5 again when it fires (Section 6.3).

A lost packet is not given ``INFINITE_TS`` as the RFC's pseudo-code does: its ``LOST``
flag (without ``RETX``) keeps it out of step 5 the same way, and its transmit time stays
for step 2 if the original arrives after all.

Recovery with RACK (the senders' ``on_ack_sack``): the sender enters RFC 6675's recovery
(step (4): RecoveryPoint, the window reduction) when RACK has marked a packet lost,
instead of at DupThresh duplicate ACKs, and retransmits the first lost packet; in recovery
:func:`send_recovery` is step (C) with ``IsLost()`` replaced by RACK's marks:
``SetPipe()`` counts a packet not SACKed 1, 0 if marked lost and not resent, 1 more while
a retransmission of it is in flight; ``NextSeg()`` sends the lowest packet marked lost and
not resent since (which covers lost retransmissions, RFC 8985's point), else new data.
RFC 6675's rules 3 and 4 (a retransmission of a packet not known lost, and the rescue
retransmission) are left out, as Linux's ``tcp_xmit_retransmit_queue`` resends only packets
marked lost; TLP takes rule 4's place.  A retransmission timeout keeps the simulator's
go-back-N (:mod:`.sack`: the scoreboard cleared) and marks every packet outstanding lost
(RFC 8985 6.3 marks only SND.UNA and the packets older than ``RACK.rtt + reo_wnd``; with
go-back-N every one is resent anyway).

Two rules around the recovery that RFC 6675 alone does not need:

* the retransmission timer restarts whenever the packet at SND.UNA is (re)sent by RACK
  (:func:`restart_rto`): at the start of the recovery, as the sender without RACK does, and
  when RACK resends a lost retransmission of it (Linux's ``tcp_xmit_retransmit_queue``
  rearms the timer when it resends the head); not while the reordering timer holds the
  slot (its expiry restarts it).  Without it the timer, last restarted by the ACK before,
  fired before the new copy could be acknowledged: on the 32-flow CUBIC dumbbell of
  ``benchmarks/RESULTS.md`` (the section "RACK-TLP") most of the 4517 timeouts of session
  45 were such, fired 0.08-0.1 s after the head's retransmission with RTTs of 0.11-0.12 s;
* RFC 8985 Section 9.3: "In the absence of PRR [RFC6937], when RACK-TLP detects a lost
  retransmission, the congestion control MUST trigger an additional congestion response";
  here a retransmission marked lost that was sent after the window's last reduction
  (``R_CUT``) reduces it again as on entering the recovery (Reno: ssthresh = cwnd =
  FlightSize / 2; CUBIC: beta), once per such window (Section 9.3's "only reacts once per
  window" read as: a retransmission sent before the last reduction belongs to the window
  already answered for).  With PRR (``prr=True``, :mod:`.prr`, RFC 9937) this response is
  not applied: the section asks for it "in the absence of PRR", and PRR's episode goes on
  with the lost retransmission out of the pipe.

The retransmission timer can still beat RACK to a lost retransmission: step 5 marks it lost
only once a packet sent after it is SACKed, about a round trip after that packet leaves, and
after the recovery's reduction that may be a round trip away.  With the senders' default
``min_rto`` of 0.2 s under two round trips (the 32-flow CUBIC dumbbell, RTT about 0.11 s)
every one of RACK's timeouts there was such a race (912 against DupThresh's 216; with
``min_rto`` 0.3 s, 11 against 6): ``benchmarks/rack_timeouts.py`` and ``benchmarks/RESULTS.md``
("why RACK times out more often than DupThresh").

TLP (Section 7), with ``tlp=True``: after an ACK that acknowledges new data, outside fast
and timeout recovery and with no probe episode open (``TLP.end_seq`` None), the timer slot
holds the probe timeout PTO = 2 SRTT, plus ``WCDelAckT`` = 200 ms (the RFC's value; Linux
adds ``TCP_RTO_MIN``, also 200 ms) when one packet is in flight, 1 s with no SRTT, and no
later than the retransmission timer would have fired (Section 7.2).  When it fires
(Section 7.3) the sender sends one new packet if the application and the receiver's window
allow, else resends its highest packet, whatever the window; ``TLP.end_seq`` = SND.NXT; the
retransmission timer restarts.  Section 7.4: an ACK at or beyond ``TLP.end_seq`` ends the
episode if the probe was new data; for a retransmitted probe, a duplicate ACK without SACK
blocks (the probe was a duplicate: the receiver had the packet) ends it, and an ACK beyond
``TLP.end_seq`` ends it and reports a repaired loss (``EV_TLP_LOSS``), on which the sender
reduces its window as on entering fast recovery (RFC 8985 7.4.2; Linux:
``tcp_process_tlp_ack``).  A timeout closes the episode.  (The RFC also schedules the probe
after new data is sent; here new data is sent in the same event as the ACK that releases
it, so the times are the same, except for the first flight, which has no SRTT: its PTO
would be the 1 s of the initial RTO.)

What could be checked: the text of RFC 8985 itself could not be retrieved in full (search
excerpts of Sections 6.2 steps 1 and 2, 6.3's ``RACK_mark_losses_on_RTO``, 9.2 and 9.3 as
quoted by other implementations, and their readings of 7.2 and 7.4.2 were read); the rules
above are written as the RFC states them to the authors' understanding.  Steps 1-5 and the
reordering timer are checked against ``tests/sim/rack_replay.py``, a plain-Python replay of
the RFC's pseudo-code fed the transmissions and ACKs of kernel runs (three patterns: periodic
losses, lost retransmissions on a 50 ms path, packets overtaking each other), call by call
(the packets marked lost, the timer's deadline); the recovery around them by hand traces
(``tests/sim/test_rack.py``: a lost retransmission found without a timeout, the timer
restarted with the head's retransmission, tail losses repaired by the probe).  TLP's rules
(Section 7) are not replayed.

References
----------
RFC 8985, Sections 5, 6.1-6.3, 7.1-7.4, 9.3; RFC 6675, Sections 4 and 5; Linux
``net/ipv4/tcp_recovery.c`` and ``tcp_output.c``'s ``tcp_xmit_retransmit_queue`` (compared
for the values and timer rules the RFC leaves open).
"""

import numpy as np

from . import sack
from ._jit import POS, handler, rare_handler
from .layout import (
    FF_RTO,
    FF_SRTT,
    FI_APP_LIMIT,
    FI_IN_REC,
    FI_MAXSEQ,
    FI_RACK,
    FI_RECOVER,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_TIMEOUTS,
    FI_TIMER0,
    FI_WINDOWED,
    GF_NOW,
    SACK_SHIFT,
    TM_DEADLINE,
)
from .rackstate import (
    EVER,
    LOST,
    MODE_PTO,
    MODE_REO,
    MODE_RTO,
    R_AT,
    R_BEST,
    R_CUT,
    R_END,
    R_FACK,
    R_MIN_RTT,
    R_MODE,
    R_NOSACK,
    R_REORD,
    R_RLOST,
    R_RTT,
    R_TLP_END,
    R_TLP_RETX,
    R_XMIT,
    RETX,
    flags_at,
    head,
    xmit_at,
)
from .sender import arm_timer, transmit
from .timers import set_deadline

#: RFC 8985 7.2's WCDelAckT, the worst-case delayed-ACK time, s
WC_DEL_ACK = 0.2
#: RFC 8985 7.2: the PTO when no SRTT is known, s
PTO_NO_SRTT = 1.0
#: what :func:`on_ack` and :func:`on_timer` report (bits)
EV_LOST = 1       # a packet is marked lost and not resent
EV_TLP_LOSS = 2   # TLP's probe repaired a loss (Section 7.4.2): reduce the window
EV_MARKED = 4     # this ACK's step 5 marked a packet lost (PRR's SafeACK, RFC 9937)


@handler
def _sent_after(t1, s1, t2, s2):
    """``RACK_sent_after`` (RFC 8985 6.2): (t1, s1) sent after (t2, s2)."""
    return t1 > t2 or (t1 == t2 and s1 > s2)


@rare_handler
def _deliver(S, f, seq, h):
    """Steps 1-3 for packet ``seq``, newly delivered (in ascending order of number)."""
    st = S.stime
    now = S.gf[GF_NOW]
    t = st[xmit_at(S, f, seq)]
    fl = S.ooo[flags_at(S, f, seq)]
    rtt = now - t
    mr = st[h + R_MIN_RTT]
    valid = True
    if fl & EVER:
        if mr == 0.0 or rtt < mr:  # (no min_RTT yet: infinite)
            valid = False
    elif mr == 0.0 or rtt < mr:  # step 1
        st[h + R_MIN_RTT] = rtt
    if valid:  # step 2
        if t >= st[h + R_BEST]:
            st[h + R_BEST] = t
            st[h + R_RTT] = rtt
        end = np.float64(seq + 1)
        if st[h + R_END] == 0.0 or _sent_after(t, end, st[h + R_XMIT], st[h + R_END]):
            st[h + R_XMIT] = t
            st[h + R_END] = end
    end = np.float64(seq + 1)  # step 3
    if end > st[h + R_FACK]:
        st[h + R_FACK] = end
    elif end < st[h + R_FACK] and (fl & EVER) == 0:
        st[h + R_REORD] = 1.0


@rare_handler
def before_update(S, f, a):
    """Before :func:`.sack.update` clears them: the packets cumulative ACK ``a`` newly
    delivers (those in [SND.UNA, a) not SACKed before) go through steps 1-3; and whether
    the ACK carries a SACK block (for Section 7.4)."""
    fi, st = S.fi, S.stime
    h = head(S, f)
    st[h + R_BEST] = -1.0
    una = fi[f, FI_SND_UNA]
    top = fi[f, FI_MAXSEQ]
    for q in range(una, a if a < top else top):
        if not sack.sacked(S, f, q):
            _deliver(S, f, q, h)
    tag = st[sack._head(S, f) + sack.H_SERIAL]
    nosack = 1.0
    if tag > 0.0:
        r = sack._record(S, f, np.int64(tag) - 1)
        for j in range(fi[f, FI_WINDOWED] >> SACK_SHIFT):
            if st[r + 2 + 2 * j] > st[r + 1 + 2 * j]:
                nosack = 0.0
    st[h + R_NOSACK] = nosack


@handler
def in_recovery(S, f):
    """In fast recovery, or in the recovery after a timeout (SND.UNA at or below the
    recovery point the timeout set)."""
    fi = S.fi
    return fi[f, FI_IN_REC] != 0 or (fi[f, FI_TIMEOUTS] > 0
                                     and fi[f, FI_SND_UNA] <= fi[f, FI_RECOVER])


@rare_handler
def reo_wnd(S, f):
    """Step 4: the reordering window, s."""
    st = S.stime
    h = head(S, f)
    if st[h + R_REORD] == 0.0:
        if in_recovery(S, f):
            return 0.0
        if sack.sacked_count(S, f) >= sack.DUP_THRESH:
            return 0.0
    w = st[h + R_MIN_RTT] / 4.0  # (reo_wnd_mult = 1: no D-SACK)
    srtt = S.ff[f, FF_SRTT]
    if srtt >= 0.0 and srtt < w:
        w = srtt
    return w


@rare_handler
def detect_loss(S, f):
    """Step 5, ``RACK_detect_loss_and_arm_timer``: mark packets lost; arm the reordering
    timer for the largest remaining time if any.  Returns the packets marked lost now."""
    fi, st = S.fi, S.stime
    h = head(S, f)
    if st[h + R_END] == 0.0:
        return 0
    now = S.gf[GF_NOW]
    w = reo_wnd(S, f)
    rt = st[h + R_RTT]
    rx = st[h + R_XMIT]
    re = st[h + R_END]
    timeout = 0.0
    n = 0
    for q in range(fi[f, FI_SND_UNA], fi[f, FI_MAXSEQ]):
        if sack.sacked(S, f, q):
            continue
        k = flags_at(S, f, q)
        fl = S.ooo[k]
        if (fl & LOST) != 0 and (fl & RETX) == 0:
            continue
        t = st[xmit_at(S, f, q)]
        if _sent_after(rx, re, t, np.float64(q + 1)):
            remaining = rt + w - (now - t)
            if now + remaining <= now:  # (a remainder below the clock's resolution: 0)
                S.ooo[k] = np.uint8((fl | LOST) & (255 - RETX))
                n += 1
                if (fl & RETX) != 0 and t > st[h + R_CUT]:  # a lost retransmission (9.3)
                    st[h + R_RLOST] = 1.0
            elif remaining > timeout:
                timeout = remaining
    if timeout > 0.0:
        _arm(S, f, h, MODE_REO, now + timeout)
    return n


@handler
def _arm(S, f, h, mode, t):
    """Put RACK's reordering timer or TLP's probe timer on the flow's timer slot 0."""
    S.stime[h + R_MODE] = np.float64(mode)
    S.stime[h + R_AT] = t
    set_deadline(S, S.fi[f, FI_TIMER0] & POS, t, True)


@rare_handler
def on_ack(S, f, a, una0):
    """After :func:`.sack.update` (and the sender's own part of a new ACK): the packets the
    ACK newly SACKed through steps 1-3, then steps 4-5, then TLP's Section 7.4 with
    ``una0`` the SND.UNA before the ACK.  Returns ``EV_*`` bits."""
    st = S.stime
    h = head(S, f)
    tag, lo, hi = sack.new_tag(S, f)
    if lo >= 0:
        for q in range(lo, hi + 1):
            if sack.sacked(S, f, q) and sack.tag_of(S, f, q) == tag:
                _deliver(S, f, q, h)
    ev = EV_MARKED if detect_loss(S, f) > 0 else 0
    end = np.int64(st[h + R_TLP_END])
    if end > 0 and a >= end:  # Section 7.4.2
        if st[h + R_TLP_RETX] == 0.0:
            st[h + R_TLP_END] = 0.0
        elif a > end:
            st[h + R_TLP_END] = 0.0
            ev |= EV_TLP_LOSS
        elif a == una0 and st[h + R_NOSACK] != 0.0:
            st[h + R_TLP_END] = 0.0
    if lost_pending(S, f):
        ev |= EV_LOST
    return ev


@rare_handler
def lost_pending(S, f):
    """Whether a packet outstanding is marked lost and not resent since."""
    fi = S.fi
    for q in range(fi[f, FI_SND_UNA], fi[f, FI_SND_NXT]):
        fl = S.ooo[flags_at(S, f, q)]
        if (fl & LOST) != 0 and (fl & RETX) == 0 and not sack.sacked(S, f, q):
            return True
    return False


@rare_handler
def set_pipe(S, f):
    """``SetPipe()`` with RACK's marks: per packet in [SND.UNA, SND.NXT) not SACKed, 1
    unless marked lost, and 1 more while a retransmission of it is in flight."""
    fi = S.fi
    pipe = 0
    for q in range(fi[f, FI_SND_UNA], fi[f, FI_SND_NXT]):
        if sack.sacked(S, f, q):
            continue
        fl = S.ooo[flags_at(S, f, q)]
        if (fl & LOST) == 0:
            pipe += 1
        if (fl & RETX) != 0:
            pipe += 1
    return pipe


@rare_handler
def _first_lost(S, f, q0):
    """The lowest packet at or above ``q0`` marked lost and not resent since (-1: none)."""
    for q in range(q0, S.fi[f, FI_SND_NXT]):
        fl = S.ooo[flags_at(S, f, q)]
        if (fl & LOST) != 0 and (fl & RETX) == 0 and not sack.sacked(S, f, q):
            return q
    return np.int64(-1)


@rare_handler
def retx_lost(S, f):
    """RFC 8985 Section 9.3: whether step 5 has marked lost a retransmission sent after the
    window's last reduction (then the sender reduces it again, :func:`cut`); clears it."""
    st = S.stime
    h = head(S, f)
    r = st[h + R_RLOST] != 0.0
    st[h + R_RLOST] = 0.0
    return r


@rare_handler
def cut(S, f):
    """The window has just been reduced (recovery entered, or a lost retransmission): a
    retransmission sent before now belongs to the window already answered for."""
    st = S.stime
    h = head(S, f)
    st[h + R_CUT] = S.gf[GF_NOW]
    st[h + R_RLOST] = 0.0


@rare_handler
def restart_rto(S, f):
    """Restart the retransmission timer after the packet at SND.UNA is resent (Linux's
    rule, ``tcp_xmit_retransmit_queue``; without RACK the sender restarts it on entering
    the recovery), unless RACK's reordering timer holds the slot: its expiry restarts it."""
    fi, st = S.fi, S.stime
    h = head(S, f)
    slot = fi[f, FI_TIMER0] & POS
    if not (np.int64(st[h + R_MODE]) == MODE_REO and S.tm[slot, TM_DEADLINE] == st[h + R_AT]):
        st[h + R_MODE] = np.float64(MODE_RTO)
        arm_timer(S, f)


@rare_handler
def resend_first_lost(S, f):
    """RFC 6675 step (4.3) with RACK's marks: resend the lowest packet marked lost; the
    retransmission timer restarts (:func:`restart_rto`).  Returns the packets sent (0 or 1)."""
    q = _first_lost(S, f, S.fi[f, FI_SND_UNA])
    n = 0
    if q >= 0 and transmit(S, f, q):
        n = 1
    restart_rto(S, f)
    return n


@rare_handler
def send_recovery(S, f, cwnd, wmax):
    """Step (C) with RACK's marks: while ``cwnd - pipe >= 1``, the lowest packet marked
    lost and not resent, else a new packet if the receiver's window (``wmax`` packets
    above SND.UNA) and the application allow.  Returns the packets sent."""
    fi = S.fi
    pipe = set_pipe(S, f)
    sent = 0
    q = fi[f, FI_SND_UNA]
    while cwnd - pipe >= 1.0:
        q = _first_lost(S, f, q)
        if q >= 0:
            if not transmit(S, f, q):
                break
            if q == fi[f, FI_SND_UNA]:  # (the head resent: the timer restarts)
                restart_rto(S, f)
            q += 1
        else:
            q = fi[f, FI_SND_NXT]
            if (q < fi[f, FI_SND_UNA] + wmax and q < fi[f, FI_APP_LIMIT]
                    and q >= fi[f, FI_MAXSEQ]):
                if not transmit(S, f, q):
                    break
                fi[f, FI_SND_NXT] = q + 1
            else:
                break
        pipe += 1
        sent += 1
    return sent


@rare_handler
def rearm(S, f, new_data):
    """At the end of an ACK (``new_data``: it acknowledged new data): a reordering timer
    still pending stays; else TLP's probe timer when Section 7.2 allows it, and a probe
    timer no longer allowed gives way to the retransmission timer."""
    fi, st = S.fi, S.stime
    h = head(S, f)
    now = S.gf[GF_NOW]
    slot = fi[f, FI_TIMER0] & POS
    mode = np.int64(st[h + R_MODE])
    mine = mode != MODE_RTO and S.tm[slot, TM_DEADLINE] == st[h + R_AT]
    if mine and mode == MODE_REO:
        return
    una = fi[f, FI_SND_UNA]
    flight = fi[f, FI_SND_NXT] - una
    if (fi[f, FI_RACK] < 2 or not new_data or in_recovery(S, f) or st[h + R_TLP_END] > 0.0
            or flight <= 0):
        st[h + R_MODE] = np.float64(MODE_RTO)
        if mine and flight > 0:  # (the sender did not restart it: a probe was pending)
            arm_timer(S, f)
        return
    srtt = S.ff[f, FF_SRTT]
    if srtt >= 0.0:
        pto = 2.0 * srtt
        if flight == 1:
            pto += WC_DEL_ACK
    else:
        pto = PTO_NO_SRTT
    rto_at = now + S.ff[f, FF_RTO] if mine else S.tm[slot, TM_DEADLINE]
    t = now + pto
    if t > rto_at:
        t = rto_at
    _arm(S, f, h, MODE_PTO, t)


@rare_handler
def _probe(S, f, wmax):
    """Section 7.3: one new packet if allowed, else the highest one sent again."""
    fi, st = S.fi, S.stime
    h = head(S, f)
    nxt = fi[f, FI_SND_NXT]
    una = fi[f, FI_SND_UNA]
    if nxt >= fi[f, FI_MAXSEQ] and nxt < fi[f, FI_APP_LIMIT] and nxt < una + wmax:
        if transmit(S, f, nxt):
            fi[f, FI_SND_NXT] = nxt + 1
        st[h + R_TLP_RETX] = 0.0
    else:
        transmit(S, f, fi[f, FI_MAXSEQ] - 1)
        st[h + R_TLP_RETX] = 1.0
    st[h + R_TLP_END] = np.float64(fi[f, FI_MAXSEQ])


@rare_handler
def on_timer(S, f, wmax):
    """The flow's timer slot 0 fired as RACK's reordering timer (step 5 again) or TLP's
    probe timer (a probe, Section 7.3); then the retransmission timer restarts unless the
    reordering timer is pending again.  Returns ``EV_*`` bits."""
    fi, st = S.fi, S.stime
    h = head(S, f)
    mode = np.int64(st[h + R_MODE])
    st[h + R_MODE] = np.float64(MODE_RTO)
    if mode == MODE_PTO:
        _probe(S, f, wmax)
    else:
        detect_loss(S, f)
    if st[h + R_MODE] == MODE_RTO and fi[f, FI_SND_NXT] > fi[f, FI_SND_UNA]:
        arm_timer(S, f)
    return EV_LOST if lost_pending(S, f) else 0


@rare_handler
def on_rto(S, f):
    """A retransmission timeout (the caller goes back N): every packet outstanding marked
    lost, the probe episode closed, the timer slot back to the retransmission timer."""
    fi, st = S.fi, S.stime
    h = head(S, f)
    for q in range(fi[f, FI_SND_UNA], fi[f, FI_MAXSEQ]):
        k = flags_at(S, f, q)
        S.ooo[k] = np.uint8((S.ooo[k] | LOST) & (255 - RETX))
    st[h + R_TLP_END] = 0.0
    st[h + R_TLP_RETX] = 0.0
    st[h + R_MODE] = np.float64(MODE_RTO)
