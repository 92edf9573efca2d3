"""The PI controller for AQM (Hollot, Misra, Towsley and Gong, INFOCOM 2001)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import real
from ._base import QueueSpec, _flag

__all__ = ["Pi"]


@dataclass(frozen=True)
class Pi(QueueSpec):
    """The proportional-integral AQM controller of Hollot et al.: a FIFO that drops (or
    ECN-marks) each arriving packet with a probability ``p`` updated ``sampling_rate``
    times a second from the queue length.

    At the sampling instants ``kT`` (``T = 1 / sampling_rate``), with ``q`` the
    number of packets waiting (the instantaneous queue, the packet in
    transmission not counted, as ns-2's ``PIQueue`` counts it)::

        p(kT) = a (q(kT) - q_ref) - b (q((k-1)T) - q_ref) + p((k-1)T)

    bounded to [0, 1]; before the first sample ``p = 0`` and ``q = 0`` (an empty
    queue).  Each arrival that finds the buffer full (``Link.buffer`` packets
    waiting) is dropped (cause "overflow"); any other is dropped (cause
    "early") if a uniform draw ``u < p`` (no draw while ``p = 0``).  The
    sampling clock is a timer slot of the link, started by the first arrival
    (the first sample ``T`` after it).

    The default gains and rate are those of the paper's design example as ns-2's
    ``Queue/PI`` ships them (``ns-default.tcl``: ``a_ 0.00001822``, ``b_
    0.00001816``, ``w_ 170``, ``qref_ 50``); the paper's own text was not at
    hand to check them against.  They were designed for a given load, capacity
    and round-trip time; other networks need their own
    (``a`` and ``b`` from the paper's rules).

    Parameters
    ----------
    a, b : float, 1/packet
        The controller's coefficients, >= 0: 1.822e-5 and 1.816e-5.
    sampling_rate : float, Hz
        How often ``p`` is updated, > 0 and at most 1 MHz (each sample is a
        timer event of the simulator): 170 Hz.
    q_ref : float, packets
        The queue length the controller regulates to, >= 0: 50 packets.
    ecn : bool
        ECN-mark instead of dropping: an ECN-capable data packet
        (``TcpReno(ecn=True)`` and the like) chosen for an early drop is marked
        (congestion experienced) and admitted (ns-2's ``setbit_``); other
        packets are dropped.  False by default.
    record : bool
        Record the trace channels ``pi_prob`` (``p`` after every sample, at its
        time) and ``pi_drops`` (``p`` at every early drop or mark).

    References
    ----------
    C. V. Hollot, V. Misra, D. Towsley, W.-B. Gong, "On designing improved
    controllers for AQM routers supporting TCP flows", IEEE INFOCOM 2001 (the PI
    controller and its discrete-time form; the paper's text was not at hand, the
    recursion is as the issue and ns-2 state it).  ns-2, ``queue/pi.cc`` and
    ``tcl/lib/ns-default.tcl`` (``Queue/PI``'s defaults).

    Examples
    --------
    >>> from qosmodels.mechanisms import Pi
    >>> q = Pi()
    >>> q.a, q.b, q.sampling_rate, q.q_ref, q.ecn, q.kind
    (1.822e-05, 1.816e-05, 170.0, 50.0, False, 'pi')
    """

    a: float = 1.822e-5
    b: float = 1.816e-5
    sampling_rate: float = 170.0
    q_ref: float = 50.0
    ecn: bool = False
    record: bool = False

    kind: ClassVar[str] = "pi"
    kernel: ClassVar[str] = "queues.pi"

    def __post_init__(self):
        n = "Pi"
        set_ = object.__setattr__
        set_(self, "a", real(n, "a", self.a, ge=0, unit="1/packet"))
        set_(self, "b", real(n, "b", self.b, ge=0, unit="1/packet"))
        set_(self, "sampling_rate",
             real(n, "sampling_rate", self.sampling_rate, gt=0, le=1e6, unit="Hz"))
        set_(self, "q_ref", real(n, "q_ref", self.q_ref, ge=0, unit="packets"))
        _flag(n, "ecn", self.ecn)
        _flag(n, "record", self.record)
