"""The kernel's build (qosmodels.sim._build): machine code for the entry only, rare handlers
never inlined and their code linked into the entry only, everything restored afterwards.

Checked on small functions compiled here with the kernel's own decorators, not on the
kernel (whose compile the whole suite shares).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from numba import njit
from numba.core import base as numba_base
from numba.core.base import BaseContext
from numba.core.codegen import CPUCodeLibrary
from numba.core.compiler import Flags
from numba.core.cpu import CPUContext
from numba.core.datamodel.models import StructModel
from numba.core.targetconfig import TargetConfig
from numba.core.typed_passes import NopythonRewrites
from numba.core.types.functions import BaseFunction
from numba.core.untyped_passes import InlineClosureLikes

from qosmodels.sim import _build
from qosmodels.sim._kernels._jit import handler, rare_handler


def _fresh():
    """An entry calling an inlined handler and a rare one, all compiled for the first time."""

    @handler
    def twice(x):
        return 2.0 * x

    @rare_handler
    def plus_one(x):
        return x + 1.0

    @njit(error_model="numpy", _nrt=False)
    def entry(a):
        s = 0.0
        for v in a:
            s += twice(v) + plus_one(v)
        return s

    rare = {(plus_one.py_func.__module__, plus_one.py_func.__qualname__)}
    return entry, twice, plus_one, rare


def _attributes(ir):
    """The LLVM attributes of each function the IR defines, by name (its ``#N`` group)."""
    groups = dict(re.findall(r"^attributes (#\d+) = \{([^}]*)\}", ir, re.M))
    return {m.group(1): groups.get(m.group(2), "").split()
            for m in re.finditer(r"^define [^@]*@\"?([\w.$]+)\"?\(.*\)[^#\n]*(#\d+)", ir, re.M)}


def test_the_installed_numba_has_what_the_build_adjusts():
    assert _build.available()


def test_rare_handlers_stay_calls_and_handlers_are_inlined():
    entry, twice, plus_one, rare = _fresh()
    with _build.kernel_build(entry, rare):
        assert entry(np.arange(4.0)) == 2 * 6.0 + (6.0 + 4)  # sum 2x + sum (x + 1)
    ir = entry.inspect_llvm(entry.signatures[0])
    (rare_sig,) = plus_one.signatures
    rare_name = _build.LOCAL + plus_one.overloads[rare_sig].fndesc.mangled_name  # renamed
    (twice_sig,) = twice.signatures
    twice_name = twice.overloads[twice_sig].fndesc.mangled_name
    defined = _attributes(ir)
    assert "noinline" in defined.get(rare_name, [])  # a real function (Numba alone inlines it) ...
    assert re.search(r"call [^\n]*@\"?" + re.escape(rare_name), ir)  # ... that is called
    assert not re.search(r"call [^\n]*@\"?" + re.escape(twice_name), ir)  # inlined away


def test_a_handler_sharing_its_name_with_a_rare_copy_is_still_inlined():
    # red.admit_divided (a handler) and red.admit_divided_call (a rare handler made of the
    # same Python function) share module and qualified name, by which rare handlers are
    # named: the inlined one must not be taken for the rare one (until session 48 it was,
    # and the whole kernel called RED's admission for every arrival at a RED queue)
    def scaled(x, k):
        return k * x + 1.0

    inlined = handler(scaled)
    real = rare_handler(scaled)

    @njit(error_model="numpy", _nrt=False)
    def entry(a):
        s = 0.0
        for v in a:
            s += inlined(v, 2.0) + real(v, 3.0)
        return s

    rare = {(scaled.__module__, scaled.__qualname__)}
    with _build.kernel_build(entry, rare):
        assert entry(np.arange(4.0)) == (2 * 6.0 + 4) + (3 * 6.0 + 4)
    ir = entry.inspect_llvm(entry.signatures[0])
    inlined_name = inlined.overloads[inlined.signatures[0]].fndesc.mangled_name
    real_name = real.overloads[real.signatures[0]].fndesc.mangled_name
    assert inlined_name != real_name
    real_name = _build.LOCAL + real_name  # made local to the entry's module, renamed
    assert not re.search(r"call [^\n]*@\"?" + re.escape(inlined_name), ir)  # inlined away
    assert re.search(r"call [^\n]*@\"?" + re.escape(real_name), ir)  # the rare copy: a call
    assert "noinline" in _attributes(ir).get(real_name, [])


def test_only_the_entry_gets_machine_code():
    # a handler inlined wherever it is called has no machine code of its own (the rare
    # handler has: as a function of the entry's module)
    entry, twice, plus_one, rare = _fresh()
    with _build.kernel_build(entry, rare):
        entry(np.ones(3))
    cres = twice.overloads[twice.signatures[0]]
    assert cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name) == 0
    cres = entry.overloads[entry.signatures[0]]
    assert cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name) != 0


