"""Results of :func:`~qosmodels.simulate` and :func:`~qosmodels.sim.replicate`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ScenarioError
from ._kernels import layout as K

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from ..network import Network

__all__ = ["SimulationResult", "ReplicationResult"]


def _ro(a) -> np.ndarray:
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


def _traces(network, c) -> dict:
    """The recorded trace channels as pandas Series indexed by time (s), keyed
    ``"name[owner]"``, and also ``"name"`` alone when one owner records that name."""
    from .compile import trace_channels

    channels = trace_channels(network)
    if not channels:
        return {}
    import pandas as pd

    n = int(c.gi[K.GI_TRACE_N])
    ch, t, v = c.tr_c[:n], c.tr_t[:n], c.tr_v[:n]
    names = [name for name, _ in channels]
    out = {}
    for k, (name, owner) in enumerate(channels):
        sel = ch == k
        key = f"{name}[{owner}]"
        series = pd.Series(v[sel].copy(), index=pd.Index(t[sel].copy(), name="t_s"), name=key)
        out[key] = series
        if names.count(name) == 1:
            out[name] = series
    return out


@dataclass(frozen=True, repr=False)
class SimulationResult:
    """What a packet-level run measured.  Per-flow arrays follow ``network.flows``,
    per-link arrays ``network.links``; measured quantities cover the window
    ``[warmup, duration]`` unless their name says ``total``.

    Attributes
    ----------
    network : Network
    duration, warmup : float, s
    seed : int or str
    throughput : ndarray, shape (F,), bit/s
        Goodput: bits of data packets reaching their receiver for the first
        time (retransmitted duplicates excluded; out-of-order packets counted
        when they arrive, not when the hole before them is filled), per
        second of the window.
    delivered_packets : ndarray of int, shape (F,)
        Packets behind ``throughput``.
    mean_queueing_delay : ndarray, shape (F,), s
        Mean time a data packet arriving at its receiver in the window spent
        waiting in queues (transmission and propagation excluded); NaN for a
        flow with no such packet.
    queueing_delay_std : ndarray, shape (F,), s
        Their standard deviation (population; NaN for a flow with none).
    max_queueing_delay : ndarray, shape (F,), s
        The longest of those queueing delays (NaN for a flow with none).
    delay_histogram : ndarray, shape (F, bins)
        Counts of those packets' queueing delays; edges in ``delay_bin_edges``
        (shape (F, bins + 1), s); the last bin also counts longer delays.
    mean_rtt_estimate : ndarray, shape (F,), s
        Mean of the round-trip samples each window source's own estimator
        took inside the window (what the fair-queueing paper tabulates as the
        "average round trip time ... as measured by the flow control's
        roundtrip estimator"); NaN for open-loop sources and flows without a
        sample.  Which packets are timed is the source's rule (one segment per
        RTT with Karn's rule for TCP by default, every ACK timed from the first
        transmission for :class:`~qosmodels.mechanisms.GenericWindow`).
    utilisation : ndarray, shape (L,)
        Fraction of the window each link spent transmitting.
    link_drops : dict of str to ndarray of int, shape (L,)
        Whole-run drops by cause: ``"overflow"`` (full buffer), ``"early"``
        (RED's random drops), ``"forced"`` (RED above its maximum threshold);
        plus ``"marks"`` (ECN marks instead of early drops).
    t : ndarray, shape (S,), s
        Sample times of the series.
    throughput_series : ndarray, shape (S - 1, F), bit/s
        Goodput over each sampling interval ``[t[k], t[k+1])``.
    queue_series : ndarray, shape (S, L), packets
        Packets waiting at each link at ``t``.
    cwnd_series : ndarray, shape (S, F), packets or None
        Each window flow's congestion window at ``t`` (NaN for open-loop
        sources), if recorded.
    counters : dict of str to ndarray
        Whole-run totals: per flow ``sent``, ``retransmitted``, ``arrived``
        (data packets reaching the receiver, duplicates included),
        ``delivered`` (first copies only), ``dropped``, ``in_flight`` (data packets still in the
        network at the end), ``timeouts``, ``fast_retransmits``,
        ``acks_dropped``; inside the window, per flow ``retransmitted_window``,
        ``dropped_window``, ``arrived_window`` (data packets, duplicates included)
        and ``rtt_samples_window``; per flow behind an edge element (zero for the
        others) ``edge_in_profile`` and ``edge_out_of_profile`` (data packets it let
        through marked in profile, or out of profile), the same ``..._window``,
        ``edge_dropped`` (policed, or beyond a full hold; also in ``dropped``),
        ``edge_held`` (packets a shaper held back) and ``edge_blocked`` (times a
        shaper kept a window sender from sending); per link ``arrivals``, ``departures``, ``dropped``,
        ``waiting`` and ``in_service`` (at the end), ``max_waiting``.
    events : int
        Events processed.
    wall_time : float, s
        Wall-clock time of the kernel calls (compilation excluded).
    compile_time : float, s
        Time this call spent compiling the kernel or loading it from Numba's
        cache (0 when it was already loaded in this process).
    traces : dict of str to pandas.Series
        The trace channels the network's mechanisms recorded (for example
        ``Red(record_average=True)``'s ``"red_average"``), each a series of
        values indexed by time in s, keyed ``"name[owner]"`` (the owner a
        link's or a flow's name) and also ``"name"`` alone when a single owner
        records that name.  Empty when no mechanism records one.
    """

    network: Network
    duration: float
    warmup: float
    seed: object
    throughput: np.ndarray
    delivered_packets: np.ndarray
    mean_queueing_delay: np.ndarray
    delay_histogram: np.ndarray
    delay_bin_edges: np.ndarray
    utilisation: np.ndarray
    link_drops: dict
    t: np.ndarray
    throughput_series: np.ndarray
    queue_series: np.ndarray
    cwnd_series: np.ndarray | None
    counters: dict = field(default_factory=dict)
    events: int = 0
    wall_time: float = 0.0
    compile_time: float = 0.0
    peak_packets: int = 0
    peak_events_pending: int = 0
    traces: dict = field(default_factory=dict)
    mean_rtt_estimate: np.ndarray | None = None
    queueing_delay_std: np.ndarray | None = None
    max_queueing_delay: np.ndarray | None = None

    # ------------------------------------------------------------------ construction
    @classmethod
    def _from_arrays(cls, network: Network, c, *, duration, warmup, seed, wall_time, limits,
                     compile_time=0.0):
        window = duration - warmup
        ff, fi, lf, li = c.ff, c.fi, c.lf, c.li
        F = network.n_flows
        qn = fi[:, K.FI_QD_N]
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_qd = np.where(qn > 0, ff[:, K.FF_QD_SUM] / np.maximum(qn, 1), np.nan)
            var_qd = ff[:, K.FF_QD_SQ] / np.maximum(qn, 1) - np.nan_to_num(mean_qd) ** 2
            std_qd = np.where(qn > 0, np.sqrt(np.maximum(var_qd, 0.0)), np.nan)
            max_qd = np.where(qn > 0, ff[:, K.FF_QD_MAX], np.nan)
        rn = fi[:, K.FI_RTT_N_W]
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_rtt = np.where(rn > 0, ff[:, K.FF_RTT_SUM_W] / np.maximum(rn, 1), np.nan)
        nb = c.hist.shape[1]
        edges = ff[:, K.FF_HIST_W][:, None] * np.arange(nb + 1)[None, :]
        n_s = int(c.gi[K.GI_SAMPLE])
        t = np.arange(n_s) * c.gf[K.GF_INTERVAL]
        cum = c.thr_s[:n_s]
        thr_series = np.diff(cum, axis=0) / c.gf[K.GF_INTERVAL] if n_s > 1 else np.zeros((0, F))
        cw = c.cw_s[:n_s] if c.cw_s.shape[0] == c.thr_s.shape[0] else None

        # packets still in the network at the end, per flow (data only)
        used = c.pi[:, K.PI_FLOW] >= 0
        data = used & (c.pi[:, K.PI_KIND] == K.KIND_DATA)
        in_flight = np.bincount(c.pi[data, K.PI_FLOW], minlength=F)
        acks = used & (c.pi[:, K.PI_KIND] == K.KIND_ACK)
        acks_in_flight = np.bincount(c.pi[acks, K.PI_FLOW], minlength=F)
        counters = {
            "sent": fi[:, K.FI_SENT],
            "retransmitted": fi[:, K.FI_RETX],
            "arrived": fi[:, K.FI_ARRIVED],
            "delivered": fi[:, K.FI_DELIVERED],
            "dropped": fi[:, K.FI_DROPS],
            "in_flight": in_flight,
            "timeouts": fi[:, K.FI_TIMEOUTS],
            "fast_retransmits": fi[:, K.FI_FAST_RTX],
            "marked": fi[:, K.FI_MARKED],
            "acks_sent": fi[:, K.FI_ACKS_SENT],
            "acks_arrived": fi[:, K.FI_ACKS_ARRIVED],
            "acks_dropped": fi[:, K.FI_ACK_DROPS],
            "acks_in_flight": acks_in_flight,
            "retransmitted_window": fi[:, K.FI_RETX_W],
            "dropped_window": fi[:, K.FI_DROPS_W],
            "arrived_window": fi[:, K.FI_ARRIVED_W],
            "rtt_samples_window": rn,
            "edge_in_profile": fi[:, K.FI_EDGE_IN],
            "edge_out_of_profile": fi[:, K.FI_EDGE_OUT],
            "edge_in_profile_window": fi[:, K.FI_EDGE_IN_W],
            "edge_out_of_profile_window": fi[:, K.FI_EDGE_OUT_W],
            "edge_dropped": fi[:, K.FI_EDGE_DROPS],
            "edge_held": fi[:, K.FI_EDGE_HELD],
            "edge_blocked": fi[:, K.FI_EDGE_BLOCKED],
            "link_arrivals": li[:, K.LI_ARRIVALS],
            "link_departures": li[:, K.LI_DEPARTURES],
            "link_dropped": (li[:, K.LI_DROP_OVERFLOW] + li[:, K.LI_DROP_EARLY]
                             + li[:, K.LI_DROP_FORCED]),
            "link_waiting": li[:, K.LI_WAITING],
            "link_in_service": (li[:, K.LI_TX] >= 0).astype(np.int64),
            "link_max_waiting": li[:, K.LI_MAX_WAITING],
            "link_arrivals_window": li[:, K.LI_ARR_W],
            "link_drops_window": li[:, K.LI_DROPS_W],
        }
        return cls(
            network=network, duration=duration, warmup=warmup, seed=seed,
            throughput=_ro(ff[:, K.FF_BYTES_W] * 8.0 / window),
            delivered_packets=_ro(fi[:, K.FI_DELIV_W]),
            mean_queueing_delay=_ro(mean_qd),
            queueing_delay_std=_ro(std_qd),
            max_queueing_delay=_ro(max_qd),
            delay_histogram=_ro(c.hist),
            delay_bin_edges=_ro(edges),
            utilisation=_ro(lf[:, K.LF_BUSY] / window),
            link_drops={"overflow": _ro(li[:, K.LI_DROP_OVERFLOW]),
                        "early": _ro(li[:, K.LI_DROP_EARLY]),
                        "forced": _ro(li[:, K.LI_DROP_FORCED]),
                        "marks": _ro(li[:, K.LI_MARKS])},
            t=_ro(t), throughput_series=_ro(thr_series), queue_series=_ro(c.q_s[:n_s]),
            cwnd_series=None if cw is None else _ro(cw),
            counters={k: _ro(v) for k, v in counters.items()},
            events=int(c.gi[K.GI_EVENTS]), wall_time=wall_time, compile_time=compile_time,
            peak_packets=int(c.gi[K.GI_POOL_MAX]), peak_events_pending=int(c.gi[K.GI_HEAP_MAX]),
            traces=_traces(network, c),
            mean_rtt_estimate=_ro(mean_rtt),
        )

    # ------------------------------------------------------------------ views
    @property
    def goodput(self) -> np.ndarray:
        """Alias of :attr:`throughput` (bit/s per flow)."""
        return self.throughput

    @property
    def drop_rate(self) -> np.ndarray:
        """Per link: packets dropped in the window over packets offered in the window."""
        arr = self.counters["link_arrivals_window"]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(arr > 0, self.counters["link_drops_window"] / np.maximum(arr, 1), 0.0)

    def to_pandas(self, what: str = "flows") -> pandas.DataFrame:
        """A table: ``"flows"`` (one row per flow), ``"links"`` (one per link), or the
        time series ``"throughput"``, ``"queue"``, ``"cwnd"`` (index ``t``)."""
        import pandas as pd

        net = self.network
        if what == "flows":
            c = self.counters
            return pd.DataFrame({
                "throughput_bps": self.throughput,
                "delivered_packets": self.delivered_packets,
                "mean_queueing_delay_s": self.mean_queueing_delay,
                "queueing_delay_std_s": self.queueing_delay_std,
                "max_queueing_delay_s": self.max_queueing_delay,
                "sent": c["sent"], "retransmitted": c["retransmitted"], "dropped": c["dropped"],
                "timeouts": c["timeouts"], "fast_retransmits": c["fast_retransmits"],
                "source": [f.source.kind for f in net.flows],
            }, index=pd.Index(net.flow_names, name="flow"))
        if what == "links":
            c = self.counters
            return pd.DataFrame({
                "utilisation": self.utilisation,
                "drop_rate": self.drop_rate,
                "drops_overflow": self.link_drops["overflow"],
                "drops_early": self.link_drops["early"],
                "drops_forced": self.link_drops["forced"],
                "marks": self.link_drops["marks"],
                "departures": c["link_departures"],
                "max_queue_packets": c["link_max_waiting"],
                "queue": [link.queue.kind for link in net.links],
            }, index=pd.Index(net.link_names, name="link"))
        if what == "throughput":
            return pd.DataFrame(self.throughput_series, columns=list(net.flow_names),
                                index=pd.Index(self.t[:-1], name="t_s"))
        if what == "queue":
            return pd.DataFrame(self.queue_series, columns=list(net.link_names),
                                index=pd.Index(self.t, name="t_s"))
        if what == "cwnd":
            if self.cwnd_series is None:
                raise ValueError("no window trace: run with record=Record(cwnd=True)")
            return pd.DataFrame(self.cwnd_series, columns=list(net.flow_names),
                                index=pd.Index(self.t, name="t_s"))
        raise ValueError(
            f"to_pandas(what={what!r}): choose 'flows', 'links', 'throughput', 'queue' or 'cwnd'"
        )

    def summary(self) -> str:
        """A few lines: run, aggregate goodput, Jain's index, busiest link."""
        from ..fairness import jain_index

        busiest = int(np.argmax(self.utilisation)) if self.utilisation.size else 0
        lines = [
            f"simulated {self.duration:g} s (window from {self.warmup:g} s), seed {self.seed}, "
            f"{self.events:,} events in {self.wall_time:.2f} s"
            + (f" (and {self.compile_time:.0f} s compiling the kernel)"
               if self.compile_time > 1.0 else ""),
            f"flows: {self.network.n_flows}, aggregate goodput {self.throughput.sum() / 1e6:.4g} Mb/s, "
            f"Jain's index {jain_index(self.throughput):.4f}",
        ]
        if self.utilisation.size:
            lines.append(
                f"busiest link {self.network.link_names[busiest]}: utilisation "
                f"{self.utilisation[busiest]:.4f}, drop rate {self.drop_rate[busiest]:.4g}, "
                f"max queue {self.counters['link_max_waiting'][busiest]} packets"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return "SimulationResult(\n  " + self.summary().replace("\n", "\n  ") + "\n)"

    def _repr_html_(self) -> str:
        return ("<pre>" + self.summary() + "</pre>" + self.to_pandas("flows").to_html()
                + self.to_pandas("links").to_html())

    def plot(self, what: Any = ("throughput", "queue", "cwnd"), *, ax: Any = None,
             links: Any = None, flows: Any = None, smooth: float | None = None, axes: Any = None,
             **kwargs: Any) -> Any:
        """Plot time series: goodput per flow (Mb/s), queue per link (packets), windows.

        Parameters
        ----------
        what : sequence of str
            Panels, from ``"throughput"``, ``"queue"``, ``"cwnd"`` (windows
            are drawn when they were recorded).
        ax : matplotlib Axes or sequence of Axes, optional
            Where to draw: one Axes per panel (one Axes: the first panel
            only); a new figure if omitted.
        links, flows : sequence of str, optional
            Names to show (default: links that ever queued; all flows up to 10).
        smooth : float, s, optional
            Goodput is drawn as its mean over consecutive windows of this
            length (rounded to whole recording intervals); 0 draws every
            interval.  Default: about a fiftieth of the recording, so that
            the curves stay readable.
        axes : sequence of Axes, optional
            Former name of ``ax``; deprecated.
        **kwargs
            Passed to the Matplotlib calls drawing the series.

        Returns
        -------
        matplotlib.axes.Axes or numpy.ndarray of Axes
            What was drawn on.
        """
        from .._plot import drawn, panels

        if axes is not None:
            import warnings

            warnings.warn("SimulationResult.plot(axes=...) is deprecated; pass ax=...",
                          DeprecationWarning, stacklevel=2)
            ax = axes if ax is None else ax
        if isinstance(what, str):
            what = [what]
        for w in what:
            if w not in ("throughput", "queue", "cwnd"):
                raise ScenarioError(f"plot: unknown panel {w!r}; use 'throughput', 'queue', "
                                    f"'cwnd'")
        what = [w for w in what if not (w == "cwnd" and self.cwnd_series is None)]
        if smooth is not None and not (isinstance(smooth, (int, float)) and
                                       not isinstance(smooth, bool) and 0 <= smooth < np.inf):
            raise ScenarioError(f"plot: smooth must be a number of seconds >= 0 or None, "
                                f"got {smooth!r}")
        axs = panels(ax, len(what), rows=True, sharex=True, figsize=(7, 2.4 * len(what)))
        net = self.network
        fsel = list(flows) if flows is not None else list(net.flow_names[:10])
        fidx = [net.flow_names.index(n) for n in fsel]
        if links is not None:
            lidx = [net.link_names.index(n) for n in links]
        else:
            lidx = [l for l in range(net.n_links) if self.queue_series[:, l].max() > 0][:10]
        for a, w in zip(axs, what):
            if w == "throughput":
                edges, rates, width = self._smoothed_goodput(smooth)
                for i in fidx:
                    a.stairs(rates[:, i] / 1e6, edges, label=net.flow_names[i], **kwargs)
                a.set_ylabel(f"goodput (Mb/s,\nmean over {width:.3g} s)")
            elif w == "queue":
                for l in lidx:
                    a.plot(self.t, self.queue_series[:, l], label=net.link_names[l], **kwargs)
                a.set_ylabel("queue (packets)")
            else:
                for i in fidx:
                    a.plot(self.t, self.cwnd_series[:, i], label=net.flow_names[i], **kwargs)
                a.set_ylabel("window (packets)")
            if a.get_legend_handles_labels()[0]:
                a.legend(fontsize="small", ncol=2)
            if self.warmup > 0:
                a.axvline(self.warmup, color="grey", lw=0.8, ls=":")
            a.set_xlabel("time (s)")
        return drawn(axs)

    def _smoothed_goodput(self, smooth):
        """Edges (s), goodput per flow over each window (bit/s), and the typical window width (s)."""
        dt = np.diff(self.t)
        n = dt.size
        if n == 0:
            return self.t, np.zeros((0, self.network.n_flows)), 0.0
        step = float(np.median(dt))
        if smooth is None:
            k = max(1, round(n / 50))
        else:
            k = max(1, round(smooth / step)) if step > 0 else 1
        starts = np.arange(0, n, k)
        bits = np.add.reduceat(self.throughput_series * dt[:, None], starts, axis=0)
        span = np.add.reduceat(dt, starts)
        rates = np.divide(bits, span[:, None], out=np.zeros_like(bits), where=span[:, None] > 0)
        return np.append(self.t[starts], self.t[-1]), rates, k * step


@dataclass(frozen=True, repr=False)
class ReplicationResult:
    """Independent runs of one scenario, with means and Student-t confidence intervals.

    Attributes
    ----------
    runs : list of SimulationResult
    confidence : float
    """

    runs: list
    confidence: float = 0.95

    def _stack(self, name):
        return np.array([getattr(r, name) for r in self.runs], dtype=float)

    def mean(self, name: str = "throughput") -> np.ndarray:
        """Mean over runs of a per-flow or per-link array attribute (e.g. ``"throughput"``)."""
        return np.nanmean(self._stack(name), axis=0)

    def half_width(self, name: str = "throughput") -> np.ndarray:
        """Half-width of the confidence interval of :meth:`mean`."""
        from scipy import stats

        x = self._stack(name)
        n = x.shape[0]
        return stats.t.ppf(0.5 + self.confidence / 2, n - 1) * np.nanstd(x, axis=0, ddof=1) / np.sqrt(n)

    @property
    def throughput(self) -> np.ndarray:
        """Mean goodput per flow, bit/s."""
        return self.mean("throughput")

    @property
    def mean_queueing_delay(self) -> np.ndarray:
        """Mean of the runs' mean queueing delays per flow, s."""
        return self.mean("mean_queueing_delay")

    def to_pandas(self, what: str = "flows") -> pandas.DataFrame:
        """Means and confidence half-widths per flow (``"flows"``) or per link (``"links"``)."""
        import pandas as pd

        net = self.runs[0].network
        if what == "flows":
            names = ("throughput", "mean_queueing_delay")
            index = pd.Index(net.flow_names, name="flow")
        elif what == "links":
            names = ("utilisation",)
            index = pd.Index(net.link_names, name="link")
        else:
            raise ValueError(f"to_pandas(what={what!r}): choose 'flows' or 'links'")
        cols = {}
        for n in names:
            cols[n] = self.mean(n)
            cols[f"{n}_ci"] = self.half_width(n)
        return pd.DataFrame(cols, index=index)

    def __repr__(self) -> str:
        return (f"ReplicationResult({len(self.runs)} runs, {self.confidence:.0%} intervals, "
                f"mean aggregate goodput {self.throughput.sum() / 1e6:.4g} Mb/s)")
