"""Short representations for result dataclasses: one line in a console, a table in Jupyter.

A dataclass result with arrays would print every element; :class:`ShortRepr`
prints small arrays (up to :data:`MAX_SHOWN` elements) and the shape of the
others, and its ``_repr_html_`` adds the result's ``to_pandas()`` table.
Classes use it with ``@dataclass(repr=False)`` (a dataclass's own repr would
replace the mixin's).
"""

from __future__ import annotations

import dataclasses
import html

import numpy as np

__all__ = ["ShortRepr", "brief", "MAX_SHOWN"]

#: Arrays with more elements than this are shown by shape only.
MAX_SHOWN = 6


def brief(value) -> str:
    """``value`` in a few characters: small arrays in full, big ones by shape, long containers
    by length."""
    if isinstance(value, np.ndarray):
        if value.size <= MAX_SHOWN:
            return np.array2string(value, precision=4, separator=", ")
        return f"<array {'x'.join(map(str, value.shape))} {value.dtype}>"
    if isinstance(value, (list, tuple, dict)) and len(value) > MAX_SHOWN:
        return f"<{type(value).__name__} of {len(value)}>"
    if isinstance(value, float):
        return f"{value:.6g}"
    return repr(value)


class ShortRepr:
    """Mixin: ``repr`` with :func:`brief` fields, ``_repr_html_`` with the ``to_pandas()`` table."""

    def __repr__(self) -> str:
        fields = (f for f in dataclasses.fields(self) if f.repr)  # type: ignore[arg-type]
        inside = ", ".join(f"{f.name}={brief(getattr(self, f.name))}" for f in fields)
        return f"{type(self).__name__}({inside})"

    def _repr_html_(self) -> str:
        head = f"<p><code>{html.escape(repr(self))}</code></p>"
        to_pandas = getattr(self, "to_pandas", None)
        if to_pandas is None:
            return head
        return head + to_pandas().to_html(max_rows=20)