def test_a_large_struct_gets_an_identified_type_within_the_build():
    # the kernel's state (a tuple of 42 arrays) is written as one named LLVM type, not as
    # its members' list at each use; a small struct keeps its literal type; the code
    # computes the same
    from llvmlite import ir
    from numba import typeof
    from numba.core.registry import cpu_target

    state = tuple(np.full(2, i, dtype=np.int64 if i % 2 else np.float64)
                  for i in range(_build.NAMED_STRUCT + 4))
    small = (np.ones(2), np.ones(2, dtype=np.int64))
    dmm = cpu_target.target_context.data_model_manager

    @handler
    def last(S, j):
        return S[-1][j] + S[0][j]

    @njit(error_model="numpy", _nrt=False)
    def entry(S):
        return last(S, 0) + last(S, 1)

    assert isinstance(dmm.lookup(typeof(state)).get_value_type(), ir.LiteralStructType)
    with _build.kernel_build(entry, set()):
        named = dmm.lookup(typeof(state)).get_value_type()
        assert isinstance(named, ir.IdentifiedStructType)
        assert named.name.startswith("qosmodels.state.")
        assert named.elements == dmm.lookup(typeof(state)).get_data_type().elements
        assert isinstance(dmm.lookup(typeof(small)).get_value_type(), ir.LiteralStructType)
        assert entry(state) == 2 * (_build.NAMED_STRUCT + 3)
    assert isinstance(dmm.lookup(typeof(state)).get_value_type(), ir.LiteralStructType)


def _params(ir, name):
    """The number of parameters of function ``name`` as the IR defines it."""
    m = re.search(r"^define [^@]*@\"?" + re.escape(name) + r"\"?\((.*)\)[^\n]*\{", ir, re.M)
    assert m, name
    return len(m.group(1).split(", ")) if m.group(1) else 0


def test_a_rare_handler_is_passed_only_what_it_reads():
    # the state is a tuple of many arrays (Numba passes each 1-d array as 7 scalars); a rare
    # handler that reads two of them is, after the build, defined local to the entry and
    # called with a few parameters instead of all of them; the result is the same
    state = tuple(np.full(3, float(i)) for i in range(_build.NAMED_STRUCT + 4))

    @rare_handler
    def pick(S, j):
        return S[-1][j] + 10.0 * S[2][j]

    @njit(error_model="numpy", _nrt=False)
    def entry(S):
        s = 0.0
        for j in range(3):
            s += pick(S, j)
        return s

    rare = {(pick.py_func.__module__, pick.py_func.__qualname__)}
    with _build.kernel_build(entry, rare):
        assert entry(state) == 3 * (float(len(state) - 1) + 20.0)
    ir = entry.inspect_llvm(entry.signatures[0])
    name = pick.overloads[pick.signatures[0]].fndesc.mangled_name
    local = _build.LOCAL + name  # its copy in the entry's module, renamed
    assert re.search(r"^define internal [^@]*@\"?" + re.escape(local), ir, re.M)
    assert re.search(r"call [^\n]*@\"?" + re.escape(local), ir)  # still a call
    # Numba's own signature: 7 scalars per array, j, and its slots for the result and errors
    assert _params(pick.inspect_llvm(pick.signatures[0]), name) > 7 * len(state)
    assert _params(ir, local) <= 12


