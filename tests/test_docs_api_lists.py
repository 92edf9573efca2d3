"""The API page of the mechanisms lists every mechanism (issue 33: the docs' member lists).

`docs/api/mechanisms.md` groups the specs under headings with mkdocstrings ``members:`` lists,
kept by hand (``docs/_hooks/api_members.py`` renders them).  A mechanism exported from
``qosmodels.mechanisms`` but missing from those lists has no API documentation, and nothing
else would notice: this test reads the page's lists the way the hook does and compares them
with ``qosmodels.mechanisms.__all__``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import qosmodels.mechanisms as mechanisms

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "api" / "mechanisms.md"


def _hook():
    path = ROOT / "docs" / "_hooks" / "api_members.py"
    spec = importlib.util.spec_from_file_location("qosmodels_docs_api_members_lists", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def listed_members(markdown: str, module: str) -> list[str]:
    """The names the page's ``::: module`` blocks list under ``members:``, in page order."""
    hook = _hook()
    names: list[str] = []
    for m in hook.BLOCK.finditer(markdown):
        if m.group(1) != module:
            continue
        options = m.group(2)
        inline, listed = hook.INLINE.search(options), hook.LISTED.search(options)
        if inline:
            names += [x.strip() for x in inline.group(1).split(",") if x.strip()]
        elif listed:
            names += [line.strip()[1:].strip() for line in listed.group(1).splitlines()]
    return names


def test_every_mechanism_is_listed_once():
    names = listed_members(PAGE.read_text(), "qosmodels.mechanisms")
    exported = set(mechanisms.__all__)
    missing = sorted(exported - set(names))
    unknown = sorted(set(names) - exported)
    twice = sorted({n for n in names if names.count(n) > 1})
    assert not missing, f"add to a members list of {PAGE.name}: {missing}"
    assert not unknown, f"{PAGE.name} lists names qosmodels.mechanisms does not export: {unknown}"
    assert not twice, f"{PAGE.name} lists these more than once: {twice}"


def test_the_reader_sees_a_missing_name():
    """The check can fail: a page without one of the names is caught."""
    text = PAGE.read_text()
    assert "        - DualPi2\n" in text
    names = listed_members(text.replace("        - DualPi2\n", ""), "qosmodels.mechanisms")
    assert "DualPi2" not in names
    assert "DualPi2" in mechanisms.__all__
