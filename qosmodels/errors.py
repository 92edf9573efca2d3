"""The exceptions qosmodels raises.

Every error names what was wrong, the offending value, and what would be
valid, so that a user can fix the call without reading the source.
"""

from __future__ import annotations

__all__ = ["ScenarioError", "ScenarioTypeError", "BudgetError", "SolverError", "SimulationError",
           "MissingExtra"]


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
