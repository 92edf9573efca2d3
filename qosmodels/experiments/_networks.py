"""Networks the experiments share between their sides, and helpers for packet sides.

The ACC networks come from :mod:`qosmodels.topologies` and
:mod:`qosmodels.fluid.scenarios`; the ones here are the packet-level
scenarios of the textbook and fair-queueing checks.  Each builder returns one
:class:`~qosmodels.network.Network`; the theory side reads its parameters
back from that object (:func:`md1_params`, :func:`fig1_params`), so that
theory and packets always describe the same scenario.
"""

from __future__ import annotations

import math

import numpy as np

from ..network import Flow, Link, Network
from .registry import Side

#: Capacity of the single bottleneck of the queueing scenarios, bit/s.
C = 1e6
#: Packet size of the queueing scenarios, bytes.
SIZE = 1000
#: Transmission time of one packet, s.
S = 8 * SIZE / C


def md1_link(rho: float, buffer: int, *, capacity: float = C, size: int = SIZE) -> Network:
    """Poisson packets of one size into one FIFO link: M/D/1 (large buffer) or M/D/1/K.

    Parameters
    ----------
    rho : float
        Offered load, ``lambda * 8 size / capacity``, > 0.
    buffer : int, packets
        Waiting room besides the packet in transmission (K = buffer + 1).
    capacity : float, bit/s
    size : int, bytes
    """
    from ..sim import Poisson

    return Network([Link("a", "b", capacity, 0.0, buffer=buffer)],
                   [Flow(["a", "b"], source=Poisson(rate=rho * capacity, packet_size=size))])


def md1_params(net: Network) -> tuple[float, float, int]:
    """``(rho, S, K)`` of an :func:`md1_link` network: load, service time (s), system size."""
    link, flow = net.links[0], net.flows[0]
    rho = flow.source.rate / link.capacity
    return rho, 8 * flow.source.packet_size / link.capacity, int(link.buffer) + 1


def dks_fig1(rho: float, n_ftp: int = 3, window: int = 5, *, capacity: float = C,
             size: int = SIZE, queue=None) -> Network:
    """Figure 1 of Demers-Keshav-Shenker as a network: N window-W FTPs and a Poisson Telnet.

    Every source reaches gateway ``g`` over an "infinitely fast" link (1e13
    bit/s, no delay, the paper's model); the gateway's output ``g->d`` has
    ``capacity`` and the discipline ``queue`` (FCFS drop-tail by default).
    Flows ``ftp0..`` use :class:`~qosmodels.sim.GenericWindow` with ``window``
    packets; ``telnet`` is Poisson with ``rho = lambda P (N + 1)``, the paper's
    normalisation.  With a :class:`~qosmodels.mechanisms.FairQueueing` gateway
    the FTPs start one after the other, FTP ``a`` when the round number
    reaches ``a P / N`` (with ``a`` FTPs already backlogged, ``sum_{b <= a} b
    P / N`` packet times after the first), so that their finish numbers are
    staggered as the paper's curve assumes (``l_alpha = alpha / N``).

    Parameters
    ----------
    rho : float
        Telnet load relative to its fair share, in (0, N + 1).
    n_ftp, window : int
    capacity : float, bit/s
    size : int, bytes
        Size of every packet (P_T = P_F = P).
    queue : QueueSpec or None
        The gateway's discipline; ``None``: drop-tail.
    """
    from ..mechanisms import DropTail, FairQueueing, GenericWindow, Poisson

    queue = DropTail() if queue is None else queue
    fast = 1e13
    P = 8 * size / capacity
    links = [Link(f"s{i}", "g", fast, 0.0, buffer=1000) for i in range(n_ftp + 1)]
    links.append(Link("g", "d", capacity, 0.0, buffer=1000, queue=queue))
    lam = rho / (P * (n_ftp + 1))  # packets/s
    starts = [0.0] * n_ftp
    if isinstance(queue, FairQueueing):
        for a in range(1, n_ftp):
            starts[a] = starts[a - 1] + P * a / n_ftp
    flows = [Flow([f"s{i}", "g", "d"], source=GenericWindow(window=window, packet_size=size),
                  name=f"ftp{i}", start=starts[i]) for i in range(n_ftp)]
    flows.append(Flow([f"s{n_ftp}", "g", "d"], source=Poisson(rate=lam * 8 * size,
                                                                  packet_size=size),
                      name="telnet"))
    return Network(links, flows)


def fig1_params(net: Network) -> tuple[int, int, float, float]:
    """``(N, W, rho, P)`` of a :func:`dks_fig1` network (P: packet time at the gateway, s)."""
    ftps = [f for f in net.flows if f.source.kind == "generic"]
    telnet = net.flows[net.flow_names.index("telnet")]
    cap = net.capacities[net.link_names.index("g->d")]
    P = 8 * telnet.source.packet_size / cap
    n = len(ftps)
    lam = telnet.source.rate / (8 * telnet.source.packet_size)
    return n, int(ftps[0].source.window), float(lam * P * (n + 1)), float(P)


def t_half_width(samples, confidence: float = 0.95) -> float:
    """Student-t half-width of the mean of independent ``samples`` (as :func:`replicate` uses)."""
    from scipy import stats

    x = np.asarray(samples, dtype=float)
    n = len(x)
    return float(stats.t.ppf(0.5 + confidence / 2, n - 1) * x.std(ddof=1) / math.sqrt(n))


def packets_side(rep, name: str, index: int, tolerance: float, method: str,
                 scale: float = 1.0) -> Side:
    """The packets :class:`Side` of a :class:`~qosmodels.sim.ReplicationResult` attribute.

    Parameters
    ----------
    rep : ReplicationResult
    name : str
        Per-flow or per-link attribute of the runs (``"mean_queueing_delay"``, ``"drop_rate"``).
    index : int
        Flow or link index.
    tolerance : float
    method : str
    scale : float
        Factor to the row's unit (e.g. 1e3 for s -> ms).
    """
    return Side(float(rep.mean(name)[index]) * scale, tolerance,
                ci=float(rep.half_width(name)[index]) * scale,
                method=f"{method}; replicate, {len(rep.runs)} seeds")
