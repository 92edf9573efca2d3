"""The packet-level simulator.

This subpackage holds the mechanism specifications (queue disciplines and
traffic sources) that a :class:`~qosmodels.Link` or :class:`~qosmodels.Flow`
carries.  Specs are small frozen dataclasses with validated fields, an integer
``code`` and a packed parameter row, so that the simulator's kernel compiles
once for every mix of mechanisms (DESIGN.md, practice 2).
"""

from .specs import DropTail, QueueSpec, Reno, SourceSpec

__all__ = ["QueueSpec", "SourceSpec", "DropTail", "Reno"]
