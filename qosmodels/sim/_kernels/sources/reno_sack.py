"""TCP Reno / NewReno with ``sack=True`` (and ``rack=False``): RFC 6675's SACK-based loss
recovery (spec: :class:`qosmodels.mechanisms.TcpReno`, whose ``kernel`` names this module
when ``sack`` is set and ``rack`` is not).

Reno's kernel (:mod:`.reno`) holds the code: the SACK ACK path (:func:`.reno.on_ack_sack`,
with PRR, :mod:`..prr`, and the scoreboard, :mod:`..sack`), the window limit that skips the
SACKed packets (:func:`.reno.send_limit_sack`) and the timeout that empties the scoreboard
(:func:`.reno.on_timeout_sack`); this module only names the hooks, so that a kernel variant
for networks without a SACK flow, among them the common teaching set
(:data:`qosmodels.sim._variant.CORE`), leaves SACK's and PRR's code out.  The parameter row,
the state and the set-up are Reno's.

References
----------
RFC 2018; RFC 6675, Section 5; RFC 9937.
"""

from . import reno

CODE = 28

PARAMS = reno.PARAMS

#: Timer slots of a flow: its retransmission timer.
TIMERS = reno.TIMERS

setup = reno.setup
setup_flow = reno.setup_flow

#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_send_limit": reno.send_limit_sack,
    "source_ack": reno.on_ack_sack,
    "source_timeout": reno.on_timeout_sack,
    "source_window": reno.window,
}
