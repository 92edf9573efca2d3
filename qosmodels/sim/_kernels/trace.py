"""Trace channels: a mechanism records a named scalar series (alpha, an exchange rate, a
bucket level) as (time, channel, value) points in one buffer shared by all channels.

A mechanism's kernel module declares its channels with ``traces(spec) ->
tuple of names``; the compile step numbers them and stores an owner's first
channel in its row (``LI_TRACE0`` of a link, ``FI_TRACE0`` of a flow, -1 for
none); the result returns each channel as a series by name.
"""

from ._jit import POS, handler
from .layout import GF_NOW, GI_STATUS, GI_TRACE_N, ST_CHANNELS_FULL


@handler
def record(S, ch, value):
    """Record ``value`` on channel ``ch`` at the current time (``ST_CHANNELS_FULL`` if no room)."""
    n = S.gi[GI_TRACE_N] & POS
    if n >= S.tr_t.shape[0]:
        S.gi[GI_STATUS] = ST_CHANNELS_FULL
        return
    S.tr_t[n] = S.gf[GF_NOW]
    S.tr_c[n] = ch
    S.tr_v[n] = value
    S.gi[GI_TRACE_N] = n + 1
