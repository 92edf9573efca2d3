"""Griffe extension: render the Sphinx markup used in qosmodels' docstrings as Markdown.

The docstrings are numpydoc, which cross-references with Sphinx roles
(``:class:`~qosmodels.Link```, ``:func:`allocate```) and writes display maths
with ``.. math::``.  mkdocstrings passes docstrings to Markdown, which knows
neither, so this extension rewrites them when Griffe loads the package:

* a role whose target is an object shown in the API reference becomes an
  autorefs cross-reference, ``[`Link`][qosmodels.network.Link]``;
* any other role (private helpers, other libraries, undocumented modules)
  becomes plain code, so that ``mkdocs build --strict`` never meets a
  reference it cannot resolve;
* ``:math:`x``` becomes ``$x$`` and a ``.. math::`` block becomes a ``$$``
  block, both typeset by pymdownx.arithmatex;
* a parameter type with a unit or a shape, ``capacity : float, bit/s``, is
  shown as written: Griffe would otherwise read ``float, bit/s`` as a Python
  tuple and display ``(float, bit / s)``.

Only the rendered docstrings change; the source files are not touched.
Loaded from mkdocs.yml (``extensions: [docs/_griffe/numpydoc_markdown.py:NumpydocMarkdown]``).
"""

from __future__ import annotations

import ast
import re
import textwrap

import griffe

#: Modules whose objects the API reference shows (docs/api/*.md): a page's module, and the
#: modules defining the classes a package's page shows as re-exports (qosmodels.mechanisms).
DOCUMENTED = {
    "qosmodels.network",
    "qosmodels.mechanisms",
    "qosmodels.mechanisms.droptail",
    "qosmodels.mechanisms.red",
    "qosmodels.mechanisms.priority",
    "qosmodels.mechanisms.random_loss",
    "qosmodels.mechanisms.tcp",
    "qosmodels.mechanisms.window",
    "qosmodels.mechanisms.open_loop",
    "qosmodels.topologies",
    "qosmodels.allocation",
    "qosmodels.allocation.result",
    "qosmodels.fairness",
    "qosmodels.units",
    "qosmodels.errors",
    "qosmodels.sim",
    "qosmodels.sim.simulate",
    "qosmodels.sim.result",
}
#: Modules whose page also shows members without a docstring (show_if_no_docstring).
SHOW_UNDOCUMENTED = {"qosmodels.topologies", "qosmodels.allocation"}

_ROLE = re.compile(r":(?:py:)?(class|func|meth|attr|mod|data|exc|obj|const):`(~?)([^`<>]+?)`")
_MATH_ROLE = re.compile(r":math:`([^`]+)`")
_MATH_BLOCK = re.compile(r"^([ \t]*)\.\. math::[ \t]*(.*)$")


class NumpydocMarkdown(griffe.Extension):
    """Rewrite Sphinx roles and maths in every docstring of the loaded package."""

    def on_package(self, *, pkg: griffe.Module, **kwargs) -> None:
        for obj in _walk(pkg):
            if obj.docstring is not None:
                obj.docstring.value = _convert(obj.docstring.value, obj, pkg)


def _walk(obj):
    yield obj
    for member in obj.members.values():
        if member.is_alias:
            continue
        yield from _walk(member)


def _convert(text: str, obj, pkg) -> str:
    text = _keep_written_types(_math_blocks(text))
    text = _MATH_ROLE.sub(lambda m: f"${m.group(1)}$", text)
    return _ROLE.sub(lambda m: _role(m, obj, pkg), text)


def _math_blocks(text: str) -> str:
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _MATH_BLOCK.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        indent, first = m.groups()
        body: list[str] = []
        i += 1
        while i < len(lines):  # the directive's body: lines indented deeper than it
            if not lines[i].strip():
                j = i + 1
                while j < len(lines) and not lines[j].strip():
                    j += 1
                if j < len(lines) and _indent(lines[j]) > len(indent):
                    body.append("")
                    i += 1
                    continue
                break
            if _indent(lines[i]) <= len(indent):
                break
            body.append(lines[i])
            i += 1
        maths = [first.strip()] if first.strip() else []
        maths += [x for x in textwrap.dedent("\n".join(body)).strip().splitlines() if x.strip()]
        out += ["", f"{indent}$$", *(indent + x for x in maths), f"{indent}$$", ""]
    return "\n".join(out)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


_TYPE_LINE = re.compile(r"^(\s*\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*\s+:\s+)(.+?)\s*$")
_NBSP = "\u00a0"


def _keep_written_types(text: str) -> str:
    """Stop Griffe from reading a type with a unit or a shape as a tuple.

    Griffe compiles each type as a Python expression, so ``float, bit/s``
    becomes a tuple.  Such a type gets a no-break space after its commas, which
    does not compile, so Griffe keeps the text as written (and it looks the
    same).  The numpydoc suffixes ``, optional`` and ``, default ...`` and
    choices in braces, which Griffe itself interprets, are left alone.
    """
    out = []
    for line in text.splitlines():
        m = _TYPE_LINE.match(line)
        if m and not m.group(2).startswith("{"):
            head, typ = m.groups()
            suffix = re.search(r"(, optional|,\s+default(?: |: |=).+)$", typ)
            if suffix:
                typ, suffix = typ[: suffix.start()], suffix.group(1)
            if _is_tuple(typ):
                line = head + typ.replace(", ", "," + _NBSP) + (suffix or "")
        out.append(line)
    return "\n".join(out)


def _is_tuple(annotation: str) -> bool:
    try:
        tree = ast.parse(annotation, mode="eval")
    except SyntaxError:
        return False
    return isinstance(tree.body, ast.Tuple)


def _role(m: re.Match, obj, pkg) -> str:
    kind, tilde, target = m.groups()
    target = target.strip()
    shown = target.rsplit(".", 1)[-1] if tilde else target.lstrip(".")
    if kind in ("meth", "func") and not shown.endswith(")"):
        shown += "()"
    path = _resolve(target, obj, pkg)
    if path is None:
        return f"`{shown}`"
    return f"[`{shown}`][{path}]"


def _resolve(target: str, obj, pkg) -> str | None:
    """The canonical path of ``target`` if the API reference shows it, else None."""
    candidates = []
    if target.startswith("."):
        module = obj if obj.is_module else obj.module
        candidates.append(module.path + target)
    elif target.startswith(pkg.name + ".") or target == pkg.name:
        candidates.append(target)
    else:
        scope = obj
        while scope is not None:  # the object, its class, its module, ...
            candidates.append(f"{scope.path}.{target}")
            scope = scope.parent
    for path in candidates:
        found = _lookup(pkg, path)
        if found is not None and _shown(found):
            return found.path
    return None


def _lookup(pkg, path: str):
    if path == pkg.name:
        return pkg
    if not path.startswith(pkg.name + "."):
        return None
    try:
        found = pkg[path[len(pkg.name) + 1:]]
    except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None
    try:
        return found.final_target if found.is_alias else found
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None


def _shown(obj) -> bool:
    if obj.is_module:
        return obj.path in DOCUMENTED
    if any(part.startswith("_") for part in obj.path.split(".")[1:]):
        return False
    module = obj.module.path
    if module not in DOCUMENTED:
        return False
    if obj.parent is not None and not obj.parent.is_module:  # a class member
        return obj.docstring is not None and _shown(obj.parent)
    return obj.docstring is not None or module in SHOW_UNDOCUMENTED
