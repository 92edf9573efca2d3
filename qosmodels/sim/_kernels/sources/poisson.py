"""Poisson packets (spec: :class:`qosmodels.mechanisms.Poisson`): the Telnet source.

With a window, its parameter row begins with :mod:`.window`'s columns and the
window module acknowledges and retransmits its packets.
"""

from .._jit import handler
from ..heap import push
from ..layout import EV_BITS, EV_SOURCE, FF_BITS, FF_SP, FI_APP_LIMIT, GF_NOW
from ..rng import expo
from . import window

CODE = 4
POI_RATE = 4  # after the window's four columns
PARAMS = window.PARAMS + ("rate",)
TIMERS = window.TIMERS  # (used with a window)


def setup(spec, ff, fi) -> int:
    if spec.window is None:
        return 0
    fi[FI_APP_LIMIT] = 0  # the application hands packets over as they are generated
    return window.setup(spec, ff, fi)


@handler
def start(S, f):
    push(S, S.gf[GF_NOW] + expo(S, S.ff[f, FF_BITS] / S.ff[f, FF_SP + POI_RATE]),
         (f << EV_BITS) | EV_SOURCE)


@handler
def next_tick(S, f, now):
    return now + expo(S, S.ff[f, FF_BITS] / S.ff[f, FF_SP + POI_RATE])


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_start": start,
    "source_next_tick": next_tick,
    "source_send_limit": window.send_limit,
    "source_ack": window.on_ack,
}
