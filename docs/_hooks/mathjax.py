"""MkDocs hook: MathJax served by the site itself, so that the maths renders offline.

The pages used to load MathJax 3 from a CDN, and showed raw TeX without a network.  The docs
extra installs ``django-static-mathjax`` (a PyPI package that ships MathJax's own build, 3.2.2,
as files, and needs nothing else: its import name is ``mathjax``, Django is not required); after
every build this hook copies MathJax's ``es5`` directory into the site as
``javascripts/mathjax/``, which ``mkdocs.yml``'s ``extra_javascript`` loads
(``javascripts/mathjax/tex-mml-chtml.js``, with ``javascripts/mathjax.js`` configuring it).
The build needs no network.  Only the combined component the site loads is copied among the
top-level ones; the directories it loads lazily (fonts, TeX extensions, the menu's
accessibility parts) are copied whole.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

#: The combined component ``mkdocs.yml`` loads (TeX and MathML input, CommonHTML output).
COMPONENT = "tex-mml-chtml.js"
#: Where the site serves MathJax, under ``site_dir``.
TARGET = Path("javascripts") / "mathjax"


def _error(message: str) -> Exception:
    """MkDocs's PluginError (a one-line build error), or a RuntimeError outside MkDocs."""
    try:
        from mkdocs.exceptions import PluginError
    except ImportError:  # the tests load this hook without the docs extra
        return RuntimeError(message)
    return PluginError(message)


def mathjax_root(package: str = "mathjax") -> Path:
    """The MathJax 3 distribution installed by the docs extra (its ``package.json``'s dir),
    from the import package ``package``."""
    import importlib.util

    spec = importlib.util.find_spec(package)
    root = None
    if spec is not None and spec.submodule_search_locations:
        root = Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax"
    if root is None or not (root / "es5" / COMPONENT).is_file():
        raise _error("MathJax is not installed: the docs build serves it from the site "
                          "(no CDN); install the docs extra, pip install -e '.[docs]' "
                          "(it brings django-static-mathjax, MathJax 3's files)")
    version = json.loads((root / "package.json").read_text())["version"]
    if not version.startswith("3."):
        raise _error(f"the docs' MathJax configuration (docs/javascripts/mathjax.js) is "
                          f"for MathJax 3, found {version} at {root}; pip install "
                          f"'django-static-mathjax>=3.2,<4'")
    return root


def on_post_build(config, **kwargs):
    root = mathjax_root()
    es5 = root / "es5"
    target = Path(config["site_dir"]) / TARGET
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for path in es5.iterdir():
        if path.is_dir():
            shutil.copytree(path, target / path.name)
        elif path.name == COMPONENT:
            shutil.copy2(path, target / path.name)
    shutil.copy2(root / "LICENSE", target / "LICENSE")
