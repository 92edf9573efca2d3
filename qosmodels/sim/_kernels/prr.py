"""Proportional Rate Reduction (PRR, RFC 9937, which obsoletes RFC 6937) for the SACK
senders' fast recovery, in packets.

A TcpReno/TcpNewReno or Cubic flow with ``sack=True, prr=True`` (its parameter row's column
:data:`PARAM`, the same in both: 1 the RFC's bound choice, 2 PRR-CRB always, 3 PRR-SSRB
always; 0 off) sets ``cwnd`` on every ACK that starts or falls inside a fast recovery
(RFC 6675's, or RACK's, RFC 8985) by RFC 9937's per-ACK algorithm, and step (C) then sends
while ``cwnd - pipe >= 1`` as without PRR, so that the recovery's sending follows the
deliveries instead of RFC 6675's ``cwnd = ssthresh`` at once:

* at the start of the recovery (:func:`start`): ``prr_delivered = prr_out = 0`` and
  ``RecoverFS`` = the packets outstanding before the ACK that starts it that were not SACKed
  before it (``SND.NXT - SND.UNA`` less the SACKed ones, the ACK's own deliveries then
  counted in ``prr_delivered``); ssthresh is the sender's decrease (Reno's halving, CUBIC's
  beta), computed by the sender as without PRR;
* on each such ACK (:func:`step`), ``DeliveredData`` = the packets it newly acknowledges,
  cumulatively (the change in SND.UNA) or selectively (the change in the packets SACKed above
  SND.UNA); an ACK delivering nothing leaves ``cwnd`` as it is; else ``prr_delivered +=
  DeliveredData``, ``pipe`` RFC 6675's ``SetPipe()`` (with RACK: its loss marks), and

  - ``pipe > ssthresh``: ``sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out``
    (the proportional part: over the recovery the sender sends ssthresh for RecoverFS
    delivered);
  - else PRR-CRB, ``sndcnt = MAX(prr_delivered - prr_out, DeliveredData)``, plus one packet
    (PRR-SSRB) when the ACK is a *SafeACK*: it advances SND.UNA and indicates no further
    loss (no packet newly counted lost: by ``IsLost()`` without RACK, by RACK's step 5 with
    it); then ``sndcnt = MIN(ssthresh - pipe, sndcnt)``;
  - ``prr_out`` 0 and ``sndcnt`` below one packet: ``sndcnt = 1`` (the fast retransmit);
  - ``cwnd = pipe + sndcnt``;

* every packet the flow sends in the recovery (the fast retransmit, step (C)'s and RACK's
  retransmissions, new data) adds one to ``prr_out`` (:func:`sent`);
* the ACK that ends the recovery (above RecoveryPoint) is not such an ACK: ``cwnd =
  ssthresh`` (as Linux's ``tcp_end_cwnd_reduction``; RFC 6675's recovery holds ``cwnd =
  ssthresh`` throughout, so the window leaving it is the same).

Choices and readings, each a documented rule rather than a tuned value:

* ``prr_bound`` (the spec's field): RFC 9937's rule, CRB with SSRB's extra packet on a
  SafeACK, is the default (``"safeack"``, column value 1); RFC 6937's two fixed bounds are
  kept as options (``"crb"``: never the extra packet; ``"ssrb"``: always).
* The window is in packets and ssthresh may be fractional (CUBIC's ``beta x FlightSize``,
  Reno's ``FlightSize / 2``): ``CEIL`` takes a quotient within 1e-9 of a whole number as that
  number (so ``7.000000000000001`` from ``0.7 * 10`` is 7, not 8), and the bound ``ssthresh -
  pipe`` may leave a fraction of a packet, which step (C) does not send.  The RFC's "``prr_out``
  is 0 AND ``sndcnt`` is 0" is read as "below one packet" (Linux's and ns-3's ``max(sndcnt,
  prr_out ? 0 : 1)``).
* RACK's reordering timer can start the recovery without an ACK (``DeliveredData`` 0): the
  episode starts and the forced fast retransmit alone is allowed (``cwnd = pipe + 1``); in the
  recovery its expiry sends by step (C) with the ``cwnd`` of the last ACK (as Linux's
  ``tcp_rack_reo_timeout`` retransmits within the current window).
* RFC 8985 Section 9.3's additional congestion response to a lost retransmission applies "in
  the absence of PRR": with ``prr=True`` it is not applied; the lost retransmission leaves
  ``pipe`` and PRR's accounting goes on in the same episode (RFC 9937: one episode per
  recovery; Linux does not reduce again either).  TLP's repaired loss (RFC 8985 7.4.2)
  happens outside recovery and keeps its immediate reduction (Linux: ``tcp_process_tlp_ack``
  enters and ends a CWR reduction at once).
* A retransmission timeout ends the episode (the sender leaves the recovery); the next
  recovery starts a new one.

What could be checked: the text of RFC 9937 could not be retrieved in full in the session
that wrote this module (the stored search corpus held its front matter and abstract, not
Section 6's pseudo-code); the algorithm above is written from the RFC's pseudo-code as its
authors state it to the writer's knowledge and was compared with Linux's
``tcp_cwnd_reduction``/``tcp_end_cwnd_reduction`` (``net/ipv4/tcp_input.c``: the same
branches, ``newly_acked_sacked`` as DeliveredData, SafeACK as ``FLAG_SND_UNA_ADVANCED &&
!newly_lost``; its RecoverFS is the window before the reduction, ``prior_cwnd``) and ns-3's
``TcpPrrRecovery`` (RecoverFS = bytes in flight at the start; its SafeACK approximated by
"a retransmission was cumulatively acknowledged").  FreeBSD's review D56535, which brings its
``tcp_do_prr_ack`` to RFC 9937, lists the RFC's changes the same way (found late in the
session, read as a summary, not the RFC): an early return when an ACK delivers nothing
(Section 6.2), SSRB only when SND.UNA advances and no further loss is indicated, the ranges
SACKed before the recovery left out of RecoverFS, the forced fast retransmit when ``prr_out``
and ``sndcnt`` are 0, and ``cwnd = ssthresh`` after the recovery (Section 4); each is a rule
above.  The kernel is checked against an
independent plain-Python replay of the algorithm (``tests/sim/prr_replay.py``).

State (the flow's source float state ``FF_SS + P_*``, free in Reno's and CUBIC's rows, 0
until a recovery with PRR starts): ``RecoverFS``, ``prr_delivered``, ``prr_out`` and the
``IsLost()`` bound after the last ACK (for SafeACK without RACK).

References
----------
RFC 9937 (PRR; obsoletes RFC 6937), its algorithm and its reduction bounds; RFC 6937,
Section 3 (PRR-CRB, PRR-SSRB); RFC 6675, Sections 4 and 5; RFC 8985, Sections 6 and 9.3;
Linux ``net/ipv4/tcp_input.c`` (``tcp_cwnd_reduction``), ns-3 ``tcp-prr-recovery.cc``
(compared, not copied).
"""

