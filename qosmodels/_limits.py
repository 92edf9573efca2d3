"""The ranges every description of a network is held to, and the default buffer.

Beyond these ranges a value is almost surely a unit slip, and the arrays and kernels
downstream (int64 buffers, float transmission times, scaled solver problems) would
overflow or lose all precision.  :mod:`qosmodels.network` (the per-object path) and
``Network.from_arrays`` (the array path) both check against them; they live here so that
neither path imports the other.
"""

from __future__ import annotations

from . import _validate as v
from .errors import ScenarioError

#: Default buffer of a link, in packets.
DEFAULT_BUFFER = 100

#: Capacities and rate caps, bit/s: from 1 mbit/s to 1 Eb/s.
MIN_RATE, MAX_RATE = 1e-3, 1e18
#: Propagation delays, s (about 11.6 days).
MAX_DELAY = 1e6
#: Buffers, packets (a billion packets already fill a terabyte).
MAX_BUFFER = 10**9
#: Packet sizes, bytes.
MAX_PACKET_SIZE = 10**6
#: Flow weights (relative, so only their ratios matter; this keeps w**alpha and
#: the solvers' scaled weights within floating point).
MIN_WEIGHT, MAX_WEIGHT = 1e-100, 1e100
#: Start and stop times, s (about 31 700 years).
MAX_TIME = 1e12


def _rate(owner: str, field: str, value) -> float:
    """A rate in bit/s within [MIN_RATE, MAX_RATE]; the message names the range and why."""
    x = v.real(owner, field, value, gt=0, unit="bit/s")
    if not MIN_RATE <= x <= MAX_RATE:
        raise ScenarioError(
            f"{owner}.{field} must be between {MIN_RATE:g} and {MAX_RATE:g} bit/s, got {value!r}; "
            f"check the unit (qosmodels.units.Mbps(10) is 10e6 bit/s)")
    return x
