"""Session set-up of the test suite.

The packet kernel's compile from scratch is the test command's largest use of
memory: about 0.45 GB in a fresh process (README, contributor notes).  Done by the
first test that simulates, it comes on top of what the test modules and the
earlier tests hold (0.2-0.5 GB); done first, before collection imports them, it
does not.  So the whole suite (``pytest`` with no paths, as the README's test
command runs it) compiles the kernel, or, usually, loads it from Numba's cache in
about a second, before collection; a narrower run does it after collection if the
collected tests import the packet simulator.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest


def _whole_suite(config) -> bool:
    root = Path(str(config.rootpath))
    given = [Path(a.split("::")[0]).resolve() for a in config.args]
    return all(p in (root, root / "tests") for p in given)


def pytest_configure(config):
    if _whole_suite(config) and not config.option.collectonly:
        from qosmodels.sim import compile_kernel

        compile_kernel()


def pytest_collection_finish(session):
    if session.items and "qosmodels.sim.simulate" in sys.modules:
        from qosmodels.sim import compile_kernel

        compile_kernel()  # (nothing to do if done at configuration)


@pytest.fixture
def python_sigint():
    """Python's own Ctrl-C handler during the test, even where the test run inherited SIGINT
    ignored (a shell's background job): the tests of Ctrl-C send themselves SIGINT."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)
