"""Writes the kernel's dispatch modules from the kernel modules' ``HOOKS``.

The packet kernel reaches a mechanism's code through the dispatch hooks
(:data:`qosmodels.sim.contract.HOOKS`): one function per hook, one branch per
mechanism, so that Numba compiles one loop whose branches are chosen by data
(each link's and flow's mechanism code).  The branches are not written by hand:
every kernel module under ``_kernels/queues/``, ``_kernels/sources/`` and
``_kernels/edges/`` declares the hooks it carries out in a dict ``HOOKS`` (hook
name to a handler, or to ``"package.module.function"`` where importing it would
make a circle), and this module writes ``_kernels/dispatch.py`` and
``_kernels/dispatch_edges.py`` from them:

* a module is registered by being there (a module with a ``CODE``); its spec in
  :mod:`qosmodels.mechanisms` names it by its ``kernel``;
* mechanisms that share a handler share a branch (``code == reno.CODE or code ==
  dctcp.CODE``), placed by the smallest code among them, so the branches come in
  code order (drop-tail and RED, NewReno first, the hot path);
* a handler is called with its own parameters, taken by name from the hook's;
* what a hook does for a code no mechanism claims is the contract's ``default``.

Run ``python -m qosmodels.sim._gen_dispatch`` after adding or changing a kernel
module's ``HOOKS``; ``tests/sim/test_gen_dispatch.py`` fails while the written
modules differ from what this generates.  Plain Python, run at development time;
it imports the kernel modules (and so Numba), the kernel never imports it.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import sys
import textwrap
from pathlib import Path

from .contract import HOOKS, OWNERS

__all__ = ["kernel_modules", "generate", "write", "main"]

#: Where the kernel lives, as a package and as a folder.
KERNELS = "qosmodels.sim._kernels"
_ROOT = Path(__file__).parent / "_kernels"
#: The package of each owner's kernel modules.
PACKAGES = {"queue": "queues", "source": "sources", "edge": "edges"}

#: Per dispatch module: its docstring's first paragraph, its decorator and the names its
#: hooks' defaults may use, with their imports.
_FILES = {
    "dispatch": dict(
        owners=("queue", "source"), decorator="handler",
        intro="The one place that knows every queue discipline and source: one function per "
              "hook, one branch per mechanism.",
        names={"np": "import numpy as np", "release": "from .pool import release"},
        tables=(("QUEUES", "queue"), ("SOURCES", "source")),
        after="The edge elements' hooks are in :mod:`.dispatch_edges` (the sender calls "
              "them, and the sources import the sender)."),
    "dispatch_edges": dict(
        owners=("edge",), decorator="rare_handler",
        intro="The hooks of edge elements (at an aggregate's ingress): one function per "
              "hook, one branch per element.",
        names={}, tables=(("EDGES", "edge"),),
        after="Apart from :mod:`.dispatch` because the sender (:mod:`.sender`, "
              ":mod:`.flows`) calls them and the sources import the sender.  Not inlined "
              "(``rare_handler``): only the flows behind an edge element pay a call, and the "
              "loop's compile time does not grow with each element's code."),
}


def kernel_modules() -> dict[str, list]:
    """Every kernel module, by owner, in code order: the modules with a ``CODE`` under each
    owner's package."""
    out = {}
    for owner in OWNERS:
        pkg = f"{KERNELS}.{PACKAGES[owner]}"
        mods = []
        for info in pkgutil.iter_modules([str(_ROOT / PACKAGES[owner])]):
            mod = importlib.import_module(f"{pkg}.{info.name}")
            if hasattr(mod, "CODE"):
                mods.append(mod)
        codes = [m.CODE for m in mods]
        dup = sorted({c for c in codes if codes.count(c) > 1})
        if dup:
            raise ValueError(f"{owner} kernel modules share CODE {dup}: "
                             f"{[m.__name__ for m in mods if m.CODE in dup]}; give each its "
                             f"own")
        out[owner] = sorted(mods, key=lambda m: m.CODE)
    return out


