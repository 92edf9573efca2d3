"""RACK-TLP (RFC 8985) loss detection in the SACK senders: TcpReno / TcpNewReno and Cubic
with ``sack=True, rack=True`` (specs: :class:`qosmodels.mechanisms.TcpReno`,
:class:`qosmodels.mechanisms.Cubic`, whose ``kernel`` names this module or
:mod:`.cubic_rack` when ``rack`` is set).

The ACK path and the timers around the SACK ACK handling both senders share: RACK's steps
around RFC 6675's scoreboard update (:func:`on_ack_rack`), recovery on RACK's loss marks
(:func:`_rack_recover`), RFC 8985 9.3's additional reduction (with ``prr=True`` instead
PRR's step, :mod:`..prr`, RFC 9937), TLP (Section 7.4), and the reordering and probe timers
before the retransmission timeout (:func:`on_timeout_rack`).
The two senders differ only in the window decrease (:func:`_reduce`: Reno's halving,
:func:`.reno.halved`, or CUBIC's, :func:`.cubic._decrease`, which also sets W_max), in
their SACK ACK handling (:func:`.reno._sack_ack`, :func:`.cubic._sack_ack`) and CUBIC's
trace; the flow's code (``FI_CODE``) tells which: :mod:`.cubic_rack`'s hooks are this
module's functions.  Everything else is Reno's (:mod:`.reno`: the parameter row and the
state) or CUBIC's (:mod:`.cubic`), so that a kernel variant for networks without a
``rack=True`` flow leaves RACK's code out (:mod:`qosmodels.sim._variant` prunes the
dispatch branches of unused modules).  The algorithm is in :mod:`..rack`.

References
----------
RFC 8985, Sections 6, 7 and 9.3; RFC 6675, Section 5; RFC 9438, Section 4.6; RFC 9937.
"""

import numpy as np

from .. import prr, rack, sack
from .._jit import handler, rare_handler
from ..layout import (
    FF_CWND,
    FF_SP,
    FF_SSTHRESH,
    FI_CODE,
    FI_DUPACKS,
    FI_FAST_RTX,
    FI_FIRST_PARTIAL,
    FI_IN_REC,
    FI_RECOVER,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_SS,
)
from ..rackstate import is_rto
from . import cubic, reno

CODE = 26

PARAMS = reno.PARAMS

#: Timer slots of a flow: its retransmission timer (shared with RACK's and TLP's timers).
TIMERS = reno.TIMERS

setup = reno.setup
setup_flow = reno.setup_flow

#: The parameter column of the receiver's window, packets: Reno's and CUBIC's (both 0).
MAX_WINDOW = reno.TCP_MAX_WINDOW


@handler
def _is_cubic(S, f):
    """Whether flow ``f`` is a CUBIC flow (:mod:`.cubic_rack`'s), not a Reno/NewReno one."""
    return S.fi[f, FI_CODE] != CODE


@handler
def _timer_rules(S, f):
    """Flow ``f``'s retransmission-timer rules (``timer``), from its own sender's column."""
    if _is_cubic(S, f):
        return cubic.timer_rules(S, f)
    return np.int64(S.ff[f, FF_SP + reno.TCP_TIMER])


@handler
def _reduce(S, f, flight):
    """A congestion event with ``flight`` packets outstanding: ssthresh by the flow's
    rule, Reno's halving (:func:`.reno.halved`) or CUBIC's decrease
    (:func:`.cubic._decrease`: W_max, cwnd_prior, ssthresh = beta x min(flight, cwnd))."""
    if _is_cubic(S, f):
        cubic._decrease(S, f, flight)
    else:
        S.ff[f, FF_SSTHRESH] = reno.halved(S, f, flight)


@rare_handler
def _rack_recover(S, f, wmax, a, una0, sacked0, marked):
    """RFC 6675 step (4) on RACK's loss marks (:mod:`..rack`): RecoveryPoint = HighData,
    ssthresh = cwnd by the flow's decrease (:func:`_reduce`) of FlightSize, the first
    lost packet resent, then step (C).  With PRR (:mod:`..prr`) ``cwnd`` is the start of
    its episode's instead, from ACK ``a`` (``una0``, ``sacked0``: SND.UNA and the packets
    SACKed before it; ``marked``: it marked a packet lost; the reordering timer passes
    ``a = una0`` = SND.UNA and the packets SACKed now)."""
    ff, fi = S.ff, S.fi
    una = fi[f, FI_SND_UNA]
    fi[f, FI_RECOVER] = fi[f, FI_SND_NXT] - 1
    _reduce(S, f, fi[f, FI_SND_NXT] - una - reno.lt_sent(S, f))
    reno.lt_restart(S, f)
    ff[f, FF_CWND] = ff[f, FF_SSTHRESH]
    fi[f, FI_IN_REC] = 1
    fi[f, FI_FAST_RTX] += 1
    if _timer_rules(S, f) != reno.TIMER_REFERENCE:
        fi[f, FI_FIRST_PARTIAL] = 1  # (``timer="impatient"``: the first partial ACK restarts)
    rack.cut(S, f)
    if prr.on(S, f):
        prr.rack_step(S, f, a, una0, sacked0, True, marked)
        prr.sent(S, f, rack.resend_first_lost(S, f))
        prr.sent(S, f, rack.send_recovery(S, f, ff[f, FF_CWND], wmax))
        return
    rack.resend_first_lost(S, f)
    rack.send_recovery(S, f, ff[f, FF_CWND], wmax)


