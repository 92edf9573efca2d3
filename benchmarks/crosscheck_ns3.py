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

* TCP: ``TcpNewReno`` with ``TcpClassicRecovery`` (not PRR, ns-3's default; ``--prr`` puts
  PRR in both, ns-3's ``TcpPrrRecovery`` and qosmodels' ``prr=True``, RFC 9937, with ``--sack``),
  SACK off, timestamps off, delayed ACKs off (``DelAckCount`` 1), limited
  transmit off (RFC 3042; ns-3 enables it by default, qosmodels' senders have it
  off by default; ``--limited-transmit`` turns it on in both: qosmodels'
  ``limited_transmit=True`` and ns-3's ``LimitedTransmit``; ``--sack`` turns SACK on
  in both, qosmodels' ``sack=True``), initial window 1 segment (ns-3 default 10; qosmodels'
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
* PRR (``--prr``): ns-3 3.44's ``TcpPrrRecovery`` does not follow RFC 9937 with SACK, and
  the difference is what raises ns-3's drops (issue 35; ``benchmarks/RESULTS.md``, "Session
  50: PRR in ns-3 and qosmodels").  On every duplicate ACK it adds one segment to the
  DeliveredData that ``TcpSocketBase`` already computed from the newly SACKed bytes (RFC
  9937, Section 6.2, estimates one SMSS per duplicate ACK "in recovery without SACK"), so
  ``prr_delivered`` grows about twice as fast as the data delivered and the proportional
  part sends about 1.4 packets per packet delivered (ssthresh / RecoverFS = 0.7 for CUBIC):
  the pipe *rises* in the recovery (at most 10.5 packets above its value at the start on
  average at 2 flows; 1, the fast retransmit, with RFC 9937's readings), the queue
  overflows again inside it, and those losses are repaired in the same recovery.  ns-3
  fixed this after 3.44 (its issue #1350; #1282 and #1351 fix the 32-bit arithmetic and
  RecoverFS, both also below).  ``--ns3-prr READINGS`` (ns-3 worker) replaces
  ``TcpPrrRecovery`` by ``ns3::QmPrrRecovery`` (:data:`_NS3_PRR_CPP`, written for this
  check), which keeps the 3.44 readings named (``bump``, ``twice``, ``wrap``, ``pipe``,
  ``retx``; ``ns3-3.44`` all, which gives ``TcpPrrRecovery``'s runs to the packet) and
  takes RFC 9937's for the others (``rfc``: none kept).  At 2 flows (300 s from 50 s) the
  drop rate is 0.00279 with 3.44's readings, 0.00058 without the duplicate-ACK segment
  alone, 0.00287 with it alone, 0.00044 with RFC 9937's (classic recovery 0.00049,
  qosmodels' PRR 0.00047); at 8 flows 0.01077, 0.00459 (without it) and 0.00467 (RFC;
  classic 0.00467, qosmodels 0.00452).  The exit is not a difference: ``TcpSocketBase`` sets ``cwnd =
  ssthresh`` on the ACK that ends the recovery before ``ExitRecovery``, for every recovery
  algorithm, as RFC 9937 (Section 6.4) and qosmodels do.  ``--ns3-recovery-log PATH``
  writes each of ns-3's recoveries to a CSV file (:data:`_NS3_RECOVERY_LOG_CPP`);
  ``benchmarks/prr_recoveries.py`` records qosmodels' and summarises both.
* ``--trace`` adds ns-3's own counts (from its trace sources): retransmissions,
  timeouts by the congestion state they interrupt, fast retransmits and data
  arrivals at the receivers, duplicates included.  ns-3's bottleneck carries
  duplicates: its ``window_arrivals`` minus its receivers' duplicate arrivals
  is what its sinks count.
* ``--ns3-packet-log PATH`` writes every data packet ns-3's senders send, every one
  its bottleneck drops and every retransmission timeout to a CSV file
  (:data:`_NS3_PACKET_LOG_CPP`); ``benchmarks/rack_timeouts.py ns3log PATH`` classifies
  the timeouts by what happened to the packet at SND.UNA.  With SACK and limited
  transmit at 8 flows ns-3 times out 30 times as often as qosmodels (CUBIC: 156 against
  5 in 300 s): its timeouts are spurious.  In that 300 s run every one of the 122
  timeouts after 50 s came about 0.09 s after the head's retransmission (medians
  0.082-0.094 s by kind), which was not dropped, with an RTO of 0.2 s: ``TcpSocketBase`` does not restart the timer on the fast retransmit (the
  ``timer="impatient"`` rules), so it fires 0.2 s after the last new ACK, before the
  retransmission's ACK is back (round trip about 0.115 s), and the go-back-N that
  follows resends what the receiver has (the duplicate arrivals).  qosmodels' NewReno
  with SACK and ``--timer impatient`` (which the SACK sender honours since session 51)
  times out 166 times in the same 300 s run, against 0 with its default rules, and ns-3's
  NewReno 62 times (``benchmarks/RESULTS.md``, session 51).  ``Cubic`` has the option too
  since session 52: with ``--tcp cubic --sack --limited-transmit --timer impatient``
  qosmodels times out 203 times at 8 flows (ns-3 156; default rules 5) and 9968 at 32
  (ns-3 7415; default rules 216), and its aggregate goodput falls to 9.94 and 9.44 Mb/s
  (ns-3 9.96 and 9.70; default rules 10.00 and 10.00; RESULTS.md, session 52).
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
* ``--queue {droptail,red,step,pie,codel,fqcodel,fqcodel-exact}`` puts qosmodels'
  ``DropTail()``, ``Red(...)``, ``DropTail(mark_threshold=K)`` (K = 20 packets), ``Pie()``,
  ``Codel()``, ``FqCodel()`` or ``FqCodel(exact=True)`` on the bottleneck and ns-3's
  ``RedQueueDisc``, ``RedQueueDisc`` as a step marker, ``PieQueueDisc``, ``CoDelQueueDisc``
  or ``FqCoDelQueueDisc`` (for both FQ-CoDel cases) set to the same parameters (every
  attribute set, and why, in :func:`ns3_queue_disc`) over a one-packet device queue.  With
  FQ-CoDel both sides report how many flow queues the data flows occupy
  (``flow_queues``: ns-3's queue disc classes, one per hash bucket used; qosmodels'
  distinct :meth:`~qosmodels.mechanisms.FqCodel.bucket` values).  ``--tcp dctcp`` gives
  every flow qosmodels' ``Dctcp()`` and ns-3's ``TcpDctcp`` (``g`` 1/16, initial alpha 1,
  ECT(0): its defaults, as qosmodels') behind the step marker; ``--tcp cubic`` qosmodels'
  ``Cubic()`` and ns-3's ``TcpCubic`` (C 0.4, beta 0.7, fast convergence, TCP
  friendliness: its defaults, as qosmodels'; ``HyStart`` off, since qosmodels' Cubic has
  Reno's slow start; ns-3 keeps its Linux-style ``cnt`` growth,
  its ``CntClamp`` before the first loss and its ``t + delay_min`` target, which qosmodels'
  RFC 9438 model does not have; ``--ns3-rfc-cubic`` replaces ``TcpCubic`` by RFC 9438's
  arithmetic in ns-3's socket, and ``--ns3-flight-size`` then reduces ssthresh from RFC
  5681's FlightSize instead of the socket's pipe: :data:`_NS3_RFC_CUBIC_CPP`).  ``--ns3-set
  NAME=VALUE`` changes one ns-3 default to
  measure its effect (e.g. ``ns3::TcpCubic::HyStart=true``); ``--ns3-cwr-growth`` lets ns-3's
  DCTCP window grow in the round trip after an ECN reduction, as qosmodels' does (ns-3
  freezes it there, as Linux does).  ``--scenario dctcp-sawtooth`` runs the network of the
  ``dctcp-sawtooth`` experiment (1 Gb/s, 1 ms, 1500-byte packets, K = 20) instead.
* ``--tcp bbr`` gives every flow qosmodels' ``BbrV1(sack=True)`` and ns-3's ``TcpBbr``, SACK
  on in both (``--sack`` implied), initial window 10 in both (``BbrV1``'s default, as Linux;
  ns-3's ``InitialCwnd`` default), ns-3's pacing on (``TcpSocketState::EnablePacing``, and
  ``PaceInitialWindow``, since qosmodels paces every packet; ``TcpBbr`` would turn pacing on
  itself, with a warning).  ns-3's recovery algorithm (``TcpClassicRecovery`` here) is not
  used: with a congestion control that has ``CongControl`` (BBR) ``TcpSocketBase`` skips it,
  and ``TcpBbr`` sets the window on every ACK.  The rest is ns-3's ``TcpBbr`` as it is (ns-3
  3.44), which follows Linux's ``tcp_bbr.c`` of about 2019 more than draft-cardwell-iccrg-
  bbr-congestion-control-00, qosmodels' text: ``HighGain`` 2.89 (2/ln 2 = 2.885), pacing at
  99 % of ``gain x BtlBw`` (a 1 % margin), a send quantum of one segment (the draft: 2 packets
  below 24 Mb/s), 2 more segments of in-flight target in the 5/4 phase, an ACK-aggregation
  term (the largest excess of ACKed data over ``BtlBw`` x time in 5 rounds, at most 100 ms of
  ``BtlBw``) in the cwnd target, ``cwnd = ssthresh`` (the in-flight target when STARTUP
  ended) on leaving fast recovery (``TcpSocketBase``), a first PROBE_BW phase drawn from 6
  (not 7) of the 8; RTprop from every ACK's RTT sample (timestamps off, Karn's rule).
  ``--ns3-bbr-no-ack-aggregation`` sets ``TcpBbr``'s ACK-aggregation gain to 0 (the term is
  in neither draft-00 nor Linux 4.9's ``tcp_bbr.c``; in ns-3 3.44 it is about 4 segments on
  any path: ``UpdateAckAggregation`` keeps the epoch's length in a ``uint32_t`` of whole
  seconds, so no ACKed bytes are ever expected, and restarts the epoch at
  ``AckEpochAckedResetThresh`` = 4096 bytes).  Every ``TcpBbr`` draws its PROBE_BW phases
  from its own ``UniformRandomVariable`` on stream 4 (its ``Stream`` attribute), so all the
  flows of a run draw the same phases (Linux and qosmodels draw each flow's apart).
  ``--limited-transmit`` is refused (``BbrV1`` has none).  ``--bbr-send-quantum N`` gives
  qosmodels' ``BbrV1`` a fixed send quantum of ``N`` packets (``BbrV1(send_quantum=N)``;
  ``--bbr-send-quantum 1`` is ns-3's one segment) instead of the draft's rule by rate.
* Measured besides goodput: the mean queueing delay of data packets (qosmodels: delivered
  packets' time in queues; ns-3: from arrival at the bottleneck's queue disc to the start of
  transmission), ECN marks per arrival at the bottleneck (whole run in both), each flow's
  time-averaged congestion window (DCTCP, CUBIC, BBR; qosmodels samples it every 10 ms, ns-3
  integrates its ``CongestionWindow`` trace), DCTCP's alpha (mean over each flow's updates
  in the window, then over flows), and for ``dctcp-sawtooth`` the share of the time more
  than K packets wait.  ns-3's delay is timed per packet uid, and a retransmission is a copy
  of the packet it resends, with its uid: each arrival at the queue disc restarts the uid's
  clock.  (Until 2026-11-27 the first arrival was kept, so a copy dropped after its arrival
  -- CoDel and FQ-CoDel drop at dequeue -- left its arrival behind and the retransmission
  was timed from it: ns-3's CoDel at 32 flows, 60 s from 20 s, read 33.93 ms for 22.85 ms.
  Disciplines that drop on arrival were not affected.)
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
BBR_INITIAL_WINDOW = 10  # packets (BbrV1's default, RFC 6928 as Linux; ns-3's InitialCwnd default)
MIN_RTO = 0.2  # s (qosmodels' default)
RED = dict(min_th=20.0, max_th=80.0, max_p=0.1, w_q=0.002)
CWND_SAMPLE = 0.01  # s, the sampling interval of qosmodels' window series
#: packets: each flow's share of the window's time with cwnd below this (``cwnd_small``;
#: ns-3: time-weighted, its cwnd in bytes over the segment size; qosmodels: of the samples)
SMALL_WINDOW = 3
DCTCP_K = 20.0  # packets, DCTCP's marking threshold on the benchmark dumbbell (> C RTT / 7)

