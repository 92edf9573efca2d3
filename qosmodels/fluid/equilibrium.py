"""ACC's equilibrium: weighted proportional fairness with the accumulation targets as weights.

The paper's appendix (Propositions 1 and 2) shows that a flow keeping an
accumulation ``a_i*`` in the network settles where ``a_i* = x_i sum_{l in L_i}
t_ql``, ``t_ql (c_l - sum x) = 0``: the KKT conditions of maximising
``sum a_i* log x_i`` under the capacity constraints, with the link prices the
queueing delays ``t_ql``.  :func:`acc_equilibrium` computes it through
:func:`qosmodels.allocate` (``fairness="proportional"``, flow weights = targets
in bits, so that the prices come out in seconds).

References
----------
Y. Xia, D. Harrison, S. Kalyanaraman, K. Ramachandran, A. Venkatesan,
"Accumulation-based congestion control", IEEE/ACM Trans. Networking 13(1),
2005, Appendix, Propositions 1-2, eq (14).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._repr import ShortRepr
from ..network import Network
from ._compile import _per_flow

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from ..allocation import Allocation

__all__ = ["AccEquilibrium", "acc_equilibrium", "RenoEquilibrium", "reno_equilibrium"]


@dataclass(frozen=True, repr=False)
class AccEquilibrium(ShortRepr):
    """The equilibrium of the ACC fluid model on a network.

    Attributes
    ----------
    network : Network
        The network (flow weights as given; the targets are in ``targets``).
    targets : ndarray, shape (F,), bits
        Accumulation targets a_i*.
    rates : ndarray, shape (F,), bit/s
        Equilibrium rates (weighted proportionally fair, weights a_i*).
    queue_delays : ndarray, shape (L,), s
        Queueing delay of each link (the allocation's prices).
    queues : ndarray, shape (L,), bits
        Queue of each link, ``queue_delays * capacity``.
    rtt : ndarray, shape (F,), s
        Round-trip time: propagation plus the forward path's queueing delay
        (plus declared reverse links' queueing delay).
    windows : ndarray, shape (F,), bits
        ``rates * rtt``.
    allocation : Allocation
        The underlying allocation.
    """

    network: Network
    targets: np.ndarray
    rates: np.ndarray
    queue_delays: np.ndarray
    queues: np.ndarray
    rtt: np.ndarray
    windows: np.ndarray
    allocation: Allocation

    def to_pandas(self, kind: str = "flows") -> pandas.DataFrame:
        """``"flows"``: target, rate, rtt, window; ``"links"``: queue delay and queue."""
        return _table(self.network, kind,
                      {"target_bits": self.targets, "rate_bps": self.rates, "rtt_s": self.rtt,
                       "window_bits": self.windows},
                      {"queue_delay_s": self.queue_delays, "queue_bits": self.queues})


def acc_equilibrium(network: Network, targets=3000) -> AccEquilibrium:
    """The equilibrium of ACC on ``network`` with accumulation targets ``targets``.

    Parameters
    ----------
    network : Network
        The network; flows' ``max_rate`` caps are respected.
    targets : float or sequence of float, bytes
        Accumulation target a_i* of every flow (a scalar) or of each flow.

    Returns
    -------
    AccEquilibrium

    Notes
    -----
    With weights ``s_i = a_i*`` in bits and rates in bit/s, the Lagrange
    multipliers of :func:`~qosmodels.allocate` are in seconds and are the
    links' queueing delays ``t_ql``; the total queue is then
    ``sum_l c_l t_ql = sum_i a_i*`` when every flow has a saturated link.

    References
    ----------
    Xia et al., "Accumulation-based congestion control", 2005, Appendix,
    Propositions 1 and 2.

    Examples
    --------
    >>> from qosmodels.topologies import acc_parking_lot
    >>> from qosmodels.fluid import acc_equilibrium
    >>> eq = acc_equilibrium(acc_parking_lot(), targets=3000)
    >>> [round(float(r) / 1e6, 6) for r in eq.rates]
    [3.0, 6.0, 6.0]
    """
    from ..allocation import allocate

    tgt = _per_flow("targets", targets, network.n_flows, gt=0, unit="bytes") * 8.0
    net = network.replace(flows=[dataclasses.replace(f, weight=float(t))
                                 for f, t in zip(network.flows, tgt)])
    a = allocate(net, "proportional")
    prices = np.asarray(a.prices, dtype=np.float64)
    R = network.routing_matrix
    fwd = R.T @ prices
    rev = network.reverse_route_links
    cols = np.repeat(np.arange(network.n_flows), np.diff(network.route_ptr))
    back = np.zeros(network.n_flows)
    np.add.at(back, cols, np.where(rev >= 0, prices[np.maximum(rev, 0)], 0.0))
    rtt = network.rtt + fwd + back
    return AccEquilibrium(network=network, targets=tgt, rates=np.asarray(a.rates, dtype=float),
                          queue_delays=prices, queues=prices * network.capacities, rtt=rtt,
                          windows=np.asarray(a.rates) * rtt, allocation=a)


@dataclass(frozen=True, repr=False)
class RenoEquilibrium(ShortRepr):
    """The equilibrium of the Reno/RED fluid model: the square-root law at every flow.

    Attributes
    ----------
    network : Network
    rates : ndarray, shape (F,), bit/s
        ``x_i = (P_i / rtt_i) sqrt(2 / p_i)``.
    queues : ndarray, shape (L,), bits
        Queue (= RED's average) of each RED link; 0 elsewhere.
    marking : ndarray, shape (L,)
        RED marking probability of each link.
    path_marking : ndarray, shape (F,)
        ``p_i = 1 - prod_l (1 - p_l)`` along each route.
    rtt : ndarray, shape (F,), s
        Propagation plus queueing delays.
    windows : ndarray, shape (F,), bits
        ``rates * rtt``.
    """

    network: Network
    rates: np.ndarray
    queues: np.ndarray
    marking: np.ndarray
    path_marking: np.ndarray
    rtt: np.ndarray
    windows: np.ndarray

    def to_pandas(self, kind: str = "flows") -> pandas.DataFrame:
        """``"flows"``: rate, path marking, rtt, window; ``"links"``: queue and marking."""
        return _table(self.network, kind,
                      {"rate_bps": self.rates, "path_marking": self.path_marking,
                       "rtt_s": self.rtt, "window_bits": self.windows},
                      {"queue_bits": self.queues, "marking": self.marking})


def _table(net: Network, kind: str, flows: dict, links: dict) -> pandas.DataFrame:
    """An equilibrium's ``to_pandas(kind)``: the ``flows`` columns by flow or ``links`` by link."""
    import pandas as pd

    if kind == "flows":
        return pd.DataFrame(flows, index=pd.Index(net.flow_names, name="flow"))
    if kind == "links":
        return pd.DataFrame(links, index=pd.Index(net.link_names, name="link"))
    from ..errors import ScenarioError

    raise ScenarioError(f"kind must be 'flows' or 'links', got {kind!r}")


def _red_p(avg, lo, hi, maxp, top):
    """RED's marking probability at average queue ``avg`` (``top`` = 2 hi if gentle, else hi)."""
    return np.where(avg < lo, 0.0,
                    np.where(avg < hi, maxp * (avg - lo) / (hi - lo),
                             np.where(avg < top, maxp + (1 - maxp) * (avg - hi) / hi, 1.0)))


def reno_equilibrium(network: Network, red_links=(), red=None) -> RenoEquilibrium:
    """The equilibrium of ``solve_fluid(..., control="Reno", red_links=...)``.

    Every RED link is taken as saturated (its flows' rates sum to its
    capacity) and every other link as uncongested.  Each flow then sends at
    the square-root law of the fluid model, ``x_i = (P_i / rtt_i) sqrt(2 / p_i)``
    (a window that grows by one packet per round trip and halves at each
    mark), and the RED queues solve ``sum_{i in l} x_i = c_l``
    (:func:`scipy.optimize.least_squares`, queues bounded by ``2 max_th``).

    Parameters
    ----------
    network : Network
    red_links : sequence
        RED links (names, pairs or indices) besides those whose ``queue`` is a
        :class:`qosmodels.mechanisms.Red`; at least one RED link in all.
    red : qosmodels.mechanisms.Red, optional
        RED's parameters at ``red_links`` (default 20 / 80 packets, max_p 0.1,
        w_q 0.002, gentle).

    References
    ----------
    V. Misra, W. Gong, D. Towsley, "Fluid-based analysis of a network of AQM
    routers supporting TCP flows", SIGCOMM 2000, Section 3 (equilibrium of
    eq (1)); M. Mathis et al., "The macroscopic behavior of the TCP
    congestion avoidance algorithm", CCR 1997 (the square-root law).
    """
    from scipy.optimize import least_squares

    from ..errors import ScenarioError
    from ..mechanisms import Red
    from ._compile import DEFAULT_RED

    red = DEFAULT_RED if red is None else red
    specs = {l: link.queue for l, link in enumerate(network.links) if isinstance(link.queue, Red)}
    specs.update({network.link_id(l): red for l in red_links})
    ids = sorted(specs)
    if not ids:
        raise ScenarioError("no RED link: give red_links or links with queue=qosmodels.mechanisms.Red(...)")
    R = network.routing_matrix.toarray()
    pkt = network.packet_sizes * 8.0
    nf = R.sum(axis=1)
    mean_pkt = np.where(nf > 0, (R @ pkt) / np.maximum(nf, 1), 8000.0)
    cap = network.capacities
    lo = np.array([specs[l].min_th for l in ids]) * mean_pkt[ids]
    hi = np.array([specs[l].max_th for l in ids]) * mean_pkt[ids]
    maxp = np.array([specs[l].max_p for l in ids])
    top = np.where([specs[l].gentle for l in ids], 2.0, 1.0) * hi

    def state(qr):
        q = np.zeros(network.n_links)
        q[ids] = qr
        p = np.zeros(network.n_links)
        p[ids] = _red_p(qr, lo, hi, maxp, top)
        keep = np.exp(R.T @ np.log1p(-np.minimum(p, 1 - 1e-15)))
        pp = 1.0 - keep
        rtt = network.rtt + R.T @ (q / cap)
        x = pkt / rtt * np.sqrt(2.0 / np.maximum(pp, 1e-300))
        return q, p, pp, rtt, x

    def resid(qr):
        *_, x = state(qr)
        return (R[ids] @ x) / cap[ids] - 1.0

    x0 = 0.5 * (lo + hi)
    sol = least_squares(resid, x0, bounds=(lo * (1 + 1e-12), top), xtol=1e-14, ftol=1e-14,
                        gtol=1e-14)
    q, p, pp, rtt, x = state(sol.x)
    return RenoEquilibrium(network=network, rates=x, queues=q, marking=p, path_marking=pp,
                           rtt=rtt, windows=x * rtt)
