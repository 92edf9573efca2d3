"""What the compiled packet kernel depends on, as one digest.

Numba invalidates a cached function when its own file changes, not when the modules it
inlines do (``engine.run`` inlines every handler module), so the simulator keeps a digest of
every kernel source beside the cache (``simulate._drop_stale_cache``) and names each kernel
variant's directory by it (:mod:`._variant`).
"""

from __future__ import annotations

import functools

#: The file beside Numba's cache of ``engine.run`` holding the digest it was compiled from.
STAMP = "qosmodels-kernel-sources.sha256"


def _imported_outside(root, path):
    """The package's source files, outside the kernel directory ``root``, that the kernel
    module ``path`` imports at module level (relative imports climbing out of ``root``):
    Numba compiles their functions into the kernel (e.g. ``qosmodels.abe.law_step``)."""
    import ast

    depth = len(path.relative_to(root).parts)  # 1 for _kernels/x.py
    for node in ast.parse(path.read_bytes()).body:
        if not isinstance(node, ast.ImportFrom) or node.level <= depth:
            continue
        base = path.parents[node.level - 1]
        if node.module:
            base = base.joinpath(*node.module.split("."))
            candidates = [base.with_suffix(".py"), base / "__init__.py"]
        else:
            candidates = [c for a in node.names
                          for c in (base / f"{a.name}.py", base / a.name / "__init__.py")]
        yield from (c for c in candidates if c.is_file())


def kernel_sources_digest(root=None) -> str:
    """SHA-256 of what the compiled packet kernel depends on: every source file of the
    kernel (``sim/_kernels/**/*.py``), every module of the package they import at module
    level (whose functions Numba compiles into the kernel too), the build's adjustments to
    Numba's code generation (``sim/_build.py``, beside ``root``: they decide what LLVM may
    inline, so a cached kernel built before a change there is stale; session 48), and
    Numba's version."""
    import hashlib
    from pathlib import Path

    import numba

    root = Path(__file__).parent / "_kernels" if root is None else Path(root)
    h = hashlib.sha256(f"numba {numba.__version__}\n".encode())
    inside = sorted(root.rglob("*.py"))
    outside = sorted({o.resolve() for p in inside for o in _imported_outside(root, p)})
    for path in inside:
        h.update(path.relative_to(root).as_posix().encode())
        h.update(path.read_bytes())
    for path in outside:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    build = root.parent / "_build.py"
    if build.is_file():
        h.update(build.name.encode())
        h.update(build.read_bytes())
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def sources_digest() -> str:
    """:func:`kernel_sources_digest`, once per process (it parses every kernel source, some
    0.2 s; the sources do not change under a running process)."""
    return kernel_sources_digest()
