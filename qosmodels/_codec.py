"""Networks as plain data: dicts of JSON types, and JSON or YAML files.

:meth:`qosmodels.Network.to_dict` writes every field of every link, flow,
aggregate and mechanism spec (defaults included, so that a saved scenario
keeps its meaning if a default changes); a mechanism is a dict whose
``"type"`` names its class in :mod:`qosmodels.mechanisms`
(``{"type": "Red", "min_th": 20, ...}``).  :meth:`~qosmodels.Network.from_dict`
rebuilds the objects, through their own validation, so a hand-edited file
gets the same messages as code would; the result compares equal to the
network that was saved.

Non-finite floats (a token bucket's ``peak_rate = inf``) are written as
JSON's common extension ``Infinity`` (Python's :mod:`json` reads and writes
it) and as YAML's ``.inf``.
"""

from __future__ import annotations

import dataclasses
import json
import numbers
from pathlib import Path
from typing import Any

from .errors import MissingExtra, ScenarioError, ScenarioTypeError

__all__ = ["version", "plain", "build", "check_document", "write", "read", "mechanism_names", "FORMAT"]

#: Version of the layout :meth:`qosmodels.Network.to_dict` writes; ``from_dict`` refuses others.
FORMAT = 1


def version() -> str:
    """The installed qosmodels' version, as a saved file records it ("unknown" from a bare tree)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("qosmodels")
    except PackageNotFoundError:  # pragma: no cover - running from an uninstalled checkout
        return "unknown"


def plain(obj) -> dict[str, Any]:
    """The dataclass ``obj`` (a link, flow, aggregate or mechanism spec) as a dict of JSON
    types: every ``init`` field, and ``"type"`` for a mechanism spec."""
    from .mechanisms import Spec

    out: dict[str, Any] = {"type": type(obj).__name__} if isinstance(obj, Spec) else {}
    for f in dataclasses.fields(obj):
        if f.init:
            out[f.name] = _value(getattr(obj, f.name), f"{type(obj).__name__}.{f.name}")
    return out


def check_document(data, parts: tuple[str, ...]) -> None:
    """Raise unless ``data`` is a dict of this :data:`FORMAT` with only ``parts`` (lists),
    ``format`` and ``qosmodels`` as keys, and with ``parts[0]``."""
    if not isinstance(data, dict):
        raise ScenarioTypeError(f"Network.from_dict takes a dict (as Network.to_dict writes), "
                                f"got {type(data).__name__}")
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT:
        raise ScenarioError(f"Network.from_dict: format {fmt!r} is not supported (this version "
                            f"of qosmodels reads format {FORMAT})")
    unknown = set(data) - {"format", "qosmodels", *parts}
    if unknown:
        raise ScenarioError(f"Network.from_dict: unknown key(s) {sorted(unknown)}; a network has "
                            f"{', '.join(parts)} (and format, qosmodels)")
    if parts[0] not in data:
        raise ScenarioError(f"Network.from_dict: no {parts[0]!r}; a network needs at least one "
                            f"link")
    for part in parts:
        if not isinstance(data.get(part, []), list):
            raise ScenarioTypeError(f"Network.from_dict: {part!r} must be a list of dicts, got "
                                    f"{type(data[part]).__name__}")


def write(data: dict, path) -> Path:
    """Write ``data`` to ``path``: JSON, or YAML for a ``.yaml``/``.yml`` suffix."""
    path = Path(path)
    if path.suffix.lower() in (".yaml", ".yml"):
        path.write_text(_yaml().safe_dump(data, sort_keys=False))
    else:
        path.write_text(json.dumps(data, indent=2) + "\n")
    return path


def read(path) -> Any:
    """The data in ``path`` (JSON, or YAML for a ``.yaml``/``.yml`` suffix)."""
    path = Path(path)
    if not path.is_file():
        raise ScenarioError(f"no scenario file {str(path)!r}")
    text = path.read_text()
    try:
        if path.suffix.lower() in (".yaml", ".yml"):
            return _yaml().safe_load(text)
        return json.loads(text)
    except ValueError as exc:  # json.JSONDecodeError
        raise ScenarioError(f"{path}: not valid JSON: {exc}") from None
    except Exception as exc:
        if type(exc).__module__.startswith("yaml"):
            raise ScenarioError(f"{path}: not valid YAML: {exc}") from None
        raise


def _yaml():
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML comes with dask, the dist extra
        raise MissingExtra("YAML scenario files need PyYAML: pip install pyyaml (or use .json)") \
            from None
    return yaml


def _value(v, where: str):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        return float(v)
    if isinstance(v, (tuple, list)):
        return [_value(x, where) for x in v]
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return plain(v)
    raise ScenarioTypeError(f"Network.to_dict: {where} = {v!r} ({type(v).__name__}) has no "
                            f"plain-data form")  # a new field type: teach _value about it


def build(cls, item, where: str):
    """``cls(**item)``, its values decoded (lists to tuples, mechanism dicts to specs) and its
    keys checked against ``cls``'s fields; ``where`` names ``item`` in messages."""
    if not isinstance(item, dict):
        raise ScenarioTypeError(f"Network.from_dict: {where} must be a dict of fields, got "
                                f"{item!r}")
    names = {f.name for f in dataclasses.fields(cls) if f.init}
    unknown = set(item) - names - {"type"}
    if unknown:
        raise ScenarioError(f"Network.from_dict: {where} has unknown field(s) {sorted(unknown)}; "
                            f"{cls.__name__} takes {', '.join(sorted(names))}")
    kwargs = {k: _decode(v, f"{where}.{k}") for k, v in item.items() if k != "type"}
    return cls(**kwargs)


def _decode(v, where: str):
    if isinstance(v, list):
        return tuple(_decode(x, f"{where}[{i}]") for i, x in enumerate(v))
    if isinstance(v, dict):
        return build(_spec_class(v.get("type"), where), v, where)
    return v


def mechanism_names() -> list[str]:
    """The classes a ``"type"`` may name: every concrete spec of :mod:`qosmodels.mechanisms`."""
    from . import mechanisms

    return sorted(n for n in mechanisms.__all__ if n not in _BASES
                  and dataclasses.is_dataclass(getattr(mechanisms, n)))


_BASES = ("Spec", "QueueSpec", "SourceSpec", "EdgeSpec")


def _spec_class(name, where: str):
    from . import mechanisms

    if not (isinstance(name, str) and name in mechanism_names()):
        known = mechanism_names()
        raise ScenarioError(f"Network.from_dict: {where} has type {name!r}, which is not a "
                            f"mechanism; mechanisms are {', '.join(known)}")
    return getattr(mechanisms, name)
