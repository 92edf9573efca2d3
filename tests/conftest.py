"""Session set-up of the test suite.

The packet kernel's compile from scratch is the test command's largest use of
memory (about 1.9 GB on its own; README, contributor notes).  Done in the middle
of the run, by the first test that simulates, it comes on top of what the earlier
tests left in memory; done first, right after collection, it does not.  So when
the collected tests import the packet simulator, the kernel is compiled (or,
usually, loaded from Numba's cache in about a second) before the first test runs.
"""

from __future__ import annotations

import signal
import sys

import pytest


def pytest_collection_finish(session):
    if session.items and "qosmodels.sim.simulate" in sys.modules:
        from qosmodels.sim import compile_kernel

        compile_kernel()


@pytest.fixture
def python_sigint():
    """Python's own Ctrl-C handler during the test, even where the test run inherited SIGINT
    ignored (a shell's background job): the tests of Ctrl-C send themselves SIGINT."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)
