"""The kernel's state passed by reference (qosmodels.sim._kernels._byref).

Checked on small functions compiled here with a state-marked named tuple of their own, and
on the kernel's sources; the kernel itself runs through the rest of the suite (and
``benchmarks/fingerprint_sim.py`` compares its outputs bit for bit).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, typeof
from numba.core import types
from numba.core.datamodel import default_manager
from numba.core.datamodel.models import TupleModel

from qosmodels.sim import _kernels
from qosmodels.sim._kernels import _byref
from qosmodels.sim._kernels._jit import handler, rare_handler
from qosmodels.sim.compile import Compiled


class State(NamedTuple):
    """A state of this test's own (marked as the kernel's is)."""

    a: np.ndarray
    b: np.ndarray

    __qosmodels_state__ = True


class Plain(NamedTuple):
    a: np.ndarray
    b: np.ndarray


def _state():
    return State(np.arange(4.0), np.zeros(3, dtype=np.int64))


def test_installed_with_this_numba():
    assert _byref.INSTALLED
    assert _byref.install()  # again: nothing more to do


def test_the_kernel_state_is_marked():
    assert getattr(Compiled, _byref.MARK) is True


def test_a_state_is_one_pointer_argument_and_other_named_tuples_keep_numbas_model():
    st = default_manager.lookup(typeof(_state()))
    assert isinstance(st.get_argument_type(), ir.PointerType)
    assert st.get_argument_type().pointee == st.get_value_type()
    plain = default_manager.lookup(typeof(Plain(np.arange(4.0), np.zeros(3, np.int64))))
    assert type(plain) is TupleModel  # Numba's own: flattened into the members' scalars
    assert isinstance(plain.get_argument_type(), tuple)
    assert default_manager._handlers[types.NamedTuple].original is TupleModel


@handler
def _add(S, i, v):
    S.a[i] += v
    S.b[0] += 1
    return S.a[i]


@rare_handler
def _rare(S, i):
    # a real function (not inlined when compiled in the kernel's build), passing the state on
    return _add(S, i, 10.0) + S.b[0]


@njit
def _entry(S, n):
    s = 0.0
    for i in range(n):
        s += _add(S, i % S.a.shape[0], 1.0) + _rare(S, 0)
    return s


def test_calls_through_the_pointer_read_and_write_the_callers_arrays():
    S = _state()
    got = _entry(S, 5)

    a = np.arange(4.0)
    b = np.zeros(3, dtype=np.int64)
    want = 0.0
    for i in range(5):
        a[i % 4] += 1.0
        b[0] += 1
        x = a[i % 4]
        a[0] += 10.0
        b[0] += 1
        want += x + a[0] + b[0]
    assert got == want
    np.testing.assert_array_equal(S.a, a)
    np.testing.assert_array_equal(S.b, b)


def _param(define, name):
    """The type and attributes of parameter ``name`` in an LLVM ``define`` line."""
    head = define[:define.index(f" {name}")]
    depth = 0
    for i in range(len(head) - 1, -1, -1):  # back to the comma or parenthesis opening it
        ch = head[i]
        if ch == ")":
            depth += 1
        elif ch == "(" and depth:
            depth -= 1
        elif (ch == "," or ch == "(") and not depth:
            return head[i + 1:].strip()
    return head


def test_the_ir_passes_one_pointer_and_no_scalars_of_the_state():
    _entry(_state(), 1)
    for fn in (_add, _rare, _entry):
        ir_text = fn.inspect_llvm(fn.signatures[0])
        name = fn.py_func.__name__
        defs = [line for line in ir_text.splitlines()
                if line.startswith("define") and f"{len(name)}{name}B" in line
                and "cpython" not in line and "cfunc" not in line]  # (not the wrappers)
        assert defs, name
        for line in defs:
            # Numba names a flattened argument's scalars arg.S.0, arg.S.1, ... (two
            # arrays: 14 of them); by reference the state is one pointer, arg.S
            assert line.count("%arg.S") == 1, line
            assert "%arg.S." not in line, line
            param = _param(line, "%arg.S")
            assert param.startswith("ptr") or "*" in param, line
            assert "noalias" in param, line  # (see _byref.ARGUMENT_ATTRIBUTES)
            # two 1-D arrays of seven 8-byte members each (meminfo, parent, size, item
            # size, data, shape, strides): the whole tuple readable
            assert "dereferenceable(112)" in param, line


def _branches(S, n):
    # reads the state in several blocks: Numba would give S a slot and load it in each
    s = 0.0
    for i in range(n):
        if i % 2:
            s += S.a[i % 4]
        else:
            s -= S.b[i % 3] + S.a[0]
    return s


def _lowered(fn, *args):
    """``fn``'s own function in the LLVM IR Numba lowered for it (before LLVM's passes)."""
    from numba.core.codegen import CPUCodeLibrary

    captured = []
    add = CPUCodeLibrary.add_ir_module

    def capture(self, ir_module):
        captured.append(str(ir_module))
        return add(self, ir_module)

    CPUCodeLibrary.add_ir_module = capture
    try:
        got = fn(*args)
    finally:
        CPUCodeLibrary.add_ir_module = add
    name = fn.py_func.__name__
    for text in captured:  # (llvmlite prints a define's opening brace on a line of its own)
        m = re.search(rf'^define [^\n]*@"_ZN\d+(?!cpython)[^\n]*{len(name)}{name}B[^\n]*\n\{{\n'
                      rf"(.*?)^\}}", text, re.M | re.S)
        if m:
            return got, m.group(1)
    raise AssertionError(f"{name} not found in {len(captured)} modules")


def test_a_state_variable_has_no_slot_in_a_kernel_function():
    # _byref._patch_lowering: the state loaded once at the entry, used wherever S is read
    S = _state()
    want = _branches(S, 7)  # plain Python
    got, body = _lowered(njit(error_model="numpy", _nrt=False)(_branches), S, 7)
    assert got == want
    # (the state's type, two arrays, is the only struct of structs here: "{{")
    assert not re.search(r"= alloca \{\{", body)  # no slot of the state's type
    assert len(re.findall(r"= load \{\{", body)) == 1  # one load, from the argument
    # with Numba's reference counting (a test's trampoline may have it), Numba's own slots
    got, body = _lowered(njit(_branches), S, 7)
    assert got == want
    assert re.search(r"= alloca \{\{", body)
    assert len(re.findall(r"= load \{\{", body)) > 1


def test_a_function_making_a_state_of_its_own_is_refused_where_it_assigns_it():
    import pytest

    def remake(S):
        T = State(S.b.astype(np.float64), S.b)  # not the state it received
        return T.a[0] + S.a[1]

    with pytest.raises(Exception, match="a state other than the one it received"):
        njit(error_model="numpy", _nrt=False)(remake)(_state())


def test_a_function_receiving_two_states_keeps_numbas_slots():
    def both(S, T, n):
        s = 0.0
        for i in range(n):
            s += S.a[i % 4] - T.a[i % 4] if i % 2 else T.b[0]
        return s

    S, T = _state(), State(np.arange(4.0) * 3, np.ones(3, dtype=np.int64))
    got, body = _lowered(njit(error_model="numpy", _nrt=False)(both), S, T, 5)
    assert got == both(S, T, 5)
    assert re.search(r"= alloca \{\{", body)  # each state's variable in its slot


def _builds_a_state(tree) -> list:
    """Where a kernel source could make a state value of its own (not its argument)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "Compiled":
            found.append(("Compiled", node.lineno))
        if isinstance(node, ast.Attribute) and node.attr in ("_replace", "_make"):
            found.append((node.attr, node.lineno))
    return found


def test_no_kernel_source_builds_a_state():
    """A call passes on the pointer its caller received (see the module), which is right
    because every state value in a kernel function is its argument: no kernel code makes
    one.  This checks the sources for the ways to make one."""
    root = Path(_kernels.__file__).parent
    found = {}
    for path in sorted(root.rglob("*.py")):
        hits = _builds_a_state(ast.parse(path.read_text()))
        if hits:
            found[str(path.relative_to(root))] = hits
    assert found == {}
    # the check itself finds them
    assert _builds_a_state(ast.parse("def f(S):\n    return g(S._replace(a=1))\n"))
    assert _builds_a_state(ast.parse("def f(S):\n    return g(Compiled(*S))\n"))
