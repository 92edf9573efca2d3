"""Fair queueing, Figure 1: the Telnet delay curves (theory side).

Checks the limits the paper states (FQ: N P / 2 with delta = 0 and P / 2
with delta = P as rho -> 0; FCFS: (N W - 1/2) P), derived symbolically, and
the closed forms against Monte Carlo: the FQ curve by the exact
round-number computation of :func:`qosmodels.fq.fair_queue` on Poisson
traces, the FCFS curve by an explicit FIFO of the paper's model.  N = 3 FTPs,
windows W = 5, delays in units of the packet time P.  The packet
simulator's side joins when it gains FQ.

References
----------
A. Demers, S. Keshav, S. Shenker, "Analysis and simulation of a fair
queueing algorithm", Internetworking: Research and Experience 1 (1990),
section "Delay", Figure 1.  ../shared/papers/fair-queueing-demers-keshav-shenker.txt
"""

from __future__ import annotations

from .registry import Check, register

N, W = 3, 5
_REF = "Demers-Keshav-Shenker 1990, Delay section, Fig. 1"


@register("fq-fig1",
          title="FQ Fig. 1: Telnet delay vs throughput, N=3 FTPs, W=5 (FCFS, FQ delta=0, delta=P)",
          paper="Demers, Keshav, Shenker, Analysis and simulation of a fair queueing algorithm")
def fig1() -> list[Check]:
    import sympy as sp

    from ..fq import (
        fcfs_telnet_delay,
        simulate_telnet_fcfs,
        simulate_telnet_fq,
        telnet_delay,
        telnet_limits,
    )

    checks = []
    lim = telnet_limits()
    Ns, Ws = sp.Symbol("N", positive=True, integer=True), sp.Symbol("W", positive=True, integer=True)
    for key, expected, label in (
        ("fq_delta0_rho0", N / 2, "FQ delta=0, rho->0 (N P/2)"),
        ("fq_deltaP_rho0", 0.5, "FQ delta=P, rho->0 (P/2)"),
        ("fcfs_rho0", N * W - 0.5, "FCFS, rho->0 ((N W - 1/2) P)"),
    ):
        measured = float(lim[key].subs({Ns: N, Ws: W}))
        checks.append(Check("fq-fig1", label, expected, measured, 1e-12, "P",
                            f"{_REF} (stated limit)", "sympy.limit of the derived closed form"))
    checks.append(Check("fq-fig1", "FQ diverges as rho->1 (1 = yes)", 1.0,
                        float(lim["fq_rho1"] == sp.oo), 0.0, "", f"{_REF} (stated)",
                        "sympy.limit(rho -> 1-) == oo"))
    # closed forms against Monte Carlo (seeded; relative tolerance about 4 batch-means standard
    # errors at these sample sizes: measured 1.5 %, 2.5 %, 2.4 %, 0.24 %, 1.1 %)
    for rho, delta, seed, n, tol in ((0.3, 0.0, 1, 8000, 0.06), (0.6, 0.0, 2, 20000, 0.10),
                                     (0.6, 1.0, 3, 20000, 0.10)):
        mc = simulate_telnet_fq(N, rho, delta=delta, n_packets=n, seed=seed)
        checks.append(Check(
            "fq-fig1", f"FQ delta={delta:g}P delay, rho={rho}", telnet_delay(N, rho, delta=delta),
            mc.mean, tol, "P",
            "closed form D_N(P)/P (paper's formula, first term corrected to (N+1)rho/(2(1-rho)))",
            f"Monte Carlo: exact round numbers on a Poisson trace, {mc.n} Telnet packets, "
            f"stderr {mc.stderr:.3g}"))
    for rho, seed, n, tol in ((1.0, 4, 20000, 0.01), (3.0, 5, 60000, 0.045)):
        mc = simulate_telnet_fcfs(N, W, rho, n_packets=n, seed=seed)
        checks.append(Check(
            "fq-fig1", f"FCFS delay, rho={rho}", fcfs_telnet_delay(N, W, rho), mc.mean, tol, "P",
            "closed form ((N+1)(NW-1/2)+rho)/(N+1-rho) from the paper's model",
            f"Monte Carlo: FIFO with N W FTP packets always queued, {mc.n} Telnet packets, "
            f"stderr {mc.stderr:.3g}"))
    return checks
