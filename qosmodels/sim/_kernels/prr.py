"""Proportional Rate Reduction (PRR, RFC 9937, which obsoletes RFC 6937) for the SACK
senders' fast recovery, in packets.

A TcpReno/TcpNewReno or Cubic flow with ``sack=True, prr=True`` (its parameter row's column
:data:`PARAM`, the same in both: 1 the RFC's bound choice, 2 PRR-CRB always, 3 PRR-SSRB
always; 0 off) sets ``cwnd`` on every ACK that starts or falls inside a fast recovery
(RFC 6675's, or RACK's, RFC 8985) by RFC 9937's per-ACK algorithm, and step (C) then sends
while ``cwnd - pipe >= 1`` as without PRR.  Each rule below with the RFC's words (RFC 9937,
December 2025; section numbers its own):

* Initialisation (:func:`start`), Section 6.1: "ssthresh = CongCtrlAlg()", "prr_delivered =
  0", "prr_out = 0", "RecoverFS = SND.NXT - SND.UNA", "RecoverFS -= (bytes SACKed in
  scoreboard)", "RecoverFS += (bytes newly SACKed)", "RecoverFS += (bytes newly cumulatively
  acknowledged)", the scoreboard and SND.UNA being those after the ACK that triggers the
  recovery.  Here ``RecoverFS = SND.NXT - SND.UNA - SACKed``, both *before* that ACK, which
  is the same number when "newly cumulatively acknowledged" counts the packets the ACK
  acknowledges that were not SACKed before (see the readings).  ssthresh is the sender's
  decrease (Reno's halving, CUBIC's beta), computed as without PRR.
* Per ACK (:func:`step`), Section 6.2, "On every ACK starting or during fast recovery,
  excluding the ACK that concludes a PRR episode": ``DeliveredData`` = "the change in
  SND.UNA, plus the signed change in quantity of data marked SACKed in the scoreboard";
  "if (DeliveredData is 0) Return" (``cwnd`` left as it is); "prr_delivered +=
  DeliveredData"; ``inflight``: without RACK RFC 6675's ``SetPipe()`` (the RFC: such
  connections "MAY use the 'pipe' algorithm"), with RACK "SND.NXT - SND.UNA, subtracting out
  bytes SACKed ..., subtracting out bytes marked lost ..., and adding bytes ... that have been
  retransmitted since they were last marked lost" (:func:`.rack.set_pipe`); "SafeACK =
  (SND.UNA advances and no further loss indicated)" (no packet newly counted lost: by
  ``IsLost()`` without RACK, by RACK's step 5 with it);

  - "if (inflight > ssthresh)": "out = DIV_ROUND_UP(prr_delivered * ssthresh, RecoverFS)",
    "SndCnt = out - prr_out";
  - else "SndCnt = MAX(prr_delivered - prr_out, DeliveredData)", "if (SafeACK) ... SndCnt
    += SMSS", "SndCnt = MIN(ssthresh - inflight, SndCnt)";
  - "if (prr_out is 0 AND SndCnt is 0) ... SndCnt = SMSS" (the forced fast retransmit);
  - "cwnd = inflight + SndCnt".

* Per transmission (:func:`sent`), Section 6.3: "prr_out += (data sent)": the fast
  retransmit, step (C)'s and RACK's retransmissions and new data, one per packet.
* Completion, Section 6.4: "cwnd = ssthresh" on the ACK that ends the recovery (above
  RecoveryPoint; the senders' ``_sack_ack``), which is not a per-ACK step.

Readings where the text leaves a point open, each a documented rule, not a tuned value:

* ``prr_bound`` (the spec's field): Section 6.2's rule, CRB with SSRB's extra packet on a
  SafeACK, is the default (``"safeack"``, column value 1); RFC 6937's two fixed bounds are
  kept as options (``"crb"``: never the extra packet; ``"ssrb"``: always).
* "bytes newly cumulatively acknowledged" (6.1) is read as the packets the triggering ACK
  newly acknowledges, not those it covers that were SACKed before: the next comment's
  "Bytes SACKed before entering recovery will not be marked as delivered during recovery"
  and Section 4's "PRR properly accounts for sequence ranges SACKed before entering fast
  recovery" (DeliveredData, a *signed* change in the SACKed data, never counts them).  The
  other reading differs only when that ACK also advances SND.UNA over SACKed data: in one
  recovery of the replay's recorded runs (RACK, ``long`` and ``long-crb``: a starting ACK
  covering 14 SACKed packets, RecoverFS 9, not 23), which stays in the reduction bound, so
  no ``cwnd`` differs.
* Packets, not bytes (the RFC's Section 13 mentions implementations that count segments, as
  Linux does): ``DIV_ROUND_UP`` is ``CEIL`` of a quotient of packets, one within
  :data:`WHOLE` of a whole number being that number (``7.000000000000001`` from ``0.7 x
  10`` is 7); ssthresh may be fractional, so ``ssthresh - inflight`` may leave a fraction of
  a packet that step (C) does not send; "SndCnt is 0" is read as "below one packet" (no
  packet can be sent; Linux's and ns-3's ``max(sndcnt, prr_out ? 0 : 1)``).
* "if (inflight > ssthresh)" is the pseudo-code's strict comparison (as Linux).  The RFC's
  Figure 1 (Section 8) draws ACK#19, where inflight = ssthresh = 10, with cwnd 11 and a new
  segment sent, which is the proportional part's value, not the pseudo-code's (PRR-CRB's
  ``MIN(ssthresh - inflight, ...)`` = 0, cwnd 10); the segment goes out one ACK later and the
  recovery sends the figure's total (``tests/sim/test_prr.py``).
* RACK's reordering timer can start the recovery without an ACK (``DeliveredData`` 0; 6.2
  is for ACKs): the episode starts and the forced fast retransmit alone is allowed (``cwnd =
  inflight + 1``; Linux calls ``tcp_cwnd_reduction`` there as if one packet was delivered).
  In the recovery the timer's expiry sends by step (C) with the ``cwnd`` of the last ACK
  (Linux's ``tcp_rack_reo_timeout`` retransmits within the current window).
* SafeACK's "further losses": a packet newly counted lost.  The RFC's example, "an ACK
  triggering 'rescue' retransmission ... may indicate further losses", is not added: RFC
  6675's rule 4 is left out with RACK, and without it the rescue is decided in step (C),
  after ``cwnd`` is set.
* A second loss in the recovery: Section 6.1 leaves a new episode to the congestion control
  ("a once-per-round-trip reduction when lost retransmits or lost original transmissions are
  detected after fast recovery is already in progress" is one possibility); here none: one
  episode per recovery (Linux does not reduce again either), and with RACK, RFC 8985 Section
  9.3's additional response to a lost retransmission, asked "in the absence of PRR", is not
  applied; the lost retransmission leaves the pipe.  TLP's repaired loss (RFC 8985 7.4.2)
  happens outside recovery and keeps its immediate reduction.
* A retransmission timeout ends the episode (the sender leaves the recovery; Section 6.4's
  completion is for "completing fast recovery"); the next recovery starts a new one.
* Not covered: PRR for non-SACK connections (6.2's DeliveredData of 1 SMSS per duplicate
  ACK; ``prr=True`` needs ``sack=True``) and PRR for ECN's reduction (Section 4: "can be
  done", not required; ECN's reduction stays RFC 3168's ``cwnd = ssthresh``).

What was checked: session 48 wrote this module without the RFC's text (compared with Linux's
``tcp_cwnd_reduction`` and ns-3's ``TcpPrrRecovery``); session 49 read RFC 9937's full text
(a stored copy of its HTML rendering) against it line by line: every rule above is the
text's, the readings are listed, and the only code change was the zero-delivery rule (the
forced fast retransmit on a later ACK delivering nothing while ``prr_out`` was still 0, which
the text does not allow; it needs the fast retransmit to have failed, a full packet pool).
The kernel is checked against an independent plain-Python replay of the RFC's pseudo-code
(``tests/sim/prr_replay.py``) and against the RFC's own Figure 1.  ns-3 3.44's
``TcpPrrRecovery`` differs from the text where it matters: it adds one segment to
DeliveredData on every duplicate ACK with SACK too (Section 6.2 does so only without SACK),
which raises its drop rate 5.7x on the 2-flow cross-check dumbbell
(``benchmarks/crosscheck_ns3.py --ns3-prr``; ``benchmarks/RESULTS.md``, session 50).

State (the flow's source float state ``FF_SS + P_*``, free in Reno's and CUBIC's rows, 0
until a recovery with PRR starts): ``RecoverFS``, ``prr_delivered``, ``prr_out`` and the
``IsLost()`` bound after the last ACK (for SafeACK without RACK).

References
----------
RFC 9937 (PRR; obsoletes RFC 6937), Sections 4, 6.1-6.4, 8, 13; RFC 6937, Section 3
(PRR-CRB, PRR-SSRB); RFC 6675, Sections 4 and 5; RFC 8985, Sections 6 and 9.3; Linux
``net/ipv4/tcp_input.c`` (``tcp_cwnd_reduction``), ns-3 ``tcp-prr-recovery.cc`` (compared,
not copied).
"""

