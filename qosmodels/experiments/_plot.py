"""The validation report as a picture: every row's sides against its reference and tolerance.

:meth:`ValidationReport.plot <qosmodels.experiments.ValidationReport.plot>` draws one line
per row (a forest plot).  Rows carry different units, so the horizontal axis is the one
scale the verdicts are judged on: each side's deviation from the row's reference, relative
(absolute where the reference is 0) and signed (left: below the reference, right: above),
as :meth:`Side.error <qosmodels.experiments.Side.error>` measures it, whose magnitude it is.
For a reference that is a range (:class:`~qosmodels.experiments.Bounds`) the deviation is 0
inside the range and, outside, the distance to the nearer end relative to that end.

On each line: the primary side's tolerance as a shaded bar (coloured by the row's verdict),
one marker per side (theory, fluid, packets; a packets side's 95% interval as a whisker),
the span that ``validate(explore=True)`` measured over the declared unstated parameters
(:attr:`Check.band <qosmodels.experiments.Check.band>`) as a grey bar, and the paper's own
value where it differs from the reference (a hollow diamond).  The axis is linear within
+-``linthresh`` and logarithmic beyond, so that a row 5% off and one 300% off fit in one
picture.

``kind="counts"`` draws instead one stacked bar per paper (or experiment): its rows by verdict,
in the verdicts' colours, and its sanity rows apart (hatched grey), each bar labelled with its
share reproduced and reproduced or reachable.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Iterable

from ..errors import ScenarioError, ScenarioTypeError
from .rows import PAPERS, SIDES, VERDICTS, Bounds, Check, signed_deviation

__all__ = ["signed_deviation", "plot_report", "VERDICT_COLORS", "SIDE_MARKERS"]

#: The colour of each verdict's tolerance bar and markers.
VERDICT_COLORS = {"reproduced": "tab:green", "reachable": "tab:blue",
                  "known difference": "tab:orange", "fails": "tab:red"}
#: The marker of each side.
SIDE_MARKERS = {"theory": "o", "fluid": "s", "packets": "^"}
#: Longest row label, characters (longer labels end with an ellipsis).
LABEL_CHARS = 60


def _names(arg, allowed: Iterable[str], what: str) -> set[str] | None:
    """``arg`` (None, a str or an iterable of str) as a set checked against ``allowed``."""
    if arg is None:
        return None
    items = [arg] if isinstance(arg, str) else arg
    try:
        items = list(items)
    except TypeError:
        raise ScenarioTypeError(f"plot({what}=...) must be None, a str or a list of str, got "
                                f"{arg!r}") from None
    if not items or not all(isinstance(x, str) for x in items):
        raise ScenarioTypeError(f"plot({what}=...) must be None, a str or a non-empty list of "
                                f"str, got {arg!r}")
    allowed = list(allowed)
    unknown = [x for x in items if x not in allowed]
    if unknown:
        raise ScenarioError(f"plot({what}=...): {unknown} not in this report; it has "
                            f"{', '.join(map(repr, allowed))}")
    return set(items)


def _short(text: str) -> str:
    """``text`` cut to :data:`LABEL_CHARS` characters, with an ellipsis."""
    return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"


def _label(c: Check) -> str:
    return _short(f"{c.experiment}: {c.quantity}" + (" [sanity]" if c.sanity else ""))


def plot_report(report, ax: Any = None, *, kind: str = "rows", by: str = "paper",
                experiments=None, verdicts=None, max_rows: int = 60, linthresh: float = 0.1,
                **kwargs: Any) -> Any:
    """Draw ``report``'s rows or their counts (see the module docstring); what
    :meth:`ValidationReport.plot <qosmodels.experiments.ValidationReport.plot>` calls."""
    from .._plot import panels

    if kind not in ("rows", "counts"):
        raise ScenarioError(f"plot(kind=...) must be 'rows' (one line per row) or 'counts' (the "
                            f"verdicts per paper or experiment), got {kind!r}")
    if by not in ("paper", "experiment"):
        raise ScenarioError(f"plot(by=...) must be 'paper' or 'experiment', got {by!r}")
    if isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 1:
        raise ScenarioError(f"plot(max_rows=...) must be an int >= 1, got {max_rows!r}")
    if isinstance(linthresh, bool) or not isinstance(linthresh, (int, float)) \
            or not linthresh > 0 or not math.isfinite(linthresh):
        raise ScenarioError(f"plot(linthresh=...) must be a finite number > 0 (the relative "
                            f"deviation below which the axis is linear), got {linthresh!r}")
    present = list(dict.fromkeys(c.experiment for c in report.checks))
    want_exp = _names(experiments, present, "experiments")
    want_verdict = _names(verdicts, VERDICTS, "verdicts")
    rows = [c for c in report.checks
            if (want_exp is None or c.experiment in want_exp)
            and (want_verdict is None or c.verdict in want_verdict)]
    if not rows:
        raise ScenarioError(f"plot: no row of this report has experiment in {experiments!r} "
                            f"and verdict in {verdicts!r}; nothing to draw")
    if kind == "counts":
        return _plot_counts(replace(report, checks=tuple(rows)), ax, by, **kwargs)
    shown = rows[:max_rows]
    n = len(shown)
    ax = panels(ax, 1, figsize=(9.0, 1.6 + 0.3 * n))[0]
    lo_x = hi_x = 0.0
    seen = set()
    for i, c in enumerate(shown):
        y = n - 1 - i
        color = VERDICT_COLORS[c.verdict]
        tol = c.tolerance
        ax.barh(y, 2 * tol, left=-tol, height=0.7, color=color, alpha=0.25, linewidth=0)
        if tol == 0:  # a zero tolerance: a stroke at the reference, in the verdict's colour
            ax.plot([0.0], [y], linestyle="none", marker="|", markersize=12, markeredgewidth=2,
                    color=color, zorder=2.5)
        hi_x = max(hi_x, tol)
        lo_x = min(lo_x, -tol)
        if c.band is not None:
            b = sorted(signed_deviation(v, c.expected) for v in c.band)
            if all(math.isfinite(v) for v in b):
                ax.plot(b, [y, y], color="0.45", linewidth=4, alpha=0.5, solid_capstyle="butt")
                seen.add("band")
                lo_x, hi_x = min(lo_x, b[0]), max(hi_x, b[1])
        for name in SIDES:
            s = getattr(c, name)
            if s is None:
                continue
            x = signed_deviation(s.value, c.expected)
            if not math.isfinite(x):
                continue
            if s.ci is not None and math.isfinite(s.ci) and s.ci > 0:
                e = sorted(signed_deviation(s.value + d, c.expected) for d in (-s.ci, s.ci))
                ax.plot(e, [y, y], color=color, linewidth=1)
            ax.plot([x], [y], **{**dict(linestyle="none", marker=SIDE_MARKERS[name],
                                        color=color, markeredgecolor="k",
                                        markeredgewidth=0.5), **kwargs})
            seen.add(name)
            lo_x, hi_x = min(lo_x, x), max(hi_x, x)
        if c.paper is not None and not isinstance(c.paper, Bounds) \
                and not isinstance(c.expected, Bounds) and c.paper != c.expected:
            x = signed_deviation(c.paper, c.expected)
            ax.plot([x], [y], linestyle="none", marker="D", markerfacecolor="none",
                    markeredgecolor="k")
            seen.add("paper")
            lo_x, hi_x = min(lo_x, x), max(hi_x, x)
    ax.axvline(0.0, color="k", linewidth=0.8, zorder=1.5)
    ax.set_xscale("symlog", linthresh=linthresh)
    ax.set_xlim(_padded(lo_x, linthresh, -1.0), _padded(hi_x, linthresh, 1.0))
    ax.set_yticks(range(n))
    ax.set_yticklabels([_label(c) for c in reversed(shown)], fontsize=8)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel(f"deviation from the reference (signed, relative; linear within +-{linthresh:g})")
    counts = {v: sum(c.verdict == v for c in shown) for v in VERDICTS}
    title = f"{n} rows: " + ", ".join(f"{k} {v}" for v, k in counts.items() if k)
    more = len(rows) - n
    if more:
        title += f"\n({more} more not shown: raise max_rows or pass experiments= or verdicts=)"
    ax.set_title(title, fontsize=9)
    ax.legend(handles=_legend(counts, seen), fontsize=7, loc="upper left",
              bbox_to_anchor=(1.01, 1.0))
    return ax


def _padded(x: float, linthresh: float, sign: float) -> float:
    """The axis end a little beyond ``x`` in direction ``sign`` (+1 right, -1 left) on the
    symlog scale: a tenth of the linear region within it, a fifth of a decade beyond."""
    if abs(x) <= linthresh:
        return x + sign * 0.1 * linthresh
    return x * 10 ** 0.2


def _legend(counts: dict, seen: set) -> list:
    """Legend entries: the verdicts drawn (their tolerance colour), then the marks drawn."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    out = [Patch(color=VERDICT_COLORS[v], alpha=0.25, label=f"tolerance, {v}")
           for v, k in counts.items() if k]
    out += [Line2D([], [], linestyle="none", marker=SIDE_MARKERS[s], color="0.8",
                   markeredgecolor="k", markeredgewidth=0.5, label=s)
            for s in SIDES if s in seen]
    if "band" in seen:
        out.append(Line2D([], [], color="0.45", linewidth=4, alpha=0.5, label="explored span"))
    if "paper" in seen:
        out.append(Line2D([], [], linestyle="none", marker="D", markerfacecolor="none",
                          markeredgecolor="k", label="the paper's value"))
    return out