import math

import numpy as np

from . import rack, sack
from ._jit import handler, rare_handler
from .layout import FF_CWND, FF_SP, FF_SS, FF_SSTHRESH, FI_SND_NXT, FI_SND_UNA

#: The parameter column of ``prr`` in Reno's and CUBIC's rows (both 13: after ``sack``).
PARAM = 13
#: its values
OFF = 0
SAFEACK = 1  # RFC 9937: PRR-CRB, PRR-SSRB's extra packet on a SafeACK
CRB = 2      # RFC 6937's conservative reduction bound
SSRB = 3     # RFC 6937's slow-start reduction bound
BOUNDS = {"safeack": SAFEACK, "crb": CRB, "ssrb": SSRB}

# float state (FF_SS + ...): after CUBIC's six and Reno's one
P_RECOVER_FS = 10  # RecoverFS, packets
P_DELIVERED = 11   # prr_delivered, packets
P_OUT = 12         # prr_out, packets
P_LOST = 13        # IsLost()'s bound after the last ACK (without RACK), a sequence number

#: a quotient within this of a whole number is that number (CEIL of a float), packets
WHOLE = 1e-9


@handler
def on(S, f):
    """Whether flow ``f`` (a Reno/NewReno or Cubic SACK flow) uses PRR."""
    return S.ff[f, FF_SP + PARAM] > 0.0


@handler
def ceil_whole(x):
    """``CEIL`` of a quotient of packets, one within :data:`WHOLE` of a whole number being
    that number."""
    c = math.floor(x)
    if x - c > WHOLE:
        c += 1.0
    return c


@rare_handler
def start(S, f, recover_fs):
    """A recovery starts: RecoverFS = ``recover_fs`` packets, prr_delivered = prr_out = 0."""
    ff = S.ff
    ff[f, FF_SS + P_RECOVER_FS] = np.float64(recover_fs)
    ff[f, FF_SS + P_DELIVERED] = 0.0
    ff[f, FF_SS + P_OUT] = 0.0


