"""ACC's equilibrium: with accumulation targets in bits as weights, link prices are queueing delays.

Accumulation-based congestion control keeps a target backlog a_i* (bits) of
every flow in the router queues.  The appendix of Xia et al., "Accumulation-
based congestion control" (IEEE/ACM Trans. Networking, 2005) shows that its
equilibrium is weighted proportional fairness with weights a_i*, and that the
Lagrange multipliers (link prices) are the links' queueing delays.

This script takes the paper's Figure 9 network (``acc_linear(N)``: N links of
100 Mb/s, three long flows, one short flow per link) with a* = 3000 bytes per
flow (Table I), allocates, and checks:

* the rates are the paper's 100/(3+N) and 100N/(3+N) Mb/s;
* each price is in seconds, the queueing delay at that link;
* Little's law per flow: x_i * (sum of delays on its route) = a_i*;
* Little's law in total: sum over links of queue p_l c_l = sum of a_i*.

Run it with ``python examples/acc_prices_as_delays.py``.
"""

import dataclasses

import numpy as np

from qosmodels import allocate
from qosmodels.topologies import acc_linear
from qosmodels.units import BITS_PER_BYTE, KB, to_Mbps, to_ms

A_STAR = KB(3) * BITS_PER_BYTE  # 24 000 bits per flow, ACC Table I

print(f"a* = {A_STAR:.0f} bits per flow\n")
print(" N  long (Mb/s)  short (Mb/s)  delay/link (ms)  sum of queues (bits)  sum of a* (bits)")
for n in range(2, 10):
    net = acc_linear(n)
    net = net.replace(flows=[dataclasses.replace(f, weight=A_STAR) for f in net.flows])
    a = allocate(net, fairness="proportional")

    is_long = np.array([name.startswith("long") for name in net.flow_names])
    cap = float(net.capacities[0])
    np.testing.assert_allclose(a.rates[is_long], cap / (3 + n), rtol=1e-6)
    np.testing.assert_allclose(a.rates[~is_long], cap * n / (3 + n), rtol=1e-6)

    delay = net.routing_matrix.T @ a.prices        # queueing delay on each flow's route, s
    np.testing.assert_allclose(a.rates * delay, A_STAR, rtol=1e-5)   # Little's law per flow
    queues = a.prices * net.capacities             # standing queue at each link, bits
    np.testing.assert_allclose(queues.sum(), A_STAR * net.n_flows, rtol=1e-5)

    print(f"{n:2d}  {to_Mbps(a.rates[is_long][0]):11.3f}  {to_Mbps(a.rates[~is_long][0]):12.3f}"
          f"  {to_ms(a.prices[0]):15.4f}  {queues.sum():20.1f}  {A_STAR * net.n_flows:16.0f}")

print("\nEvery check passed: prices are queueing delays, and the queues hold the accumulation.")
