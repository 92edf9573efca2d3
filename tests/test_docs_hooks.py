"""The docs build hooks (issue 38, item 6).

MathJax is served by the site: no CDN in the configuration, and the build hook copies MathJax 3's
files into the site and refuses a missing or wrong MathJax.  The hook is run on a stand-in
MathJax tree laid out as the docs extra's package lays it out (``mathjax/static/mathjax/
{package.json, LICENSE, es5/...}``), so that the test needs neither the docs extra nor a
network.  An API page renders its module's docstring once (``docs/_hooks/api_members.py``).
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HOOK = ROOT / "docs" / "_hooks" / "mathjax.py"


def _hook():
    spec = importlib.util.spec_from_file_location("qosmodels_docs_mathjax_hook", HOOK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake_mathjax(where: Path, version: str) -> Path:
    root = where / "mathjax" / "static" / "mathjax"
    (root / "es5" / "output" / "chtml" / "fonts" / "woff-v2").mkdir(parents=True)
    (where / "mathjax" / "__init__.py").write_text("")
    (root / "package.json").write_text(json.dumps({"name": "mathjax", "version": version}))
    (root / "LICENSE").write_text("Apache License 2.0")
    (root / "es5" / "tex-mml-chtml.js").write_text("/* combined component */")
    (root / "es5" / "tex-svg.js").write_text("/* another one, not loaded */")
    (root / "es5" / "output" / "chtml" / "fonts" / "woff-v2" / "MathJax_Main-Regular.woff") \
        .write_bytes(b"font")
    return root


@pytest.fixture
def fresh_import(monkeypatch):
    monkeypatch.delitem(sys.modules, "mathjax", raising=False)
    yield monkeypatch
    sys.modules.pop("mathjax", None)


def test_the_configuration_loads_mathjax_from_the_site_not_a_cdn():
    text = (ROOT / "mkdocs.yml").read_text()
    scripts = re.search(r"^extra_javascript:\n((?:  - .*\n)+)", text, re.M).group(1)
    assert "javascripts/mathjax/tex-mml-chtml.js" in scripts
    assert "http" not in scripts
    assert not re.search(r"unpkg|jsdelivr|cdnjs|mathjax@", text)
    assert "docs/_hooks/mathjax.py" in text
    assert "django-static-mathjax>=3.2,<4" in (ROOT / "pyproject.toml").read_text()


def test_the_hook_copies_mathjax_into_the_site(tmp_path, fresh_import):
    _fake_mathjax(tmp_path / "lib", "3.2.2")
    fresh_import.syspath_prepend(str(tmp_path / "lib"))
    site = tmp_path / "site"
    stale = site / "javascripts" / "mathjax" / "old.js"
    stale.parent.mkdir(parents=True)
    stale.write_text("left from an earlier build")
    _hook().on_post_build({"site_dir": str(site)})
    served = site / "javascripts" / "mathjax"
    assert (served / "tex-mml-chtml.js").read_text() == "/* combined component */"
    assert (served / "output" / "chtml" / "fonts" / "woff-v2" /
            "MathJax_Main-Regular.woff").read_bytes() == b"font"
    assert (served / "LICENSE").is_file()
    assert not (served / "tex-svg.js").exists()  # only the component the site loads
    assert not stale.exists()


def test_the_hook_refuses_a_missing_or_a_wrong_mathjax(tmp_path, fresh_import):
    hook = _hook()
    with pytest.raises(Exception, match=r"MathJax is not installed.*pip install -e '\.\[docs\]'"):
        hook.mathjax_root("qosmodels_no_such_mathjax")
    _fake_mathjax(tmp_path / "lib", "2.7.7")
    fresh_import.syspath_prepend(str(tmp_path / "lib"))
    with pytest.raises(Exception, match=r"for MathJax 3, found 2\.7\.7"):
        hook.mathjax_root()


def _api_hook():
    path = ROOT / "docs" / "_hooks" / "api_members.py"
    spec = importlib.util.spec_from_file_location("qosmodels_docs_api_hook", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_api_page_shows_its_module_docstring_once():
    # issue 38: the abe, mechanisms and tokenbucket pages repeated their module's docstring
    # with every group of members (4-5 times, counted in the built pages)
    page = """# `m`

::: qosmodels.abe
    options:
      show_root_heading: false
      members: false

## Group one

::: qosmodels.abe
    options:
      show_root_heading: false
      members: [throughput, alpha]

## Group two

::: qosmodels.abe
    options:
      show_root_heading: false
      heading_level: 3
      members:
        - derive
        - ABEDerivation

::: qosmodels.tokenbucket
    options:
      members: [partition,
                Partition]
"""
    out = _api_hook().split_repeated_blocks(page)
    blocks = re.findall(r"^::: (\S+)", out, re.M)
    assert blocks == ["qosmodels.abe", "qosmodels.abe.throughput", "qosmodels.abe.alpha",
                      "qosmodels.abe.derive", "qosmodels.abe.ABEDerivation",
                      "qosmodels.tokenbucket"]  # a module's first block stays as written
    assert out.count("members: false") == 1 and "members: [partition," in out
    # the other options of a split block go with each member; the headings stay
    assert out.count("      heading_level: 3") == 2 and "## Group two" in out
    assert out.count("show_root_heading: false") == 1
    assert out.count("      show_root_full_path: false") == 4  # headed by their own names


def test_every_api_page_renders_each_module_docstring_once():
    hook = _api_hook()
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        blocks = re.findall(r"^::: (\S+)", hook.split_repeated_blocks(page.read_text()), re.M)
        assert len(blocks) == len(set(blocks)), (page.name, blocks)
