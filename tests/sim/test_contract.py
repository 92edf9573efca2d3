"""The kernel-module contract (``qosmodels/sim/contract.py``) held against the kernel.

Every kernel module keeps the declared attributes and its state columns inside its owner's
blocks; every dispatch hook exists with the declared parameters and is called from where the
contract says; the simulator guide's hook table is the contract's.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from qosmodels.mechanisms import QueueSpec, SourceSpec
from qosmodels.sim import contract
from qosmodels.sim._kernels import dispatch, dispatch_edges, layout

KERNELS = Path(dispatch.__file__).parent
GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "simulator.md"
MODULES = ([("queue", m) for m in dispatch.QUEUES.values()]
           + [("source", m) for m in dispatch.SOURCES.values()]
           + [("edge", m) for m in dispatch_edges.EDGES.values()])


@pytest.mark.parametrize("owner, kmod", MODULES, ids=lambda x: getattr(x, "__name__", x))
def test_every_kernel_module_keeps_the_contract(owner, kmod):
    assert contract.check_module(kmod, owner) == []


def test_check_module_finds_what_is_wrong():
    class Bad:
        CODE = True  # a bool is not a code
        PARAMS = ["x"]  # a list, not a tuple

        @staticmethod
        def setup(spec, ff):  # a parameter missing
            return 0

    problems = contract.check_module(Bad, "source")
    assert any("CODE" in p for p in problems) and any("PARAMS" in p for p in problems)
    assert any("setup('spec', 'ff')" in p and "setup(spec, ff, fi)" in p for p in problems)
    assert contract.check_module(Bad, "edge")[-2:] == [
        "Bad: no setup_edge (the element's and its members' initial state)",
        "Bad: no hold_capacity (the packets the element may hold per member)"]


def _specs(base):
    import qosmodels.mechanisms as m

    return [getattr(m, n) for n in m.__all__
            if isinstance(getattr(m, n), type) and issubclass(getattr(m, n), base)]


@pytest.mark.parametrize("owner, cls", [("queue", c) for c in _specs(QueueSpec)]
                         + [("source", c) for c in _specs(SourceSpec)],
                         ids=lambda x: getattr(x, "__name__", x))
def test_every_spec_keeps_the_contract(owner, cls):
    assert contract.check_spec(cls, owner) == []


def test_check_spec_finds_what_is_wrong():
    class Bad:
        n_classes = 1

        def check_crossing(self, source, flow):  # a parameter missing
            pass

    assert contract.check_spec(Bad, "queue") == [
        "Bad.check_crossing('self', 'source', 'flow'): the contract says "
        "check_crossing(self, source, flow, link)"]
    assert contract.check_spec(Bad, "source")[0].startswith("Bad: no check_route")


def test_provides_refuses_a_name_the_contract_does_not_declare():
    assert contract.provides(dispatch.SOURCES["sources.reno"], "source", "setup_flow")
    assert not contract.provides(dispatch.QUEUES["queues.droptail"], "queue", "setup_link")
    with pytest.raises(KeyError, match="declares no 'setup_links'"):
        contract.provides(dispatch.QUEUES["queues.drr"], "queue", "setup_links")
    with pytest.raises(KeyError, match="for queue modules"):
        contract.provides(dispatch.QUEUES["queues.drr"], "queue", "setup")


def _hooks_defined():
    out = {}
    for mod in (dispatch, dispatch_edges):
        for name, obj in vars(mod).items():
            fn = getattr(obj, "py_func", None)
            if fn is not None and fn.__module__ == mod.__name__:
                out[name] = (mod.__name__.rsplit(".", 1)[1], tuple(inspect.signature(fn).parameters))
    return out


def test_the_dispatch_modules_define_exactly_the_declared_hooks():
    declared = {h.name: (h.module, h.params) for h in contract.HOOKS}
    assert _hooks_defined() == declared


@pytest.mark.parametrize("hook", contract.HOOKS, ids=lambda h: h.name)
def test_each_hook_is_called_from_where_the_contract_says(hook):
    mod, fn = hook.called_from.split(".")
    tree = ast.parse((KERNELS / f"{mod}.py").read_text())
    callers = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
               for c in ast.walk(node)
               if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
               and c.func.id == hook.name}
    assert callers == {fn}


def test_the_guides_hook_table_is_the_contracts():
    text = GUIDE.read_text()
    rows = re.findall(r"^\| `(\w+)\(([^)]*)\)` \| `([\w.]+)` \|", text, re.M)
    assert [(n, tuple(p.split(", ")), c) for n, p, c in rows] == [
        (h.name, h.params, h.called_from) for h in contract.HOOKS]


def _state_columns(kmod):
    """``(name, first constant, offset)`` for every module-level ``NAME = FIRST + k`` (or
    ``NAME = FIRST``) of a state block's first column, the offset from the module's value."""
    tree = ast.parse(Path(kmod.__file__).read_text())
    firsts = {first for blocks in contract.STATE.values() for _, first, _ in blocks}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            continue
        v = node.value
        base = (v.id if isinstance(v, ast.Name) else
                v.left.id if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Add)
                and isinstance(v.left, ast.Name) else None)
        if base in firsts:
            name = node.targets[0].id
            yield name, base, getattr(kmod, name) - getattr(layout, base)


@pytest.mark.parametrize("owner, kmod", MODULES, ids=lambda x: getattr(x, "__name__", x))
def test_state_columns_stay_inside_the_owners_blocks(owner, kmod):
    blocks = {first: getattr(layout, size) for _, first, size in contract.STATE[owner]}
    for name, first, k in _state_columns(kmod):
        assert first in blocks, f"{kmod.__name__}.{name} uses {first}, not a {owner}'s block"
        assert 0 <= k < blocks[first], (f"{kmod.__name__}.{name} = {first} + {k}: the block "
                                        f"has {blocks[first]} columns")


def test_the_state_scan_sees_the_columns_it_checks():
    # fair queueing names its round number QS_ROUND = LF_QS; CoDel its integer state LI_QS + k
    fq = dict((n, (f, k)) for n, f, k in _state_columns(dispatch.QUEUES["queues.fair_queueing"]))
    assert fq["QS_ROUND"] == ("LF_QS", 0)
    codel = {n: (f, k) for n, f, k in _state_columns(dispatch.QUEUES["queues.codel"])}
    assert codel["QI_DROPPING"][0] == "LI_QS" and codel["QI_DROPPING"][1] >= 1


def _named_in(hook: str) -> set[str]:
    """The kernel modules (``"sources.reno"``, ...) a dispatch hook has a branch for."""
    from qosmodels.sim._variant import _codes_tested, _module_names

    tree = ast.parse((KERNELS / "dispatch.py").read_text())
    modules = _module_names(tree)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == hook)
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.If):
            out |= _codes_tested(node.test, modules) or set()
    return out


def _source_specs():
    import qosmodels.mechanisms as m

    return [cls for cls in vars(m).values() if isinstance(cls, type)
            and issubclass(cls, m.SourceSpec) and cls is not m.SourceSpec]


@pytest.mark.parametrize("spec", _source_specs(), ids=lambda c: c.__name__)
def test_every_source_has_its_own_branch_in_the_hooks_it_needs(spec):
    # no source runs another's code by falling through to a default arm: a window source
    # is named where the window is consulted and moved, an open-loop one where it ticks; one
    # whose windowed is a property (Poisson, windowed when given a window) in all four
    windowed = spec.windowed
    needs = (("source_send_limit", "source_ack", "source_start", "source_next_tick")
             if isinstance(windowed, property) else
             ("source_send_limit", "source_ack") if windowed
             else ("source_start", "source_next_tick"))
    kernels = [spec.kernel]
    if isinstance(spec.kernel, property):  # (chosen by a field: TcpReno's and Cubic's rack)
        kernels = sorted({spec().kernel, spec(sack=True, rack=True).kernel})
    for hook in needs:
        for kernel in kernels:
            assert kernel in _named_in(hook), f"{spec.__name__} ({kernel}) has no branch in {hook}"
