"""``compile_scenario``'s arrays on the fingerprint scenarios, held against stored digests.

Issue 33 splits ``compile_scenario`` into named phases and moves the per-mechanism route
rules behind their mechanisms; the compiled arrays must stay byte-identical.  The digests in
``tests/sim/data/compile_digests.json`` were written by :func:`digests` at the commit before
that restructuring (main at 90fa7e3), so they come from the code as it was, not from the
code under test.  Regenerate them only for a change that is meant to alter the arrays:

    python tests/sim/test_compile_phases.py write

The scenarios are those of ``benchmarks/fingerprint_sim.py`` (the benchmark dumbbells, the
four TCP rule sets with queued reverse links, 40 random mixed networks using every queue,
source and edge element), compiled with the options its ``dump`` simulates them with.
Compiling needs no Numba kernel, so the test takes a few seconds.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from qosmodels.sim import Record
from qosmodels.sim.compile import Compiled, compile_scenario

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data" / "compile_digests.json"


def _fingerprint():
    spec = importlib.util.spec_from_file_location(
        "fingerprint_sim", ROOT / "benchmarks" / "fingerprint_sim.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def digest(a) -> str:
    """SHA-256 of an array's dtype, shape and bytes (C order)."""
    a = np.ascontiguousarray(a)
    h = hashlib.sha256(f"{a.dtype.str}{a.shape}".encode())
    h.update(a.tobytes())
    return h.hexdigest()


def digests() -> dict[str, dict[str, str]]:
    """``{scenario: {field: digest}}`` of every fingerprint scenario's compiled arrays."""
    out = {}
    for name, net, duration, warmup, seed in _fingerprint().scenarios():
        c = compile_scenario(net, duration, seed=seed, warmup=warmup,
                             record=Record(interval=0.5, cwnd=True))
        out[name] = {field: digest(getattr(c, field)) for field in Compiled._fields}
    return out


@pytest.fixture(scope="module")
def now():
    return digests()


def test_every_scenario_and_field_is_compared(now):
    stored = json.loads(DATA.read_text())
    assert sorted(stored) == sorted(now)
    assert len(stored) == 4 + 8 + 40
    for name in stored:
        assert sorted(stored[name]) == sorted(Compiled._fields), name


def test_compiled_arrays_are_byte_identical_to_the_stored_digests(now):
    stored = json.loads(DATA.read_text())
    differ = [f"{name}.{field}" for name in stored for field in stored[name]
              if now.get(name, {}).get(field) != stored[name][field]]
    assert differ == []


def test_the_digest_sees_a_one_byte_change():
    a = np.zeros((3, 4))
    b = a.copy()
    b[2, 3] = 1e-300
    assert digest(a) != digest(b)
    assert digest(a) != digest(a.reshape(4, 3))  # shape counts
    assert digest(a) != digest(a.astype(np.int64))  # dtype counts


if __name__ == "__main__" and sys.argv[1:] == ["write"]:
    DATA.write_text(json.dumps(digests(), indent=1, sort_keys=True) + "\n")
    print(f"written {DATA}")
