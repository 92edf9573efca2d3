"""Network-calculus bounds against packets: a token-bucket flow through a constant-rate link,
and PGPS against GPS.

``netcalc-pgps`` checks Parekh and Gallager's per-packet bound of packetised fair queueing
(:func:`netcalc_pgps`).  ``netcalc-tokenbucket`` (issue 36) holds the textbook bounds of Le Boudec and Thiran's
Network Calculus, chapter 1, against the packet simulator.  A flow shaped to the token
bucket ``(b, r)`` crosses one FIFO link of rate ``R >= r`` (a constant-rate server, the
service curve ``R t``: ``RateLatency(R, 0)``):

* the delay of every bit is at most ``b / R`` (Theorem 1.4.2, ``T = 0``);
* the backlog is at most ``b`` (Theorem 1.4.1).

References are these closed forms, written out here (``b / R``, ``b``); the theory side
is :mod:`qosmodels.netcalc`'s ``delay_bound`` and ``backlog_bound``; the packets side is
the worst case a packet run shows.  Two kinds of source:

* **greedy** (the bounds' worst case): a constant-rate source 200 times faster than ``r``
  behind an exact token-bucket shaper (``AggregateBucket(rate=r, depth=b, timer=0)``), so
  that the bucket's ``b`` bytes leave at once and ``r`` afterwards.  The bounds are tight
  there: the observed worst case is the bound up to the burst's spread (the source's
  packets come ``L / (200 r)`` apart, so the burst's last packet waits ``(b - L) / (200 r)``
  less: 1-4% of the bound here), so the delay rows ask for the bound within that spread
  plus 0.5% and the backlog rows (whole packets) within 0.5% (:func:`greedy_tolerance`;
  the tightness, observed / bound, is in the method text);
* **on/off** (random): exponential on and off periods at 200 times ``r`` during "on",
  shaped by the same bucket; the rows ask only that nothing exceeds the bound
  (``Bounds(upper=...)``), over seeds.

Measured in packets: a packet's delay is its queueing delay plus its own transmission
``L / R`` (when its last bit has left, the fluid curves' departure); the backlog is the
most packets waiting plus the one in transmission, times ``L``.  Units: s and bytes.
"""

from __future__ import annotations

from ..netcalc import RateLatency, TokenBucketCurve, backlog_bound, delay_bound
from .registry import Bounds, Check, Side, register

#: The cases: (burst b, bytes; token rate r, bit/s; link rate R, bit/s).
CASES = ((20_000, 1e6, 2e6), (50_000, 2e6, 2.5e6), (8_000, 0.5e6, 4e6))
#: Packet size, bytes.
PACKET = 1000
#: The source's rate over the token rate (the greedy source's burst spread: L / (200 r)).
SPEED = 200.0
#: Added to the greedy delay rows' tolerance beyond the burst's own spread (see
#: :func:`greedy_tolerance`).
GREEDY_SLACK = 0.005


def greedy_tolerance(b: float, r: float, R: float) -> float:
    """The greedy delay row's tolerance: the source sends the bucket's ``b`` bytes as
    packets ``L / (SPEED r)`` apart, not at one instant, so the last of them arrives
    ``(b - L) / (SPEED r)`` s after the first and waits that much less than the bound
    ``b / R``; that relative deficit plus :data:`GREEDY_SLACK`."""
    return 8.0 * (b - PACKET) / (SPEED * r) / (8.0 * b / R) + GREEDY_SLACK
#: Run length (s) and on/off seeds, full and ``--quick``.
RUNS = {False: (20.0, 5), True: (5.0, 2)}


def network(b: float, r: float, R: float, source):
    """One link of rate ``R`` and a flow whose ``source`` is shaped to ``(b bytes, r bit/s)``
    by an exact token-bucket shaper (its buffers large enough never to drop)."""
    from ..mechanisms import AggregateBucket
    from ..network import Aggregate, Flow, Link, Network

    return Network([Link("a", "b", R, 0.001, buffer=10_000)],
                   [Flow(["a", "b"], source=source, packet_size=PACKET)],
                   aggregates=[Aggregate("tb", flows=[0], edge=AggregateBucket(
                       rate=r, depth=b, max_packet=PACKET, timer=0.0, limit=10**6))])


def worst(res, R: float) -> tuple[float, float]:
    """The largest delay (queueing plus the packet's own transmission, s) and backlog (the
    packets waiting plus the one in transmission, bytes) of a one-link run."""
    delay = float(res.max_queueing_delay[0]) + 8.0 * PACKET / R
    backlog = (float(res.counters["link_max_waiting"][0]) + 1.0) * PACKET
    return delay, backlog


