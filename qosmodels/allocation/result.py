"""The result of :func:`~qosmodels.allocate`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..network import Network

if TYPE_CHECKING:  # pragma: no cover
    import pandas


@dataclass(frozen=True)
class Allocation:
    """A fair allocation of a network's capacity to its flows.

    Attributes
    ----------
    network : Network
        The network allocated.
    fairness : str
        ``"proportional"``, ``"alpha"``, ``"maxmin"`` or ``"max-throughput"``.
    alpha : float or None
        The fairness parameter (1 for proportional, None for max-min and
        maximum throughput).
    rates : ndarray, shape (F,), bit/s
        Per-flow rates, in the order of ``network.flows``.
    prices : ndarray, shape (L,)
        Per-link prices: the Lagrange multipliers of the capacity constraints.
        For weighted proportional fairness they are Kelly's prices, in weight
        per bit/s (so with weights in bits, as ACC's accumulation targets, in
        seconds: the links' queueing delays).  NaN for max-min, which has no
        prices.  For large alpha they scale as ``(w / x)^alpha`` and can
        underflow to 0; :func:`qosmodels.allocation.logdual.alpha_fair_log`
        returns their logarithms.
    utilisation : ndarray, shape (L,)
        Load over capacity of each link.
    bottlenecks : tuple of tuple of str
        For each flow, the names of the saturated links that limit it.
    solver : str
        ``"ipm"``, ``"ipm-logprice"`` (alpha > 2), ``"progressive-filling"``,
        ``"highs"`` or ``"cvxpy-clarabel"``.
    status : str
        The solver's status.
    duality_gap : float
        Certified relative duality gap (0 for the exact combinatorial
        algorithms; see :func:`qosmodels.allocation.problem.relative_gap`).
    iterations : int
        Solver iterations (interior-point steps or filling rounds).
    """

    network: Network
    fairness: str
    alpha: float | None
    rates: np.ndarray
    prices: np.ndarray
    utilisation: np.ndarray
    bottlenecks: tuple[tuple[str, ...], ...]
    solver: str
    status: str
    duality_gap: float
    iterations: int = 0
    extra: dict = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        a = "" if self.alpha is None else f", alpha={self.alpha:g}"
        return (f"Allocation({self.fairness}{a}, {len(self.rates)} flows, solver={self.solver}, "
                f"status={self.status}, gap={self.duality_gap:.2g})")

    def rate(self, flow) -> float:
        """The rate of one flow (index or name), bit/s."""
        return float(self.rates[self.network._flow_id(flow)])

    def price(self, link) -> float:
        """The price of one link (``(src, dst)``, ``"src->dst"`` or index)."""
        return float(self.prices[self.network.link_id(link)])

    def to_pandas(self, kind: str = "flows") -> pandas.DataFrame:
        """A table of the allocation.

        Parameters
        ----------
        kind : {"flows", "links"}
            ``"flows"``: rate (bit/s), weight, bottleneck links per flow;
            ``"links"``: capacity (bit/s), load (bit/s), utilisation, price.
        """
        import pandas as pd

        net = self.network
        if kind == "flows":
            return pd.DataFrame(
                {
                    "rate_bps": self.rates,
                    "weight": net.weights,
                    "route": ["-".join(f.route) for f in net.flows],
                    "bottlenecks": [", ".join(b) for b in self.bottlenecks],
                },
                index=pd.Index(net.flow_names, name="flow"),
            )
        if kind == "links":
            return pd.DataFrame(
                {
                    "capacity_bps": net.capacities,
                    "load_bps": net.routing_matrix @ self.rates,
                    "utilisation": self.utilisation,
                    "price": self.prices,
                },
                index=pd.Index(net.link_names, name="link"),
            )
        from ..errors import ScenarioError

        raise ScenarioError(f"kind must be 'flows' or 'links', got {kind!r}")

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Bar charts of the flows' rates (Mb/s) and the links' prices or utilisation.

        Parameters
        ----------
        ax : matplotlib Axes or sequence of two, optional
            Where to draw (one Axes: the rates only); a new figure if omitted.
        **kwargs
            Passed to the ``bar`` calls (``color``, ``alpha``, ...).

        Returns
        -------
        matplotlib.axes.Axes or numpy.ndarray of Axes
            What was drawn on.
        """
        from .._plot import drawn, panels

        ax = panels(ax, 2)
        net = self.network
        ax[0].bar(net.flow_names, self.rates / 1e6, **kwargs)
        ax[0].set_ylabel("rate (Mb/s)")
        ax[0].set_title(f"{self.fairness} rates")
        ax[0].tick_params(axis="x", labelrotation=90)
        if len(ax) > 1:
            if np.all(np.isnan(self.prices)):
                ax[1].bar(net.link_names, self.utilisation, **kwargs)
                ax[1].set_ylabel("utilisation")
                ax[1].set_title("link utilisation")
            else:
                ax[1].bar(net.link_names, self.prices, **kwargs)
                # Kelly's prices are in weight per bit/s: seconds when the weights are bits
                ax[1].set_ylabel("price (weight per bit/s)" if self.alpha in (None, 1.0)
                                 else f"price ((weight per bit/s)^{self.alpha:g})")
                ax[1].set_title("link prices")
            ax[1].tick_params(axis="x", labelrotation=90)
        return drawn(ax)

    def _repr_html_(self) -> str:
        return f"<p><b>{self!r}</b></p>{self.to_pandas().to_html()}"
