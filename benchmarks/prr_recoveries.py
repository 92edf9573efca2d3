"""The fast recoveries of the cross-check dumbbell with PRR, recovery by recovery, in
qosmodels and in ns-3 (issue 35: ns-3 3.44's ``TcpPrrRecovery`` raises its drop rate 5.7x at
2 flows where qosmodels' PRR, RFC 9937, does not).

Two modes::

    # qosmodels: every PRR step (RFC 9937 Section 6.2) of the 2-flow CUBIC + SACK + limited
    # transmit dumbbell of benchmarks/crosscheck_ns3.py, with the kernel run as plain Python
    NUMBA_DISABLE_JIT=1 python benchmarks/prr_recoveries.py qosmodels --flows 2 \\
        --duration 60 --out /tmp/q.csv
    # ns-3's recoveries come from crosscheck_ns3.py --worker ns3 ... --ns3-recovery-log PATH
    python benchmarks/prr_recoveries.py summary --from 5 /tmp/q.csv /tmp/ns3.csv ...

``qosmodels`` wraps :func:`qosmodels.sim._kernels.prr.step` (called on every ACK that starts
or falls in a recovery, with the ACK's DeliveredData, ``pipe`` = RFC 6675's ``SetPipe()``
and SafeACK, and setting ``cwnd``) and writes one row per recovery: the flow, the time of
its first and last step (s), ``cwnd`` before the first step (CUBIC's reduction, ``cwnd =
ssthresh``, is made before it) and ``pipe`` at it, ssthresh,
the largest and smallest ``cwnd`` and ``pipe`` over its steps, ``cwnd`` and ``pipe`` at the
last step, and the packets the flow sent from the first step to the last.  Packets.  The
recovery's exit (``cwnd = ssthresh``, RFC 9937 Section 6.4) is not a PRR step and is not
read here (``tests/sim/test_prr.py`` checks it).

``summary`` reads either kind of file (ns-3's in bytes, converted to packets of
:data:`NS3_SEGMENT` bytes) and prints, over the recoveries starting at or after ``--from``
seconds: how many, ``pipe`` at entry over ssthresh, the most ``pipe`` rose above its value at
entry, ``pipe`` and ``cwnd`` at the end over ssthresh, the packets sent per packet of
ssthresh, and (ns-3 only) how often ``cwnd`` as the recovery left it exceeded ssthresh, by
how much, the bottleneck drops of the flow inside recoveries and in the 0.1 s after them,
and the recoveries that ended in a timeout.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys

NS3_SEGMENT = 958  # bytes (crosscheck_ns3.NS3_SEGMENT)


def record_qosmodels(flows: int, duration: float, out: str, seed: int = 1) -> dict:
    """Run the dumbbell with ``prr=True`` under ``NUMBA_DISABLE_JIT=1`` and write its
    recoveries to ``out`` (CSV); returns the run's counters."""
    assert os.environ.get("NUMBA_DISABLE_JIT") == "1", "run with NUMBA_DISABLE_JIT=1"
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from crosscheck_ns3 import qosmodels_network

    from qosmodels.sim import Record, simulate
    from qosmodels.sim._kernels import layout as L
    from qosmodels.sim._kernels import prr

    # (with Numba disabled a run takes the package's own modules, never a variant's copy:
    # qosmodels.sim._variant.kernel_for)
    net = qosmodels_network(flows, variant="cubic", limited_transmit=True, sack=True, prr=True)
    steps = []
    step0 = prr.step

    def step(S, f, delivered, pipe, safe, entered):
        c0 = float(S.ff[f, L.FF_CWND])
        r = step0(S, f, delivered, pipe, safe, entered)
        steps.append((int(f), float(S.gf[L.GF_NOW]), bool(entered), float(pipe), c0,
                      float(S.ff[f, L.FF_CWND]), float(S.ff[f, L.FF_SSTHRESH]),
                      int(S.fi[f, L.FI_SENT])))
        return r

    prr.step = step
    try:
        res = simulate(net, duration, seed=seed, progress=False,
                       record=Record(interval=duration / 2, cwnd=True))
    finally:
        prr.step = step0
    episodes = {}
    rows = []
    for f, t, entered, pipe, c0, c1, ssthresh, sent in steps:
        e = episodes.get(f)
        if entered or e is None:
            if e is not None:
                rows.append(e)
            e = episodes[f] = dict(flow=f, t_entry=t, t_last=t, cwnd_before=c0,
                                   pipe_entry=pipe, ssthresh=ssthresh, cwnd_max=c1,
                                   cwnd_min=c1, pipe_max=pipe, pipe_min=pipe, cwnd_last=c1,
                                   pipe_last=pipe, sent0=sent, sent=0)
        e.update(t_last=t, cwnd_max=max(e["cwnd_max"], c1), cwnd_min=min(e["cwnd_min"], c1),
                 pipe_max=max(e["pipe_max"], pipe), pipe_min=min(e["pipe_min"], pipe),
                 cwnd_last=c1, pipe_last=pipe, sent=sent - e["sent0"])
    rows.extend(episodes.values())
    rows.sort(key=lambda r: r["t_entry"])
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, [k for k in rows[0] if k != "sent0"], extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    c = res.counters
    return dict(recoveries=len(rows), fast_retransmits=int(c["fast_retransmits"].sum()),
                timeouts=int(c["timeouts"].sum()), retransmitted=int(c["retransmitted"].sum()))