@register("netcalc-tokenbucket",
          title="Network calculus: a token-bucket flow through a constant-rate link, the delay "
                "and backlog bounds b/R and b against the packets' worst case",
          paper="Le Boudec and Thiran, Network Calculus, Theorems 1.4.1-1.4.2",
          sides=("theory", "packets"))
def netcalc_tokenbucket(*, sides, quick) -> list[Check]:
    """Per case of :data:`CASES`: the delay and backlog bounds, greedy and on/off, in packets."""
    from ..mechanisms import Cbr, OnOff
    from ..sim import simulate

    duration, seeds = RUNS[bool(quick)]
    rows = []
    for b, r, R in CASES:
        label = f"b = {b / 1000:g} kB, r = {r / 1e6:g} Mb/s, R = {R / 1e6:g} Mb/s"
        d_ref, q_ref = 8.0 * b / R, float(b)  # the closed forms, bits / (bit/s) and bytes
        curve, server = TokenBucketCurve(b=8.0 * b, r=r), RateLatency(R=R)
        theory = {"delay": Side(delay_bound(curve, server), 1e-12,
                                method="netcalc.delay_bound(TokenBucketCurve(8b, r), "
                                       "RateLatency(R, 0))"),
                  "backlog": Side(backlog_bound(curve, server) / 8.0, 1e-12,
                                  method="netcalc.backlog_bound(...) / 8")}
        greedy = onoff = None
        if "packets" in sides:
            g = simulate(network(b, r, R, Cbr(rate=SPEED * r)), duration, seed=0,
                         progress=False)
            greedy = worst(g, R)
            onoff = [worst(simulate(network(b, r, R, OnOff(rate=SPEED * r, on_time=0.5,
                                                          off_time=0.5)),
                                    duration, seed=s, progress=False), R)
                     for s in range(seeds)]
        for k, (what, ref, unit) in enumerate((("delay", d_ref, "s"),
                                                ("backlog", q_ref, "bytes"))):
            side = None
            if greedy is not None:
                side = Side(greedy[k], greedy_tolerance(b, r, R) if what == "delay" else
                            GREEDY_SLACK,
                            method=f"simulate: Cbr at {SPEED:g} r behind AggregateBucket(rate="
                                   f"r, depth=b, timer=0); {duration:g} s; tightness "
                                   f"{greedy[k] / ref:.4f} of the bound")
            rows.append(Check(
                "netcalc-tokenbucket", f"{label}: greedy source's largest {what}", ref,
                source="closed form", unit=unit,
                theory=theory[what] if "theory" in sides else None, packets=side,
                reference=("Theorem 1.4.2: delay <= T + b / R, T = 0" if what == "delay" else
                           "Theorem 1.4.1: backlog <= b + r T, T = 0")))
            if onoff is not None:
                seen = max(o[k] for o in onoff)
                rows.append(Check(
                    "netcalc-tokenbucket", f"{label}: shaped on/off source's largest {what}",
                    Bounds(upper=ref), source="closed form", unit=unit,
                    packets=Side(seen, 0.0, method=f"simulate: OnOff at {SPEED:g} r (0.5 s "
                                                   f"on and off, exponential) behind the same "
                                                   f"shaper; the worst of {seeds} seeds of "
                                                   f"{duration:g} s; tightness "
                                                   f"{seen / ref:.4f}"),
                    reference="the bound holds for every (b, r)-constrained flow"))
    return rows


# ------------------------------------------------------------------------------ netcalc-pgps
#: The PGPS scenarios' seeds (random constant-rate flows with weights, start and stop times),
#: full and ``--quick``.
PGPS_SEEDS = {False: tuple(range(6)), True: (0, 1)}
#: The line rate of the PGPS scenarios, bit/s.
PGPS_CAPACITY = 1e6


def pgps_scenario(seed: int):
    """Random constant-rate flows on one line: (packet size bytes, rate bit/s, start s, stop
    s, weight) each, drawn from ``seed``; together they overload the line part of the time."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 7))
    return [(int(rng.integers(40, 1500)), float(rng.uniform(0.1, 0.6)) * PGPS_CAPACITY,
             float(rng.uniform(0.0, 1.0)), float(rng.uniform(1.5, 4.0)),
             float(rng.choice([0.5, 1.0, 2.0, 3.0]))) for _ in range(n)]


def _cbr_arrivals(start, stop, size, rate):
    """The arrival times of a constant-rate flow, as the simulator's source ticks them."""
    out, t, gap = [], start, size * 8 / rate
    while t < stop:
        out.append(t)
        t = t + gap
    return out