@rare_handler
def _on_ack_rack(S, f, a, una0, sacked0, new, wmax):
    """The rest of RFC 6675's ACK handling with ``rack=True`` (RFC 8985): RACK's steps 4-5
    and TLP's Section 7.4; a loss TLP repaired reduces the window (ssthresh = cwnd by
    :func:`_reduce`); recovery starts on RACK's loss marks (:func:`_rack_recover`), else
    limited transmit on the first two duplicate ACKs as without RACK; step (C) in
    recovery, with PRR after its step (:func:`..prr.rack_step`; ``sacked0``: the packets
    SACKed before the ACK); the timers (:func:`..rack.rearm`)."""
    ff, fi = S.ff, S.fi
    una = fi[f, FI_SND_UNA]
    ev = rack.on_ack(S, f, a, una0)
    marked = (ev & rack.EV_MARKED) != 0
    if (ev & rack.EV_TLP_LOSS) != 0 and fi[f, FI_IN_REC] == 0:
        _reduce(S, f, fi[f, FI_SND_NXT] - una)
        ff[f, FF_CWND] = ff[f, FF_SSTHRESH]
    if fi[f, FI_IN_REC] == 0 and una > fi[f, FI_RECOVER] and (ev & rack.EV_LOST) != 0:
        _rack_recover(S, f, np.int64(wmax), a, una0, sacked0, marked)
    elif fi[f, FI_IN_REC] != 0:
        if prr.on(S, f):  # (RFC 8985 9.3's response is for the absence of PRR: none)
            rack.retx_lost(S, f)
            prr.rack_step(S, f, a, una0, sacked0, False, marked)
            prr.sent(S, f, rack.send_recovery(S, f, ff[f, FF_CWND], np.int64(wmax)))
        else:
            if rack.retx_lost(S, f):  # RFC 8985 9.3: a lost retransmission, a new reduction
                _reduce(S, f, fi[f, FI_SND_NXT] - una)
                ff[f, FF_CWND] = ff[f, FF_SSTHRESH]
                rack.cut(S, f)
            rack.send_recovery(S, f, ff[f, FF_CWND], np.int64(wmax))
    elif new > 0 and fi[f, FI_SND_NXT] > una:
        d = fi[f, FI_DUPACKS] + 1
        fi[f, FI_DUPACKS] = d
        if d < sack.DUP_THRESH and fi[f, FI_SS + reno.RENO_LT] != 0 and una > fi[f, FI_RECOVER]:
            reno.limited_transmit_sack(S, f, np.int64(wmax))  # RFC 6675 step (3)
    rack.rearm(S, f, a > una0)


@rare_handler
def rack_timer(S, f):
    """Slot 0 fired: if it was RACK's reordering timer or TLP's probe timer (not the
    retransmission timer), that timer's work (:func:`..rack.on_timer`), recovery on a loss
    it marked (:func:`_rack_recover`), and True."""
    ff, fi = S.ff, S.fi
    if is_rto(S, f):
        rack.on_rto(S, f)
        return False
    wmax = np.int64(ff[f, FF_SP + MAX_WINDOW])
    ev = rack.on_timer(S, f, wmax)
    if (ev & rack.EV_LOST) != 0:
        una = fi[f, FI_SND_UNA]
        if fi[f, FI_IN_REC] == 0 and una > fi[f, FI_RECOVER]:
            _rack_recover(S, f, wmax, una, una, sack.sacked_count(S, f), True)
        elif fi[f, FI_IN_REC] != 0:
            if prr.on(S, f):  # (no ACK: PRR's cwnd of the last one; no 9.3 response)
                rack.retx_lost(S, f)
                prr.sent(S, f, rack.send_recovery(S, f, ff[f, FF_CWND], wmax))
            else:
                if rack.retx_lost(S, f):  # RFC 8985 9.3 (as in the ACK's handler)
                    _reduce(S, f, fi[f, FI_SND_NXT] - una)
                    ff[f, FF_CWND] = ff[f, FF_SSTHRESH]
                    rack.cut(S, f)
                rack.send_recovery(S, f, ff[f, FF_CWND], wmax)
    return True


@rare_handler
def on_ack_rack(S, f, a, ece):
    """``source_ack`` of this module and :mod:`.cubic_rack` (a SACK flow with
    ``rack=True``, RFC 8985): steps 1-3 for the packets the cumulative ACK delivers
    (before the scoreboard forgets which were SACKed), the sender's SACK ACK handling
    (:func:`.reno._sack_ack`, or :func:`.cubic._sack_ack` and CUBIC's trace), then
    :func:`_on_ack_rack`."""
    una0 = S.fi[f, FI_SND_UNA]
    sacked0 = sack.sacked_count(S, f)
    rack.before_update(S, f, a)
    if _is_cubic(S, f):
        new, r = cubic._sack_ack(S, f, a)
        if new >= 0:
            _on_ack_rack(S, f, a, una0, sacked0, new, S.ff[f, FF_SP + MAX_WINDOW])
        cubic._trace(S, f, np.float64(a), r)
        return
    new = reno._sack_ack(S, f, a, ece)
    if new >= 0:
        _on_ack_rack(S, f, a, una0, sacked0, new, S.ff[f, FF_SP + MAX_WINDOW])


@rare_handler
def on_timeout_rack(S, f):
    """``source_timeout`` of this module and :mod:`.cubic_rack`: RACK's reordering timer or
    TLP's probe timer (:func:`rack_timer`), else the sender's retransmission timeout
    (:func:`.reno.on_timeout_sack`, :func:`.cubic.on_timeout_sack`)."""
    if not rack_timer(S, f):
        if _is_cubic(S, f):
            cubic.on_timeout_sack(S, f)
        else:
            reno.on_timeout_sack(S, f)


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": reno.send_limit_sack,
    "source_ack": on_ack_rack,
    "source_timeout": on_timeout_rack,
    "source_window": reno.window,
}
