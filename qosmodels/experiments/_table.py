"""The text table of a :class:`~qosmodels.experiments.ValidationReport`, within 120 columns.

Rows are grouped under their experiment's name and title; each row shows the
quantity (with its unit), the paper's value, the theory, fluid and packets
sides (packets as mean±half-width), the expected value, an abbreviation of its
source, the tolerance of each present side and the verdict.  Notes are
numbered and printed under their experiment.
"""

from __future__ import annotations

import textwrap

from .rows import SIDES, Bounds, Check, _fmt

WIDTH = 120

#: Abbreviations of :data:`~qosmodels.experiments.rows.SOURCES` in the table.
SOURCE_ABBREV = {
    "paper (measured)": "P:meas",
    "paper (stated)": "P:stat",
    "closed form": "closed",
    "independent implementation": "indep",
}


def _value(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, Bounds):
        return str(x).replace(" ", "")
    return _fmt(x)


def _tol(c: Check) -> str:
    tols = [f"{s.tolerance:.2g}".replace("e-0", "e-") for s in c.sides.values()]
    return tols[0] if len(set(tols)) == 1 else "/".join(tols)


def _cells(c: Check, marker: str, sides: tuple[str, ...]) -> list[str]:
    values = [str(getattr(c, n)) if getattr(c, n) is not None else "-" for n in sides]
    verdict = "ok" if c.ok else "FAIL " + ",".join(n[0] for n in c.failing)
    quantity = c.quantity + (f" [{c.unit}]" if c.unit else "") + marker
    return [quantity, _value(c.paper), *values, _value(c.expected), SOURCE_ABBREV[c.source],
            _tol(c), verdict]


def render(report, titles: dict[str, str], width: int = WIDTH) -> str:
    """The report as a text table no wider than ``width`` columns (titles and notes wrap);
    ``titles`` maps experiment names to the headings shown above their rows."""
    sides = tuple(n for n in SIDES if n in report.sides)
    head = ("quantity", "paper", *sides, "expected", "source", "tol", "verdict")
    n_num = 2 + len(sides)  # paper, the sides and expected are right-aligned
    groups: dict[str, list[Check]] = {}
    for c in report.checks:
        groups.setdefault(c.experiment, []).append(c)

    # numbered notes, per experiment
    blocks = []
    for name, rows in groups.items():
        notes: dict[str, int] = {}
        cells = []
        for c in rows:
            marker = ""
            if c.note:
                k = notes.setdefault(c.note, len(notes) + 1)
                marker = f" [{k}]"
            cells.append(_cells(c, marker, sides))
        blocks.append((name, cells, notes))

    all_cells = [list(head)] + [r for _, cells, _ in blocks for r in cells]
    widths = [max(len(r[i]) for r in all_cells) for i in range(len(head))]
    indent = 2
    rest = indent + sum(widths[1:]) + 2 * (len(head) - 1)
    widths[0] = max(16, min(widths[0], width - rest))

    def line(cells):
        q = textwrap.wrap(cells[0], widths[0]) or [""]
        first = "  ".join([q[0].ljust(widths[0])] + [s.rjust(w) if i <= n_num else s.ljust(w)
                                                      for i, (s, w) in
                                                      enumerate(zip(cells[1:], widths[1:]), 1)])
        out = [" " * indent + first.rstrip()]
        out += [" " * (indent + 2) + extra for extra in textwrap.wrap(" ".join(q[1:]),
                                                                      widths[0] - 2)]
        return out

    lines = line(list(head))
    lines.append(" " * indent + "  ".join("-" * w for w in widths))
    for name, cells, notes in blocks:
        title = titles.get(name, "")
        lines.extend(textwrap.wrap(f"{name}: {title}" if title else name, width,
                                   subsequent_indent="    "))
        for r in cells:
            lines.extend(line(r))
        for text, k in notes.items():
            lines.extend(textwrap.wrap(f"[{k}] {text}", width, initial_indent=" " * (indent + 2),
                                       subsequent_indent=" " * (indent + 6)))
    n_bad = len(report.failures)
    n_exp = len(groups)
    lines.append("")
    if n_bad:
        bad = sorted({c.experiment for c in report.failures}, key=list(groups).index)
        lines.extend(textwrap.wrap(
            f"{len(report.checks)} checks in {n_exp} experiments, {n_bad} outside tolerance "
            f"(in {', '.join(bad)})", width))
    else:
        lines.append(f"{len(report.checks)} checks in {n_exp} experiments, all within tolerance")
    legend = ("source: P:meas = paper (measured), P:stat = paper (stated), closed = closed form, "
              "indep = independent implementation.  tol: tolerance of each present side, in "
              "column order, relative to expected (absolute where expected is 0; for a range "
              "[lo,hi], relative to the nearer end).  packets: mean±95% half-width over seeds.  "
              "verdict: FAIL and the failing sides (t, f, p).")
    if report.quick:
        legend += "  Quick form: short horizons, few seeds, wider packet tolerances."
    lines.extend(textwrap.wrap(legend, width))
    return "\n".join(lines)
