"""Accumulation-based congestion control (ACC): the Figure 9 table.

N = 2..9 bottlenecks of 100 Mb/s in a line, three long flows crossing all of
them and one short flow per link.  ACC's equilibrium is weighted proportional
fairness with weights the accumulation targets (paper's appendix); with equal
targets the long flows get ``100 / (3 + N)`` Mb/s and the short flows
``100 N / (3 + N)`` Mb/s, the values the paper plots in Figure 9(b).

References
----------
Y. Xia, D. Harrison, S. Kalyanaraman, K. Ramachandran, A. Venkatesan,
"Accumulation-based congestion control", IEEE/ACM Trans. Networking 13(1),
2005, Section V-A, Figure 9.  ../shared/papers/acc-monaco-accumulation-based-congestion-control.txt
"""

from __future__ import annotations

import dataclasses

from ..allocation import allocate
from ..topologies import acc_linear
from .registry import Check, register

#: ACC's accumulation target (Table I): 3000 bytes, in bits.
TARGET_BITS = 3000 * 8


@register("acc-fig9",
          title="ACC Fig. 9: N bottlenecks of 100 Mb/s, long flows 100/(3+N), short 100N/(3+N)",
          paper="Xia et al., Accumulation-based congestion control, Fig. 9")
def fig9() -> list[Check]:
    checks = []
    for n in range(2, 10):
        net = acc_linear(n)
        # weights = accumulation targets (equal for all flows), as in the paper's equilibrium
        net = net.replace(flows=[dataclasses.replace(f, weight=TARGET_BITS) for f in net.flows])
        a = allocate(net, "proportional")
        for label, rate, expected in (("long", a.rates[0], 100 / (3 + n)),
                                      ("short", a.rates[3], 100 * n / (3 + n))):
            checks.append(Check(
                experiment="acc-fig9", quantity=f"{label}-flow rate, N={n}",
                expected=expected, measured=rate / 1e6, tolerance=1e-6, unit="Mb/s",
                reference="paper: 100/(3+N), 100N/(3+N) Mb/s",
                method="allocate(proportional, weights=a*)",
            ))
    return checks

