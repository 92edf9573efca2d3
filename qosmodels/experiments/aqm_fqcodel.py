"""FQ-CoDel (RFC 8290): a sparse flow's latency as bulk flows are added, and the bulk flows'
max-min shares; deficit round robin's fairness bound.

``aqm-fqcodel`` puts :class:`~qosmodels.mechanisms.FqCodel` in packets next to two
closed forms derived here from RFC 8290's scheduler (Sections 1.3, 4.1 and 4.2), the
analysis Hoeiland-Joergensen et al. make of FQ-CoDel's sparse-flow optimisation (IEEE
Communications Letters 22(10), 2018; the article's own expressions were not available
to this module, so its rows compare against the derivation below, not against numbers
printed there):

* **the sparse flow's queueing delay.**  A flow is *sparse* when its queue is inactive
  whenever its next packet arrives: emptied, then moved to the old list's tail, it is
  removed once the old list comes round, one round of the ``N`` backlogged bulk queues
  later (``N Q / C``, ``Q`` the quantum), after the bulk packet in transmission (``L_b /
  C``).  So a flow sending one packet every ``T`` seconds is sparse when ``L_b / C + N Q
  / C < T``: here up to ``N_max`` = :func:`sparse_limit` (40 bulk flows at 10 Mb/s, T =
  50 ms).  A sparse flow's packet then joins the new list, which is served first: with
  the bulk queues backlogged on the old list it waits only for the bulk packet in
  transmission, ``L_b / (2 C)`` on average when its arrivals fall at phases spread
  evenly over the transmissions (the mean residual of a constant transmission time):
  0.6 ms at 10 Mb/s, the same for every ``N`` up to ``N_max``.  Behind a drop-tail FIFO
  it waits for the whole standing queue instead (each row's method gives the FIFO's
  value for contrast).
* **the bulk flows' shares.**  Deficit round robin over backlogged queues gives each
  bulk flow the max-min share ``(C - r_s) / N`` of what the sparse flow (rate ``r_s``)
  leaves; the rows give the smallest and largest bulk rate over that share (1 each).

* **DRR's fairness bound** (Shreedhar and Varghese, SIGCOMM 1995, Theorem 1), on
  :class:`~qosmodels.mechanisms.Drr` alone: over any interval in which conversations
  ``i`` and ``j`` stay backlogged, ``|sent_i / n_i - sent_j / n_j|`` (bytes per unit
  weight ``n``) is at most ``Max + 2 Q`` (``Max`` the largest packet, ``Q`` the quantum per
  unit weight).  Four greedy CBR conversations (:data:`DRR_FLOWS`: 1500, 1000, 576 and 40
  bytes, weights 1, 1, 2, 3, each offering 2.5 times the 1 Mb/s line, so each stays
  backlogged from its first arrival to its last) at quanta 500, 1500, 3000 and 4500 bytes
  (``--quick``: 500, 3000); the fairness measure is the largest such difference over every
  pair and every pair of instants a packet starts, within the interval where all four are
  backlogged, read from the scheduler's trace (``Drr(record_dequeues=True)``; while all
  are backlogged the line is never idle, so every packet sent is in it); each row gives it
  over ``Max + 2 Q``.  ``tests/sim/test_drr.py`` checks the trace against an independent
  replay of the paper's pseudo-code.

The scenario, one bottleneck: ``C`` = 10 Mb/s, 5 ms one-way delay, buffer (RFC 8290's
``limit``, Section 5.1) 10240 packets, :class:`FqCodel` with its defaults; ``N`` TCP Reno
flows of 1500-byte packets, started 13 ms apart; one sparse CBR flow of 200-byte packets
every :data:`SPARSE_GAP` (50 ms, offset by 31 us so that its arrivals' phases against
the 1.2 ms transmissions spread evenly instead of cycling through three values).
Measured after a 5 s warm-up.

Known limits, measured while building this module (10 Mb/s, 30 s runs): with 16 or 32
Reno flows the sparse flow's mean delay stays 0.62 ms, but the bulk rates spread (the
smallest 0.13-0.5 of the share): each flow's queue is held near one packet by CoDel
(a queue of at most ``mtu`` bytes is never above target), so windows of a few packets
lose whole windows and time out (75-100 timeouts in 25 s).  That is TCP's reaction,
not the scheduler's share, so the share rows stop at ``N`` = 8.  At ``N`` = 64, past
``N_max``, the flow is no longer sparse: its mean delay was 9.9 ms.
"""

from __future__ import annotations

from .registry import Bounds, Check, Side, register

