"""A lossy link: drop-tail FIFO with independent random drops (the square-root law's setting)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import real
from ..errors import ScenarioError
from ._base import QueueSpec, _flag

__all__ = ["RandomLoss"]



@dataclass(frozen=True)
class RandomLoss(QueueSpec):
    """A drop-tail FIFO that also drops each arriving packet with probability ``p``,
    independently (a lossy link: the setting of the square-root law), or, with
    ``periodic=True``, exactly one arriving packet in every ``1/p``.

    Parameters
    ----------
    p : float
        Loss probability, in [0, 1).
    periodic : bool
        Drop deterministically, evenly spaced: the arrival that brings the running sum of
        ``p`` over the link's arrivals to 1 or more is dropped, and 1 taken off the sum
        (``p = 0.001``: the 1000th, 2000th, ... arrival, up to rounding of the sum).  This is
        the *deterministic loss model* of Mathis et al.'s square-root law and of RFC 9438's
        response function (Section 5, Appendix B); it draws no random numbers.

    References
    ----------
    M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic behavior of the
    TCP congestion avoidance algorithm", Computer Communication Review 27(3), 1997
    (Section 2, periodic loss); RFC 9438, Appendix B.
    """

    p: float = 0.01
    periodic: bool = False

    kind: ClassVar[str] = "random-loss"
    kernel: ClassVar[str] = "queues.random_loss"

    def __post_init__(self):
        object.__setattr__(self, "p", real("RandomLoss", "p", self.p, ge=0))
        if not self.p < 1:
            raise ScenarioError(f"RandomLoss.p must be in [0, 1), got {self.p!r}")
        _flag("RandomLoss", "periodic", self.periodic)
