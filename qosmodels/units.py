"""People's units to SI.

Everything inside qosmodels is SI: seconds, bits per second, bytes for packet
sizes and packets for buffers.  These helpers turn the units people write
("10 Mb/s", "20 ms") into those numbers, and back for display.

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

__all__ = [
    "bps", "kbps", "Mbps", "Gbps", "s", "ms", "us", "B", "KB", "MB",
    "to_kbps", "to_Mbps", "to_ms", "BITS_PER_BYTE",
]

BITS_PER_BYTE = 8


def bps(x: float) -> float:
    """Bits per second (identity, for symmetry)."""
    return float(x)


def kbps(x: float) -> float:
    """Kilobits per second to bit/s (1 kb/s = 1e3 bit/s)."""
    return float(x) * 1e3


def Mbps(x: float) -> float:  # noqa: N802 - the unit's own spelling
    """Megabits per second to bit/s (1 Mb/s = 1e6 bit/s)."""
    return float(x) * 1e6


def Gbps(x: float) -> float:  # noqa: N802
    """Gigabits per second to bit/s (1 Gb/s = 1e9 bit/s)."""
    return float(x) * 1e9


def s(x: float) -> float:
    """Seconds (identity, for symmetry)."""
    return float(x)


def ms(x: float) -> float:
    """Milliseconds to seconds."""
    return float(x) * 1e-3


def us(x: float) -> float:
    """Microseconds to seconds."""
    return float(x) * 1e-6


def B(x: float) -> float:  # noqa: N802
    """Bytes (identity, for symmetry)."""
    return float(x)


def KB(x: float) -> float:  # noqa: N802
    """Kilobytes to bytes (1 KB = 1000 bytes, as in the papers)."""
    return float(x) * 1e3


def MB(x: float) -> float:  # noqa: N802
    """Megabytes to bytes (1 MB = 1e6 bytes)."""
    return float(x) * 1e6


def to_kbps(x):
    """bit/s to kb/s (works on arrays)."""
    return x / 1e3


def to_Mbps(x):  # noqa: N802
    """bit/s to Mb/s (works on arrays)."""
    return x / 1e6


def to_ms(x):
    """Seconds to milliseconds (works on arrays)."""
    return x * 1e3
