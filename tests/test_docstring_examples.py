"""Every Examples section in the package's docstrings runs and prints what it says (DESIGN.md, practice 8)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import qosmodels

MODULES = sorted(m.name for m in pkgutil.walk_packages(qosmodels.__path__, "qosmodels.")
                 if ".sim._kernels" not in m.name)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                             verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
