"""Packet kernels specialised to the mechanisms a network uses.

The packet kernel (:mod:`._kernels`) compiles one event loop with every
mechanism's handlers inlined behind the dispatch hooks
(:mod:`._kernels.dispatch`, :mod:`._kernels.dispatch_edges`): a branch per
mechanism, chosen at run time by the codes in the compiled arrays.  Compiling
all of it from scratch costs 90-105 s of CPU (2026-11-27), and each new mechanism
adds to it, even for a user who only ever runs NewReno over drop-tail.

A *variant* is the same kernel with the dispatch branches of unused
mechanisms taken out: the kernel's sources are copied into a directory of
their own, the two dispatch modules rewritten (:func:`specialise`), and the
copy imported as a package of its own (``qosmodels.sim._kv_<digest>``), which
Numba compiles and caches apart.  Everything else is the kernel's own code, so
a variant computes exactly what the whole kernel computes for the networks it
serves (``tests/sim/test_variant.py`` checks it bit for bit).  A branch is taken
out only when its test is nothing but comparisons of ``code`` with the
``CODE`` of mechanisms outside the set; a default arm (what runs when no branch
matched) stays.

Which kernel a run uses (:func:`kernel_for`), among the variant for the network's
mechanisms together with :data:`CORE` (the common teaching set, so that NewReno, Reno,
RED, drop-tail and the open-loop sources share one variant) and the whole kernel:

* the variant when it is ready (compiled in this process or cached on disk): it runs
  faster than the whole kernel, whose loop holds every mechanism (190 KB of machine
  code against the core variant's 38 KB) and calls the handlers marked rare where a
  variant may inline them: on the 8-flow benchmark dumbbell (1000 s) 0.88-0.97 of the
  whole kernel's time with NewReno over drop-tail, 0.85-0.90 over RED, 0.73-0.97 over
  PIE, 0.76-0.87 with BBRv1 (medians 0.93, 0.88, 0.84, 0.79; ``benchmarks/RESULTS.md``,
  session 49);
* else the whole kernel when it is ready (loading it takes about a second): a session
  that has compiled it once, or ran ``qosmodels warmup``, never waits for a compile;
* else the variant, compiled now and cached per set.

``compile_kernel(network)`` and ``qosmodels warmup TOPOLOGY`` make the network's variant
ready, so that its later runs take the faster kernel.

Rare handlers (:func:`._kernels._jit.rare_handler`) are real functions in the whole
kernel only.  In a variant the build is given no rare names (:func:`rare_names`): its loop
is small, and LLVM inlines what it judges worth inlining; what it leaves a call is passed
only what it reads (``qosmodels/sim/_build.py``, adjustment 6), as a rare handler is.

Variants live under :func:`variant_root` (``$QOSMODELS_KERNEL_CACHE``, else
``~/.cache/qosmodels/kernels``), in a directory named by the digest of the
kernel's sources and Numba's version (:func:`~._digest.kernel_sources_digest`)
and of the mechanism set, so an edited kernel never reuses an old variant.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path

from ._digest import STAMP, sources_digest

#: Kernel modules every variant keeps (the common case: NewReno or Reno over drop-tail or
#: RED, and the open-loop sources), by their specs' ``kernel`` names.
CORE = frozenset({"queues.droptail", "queues.red", "sources.reno", "sources.cbr",
                  "sources.poisson", "sources.onoff", "sources.window"})

#: The dispatch modules a variant rewrites.
DISPATCH_FILES = ("dispatch.py", "dispatch_edges.py")

#: Environment variable naming where variants are written.
CACHE_ENV = "QOSMODELS_KERNEL_CACHE"

_KERNELS = Path(__file__).parent / "_kernels"
_LOCK = threading.Lock()


def all_kernels() -> frozenset:
    """Every kernel module's name (``"queues.red"``, ``"sources.reno"``, ...)."""
    from ._kernels.dispatch import QUEUES, SOURCES
    from ._kernels.dispatch_edges import EDGES

    return frozenset(QUEUES) | frozenset(SOURCES) | frozenset(EDGES)


