"""Fingerprint every field of ``SimulationResult`` over a fixed set of scenarios.

A restructuring of the packet simulator must leave its outputs bit-identical.
This script runs the scenarios the simulator issues name (the benchmark
dumbbells, the four TCP rule sets and random mixed networks using every
queue discipline and every source), stores every field of each
``SimulationResult`` except the wall time in a ``.npz`` file, and compares two
such files field by field, exactly (``numpy.array_equal`` with NaN equal to NaN).

    python benchmarks/fingerprint_sim.py dump before.npz       # at the old commit
    python benchmarks/fingerprint_sim.py dump after.npz        # at the new one
    python benchmarks/fingerprint_sim.py compare before.npz after.npz

Only ``qosmodels.sim``'s public names are used, so the script runs unchanged on
commits before and after a restructuring.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

#: Random mixed networks: (seed, flows, links); 40 of them, as issue 10 asks.
MIXED = [(s, 2 + s % 7, 2 + s % 5) for s in range(40)]


def mixed_network(seed: int, n_flows: int, n_links: int):
    """A random network whose flows use every kind of source and links every discipline:
    the generator of the engine's conservation test (tests/sim/test_engine.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.sim.test_engine import mixed_network as generate

    return generate(seed, n_flows, n_links)


def dumbbell(n: int, red: bool, source_kw: dict | None = None, reverse: bool = False):
    """The benchmark dumbbell of ``bench_sim.py`` (optionally with queued reverse links)."""
    from qosmodels import Flow, Link, Network
    from qosmodels.sim import DropTail, Red, TcpNewReno

    links = [Link(f"s{i}", "r", 100e6, 0.001, buffer=1000) for i in range(n)]
    queue = Red(min_th=20, max_th=80, max_p=0.1, w_q=0.002) if red else DropTail()
    links.append(Link("r", "d", 10e6, 0.020, buffer=100, queue=queue))
    if reverse:
        links.append(Link("d", "r", 10e6, 0.020, buffer=100))
        links += [Link("r", f"s{i}", 100e6, 0.001, buffer=1000) for i in range(n)]
    starts = np.random.default_rng(1).random(n)
    kw = dict(max_window=1000) | (source_kw or {})
    flows = [Flow([f"s{i}", "r", "d"], source=TcpNewReno(**kw), start=float(starts[i]))
             for i in range(n)]
    return Network(links, flows)


RULE_SETS = {
    "reference": {},
    "impatient": dict(timer="impatient", rtt_samples="ack"),
    "slow-but-steady": dict(timer="slow-but-steady"),
    "ns3": dict(timer="impatient", rtt_samples="ack", recovery="pipe",
                window_arithmetic="bytes", segment_size=1000),
}


#: The modern mechanisms (issues 34 and 35), each on the 8-flow benchmark dumbbell's
#: bottleneck: (name, queue, sources) as names in ``qosmodels.sim`` and their keywords; a
#: scenario whose mechanism a commit does not have is left out (so the script still runs
#: at older commits; ``compare`` then lists its fields as in one file only).
MODERN = [
    ("pie", ("Pie", {}), [("TcpNewReno", {})]),
    ("pi", ("Pi", {}), [("TcpNewReno", {})]),
    ("codel", ("Codel", {}), [("TcpNewReno", {})]),
    ("fqcodel", ("FqCodel", {}), [("TcpNewReno", {})]),
    ("drr", ("Drr", {}), [("TcpNewReno", {})]),
    ("red-ecn", ("Red", dict(min_th=20, max_th=80, max_p=0.1, w_q=0.002, ecn=True)),
     [("TcpNewReno", dict(ecn=True))]),
    ("dctcp", ("DropTail", dict(mark_threshold=20)), [("Dctcp", {})]),
    ("cubic", ("DropTail", {}), [("Cubic", {})]),
    ("bbr-cubic", ("DropTail", {}), [("BbrV1", {}), ("Cubic", {})]),
    ("dualpi2", ("DualPi2", {}), [("Prague", {}), ("TcpNewReno", {})]),
    # the SACK senders (RFC 6675) with their options: PRR, limited transmit, delayed ACKs,
    # RACK-TLP (session 50: SACK flows have kernel modules of their own)
    ("reno-sack", ("DropTail", {}), [("TcpNewReno", dict(sack=True))]),
    ("reno-sack-options", ("Red", dict(min_th=20, max_th=80, max_p=0.1, w_q=0.002)),
     [("TcpNewReno", dict(sack=True, prr=True, limited_transmit=True)),
      ("TcpReno", dict(sack=True, delayed_ack=2))]),
    ("reno-rack", ("DropTail", {}), [("TcpNewReno", dict(sack=True, rack=True, tlp=True)),
                                     ("TcpNewReno", dict(sack=True))]),
    ("cubic-sack", ("DropTail", {}), [("Cubic", dict(sack=True, prr=True)),
                                      ("Cubic", dict(sack=True, rack=True)),
                                      ("TcpNewReno", {})]),
]


