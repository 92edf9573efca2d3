"""Drop-tail FIFO (spec: :class:`qosmodels.mechanisms.DropTail`): admits everything the buffer
holds; with a marking threshold ``K``, DCTCP's switch: CE on ECN-capable data packets that find
more than ``K`` packets waiting.

References
----------
M. Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, Section 3.1; RFC 8257, Section 3.1.
"""

from .._jit import POS, handler
from ..layout import (
    FI_ECN,
    KIND_DATA,
    LF_QP,
    LI_MARKS,
    LI_SLOT0,
    LI_WAITING,
    MARK_CE,
    PI_FLOW,
    PI_KIND,
    PI_MARK,
    SL_CAP,
    SL_COUNT,
)

CODE = 0

# parameter columns (offsets into the link's parameter row), in PARAMS order
DT_MARK_THRESHOLD = 0   # K, packets; -1: no marking (mark_threshold None)

#: The spec fields packed into the parameter row, in column order.
PARAMS = (("mark_threshold", lambda s: -1.0 if s.mark_threshold is None else s.mark_threshold),)


@handler
def admit(S, l, p):
    """-1 (drop-tail admits; the caller drops on overflow), after CE-marking ``p`` if the
    link has a threshold ``K``, ``p`` is a data packet of an ECN-capable flow, more than
    ``K`` packets wait (``q > K``) and the buffer has room for ``p``."""
    k = S.lf[l, LF_QP + DT_MARK_THRESHOLD]
    if k < 0.0:
        return -1
    li = S.li
    if li[l, LI_WAITING] > k and S.pi[p, PI_KIND] == KIND_DATA:
        s = li[l, LI_SLOT0] & POS
        if (S.fi[S.pi[p, PI_FLOW] & POS, FI_ECN] != 0
                and S.slot[s, SL_COUNT] < S.slot[s, SL_CAP]):
            S.pi[p, PI_MARK] |= MARK_CE
            li[l, LI_MARKS] += 1
    return -1


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_admit": admit,
}
