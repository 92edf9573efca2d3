r"""The allocation problem in flat, scaled arrays, shared by every solver.

A network is lowered once to a :class:`Problem`: the routing matrix with one
extra row per rate-capped flow (a flow's ``max_rate`` acts as a private link
of that capacity), capacities and weights divided by their largest value so
that the solvers work on numbers near one, and the alpha-fair utility with
its derivatives.  Prices are mapped back to the network's units by
:meth:`Problem.unscale_prices`.

The weighted alpha-fair utility is

.. math:: U_i(x) = w_i^\alpha \frac{x^{1-\alpha}}{1 - \alpha}
          \quad (\alpha \ne 1), \qquad U_i(x) = w_i \log x \quad (\alpha = 1),

so that at the optimum ``x_i = w_i q_i^{-1/alpha}`` with ``q_i`` the sum of the
prices on flow i's route: rates scale with weights, alpha = 1 is Kelly's
weighted proportional fairness (``x_i = w_i / q_i``), and as alpha grows the
allocation tends to weighted max-min fairness (``x_i / w_i`` equalised).  The
solvers only ever need differences of utilities, which :func:`utility_diff`
computes without cancellation for every alpha (including near 1, where the
two forms meet).

References
----------
J. Mo and J. Walrand, "Fair end-to-end window-based congestion control",
IEEE/ACM Trans. Networking 8(5), 2000.
F. Kelly, A. Maulloo, D. Tan, "Rate control for communication networks:
shadow prices, proportional fairness and stability", J. Oper. Res. Soc. 1998.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..network import Network


@dataclass(frozen=True)
class Problem:
    """A network's allocation problem in scaled units.

    Attributes
    ----------
    R : scipy.sparse.csr_matrix, shape (M, F)
        Routing matrix: the network's L links, then one row per capped flow.
    c : ndarray, shape (M,)
        Capacities divided by ``c0``.
    w : ndarray, shape (F,)
        Weights divided by ``w0``.
    n_links : int
        L, the number of real links (the first L rows of ``R``).
    c0, w0 : float
        Scales: bit/s per scaled rate unit, and the largest weight.
    """

    R: sp.csr_matrix
    c: np.ndarray
    w: np.ndarray
    n_links: int
    c0: float
    w0: float

    @property
    def n_flows(self) -> int:
        return self.R.shape[1]

    @classmethod
    def from_network(cls, network: Network, weights=None) -> Problem:
        R = network.routing_matrix
        c = np.asarray(network.capacities, dtype=np.float64)
        capped = np.flatnonzero(np.isfinite(network.max_rates))
        if capped.size:
            extra = sp.csr_matrix(
                (np.ones(capped.size), (np.arange(capped.size), capped)),
                shape=(capped.size, network.n_flows),
            )
            R = sp.vstack([R, extra], format="csr")
            c = np.concatenate([c, network.max_rates[capped]])
        w = np.asarray(network.weights if weights is None else weights, dtype=np.float64)
        c0 = float(c.max())
        w0 = float(w.max())
        return cls(R=R.tocsr(), c=c / c0, w=w / w0, n_links=network.n_links, c0=c0, w0=w0)

    def unscale_rates(self, x: np.ndarray) -> np.ndarray:
        """Scaled rates to bit/s."""
        return x * self.c0

    def unscale_prices(self, p: np.ndarray, alpha: float) -> np.ndarray:
        """Scaled prices of the real links to the network's units.

        From ``w^a x^-a = q`` with ``x = c0 x~`` and ``w = w0 w~``:
        ``q = q~ (w0 / c0)^alpha``.
        """
        return p[: self.n_links] * (self.w0 / self.c0) ** alpha

    def unscale_log_prices(self, log_p: np.ndarray, alpha: float) -> np.ndarray:
        """Natural logarithms of scaled prices to those of the real links' prices in the
        network's units (see :meth:`unscale_prices`); finite for every alpha."""
        return log_p[: self.n_links] + alpha * np.log(self.w0 / self.c0)

    def feasible(self, x: np.ndarray) -> np.ndarray:
        """``x`` scaled down just enough to satisfy ``R x <= c``."""
        load = self.R @ x
        worst = float(np.max(load / self.c))
        return x / worst if worst > 1.0 else x


# ---------------------------------------------------------------------------- utility
def utility_diff(a: np.ndarray, b: np.ndarray, w: np.ndarray, alpha: float) -> np.ndarray:
    """Per-flow ``U(a) - U(b)``, computed without the cancellation of subtracting utilities.

    ``w^alpha b^(1-alpha) expm1((1-alpha) log(a/b)) / (1-alpha)``, or
    ``w log(a/b)`` for alpha = 1; accurate for every alpha, including near 1
    and when the utilities are far from 1 in magnitude.
    """
    ratio = np.log(a / b)
    if alpha == 1.0:
        return w * ratio
    k = 1.0 - alpha
    return w**alpha * b**k * (np.expm1(k * ratio) / k)


def marginal(x: np.ndarray, w: np.ndarray, alpha: float) -> np.ndarray:
    """U'(x) = w^alpha x^-alpha."""
    return (w / x) ** alpha


def rate_at_price(q: np.ndarray, w: np.ndarray, alpha: float) -> np.ndarray:
    """The rate maximising U(x) - q x: ``x = w q^(-1/alpha)``."""
    return w * q ** (-1.0 / alpha)


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a . b`` by NumPy's pairwise sum rather than BLAS.

    The solvers take dot products of vectors of 10**4-10**6 entries.  A multithreaded
    BLAS ``ddot`` (OpenBLAS threads them from 10**4 entries on) then spends more time
    starting and waiting for its threads than adding, and its threads keep spinning on
    the other core after each call: on a shared 2-core machine a proportionally fair
    allocation of 10**6 flows took 67 s with it and 34 s with one BLAS thread, and
    after the conjugate gradients' products had moved to this sum, the few left in
    each interior-point iteration still made an alpha = 2 allocation of 10**6 flows
    take 20.4 s of CPU (for 12.9 s of wall) against 11.8 s with one BLAS thread
    (measured).  The pairwise sum is single-threaded, about as accurate, and does not
    depend on the thread count.
    """
    return float(np.add.reduce(a * b))


def relative_gap(x: np.ndarray, p: np.ndarray, prob: Problem, alpha: float) -> float:
    """Certified relative duality gap ``(D(p) - U(x_f)) / (p . c)``.

    ``x_f`` is x scaled down to feasibility and ``D(p) = sum_i max_x [U_i(x) -
    q_i x] + p . c`` is the Lagrange dual, so the numerator bounds the distance
    of ``x_f`` from optimality.  ``p . c``, the value of the capacity at the
    prices, is the natural scale (at the optimum it equals ``sum_i x_i
    U_i'(x_i)``).  The ratio does not depend on the unit of rate, so it is
    evaluated with rates rescaled to a median of 1 to stay within floating
    point range for large alpha.
    """
    xf = prob.feasible(x)
    k = float(np.median(xf))
    xf, c, pk = xf / k, prob.c / k, p * k**alpha
    q = prob.R.T @ pk
    if np.any(q <= 0) or not np.all(np.isfinite(q)):
        return np.inf
    xq = rate_at_price(q, prob.w, alpha)
    scale = dot(pk, c)
    if not scale > 0:
        return np.inf
    gap = float(np.sum(utility_diff(xq, xf, prob.w, alpha))) - dot(q, xq) + scale
    return gap / scale
