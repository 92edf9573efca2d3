"""Delay-based AQM against its own target: PIE (RFC 8033) with long-lived TCP flows.

``aqm-pie`` (issue 34) runs :class:`~qosmodels.mechanisms.Pie` with its RFC 8033
defaults at the bottleneck of a dumbbell (10 Mb/s, 20 ms, a 1000-packet buffer, 800 ms
at the line rate, that drop-tail would fill) shared by N long-lived
:class:`~qosmodels.mechanisms.TcpReno` flows, N = 5, 10, 20 and 50, and compares:

* the mean queueing delay of the delivered packets with PIE's latency target
  ``QDELAY_REF`` = 15 ms.  RFC 8033 (Sections 1 and 3) states the goal, a queueing
  latency kept around the target whatever the number of flows, without a precision;
  the rows accept half the target either side (7.5 to 22.5 ms), the library's reading
  of "around", fixed before the runs;
* the bottleneck's utilisation with RFC 8033's other goal, high link utilisation
  (Section 3), for which the RFC gives no number either: the rows ask for at least
  0.95.

Only packets: the RFC states targets, not a model to compute the delay from.  The
flows' access links add 0 to 20 ms one way (RTTs of 40 to 120 ms before queueing), so
that their cycles do not synchronise.
"""

from __future__ import annotations

from .registry import Bounds, Check, Side, register

#: The numbers of flows, full and ``--quick``.
FLOWS = {False: (5, 10, 20, 50), True: (5, 20)}
#: Run length and warmup (s), full and ``--quick``.
RUNS = {False: (100.0, 20.0), True: (30.0, 10.0)}
#: The bottleneck's buffer, packets (800 ms at 10 Mb/s with 1000-byte packets).
BUFFER = 1000
#: RFC 8033's QDELAY_REF, s.
TARGET = 0.015
#: The delay rows' tolerance: half the target either side (see the module's text).
DELAY_TOLERANCE = 0.5
#: The utilisation rows' lower bound (see the module's text).
MIN_UTILISATION = 0.95
SEED = 1


def network(n: int, queue):
    """The dumbbell of ``n`` TcpReno flows with ``queue`` at its bottleneck ``r0->r1``;
    returns the network and the bottleneck's index."""
    import dataclasses

    from ..mechanisms import TcpReno
    from ..network import Network
    from ..topologies import dumbbell

    net = dumbbell(n, buffer=BUFFER, access_delay=[0.02 * i / n for i in range(n)])
    b = net.link_names.index("r0->r1")
    links = [dataclasses.replace(link, queue=queue) if i == b else link
             for i, link in enumerate(net.links)]
    flows = [dataclasses.replace(f, source=TcpReno()) for f in net.flows]
    return Network(links, flows), b


def measure(n: int, queue, duration: float, warmup: float, seed: int = SEED):
    """Mean queueing delay of the delivered packets (s) and the bottleneck's utilisation."""
    import numpy as np

    from ..sim import simulate

    net, b = network(n, queue)
    r = simulate(net, duration, warmup=warmup, seed=seed, progress=False)
    delay = float(np.average(r.mean_queueing_delay, weights=r.delivered_packets))
    return delay, float(r.utilisation[b])


@register("aqm-pie",
          title="PIE (RFC 8033): mean queueing delay of N long-lived Reno flows against the "
                "15 ms target, and the bottleneck's utilisation",
          paper="RFC 8033, Sections 1, 3 and 4 (QDELAY_REF = 15 ms)",
          sides=("packets",))
def aqm_pie(*, sides, quick) -> list[Check]:
    """Per N of :data:`FLOWS`: the mean queueing delay and the utilisation, in packets."""
    from ..mechanisms import Pie

    duration, warmup = RUNS[bool(quick)]
    method = (f"simulate: {{n}} TcpReno flows, dumbbell 10 Mb/s 20 ms, Pie() with a "
              f"{BUFFER}-packet buffer; {duration:g} s after {warmup:g} s, seed {SEED}")
    rows = []
    for n in FLOWS[bool(quick)]:
        delay = util = None
        if "packets" in sides:
            delay, util = measure(n, Pie(), duration, warmup)
        rows.append(Check(
            "aqm-pie", f"mean queueing delay, N = {n}", TARGET, source="paper (stated)",
            unit="s", packets=Side(delay, DELAY_TOLERANCE, method=method.format(n=n))
            if delay is not None else None,
            reference="RFC 8033, Section 4.2: QDELAY_REF = 15 ms, the latency target",
            note="tolerance: half the target either side, the RFC stating no precision"))
        rows.append(Check(
            "aqm-pie", f"bottleneck utilisation, N = {n}", Bounds(lower=MIN_UTILISATION),
            source="paper (stated)", unit="",
            packets=Side(util, 0.0, method=method.format(n=n)) if util is not None else None,
            reference="RFC 8033, Section 3: high link utilisation (no number; >= 0.95 here)"))
    return rows
