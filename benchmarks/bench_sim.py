"""The packet simulator against the reference C simulator (../shared/reference-sim/netsim.c).

Scenario (issue 3, "Performance"): N TCP NewReno flows, each on its own
100 Mb/s, 1 ms access link, sharing a 10 Mb/s, 20 ms bottleneck with a
100-packet droptail buffer (or RED min_th 20, max_th 80, max_p 0.1,
w_q 0.002), 1000-byte packets, ACKs on an uncongested reverse path, flows
starting at uniform random times in [0, 1) s, 1000 simulated seconds.

Both run in this process's machine one after the other; each is timed in CPU
seconds of its own process (the minimum over ``--reps`` runs), and the
statistics that must agree (events, bottleneck packets, drops, timeouts,
utilisation) are printed side by side.

    python benchmarks/bench_sim.py [--flows 8 64] [--duration 1000] [--reps 3]
        [--rounds 1] [--defaults] [--netsim PATH/TO/netsim.c]

On a shared host whose speed drifts from minute to minute, ``--rounds R``
alternates the two sides R times per scenario (C, qosmodels, C, qosmodels, ...)
and keeps each side's minimum over all rounds, so that a slow minute does not
fall on one side only.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
NETSIM = ROOT.parent / "shared" / "reference-sim" / "netsim.c"


def scenario(n: int, red: bool, seed: int = 1):
    from qosmodels import Flow, Link, Network
    from qosmodels.sim import DropTail, Red, TcpNewReno

    links = [Link(f"s{i}", "r", 100e6, 0.001, buffer=1000) for i in range(n)]
    queue = Red(min_th=20, max_th=80, max_p=0.1, w_q=0.002) if red else DropTail()
    links.append(Link("r", "d", 10e6, 0.020, buffer=100, queue=queue))
    starts = np.random.default_rng(seed).random(n)
    flows = [Flow([f"s{i}", "r", "d"], source=TcpNewReno(max_window=1000), start=float(starts[i]))
             for i in range(n)]
    return Network(links, flows)


def run_qosmodels(n: int, red: bool, duration: float, reps: int, defaults: bool = False) -> dict:
    """qosmodels' CPU time (minimum over ``reps``): in the benchmark's configuration (1 s
    samples, no window traces, no progress bar) or, with ``defaults``, as ``simulate``
    runs by default (500 samples with window traces, a progress bar after 2 s)."""
    from qosmodels import jain_index
    from qosmodels.sim import Record, simulate

    net = scenario(n, red)
    simulate(net, 0.1, seed=1, progress=False)  # compile or load the cached kernel
    kw = {} if defaults else dict(record=Record(interval=1.0, cwnd=False), progress=False)
    best = None
    for _ in range(reps):
        t0 = time.process_time()
        res = simulate(net, duration, seed=1, **kw)
        cpu = time.process_time() - t0
        best = cpu if best is None else min(best, cpu)
    c = res.counters
    return dict(cpu=best, events=res.events, delivered=int(c["link_departures"][-1]),
                util=float(res.utilisation[-1]), jain=float(jain_index(res.throughput)),
                drops=int(c["link_dropped"][-1]), timeouts=int(c["timeouts"].sum()),
                fast_rtx=int(c["fast_retransmits"].sum()))


def run_c(exe: str, n: int, red: bool, duration: float, reps: int) -> dict:
    out = subprocess.run([exe, str(n), str(duration), str(int(red)), str(reps)],
                         capture_output=True, text=True, check=True).stdout
    kv = dict(re.findall(r"(\w+)=([^\s]+)", out))
    return dict(cpu=float(kv["cpu_min"]), events=int(kv["events"]),
                delivered=int(kv["delivered"]), util=float(kv["util"]), jain=float(kv["jain"]),
                drops=int(kv["drops"]), timeouts=int(kv["timeouts"]),
                fast_rtx=int(kv["fast_rtx"]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, nargs="+", default=[8, 64])
    ap.add_argument("--duration", type=float, default=1000.0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--netsim", default=str(NETSIM))
    ap.add_argument("--defaults", action="store_true",
                    help="also time simulate() with its default recording and progress bar")
    ap.add_argument("--rounds", type=int, default=1,
                    help="alternate the sides this many times per scenario, keeping the minima")
    args = ap.parse_args(argv)

    tmp = tempfile.mkdtemp()
    exe = os.path.join(tmp, "netsim")
    subprocess.run(["gcc", "-O2", "-o", exe, args.netsim, "-lm"], check=True)
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.2f}, python {sys.version.split()[0]}, "
          f"{time.strftime('%Y-%m-%d')}")
    cols = ("cpu", "events", "delivered", "util", "jain", "drops", "timeouts", "fast_rtx")
    print("| flows | queue | impl | " + " | ".join(cols) + " | bottleneck pkt/CPU s | CPU ratio |")
    print("|---" * (len(cols) + 5) + "|")
    for n in args.flows:
        for red in (False, True):
            best: dict = {}
            for _ in range(max(1, args.rounds)):
                rows = [("C -O2", run_c(exe, n, red, args.duration, args.reps)),
                        ("qosmodels", run_qosmodels(n, red, args.duration, args.reps))]
                if args.defaults:
                    rows.append(("qosmodels, defaults",
                                 run_qosmodels(n, red, args.duration, args.reps, defaults=True)))
                for name, r in rows:
                    if name not in best or r["cpu"] < best[name]["cpu"]:
                        best[name] = r
            c = best["C -O2"]
            for name, r in best.items():
                ratio = r["cpu"] / c["cpu"]
                vals = " | ".join(f"{r[k]:.4g}" if isinstance(r[k], float) else str(r[k])
                                  for k in cols)
                print(f"| {n} | {'RED' if red else 'droptail'} | {name} | {vals} | "
                      f"{r['delivered'] / r['cpu']:.3g} | {ratio:.2f} |")
    print(f"# peak RSS of this process: "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