import math

import numpy as np

from . import rack, sack
from ._jit import handler, rare_handler
from .layout import FF_CWND, FF_SP, FF_SS, FF_SSTHRESH, FI_SND_NXT, FI_SND_UNA
from .sender import transmit

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
def step(S, f, delivered, pipe, safe, entered):
    """RFC 9937 on an ACK starting or inside the recovery: ``cwnd = pipe + sndcnt``
    (:func:`sndcnt`).  An ACK that delivers nothing returns at once, ``cwnd`` left as it is
    (Section 6.2: "if (DeliveredData is 0) Return"), except at the start of the episode
    (``entered``: only RACK's reordering timer starts one with nothing delivered), where
    the forced fast retransmit alone is allowed."""
    if delivered <= 0 and not entered:
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
    step(S, f, _delivered(S, f, una0, sacked0), pipe, a > una0 and fresh == 0, entered)


@handler
def sack_fast_retransmit(S, f, a, una0, sacked0, q):
    """A SACK sender's fast retransmit of packet ``q`` on ACK ``a``, which starts the
    recovery (RFC 6675 step (4)): with PRR the episode starts first (:func:`sack_step`,
    which sets this ACK's cwnd) and the retransmission counts in ``prr_out``.  Shared by
    :func:`.sources.reno.on_ack_sack` and :func:`.sources.cubic.on_ack_sack`."""
    use = on(S, f)
    if use:
        sack_step(S, f, a, una0, sacked0, True)
    if transmit(S, f, q) and use:
        sent(S, f, 1)