def test_without_the_build_numba_generates_machine_code_for_every_library():
    entry, twice, plus_one, rare = _fresh()
    entry(np.ones(3))  # the reference: Numba as it ships
    cres = twice.overloads[twice.signatures[0]]
    assert cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name) != 0


def test_numba_is_restored_on_leaving_even_after_an_error():
    before = _numba_methods()
    entry, _, _, rare = _fresh()
    with pytest.raises(RuntimeError):
        with _build.kernel_build(entry, rare):
            assert BaseContext.declare_function is not before[0]
            raise RuntimeError("stop")
    assert _numba_methods() == before


def test_a_stand_in_for_the_dispatcher_changes_nothing():
    before = BaseContext.declare_function
    with _build.kernel_build(object(), set()):
        assert BaseContext.declare_function is before


def _numba_methods():
    return (BaseContext.declare_function, CPUContext.get_executable,
            CPUCodeLibrary._finalize_final_module, CPUCodeLibrary.add_linking_library,
            TargetConfig.__eq__, TargetConfig.__hash__, StructModel.get_value_type,
            BaseFunction.get_call_type, BaseContext.get_abi_sizeof, tuple(_build._CALLBACKS),
            BaseContext.get_function, numba_base._has_loc, InlineClosureLikes.run_pass,
            NopythonRewrites.run_pass)


def test_blocks_nest_and_numba_is_restored_on_leaving_the_outer_one():
    before = _numba_methods()
    entry, _, _, rare = _fresh()
    with _build.kernel_build(entry, rare):
        patched = _numba_methods()
        assert patched != before
        with _build.kernel_build(entry, rare):
            assert _numba_methods() == patched  # not patched twice
        assert _numba_methods() == patched  # the inner block left them in place
    assert _numba_methods() == before


def test_blocks_overlapping_across_threads_restore_numba_at_the_last_exit():
    # thread A enters, B enters, A leaves, B leaves: the order that left the adjustments
    # installed for good when each block saved and restored what it found
    import threading

    before = _numba_methods()
    entry, _, _, rare = _fresh()
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def a():
        with _build.kernel_build(entry, rare):
            a_in.set()
            b_in.wait(10)
        a_out.set()

    def b():
        a_in.wait(10)
        with _build.kernel_build(entry, rare):
            b_in.set()
            a_out.wait(10)
            seen["after A left"] = _numba_methods()

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert seen["after A left"] != before  # still installed for B
    assert _numba_methods() == before


def test_another_thread_compiles_as_numba_ships_while_a_block_is_open():
    # a function compiled in a thread outside any block gets machine code of its own
    # (a callable), even while the adjustments are installed for another thread
    import threading

    entry, twice, plus_one, rare = _fresh()
    result = {}

    @njit
    def elsewhere(x):
        return x * 3.0

    def other():
        result["value"] = elsewhere(2.0)
        cres = elsewhere.overloads[elsewhere.signatures[0]]
        result["address"] = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)

    with _build.kernel_build(entry, rare):
        t = threading.Thread(target=other)
        t.start()
        t.join(60)
    assert result["value"] == 6.0
    assert result["address"] != 0


