"""The first run of a fresh installation says it is compiling and reports it apart."""

from __future__ import annotations

import time

from qosmodels.sim import simulate as simulate_module  # noqa: F401
from qosmodels.sim._kernels import layout as K
from qosmodels.sim.simulate import COMPILE_NOTE_AFTER, _ensure_compiled


class FakeKernel:
    """Stands in for the Numba dispatcher: no signatures until called, then slow or fast."""

    def __init__(self, seconds):
        self.signatures = []
        self.seconds = seconds
        self.calls = []

    def __call__(self, c, t_stop, budget):
        self.calls.append(t_stop)
        time.sleep(self.seconds)
        self.signatures.append("compiled")
        return K.ST_OK


def test_a_slow_first_call_prints_a_note_and_the_time(capsys):
    run = FakeKernel(COMPILE_NOTE_AFTER + 0.5)
    spent = _ensure_compiled(run, None, 1)
    err = capsys.readouterr().err
    assert "compiling the packet kernel once for this installation" in err
    assert "packet kernel compiled in" in err
    assert spent >= COMPILE_NOTE_AFTER + 0.5
    assert run.calls == [-1.0]  # t_stop = -1: no event is processed
    assert _ensure_compiled(run, None, 1) == 0.0  # compiled: nothing more
    assert run.calls == [-1.0]


def test_a_cache_load_is_silent(capsys):
    run = FakeKernel(0.0)
    _ensure_compiled(run, None, 1)
    assert capsys.readouterr().err == ""