@handler
def sack_send_recovery(S, f, a, una0, sacked0, stepped, wmax, recover):
    """A SACK sender's step (C) in the recovery on ACK ``a`` (:func:`.sack.send_recovery`
    at the cwnd then): with PRR, this ACK's :func:`sack_step` first unless ``stepped`` (the
    ACK started the recovery: its step is done), and what is sent counts in ``prr_out``.
    Shared by the two SACK senders, as :func:`sack_fast_retransmit`."""
    use = on(S, f)
    if use and not stepped:
        sack_step(S, f, a, una0, sacked0, False)
    n = sack.send_recovery(S, f, S.ff[f, FF_CWND], wmax, recover)
    if use:
        sent(S, f, n)


@rare_handler
def rack_step(S, f, a, una0, sacked0, entered, marked):
    """RFC 9937 with RACK (RFC 8985): as :func:`sack_step` with ``pipe`` from RACK's marks
    (:func:`.rack.set_pipe`) and SafeACK a new cumulative ACK on which RACK marked no packet
    lost (``marked``).  From the reordering timer (no ACK) ``a = una0`` = SND.UNA and
    ``sacked0`` the packets SACKed now: nothing delivered."""
    if entered:
        start(S, f, S.fi[f, FI_SND_NXT] - una0 - sacked0)
    step(S, f, _delivered(S, f, una0, sacked0), rack.set_pipe(S, f), a > una0 and not marked,
         entered)
