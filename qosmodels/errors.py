"""The exceptions qosmodels raises.

Every error names what was wrong, the offending value, and what would be
valid, so that a user can fix the call without reading the source.
"""

from __future__ import annotations

__all__ = ["ScenarioError", "ScenarioTypeError", "BudgetError", "SolverError", "SimulationError",
           "MissingExtra", "IdenticalReplicationsWarning"]


class ScenarioError(ValueError):
    """A network or scenario description is invalid.

    Raised when a :class:`~qosmodels.Link`, :class:`~qosmodels.Flow` or
    :class:`~qosmodels.Network` is built with a value that cannot describe a
    network (a negative delay, a route through an undeclared link, ...), and
    by analyses given parameters they cannot use.
    """


class ScenarioTypeError(ScenarioError, TypeError):
    """A scenario field has the wrong type (also a :class:`TypeError`)."""


class BudgetError(ScenarioError):
    """A call would need more memory or work than its budget allows (:mod:`qosmodels.budget`).

    Raised before anything is allocated or run; the message names the input
    that sized the request, the estimate, and how to reduce it or raise the
    budget.
    """


class SolverError(RuntimeError):
    """A numerical solver failed; the message carries the solver's status.

    Attributes
    ----------
    status : str
        The solver's own status string (for example ``"infeasible"`` or
        ``"max_iterations"``).
    """

    def __init__(self, message: str, status: str = "unknown"):
        super().__init__(message)
        self.status = status


class SimulationError(RuntimeError):
    """A simulation kernel stopped on a capacity limit or an inconsistency."""


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message names the extra."""


class IdenticalReplicationsWarning(UserWarning):
    """Every replication of a run came out the same: nothing in it depends on the seed.

    Raised as a warning by :func:`qosmodels.sim.replicate` and :func:`qosmodels.sweep`.  A
    network with no random element (greedy TCP over drop-tail, all flows starting
    together) gives the same packets whatever the seed, so a confidence interval over its
    replications is zero and says nothing: draw something from the seed (start times,
    a random source or loss).
    """

