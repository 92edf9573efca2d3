"""Cubic with ``sack=True, rack=True``: RACK-TLP (RFC 8985) loss detection (spec:
:class:`qosmodels.mechanisms.Cubic`, whose ``kernel`` names this module when ``rack`` is
set).

CUBIC's kernel (:mod:`.cubic`) does everything; this module only names the two hooks that
differ, :func:`.cubic.on_ack_rack` and :func:`.cubic.on_timeout_rack`, so that a kernel
variant for networks without a ``rack=True`` flow leaves RACK's code out
(:mod:`qosmodels.sim._variant`).  The algorithm is in :mod:`..rack`; the parameter row,
the state and the traces are CUBIC's.

References
----------
RFC 8985, Sections 6 and 7; RFC 9438; RFC 6675, Section 5.
"""

from . import cubic

CODE = 27

PARAMS = cubic.PARAMS

#: Timer slots of a flow: its retransmission timer (shared with RACK's and TLP's timers).
TIMERS = cubic.TIMERS

setup = cubic.setup
traces = cubic.traces

#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": cubic.send_limit,
    "source_ack": cubic.on_ack_rack,
    "source_timeout": cubic.on_timeout_rack,
    "source_window": cubic.cwnd_window,
}
