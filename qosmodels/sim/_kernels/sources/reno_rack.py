"""TcpReno / TcpNewReno with ``sack=True, rack=True``: RACK-TLP (RFC 8985) loss detection
(spec: :class:`qosmodels.mechanisms.TcpReno`, whose ``kernel`` names this module when
``rack`` is set).

Reno's kernel (:mod:`.reno`) does everything; this module only names the two hooks that
differ, :func:`.reno.on_ack_rack` (RACK's steps around the shared SACK ACK handling) and
:func:`.reno.on_timeout_rack` (the reordering and probe timers before the retransmission
timeout), so that a kernel variant for networks without a ``rack=True`` flow leaves RACK's
code out (:mod:`qosmodels.sim._variant` prunes the dispatch branches of unused modules).
The algorithm is in :mod:`..rack`; the parameter row and the state are Reno's.

References
----------
RFC 8985, Sections 6 and 7; RFC 6675, Section 5.
"""

from . import reno

CODE = 26

PARAMS = reno.PARAMS

#: Timer slots of a flow: its retransmission timer (shared with RACK's and TLP's timers).
TIMERS = reno.TIMERS

setup = reno.setup
setup_flow = reno.setup_flow

#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": reno.send_limit,
    "source_ack": reno.on_ack_rack,
    "source_timeout": reno.on_timeout_rack,
    "source_window": reno.window,
}
