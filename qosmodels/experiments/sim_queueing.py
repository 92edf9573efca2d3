"""Packet simulator against queueing theory: M/D/1, M/D/1/K and the FQ paper's Figure 1 FCFS curve.

* M/D/1 (Poisson packets of one size into one FIFO link with a buffer too
  large to fill): mean wait ``rho S / (2 (1 - rho))`` (Pollaczek-Khinchine).
* M/D/1/K (a buffer of K - 1 waiting packets plus the one in transmission):
  loss probability from the departure-epoch Markov chain and PASTA
  (Gross and Harris, *Fundamentals of Queueing Theory*, Section 5.1.5).
* Figure 1 of Demers, Keshav and Shenker (SIGCOMM 1989): three FTPs of window
  5 and a Poisson Telnet through one FCFS gateway with infinitely fast links;
  the Telnet's mean queueing delay against the closed form of
  :func:`qosmodels.fq.fcfs_telnet_delay`.
"""

from __future__ import annotations

import numpy as np

from ..network import Flow, Link, Network
from .registry import Check, register

C = 1e6            # bit/s
SIZE = 1000        # bytes
S = 8 * SIZE / C   # transmission time, s


def md1k_loss(rho: float, K: int) -> float:
    """Loss probability of M/D/1/K (K packets in the system at most), exact."""
    from scipy import stats

    a = stats.poisson.pmf(np.arange(K + 1), rho)
    P = np.zeros((K, K))
    for i in range(K):
        base = max(i - 1, 0)
        for j in range(base, K - 1):
            P[i, j] = a[j - base]
        P[i, K - 1] = 1.0 - P[i, :K - 1].sum()
    w, v = np.linalg.eig(P.T)
    pi = np.real(v[:, np.argmin(abs(w - 1))])
    pi /= pi.sum()
    return float(1.0 - 1.0 / (pi[0] + rho))


def _one_link(rho, buffer):
    from ..sim import Poisson

    return Network([Link("a", "b", C, 0.0, buffer=buffer)],
                   [Flow(["a", "b"], source=Poisson(rate=rho * C, packet_size=SIZE))])


@register("sim-md1", title="Packets vs Pollaczek-Khinchine (M/D/1) and M/D/1/K loss",
          paper="queueing theory")
def md1() -> list[Check]:
    from ..sim import Record, simulate

    quiet = Record(interval=1e4, cwnd=False)
    checks = []
    for rho, packets in ((0.5, 2_000_000), (0.9, 8_000_000)):
        res = simulate(_one_link(rho, 10**7), packets * S / rho, seed=2026, warmup=1000 * S,
                       record=quiet)
        checks.append(Check(
            experiment="sim-md1", quantity=f"M/D/1 mean wait, rho={rho}",
            expected=rho * S / (2 * (1 - rho)) * 1e3, measured=res.mean_queueing_delay[0] * 1e3,
            tolerance=0.02, unit="ms", reference="Pollaczek-Khinchine rho S / (2(1 - rho))",
            method=f"simulate, {packets:.0e} Poisson packets, 1 Mb/s, 1000 B"))
    for rho, buffer in ((0.8, 4), (1.2, 9)):
        res = simulate(_one_link(rho, buffer), 1_000_000 * S / rho, seed=2026,
                       warmup=100 * S, record=quiet)
        checks.append(Check(
            experiment="sim-md1", quantity=f"M/D/1/K loss, rho={rho}, K={buffer + 1}",
            expected=md1k_loss(rho, buffer + 1), measured=float(res.drop_rate[0]),
            tolerance=0.03, unit="", reference="embedded Markov chain + PASTA",
            method="simulate, 1e6 packets"))
    return checks


@register("sim-fq-fig1-fcfs", title="FQ paper Fig. 1, FCFS: Telnet delay, packets vs closed form",
          paper="Demers, Keshav, Shenker, Analysis and simulation of a fair queueing algorithm, Fig. 1")
def fig1_fcfs() -> list[Check]:
    from ..fq import fcfs_telnet_delay
    from ..sim import GenericWindow, Poisson, Record, simulate

    N, W = 3, 5
    fast = 1e13  # "infinitely fast" access links
    links = [Link(f"s{i}", "g", fast, 0.0, buffer=1000) for i in range(N + 1)]
    links.append(Link("g", "d", C, 0.0, buffer=1000))
    checks = []
    for rho in (0.3, 1.0, 2.0, 3.0):
        lam = rho / (S * (N + 1))  # rho = lambda P (N + 1), the paper's normalisation
        flows = [Flow([f"s{i}", "g", "d"], source=GenericWindow(window=W, packet_size=SIZE))
                 for i in range(N)]
        flows.append(Flow([f"s{N}", "g", "d"],
                          source=Poisson(rate=lam * 8 * SIZE, packet_size=SIZE)))
        res = simulate(Network(links, flows), 300_000 * S, seed=2026, warmup=100 * S,
                       record=Record(interval=1e4, cwnd=False))
        checks.append(Check(
            experiment="sim-fq-fig1-fcfs", quantity=f"Telnet mean delay / P, rho={rho}",
            expected=float(fcfs_telnet_delay(N, W, rho)),
            measured=float(res.mean_queueing_delay[N] / S), tolerance=0.03, unit="P",
            reference="qosmodels.fq.fcfs_telnet_delay (closed form)",
            method="simulate: 3 GenericWindow(5) + Poisson Telnet, FCFS gateway"))
    return checks