def test_replicate_on_a_thread_pool_then_another_compile_does_not_crash():
    # issue 33: two threads making their first kernel call at once left the adjustments in
    # place, and a later compile crashed the interpreter (6 of 8 fresh processes)
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        from concurrent.futures import ThreadPoolExecutor
        from numba import njit
        from qosmodels import Flow, Link, Network
        from qosmodels.sim import replicate
        from qosmodels.sim import _build
        net = Network([Link("a", "b", 1e6, 0.01)], [Flow(["a", "b"])])
        with ThreadPoolExecutor(2) as pool:
            replicate(net, 4, 0.5, seed=1, executor=pool, progress=False)
        assert not _build._active and _build._saved is None, (_build._active, _build._saved)
        @njit
        def later(x):
            return x + 1.0
        assert later(1.0) == 2.0
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("ok")


def _chain():
    """entry -> inlined handler -> rare handler -> rare handler, compiled for the first time."""

    @rare_handler
    def plus_two(x):
        return x + 2.0

    @rare_handler
    def plus_three(x):
        return plus_two(x) + 1.0

    @handler
    def via(x):
        return 10.0 * plus_three(x)

    @njit(error_model="numpy", _nrt=False)
    def entry(a):
        s = 0.0
        for v in a:
            s += via(v)
        return s

    rare = {(f.py_func.__module__, f.py_func.__qualname__) for f in (plus_two, plus_three)}
    return entry, via, plus_three, plus_two, rare


def _defines(module, fn, local=False):
    """Whether the LLVM module defines (not only declares) the function of ``fn``'s one
    overload (``local``: its copy in an entry's module, renamed by adjustment 6)."""
    name = (_build.LOCAL if local else "") + fn.overloads[fn.signatures[0]].fndesc.mangled_name
    return any(f.name == name and not f.is_declaration for f in module.functions)


def test_rare_handlers_code_is_linked_into_the_entry_only():
    # each library calling a rare handler keeps its declaration; the entry's module has
    # every rare handler's code, once (Numba alone links it into every caller's library)
    entry, via, plus_three, plus_two, rare = _chain()
    with _build.kernel_build(entry, rare):
        assert entry(np.arange(3.0)) == 10.0 * (3.0 + 3 * 3.0)  # sum 10 (x + 3)
    via_lib = via.overloads[via.signatures[0]].library
    three_lib = plus_three.overloads[plus_three.signatures[0]].library
    entry_lib = entry.overloads[entry.signatures[0]].library
    assert not _defines(via_lib._final_module, plus_three)
    assert not _defines(three_lib._final_module, plus_two)
    assert _defines(entry_lib._final_module, plus_three, local=True)
    assert _defines(entry_lib._final_module, plus_two, local=True)
    ir = entry.inspect_llvm(entry.signatures[0])
    for fn in (plus_two, plus_three):
        name = _build.LOCAL + fn.overloads[fn.signatures[0]].fndesc.mangled_name
        assert len(re.findall(r"^define [^\n]*@\"?" + re.escape(name) + r"\"?\(", ir, re.M)) == 1


def test_a_library_that_left_rare_code_out_is_complete_when_linked_after_the_block():
    # a test's trampoline compiled after the kernel links the handler's library: the rare
    # handlers' code the block left out comes with it
    entry, via, plus_three, plus_two, rare = _chain()
    with _build.kernel_build(entry, rare):
        entry(np.ones(2))

    @njit(error_model="numpy", _nrt=False)
    def trampoline(x):
        return via(x)

    assert trampoline(1.0) == 10.0 * (1.0 + 3.0)
    lib = trampoline.overloads[trampoline.signatures[0]].library
    assert _defines(lib._final_module, plus_three) and _defines(lib._final_module, plus_two)


