"""On/off source (spec: :class:`qosmodels.mechanisms.OnOff`): constant rate while on, silent while off."""

from .._jit import handler, rare_handler
from ..heap import push
from ..layout import EV_BITS, EV_SOURCE, FF_BITS, FF_ON_END, FF_SP, GF_NOW
from ..rng import expo

CODE = 5
ONOFF_RATE = 0
ONOFF_ON = 1
ONOFF_OFF = 2
ONOFF_EXP = 3
PARAMS = ("rate", "on_time", "off_time", "exponential")


def setup(spec, ff, fi) -> int:
    return 0


@handler
def start(S, f):
    ff = S.ff
    now = S.gf[GF_NOW]
    on = ff[f, FF_SP + ONOFF_ON]
    if ff[f, FF_SP + ONOFF_EXP] > 0.0:
        on = expo(S, on)
    ff[f, FF_ON_END] = now + on
    push(S, now, (f << EV_BITS) | EV_SOURCE)  # the first packet leaves at once


@rare_handler
def next_tick(S, f, now):
    ff = S.ff
    nxt = now + ff[f, FF_BITS] / ff[f, FF_SP + ONOFF_RATE]
    if nxt >= ff[f, FF_ON_END]:
        off = ff[f, FF_SP + ONOFF_OFF]
        on = ff[f, FF_SP + ONOFF_ON]
        if ff[f, FF_SP + ONOFF_EXP] > 0.0:
            off = expo(S, off)
            on = expo(S, on)
        nxt = ff[f, FF_ON_END] + off
        ff[f, FF_ON_END] = nxt + on
    return nxt


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_start": start,
    "source_next_tick": next_tick,
}
