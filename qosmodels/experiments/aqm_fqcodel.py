"""FQ-CoDel (RFC 8290): a sparse flow's latency as bulk flows are added, and the bulk flows'
max-min shares.

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

from .registry import Check, Side, register

#: Bottleneck rate, bit/s; one-way propagation delay, s; buffer, packets (RFC 8290's limit).
CAPACITY, DELAY, BUFFER = 10e6, 0.005, 10240
#: Bulk and sparse packet sizes, bytes; the sparse flow's packet spacing, s.
BULK_PACKET, SPARSE_PACKET, SPARSE_GAP = 1500, 200, 0.0500311
#: Bulk flow counts (all rows; the share rows only up to 8), run length and warm-up, s:
#: full and ``--quick``.
RUNS = {False: ((1, 2, 4, 8, 16, 32), 30.0, 5.0), True: ((1, 4, 8), 10.0, 3.0)}
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
                "number of bulk flows; bulk flows get max-min shares",
          paper="RFC 8290 (Sections 1.3, 4); Hoeiland-Joergensen et al., IEEE Comm. Letters "
                "2018 (sparse flows)",
          sides=("packets",))
def aqm_fqcodel(*, sides, quick) -> list[Check]:
    """Per number of bulk flows: the sparse flow's mean queueing delay against ``L_b / (2
    C)``, and (up to 8 bulk flows) the smallest and largest bulk rate over the max-min
    share."""
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
    return rows
