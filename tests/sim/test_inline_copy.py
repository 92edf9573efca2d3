"""The compile-time swap of Numba's inliner copy (qosmodels.sim._inline_copy)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from numba.core import inline_closurecall as icc

from qosmodels.sim import _inline_copy


def test_the_installed_numba_has_the_line_the_swap_replaces():
    # If this fails, a newer Numba changed InlineWorker.inline_ir: the packet kernel still
    # compiles, as Numba ships it, but about 1.5x slower and with 1.5x the memory
    # (benchmarks/RESULTS.md); look at the new method before changing _PER_BLOCK.
    assert _inline_copy.available()


def test_the_swap_lasts_the_block_and_is_undone_on_error():
    original = icc.InlineWorker.__dict__["inline_ir"]
    with _inline_copy.shared_memo_inlining():
        assert icc.InlineWorker.inline_ir is not original
    assert icc.InlineWorker.__dict__["inline_ir"] is original
    with pytest.raises(RuntimeError, match="inside"):
        with _inline_copy.shared_memo_inlining():
            raise RuntimeError("inside")
    assert icc.InlineWorker.__dict__["inline_ir"] is original


def test_without_the_line_nothing_is_swapped(monkeypatch):
    monkeypatch.setattr(_inline_copy, "_PER_BLOCK", "a line no Numba has\n")
    monkeypatch.setattr(_inline_copy, "_patched", None)
    assert not _inline_copy.available()
    original = icc.InlineWorker.__dict__["inline_ir"]
    with _inline_copy.shared_memo_inlining():
        assert icc.InlineWorker.__dict__["inline_ir"] is original


@njit(inline="always")
def _clip_sum(a, lo, hi):
    # several blocks and a loop: a callee whose copy spans blocks
    s = 0.0
    for x in a:
        if x < lo:
            s += lo
        elif x > hi:
            s += hi
        else:
            s += x
    return s


@njit(inline="always")
def _twice(a, lo, hi):
    return _clip_sum(a, lo, hi) - 2.0 * _clip_sum(a, hi, hi + 1.0)  # the same callee, two sites


def _caller(a, lo, hi):
    t = 0.0
    for k in range(3):
        t += _twice(a, lo + k, hi) if k % 2 else _clip_sum(a, lo, hi + k)
    return t


def _reference(a, lo, hi):
    # the same sums in numpy, without the helpers
    def clip(l, h):  # the helper's order: below l first, then above h (l > h happens)
        return float(np.where(a < l, l, np.where(a > h, h, a)).sum())

    return sum((clip(lo + k, hi) - 2.0 * clip(hi, hi + 1.0)) if k % 2 else clip(lo, hi + k)
               for k in range(3))


def test_code_inlined_under_the_swap_computes_what_numpy_computes():
    compiled = njit(_caller)
    with _inline_copy.shared_memo_inlining():
        compiled.compile("(float64[:], float64, float64)")
    rng = np.random.default_rng(7)
    for _ in range(20):
        a = rng.normal(size=rng.integers(0, 30))
        lo, hi = sorted(rng.normal(size=2))
        assert compiled(a, lo, hi) == pytest.approx(_reference(a, lo, hi), rel=1e-12, abs=1e-12)