def test_a_library_linking_one_that_left_rare_code_out_is_complete_too():
    # trampoline -> outer -> via -> rare: outer's module holds via's code, which only
    # declares the rare handler.  Until session 49 a trampoline compiled after the kernel
    # found that code by its symbol in the entry's machine code; adjustment 6 makes it local
    # there, so outer's library must bring it (checked before the call: without it, the
    # call would jump to an unresolved symbol)
    _, via, plus_three, plus_two, rare = _chain()

    @handler
    def outer(x):
        return via(x) + 1.0

    @njit(error_model="numpy", _nrt=False)
    def entry(a):
        s = 0.0
        for v in a:
            s += outer(v)
        return s

    with _build.kernel_build(entry, rare):
        assert entry(np.ones(2)) == 2 * (10.0 * (1.0 + 3.0) + 1.0)

    @njit(error_model="numpy", _nrt=False)
    def trampoline(x):
        return outer(x)

    trampoline.compile("float64(float64)")
    lib = trampoline.overloads[trampoline.signatures[0]].library
    assert _defines(lib._final_module, plus_three) and _defines(lib._final_module, plus_two)
    assert trampoline(1.0) == 10.0 * (1.0 + 3.0) + 1.0


def test_rare_handlers_compiled_outside_a_block_are_linked_as_numba_does():
    entry, via, plus_three, plus_two, rare = _chain()

    @njit(error_model="numpy", _nrt=False)
    def trampoline(x):
        return plus_three(x)

    assert trampoline(1.0) == 4.0  # compiled here, before any block: Numba's own linking
    with _build.kernel_build(entry, rare):
        assert entry(np.ones(1)) == 40.0  # plus_three's library, complete, linked as usual


def _flags(**set_):
    f = Flags()
    for k, v in set_.items():
        setattr(f, k, v)
    return f


def test_compile_options_compare_and_hash_as_numba_does():
    # the faster comparison within a block gives Numba's own answers: options left unset
    # equal options set to their defaults, set values decide, the hash is Numba's
    eq, hashed = TargetConfig.__eq__, TargetConfig.__hash__
    cases = [
        (_flags(), _flags()),
        (_flags(nrt=False, error_model="numpy"), _flags(nrt=False, error_model="numpy")),
        (_flags(nrt=False, error_model="numpy"), _flags(nrt=False, error_model="python")),
        (_flags(nrt=False), _flags(nrt=True)),
        (_flags(nrt=False), _flags()),  # set to the default against unset
        (_flags(nrt=True), _flags()),
        (_flags(forceinline=True, nrt=False), _flags(nrt=False)),
        (_flags(forceinline=False, nrt=False), _flags(nrt=False)),  # a default set in one
        (_flags(forceinline=False), _flags(nrt=False)),  # each sets a default the other not
        (_flags(forceinline=True), _flags(nrt=False)),
        (_flags(forceinline=True), _flags(nrt=True)),
    ]
    expected = [(eq(a, b), eq(b, a), hashed(a), hashed(b)) for a, b in cases]
    assert [e[0] for e in expected] == [True, True, False, False, True, False, False,
                                        True, True, False, False]
    entry, _, _, rare = _fresh()
    with _build.kernel_build(entry, rare):
        assert TargetConfig.__eq__ is not eq
        got = [(a == b, b == a, hash(a), hash(b)) for a, b in cases]
        assert (_flags() == object()) is False
    assert got == expected


def test_a_call_resolved_in_a_block_is_resolved_once_with_numba_s_answer():
    # adjustment 7: within a block, a function type's call resolved for the same argument
    # types and options gives the signature Numba's own resolution gives, found once
    import operator

    from numba.core import types
    from numba.core.errors import TypingError
    from numba.core.registry import cpu_target

    ctx = cpu_target.typing_context
    ctx.refresh()
    add, lt = ctx.resolve_value_type(operator.add), ctx.resolve_value_type(operator.lt)
    calls = [(add, (types.int64, types.float64)), (add, (types.float64, types.float64)),
             (add, (types.IntegerLiteral(3), types.int64)), (lt, (types.intp, types.int64))]
    own = BaseFunction.get_call_type
    expected = [own(fn, ctx, args, {}) for fn, args in calls]
    with pytest.raises(TypingError, match="No implementation"):
        own(add, ctx, (types.unicode_type, types.float64), {})  # no such +
    entry, _, _, rare = _fresh()
    seen = []
    with _build.kernel_build(entry, rare):
        assert BaseFunction.get_call_type is not own
        for _ in range(2):
            seen.append([fn.get_call_type(ctx, args, {}) for fn, args in calls])
        remembered = {(k[0], k[2]): v for k, v in _build._resolved.items()}
        assert all(remembered[fn, args] == sig for (fn, args), sig in zip(calls, expected))
        # a call with no signature is not remembered: asked again, Numba answers again
        for _ in range(2):
            with pytest.raises(TypingError, match="No implementation"):
                add.get_call_type(ctx, (types.unicode_type, types.float64), {})
        assert (add, (types.unicode_type, types.float64)) not in {
            (k[0], k[2]) for k in _build._resolved}
        assert entry(np.arange(4.0)) == 2.0 * 6.0 + 6.0 + 4.0  # compiled through it
    assert BaseFunction.get_call_type is own and not _build._resolved
    assert seen[0] == expected and seen[1] == expected


