"""Random numbers: L'Ecuyer's MRG32k3a, its six-integer state an array of the scenario.

Its integer arithmetic stays inside 63 bits, so the kernel gives the same
numbers with and without ``NUMBA_DISABLE_JIT``.

References
----------
P. L'Ecuyer, "Good parameters and implementations for combined multiple
recursive random number generators", Operations Research 47(1), 1999.
"""

import math

from ._jit import handler

# MRG32k3a moduli and normalisation (L'Ecuyer 1999)
_M1 = 4294967087
_M2 = 4294944443
_NORM = 2.328306549295727688e-10


@handler
def rand(S):
    """A uniform number in (0, 1)."""
    rng = S.rng
    p1 = (1403580 * rng[1] - 810728 * rng[0]) % _M1
    rng[0] = rng[1]
    rng[1] = rng[2]
    rng[2] = p1
    p2 = (527612 * rng[5] - 1370589 * rng[3]) % _M2
    rng[3] = rng[4]
    rng[4] = rng[5]
    rng[5] = p2
    if p1 > p2:
        return (p1 - p2) * _NORM
    return (p1 - p2 + _M1) * _NORM


@handler
def expo(S, mean):
    """An exponential number of mean ``mean``."""
    return -mean * math.log(rand(S))
