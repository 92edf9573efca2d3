"""PPS: the expected rates of Tables 1-5 and the fair shares behind Tables 7-9.

``pps-table1`` ... ``pps-table5`` and ``pps-table7`` ... ``pps-table9`` (one
experiment per table) compute the PPS fair rates of the paper's topologies
with :func:`qosmodels.pps.fair_rates` (ticket ledger, exchange rates,
weighted max-min with per-link weights; the theory side) and compare them
with the paper:

* Tables 1-5 print an "Expected Rate" column (Mb/s, two decimals): Figure 6
  with all flows greedy (Table 1) and with B a 0.16 Mb/s constant-rate source
  (Table 2); Figure 9 in its three capacity settings (Tables 3-5).
* Tables 7-9 compare PPS with DiffServ on Figure 13: three greedy flows over
  one 1.2 Mb/s link, tickets "at the same ratio (3:2:1) as the service
  profiles" (600, 400 and 200 t/s here), and "our algorithm allocates bandwidth
  in proportion to the service profiles of the three flows, independent of the
  available capacity" (Section 3.8).  The tables print no expected PPS column;
  the expected values are that proportional split, 0.60, 0.40 and 0.20 Mb/s
  (Table 7's service-profile column, whose profiles match the capacity).  The
  same fair share is the reference for all three tables, since PPS tickets do
  not depend on the DiffServ profiles.

The tolerance is half a unit in the last printed digit (0.005 Mb/s), as a
relative tolerance: the paper's values are the exact fair shares rounded to
two decimals.  The paper column shows the rates the paper *measured* in its
ns simulations (Tables 1-5 "Measured Rate", Tables 7-9 "Measured PPS"); they
are not checked here (they are what a packet side will be compared with) and
differ from the expected rates by up to 0.09 Mb/s (Table 3, flow A: 1.24
against 1.33).

References
----------
Zhang, Wang, Peterson, Krishnamurthy, "Probabilistic Packet Scheduling",
Princeton TR-632-01, 2001, Sections 3.2, 3.5, 3.6 and 3.8; Tables 1-5, 7-9.
"""

from __future__ import annotations

import dataclasses

from ..pps import FIG6_TICKETS, FIG9_TICKETS, fair_rates
from ..topologies import pps_multi_hop, pps_multiple_bottleneck, pps_one_hop
from ..units import Mbps, kbps
from .registry import Check, Side, register

#: Half a unit in the last digit the paper prints (Mb/s).
HALF_DIGIT = 0.005

#: The paper's "Expected Rate" columns (Mb/s) for flows A, B, C.
EXPECTED = {
    "Table 1": (0.50, 0.25, 0.25),
    "Table 2": (0.56, 0.16, 0.28),
    "Table 3": (1.33, 0.67, 1.00),
    "Table 4": (0.67, 1.33, 0.33),
    "Table 5": (0.67, 1.00, 0.33),
}
#: The paper's "Measured Rate" (Tables 1-5) and "Measured PPS" (Tables 7-9) columns (Mb/s).
MEASURED = {
    "Table 1": (0.48, 0.25, 0.25),
    "Table 2": (0.53, 0.16, 0.29),
    "Table 3": (1.24, 0.70, 0.98),
    "Table 4": (0.63, 1.28, 0.35),
    "Table 5": (0.64, 0.98, 0.34),
    "Table 7": (0.58, 0.40, 0.21),
    "Table 8": (0.58, 0.40, 0.21),
    "Table 9": (0.58, 0.40, 0.21),
}
#: PPS fair shares of Figure 13's flows A, B, C (Mb/s): 1.2 Mb/s split 3:2:1 (Section 3.8).
FIG13_SHARES = (0.60, 0.40, 0.20)
#: Tickets/s for Figure 13's flows: the text gives only the ratio 3:2:1.
FIG13_TICKETS = (600.0, 400.0, 200.0)


def figure13():
    """Figure 13 as a network and its tickets: flows A, B, C through one 1.2 Mb/s link."""
    net = pps_one_hop(tickets=FIG13_TICKETS, capacity=Mbps(1.2))
    net = net.replace(flows=[dataclasses.replace(f, name=n) for f, n in zip(net.flows, "ABC")])
    tickets = {(f"s{k}", "r0"): t for k, t in enumerate(FIG13_TICKETS, start=1)}
    return net, tickets


def _cases():
    yield ("Table 1", "Figure 6, all flows greedy", lambda: (pps_multi_hop(), FIG6_TICKETS, None))
    yield ("Table 2", "Figure 6, B at 0.16 Mb/s",
           lambda: (pps_multi_hop(), FIG6_TICKETS, {"B": kbps(160)}))
    for k in (1, 2, 3):
        yield (f"Table {k + 2}", f"Figure 9, scenario {k}",
               lambda k=k: (pps_multiple_bottleneck(k), FIG9_TICKETS, None))


def _table(table, what, build, reference, expected):
    """Register one table as experiment ``pps-tableN``."""
    name = "pps-table" + table.split()[1]

    @register(name, title=f"PPS {table}: {what}, rates from the ticket ledger",
              paper=f"Zhang et al., Probabilistic Packet Scheduling, {table}", sides=("theory",))
    def run(*, sides, quick) -> list[Check]:
        net, tickets, demand = build()
        r = fair_rates(net, tickets, demand)
        return [Check(
            name, f"flow {flow} rate", value, source="paper (stated)", unit="Mb/s",
            paper=measured,
            theory=Side(r.rate(flow) / 1e6, HALF_DIGIT / value,
                        method="pps.fair_rates (exchange rates + per-link weighted max-min)"),
            reference=f"{reference}; the paper measured {measured:.2f}")
            for flow, value, measured in zip("ABC", expected, MEASURED[table])]

    run.__name__ = run.__qualname__ = name.replace("-", "_")
    run.__doc__ = f"{table} ({what}): PPS fair rates of flows A, B, C, Mb/s."
    return run


for _table_name, _what, _build in _cases():
    _table(_table_name, _what, _build, f"paper, {_table_name}, Expected Rate",
           EXPECTED[_table_name])

_PROFILES = {"Table 7": "profile matches capacity", "Table 8": "profile less than capacity",
             "Table 9": "profile greater than capacity"}
for _table_name, _what in _PROFILES.items():
    _table(_table_name, f"Figure 13, {_what}, tickets 3:2:1",
           lambda: (*figure13(), None),
           "paper, Section 3.8: PPS shares 1.2 Mb/s in proportion to the profiles, 3:2:1",
           FIG13_SHARES)
