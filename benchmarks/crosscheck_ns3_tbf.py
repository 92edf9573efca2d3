"""Peer check of the token-bucket shaper: qosmodels' AggregateBucket against ns-3's TbfQueueDisc.

One constant-bit-rate source offers twice the bucket's rate to one fast link
(1 Gb/s, no delay) behind a token-bucket shaper of rate ``r`` and depth
(burst) ``b`` that starts full, no peak rate.  A greedy shaper's cumulative
output is ``min(input(t), b + r t)``: after ``b / r`` s it is ``b + r t``.
Both simulators' outputs are fitted by least squares over the packets after
``2 b / r`` (times from the first packet out): the slope is the output rate
and the intercept the burst.  The issue (12) asks for both within 1%.

* qosmodels: ``Flow(source=Cbr(rate=2 r, packet_size=1000))`` behind
  ``Aggregate(edge=AggregateBucket(rate=r, depth=b, max_packet=1000,
  sharing="common", timer=0))``; output times from the edge's ``sent`` trace
  (the instant each packet leaves the shaper; the link adds a constant 8 us).
* ns-3 (the PyPI wheel ``ns3``, in its own environment, as for
  ``crosscheck_ns3.py``): an ``OnOffApplication`` always on at ``2 r`` with
  972-byte UDP payloads (1000-byte IP packets: the size TBF counts), a
  ``TbfQueueDisc`` (``Rate`` r, ``Burst`` b, ``Mtu`` 1000, no peak rate,
  queue of 100000 packets) as the sender device's root queue disc, and the
  receive times at a ``PacketSink`` (a constant transmission and
  propagation delay later).

Run::

    python3 -m venv /tmp/ns3venv && /tmp/ns3venv/bin/pip install ns3
    NS3_PYTHON=/tmp/ns3venv/bin/python python benchmarks/crosscheck_ns3_tbf.py

``--worker ns3`` (run inside the ns-3 interpreter) prints the ns-3 output
times as one JSON line prefixed ``RESULT``.  The results are in
``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

PACKET = 1000          # bytes, IP packet (what both shapers count)
UDP_PAYLOAD = PACKET - 28
LINK = 1e9             # bit/s
CASES = [  # (rate bit/s, burst bytes, duration s)
    (1e6, 10_000, 20.0),
    (5e6, 50_000, 10.0),
    (20e6, 30_000, 5.0),
]

_NS3_CPP = r"""
#include <vector>
namespace qmtbf {
std::vector<double> rx;
void OnRx(ns3::Ptr<const ns3::Packet> p, const ns3::Address &a) {
  rx.push_back(ns3::Simulator::Now().GetSeconds());
}
void Connect(std::string path) {
  rx.clear();
  ns3::Config::ConnectWithoutContext(path, ns3::MakeCallback(&OnRx));
}
}
"""


def fit(times, size=PACKET, after=0.0):
    """Slope (bit/s) and intercept (bytes) of cumulative output bytes against time from
    the first packet, over the packets later than ``after`` s."""
    import numpy as np  # (not at the top: the ns-3 worker's interpreter may lack it)

    t = np.asarray(times, dtype=float)
    t = t - t[0]
    cum = size * np.arange(1, t.size + 1)
    sel = t > after
    slope, intercept = np.polyfit(t[sel], cum[sel], 1)
    return 8.0 * slope, intercept


def run_qosmodels(rate, burst, duration):
    from qosmodels import Aggregate, Flow, Link, Network, simulate
    from qosmodels.mechanisms import AggregateBucket, Cbr

    edge = AggregateBucket(rate=rate, depth=burst, max_packet=PACKET, sharing="common",
                           timer=0.0, record=True, limit=10**6)
    net = Network([Link("a", "b", LINK, 0.0, buffer=1000)],
                  [Flow(["a", "b"], source=Cbr(rate=2 * rate, packet_size=PACKET))],
                  aggregates=[Aggregate("shaped", flows=[0], edge=edge)])
    res = simulate(net, duration, seed=1, progress=False)
    return res.traces["sent"].index.to_numpy()


def run_ns3(rate, burst, duration):
    import cppyy
    from ns import ns

    cppyy.cppdef(_NS3_CPP)
    nodes = ns.NodeContainer()
    nodes.Create(2)
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.StringValue(f"{int(LINK)}bps"))
    p2p.SetChannelAttribute("Delay", ns.StringValue("0ms"))
    devices = p2p.Install(nodes)
    ns.InternetStackHelper().Install(nodes)
    addresses = ns.Ipv4AddressHelper()
    addresses.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    ifaces = addresses.Assign(devices)
    tch = ns.TrafficControlHelper()
    tch.Uninstall(devices)
    tbf = ns.TrafficControlHelper()
    tbf.SetRootQueueDisc("ns3::TbfQueueDisc",
                         "Rate", ns.DataRateValue(ns.DataRate(int(rate))),
                         "Burst", ns.UintegerValue(int(burst)),
                         "Mtu", ns.UintegerValue(PACKET),
                         "MaxSize", ns.QueueSizeValue(ns.QueueSize("100000p")))
    tbf.Install(devices.Get(0))
    port = 9000
    sink = ns.PacketSinkHelper("ns3::UdpSocketFactory",
                               ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
    sink.Install(nodes.Get(1)).Start(ns.Seconds(0.0))
    onoff = ns.OnOffHelper("ns3::UdpSocketFactory",
                           ns.InetSocketAddress(ifaces.GetAddress(1), port).ConvertTo())
    onoff.SetConstantRate(ns.DataRate(int(2 * rate * UDP_PAYLOAD / PACKET)), UDP_PAYLOAD)
    onoff.Install(nodes.Get(0)).Start(ns.Seconds(0.0))
    cppyy.gbl.qmtbf.Connect(f"/NodeList/{nodes.Get(1).GetId()}/ApplicationList/*/"
                            f"$ns3::PacketSink/Rx")
    ns.Simulator.Stop(ns.Seconds(duration))
    ns.Simulator.Run()
    times = list(cppyy.gbl.qmtbf.rx)
    ns.Simulator.Destroy()
    return times


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", choices=["ns3"])
    ap.add_argument("--case", type=int, default=None, help="index into CASES")
    ap.add_argument("--ns3-python", default=os.environ.get("NS3_PYTHON", "/tmp/ns3venv/bin/python"))
    args = ap.parse_args(argv)
    cases = CASES if args.case is None else [CASES[args.case]]
    if args.worker == "ns3":
        rate, burst, duration = cases[0]
        print("RESULT " + json.dumps(run_ns3(rate, burst, duration)))
        return 0
    print(f"{'rate':>10} {'burst':>8} | {'qosmodels rate':>15} {'ns-3 rate':>12} {'diff':>7} | "
          f"{'qm burst':>9} {'ns-3 burst':>10} {'diff':>7}")
    worst = 0.0
    for k, (rate, burst, duration) in enumerate(CASES if args.case is None else cases):
        ours = run_qosmodels(rate, burst, duration)
        idx = k if args.case is None else args.case
        out = subprocess.run([args.ns3_python, __file__, "--worker", "ns3", "--case", str(idx)],
                             capture_output=True, text=True, check=True)
        line = next(x for x in out.stdout.splitlines() if x.startswith("RESULT "))
        theirs = json.loads(line[len("RESULT "):])
        after = 2 * burst * 8 / rate
        r_q, b_q = fit(ours, after=after)
        r_n, b_n = fit(theirs, after=after)
        dr, db = r_q / r_n - 1, b_q / b_n - 1
        worst = max(worst, abs(dr), abs(db))
        print(f"{rate:10.3g} {burst:8.0f} | {r_q:15.6g} {r_n:12.6g} {dr:+7.2%} | "
              f"{b_q:9.1f} {b_n:10.1f} {db:+7.2%}   (packets {len(ours)} / {len(theirs)})")
    print(f"largest relative difference {worst:.3%} (tolerance 1%)")
    return 0 if worst <= 0.01 else 1


if __name__ == "__main__":
    sys.exit(main())
