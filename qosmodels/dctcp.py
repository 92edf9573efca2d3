"""DCTCP's steady state: the synchronised sawtooth of N flows behind a step-marking queue.

Alizadeh et al. (SIGCOMM 2010, Section 3.3) analyse ``N`` long-lived DCTCP flows
with equal round-trip times ``RTT`` sharing a bottleneck of capacity ``C``
(packets per second) whose queue marks every packet arriving to more than ``K``
packets (:class:`qosmodels.mechanisms.DropTail` with ``mark_threshold=K``),
assuming the flows' sawtooths are **synchronised** (each flow's window rises by
one packet per round trip, every flow sees the marks of the same round trip).
Writing ``B = C RTT`` (the bandwidth-delay product, packets):

* the window at which the queue reaches ``K``: ``W* = (B + K) / N``
  (:func:`critical_window`);
* the flows see marks for one round trip per cycle, so ``alpha`` (the fraction
  of packets marked) satisfies ``alpha^2 (1 - alpha/4) = (2 W* + 1) / (W* + 1)^2``
  (:func:`alpha`), ``alpha ~ sqrt(2 / W*)`` for large ``W*`` (:func:`alpha_approx`);
  :func:`derive` obtains the equation with SymPy from the count of packets sent
  while a window grows, ``S(W1, W2) = (W2^2 - W1^2) / 2``;
* each window falls by ``D = (W* + 1) alpha / 2`` packets per cycle; the queue's
  amplitude is ``A = N D`` (:func:`amplitude`), ``~ sqrt(2 N (B + K)) / 2``
  (:func:`amplitude_approx`), and the cycle lasts ``D`` round trips
  (:func:`period`);
* the queue peaks at ``Q_max = N (W* + 1) - B = K + N`` (:func:`q_max`) and falls
  to ``Q_min = Q_max - A`` (:func:`q_min`);
* minimising ``Q_min`` over ``N`` (at ``N = (B + K) / 8`` with the approximate
  amplitude) gives ``K - (B + K) / 8``: the queue never empties, and the link
  stays busy, if ``K > B / 7`` (:func:`k_min`, the paper's guideline).

:func:`utilisation` adds the link utilisation of the same sawtooth when ``Q_min < 0``
(derived here, not printed in the paper: the aggregate window ``W`` rises by ``N``
per round trip from ``N (W* + 1)(1 - alpha/2)`` to ``N (W* + 1)``; while ``W < B``
the link carries ``W / B`` of its capacity and a round trip lasts ``RTT``, above
it the link is busy and a round trip lasts ``(W / B) RTT``; the time average is
``(W_hi^2 - W_lo^2) / (2 B (B - W_lo) + W_hi^2 - B^2)``).

The analysis assumes synchronised flows, which holds best for small ``N``: with
many flows the windows desynchronise and the queue oscillates less than ``A``
(the paper's Figure 13 compares it with ns-2 for N = 2, 10, 40).  Alizadeh,
Javanmard and Prabhakar (SIGMETRICS 2011) give a fluid model without the
synchronisation assumption (stability, convergence, RTT fairness):
:mod:`qosmodels.fluid.dctcp`.

Units: ``C`` in packets per second, ``RTT`` in seconds, ``K``, windows and queues in
packets (``B = C RTT`` is a number of packets).

References
----------
M. Alizadeh, A. Greenberg, D. Maltz, J. Padhye, P. Patel, B. Prabhakar, S. Sengupta,
M. Sridharan, "Data Center TCP (DCTCP)", SIGCOMM 2010, Section 3.3 ("Analysis"), eqs.
for ``W*``, ``alpha``, ``D``, ``A``, ``T_C``, ``Q_max``, ``Q_min`` and the guideline
``K > (C x RTT) / 7``.  M. Alizadeh, A. Javanmard, B. Prabhakar, "Analysis of DCTCP:
stability, convergence, and fairness", SIGMETRICS 2011.

Examples
--------
>>> from qosmodels import dctcp
>>> round(dctcp.alpha(2, 80.0, 20.0), 4), dctcp.q_max(2, 20.0)
(0.2022, 22.0)
>>> round(dctcp.amplitude_approx(2, 80.0, 20.0), 6), round(dctcp.k_min(84.0), 6)
(10.0, 12.0)
"""

from __future__ import annotations

import math

from . import _validate as v
from .errors import ScenarioError

__all__ = ["critical_window", "alpha", "alpha_approx", "amplitude", "amplitude_approx",
           "period", "q_max", "q_min", "k_min", "utilisation", "bdp", "derive"]


