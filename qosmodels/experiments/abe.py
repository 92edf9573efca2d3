"""Asymmetric Best-Effort: the theory side of eqs (2)-(7).

Checks eq (5) against a root find of its defining equations, the SymPy proof
that the derived and printed forms agree, the paper's limits (Green gets
0.707 of Blue's throughput at low load and half at high load for alpha = 2),
and the control loop of eqs (6)-(7): its fixed point, its stability bound
and a seeded run on a synthetic plant converging to beta* = 1.5 with the
Section IV-B parameters.  The packet side joins when the simulator gains ABE.

References
----------
P. Hurley, J.-Y. Le Boudec, P. Thiran, "The Asymmetric Best-Effort Service",
Section III-C, Section IV-B and Appendix A.
../shared/papers/abe-asymmetric-best-effort.txt
"""

from __future__ import annotations

import math

import numpy as np

from .. import abe
from .registry import Check, register

PAPER = "Hurley, Le Boudec, Thiran, The Asymmetric Best-Effort Service"


def _x(q, tau):
    """Eq (2) as printed (re-typed here, independent of qosmodels.abe)."""
    return (-q + math.sqrt(2 * q + q * q)) / (tau * q)


def _brent_alpha(beta, q, B, tau):
    from scipy.optimize import brentq

    return brentq(lambda a: _x(q, tau + B) - beta * _x(a * q, tau), 1e-3, 1e4, xtol=1e-14,
                  rtol=1e-13)


@register("abe-eq5", title="ABE eq (5): alpha(beta*, q_b, B, tau) vs root find; SymPy proof",
          paper=PAPER + ", eqs (1)-(5)")
def eq5() -> list[Check]:
    checks = []
    law = abe.PAPER_LAW
    for B in (0.05, 0.1):  # D/2 for the paper's D = 0.1 and 0.2 s
        for q in (0.01, 0.05, 0.2):
            checks.append(Check(
                experiment="abe-eq5", quantity=f"alpha, beta*=1.5, q_b={q:g}, B={B:g} s",
                expected=_brent_alpha(law.beta_star, q, B, law.rtt),
                measured=abe.alpha(law.beta_star, q, B, law.rtt), tolerance=1e-9,
                reference="brentq on x(q_b, tau+B) = beta* x(alpha q_b, tau), eqs (1), (2), (4)",
                method="qosmodels.abe.alpha (eq (5))"))
    d = abe.derive()
    checks.append(Check(
        experiment="abe-eq5", quantity="derived alpha - printed eq (5)", expected=0.0,
        measured=float(d.difference), tolerance=0.0, reference="paper eq (5)",
        method="sympy.solve of eqs (1), (2), (4), then simplify(difference)"))
    return checks


@register("abe-limits", title="ABE: eq (3) constant and the beta* limits sqrt(alpha), alpha",
          paper=PAPER + ", eq (3) and Section III-C.1")
def limits() -> list[Check]:
    import sympy as sp

    d = abe.derive()
    s = d.symbols
    at = {s["alpha"]: 2, s["B"]: 0}
    return [
        Check(experiment="abe-limits", quantity="C in eq (3)", expected=math.sqrt(2),
              measured=float(d.small_loss_constant), tolerance=1e-15,
              reference="paper: C = sqrt(2)", method="sympy.limit(tau sqrt(q) x(q), q -> 0)"),
        Check(experiment="abe-limits", quantity="Green/Blue throughput, alpha=2, low load",
              expected=0.707, measured=float(1 / d.beta_small_loss.subs(at)), tolerance=1e-3,
              reference="paper: 'approximately 0.707'",
              method="1 / sympy.limit(x_b/x_g, q_b -> 0)"),
        Check(experiment="abe-limits", quantity="Green/Blue throughput, alpha=2, high load",
              expected=0.5, measured=float(1 / d.beta_large_loss.subs(at)), tolerance=1e-12,
              reference="paper: 'approximately half'",
              method="1 / sympy.limit(x_b/x_g, q_b -> oo)"),
        Check(experiment="abe-limits", quantity="beta at q_b=1e-9, alpha=2, B=0",
              expected=float(sp.sqrt(2)), measured=abe.throughput_ratio(2.0, 1e-9, 0.0, 0.14),
              tolerance=1e-4, reference="limit sqrt(alpha)",
              method="qosmodels.abe.throughput_ratio (eq (2))"),
    ]


@register("abe-control-loop", title="ABE eqs (6)-(7): fixed point, stability, seeded run to beta*",
          paper=PAPER + ", Section III-C.2, IV-B, Appendix A")
def control_loop() -> list[Check]:
    law = abe.PAPER_LAW
    q, B = 0.02, 0.05
    checks = []
    for k1, k2 in ((1.1, 1.1), (2.0, 1.1)):
        lw = abe.ControlLaw(k1=k1, k2=k2)
        state = abe.LoopState(1.0, 0.05, 0.05, 0.0)
        for _ in range(300):
            state = lw.closed_loop(state, q, B)
        c = lw.beta_star * (1 + B / lw.rtt)
        dlt = abe.delta(lw.beta_star, q, B, lw.rtt)
        checks.append(Check(
            experiment="abe-control-loop", quantity=f"settled q_g/q_b, K1={k1:g}, K2={k2:g}",
            expected=c**2 * dlt ** (-k2 / k1), measured=state.q_green / state.q_blue,
            tolerance=1e-9,
            reference=("Appendix A target c^2/delta" if k1 == k2 else
                       "fixed point c^2 delta^(-K2/K1), off the target when K1 != K2"),
            method="300 iterations of the noise-free map"))
        st = lw.stability(q, B)
        checks.append(Check(
            experiment="abe-control-loop", quantity=f"spectral radius, K1={k1:g}",
            expected=math.sqrt(lw.gamma1), measured=st.spectral_radius, tolerance=1e-9,
            reference="complex pair with |lambda|^2 = det = gamma1",
            method="numpy.linalg.eigvals of the Jacobian"))
    # the K1 at which the spectral radius crosses 1, by bisection on the numeric eigenvalues
    lo, hi = 1.0, 10.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if abe.ControlLaw(k1=mid).stability(q, B).stable:
            lo = mid
        else:
            hi = mid
    checks.append(Check(
        experiment="abe-control-loop", quantity="stability bound on K1 (gamma1 = 0.3)",
        expected=2 * (1 + law.gamma1) / (1 - law.gamma1), measured=0.5 * (lo + hi),
        tolerance=1e-9, reference="Jury test: K1 < 2(1 + gamma1)/(1 - gamma1)",
        method="bisection on the numeric spectral radius"))
    run = abe.run_loop(law, q_blue=q, boost=B, periods=400, packets=20000, seed=2026)
    checks.append(Check(
        experiment="abe-control-loop", quantity="throughput ratio x_b/x_g, seeded run",
        expected=law.beta_star, measured=run.tail_mean("beta"), tolerance=0.02, unit="",
        reference="paper: target beta* = 1.5 (Section IV-B)",
        method="run_loop: 400 periods, binomial losses on 20000 packets/period, seed 2026, "
               "mean of the last half"))
    checks.append(Check(
        experiment="abe-control-loop", quantity="filtered q_g/q_b, seeded run",
        expected=float(np.asarray(run.target_ratio)[-1]), measured=run.tail_mean("ratio"),
        tolerance=0.03, reference="Appendix A q_g*/q_b", method="same run"))
    return checks
