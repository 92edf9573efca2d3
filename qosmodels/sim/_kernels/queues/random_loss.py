"""Lossy FIFO (spec: :class:`qosmodels.mechanisms.RandomLoss`): each arrival dropped with probability p."""

from .._jit import handler
from ..layout import LF_QP, LI_DROP_EARLY
from ..rng import rand

CODE = 3
LOSS_P = 0
PARAMS = ("p",)


@handler
def admit(S, l, p):
    """-1 to admit, else the drop cause's column."""
    if rand(S) < S.lf[l, LF_QP + LOSS_P]:
        return LI_DROP_EARLY
    return -1
