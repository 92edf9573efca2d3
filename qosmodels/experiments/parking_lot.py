"""Parking-lot closed forms for proportional and max-min fairness.

On a chain of N links of capacity c with m long flows crossing every link and
one short flow per link (unit weights):

* proportional fairness: the KKT conditions ``x_long = 1 / (N p)``,
  ``x_short = 1 / p`` and ``m x_long + x_short = c`` give
  ``x_long = c / (m + N)`` and ``x_short = c N / (m + N)``;
* max-min fairness: every link is shared by m + 1 flows that all see the same
  bottleneck, so every flow gets ``c / (m + 1)``.

References
----------
F. Kelly, "Charging and rate control for elastic traffic", European
Transactions on Telecommunications 8, 1997 (the parking-lot example).
"""

from __future__ import annotations

from ..allocation import allocate
from ..topologies import parking_lot
from ..units import Mbps
from .registry import Check, register

_CASES = ((1, 2), (1, 5), (2, 3), (3, 9))  # (long flows m, links N)
_C = Mbps(10)
_TOL = 1e-6


@register("parking-lot-proportional",
          title="Parking lot, proportional fairness: c/(m+N) long, cN/(m+N) short",
          paper="Kelly 1997 (closed form)")
def proportional() -> list[Check]:
    checks = []
    for m, n in _CASES:
        a = allocate(parking_lot(n, _C, n_long=m), "proportional")
        for label, rate, expected in (
            ("long", a.rates[0], _C / (m + n)),
            ("short", a.rates[m], _C * n / (m + n)),
        ):
            checks.append(Check(
                experiment="parking-lot-proportional",
                quantity=f"{label}-flow rate, m={m}, N={n}",
                expected=expected / 1e6, measured=rate / 1e6, tolerance=_TOL, unit="Mb/s",
                reference="closed form c/(m+N), cN/(m+N)", method="allocate(proportional)",
            ))
    return checks


@register("parking-lot-maxmin",
          title="Parking lot, max-min fairness: c/(m+1) for every flow",
          paper="Bertsekas-Gallager (closed form)")
def maxmin() -> list[Check]:
    checks = []
    for m, n in _CASES:
        a = allocate(parking_lot(n, _C, n_long=m), "maxmin")
        for label, rate in (("long", a.rates[0]), ("short", a.rates[m])):
            checks.append(Check(
                experiment="parking-lot-maxmin",
                quantity=f"{label}-flow rate, m={m}, N={n}",
                expected=_C / (m + 1) / 1e6, measured=rate / 1e6, tolerance=_TOL, unit="Mb/s",
                reference="closed form c/(m+1)", method="allocate(maxmin)",
            ))
    return checks
