"""The first run of a fresh installation says it is compiling and reports it apart."""

from __future__ import annotations

import time

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


def test_kernel_digest_changes_with_any_kernel_source(tmp_path):
    import importlib
    import shutil
    from pathlib import Path

    from qosmodels.sim.simulate import kernel_sources_digest

    pkg = Path(importlib.import_module("qosmodels").__file__).parent
    src = pkg / "sim" / "_kernels"
    shutil.copytree(pkg, tmp_path / "qosmodels", ignore=shutil.ignore_patterns("__pycache__"))
    dst = tmp_path / "qosmodels" / "sim" / "_kernels"
    base = kernel_sources_digest(dst)
    assert base == kernel_sources_digest(src)
    red = dst / "queues" / "red.py"
    red.write_text(red.read_text() + "\n# an edit in a handler module\n")
    assert kernel_sources_digest(dst) != base


def test_kernel_digest_follows_the_build(tmp_path):
    # the build's adjustments decide what LLVM inlines into the kernel (session 48: a fix
    # there made RED's admission inlined again): an edit there must flush the cache
    import importlib
    import shutil
    from pathlib import Path

    from qosmodels.sim.simulate import kernel_sources_digest

    pkg = Path(importlib.import_module("qosmodels").__file__).parent
    shutil.copytree(pkg, tmp_path / "qosmodels", ignore=shutil.ignore_patterns("__pycache__"))
    dst = tmp_path / "qosmodels" / "sim" / "_kernels"
    base = kernel_sources_digest(dst)
    build = dst.parent / "_build.py"
    build.write_text(build.read_text() + "\n# an edit in the build's adjustments\n")
    assert kernel_sources_digest(dst) != base


class FakeCache:
    def __init__(self, path):
        self._cache_path = str(path)
        self.flushed = 0
        self._cache_file = type("IndexFile", (), {"_index_path": str(path / "run.nbi")})()

    def flush(self):
        self.flushed += 1


def test_a_stale_cache_is_flushed_once(tmp_path):
    from qosmodels.sim.simulate import _drop_stale_cache

    run = FakeKernel(0.0)
    run._cache = FakeCache(tmp_path)
    assert not _drop_stale_cache(run)  # no stamp yet: flush, write the stamp
    assert run._cache.flushed == 1
    assert not _drop_stale_cache(run)  # same sources: keep the cache (no index: nothing to load)
    assert run._cache.flushed == 1
    (tmp_path / "run.nbi").write_text("index")
    assert _drop_stale_cache(run)  # same sources and an index: the first call loads
    (tmp_path / "qosmodels-kernel-sources.sha256").write_text("something else\n")
    assert not _drop_stale_cache(run)  # sources changed since: flush
    assert run._cache.flushed == 2


def test_a_slow_cache_load_says_loading_not_compiling(tmp_path, capsys, monkeypatch):
    import importlib

    S = importlib.import_module("qosmodels.sim.simulate")
    monkeypatch.setattr(S, "COMPILE_NOTE_AFTER", 0.1)
    monkeypatch.setattr(S, "_drop_stale_cache", lambda run: True)  # a current cache is there
    S._ensure_compiled(FakeKernel(0.4), None, 1)
    err = capsys.readouterr().err
    assert "loading the packet kernel from Numba's cache" in err and "compiling" not in err
    assert err.splitlines()[-1].startswith("qosmodels: packet kernel loaded in")


def test_compile_kernel_leaves_nothing_for_simulate_to_compile():
    from qosmodels import Flow, Link, Network, simulate
    from qosmodels.sim import compile_kernel
    from qosmodels.sim._kernels.engine import run

    assert compile_kernel() >= 0.0
    assert len(run.signatures) == 1
    r = simulate(Network([Link("x", "y", 5e6, 0.002, buffer=7)], [Flow(["x", "y"])] * 2), 0.5,
                 seed=3)
    assert r.compile_time == 0.0 and len(run.signatures) == 1  # the same signature
    assert compile_kernel() == 0.0


def test_kernel_digest_follows_the_package_modules_compiled_into_the_kernel(tmp_path):
    # the ABE router compiles qosmodels.abe.law_step: an edit there must flush the cache
    import importlib
    import shutil
    from pathlib import Path

    from qosmodels.sim.simulate import kernel_sources_digest

    pkg = Path(importlib.import_module("qosmodels").__file__).parent
    dst = tmp_path / "qosmodels"
    shutil.copytree(pkg, dst, ignore=shutil.ignore_patterns("__pycache__"))
    kernels = dst / "sim" / "_kernels"
    base = kernel_sources_digest(kernels)
    assert base == kernel_sources_digest(pkg / "sim" / "_kernels")
    abe = dst / "abe.py"
    abe.write_text(abe.read_text() + "\n# an edit in the law the ABE router compiles\n")
    assert kernel_sources_digest(kernels) != base
    other = dst / "fairness.py"  # imported by no kernel module
    edited = kernel_sources_digest(kernels)
    other.write_text(other.read_text() + "\n# an edit the kernel does not see\n")
    assert kernel_sources_digest(kernels) == edited


def test_kernel_digest_follows_numba_version(monkeypatch):
    import numba

    from qosmodels.sim.simulate import kernel_sources_digest

    base = kernel_sources_digest()
    monkeypatch.setattr(numba, "__version__", numba.__version__ + ".post1")
    assert kernel_sources_digest() != base


def test_a_long_compile_shows_its_time_so_far(capsys, monkeypatch):
    import importlib

    S = importlib.import_module("qosmodels.sim.simulate")

    monkeypatch.setattr(S, "COMPILE_NOTE_AFTER", 0.1)
    monkeypatch.setattr(S, "COMPILE_PROGRESS_EVERY", 0.2)
    run = FakeKernel(0.75)
    S._ensure_compiled(run, None, 1)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "still compiling the packet kernel" in ln]
    assert 2 <= len(lines) <= 4, err
    assert lines[0].endswith("s so far")
    assert err.splitlines()[-1].startswith("qosmodels: packet kernel compiled in")
