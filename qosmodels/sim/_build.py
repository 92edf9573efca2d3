"""Eleven adjustments to Numba's code generation while the packet kernel compiles.

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
   site), which is what marking them rare is meant to avoid.  A rare handler is named by
   its module and qualified name; an inlined handler compiled from the same Python
   function (``queues.red.admit_divided`` beside its real copy ``admit_divided_call``)
   is not rare (:func:`_is_rare`).
3. **Each rare handler's code optimised once.**  A library that calls a rare
   handler would link in the rare handler's optimised module (with everything
   *it* calls), and LLVM's module passes would run over those functions again
   in every library above it, up to the loop: a rare handler's body was
   optimised once per library on its path to the loop, though a ``noinline``
   function with a definition LLVM may replace (``linkonce_odr``) gets nothing
   from its callers' optimisation.  Within the block, a rare handler's library
   is not linked into its callers' libraries: they keep only its declaration
   (which Numba's lowering writes anyway), and the entry's library links in
   every rare handler's module once its own module is optimised, just before
   its machine code is generated.  The libraries that left a rare handler out, or
   link one that did (so that their module only declares it), are completed when
   something outside the block links them (a test's trampoline), so they stay usable
   as Numba's own.

4. **Numba's compile options compared faster.**  Numba looks up every call of
   an overloaded function during type inference in a cache keyed by the
   compile's options (a ``Flags``), whose ``==`` built two dictionaries of
   all 22 options each time and whose hash sorts their names: about 220,000
   comparisons and 135,000 hashes for the whole kernel, some 8-10 s of a
   compile.  Within the block (for every thread: the results are the same),
   two options of the same class compare the values of the options either sets
   (an option neither sets is at its default in both), and a class's hash,
   which depends on its option names only, is computed once; options of
   different classes go to Numba's own methods.
5. **The kernel's state has a named LLVM type.**  Every handler takes the whole state
   ``S`` (a tuple of 42 arrays), which Numba passes as its ~340 scalars: at each call
   site it extracts them, and in each handler it rebuilds the tuple, one instruction per
   array whose IR text spelt out the tuple's whole type (some 2,000 characters): about
   100 KB of IR text per call site, printed by llvmlite and parsed again by LLVM.
   Within the block a struct value type of :data:`NAMED_STRUCT` members or more is an
   identified LLVM type (``%"qosmodels.state.<digest>"``, declared once per module)
   with the same members; the function signatures do not change, so code compiled
   outside the block links with code compiled inside (they carried the scalars; since
   session 54 the state's pointer, ``_kernels/_byref.py``, which LLVM's opaque pointers
   do not tell apart by what they point to).  Core variant from empty caches, side by
   side (session 47): 26.1 s of CPU against 27.8 s without it.

6. **A handler left a real function is passed only what it reads.**  Once the entry's
   module has every library's code linked in (adjustment 3 for the rare handlers), the
   functions that came from other libraries are made local to it (``internal``: nothing
   else calls them, their own libraries having no machine code) and LLVM's dead argument
   elimination, then a dead code pass, run over it (:func:`_shrink_calls`): each call of a
   rare handler, or of a handler LLVM chose not to inline, stops passing the ~340 scalars
   of ``S`` that it never reads.  Whole kernel, 8-flow dumbbell, 1000 s, paired (session
   49): PIE 0.46-0.51, CoDel 0.55-0.67, FQ-CoDel 0.48-0.55 and BBRv1 0.37-0.44 of the time
   before, drop-tail and RED unchanged within noise; compile time the same within noise.
   Since session 54 ``S`` itself is one pointer (``_kernels/_byref.py``, installed for the
   whole process, not by this block), and the pass drops the other parameters a function
   never reads.
7. **A call's signature resolved once.**  Type inference, and lowering after it, resolve
   each operator, builtin or overloaded function call (``a + b``, ``min``, ``arr[i]``)
   by trying the function's typing templates in turn, most of which fail (for ``+``
   about ten, each building its error message) until one matches.  The kernel's
   ~430 functions ask about 30,000 times for some 1,350 distinct questions (the
   function, its argument types, the compile's options).  Within the block a resolved
   signature is remembered for the same question and given again (to threads inside a
   block only; a call that fails is not remembered and fails as Numba's does).
   Measured with adjustment 4's change above (session 55, benchmarks/RESULTS.md).
8. **A type's size computed once.**  Lowering asks for the ABI size of each variable's LLVM
   type (for debugging information, which the kernel does not emit), and llvmlite answers
   by printing a module holding a global of that type and parsing it with LLVM: about 2 %
   of a compile.  Within the block a size is remembered per (context, type, and for an
   identified struct its body).
9. **No events for LLVM's lock.**  Numba broadcasts an event on every call into LLVM
   (taking and releasing llvmlite's lock) to a timer per compile in progress, and the
   kernel's compiles nest about a dozen deep: some 3 % of a compile.  Within the block the
   thread's calls send none (Numba's callbacks still run for other threads); the only
   effect is that the ``llvm_lock`` time in the metadata of the functions compiled in the
   block (``dispatcher.get_metadata(sig)["timers"]``) leaves out LLVM's time.
10. **Two lookups whose answer cannot change, made once.**  Lowering a call asks whether
    its implementation takes a ``loc`` argument by building the function's
    :func:`inspect.signature` (about 1.3 % of a compile); and each array indexed builds a
    proxy that first asks for an ``__array__`` lowering of the array's type, which Numba
    has only for array-like types of other libraries: for a NumPy array the lookup fails,
    reloads every registry of lowerings and fails again (about 2 %).  Within the block the
    first answer is remembered per implementation, and the failure per (context, array
    type) for Numba's own ``Array`` type only.
11. **Two passes skipped where they have nothing to do.**  Numba's ``InlineClosureLikes``
    (closures, list comprehensions made arrays, ``reduce``, stencils) and
    ``NopythonRewrites`` (items indexed by a string literal, array expressions) each compute
    the function's variable lifetimes twice and walk its loops, about 2.8 % and 2.6 % of a
    compile, and leave every kernel function as it was.  Within the block a function none
    of whose statements they act on (:func:`_nothing_to_inline`, :func:`_nothing_to_rewrite`)
    skips them; the next pass that needs lifetimes computes them again as before.

Tried and not kept (session 47, benchmarks/RESULTS.md): leaving an inlined handler's
library (every function it defines ``alwaysinline``) without LLVM's module passes of its
own, its code being optimised again where it is inlined: the core variant's compile took
4 % less CPU, but the benchmark drop-tail dumbbell's loop ran 3.6 % slower (median of 9
pairs, all 9 slower; LLVM's pipeline run once over the inlined code optimises it less
well than run at each level); without the function passes too the whole kernel took
133 s of CPU and twice the memory.

None of them changes what the kernel computes: outputs are bit-identical with and
without them (``benchmarks/fingerprint_sim.py``).  All are undone on leaving
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
import functools
import hashlib
import threading

#: Guards :data:`_active` and the installation of the adjustments.
_LOCK = threading.Lock()
#: Per thread inside a :func:`kernel_build` block, its blocks (:class:`_Block`), innermost
#: last.
_active: dict[int, list[_Block]] = {}
#: While the adjustments are installed (else None): ``(owner, attribute, Numba's own)`` for
#: each method replaced, and Numba's callbacks on LLVM's lock with their replacements.
_saved: tuple | None = None
#: Adjustment 7: the calls resolved within blocks, ``(function type, typing context,
#: argument types, keyword types, compile options)`` to signature; emptied on restoring.
_resolved: dict = {}
#: Adjustment 8: the ABI sizes of LLVM types asked for within blocks, by ``(context, type,
#: its body if it is an identified struct)``; emptied on restoring.
_sizes: dict = {}
#: Adjustment 10: whether each lowering implementation takes ``loc`` (Numba's ``_has_loc``),
#: and the ``(context, array type)`` pairs that have no ``__array__`` lowering; emptied on
#: restoring.
_takes_loc: dict = {}
_no_array: set = set()


def _llvm_callbacks():
    """The list of callbacks llvmlite runs on taking and releasing its lock, or None."""
    try:
        from llvmlite.binding import ffi
    except ImportError:
        return None
    return getattr(getattr(getattr(ffi, "lib", None), "_lock", None), "_cblist", None)


#: llvmlite's callbacks on its lock (adjustment 9), Numba's among them.
_CALLBACKS = _llvm_callbacks()


def _numba_parts():
    """Numba's classes and functions the adjustments wrap, or None if any is missing."""
    try:
        from numba import _dynfunc
        from numba.core import base as numba_base
        from numba.core.base import BaseContext
        from numba.core.codegen import CPUCodeLibrary
        from numba.core.cpu import CPUContext
        from numba.core.datamodel.models import StructModel
        from numba.core.targetconfig import ConfigStack, TargetConfig
        from numba.core.typed_passes import NopythonRewrites
        from numba.core.types.functions import BaseFunction
        from numba.core.untyped_passes import InlineClosureLikes
    except ImportError:
        return None
    needed = [(BaseContext, "declare_function"), (CPUContext, "get_executable"),
              (CPUCodeLibrary, "_finalize_final_module"),
              (CPUCodeLibrary, "_finalize_dynamic_globals"),
              (CPUCodeLibrary, "_verify_declare_only_symbols"),
              (CPUCodeLibrary, "add_linking_library"),
              (CPUCodeLibrary, "_get_module_for_linking"),
              (CPUCodeLibrary, "_ensure_finalized"),
              (TargetConfig, "__eq__"), (TargetConfig, "__hash__"), (TargetConfig, "values"),
              (StructModel, "get_value_type"), (BaseFunction, "get_call_type"),
              (ConfigStack, "top_or_none"), (BaseContext, "get_abi_sizeof"),
              (BaseContext, "get_function"), (numba_base, "_has_loc"),
              (InlineClosureLikes, "run_pass"), (NopythonRewrites, "run_pass")]
    if not all(callable(getattr(cls, name, None)) for cls, name in needed):
        return None
    if not hasattr(TargetConfig(), "_values"):
        return None
    return (_dynfunc, BaseContext, CPUContext, CPUCodeLibrary, TargetConfig, StructModel,
            BaseFunction, ConfigStack)