def _plot_counts(report, ax: Any, by: str, **kwargs: Any) -> Any:
    """One stacked bar per paper or experiment of ``report.counts(by)`` (first appearance
    first, top down): the rows by verdict, then the sanity rows (counted apart); ``kwargs`` go
    to ``barh``."""
    from .._plot import panels
    from ._table import shares

    table = report.counts(by)
    n = len(table)
    ax = panels(ax, 1, figsize=(9.0, 1.6 + 0.35 * n))[0]
    labels = []
    for i, (key, g) in enumerate(table.iterrows()):
        y = n - 1 - i
        left = 0
        for v in (*VERDICTS, "sanity"):
            if g[v]:
                style = (dict(color="0.8", hatch="//", edgecolor="0.5") if v == "sanity"
                         else dict(color=VERDICT_COLORS[v]))
                ax.barh(y, int(g[v]), left=left, height=0.7, linewidth=0, **{**style, **kwargs})
                left += int(g[v])
        got = shares(g)
        if got:
            ax.text(left, y, f"  {got[0]:.0%} reproduced, {got[1]:.0%} with reachable",
                    va="center", fontsize=7)
        labels.append(_short(PAPERS.get(key, key) if by == "paper" else key))
    ax.set_yticks(range(n))
    ax.set_yticklabels(list(reversed(labels)), fontsize=8)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlim(0, int((table["rows"] + table["sanity"]).max()) * 1.9)
    ax.set_xlabel("rows")
    ax.set_title(f"{len(report.checks)} rows by verdict, per {by} (sanity rows apart)",
                 fontsize=9)
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=VERDICT_COLORS[v], label=v) for v in VERDICTS]
              + [Patch(facecolor="0.8", hatch="//", edgecolor="0.5", label="sanity")],
              fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return ax