def _aliases(modules: dict[str, list]) -> dict[str, str]:
    """The name each kernel module is imported under: its own, or ``<name>_<owner>`` when
    another owner's module has the same name."""
    names = [m.__name__.rsplit(".", 1)[1] for mods in modules.values() for m in mods]
    out = {}
    for owner, mods in modules.items():
        for m in mods:
            base = m.__name__.rsplit(".", 1)[1]
            out[m.__name__] = base if names.count(base) == 1 else f"{base}_{owner}"
    return out


def _target(mod, hook, fn) -> tuple[str, str, tuple]:
    """``(module, function, parameters)`` of the handler ``mod.HOOKS[hook]`` names."""
    if isinstance(fn, str):
        where, _, name = fn.rpartition(".")
        fn = getattr(importlib.import_module(f"{KERNELS}.{where}"), name)
    py = getattr(fn, "py_func", fn)
    if not callable(py):
        raise TypeError(f"{mod.__name__}.HOOKS[{hook!r}] = {fn!r} is not a handler")
    return py.__module__, py.__name__, tuple(inspect.signature(py).parameters)


def _branches(hook, mods, aliases) -> list[tuple[list, str]]:
    """``(codes' module aliases, call)`` per handler of ``hook``, in code order."""
    groups: dict[tuple, list] = {}
    for m in mods:
        fn = getattr(m, "HOOKS", {}).get(hook.name)
        if fn is None:
            continue
        where, name, params = _target(m, hook.name, fn)
        extra = [q for q in params if q not in hook.params]
        if extra:
            raise ValueError(f"{m.__name__}.HOOKS[{hook.name!r}]: {where}.{name} takes "
                             f"{extra}, which {hook.name}{hook.params} does not pass")
        if where not in aliases:
            raise ValueError(f"{m.__name__}.HOOKS[{hook.name!r}]: {where}.{name} is not in a "
                             f"kernel module")
        call = f"{aliases[where]}.{name}({', '.join(params)})"
        groups.setdefault((where, name, call), []).append(aliases[m.__name__])
    return [(codes, call) for (_, _, call), codes in groups.items()]


def _hook_source(hook, mods, aliases, decorator) -> str:
    answer = hook.answer.replace("`", "``")
    doc = textwrap.fill(f'"""{answer[0].upper()}{answer[1:]}."""', 96,
                        initial_indent="    ", subsequent_indent="    ",
                        break_on_hyphens=False, break_long_words=False)
    lines = [f"@{decorator}", f"def {hook.name}({', '.join(hook.params)}):"] + doc.split("\n")
    branches = _branches(hook, mods, aliases)
    default = [d for d in hook.default.split("\n") if d] if hook.default else []
    for i, (codes, call) in enumerate(branches):
        test = " or ".join(f"code == {c}.CODE" for c in codes)
        kw = "if" if hook.returns or i == 0 else "elif"
        head = f"    {kw} {test}:"
        if len(head) > 100:
            parts = [f"code == {c}.CODE" for c in codes]
            head = f"    {kw} ({parts[0]}"
            for q in parts[1:]:
                if len(head.rsplit("\n", 1)[-1]) + len(q) + 5 > 96:
                    head += f"\n            or {q}"
                else:
                    head += f" or {q}"
            head += "):"
        lines.append(head)
        lines.append(f"        {'return ' if hook.returns else ''}{call}")
    if hook.returns or not branches:
        lines += [f"    {d}" for d in default]
    elif default:
        lines.append("    else:")
        lines += [f"        {d}" for d in default]
    if hook.after:
        lines.append(f"    {hook.after}")
    if not branches and not default and not hook.after:
        lines.append("    return None" if hook.returns else "    pass")
    return "\n".join(lines)


def _layout_names(text: str) -> set:
    from ._kernels import layout

    return {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)
            and n.id.isupper() and hasattr(layout, n.id)}


