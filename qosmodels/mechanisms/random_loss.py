"""A lossy link: drop-tail FIFO with independent random drops (the square-root law's setting)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import real
from ..errors import ScenarioError
from ._base import QueueSpec

__all__ = ["RandomLoss"]



@dataclass(frozen=True)
class RandomLoss(QueueSpec):
    """A drop-tail FIFO that also drops each arriving packet with probability ``p``,
    independently (a lossy link: the setting of the square-root law).

    Parameters
    ----------
    p : float
        Loss probability, in [0, 1).

    References
    ----------
    M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic behavior of the
    TCP congestion avoidance algorithm", Computer Communication Review 27(3), 1997.
    """

    p: float = 0.01

    kind: ClassVar[str] = "random-loss"
    kernel: ClassVar[str] = "queues.random_loss"

    def __post_init__(self):
        object.__setattr__(self, "p", real("RandomLoss", "p", self.p, ge=0))
        if not self.p < 1:
            raise ScenarioError(f"RandomLoss.p must be in [0, 1), got {self.p!r}")
