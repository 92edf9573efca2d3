"""The TCP receiver's delayed ACKs, with DCTCP's two-state ECN echo.

A window flow whose source asks for delayed ACKs (``delayed_ack = m > 1`` on
:class:`~qosmodels.mechanisms.TcpReno` and its subclasses, and on
:class:`~qosmodels.mechanisms.Cubic`) does not acknowledge every data packet at
once (:func:`.receiver.on_data`'s default).  RFC 1122, Section 4.2.3.2: "in a
stream of full-sized segments there SHOULD be an ACK for at least every second
segment" and "the delay MUST be less than 0.5 seconds"; RFC 5681, Section 4.2:
an ACK "SHOULD be generated for at least every second full-sized segment, and
MUST be generated within 500 ms of the arrival of the first unacknowledged
packet"; "out-of-order data segments SHOULD be acknowledged immediately" and
"the receiver SHOULD send an immediate ACK when it receives a data segment that
fills in all or part of a gap in the sequence space".  So here:

* an in-order packet with no hole above it is held; the ``m``-th held packet
  is acknowledged at once (one cumulative ACK for the ``m``);
* the first held packet starts the delayed-ACK timer (``FF_DA_TIMEOUT``; later
  held packets do not restart it); when it fires, an ACK for what is held is
  sent (a new packet from the pool);
* a packet above ``RCV.NXT`` (out of order), below it (a duplicate) or one that
  arrives while a hole exists (it fills all or part of it) is acknowledged at
  once, together with whatever was held; no timer runs while nothing is held.

Every packet is full-sized here (the simulator's packets of a flow have one
size).  The ACK's ECN echo: a classic ECN receiver (RFC 3168) echoes on an
ACK when a packet it covers carried CE (as the kernel echoes each packet's
own CE without delayed ACKs; the sticky "ECE until CWR" of RFC 3168, Section
6.1.3 is not modelled, with or without delayed ACKs).  A DCTCP receiver (Dctcp
and Prague) runs RFC 8257, Section 3.2's state machine (Alizadeh et al.,
SIGCOMM 2010, Section 3.1 and Fig. 10): it keeps ``DCTCP.CE`` and every ACK
echoes ECE = ``DCTCP.CE``; a packet whose CE differs from it changes the state
and is acknowledged at once ("send an immediate ACK"); the packets held before
it are first acknowledged by an ACK of their own with ECE = the *old* state
(RFC 8257 allows these two ACKs so that the sender's count of marked bytes
stays exact; the paper's Fig. 10 labels the transitions "Send immediate ACK
with ECE=0/1", the old state).  So every ACK covers packets of one CE value.
This is Linux's ``dctcp_ece_ack_update`` (the held ACK sent for the prior
``rcv_nxt`` with the old state, then ``ICSK_ACK_NOW``); ns-3's
``TcpDctcp::CeState0to1`` sends the held ACK but then lets the new packet wait
for the delayed-ACK rule (not modelled).  With ``m = 1`` the state is always
the last packet's CE: the kernel's echo without delayed ACKs.

Checked: the rules above against RFC 5681's sentences quoted (RFC 1122's from
memory: the same two limits), and
the DCTCP echo against Linux's code (read in a port of ``dctcp_ece_ack_update``);
RFC 8257's Section 3.2 is followed from its text as summarised above, not re-read
in full for this module.  Not modelled: Linux's quick-ACK mode after a hole, its
adaptive ``ato`` (40 ms to 200 ms), ACKs piggy-backed on reverse data (the
simulator's flows send data one way), and receive-window updates.

References
----------
R. Braden (ed.), RFC 1122, 1989, Section 4.2.3.2; M. Allman, V. Paxson, E. Blanton,
RFC 5681, 2009, Section 4.2; S. Bensley et al., RFC 8257, 2017, Section 3.2; M. Alizadeh
et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, Section 3.1; K. Ramakrishnan, S. Floyd,
D. Black, RFC 3168, 2001, Section 6.1.3.
"""

import numpy as np

from ._jit import POS, handler, rare_handler
from .dispatch_edges import edge_echo
from .layout import (
    EI_CODE,
    FF_ACK_BITS,
    FF_DA_TIMEOUT,
    FI_ACKS_SENT,
    FI_DA_CE,
    FI_DA_DCTCP,
    FI_DA_HELD,
    FI_DA_HIGH,
    FI_DA_M,
    FI_DA_SLOT,
    FI_EDGE,
    FI_GROW_PACKETS,
    FI_RCV_NXT,
    FI_TIMER0,
    FI_WINDOWED,
    GF_NOW,
    KIND_ACK,
    MARK_CE,
    MARK_ECE,
    PI_KIND,
    PI_MARK,
    W_BITS,
    W_FORWARD,
)
from .pool import defer
from .sack import report
from .sender import new_packet
from .timers import cancel, set_deadline