def generate(file: str) -> str:
    """The source of dispatch module ``file`` (``"dispatch"`` or ``"dispatch_edges"``)."""
    spec = _FILES[file]
    modules = kernel_modules()
    aliases = _aliases(modules)
    owners = spec["owners"]
    mods = {o: modules[o] for o in owners}
    hooks = [h for h in HOOKS if h.module == file]
    bodies = [_hook_source(h, mods[h.owner], aliases, spec["decorator"]) for h in hooks]
    text = "\n\n\n".join(bodies)
    layout = sorted(_layout_names(text) | ({"RINGS"} if file == "dispatch" else set()))
    used = {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
    imports = [spec["names"][n] for n in sorted(spec["names"]) if n in used]
    paragraphs = [
        f'"""{spec["intro"]}',
        "Written by :mod:`qosmodels.sim._gen_dispatch` from the kernel modules' ``HOOKS``: do "
        "not edit, run ``python -m qosmodels.sim._gen_dispatch``.  The engine and the generic "
        "handlers call these hooks with a mechanism's code (``LI_CODE`` of a link, ``FI_CODE`` "
        "of a flow, ``EI_CODE`` of an edge element); Numba compiles the loop once, the codes "
        "are data.", spec["after"]]
    head = "\n\n".join(textwrap.fill(t, 92, break_on_hyphens=False) for t in paragraphs)
    head = [head, '"""', ""]
    head += sorted(i for i in imports if i.startswith("import ")) + [""] if any(
        i.startswith("import ") for i in imports) else []
    froms = [("_jit", f"from ._jit import {spec['decorator']}")]
    if layout:
        froms.append(("layout", f"from .layout import {', '.join(layout)}"))
    froms += [(i.split()[1][1:], i) for i in imports if i.startswith("from ")]
    for owner in owners:
        pkg = PACKAGES[owner]
        bases = {m: m.__name__.rsplit(".", 1)[1] for m in modules[owner]}
        own = sorted(b for m, b in bases.items() if aliases[m.__name__] == b)
        if own:
            froms.append((pkg, f"from .{pkg} import (\n" + "".join(f"    {n},\n" for n in own)
                          + ")"))
        froms += sorted((pkg + " ~", f"from .{pkg} import {b} as {aliases[m.__name__]}")
                        for m, b in bases.items() if aliases[m.__name__] != b)
    head += [line for _, line in sorted(froms, key=lambda x: x[0])]
    head.append("")
    for table, owner in spec["tables"]:
        items = ", ".join(f'"{PACKAGES[owner]}.{m.__name__.rsplit(".", 1)[1]}": '
                          f"{aliases[m.__name__]}" for m in modules[owner])
        head.append(f"#: {owner.capitalize()} kernel modules by the ``kernel`` name their "
                    f"specs give.")
        head.append(_wrap(f"{table} = {{{items}}}"))
    head.append("")
    return "\n".join(head) + "\n\n" + text + "\n"


def _wrap(line: str, width: int = 100) -> str:
    """A long dict display broken after commas, continuation lines indented under ``{``."""
    if len(line) <= width:
        return line
    indent = " " * (line.index("{") + 1)
    out, cur = [], ""
    for piece in line.split(", "):
        add = piece if not cur else cur + ", " + piece
        if len(add) > width - 1 and cur:
            out.append(cur + ",")
            cur = indent + piece
        else:
            cur = add
    out.append(cur)
    return "\n".join(out)


def write() -> list[str]:
    """Write both dispatch modules; the names of those that changed."""
    changed = []
    for file in _FILES:
        path = _ROOT / f"{file}.py"
        text = generate(file)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            changed.append(str(path))
    return changed


def main(argv=None) -> int:
    """``python -m qosmodels.sim._gen_dispatch [--check]``: write (or check) the modules."""
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--check"]:
        stale = [f for f in _FILES if (_ROOT / f"{f}.py").read_text() != generate(f)]
        for f in stale:
            print(f"qosmodels/sim/_kernels/{f}.py is not what the kernel modules' HOOKS give; "
                  f"run python -m qosmodels.sim._gen_dispatch")
        return 1 if stale else 0
    for path in write():
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
