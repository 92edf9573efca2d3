"""The packet-level simulator.

Describe mechanisms as specs (:mod:`qosmodels.mechanisms`) -- queue
disciplines (:class:`DropTail`, :class:`Red`, :class:`Ered`, :class:`Priority`,
:class:`RandomLoss`, :class:`FairQueueing`, :class:`Decbit`, :class:`Rio`,
:class:`TicketRed`, :class:`AbeQueue`, :class:`Avq`, :class:`Codel`,
:class:`Drr`, :class:`FqCodel`, :class:`Pi`, :class:`Pie`) on links, sources
(:class:`TcpReno`, :class:`TcpNewReno`, :class:`TcpTahoe`, :class:`GenericWindow`,
:class:`DecbitWindow`, :class:`Cbr`,
:class:`Poisson`, :class:`OnOff`, :class:`TcpFriendly`, :class:`Accumulation`, :class:`TcpVegas`, :class:`WebTraffic`,
:class:`Dctcp`, :class:`Cubic`, :class:`BbrV1`) on flows and edge elements
(:class:`AggregateBucket`, :class:`ProfileMarker`, :class:`TicketTagger`) on aggregates -- and
run the network with :func:`simulate`.  Every spec is re-exported here.  Each spec names its kernel module
(``_kernels/queues/``, ``_kernels/sources/``), which packs its parameters
into a row and carries it out, so that the kernel compiles once for every mix
of mechanisms.  Numba is imported on the first run,
not with this package.
"""

from ..mechanisms import (
    AbeQueue,
    Accumulation,
    AggregateBucket,
    Avq,
    BbrV1,
    Cbr,
    Codel,
    Cubic,
    Dctcp,
    Decbit,
    DecbitWindow,
    DropTail,
    Drr,
    EdgeSpec,
    Ered,
    FairQueueing,
    FqCodel,
    GenericWindow,
    OnOff,
    Pi,
    Pie,
    Poisson,
    Priority,
    ProfileMarker,
    QueueSpec,
    RandomLoss,
    Red,
    Rio,
    SourceSpec,
    Spec,
    TcpFriendly,
    TcpNewReno,
    TcpReno,
    TcpTahoe,
    TcpVegas,
    TicketRed,
    TicketTagger,
    WebTraffic,
)
from .compile import Limits, Record
from .result import ReplicationResult, SimulationResult
from .simulate import compile_kernel, replicate, simulate

__all__ = [
    "simulate", "replicate", "compile_kernel", "SimulationResult", "ReplicationResult",
    "Record", "Limits",
    "Spec", "QueueSpec", "SourceSpec", "EdgeSpec", "DropTail", "Red", "Ered", "Priority",
    "RandomLoss", "FairQueueing", "Decbit", "Rio", "TicketRed", "AbeQueue", "Avq", "Codel",
    "Drr", "FqCodel", "Pi", "Pie", "TcpReno",
    "TcpNewReno", "TcpTahoe", "GenericWindow", "DecbitWindow", "Cbr", "Poisson", "OnOff", "TcpFriendly",
    "Accumulation", "TcpVegas", "WebTraffic", "Dctcp", "Cubic", "BbrV1",
    "AggregateBucket", "ProfileMarker", "TicketTagger",
]