#: Bottleneck rate, bit/s; one-way propagation delay, s; buffer, packets (RFC 8290's limit).
CAPACITY, DELAY, BUFFER = 10e6, 0.005, 10240
#: Bulk and sparse packet sizes, bytes; the sparse flow's packet spacing, s.
BULK_PACKET, SPARSE_PACKET, SPARSE_GAP = 1500, 200, 0.0500311
#: Bulk flow counts (all rows; the share rows only up to 8), run length and warm-up, s:
#: full and ``--quick``.
RUNS = {False: ((1, 2, 4, 8, 16, 32), 30.0, 5.0), True: ((1, 4, 8), 10.0, 3.0)}
#: DRR's fairness rows: the conversations (bytes, weight), the line (bit/s), each
#: conversation's offered rate over the line, the arrivals' span (s, full and ``--quick``:
#: the runs end there) and the quanta per unit weight (bytes).
DRR_FLOWS = ((1500, 1.0), (1000, 1.0), (576, 2.0), (40, 3.0))
DRR_LINE, DRR_OVERLOAD = 1e6, 2.5
DRR_SPAN = {False: 10.0, True: 3.0}
DRR_QUANTA = {False: (500.0, 1500.0, 3000.0, 4500.0), True: (500.0, 3000.0)}
#: Relative tolerances: the sparse mean delay (its packets' phases are spread evenly only
#: approximately over some 500 packets), and the bulk shares.
TOL_DELAY, TOL_SHARE = 0.10, 0.02


def sparse_delay(capacity: float = CAPACITY, bulk_packet: float = BULK_PACKET) -> float:
    """The sparse flow's mean queueing delay, s: the mean residual transmission ``L_b / (2
    C)`` of the bulk packet in service."""
    return 8.0 * bulk_packet / (2.0 * capacity)


def sparse_limit(quantum: float, gap: float = SPARSE_GAP, capacity: float = CAPACITY,
                 bulk_packet: float = BULK_PACKET) -> int:
    """The most bulk flows with which a flow sending a packet every ``gap`` s stays sparse:
    the largest ``N`` with ``L_b / C + N Q / C < gap``."""
    import math

    return math.ceil((gap - 8.0 * bulk_packet / capacity) * capacity / (8.0 * quantum)) - 1


def network(n_bulk: int, queue):
    """The bottleneck with ``queue``, ``n_bulk`` Reno flows and the sparse CBR flow (last)."""
    from ..mechanisms import Cbr, TcpReno
    from ..network import Flow, Link, Network

    flows = [Flow(["a", "b"], source=TcpReno(), start=0.013 * i, packet_size=BULK_PACKET)
             for i in range(n_bulk)]
    flows.append(Flow(["a", "b"], source=Cbr(rate=8.0 * SPARSE_PACKET / SPARSE_GAP,
                                             packet_size=SPARSE_PACKET), start=1.0037))
    return Network([Link("a", "b", CAPACITY, DELAY, buffer=BUFFER, queue=queue)], flows)


@register("aqm-fqcodel",
          title="FQ-CoDel: a sparse flow waits half a bulk packet's transmission whatever the "
                "number of bulk flows; bulk flows get max-min shares; DRR's fairness bound",
          paper="RFC 8290 (Sections 1.3, 4); Hoeiland-Joergensen et al., IEEE Comm. Letters "
                "2018 (sparse flows); Shreedhar and Varghese, SIGCOMM 1995 (Theorem 1)",
          sides=("packets",))
def aqm_fqcodel(*, sides, quick) -> list[Check]:
    """Per number of bulk flows: the sparse flow's mean queueing delay against ``L_b / (2
    C)``, and (up to 8 bulk flows) the smallest and largest bulk rate over the max-min
    share; per quantum, DRR's fairness measure over Theorem 1's ``Max + 2 Q``."""
    from ..mechanisms import DropTail, FqCodel
    from ..sim import simulate

    ns, duration, warmup = RUNS[bool(quick)]
    q = FqCodel()
    ref = sparse_delay()
    limit = sparse_limit(q.quantum)
    rows = []
    for n in ns:
        assert n <= limit  # every row is in the sparse regime
        res = simulate(network(n, q), duration, seed=1, warmup=warmup, progress=False)
        fifo = simulate(network(n, DropTail()), duration, seed=1, warmup=warmup,
                        progress=False)
        d = float(res.mean_queueing_delay[n])
        rows.append(Check(
            "aqm-fqcodel", f"sparse flow's mean queueing delay, {n} bulk flow(s)", ref,
            source="closed form", unit="s",
            packets=Side(d, TOL_DELAY, method=(
                f"simulate: FqCodel(), {n} Reno + 1 sparse CBR, {CAPACITY / 1e6:g} Mb/s, "
                f"{duration:g} s from {warmup:g} s; largest {res.max_queueing_delay[n]:.4g} "
                f"s; drop-tail FIFO of {BUFFER} packets: mean "
                f"{fifo.mean_queueing_delay[n]:.4g} s")),
            reference=f"L_b / (2 C): the new list is served first, N <= N_max = {limit}"))
        if n < 2 or n > 8:
            continue
        share = (CAPACITY - float(res.throughput[n])) / n
        rates = res.throughput[:n] / share
        for what, value in (("smallest", float(rates.min())), ("largest", float(rates.max()))):
            rows.append(Check(
                "aqm-fqcodel", f"{what} bulk rate over the max-min share, {n} bulk flows", 1.0,
                source="closed form", unit="",
                packets=Side(value, TOL_SHARE, method=(
                    f"simulate: as above; share (C - r_sparse) / N = {share / 1e6:.4g} Mb/s")),
                reference="deficit round robin over backlogged queues: (C - r_s) / N each"))
    for quantum in DRR_QUANTA[bool(quick)]:
        fm, how = drr_fairness(quantum, DRR_SPAN[bool(quick)])
        bound = max(size for size, _ in DRR_FLOWS) + 2.0 * quantum
        rows.append(Check(
            "aqm-fqcodel", f"DRR fairness measure over Max + 2Q, quantum {quantum:g} B",
            Bounds(upper=1.0), source="paper (stated)", unit="",
            packets=Side(fm / bound, 0.0, method=how + f"; Max + 2Q = {bound:g} B"),
            reference="Shreedhar and Varghese, SIGCOMM 1995, Theorem 1: |sent_i/n_i - "
                      "sent_j/n_j| <= Max + 2 Q over any interval both stay backlogged"))
    return rows


