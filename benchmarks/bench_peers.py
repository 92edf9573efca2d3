"""Speed of qosmodels' packet simulator against ns-3 and ns.py (issue 3, "Performance").

Scenario: 8 and 64 TCP flows, each on its own 100 Mb/s, 1 ms access link,
sharing a 10 Mb/s, 20 ms bottleneck with a 100-packet drop-tail buffer or
RED (min_th 20, max_th 80, max_p 0.1, w_q 0.002), 1000-byte packets, ACKs on
an uncongested reverse path (the network of ``crosscheck_ns3.py``).

Every run happens in a fresh process, so that peak memory (``ru_maxrss``)
and start-up costs belong to one simulator and one scenario:

* qosmodels in this interpreter, 1000 simulated seconds (``--duration``);
  before the timed run, the same process measures its start: importing
  qosmodels, building the network and a first ``simulate`` call of 1
  simulated second.  "Cached start" is that in a process where Numba's
  on-disk cache is present; "cold compile" the same with ``NUMBA_CACHE_DIR``
  pointing at an empty temporary directory (nothing is deleted).
* ns-3 (PyPI wheel ``ns3``) in the interpreter ``--ns3-python`` /
  ``$NS3_PYTHON`` (default ``/tmp/ns3venv/bin/python``), shorter horizon
  (``--ns3-duration``); the event loop is ns-3's C++ ``Simulator::Run``.
* ns.py (PyPI ``ns.py``, a SimPy-based simulator; imports as ``ns`` too) in
  ``--nspy-python`` / ``$NSPY_PYTHON`` (default ``/tmp/nspyvenv/bin/python``),
  shorter horizon (``--nspy-duration``).  ns.py has no NewReno: its
  ``TCPReno`` (RFC 2001 Reno, a timer per packet, RTO at least 1 s) is
  used; its ``REDPort`` takes the EWMA weight as a power of two (w_q =
  2**-9 = 0.00195) and its buffers count the packet in service, so
  ``qlimit`` is 101 for 100 waiting packets.

The measure that scales across horizons is bottleneck packets per CPU
second (``time.process_time`` around the event loop, in the simulator's own
process; bottleneck packets = packets transmitted by the bottleneck link
over the whole run) and events per CPU second where the simulator counts
events (qosmodels: events processed; ns-3: ``Simulator::GetEventCount``;
ns.py: SimPy events scheduled, read from the environment's event counter).

    python benchmarks/bench_peers.py                     # everything, about 10 minutes
    python benchmarks/bench_peers.py --skip nspy --duration 200
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crosscheck_ns3 as X  # noqa: E402  (same directory: the network and the ns-3 worker)

DEFAULT_NSPY_PYTHON = "/tmp/nspyvenv/bin/python"
SCENARIOS = [(8, False), (8, True), (64, False), (64, True)]


# --------------------------------------------------------------------------- qosmodels


def qosmodels_worker(n_flows: int, red: bool, duration: float, seed: int = 1) -> dict:
    """Start-up and timed run of qosmodels in this (fresh) process."""
    cpu0, wall0 = time.process_time(), time.perf_counter()
    from qosmodels.sim import Record, simulate

    net = X.qosmodels_network(n_flows, red)
    rec = Record(interval=1.0, cwnd=False)
    simulate(net, 1.0, seed=seed, record=rec, progress=False)  # loads or compiles the kernel
    start_cpu, start_wall = time.process_time() - cpu0, time.perf_counter() - wall0
    cpu1 = time.process_time()
    res = simulate(net, duration, seed=seed, record=rec, progress=False)
    cpu = time.process_time() - cpu1
    return dict(
        simulator="qosmodels", flows=n_flows, queue="red" if red else "droptail",
        duration=duration, start_cpu=start_cpu, start_wall=start_wall, cpu_run=cpu,
        wall_run=res.wall_time,
        bottleneck_packets=int(res.counters["link_departures"][0]), events=int(res.events),
        utilisation=float(res.utilisation[0]), aggregate=float(res.throughput.sum()),
        drop_rate=float(res.drop_rate[0]),
        maxrss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    )


# --------------------------------------------------------------------------- ns.py


def nspy_worker(n_flows: int, red: bool, duration: float, seed: int = 1) -> dict:
    """The dumbbell in ns.py (run in an interpreter where ``ns`` is ns.py)."""
    cpu0 = time.process_time()
    import random

    import simpy
    from ns.demux.flow_demux import FlowDemux
    from ns.flow.cc import TCPReno
    from ns.flow.flow import Flow
    from ns.packet.tcp_generator import TCPPacketGenerator
    from ns.packet.tcp_sink import TCPSink
    from ns.port.port import Port
    from ns.port.red_port import REDPort
    from ns.port.wire import Wire

    random.seed(seed)
    env = simpy.Environment()
    if red:
        bottleneck = REDPort(env, X.BOTTLENECK_RATE, max_threshold=X.RED["max_th"],
                             min_threshold=X.RED["min_th"], max_probability=X.RED["max_p"],
                             weight_factor=9, qlimit=X.BUFFER)
    else:
        bottleneck = Port(env, X.BOTTLENECK_RATE, qlimit=X.BUFFER + 1)
    fwd = Wire(env, lambda: X.BOTTLENECK_DELAY)
    bottleneck.out = fwd
    gens, sinks = [], []
    for i in range(n_flows):
        flow = Flow(fid=i, src=f"s{i}", dst="d", start_time=0.0, finish_time=duration + 1.0)
        cc = TCPReno(mss=X.PACKET, cwnd=X.INITIAL_WINDOW * X.PACKET,
                     ssthresh=X.MAX_WINDOW * X.PACKET)
        gen = TCPPacketGenerator(env, flow, cc, element_id=f"g{i}")
        gen.mss = X.PACKET
        access = Port(env, X.ACCESS_RATE, qlimit=X.BUFFER + 1)
        access_wire = Wire(env, lambda: X.ACCESS_DELAY)
        gen.out, access.out, access_wire.out = access, access_wire, bottleneck
        sink = TCPSink(env, rec_arrivals=False, rec_waits=False, element_id=i)
        ack_wire = Wire(env, lambda: X.ACCESS_DELAY + X.BOTTLENECK_DELAY)
        sink.out, ack_wire.out = ack_wire, gen
        gens.append(gen)
        sinks.append(sink)
    demux = FlowDemux(outs=sinks)
    fwd.out = demux
    cpu1 = time.process_time()
    env.run(until=duration)
    cpu = time.process_time() - cpu1
    acked = sum(g.last_ack for g in gens)  # bytes acknowledged cumulatively
    return dict(
        simulator="ns.py", flows=n_flows, queue="red" if red else "droptail",
        duration=duration, start_cpu=cpu1 - cpu0, cpu_run=cpu,
        bottleneck_packets=int(demux.packets_received),
        events=int(next(env._eid)),  # SimPy's counter of scheduled events
        aggregate=acked * 8.0 / duration,
        drop_rate=bottleneck.packets_dropped / max(bottleneck.packets_received, 1),
        maxrss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    )


# --------------------------------------------------------------------------- drivers


def _run(cmd, env=None, timeout=None) -> dict:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    tail = "\n".join((proc.stderr or "").splitlines()[-15:])
    raise RuntimeError(f"worker failed (exit {proc.returncode}): {' '.join(cmd)}\n{tail}")


def _self_cmd(python, kind, n, red, duration):
    cmd = [python, os.path.abspath(__file__), "--worker", kind, "--flows", str(n),
           "--duration", repr(duration)]
    return cmd + (["--red"] if red else [])


def qosmodels_start(n_flows: int = 8) -> dict:
    """Cold compile (empty ``NUMBA_CACHE_DIR``) and cached start, each in a fresh process."""
    out = {}
    tmp = tempfile.mkdtemp(prefix="qosmodels-numba-cold-")
    try:
        env = dict(os.environ, NUMBA_CACHE_DIR=tmp)
        out["cold"] = _run(_self_cmd(sys.executable, "qosmodels", n_flows, False, 1.0), env=env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    # the default cache (qosmodels/sim/_kernels/__pycache__) was filled by earlier runs or
    # is filled by this one; the second process is the cached start
    _run(_self_cmd(sys.executable, "qosmodels", n_flows, False, 1.0))
    out["cached"] = _run(_self_cmd(sys.executable, "qosmodels", n_flows, False, 1.0))
    return out


def _fmt_rate(x):
    return f"{x / 1e6:.3g} M" if x >= 1e6 else f"{x / 1e3:.3g} k"


def report(rows: list[dict], start: dict | None) -> str:
    lines = [
        f"- Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: "
        f"{_cpu_model()}, {os.cpu_count()} logical cores (shared); Python "
        f"{platform.python_version()}",
        "",
        "| simulator | flows | queue | simulated s | bottleneck pkts | loop CPU s | "
        "pkts / CPU s | events | events / CPU s | agg. goodput Mb/s | drop rate | peak RSS MB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        pps = r["bottleneck_packets"] / r["cpu_run"]
        eps = r["events"] / r["cpu_run"]
        lines.append(
            f"| {r['simulator']} | {r['flows']} | {r['queue']} | {r['duration']:g} | "
            f"{r['bottleneck_packets']:,} | {r['cpu_run']:.2f} | {_fmt_rate(pps)} | "
            f"{r['events']:,} | {_fmt_rate(eps)} | {r['aggregate'] / 1e6:.3f} | "
            f"{r['drop_rate']:.4f} | {r['maxrss_kb'] / 1024:.0f} |")
    lines.append("")
    lines.append("Ratios of bottleneck packets per CPU second (qosmodels / peer):")
    lines.append("")
    for n, red in SCENARIOS:
        q = [r for r in rows if r["simulator"] == "qosmodels" and r["flows"] == n
             and (r["queue"] == "red") == red]
        if not q:
            continue
        qp = q[0]["bottleneck_packets"] / q[0]["cpu_run"]
        parts = []
        for peer in ("ns-3", "ns.py"):
            p = [r for r in rows if r["simulator"] == peer and r["flows"] == n
                 and (r["queue"] == "red") == red]
            if p:
                parts.append(f"{qp / (p[0]['bottleneck_packets'] / p[0]['cpu_run']):.0f}x {peer}")
        lines.append(f"- {n} flows, {'RED' if red else 'drop-tail'}: " + ", ".join(parts))
    if start:
        lines.append("")
        c, w = start["cold"], start["cached"]
        lines.append(
            f"qosmodels start (fresh process: import, build the 8-flow network, first "
            f"`simulate` of 1 s): cold compile (empty NUMBA_CACHE_DIR) {c['start_wall']:.1f} s "
            f"wall / {c['start_cpu']:.1f} s CPU; cached {w['start_wall']:.2f} s wall / "
            f"{w['start_cpu']:.2f} s CPU.")
    ns3 = [r for r in rows if r["simulator"] == "ns-3"]
    if ns3:
        lines.append(f"ns-3 start (import of the cppyy bindings): "
                     f"{min(r['cpu_import'] for r in ns3):.1f}-{max(r['cpu_import'] for r in ns3):.1f}"
                     f" s CPU.")
    return "\n".join(lines)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--duration", type=float, default=1000.0, help="qosmodels horizon, s")
    p.add_argument("--ns3-duration", type=float, default=200.0, help="ns-3 horizon, s")
    p.add_argument("--nspy-duration", type=float, default=20.0, help="ns.py horizon, s")
    p.add_argument("--ns3-python", default=None,
                   help=f"default $NS3_PYTHON or {X.DEFAULT_NS3_PYTHON}")
    p.add_argument("--nspy-python", default=None,
                   help=f"default $NSPY_PYTHON or {DEFAULT_NSPY_PYTHON}")
    p.add_argument("--skip", nargs="*", default=[], choices=["qosmodels", "ns3", "nspy", "start"])
    p.add_argument("--json", default=None, help="also write the raw measurements here")
    # worker mode (internal)
    p.add_argument("--worker", choices=["qosmodels", "nspy"])
    p.add_argument("--flows", type=int, default=8)
    p.add_argument("--red", action="store_true")
    a = p.parse_args(argv)
    if a.worker:
        fn = qosmodels_worker if a.worker == "qosmodels" else nspy_worker
        print("RESULT " + json.dumps(fn(a.flows, a.red, a.duration)), flush=True)
        return 0

    ns3_py = X.ns3_python(a.ns3_python)
    nspy_py = a.nspy_python or os.environ.get("NSPY_PYTHON") or DEFAULT_NSPY_PYTHON
    rows = []
    for n, red in SCENARIOS:
        if "qosmodels" not in a.skip:
            rows.append(_run(_self_cmd(sys.executable, "qosmodels", n, red, a.duration)))
            print(rows[-1], file=sys.stderr)
        if "ns3" not in a.skip:
            try:
                rows.append(X.run_worker("ns3", ns3_py, flows=n, duration=a.ns3_duration,
                                         warmup=min(10.0, a.ns3_duration / 2), red=red))
                print(rows[-1], file=sys.stderr)
            except (RuntimeError, OSError) as exc:
                print(f"ns-3 failed: {exc}", file=sys.stderr)
        if "nspy" not in a.skip:
            try:
                rows.append(_run(_self_cmd(nspy_py, "nspy", n, red, a.nspy_duration)))
                print(rows[-1], file=sys.stderr)
            except (RuntimeError, OSError) as exc:
                print(f"ns.py failed: {exc}", file=sys.stderr)
    start = None if "start" in a.skip else qosmodels_start()
    text = report(rows, start)
    print(text)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(dict(rows=rows, start=start), fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