def _stats(x):
    if not x:
        return "-"
    x = sorted(x)
    return f"{sum(x) / len(x):.2f} [{x[len(x) // 2]:.2f}, {x[0]:.2f}..{x[-1]:.2f}]"


def summarise(path: str, start: float) -> str:
    """One file's recoveries from ``start`` s on, as text (mean [median, min..max])."""
    with open(path) as fh:
        rows = [r for r in csv.DictReader(fh) if float(r["t_entry"]) >= start]
    ns3 = "exit_state" in (rows[0] if rows else {})
    k = 1.0 / NS3_SEGMENT if ns3 else 1.0
    g = {key: [float(r[key]) * k for r in rows] for key in rows[0]
         if key not in ("flow", "t_entry", "t_exit", "t_last", "exit_state", "sent",
                        "drops_in", "drops_after")} if rows else {}
    ssthresh = g["ssthresh_exit"] if ns3 else g["ssthresh"]
    pipe_end = g["pipe_at_exit"] if ns3 else g["pipe_last"]
    cwnd_end = g["cwnd_at_exit"] if ns3 else g["cwnd_last"]
    lines = [f"{path}: {len(rows)} recoveries from {start:g} s"
             + (" (ns-3, bytes / 958)" if ns3 else " (qosmodels, packets)")]

    def ratio(a, b):
        return [x / y for x, y in zip(a, b)]

    lines.append(f"  ssthresh (packets): {_stats(ssthresh)}")
    lines.append(f"  pipe at entry / ssthresh: {_stats(ratio(g['pipe_entry'], ssthresh))}")
    lines.append("  largest pipe - pipe at entry (packets): "
                 + _stats([a - b for a, b in zip(g["pipe_max"], g["pipe_entry"])]))
    lines.append(f"  pipe at the end / ssthresh: {_stats(ratio(pipe_end, ssthresh))}")
    lines.append(f"  cwnd at the end / ssthresh: {_stats(ratio(cwnd_end, ssthresh))}")
    sent = [float(r["sent"]) for r in rows]
    lines.append(f"  packets sent in the recovery / ssthresh: {_stats(ratio(sent, ssthresh))}")
    if ns3:
        to_open = [r for r in rows if r["exit_state"] == "0"]
        over = [float(r["cwnd_at_exit"]) * k - float(r["ssthresh_exit"]) * k for r in to_open]
        above = [x for x in over if x > 0]
        burst = [max(0.0, float(r["cwnd_after_exit"]) - float(r["pipe_at_exit"])) * k
                 for r in to_open]
        lines.append(f"  ended by a timeout: {len(rows) - len(to_open)}")
        lines.append(f"  to open with cwnd (as PRR left it) > ssthresh: {len(above)} of "
                     f"{len(to_open)}, by (packets) {_stats(above)}")
        lines.append(f"  cwnd after the exit ACK - pipe at exit, >= 0 (packets): "
                     f"{_stats(burst)}")
        lines.append(f"  drops of the flow in recoveries: {sum(int(r['drops_in']) for r in rows)}"
                     f"; in the 0.1 s after: {sum(int(r['drops_after']) for r in rows)}; "
                     f"recoveries with a drop inside: "
                     f"{sum(1 for r in rows if int(r['drops_in']) > 0)}")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    q = sub.add_parser("qosmodels", help="record qosmodels' recoveries (NUMBA_DISABLE_JIT=1)")
    q.add_argument("--flows", type=int, default=2)
    q.add_argument("--duration", type=float, default=60.0)
    q.add_argument("--seed", type=int, default=1)
    q.add_argument("--out", required=True)
    s = sub.add_parser("summary", help="summarise recovery CSVs of either simulator")
    s.add_argument("--from", dest="start", type=float, default=0.0)
    s.add_argument("paths", nargs="+")
    a = p.parse_args(argv)
    if a.mode == "qosmodels":
        print(record_qosmodels(a.flows, a.duration, a.out, a.seed))
    else:
        for path in a.paths:
            print(summarise(path, a.start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
