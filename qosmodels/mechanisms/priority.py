"""Strict priority queueing over FIFO classes (the ACC paper's out-of-band queue)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer
from ._base import QueueSpec

__all__ = ["Priority"]



@dataclass(frozen=True)
class Priority(QueueSpec):
    """Strict priority over ``classes`` FIFO classes; class 0 is served first.

    A packet's class is its source's ``priority``.  Each class is a drop-tail
    FIFO with its own buffer of the link's ``buffer`` packets, so a backlog of
    low-priority traffic never blocks the high-priority class (the ACC paper's
    out-of-band queue for control packets).  Service is non-preemptive.

    Parameters
    ----------
    classes : int
        Number of classes, >= 2.
    """

    classes: int = 2

    kind: ClassVar[str] = "priority"
    kernel: ClassVar[str] = "queues.priority"

    def __post_init__(self):
        object.__setattr__(self, "classes", integer("Priority", "classes", self.classes, ge=2))

    @property
    def n_classes(self) -> int:
        return self.classes
