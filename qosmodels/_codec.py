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

__all__ = ["to_dict", "from_dict", "save", "load", "FORMAT"]

#: Version of the layout written by :func:`to_dict`; :func:`from_dict` refuses others.
FORMAT = 1

_PARTS = ("links", "flows", "aggregates")


def to_dict(network) -> dict[str, Any]:
    """``network`` as a dict of JSON types (see the module docstring)."""
    from . import __version__

    out: dict[str, Any] = {"format": FORMAT, "qosmodels": __version__}
    for part in _PARTS:
        out[part] = [_fields(obj) for obj in getattr(network, part)]
    return out


def from_dict(data) -> Any:
    """The :class:`~qosmodels.Network` that :func:`to_dict` wrote as ``data``."""
    from .network import Aggregate, Flow, Link, Network

    if not isinstance(data, dict):
        raise ScenarioTypeError(f"Network.from_dict takes a dict (as Network.to_dict writes), "
                                f"got {type(data).__name__}")
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT:
        raise ScenarioError(f"Network.from_dict: format {fmt!r} is not supported (this version "
                            f"of qosmodels reads format {FORMAT})")
    unknown = set(data) - {"format", "qosmodels", *_PARTS}
    if unknown:
        raise ScenarioError(f"Network.from_dict: unknown key(s) {sorted(unknown)}; a network has "
                            f"{', '.join(_PARTS)} (and format, qosmodels)")
    if "links" not in data:
        raise ScenarioError("Network.from_dict: no 'links'; a network needs at least one link")
    parts = {}
    for part, cls in zip(_PARTS, (Link, Flow, Aggregate)):
        items = data.get(part, [])
        if not isinstance(items, list):
            raise ScenarioTypeError(f"Network.from_dict: {part!r} must be a list of dicts, got "
                                    f"{type(items).__name__}")
        parts[part] = [_build(cls, item, f"{part}[{i}]") for i, item in enumerate(items)]
    return Network(**parts)


def save(network, path) -> Path:
    """Write ``network`` to ``path``: JSON, or YAML for a ``.yaml``/``.yml`` suffix."""
    path = Path(path)
    data = to_dict(network)
    if path.suffix.lower() in (".yaml", ".yml"):
        path.write_text(_yaml().safe_dump(data, sort_keys=False))
    else:
        path.write_text(json.dumps(data, indent=2) + "\n")
    return path


def load(path):
    """The network saved in ``path`` (JSON, or YAML for a ``.yaml``/``.yml`` suffix)."""
    path = Path(path)
    if not path.is_file():
        raise ScenarioError(f"no scenario file {str(path)!r}")
    text = path.read_text()
    try:
        if path.suffix.lower() in (".yaml", ".yml"):
            data = _yaml().safe_load(text)
        else:
            data = json.loads(text)
    except ValueError as exc:  # json.JSONDecodeError
        raise ScenarioError(f"{path}: not valid JSON: {exc}") from None
    except Exception as exc:
        if type(exc).__module__.startswith("yaml"):
            raise ScenarioError(f"{path}: not valid YAML: {exc}") from None
        raise
    try:
        return from_dict(data)
    except ScenarioError as exc:
        raise type(exc)(f"{path}: {exc}") from None


def _yaml():
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML comes with dask, the dist extra
        raise MissingExtra("YAML scenario files need PyYAML: pip install pyyaml (or use .json)") \
            from None
    return yaml


def _fields(obj) -> dict[str, Any]:
    from .mechanisms import Spec

    out: dict[str, Any] = {"type": type(obj).__name__} if isinstance(obj, Spec) else {}
    for f in dataclasses.fields(obj):
        if f.init:
            out[f.name] = _value(getattr(obj, f.name), f"{type(obj).__name__}.{f.name}")
    return out


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
        return _fields(v)
    raise ScenarioTypeError(f"Network.to_dict: {where} = {v!r} ({type(v).__name__}) has no "
                            f"plain-data form")  # a new field type: teach _value about it


def _build(cls, item, where: str):
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
        return _build(_spec_class(v.get("type"), where), v, where)
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
