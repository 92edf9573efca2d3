"""Two adjustments to Numba's code generation while the packet kernel compiles.

The kernel's handlers are Numba functions that LLVM inlines into the event
loop (:mod:`._kernels._jit`).  Numba compiles each of them as a library of its
own, and treats every library as something Python may call: it optimises the
library's module with everything it calls linked in, then generates its
machine code and registers it with the JIT engine.  For the kernel only the
loop's library (``engine.run``) is ever called; its module links in every
handler's, and is optimised and code-generated as a whole.  Within
:func:`kernel_build`:

1. **No machine code for the handlers' own libraries.**  A library other than
   the entry's is finalised without being handed to the JIT engine: its
   optimised module is still there for linking into its callers, but no
   machine code is generated for it, and Numba's executable wrapper for it (a
   Python-callable object that handlers, compiled without a Python entry
   point, never use) gets a null address, as it does for any function compiled
   with ``no_cpython_wrapper``.  Measured on the 2-vCPU machine of
   ``benchmarks/RESULTS.md``: the compile from scratch took 57 s instead of
   72 s, with the same machine code for the loop.
2. **Rare handlers stay real functions.**  The functions of
   :func:`._kernels._jit.rare_handler` get LLVM's ``noinline`` attribute;
   LLVM would otherwise inline most of them into the loop (each has one call
   site), which is what marking them rare is meant to avoid.

Neither changes what the kernel computes: outputs are bit-identical with and
without them (``benchmarks/fingerprint_sim.py``).  Both are undone on leaving
the block.  If the installed Numba lacks the methods they wrap (a later
version), nothing is changed and the kernel compiles as Numba ships it, only
slower.

**Threads.**  The adjustments replace methods of Numba's classes, which every
thread shares.  They are installed when the first block is entered (in any
thread) and removed when the last one is left, under a lock, so blocks may
nest and overlap across threads; and they act only for a thread inside a
block: another thread compiling anything meanwhile (a fluid kernel, a user's
function) gets Numba's own behaviour.  Numba itself compiles one function at
a time (its global compiler lock).
"""

from __future__ import annotations

import contextlib
import threading

#: Guards :data:`_active` and the installation of the adjustments.
_LOCK = threading.Lock()
#: Per thread inside a :func:`kernel_build` block, its blocks' ``(entry name, rare)``,
#: innermost last.
_active: dict[int, list[tuple[str, frozenset]]] = {}
#: Numba's own methods while the adjustments are installed (else None).
_saved: tuple | None = None


def _numba_parts():
    """Numba's classes and functions the adjustments wrap, or None if any is missing."""
    try:
        from numba import _dynfunc
        from numba.core.base import BaseContext
        from numba.core.codegen import CPUCodeLibrary
        from numba.core.cpu import CPUContext
    except ImportError:
        return None
    needed = [(BaseContext, "declare_function"), (CPUContext, "get_executable"),
              (CPUCodeLibrary, "_finalize_final_module"),
              (CPUCodeLibrary, "_finalize_dynamic_globals"),
              (CPUCodeLibrary, "_verify_declare_only_symbols")]
    if not all(callable(getattr(cls, name, None)) for cls, name in needed):
        return None
    return _dynfunc, BaseContext, CPUContext, CPUCodeLibrary


def available() -> bool:
    """Whether the installed Numba has what :func:`kernel_build` adjusts."""
    return _numba_parts() is not None


def _current():
    """The innermost block of the calling thread, ``(entry name, rare)``, or None."""
    stack = _active.get(threading.get_ident())
    return stack[-1] if stack else None


def _install(parts) -> None:
    """Replace Numba's methods by the adjusted ones (called under :data:`_LOCK`)."""
    global _saved
    _dynfunc, BaseContext, CPUContext, CPUCodeLibrary = parts
    declare = BaseContext.declare_function
    executable = CPUContext.get_executable
    finalize = CPUCodeLibrary._finalize_final_module
    _saved = (declare, executable, finalize)

    def declare_function(self, module, fndesc):
        fn = declare(self, module, fndesc)
        block = _current()
        if block is not None and not fndesc.inline and (fndesc.modname,
                                                         fndesc.qualname) in block[1]:
            fn.attributes.add("noinline")
        return fn

    def get_executable(self, library, fndesc, env):
        block = _current()
        if block is None or library.name == block[0]:
            return executable(self, library, fndesc, env)
        return _dynfunc.make_function(fndesc.lookup_module(), fndesc.qualname.split(".")[-1],
                                      f"{fndesc.qualname}, linked into {block[0]} only",
                                      0, env, (library,))

    def finalize_final_module(self):
        block = _current()
        if block is None or self.name == block[0]:
            return finalize(self)
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True

    BaseContext.declare_function = declare_function
    CPUContext.get_executable = get_executable
    CPUCodeLibrary._finalize_final_module = finalize_final_module


def _restore(parts) -> None:
    """Put Numba's own methods back (called under :data:`_LOCK`)."""
    global _saved
    _, BaseContext, CPUContext, CPUCodeLibrary = parts
    (BaseContext.declare_function, CPUContext.get_executable,
     CPUCodeLibrary._finalize_final_module) = _saved
    _saved = None


@contextlib.contextmanager
def kernel_build(entry, rare):
    """Within the block, compiling the Numba dispatcher ``entry`` in this thread generates
    machine code for its library only, and the functions named in ``rare`` (``(module,
    qualname)`` pairs) are never inlined.  Blocks may nest and overlap across threads; see
    the module docstring.  Anything else than a dispatcher as ``entry`` (a stand-in in a
    test) changes nothing."""
    parts = _numba_parts()
    py_func = getattr(entry, "py_func", None)
    if parts is None or py_func is None:
        yield
        return
    me = threading.get_ident()
    with _LOCK:
        if not _active:
            _install(parts)
        _active.setdefault(me, []).append((py_func.__qualname__, frozenset(rare)))
    try:
        yield
    finally:
        with _LOCK:
            stack = _active[me]
            stack.pop()
            if not stack:
                del _active[me]
            if not _active:
                _restore(parts)