def setup(spec, ff, fi, slot) -> None:
    """A window flow's delayed-ACK state in its rows ``ff``, ``fi`` (plain Python, from the
    compile step, before the source module's ``setup``): ``spec.delayed_ack`` (``m``; a
    source without the field acknowledges every packet) and ``spec.delayed_ack_timeout``
    (s); ``slot``: the timer's number among the flow's timer slots (after the source's
    own) when ``m > 1``.  The classic echo; a DCTCP source's ``setup`` sets
    ``FI_DA_DCTCP`` for RFC 8257's."""
    m = int(getattr(spec, "delayed_ack", 1))
    fi[FI_DA_M] = m
    fi[FI_DA_HELD] = 0
    fi[FI_DA_CE] = 0
    fi[FI_DA_HIGH] = 0
    fi[FI_DA_DCTCP] = 0
    fi[FI_DA_SLOT] = slot if m > 1 else -1
    ff[FF_DA_TIMEOUT] = float(spec.delayed_ack_timeout) if m > 1 else 0.0
    # (the sender's side of ACKs covering several packets: ``ack_counting``, read by the
    # Reno-family and Cubic kernels' ``grow``)
    fi[FI_GROW_PACKETS] = int(getattr(spec, "ack_counting", "ack") == "packets")


def timers(spec) -> int:
    """The timer slots the delayed ACKs of a flow with source ``spec`` need: 1 if
    ``delayed_ack > 1``, else 0."""
    return 1 if int(getattr(spec, "delayed_ack", 1)) > 1 else 0


@handler
def _slot(S, f):
    """The delayed-ACK timer's slot (in the timers' rows)."""
    return (S.fi[f, FI_TIMER0] + S.fi[f, FI_DA_SLOT]) & POS


@handler
def emit(S, f, rn, mark):
    """Send a new ACK of flow ``f`` (cumulative ACK ``rn``, mark bits ``mark``) from the
    receiver, as :func:`.receiver.on_data` sends the one a data packet becomes."""
    fi = S.fi
    q = new_packet(S, f, rn, mark, S.ff[f, FF_ACK_BITS])
    if q < 0:
        return
    S.pi[q, PI_KIND] = KIND_ACK
    if fi[f, FI_WINDOWED] > 1:  # its SACK option: what the receiver holds (no new block)
        report(S, f, q, rn - 1, rn)
    fi[f, FI_ACKS_SENT] += 1
    e = fi[f, FI_EDGE]
    if e >= 0:
        edge_echo(S, S.ei[e & POS, EI_CODE], e & POS, f, q)
    defer(S, (q << W_BITS) | W_FORWARD)


@handler
def arrive(S, f, p, seq, rn0):
    """Data packet ``p`` (sequence ``seq``) of a flow with delayed ACKs has been taken in
    by the receiver (``rn0``: ``RCV.NXT`` before it).  True: hold the ACK (the caller
    frees ``p``); False: acknowledge now (the caller turns ``p`` into the ACK and takes its
    echo from :func:`echo`)."""
    fi = S.fi
    ce = 1 if (S.pi[p, PI_MARK] & MARK_CE) != 0 else 0
    held = fi[f, FI_DA_HELD]
    high = fi[f, FI_DA_HIGH]
    in_order = seq == rn0 and high <= rn0  # no hole: nothing above RCV.NXT received
    if seq + 1 > high:
        fi[f, FI_DA_HIGH] = seq + 1
    if fi[f, FI_DA_DCTCP] != 0:
        if ce != fi[f, FI_DA_CE]:  # RFC 8257 3.2: the state changes, an immediate ACK
            if held > 0:  # first the held packets' own ACK, with the old state
                emit(S, f, rn0, MARK_ECE if fi[f, FI_DA_CE] != 0 else 0)
                held = 0
            fi[f, FI_DA_CE] = ce
            in_order = False
    elif ce != 0:
        fi[f, FI_DA_CE] = 1  # an ACK covering this packet echoes it
    if in_order and held + 1 < fi[f, FI_DA_M]:
        fi[f, FI_DA_HELD] = held + 1
        if held == 0:  # the first unacknowledged packet starts the timer
            set_deadline(S, _slot(S, f), S.gf[GF_NOW] + S.ff[f, FF_DA_TIMEOUT], True)
        return True
    if fi[f, FI_DA_HELD] > 0:
        cancel(S, _slot(S, f))
    fi[f, FI_DA_HELD] = 0
    return False


@handler
def echo(S, f, mark):
    """The mark bits of an ACK that a flow with delayed ACKs sends now (``mark``: what
    the source's receiver echo gave for the packet): ECE by :func:`arrive`'s state; the
    classic receiver's CE memory cleared."""
    fi = S.fi
    ece = fi[f, FI_DA_CE] != 0
    if fi[f, FI_DA_DCTCP] == 0:
        fi[f, FI_DA_CE] = 0
    return (mark & ~np.int64(MARK_ECE)) | (MARK_ECE if ece else 0)


@rare_handler
def on_timer(S, f):
    """The delayed-ACK timer of flow ``f`` has fired: acknowledge what is held."""
    fi = S.fi
    if fi[f, FI_DA_HELD] == 0:
        return
    fi[f, FI_DA_HELD] = 0
    emit(S, f, fi[f, FI_RCV_NXT], echo(S, f, 0))
