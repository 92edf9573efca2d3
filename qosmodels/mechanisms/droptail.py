"""First-come first-served drop-tail queue: the default discipline of a link."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ._base import QueueSpec

__all__ = ["DropTail"]



@dataclass(frozen=True)
class DropTail(QueueSpec):
    """First-come first-served queue that drops arrivals when the buffer is full."""

    kind: ClassVar[str] = "droptail"
    kernel: ClassVar[str] = "queues.droptail"
