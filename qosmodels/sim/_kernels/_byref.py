"""The kernel's state passed to a handler by reference, not as its scalars.

Every handler takes the whole state ``S`` (``qosmodels.sim.compile.Compiled``, a named tuple
of 42 arrays).  Numba passes a tuple argument flattened into its members' scalars, and an
array is seven of them (meminfo, parent, size, item size, data, shape, strides): about 340
arguments.  Each call site extracted them one by one from the tuple and each function
rebuilt the tuple from them, so the IR that Numba built in Python, printed as text and LLVM
parsed and optimised again carried some 700 instructions per call and per function, for
about 1,100 call sites and 430 functions in the whole kernel.

Here a named tuple whose class carries ``__qosmodels_state__ = True`` (``Compiled``) gets a
data model whose argument is one pointer to the tuple's value:

* a function that receives the state loads the value at its entry, once (where Numba
  rebuilt it from the scalars before), and every use of a variable holding it is that
  value: the variable gets no slot in the frame (:func:`_patch_lowering`; Numba would
  store the whole tuple in one and load all of it again in each block that reads a
  member, which LLVM's SROA and mem2reg then took apart in every function);
* a call passes on the pointer its caller received.  Every value of the state's type in a
  kernel function is the caller's own ``S``: no kernel code builds a state
  (``tests/sim/test_byref.py`` checks the sources), and a tuple's members never change.
  Where the caller received none (Numba's Python entry point of ``engine.run``, a test's
  trampoline), the value is stored in the caller's stack frame and that address passed.

A state argument is ``noalias`` (nothing writes the state's memory while a kernel function
runs, so no other pointer reaches it) and ``dereferenceable`` by the tuple's size, and its
load is ``!invariant.load``: LLVM keeps the members it loaded across the handlers' stores to
the arrays' data and may hoist a member's load out of a branch or the event loop, as it kept
the scalars before, and a handler left a real function (a rare handler) loads the few
members it reads.  (Passing an inlined callee the caller's own value, stored in the caller's
frame, instead took the whole kernel's compile from 80 to 187 s of CPU: session 54.)  What
is computed does not change (``benchmarks/fingerprint_sim.py``).

Where the tuple is stored in a frame (Numba's entry point, a test's trampoline, into which a
handler may be inlined), the slot is allocated without Numba's usual zero fill
(``cgutils.alloca_once``) and stored once, so the memory an ``!invariant.load`` reads holds
one value wherever it can be read.

The model is installed once per process, when the first kernel module is imported (by
:mod:`._jit`), and stays: every function compiled in the process with a state argument,
within the kernel's build or not (a test's trampoline), passes it the same way, so code
compiled anywhere links with code compiled anywhere.  Numba's cached kernels are keyed by
the digest of the kernel's sources (``qosmodels.sim._digest``), which covers this module.
With a Numba whose data model registry lacks what this relies on, nothing is installed
and the state is passed as Numba ships it.
"""

from __future__ import annotations

import threading

#: The attribute that marks a named tuple class as the kernel's state.
MARK = "__qosmodels_state__"
#: The attribute of an LLVM function holding the state it received: the pointer and the value
#: loaded from it (None when it received two states: then nothing is passed on or held).
_RECEIVED = "_qosmodels_state"
#: The attribute of a Numba lowering holding the names of its variables of a state's type.
_NAMES = "_qosmodels_state_names"

#: LLVM attributes of a state pointer argument (what LLVM cannot infer: that no other
#: pointer in the function reaches the state's memory, ``noalias``; it infers ``readonly``).
ARGUMENT_ATTRIBUTES = ("noalias", "nonnull")

_LOCK = threading.Lock()


def _received(fn):
    """``(pointer, value)`` of the state LLVM function ``fn`` received (None: none, or two)."""
    return fn.__dict__.get(_RECEIVED)


def is_state(fe_type) -> bool:
    """Whether the Numba type ``fe_type`` is a kernel state (a marked named tuple)."""
    return bool(getattr(getattr(fe_type, "instance_class", None), MARK, False))


