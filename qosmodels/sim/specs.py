"""Mechanism specifications: queue disciplines and traffic sources as data.

A spec is a frozen dataclass that validates its fields when built, carries a
class-level integer ``code`` that the simulator's kernel dispatches on, and
packs its parameters into a fixed-length row of floats with :meth:`row`.
Adding a mechanism means adding a spec here and its handlers in the kernel;
the event loop is not restructured (DESIGN.md, practice 2).
"""

from __future__ import annotations

import abc
from dataclasses import astuple, dataclass
from typing import ClassVar

from .._validate import integer

__all__ = ["QueueSpec", "SourceSpec", "DropTail", "Reno"]

#: Length of a packed parameter row; kernels index rows by named column constants.
PARAM_ROW = 16


class _Spec(abc.ABC):
    """Common base: an integer code and a packed parameter row."""

    code: ClassVar[int]
    kind: ClassVar[str]

    def row(self) -> tuple[float, ...]:
        """The spec's numeric fields as a row of ``PARAM_ROW`` floats (zero-padded)."""
        values = tuple(float(v) for v in astuple(self))
        if len(values) > PARAM_ROW:  # a spec with too many fields is a programming error
            raise RuntimeError(f"{type(self).__name__} has more than {PARAM_ROW} parameters")
        return values + (0.0,) * (PARAM_ROW - len(values))


class QueueSpec(_Spec):
    """Base class of queue disciplines (the ``queue`` of a :class:`~qosmodels.Link`)."""


class SourceSpec(_Spec):
    """Base class of traffic sources (the ``source`` of a :class:`~qosmodels.Flow`)."""


@dataclass(frozen=True)
class DropTail(QueueSpec):
    """First-come first-served queue that drops arrivals when the buffer is full."""

    code: ClassVar[int] = 0
    kind: ClassVar[str] = "droptail"


@dataclass(frozen=True)
class Reno(SourceSpec):
    """A greedy (always backlogged) TCP Reno sender.

    Parameters
    ----------
    max_window : int, packets
        Largest congestion window the sender will use (the receiver's
        advertised window), at least 1.
    """

    max_window: int = 10_000

    code: ClassVar[int] = 0
    kind: ClassVar[str] = "reno"

    def __post_init__(self):
        object.__setattr__(
            self, "max_window", integer("Reno", "max_window", self.max_window, ge=1, unit="packets")
        )
