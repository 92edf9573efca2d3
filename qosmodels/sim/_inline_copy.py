"""Numba's inliner with one copy per callee, not one per block: a compile-time workaround.

The packet kernel is one function with its handlers inlined at Numba's IR
level (:mod:`._jit`).  To inline a callee, Numba's ``InlineWorker.inline_ir``
deep-copies the callee's IR block by block, each block with a fresh
``copy.deepcopy`` memo.  Every variable refers to the function's ``Scope``,
which holds every variable, so each block's copy copies the whole scope again:
the cost grows as blocks x variables, and the kernel's handlers, each already
holding the handlers it inlines, have hundreds of blocks and thousands of
variables.  A profile of a compile from scratch (Numba 0.68.1) spent 55% of
its time in these copies (25 million ``Var.__deepcopy__`` calls).  Upstream
knows the copying is costly (numba/numba#8989, #9204, #9245;
NVIDIA/numba-cuda#688) and has not changed it.

:func:`shared_memo_inlining` swaps in, for the duration of a ``with`` block,
the same method with one memo shared by all blocks of one copy, so the scope
and each variable are copied once per copy.  The copy is then shaped as the
frontend builds IR (all blocks share one scope and each name one ``Var``),
which is what the rest of the inliner expects.  It changes what is compiled
in no way: the simulator's outputs are bit-identical with and without it
(``benchmarks/fingerprint_sim.py``).  Measured on the 2-vCPU machine of
``benchmarks/RESULTS.md``: a compile from scratch took 152 s and 1.88 GB
instead of 230 s and 2.76 GB.

The replacement is built from Numba's own source of the method with that one
line changed.  If the source is not available or no longer has that line (a
later Numba), nothing is swapped and the compile proceeds as Numba ships it,
only slower.  The swap is undone on leaving the block, so other Numba code in
the process compiles with Numba's own method.
"""

from __future__ import annotations

import contextlib
import inspect
import textwrap

_PER_BLOCK = """\
        for block_label, block in the_ir.blocks.items():
            new_block = copy.deepcopy(the_ir.blocks[block_label])
"""
_SHARED = """\
        memo = {}  # qosmodels: one memo for the whole copy
        for block_label, block in the_ir.blocks.items():
            new_block = copy.deepcopy(the_ir.blocks[block_label], memo)
"""

_patched = None  # the replacement method once built; False if it cannot be


def _build():
    """Numba's ``InlineWorker.inline_ir`` with a shared memo, or None."""
    try:
        from numba.core import inline_closurecall as icc

        source = textwrap.dedent(inspect.getsource(icc.InlineWorker.inline_ir))
    except (ImportError, AttributeError, OSError, TypeError):
        return None
    if source.count(_PER_BLOCK) != 1:
        return None
    namespace: dict = {}
    code = compile(source.replace(_PER_BLOCK, _SHARED), icc.__file__, "exec")
    exec(code, dict(icc.__dict__), namespace)  # noqa: S102 - Numba's own source, one line changed
    return namespace.get("inline_ir")


def available() -> bool:
    """Whether the installed Numba's inliner can be swapped (see the module docstring)."""
    global _patched
    if _patched is None:
        _patched = _build() or False
    return bool(_patched)


@contextlib.contextmanager
def shared_memo_inlining():
    """Within the block, Numba's inliner copies each callee's IR with one memo."""
    if not available():
        yield
        return
    from numba.core import inline_closurecall as icc

    original = icc.InlineWorker.__dict__["inline_ir"]
    icc.InlineWorker.inline_ir = _patched
    try:
        yield
    finally:
        icc.InlineWorker.inline_ir = original