def test_another_thread_resolves_calls_with_numba_s_own_method_while_a_block_is_open():
    import operator
    import threading

    from numba.core import types
    from numba.core.registry import cpu_target

    ctx = cpu_target.typing_context
    ctx.refresh()
    sub = ctx.resolve_value_type(operator.sub)
    args = (types.int16, types.uint8)
    entry, _, _, rare = _fresh()
    got = []
    inside, done = threading.Event(), threading.Event()

    def other():
        inside.wait()
        got.append(sub.get_call_type(ctx, args, {}))
        got.append(any(k[0] is sub and k[2] == args for k in _build._resolved))
        done.set()

    t = threading.Thread(target=other)
    t.start()
    with _build.kernel_build(entry, rare):
        inside.set()
        done.wait()
    t.join()
    assert got == [BaseFunction.get_call_type(sub, ctx, args, {}), False]


def test_abi_sizes_asked_in_a_block_are_numba_s_and_computed_once():
    # adjustment 8: Numba computes a type's ABI size (for debug information it then does not
    # emit) by printing and parsing an LLVM module each time; within a block once per type
    from llvmlite import ir
    from numba.core.registry import cpu_target

    ctx = cpu_target.target_context
    own = BaseContext.get_abi_sizeof
    named = [ir.global_context.get_identified_type(f"qosmodels.test_build.{n}") for n in "ab"]
    for t, body in zip(named, [[ir.IntType(8)], [ir.IntType(64), ir.IntType(64), ir.DoubleType()]]):
        if t.is_opaque:
            t.set_body(*body)
    types_ = [ir.IntType(8), ir.DoubleType(), ir.LiteralStructType([ir.IntType(32)] * 3),
              ir.ArrayType(ir.IntType(64), 5), *named]
    expected = [own(ctx, t) for t in types_]
    assert expected == [1, 8, 12, 40, 1, 24]
    entry, _, _, rare = _fresh()
    with _build.kernel_build(entry, rare):
        assert BaseContext.get_abi_sizeof is not own
        got = [[ctx.get_abi_sizeof(t) for t in types_] for _ in range(2)]
        assert len(_build._sizes) == len(types_)  # each asked twice, computed once
    assert got == [expected, expected]
    assert BaseContext.get_abi_sizeof is own and not _build._sizes


def test_numba_s_llvm_lock_events_reach_listeners_outside_blocks_only():
    # adjustment 9: every call into LLVM broadcasts two of Numba's events to a timer per
    # compile in progress (a dozen, nested); a thread inside a block sends none
    import threading

    import llvmlite.binding as llvm
    from numba.core import event

    entry, _, _, rare = _fresh()
    counts = {}

    def count(name):
        with event.install_recorder("numba:llvm_lock") as rec:
            llvm.get_process_triple()
        counts[name] = len(rec.buffer)

    count("before")
    with _build.kernel_build(entry, rare):
        count("inside")
        t = threading.Thread(target=count, args=("other thread",))
        t.start()
        t.join(60)
    count("after")
    assert counts["inside"] == 0
    assert counts["before"] == counts["other thread"] == counts["after"] > 0


