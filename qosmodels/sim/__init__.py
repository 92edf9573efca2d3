"""The packet-level simulator.

Describe mechanisms as specs (:mod:`qosmodels.mechanisms`: queue disciplines on
links, sources on flows, edge elements on aggregates) and run the network with
:func:`simulate`.  Every spec of :mod:`qosmodels.mechanisms` is re-exported here
(``qosmodels.mechanisms.__all__`` is the one list).  Each spec names its kernel
module (``_kernels/queues/``, ``_kernels/sources/``, ``_kernels/edges/``), which
packs its parameters into a row and carries it out, so that the kernel compiles
once for every mix of mechanisms.  Numba is imported on the first run, not with
this package.
"""

from .. import mechanisms as _mechanisms
from ..mechanisms import *  # noqa: F403  (every spec; the list is mechanisms.__all__)
from .compile import Limits, Record
from .result import ReplicationResult, SimulationResult
from .simulate import compile_kernel, replicate, simulate

__all__ = [
    "simulate", "replicate", "compile_kernel", "SimulationResult", "ReplicationResult",
    "Record", "Limits", *_mechanisms.__all__,
]