def pgps_trace(specs):
    """The packets of :func:`pgps_scenario`'s flows in arrival order: (times s, flow index,
    size bytes), as :func:`qosmodels.fq.fair_queue` takes them."""
    import numpy as np

    times, conv, sizes = [], [], []
    for i, (s, r, t0, t1, _) in enumerate(specs):
        ts = _cbr_arrivals(t0, t1, s, r)
        times += ts
        conv += [i] * len(ts)
        sizes += [s] * len(ts)
    order = np.argsort(times, kind="stable")
    return (np.asarray(times)[order], np.asarray(conv)[order],
            np.asarray(sizes, dtype=float)[order])


@register("netcalc-pgps",
          title="Network calculus: PGPS (packetised weighted fair queueing) finishes every "
                "packet no later than GPS plus L_max/C (Parekh and Gallager)",
          paper="Parekh and Gallager, IEEE/ACM ToN 1993, Theorem 1; Demers, Keshav, Shenker "
                "1989",
          sides=("theory", "packets"))
def netcalc_pgps(*, sides, quick) -> list[Check]:
    """Per random scenario: the largest lateness of PGPS behind GPS, over ``L_max / C``.

    GPS is the bit-by-bit weighted round robin of :func:`qosmodels.fq.fair_queue`
    (``br_departure``); PGPS with ``delta = 0`` is fair queueing.  The reference is
    Parekh and Gallager's bound, lateness <= ``L_max / C`` (``Bounds(upper=1)`` in units of
    ``L_max / C``).  Theory: the trace engine's own PGPS departures (``fq_departure``), per
    packet.  Packets: :class:`~qosmodels.mechanisms.FairQueueing` in the simulator, per
    flow, its largest sojourn (queueing delay plus its own transmission) less the largest
    GPS sojourn of its packets, the largest over flows: at most the largest lateness of the
    flow's packets, so above the bound only if some packet is (a necessary check; the
    per-packet one is the theory side's, whose departures the simulator's match,
    ``tests/sim/test_fair_queueing.py``).
    """

    from .. import fq
    from ..mechanisms import Cbr, FairQueueing
    from ..network import Flow, Link, Network
    from ..sim import simulate

    rows = []
    c = PGPS_CAPACITY
    for seed in PGPS_SEEDS[bool(quick)]:
        specs = pgps_scenario(seed)
        times, conv, sizes = pgps_trace(specs)
        weights = [w for *_, w in specs]
        ref = fq.fair_queue(times, conv, sizes, capacity=c, weights=weights)
        unit = 8.0 * sizes.max() / c  # L_max / C, s
        late = (ref.fq_departure - ref.br_departure) / unit
        kw = {}
        if "theory" in sides:
            kw["theory"] = Side(float(late.max()), 0.0,
                                method="fq.fair_queue: max over packets of (fq_departure - "
                                       "br_departure) / (L_max / C)")
        if "packets" in sides:
            flows = [Flow(["a", "b"], source=Cbr(rate=r, packet_size=s), start=t0, stop=t1,
                          weight=w) for s, r, t0, t1, w in specs]
            net = Network([Link("a", "b", c, 1e-6, buffer=len(times) + 1,
                                queue=FairQueueing())], flows)
            res = simulate(net, float(times[-1] + 8.0 * sizes.sum() / c + 1.0), seed=0,
                           progress=False)
            gps = ref.br_departure - times
            lateness = [(float(res.max_queueing_delay[i]) + 8.0 * specs[i][0] / c
                         - float(gps[conv == i].max())) / unit for i in range(len(specs))]
            kw["packets"] = Side(max(lateness), 0.0,
                                 method="simulate(FairQueueing()): per flow, largest sojourn "
                                        "less the largest GPS sojourn of its packets, over "
                                        "L_max / C; the largest over flows")
        rows.append(Check(
            "netcalc-pgps", f"scenario {seed} ({len(specs)} flows, {len(times)} packets): "
                            f"PGPS lateness behind GPS / (L_max / C)",
            Bounds(upper=1.0), source="closed form", unit="L_max/C", **kw,
            reference="Parekh and Gallager 1993, Theorem 1: F_PGPS <= F_GPS + L_max / C"))
    if "packets" in sides:
        rows += [pgps_chain_row(seed, quick) for seed in PGPS_CHAIN_SEEDS[bool(quick)]]
    return rows


