"""Cross-simulator check: the benchmark dumbbell in qosmodels and in ns-3.

The network (issue 3, "Cross-simulator check" and "Performance"): N TCP
NewReno flows, each on its own 100 Mb/s, 1 ms access link, sharing a
10 Mb/s, 20 ms bottleneck with a 100-packet drop-tail buffer, 1000-byte
packets, receivers at the far end of the bottleneck.  qosmodels runs in this
interpreter; ns-3 (the PyPI wheel ``ns3``, which installs a package named
``ns``, as ``ns.py`` does -- so it lives in its own virtual environment) runs
in a subprocess of the interpreter named by ``--ns3-python`` or the
environment variable ``NS3_PYTHON`` (default ``/tmp/ns3venv/bin/python``)::

    python3 -m venv /tmp/ns3venv && /tmp/ns3venv/bin/pip install ns3
    NS3_PYTHON=/tmp/ns3venv/bin/python python benchmarks/crosscheck_ns3.py --flows 8

It prints aggregate goodput, per-flow goodput and the bottleneck drop rate
of both simulators side by side.  ``--worker ns3`` (or ``--worker
qosmodels``) runs one simulator only and prints its measurements as one JSON
line prefixed ``RESULT``; ``bench_peers.py`` and
``tests/sim/test_crosscheck.py`` use it.

How ns-3 is configured to match qosmodels (qosmodels' defaults are kept;
ns-3 is changed where its defaults differ):

* TCP: ``TcpNewReno`` with ``TcpClassicRecovery`` (not PRR, ns-3's default),
  SACK off, timestamps off, delayed ACKs off (``DelAckCount`` 1), limited
  transmit off (RFC 3042; ns-3 enables it by default, qosmodels does not
  implement it), initial window 1 segment (ns-3 default 10; qosmodels'
  ``TcpNewReno(initial_window=1)``), minimum RTO 0.2 s (ns-3 default 1 s;
  qosmodels' ``min_rto``), initial RTO 1 s in both, receive buffer of
  ``max_window`` = 1000 segments (ns-3 default 128 KiB, which would cap the
  window at about 136 segments), send buffer of 2000 segments.
* Retransmission timer: ns-3's ``TcpSocketBase`` restarts it on every new
  ACK with the RTO recomputed from the estimator, not on the fast
  retransmit, and on the first partial ACK of a recovery only; qosmodels'
  default (``TcpNewReno.timer="reference"``) restarts it on all three.
  ``--timer impatient`` selects ns-3's rules in qosmodels.
* Fast recovery: ns-3's ``TcpClassicRecovery`` keeps ``cwnd = ssthresh`` and
  sends while its "pipe" (packets sent, minus duplicate ACKs counted as
  SACKed packets, minus lost, plus retransmitted) is below it; without
  limited transmit the first two duplicate ACKs are not counted, so it sends
  two packets fewer per recovery than RFC 6582's window inflation, and it
  does not deflate on partial ACKs.  ``--recovery pipe`` selects these rules
  in qosmodels (``TcpNewReno(recovery="pipe")``).
* ``--trace`` adds ns-3's own counts (from its trace sources): retransmissions,
  timeouts by the congestion state they interrupt, fast retransmits and data
  arrivals at the receivers, duplicates included.  ns-3's bottleneck carries
  duplicates: its ``window_arrivals`` minus its receivers' duplicate arrivals
  is what its sinks count.
* Packet size: qosmodels' 1000-byte packet is the whole packet on the wire.
  ns-3 adds a 20-byte IPv4 header, a 20-byte TCP header (no options) and a
  2-byte PPP header to each segment, so its segment size is 958 bytes and
  every data packet is 1000 bytes on the wire.  Goodput is compared in
  packets delivered in order to the receiving application, converted to
  bit/s at 1000 bytes per packet (for ns-3: received payload bytes / 958 x
  1000 x 8 / window).  ACKs are 40 bytes in qosmodels, 42 on the wire in ns-3.
* Queues: every point-to-point device has a 100-packet ``DropTailQueue``
  and ns-3's default root queue disc (FqCoDel) is removed with
  ``TrafficControlHelper::Uninstall``.  Without a queue disc, the traffic
  control layer drops a packet when the device queue is stopped (full), so
  bottleneck drops are counted on the ``TcDrop`` trace of the bottleneck
  router, not on the device queue.  Both simulators count the buffer in
  packets waiting, the packet in transmission excluded.
* Reverse path: in ns-3 ACKs cross the reverse direction of the same links
  (10 Mb/s and 100 Mb/s, never congested by 42-byte ACKs: about 37 us of
  serialisation per ACK in all); in qosmodels they see the 21 ms
  propagation delay only (no reverse links declared), as in the benchmark,
  unless ``--reverse-links`` declares them (40-byte ACKs).
* ns-3 opens each connection with a SYN handshake (one extra RTT at the
  start); the measurement window starts after ``--warmup`` seconds.
  ``--handshake`` starts each qosmodels flow when ns-3's sends its first
  data (46-byte SYNs and SYN-ACKs, queued at the bottleneck in turn).
* ``--ns3-rules`` selects every ns-3 rule qosmodels has (``NS3_RULES``):
  per-ACK RTT samples, the impatient timer, classic recovery without SACK
  (with ns-3's ``IsLost`` rule), the whole-byte window of 958-byte segments,
  the handshake and the reverse links.  With them the first 1.4 s of the
  8-flow run are the same packet for packet in both simulators.
* ``--tcp vegas`` gives every flow ns-3's ``TcpVegas`` (alpha 2, beta 4,
  gamma 1, its defaults) and qosmodels' ``TcpVegas(loss_rule="ns-3",
  rtt_estimate="smoothed")`` (ns-3's ``GetSsThresh``, one packet less after a
  loss; the smoothed RTT as Vegas' RTT, as ns-3's ``TcpSocketBase`` passes it to
  ``PktsAcked``); the rest of the configuration is unchanged (combine with
  ``--ns3-rules``).
* At 8 flows the dumbbell is bistable in both simulators (see
  ``start_schedule``): single runs settle into a loss-free-looking regime
  (10.0 Mb/s) or a regime of timeouts (8.4-9.9 Mb/s) depending on
  microseconds of the start, so ``--schedules K`` averages over K start
  schedules (flows starting uniformly within 0.1 s).

Goodput in both simulators counts packets delivered in order during the
window; packets received out of order before the window and released by a
retransmission inside it count in the window, so a short window after a
lossy slow start can show slightly more than the link capacity.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

#: Scenario constants (SI units).
ACCESS_RATE = 100e6
ACCESS_DELAY = 1e-3
BOTTLENECK_RATE = 10e6
BOTTLENECK_DELAY = 20e-3
BUFFER = 100
PACKET = 1000  # bytes on the wire per data packet
NS3_SEGMENT = PACKET - 20 - 20 - 2  # TCP payload: minus IPv4, TCP and PPP headers
MAX_WINDOW = 1000  # packets (qosmodels' default, the receiver's window)
INITIAL_WINDOW = 1  # packets (qosmodels' default)
MIN_RTO = 0.2  # s (qosmodels' default)
RED = dict(min_th=20.0, max_th=80.0, max_p=0.1, w_q=0.002)

DEFAULT_NS3_PYTHON = "/tmp/ns3venv/bin/python"


def ns3_python(path: str | None = None) -> str:
    """The interpreter with ns-3 installed: ``path``, else ``$NS3_PYTHON``, else the default."""
    return path or os.environ.get("NS3_PYTHON") or DEFAULT_NS3_PYTHON


# --------------------------------------------------------------------------- qosmodels


def qosmodels_network(n_flows: int, red: bool = False, rtt_samples: str = "segment",
                      timer: str = "reference", recovery: str = "inflation",
                      reverse_links: bool = False, handshake: bool = False,
                      starts=None, variant: str = "newreno", **tcp):
    """The dumbbell in qosmodels: ``s_i -> r0`` access links, ``r0 -> r1`` bottleneck.

    ``rtt_samples="ack"`` samples the RTT from every new ACK, as ns-3 does;
    ``timer="impatient"`` manages the retransmission timer as ns-3 does; other
    :class:`~qosmodels.sim.TcpNewReno` options pass through ``tcp`` (e.g.
    ``window_arithmetic="bytes", segment_size=NS3_SEGMENT``).  ``reverse_links``
    declares the reverse links (ACKs then queue and are serialised, 40 bytes,
    as ns-3's 42-byte ACKs are); ``starts`` are the flows' start times, s (default
    0); with ``handshake`` each flow starts when ns-3's would send its first data,
    after its SYN handshake (:func:`ns3_first_data`).  ``variant="vegas"`` gives every flow
    :class:`~qosmodels.mechanisms.TcpVegas` with ns-3's loss rule instead of NewReno."""
    from qosmodels import Flow, Link, Network
    from qosmodels.sim import DropTail, Red, TcpNewReno, TcpVegas

    queue = Red(**RED, typical_packet_size=PACKET) if red else DropTail()
    links = [Link("r0", "r1", BOTTLENECK_RATE, BOTTLENECK_DELAY, BUFFER, queue=queue)]
    flows = []
    if variant == "vegas":  # (Vegas times every packet)
        tcp = dict(tcp, loss_rule="ns-3", rtt_estimate="smoothed")
        rtt_samples = "ack"
    source = (TcpVegas if variant == "vegas" else TcpNewReno)(initial_window=INITIAL_WINDOW, max_window=MAX_WINDOW, min_rto=MIN_RTO,
                        rtt_samples=rtt_samples, timer=timer, recovery=recovery, **tcp)
    if reverse_links:
        links.append(Link("r1", "r0", BOTTLENECK_RATE, BOTTLENECK_DELAY, BUFFER))
    starts = [0.0] * n_flows if starts is None else list(starts)
    if handshake:
        starts = ns3_first_data(starts)
    for i in range(n_flows):
        links.append(Link(f"s{i}", "r0", ACCESS_RATE, ACCESS_DELAY, BUFFER))
        if reverse_links:
            links.append(Link("r0", f"s{i}", ACCESS_RATE, ACCESS_DELAY, BUFFER))
        flows.append(Flow(route=[f"s{i}", "r0", "r1"], packet_size=PACKET, source=source,
                          start=starts[i]))
    return Network(links=links, flows=flows)


#: ns-3's SYN and SYN-ACK on the wire: IPv4 20 + TCP 20 + window-scale option 4 + PPP 2 bytes.
NS3_SYN = 46


def ns3_first_data(starts) -> list[float]:
    """When ns-3's flows send their first data packet, s, given when their applications
    start (``starts``, s): each SYN crosses its access link, waits for the SYNs ahead of
    it at the bottleneck (first come, first served), and its SYN-ACK comes straight
    back (nothing else is on the reverse path); data follows the SYN-ACK at once."""
    syn_access, syn_bottleneck = 8.0 * NS3_SYN / ACCESS_RATE, 8.0 * NS3_SYN / BOTTLENECK_RATE
    order = sorted(range(len(starts)), key=lambda i: (starts[i], i))
    first = [0.0] * len(starts)
    free = 0.0  # when the bottleneck has sent the SYNs ahead
    for i in order:
        arrive = starts[i] + syn_access + ACCESS_DELAY
        free = max(arrive, free) + syn_bottleneck
        first[i] = free + BOTTLENECK_DELAY + syn_bottleneck + BOTTLENECK_DELAY + syn_access + ACCESS_DELAY
    return first


def run_qosmodels(n_flows: int, duration: float, warmup: float, seed: int = 1,
                  red: bool = False, rtt_samples: str = "segment",
                  timer: str = "reference", recovery: str = "inflation",
                  window_arithmetic: str = "packets", handshake: bool = False,
                  reverse_links: bool = False, starts=None, variant: str = "newreno") -> dict:
    """Run the dumbbell in qosmodels; goodput in bit/s of 1000-byte packets."""
    cpu0, wall0 = time.process_time(), time.perf_counter()
    from qosmodels.sim import Record, simulate

    tcp = {} if window_arithmetic == "packets" else dict(window_arithmetic=window_arithmetic,
                                                         segment_size=NS3_SEGMENT)
    net = qosmodels_network(n_flows, red, rtt_samples, timer, recovery,
                            reverse_links=reverse_links, handshake=handshake, starts=starts,
                            variant=variant, **tcp)
    cpu1 = time.process_time()
    res = simulate(net, duration, seed=seed, warmup=warmup,
                   record=Record(interval=1.0, cwnd=False), progress=False)
    cpu2, wall2 = time.process_time(), time.perf_counter()
    c = res.counters
    return dict(
        simulator="qosmodels", flows=n_flows, queue="red" if red else "droptail", variant=variant,
        rtt_samples=rtt_samples, timer=timer, recovery=recovery,
        window_arithmetic=window_arithmetic, handshake=handshake, reverse_links=reverse_links,
        starts=None if starts is None else [float(x) for x in starts],
        duration=duration, warmup=warmup, seed=seed,
        goodput=[float(x) for x in res.throughput],
        aggregate=float(res.throughput.sum()),
        drop_rate=float(res.drop_rate[0]),
        window_arrivals=int(c["link_arrivals_window"][0]),
        window_drops=int(c["link_drops_window"][0]),
        utilisation=float(res.utilisation[0]),
        bottleneck_packets=int(c["link_departures"][0]),
        events=int(res.events),
        data_sent=int(c["sent"].sum()),
        timeouts=int(c["timeouts"].sum()),
        fast_retransmits=int(c["fast_retransmits"].sum()),
        retransmitted=int(c["retransmitted"].sum()),
        duplicates=int((c["arrived"] - c["delivered"]).sum()),
        cpu_run=cpu2 - cpu1, cpu_total=cpu2 - cpu0, wall_total=wall2 - wall0,
        maxrss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    )


# --------------------------------------------------------------------------- ns-3

_NS3_CPP = """
#include "ns3/core-module.h"
#include "ns3/network-module.h"
namespace qmcheck {
uint64_t tc_drops = 0;
void CountDrop(ns3::Ptr<const ns3::Packet>) { ++tc_drops; }
void ConnectTcDrop(std::string path)
{
    ns3::Config::ConnectWithoutContext(path, ns3::MakeCallback(&CountDrop));
}
}
"""

# Optional per-flow tracing (``--trace``): sender events from the sockets' trace
# sources and data arrivals (first copies and duplicates) at the receiving router.
_NS3_TRACE_CPP = """
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include <unordered_set>
namespace qmtrace {
using namespace ns3;
enum { TX, RETX, RTO, RTO_OPEN, RTO_DISORDER, RTO_RECOVERY, RTO_LOSS, FAST_RTX,
       ARRIVED, DUPLICATE, SSTHRESH_AT_RTO, N_COUNTERS };
double warmup = 0.0;
uint64_t counts[2][N_COUNTERS];  // [whole run, window][counter]
std::vector<int> state;           // congestion state of each flow
std::vector<uint32_t> ssthresh;   // bytes
std::unordered_set<uint64_t> seen;
uint32_t segment = 1;
void Add(int k, uint64_t n = 1)
{
    counts[0][k] += n;
    if (Simulator::Now().GetSeconds() >= warmup) { counts[1][k] += n; }
}
void OnTx(int f, Ptr<const Packet> p, const TcpHeader&, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0) { Add(TX); }
}
void OnRetx(int f, Ptr<const Packet> p, const TcpHeader&, const Address&, const Address&,
            Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0) { Add(RETX); }
}
void OnRto(int f, Time oldv, Time newv)
{
    // ReTxTimeout doubles m_rto (capped at 60 s); NewAck recomputes it from the estimator
    if (newv == oldv + oldv || (newv == Seconds(60) && oldv >= Seconds(30)))
    {
        Add(RTO);
        Add(RTO_OPEN + (state[f] == TcpSocketState::CA_OPEN ? 0
                        : state[f] == TcpSocketState::CA_DISORDER ? 1
                        : state[f] == TcpSocketState::CA_RECOVERY ? 2 : 3));
    }
}
void OnState(int f, TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n)
{
    state[f] = n;
    if (n == TcpSocketState::CA_RECOVERY) { Add(FAST_RTX); }
    if (n == TcpSocketState::CA_LOSS) { Add(SSTHRESH_AT_RTO, ssthresh[f] / segment); }
}
void OnSsthresh(int f, uint32_t o, uint32_t n) { ssthresh[f] = n; }
void OnIpRx(Ptr<const Packet> packet, Ptr<Ipv4>, uint32_t)
{
    Ptr<Packet> p = packet->Copy();
    Ipv4Header ip;
    p->RemoveHeader(ip);
    if (ip.GetProtocol() != 6) { return; }
    TcpHeader tcp;
    p->RemoveHeader(tcp);
    if (p->GetSize() == 0) { return; }
    Add(ARRIVED);
    uint64_t key = (uint64_t(tcp.GetDestinationPort()) << 32) | tcp.GetSequenceNumber().GetValue();
    if (!seen.insert(key).second) { Add(DUPLICATE); }
}
void Setup(int n, double w, uint32_t seg)
{
    warmup = w;
    segment = seg;
    state.assign(n, TcpSocketState::CA_OPEN);
    ssthresh.assign(n, 0);
}
void ConnectSocket(int f, Ptr<Socket> s)
{
    Ptr<TcpSocketBase> t = DynamicCast<TcpSocketBase>(s);
    t->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, f));
    t->TraceConnectWithoutContext("Retransmission", MakeBoundCallback(&OnRetx, f));
    t->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, f));
    t->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnState, f));
    t->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsthresh, f));
}
void ConnectReceiver(std::string path)
{
    Config::ConnectWithoutContext(path, MakeCallback(&OnIpRx));
}
uint64_t Get(int w, int k) { return counts[w][k]; }
}
"""
_TRACE_NAMES = ["data_sent", "retransmitted", "timeouts", "timeouts_open", "timeouts_disorder",
                "timeouts_recovery", "timeouts_loss", "fast_retransmits", "arrived", "duplicates",
                "ssthresh_at_rto_sum"]


def run_ns3(n_flows: int, duration: float, warmup: float, seed: int = 1,
            red: bool = False, trace: bool = False, starts=None, variant: str = "newreno") -> dict:
    """Run the dumbbell in ns-3 (call in an interpreter where ``from ns import ns`` is ns-3).

    With ``red``, the bottleneck gets a ``RedQueueDisc`` (min_th 20, max_th
    80, max_p 0.1 as ``LInterm`` 10, w_q 0.002, 100 packets, not gentle) as
    root queue disc over a one-packet device queue; everything else is as
    described in the module docstring.  With ``trace``, the result also
    counts, for the whole run and the window (keys ``trace`` and
    ``trace_window``), data segments sent and retransmitted, timeouts (by the
    congestion state they interrupted), fast retransmits and data arrivals at
    the receivers, duplicates included.  ``starts``: when each flow's
    application starts (and sends its SYN), s; default 0 for all.  ``variant="vegas"``:
    ``TcpVegas`` (alpha 2, beta 4, gamma 1) instead of ``TcpNewReno``.
    """
    cpu0, wall0 = time.process_time(), time.perf_counter()
    import cppyy
    from ns import ns

    cppyy.cppdef(_NS3_CPP)
    cpu_import = time.process_time() - cpu0
    cfg = ns.Config.SetDefault
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(int(seed))
    socket = ns.TcpVegas if variant == "vegas" else ns.TcpNewReno
    cfg("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(socket.GetTypeId()))
    cfg("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TcpClassicRecovery.GetTypeId()))
    cfg("ns3::TcpSocketBase::Sack", ns.BooleanValue(False))
    cfg("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    cfg("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(False))
    cfg("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(MIN_RTO)))
    cfg("ns3::RttEstimator::InitialEstimation", ns.TimeValue(ns.Seconds(1.0)))
    cfg("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
    cfg("ns3::TcpSocket::SegmentSize", ns.UintegerValue(NS3_SEGMENT))
    cfg("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(INITIAL_WINDOW))
    cfg("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(MAX_WINDOW * NS3_SEGMENT))
    cfg("ns3::TcpSocket::SndBufSize", ns.UintegerValue(2 * MAX_WINDOW * NS3_SEGMENT))
    cfg("ns3::DropTailQueue<Packet>::MaxSize", ns.StringValue(f"{BUFFER}p"))

    src = ns.NodeContainer()
    src.Create(n_flows)
    routers = ns.NodeContainer()
    routers.Create(2)
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.StringValue(f"{int(ACCESS_RATE)}bps"))
    p2p.SetChannelAttribute("Delay", ns.StringValue(f"{ACCESS_DELAY * 1e3:g}ms"))
    access = [p2p.Install(src.Get(i), routers.Get(0)) for i in range(n_flows)]
    if red:  # the queue disc holds the backlog; the device keeps one packet waiting
        cfg("ns3::DropTailQueue<Packet>::MaxSize", ns.StringValue("1p"))
    p2p.SetDeviceAttribute("DataRate", ns.StringValue(f"{int(BOTTLENECK_RATE)}bps"))
    p2p.SetChannelAttribute("Delay", ns.StringValue(f"{BOTTLENECK_DELAY * 1e3:g}ms"))
    bottleneck = p2p.Install(routers.Get(0), routers.Get(1))
    stack = ns.InternetStackHelper()
    stack.Install(src)
    stack.Install(routers)
    addresses = ns.Ipv4AddressHelper()
    addresses.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    bottleneck_if = addresses.Assign(bottleneck)
    for devices in access:
        addresses.NewNetwork()
        addresses.Assign(devices)
    tch = ns.TrafficControlHelper()  # remove the default FqCoDel root queue discs
    tch.Uninstall(bottleneck)
    for devices in access:
        tch.Uninstall(devices)
    qdisc = None
    if red:
        red_tch = ns.TrafficControlHelper()
        red_tch.SetRootQueueDisc("ns3::RedQueueDisc")
        cfg("ns3::RedQueueDisc::MinTh", ns.DoubleValue(RED["min_th"]))
        cfg("ns3::RedQueueDisc::MaxTh", ns.DoubleValue(RED["max_th"]))
        cfg("ns3::RedQueueDisc::LInterm", ns.DoubleValue(1.0 / RED["max_p"]))
        cfg("ns3::RedQueueDisc::QW", ns.DoubleValue(RED["w_q"]))
        cfg("ns3::RedQueueDisc::MaxSize", ns.StringValue(f"{BUFFER}p"))
        cfg("ns3::RedQueueDisc::Gentle", ns.BooleanValue(False))
        cfg("ns3::RedQueueDisc::MeanPktSize", ns.UintegerValue(PACKET))
        cfg("ns3::RedQueueDisc::LinkBandwidth", ns.DataRateValue(ns.DataRate(int(BOTTLENECK_RATE))))
        cfg("ns3::RedQueueDisc::LinkDelay", ns.TimeValue(ns.Seconds(BOTTLENECK_DELAY)))
        qdisc = red_tch.Install(bottleneck.Get(0)).Get(0)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    sinks = []
    senders = []
    for i in range(n_flows):
        port = 5000 + i
        any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        sink_apps = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr).Install(routers.Get(1))
        sink_apps.Start(ns.Seconds(0.0))
        sinks.append(ns.DynamicCast[ns.PacketSink](sink_apps.Get(0)))
        dst = ns.InetSocketAddress(bottleneck_if.GetAddress(1), port).ConvertTo()
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", dst)
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(NS3_SEGMENT))
        apps = bulk.Install(src.Get(i))
        apps.Start(ns.Seconds(0.0 if starts is None else float(starts[i])))
        senders.append(apps.Get(0))
    device = ns.DynamicCast[ns.PointToPointNetDevice](bottleneck.Get(0))
    dev_queue = device.GetQueue()
    cppyy.gbl.qmcheck.ConnectTcDrop(
        f"/NodeList/{routers.Get(0).GetId()}/$ns3::TrafficControlLayer/TcDrop")

    def bottleneck_counts():
        # (packets accepted, packets dropped) at the bottleneck
        if qdisc is None:
            return (int(dev_queue.GetTotalReceivedPackets()), int(cppyy.gbl.qmcheck.tc_drops))
        st = qdisc.GetStats()
        # the queue disc counts every arrival as received, drops included
        return (int(st.nTotalReceivedPackets) - int(st.nTotalDroppedPackets),
                int(st.nTotalDroppedPackets))

    cpu1 = time.process_time()
    if trace:  # the sockets exist once the applications have started
        cppyy.cppdef(_NS3_TRACE_CPP)
        qt = cppyy.gbl.qmtrace
        qt.Setup(n_flows, float(warmup), NS3_SEGMENT)
        ns.Simulator.Stop(ns.Seconds(max(starts or [0.0])) + ns.NanoSeconds(1))
        ns.Simulator.Run()
        for i, app in enumerate(senders):
            qt.ConnectSocket(i, ns.DynamicCast[ns.BulkSendApplication](app).GetSocket())
        qt.ConnectReceiver(f"/NodeList/{routers.Get(1).GetId()}/$ns3::Ipv4L3Protocol/Rx")
        ns.Simulator.Stop(ns.Seconds(warmup) - ns.Simulator.Now())  # (warmup > the starts)
    else:
        ns.Simulator.Stop(ns.Seconds(warmup))
    ns.Simulator.Run()
    rx0 = [int(s.GetTotalRx()) for s in sinks]
    acc0, drop0 = bottleneck_counts()
    ns.Simulator.Stop(ns.Seconds(duration - warmup))
    ns.Simulator.Run()
    cpu2, wall2 = time.process_time(), time.perf_counter()
    rx1 = [int(s.GetTotalRx()) for s in sinks]
    acc1, drop1 = bottleneck_counts()
    events = int(ns.Simulator.GetEventCount())
    sent = int(dev_queue.GetTotalReceivedPackets())  # every packet sent enters the device queue
    ns.Simulator.Destroy()
    traced = {}
    if trace:
        for w, key in enumerate(("trace", "trace_window")):
            traced[key] = {name: int(qt.Get(w, k)) for k, name in enumerate(_TRACE_NAMES)}
    window = duration - warmup
    goodput = [(b - a) / NS3_SEGMENT * PACKET * 8.0 / window for a, b in zip(rx0, rx1)]
    arrivals = (acc1 - acc0) + (drop1 - drop0)
    return dict(
        simulator="ns-3", flows=n_flows, queue="red" if red else "droptail", variant=variant,
        duration=duration, warmup=warmup, seed=seed,
        goodput=goodput, aggregate=sum(goodput),
        drop_rate=(drop1 - drop0) / arrivals if arrivals else 0.0,
        window_arrivals=arrivals, window_drops=drop1 - drop0,
        utilisation=(acc1 - acc0) * PACKET * 8.0 / (BOTTLENECK_RATE * window),
        bottleneck_packets=sent, events=events,
        cpu_import=cpu_import, cpu_run=cpu2 - cpu1, cpu_total=cpu2 - cpu0,
        wall_total=wall2 - wall0,
        maxrss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        **traced,
    )


# --------------------------------------------------------------------------- drivers


def run_worker(simulator: str, python: str, *, flows: int, duration: float, warmup: float,
               seed: int = 1, red: bool = False, env: dict | None = None,
               timeout: float | None = None, trace: bool = False, starts=None,
               variant: str = "newreno") -> dict:
    """Run one simulator in a fresh process of ``python``; return its measurements."""
    cmd = [python, os.path.abspath(__file__), "--worker", simulator, "--flows", str(flows),
           "--duration", repr(duration), "--warmup", repr(warmup), "--seed", str(seed)]
    if red:
        cmd.append("--red")
    if variant != "newreno":
        cmd += ["--tcp", variant]
    if trace:
        cmd.append("--trace")
    if starts is not None:
        cmd += ["--starts", json.dumps([float(x) for x in starts])]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    tail = "\n".join((proc.stderr or "").splitlines()[-15:])
    raise RuntimeError(f"{simulator} worker failed (exit {proc.returncode}): {' '.join(cmd)}\n"
                       f"{tail}")


#: qosmodels options reproducing ns-3's rules (``compare(..., **NS3_RULES)``).
NS3_RULES = dict(rtt_samples="ack", timer="impatient", recovery="pipe",
                 window_arithmetic="bytes", handshake=True, reverse_links=True)


def compare(flows: int, duration: float, warmup: float, seed: int = 1,
            python: str | None = None, rtt_samples: str = "segment",
            timer: str = "reference", recovery: str = "inflation",
            trace: bool = False, window_arithmetic: str = "packets",
            handshake: bool = False, reverse_links: bool = False,
            starts=None, variant: str = "newreno") -> tuple[dict, dict]:
    """Both simulators on the same dumbbell: ``(qosmodels, ns-3)`` measurements
    (``variant``: ``"newreno"`` or ``"vegas"``, the TCP of every flow)."""
    ns3 = run_worker("ns3", ns3_python(python), flows=flows, duration=duration, warmup=warmup,
                     seed=seed, trace=trace, starts=starts, variant=variant)
    ours = run_qosmodels(flows, duration, warmup, seed, rtt_samples=rtt_samples, timer=timer,
                         recovery=recovery, window_arithmetic=window_arithmetic,
                         handshake=handshake, reverse_links=reverse_links, starts=starts,
                         variant=variant)
    return ours, ns3


#: Start times of schedule k >= 1 are uniform in [0, START_SPREAD), s.
START_SPREAD = 0.1


def start_schedule(n_flows: int, k: int):
    """Start times of the flows in schedule ``k``, s: ``None`` (all at 0) for ``k = 0``,
    else ``n_flows`` times uniform in ``[0, START_SPREAD)`` from ``numpy`` seed ``k``.

    With 8 flows the dumbbell is bistable in both simulators: after the slow-start
    transient the flows either lock into a phase in which each congestion event costs
    every flow one packet and one fast retransmit (10.0 Mb/s, no timeouts), or keep
    losing packets at the end of their window bursts and time out (8.4-9.7 Mb/s).
    Which one a run settles into depends on microsecond details of the start (ns-3:
    10.0 Mb/s with every flow starting at 0, 8.54 Mb/s with schedule 3), so at 8 flows
    only averages over start schedules compare."""
    if k == 0:
        return None
    import numpy as np

    return [float(x) for x in np.random.default_rng(k).uniform(0.0, START_SPREAD, n_flows)]


def compare_schedules(flows: int, duration: float, warmup: float, schedules: int,
                      **options) -> tuple[list[dict], list[dict]]:
    """:func:`compare` over start schedules ``0 .. schedules - 1`` (:func:`start_schedule`):
    ``(qosmodels runs, ns-3 runs)``."""
    ours, theirs = [], []
    for k in range(schedules):
        a, b = compare(flows, duration, warmup, starts=start_schedule(flows, k), **options)
        ours.append(a)
        theirs.append(b)
    return ours, theirs


_VARIANTS = {"newreno": "NewReno", "vegas": "Vegas"}


def _table(ours: dict, ns3: dict) -> str:
    mb = 1e6
    lines = [
        f"Dumbbell: {ours['flows']} {_VARIANTS[ours['variant']]} flows, 100 Mb/s 1 ms access, 10 Mb/s 20 ms "
        f"bottleneck, {BUFFER}-packet drop-tail, {PACKET}-byte packets; "
        f"{ours['duration']:g} s simulated, window from {ours['warmup']:g} s; qosmodels "
        f"rtt_samples={ours['rtt_samples']!r}, timer={ours['timer']!r}, "
        f"recovery={ours['recovery']!r}, window_arithmetic={ours['window_arithmetic']!r}"
        f"{', handshake' if ours['handshake'] else ''}"
        f"{', reverse links' if ours['reverse_links'] else ''}"
        f"{', staggered starts' if ours['starts'] else ''}",
        "",
        "| quantity | qosmodels | ns-3 | qosmodels / ns-3 - 1 |",
        "|---|---|---|---|",
        f"| aggregate goodput (Mb/s) | {ours['aggregate'] / mb:.4f} | {ns3['aggregate'] / mb:.4f} "
        f"| {ours['aggregate'] / ns3['aggregate'] - 1:+.2%} |",
        f"| bottleneck drop rate | {ours['drop_rate']:.5f} | {ns3['drop_rate']:.5f} | "
        f"{(ours['drop_rate'] / ns3['drop_rate'] - 1) if ns3['drop_rate'] else float('nan'):+.1%} |",
        f"| bottleneck drops in window | {ours['window_drops']} | {ns3['window_drops']} | |",
        f"| bottleneck utilisation | {ours['utilisation']:.4f} | {ns3['utilisation']:.4f} | |",
        f"| timeouts, whole run | {ours['timeouts']} | {ns3.get('timeouts', 'n/a')} | |",
        f"| fast retransmits, whole run | {ours['fast_retransmits']} | "
        f"{ns3.get('fast_retransmits', 'n/a')} | |",
    ]
    if "trace" in ns3:  # ns-3's counts come from its trace sources (--trace)
        t = ns3["trace"]
        lines[-2:] = [
            f"| timeouts, whole run | {ours['timeouts']} | {t['timeouts']} (in recovery "
            f"{t['timeouts_recovery']}, after 1-2 duplicate ACKs {t['timeouts_disorder']}) | |",
            f"| fast retransmits, whole run | {ours['fast_retransmits']} | "
            f"{t['fast_retransmits']} | |",
            f"| retransmissions, whole run | {ours['retransmitted']} | {t['retransmitted']} | |",
            f"| duplicate arrivals, whole run | {ours['duplicates']} | {t['duplicates']} | |",
        ]
    for i, (a, b) in enumerate(zip(ours["goodput"], ns3["goodput"])):
        lines.append(f"| flow {i} goodput (Mb/s) | {a / mb:.4f} | {b / mb:.4f} | {a / b - 1:+.1%} |")
    jain = [sum(g) ** 2 / (len(g) * sum(x * x for x in g)) for g in (ours["goodput"], ns3["goodput"])]
    lines.append(f"| Jain's index | {jain[0]:.4f} | {jain[1]:.4f} | |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--flows", type=int, nargs="+", default=[8])
    p.add_argument("--duration", type=float, default=300.0, help="simulated seconds")
    p.add_argument("--warmup", type=float, default=50.0, help="start of the measurement window, s")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--red", action="store_true", help="RED bottleneck (workers only)")
    p.add_argument("--tcp", choices=sorted(_VARIANTS), default="newreno",
                   help="the flows' TCP: ns-3's TcpNewReno or TcpVegas, and qosmodels' "
                        "TcpNewReno or TcpVegas(loss_rule='ns-3', rtt_estimate='smoothed')")
    p.add_argument("--trace", action="store_true",
                   help="count ns-3's retransmissions, timeouts and duplicate arrivals")
    p.add_argument("--rtt-samples", choices=["segment", "ack"], default="segment",
                   help="qosmodels' TcpNewReno.rtt_samples ('ack' samples every new ACK, as ns-3)")
    p.add_argument("--timer", choices=["reference", "impatient", "slow-but-steady"],
                   default="reference",
                   help="qosmodels' TcpNewReno.timer ('impatient' restarts the retransmission "
                        "timer as ns-3)")
    p.add_argument("--recovery", choices=["inflation", "pipe"], default="inflation",
                   help="qosmodels' TcpNewReno.recovery ('pipe' is ns-3's classic recovery "
                        "without SACK)")
    p.add_argument("--window-arithmetic", choices=["packets", "bytes"], default="packets",
                   help="qosmodels' TcpNewReno.window_arithmetic ('bytes': ns-3's whole-byte "
                        f"window of {NS3_SEGMENT}-byte segments)")
    p.add_argument("--handshake", action="store_true",
                   help="qosmodels' flows start when ns-3's send their first data, after the "
                        "SYN handshake")
    p.add_argument("--reverse-links", action="store_true",
                   help="declare the reverse links in qosmodels (ACKs serialised and queued)")
    p.add_argument("--ns3-rules", action="store_true",
                   help="all of ns-3's rules: --rtt-samples ack --timer impatient --recovery "
                        "pipe --window-arithmetic bytes --handshake --reverse-links")
    p.add_argument("--schedules", type=int, default=1,
                   help="average over this many start schedules (0: all flows start at 0; "
                        f"k >= 1: uniform in [0, {START_SPREAD:g}) s, numpy seed k)")
    p.add_argument("--starts", default=None, help="workers: start times, a JSON list (s)")
    p.add_argument("--ns3-python", default=None,
                   help=f"interpreter with ns-3 (default $NS3_PYTHON or {DEFAULT_NS3_PYTHON})")
    p.add_argument("--worker", choices=["ns3", "qosmodels"],
                   help="run one simulator and print its measurements as JSON")
    a = p.parse_args(argv)
    if a.ns3_rules:
        a.rtt_samples, a.timer, a.recovery = "ack", "impatient", "pipe"
        a.window_arithmetic, a.handshake, a.reverse_links = "bytes", True, True
    starts = None if a.starts is None else json.loads(a.starts)
    if a.worker:
        if a.worker == "ns3":
            out = run_ns3(a.flows[0], a.duration, a.warmup, a.seed, a.red, a.trace, starts,
                          a.tcp)
        else:
            out = run_qosmodels(a.flows[0], a.duration, a.warmup, a.seed, a.red, a.rtt_samples,
                                a.timer, a.recovery, a.window_arithmetic, a.handshake,
                                a.reverse_links, starts, a.tcp)
        print("RESULT " + json.dumps(out), flush=True)
        return 0
    options = dict(seed=a.seed, python=a.ns3_python, variant=a.tcp,
                   rtt_samples=a.rtt_samples, timer=a.timer,
                   recovery=a.recovery, trace=a.trace, window_arithmetic=a.window_arithmetic,
                   handshake=a.handshake, reverse_links=a.reverse_links)
    for n in a.flows:
        ours, ns3 = compare_schedules(n, a.duration, a.warmup, a.schedules, **options)
        for k, (x, y) in enumerate(zip(ours, ns3)):
            if a.schedules > 1:
                print(f"start schedule {k}:")
            print(_table(x, y))
            print()
        mine = sum(x["aggregate"] for x in ours) / len(ours)
        theirs = sum(y["aggregate"] for y in ns3) / len(ns3)
        if a.schedules > 1:
            print(f"{n} flows, {a.schedules} start schedules: mean aggregate goodput "
                  f"qosmodels {mine / 1e6:.4f}, ns-3 {theirs / 1e6:.4f} Mb/s "
                  f"({mine / theirs - 1:+.2%})")
            for name, runs in (("qosmodels", ours), ("ns-3", ns3)):
                print(f"  {name}: " + " ".join(f"{x['aggregate'] / 1e6:.4f}" for x in runs))
        within = abs(mine / theirs - 1) <= 0.02
        print(f"aggregate goodput within 2% of ns-3: {'yes' if within else 'NO'}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
