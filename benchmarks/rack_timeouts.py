"""Why RACK-TLP times out more often than RFC 6675's DupThresh on the 32-flow CUBIC dumbbell,
and why ns-3 times out more often than qosmodels.

Sessions 46 and 48 measured, on ``benchmarks/crosscheck_ns3.py``'s dumbbell with 32 CUBIC
flows, SACK and limited transmit (300 s, seed 1), 216 timeouts with DupThresh's loss
detection against 912 with ``rack=True`` (891 with TLP as well).  This script gives the
counts and, for a shorter run with the kernel run as plain Python, the cause of every
timeout and which retransmissions the bottleneck dropped; and the same classification of an
ns-3 run (``ns3log``: sequence numbers in bytes, what sent a copy not known).  Three
modes::

    # whole-run counters, any minimum RTO (the kernel compiled as usual)
    python benchmarks/rack_timeouts.py counts --rack --min-rto 0.2 --duration 300

    # every timeout and retransmission of a 60 s run, classified (plain Python, ~30 s)
    NUMBA_DISABLE_JIT=1 python benchmarks/rack_timeouts.py trace --rack --duration 60

    # the same classification of an ns-3 run's timeouts, from the packet log of
    # crosscheck_ns3.py --worker ns3 ... --ns3-packet-log PATH
    python benchmarks/rack_timeouts.py ns3log PATH --from 50

``trace`` records every data transmission (time, flow, packet, whether it is a
retransmission, and what made the sender send it: RACK's reordering timer or TLP's probe
timer, the retransmission timeout (the go-back-N's first packet, in the timeout's event), or
else an ACK), every data packet the links drop, and the sender's state at
every retransmission timeout; it prints, over the timeouts after ``--from`` seconds, how
many of each kind (the packet at SND.UNA: only its original sent and dropped, or its
retransmission dropped; in recovery or not; how many packets sent after its last copy
reached the receiver), the time from that last copy to the timeout, and the share of
retransmissions and new packets dropped by what sent them.  A dropped copy is one the
bottleneck drops within 0.2 s of its transmission.

The flows are ``crosscheck_ns3.qosmodels_network(N, variant="cubic", limited_transmit=True,
sack=True)`` with ``rack``, ``tlp``, ``min_rto`` and ``timer`` set on each flow's ``Cubic``; every flow
starts at 0 unless ``--starts-seed`` draws the start times.  This is a
script, not a test.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def network(n_flows: int, rack: bool, tlp: bool, min_rto: float, starts_seed=None,
            timer: str = "reference"):
    """The cross-check dumbbell with ``rack``, ``tlp``, ``min_rto`` and ``timer`` on every
    CUBIC flow;
    every flow starts at 0, or with ``starts_seed`` at a time drawn uniformly from [0, 1) s
    (the network has nothing random otherwise: a run's ``seed`` changes nothing)."""
    import dataclasses

    import numpy as np
    from crosscheck_ns3 import qosmodels_network

    from qosmodels import Network

    starts = (None if starts_seed is None
              else np.random.default_rng(starts_seed).uniform(0.0, 1.0, n_flows).tolist())
    net = qosmodels_network(n_flows, variant="cubic", limited_transmit=True, sack=True,
                            starts=starts)
    flows = [dataclasses.replace(fl, source=dataclasses.replace(
        fl.source, rack=rack, tlp=tlp, min_rto=min_rto, timer=timer)) for fl in net.flows]
    return Network(list(net.links), flows)


#: How a copy was sent, as :func:`classify` prints it.
WHO = {"ack": "on an ACK", "timer": "by RACK/TLP's timer", "rto": "after a timeout",
       "-": "(ns-3)"}


def counts(args) -> None:
    from qosmodels.sim import simulate

    net = network(args.flows, args.rack, args.tlp, args.min_rto, args.starts_seed, args.timer)
    t = time.perf_counter()
    res = simulate(net, args.duration, seed=args.seed, warmup=args.warmup, progress=False)
    c = res.counters
    bott = list(res.network.link_names).index("r0->r1")
    arr = int(c["link_arrivals"][bott])
    drops = sum(int(res.link_drops[k][bott]) for k in ("overflow", "early", "forced"))
    print(f"flows {args.flows}, rack {args.rack}, tlp {args.tlp}, min_rto {args.min_rto} s, "
          f"{args.duration:g} s (starts {args.starts_seed}): timeouts {int(c['timeouts'].sum())}, "
          f"fast retransmits {int(c['fast_retransmits'].sum())}, retransmitted "
          f"{int(c['retransmitted'].sum())}, bottleneck arrivals {arr}"
          f", drops {drops} ({drops / max(arr, 1):.4f}); {time.perf_counter() - t:.1f} s")


def trace(args) -> None:
    if os.environ.get("NUMBA_DISABLE_JIT") != "1":
        sys.exit("trace runs the kernel as plain Python: set NUMBA_DISABLE_JIT=1")
    from qosmodels.sim import simulate
    from qosmodels.sim._kernels import fifo, sack, sender
    from qosmodels.sim._kernels import layout as L
    from qosmodels.sim._kernels.sources import cubic, reno_rack

    net = network(args.flows, args.rack, args.tlp, args.min_rto, args.starts_seed, args.timer)
    tx, drops, rtos, ctx = [], [], [], ["ack"]
    old_tx, old_drop, old_rto = sender.transmit, fifo.drop, cubic.on_timeout_sack
    old_timer = reno_rack.on_timeout_rack

    rto_at = {}  # flow -> time of its last timeout

    def transmit(S, f, seq):
        retx = bool(seq < S.fi[f, L.FI_MAXSEQ])
        ok = old_tx(S, f, seq)
        now, who = float(S.gf[L.GF_NOW]), ctx[0]
        if retx and rto_at.get(int(f)) == now:
            who = "rto"  # (the go-back-N's first packet leaves in the timeout's event)
        tx.append((now, int(f), int(seq), retx, who))
        return ok

    def drop(S, l, p, cause):
        if S.pi[p, L.PI_KIND] == L.KIND_DATA:
            drops.append((float(S.gf[L.GF_NOW]), int(S.pi[p, L.PI_FLOW]), int(S.pi[p, L.PI_SEQ])))
        return old_drop(S, l, p, cause)

    def on_timeout_sack(S, f):  # the retransmission timeout proper (after RACK's timers)
        fi, ff = S.fi, S.ff
        rtos.append(dict(t=float(S.gf[L.GF_NOW]), f=int(f), una=int(fi[f, L.FI_SND_UNA]),
                         in_rec=bool(fi[f, L.FI_IN_REC]), rto=float(ff[f, L.FF_RTO]),
                         srtt=float(ff[f, L.FF_SRTT]), sacked=int(sack.sacked_count(S, f))))
        rto_at[int(f)] = float(S.gf[L.GF_NOW])
        return old_rto(S, f)

    def on_timeout_rack(S, f):  # slot 0 fired: RACK's or TLP's timer (else the RTO: "rto")
        before, ctx[0] = ctx[0], "timer"
        try:
            return old_timer(S, f)
        finally:
            ctx[0] = before

    # (with Numba disabled a run takes the package's own modules: patch every name bound to
    # the functions, since modules import them by name)
    for mod in list(sys.modules.values()):
        if not getattr(mod, "__name__", "").startswith("qosmodels.sim._kernels"):
            continue
        for name, new, old in (("transmit", transmit, old_tx), ("drop", drop, old_drop),
                               ("on_timeout_sack", on_timeout_sack, old_rto),
                               ("on_timeout_rack", on_timeout_rack, old_timer)):
            if getattr(mod, name, None) is old:
                setattr(mod, name, new)
    t = time.perf_counter()
    res = simulate(net, args.duration, seed=args.seed, warmup=0.0, progress=False)
    print(f"flows {args.flows}, rack {args.rack}, tlp {args.tlp}, min_rto {args.min_rto} s, "
          f"{args.duration:g} s (starts {args.starts_seed}), plain Python {time.perf_counter() - t:.0f} s: "
          f"timeouts {int(res.counters['timeouts'].sum())}; from {args.start:g} s on:")

    classify(tx, drops, rtos, args.start)


def classify(tx, drops, rtos, start: float) -> None:
    """Print the timeouts from ``start`` on by what happened to the packet at SND.UNA, and the
    share of the copies the bottleneck dropped by what sent them.  ``tx``: (time, flow,
    sequence number, retransmission?, "ack" / "timer" (RACK's or TLP's) / "rto" (in a
    timeout's event) / "-" (not known)); ``drops``: (time, flow, sequence number);
    ``rtos``: dicts with the time ``t``, flow ``f``, SND.UNA ``una``,
    ``in_rec``, ``rto`` and ``srtt`` (s; NaN: not known)."""
    dropped_at = collections.defaultdict(list)
    for t_, f, s in drops:
        dropped_at[(f, s)].append(t_)
    sends = collections.defaultdict(list)
    by_flow = collections.defaultdict(list)
    losses = collections.Counter()
    copies_lost = []  # tx's copies, each with whether the bottleneck dropped it
    for t_, f, s, retx, who in tx:
        lost = any(t_ <= x <= t_ + 0.2 for x in dropped_at[(f, s)])
        copies_lost.append((t_, f, s, retx, lost))
        sends[(f, s)].append((t_, lost))
        by_flow[f].append((t_, lost))
        if t_ >= start:
            losses[("retransmission" if retx else "new packet", who, lost)] += 1
    kinds, gaps = collections.Counter(), collections.defaultdict(list)
    for r in rtos:
        if r["t"] < start:
            continue
        copies = [c for c in sends[(r["f"], r["una"])] if c[0] < r["t"]]
        last = copies[-1][0]
        head = ("its retransmission dropped" if len(copies) > 1 and copies[-1][1] else
                "only the original sent, dropped" if len(copies) == 1 and copies[0][1] else
                "its last copy not dropped")
        later = [t_ for t_, lost in by_flow[r["f"]] if last < t_ < r["t"] and not lost]
        after = len(later)
        key = (head, "in recovery" if r["in_rec"] else "not in recovery",
               f"{min(after, 6)}{'+' if after >= 6 else ''} sent after it arrived")
        kinds[key] += 1
        # (the first packet sent after the last copy that arrived: RACK can mark the copy
        # lost about an RTT after it is sent, when its SACK comes back)
        gaps[key].append((r["t"] - last, r["rto"], r["srtt"],
                          later[0] - last if later else float("nan")))
    print("  timeouts by the packet at SND.UNA (count; medians, s: from its last copy to the "
          "timeout, RTO, SRTT, from its last copy to the first packet sent after it that "
          "arrived):")
    for key, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        g = sorted(gaps[key])
        mid = g[len(g) // 2]
        first = sorted(x[3] for x in g)[len(g) // 2]
        print(f"    {n:5d}  {', '.join(key)}  ({mid[0]:.3f}, {mid[1]:.3f}, {mid[2]:.3f}, "
              f"{first:.3f})")
    print("  copies dropped within 0.2 s, by what sent them:")
    for kind in ("retransmission", "new packet"):
        for who in ("ack", "timer", "rto", "-"):
            n_lost, n_ok = losses[(kind, who, True)], losses[(kind, who, False)]
            if n_lost + n_ok:
                print(f"    {kind:14s} sent {WHO[who]:21s} "
                      f"{n_lost:6d} of {n_lost + n_ok:6d} ({n_lost / (n_lost + n_ok):.4f})")
    duplicates(copies_lost, rtos, start)


def duplicates(copies_lost, rtos, start: float) -> None:
    """Print where the duplicate arrivals from ``start`` on come from (a copy not dropped,
    after an earlier copy not dropped: copies of a packet arrive in the order sent): sent in a
    timeout's event (the go-back-N's first packet), within 0.5 s after one of the flow's
    timeouts, or otherwise; and, per timeout in a fast recovery, how many packets the flow
    sent between its fast retransmission of SND.UNA and the timeout (session 53: those are in
    flight at a spurious timeout, and its go-back-N resends them).  ``copies_lost``: every
    copy sent, in order, as (time, flow, sequence number, retransmission?, dropped?), from
    :func:`classify`."""
    import bisect

    rto_t = collections.defaultdict(list)
    for r in rtos:
        rto_t[r["f"]].append(r["t"])
    got, kinds = set(), collections.Counter()
    sends = collections.defaultdict(list)
    for t_, f, s, retx, lost in copies_lost:
        sends[f].append((t_, s, retx))
        if lost:
            continue
        if (f, s) not in got:
            got.add((f, s))
            continue
        if t_ < start:
            continue
        i = bisect.bisect_right(rto_t[f], t_) - 1
        since = t_ - rto_t[f][i] if i >= 0 else float("inf")
        kinds["in a timeout's event" if since < 1e-9 else
              "within 0.5 s after a timeout" if since < 0.5 else "otherwise"] += 1
    n_rto = sum(1 for r in rtos if r["t"] >= start)
    print(f"  duplicate arrivals: {sum(kinds.values())} ({sum(kinds.values()) / max(n_rto, 1):.2f} "
          f"a timeout), sent:")
    for key, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"    {n:6d}  {key}")
    between = collections.Counter()
    for r in rtos:
        if r["t"] < start or not r["in_rec"]:
            continue
        fr = [e[0] for e in sends[r["f"]] if e[1] == r["una"] and e[2] and e[0] < r["t"]]
        if fr:
            between[min(sum(1 for e in sends[r["f"]] if fr[-1] < e[0] < r["t"]), 3)] += 1
    total = sum(between.values())
    print(f"  timeouts in a recovery ({total}) by the packets sent between the fast "
          f"retransmission of SND.UNA and the timeout:")
    for k in sorted(between):
        print(f"    {'3+' if k == 3 else k}: {between[k]} ({between[k] / max(total, 1):.0%})")



def ns3log(args) -> None:
    """Classify the timeouts of an ns-3 run from ``crosscheck_ns3.py --worker ns3
    --ns3-packet-log PATH`` (sequence numbers in bytes; ns-3's congestion state 3 is its
    fast recovery)."""
    import csv

    tx, drops, rtos = [], [], []
    with open(args.path) as fh:
        for row in csv.DictReader(fh):
            t, f, seq = float(row["t"]), int(row["flow"]), int(row["seq"])
            if row["event"] == "T":
                tx.append((t, f, seq, row["retx"] == "1", "-"))
            elif row["event"] == "D":
                drops.append((t, f, seq))
            else:
                rtos.append(dict(t=t, f=f, una=seq, in_rec=row["state"] == "3",
                                 rto=float(row["rto"]), srtt=float("nan")))
    print(f"ns-3 packet log {args.path}: {len(rtos)} timeouts; from {args.start:g} s on:")
    classify(tx, drops, rtos, args.start)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("counts", "trace", "ns3log"))
    ap.add_argument("path", nargs="?", help="ns3log: the CSV file of --ns3-packet-log")
    ap.add_argument("--flows", type=int, default=32)
    ap.add_argument("--duration", type=float, default=300.0, help="s")
    ap.add_argument("--warmup", type=float, default=50.0, help="counts: s before counting")
    ap.add_argument("--from", dest="start", type=float, default=10.0,
                    help="trace: classify timeouts and copies from this time on, s")
    ap.add_argument("--seed", type=int, default=1, help="the run's seed (nothing here uses it)")
    ap.add_argument("--starts-seed", type=int, default=None,
                    help="draw the flows' start times uniformly from [0, 1) s with this seed "
                         "(default: every flow starts at 0)")
    ap.add_argument("--rack", action="store_true")
    ap.add_argument("--tlp", action="store_true", help="with --rack")
    ap.add_argument("--min-rto", type=float, default=0.2, help="s (Cubic's default 0.2)")
    ap.add_argument("--timer", choices=("reference", "impatient", "slow-but-steady"),
                    default="reference", help="Cubic's timer rules ('impatient': ns-3's)")
    args = ap.parse_args(argv)
    if args.mode == "ns3log" and not args.path:
        ap.error("ns3log needs the packet log's path")
    {"counts": counts, "trace": trace, "ns3log": ns3log}[args.mode](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
