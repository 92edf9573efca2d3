"""Textbook checks: queueing theory against packets, parking-lot allocations, Reno/RED fluid.

* ``md1``: Poisson packets of one size into one FIFO link.  With a buffer
  too large to fill, the mean wait is Pollaczek-Khinchine's ``rho S / (2 (1
  - rho))`` (M/D/1); with K packets at most in the system, the loss
  probability follows from the embedded Markov chain at departures and PASTA
  (M/D/1/K, :func:`md1k_loss`).  Packets: :func:`qosmodels.sim.replicate`.
* ``parking-lot-proportional``, ``parking-lot-maxmin``: on a chain of N
  links of capacity c with m long flows crossing all of them and one short
  flow per link, proportional fairness gives ``c / (m + N)`` and ``c N / (m +
  N)`` (the KKT conditions ``x_long = 1 / (N p)``, ``x_short = 1 / p``,
  ``m x_long + x_short = c``), max-min fairness ``c / (m + 1)`` to every
  flow.  Theory: :func:`qosmodels.allocation.allocate`.
* ``fluid-reno-red``: the Reno/RED fluid model of Misra, Gong and Towsley on a
  dumbbell settles where the square-root law ``x = (P / rtt) sqrt(2 / p)``
  with RED's ``p(q)`` fills the link; ``expected`` solves that equation here
  with :func:`scipy.optimize.brentq` (independent of
  :func:`qosmodels.fluid.reno_equilibrium`, the theory side).

Packet tolerances are about four standard errors of the mean at the chosen
sample sizes (standard errors measured over the seeds when the sizes were
chosen: M/D/1 mean wait at rho = 0.9 about 0.3 % with 10 seeds of 4e6 packets,
0.6 % with 4 seeds of 2e6; M/D/1/K loss about 0.4 % and 0.9 %).

References
----------
D. Gross, C. M. Harris, *Fundamentals of Queueing Theory*, 3rd ed., Wiley,
1998, Sections 5.1.1 (Pollaczek-Khinchine) and 5.1.5 (M/G/1/K).
F. Kelly, "Charging and rate control for elastic traffic", European
Transactions on Telecommunications 8 (1997) (the parking-lot example).
D. Bertsekas, R. Gallager, *Data Networks*, 2nd ed., Prentice Hall, 1992,
Section 6.5.2 (max-min fairness).
V. Misra, W. Gong, D. Towsley, "Fluid-based analysis of a network of AQM
routers supporting TCP flows with an application to RED", SIGCOMM 2000;
M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic behavior of the TCP
congestion avoidance algorithm", CCR 27(3), 1997.
"""

from __future__ import annotations

import math

import numpy as np

from ..allocation import allocate
from ..topologies import parking_lot
from ..units import Mbps
from ._networks import md1_link, md1_params, packets_side
from .registry import Check, Side, register

#: Root seed of the packet sides.
SEED = 2026


def md1k_loss(rho: float, K: int) -> float:
    """Loss probability of M/D/1/K (at most K packets in the system), exact.

    Parameters
    ----------
    rho : float
        Offered load, > 0.
    K : int
        System size (waiting room plus the server), >= 2.

    Returns
    -------
    float
        The fraction of arriving packets lost, ``1 - 1 / (pi_0 + rho)`` with
        ``pi`` the stationary law of the queue left behind by departures.

    References
    ----------
    Gross and Harris, *Fundamentals of Queueing Theory*, Section 5.1.5.
    """
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


#: The "infinite" buffer of the M/D/1 rows, packets (see :func:`md1`).
MD1_BUFFER = 10**4


@register("md1", title="Packets vs Pollaczek-Khinchine (M/D/1 mean wait) and M/D/1/K loss",
          paper="queueing theory (Gross and Harris 5.1.1, 5.1.5)", sides=("packets",))
def md1(*, sides, quick) -> list[Check]:
    from ..sim import Record, replicate

    quiet = Record(interval=1e4, cwnd=False)
    seeds = 4 if quick else 10
    tol = 0.05 if quick else 0.02
    checks = []
    # (rho, packets per seed): quick / full
    for rho, packets in ((0.5, 500_000 if quick else 1_000_000),
                         (0.9, 2_000_000 if quick else 4_000_000)):
        # M/D/1's buffer is infinite: 10**4 packets is never reached here (the mean queue is
        # 4 packets at rho = 0.9; the rows' drop counts are 0), so the runs are those of an
        # infinite buffer, event for event, without a packet pool sized for 10**7 packets
        # (3 GB, the test command's peak before)
        net = md1_link(rho, MD1_BUFFER)
        r, S, _ = md1_params(net)
        rep = replicate(net, seeds, packets * S / r, seed=SEED, warmup=1000 * S, record=quiet)
        if any(run.link_drops["overflow"].sum() for run in rep.runs):  # reached: not M/D/1
            raise RuntimeError(f"md1: the {MD1_BUFFER}-packet buffer overflowed at rho={rho}; "
                               f"raise MD1_BUFFER")
        checks.append(Check(
            "md1", f"M/D/1 mean wait, rho={rho}", r * S / (2 * (1 - r)) * 1e3,
            source="closed form", unit="ms",
            packets=packets_side(rep, "mean_queueing_delay", 0, tol,
                                 f"simulate: {packets:.0e} Poisson packets per seed, 1 Mb/s, "
                                 f"1000 B", scale=1e3),
            reference="Pollaczek-Khinchine rho S / (2 (1 - rho))"))
    for rho, buffer in ((0.8, 4), (1.2, 9)):
        packets = 500_000 if quick else 1_000_000
        net = md1_link(rho, buffer)
        r, S, K = md1_params(net)
        rep = replicate(net, seeds, packets * S / r, seed=SEED, warmup=100 * S, record=quiet)
        checks.append(Check(
            "md1", f"M/D/1/K loss, rho={rho}, K={K}", md1k_loss(r, K), source="closed form",
            packets=packets_side(rep, "drop_rate", 0, tol,
                                 f"simulate: {packets:.0e} packets per seed"),
            reference="embedded Markov chain at departures + PASTA (exact)"))
    return checks


