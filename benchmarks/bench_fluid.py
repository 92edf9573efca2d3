"""Benchmark: the Numba fluid integrator against jitcdde and scipy's solve_ivp (LSODA).

Scenarios (ACC fluid model, P control, kappa = 0.2, ideal estimator, 50 s):

* ``single``: one 10 Mb/s, 10 ms bottleneck, three flows with access delays
  1, 5 and 10 ms (20 Mb/s access links);
* ``parking9``: the 9-link parking lot of Figure 9 with 2 ms links (three long
  flows, one short flow per 100 Mb/s link);
* ``random1000``: 1 000 flows on a 100-link random network (Numba only).

Implementations:

* ``numba``: :func:`qosmodels.fluid.solve_fluid` (the fixed-step integrator
  with a ring buffer of history).  Timed three ways, each in a fresh process:
  ``cold`` compiles the kernel from scratch (an empty ``NUMBA_CACHE_DIR``),
  ``cached`` loads it from the on-disk cache, ``warm`` is a second call in the
  same process;
* ``jitcdde``: the same model written as a DDE in the classic per-flow form
  (:func:`qosmodels.fluid._reference.jitcdde_model`), generated C code,
  compiled and integrated adaptively (atol = rtol = 1e-6, max step 0.1 ms for
  the stiff nearly-empty queues); its time includes building, compiling and
  integrating, sampled every 10 ms;
* ``ivp``: the same per-flow model with every delay set to zero (an ODE),
  integrated by ``scipy.integrate.solve_ivp(method="LSODA")`` through
  ``solve_fluid(method="lsoda")`` (rtol 1e-8, atol 1e-6 bits).

Agreement: the time-averaged total queue over 0-50 s and over 40-50 s, relative
to Numba's.  jitcdde is installed on demand with pip (``--install``); the
package itself does not depend on it.

With ``--scale`` it times instead the fluid models at scale (issue 37): the ACC model
(P control, kappa = 0.2, ideal estimator) and the TCP Reno model with RED at every link
(``control="Reno"``, ``red_links`` = all links, RED's defaults) on
``random_network(10**4, 10**3)``, ``--t-end`` (default 50) s of model time, each in a
subprocess of its own: the kernel is compiled or loaded on a small network first (not
timed), then ``solve_fluid`` is timed (wall and CPU) and the subprocess's peak resident
memory read (``ru_maxrss``), with the model's own estimate of its delay histories and
saved samples.  ``--dt`` (with ``--coarse``: ``coarse_dt=True``, a step above the shortest
link's delay), ``--save-dt`` and ``--threads`` pass those options to both models (default: the
solver's; with threads the threaded kernel is loaded by a short untimed run of the network
first, and the share of the steps that ran on threads is reported).  Before each model a host probe
(:func:`work_probe`, a process of its own) times a dependent load from a 64 MB random cycle
(memory latency), a sum over 256 MB (bandwidth) and a dependent multiply-add (the core's
clock), so that a run can be set beside another day's on a host whose speed varies;
``--probe N`` runs the probe alone, N times.

Usage::

    python benchmarks/bench_fluid.py --scale [--t-end 50] [--flows 10000 --links 1000]
    python benchmarks/bench_fluid.py --scale --dt 0.002 --coarse --save-dt 0.25
    python benchmarks/bench_fluid.py --scale --threads 1   # the serial loop throughout
    python benchmarks/bench_fluid.py --probe 5      # the host probe alone, five times
    python benchmarks/bench_fluid.py                 # everything, prints a Markdown table
    python benchmarks/bench_fluid.py --install       # pip-install jitcdde first if missing
    python benchmarks/bench_fluid.py --skip-jitcdde  # Numba and solve_ivp only

This is a script, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

T_END = 50.0
KAPPA = 0.2
SEED = 20261121


def network(name: str):
    from qosmodels.topologies import acc_linear, dumbbell, random_network
    from qosmodels.units import Mbps, ms

    if name == "single":
        return dumbbell(3, Mbps(10), ms(10), access_capacity=Mbps(20),
                        access_delay=[ms(1), ms(5), ms(10)])
    if name == "parking9":
        return acc_linear(9, delay=ms(2))
    if name == "random1000":
        return random_network(1000, 100, seed=SEED)
    raise ValueError(name)


def _queue_means(t, total_queue):
    import numpy as np

    t = np.asarray(t)
    q = np.asarray(total_queue)
    late = t >= T_END - 10.0
    return (float(np.trapezoid(q, t) / (t[-1] - t[0])),
            float(np.trapezoid(q[late], t[late]) / (t[late][-1] - t[late][0])))


# ------------------------------------------------------------------ workers (run in subprocesses)
def work_numba(name: str) -> dict:
    from qosmodels.fluid import solve_fluid

    net = network(name)
    t0 = time.perf_counter()
    r = solve_fluid(net, T_END, kappa=KAPPA, save_dt=0.01)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    solve_fluid(net, T_END, kappa=KAPPA, save_dt=0.01)
    warm = time.perf_counter() - t0
    whole, late = _queue_means(r.t, r.queues.sum(axis=1))
    return dict(first=first, warm=warm, q_all=whole, q_late=late, dt=r.dt)


def work_jitcdde(name: str) -> dict:
    import numpy as np

    from qosmodels.fluid._reference import initial_state, jitcdde_model

    net = network(name)
    t0 = time.perf_counter()
    dde = jitcdde_model(net, kappa=KAPPA)
    dde.constant_past(initial_state(net))
    dde.compile_C(simplify=False, do_cse=False, verbose=False)
    t_compiled = time.perf_counter() - t0
    dde.set_integration_parameters(atol=1e-6, rtol=1e-6, max_step=1e-4, first_step=1e-5)
    dde.adjust_diff()
    ts = np.arange(dde.t + 0.01, T_END + 1e-9, 0.01)
    states = np.array([dde.integrate(tt) for tt in ts])
    total = time.perf_counter() - t0
    F = net.n_flows
    whole, late = _queue_means(ts, states[:, F:].sum(axis=1))
    return dict(total=total, compile=t_compiled, q_all=whole, q_late=late)


def work_ivp(name: str) -> dict:
    from qosmodels.fluid import solve_fluid

    net = network(name)
    t0 = time.perf_counter()
    r = solve_fluid(net, T_END, kappa=KAPPA, method="lsoda", save_dt=0.01)
    total = time.perf_counter() - t0
    whole, late = _queue_means(r.t, r.queues.sum(axis=1))
    return dict(total=total, q_all=whole, q_late=late)


def work_scale(model: str, flows: int, links: int, t_end: float, dt: float | None = None,
               coarse: bool = False, save_dt: float | None = None,
               threads: int | None = None) -> dict:
    """One fluid model at scale: compile on a small network, then time ``solve_fluid``."""
    import resource

    from qosmodels.fluid import compile_fluid, solve_fluid
    from qosmodels.topologies import random_network

    def options(net):
        if model == "acc":
            return dict(kappa=KAPPA)
        return dict(control="Reno", red_links=[link.name for link in net.links])

    step = dict(dt=dt, coarse_dt=coarse, save_dt=save_dt)

    small = random_network(50, 10, seed=1)
    solve_fluid(small, 1.0, **options(small))  # compile or load the kernel: not timed
    net = random_network(flows, links, seed=SEED)
    if threads != 1:  # the threaded kernel too (a short run of the network: not timed)
        solve_fluid(net, 0.01, **options(net), **dict(step, save_dt=None), threads=threads)
    comp = compile_fluid(net, t_end=t_end, **options(net), **step)
    L, F, H = net.n_links, net.n_flows, len(net.route_links)
    hist = (comp.ring * (3 * L + 5 * F) + 3 * comp.ring_s * H + int(comp.a_off[-1])) * 8
    saved = 8 * (comp.n_steps // comp.save_every + 1) * (7 * F + 4 * L + 1)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    from qosmodels.fluid import _threads

    on_threads = _threads._state["steps"]
    t0, c0 = time.perf_counter(), time.process_time()
    r = solve_fluid(net, t_end, **options(net), **step, threads=threads)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    import numba
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    late = r.t >= 0.8 * t_end
    layer = numba.threading_layer() if threads != 1 else "-"
    on_threads = (_threads._state["steps"] - on_threads) / (comp.n_steps + 1)
    return dict(model=model, flows=F, links=L, hops=H, t_end=t_end, dt=r.dt, steps=comp.n_steps,
                threads=threads, layer=layer, on_threads=on_threads, wall=wall, cpu=cpu, peak_gb=peak / 1e9, rss_before_gb=before / 1e9,
                histories_gb=hist / 1e9, saved_gb=saved / 1e9,
                ns_per_update=cpu / (comp.n_steps * (H + F + L + 16)) * 1e9,
                mean_total_queue_late_bits=float(r.queues[late].sum(axis=1).mean()),
                mean_total_rate_late_bps=float(r.rates[late].sum(axis=1).mean()))


def work_probe() -> dict:
    """The host's speed now, three ways (the median of five timings each), so that runs on
    different days can be compared: ``latency_ns``, one dependent load from a 64 MB random
    cycle (memory latency: the fluid step's scattered history reads); ``bandwidth_gbs``, a
    sum over 256 MB (streaming); ``ns_per_op``, one step of a dependent multiply-add chain
    (the core's clock).  Run in a process of its own, before each model's."""
    import numpy as np
    from numba import njit

    @njit(cache=False)
    def chase(nxt, steps):
        k = 0
        for _ in range(steps):
            k = nxt[k]
        return k

    @njit(cache=False)
    def total(a):
        s = 0.0
        for x in a:
            s += x
        return s

    @njit(cache=False)
    def chain(n):
        x = 1.0
        for _ in range(n):
            x = x * 0.999999 + 1e-9
        return x

    rng = np.random.default_rng(SEED)
    n = 8 * 1024 * 1024  # 64 MB of int64
    order = rng.permutation(n)
    nxt = np.empty(n, dtype=np.int64)
    nxt[order] = np.roll(order, -1)  # one cycle through every element
    a = np.ones(32 * 1024 * 1024)  # 256 MB
    steps, ops = 4_000_000, 50_000_000
    chase(nxt, 10), total(a[:10]), chain(10)  # compile: not timed

    def median(f, *args):
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            f(*args)
            times.append(time.perf_counter() - t0)
        return sorted(times)[2]

    return dict(latency_ns=median(chase, nxt, steps) / steps * 1e9,
                bandwidth_gbs=a.nbytes / median(total, a) / 1e9,
                ns_per_op=median(chain, ops) / ops * 1e9)


def _probe() -> dict | None:
    code = (f"import json, sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
            f"import bench_fluid as b; print('RESULT' + json.dumps(b.work_probe()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    line = [x for x in out.stdout.splitlines() if x.startswith("RESULT")]
    return json.loads(line[0][6:]) if line else None


def run_probe(repeat: int) -> int:
    """``--probe``: the host probe alone, ``repeat`` times, one JSON line each."""
    for _ in range(repeat):
        d = _probe() or {}
        print(json.dumps(dict(time=time.strftime("%H:%M:%S"), load=os.getloadavg()[0], **d)),
              flush=True)
    return 0


def run_scale(flows: int, links: int, t_end: float, dt: float | None = None,
              coarse: bool = False, save_dt: float | None = None,
              threads: int | None = None) -> int:
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M')} UTC, load average "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    rows = []
    for model in ("acc", "reno"):
        code = (f"import json, sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
                f"import bench_fluid as b; print('RESULT' + json.dumps(b.work_scale("
                f"{model!r}, {flows}, {links}, {t_end}, {dt!r}, {coarse!r}, {save_dt!r}, "
                f"{threads!r})))")
        probe = _probe()
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        line = [x for x in out.stdout.splitlines() if x.startswith("RESULT")]
        if not line:
            print(f"{model}: failed\n{out.stderr[-2000:]}", flush=True)
            continue
        rows.append(dict(json.loads(line[0][6:]), probe=probe))
        print(json.dumps(rows[-1]), flush=True)
    print()
    print("| model | flows / links / hops | model time | threads (layer) | wall | CPU "
          "| ns per update (CPU) | peak memory | histories + saved samples (estimate) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['model']} | {r['flows']:,} / {r['links']:,} / {r['hops']:,} | "
              f"{r['t_end']:g} s ({r['steps']:,} steps) | {r['threads']} ({r['layer']}, "
              f"{r['on_threads']:.0%} of the steps) | "
              f"{r['wall']:.1f} s | {r['cpu']:.1f} s | "
              f"{r['ns_per_update']:.0f} | {r['peak_gb']:.2f} GB | {r['histories_gb']:.2f} + "
              f"{r['saved_gb']:.2f} GB |")
    print()
    for r in rows:
        p = r["probe"]
        if p:
            print(f"host probe before {r['model']}: memory latency {p['latency_ns']:.0f} ns, "
                  f"bandwidth {p['bandwidth_gbs']:.1f} GB/s, {p['ns_per_op']:.2f} ns per "
                  f"dependent multiply-add")
    return 0


def _run(worker: str, name: str, env: dict | None = None, timeout: float = 3600) -> dict:
    code = (f"import json, sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
            f"import bench_fluid as b; print('RESULT' + json.dumps(b.work_{worker}({name!r})))")
    t0 = time.perf_counter()
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(error=f"did not finish in {timeout:.0f} s")
    wall = time.perf_counter() - t0
    for line in out.stdout.splitlines():
        if line.startswith("RESULT"):
            d = json.loads(line[6:])
            d["process_wall"] = wall
            return d
    return dict(error=(out.stderr.strip().splitlines() or ["no output"])[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--install", action="store_true", help="pip-install jitcdde if missing")
    ap.add_argument("--skip-jitcdde", action="store_true")
    ap.add_argument("--output", help="also write the Markdown table to this file")
    ap.add_argument("--scale", action="store_true",
                    help="ACC and Reno/RED on random_network(10**4, 10**3): time, memory")
    ap.add_argument("--t-end", type=float, default=T_END, help="model time of --scale, s")
    ap.add_argument("--flows", type=int, default=10_000, help="flows of --scale")
    ap.add_argument("--links", type=int, default=1_000, help="links of --scale")
    ap.add_argument("--dt", type=float, help="integration step of --scale, s (default: the "
                    "solver's, 0.9 x the shortest link delay)")
    ap.add_argument("--coarse", action="store_true",
                    help="--scale with coarse_dt=True (a --dt above the shortest link delay)")
    ap.add_argument("--save-dt", type=float, help="sampling interval of --scale's results, s")
    ap.add_argument("--threads", type=int, help="solve_fluid's threads in --scale (default: "
                    "its default, Numba's thread count; 1: serial)")
    ap.add_argument("--probe", type=int, metavar="N", help="only the host probe (memory "
                    "latency, bandwidth, a dependent multiply-add), N times")
    args = ap.parse_args(argv)
    if args.probe:
        return run_probe(args.probe)
    if args.scale:
        return run_scale(args.flows, args.links, args.t_end, args.dt, args.coarse,
                         args.save_dt, args.threads)

    have_jitcdde = True
    try:
        import jitcdde  # noqa: F401
    except ImportError:
        have_jitcdde = False
        if args.install and not args.skip_jitcdde:
            subprocess.run([sys.executable, "-m", "pip", "install", "jitcdde"], check=True)
            have_jitcdde = True

    rows = []
    for name in ("single", "parking9", "random1000"):
        cold_env = dict(os.environ, NUMBA_CACHE_DIR=tempfile.mkdtemp(prefix="qm-numba-"))
        cold = _run("numba", name, env=cold_env)
        cached = _run("numba", name)
        row = dict(scenario=name, numba_cold=cold, numba_cached=cached)
        if name != "random1000":
            row["ivp"] = _run("ivp", name, timeout=1800)
            if have_jitcdde and not args.skip_jitcdde:
                row["jitcdde"] = _run("jitcdde", name, timeout=3600)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr)

    lines = [
        f"Fluid integrators, {T_END:g} s of the ACC fluid model (P control, kappa = {KAPPA}), "
        "time in seconds; queue = time-averaged total queue (packets of 1000 B) over 0-50 s / "
        "40-50 s.",
        "",
        "| scenario | implementation | time (s) | queue 0-50 s | queue 40-50 s | vs Numba |",
        "|---|---|---|---|---|---|",
    ]

    def fmt_q(d):
        return (f"{d['q_all'] / 8000:.3f}", f"{d['q_late'] / 8000:.3f}")

    for row in rows:
        c, k = row["numba_cold"], row["numba_cached"]
        if "error" in c or "error" in k:
            lines.append(f"| {row['scenario']} | numba | error: {c.get('error') or k.get('error')} "
                         "| | | |")
            continue
        qa, ql = fmt_q(k)
        lines.append(f"| {row['scenario']} | numba, compile from scratch + run | "
                     f"{c['first']:.2f} | {qa} | {ql} | |")
        lines.append(f"| {row['scenario']} | numba, cached kernel, first call | "
                     f"{k['first']:.2f} | | | |")
        lines.append(f"| {row['scenario']} | numba, warm call (dt = {k['dt'] * 1e3:.2f} ms) | "
                     f"{k['warm']:.3f} | | | |")
        for impl in ("jitcdde", "ivp"):
            d = row.get(impl)
            if d is None:
                continue
            if "error" in d:
                lines.append(f"| {row['scenario']} | {impl} | {d['error']} | | | |")
                continue
            qa2, ql2 = fmt_q(d)
            rel = (d["q_all"] / k["q_all"] - 1, d["q_late"] / k["q_late"] - 1)
            label = ("jitcdde (build + compile C + integrate)" if impl == "jitcdde"
                     else "solve_ivp LSODA, no delays")
            lines.append(f"| {row['scenario']} | {label} | {d['total']:.2f} | {qa2} | {ql2} | "
                         f"{rel[0]:+.2%} / {rel[1]:+.2%} |")
    text = "\n".join(lines)
    print(text)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