DEFAULT_NS3_PYTHON = "/tmp/ns3venv/bin/python"


def ns3_python(path: str | None = None) -> str:
    """The interpreter with ns-3 installed: ``path``, else ``$NS3_PYTHON``, else the default."""
    return path or os.environ.get("NS3_PYTHON") or DEFAULT_NS3_PYTHON


# --------------------------------------------------------------------------- qosmodels


def qosmodels_network(n_flows: int, red: bool = False, rtt_samples: str = "segment",
                      timer: str = "reference", recovery: str = "inflation",
                      reverse_links: bool = False, handshake: bool = False,
                      starts=None, variant: str = "newreno", queue: str | None = None,
                      mark_threshold: float = DCTCP_K, hystart: bool = False,
                      limited_transmit: bool = False, sack: bool = False,
                      bbr_send_quantum: int | None = None, prr: bool = False, **tcp):
    """The dumbbell in qosmodels: ``s_i -> r0`` access links, ``r0 -> r1`` bottleneck.

    ``rtt_samples="ack"`` samples the RTT from every new ACK, as ns-3 does;
    ``timer="impatient"`` manages the retransmission timer as ns-3 does; other
    :class:`~qosmodels.sim.TcpNewReno` options pass through ``tcp`` (e.g.
    ``window_arithmetic="bytes", segment_size=NS3_SEGMENT``).  ``reverse_links``
    declares the reverse links (ACKs then queue and are serialised, 40 bytes,
    as ns-3's 42-byte ACKs are); ``starts`` are the flows' start times, s (default
    0); with ``handshake`` each flow starts when ns-3's would send its first data,
    after its SYN handshake (:func:`ns3_first_data`).  ``variant="vegas"`` gives every flow
    :class:`~qosmodels.mechanisms.TcpVegas` with ns-3's loss rule instead of NewReno;
    ``"dctcp"`` :class:`~qosmodels.mechanisms.Dctcp` (its defaults: ``g = 1/16``, initial
    ``alpha`` 1, ``alpha`` recorded); ``"cubic"`` :class:`~qosmodels.mechanisms.Cubic` (its
    defaults and ``timer``; it has no ``recovery`` nor ``window_arithmetic`` options: those
    are not passed); ``"bbr"`` :class:`~qosmodels.mechanisms.BbrV1` (its defaults, initial
    window 10, SACK always on: ``sack`` is ignored; no limited transmit;
    ``bbr_send_quantum``: its ``send_quantum``, None the draft's rule by rate).
    ``limited_transmit``, ``sack`` and ``prr``: the senders' options of those
    names (RFC 3042; RFC 2018 and 6675; RFC 9937, with ``sack`` only; not BbrV1's).
    ``queue`` (default ``"red"`` if ``red`` else
    ``"droptail"``, or ``"step"`` for DCTCP) is the bottleneck's discipline:
    :func:`qosmodels_queue`."""
    from qosmodels import Flow, Link, Network
    from qosmodels.mechanisms import BbrV1, Cubic, Dctcp
    from qosmodels.sim import TcpNewReno, TcpVegas

    queue = default_queue(red, variant) if queue is None else queue
    links = [Link("r0", "r1", BOTTLENECK_RATE, BOTTLENECK_DELAY, BUFFER,
                  queue=qosmodels_queue(queue, mark_threshold))]
    flows = []
    if variant == "vegas":  # (Vegas times every packet)
        tcp = dict(tcp, loss_rule="ns-3", rtt_estimate="smoothed")
        rtt_samples = "ack"
    common = dict(initial_window=INITIAL_WINDOW, max_window=MAX_WINDOW, min_rto=MIN_RTO,
                  rtt_samples=rtt_samples, limited_transmit=limited_transmit, sack=sack)
    if prr:  # (passed only when on: BbrV1 has no such field)
        if variant == "bbr":
            raise ValueError("variant='bbr': BbrV1 has no PRR; drop --prr")
        common["prr"] = True
    if variant == "cubic":  # (Cubic has a timer option, not recovery nor window arithmetic)
        source = Cubic(**common, timer=timer)
    elif variant == "bbr":  # (BbrV1 has neither rtt_samples nor limited transmit)
        if limited_transmit:
            raise ValueError("variant='bbr': BbrV1 has no limited transmit; drop "
                             "--limited-transmit")
        source = BbrV1(initial_window=BBR_INITIAL_WINDOW, max_window=MAX_WINDOW,
                       min_rto=MIN_RTO, sack=True, send_quantum=bbr_send_quantum)
    elif bbr_send_quantum is not None:
        raise ValueError(f"bbr_send_quantum is for variant='bbr' only, got "
                         f"variant={variant!r}; drop --bbr-send-quantum")
    else:
        cls = {"vegas": TcpVegas, "dctcp": Dctcp}.get(variant, TcpNewReno)
        if variant == "dctcp":
            tcp = dict(tcp, record_alpha=True)
        source = cls(**common, timer=timer, recovery=recovery, **tcp)
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


#: The queue disciplines of the bottleneck (``--queue``).
QUEUES = ("droptail", "red", "step", "pie", "codel", "fqcodel", "fqcodel-exact")


def default_queue(red: bool, variant: str) -> str:
    """The bottleneck's discipline when none is named: RED if ``red``, DCTCP's step marking
    for ``variant="dctcp"``, else drop-tail."""
    return "red" if red else ("step" if variant == "dctcp" else "droptail")


