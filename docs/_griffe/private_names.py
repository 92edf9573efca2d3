"""Griffe extension: the API reference shows no private name.

mkdocstrings filters out private members (``filters: ["!^_"]``), but private names still
reached the pages through three doors, which this extension closes when Griffe loads the
package (the source files are not touched):

* a base class from a private module that no public module exports (``Bases: ShortRepr``,
  ``qosmodels._repr``'s repr mixin) is dropped from the class's bases; a base a public module
  exports (``QueueSpec``, defined in ``qosmodels.mechanisms._base``) stays;
* a parameter whose default is a private module constant (``ack_size: int = _ACK_SIZE``) shows
  the constant's value instead (``= 40``);
* a public attribute whose value calls or names a private helper (``PAPER_TABLES = {...
  _zeros(4) ...}``) is shown without its value; its docstring says what it holds.

Loaded from mkdocs.yml with the other Griffe extensions.
"""

from __future__ import annotations

import re

import griffe

#: A private identifier inside an expression's text.
PRIVATE = re.compile(r"(?<![\w.])_[A-Za-z]\w*|\._[A-Za-z]\w*")


def _private_path(path: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in path.split("."))


class HidePrivateNames(griffe.Extension):
    """Drop private bases, inline private constants, hide values built from private helpers."""

    def __init__(self) -> None:
        super().__init__()
        self.exported: set[str] = set()

    def on_package(self, *, pkg: griffe.Module, **kwargs) -> None:
        # names a public module exports (its __all__): re-exported classes stay visible bases
        def walk(module: griffe.Module) -> None:
            if not _private_path(module.path) and module.exports:
                self.exported.update(str(name) for name in module.exports)
            for member in module.modules.values():
                if not member.is_alias:
                    walk(member)

        walk(pkg)
        self._visit(pkg)

    on_package_loaded = on_package  # (its name before Griffe 1.x)

    def _visit(self, obj: griffe.Object) -> None:
        for member in list(obj.members.values()):
            if member.is_alias or _private_path(member.name):
                continue
            if member.is_class:
                member.bases = [b for b in member.bases if not self._private_base(b)]
            if member.is_function:
                self._inline_defaults(member)
            if member.is_attribute and member.value is not None and PRIVATE.search(
                    str(member.value)):
                member.value = None
            if member.is_module or member.is_class:
                self._visit(member)

    def _private_base(self, base) -> bool:
        path = getattr(base, "canonical_path", str(base))
        return _private_path(path) and path.rsplit(".", 1)[-1] not in self.exported

    def _inline_defaults(self, func: griffe.Function) -> None:
        for param in func.parameters:
            default = param.default
            path = getattr(default, "canonical_path", None)
            if path is None or not _private_path(path):
                continue
            module_path, _, name = path.rpartition(".")
            try:
                const = func.modules_collection[module_path][name]
            except (KeyError, griffe.AliasResolutionError):
                continue
            if const.is_attribute and const.value is not None and not PRIVATE.search(
                    str(const.value)):
                param.default = const.value