#: The 3-hop chains' seeds, full and ``--quick``, and their run (s).
PGPS_CHAIN_SEEDS = {False: (0, 1, 2), True: (0,)}
PGPS_CHAIN_RUN = {False: 20.0, True: 5.0}


def pgps_chain(seed: int):
    """A 3-hop chain of ``FairQueueing`` links of 2 Mb/s: a tagged flow shaped greedily to a
    token bucket ``(b, r)`` (a constant-rate source 200 times faster than ``r`` behind an
    exact shaper) crosses all three; at each hop a constant-rate cross flow of random packet
    size, rate and weight overloads its share.  Returns ``(network, arrival curve of the
    tagged flow, bits and bit/s)``."""
    import numpy as np

    from ..mechanisms import AggregateBucket, Cbr, FairQueueing
    from ..netcalc import TokenBucketCurve
    from ..network import Aggregate, Flow, Link, Network

    rng = np.random.default_rng(2000 + seed)
    cap, size = 2e6, 1000
    b, r = float(rng.choice([5_000, 20_000, 50_000])), float(rng.uniform(0.2e6, 0.6e6))
    hops = (("a", "b"), ("b", "c"), ("c", "d"))
    links = [Link(x, y, cap, 0.002, buffer=10_000, queue=FairQueueing()) for x, y in hops]
    flows = [Flow(["a", "b", "c", "d"], source=Cbr(rate=200.0 * r), packet_size=size)]
    for x, y in hops:
        sc = int(rng.integers(40, 1501))
        flows.append(Flow([x, y], source=Cbr(rate=float(rng.uniform(1.0, 1.8)) * cap,
                                             packet_size=sc),
                          packet_size=sc, weight=float(rng.choice([0.5, 1.0, 2.0]))))
    net = Network(links, flows, aggregates=[Aggregate("tb", flows=[0], edge=AggregateBucket(
        rate=r, depth=b, max_packet=size, timer=0.0, limit=10**6))])
    return net, TokenBucketCurve(b=8.0 * b, r=r)


def pgps_chain_row(seed: int, quick: bool) -> Check:
    """The tagged flow of :func:`pgps_chain`: its largest end-to-end delay (queueing and
    transmission at the three hops) over the bound of :func:`qosmodels.netcalc.path_bound`."""
    from ..netcalc import path_bound
    from ..sim import simulate

    net, arrival = pgps_chain(seed)
    bound = path_bound(net, 0, arrival)
    res = simulate(net, PGPS_CHAIN_RUN[bool(quick)], seed=0, progress=False)
    size = 8.0 * float(net.packet_sizes[0])
    seen = float(res.max_queueing_delay[0]) + sum(size / lk.capacity for lk in net.links)
    return Check(
        "netcalc-pgps", f"3-hop chain {seed} (b = {arrival.b / 8000:g} kB, r = "
                        f"{arrival.r / 1e6:.3g} Mb/s): end-to-end delay / bound",
        Bounds(upper=1.0), source="closed form", unit="bound",
        packets=Side(seen / bound.delay, 0.0,
                     method=f"simulate(FairQueueing() x 3): largest delay {seen * 1e3:.2f} ms "
                            f"(queueing + transmissions) over path_bound's "
                            f"{bound.delay * 1e3:.2f} ms"),
        reference="PGPS per hop (Parekh and Gallager 1993) as RateLatency(g, L_i/g + "
                  "L_max/C), concatenated (Le Boudec and Thiran, Theorem 1.4.6): delay <= "
                  "b/g_min + sum_h (L_i/g_h + L_max/C_h); Parekh and Gallager 1994's RPPS "
                  "bound is L_i/g_min below it")


# ------------------------------------------------------------------------------ netcalc-drr
#: The DRR scenarios' seeds, full and ``--quick``; their line rate (bit/s) and run (s).
DRR_SEEDS = {False: tuple(range(8)), True: (0, 1)}
DRR_CAPACITY = 1e6
DRR_RUN = {False: 20.0, True: 5.0}


