"""Speed-up of :func:`qosmodels.sweep` on this machine's cores (issue 14).

Sixteen replications of the dumbbell (8 TCP NewReno flows over a 10 Mb/s,
20 ms bottleneck with a 100-packet drop-tail buffer, start times drawn from
each replication's seed), run three ways in this one process:

- serially (``executor=None``);
- on a ``concurrent.futures.ProcessPoolExecutor`` of ``--workers`` processes;
- on a Dask ``distributed.LocalCluster`` of ``--workers`` single-threaded
  worker processes.

Wall time is measured from the sweep call to its table and reported as the
median over ``--reps``: "cold" includes starting the pool or cluster (each
worker imports qosmodels and loads the packet kernel from Numba's cache);
"warm" reuses one already used for a sweep, as a notebook or a long-lived
cluster would.  All the tables must be identical.

With ``--dask-scaling`` it compares instead Dask clusters of 1 and of 2 worker processes
(``LocalCluster(n_workers=k, threads_per_worker=1, processes=True)``), both warm: before the
timing each worker compiles or loads the packet kernel (``client.run(compile_kernel)``) and
the cluster runs the sweep once; the serial run in this process is timed too.  The benchmark
asserts that every table equals the serial one (``DataFrame.equals``).

    python benchmarks/bench_sweep.py [--runs 16] [--duration 300] [--workers 2] [--reps 3]
    python benchmarks/bench_sweep.py --dask-scaling --runs 64 [--duration 300] [--reps 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # workers import this module by name


def dumbbell_run(seed: int, duration: float = 300.0) -> dict:
    """One replication: 8 NewReno flows starting at random times in [0, 1) s."""
    import numpy as np

    from qosmodels import Flow, Link, Network, jain_index, simulate
    from qosmodels.sim import Record, TcpNewReno

    starts = np.random.default_rng(seed).random(8)
    links = [Link(f"s{i}", "r", 100e6, 0.001, buffer=1000) for i in range(8)]
    links.append(Link("r", "d", 10e6, 0.020, buffer=100))
    flows = [Flow([f"s{i}", "r", "d"], source=TcpNewReno(max_window=1000), start=float(starts[i]))
             for i in range(8)]
    res = simulate(Network(links, flows), duration, seed=seed, warmup=duration / 10,
                   record=Record(interval=1.0, cwnd=False), progress=False)
    return {"goodput_bps": float(res.throughput.sum()), "jain": float(jain_index(res.throughput)),
            "events": int(res.events)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=16)
    ap.add_argument("--duration", type=float, default=300.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dask-scaling", action="store_true",
                    help="warm Dask clusters of 1 and 2 worker processes against each other")
    args = ap.parse_args()
    if args.dask_scaling:
        return dask_scaling(args)

    import distributed

    from qosmodels import sweep
    from qosmodels.sim import compile_kernel

    compile_kernel()
    grid = {"duration": [args.duration]}

    def run(executor=None):
        return sweep(dumbbell_run, grid, seeds=args.runs, seed=1, executor=executor,
                     progress=False)

    def pool():
        with ProcessPoolExecutor(args.workers) as ex:
            return run(ex)

    def cluster():
        return distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                        processes=True, dashboard_address=None)

    def dask():
        with cluster() as c, distributed.Client(c) as client:
            return run(client)

    times, tables = {}, {}

    def timed(name, fn):
        ts = []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            tables[name] = fn()
            ts.append(time.perf_counter() - t0)
        times[name] = ts

    timed("serial", run)
    timed("process pool, cold", pool)
    timed("dask, cold", dask)
    with ProcessPoolExecutor(args.workers) as ex:
        run(ex)  # workers started and the kernel loaded
        timed("process pool, warm", lambda: run(ex))
    with cluster() as c, distributed.Client(c) as client:
        run(client)
        timed("dask, warm", lambda: run(client))
    same = all(t.equals(tables["serial"]) for t in tables.values())
    print(f"# {platform.node()} {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}")
    print(f"# {args.runs} replications x {args.duration:g} s of the 8-flow NewReno dumbbell, "
          f"{int(tables['serial']['events'].sum()):,} events; {args.workers} workers; "
          f"median of {args.reps}")
    base = statistics.median(times["serial"])
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:20s} {med:7.2f} s  (runs {', '.join(f'{t:.2f}' for t in ts)})  "
              f"speed-up {base / med:4.2f}x")
    print(f"tables identical: {same}")
    return 0 if same else 1


def dask_scaling(args) -> int:
    """Warm ``LocalCluster(processes=True)`` of 1 and of 2 workers, and the serial run."""
    import distributed

    from qosmodels import sweep
    from qosmodels.sim import compile_kernel

    t0 = time.perf_counter()
    compile_kernel()
    print(f"kernel compiled or loaded in this process: {time.perf_counter() - t0:.1f} s",
          flush=True)
    grid = {"duration": [args.duration]}

    def run(executor=None):
        return sweep(dumbbell_run, grid, seeds=args.runs, seed=1, executor=executor,
                     progress=False)

    times, tables = {}, {}

    def timed(name, fn):
        ts = []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            tables[name] = fn()
            ts.append(time.perf_counter() - t0)
            print(f"  {name}: {ts[-1]:.2f} s", flush=True)
        times[name] = ts

    timed("serial", run)
    for k in (1, 2):
        with distributed.LocalCluster(n_workers=k, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as c, distributed.Client(c) as cl:
            t0 = time.perf_counter()
            cl.run(compile_kernel)  # every worker: the kernel compiled, or loaded from cache
            print(f"{k} worker(s): kernel ready in every worker after "
                  f"{time.perf_counter() - t0:.1f} s", flush=True)
            run(cl)  # warm-up sweep (imports, first-call costs)
            timed(f"dask, {k} worker{'s' if k > 1 else ''}, warm", lambda cl=cl: run(cl))
    for name, table in tables.items():
        assert table.equals(tables["serial"]), f"{name}: table differs from the serial run"
    print(f"# {platform.node()} {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d %H:%M')} UTC, load average {os.getloadavg()[0]:.1f}")
    print(f"# {args.runs} replications x {args.duration:g} s of the 8-flow NewReno dumbbell, "
          f"{int(tables['serial']['events'].sum()):,} events; median of {args.reps}")
    one = statistics.median(times["dask, 1 worker, warm"])
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:24s} {med:7.2f} s  (runs {', '.join(f'{t:.2f}' for t in ts)})  "
              f"speed-up over 1 worker {one / med:4.2f}x")
    print("tables identical to the serial run: True (asserted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