def available() -> bool:
    """Whether the installed Numba has what :func:`kernel_build` adjusts."""
    return _numba_parts() is not None


class _Block:
    """One :func:`kernel_build` block: the entry's name, the rare handlers' ``(module,
    qualname)``, and the libraries the block's compile made of them.

    ``rare_libs`` are the rare handlers' libraries compiled in the block; ``deferred``
    those of them left out of a caller's library, in the order first left out (the entry
    links them in); ``callers`` each library that left some out, with the ones it left out
    (completed on leaving the block, see :func:`_complete`).
    """

    __slots__ = ("entry", "rare", "rare_libs", "deferred", "callers")

    def __init__(self, entry: str, rare: frozenset):
        self.entry, self.rare = entry, rare
        self.rare_libs: set = set()
        self.deferred: list = []
        self.callers: dict = {}


def _complete(library):
    """``library``'s module for linking, with the modules of the rare handlers' libraries it
    left out linked in (made once; each of those completed the same way)."""
    done = library.__dict__.get("_qm_complete")
    if done is None:
        done = type(library)._get_module_for_linking(library).clone()
        for lib in library.__dict__["_qm_left_out"]:
            done.link_in(lib._get_module_for_linking(), preserve=True)
        library._qm_complete = done
    return done


def _link_rare(entry, libraries) -> None:
    """Link the rare handlers' ``libraries`` (each optimised in its own library) into the
    ``entry``'s optimised module.

    LLVM's linker takes a ``linkonce_odr`` definition only where the module it links into
    uses it, so a rare handler is linked after the ones that call it: the reverse of the
    order in which they were first left out (a rare handler is compiled, and leaves out its
    own callees, before any caller leaves it out); then those still declared only are
    linked again, until none is.
    """
    from llvmlite.binding import Linkage

    module = entry._final_module
    pending = list(reversed(libraries))
    for lib in pending:
        entry._reload_init.update(lib._reload_init)
    while pending:
        for lib in pending:
            module.link_in(type(lib)._get_module_for_linking(lib), preserve=True)
        declared = {f.name for f in module.functions if f.is_declaration}
        missing = [lib for lib in pending if any(
            f.name in declared for f in lib._final_module.functions
            if not f.is_declaration and f.linkage == Linkage.external)]
        if len(missing) == len(pending):
            raise RuntimeError(f"qosmodels.sim._build: the code of {missing} could not be "
                               f"linked into {entry.name}; please report this")
        pending = missing


