"""Cubic with ``sack=True`` (and ``rack=False``): RFC 6675's SACK-based loss recovery with
CUBIC's window (spec: :class:`qosmodels.mechanisms.Cubic`, whose ``kernel`` names this
module when ``sack`` is set and ``rack`` is not).

CUBIC's kernel (:mod:`.cubic`) holds the code: the SACK ACK path
(:func:`.cubic.on_ack_sack`, with PRR, :mod:`..prr`, and the scoreboard, :mod:`..sack`), the
window limit that skips the SACKed packets (:func:`.cubic.send_limit_sack`) and the timeout
that empties the scoreboard (:func:`.cubic.on_timeout_sack`); this module only names the
hooks, so that a kernel variant for networks without a SACK flow leaves SACK's and PRR's
code out (:mod:`qosmodels.sim._variant`).  The parameter row, the state and the traces are
CUBIC's.

References
----------
RFC 9438; RFC 2018; RFC 6675, Section 5; RFC 9937.
"""

from . import cubic

CODE = 29

PARAMS = cubic.PARAMS

#: Timer slots of a flow: its retransmission timer.
TIMERS = cubic.TIMERS

setup = cubic.setup
traces = cubic.traces

#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": cubic.send_limit_sack,
    "source_ack": cubic.on_ack_sack,
    "source_timeout": cubic.on_timeout_sack,
    "source_window": cubic.cwnd_window,
}
