"""The hooks of edge elements (at an aggregate's ingress): one function per hook, one branch
per element.

Written by :mod:`qosmodels.sim._gen_dispatch` from the kernel modules' ``HOOKS``: do not
edit, run ``python -m qosmodels.sim._gen_dispatch``.  The engine and the generic handlers
call these hooks with a mechanism's code (``LI_CODE`` of a link, ``FI_CODE`` of a flow,
``EI_CODE`` of an edge element); Numba compiles the loop once, the codes are data.

Apart from :mod:`.dispatch` because the sender (:mod:`.sender`, :mod:`.flows`) calls them
and the sources import the sender.  Not inlined (``rare_handler``): only the flows behind an
edge element pay a call, and the loop's compile time does not grow with each element's code.
"""

from ._jit import rare_handler
from .edges import (
    profile_marker,
    ticket_tagger,
    token_bucket,
)
from .layout import EDGE_PASS

#: Edge kernel modules by the ``kernel`` name their specs give.
EDGES = {"edges.token_bucket": token_bucket, "edges.ticket_tagger": ticket_tagger,
         "edges.profile_marker": profile_marker}


@rare_handler
def edge_ingress(S, code, e, f, p):
    """Edge ``e``'s verdict on data packet ``p`` of its member ``f``: ``EDGE_PASS`` or
    ``EDGE_GONE`` (dropped, or held to forward later)."""
    if code == token_bucket.CODE:
        return token_bucket.ingress(S, e, f, p)
    if code == ticket_tagger.CODE:
        return ticket_tagger.ingress(S, e, f, p)
    if code == profile_marker.CODE:
        return profile_marker.ingress(S, e, f, p)
    return EDGE_PASS


@rare_handler
def edge_gate(S, code, e, f, more):
    """Whether window sender ``f`` may send a packet now (``more``), or that it has nothing more
    to send."""
    if code == token_bucket.CODE:
        return token_bucket.gate(S, e, f, more)
    return True


@rare_handler
def edge_timer(S, code, e, k):
    """Edge ``e``'s timer slot ``k`` has come due."""
    if code == token_bucket.CODE:
        token_bucket.on_timer(S, e)


@rare_handler
def edge_ack(S, code, e, f, p, acked):
    """An ACK of member ``f`` reaches the sender, newly acknowledging ``acked`` packets (before
    the source reacts)."""
    if code == ticket_tagger.CODE:
        ticket_tagger.on_ack(S, e, f, p, acked)


@rare_handler
def edge_echo(S, code, e, f, p):
    """Member ``f``'s receiver has just turned a data packet into its ACK ``p``."""
    if code == ticket_tagger.CODE:
        ticket_tagger.on_echo(S, e, f, p)