@rare_handler
def sndcnt(S, f, delivered, pipe, safe):
    """RFC 9937's ``sndcnt`` for an ACK delivering ``delivered`` packets with ``pipe``
    packets in the network (``safe``: a SafeACK), ``prr_delivered`` updated; with
    ``delivered`` 0 only the forced fast retransmit (1 if ``prr_out`` is 0, else 0)."""
    ff = S.ff
    out = ff[f, FF_SS + P_OUT]
    s = 0.0
    if delivered > 0:
        pd = ff[f, FF_SS + P_DELIVERED] + delivered
        ff[f, FF_SS + P_DELIVERED] = pd
        ss = ff[f, FF_SSTHRESH]
        p = np.float64(pipe)
        if p > ss:  # proportional rate reduction
            s = ceil_whole(pd * ss / ff[f, FF_SS + P_RECOVER_FS]) - out
        else:
            s = pd - out  # PRR-CRB
            if s < delivered:
                s = np.float64(delivered)
            bound = np.int64(ff[f, FF_SP + PARAM])
            if bound == SSRB or (bound == SAFEACK and safe):
                s += 1.0  # PRR-SSRB
            if ss - p < s:
                s = ss - p
    if out == 0.0 and s < 1.0:  # force the fast retransmit
        s = 1.0
    return s


@rare_handler
def step(S, f, delivered, pipe, safe):
    """RFC 9937 on an ACK starting or inside the recovery: ``cwnd = pipe + sndcnt``
    (:func:`sndcnt`); an ACK that delivers nothing (and is not the start) leaves it."""
    if delivered <= 0 and S.ff[f, FF_SS + P_OUT] > 0.0:
        return
    S.ff[f, FF_CWND] = np.float64(pipe) + sndcnt(S, f, delivered, pipe, safe)


@handler
def sent(S, f, n):
    """``prr_out += n``: ``n`` packets sent in the recovery."""
    S.ff[f, FF_SS + P_OUT] += np.float64(n)


@rare_handler
def newly_lost(S, f, a, lb):
    """Packets ``IsLost()`` counts lost after this ACK that it did not after the last one
    (``lb`` the bound now, :func:`.sack.lost_bound`; ``a`` the cumulative ACK): those not
    SACKed in ``[max(a, previous bound), lb)``; the bound kept for the next ACK."""
    ff = S.ff
    lo = np.int64(ff[f, FF_SS + P_LOST])
    if lo < a:
        lo = a
    n = 0
    for q in range(lo, lb):
        if not sack.sacked(S, f, q):
            n += 1
    ff[f, FF_SS + P_LOST] = np.float64(lb)
    return n


@rare_handler
def _delivered(S, f, una0, sacked0):
    """DeliveredData of the ACK just processed: the change in SND.UNA plus the change in
    the packets SACKed above it (``una0``, ``sacked0``: both before the ACK)."""
    return (S.fi[f, FI_SND_UNA] - una0) + (sack.sacked_count(S, f) - sacked0)


@rare_handler
def sack_step(S, f, a, una0, sacked0, entered):
    """RFC 9937 on ACK ``a`` of a SACK flow without RACK, after the scoreboard update and
    before step (C): ``una0`` and ``sacked0`` are SND.UNA and the packets SACKed before the
    ACK; ``entered``: the ACK starts the recovery (RecoverFS from them; called before the
    fast retransmit).  ``pipe`` is ``SetPipe()``, SafeACK a new cumulative ACK after which
    ``IsLost()`` counts no packet it did not before."""
    if entered:
        start(S, f, S.fi[f, FI_SND_NXT] - una0 - sacked0)
        S.ff[f, FF_SS + P_LOST] = np.float64(una0)
    lb = sack.lost_bound(S, f)
    pipe = sack.set_pipe(S, f, lb)
    fresh = newly_lost(S, f, a, lb)
    step(S, f, _delivered(S, f, una0, sacked0), pipe, a > una0 and fresh == 0)


@rare_handler
def rack_step(S, f, a, una0, sacked0, entered, marked):
    """RFC 9937 with RACK (RFC 8985): as :func:`sack_step` with ``pipe`` from RACK's marks
    (:func:`.rack.set_pipe`) and SafeACK a new cumulative ACK on which RACK marked no packet
    lost (``marked``).  From the reordering timer (no ACK) ``a = una0`` = SND.UNA and
    ``sacked0`` the packets SACKed now: nothing delivered."""
    if entered:
        start(S, f, S.fi[f, FI_SND_NXT] - una0 - sacked0)
    step(S, f, _delivered(S, f, una0, sacked0), rack.set_pipe(S, f), a > una0 and not marked)
