"""DCTCP sender (spec: :class:`qosmodels.mechanisms.Dctcp`).

NewReno's kernel (:mod:`.reno`) does the window growth, the loss recovery, the
timers and the sending, called without the ECN echo (so without RFC 3168's
halving); this module then keeps RFC 8257's estimate ``alpha`` of the fraction of
marked packets, once per observation window, and applies its reduction
``cwnd (1 - alpha / 2)`` once per window of data that brought an echo.  The
parameter row starts with Reno's columns, so the Reno functions read it unchanged.

References
----------
S. Bensley et al., RFC 8257, 2017, Section 3.3; M. Alizadeh et al., "Data Center TCP
(DCTCP)", SIGCOMM 2010, Section 3.2; RFC 3168, Section 6.1.2.
"""

from .._jit import handler, rare_handler
from ..layout import (
    FF_CWND,
    FF_SP,
    FF_SS,
    FF_SSTHRESH,
    FI_DA_DCTCP,
    FI_DA_M,
    FI_ECN,
    FI_ECN_RECOVER,
    FI_IN_REC,
    FI_SND_NXT,
    FI_SND_UNA,
    FI_SS,
    FI_TRACE0,
)
from ..trace import record
from . import reno

CODE = 12

# parameter columns: Reno's (reno.TCP_*), then DCTCP's
DC_G = 12               # the estimation gain g
DC_INIT_ALPHA = 13      # alpha at the start
PARAMS = reno.PARAMS[:reno.TCP_NEWRENO] + (("newreno", lambda s: True), "g", "initial_alpha")

#: Timer slots of a flow: its retransmission timer.
TIMERS = 1

# float state (FF_SS + ...; reno.RENO_INCREASE is column 0)
DS_ALPHA = 1            # DCTCP.Alpha
DS_ACKED = 2            # DCTCP.BytesAcked, in packets, of the observation window so far
DS_MARKED = 3           # DCTCP.BytesMarked, in packets
# integer state (FI_SS + ...)
DI_WINDOW_END = 0       # DCTCP.WindowEnd: the window ends when an ACK reaches it


def setup(spec, ff, fi) -> int:
    """Initial state of a flow (its rows ``ff``, ``fi``); returns its largest window, packets."""
    window = reno.setup(spec, ff, fi)
    if spec.ect1:  # ECT(1), the L4S identifier (RFC 9331): 2 in FI_ECN
        fi[FI_ECN] = 2
    ff[FF_SS + DS_ALPHA] = spec.initial_alpha
    ff[FF_SS + DS_ACKED] = 0.0
    ff[FF_SS + DS_MARKED] = 0.0
    fi[FI_SS + DI_WINDOW_END] = 0   # SND.UNA at the start (RFC 8257, Section 3.3)
    fi[FI_DA_DCTCP] = int(fi[FI_DA_M] > 1)  # delayed ACKs: RFC 8257 3.2's echo (``delack``)
    return window


def setup_flow(spec, network, i, ff, fi) -> None:
    """Reno's increase per round trip (:func:`.reno.setup_flow`)."""
    reno.setup_flow(spec, network, i, ff, fi)


def traces(spec) -> tuple[str, ...]:
    """Trace channels: ``alpha`` at the end of every observation window, if asked for."""
    return ("dctcp_alpha",) if spec.record_alpha else ()


@rare_handler
def on_ack(S, f, a, ece):
    """Cumulative ACK ``a`` (``ece``: it echoes a CE mark): NewReno's processing, then
    RFC 8257's ``alpha`` bookkeeping and window reduction (:func:`respond`).  (A real
    function rather than inlined: it holds a second copy of ``reno.on_ack``.)"""
    una = S.fi[f, FI_SND_UNA]
    reno.on_ack(S, f, a, False)
    respond(S, f, una, a, ece)


@handler
def respond(S, f, una, a, ece):
    """RFC 8257's part of an ACK, after NewReno's (``una``: SND.UNA before the ACK
    ``a``): the ``alpha`` bookkeeping and the reduction ``cwnd (1 - alpha / 2)``."""
    ff, fi = S.ff, S.fi
    if a <= una:  # a duplicate acknowledges no new data
        return
    newly = float(a - una)
    ff[f, FF_SS + DS_ACKED] += newly
    if ece:
        ff[f, FF_SS + DS_MARKED] += newly
    if a >= fi[f, FI_SS + DI_WINDOW_END]:
        g = ff[f, FF_SP + DC_G]
        frac = ff[f, FF_SS + DS_MARKED] / ff[f, FF_SS + DS_ACKED]
        alpha = (1.0 - g) * ff[f, FF_SS + DS_ALPHA] + g * frac
        ff[f, FF_SS + DS_ALPHA] = alpha
        fi[f, FI_SS + DI_WINDOW_END] = fi[f, FI_SND_NXT]
        ff[f, FF_SS + DS_ACKED] = 0.0
        ff[f, FF_SS + DS_MARKED] = 0.0
        if fi[f, FI_TRACE0] >= 0:
            record(S, fi[f, FI_TRACE0], alpha)
    if ece and fi[f, FI_IN_REC] == 0 and a > fi[f, FI_ECN_RECOVER]:
        c = ff[f, FF_CWND] * (1.0 - ff[f, FF_SS + DS_ALPHA] / 2.0)
        c = c if c > 2.0 else 2.0
        ff[f, FF_SSTHRESH] = c
        ff[f, FF_CWND] = c
        # no new reduction until an ACK covers a packet sent after this one (a >
        # SND.NXT): the echo on the ACK of the last packet sent before it is a mark of
        # the window already reacted to (RFC 3168, Section 6.1.2; Linux's CWR state ends
        # when SND.UNA is above high_seq, ns-3's when the ACK is above m_recover)
        fi[f, FI_ECN_RECOVER] = fi[f, FI_SND_NXT]


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": reno.send_limit,
    "source_ack": on_ack,
    "source_timeout": reno.on_timeout,
    "source_window": reno.window,
}