def _model_class(base):
    """The data model of a state: ``base`` (Numba's tuple model) with a pointer argument."""
    from numba.core import debuginfo
    from numba.core.registry import cpu_target

    class StateModel(base):
        def abi_size(self) -> int:
            """The tuple's size in bytes (Numba's CPU target data), once per state type."""
            size = self.__dict__.get("_abi_size")
            if size is None:
                size = self._abi_size = cpu_target.target_context.get_abi_sizeof(
                    self.get_value_type())
            return size

        def get_argument_type(self):
            return self.get_value_type().as_pointer()

        def as_argument(self, builder, value):
            received = _received(builder.function)
            if received is not None and received[0].type.pointee == value.type:
                return received[0]
            # a slot in the frame, stored once: no zero fill first (cgutils.alloca_once's),
            # so the memory a callee's !invariant.load reads holds one value only
            with debuginfo.suspend_emission(builder), builder.goto_entry_block():
                ptr = builder.alloca(value.type)
            builder.store(value, ptr)
            return ptr

        def from_argument(self, builder, value):
            fn = builder.function
            first = _RECEIVED not in fn.__dict__
            if first:
                # nothing writes the state's memory while a kernel function runs, so its
                # pointer aliases nothing that is written: LLVM may keep the members it
                # loaded in registers across the handlers' stores to the arrays' data
                for attr in ARGUMENT_ATTRIBUTES:
                    value.add_attribute(attr)
                # and all of it readable anywhere in the function: LLVM may hoist a load of
                # a member (invariant, below) out of a branch and out of the event loop
                value.attributes.dereferenceable = self.abi_size()
            state = builder.load(value)
            # the memory never changes while the kernel runs: where LLVM inlines the
            # function, this load is the caller's (its value reused, wherever it is)
            state.set_metadata("invariant.load", builder.module.add_metadata([]))
            fn.__dict__[_RECEIVED] = (value, state) if first else None
            return state

    StateModel.__qualname__ = f"StateModel[{base.__name__}]"
    return StateModel


def _held(lower, name):
    """The state value variable ``name`` of the function that ``lower`` lowers holds, when
    the variable needs no stack slot (see :func:`_patch_lowering`); else None."""
    received = _received(lower.function)
    if received is None or lower.context.enable_nrt:
        return None
    names = lower.__dict__.get(_NAMES)
    if names is None:
        names = lower.__dict__[_NAMES] = frozenset(
            n for n, t in lower.fndesc.typemap.items() if is_state(t))
    return received[1] if name in names else None


def _patch_lowering(lowering) -> None:
    """A variable of a state's type holds the function's received state without a slot.

    Numba gives a variable used in more than one block a slot in the frame and loads it at
    every use: for ``S``, a load of the whole tuple (42 arrays, about 300 scalars) per
    block that reads a member, which LLVM's SROA and mem2reg then split into the scalars
    and promote, one slot per scalar, in every function's optimisation (most of what those
    passes cost the kernel's compile).  Every value of a state's type in a function that
    received one state is that state (no kernel code makes one), and the value loaded at
    the function's entry is in scope everywhere in it: a use of the variable is that value,
    an assignment stores nothing, and the variable has no slot.  Functions compiled with
    Numba's reference counting (none in the kernel; a test's trampoline may be) and those
    that received two states keep Numba's slots.
    """
    Lower = getattr(lowering, "Lower", None)
    names = ("_alloca_var", "loadvar", "storevar", "delvar")
    if Lower is None or not all(callable(getattr(Lower, n, None)) for n in names):
        return  # a Numba without these: every variable keeps its slot, as Numba ships it
    if getattr(Lower.loadvar, MARK, False):
        return  # patched (by this module or a kernel variant's copy of it)
    alloca_var, loadvar, storevar, delvar = (
        Lower._alloca_var, Lower.loadvar, Lower.storevar, Lower.delvar)

    def _alloca_var(self, name, fetype):
        if _held(self, name) is None:
            alloca_var(self, name, fetype)

    def load(self, name):
        value = _held(self, name)
        return loadvar(self, name) if value is None else value

    def store(self, value, name, argidx=None):
        held = _held(self, name)
        if held is None:
            return storevar(self, value, name, argidx)
        if value is not held:
            raise RuntimeError(
                f"qosmodels.sim._kernels._byref: {self.fndesc.qualname} assigns to {name!r} "
                f"a state other than the one it received; kernel code must pass on the state "
                f"it received (see the module's docstring)")

    def delete(self, name):
        if _held(self, name) is None:
            delvar(self, name)

    for fn in (_alloca_var, load, store, delete):
        setattr(fn, MARK, True)
    Lower._alloca_var, Lower.loadvar, Lower.storevar, Lower.delvar = (
        _alloca_var, load, store, delete)


def install() -> bool:
    """Give kernel states the by-reference data model in Numba's default registry (once per
    process); False when the installed Numba lacks what this relies on."""
    try:
        from numba.core import lowering, types
        from numba.core.datamodel import default_manager
    except ImportError:  # pragma: no cover - Numba is a dependency
        return False
    handlers = getattr(default_manager, "_handlers", None)
    cache = getattr(default_manager, "_cache", None)
    if not isinstance(handlers, dict) or not hasattr(cache, "keys"):
        return False  # (the cache is a WeakKeyDictionary in Numba 0.68)
    with _LOCK:
        original = handlers.get(types.NamedTuple)
        if original is None:
            return False
        if getattr(original, MARK, False):
            return True  # installed (by this module or a kernel variant's copy of it)
        state_model = _model_class(original)

        def handler(dmm, fe_type):
            return (state_model if is_state(fe_type) else original)(dmm, fe_type)

        setattr(handler, MARK, True)
        handler.original = original
        handlers[types.NamedTuple] = handler
        for key in [k for k in list(cache.keys()) if is_state(k)]:  # typed before: none
            del cache[key]
        _patch_lowering(lowering)
    return True


INSTALLED = install()
