"""One convention for every result's ``plot(ax=None, **kwargs)``.

- ``ax=None``: a new figure with all the result's panels.
- ``ax`` one matplotlib Axes: the first (main) panel is drawn there, so a
  result fits into a figure of the user's own.
- ``ax`` a sequence (or array) of Axes: one per panel, in order; fewer Axes
  than panels draws the first ones.
- The return value is what was drawn on: one Axes for one panel, else a
  numpy array of Axes.
- ``**kwargs`` go to the Matplotlib call that draws the result's own data
  (``plot``, ``step`` or ``bar``), not to reference lines.
"""

from __future__ import annotations

import numpy as np

from .errors import ScenarioTypeError

__all__ = ["panels", "drawn"]


def panels(ax, n: int, *, rows: bool = False, figsize=None, sharex: bool = False) -> list:
    """The Axes to draw up to ``n`` panels on (see the module docstring).

    ``rows``: a new figure stacks the panels vertically (True) or side by side.
    """
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    if ax is None:
        shape = (n, 1) if rows else (1, n)
        if figsize is None:
            figsize = (8, 2.8 * n) if rows else (5 * n, 3.5)
        _, axes = plt.subplots(*shape, figsize=figsize, sharex=sharex and rows, squeeze=False,
                               constrained_layout=True)
        return list(axes.ravel())
    if isinstance(ax, Axes):
        return [ax]
    axes = list(np.asarray(ax, dtype=object).ravel())
    if not axes or not all(isinstance(a, Axes) for a in axes):
        raise ScenarioTypeError(f"plot: ax must be None, a matplotlib Axes or a sequence of Axes "
                                f"(one per panel), got {ax!r}")
    return axes[:n]


def drawn(axes: list):
    """What ``plot`` returns: the one Axes, or an array of them."""
    if len(axes) == 1:
        return axes[0]
    out = np.empty(len(axes), dtype=object)
    out[:] = axes
    return out
