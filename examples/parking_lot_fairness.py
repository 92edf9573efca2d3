"""Fairness criteria on a parking lot: who gets what, and the closed forms.

A chain of N = 3 links of 10 Mb/s: one long flow crosses every link, and one
short flow uses each link.  This script prints the rate of every flow under
proportional fairness, alpha-fairness (alpha = 2) and max-min fairness, then
checks them against the closed forms

* proportional: long c / (N + 1), short c N / (N + 1);
* alpha-fair:   long c / (1 + N^(1/alpha)), short c - long;
* max-min:      every flow c / 2;

and finishes with Jain's index and the total throughput of each allocation.

Run it with ``python examples/parking_lot_fairness.py``.
"""

import numpy as np
import pandas as pd

from qosmodels import allocate, jain_index
from qosmodels.topologies import parking_lot
from qosmodels.units import to_Mbps

net = parking_lot(n_links=3)
N = net.n_links
c = float(net.capacities[0])

allocations = {
    "proportional": allocate(net, fairness="proportional"),
    "alpha=2": allocate(net, fairness="alpha", alpha=2.0),
    "max-min": allocate(net, fairness="maxmin"),
}
closed_long = {
    "proportional": c / (N + 1),
    "alpha=2": c / (1 + N ** (1 / 2)),
    "max-min": c / 2,
}

table = pd.DataFrame(
    {name: to_Mbps(a.rates) for name, a in allocations.items()},
    index=pd.Index(net.flow_names, name="flow"),
)
print(f"Parking lot: {N} links of {to_Mbps(c):g} Mb/s, rates in Mb/s")
print(table.round(4).to_string())
print()

for name, a in allocations.items():
    long_rate = a.rate("long0")
    expected = closed_long[name]
    np.testing.assert_allclose(long_rate, expected, rtol=1e-6)
    np.testing.assert_allclose(a.rates[1:], c - expected, rtol=1e-6)
    print(f"{name:>12}: long flow {to_Mbps(long_rate):.4f} Mb/s = closed form "
          f"{to_Mbps(expected):.4f}; total {to_Mbps(a.rates.sum()):.2f} Mb/s, "
          f"Jain's index {jain_index(a.rates):.3f}")
