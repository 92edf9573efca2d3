"""Web traffic: a connection that alternates think times and transfers of Pareto-distributed
size, each carried by TCP NewReno (Barford and Crovella's ON/OFF model of a web user)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from .._validate import real
from ..errors import ScenarioError
from .tcp import TcpNewReno

__all__ = ["WebTraffic"]


@dataclass(frozen=True)
class WebTraffic(TcpNewReno):
    """One web connection: an exponential think time, a transfer of a Pareto-distributed
    number of bytes, another think time, and so on, each transfer sent by TCP NewReno.

    The connection starts (at the flow's ``start``) with a think time, so that many
    connections starting together do not send their first transfers in step.  A
    transfer of ``X`` bytes is ``ceil(X / packet_size)`` packets, ``X`` drawn from a
    Pareto distribution of shape ``shape`` and mean ``mean_size`` (scale ``x_m =
    mean_size (shape - 1) / shape``: ``P(X > x) = (x_m / x)^shape`` for ``x >= x_m``).
    The sender never sends beyond the transfer's last packet; when every packet of
    it is acknowledged, the next think time starts, exponential of mean
    ``think_time``.  The connection is persistent: the RTT estimator and ssthresh
    carry over from one transfer to the next, and each transfer restarts from
    ``min(initial_window, cwnd)`` (RFC 5681, Section 4.1, restarting after an idle
    period longer than a retransmission timeout, as a think time usually is).  The
    draws come from the run's random numbers (``simulate``'s ``seed``).

    The defaults are those of ns-2's large-scale web traffic example
    (``tcl/ex/large-scale-web-traffic.tcl``, ``PagePool/WebTraf`` with hundreds of
    clients): objects of 12 packets on average with a heavy tail of shape 1.2
    (Barford and Crovella measured shapes of 1.0-1.3 in file sizes) and exponential
    times of mean 15 s between pages.  ns-2 draws the sizes from a Pareto II (Lomax)
    distribution, which starts at zero; this source keeps Barford and Crovella's
    Pareto (its smallest transfer is ``scale``) with the same mean and shape.  (ns-2's
    small example, ``tcl/ex/web-traffic.tcl``, has 10-packet objects and 1 s between
    pages: 12.5 times the load per connection.)

    Parameters
    ----------
    mean_size : float, bytes
        Mean transfer size, > 0 (12 000: 12 packets of 1000 bytes).
    shape : float
        Pareto shape, > 1 (a finite mean), 1.2 by default: infinite variance, so
        a few transfers are very long.
    think_time : float, s
        Mean think time, > 0 (15 s).
    max_window, initial_window, min_rto, ... : as :class:`TcpNewReno`
        Every field of :class:`TcpNewReno`.

    References
    ----------
    P. Barford, M. Crovella, "Generating representative web workloads for network and
    server performance evaluation", SIGMETRICS 1998; RFC 5681, Section 4.1; ns-2.35
    ``tcl/ex/large-scale-web-traffic.tcl``.  Used for the ACC paper's Figure 10 (Xia et al.,
    Section V-B).

    Examples
    --------
    >>> from qosmodels.mechanisms import WebTraffic
    >>> w = WebTraffic()
    >>> w.kind, w.mean_size, round(w.scale, 1)
    ('web', 12000.0, 2000.0)
    """

    mean_size: float = 12000.0
    shape: float = 1.2
    think_time: float = 15.0

    kind: ClassVar[str] = "web"
    kernel: ClassVar[str] = "sources.web"

    def __post_init__(self):
        super().__post_init__()
        n = "WebTraffic"
        set_ = object.__setattr__
        set_(self, "mean_size", real(n, "mean_size", self.mean_size, gt=0, unit="bytes"))
        set_(self, "shape", real(n, "shape", self.shape, gt=0))
        if not self.shape > 1.0:
            raise ScenarioError(f"WebTraffic.shape must be > 1 (a Pareto distribution of shape "
                                f"<= 1 has no finite mean size), got {self.shape!r}")
        set_(self, "think_time", real(n, "think_time", self.think_time, gt=0, unit="s"))
        if not math.isfinite(self.scale) or self.scale <= 0:
            raise ScenarioError(f"WebTraffic.mean_size = {self.mean_size!r} bytes with shape "
                                f"{self.shape!r} gives no usable Pareto scale; choose a mean size "
                                f"of at least one byte")

    @property
    def scale(self) -> float:
        """The Pareto scale ``x_m = mean_size (shape - 1) / shape``, bytes: the smallest size."""
        return self.mean_size * (self.shape - 1.0) / self.shape
