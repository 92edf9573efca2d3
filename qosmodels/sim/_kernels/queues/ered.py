"""Enhanced RED (spec: :class:`qosmodels.mechanisms.Ered`): RED whose early-drop
probability ``p_a`` (after the count spacing) is divided by ``marked_factor`` for packets
carrying ``MARK_IN_PROFILE``.

Everything else is :mod:`.red`'s: the average, the shared ``count``, the
forced drops, the ECN marking and the parameter columns (``RED_*``), with
``marked_factor`` packed after them.

References
----------
A. Mehra, R. Tewari, D. Kandlur, "Design considerations for rate control of
aggregated TCP connections", Sections 3.2 and 4.1; W. Feng, D. Kandlur,
D. Saha, K. G. Shin, NOSSDAV 1997 (ERED).
"""

from .._jit import handler
from ..layout import LF_QP, MARK_IN_PROFILE, PI_MARK
from . import red

CODE = 7
ERED_MARKED_FACTOR = len(red.PARAMS)
PARAMS = red.PARAMS + ("marked_factor",)

#: The same trace channel as RED's (``red_average``, if ``record_average``).
traces = red.traces


@handler
def divisor(S, code, l, p):
    """What RED's probability is divided by for packet ``p`` at link ``l`` of queue code
    ``code``: ``marked_factor`` for an in-profile packet at an ERED queue, else 1."""
    if code == CODE and (S.pi[p, PI_MARK] & MARK_IN_PROFILE) != 0:
        return S.lf[l, LF_QP + ERED_MARKED_FACTOR]
    return 1.0


@handler
def admit(S, code, l, p):
    """RED's verdict on packet ``p`` at link ``l`` of a RED or ERED queue (``code``): one
    copy of RED's admission for both, its probability divided by :func:`divisor`.

    The admission is RED's one real copy (:data:`.red.admit_divided_call`): the whole
    kernel calls it, which keeps the loop's machine code short for the disciplines that
    do not use it, and a call costs little since it is passed only what RED reads
    (``qosmodels/sim/_build.py``, adjustment 6).  Paired on the 8-flow benchmark
    dumbbell (session 49), against RED's admission inlined: whole kernel drop-tail 0.93
    of the time (median; 0.82-0.96), RED 1.00 (0.90-1.01); a variant (where LLVM decides)
    unchanged (1.01 and 0.99)."""
    return red.admit_divided_call(S, l, p, divisor(S, code, l, p))


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_admit": admit,
}
