"""The text form of a :class:`~qosmodels.experiments.ValidationReport`, summary first.

The report opens with one line per experiment (rows, reproduced, reachable,
known differences, fails, sanity rows, wall time) and one line per paper, then
the detail: rows grouped under their experiment's name and title, each showing
the quantity (with its unit), the paper's value, the theory, fluid and packets
sides (packets as mean±half-width), the expected value, an abbreviation of its
source, the tolerance of each present side and the verdict.  Notes (the row's
own, a known difference's cause and evidence, an explored band and the setting
that reaches the paper) are numbered and printed under their experiment.  The
width follows the terminal's (between :data:`MIN_WIDTH` and :data:`MAX_WIDTH`
columns; :data:`WIDTH` when standard output is not a terminal).
"""

from __future__ import annotations

import shutil
import textwrap

from .rows import PAPERS, SIDES, VERDICTS, Bounds, Check, _fmt

WIDTH = 120
MIN_WIDTH, MAX_WIDTH = 80, 200

#: The verdicts as the table's last column shows them.
VERDICT_ABBREV = {"reproduced": "ok", "reachable": "reach", "known difference": "known",
                  "fails": "FAIL"}


def terminal_width() -> int:
    """The width to render at: the terminal's, within [MIN_WIDTH, MAX_WIDTH], else WIDTH."""
    cols = shutil.get_terminal_size((WIDTH, 24)).columns
    return max(MIN_WIDTH, min(MAX_WIDTH, cols))

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
    verdict = VERDICT_ABBREV[c.verdict]
    if not c.ok:
        verdict += " " + ",".join(n[0] for n in c.failing)
    if c.sanity:
        verdict += " (sanity)"
    quantity = c.quantity + (f" [{c.unit}]" if c.unit else "") + marker
    return [quantity, _value(c.paper), *values, _value(c.expected), SOURCE_ABBREV[c.source],
            _tol(c), verdict]


def _row_notes(c: Check) -> list[str]:
    """The notes a row carries in the table: its own, its known difference, its band."""
    out = [c.note] if c.note else []
    v = c.verdict
    if c.known is not None and v in ("known difference", "fails"):
        head = (f"known difference ({c.known.cause})" if v == "known difference" else
                f"FAILS: declared as {c.known.cause} up to {c.known.max_error:.3g} relative "
                f"deviation, now {max(c.errors[n] for n in c.failing):.3g}")
        out.append(f"{head}: {c.known.note}")
    if c.stale:
        out.append(f"declared known difference ({c.known.cause}) no longer needed: the row "
                   f"reproduces; remove the declaration")
    if c.band is not None:
        text = f"explored: {_fmt(c.band[0])} to {_fmt(c.band[1])} over the unstated parameters"
        if c.reachable_at:
            text += "; reaches the reference at " + ", ".join(
                f"{k} = {_fmt(float(x))}" for k, x in c.reachable_at.items())
        out.append(text)
    return out


def shares(counts_row) -> tuple[float, float] | None:
    """The shares of a :meth:`ValidationReport.counts` line's rows (sanity rows apart) that
    are reproduced, and reproduced or reachable; None without such rows."""
    n_rows = int(counts_row["rows"])
    if not n_rows:
        return None
    rp = int(counts_row["reproduced"])
    return rp / n_rows, (rp + int(counts_row["reachable"])) / n_rows


