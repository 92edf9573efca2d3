"""Crossings: one id per (link, flow, direction) a flow's packets cross, and per-crossing state.

A flow's data crosses the links of its route (crossing ids ``r_ptr[f] + h``,
the route's positions); its ACKs cross the declared reverse links (ids
``r_ptr[F] + a_ptr[f] + h``; a stretch of undeclared links has an id but no
link).  Each link lists the crossings through it (``lk_pos[lk_ptr[l] :
lk_ptr[l + 1]]``), so a queue can scan its conversations (fair queueing's
active set, the longest conversation, DECbit's selective bit); each crossing
has a row of state in ``hs`` (float) and ``hsi`` (int), as wide as the
widest queue mechanism's ``HOP_STATE`` / ``HOP_STATE_INT`` asks.
"""

from ._jit import POS, handler
from .layout import KIND_ACK, PI_FLOW, PI_HOP, PI_KIND


@handler
def crossing(S, p):
    """The id of the crossing packet ``p`` is at (the link it is entering or in)."""
    f = S.pi[p, PI_FLOW] & POS
    h = S.pi[p, PI_HOP]
    if S.pi[p, PI_KIND] == KIND_ACK:
        return S.r_ptr[S.r_ptr.shape[0] - 1] + S.a_ptr[f] + h
    return S.r_ptr[f] + h
