"""The papers' reproductions: scenario + theory (+ packets) + tolerance -> side-by-side table.

Each module registers its experiments with :func:`register`; :func:`validate`
runs them.  ``qosmodels validate`` is the command-line face of this package.
"""

from __future__ import annotations

import importlib
import pkgutil

from .registry import Check, Experiment, ValidationReport, experiments, register, validate

__all__ = ["Check", "Experiment", "ValidationReport", "register", "experiments", "validate",
           "MODULES"]

#: Modules holding registered experiments, imported on first use: every module of
#: this package except the registry itself, so a new paper's experiments need
#: only a new file here.
MODULES = tuple(sorted(m.name for m in pkgutil.iter_modules(__path__)
                       if m.name != "registry" and not m.name.startswith("_")))


def _load_all() -> None:
    for name in MODULES:
        importlib.import_module(f"{__name__}.{name}")