def _n(owner, n):
    return v.integer(owner, "n_flows", n, ge=1, unit="flows")


def _bk(owner, bdp_packets, k):
    b = v.real(owner, "bdp", bdp_packets, gt=0, unit="packets")
    k = v.real(owner, "k", k, ge=0, unit="packets")
    return b, k


def _w(owner, n_flows, bdp, k):
    """``W*`` with the inputs checked under the public function's name ``owner``."""
    n = _n(owner, n_flows)
    b, k = _bk(owner, bdp, k)
    return (b + k) / n


def bdp(capacity: float, rtt: float, packet_size: int) -> float:
    """The bandwidth-delay product ``B = C RTT`` in packets.

    Parameters
    ----------
    capacity : float, bit/s
    rtt : float, s
        The round-trip time without queueing.
    packet_size : int, bytes

    Returns
    -------
    float, packets
    """
    c = v.real("dctcp.bdp", "capacity", capacity, gt=0, unit="bit/s")
    r = v.real("dctcp.bdp", "rtt", rtt, gt=0, unit="s")
    s = v.integer("dctcp.bdp", "packet_size", packet_size, ge=1, unit="bytes")
    return c * r / (8.0 * s)


def critical_window(n_flows: int, bdp: float, k: float) -> float:
    """``W* = (B + K) / N``: each flow's window when the queue reaches ``K``, packets.

    Parameters
    ----------
    n_flows : int
        ``N``, the synchronised flows.
    bdp : float, packets
        ``B = C RTT``.
    k : float, packets
        The marking threshold ``K``.
    """
    return _w("dctcp.critical_window", n_flows, bdp, k)


def _alpha_w(w: float) -> float:
    """The root in (0, 1] of ``a^2 (1 - a/4) = (2w + 1) / (w + 1)^2`` (bisection: the left
    side rises on [0, 1], from 0 to 3/4, and the right side is at most 3/4 for w >= 0)."""
    rhs = (2.0 * w + 1.0) / (w + 1.0) ** 2
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid * mid * (1.0 - mid / 4.0) < rhs:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-16:
            break
    return 0.5 * (lo + hi)


def alpha(n_flows: int, bdp: float, k: float) -> float:
    """``alpha`` of the synchronised sawtooth: the root in (0, 1] of
    ``alpha^2 (1 - alpha/4) = (2 W* + 1) / (W* + 1)^2``.

    Parameters
    ----------
    n_flows : int
    bdp : float, packets
    k : float, packets

    Returns
    -------
    float
        The fraction of packets marked, in steady state.
    """
    return _alpha_w(_w("dctcp.alpha", n_flows, bdp, k))


def alpha_approx(n_flows: int, bdp: float, k: float) -> float:
    """``sqrt(2 / W*)``, the paper's approximation of :func:`alpha` for large ``W*``."""
    return math.sqrt(2.0 / _w("dctcp.alpha_approx", n_flows, bdp, k))


def amplitude(n_flows: int, bdp: float, k: float) -> float:
    """``A = N D = N (W* + 1) alpha / 2``: the queue's peak-to-trough amplitude, packets."""
    w = _w("dctcp.amplitude", n_flows, bdp, k)
    return n_flows * (w + 1.0) * _alpha_w(w) / 2.0


def amplitude_approx(n_flows: int, bdp: float, k: float) -> float:
    """``A ~ sqrt(2 N (B + K)) / 2``, the paper's closed form of :func:`amplitude`, packets."""
    n = _n("dctcp.amplitude_approx", n_flows)
    b, k = _bk("dctcp.amplitude_approx", bdp, k)
    return 0.5 * math.sqrt(2.0 * n * (b + k))


def period(n_flows: int, bdp: float, k: float) -> float:
    """``T_C = D = (W* + 1) alpha / 2``: the sawtooth's period, in round trips."""
    w = _w("dctcp.period", n_flows, bdp, k)
    return (w + 1.0) * _alpha_w(w) / 2.0


def q_max(n_flows: int, k: float) -> float:
    """``Q_max = N (W* + 1) - B = K + N``: the queue's peak, packets."""
    n = _n("dctcp.q_max", n_flows)
    k = v.real("dctcp.q_max", "k", k, ge=0, unit="packets")
    return k + n


