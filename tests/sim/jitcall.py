"""Calling kernel handlers from a test.

Kernel handlers have no Python entry point (``qosmodels.sim._kernels._jit``:
only jitted code calls them), so a test calls one through a jitted trampoline:
``jitcall(set_deadline)(c, 1, 1.0, False)``.  The trampoline compiles on first
use for the argument types, as the handler did when it was callable directly.
"""

from __future__ import annotations

from numba import njit

_TRAMPOLINES: dict = {}


def jitcall(handler):
    """A jitted function that calls ``handler`` with its arguments and returns its result."""
    try:
        return _TRAMPOLINES[handler]
    except KeyError:
        pass
    if not hasattr(handler, "py_func"):  # NUMBA_DISABLE_JIT: the handler is a plain function
        return handler

    def call(*args):
        return handler(*args)

    _TRAMPOLINES[handler] = tramp = njit(call)
    return tramp
