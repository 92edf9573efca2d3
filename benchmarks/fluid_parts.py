"""Where the fluid kernel's serial loop spends its time: cycles per part of the step (issue 37).

:func:`qosmodels.fluid._kernels.integrate` calls one jitted function per part of the step
(``gather``, ``measure``, ``transfers``, ``queues``, ...).  This script compiles a copy of
its source with the CPU's cycle counter (``llvm.readcyclecounter``, the time-stamp counter
on x86) read around every part's call, puts it in the kernel's place for one serial run of
``benchmarks/bench_fluid.py --scale``'s network (``random_network(10**4, 10**3)``, the ACC
model with kappa 0.2 or Reno with RED at every link), and prints each part's share.  The
parts are the kernel's own functions, unchanged: only the loop around them is a copy, so
the run's numbers are the kernel's.  The counter's two reads per part cost a few cycles.

Usage::

    python benchmarks/fluid_parts.py acc 50
    python benchmarks/fluid_parts.py reno 5 --flows 1000 --links 100

This is a script, not a test.
"""
from __future__ import annotations

import argparse
import inspect
import os
import re
import sys
import time

import numpy as np

#: The parts of the step, as :func:`qosmodels.fluid._kernels.integrate` calls them.
PARTS = ("set_lags", "gather", "marks_seen", "measure", "predict", "transfers", "queues",
         "egress", "mark", "avq", "correct", "flow_rows", "save")


def counted_loop():
    """A copy of ``integrate`` reading the cycle counter around every part's call (its first
    argument: an int64 array of the cycles per part, added to), compiled."""
    from llvmlite import ir
    from numba import njit, types
    from numba.core import cgutils
    from numba.core.extending import intrinsic

    import qosmodels.fluid._kernels as K

    @intrinsic
    def cycles(typingctx):
        def codegen(context, builder, signature, args):
            fnty = ir.FunctionType(ir.IntType(64), [])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
            return builder.call(fn, [])
        return types.int64(), codegen

    lines = inspect.getsource(K.integrate.py_func).splitlines()
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"\s*(?:[\w, ]+ = )?(\w+)\(", line)
        if m and m.group(1) in PARTS and not line.lstrip().startswith("def "):
            indent = line[: len(line) - len(line.lstrip())]
            call, depth = [line], line.count("(") - line.count(")")
            while depth > 0:  # the call's continuation lines
                i += 1
                call.append(lines[i])
                depth += lines[i].count("(") - lines[i].count(")")
            out += [f"{indent}_c0 = cycles()", *call,
                    f"{indent}_PT[{PARTS.index(m.group(1))}] += cycles() - _c0"]
        else:
            out.append(line)
        i += 1
    src = "\n".join(out).replace("@njit(**_JIT)\n", "")
    src = src.replace("def integrate(", "def integrate_counted(_PT, ", 1)
    ns = dict(vars(K), cycles=cycles)
    exec(src, ns)
    return njit(error_model="numpy", _nrt=False)(ns["integrate_counted"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="cycles per part of the fluid kernel's step")
    ap.add_argument("model", choices=("acc", "reno"))
    ap.add_argument("t_end", type=float, help="model time, s")
    ap.add_argument("--flows", type=int, default=10**4)
    ap.add_argument("--links", type=int, default=10**3)
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bench_fluid

    import qosmodels.fluid._kernels as K
    from qosmodels.fluid import solve_fluid
    from qosmodels.topologies import random_network

    loop, counts = counted_loop(), np.zeros(len(PARTS), np.int64)
    K.integrate = lambda *a: loop(counts, *a)  # (the serial loop looks it up at each slice)
    net = random_network(args.flows, args.links, seed=bench_fluid.SEED)
    opts = (dict(kappa=bench_fluid.KAPPA) if args.model == "acc" else
            dict(control="Reno", red_links=[link.name for link in net.links]))
    solve_fluid(net, 0.01, threads=1, **opts)  # compile or load: not counted
    counts[:] = 0
    t, c = time.perf_counter(), time.process_time()
    r = solve_fluid(net, args.t_end, threads=1, **opts)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    total = counts.sum()
    print(f"{args.model}, {args.flows} flows, {args.links} links, {args.t_end:g} s of model "
          f"time ({int(round(args.t_end / r.dt))} steps of {r.dt * 1e3:.3f} ms), serial: wall "
          f"{wall:.2f} s, CPU {cpu:.2f} s; cycles per part:")
    for k, name in enumerate(PARTS):
        if counts[k]:
            print(f"  {name:10s} {counts[k] / total * 100:5.1f} %  {counts[k] / 1e9:8.2f} G")
    print(f"  all parts  {total / 1e9:.2f} G ({total / cpu / 1e9:.2f} G per CPU second)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
