"""qosmodels: network quality-of-service mechanisms, in theory and in packets.

Describe a network once (:class:`Network`, :class:`Link`, :class:`Flow`), ask
what the theory predicts (:func:`allocate`), and compare it with what packets
do (:func:`simulate`).  Heavy dependencies (CVXPY, SymPy, Numba, Matplotlib) are imported only
when an analysis needs them.
"""

from . import abe, fq, pps, sim, tokenbucket, topologies, units
from .allocation import Allocation, allocate
from .errors import MissingExtra, ScenarioError, ScenarioTypeError, SimulationError, SolverError
from .fairness import coefficient_of_variation, jain_index, maxmin_jain_index
from .fluid import FluidResult, solve_fluid
from .network import Flow, Link, Network
from .sim import SimulationResult, replicate, simulate
from .units import KB, MB, Gbps, Mbps, kbps, ms, us

__version__ = "0.1.0"

__all__ = [
    "Network",
    "Link",
    "Flow",
    "allocate",
    "Allocation",
    "solve_fluid",
    "FluidResult",
    "simulate",
    "replicate",
    "SimulationResult",
    "jain_index",
    "maxmin_jain_index",
    "coefficient_of_variation",
    "ScenarioError",
    "ScenarioTypeError",
    "SolverError",
    "SimulationError",
    "MissingExtra",
    "topologies",
    "units",
    "sim",
    "fq",
    "abe",
    "pps",
    "tokenbucket",
    "Mbps",
    "Gbps",
    "kbps",
    "ms",
    "us",
    "KB",
    "MB",
    "__version__",
]
