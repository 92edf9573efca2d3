"""The packet-level simulator.

Describe mechanisms as specs (:mod:`qosmodels.mechanisms`) -- queue
disciplines (:class:`DropTail`, :class:`Red`, :class:`Ered`, :class:`Priority`,
:class:`RandomLoss`, :class:`FairQueueing`, :class:`Decbit`, :class:`Rio`) on links and sources
(:class:`TcpReno`, :class:`TcpNewReno`, :class:`GenericWindow`, :class:`DecbitWindow`,
:class:`Cbr`, :class:`Poisson`, :class:`OnOff`) on flows -- and run the network with
:func:`simulate`.  The
specs are re-exported here.  Each spec names its kernel module
(``_kernels/queues/``, ``_kernels/sources/``), which packs its parameters
into a row and carries it out, so that the kernel compiles once for every mix
of mechanisms (DESIGN.md, practice 2).  Numba is imported on the first run,
not with this package.
"""

from ..mechanisms import (
    Cbr,
    Decbit,
    DecbitWindow,
    DropTail,
    Ered,
    FairQueueing,
    GenericWindow,
    OnOff,
    Poisson,
    Priority,
    QueueSpec,
    RandomLoss,
    Red,
    Rio,
    SourceSpec,
    TcpNewReno,
    TcpReno,
)
from .compile import Limits, Record
from .result import ReplicationResult, SimulationResult
from .simulate import replicate, simulate

__all__ = [
    "simulate", "replicate", "SimulationResult", "ReplicationResult", "Record", "Limits",
    "QueueSpec", "SourceSpec", "DropTail", "Red", "Ered", "Priority", "RandomLoss",
    "FairQueueing", "Decbit", "Rio", "TcpReno", "TcpNewReno", "GenericWindow", "DecbitWindow", "Cbr", "Poisson", "OnOff",
]