#: Prefix of the names of the functions made local to the entry's module (adjustment 6).
LOCAL = "qosmodels.local."


def _shrink_calls(entry) -> None:
    """Make every function linked into the ``entry``'s module from another library local to
    it and drop the parameters each never reads (adjustment 6).

    Every handler takes the whole state ``S`` (~340 scalars in Numba's calling convention),
    so each call of a handler left as a real function (a rare handler, or one LLVM chose
    not to inline) passed all of them, though a handler reads a few arrays of it.  Numba
    links another library's functions in as ``linkonce_odr``; within the build only the
    entry's library has machine code (adjustment 1), so nothing outside this module calls
    them: with ``internal`` linkage, LLVM's dead argument elimination removes the
    parameters a function never reads, at every call site, and a dead code pass the
    extractions that fed them.  The entry's own functions (the loop and its wrappers, which
    Numba looks up by name) keep their linkage; nothing else in the code changes.

    Each such function is also renamed (:data:`LOCAL` before its name).  The JIT finds a
    symbol by looking for a module that defines the name, whatever its linkage: a function
    compiled later in the process (a test's trampoline) that links its own copy of a handler
    (``linkonce_odr``, weak) would otherwise be bound to this module's local one, at an
    address that is not exported, and crash (found in session 49)."""
    import llvmlite.binding as llvm

    tm = getattr(getattr(entry, "_codegen", None), "_tm", None)
    if tm is None or not all(hasattr(llvm, name) for name in (
            "create_new_module_pass_manager", "create_pass_builder",
            "create_pipeline_tuning_options")):
        return  # an older llvmlite or Numba: calls pass all of S, as before
    module = entry._final_module
    for f in module.functions:
        if not f.is_declaration and f.linkage == llvm.Linkage.linkonce_odr:
            f.linkage = llvm.Linkage.internal
            f.name = LOCAL + f.name
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=3))
    mpm = llvm.create_new_module_pass_manager()
    mpm.add_dead_arg_elimination_pass()
    mpm.add_aggressive_dce_pass()
    mpm.run(module, pb)