def modern(queue, sources, n: int = 8):
    """The benchmark dumbbell with ``queue`` at the bottleneck and the flows' sources taken
    in turn from ``sources``; None if this commit lacks one of the mechanisms."""
    import qosmodels.sim as sim
    from qosmodels import Flow, Link, Network

    names = [queue[0]] + [q for q, _ in sources]
    if not all(hasattr(sim, name) for name in names):
        return None
    if not all(k in {f.name for f in dataclasses.fields(getattr(sim, q))}
               for q, kw in sources for k in kw):
        return None  # an option this commit's spec lacks
    links = [Link(f"s{i}", "r", 100e6, 0.001, buffer=1000) for i in range(n)]
    links.append(Link("r", "d", 10e6, 0.020, buffer=100,
                      queue=getattr(sim, queue[0])(**queue[1])))
    starts = np.random.default_rng(1).random(n)
    flows = [Flow([f"s{i}", "r", "d"],
                  source=getattr(sim, sources[i % len(sources)][0])(
                      **sources[i % len(sources)][1]), start=float(starts[i]))
             for i in range(n)]
    return Network(links, flows)


def scenarios():
    """(name, network, duration, warmup, seed) of every fingerprinted run."""
    for n in (8, 64):
        for red in (False, True):
            yield f"dumbbell-{n}-{'red' if red else 'droptail'}", dumbbell(n, red), 60.0, 10.0, 1
    for name, kw in RULE_SETS.items():
        for n in (8, 64):
            yield f"rules-{name}-{n}", dumbbell(n, False, kw, reverse=True), 40.0, 5.0, 2
    for seed, nf, nl in MIXED:
        yield f"mixed-{seed}", mixed_network(seed, nf, nl), 5.0, 1.0, seed
    for name, queue, sources in MODERN:
        net = modern(queue, sources)
        if net is not None:
            yield f"modern-{name}", net, 20.0, 5.0, 3


def fields(res) -> dict[str, np.ndarray]:
    """Every field of a result as named arrays (wall time left out)."""
    out = {}
    for name, value in vars(res).items():
        if name in ("network", "wall_time", "compile_time", "limits"):
            continue
        if isinstance(value, dict):
            for k, v in value.items():
                if isinstance(v, (np.ndarray, int, float, np.number)):
                    out[f"{name}.{k}"] = np.asarray(v)
        elif isinstance(value, (np.ndarray, int, float, np.number)):
            out[name] = np.asarray(value)
        elif value is None:
            out[name] = np.asarray([])
    return out


def dump(path: str) -> None:
    from qosmodels.sim import Record, simulate

    data = {}
    for name, net, duration, warmup, seed in scenarios():
        res = simulate(net, duration, seed=seed, warmup=warmup, progress=False,
                       record=Record(interval=0.5, cwnd=True))
        for k, v in fields(res).items():
            data[f"{name}/{k}"] = v
        print(f"{name}: {res.events} events", file=sys.stderr)
    np.savez_compressed(path, **data)
    print(f"{len(data)} fields written to {path}")


def compare(a: str, b: str) -> int:
    x, y = np.load(a), np.load(b)
    missing = sorted(set(x.files) ^ set(y.files))
    differ = [k for k in sorted(set(x.files) & set(y.files))
              if not (x[k].shape == y[k].shape and np.array_equal(x[k], y[k], equal_nan=True))]
    print(f"{len(set(x.files) & set(y.files))} fields compared, {len(differ)} differ, "
          f"{len(missing)} in only one file")
    for k in differ[:20]:
        print(f"  differs: {k}")
    for k in missing[:20]:
        print(f"  only in one: {k}")
    return 1 if differ or missing else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("path")
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    args = p.parse_args(argv)
    if args.cmd == "dump":
        dump(args.path)
        return 0
    return compare(args.a, args.b)


if __name__ == "__main__":
    sys.exit(main())
