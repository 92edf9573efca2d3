"""Where RACK-TLP (RFC 8985) keeps its state in a SACK flow's region, and the per-packet
stamp every transmission leaves (:mod:`.rack` has the algorithm).

A flow with ``FI_RACK`` != 0 (1: RACK, 2: RACK and TLP) reserves the top of its SACK
region in ``stime`` (:mod:`.sack` shortens its ring of ACK options by :func:`reserved`
slots): a header of ``R_H`` slots (``R_*``: RACK's and TLP's per-connection variables,
RFC 8985 Section 5.2 and 7) and a ring of ``Q`` transmit times keyed by ``seq & (Q -
1)``, ``Q`` being an eighth of the lower quarter (more than the largest window, as every
sub-ring of :mod:`.sack`).  The packet's flags (``LOST``, ``RETX``, ``EVER``) are bytes
in the second quarter of ``ooo``, which the receiver's bitmap (the lower quarter) leaves
free, at the same key.

This module imports nothing but the layout, so that :mod:`.sender` (the stamp at each
transmission), :mod:`.sack` (the reservation) and :mod:`.flows` (which timer fired) can
call it below :mod:`.rack`, which sends.

References
----------
RFC 8985, Sections 5.2 (per-segment variables), 6.1 (upon transmitting a data segment).
"""

import numpy as np

from ._jit import POS, handler, rare_handler
from .layout import FI_OOO_MASK, FI_OOO_OFF, FI_RACK, GF_NOW

# header slots (floats): RACK's variables (RFC 8985 Section 5.2), 0 meaning none unless said
R_XMIT = 0       # RACK.xmit_ts, s (meaningful when R_END > 0)
R_END = 1        # RACK.end_seq, packets (one past the packet's number; 0: none)
R_RTT = 2        # RACK.rtt, s
R_MIN_RTT = 3    # RACK.min_RTT, s (0: no sample yet)
R_FACK = 4       # RACK.fack: the highest end_seq delivered, packets
R_REORD = 5      # RACK.reordering_seen: 1.0 or 0.0
R_MODE = 6       # the kind of deadline RACK-TLP put on the flow's timer slot 0 (MODE_*)
R_AT = 7         # ... and that deadline, s
R_TLP_END = 8    # TLP.end_seq, packets (0: None, no probe episode)
R_TLP_RETX = 9   # TLP.is_retrans: 1.0 or 0.0
R_BEST = 10      # (per ACK) the latest transmit time among the packets it delivered, s
R_NOSACK = 11    # (per ACK) 1.0: the ACK carried no SACK block
R_CUT = 12       # when the window was last reduced in a recovery (entry, or a lost
                 # retransmission: RFC 8985 Section 9.3), s
R_RLOST = 13     # 1.0: step 5 marked lost a retransmission sent after R_CUT (Section 9.3)
R_H = 14

#: the flow's timer slot 0 holds the retransmission timer, RACK's reordering timer or TLP's
MODE_RTO = 0
MODE_REO = 1
MODE_PTO = 2

# a packet's flags (a byte in ``ooo``)
LOST = 1   # marked lost (RACK, or a timeout), not delivered since
RETX = 2   # a retransmission of it is in flight (cleared when RACK marks it lost again)
EVER = 4   # it has been retransmitted (RFC 8985's Segment.retransmitted)


@handler
def reserved(S, f):
    """Slots at the top of flow ``f``'s SACK region that RACK reserves (0: RACK off)."""
    if S.fi[f, FI_RACK] == 0:
        return 0
    return (S.fi[f, FI_OOO_MASK] + 1) // 8 + R_H


@handler
def head(S, f):
    """Index in ``stime`` of flow ``f``'s RACK header."""
    fi = S.fi
    q = fi[f, FI_OOO_MASK] + 1
    return (fi[f, FI_OOO_OFF] + 4 * q - q // 8 - R_H) & POS


@handler
def xmit_at(S, f, seq):
    """Index in ``stime`` of packet ``seq``'s last transmit time."""
    fi = S.fi
    q = fi[f, FI_OOO_MASK] + 1
    return (fi[f, FI_OOO_OFF] + 4 * q - q // 8 + (seq & (q // 8 - 1))) & POS


@handler
def flags_at(S, f, seq):
    """Index in ``ooo`` of packet ``seq``'s flags."""
    fi = S.fi
    q = fi[f, FI_OOO_MASK] + 1
    return (fi[f, FI_OOO_OFF] + q + (seq & (q // 8 - 1))) & POS


@rare_handler
def stamp(S, f, seq, again):
    """RFC 8985, Section 6.1: packet ``seq`` of flow ``f`` leaves now (``again``: a
    retransmission): its transmit time, and for a retransmission ``RETX`` and ``EVER``
    (``LOST`` kept: the loss it repairs stays counted until it is delivered).

    A rare handler (a real call, not inlined into :func:`.sender.transmit`): inlined, it
    made the benchmark's drop-tail dumbbell, which has no RACK flow, 9.6 % slower (paired
    ``simulate`` times, 9 pairs; ``benchmarks/RESULTS.md``, session 46)."""
    S.stime[xmit_at(S, f, seq)] = S.gf[GF_NOW]
    k = flags_at(S, f, seq)
    if again:
        S.ooo[k] = np.uint8((S.ooo[k] & LOST) | RETX | EVER)
    else:
        S.ooo[k] = np.uint8(0)


@handler
def is_rto(S, f):
    """Whether flow ``f``'s timer slot 0, which has just come due, is its retransmission
    timer (True) or RACK's reordering timer or TLP's probe timer (False)."""
    if S.fi[f, FI_RACK] == 0:
        return True
    h = head(S, f)
    return S.stime[h + R_MODE] == MODE_RTO or S.stime[h + R_AT] != S.gf[GF_NOW]
