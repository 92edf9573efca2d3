"""The papers' reproductions: scenario + theory (+ packets) + tolerance -> side-by-side table.

Each module registers its experiments with :func:`register`; :func:`validate`
runs them.  ``qosmodels validate`` is the command-line face of this package.
"""

from __future__ import annotations

import importlib

from .registry import Check, Experiment, ValidationReport, experiments, register, validate

__all__ = ["Check", "Experiment", "ValidationReport", "register", "experiments", "validate",
           "MODULES"]

#: Modules holding registered experiments, imported on first use.
MODULES = ("parking_lot", "acc")


def _load_all() -> None:
    for name in MODULES:
        importlib.import_module(f"{__name__}.{name}")