def kernels_of(network) -> frozenset:
    """The kernel modules ``network``'s links, flows and aggregates name (their specs'
    ``kernel``)."""
    names = {link.queue.kernel for link in network.links}
    names |= {flow.source.kernel for flow in network.flows}
    names |= {a.edge.kernel for a in network.aggregates if a.edge is not None}
    return frozenset(names)


def _module_names(tree: ast.Module) -> dict[str, str]:
    """The dispatch module's names for the kernel modules it imports: ``{"decbit_window":
    "sources.decbit", "red": "queues.red", ...}``."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module in (
                "queues", "sources", "edges"):
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def _codes_tested(test, modules: dict[str, str]) -> set[str] | None:
    """The kernel modules whose ``CODE`` an ``if`` test compares ``code`` with, if the test
    is nothing else than such comparisons joined by ``or``; else None."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        out: set[str] = set()
        for v in test.values:
            sub = _codes_tested(v, modules)
            if sub is None:
                return None
            out |= sub
        return out
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.left, ast.Name) and test.left.id == "code"):
        right = test.comparators[0]
        if (isinstance(right, ast.Attribute) and right.attr == "CODE"
                and isinstance(right.value, ast.Name) and right.value.id in modules):
            return {modules[right.value.id]}
    return None


class _Prune(ast.NodeTransformer):
    """Replace every ``if code == X.CODE ...`` whose mechanisms are all outside ``keep`` by
    its ``else`` part."""

    def __init__(self, modules, keep):
        self.modules, self.keep = modules, keep

    def _body(self, stmts):
        out = []
        for s in stmts:
            r = self.visit(s)
            out.extend(r if isinstance(r, list) else [r])
        return out

    def visit_If(self, node):
        node.body = self._body(node.body)
        node.orelse = self._body(node.orelse)
        codes = _codes_tested(node.test, self.modules)
        if codes is not None and not codes & self.keep:
            return node.orelse  # may be empty: the statement goes
        if codes is not None and isinstance(node.test, ast.BoolOp):
            # a branch shared by several mechanisms keeps the comparisons of those used
            kept = [v for v in node.test.values if _codes_tested(v, self.modules) & self.keep]
            node.test = kept[0] if len(kept) == 1 else ast.BoolOp(op=ast.Or(), values=kept)
        return node

    def generic_visit(self, node):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                new = self._body(stmts)
                setattr(node, field, new or [ast.Pass()])
        return node


def specialise(source: str, keep: frozenset) -> str:
    """A dispatch module's ``source`` with the branches of mechanisms outside ``keep``
    taken out (see the module docstring)."""
    tree = ast.parse(source)
    modules = _module_names(tree)
    tree = _Prune(modules, keep).visit(tree)
    ast.fix_missing_locations(tree)
    return ast.unparse(tree) + "\n"


def variant_root() -> Path:
    """Where variants are written: ``$QOSMODELS_KERNEL_CACHE``, else
    ``~/.cache/qosmodels/kernels`` (a temporary directory if neither can be written)."""
    env = os.environ.get(CACHE_ENV)
    root = Path(env) if env else Path.home() / ".cache" / "qosmodels" / "kernels"
    try:
        root.mkdir(parents=True, exist_ok=True)
        probe = root / ".probe"
        probe.write_text("")
        probe.unlink()
        return root
    except OSError:
        return Path(tempfile.gettempdir()) / "qosmodels-kernels"


def variant_key(keep: frozenset) -> str:
    """The variant's name: digest of the kernel's sources, Numba's version and the set."""
    h = hashlib.sha256(sources_digest().encode())
    h.update("\n".join(sorted(keep)).encode())
    return h.hexdigest()[:16]


