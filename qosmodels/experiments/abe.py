"""Asymmetric Best-Effort: the theory side of eqs (2)-(7).

Checks eq (5) (:func:`qosmodels.abe.alpha`) against a root find of its
defining equations (eqs (1), (2), (4), re-typed here), the SymPy proof that
the derived and printed forms agree, the paper's limits (Green gets 0.707 of
Blue's throughput at low load and half at high load for alpha = 2), and the
control loop of eqs (6)-(7): its fixed point against the Appendix A target
(from the same root find, not from the library's eq (5)), its stability
bound (Jury test) and a seeded run on a synthetic plant converging to beta* =
1.5 with the Section IV-B parameters.  Every row has only a theory side (the
library's analytic model, evaluated or iterated); the packet runs of the ABE
router are in :mod:`.abe_figures` (Figures 2, 3, 6-8), and the fluid side has no
ABE model.

References
----------
P. Hurley, J.-Y. Le Boudec, P. Thiran, "The Asymmetric Best-Effort Service",
Section III-C, Section IV-B and Appendix A.
"""

from __future__ import annotations

import math

from .. import abe
from .registry import Check, Side, register

PAPER = "Hurley, Le Boudec, Thiran, The Asymmetric Best-Effort Service"


def _x(q, tau):
    """Eq (2) as printed (re-typed here, independent of qosmodels.abe)."""
    return (-q + math.sqrt(2 * q + q * q)) / (tau * q)


def _brent_alpha(beta, q, B, tau):
    from scipy.optimize import brentq

    return brentq(lambda a: _x(q, tau + B) - beta * _x(a * q, tau), 1e-3, 1e4, xtol=1e-14,
                  rtol=1e-13)


@register("abe-eq5", title="ABE eq (5): alpha(beta*, q_b, B, tau) vs root find; SymPy proof",
          paper=PAPER + ", eqs (1)-(5)", sides=("theory",))
def eq5(*, sides, quick) -> list[Check]:
    checks = []
    law = abe.PAPER_LAW
    for B in (0.05, 0.1):  # D/2 for the paper's D = 0.1 and 0.2 s
        for q in (0.01, 0.05, 0.2):
            checks.append(Check(
                "abe-eq5", f"alpha, beta*=1.5, q_b={q:g}, B={B:g} s",
                _brent_alpha(law.beta_star, q, B, law.rtt), source="independent implementation",
                theory=Side(abe.alpha(law.beta_star, q, B, law.rtt), 1e-9,
                            method="qosmodels.abe.alpha (eq (5))"),
                reference="brentq on x(q_b, tau+B) = beta* x(alpha q_b, tau), eqs (1), (2), (4)"))
    d = abe.derive()
    checks.append(Check(
        "abe-eq5", "derived alpha - printed eq (5)", 0.0, source="paper (stated)",
        theory=Side(float(d.difference), 0.0,
                    method="sympy.solve of eqs (1), (2), (4), then simplify(difference)"),
        reference="paper eq (5), as printed"))
    return checks


@register("abe-limits", title="ABE: eq (3) constant and the beta* limits sqrt(alpha), alpha",
          paper=PAPER + ", eq (3) and Section III-C.1", sides=("theory",))
def limits(*, sides, quick) -> list[Check]:
    d = abe.derive()
    s = d.symbols
    at = {s["alpha"]: 2, s["B"]: 0}
    return [
        Check("abe-limits", "C in eq (3)", math.sqrt(2), source="paper (stated)",
              paper=math.sqrt(2),
              theory=Side(float(d.small_loss_constant), 1e-15,
                          method="sympy.limit(tau sqrt(q) x(q), q -> 0)"),
              reference="paper, eq (3): C = sqrt(2)"),
        Check("abe-limits", "Green/Blue throughput, alpha=2, low load", 0.707,
              source="paper (stated)", paper=0.707,
              theory=Side(float(1 / d.beta_small_loss.subs(at)), 1e-3,
                          method="1 / sympy.limit(x_b/x_g, q_b -> 0)"),
              reference="paper: 'approximately 0.707'"),
        Check("abe-limits", "Green/Blue throughput, alpha=2, high load", 0.5,
              source="paper (stated)", paper=0.5,
              theory=Side(float(1 / d.beta_large_loss.subs(at)), 1e-12,
                          method="1 / sympy.limit(x_b/x_g, q_b -> oo)"),
              reference="paper: 'approximately half'"),
        Check("abe-limits", "beta at q_b=1e-9, alpha=2, B=0", math.sqrt(2),
              source="paper (stated)",
              theory=Side(abe.throughput_ratio(2.0, 1e-9, 0.0, 0.14), 1e-4,
                          method="qosmodels.abe.throughput_ratio (eq (2))"),
              reference="paper: beta -> sqrt(alpha) as losses vanish"),
    ]


