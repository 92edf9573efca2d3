"""Sliders for teaching notebooks: live in Jupyter, a still figure everywhere else.

:func:`interact` is :func:`ipywidgets.interact` for the notebooks' "try it"
cells, with plain :func:`slider` specifications instead of widget objects::

    from qosmodels.notebook import interact, slider

    @interact(alpha=slider(1.0, 0.25, 32, log=True), n_links=slider(3, 2, 8, label="links N"))
    def show(alpha, n_links):
        ...  # draw one figure for these values

In Jupyter with ipywidgets installed (the ``notebooks`` extra) each slider
redraws the figure.  Where widgets cannot run, the function is called once
with the sliders' starting values and a line says which sliders Jupyter
would show, so the figure is an ordinary cell output:

- when the documentation is built (``mkdocs build`` sets
  ``QOSMODELS_STATIC_WIDGETS=1`` for the notebooks it runs, so the pages show
  the figure without the ipywidgets JavaScript);
- when ipywidgets is not installed (the line then says how to install it);
- when ``QOSMODELS_STATIC_WIDGETS=1`` is set by hand, for example to export a
  notebook to PDF.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from . import _validate as v
from .errors import ScenarioError, ScenarioTypeError

__all__ = ["Slider", "slider", "interact", "STATIC_ENV"]

#: Environment variable that makes :func:`interact` draw once, without widgets.
STATIC_ENV = "QOSMODELS_STATIC_WIDGETS"

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Slider:
    """A slider's specification; build it with :func:`slider`.

    Attributes
    ----------
    value, low, high : float or int
        Starting value and range (``low <= value <= high``).
    step : float or int
        Step between positions; for a logarithmic slider, in decades
        (powers of ten).
    log : bool
        Logarithmic scale (``low > 0``).
    label : str or None
        Text beside the slider; the parameter's name when None.
    integer : bool
        Whole numbers only (``value``, ``low``, ``high`` and ``step`` are ints).
    """

    value: float
    low: float
    high: float
    step: float
    log: bool = False
    label: str | None = None
    integer: bool = False

    def widget(self, name: str) -> Any:
        """The ipywidgets slider for parameter ``name`` (ipywidgets must be installed)."""
        import ipywidgets

        kw = dict(value=self.value, min=self.low, max=self.high, step=self.step,
                  description=self.text(name), continuous_update=False)
        if self.integer:
            return ipywidgets.IntSlider(**kw)
        if self.log:  # FloatLogSlider's range is in exponents
            return ipywidgets.FloatLogSlider(**kw | dict(base=10, min=math.log10(self.low),
                                                         max=math.log10(self.high)))
        return ipywidgets.FloatSlider(**kw)

    def text(self, name: str) -> str:
        """The slider's label: :attr:`label`, or the parameter's name."""
        return self.label or name

    def describe(self, name: str) -> str:
        """``label (low to high)``, for the line printed when there are no widgets."""
        return f"{self.text(name)} ({self.low:g} to {self.high:g}{', log scale' if self.log else ''})"


def slider(value: float, low: float, high: float, step: float | None = None, *, log: bool = False,
           label: str | None = None) -> Slider:
    """Specify a slider for :func:`interact`.

    Parameters
    ----------
    value : float or int
        Starting value, the one drawn when widgets cannot run.
    low, high : float or int
        Range, ``low < high``, ``low <= value <= high``.  When ``value``,
        ``low`` and ``high`` are all ints (and ``step`` is an int or None)
        the slider moves in whole numbers.
    step : float, optional
        Step between positions (default: a hundredth of the range, 1 for
        whole numbers, a twentieth of the range in decades for ``log``).
    log : bool
        Logarithmic scale; ``low`` must then be > 0 and ``step`` is in
        decades (powers of ten).
    label : str, optional
        Text beside the slider (default: the parameter's name).

    Returns
    -------
    Slider

    Raises
    ------
    ScenarioError
        A range that is empty or does not hold the value, a step <= 0, or a
        logarithmic range that reaches 0.
    """
    if not isinstance(log, bool):
        raise ScenarioTypeError(f"slider.log must be True or False, got {log!r}")
    if label is not None and not isinstance(label, str):
        raise ScenarioTypeError(f"slider.label must be a string or None, got {label!r}")
    whole = not log and all(_is_int(x) for x in (value, low, high)) and (step is None or _is_int(step))
    lo = v.real("slider", "low", low)
    hi = v.real("slider", "high", high, gt=lo)
    val = v.real("slider", "value", value, ge=lo, le=hi)
    if log and lo <= 0:
        raise ScenarioError(f"slider.low must be > 0 on a logarithmic slider, got {low!r}; "
                            f"use log=False or a positive low end")
    if step is None:
        st = 1 if whole else ((math.log10(hi) - math.log10(lo)) / 20 if log else (hi - lo) / 100)
    else:
        st = v.real("slider", "step", step, gt=0)
    if whole:
        return Slider(int(val), int(lo), int(hi), int(st), label=label, integer=True)
    return Slider(val, lo, hi, float(st), log=log, label=label)


def _is_int(x: object) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _static() -> bool:
    return os.environ.get(STATIC_ENV, "") not in ("", "0")


def interact(**sliders: Slider) -> Callable[[F], F]:
    """Decorate a drawing function with sliders (see the module's description).

    Parameters
    ----------
    **sliders : Slider
        One :func:`slider` per parameter of the decorated function, by name.

    Returns
    -------
    decorator
        It shows the sliders and the figure (or draws once with the starting
        values) and returns the function unchanged, so it can still be called
        directly.

    Raises
    ------
    ScenarioTypeError
        A value that is not a :class:`Slider`, or no sliders at all.
    """
    if not sliders:
        raise ScenarioTypeError("interact needs at least one slider: interact(name=slider(value, low, high))")
    for name, s in sliders.items():
        if not isinstance(s, Slider):
            raise ScenarioTypeError(f"interact: {name}= must be a slider(value, low, high), got {s!r}")

    def decorate(fn: F) -> F:
        static = _static()
        if not static:
            try:
                import ipywidgets
            except ImportError:
                pass
            else:
                ipywidgets.interact(fn, **{name: s.widget(name) for name, s in sliders.items()})
                return fn
        fn(**{name: s.value for name, s in sliders.items()})
        ranges = ", ".join(s.describe(name) for name, s in sliders.items())
        start = ", ".join(f"{s.text(name)} = {s.value:g}" for name, s in sliders.items())
        hint = "" if static else " (install ipywidgets, or qosmodels[notebooks], for live sliders)"
        print(f"Drawn at {start}. In Jupyter, sliders move {ranges}{hint}.")
        return fn

    return decorate
