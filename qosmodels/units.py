"""People's units to SI.

Everything inside qosmodels is SI: seconds, bits per second, bytes for packet
sizes and packets for buffers.  These helpers turn the units people write
("10 Mb/s", "20 ms") into those numbers, and back for display.

Every converter to SI (``Mbps``, ``ms``, ``KB``, ...) takes one real number: a
string, a bool, None or a complex number raises
:class:`~qosmodels.errors.ScenarioTypeError`, and a value that is not finite or
whose result would overflow raises :class:`~qosmodels.errors.ScenarioError`,
each naming the function.  The display helpers (``to_kbps``, ``to_Mbps``,
``to_ms``) take numbers or arrays of them and let NaN and inf through, as
missing or unbounded values; anything else raises ``ScenarioTypeError``.

Examples
--------
>>> from qosmodels.units import Mbps, ms, KB
>>> Mbps(10)
10000000.0
>>> ms(20)
0.02
>>> KB(3)
3000.0
"""

from __future__ import annotations

import math

from . import _validate as v
from ._arrays import real_array
from .errors import ScenarioError

__all__ = [
    "bps", "kbps", "Mbps", "Gbps", "s", "ms", "us", "B", "KB", "MB",
    "to_kbps", "to_Mbps", "to_ms", "BITS_PER_BYTE",
]

BITS_PER_BYTE = 8
_MAX = 1.7976931348623157e308


def _scale(name: str, x, factor: float) -> float:
    """``x`` (a finite real number, not a bool or a string) times ``factor``, finite."""
    value = v.real(f"units.{name}", "x", x)
    out = value * factor
    if not math.isfinite(out):
        raise ScenarioError(f"units.{name}.x must be at most {_MAX / factor:.3g} in magnitude "
                            f"(the result must be a finite float), got {x!r}")
    return out


def _display(name: str, x):
    """Check that ``x`` is a number or an array of them (NaN and inf pass through, as
    missing or unbounded values; the type of ``x``, an array or a pandas Series, is kept)."""
    real_array(f"units.{name}", "x", x)


def bps(x: float) -> float:
    """Bits per second (identity, for symmetry)."""
    return _scale("bps", x, 1.0)


def kbps(x: float) -> float:
    """Kilobits per second to bit/s (1 kb/s = 1e3 bit/s)."""
    return _scale("kbps", x, 1e3)


def Mbps(x: float) -> float:  # noqa: N802 - the unit's own spelling
    """Megabits per second to bit/s (1 Mb/s = 1e6 bit/s)."""
    return _scale("Mbps", x, 1e6)


def Gbps(x: float) -> float:  # noqa: N802
    """Gigabits per second to bit/s (1 Gb/s = 1e9 bit/s)."""
    return _scale("Gbps", x, 1e9)


def s(x: float) -> float:
    """Seconds (identity, for symmetry)."""
    return _scale("s", x, 1.0)


def ms(x: float) -> float:
    """Milliseconds to seconds."""
    return _scale("ms", x, 1e-3)


def us(x: float) -> float:
    """Microseconds to seconds."""
    return _scale("us", x, 1e-6)


def B(x: float) -> float:  # noqa: N802
    """Bytes (identity, for symmetry)."""
    return _scale("B", x, 1.0)


def KB(x: float) -> float:  # noqa: N802
    """Kilobytes to bytes (1 KB = 1000 bytes, as in the papers)."""
    return _scale("KB", x, 1e3)


def MB(x: float) -> float:  # noqa: N802
    """Megabytes to bytes (1 MB = 1e6 bytes)."""
    return _scale("MB", x, 1e6)


def to_kbps(x):
    """bit/s to kb/s (works on arrays)."""
    _display("to_kbps", x)
    return x / 1e3


def to_Mbps(x):  # noqa: N802
    """bit/s to Mb/s (works on arrays)."""
    _display("to_Mbps", x)
    return x / 1e6


def to_ms(x):
    """Seconds to milliseconds (works on arrays)."""
    _display("to_ms", x)
    return x * 1e3
