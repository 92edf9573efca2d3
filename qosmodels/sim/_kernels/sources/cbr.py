"""Constant bit rate (spec: :class:`qosmodels.mechanisms.Cbr`): a packet every size/rate seconds."""

from .._jit import handler
from ..heap import push
from ..layout import EV_BITS, EV_SOURCE, FF_BITS, FF_SP, GF_NOW

CODE = 3
CBR_RATE = 0
PARAMS = ("rate",)


def setup(spec, ff, fi) -> int:
    return 0


@handler
def start(S, f):
    """The first packet leaves at once."""
    push(S, S.gf[GF_NOW], (f << EV_BITS) | EV_SOURCE)


@handler
def next_tick(S, f, now):
    return now + S.ff[f, FF_BITS] / S.ff[f, FF_SP + CBR_RATE]


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "source_start": start,
    "source_next_tick": next_tick,
}
