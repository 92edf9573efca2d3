"""MkDocs hook: an API page shows a module's docstring once.

An API page opens with ``::: module`` (``members: false``: the module's docstring) and then
groups the members under headings with further ``::: module`` blocks, each with a
``members:`` list.  mkdocstrings renders the module's docstring with every block, so a page with
four groups repeated it four times.  Before mkdocstrings sees the page, this hook turns every
later block of a module already on the page into one ``::: module.member`` block per listed
member, with the block's other options, headed by the member's own name as before.  The
pages' sources keep their member lists (one line per member, where a new mechanism is
registered).
"""

from __future__ import annotations

import re

#: A ``::: identifier`` block and its indented options.
BLOCK = re.compile(r"^::: (\S+)\n((?:    .*\n|[ \t]*\n(?=    ))*)", re.M)
INLINE = re.compile(r"^      members: \[([^\]]*)\][ \t]*\n", re.M)
LISTED = re.compile(r"^      members:\n((?:        - .*\n)+)", re.M)


def split_repeated_blocks(markdown: str) -> str:
    """``markdown`` with each repeated module block split into its members' blocks."""
    seen: set[str] = set()
    out, pos = [], 0
    for m in BLOCK.finditer(markdown):
        ident, options = m.group(1), m.group(2)
        inline, listed = INLINE.search(options), LISTED.search(options)
        if inline:
            members = [x.strip() for x in inline.group(1).split(",") if x.strip()]
        elif listed:
            members = [line.strip()[1:].strip() for line in listed.group(1).splitlines()]
        else:
            members = None
        if ident in seen and members:
            rest = (inline or listed).re.sub("", options)
            rest = re.sub(r"^      show_root_heading: false\n", "", rest, flags=re.M)
            # (named as the module's members were: by their own names)
            kept = ["      show_root_full_path: false"] + [
                line for line in rest.splitlines()
                if line.strip() and line.strip() != "options:"
                and not line.strip().startswith("show_root_full_path:")]
            blocks = [f"::: {ident}.{name}\n    options:\n" + "\n".join(kept) + "\n"
                      for name in members]
            out.append(markdown[pos:m.start()] + "\n".join(blocks) + "\n")
            pos = m.end()
        seen.add(ident)
    out.append(markdown[pos:])
    return "".join(out)


def on_page_markdown(markdown, page, **kwargs):
    if not page.file.src_uri.startswith("api/"):
        return markdown
    return split_repeated_blocks(markdown)
