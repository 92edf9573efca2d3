"""The Adaptive Virtual Queue (Kunniyur and Srikant), the AQM the ACC paper pairs with Monaco."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ..errors import ScenarioError
from ._base import QueueSpec, _flag

__all__ = ["Avq"]


@dataclass(frozen=True)
class Avq(QueueSpec):
    """Adaptive Virtual Queue: a FIFO that drops (or marks) when a virtual queue served at an
    adapted capacity ``C~ <= C`` overflows, so the link settles at utilisation ``gamma``.

    At each arrival of ``b`` bits at time ``t`` (the previous at ``s``), with ``C``
    the link's capacity and ``B`` the buffer in bits (``Link.buffer`` packets of
    ``typical_packet_size`` bytes)::

        VQ <- max(VQ - C~ (t - s), 0)
        if VQ + b > B:  drop the packet (ECN-mark it with mark=True)
        else:           VQ <- VQ + b
        C~ <- max(min(C~ + alpha gamma C (t - s), C) - alpha b, 0)

    Every arrival counts in the update, dropped or not; so ``dC~/dt = alpha
    (gamma C - lambda)`` and responsive sources settle where the arrival rate
    is ``gamma C``.  ``C~`` starts at ``gamma C``.  A full real buffer drops as
    drop-tail does (cause "overflow"); the virtual queue's drops are "early".

    Parameters
    ----------
    gamma : float
        Desired utilisation, in (0, 1] (the ACC paper uses 0.98).
    alpha : float
        Smoothing of the capacity adaptation, > 0 (Kunniyur and Srikant use 0.15).
    mark : bool
        ECN-mark packets of ECN-capable flows instead of dropping them (the others are dropped).
    typical_packet_size : int, bytes
        Converts ``Link.buffer`` (packets) into the virtual buffer ``B`` (bits).
    record : bool
        Record the virtual capacity ``C~`` (bit/s) at every arrival as the trace channel
        ``avq_capacity`` (one point per arrival).
    avd : bool
        Adaptive Virtual Delay (the ACC paper, Section IV-D): the virtual queue drops
        nothing (it grows as it must) and adds its virtual queueing delay ``VQ / C~`` to
        every Monaco in-band control packet passing, which the Monaco receiver adds to its
        forward queueing time: ``a = x (ftt_q + sum of virtual delays)``.  The signal is
        then the virtual delay instead of loss, and Monaco flows settle at utilisation
        ``gamma`` with a short real queue.

    References
    ----------
    S. Kunniyur, R. Srikant, "Analysis and design of an adaptive virtual queue (AVQ)
    algorithm for active queue management", SIGCOMM 2001, Section 3 (the algorithm);
    Y. Xia et al., "Accumulation-based Congestion Control", Section IV-D (gamma 0.98).

    Examples
    --------
    >>> from qosmodels.mechanisms import Avq
    >>> Avq(gamma=0.98).kind
    'avq'
    """

    gamma: float = 0.98
    alpha: float = 0.15
    mark: bool = False
    typical_packet_size: int = 1000
    record: bool = False
    avd: bool = False

    kind: ClassVar[str] = "avq"
    kernel: ClassVar[str] = "queues.avq"

    def __post_init__(self):
        n = "Avq"
        g = real(n, "gamma", self.gamma, gt=0)
        if g > 1:
            raise ScenarioError(f"Avq.gamma must be in (0, 1] (the desired utilisation), got {g!r}")
        object.__setattr__(self, "gamma", g)
        object.__setattr__(self, "alpha", real(n, "alpha", self.alpha, gt=0))
        _flag(n, "mark", self.mark)
        _flag(n, "record", self.record)
        _flag(n, "avd", self.avd)
        if self.avd and self.mark:
            raise ScenarioError("Avq.avd and Avq.mark exclude each other: AVD signals by "
                                "virtual delay, not by marks; set one of them")
        object.__setattr__(self, "typical_packet_size", integer(
            n, "typical_packet_size", self.typical_packet_size, ge=1, unit="bytes"))