_CASES = ((1, 2), (1, 5), (2, 3), (3, 9))  # (long flows m, links N)
_C = Mbps(10)
_TOL = 1e-6


@register("parking-lot-proportional",
          title="Parking lot, proportional fairness: c/(m+N) long, cN/(m+N) short",
          paper="Kelly 1997 (closed form)", sides=("theory",))
def proportional(*, sides, quick) -> list[Check]:
    checks = []
    for m, n in _CASES:
        a = allocate(parking_lot(n, _C, n_long=m), "proportional")
        for label, rate, expected in (("long", a.rates[0], _C / (m + n)),
                                      ("short", a.rates[m], _C * n / (m + n))):
            checks.append(Check(
                "parking-lot-proportional", f"{label}-flow rate, m={m}, N={n}", expected / 1e6,
                source="closed form", unit="Mb/s",
                theory=Side(rate / 1e6, _TOL, method="allocate(proportional)"),
                reference="KKT of proportional fairness: c/(m+N), cN/(m+N)"))
    return checks


@register("parking-lot-maxmin", title="Parking lot, max-min fairness: c/(m+1) for every flow",
          paper="Bertsekas-Gallager (closed form)", sides=("theory",))
def maxmin(*, sides, quick) -> list[Check]:
    checks = []
    for m, n in _CASES:
        a = allocate(parking_lot(n, _C, n_long=m), "maxmin")
        for label, rate in (("long", a.rates[0]), ("short", a.rates[m])):
            checks.append(Check(
                "parking-lot-maxmin", f"{label}-flow rate, m={m}, N={n}", _C / (m + 1) / 1e6,
                source="closed form", unit="Mb/s",
                theory=Side(rate / 1e6, _TOL, method="allocate(maxmin)"),
                reference="every link shared by m+1 flows with the same bottleneck: c/(m+1)"))
    return checks


@register("fluid-reno-red",
          title="Reno/RED fluid model (Misra-Gong-Towsley): equilibrium on the square-root law",
          paper="Misra, Gong, Towsley, SIGCOMM 2000; Mathis et al. 1997",
          sides=("theory", "fluid"))
def reno_red(*, sides, quick) -> list[Check]:
    from scipy.optimize import brentq

    from ..fluid import DEFAULT_RED, reno_equilibrium, solve_fluid
    from ..topologies import dumbbell
    from ..units import ms

    pkt = 8000.0
    red = DEFAULT_RED
    t_end = 100.0
    checks = []
    for n in (5, 10, 15):
        net = dumbbell(n, Mbps(10), ms(20), access_delay=ms(1))
        c, rttp = float(net.capacities[0]), float(net.rtt[0])

        def excess(q, n=n, c=c, rttp=rttp):
            p = red.max_p * (q - red.min_th) / (red.max_th - red.min_th)
            return n * pkt / (rttp + q * pkt / c) * math.sqrt(2.0 / p) - c

        q_star = brentq(excess, red.min_th + 1e-9, red.max_th)
        th = reno_equilibrium(net, red_links=["r0->r1"], red=red) if "theory" in sides else None
        fl = (solve_fluid(net, t_end, control="Reno", red_links=["r0->r1"], red=red)
              if "fluid" in sides else None)
        fmethod = f"solve_fluid(control='Reno'), mean over {t_end - 20:g}-{t_end:g} s"
        checks.append(Check(
            "fluid-reno-red", f"RED queue, {n} flows", q_star, source="independent implementation",
            unit="packets",
            theory=None if th is None else Side(th.queues[0] / pkt, 1e-6,
                                                method="fluid.reno_equilibrium"),
            fluid=None if fl is None else Side(fl.mean("queues", t_end - 20, t_end)[0] / pkt,
                                               1e-3, method=fmethod),
            reference="brentq on n (P/rtt) sqrt(2/p(q)) = c, RED's linear p(q), rtt = rtt_p + q/c"))
        checks.append(Check(
            "fluid-reno-red", f"per-flow rate, {n} flows", c / n / 1e6, source="closed form",
            unit="Mb/s",
            theory=None if th is None else Side(th.rates[0] / 1e6, 1e-6,
                                                method="fluid.reno_equilibrium"),
            fluid=None if fl is None else Side(fl.mean("rates", t_end - 20, t_end)[0] / 1e6,
                                               1e-3, method=fmethod),
            reference="c / n: n equal flows fill the RED link"))
    return checks