#: A struct value of at least this many members (the kernel's state ``S``: 42 arrays) is
#: given an identified LLVM type within the build (adjustment 5).
NAMED_STRUCT = 16
#: The identified types given so far, by their literal type's text.
_NAMED: dict = {}


def _named(literal):
    """The identified LLVM struct type with ``literal``'s members (made once per body)."""
    from llvmlite import ir

    key = str(literal)
    t = _NAMED.get(key)
    if t is None:
        name = "qosmodels.state." + hashlib.sha1(key.encode()).hexdigest()[:16]
        t = ir.global_context.get_identified_type(name)
        if t.is_opaque:
            t.set_body(*literal.elements)
        _NAMED[key] = t
    return t


def _is_rare(block, fndesc) -> bool:
    """Whether the function of ``fndesc`` is one of ``block``'s rare handlers.

    A rare handler is named by its module and qualified name, which an inlined handler
    compiled from the same Python function shares (``queues.red.admit_divided`` and its
    one real copy ``admit_divided_call``): the inlined one (``forceinline``, Numba's
    ``fndesc.inline``) is never rare.  Before session 48 only the ``noinline`` attribute
    made this distinction, and the inlined RED admission's library was left out of its
    callers' like a rare one, so LLVM could not inline it and the whole kernel called it
    for every arrival at a RED queue (benchmarks/RESULTS.md, "Session 48")."""
    return not fndesc.inline and (fndesc.modname, fndesc.qualname) in block.rare


