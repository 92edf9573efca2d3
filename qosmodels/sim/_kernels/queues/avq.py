"""Adaptive Virtual Queue (spec: :class:`qosmodels.mechanisms.Avq`).

The link's state: the virtual queue (bits), the virtual capacity (bit/s) and the
time of the last arrival; the FIFO itself is the class ring, as drop-tail's.

With ``avd``, the virtual queue never drops: it adds its virtual queueing delay
``VQ / C~`` to each Monaco in-band control packet passing (``PF_VDELAY``), which the
receiver adds to its forward queueing time (the ACC paper's AVD).

References
----------
S. Kunniyur, R. Srikant, SIGCOMM 2001, Section 3; Y. Xia et al., "Accumulation-based
Congestion Control", Section IV-D (AVD).
"""

from .._jit import POS, rare_handler
from ..layout import (
    FI_ECN,
    GF_NOW,
    KIND_DATA,
    LF_CAP,
    LF_QP,
    LF_QS,
    LI_DROP_EARLY,
    LI_MARKS,
    LI_SLOT0,
    LI_TRACE0,
    MARK_CE,
    MARK_CTRL,
    MARK_OOB,
    PF_BITS,
    PF_VDELAY,
    PI_FLOW,
    PI_KIND,
    PI_MARK,
    SL_CAP,
)
from ..trace import record

CODE = 11
AVQ_GAMMA = 0
AVQ_ALPHA = 1
AVQ_MARK = 2
AVQ_TYPICAL = 3
AVQ_AVD = 4
PARAMS = ("gamma", "alpha", "mark", "typical_packet_size", "avd")

Q_VQ = LF_QS          # the virtual queue, bits
Q_CAP = LF_QS + 1     # the virtual capacity C~, bit/s
Q_LAST = LF_QS + 2    # the last arrival, s


def traces(spec) -> tuple[str, ...]:
    """Trace channels: the virtual capacity at every arrival, if ``record``."""
    return ("avq_capacity",) if spec.record else ()


def setup_link(spec, network, l, xs, x_flow, lf, li, hs, hsi) -> None:
    """``C~`` starts at ``gamma C``; the virtual queue empty."""
    lf[Q_CAP] = spec.gamma * network.links[l].capacity


@rare_handler
def admit(S, l, p):
    """The virtual queue's verdict (and the capacity's adaptation): -1 to admit (possibly
    marked), else the drop cause's column."""
    lf, li = S.lf, S.li
    now = S.gf[GF_NOW]
    b = S.pf[p, PF_BITS]
    c = lf[l, LF_CAP]
    dt = now - lf[l, Q_LAST]
    ct = lf[l, Q_CAP]
    vq = lf[l, Q_VQ] - ct * dt
    if vq < 0.0:
        vq = 0.0
    avd = lf[l, LF_QP + AVQ_AVD] > 0.0
    if avd:  # AVD: no virtual drops; the virtual delay rides on Monaco's in-band packet
        over = False
        if (S.pi[p, PI_MARK] & (MARK_CTRL | MARK_OOB)) == MARK_CTRL and ct > 0.0:
            S.pf[p, PF_VDELAY] += vq / ct
    else:
        limit = S.slot[li[l, LI_SLOT0] & POS, SL_CAP] * lf[l, LF_QP + AVQ_TYPICAL] * 8.0
        over = vq + b > limit
    if not over:
        vq += b
    alpha = lf[l, LF_QP + AVQ_ALPHA]
    ct += alpha * lf[l, LF_QP + AVQ_GAMMA] * c * dt
    if ct > c:
        ct = c
    ct -= alpha * b
    if ct < 0.0:
        ct = 0.0
    lf[l, Q_VQ] = vq
    lf[l, Q_CAP] = ct
    lf[l, Q_LAST] = now
    if li[l, LI_TRACE0] >= 0:
        record(S, li[l, LI_TRACE0], ct)
    if not over:
        return -1
    if (lf[l, LF_QP + AVQ_MARK] > 0.0 and S.pi[p, PI_KIND] == KIND_DATA
            and S.fi[S.pi[p, PI_FLOW] & POS, FI_ECN] != 0):
        S.pi[p, PI_MARK] |= MARK_CE
        li[l, LI_MARKS] += 1
        return -1
    return LI_DROP_EARLY


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "queue_admit": admit,
}