def drr_network(quantum, span: float, queue=None):
    """:data:`DRR_FLOWS` as greedy CBR conversations, started a little apart, through one
    line of :data:`DRR_LINE` bit/s under ``queue`` (default ``Drr(quantum,
    record_dequeues=True)``), arrivals until ``span`` s; the buffer holds them all."""
    from ..mechanisms import Cbr, Drr
    from ..network import Flow, Link, Network

    queue = Drr(quantum=quantum, record_dequeues=True) if queue is None else queue
    flows = [Flow(["a", "b"], source=Cbr(rate=DRR_OVERLOAD * DRR_LINE * (1 + 1e-4 * k),
                                         packet_size=size),
                  packet_size=size, weight=w, start=0.000317 * k, stop=span)
             for k, (size, w) in enumerate(DRR_FLOWS)]
    return Network([Link("a", "b", DRR_LINE, 1e-3, buffer=100_000, queue=queue)], flows)


def fairness_measure(times, conv, sizes, weights, t0: float, t1: float) -> float:
    """Shreedhar and Varghese's fairness measure on a send trace: the largest ``|sent_i /
    n_i - sent_j / n_j|`` over every pair of conversations and every interval between two
    instants in ``[t0, t1]`` at which a packet starts (or ``t0``), bytes per unit weight;
    a packet counts as sent when it starts."""
    import numpy as np

    conv = np.asarray(conv, dtype=int)
    sel = (np.asarray(times) >= t0) & (np.asarray(times) <= t1)
    inc = np.zeros((int(sel.sum()) + 1, len(sizes)))
    inc[np.arange(1, len(inc)), conv[sel]] = (np.asarray(sizes, float)
                                             / np.asarray(weights, float))[conv[sel]]
    norm = np.cumsum(inc, axis=0)
    fm = 0.0
    for i in range(len(sizes)):
        for j in range(i + 1, len(sizes)):
            d = norm[:, i] - norm[:, j]
            fm = max(fm, float(d.max() - d.min()))
    return fm


def drr_fairness(quantum: float, span: float) -> tuple[float, str]:
    """The fairness measure (bytes per unit weight) of :func:`drr_network` in packets, and
    the method text."""
    from ..sim import Record, simulate

    net = drr_network(quantum, span)
    res = simulate(net, span, seed=1, progress=False, record=Record(trace_points=200_000))
    tr = res.traces["drr_dequeues"]
    t0 = max(f.start for f in net.flows)  # every conversation has arrived ...
    t1 = span  # ... and keeps arriving (each alone offers more than the line)
    sizes = [size for size, _ in DRR_FLOWS]
    fm = fairness_measure(tr.index.to_numpy(), tr.to_numpy(), sizes,
                          [w for _, w in DRR_FLOWS], t0, t1)
    n = int(((tr.index >= t0) & (tr.index <= t1)).sum())
    return fm, (f"simulate: Drr(quantum={quantum:g}), 4 greedy CBR conversations "
                f"(1500/1000/576/40 B, weights 1/1/2/3) at {DRR_OVERLOAD:g}x the "
                f"{DRR_LINE / 1e6:g} Mb/s line, {span:g} s; {n} sends from the "
                f"record_dequeues trace in [{t0:.4g}, {t1:g}] s: measure {fm:.1f} B per unit "
                f"weight")
