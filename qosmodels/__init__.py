"""qosmodels: network quality-of-service mechanisms, in theory and in packets.

Describe a network once (:class:`Network`, :class:`Link`, :class:`Flow`), ask
what the theory predicts (:func:`allocate`), and compare it with what packets
do (:func:`simulate`).  Heavy dependencies (CVXPY, SymPy, Numba, Matplotlib) are imported only
when an analysis needs them.
"""

from typing import TYPE_CHECKING

from . import abe, budget, fq, mechanisms, pps, tokenbucket, topologies, units
from .allocation import Allocation, allocate
from .errors import (
    BudgetError,
    MissingExtra,
    ScenarioError,
    ScenarioTypeError,
    SimulationError,
    SolverError,
)
from .fairness import coefficient_of_variation, jain_index, maxmin_jain_index
from .fluid import FluidResult, solve_fluid
from .network import Aggregate, Flow, Link, LinkChange, Network
from .parallel import sweep
from .units import KB, MB, Gbps, Mbps, kbps, ms, us

__version__ = "0.1.0"

if TYPE_CHECKING:  # type checkers see the lazy names as what they are
    from . import sim
    from .sim.result import SimulationResult
    from .sim.simulate import replicate, simulate

#: Names served from ``qosmodels.sim`` when first used, so that describing a
#: network (``import qosmodels.network``) never loads the simulator.
_LAZY = {"sim": None, "simulate": "simulate", "replicate": "replicate",
         "SimulationResult": "SimulationResult"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        sim = importlib.import_module(".sim", __name__)
        attr = _LAZY[name]
        return sim if attr is None else getattr(sim, attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "Network",
    "Link",
    "Flow",
    "Aggregate",
    "LinkChange",
    "allocate",
    "Allocation",
    "solve_fluid",
    "FluidResult",
    "simulate",
    "replicate",
    "sweep",
    "SimulationResult",
    "jain_index",
    "maxmin_jain_index",
    "coefficient_of_variation",
    "ScenarioError",
    "ScenarioTypeError",
    "BudgetError",
    "SolverError",
    "SimulationError",
    "MissingExtra",
    "topologies",
    "units",
    "sim",
    "mechanisms",
    "fq",
    "abe",
    "pps",
    "tokenbucket",
    "budget",
    "Mbps",
    "Gbps",
    "kbps",
    "ms",
    "us",
    "KB",
    "MB",
    "__version__",
]