def test_lookups_whose_answer_cannot_change_are_made_once_in_a_block():
    # adjustment 10: whether an implementation takes ``loc``, and the missing ``__array__``
    # lowering of a NumPy array type, remembered within a block
    from numba.core import types
    from numba.core.registry import cpu_target
    from numba.core.typing import signature

    ctx = cpu_target.target_context
    own_function, own_has_loc = BaseContext.get_function, numba_base._has_loc

    def with_loc(context, builder, sig, args, loc=None):
        return None

    def without_loc(context, builder, sig, args):
        return None

    arr = types.Array(types.float64, 2, "C")
    missing = signature(arr, arr)
    with pytest.raises(NotImplementedError) as numbas:
        own_function(ctx, "__array__", missing)
    found = signature(types.float64, types.float64, types.float64)
    entry, _, _, rare = _fresh()
    with _build.kernel_build(entry, rare):
        assert numba_base._has_loc is not own_has_loc
        assert [numba_base._has_loc(f) for f in (with_loc, without_loc) * 2] == [
            True, False, True, False]
        assert _build._takes_loc == {with_loc: True, without_loc: False}
        for _ in range(2):  # Numba's failure, then the remembered one: the same error
            with pytest.raises(NotImplementedError, match="__array__") as ours:
                ctx.get_function("__array__", missing)
            assert str(ours.value) == str(numbas.value)
        assert _build._no_array == {(ctx, arr)}
        # other lookups are Numba's: an implementation found, nothing remembered
        import operator
        assert ctx.get_function(operator.add, found) is not None
        assert _build._no_array == {(ctx, arr)}
        assert entry(np.arange(3.0)) == 2.0 * 3.0 + 3.0 + 3.0  # compiled through them
    assert (BaseContext.get_function, numba_base._has_loc) == (own_function, own_has_loc)
    assert not _build._takes_loc and not _build._no_array


def _plain(a, i):
    return a[i] + 1.0


def _closure(x):
    def g(y):
        return y + x
    return g(1.0)


def _comprehension(n):
    return np.array([i * 2.0 for i in range(n)])


def _expression(a, b):
    return a * b + 1.0


def test_passes_with_nothing_to_do_are_skipped_in_a_block_and_run_otherwise(monkeypatch):
    # adjustment 11: Numba's closure inliner and its post-typing rewrites are skipped for a
    # function with nothing for them, and still run for one with closures, a list made an
    # array or an array expression (whose compile would fail or differ without them)
    seen = {}
    for name in ("_nothing_to_inline", "_nothing_to_rewrite"):
        own = getattr(_build, name)

        def spy(x, own=own, name=name):
            func_ir = x if name == "_nothing_to_inline" else x.func_ir
            seen[name, func_ir.func_id.func_name] = answer = own(x)
            return answer
        monkeypatch.setattr(_build, name, spy)
    a = np.arange(4.0)
    functions = [(_plain, (a, 2)), (_closure, (2.0,)), (_comprehension, (3,)),
                 (_expression, (a, a))]
    expected = [f(*args) for f, args in functions]
    got = []
    for f, args in functions:  # each the entry of its block: the one with machine code
        compiled = njit(f)
        with _build.kernel_build(compiled, set()):
            got.append(compiled(*args))
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
    assert seen["_nothing_to_inline", "_plain"] and seen["_nothing_to_rewrite", "_plain"]
    assert not seen["_nothing_to_inline", "_closure"]
    assert not seen["_nothing_to_inline", "_comprehension"]
    assert seen["_nothing_to_inline", "_expression"]
    assert not seen["_nothing_to_rewrite", "_expression"]
    assert not seen["_nothing_to_rewrite", "_comprehension"]  # np.array of a list
