"""The papers' reproductions: one row per quantity, paper, theory, fluid and packets side by side.

One module per paper -- :mod:`.dks` (fair queueing), :mod:`.acc`, :mod:`.abe`,
:mod:`.pps`, :mod:`.tokenbucket` -- and :mod:`.textbook` for textbook checks
(M/D/1, parking lots, Reno/RED fluid).  Each registers its experiments with
:func:`register`; :func:`validate` runs them and returns a
:class:`ValidationReport` of :class:`Check` rows, each with its reference
(``expected``, a number or :class:`Bounds`), its :class:`Side` values and
its verdict (reproduced, reachable, a :class:`Known` difference, or fails);
experiments declare the parameters their papers leave unstated
(:class:`Unstated`) and ``validate(explore=True)`` runs them over their ranges.
``qosmodels validate`` is the command-line face of this package.
"""

from __future__ import annotations

import importlib
import pkgutil

from .registry import (
    CAUSES,
    PAPERS,
    SIDES,
    SOURCES,
    VERDICTS,
    Bounds,
    Check,
    Experiment,
    Known,
    Side,
    Unstated,
    ValidationReport,
    experiments,
    paper_of,
    register,
    validate,
)

__all__ = ["Check", "Side", "Bounds", "Known", "Unstated", "Experiment", "ValidationReport",
           "register", "experiments", "validate", "SIDES", "SOURCES", "VERDICTS", "CAUSES",
           "PAPERS", "paper_of", "MODULES"]

#: Modules holding registered experiments, imported on first use: every module of
#: this package except the registry and the private helpers, so a new paper's
#: experiments need only a new file here.
MODULES = tuple(sorted(m.name for m in pkgutil.iter_modules(__path__)
                       if m.name != "registry" and not m.name.startswith("_")))


def _load_all() -> None:
    for name in MODULES:
        importlib.import_module(f"{__name__}.{name}")