def qosmodels_queue(queue: str, mark_threshold: float = DCTCP_K):
    """qosmodels' bottleneck discipline named ``queue`` (one of :data:`QUEUES`), with its
    defaults: ``DropTail()``, ``Red(**RED)``, ``DropTail(mark_threshold=K)``, ``Pie()``,
    ``Codel()``, ``FqCodel()``, ``FqCodel(exact=True)`` (``"fqcodel-exact"``: a queue per
    flow, no hash collision)."""
    from qosmodels.mechanisms import Codel, DropTail, FqCodel, Pie, Red

    if queue not in QUEUES:
        raise ValueError(f"queue={queue!r}: choose one of {QUEUES}")
    return {"droptail": lambda: DropTail(),
            "red": lambda: Red(**RED, typical_packet_size=PACKET),
            "step": lambda: DropTail(mark_threshold=mark_threshold),
            "pie": Pie, "codel": Codel, "fqcodel": FqCodel,
            "fqcodel-exact": lambda: FqCodel(exact=True)}[queue]()


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
                  reverse_links: bool = False, starts=None, variant: str = "newreno",
                  queue: str | None = None, mark_threshold: float = DCTCP_K,
                  scenario: str = "benchmark", limited_transmit: bool = False,
                  sack: bool = False, bbr_send_quantum: int | None = None,
                  prr: bool = False) -> dict:
    """Run the dumbbell in qosmodels; goodput in bit/s of 1000-byte packets.

    Besides goodput and drops: the mean queueing delay of the data packets delivered in
    the window (``mean_delay``, s, over all flows), the bottleneck's ECN marks per arrival
    (``mark_rate``), each flow's time-averaged congestion window (``cwnd``, packets,
    sampled every :data:`CWND_SAMPLE` s; recorded for DCTCP, CUBIC and BBR only) and, for
    DCTCP, each flow's mean ``alpha`` over its observation windows ending in the
    measurement window (``alpha``).  ``scenario="dctcp-sawtooth"`` runs the network of
    the experiment of that name (:func:`qosmodels.experiments.dctcp.network`) instead."""
    cpu0, wall0 = time.process_time(), time.perf_counter()
    import numpy as np

    from qosmodels.sim import Record, simulate

    queue = default_queue(red, variant) if queue is None else queue
    tcp = {} if window_arithmetic == "packets" else dict(window_arithmetic=window_arithmetic,
                                                         segment_size=NS3_SEGMENT)
    if variant in ("cubic", "bbr"):  # (no recovery nor window arithmetic options)
        tcp = {}
    sack = sack or variant == "bbr"  # (BBR always with SACK, in both simulators)
    if scenario == "dctcp-sawtooth":
        from qosmodels.experiments import dctcp as sawtooth

        net = sawtooth.network(n_flows)
        mark_threshold = sawtooth.K
    else:
        net = qosmodels_network(n_flows, red, rtt_samples, timer, recovery,
                                reverse_links=reverse_links, handshake=handshake, starts=starts,
                                variant=variant, queue=queue, mark_threshold=mark_threshold,
                                limited_transmit=limited_transmit, sack=sack,
                                bbr_send_quantum=bbr_send_quantum, prr=prr, **tcp)
    cwnd = variant in ("dctcp", "cubic", "bbr")
    cpu1 = time.process_time()
    res = simulate(net, duration, seed=seed, warmup=warmup,
                   record=Record(interval=CWND_SAMPLE if cwnd else 1.0, cwnd=cwnd),
                   progress=False)
    cpu2, wall2 = time.process_time(), time.perf_counter()
    c = res.counters
    bott = list(res.network.link_names).index("r0->r1")
    n_del = np.asarray(res.delivered_packets, dtype=float)
    delays = np.nan_to_num(np.asarray(res.mean_queueing_delay, dtype=float))
    extra = dict(
        mean_delay=float((delays * n_del).sum() / n_del.sum()) if n_del.sum() else float("nan"),
        # (qosmodels counts marks over the whole run only)
        mark_rate=float(res.link_drops["marks"][bott]) / max(int(c["link_arrivals"][bott]), 1),
        early_drops=int(res.link_drops["early"][bott]) if "early" in res.link_drops else 0,
    )
    if queue.startswith("fqcodel"):  # the flow queues the data flows hash into
        fq = res.network.links[bott].queue
        extra["flow_queues"] = n_flows if fq.exact else len({fq.bucket(i)
                                                            for i in range(n_flows)})
    if cwnd:
        sel = res.t >= warmup
        extra["cwnd"] = [float(x) for x in res.cwnd_series[sel].mean(axis=0)]
        small = res.cwnd_series[sel] < SMALL_WINDOW
        extra["cwnd_small"] = [float(x) for x in small.mean(axis=0)]
    if variant == "dctcp":
        extra["alpha"] = [float(s[s.index >= warmup].mean())
                          for name, s in sorted(res.traces.items())
                          if name.startswith("dctcp_alpha")]
    if scenario == "dctcp-sawtooth":  # the fraction of the time the queue is above K
        extra["above_k"] = float(np.mean(res.queue_series[res.t >= warmup, bott]
                                         > mark_threshold))
    return dict(
        simulator="qosmodels", flows=n_flows, queue=queue, variant=variant, scenario=scenario,
        **extra,
        rtt_samples=rtt_samples, timer=timer, recovery=recovery,
        limited_transmit=limited_transmit, sack=sack, bbr_send_quantum=bbr_send_quantum,
        prr=prr,
        window_arithmetic=window_arithmetic, handshake=handshake, reverse_links=reverse_links,
        starts=None if starts is None else [float(x) for x in starts],
        duration=duration, warmup=warmup, seed=seed,
        goodput=[float(x) for x in res.throughput],
        aggregate=float(res.throughput.sum()),
        drop_rate=float(res.drop_rate[bott]),
        window_arrivals=int(c["link_arrivals_window"][bott]),
        window_drops=int(c["link_drops_window"][bott]),
        utilisation=float(res.utilisation[bott]),
        bottleneck_packets=int(c["link_departures"][bott]),
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
#include "ns3/internet-module.h"
namespace qmcheck {
uint64_t tc_drops = 0;
void CountDrop(ns3::Ptr<const ns3::Packet>) { ++tc_drops; }
void ConnectTcDrop(std::string path)
{
    ns3::Config::ConnectWithoutContext(path, ns3::MakeCallback(&CountDrop));
}
// (for the optional logs below) the TCP header of a packet seen at a queue, an IPv4 header
// first or not, and its payload in bytes; false without a TCP header
bool TcpSegment(ns3::Ptr<const ns3::Packet> packet, ns3::TcpHeader &tcp, uint32_t &payload)
{
    ns3::Ptr<ns3::Packet> p = packet->Copy();
    uint8_t first = 0;
    p->CopyData(&first, 1);
    if (first == 0x45)  // (an IPv4 header first)
    {
        ns3::Ipv4Header ip;
        p->RemoveHeader(ip);
    }
    if (p->PeekHeader(tcp) == 0) { return false; }
    p->RemoveHeader(tcp);
    payload = p->GetSize();
    return true;
}
// whether a change of a socket's RTO is a timeout's backoff: ReTxTimeout doubles m_rto
// (capped at 60 s), NewAck recomputes it from the estimator
bool Backoff(ns3::Time oldv, ns3::Time newv)
{
    return newv == oldv + oldv || (newv == ns3::Seconds(60) && oldv >= ns3::Seconds(30));
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
    if (qmcheck::Backoff(oldv, newv))
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
# Measurements of every ns-3 run: each data packet's wait at the bottleneck (from its
# arrival at the router's queue disc, or device queue without one, to the start of its
# transmission), each flow's time-averaged congestion window (plain and inflated) and its
# decreases (``window_reductions``), DCTCP's
# alpha at each of its updates, the queue disc's time-averaged backlog and the share of
# the time it holds at least K packets (K - 1 in the queue disc with the one in the device
# queue: more than K waiting), all over the window [warmup, end].
_NS3_MEASURE_CPP = """
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/point-to-point-module.h"
#include <unordered_map>
namespace qmmeasure {
using namespace ns3;
double warmup = 0.0, threshold = 0.0;
std::unordered_map<uint64_t, double> arrival;
double delay_sum = 0.0;
uint64_t delay_n = 0;
struct Avg { double value = 0.0, last = 0.0, integral = 0.0; };
std::vector<Avg> cwnd, cwnd_inflated, small;
double small_below = 0.0;  // bytes: cwnd below it counts as a small window
Avg backlog, above_k;
std::vector<double> alpha_sum;
std::vector<uint64_t> alpha_n;
void Step(Avg &a, double value)
{
    double now = Simulator::Now().GetSeconds();
    double t0 = std::max(a.last, warmup);
    if (now > t0) { a.integral += a.value * (now - t0); }
    a.last = now;
    a.value = value;
}
// (a retransmission is a copy of the packet it resends, with the same uid: an arrival
// replaces what a copy dropped after its arrival left behind)
void OnQdiscEnqueue(Ptr<const QueueDiscItem> item)
{
    arrival[item->GetPacket()->GetUid()] = Simulator::Now().GetSeconds();
}
void OnDeviceEnqueue(Ptr<const Packet> p)
{
    arrival[p->GetUid()] = Simulator::Now().GetSeconds();
}
void OnTxBegin(Ptr<const Packet> p)
{
    auto it = arrival.find(p->GetUid());
    if (it == arrival.end()) { return; }
    double now = Simulator::Now().GetSeconds();
    if (now >= warmup && p->GetSize() > 100) { delay_sum += now - it->second; ++delay_n; }
    arrival.erase(it);
}
void OnBacklog(uint32_t, uint32_t n)
{
    Step(backlog, n);
    Step(above_k, (n + 1 > threshold) ? 1.0 : 0.0);
}
std::vector<uint64_t> cuts;
void OnCwnd(int f, uint32_t o, uint32_t n)
{
    if (n < o && Simulator::Now().GetSeconds() >= warmup) { ++cuts[f]; }
    Step(cwnd[f], n);
    Step(small[f], n < small_below ? 1.0 : 0.0);
}
void OnCwndInflated(int f, uint32_t, uint32_t n) { Step(cwnd_inflated[f], n); }
void OnAlpha(int f, uint32_t, uint32_t, double alpha)
{
    if (Simulator::Now().GetSeconds() >= warmup) { alpha_sum[f] += alpha; ++alpha_n[f]; }
}
void Setup(int n, double w, double k)
{
    warmup = w;
    threshold = k;
    cwnd.assign(n, Avg());
    cwnd_inflated.assign(n, Avg());
    small.assign(n, Avg());
    alpha_sum.assign(n, 0.0);
    cuts.assign(n, 0);
    alpha_n.assign(n, 0);
}
void ConnectBottleneck(Ptr<NetDevice> dev, Ptr<QueueDisc> qdisc)
{
    Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(dev);
    p2p->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnTxBegin));
    if (!qdisc)  // (with a queue disc, the packet arrives there, not in the device queue)
    {
        p2p->GetQueue()->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnDeviceEnqueue));
    }
    else
    {
        qdisc->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnQdiscEnqueue));
        qdisc->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnBacklog));
    }
}
void ConnectSocket(int f, Ptr<Socket> s, bool dctcp)
{
    Ptr<TcpSocketBase> t = DynamicCast<TcpSocketBase>(s);
    t->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, f));
    t->TraceConnectWithoutContext("CongestionWindowInflated",
                                  MakeBoundCallback(&OnCwndInflated, f));
    if (dctcp)
    {
        PointerValue cc;
        t->GetAttribute("CongestionOps", cc);
        cc.Get<TcpCongestionOps>()->TraceConnectWithoutContext(
            "CongestionEstimate", MakeBoundCallback(&OnAlpha, f));
    }
}
void Finish()
{
    for (auto &a : cwnd) { Step(a, a.value); }
    for (auto &a : cwnd_inflated) { Step(a, a.value); }
    for (auto &a : small) { Step(a, a.value); }
    Step(backlog, backlog.value);
    Step(above_k, above_k.value);
}
double Span() { return Simulator::Now().GetSeconds() - warmup; }
double CwndMean(int f, bool inflated)
{
    return (inflated ? cwnd_inflated[f] : cwnd[f]).integral / Span();
}
double SmallShare(int f) { return small[f].integral / Span(); }
double BacklogMean() { return backlog.integral / Span(); }
double AboveKShare() { return above_k.integral / Span(); }
double AlphaMean(int f) { return alpha_n[f] ? alpha_sum[f] / alpha_n[f] : -1.0; }
}
"""

_TRACE_NAMES = ["data_sent", "retransmitted", "timeouts", "timeouts_open", "timeouts_disorder",
                "timeouts_recovery", "timeouts_loss", "fast_retransmits", "arrived", "duplicates",
                "ssthresh_at_rto_sum"]


#: The networks: the benchmark dumbbell (the module's constants) and the network of the
#: ``dctcp-sawtooth`` experiment (:mod:`qosmodels.experiments.dctcp`: 1 Gb/s, 0.5 ms
#: bottleneck, access links 100 times faster without delay, 1500-byte packets, a
#: 1000-packet buffer marking above K = 20 packets).
SCENARIOS = {
    "benchmark": dict(access_rate=ACCESS_RATE, access_delay=ACCESS_DELAY,
                      bottleneck_rate=BOTTLENECK_RATE, bottleneck_delay=BOTTLENECK_DELAY,
                      buffer=BUFFER, packet=PACKET),
    "dctcp-sawtooth": dict(access_rate=100e9, access_delay=0.0, bottleneck_rate=1e9,
                           bottleneck_delay=0.5e-3, buffer=1000, packet=1500,
                           mark_threshold=20.0),
}

# ``--ns3-cwr-growth``: ns-3's TcpDctcp, except that the window keeps growing (congestion
# avoidance, ``ssthresh`` following ``cwnd``) while the socket is in CA_CWR, the round trip
# after an ECN reduction in which ns-3's TcpSocketBase::ProcessAck calls PktsAcked but not
# IncreaseWindow (and at whose end it sets cwnd = ssthresh).  qosmodels' Dctcp keeps
# growing then, as RFC 8257 (Section 3.4: growth as standard TCP) and its model say.
_NS3_CWR_GROWTH_CPP = """
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
namespace qmgrow {
using namespace ns3;
class TcpDctcpGrowInCwr : public TcpDctcp
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpDctcpGrowInCwr")
                                .SetParent<TcpDctcp>()
                                .AddConstructor<TcpDctcpGrowInCwr>();
        return tid;
    }
    TypeId GetInstanceTypeId() const override { return GetTypeId(); }
    Ptr<TcpCongestionOps> Fork() override { return CopyObject<TcpDctcpGrowInCwr>(this); }
    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time &rtt) override
    {
        TcpDctcp::PktsAcked(tcb, segmentsAcked, rtt);
        if (tcb->m_congState == TcpSocketState::CA_CWR && segmentsAcked > 0)
        {
            IncreaseWindow(tcb, segmentsAcked);
            tcb->m_ssThresh = tcb->m_cWnd.Get();
        }
    }
};
TypeId Register() { return TcpDctcpGrowInCwr::GetTypeId(); }
}
"""

# ``--ns3-bbr-no-ack-aggregation``: ns-3's TcpBbr without its ACK-aggregation term in the cwnd
# target (``AckAggregationCwnd``, Linux 4.20's ``extra_acked``; neither draft-cardwell-iccrg-
# bbr-congestion-control-00 nor Linux 4.9's ``tcp_bbr.c`` has it).  Its gain
# ``m_extraAckedGain`` (1) is a private member with no attribute: it is set to 0 through a
# pointer to member taken in an explicit template instantiation (which C++ exempts from
# access checking), once each socket exists, before it has sent data.
_NS3_BBR_NO_AGGREGATION_CPP = """
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
namespace qmbbr {
template <typename Tag, typename Tag::type M>
struct Member { friend typename Tag::type get(Tag) { return M; } };
struct ExtraAckedGain { typedef uint32_t ns3::TcpBbr::*type; friend type get(ExtraAckedGain); };
template struct Member<ExtraAckedGain, &ns3::TcpBbr::m_extraAckedGain>;
uint32_t NoAckAggregation(ns3::Ptr<ns3::Socket> s)
{
    ns3::PointerValue cc;
    ns3::DynamicCast<ns3::TcpSocketBase>(s)->GetAttribute("CongestionOps", cc);
    ns3::Ptr<ns3::TcpBbr> bbr = ns3::DynamicCast<ns3::TcpBbr>(cc.Get<ns3::TcpCongestionOps>());
    uint32_t old = (*ns3::PeekPointer(bbr)).*get(ExtraAckedGain());
    (*ns3::PeekPointer(bbr)).*get(ExtraAckedGain()) = 0;
    return old;
}
}
"""

# ``--ns3-rfc-cubic``: CUBIC as RFC 9438 writes it, with a real-valued window, in ns-3's
# socket (``ns3::QmRfcCubic``, written from the RFC for this check, in place of ``TcpCubic``),
# so that what ns-3's ``TcpSocketBase`` does (recovery, timers, SACK) is kept and only the window
# arithmetic changes.  ``TcpCubic`` is Linux's ``tcp_cubic.c`` in whole segments: the window
# grows by one segment once ``cnt`` ACKs have come (``cnt >= 2``, at most 20 while no loss has
# set ``W_max``), ``ssthresh = max(uint32(segCwnd x 0.7), 2)`` segments from the whole-segment
# window, a Reno estimate counted in ACKs with alpha 0.529 throughout, and a ``t + delay_min``
# target.  This class follows RFC 9438 instead, with the choices qosmodels' ``Cubic`` documents
# where the RFC leaves one: the window in segments as a double (written to ``m_cWnd`` in whole
# bytes; re-read from it when the socket has set it since: recovery, its exit, a timeout); slow
# start one segment per ACK (RFC 5681); in congestion avoidance, per ACK, ``W_est += alpha x
# acked / cwnd`` (eq. 4; alpha = 3 (1 - beta) / (1 + beta), 1 once ``W_est`` reaches
# ``cwnd_prior``, Section 4.3), the Reno-friendly region when ``W_cubic(t) < W_est``, else
# ``cwnd += (target - cwnd) / cwnd`` with ``target = W_cubic(t + RTT)`` (the smoothed RTT)
# bounded to ``[cwnd, 1.5 cwnd]`` (Section 4.2); at a congestion event (``GetSsThresh``)
# ``W_max`` with fast convergence (Section 4.7), ``cwnd_prior = cwnd`` and ``ssthresh =
# max(beta x min(FlightSize, cwnd), 2)`` segments (Section 4.6; ns-3's socket gives the
# FlightSize: its pipe); a new stage starts at the next congestion-avoidance ACK with ``K``
# from eq. 2, or after a timeout (``CA_LOSS``) with ``W_max`` forgotten and ``K = 0``
# (Section 4.8).  ``--ns3-flight-size`` (``flight_size``) takes the FlightSize as RFC 5681
# defines it, the data sent and not cumulatively acknowledged (``m_highTxMark -
# m_lastAckedSeq``), instead of the ``bytesInFlight`` that ``TcpSocketBase`` passes to
# ``GetSsThresh`` on entering a recovery and at a timeout, its RFC 6675 pipe (without the
# SACKed segments and those marked lost); RFC 6675 step (4.2), RFC 5681 eq. 4 and RFC 9438
# Section 4.6 reduce from the FlightSize.
_NS3_RFC_CUBIC_CPP = """
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include <cmath>
namespace qmcubic {
using namespace ns3;
bool flight_size = false;  // ssthresh from SND.MAX - SND.UNA, not the socket's pipe
class QmRfcCubic : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::QmRfcCubic")
                                .SetParent<TcpNewReno>()
                                .AddConstructor<QmRfcCubic>();
        return tid;
    }
    TypeId GetInstanceTypeId() const override { return GetTypeId(); }
    std::string GetName() const override { return "QmRfcCubic"; }
    Ptr<TcpCongestionOps> Fork() override { return CopyObject<QmRfcCubic>(this); }

    double c = 0.4, beta = 0.7;
    double wmax = NAN, k = 0.0, tEpoch = -1.0, west = 0.0, cwndPrior = NAN;
    double cwnd = 0.0;     // the window, segments (real-valued)
    uint32_t written = 0;  // the bytes last written to m_cWnd

    double Current(Ptr<const TcpSocketState> tcb)
    {
        if (tcb->m_cWnd.Get() != written)  // the socket set it (recovery, its exit, a timeout)
        {
            cwnd = double(tcb->m_cWnd.Get()) / tcb->m_segmentSize;
        }
        return cwnd;
    }
    void Set(Ptr<TcpSocketState> tcb, double w)
    {
        cwnd = w;
        written = uint32_t(w * tcb->m_segmentSize);
        tcb->m_cWnd = written;
    }
    double Avoid(Ptr<TcpSocketState> tcb, double w, double acked)
    {
        double now = Simulator::Now().GetSeconds();
        if (tEpoch < 0.0)  // a congestion-avoidance stage starts
        {
            tEpoch = now;
            west = w;
            if (std::isnan(wmax))  // no congestion event yet, or a timeout since: K = 0
            {
                wmax = w;
                k = 0.0;
                if (std::isnan(cwndPrior)) { cwndPrior = w; }
            }
            else
            {
                k = std::cbrt((wmax - w) / c);  // eq. 2
            }
        }
        double t = now - tEpoch;
        double alpha = west >= cwndPrior ? 1.0 : 3.0 * (1.0 - beta) / (1.0 + beta);
        west += alpha * acked / w;  // eq. 4
        double d = t - k;
        if (c * d * d * d + wmax < west)  // the Reno-friendly region
        {
            return west > w ? west : w;
        }
        double rtt = tcb->m_srtt.Get().GetSeconds();
        d = t + (rtt > 0.0 ? rtt : 0.0) - k;
        double target = c * d * d * d + wmax;  // W_cubic(t + RTT), bounded
        if (target < w) { target = w; }
        else if (target > 1.5 * w) { target = 1.5 * w; }
        return w + (target - w) / w;
    }
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (segmentsAcked == 0) { return; }
        double w = Current(tcb);
        if (w < double(tcb->m_ssThresh.Get()) / tcb->m_segmentSize)
        {
            Set(tcb, w + 1.0);  // slow start: one segment per ACK (RFC 5681)
            return;
        }
        Set(tcb, Avoid(tcb, w, double(segmentsAcked)));
    }
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        double w = Current(tcb);
        if (w < wmax) { wmax = w * (1.0 + beta) / 2.0; }  // fast convergence (NaN: false)
        else { wmax = w; }
        cwndPrior = w;
        double flight = double(bytesInFlight) / tcb->m_segmentSize;
        if (flight_size)  // RFC 5681's FlightSize: sent and not cumulatively acknowledged
        {
            flight = double(tcb->m_highTxMark.Get() - tcb->m_lastAckedSeq) / tcb->m_segmentSize;
        }
        if (flight > w) { flight = w; }
        double s = flight * beta;
        if (s < 2.0) { s = 2.0; }
        tEpoch = -1.0;
        return uint32_t(s * tcb->m_segmentSize);
    }
    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override
    {
        if (newState == TcpSocketState::CA_LOSS)  // a timeout: W_max forgotten (Section 4.8)
        {
            wmax = NAN;
            tEpoch = -1.0;
        }
    }
};
TypeId Register(bool flightSize)
{
    flight_size = flightSize;
    return QmRfcCubic::GetTypeId();
}
}
"""

# ``--ns3-prr``: PRR in ns-3 written anew for this check (``ns3::QmPrrRecovery``), with each
# of four readings of ns-3 3.44's ``TcpPrrRecovery`` on (as 3.44: the ``ns3-3.44`` set, which
# must give 3.44's counts to the packet) or replaced by RFC 9937's (December 2025; sections
# its own):
#   bump     one SMSS added to DeliveredData on every duplicate ACK, with SACK too (6.2's
#            estimate is for connections without SACK; with SACK ns-3's DeliveredData
#            already counts the newly SACKed bytes, so each such ACK counts twice)
#   twice    an ACK that SACKs new data *and* advances SND.UNA reaches DoRecovery twice
#            (TcpSocketBase::DupAck, then the partial-ACK branch of ProcessAck), so its
#            DeliveredData enters prr_delivered twice (6.2: once per ACK)
#   wrap     prr_delivered x ssthresh in 32 bits (wraps when the product passes 2^32, e.g.
#            68 kB x 63 kB), and MAX(prr_delivered - prr_out, DeliveredData) in unsigned arithmetic
#            (negative, so 0 sent, when prr_out > prr_delivered; 6.2: DeliveredData)
#   pipe     RecoverFS = RFC 6675 pipe at the start (6.1: SND.NXT - SND.UNA - SACKed + newly
#            SACKed + newly cumulatively acknowledged)
#   retx     SafeACK = "a retransmission was cumulatively acknowledged" (6.2: SND.UNA
#            advances and no further loss indicated -- here no packet newly marked lost)
# The exit is not a reading of TcpPrrRecovery: TcpSocketBase sets cwnd = ssthresh on the ACK
# that ends the recovery, before ExitRecovery (6.4), for every recovery algorithm.
_NS3_PRR_CPP = """
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include <map>
namespace qmprr {
using namespace ns3;
bool bump = true, twice = true, wrap = true, pipe = true, retx = true;
std::map<const TcpSocketState*, Ptr<TcpTxBuffer>> buffers;
uint64_t n_calls = 0, n_twice = 0, n_bumps = 0, n_wraps = 0, n_negative = 0, n_safe = 0;
template <typename Tag, typename Tag::type M>
struct Member { friend typename Tag::type get(Tag) { return M; } };
struct Tcb { typedef Ptr<TcpSocketState> TcpSocketBase::*type; friend type get(Tcb); };
template struct Member<Tcb, &TcpSocketBase::m_tcb>;
void Register(Ptr<Socket> s)
{
    Ptr<TcpSocketBase> t = DynamicCast<TcpSocketBase>(s);
    buffers[PeekPointer((*PeekPointer(t)).*get(Tcb()))] = t->GetTxBuffer();
}
class QmPrrRecovery : public TcpClassicRecovery
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::QmPrrRecovery")
                                .SetParent<TcpClassicRecovery>()
                                .AddConstructor<QmPrrRecovery>();
        return tid;
    }
    TypeId GetInstanceTypeId() const override { return GetTypeId(); }
    std::string GetName() const override { return "QmPrrRecovery"; }
    Ptr<TcpRecoveryOps> Fork() override { return CopyObject<QmPrrRecovery>(this); }
    void EnterRecovery(Ptr<TcpSocketState> tcb, uint32_t, uint32_t unacked,
                       uint32_t delivered) override
    {
        m_delivered = 0;
        m_out = 0;
        Ptr<TcpTxBuffer> b = buffers.at(PeekPointer(tcb));
        int64_t fs = int64_t(unacked) - int64_t(b->GetSacked()) + int64_t(delivered);
        m_fs = pipe ? uint32_t(tcb->m_bytesInFlight) : uint32_t(std::max<int64_t>(fs, 1));
        m_lastTime = -1;
        m_lastUna = tcb->m_lastAckedSeq.GetValue();
        m_lost = b->GetLost();
        DoRecovery(tcb, delivered, true);
    }
    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t delivered, bool dupack) override
    {
        ++n_calls;
        int64_t now = Simulator::Now().GetTimeStep();
        uint32_t una = tcb->m_lastAckedSeq.GetValue();
        Ptr<TcpTxBuffer> b = buffers.at(PeekPointer(tcb));
        bool second = now == m_lastTime && una == m_lastUna2;
        // SafeACK (RFC): SND.UNA moved and no packet newly marked lost since the last ACK
        bool una_moved = una != m_lastUna, lost_more = b->GetLost() > m_lost;
        if (!second) { m_safe = una_moved && !lost_more; }
        m_lastTime = now;
        m_lastUna2 = una;
        m_lastUna = una;
        m_lost = b->GetLost();
        if (second)
        {
            ++n_twice;
            if (!twice) { return; }
        }
        uint32_t smss = tcb->m_segmentSize;
        if (dupack && bump && m_delivered < m_fs)
        {
            delivered += smss;
            ++n_bumps;
        }
        if (delivered == 0) { return; }
        m_delivered += delivered;
        int64_t inflight = tcb->m_bytesInFlight.Get(), ssthresh = tcb->m_ssThresh.Get();
        int64_t sndcnt;
        if (inflight > ssthresh)
        {
            uint64_t product = uint64_t(m_delivered) * uint64_t(ssthresh);
            if (wrap && product > 0xffffffffULL)
            {
                ++n_wraps;
                product &= 0xffffffffULL;
            }
            int64_t due = int64_t((product + m_fs - 1) / m_fs);  // DIV_ROUND_UP
            sndcnt = due - int64_t(m_out);
        }
        else
        {
            int64_t ahead = int64_t(m_delivered) - int64_t(m_out);
            int64_t limit = std::max<int64_t>(ahead, delivered);
            if (wrap && ahead < 0)
            {
                ++n_negative;
                limit = ahead;  // (32-bit unsigned MAX, then cast to int)
            }
            bool safe = retx ? tcb->m_isRetransDataAcked : m_safe;
            if (safe)
            {
                ++n_safe;
                limit += smss;
            }
            sndcnt = std::min<int64_t>(limit, ssthresh - inflight);
        }
        sndcnt = std::max<int64_t>(sndcnt, m_out > 0 ? 0 : smss);  // the fast retransmit
        tcb->m_cWnd = uint32_t(inflight + sndcnt);
        tcb->m_cWndInfl = tcb->m_cWnd;
    }
    void ExitRecovery(Ptr<TcpSocketState> tcb) override { tcb->m_cWndInfl = tcb->m_cWnd; }
    void UpdateBytesSent(uint32_t bytes) override { m_out += bytes; }

  private:
    uint32_t m_delivered{0}, m_out{0}, m_fs{1}, m_lastUna{0}, m_lastUna2{0}, m_lost{0};
    int64_t m_lastTime{-1};
    bool m_safe{false};
};
TypeId Use(bool b, bool t, bool w, bool p, bool r)
{
    bump = b; twice = t; wrap = w; pipe = p; retx = r;
    return QmPrrRecovery::GetTypeId();
}
}
"""

#: ``--ns3-prr`` readings: which of 3.44's readings (:data:`_NS3_PRR_CPP`) stay on.
NS3_PRR_READINGS = ("bump", "twice", "wrap", "pipe", "retx")

# ``--ns3-packet-log PATH``: every data packet a sender sends (with whether it is a
# retransmission: a sequence number below the flow's highest sent), every data packet the
# bottleneck drops, and every retransmission timeout (the flow's SND.UNA, from its
# ``HighestRxAck``, the congestion state it interrupted and the timeout's value), one CSV row
# each: ``event,t,flow,seq,retx,state,rto`` (event T sent, D dropped, R timeout; sequence
# numbers in bytes; ``benchmarks/rack_timeouts.py ns3log`` classifies the timeouts as it does
# qosmodels').
_NS3_PACKET_LOG_CPP = """
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/traffic-control-module.h"
#include <fstream>
namespace qmplog {
using namespace ns3;
std::ofstream out;
std::vector<uint32_t> highest, una;
std::vector<int> state;
void OnTx(int f, Ptr<const Packet> p, const TcpHeader &h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0) { return; }
    uint32_t seq = h.GetSequenceNumber().GetValue();
    bool retx = seq < highest[f];
    if (!retx) { highest[f] = seq + p->GetSize(); }
    out << "T," << Simulator::Now().GetSeconds() << "," << f << "," << seq << "," << retx
        << ",,\\n";
}
void OnAck(int f, SequenceNumber32 o, SequenceNumber32 n) { una[f] = n.GetValue(); }
void OnState(int f, TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n)
{
    state[f] = n;
}
void OnRto(int f, Time oldv, Time newv)
{
    if (qmcheck::Backoff(oldv, newv))
    {
        out << "R," << Simulator::Now().GetSeconds() << "," << f << "," << una[f] << ",,"
            << state[f] << "," << oldv.GetSeconds() << "\\n";
    }
}
void OnDrop(Ptr<const Packet> packet)
{
    TcpHeader tcp;
    uint32_t payload = 0;
    if (!qmcheck::TcpSegment(packet, tcp, payload) || payload == 0) { return; }
    int f = int(tcp.GetDestinationPort()) - 5000;
    if (f < 0 || f >= int(highest.size())) { return; }
    out << "D," << Simulator::Now().GetSeconds() << "," << f << ","
        << tcp.GetSequenceNumber().GetValue() << ",,,\\n";
}
void Setup(int n, std::string path)
{
    highest.assign(n, 0);
    una.assign(n, 0);
    state.assign(n, 0);
    out.open(path);
    out.precision(9);
    out << "event,t,flow,seq,retx,state,rto\\n";
}
void ConnectSocket(int f, Ptr<Socket> s)
{
    Ptr<TcpSocketBase> t = DynamicCast<TcpSocketBase>(s);
    t->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, f));
    t->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&OnAck, f));
    t->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnState, f));
    t->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, f));
}
void ConnectDrops(std::string path)
{
    Config::ConnectWithoutContext(path, MakeCallback(&OnDrop));
}
void Finish() { out.close(); }
}
"""


# ``--ns3-recovery-log PATH``: every fast recovery of every flow, one CSV row each: the flow,
# the times of entry and exit (s), cwnd, pipe (ns-3's BytesInFlight) and ssthresh as the
# recovery starts (before the reduction); the largest and smallest cwnd and pipe inside; at
# the exit, the state left for (0 open, 4 loss: a timeout), cwnd as the recovery algorithm
# last set it, ssthresh and pipe, then cwnd and pipe once the ACK that ended it has been
# processed; the flow's data packets sent in the recovery, and its drops at the bottleneck in
# it and in the 0.1 s after the exit (until its next recovery).  Bytes throughout.
_NS3_RECOVERY_LOG_CPP = """
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/traffic-control-module.h"
#include <fstream>
namespace qmrlog {
using namespace ns3;
struct Flow
{
    uint32_t cwnd = 0, ssthresh = 0, pipe = 0;
    int state = 0;
    bool in = false;
    double t0 = 0, t1 = -1;
    uint32_t cwnd0 = 0, pipe0 = 0, ssthresh0 = 0, cmax = 0, cmin = 0, pmax = 0, pmin = 0;
    uint32_t sent = 0, drops_in = 0, drops_after = 0;
    std::string pending;
};
std::vector<Flow> flows;
std::ofstream out;
void Flush(int f)
{
    Flow &x = flows[f];
    if (!x.pending.empty()) { out << x.pending << "," << x.drops_after << "\\n"; }
    x.pending.clear();
}
void Post(int f, int to, uint32_t cwnd_exit, uint32_t ssthresh, uint32_t pipe_exit)
{
    Flow &x = flows[f];
    std::ostringstream s;
    s << f << "," << x.t0 << "," << x.t1 << "," << x.cwnd0 << "," << x.pipe0 << ","
      << x.ssthresh0 << "," << x.cmax << "," << x.cmin << "," << x.pmax << "," << x.pmin
      << "," << to << "," << cwnd_exit << "," << ssthresh << "," << pipe_exit << ","
      << x.cwnd << "," << x.pipe << "," << x.sent << "," << x.drops_in;
    x.pending = s.str();
    x.drops_after = 0;
}
void OnCwnd(int f, uint32_t, uint32_t n)
{
    Flow &x = flows[f];
    x.cwnd = n;
    if (x.in) { x.cmax = std::max(x.cmax, n); x.cmin = std::min(x.cmin, n); }
}
void OnSsthresh(int f, uint32_t, uint32_t n) { flows[f].ssthresh = n; }
void OnPipe(int f, uint32_t, uint32_t n)
{
    Flow &x = flows[f];
    x.pipe = n;
    if (x.in) { x.pmax = std::max(x.pmax, n); x.pmin = std::min(x.pmin, n); }
}
void OnTx(int f, Ptr<const Packet> p, const TcpHeader &, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0 && flows[f].in) { ++flows[f].sent; }
}
void OnState(int f, TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n)
{
    Flow &x = flows[f];
    x.state = n;
    double now = Simulator::Now().GetSeconds();
    if (n == TcpSocketState::CA_RECOVERY)
    {
        Flush(f);
        x.in = true;
        x.t0 = now;
        x.cwnd0 = x.cwnd; x.pipe0 = x.pipe; x.ssthresh0 = x.ssthresh;
        x.cmax = 0; x.cmin = UINT32_MAX; x.pmax = x.pipe; x.pmin = x.pipe;
        x.sent = 0; x.drops_in = 0;
    }
    else if (x.in)
    {
        x.in = false;
        x.t1 = now;
        // (ProcessAck sets cwnd = ssthresh and grows it after this; read them once it is done)
        Simulator::ScheduleNow(&Post, f, int(n), x.cwnd, x.ssthresh, x.pipe);
    }
}
void OnDrop(Ptr<const Packet> packet)
{
    TcpHeader tcp;
    uint32_t payload = 0;
    if (!qmcheck::TcpSegment(packet, tcp, payload)) { return; }
    int f = int(tcp.GetDestinationPort()) - 5000;
    if (f < 0 || f >= int(flows.size())) { return; }
    Flow &x = flows[f];
    double now = Simulator::Now().GetSeconds();
    if (x.in) { ++x.drops_in; }
    else if (x.t1 >= 0 && now - x.t1 <= 0.1 && !x.pending.empty()) { ++x.drops_after; }
}
void Setup(int n, std::string path)
{
    flows.assign(n, Flow());
    out.open(path);
    out << "flow,t_entry,t_exit,cwnd_before,pipe_entry,ssthresh_before,cwnd_max,cwnd_min,"
           "pipe_max,pipe_min,exit_state,cwnd_at_exit,ssthresh_exit,pipe_at_exit,"
           "cwnd_after_exit,pipe_after_exit,sent,drops_in,drops_after\\n";
}
void ConnectSocket(int f, Ptr<Socket> s)
{
    Ptr<TcpSocketBase> t = DynamicCast<TcpSocketBase>(s);
    t->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, f));
    t->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsthresh, f));
    t->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&OnPipe, f));
    t->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnState, f));
    t->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, f));
}
void ConnectDrops(std::string path)
{
    Config::ConnectWithoutContext(path, MakeCallback(&OnDrop));
}
void Finish()
{
    for (size_t f = 0; f < flows.size(); ++f) { Flush(int(f)); }
    out.close();
}
}
"""

#: ns-3's socket type for each ``variant``.
NS3_VARIANTS = {"newreno": "TcpNewReno", "vegas": "TcpVegas", "dctcp": "TcpDctcp",
                "cubic": "TcpCubic", "bbr": "TcpBbr"}


def ns3_queue_disc(ns, queue: str, device, sc: dict, mark_threshold: float, ns3_set=()):
    """Install ns-3's queue disc ``queue`` on the bottleneck ``device`` and return it (None
    for ``"droptail"``: no queue disc, the 100-packet device queue).  The device queue then
    holds one packet (waiting behind the one in transmission), so the queue disc holds the
    rest: its limit is the buffer minus one (except RED's, kept as it was measured before),
    and what qosmodels' disciplines see as "waiting" is the queue disc's packets plus that
    one.  The attributes set, all to qosmodels' defaults (ns-3's differ where set):

    * ``"red"``: as the docstring of :func:`run_ns3` says.
    * ``"step"`` (DCTCP's marking, ``DropTail(mark_threshold=K)``): ``RedQueueDisc`` with
      ``MinTh = MaxTh = K`` packets, ``QW`` 1 (the instantaneous queue), ``UseEcn``,
      ``UseHardDrop`` false (mark, not drop, above ``MaxTh``), ``Gentle`` false, as ns-3's
      DCTCP examples.  ns-3's RED marks an arrival when the queue disc holds ``>= K``
      packets (and more than 1), i.e. when ``>= K + 1`` wait with the device's one:
      qosmodels' ``q > K``, the same rule.
    * ``"pie"``: ``PieQueueDisc`` with ``QueueDelayReference`` 15 ms, ``Tupdate`` 15 ms,
      ``A`` 0.125, ``B`` 1.25, ``MaxBurstAllowance`` 150 ms (ns-3's defaults, as
      qosmodels'), ``MeanPktSize`` 1500 (ns-3: 1000), ``UseCapDropAdjustment`` false
      (ns-3: true; RFC 8033 Section 5.5, which qosmodels' basic scheme does not do),
      ``UseDequeueRateEstimator`` false (timestamps, as qosmodels' default),
      ``UseDerandomization`` false, ``ActiveThreshold`` infinite, no ECN.
    * ``"codel"``: ``CoDelQueueDisc`` with ``Target`` 5 ms, ``Interval`` 100 ms,
      ``MinBytes`` 1500 (qosmodels' ``mtu``), no ECN (all ns-3's defaults).
    * ``"fqcodel"``: ``FqCoDelQueueDisc`` with ``Flows`` 1024, ``Target`` 5 ms,
      ``Interval`` 100 ms (ns-3's defaults, as qosmodels'), ``UseEcn`` false (ns-3: true;
      nothing is ECN-capable here anyway), ``DropBatchSize`` 1 (ns-3: 64, Linux's batch;
      qosmodels drops one packet per overflow), the quantum 1514 bytes (``SetQuantum``;
      ns-3 takes the device's MTU, 1500) and its CoDel queues' ``MinBytes`` 1514
      (qosmodels' ``mtu``; ns-3's CoDel default 1500).  ns-3 hashes the 5-tuple
      (perturbation 0), qosmodels the flow's index: the two collide different flows.
      RFC 8290 (Section 4.1.1) and Linux draw the perturbation at random when the qdisc is
      set up, so which flows share a queue is chance either way (with 32 flows in 1024
      queues, a collision somewhere has probability 1 - prod(1 - k/1024, k < 32) = 0.39).
      ``"fqcodel-exact"`` gives qosmodels a queue per flow, for the comparison with an
      ns-3 run whose hash separated every flow (its ``flow_queues`` equal to N).

    Every queue's sojourn time in ns-3 ends when the packet leaves the queue disc for the
    device queue, one transmission time (0.8 ms at 10 Mb/s) before its transmission
    starts, where qosmodels' ends: CoDel and PIE in ns-3 see delays shorter by that."""
    if queue == "droptail":
        return None
    cfg = ns.Config.SetDefault
    limit = ns.StringValue(f"{sc['buffer'] - 1}p")
    tch = ns.TrafficControlHelper()
    if queue == "red":
        cfg("ns3::RedQueueDisc::MinTh", ns.DoubleValue(RED["min_th"]))
        cfg("ns3::RedQueueDisc::MaxTh", ns.DoubleValue(RED["max_th"]))
        cfg("ns3::RedQueueDisc::LInterm", ns.DoubleValue(1.0 / RED["max_p"]))
        cfg("ns3::RedQueueDisc::QW", ns.DoubleValue(RED["w_q"]))
        cfg("ns3::RedQueueDisc::MaxSize", ns.StringValue(f"{sc['buffer']}p"))
        cfg("ns3::RedQueueDisc::Gentle", ns.BooleanValue(False))
        cfg("ns3::RedQueueDisc::MeanPktSize", ns.UintegerValue(sc["packet"]))
        cfg("ns3::RedQueueDisc::LinkBandwidth",
            ns.DataRateValue(ns.DataRate(int(sc["bottleneck_rate"]))))
        cfg("ns3::RedQueueDisc::LinkDelay", ns.TimeValue(ns.Seconds(sc["bottleneck_delay"])))
        tch.SetRootQueueDisc("ns3::RedQueueDisc")
    elif queue == "step":
        cfg("ns3::RedQueueDisc::MinTh", ns.DoubleValue(mark_threshold))
        cfg("ns3::RedQueueDisc::MaxTh", ns.DoubleValue(mark_threshold))
        cfg("ns3::RedQueueDisc::QW", ns.DoubleValue(1.0))
        cfg("ns3::RedQueueDisc::UseEcn", ns.BooleanValue(True))
        cfg("ns3::RedQueueDisc::UseHardDrop", ns.BooleanValue(False))
        cfg("ns3::RedQueueDisc::Gentle", ns.BooleanValue(False))
        cfg("ns3::RedQueueDisc::MaxSize", limit)
        cfg("ns3::RedQueueDisc::MeanPktSize", ns.UintegerValue(sc["packet"]))
        cfg("ns3::RedQueueDisc::LinkBandwidth",
            ns.DataRateValue(ns.DataRate(int(sc["bottleneck_rate"]))))
        tch.SetRootQueueDisc("ns3::RedQueueDisc")
    elif queue == "pie":
        cfg("ns3::PieQueueDisc::MaxSize", limit)
        cfg("ns3::PieQueueDisc::MeanPktSize", ns.UintegerValue(1500))
        cfg("ns3::PieQueueDisc::QueueDelayReference", ns.TimeValue(ns.MilliSeconds(15)))
        cfg("ns3::PieQueueDisc::Tupdate", ns.TimeValue(ns.MilliSeconds(15)))
        cfg("ns3::PieQueueDisc::A", ns.DoubleValue(0.125))
        cfg("ns3::PieQueueDisc::B", ns.DoubleValue(1.25))
        cfg("ns3::PieQueueDisc::MaxBurstAllowance", ns.TimeValue(ns.MilliSeconds(150)))
        cfg("ns3::PieQueueDisc::UseCapDropAdjustment", ns.BooleanValue(False))
        cfg("ns3::PieQueueDisc::UseDequeueRateEstimator", ns.BooleanValue(False))
        cfg("ns3::PieQueueDisc::UseDerandomization", ns.BooleanValue(False))
        cfg("ns3::PieQueueDisc::UseEcn", ns.BooleanValue(False))
        tch.SetRootQueueDisc("ns3::PieQueueDisc")
    elif queue == "codel":
        cfg("ns3::CoDelQueueDisc::MaxSize", limit)
        cfg("ns3::CoDelQueueDisc::Target", ns.StringValue("5ms"))
        cfg("ns3::CoDelQueueDisc::Interval", ns.StringValue("100ms"))
        cfg("ns3::CoDelQueueDisc::MinBytes", ns.UintegerValue(1500))
        cfg("ns3::CoDelQueueDisc::UseEcn", ns.BooleanValue(False))
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc")
    elif queue in ("fqcodel", "fqcodel-exact"):
        cfg("ns3::FqCoDelQueueDisc::MaxSize", limit)
        cfg("ns3::FqCoDelQueueDisc::Flows", ns.UintegerValue(1024))
        cfg("ns3::FqCoDelQueueDisc::Target", ns.StringValue("5ms"))
        cfg("ns3::FqCoDelQueueDisc::Interval", ns.StringValue("100ms"))
        cfg("ns3::FqCoDelQueueDisc::UseEcn", ns.BooleanValue(False))
        cfg("ns3::FqCoDelQueueDisc::DropBatchSize", ns.UintegerValue(1))
        cfg("ns3::CoDelQueueDisc::MinBytes", ns.UintegerValue(1514))
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc")
    else:
        raise ValueError(f"queue={queue!r}: choose one of {QUEUES}")
    for name, value in ns3_set:  # (after the settings above, so that they win)
        cfg(name, ns.StringValue(str(value)))
    qdisc = tch.Install(device).Get(0)
    if queue in ("fqcodel", "fqcodel-exact"):
        ns.DynamicCast[ns.FqCoDelQueueDisc](qdisc).SetQuantum(1514)
    return qdisc


def run_ns3(n_flows: int, duration: float, warmup: float, seed: int = 1,
            red: bool = False, trace: bool = False, starts=None, variant: str = "newreno",
            queue: str | None = None, mark_threshold: float = DCTCP_K,
            scenario: str = "benchmark", ns3_set=(), cwr_growth: bool = False,
            limited_transmit: bool = False, sack: bool = False,
            bbr_no_ack_aggregation: bool = False, prr: bool = False,
            ns3_prr=None, recovery_log: str | None = None,
            packet_log: str | None = None, rfc_cubic: bool = False,
            flight_size: bool = False) -> dict:
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
    ``TcpVegas`` (alpha 2, beta 4, gamma 1) instead of ``TcpNewReno``; ``"dctcp"``:
    ``TcpDctcp``; ``"cubic"``: ``TcpCubic``; ``"bbr"``: ``TcpBbr`` with pacing on (the
    initial window paced too), initial window 10, SACK on (see :data:`NS3_VARIANTS`).
    ``queue``: the
    bottleneck's queue disc (:func:`ns3_queue_disc`).  ``scenario``: a key of
    :data:`SCENARIOS`.  ``ns3_set``: ``(name, value)`` pairs given to
    ``Config::SetDefault`` after everything else (e.g. ``("ns3::TcpCubic::HyStart",
    "true")``), to measure the effect of one ns-3 default.  ``cwr_growth`` (DCTCP only):
    the window grows in the round trip after an ECN reduction, as qosmodels' does
    (:data:`_NS3_CWR_GROWTH_CPP`).  ``bbr_no_ack_aggregation`` (BBR only): ``TcpBbr``
    without its ACK-aggregation cwnd term (:data:`_NS3_BBR_NO_AGGREGATION_CPP`).
    ``rfc_cubic`` (CUBIC only): RFC 9438's window arithmetic (``ns3::QmRfcCubic``,
    :data:`_NS3_RFC_CUBIC_CPP`) in place of ``TcpCubic``'s, in ns-3's socket; with
    ``flight_size`` as well, its ssthresh from RFC 5681's FlightSize (SND.MAX - SND.UNA) instead
    of the ``bytesInFlight`` the socket passes (its RFC 6675 pipe).  ``ns3_prr``
    (with ``prr``): a collection of :data:`NS3_PRR_READINGS` that stay as ns-3 3.44's in
    ``ns3::QmPrrRecovery`` (:data:`_NS3_PRR_CPP`) instead of ``TcpPrrRecovery``, the others
    RFC 9937's; the result adds ``prr_counts``.  ``recovery_log``: write every fast recovery
    to this CSV file (:data:`_NS3_RECOVERY_LOG_CPP`); ``packet_log``: every data packet sent
    and dropped and every timeout to this one (:data:`_NS3_PACKET_LOG_CPP`).  The result adds the measurements of
    :data:`_NS3_MEASURE_CPP`.
    """
    if bbr_no_ack_aggregation and variant != "bbr":  # (before ns-3 is loaded)
        raise ValueError(f"bbr_no_ack_aggregation is for variant='bbr' only, got "
                         f"variant={variant!r}")
    if rfc_cubic and variant != "cubic":
        raise ValueError(f"rfc_cubic is for variant='cubic' only, got variant={variant!r}; "
                         f"add --tcp cubic")
    if flight_size and not rfc_cubic:
        raise ValueError("flight_size is for rfc_cubic=True only (add --ns3-rfc-cubic): "
                         "TcpCubic's ssthresh does not read the flight size")
    if ns3_prr is not None:
        if not prr:
            raise ValueError("ns3_prr is for prr=True only (add --prr)")
        unknown = set(ns3_prr) - set(NS3_PRR_READINGS)
        if unknown:
            raise ValueError(f"ns3_prr: unknown readings {sorted(unknown)}; "
                             f"choose from {NS3_PRR_READINGS}")
    cpu0, wall0 = time.process_time(), time.perf_counter()
    import cppyy
    from ns import ns

    cppyy.cppdef(_NS3_CPP)
    cppyy.cppdef(_NS3_MEASURE_CPP)
    cpu_import = time.process_time() - cpu0
    sc = SCENARIOS[scenario]
    packet, buffer = sc["packet"], sc["buffer"]
    segment = packet - 20 - 20 - 2
    queue = default_queue(red, variant) if queue is None else queue
    if "mark_threshold" in sc:
        mark_threshold = sc["mark_threshold"]
    cfg = ns.Config.SetDefault
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(int(seed))
    if cwr_growth:
        if variant != "dctcp":
            raise ValueError("cwr_growth is for variant='dctcp' only")
        cppyy.cppdef(_NS3_CWR_GROWTH_CPP)
        socket_type = cppyy.gbl.qmgrow.Register()
    elif rfc_cubic:  # RFC 9438's arithmetic in ns-3's socket (--ns3-rfc-cubic)
        cppyy.cppdef(_NS3_RFC_CUBIC_CPP)
        socket_type = cppyy.gbl.qmcubic.Register(bool(flight_size))
    else:
        socket_type = getattr(ns, NS3_VARIANTS[variant]).GetTypeId()
    if bbr_no_ack_aggregation:
        cppyy.cppdef(_NS3_BBR_NO_AGGREGATION_CPP)
    cfg("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(socket_type))
    if variant == "cubic":  # qosmodels' Cubic has Reno's slow start (no HyStart++)
        cfg("ns3::TcpCubic::HyStart", ns.BooleanValue(False))
    sack = sack or variant == "bbr"  # (BBR always with SACK, in both simulators)
    recovery_type = (ns.TcpPrrRecovery if prr else ns.TcpClassicRecovery).GetTypeId()
    if ns3_prr is not None:  # PRR written anew, with some of 3.44's readings (--ns3-prr)
        cppyy.cppdef(_NS3_PRR_CPP)
        recovery_type = cppyy.gbl.qmprr.Use(*(r in ns3_prr for r in NS3_PRR_READINGS))
    cfg("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(recovery_type))
    cfg("ns3::TcpSocketBase::Sack", ns.BooleanValue(bool(sack)))
    cfg("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    cfg("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(bool(limited_transmit)))
    cfg("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(MIN_RTO)))
    cfg("ns3::RttEstimator::InitialEstimation", ns.TimeValue(ns.Seconds(1.0)))
    cfg("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
    cfg("ns3::TcpSocket::SegmentSize", ns.UintegerValue(segment))
    cfg("ns3::TcpSocket::InitialCwnd",
        ns.UintegerValue(BBR_INITIAL_WINDOW if variant == "bbr" else INITIAL_WINDOW))
    if variant == "bbr":  # BBR paces (TcpBbr turns pacing on itself, with a warning, if off)
        cfg("ns3::TcpSocketState::EnablePacing", ns.BooleanValue(True))
        cfg("ns3::TcpSocketState::PaceInitialWindow", ns.BooleanValue(True))
    cfg("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(MAX_WINDOW * segment))
    cfg("ns3::TcpSocket::SndBufSize", ns.UintegerValue(2 * MAX_WINDOW * segment))
    cfg("ns3::DropTailQueue<Packet>::MaxSize", ns.StringValue(f"{buffer}p"))

    src = ns.NodeContainer()
    src.Create(n_flows)
    routers = ns.NodeContainer()
    routers.Create(2)
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.StringValue(f"{int(sc['access_rate'])}bps"))
    p2p.SetChannelAttribute("Delay", ns.StringValue(f"{sc['access_delay'] * 1e9:.0f}ns"))
    access = [p2p.Install(src.Get(i), routers.Get(0)) for i in range(n_flows)]
    if queue != "droptail":  # the queue disc holds the backlog; the device keeps one packet
        cfg("ns3::DropTailQueue<Packet>::MaxSize", ns.StringValue("1p"))
    p2p.SetDeviceAttribute("DataRate", ns.StringValue(f"{int(sc['bottleneck_rate'])}bps"))
    p2p.SetChannelAttribute("Delay", ns.StringValue(f"{sc['bottleneck_delay'] * 1e9:.0f}ns"))
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
    for name, value in ns3_set:
        cfg(name, ns.StringValue(str(value)))
    qdisc = ns3_queue_disc(ns, queue, bottleneck.Get(0), sc, mark_threshold, ns3_set)
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
        bulk.SetAttribute("SendSize", ns.UintegerValue(segment))
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
    qm = cppyy.gbl.qmmeasure
    qm.Setup(n_flows, float(warmup), float(mark_threshold))
    qm.small_below = float(SMALL_WINDOW * segment)
    qm.ConnectBottleneck(bottleneck.Get(0), qdisc if qdisc is not None else ns.Ptr[ns.QueueDisc]())
    if trace:
        cppyy.cppdef(_NS3_TRACE_CPP)
        qt = cppyy.gbl.qmtrace
        qt.Setup(n_flows, float(warmup), segment)
    if recovery_log:
        cppyy.cppdef(_NS3_RECOVERY_LOG_CPP)
        rl = cppyy.gbl.qmrlog
        rl.Setup(n_flows, str(recovery_log))
        rl.ConnectDrops(f"/NodeList/{routers.Get(0).GetId()}/$ns3::TrafficControlLayer/TcDrop")
    if packet_log:
        cppyy.cppdef(_NS3_PACKET_LOG_CPP)
        pl = cppyy.gbl.qmplog
        pl.Setup(n_flows, str(packet_log))
        pl.ConnectDrops(f"/NodeList/{routers.Get(0).GetId()}/$ns3::TrafficControlLayer/TcDrop")
    # the sockets exist once the applications have started
    ns.Simulator.Stop(ns.Seconds(max(starts or [0.0])) + ns.NanoSeconds(1))
    ns.Simulator.Run()
    for i, app in enumerate(senders):
        sock = ns.DynamicCast[ns.BulkSendApplication](app).GetSocket()
        qm.ConnectSocket(i, sock, variant == "dctcp")
        if bbr_no_ack_aggregation and cppyy.gbl.qmbbr.NoAckAggregation(sock) != 1:
            raise RuntimeError("TcpBbr's m_extraAckedGain was not its default 1")
        if trace:
            qt.ConnectSocket(i, sock)
        if recovery_log:
            rl.ConnectSocket(i, sock)
        if packet_log:
            pl.ConnectSocket(i, sock)
        if ns3_prr is not None:
            cppyy.gbl.qmprr.Register(sock)
    if trace:
        qt.ConnectReceiver(f"/NodeList/{routers.Get(1).GetId()}/$ns3::Ipv4L3Protocol/Rx")
    ns.Simulator.Stop(ns.Seconds(warmup) - ns.Simulator.Now())  # (warmup > the starts)
    ns.Simulator.Run()
    rx0 = [int(s.GetTotalRx()) for s in sinks]
    acc0, drop0 = bottleneck_counts()
    marks0 = 0 if qdisc is None else int(qdisc.GetStats().nTotalMarkedPackets)
    ns.Simulator.Stop(ns.Seconds(duration - warmup))
    ns.Simulator.Run()
    cpu2, wall2 = time.process_time(), time.perf_counter()
    rx1 = [int(s.GetTotalRx()) for s in sinks]
    acc1, drop1 = bottleneck_counts()
    marks1 = 0 if qdisc is None else int(qdisc.GetStats().nTotalMarkedPackets)
    qm.Finish()
    if recovery_log:
        rl.Finish()
    if packet_log:
        pl.Finish()
    if ns3_prr is not None:
        q = cppyy.gbl.qmprr
        traced_prr = dict(readings=sorted(ns3_prr), calls=int(q.n_calls), twice=int(q.n_twice),
                          bumps=int(q.n_bumps), wraps=int(q.n_wraps),
                          negative=int(q.n_negative), safe=int(q.n_safe))
    measured = dict(
        mean_delay=qm.delay_sum / qm.delay_n if qm.delay_n else float("nan"),
        cwnd=[qm.CwndMean(i, False) / segment for i in range(n_flows)],
        cwnd_inflated=[qm.CwndMean(i, True) / segment for i in range(n_flows)],
        cwnd_small=[qm.SmallShare(i) for i in range(n_flows)],
        mean_backlog=qm.BacklogMean(), above_k=qm.AboveKShare(),
        window_reductions=[int(qm.cuts[i]) for i in range(n_flows)],
    )
    if variant == "dctcp":
        measured["alpha"] = [qm.AlphaMean(i) for i in range(n_flows)]
        measured["alpha_updates"] = [int(qm.alpha_n[i]) for i in range(n_flows)]
    if queue in ("fqcodel", "fqcodel-exact"):  # a class per hash bucket that held a packet
        measured["flow_queues"] = int(qdisc.GetNQueueDiscClasses())
    events = int(ns.Simulator.GetEventCount())
    sent = int(dev_queue.GetTotalReceivedPackets())  # every packet sent enters the device queue
    ns.Simulator.Destroy()
    traced = {}
    if trace:
        for w, key in enumerate(("trace", "trace_window")):
            traced[key] = {name: int(qt.Get(w, k)) for k, name in enumerate(_TRACE_NAMES)}
    window = duration - warmup
    goodput = [(b - a) / segment * packet * 8.0 / window for a, b in zip(rx0, rx1)]
    arrivals = (acc1 - acc0) + (drop1 - drop0)
    return dict(
        simulator="ns-3", flows=n_flows, queue=queue, variant=variant, scenario=scenario,
        ns3_set=[list(x) for x in ns3_set], cwr_growth=cwr_growth,
        bbr_no_ack_aggregation=bool(bbr_no_ack_aggregation), rfc_cubic=bool(rfc_cubic),
        flight_size=bool(flight_size),
        limited_transmit=bool(limited_transmit), sack=bool(sack), prr=bool(prr),
        mark_rate=marks1 / (acc1 + drop1) if acc1 + drop1 else 0.0,  # whole run, as qosmodels
        mark_rate_window=(marks1 - marks0) / arrivals if arrivals else 0.0,
        **measured,
        duration=duration, warmup=warmup, seed=seed,
        goodput=goodput, aggregate=sum(goodput),
        drop_rate=(drop1 - drop0) / arrivals if arrivals else 0.0,
        window_arrivals=arrivals, window_drops=drop1 - drop0,
        utilisation=(acc1 - acc0) * packet * 8.0 / (sc["bottleneck_rate"] * window),
        bottleneck_packets=sent, events=events,
        cpu_import=cpu_import, cpu_run=cpu2 - cpu1, cpu_total=cpu2 - cpu0,
        wall_total=wall2 - wall0,
        maxrss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        **traced,
        **({"prr_counts": traced_prr} if ns3_prr is not None else {}),
    )


# --------------------------------------------------------------------------- drivers


def run_worker(simulator: str, python: str, *, flows: int, duration: float, warmup: float,
               seed: int = 1, red: bool = False, env: dict | None = None,
               timeout: float | None = None, trace: bool = False, starts=None,
               variant: str = "newreno", queue: str | None = None,
               scenario: str = "benchmark", ns3_set=(), cwr_growth: bool = False,
               limited_transmit: bool = False, sack: bool = False,
               bbr_no_ack_aggregation: bool = False,
               bbr_send_quantum: int | None = None, prr: bool = False, ns3_prr=None,
               recovery_log: str | None = None, packet_log: str | None = None,
               rfc_cubic: bool = False, flight_size: bool = False) -> dict:
    """Run one simulator in a fresh process of ``python``; return its measurements.
    ``ns3_prr``, ``recovery_log``, ``packet_log``, ``rfc_cubic`` and ``flight_size``:
    :func:`run_ns3`'s (ns-3 only)."""
    cmd = [python, os.path.abspath(__file__), "--worker", simulator, "--flows", str(flows),
           "--duration", repr(duration), "--warmup", repr(warmup), "--seed", str(seed)]
    if red:
        cmd.append("--red")
    if queue is not None:
        cmd += ["--queue", queue]
    if scenario != "benchmark":
        cmd += ["--scenario", scenario]
    for name, value in ns3_set:
        cmd += ["--ns3-set", f"{name}={value}"]
    if cwr_growth:
        cmd.append("--ns3-cwr-growth")
    if bbr_no_ack_aggregation:
        cmd.append("--ns3-bbr-no-ack-aggregation")
    if rfc_cubic:
        cmd.append("--ns3-rfc-cubic")
    if flight_size:
        cmd.append("--ns3-flight-size")
    if bbr_send_quantum is not None:
        cmd += ["--bbr-send-quantum", str(bbr_send_quantum)]
    if limited_transmit:
        cmd.append("--limited-transmit")
    if sack:
        cmd.append("--sack")
    if prr:
        cmd.append("--prr")
    if ns3_prr is not None:
        cmd += ["--ns3-prr", ",".join(ns3_prr) or "rfc"]
    if recovery_log:
        cmd += ["--ns3-recovery-log", str(recovery_log)]
    if packet_log:
        cmd += ["--ns3-packet-log", str(packet_log)]
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
            starts=None, variant: str = "newreno", queue: str | None = None,
            scenario: str = "benchmark", ns3_set=(),
            cwr_growth: bool = False, limited_transmit: bool = False,
            sack: bool = False, bbr_no_ack_aggregation: bool = False,
            bbr_send_quantum: int | None = None, prr: bool = False,
            rfc_cubic: bool = False, flight_size: bool = False) -> tuple[dict, dict]:
    """Both simulators on the same dumbbell: ``(qosmodels, ns-3)`` measurements
    (``variant``: a key of :data:`NS3_VARIANTS`, the TCP of every flow; ``queue``: one of
    :data:`QUEUES`, the bottleneck's discipline; ``scenario``: a key of :data:`SCENARIOS`;
    ``ns3_set``: ns-3 defaults changed, see :func:`run_ns3`; ``variant="bbr"`` turns
    ``sack`` on in both; ``bbr_no_ack_aggregation``: ns-3's TcpBbr without its
    ACK-aggregation cwnd term; ``bbr_send_quantum``: qosmodels' ``BbrV1(send_quantum=...)``,
    None the draft's rule by rate; ``prr``: PRR in both, qosmodels' ``prr=True`` (RFC 9937,
    needs ``sack``) and ns-3's ``TcpPrrRecovery`` instead of ``TcpClassicRecovery``;
    ``rfc_cubic``: ns-3 runs RFC 9438's CUBIC arithmetic, with ``flight_size`` its ssthresh
    from RFC 5681's FlightSize, :func:`run_ns3`)."""
    if bbr_send_quantum is not None and variant != "bbr":  # (before ns-3 runs)
        raise ValueError(f"bbr_send_quantum is for variant='bbr' only, got "
                         f"variant={variant!r}; drop --bbr-send-quantum")
    sack = sack or variant == "bbr"
    ns3 = run_worker("ns3", ns3_python(python), flows=flows, duration=duration, warmup=warmup,
                     seed=seed, trace=trace, starts=starts, variant=variant, queue=queue,
                     scenario=scenario, ns3_set=ns3_set, cwr_growth=cwr_growth,
                     limited_transmit=limited_transmit, sack=sack,
                     bbr_no_ack_aggregation=bbr_no_ack_aggregation, prr=prr,
                     rfc_cubic=rfc_cubic, flight_size=flight_size)
    ours = run_qosmodels(flows, duration, warmup, seed, rtt_samples=rtt_samples, timer=timer,
                         recovery=recovery, window_arithmetic=window_arithmetic,
                         handshake=handshake, reverse_links=reverse_links, starts=starts,
                         variant=variant, queue=queue, scenario=scenario,
                         limited_transmit=limited_transmit, sack=sack,
                         bbr_send_quantum=bbr_send_quantum, prr=prr)
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


_VARIANTS = {"newreno": "NewReno", "vegas": "Vegas", "dctcp": "DCTCP", "cubic": "CUBIC",
             "bbr": "BBRv1"}


def _table(ours: dict, ns3: dict) -> str:
    mb = 1e6
    lines = [
        f"Dumbbell ({ours['scenario']}): {ours['flows']} {_VARIANTS[ours['variant']]} flows, "
        f"bottleneck queue {ours['queue']}; "
        f"{'ns-3 defaults changed: ' + str(ns3['ns3_set']) + '; ' if ns3.get('ns3_set') else ''}"
        f"{'ns-3 DCTCP grows in CWR; ' if ns3.get('cwr_growth') else ''}"
        f"{'ns-3 TcpBbr without ACK aggregation; ' if ns3.get('bbr_no_ack_aggregation') else ''}"
        f"limited transmit (RFC 3042) {'on' if ours.get('limited_transmit') else 'off'} in "
        f"qosmodels, {'on' if ns3.get('limited_transmit') else 'off'} in ns-3; "
        f"SACK {'on' if ours.get('sack') else 'off'} in qosmodels, "
        f"{'on' if ns3.get('sack') else 'off'} in ns-3; "
        f"{ours['duration']:g} s simulated, window from {ours['warmup']:g} s; qosmodels "
        f"rtt_samples={ours['rtt_samples']!r}, timer={ours['timer']!r}, "
        f"recovery={ours['recovery']!r}, window_arithmetic={ours['window_arithmetic']!r}"
        f"{', handshake' if ours['handshake'] else ''}"
        f"{', reverse links' if ours['reverse_links'] else ''}"
        f"{', staggered starts' if ours['starts'] else ''}",
    ]
    if ours["variant"] == "bbr":  # (what each side runs; the options above do not apply)
        q = ours.get("bbr_send_quantum")
        quantum = ("send quantum 2 packets below 24 Mb/s" if q is None else
                   f"send quantum fixed at {q} packet{'s' if q > 1 else ''}")
        lines.append(
            "BBR: qosmodels BbrV1(sack=True) (draft-cardwell-iccrg-bbr-congestion-control-00: "
            f"high_gain 2/ln 2, {quantum}, no pacing margin, "
            "initial window 10, min_rto 0.2 s); ns-3 TcpBbr (HighGain 2.89, 1 % pacing margin, "
            "send quantum 1 segment, +2 segments of inflight in the 5/4 phase, ACK-aggregation "
            "cwnd term; pacing on, initial window paced, SACK, initial window 10; its recovery "
            "algorithm unused: TcpBbr sets cwnd itself); qosmodels' rtt_samples, timer, "
            "recovery and window_arithmetic options do not apply")
    lines += [
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
    qd, nd = ours["mean_delay"], ns3["mean_delay"]
    lines.append(f"| mean queueing delay (ms) | {qd * 1e3:.3f} | {nd * 1e3:.3f} | "
                 f"{qd / nd - 1:+.1%} |")
    if ours.get("mark_rate") or ns3.get("mark_rate"):
        qm, nm = ours["mark_rate"], ns3["mark_rate"]
        rel = qm / nm - 1 if nm else float("nan")
        lines.append(f"| ECN marks per arrival, whole run | {qm:.5f} | {nm:.5f} | {rel:+.1%} |")
    if "alpha" in ours:
        a, b = (sum(x["alpha"]) / len(x["alpha"]) for x in (ours, ns3))
        lines.append(f"| DCTCP alpha, mean over flows | {a:.4f} | {b:.4f} | {a / b - 1:+.1%} |")
    if "flow_queues" in ours:
        lines.append(f"| flow queues holding the data flows | {ours['flow_queues']} | "
                     f"{ns3.get('flow_queues', 'n/a')} | |")
    if "above_k" in ours:
        lines.append(f"| share of time queue > K | {ours['above_k']:.4f} | "
                     f"{ns3['above_k']:.4f} | |")
    for i, (a, b) in enumerate(zip(ours["goodput"], ns3["goodput"])):
        lines.append(f"| flow {i} goodput (Mb/s) | {a / mb:.4f} | {b / mb:.4f} | {a / b - 1:+.1%} |")
    if "cwnd" in ours:
        for i, (a, b) in enumerate(zip(ours["cwnd"], ns3["cwnd"])):
            lines.append(f"| flow {i} mean cwnd (packets) | {a:.2f} | {b:.2f} | "
                         f"{a / b - 1:+.1%} |")
    jain = [sum(g) ** 2 / (len(g) * sum(x * x for x in g)) for g in (ours["goodput"], ns3["goodput"])]
    lines.append(f"| Jain's index | {jain[0]:.4f} | {jain[1]:.4f} | |")
    return "\n".join(lines)


def _ns3_prr_readings(text: str | None):
    """``--ns3-prr``'s value as a tuple of :data:`NS3_PRR_READINGS` (None: not given)."""
    if text is None:
        return None
    if text == "ns3-3.44":
        return NS3_PRR_READINGS
    if text in ("rfc", ""):
        return ()
    return tuple(x for x in text.split(",") if x)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--flows", type=int, nargs="+", default=[8])
    p.add_argument("--duration", type=float, default=300.0, help="simulated seconds")
    p.add_argument("--warmup", type=float, default=50.0, help="start of the measurement window, s")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--red", action="store_true", help="RED bottleneck (as --queue red)")
    p.add_argument("--queue", choices=QUEUES, default=None,
                   help="the bottleneck's discipline (default droptail; step for dctcp): "
                        "qosmodels' DropTail, Red, DropTail(mark_threshold=K), Pie, Codel, "
                        "FqCodel and ns-3's queue discs set to match (ns3_queue_disc)")
    p.add_argument("--tcp", choices=sorted(_VARIANTS), default="newreno",
                   help="the flows' TCP: ns-3's TcpNewReno, TcpVegas, TcpDctcp, TcpCubic or "
                        "TcpBbr (pacing on), and qosmodels' TcpNewReno, "
                        "TcpVegas(loss_rule='ns-3', rtt_estimate='smoothed'), Dctcp, Cubic or "
                        "BbrV1(sack=True) (bbr: SACK on in both, initial window 10)")
    p.add_argument("--scenario", choices=sorted(SCENARIOS), default="benchmark",
                   help="the network: the benchmark dumbbell or the dctcp-sawtooth "
                        "experiment's (1 Gb/s, 1 ms, K = 20)")
    p.add_argument("--ns3-set", action="append", default=[], metavar="NAME=VALUE",
                   help="change an ns-3 default after the matching settings, e.g. "
                        "ns3::TcpCubic::HyStart=true (repeatable)")
    p.add_argument("--ns3-cwr-growth", action="store_true",
                   help="ns-3's TcpDctcp grows its window in the round trip after an ECN "
                        "reduction (CA_CWR), as qosmodels' Dctcp does")
    p.add_argument("--ns3-bbr-no-ack-aggregation", action="store_true",
                   help="ns-3's TcpBbr without its ACK-aggregation cwnd term (Linux 4.20's "
                        "extra_acked; not in draft-00 nor Linux 4.9's tcp_bbr.c)")
    p.add_argument("--ns3-rfc-cubic", action="store_true",
                   help="ns-3 runs CUBIC with RFC 9438's real-valued window (ns3::QmRfcCubic, "
                        "written for this check) in place of TcpCubic's Linux-style "
                        "whole-segment arithmetic; its socket unchanged (with --tcp cubic)")
    p.add_argument("--ns3-flight-size", action="store_true",
                   help="with --ns3-rfc-cubic: its ssthresh from RFC 5681's FlightSize "
                        "(SND.MAX - SND.UNA) instead of the socket's bytesInFlight (its RFC 6675 "
                        "pipe, which leaves out the SACKed and the lost segments)")
    p.add_argument("--bbr-send-quantum", type=int, default=None, metavar="N",
                   help="qosmodels' BbrV1 with a fixed send quantum of N packets "
                        "(BbrV1(send_quantum=N); 1 is ns-3's) instead of the draft's rule")
    p.add_argument("--trace", action="store_true",
                   help="count ns-3's retransmissions, timeouts and duplicate arrivals")
    p.add_argument("--rtt-samples", choices=["segment", "ack"], default="segment",
                   help="qosmodels' TcpNewReno.rtt_samples ('ack' samples every new ACK, as ns-3)")
    p.add_argument("--timer", choices=["reference", "impatient", "slow-but-steady"],
                   default="reference",
                   help="qosmodels' TcpNewReno.timer or Cubic.timer ('impatient' restarts "
                        "the retransmission timer as ns-3)")
    p.add_argument("--recovery", choices=["inflation", "pipe"], default="inflation",
                   help="qosmodels' TcpNewReno.recovery ('pipe' is ns-3's classic recovery "
                        "without SACK)")
    p.add_argument("--limited-transmit", action="store_true",
                   help="limited transmit (RFC 3042) in both simulators: qosmodels' "
                        "limited_transmit=True, ns-3's LimitedTransmit (its default; off "
                        "without this flag)")
    p.add_argument("--sack", action="store_true",
                   help="SACK in both simulators: qosmodels' sack=True (RFC 6675's recovery; "
                        "needs --recovery inflation), ns-3's Sack")
    p.add_argument("--prr", action="store_true",
                   help="PRR (RFC 9937) in both simulators: qosmodels' prr=True (needs --sack), "
                        "ns-3's TcpPrrRecovery (its default) instead of TcpClassicRecovery")
    p.add_argument("--ns3-prr", default=None, metavar="READINGS",
                   help="with --prr: ns-3's PRR written anew (ns3::QmPrrRecovery) with these of "
                        "ns-3 3.44's readings kept, comma-separated from "
                        f"{','.join(NS3_PRR_READINGS)} ('ns3-3.44': all, as TcpPrrRecovery; "
                        "'rfc' or '': none, RFC 9937's); ns-3 worker only")
    p.add_argument("--ns3-recovery-log", default=None, metavar="PATH",
                   help="write each of ns-3's fast recoveries (cwnd, ssthresh, pipe at entry "
                        "and exit, drops) to this CSV file; ns-3 worker only")
    p.add_argument("--ns3-packet-log", default=None, metavar="PATH",
                   help="write every data packet ns-3's senders send, every one its bottleneck "
                        "drops and every timeout to this CSV file (benchmarks/rack_timeouts.py "
                        "ns3log reads it); ns-3 worker only")
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
    if a.tcp == "bbr":  # (BBR always with SACK, in both simulators)
        a.sack = True
    starts = None if a.starts is None else json.loads(a.starts)
    ns3_set = [tuple(x.split("=", 1)) for x in a.ns3_set]
    if (a.ns3_prr is not None or a.ns3_recovery_log or a.ns3_packet_log) and a.worker != "ns3":
        p.error("--ns3-prr, --ns3-recovery-log and --ns3-packet-log are for --worker ns3")
    if a.worker:
        if a.worker == "ns3":
            out = run_ns3(a.flows[0], a.duration, a.warmup, a.seed, a.red, a.trace, starts,
                          a.tcp, a.queue, scenario=a.scenario, ns3_set=ns3_set,
                          cwr_growth=a.ns3_cwr_growth, limited_transmit=a.limited_transmit,
                          sack=a.sack, bbr_no_ack_aggregation=a.ns3_bbr_no_ack_aggregation,
                          prr=a.prr, ns3_prr=_ns3_prr_readings(a.ns3_prr),
                          recovery_log=a.ns3_recovery_log, packet_log=a.ns3_packet_log,
                          rfc_cubic=a.ns3_rfc_cubic, flight_size=a.ns3_flight_size)
        else:
            out = run_qosmodels(a.flows[0], a.duration, a.warmup, a.seed, a.red, a.rtt_samples,
                                a.timer, a.recovery, a.window_arithmetic, a.handshake,
                                a.reverse_links, starts, a.tcp, a.queue, scenario=a.scenario,
                                limited_transmit=a.limited_transmit, sack=a.sack,
                                bbr_send_quantum=a.bbr_send_quantum, prr=a.prr)
        print("RESULT " + json.dumps(out), flush=True)
        return 0
    options = dict(seed=a.seed, python=a.ns3_python, variant=a.tcp,
                   queue="red" if a.red and a.queue is None else a.queue,
                   scenario=a.scenario, ns3_set=ns3_set, cwr_growth=a.ns3_cwr_growth,
                   bbr_no_ack_aggregation=a.ns3_bbr_no_ack_aggregation,
                   rfc_cubic=a.ns3_rfc_cubic, flight_size=a.ns3_flight_size,
                   bbr_send_quantum=a.bbr_send_quantum, rtt_samples=a.rtt_samples, timer=a.timer,
                   recovery=a.recovery, trace=a.trace, window_arithmetic=a.window_arithmetic,
                   handshake=a.handshake, reverse_links=a.reverse_links,
                   limited_transmit=a.limited_transmit, sack=a.sack, prr=a.prr)
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
