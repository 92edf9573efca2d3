"""Ticket-weighted sharing on the PPS paper's one-hop network (Figure 4).

Nine flows with 100, 200, ..., 900 tickets/s share a 1.5 Mb/s bottleneck.
With the tickets as flow weights, weighted max-min fairness gives flow k the
share 1.5 Mb/s * k / 45: bandwidth in proportion to tickets, the allocation
probabilistic packet scheduling aims for.  Weighted proportional fairness
gives the same rates here, because every flow crosses the same single
bottleneck.  The script prints both next to the closed form, and Jain's index
of the rates normalised by the tickets (1 means every flow gets the same rate
per ticket).

Run it with ``python examples/pps_ticket_shares.py``.
"""

import numpy as np

from qosmodels import allocate, jain_index
from qosmodels.topologies import pps_one_hop
from qosmodels.units import to_kbps

net = pps_one_hop()
capacity = float(net.capacities[net.link_id("r0->r1")])
tickets = np.asarray(net.weights)
expected = capacity * tickets / tickets.sum()

maxmin = allocate(net, fairness="maxmin")
prop = allocate(net, fairness="proportional")
np.testing.assert_allclose(maxmin.rates, expected, rtol=1e-9)
np.testing.assert_allclose(prop.rates, expected, rtol=1e-6)

print(f"PPS Figure 4: {net.n_flows} flows over {to_kbps(capacity):g} kb/s, rates in kb/s")
print(f"{'flow':>6} {'tickets/s':>10} {'max-min':>9} {'proportional':>13} {'C k / 45':>9}")
for name, t, xm, xp, xe in zip(net.flow_names, tickets, maxmin.rates, prop.rates, expected):
    print(f"{name:>6} {t:10.0f} {to_kbps(xm):9.2f} {to_kbps(xp):13.2f} {to_kbps(xe):9.2f}")
print(f"\nJain's index of rate per ticket: {jain_index(maxmin.rates / tickets):.6f}")