def _lock_events() -> list:
    """Numba's pair of callbacks on LLVM's lock in :data:`_CALLBACKS` and the pair that
    replaces it within blocks (adjustment 9), as ``[(Numba's, replacement)]``; empty if
    this llvmlite keeps its callbacks elsewhere."""
    if not isinstance(_CALLBACKS, list):
        return []
    return [(pair, tuple(_outside_blocks(fn) for fn in pair)) for pair in _CALLBACKS
            if isinstance(pair, tuple) and len(pair) == 2
            and getattr(pair[0], "__module__", None) == "numba.core.base"
            and getattr(pair[0], "__qualname__", "").startswith("_initialize_llvm_lock_event")]


def _swap(old, new) -> None:
    """Put the pair of callbacks ``new`` where ``old`` is in :data:`_CALLBACKS` (one list
    item assigned: a thread iterating over the list meanwhile sees one or the other)."""
    for i, pair in enumerate(_CALLBACKS):
        if pair is old:
            _CALLBACKS[i] = new


def _outside_blocks(callback):
    """``callback`` called for threads outside every block only (adjustment 9)."""
    def for_others():
        if threading.get_ident() not in _active:
            callback()
    for_others.__wrapped__ = callback
    return for_others


def _nothing_to_inline(func_ir) -> bool:
    """Whether Numba's ``InlineClosureLikes`` pass would leave ``func_ir`` as it is
    (adjustment 11): it inlines closures (``make_function``), list comprehensions turned into
    arrays (``build_list``), ``functools.reduce`` and stencils, and a function with none of
    these comes out of it unchanged."""
    from numba.core import ir

    for block in func_ir.blocks.values():
        for inst in block.body:
            if not isinstance(inst, ir.Assign):
                continue
            value = inst.value
            if isinstance(value, ir.Expr):
                if value.op in ("make_function", "build_list") or (
                        value.op == "getattr" and value.attr in ("reduce", "stencil")):
                    return False
            elif isinstance(value, (ir.Global, ir.FreeVar)):
                if (value.name in ("reduce", "stencil") or value.value is functools.reduce
                        or type(value.value).__name__ == "StencilFunc"):
                    return False
    return True


#: The rewrites Numba makes after type inference, which :func:`_nothing_to_rewrite` knows
#: (the last registered when Numba first imports its closure inliner).
_TYPED_REWRITES = frozenset({"numba.core.rewrites.static_getitem.RewriteStringLiteralGetitems",
                             "numba.core.rewrites.static_getitem.RewriteStringLiteralSetitems",
                             "numba.np.ufunc.array_exprs.RewriteArrayExprs",
                             "numba.core.inline_closurecall.RewriteArrayOfConsts"})


def _nothing_to_rewrite(state) -> bool:
    """Whether Numba's ``NopythonRewrites`` pass would leave the function as it is
    (adjustment 11): its rewrites (if they are among the four it ships) act on an item
    indexed by a string literal, and on an array made by an operator or a call (an array
    expression, ``np.array`` of a list of constants); a function with neither comes out of
    it unchanged."""
    from numba.core import ir, types
    from numba.core.rewrites.registry import rewrite_registry

    registered = getattr(rewrite_registry, "rewrites", {}).get("after-inference", ())
    if not {f"{c.__module__}.{c.__qualname__}" for c in registered} <= _TYPED_REWRITES:
        return False
    typemap = state.typemap
    for block in state.func_ir.blocks.values():
        for inst in block.body:
            if isinstance(inst, ir.Assign):
                value = inst.value
                if not isinstance(value, ir.Expr):
                    continue
                if value.op in ("unary", "binop", "inplace_binop", "call") and isinstance(
                        typemap.get(inst.target.name), types.Array):
                    return False
                if value.op == "getitem" and isinstance(
                        typemap.get(value.index.name), types.StringLiteral):
                    return False
            elif isinstance(inst, ir.SetItem) and isinstance(
                    typemap.get(inst.index.name), types.StringLiteral):
                return False
    return True


