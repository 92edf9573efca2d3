"""The decorators every kernel handler carries.

Handlers are module-level functions that LLVM inlines into the event loop:
``forceinline=True`` gives each Numba function LLVM's ``alwaysinline``
attribute, so the loop ends up one function, as when the handlers were closures
of ``run``, not calls passing dozens of array descriptors (measured 1.8-2.0x
slower on the benchmark dumbbells).  Numba types and lowers each handler once;
its own IR-level inlining (``inline="always"``, used here before) copied and
retyped every callee at every call site, which made most of the compile: the
switch (with :mod:`qosmodels.sim._build`) took a compile from scratch from
137 s and 0.81 GB to 54 s and 0.45 GB on one machine, with the run time the
same within noise and bit-identical outputs (benchmarks/RESULTS.md, "Inlining
by LLVM").

Numba passes the loop's flags on to a callee only when the callee is first
compiled from within the loop's compile, so each handler carries them itself:
no reference counting (``_nrt=False``; the kernel allocates
nothing, and borrowed arrays are safe), the numpy error model (no
zero-division checks), and no Python or C entry point (``no_cpython_wrapper``,
``no_cfunc_wrapper``): only jitted code calls a handler.  The tests call one
from Python through a jitted trampoline (``tests/sim/jitcall.py``).
"""

from numba import njit

from . import _byref  # noqa: F401  (the state passed by reference: see the module)

_FLAGS = dict(error_model="numpy", _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)

#: Decorator of kernel handlers: ``@handler`` on a module-level function.
handler = njit(forceinline=True, **_FLAGS)

#: The largest int64: an index and-ed with it is known to the compiler to be >= 0,
#: so Numba's negative-index wraparound code goes (indices are never negative;
#: a -1 sentinel is tested before masking).
POS = 0x7FFFFFFFFFFFFFFF

#: ``(module, qualified name)`` of every :func:`rare_handler`.  The kernel's
#: build (``qosmodels.sim._build``) gives their functions LLVM's ``noinline``
#: attribute: LLVM would otherwise inline most of them, each having one call site.
RARE: set = set()


def rare_handler(fn):
    """Decorator of handlers that run rarely (a flow's start and stop, sampling,
    timers that fire), and of the per-packet handlers of mechanisms off the
    NewReno / drop-tail / RED path (fair queueing's admit, store and select;
    DECbit's, AVQ's, ABE's, TRED's and RIO's admit; the window, DECbit,
    TCP-friendly, ACC, Vegas and web sources' ACK handlers, ...): compiled once
    as real functions that the loop calls, which keeps the loop's machine code
    short where it runs for every packet (moving the first eight out took 15%
    off the benchmark's drop-tail run; benchmarks/RESULTS.md).

    ``forceinline=False`` is explicit: Numba would otherwise inherit a
    handler's ``forceinline`` when the rare handler is first compiled as its
    callee.
    """
    RARE.add((fn.__module__, fn.__qualname__))
    return njit(forceinline=False, **_FLAGS)(fn)
