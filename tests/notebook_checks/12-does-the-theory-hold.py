# Checks run in the kernel of notebooks/12-does-the-theory-hold.ipynb after it has run
# (tests/test_notebooks_examples.py): the verdicts the notebook reads hold together.
# ruff: noqa: F821
import io as _io
import math as _math

from qosmodels.experiments import VERDICTS as _VERDICTS
from qosmodels.experiments import paper_of as _paper_of

# no row of the two experiments fails, in either run, and every row has one of the verdicts
assert report.passed and explored.passed
assert all(c.verdict in _VERDICTS for c in explored.checks)
# exploring changes verdicts only from "known difference" to "reachable", never the values
assert [c.quantity for c in report.checks] == [c.quantity for c in explored.checks]
for _a, _b in zip(report.checks, explored.checks):
    assert _a.measured == _b.measured or (_math.isnan(_a.measured) and _math.isnan(_b.measured))
    assert _a.verdict == _b.verdict or (_a.verdict, _b.verdict) == ("known difference", "reachable")
    # a row outside tolerance in an explored experiment has a band holding its default value
    if not _b.ok and _b.band is not None:
        assert _b.band[0] <= _b.measured <= _b.band[1]
# every reachable row is within its tolerance when the experiment runs at its setting (section 6)
assert set(again) == {(c.experiment, c.quantity) for c in reachable}
assert all(r.ok for r in again.values())
# the picture has one line per row
assert len(ax.get_yticklabels()) == len(explored.checks)
# and the counts: one bar label per experiment, the segments adding up to its rows
assert [t.get_text() for t in counts_ax.get_yticklabels()] == list(reversed(NAMES))
assert sum(p.get_width() for p in counts_ax.patches) == len(explored.checks)
# section 7's snippet: the JSON into pandas, the verdicts per paper
_rows = pd.read_json(_io.StringIO(explored.to_json()))
_t = pd.crosstab(_rows["experiment"].map(_paper_of), _rows["verdict"])
assert sorted(_t.index) == ["acc", "pps"] and int(_t.values.sum()) == len(explored.checks)
