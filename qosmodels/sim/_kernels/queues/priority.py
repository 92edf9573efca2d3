"""Strict priority (spec: :class:`qosmodels.mechanisms.Priority`): a FIFO per class, class 0 first.

The class of a packet is its ``PI_CLASS``; each class is a FIFO slot of the
link (the engine's rings), served lowest class first.
"""

from .._jit import handler
from ..layout import LI_NSLOT, PI_CLASS

CODE = 2
PRIO_CLASSES = 0
PARAMS = ("classes",)


@handler
def klass(S, l, p):
    """The packet's class slot, or -1 if the queue has no such class."""
    k = S.pi[p, PI_CLASS]
    if k >= S.li[l, LI_NSLOT]:
        return -1
    return k


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_class": klass,
}