@register("abe-control-loop", title="ABE eqs (6)-(7): fixed point, stability, seeded run to beta*",
          paper=PAPER + ", Section III-C.2, IV-B, Appendix A", sides=("theory",))
def control_loop(*, sides, quick) -> list[Check]:
    law = abe.PAPER_LAW
    q, B = 0.02, 0.05
    # Appendix A's target q_g*/q_b = alpha(beta*, q_b, B, tau_e), by the root find
    target = _brent_alpha(law.beta_star, q, B, law.rtt)
    checks = []
    for k1, k2 in ((1.1, 1.1), (2.0, 1.1)):
        lw = abe.ControlLaw(k1=k1, k2=k2)
        state = abe.LoopState(1.0, 0.05, 0.05, 0.0)
        for _ in range(300):
            state = lw.closed_loop(state, q, B)
        c = lw.beta_star * (1 + B / lw.rtt)
        # fixed point of eq (7): (c^2 q_b/q_g)^K1 delta^-K2 = 1, so q_g/q_b = c^2 delta^(-K2/K1),
        # with delta = c^2 / alpha (Appendix A) from the root find
        dlt = c**2 / target
        method = "300 iterations of the noise-free map (ControlLaw.closed_loop)"
        if k1 == k2:
            checks.append(Check(
                "abe-control-loop", f"settled q_g/q_b, K1={k1:g}, K2={k2:g}", target,
                source="independent implementation",
                theory=Side(state.q_green / state.q_blue, 1e-9, method=method),
                reference="Appendix A target q_g*/q_b = alpha, by brentq on eqs (1), (2), (4)"))
        else:
            checks.append(Check(
                "abe-control-loop", f"settled q_g/q_b, K1={k1:g}, K2={k2:g}",
                c**2 * dlt ** (-k2 / k1), source="closed form",
                theory=Side(state.q_green / state.q_blue, 1e-9, method=method),
                reference="fixed point of eq (7), c^2 delta^(-K2/K1) with delta = c^2/alpha "
                          "(alpha by brentq): off the target when K1 != K2"))
        st = lw.stability(q, B)
        checks.append(Check(
            "abe-control-loop", f"spectral radius, K1={k1:g}", math.sqrt(lw.gamma1),
            source="closed form",
            theory=Side(st.spectral_radius, 1e-9,
                        method="numpy.linalg.eigvals of the Jacobian"),
            reference="complex pair with |lambda|^2 = det = gamma1"))
    # the K1 at which the spectral radius crosses 1, by bisection on the numeric eigenvalues
    lo, hi = 1.0, 10.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if abe.ControlLaw(k1=mid).stability(q, B).stable:
            lo = mid
        else:
            hi = mid
    checks.append(Check(
        "abe-control-loop", "stability bound on K1 (gamma1 = 0.3)",
        2 * (1 + law.gamma1) / (1 - law.gamma1), source="closed form",
        theory=Side(0.5 * (lo + hi), 1e-9, method="bisection on the numeric spectral radius"),
        reference="Jury test: K1 < 2(1 + gamma1)/(1 - gamma1)"))
    run = abe.run_loop(law, q_blue=q, boost=B, periods=400, packets=20000, seed=2026)
    method = ("run_loop: 400 periods, binomial losses on 20000 packets/period, seed 2026, "
              "mean of the last half")
    checks.append(Check(
        "abe-control-loop", "throughput ratio x_b/x_g, seeded run", law.beta_star,
        source="paper (stated)", paper=law.beta_star,
        theory=Side(run.tail_mean("beta"), 0.02, method=method),
        reference="paper: target beta* = 1.5 (Section IV-B)"))
    checks.append(Check(
        "abe-control-loop", "filtered q_g/q_b, seeded run", target,
        source="independent implementation",
        theory=Side(run.tail_mean("ratio"), 0.03, method="same run"),
        reference="Appendix A target q_g*/q_b = alpha, by brentq on eqs (1), (2), (4)"))
    return checks