def render_summary(report, width: int | None = None) -> str:
    """The totals, then one line per experiment and one per paper: rows, verdicts, sanity
    rows, time (per experiment), and per paper the shares of its rows reproduced (``%rep``)
    and reproduced or reachable (``%r+r``), sanity rows apart."""
    width = terminal_width() if width is None else width
    by_exp = report.counts("experiment")
    by_paper = report.counts("paper")
    short = {"reproduced": "reprod", "reachable": "reach", "known difference": "known",
             "fails": "FAILS"}
    head = ["rows", *(short[v] for v in VERDICTS), "sanity"]

    def table(df, label: str, names: dict[str, str], with_time: bool,
              with_shares: bool = False) -> list[str]:
        cols = head + (["s"] if with_time else []) + (["%rep", "%r+r"] if with_shares else [])
        body = []
        for key, r in df.iterrows():
            cells = [str(int(r["rows"])), *(str(int(r[v])) for v in VERDICTS),
                     str(int(r["sanity"]))]
            if with_time:
                cells.append(f"{r['seconds']:.1f}")
            if with_shares:
                got = shares(r)
                cells += [f"{100 * x:.0f}" for x in got] if got else ["-", "-"]
            body.append((names.get(key, key), cells))
        wn = [max(len(c[i]) for _, c in body + [("", cols)]) for i in range(len(cols))]
        numbers = sum(wn) + 2 * len(cols)
        wl = max(12, min(max(len(n) for n, _ in body + [(label, [])]), width - numbers))
        out = [label.ljust(wl) + "".join("  " + c.rjust(w) for c, w in zip(cols, wn))]
        for n, cells in body:
            n = n if len(n) <= wl else n[:wl - 1] + "…"
            out.append(n.ljust(wl) + "".join("  " + c.rjust(w) for c, w in zip(cells, wn)))
        return out

    # the totals first (the first lines a reader sees), then per experiment and per paper
    n = len(report.checks)
    n_fail = len(report.regressions)
    total = (f"{n} rows in {len(by_exp)} experiments: "
             + ", ".join(f"{int(by_exp[v].sum())} {v}" for v in VERDICTS)
             + f" ({int(by_exp['sanity'].sum())} sanity rows among them, counted apart)")
    lines = textwrap.wrap(total, width)
    if n_fail:
        bad = list(dict.fromkeys(c.experiment for c in report.regressions))
        lines += textwrap.wrap(f"{n_fail} rows fail (outside tolerance, not explained): "
                               f"in {', '.join(bad)}", width)
    if report.compile_seconds >= 1.0:
        lines.append(f"compiling the packet kernel took {report.compile_seconds:.1f} s, "
                     f"apart from the experiments' times")
    lines.append("")
    lines += table(by_exp, "experiment", {}, True)
    lines.append("")
    lines += table(by_paper, "paper", PAPERS, False, with_shares=True)
    lines.append("")
    if report.stale:
        lines += textwrap.wrap(f"{len(report.stale)} declared known differences now reproduce: "
                               + "; ".join(f"{c.experiment}: {c.quantity}"
                                           for c in report.stale), width)
    if not report.explored and any(c.verdict in ("known difference", "fails")
                                   for c in report.checks):
        lines += textwrap.wrap("not explored: `qosmodels validate --explore` runs the experiments "
                               "again over their unstated parameters and marks the rows a "
                               "setting reaches", width)
    return "\n".join(lines)


def render(report, titles: dict[str, str], width: int | None = None) -> str:
    """The report as text no wider than ``width`` columns (the terminal's when None): the
    summary, then the table (titles and notes wrap); ``titles`` maps experiment names to
    the headings shown above their rows."""
    width = terminal_width() if width is None else width
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
            marks = [notes.setdefault(t, len(notes) + 1) for t in _row_notes(c)]
            marker = "".join(f" [{k}]" for k in marks)
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

    lines = render_summary(report, width).split("\n") + [""]
    lines += line(list(head))
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
        split = {v: sum(1 for c in report.failures if c.verdict == v)
                 for v in ("known difference", "reachable", "fails")}
        lines.extend(textwrap.wrap(
            f"{len(report.checks)} checks in {n_exp} experiments, {n_bad} outside tolerance "
            f"(in {', '.join(bad)}): {split['known difference']} declared known differences, "
            f"{split['reachable']} reachable, {split['fails']} not explained (verdict FAIL)",
            width))
    else:
        lines.append(f"{len(report.checks)} checks in {n_exp} experiments, all within tolerance")
    legend = ("source: P:meas = paper (measured), P:stat = paper (stated), closed = closed form, "
              "indep = independent implementation.  tol: tolerance of each present side, in "
              "column order, relative to expected (absolute where expected is 0; for a range "
              "[lo,hi], relative to the nearer end).  packets: mean±95% half-width over seeds.  "
              "verdict: ok = reproduced; reach = reachable at a setting of the unstated parameters "
              "(--explore); known = a declared known difference (cause and evidence in the "
              "notes); FAIL = outside tolerance and not explained; then the sides outside "
              "tolerance (t, f, p); (sanity) = cannot fail by construction, counted apart.")
    if report.quick:
        legend += "  Quick form: short horizons, few seeds, wider packet tolerances."
    lines.extend(textwrap.wrap(legend, width))
    return "\n".join(lines)