def _write(target: Path, keep: frozenset) -> None:
    """Copy the kernel's sources to ``target`` with the dispatch modules specialised (into
    a fresh directory, renamed into place, so a reader never sees half of it)."""
    tmp = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    try:
        for src in _KERNELS.rglob("*.py"):
            dst = tmp / src.relative_to(_KERNELS)
            dst.parent.mkdir(parents=True, exist_ok=True)
            text = src.read_text()
            if src.parent == _KERNELS and src.name in DISPATCH_FILES:
                text = specialise(text, keep)
            dst.write_text(text)
        try:
            tmp.rename(target)
        except OSError:  # another process wrote it first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def variant_package(keep: frozenset):
    """The kernel package for the mechanism set ``keep`` (the whole kernel,
    :mod:`qosmodels.sim._kernels`, when ``keep`` holds every mechanism): imported, its
    sources written first if need be."""
    keep = frozenset(keep)
    if keep >= all_kernels():
        return importlib.import_module("qosmodels.sim._kernels")
    key = variant_key(keep)
    name = f"{__package__}._kv_{key}"
    with _LOCK:
        if name in sys.modules:
            return sys.modules[name]
        target = variant_root() / key
        if not (target / "engine.py").is_file():
            _write(target, keep)
        spec = importlib.util.spec_from_file_location(
            name, target / "__init__.py", submodule_search_locations=[str(target)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        return module


def variant_run(keep: frozenset):
    """The event loop (``engine.run``) of the kernel for ``keep``."""
    package = variant_package(keep)
    return importlib.import_module(f"{package.__name__}.engine").run


def full_kernel_ready() -> bool:
    """Whether the whole kernel is compiled in this process or in Numba's cache for these
    sources (then loading it takes about a second)."""
    from ._kernels.engine import run

    return _ready(run)


def _ready(run) -> bool:
    """Whether the event loop ``run`` is compiled in this process or in Numba's cache for
    the current sources (the digest that ``simulate`` keeps beside every kernel's cache)."""
    if not hasattr(run, "signatures") or run.signatures:
        return True  # compiled (or Numba disabled: nothing to compile)
    cache = getattr(run, "_cache", None)
    path = getattr(cache, "_cache_path", None)
    if path is None:
        return False
    try:
        fresh = (Path(path) / STAMP).read_text().strip() == sources_digest()
    except OSError:
        return False
    return fresh and any(Path(path).glob("engine.run-*.nbi"))


def variant_ready(keep: frozenset) -> bool:
    """Whether the variant for ``keep`` is compiled in this process or in Numba's cache
    (then loading it takes about a second); its sources are not written when they are not
    there already."""
    keep = frozenset(keep)
    if keep >= all_kernels():
        return full_kernel_ready()
    key = variant_key(keep)
    if f"{__package__}._kv_{key}" not in sys.modules and not (
            variant_root() / key / "engine.py").is_file():
        return False
    return _ready(variant_run(keep))


def kernel_for(network):
    """The event loop a run of ``network`` uses: the variant for the network's mechanisms
    and :data:`CORE` if it is ready, else the whole kernel if that is ready, else the
    variant (compiled on its first call); see the module docstring.  With Numba disabled
    (``NUMBA_DISABLE_JIT=1``), the whole kernel's loop, as plain Python."""
    from numba.core import config

    keep = kernels_of(network) | CORE
    if config.DISABLE_JIT or (not variant_ready(keep) and full_kernel_ready()):
        # (with Numba disabled the kernel runs as plain Python: a variant saves nothing, and
        # the package's own modules are the ones a test patches, tests/sim/prr_replay.py)
        from ._kernels.engine import run

        return run
    return variant_run(keep)


def rare_names(run) -> frozenset:
    """The rare handlers' names the build of ``run`` is given: the whole kernel's
    (:data:`._kernels._jit.RARE`) for the whole kernel, none for a variant (see the module
    docstring)."""
    from ._kernels._jit import RARE
    from ._kernels.engine import run as whole

    return frozenset(RARE) if run is whole else frozenset()
