"""``simulate`` and ``replicate``: run packets through a network.

The network is compiled once into flat arrays
(:func:`~qosmodels.sim.compile.compile_scenario`); one jitted event loop
(``qosmodels.sim._kernels.engine.run``) advances them in chunks of
simulated time, which lets a progress bar follow long runs; the arrays are
then read back into a :class:`~qosmodels.sim.result.SimulationResult` with
the network's names.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ..network import Network

from .. import _seed
from .._progress import Progress
from .._validate import integer, real
from ..budget import check_work
from ..errors import ScenarioError, ScenarioTypeError, SimulationError
from ..parallel import run_tasks
from ._build import kernel_build
from ._digest import STAMP, kernel_sources_digest, sources_digest  # noqa: F401 (re-exported)
from ._kernels import layout as K
from .compile import (
    DEFAULT_MAX_EVENTS,
    Limits,
    Record,
    ack_paths,
    compile_scenario,
    link_changes,
    predicted_events,
)
from .result import ReplicationResult, SimulationResult

__all__ = ["simulate", "replicate"]

#: Chunks of simulated time per run; the kernel call between them costs microseconds.
CHUNKS = 100

_FIX = {
    K.ST_HEAP_FULL: "raise limits=Limits(heap_size=...)",
    K.ST_POOL_FULL: "raise limits=Limits(max_packets=...); a source far faster than its "
                    "network with huge buffers can need many packets alive at once",
    K.ST_MAX_EVENTS: "raise max_events (or shorten the run)",
    K.ST_RECEIVER_WINDOW: "a sender exceeded its receiver's window: this is a bug, please report it",
    K.ST_TRACE_FULL: "raise record=Record(interval=...)",
    K.ST_BAD_CLASS: "give the flow a priority below the queue's number of classes",
    K.ST_WORK_FULL: "raise limits=Limits(max_packets=...) (the work queue is sized from it)",
    K.ST_CHANNELS_FULL: "raise record=Record(trace_points=...) or record fewer channels",
    K.ST_SACK_RING: "more ACKs in flight than a SACK flow's option ring holds (about 2.6 "
                    "max_window): raise the flow's max_window",
}


def _as_record(record) -> Record:
    if record is None or isinstance(record, Record):
        return record
    if isinstance(record, Mapping):
        return Record(**record)
    raise ScenarioTypeError(f"record must be a Record or a dict of its fields, got {record!r}")


def simulate(network: Network, duration: float, *, seed, warmup: float = 0.0, record=None,
             max_events: int | None = None, limits: Limits | None = None,
             progress: bool | None = None, events=()) -> SimulationResult:
    """Simulate ``network`` packet by packet for ``duration`` seconds.

    Every link serialises packets at its capacity, holds them for its
    propagation delay and queues them in its discipline
    (:class:`~qosmodels.sim.DropTail`, :class:`~qosmodels.sim.Red`,
    :class:`~qosmodels.sim.Priority`); every flow's source
    (:class:`~qosmodels.sim.TcpNewReno`, :class:`~qosmodels.sim.Poisson`, ...)
    sends along its route between its ``start`` and ``stop``.
    Acknowledgements travel the reverse route: through the declared reverse
    links, where they queue, and as pure propagation delay elsewhere.

    Parameters
    ----------
    network : Network
    duration : float, s
        Simulated time, > 0.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the run's random numbers (RED, Poisson and on/off sources);
        the same seed gives the same result.
    warmup : float, s
        Start of the measurement window ``[warmup, duration]`` over which
        throughput, queueing delay, utilisation and windowed drops are measured.
    record : Record or dict, optional
        Time-series interval, window traces, histogram bins.
    max_events : int, optional
        Event budget; reaching it raises :class:`~qosmodels.errors.SimulationError`.
        Without it, a run whose predicted events (an upper bound from the
        links' capacities, the sources' rates and windows, and the duration)
        exceed ``DEFAULT_MAX_EVENTS`` (1e10, some 10-20 minutes of the kernel)
        is refused before it starts, and a run stops at that many events.
    limits : Limits, optional
        Packet-pool and event-heap sizes (chosen from the scenario by default).
    progress : bool or None
        Show a tqdm progress bar: always (True), never (False), or once the
        run has taken more than two seconds (None).
    events : sequence of LinkChange
        Link propagation delays that change during the run
        (:class:`~qosmodels.LinkChange`, as :func:`~qosmodels.fluid.solve_fluid`
        takes them).  At its time, after the events of that instant, a
        change applies to every packet that starts crossing the link later
        (a transmission ending, or an ACK entering a stretch of undeclared
        reverse links, which take the forward links' delays); packets already
        on the wire keep their arrival times, so a shorter delay can reorder
        packets.

    Returns
    -------
    SimulationResult

    Raises
    ------
    ScenarioError
        Invalid duration, warmup, seed or record, before anything is compiled.
    BudgetError
        A run predicted to exceed the event budget, or whose arrays would exceed
        the memory budget (``Limits.memory``), before anything is allocated.
    SimulationError
        The run reached a capacity limit; the message names the one to raise.

    Notes
    -----
    The first run in a fresh installation compiles the packet kernel (the
    variant for the network's mechanisms, some 15-35 s on a 2-core machine, or the
    whole kernel, about 55 s), says so on standard error, and reports that
    time as ``compile_time``, apart from ``wall_time``; Numba caches the
    kernel, so later runs, in any process, start at once.

    Examples
    --------
    >>> from qosmodels import simulate, topologies
    >>> net = topologies.dumbbell(2, capacity=10e6, delay=0.01)
    >>> res = simulate(net, duration=5.0, seed=1)
    >>> bool(res.throughput.sum() <= 10e6)
    True
    """
    record = _as_record(record)
    if max_events is not None:
        max_events = integer("simulate", "max_events", max_events, ge=1, le=2**62)
    if limits is not None and not isinstance(limits, Limits):
        raise ScenarioTypeError(
            f"simulate.limits must be a qosmodels.sim.Limits (e.g. Limits(max_events=10**9)) "
            f"or None, got {limits!r:.80} of type {type(limits).__name__}")
    limits = Limits() if limits is None else limits
    if max_events is not None:
        limits = Limits(max_events=max_events, max_packets=limits.max_packets,
                        heap_size=limits.heap_size)
    if progress is not None and not isinstance(progress, bool):
        raise ScenarioTypeError(f"progress must be True, False or None, got {progress!r}")
    from ..network import Network

    if not isinstance(network, Network):
        raise ScenarioTypeError(f"network must be a qosmodels.Network, got {type(network).__name__}")
    changes = link_changes(network, events, real("simulate", "duration", duration, gt=0,
                                                   unit="s"))
    if limits.max_events is None:  # refuse what would not end; an explicit budget is the user's
        work, term = predicted_events(network, float(duration), enough=DEFAULT_MAX_EVENTS)
        check_work("simulate", work, DEFAULT_MAX_EVENTS, what="events",
                   parameter=f"duration = {float(duration):g} s; mostly {term}",
                   fix="shorten the run, or pass max_events=... to allow more (the run then "
                       "stops with a SimulationError at that many events)")
    c = compile_scenario(network, duration, seed=seed, warmup=warmup, record=record,
                         limits=limits, changes=changes)
    duration = float(c.gf[K.GF_END])
    budget = np.int64(limits.max_events if limits.max_events is not None else DEFAULT_MAX_EVENTS)

    from ._variant import kernel_for  # numba is imported here, not with qosmodels

    run = kernel_for(network)  # see _variant.kernel_for
    compile_time = _ensure_compiled(run, c, budget)
    t0 = time.perf_counter()
    bar = Progress(CHUNKS, progress, "simulate", unit="chunk")
    rev = np.asarray(network.reverse_route_links, dtype=np.int64)
    pending = list(changes)
    try:
        for k in range(1, CHUNKS + 1):
            t_stop = duration if k == CHUNKS else duration * k / CHUNKS
            while pending and pending[0][0] <= t_stop:  # run up to each change, then apply it
                t, link, delay = pending.pop(0)
                _advance(run, c, t, budget, limits)
                c.lf[link, K.LF_DELAY] = delay
                c.a_delay[:] = ack_paths(c.r_ptr, c.r_link, rev, c.lf[:, K.LF_DELAY],
                                         every_stretch=True)[2]
            _advance(run, c, t_stop, budget, limits)
            bar.update()
    except KeyboardInterrupt:
        raise KeyboardInterrupt(f"simulate interrupted at t = {float(c.gf[K.GF_NOW]):.6g} s of "
                                f"{duration:g} s, after {int(c.gi[K.GI_EVENTS])} events") from None
    finally:
        bar.close()
    wall = time.perf_counter() - t0
    seed_repr = seed if isinstance(seed, (int, np.integer)) else repr(seed)
    return SimulationResult._from_arrays(network, c, duration=duration, warmup=float(warmup),
                                         seed=seed_repr, wall_time=wall, limits=limits,
                                         compile_time=compile_time)


#: Events the kernel processes per call at most: between calls Python sees Ctrl-C (a jitted
#: loop cannot), so a run can be interrupted within about a second.  Pausing and resuming
#: changes nothing in the run.
SLICE_EVENTS = 10_000_000


def _advance(run, c, t_stop: float, budget, limits: Limits) -> None:
    """Run the kernel up to ``t_stop`` in slices of :data:`SLICE_EVENTS`; raise on a status."""
    while True:
        cap = min(int(budget), int(c.gi[K.GI_EVENTS]) + SLICE_EVENTS)
        status = run(c, t_stop, np.int64(cap))
        if status == K.ST_MAX_EVENTS and cap < budget:
            continue  # a slice's end, not the run's budget
        if status != K.ST_OK:
            _raise(status, c, t_stop, limits)
        return


#: Seconds a first call may take loading the cached kernel before a note says it is compiling.
COMPILE_NOTE_AFTER = 1.0
#: Seconds between the lines that show a compile's time so far.
COMPILE_PROGRESS_EVERY = 10.0
#: What compiling the whole packet kernel took from scratch on the development machine (2
#: vCPUs), s: 89-104 s of CPU on 2026-11-27 with every mechanism (the five papers', the
#: modern AQMs and senders, SACK); 80-81 s on 2026-11-29 with the state passed by reference
#: (``_kernels/_byref.py``; 104-115 s before, the same hour; ``benchmarks/RESULTS.md``,
#: session 54); 60-65 s later that day with the state's variables held without a slot and
#: each typing question answered once (84-85 s before, the same hour; session 55); 54 s on
#: 2026-11-29 with four more adjustments of the build (59-60 s before, the same hour; session 56).
COMPILE_ESTIMATE = 55
#: The same for a kernel variant (a network's mechanisms and the common set,
#: :mod:`qosmodels.sim._variant`): 21-44 s of CPU on 2026-11-28 (the core set alone 21 s,
#: BBRv1 with CUBIC 42 s, SACK with RACK-TLP 44 s; ``benchmarks/RESULTS.md``, session 50);
#: 17-40 s on 2026-11-29 with the state passed by reference (core 17-19 s, BBRv1 with CUBIC
#: 40 s; session 54); core 14-15 s and every module 59-60 s later that day (session 55); core
#: 14-17 s, mechanism sets 17-28 s and every module 47-59 s, median 53 s (session 56).
COMPILE_ESTIMATE_VARIANT = 20


def _drop_stale_cache(run) -> bool:
    """Flush Numba's cached kernel if any kernel source changed since it was cached; True
    when a cache of the current sources is there to load (so the first call loads, not
    compiles).

    Numba invalidates a cached function when its own file changes, not when the
    modules it inlines do (``engine.run`` inlines every handler module), so an
    edited handler would silently run from the old cache.  The digest of all
    kernel sources is kept beside the cache; when it differs the cache is
    flushed (recompiled on the next call).  Where Numba's cache internals are
    not as expected, nothing is done.
    """
    from pathlib import Path

    cache = getattr(run, "_cache", None)
    path = getattr(cache, "_cache_path", None)
    if path is None or not hasattr(cache, "flush"):
        return False
    stamp = Path(path) / STAMP
    digest = sources_digest()
    try:
        if stamp.exists() and stamp.read_text().strip() == digest:
            index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
            return index is not None and Path(index).exists()
        cache.flush()
        stamp.write_text(digest + "\n")
    except OSError:  # a read-only cache directory: Numba falls back as it can
        return False
    return False


def compile_kernel(network=None) -> float:
    """Compile the packet kernel now, or load it from Numba's cache; return the seconds spent.

    :func:`simulate` does this itself on its first call, so there is no need to
    call it; it is for doing it at a chosen time: in a notebook's first cell, in
    a container image's build (``python -c "import qosmodels.sim as s;
    s.compile_kernel()"``), or before a test suite fills memory (the compile
    from scratch is the simulator's largest use of memory, about 0.7 GB for the
    whole kernel, and takes some :data:`COMPILE_ESTIMATE` s on a 2-core machine,
    a variant some :data:`COMPILE_ESTIMATE_VARIANT` s; a cache load takes about a
    second).  Prints the same note as :func:`simulate` when it
    really compiles.

    Parameters
    ----------
    network : Network or None
        None (default): the whole kernel, every mechanism; once it is compiled (or
        cached) no run waits for a compile.  A ``Network``: only what its mechanisms
        need, the kernel variant for them (:mod:`qosmodels.sim._variant`: the network's
        mechanisms and the common NewReno, Reno, drop-tail, RED and open-loop set), which
        is faster to compile, and which the network's runs then use in preference to
        the whole kernel, since it also runs faster (on the benchmark dumbbell, medians:
        7 % less time with NewReno over drop-tail, 12 % over RED, 16 % over PIE, 21 %
        with BBRv1).

    Returns
    -------
    float
        Seconds spent compiling or loading (0 when already done in this process).
    """
    from ..network import Flow, Link, Network
    from ._kernels.engine import run
    from ._variant import CORE, kernels_of, variant_run

    if network is not None and not isinstance(network, Network):
        raise ScenarioTypeError(f"compile_kernel: network must be a qosmodels.Network or None "
                                f"(None: the whole kernel), got {type(network).__name__}")
    if network is not None:
        run = variant_run(kernels_of(network) | CORE)
    net = network if network is not None else Network([Link("a", "b", 1e6, 0.01)],
                                                      [Flow(["a", "b"])])
    c = compile_scenario(net, 1.0, seed=0)
    return _ensure_compiled(run, c, np.int64(DEFAULT_MAX_EVENTS))


def _ensure_compiled(run, c, budget) -> float:
    """Compile (or load from Numba's cache) the packet kernel before the run is timed.

    The kernel is called with ``t_stop = -1``, which processes no event (every
    event is at ``t >= 0``) and makes Numba compile it for the arrays' types.
    When that takes longer than :data:`COMPILE_NOTE_AFTER` (a real compile, not
    a cache load) a note on standard error says so, once per process, and how
    long it took when it is done.  Returns the seconds spent (0 when the kernel
    was already compiled in this process).
    """
    if not hasattr(run, "signatures") or run.signatures:
        return 0.0  # compiled already, or Numba disabled (NUMBA_DISABLE_JIT=1): nothing to do
    with _COMPILE_LOCK:  # one thread compiles; the others wait for it, then find it done
        if run.signatures:
            return 0.0
        return _compile(run, c, budget)


#: Serialises the kernel's first compile (or cache load) between threads.
_COMPILE_LOCK = threading.Lock()


def _compile(run, c, budget) -> float:
    """:func:`_ensure_compiled`'s work, under :data:`_COMPILE_LOCK`."""
    import sys

    from ._kernels.engine import run as whole
    from ._variant import rare_names

    cached = _drop_stale_cache(run)
    estimate = COMPILE_ESTIMATE if run is whole else COMPILE_ESTIMATE_VARIANT

    done = threading.Event()
    t0 = time.perf_counter()

    def notes():  # the note after COMPILE_NOTE_AFTER s, then the time so far every so often
        if done.wait(COMPILE_NOTE_AFTER):
            return
        if cached:  # a slow load (a busy machine): say what it is, not "compiling"
            print("qosmodels: loading the packet kernel from Numba's cache...",
                  file=sys.stderr, flush=True)
            return
        print(f"qosmodels: compiling the packet kernel once for this installation "
              f"(about {estimate} s on a 2-core machine; later runs load it from "
              f"Numba's cache)...", file=sys.stderr, flush=True)
        while not done.wait(COMPILE_PROGRESS_EVERY):
            print(f"qosmodels: still compiling the packet kernel, "
                  f"{time.perf_counter() - t0:.0f} s so far", file=sys.stderr, flush=True)

    watcher = threading.Thread(target=notes, name="qosmodels-compile-note", daemon=True)
    watcher.start()
    try:
        with kernel_build(run, rare_names(run)):
            status = run(c, -1.0, budget)
    finally:
        done.set()
        watcher.join()
    spent = time.perf_counter() - t0
    if spent > COMPILE_NOTE_AFTER:
        print(f"qosmodels: packet kernel {'loaded' if cached else 'compiled'} in {spent:.0f} s",
              file=sys.stderr, flush=True)
    if status != K.ST_OK:  # nothing ran, so nothing can have failed
        raise SimulationError(f"the packet kernel returned status {status} before any event; "
                              f"this is a bug, please report it")
    return spent


def _raise(status: int, c, t_stop: float, limits: Limits):
    now = float(c.gf[K.GF_NOW])
    what = K.STATUS_NAMES.get(int(status), f"status {status}")
    sizes = {
        K.ST_HEAP_FULL: f" (heap_size = {c.gi[K.GI_HEAP_CAP]})",
        K.ST_POOL_FULL: f" (max_packets = {c.pi.shape[0]})",
        K.ST_MAX_EVENTS: f" (max_events = {limits.max_events or DEFAULT_MAX_EVENTS})",
        K.ST_TRACE_FULL: f" ({c.thr_s.shape[0]} samples)",
        K.ST_CHANNELS_FULL: f" (trace_points = {c.tr_t.shape[0]})",
    }.get(int(status), "")
    raise SimulationError(
        f"the simulation stopped at t = {now:.6g} s: {what}{sizes}; {_FIX.get(int(status), '')}"
    )


def replicate(network: Network, n: int, duration: float, *, seed, warmup: float = 0.0,
              confidence: float = 0.95, executor=None, progress: bool | None = None,
              **kwargs) -> ReplicationResult:
    """Run :func:`simulate` ``n`` times with independent seeds.

    The seeds are spawned from ``numpy.random.SeedSequence(seed)``, so the
    set of runs is reproducible and the runs are statistically independent.

    Parameters
    ----------
    network : Network
    n : int
        Number of runs, >= 2 (a confidence interval needs two).
    duration, warmup : float, s
        As for :func:`simulate`.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Root seed, as :func:`simulate` takes it; the runs' seeds are spawned
        from it, so the same int or SeedSequence gives the same runs.
    confidence : float
        Level of the Student-t confidence intervals, in (0, 1).
    executor : None, concurrent.futures.Executor or distributed.Client
        Who runs the simulations (:func:`qosmodels.sweep`'s machinery): None
        runs them here one after another; a ``ProcessPoolExecutor`` or a
        Dask client runs them in parallel.  The runs are the same either way.
    progress : bool or None
        A progress bar over the runs: always, never, or once they have taken
        a few seconds (None).
    **kwargs
        Passed to :func:`simulate` (``record``, ``limits``, ...).

    Returns
    -------
    ReplicationResult
        The runs, and the mean and confidence half-width of per-flow
        throughput, mean queueing delay and per-link utilisation.
    """
    n = integer("replicate", "n", n, ge=2, le=MAX_REPLICATIONS)
    if not (isinstance(confidence, float) and 0.0 < confidence < 1.0):
        raise ScenarioError(f"replicate.confidence must be a float in (0, 1), got {confidence!r}")
    from ..network import Network

    if isinstance(network, Network) and kwargs.get("max_events") is None and getattr(
            kwargs.get("limits"), "max_events", None) is None:
        # the runs together, before any starts (each run checks its own budget too)
        dur = real("replicate", "duration", duration, gt=0, unit="s")
        work, term = predicted_events(network, dur, enough=DEFAULT_MAX_EVENTS)
        check_work("replicate", n * work, REPLICATE_MAX_EVENTS, what="events",
                   parameter=f"n = {n} runs of about {work:.3g} events each (duration = "
                             f"{dur:g} s; mostly {term})",
                   fix="make fewer or shorter runs, or pass max_events=... to allow more per "
                       "run")
    # spawned from a copy: a SeedSequence given twice gives the same runs twice
    root = _seed.fresh(_seed.seed_sequence("replicate", seed))
    tasks = [(network, duration, ss, warmup, kwargs) for ss in root.spawn(n)]
    runs = run_tasks(_simulate_one, tasks, executor=executor, progress=progress,
                     desc="replicate", describe=lambda t: f"with seed {t[2]!r}")
    if all(np.array_equal(r.throughput, runs[0].throughput, equal_nan=True)
           and np.array_equal(r.mean_queueing_delay, runs[0].mean_queueing_delay,
                              equal_nan=True) for r in runs[1:]):
        import warnings

        from ..errors import IdenticalReplicationsWarning

        warnings.warn(
            f"replicate: the {n} runs are identical (throughput and queueing delay): nothing "
            f"in this network is random, so the seed changes nothing and the confidence "
            f"intervals are zero; draw the flows' start times from a generator, or use a "
            f"random source (Poisson, OnOff) or loss (RandomLoss)", IdenticalReplicationsWarning,
            stacklevel=2)
    return ReplicationResult(runs=runs, confidence=confidence)


#: The most runs :func:`replicate` makes in one call (their results are kept in memory).
MAX_REPLICATIONS = 10**6
#: Predicted events of all of :func:`replicate`'s runs together above which it refuses to
#: start without an explicit ``max_events`` (ten runs at :data:`DEFAULT_MAX_EVENTS`).
REPLICATE_MAX_EVENTS = 10 * DEFAULT_MAX_EVENTS


def _simulate_one(network, duration, seed, warmup, kwargs) -> SimulationResult:
    """One of :func:`replicate`'s runs (module level, so that a process pool can pickle it)."""
    return simulate(network, duration, seed=seed, warmup=warmup, progress=False, **kwargs)
