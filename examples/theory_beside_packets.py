"""Theory beside packets, with a verdict: weighted fair queueing on a dumbbell.

The first thing qosmodels is for, in one screen: build a network, ask what the
theory predicts, run packets through the same network, and judge the two
against a reference.  Three greedy fixed-window sources (the fair-queueing
paper's "generic" flow control) with weights 1, 2 and 3 share a 10 Mb/s
bottleneck whose queue is fair queueing (Demers, Keshav, Shenker), with drops
not charged to the conversation (``FairQueueing(charge_drops=False)``).

* reference: the closed form of weighted max-min on one link, ``w_i / sum(w) * C``;
* theory: :func:`qosmodels.allocate` (``"maxmin"``, the weights from ``Flow.weight``);
* packets: :func:`qosmodels.simulate`, goodput over the last 40 of 60 s.

Each flow's row is a :class:`qosmodels.experiments.Check` (tolerance 1% for the
theory, 5% for the packets) and prints its verdict: ``reproduced`` when every
side is within tolerance, ``fails`` otherwise.

Run it with ``python examples/theory_beside_packets.py``.
"""

import dataclasses

from qosmodels import allocate, simulate
from qosmodels.experiments import Check, Side
from qosmodels.mechanisms import FairQueueing, GenericWindow
from qosmodels.topologies import dumbbell
from qosmodels.units import Mbps, to_Mbps

WEIGHTS = (1.0, 2.0, 3.0)
CAPACITY = Mbps(10)

net = dumbbell(3, capacity=CAPACITY, weights=list(WEIGHTS))
net = net.replace(
    links=[dataclasses.replace(link, queue=FairQueueing(charge_drops=False))
           if link.name == "r0->r1" else link for link in net.links],
    flows=[dataclasses.replace(f, source=GenericWindow(window=40)) for f in net.flows])

theory = allocate(net, "maxmin").rates
packets = simulate(net, 60.0, seed=1, warmup=20.0).throughput

print(f"{'flow':>5} {'weight':>6} {'closed form':>12} {'theory':>8} {'packets':>8}  verdict")
for i, w in enumerate(WEIGHTS):
    expected = w / sum(WEIGHTS) * CAPACITY
    row = Check("example", f"flow {i} goodput", to_Mbps(expected), source="closed form",
                unit="Mb/s",
                theory=Side(to_Mbps(theory[i]), 0.01, method="allocate(net, 'maxmin')"),
                packets=Side(to_Mbps(packets[i]), 0.05, method="simulate, 20-60 s"))
    print(f"{net.flow_names[i]:>5} {w:6g} {row.expected:12.3f} {row.theory.value:8.3f} "
          f"{row.packets.value:8.3f}  {row.verdict}")
