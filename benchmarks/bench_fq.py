"""Fair queueing against FIFO in the packet simulator: events per CPU second by conversations.

Scenario (issue 11, "Tests and benchmark"): N TCP NewReno flows, each on its
own 1 Gb/s, 1 ms access link, share one 100 Mb/s, 10 ms gateway link whose
buffer holds 2 N packets (at least 100), 1000-byte packets, ACKs on an
uncongested reverse path, flows starting at uniform random times in [0, 1) s.
The same network runs with a drop-tail FIFO and with
:class:`~qosmodels.mechanisms.FairQueueing` (delta = 0) at the gateway;
each is timed in CPU seconds of this process (the minimum over ``--reps``
runs, the kernel compiled beforehand), and the rate is simulated events per
CPU second.  Target: fair queueing at least half FIFO's rate at 1,000
conversations.

    python benchmarks/bench_fq.py [--flows 10 100 1000] [--duration 20] [--reps 3]
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np


def scenario(n: int, fq: bool, seed: int = 1):
    from qosmodels import Flow, Link, Network
    from qosmodels.mechanisms import DropTail, FairQueueing, TcpNewReno

    links = [Link(f"s{i}", "r", 1e9, 0.001, buffer=1000) for i in range(n)]
    queue = FairQueueing() if fq else DropTail()
    links.append(Link("r", "d", 100e6, 0.010, buffer=max(2 * n, 100), queue=queue))
    starts = np.random.default_rng(seed).random(n)
    flows = [Flow([f"s{i}", "r", "d"], source=TcpNewReno(max_window=1000), start=float(starts[i]))
             for i in range(n)]
    return Network(links, flows)


def timed(net, duration: float, reps: int):
    from qosmodels.sim import Record, simulate

    best, res = None, None
    for _ in range(reps):
        t0 = time.process_time()
        res = simulate(net, duration, seed=1, record=Record(interval=1.0, cwnd=False),
                       progress=False)
        dt = time.process_time() - t0
        best = dt if best is None else min(best, dt)
    return best, res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, nargs="+", default=[10, 100, 1000])
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    from qosmodels import jain_index
    from qosmodels.sim import simulate

    simulate(scenario(2, True), 0.1, seed=1, progress=False)  # compile or load the kernel
    print(f"# {platform.processor() or platform.machine()}, {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d')}; {args.duration:g} s simulated, min of {args.reps}")
    print(f"{'flows':>6} {'queue':>5} {'events':>10} {'cpu s':>7} {'Mev/s':>7} {'drops':>7} "
          f"{'util':>5} {'Jain':>6}  ratio FQ/FIFO")
    for n in args.flows:
        rates = {}
        for fq in (False, True):
            cpu, res = timed(scenario(n, fq), args.duration, args.reps)
            ev = res.events
            rates[fq] = ev / cpu
            util = res.utilisation[-1]
            print(f"{n:>6} {'FQ' if fq else 'FIFO':>5} {ev:>10} {cpu:>7.2f} {ev / cpu / 1e6:>7.2f} "
                  f"{int(res.link_drops['overflow'][-1]):>7} {util:>5.3f} "
                  f"{jain_index(res.throughput):>6.3f}"
                  + (f"  {rates[True] / rates[False]:.2f}" if fq else ""), flush=True)


if __name__ == "__main__":
    main()
