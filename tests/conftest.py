"""Session set-up of the test suite.

The packet kernel's compile from scratch is the test command's largest use of
memory: about 0.7 GB in a fresh process for the whole kernel, against 0.19 GB to
load it from Numba's cache (README, contributor notes), and a process keeps most
of what the compile took.  So the whole suite (``pytest`` with no paths, as the
README's test command runs it) first compiles the kernel in a child process, which
writes Numba's cache and exits, and then loads it in this one (about a second;
when the cache is already there the child only loads it too).  A narrower run
compiles or loads it in this process after collection, if the collected tests
import the packet simulator.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest


def _whole_suite(config) -> bool:
    root = Path(str(config.rootpath))
    given = [Path(a.split("::")[0]).resolve() for a in config.args]
    return all(p in (root, root / "tests") for p in given)


def _compile_in_child() -> None:
    """Compile (or load) the whole packet kernel in a child process, so that the
    compile's memory is returned when it exits and this process only loads the
    cache.  If the child fails, this process compiles as before."""
    code = "from qosmodels.sim import compile_kernel; compile_kernel()"
    subprocess.run([sys.executable, "-c", code], check=False)


def pytest_configure(config):
    if _whole_suite(config) and not config.option.collectonly:
        from qosmodels.sim import compile_kernel

        _compile_in_child()
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
