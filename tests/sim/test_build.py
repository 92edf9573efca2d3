"""The kernel's build (qosmodels.sim._build): machine code for the entry only, rare handlers
never inlined, everything restored afterwards.

Checked on small functions compiled here with the kernel's own decorators, not on the
kernel (whose compile the whole suite shares).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from numba import njit
from numba.core.base import BaseContext
from numba.core.codegen import CPUCodeLibrary
from numba.core.cpu import CPUContext

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
    rare_name = plus_one.overloads[rare_sig].fndesc.mangled_name
    (twice_sig,) = twice.signatures
    twice_name = twice.overloads[twice_sig].fndesc.mangled_name
    defined = _attributes(ir)
    assert "noinline" in defined.get(rare_name, [])  # a real function (Numba alone inlines it) ...
    assert re.search(r"call [^\n]*@\"?" + re.escape(rare_name), ir)  # ... that is called
    assert not re.search(r"call [^\n]*@\"?" + re.escape(twice_name), ir)  # inlined away


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


def test_without_the_build_numba_generates_machine_code_for_every_library():
    entry, twice, plus_one, rare = _fresh()
    entry(np.ones(3))  # the reference: Numba as it ships
    cres = twice.overloads[twice.signatures[0]]
    assert cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name) != 0


def test_numba_is_restored_on_leaving_even_after_an_error():
    before = (BaseContext.declare_function, CPUContext.get_executable,
              CPUCodeLibrary._finalize_final_module)
    entry, _, _, rare = _fresh()
    with pytest.raises(RuntimeError):
        with _build.kernel_build(entry, rare):
            assert BaseContext.declare_function is not before[0]
            raise RuntimeError("stop")
    assert (BaseContext.declare_function, CPUContext.get_executable,
            CPUCodeLibrary._finalize_final_module) == before


def test_a_stand_in_for_the_dispatcher_changes_nothing():
    before = BaseContext.declare_function
    with _build.kernel_build(object(), set()):
        assert BaseContext.declare_function is before
