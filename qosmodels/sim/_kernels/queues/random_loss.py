"""Lossy FIFO (spec: :class:`qosmodels.mechanisms.RandomLoss`): each arrival dropped with
probability p, independently, or (``periodic``) one arrival in every ``1/p``.

The periodic form keeps a running sum of ``p`` over the link's arrivals in its state
(``Q_SUM``) and drops the arrival that takes the sum to 1 or more, then takes 1 off: one
drop per ``1/p`` arrivals, evenly spaced (the deterministic loss model of the square-root
law and of RFC 9438's response function).  It draws no random numbers.
"""

from .._jit import handler
from ..layout import LF_QP, LF_QS, LI_DROP_EARLY
from ..rng import rand

CODE = 3
LOSS_P = 0
LOSS_PERIODIC = 1
PARAMS = ("p", "periodic")

Q_SUM = LF_QS  # the periodic form's running sum of p over the arrivals


@handler
def admit(S, l, p):
    """-1 to admit, else the drop cause's column."""
    lf = S.lf
    if lf[l, LF_QP + LOSS_PERIODIC] != 0.0:
        lf[l, Q_SUM] += lf[l, LF_QP + LOSS_P]
        if lf[l, Q_SUM] >= 1.0:
            lf[l, Q_SUM] -= 1.0
            return LI_DROP_EARLY
        return -1
    if rand(S) < lf[l, LF_QP + LOSS_P]:
        return LI_DROP_EARLY
    return -1


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_admit": admit,
}