def _current():
    """The innermost block (:class:`_Block`) of the calling thread, or None."""
    stack = _active.get(threading.get_ident())
    return stack[-1] if stack else None


def _install(parts) -> None:
    """Replace Numba's methods by the adjusted ones (called under :data:`_LOCK`)."""
    global _saved
    (_dynfunc, BaseContext, CPUContext, CPUCodeLibrary, TargetConfig, StructModel,
     BaseFunction, ConfigStack) = parts
    declare = BaseContext.declare_function
    executable = CPUContext.get_executable
    finalize = CPUCodeLibrary._finalize_final_module
    link = CPUCodeLibrary.add_linking_library
    equal, hashed = TargetConfig.__eq__, TargetConfig.__hash__
    value_type = StructModel.get_value_type
    call_type = BaseFunction.get_call_type
    sizeof = BaseContext.get_abi_sizeof
    from llvmlite.ir import IdentifiedStructType
    from numba.core import base as numba_base
    from numba.core.typed_passes import NopythonRewrites
    from numba.core.types import Array
    from numba.core.untyped_passes import InlineClosureLikes
    function, has_loc = BaseContext.get_function, numba_base._has_loc
    inline_closures, rewrite_typed = InlineClosureLikes.run_pass, NopythonRewrites.run_pass
    hashes = {}  # per options class: Numba's hash, which depends on the option names only

    def config_eq(self, other):
        if type(other) is not type(self):
            return equal(self, other)
        mine, theirs = self._values, other._values
        if mine.keys() == theirs.keys():
            return mine == theirs  # the same options set: their values decide
        # an option neither sets is at its default in both: only those set in one decide
        options = type(self).options
        for name in mine.keys() | theirs.keys():
            default = options[name].default
            if mine.get(name, default) != theirs.get(name, default):
                return False
        return True

    def config_hash(self):
        h = hashes.get(type(self))
        if h is None:
            h = hashes[type(self)] = hashed(self)
        return h

    def declare_function(self, module, fndesc):
        fn = declare(self, module, fndesc)
        block = _current()
        if block is not None and _is_rare(block, fndesc):
            fn.attributes.add("noinline")
        return fn

    def get_executable(self, library, fndesc, env):
        block = _current()
        if block is None or library.name == block.entry:
            return executable(self, library, fndesc, env)
        if _is_rare(block, fndesc):
            block.rare_libs.add(library)
        return _dynfunc.make_function(fndesc.lookup_module(), fndesc.qualname.split(".")[-1],
                                      f"{fndesc.qualname}, linked into {block.entry} only",
                                      0, env, (library,))

    def add_linking_library(self, library):
        block = _current()
        if block is None:
            return link(self, library)
        if library not in block.rare_libs:
            # what ``library`` left out, this caller leaves out too (its module links
            # ``library``'s, which only declares those rare handlers): completed with them
            for lib in block.callers.get(library, ()):
                left_out = block.callers.setdefault(self, [])
                if lib not in left_out:
                    left_out.append(lib)
            return link(self, library)
        library._ensure_finalized()
        if library not in block.deferred:
            block.deferred.append(library)
        left_out = block.callers.setdefault(self, [])
        if library not in left_out:
            left_out.append(library)

    def finalize_final_module(self):
        block = _current()
        if block is None:
            return finalize(self)
        if self.name == block.entry:
            _link_rare(self, block.deferred)
            _shrink_calls(self)
            return finalize(self)
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True

    def get_call_type(self, context, args, kws):
        if _current() is None:
            return call_type(self, context, args, kws)
        key = (self, context, args, tuple(kws.items()), ConfigStack.top_or_none())
        try:
            sig = _resolved.get(key)
        except TypeError:  # an unhashable argument type: resolved as Numba does
            return call_type(self, context, args, kws)
        if sig is None:
            sig = call_type(self, context, args, kws)
            if sig is not None:
                _resolved[key] = sig
        return sig

    def abi_sizeof(self, ty):
        if _current() is None:
            return sizeof(self, ty)
        key = (self, ty, ty.structure_repr() if isinstance(ty, IdentifiedStructType) else None)
        size = _sizes.get(key)
        if size is None:
            size = _sizes[key] = sizeof(self, ty)
        return size

    def takes_loc(fn):
        if _current() is None:
            return has_loc(fn)
        try:
            return _takes_loc[fn]
        except KeyError:
            answer = _takes_loc[fn] = has_loc(fn)
            return answer
        except TypeError:  # unhashable
            return has_loc(fn)

    def get_function(self, fn, sig, _firstcall=True):
        if not (fn.__class__ is str and fn == "__array__" and len(sig.args) == 1
                and sig.args[0].__class__ is Array and _current() is not None):
            return function(self, fn, sig, _firstcall)
        key = (self, sig.args[0])
        if key not in _no_array:
            try:
                return function(self, fn, sig, _firstcall)
            except NotImplementedError:
                _no_array.add(key)
                raise
        raise NotImplementedError(f"No definition for lowering __array__{sig}")

    def inline_closures_pass(self, state):
        if _current() is not None and _nothing_to_inline(state.func_ir):
            return True  # what the pass returns, having changed nothing
        return inline_closures(self, state)

    def rewrite_typed_pass(self, state):
        if _current() is not None and _nothing_to_rewrite(state):
            return True
        return rewrite_typed(self, state)

    def struct_value_type(self):
        t = value_type(self)
        if _current() is None or len(t.elements) < NAMED_STRUCT:
            return t
        return _named(t)

    replacements = [
        (BaseContext, "declare_function", declare_function),
        (StructModel, "get_value_type", struct_value_type),
        (CPUContext, "get_executable", get_executable),
        (CPUCodeLibrary, "_finalize_final_module", finalize_final_module),
        (CPUCodeLibrary, "add_linking_library", add_linking_library),
        (TargetConfig, "__eq__", config_eq), (TargetConfig, "__hash__", config_hash),
        (BaseFunction, "get_call_type", get_call_type),
        (BaseContext, "get_abi_sizeof", abi_sizeof), (BaseContext, "get_function", get_function),
        (numba_base, "_has_loc", takes_loc),
        (InlineClosureLikes, "run_pass", inline_closures_pass),
        (NopythonRewrites, "run_pass", rewrite_typed_pass)]
    events = _lock_events()
    _saved = ([(owner, name, getattr(owner, name)) for owner, name, _ in replacements], events)
    for owner, name, replacement in replacements:
        setattr(owner, name, replacement)
    for original, wrapped in events:
        _swap(original, wrapped)


def _restore() -> None:
    """Put Numba's own methods back (called under :data:`_LOCK`)."""
    global _saved
    originals, events = _saved
    for owner, name, original in originals:
        setattr(owner, name, original)
    for original, wrapped in events:
        _swap(wrapped, original)
    _saved = None
    _resolved.clear()
    _sizes.clear()
    _takes_loc.clear()
    _no_array.clear()


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
        _active.setdefault(me, []).append(_Block(py_func.__qualname__, frozenset(rare)))
    try:
        yield
    finally:
        with _LOCK:
            stack = _active[me]
            block = stack.pop()
            for caller, left_out in block.callers.items():
                # linked from outside the block (a trampoline): with what it left out
                caller._qm_left_out = left_out
                caller._get_module_for_linking = functools.partial(_complete, caller)
            if not stack:
                del _active[me]
            if not _active:
                _restore()
