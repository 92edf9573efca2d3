"""A software prefetch for the fluid kernel: a hint to the CPU, no effect on any value.

``prefetch(a, i)`` asks the cache to fetch the line holding element ``i`` of the flat,
C-contiguous array ``a`` (LLVM's ``llvm.prefetch`` intrinsic, locality 3, data cache); a
prefetch never faults and changes nothing the program computes, only when memory arrives.
The fluid integrator (:mod:`qosmodels.fluid._kernels`) reads, every step, one short slice of
an old row of its per-hop history for each of a thousand links, at a row that depends on the
link's delay: slices too short for the hardware prefetcher to follow, so each line waited on
memory (issue 37, measured in ``benchmarks/RESULTS.md``).  Asking for the next links' slices
while the current one is processed hides that wait.  Under ``NUMBA_DISABLE_JIT=1`` it is a
Python function that does nothing.
"""

from __future__ import annotations

from numba import config, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["prefetch", "prefetch_range"]


def _prefetch_py(a, i):  # pragma: no cover - used only without the JIT
    return None


if config.DISABLE_JIT:  # pragma: no cover - exercised by the pure-Python test run
    prefetch = _prefetch_py
else:
    from llvmlite import ir

    @intrinsic
    def prefetch(typingctx, a, i):
        """Prefetch the cache line of element ``i`` (an integer) of the 1-D or C-contiguous
        array ``a`` (indexed as flat)."""
        if not isinstance(a, types.Array) or not isinstance(i, types.Integer):
            return None
        sig = types.void(a, i)

        def codegen(context, builder, signature, args):
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            idx = context.cast(builder, args[1], signature.args[1], types.intp)
            ptr = builder.gep(ary.data, [idx])
            i8p = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
            # (address, rw = 0 read, locality = 3 keep in all levels, cache type = 1 data)
            builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0),
                              ir.Constant(i32, 3), ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return sig, codegen


@njit(inline="always", cache=True, _nrt=False)
def prefetch_range(a, lo, hi):
    """Prefetch elements ``lo`` to ``hi - 1`` of the flat float64 array ``a``: one request
    per 64-byte line (8 elements)."""
    for i in range(lo, hi, 8):
        prefetch(a, i)
    if hi > lo:
        prefetch(a, hi - 1)
