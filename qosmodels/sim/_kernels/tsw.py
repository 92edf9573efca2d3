"""Time-sliding-window rate estimates (Clark and Fang 1998), kept in two columns of a row.

On each update with ``amount`` (packets, tickets, bits) at time ``now``:

    rate <- (rate * window + amount) / (now - front + window),    front <- now

A stream of ``amount`` every ``dt`` seconds settles at exactly ``amount / dt``
(the fixed point of the update); older history decays over about a window.

References
----------
D. Clark, W. Fang, "Explicit allocation of best-effort packet delivery
service", IEEE/ACM Trans. Networking 6(4), 1998, Section 3; quoted by the PPS
paper, Section 2.3.
"""

import math

from ._jit import handler


@handler
def update(a, r, rate_col, front_col, amount, now, window):
    """Add ``amount`` at ``now`` to the estimate in ``a[r, rate_col]`` (its front in
    ``a[r, front_col]``); return the new rate (amount per second)."""
    rate = (a[r, rate_col] * window + amount) / (now - a[r, front_col] + window)
    a[r, rate_col] = rate
    a[r, front_col] = now
    return rate


@handler
def quantise(tag, levels, unit):
    """``tag`` as an 8-bit (or ``levels``-level) header field carries it: ``unit`` times a
    whole number of levels in ``[1, levels]``, rounded to the nearest (``levels <= 0``:
    unquantised).  The plain-Python rule is ``qosmodels.mechanisms.tickets.quantise``."""
    if levels <= 0.0:
        return tag
    n = math.floor(tag / unit + 0.5) if tag < levels * unit else levels
    if n < 1.0:
        n = 1.0
    return unit * n
