"""Cubic with ``sack=True, rack=True``: RACK-TLP (RFC 8985) loss detection (spec:
:class:`qosmodels.mechanisms.Cubic`, whose ``kernel`` names this module when ``rack`` is
set).

CUBIC's kernel (:mod:`.cubic`) does everything but RACK's ACK path and timers, which
:mod:`.reno_rack` shares between Reno's and CUBIC's SACK senders (with CUBIC's decrease,
SACK ACK handling and trace for a flow of this module's code); this module only names the
hooks, so that a kernel variant for networks without a ``rack=True`` flow leaves RACK's
code out (:mod:`qosmodels.sim._variant`).  The algorithm is in :mod:`..rack`; the
parameter row, the state and the traces are CUBIC's.

References
----------
RFC 8985, Sections 6 and 7; RFC 9438; RFC 6675, Section 5.
"""

from . import cubic, reno_rack

CODE = 27

PARAMS = cubic.PARAMS

#: Timer slots of a flow: its retransmission timer (shared with RACK's and TLP's timers).
TIMERS = cubic.TIMERS

setup = cubic.setup
traces = cubic.traces

#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": cubic.send_limit_sack,
    "source_ack": reno_rack.on_ack_rack,
    "source_timeout": reno_rack.on_timeout_rack,
    "source_window": cubic.cwnd_window,
}
