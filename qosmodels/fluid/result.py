"""The result of :func:`~qosmodels.fluid.solve_fluid`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ScenarioError
from ..network import Network

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from .equilibrium import AccEquilibrium

__all__ = ["FluidResult"]


@dataclass(frozen=True)
class FluidResult:
    """Trajectories of a fluid model, sampled every ``save_dt`` seconds.

    All quantities are SI: seconds, bits, bit/s.  Row k of every array is
    time ``t[k]``; columns follow ``network.flows`` or ``network.links``.

    Attributes
    ----------
    network : Network
        The network solved.
    t : ndarray, shape (T,), s
        Sample times, from 0 to (at least) ``t_end``.
    rates : ndarray, shape (T, F), bit/s
        Sending rates ``w / rtt`` (0 while a flow is not active).
    windows : ndarray, shape (T, F), bits
        Congestion windows.
    rtt : ndarray, shape (T, F), s
        Round-trip times the senders measure (propagation plus forward and
        reverse queueing delays).
    estimates : ndarray, shape (T, F), bits
        The accumulation the senders' estimator reports (what the control
        law acts on).  For ``control="Reno"``: the path's marking
        probability (RED, PI, PIE) the sender sees (dimensionless).
    accumulation : ndarray, shape (T, F), bits
        The true accumulation, eq (1) of the ACC paper, as seen at the egress.
    queues : ndarray, shape (T, L), bits
        Link queues, in **bits** (divide by ``8 * packet_size`` for packets).
    virtual_delays : ndarray, shape (T, L), s
        AVD virtual queueing delays (0 on links without AVD).
    marking : ndarray, shape (T, L)
        Marking probabilities of RED links, and under ``control="Reno"`` of PI and
        PIE links (their laws' ``p``); 0 on other links.
    departed : ndarray, shape (T, L), bits
        Cumulative bits each link has transmitted.
    delivered : ndarray, shape (T, F), bits
        Cumulative bits each flow has delivered to its destination.
    lost : ndarray, shape (T, F), bits
        Cumulative bits each flow has lost to full buffers.
    targets : ndarray, shape (F,), bits
        Accumulation targets a_i*.
    dt : float, s
        Integration step.
    options : dict
        The options that produced the result (control, kappa, estimator, ...).
    """

    network: Network
    t: np.ndarray
    rates: np.ndarray
    windows: np.ndarray
    rtt: np.ndarray
    estimates: np.ndarray
    accumulation: np.ndarray
    queues: np.ndarray
    virtual_delays: np.ndarray
    marking: np.ndarray
    departed: np.ndarray
    delivered: np.ndarray
    lost: np.ndarray
    targets: np.ndarray
    dt: float
    options: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        o = self.options
        return (f"FluidResult({self.network.n_flows} flows, {self.network.n_links} links, "
                f"t_end={self.t[-1]:g} s, control={o.get('control')}, "
                f"estimator={o.get('estimator')}, dt={self.dt:g} s)")

    # ------------------------------------------------------------ derived quantities
    @property
    def queue_delays(self) -> np.ndarray:
        """Queueing delay of each link, ``queues / capacity``, s, shape (T, L)."""
        return self.queues / self.network.capacities

    def _window(self, t0: float | None, t1: float | None) -> tuple[int, int]:
        t = self.t
        i0 = 0 if t0 is None else int(np.searchsorted(t, t0 - 1e-12))
        i1 = len(t) - 1 if t1 is None else int(np.searchsorted(t, t1 + 1e-12)) - 1
        if not 0 <= i0 < i1 < len(t):
            raise ScenarioError(f"the interval [{t0}, {t1}] s must hold at least two samples of "
                                f"t in [{t[0]:g}, {t[-1]:g}] s")
        return i0, i1

    def utilisation(self, t0: float | None = None, t1: float | None = None) -> np.ndarray:
        """Mean utilisation of each link over ``[t0, t1]`` (default: the whole run), shape (L,)."""
        i0, i1 = self._window(t0, t1)
        span = self.t[i1] - self.t[i0]
        return (self.departed[i1] - self.departed[i0]) / (self.network.capacities * span)

    def throughput(self, t0: float | None = None, t1: float | None = None) -> np.ndarray:
        """Mean delivered rate of each flow over ``[t0, t1]``, bit/s, shape (F,)."""
        i0, i1 = self._window(t0, t1)
        return (self.delivered[i1] - self.delivered[i0]) / (self.t[i1] - self.t[i0])

    def mean(self, name: str, t0: float | None = None, t1: float | None = None) -> np.ndarray:
        """Time average of a sampled array (e.g. ``"rates"``, ``"queues"``) over ``[t0, t1]``
        (trapezoidal rule)."""
        i0, i1 = self._window(t0, t1)
        y = getattr(self, name)[i0:i1 + 1]
        t = self.t[i0:i1 + 1]
        return np.trapezoid(y, t, axis=0) / (t[-1] - t[0])

    def equilibrium(self) -> AccEquilibrium:
        """The ACC equilibrium this run should approach (:func:`~qosmodels.fluid.acc_equilibrium`)."""
        from .equilibrium import acc_equilibrium

        return acc_equilibrium(self.network, self.targets / 8.0)

    # ------------------------------------------------------------ tables and plots
    def to_pandas(self, kind: str = "flows") -> pandas.DataFrame:
        """The trajectories as a time-indexed table with two-level columns.

        Parameters
        ----------
        kind : {"flows", "links"}
            ``"flows"``: columns ``(quantity, flow)`` for ``rate_bps``,
            ``window_bits``, ``rtt_s``, ``estimate_bits``, ``accumulation_bits``;
            ``"links"``: ``(quantity, link)`` for ``queue_bits``,
            ``queue_delay_s``, ``virtual_delay_s``.
        """
        import pandas as pd

        net = self.network
        if kind == "flows":
            parts = {"rate_bps": self.rates, "window_bits": self.windows, "rtt_s": self.rtt,
                     "estimate_bits": self.estimates, "accumulation_bits": self.accumulation}
            names = net.flow_names
        elif kind == "links":
            parts = {"queue_bits": self.queues, "queue_delay_s": self.queue_delays,
                     "virtual_delay_s": self.virtual_delays}
            names = net.link_names
        else:
            raise ScenarioError(f"kind must be 'flows' or 'links', got {kind!r}")
        frames = {k: pd.DataFrame(a, index=pd.Index(self.t, name="t_s"), columns=list(names))
                  for k, a in parts.items()}
        return pd.concat(frames, axis=1, names=["quantity", kind[:-1]])

    def plot(self, ax: Any = None, links: Any = None, packet_size: int = 1000,
             **kwargs: Any) -> Any:
        """Rates (Mb/s) of the flows and queues (packets) of the chosen links against time.

        Parameters
        ----------
        ax : matplotlib Axes or sequence of two, optional
            Where to draw (one Axes: the rates only); a new figure with two
            panels if omitted.
        links : sequence, optional
            Links to draw (names, pairs or indices); default: those whose
            queue is ever non-zero (at most 8).
        packet_size : int, bytes
            Packet size used to show queues in packets.
        **kwargs
            Passed to the ``plot`` calls.

        Returns
        -------
        matplotlib.axes.Axes or numpy.ndarray of Axes
            What was drawn on.
        """
        from .._plot import drawn, panels

        ax = panels(ax, 2, rows=True, sharex=True)
        net = self.network
        for i, name in enumerate(net.flow_names[:20]):
            ax[0].plot(self.t, self.rates[:, i] / 1e6, label=name, **kwargs)
        ax[0].set_ylabel("rate (Mb/s)")
        ax[0].set_xlabel("time (s)")
        if net.n_flows <= 10:
            ax[0].legend(fontsize="small", ncol=2)
        if len(ax) > 1:
            if links is None:
                ids = [l for l in range(net.n_links) if np.any(self.queues[:, l] > 0)][:8]
            else:
                ids = [net.link_id(l) for l in links]
            for l in ids:
                ax[1].plot(self.t, self.queues[:, l] / (8 * packet_size), label=net.link_names[l],
                           **kwargs)
            ax[1].set_ylabel(f"queue (packets of {packet_size} B)")
            ax[1].set_xlabel("time (s)")
            if ids:
                ax[1].legend(fontsize="small")
        return drawn(ax)

    def _repr_html_(self) -> str:
        last = self.to_pandas().iloc[-1].unstack(0)
        return f"<p><b>{self!r}</b></p><p>At t = {self.t[-1]:g} s</p>{last.to_html()}"