def drr_scenario(seed: int):
    """A DRR line shared by conversations of random packet sizes (bytes) and weights: some
    *tagged* (constant rate ``r`` below the rate ``R_i`` DRR guarantees them) and the others
    greedy (twice the line rate each), and the quantum per unit weight (bytes, or None: the
    largest packet).  Returns ``(quantum, [(size, weight, tagged, fraction of R_i)])``."""
    import numpy as np

    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(3, 7))
    quantum = [None, 500.0, 1500.0, 3000.0][seed % 4]
    flows = []
    for k in range(n):
        tagged = k < max(1, n // 2)
        flows.append((int(rng.integers(40, 1501)), float(rng.choice([0.5, 1.0, 2.0, 3.0])),
                      tagged, float(rng.uniform(0.3, 0.95))))
    return quantum, flows


def drr_network(seed: int):
    """:func:`drr_scenario` as a one-link ``Network`` of ``Cbr`` flows through
    ``Drr(quantum)``; the tagged flows' rates set from their guaranteed rates."""
    from ..mechanisms import Cbr, Drr
    from ..netcalc import service_curve
    from ..network import Flow, Link, Network

    quantum, specs = drr_scenario(seed)
    link = Link("a", "b", DRR_CAPACITY, 1e-6, buffer=400, queue=Drr(quantum=quantum))
    flows = [Flow(["a", "b"], source=Cbr(rate=2.0 * DRR_CAPACITY, packet_size=s),
                  packet_size=s, weight=w) for s, w, *_ in specs]
    net = Network([link], flows)
    for i, (s, w, tagged, frac) in enumerate(specs):
        if tagged:
            rate = frac * service_curve(None, 0, i, net).R
            net = net.replace_flow(i, source=Cbr(rate=rate, packet_size=s))
    return net


@register("netcalc-drr",
          title="Network calculus: deficit round robin as a rate-latency server, every tagged "
                "flow's packets within the delay bound of its DRR service curve",
          paper="Shreedhar and Varghese, SIGCOMM 1995; Lenzini, Mingozzi and Stea, IEEE/ACM "
                "ToN 2004",
          sides=("packets",))
def netcalc_drr(*, sides, quick) -> list[Check]:
    """Per random scenario and tagged flow: its largest sojourn over its delay bound.

    A tagged flow ``i`` is a constant-rate source of packets of ``L_i`` bits at ``r_i``
    below the rate ``R_i = Q_i C / F`` DRR guarantees it, so its arrival curve is the token
    bucket ``(L_i, r_i)``; the greedy flows keep the line busy and their rings full.  The
    reference is the delay bound of the flow's DRR service curve, written out here from the
    scenario (``((F - Q_i)(1 + L_i/Q_i) + sum_j L_j) / C + L_i / R_i``; ``Bounds(upper=1)`` on
    observed / bound); ``tests/test_netcalc.py`` checks that :func:`qosmodels.netcalc.
    service_curve` gives the same curve and that the bound holds on an independent replay of
    the pseudo-code.  Packets: the simulator's largest sojourn of the flow (queueing delay
    plus its own transmission ``L_i / C``) over the bound; the tightness is that ratio.
    """
    import math

    from ..sim import simulate

    rows = []
    for seed in DRR_SEEDS[bool(quick)]:
        quantum, specs = drr_scenario(seed)
        net = drr_network(seed)
        res = None
        if "packets" in sides:
            res = simulate(net, DRR_RUN[bool(quick)], seed=0, progress=False)
        q = max(s for s, *_ in specs) if quantum is None else quantum
        frame = 8.0 * q * math.fsum(w for _, w, *_ in specs)
        lsum = 8.0 * math.fsum(s for s, *_ in specs)
        for i, (s, w, tagged, _) in enumerate(specs):
            if not tagged:
                continue
            li, qi = 8.0 * s, 8.0 * q * w
            r_i = qi * DRR_CAPACITY / frame
            written = ((frame - qi) * (1.0 + li / qi) + lsum) / DRR_CAPACITY + li / r_i
            kw = {}
            if res is not None:
                seen = float(res.max_queueing_delay[i]) + li / DRR_CAPACITY
                kw["packets"] = Side(seen / written, 0.0,
                                     method=f"simulate(Drr(quantum={quantum})): largest "
                                            f"sojourn {seen * 1e3:.2f} ms over the bound "
                                            f"{written * 1e3:.2f} ms")
            rows.append(Check(
                "netcalc-drr", f"scenario {seed} ({len(specs)} conversations, quantum "
                               f"{q:g} B): flow {i} ({s} B, weight {w:g}) sojourn / bound",
                Bounds(upper=1.0), source="closed form", unit="bound", **kw,
                reference="DRR latency T_i = ((F - Q_i)(1 + L_i/Q_i) + sum_j L_j) / C "
                          "(Lenzini et al. 2004); delay <= T_i + b_i / R_i (Le Boudec and "
                          "Thiran, Theorem 1.4.2)"))
    return rows
