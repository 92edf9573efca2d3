"""The fair-queueing paper's "generic" fixed-window flow control.

References
----------
A. Demers, S. Keshav, S. Shenker, "Analysis and simulation of a fair queueing
algorithm", SIGCOMM 1989, Section 3.1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer
from ._base import SourceSpec, _colour, _generic_timeout, _packet_size, _priority

__all__ = ["GenericWindow"]



@dataclass(frozen=True)
class GenericWindow(SourceSpec):
    """The fair-queueing paper's "generic" flow control: a fixed window.

    A greedy sender keeps ``window`` packets unacknowledged; the receiver
    acknowledges cumulatively.  There is no fast retransmit: when nothing new
    is acknowledged for ``beta`` times the exponentially averaged round-trip
    time, the sender goes back N: it resends every unacknowledged packet, as
    the window allows, from the first one, and sets a new timeout of ``beta``
    times the average (no backoff); every ACK of new data restarts the timer.

    Every ACK of new data is an RTT sample: the time since the *first*
    transmission of the oldest packet it acknowledges, retransmitted or not
    (the paper: "the rtt estimate for retransmitted packets is the time from
    their first transmission to their acknowledgement"; no Karn rule).  After
    losses the samples, and so the timeout, grow: the paper's losers show
    average RTT estimates of 100-1400 s (Tables III and IV).

    Parameters
    ----------
    window : int, packets
    packet_size : int or None, bytes
    beta : float
        Timeout as a multiple of the averaged RTT, > 1 (the paper uses 2).
    rtt_gain : float
        Weight of a new sample in the RTT average, in (0, 1].
    initial_rtt : float, s
        RTT estimate before the first sample.
    priority : int

    References
    ----------
    Demers, Keshav, Shenker, SIGCOMM 1989, Section 3.1 ("generic" flow control).
    """

    window: int = 5
    packet_size: int | None = None
    beta: float = 2.0
    rtt_gain: float = 0.125
    initial_rtt: float = 1.0
    priority: int = 0

    kind: ClassVar[str] = "generic"
    kernel: ClassVar[str] = "sources.window"
    windowed: ClassVar[bool] = True

    def __post_init__(self):
        set_ = object.__setattr__
        _colour("GenericWindow", self)
        set_(self, "window", integer("GenericWindow", "window", self.window, ge=1, unit="packets"))
        set_(self, "packet_size", _packet_size("GenericWindow", self.packet_size))
        _generic_timeout("GenericWindow", self)
        set_(self, "priority", _priority("GenericWindow", self.priority))