def q_min(n_flows: int, bdp: float, k: float, *, exact: bool = True) -> float:
    """``Q_min = Q_max - A``: the queue's trough, packets (negative: the link idles).

    ``exact=True`` takes :func:`amplitude` (``alpha`` from its cubic), ``False`` the
    paper's closed form ``K + N - sqrt(2 N (B + K)) / 2``.
    """
    _w("dctcp.q_min", n_flows, bdp, k)
    a = amplitude(n_flows, bdp, k) if exact else amplitude_approx(n_flows, bdp, k)
    return q_max(n_flows, k) - a


def k_min(bdp: float) -> float:
    """``B / 7``: the marking threshold above which the synchronised queue never empties,
    whatever ``N`` (the paper's guideline ``K > (C x RTT) / 7``), packets."""
    return v.real("dctcp.k_min", "bdp", bdp, gt=0, unit="packets") / 7.0


def utilisation(n_flows: int, bdp: float, k: float) -> float:
    """The link utilisation of the synchronised sawtooth (1 while ``Q_min >= 0``).

    The aggregate window ``W`` rises by ``N`` packets per round trip from ``W_lo =
    N (W* + 1)(1 - alpha/2)`` to ``W_hi = N (W* + 1)``; below ``B`` the link carries
    ``W / B`` of its capacity for a round trip of ``RTT``, above it the link is busy
    for a round trip of ``(W / B) RTT``.  The time average is
    ``(W_hi^2 - W_lo^2) / (2 B (B - W_lo) + W_hi^2 - B^2)`` if ``W_lo < B``, else 1.
    (Derived here from the paper's sawtooth; the paper states only that the queue,
    and so the link, never empties when ``K > B / 7``.)
    """
    w = _w("dctcp.utilisation", n_flows, bdp, k)
    b = float(bdp)
    a = _alpha_w(w)
    hi = n_flows * (w + 1.0)
    lo = hi * (1.0 - a / 2.0)
    if lo >= b:
        return 1.0
    if hi <= b:  # (never: hi = B + K + N > B; kept for the formula's domain)
        raise ScenarioError(f"dctcp.utilisation: the window never reaches B = {b!r} packets")
    return (hi * hi - lo * lo) / (2.0 * b * (b - lo) + hi * hi - b * b)


def derive():
    """Derive the ``alpha`` equation with SymPy from the sawtooth's packet counts.

    While a window grows from ``W1`` to ``W2`` by one packet per round trip a flow
    sends ``S(W1, W2) = (W2^2 - W1^2) / 2`` packets.  Marks arrive while the window
    goes from ``W*`` to ``W* + 1`` (the queue above ``K`` for one round trip), and a
    cycle runs from ``(W* + 1)(1 - alpha/2)`` to ``W* + 1``, so
    ``alpha = S(W*, W* + 1) / S((W* + 1)(1 - alpha/2), W* + 1)``.

    Returns
    -------
    dict
        ``"definition"``: that equation with its denominator cleared, ``alpha
        S((W+1)(1 - alpha/2), W+1) - S(W, W+1)`` (a SymPy expression in ``alpha`` and
        ``W``, zero at the steady state); ``"printed"``: the paper's ``alpha^2 (1 -
        alpha/4) - (2W + 1)/(W + 1)^2``; ``"difference"``: ``2 definition / (W+1)^2 -
        printed``, simplified (0: the printed equation is the definition's);
        ``"large_w"``: the leading term of ``alpha`` as ``W -> oo`` (``sqrt(2/W)``).
    """
    import sympy as sp  # (lazy: the package imports without SymPy)

    a, w = sp.symbols("alpha W", positive=True)

    def s(w1, w2):
        return (w2 ** 2 - w1 ** 2) / 2

    definition = a * s((w + 1) * (1 - a / 2), w + 1) - s(w, w + 1)
    printed = a ** 2 * (1 - a / 4) - (2 * w + 1) / (w + 1) ** 2
    difference = sp.simplify(2 * definition / (w + 1) ** 2 - printed)
    eps = sp.symbols("epsilon", positive=True)  # 1/W
    # alpha^2 (1 - alpha/4) = (2W+1)/(W+1)^2 with alpha = c sqrt(eps): leading order c^2 = 2
    c = sp.symbols("c", positive=True)
    lhs = (c ** 2 * eps) * (1 - c * sp.sqrt(eps) / 4)
    rhs = (2 / eps + 1) / (1 / eps + 1) ** 2
    lead = sp.solve(sp.Eq(sp.limit(lhs / eps, eps, 0), sp.limit(rhs / eps, eps, 0)), c)
    return {"definition": definition, "printed": printed, "difference": difference,
            "large_w": lead[0] * sp.sqrt(1 / w)}
