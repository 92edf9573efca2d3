"""Does a fluid trajectory settle?  A sweep of the control gain kappa.

The paper leaves the stability of its control laws open (Section III-C: "The
stability of the general algorithm (2) is still an open question") and turns
to simulation; :func:`kappa_sweep` does the same with the fluid model: it
solves the model for each gain and reports whether the rates have stopped
moving at the end of the run.

Why a large kappa oscillates: near equilibrium the proportional law (6) makes
the window an integrator of the accumulation error, and the queue an
integrator of the rate excess, so the loop is a double integrator closed
through the feedback delay; the only damping comes from the queueing delay
in ``rtt`` (a longer queue slows ``w / rtt``).  The loop gain grows with
kappa and with the number of links a flow crosses, and the delay adds phase
lag, so past a critical kappa the equilibrium loses stability and a limit
cycle appears (on the 9-link, 2 ms parking lot between kappa = 0.3 and 0.4).

References
----------
Xia et al., "Accumulation-based congestion control", 2005, Section III-C.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from .. import _validate as v
from ..network import Network

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from .result import FluidResult

__all__ = ["oscillation", "kappa_sweep", "KappaSweep"]


def oscillation(result: FluidResult, window: float = 5.0) -> float:
    """Relative peak-to-peak swing of the flows' rates over the last ``window`` seconds.

    ``max_i (max x_i - min x_i) / mean x_i`` over the samples in
    ``[t_end - window, t_end]``, counting only flows active throughout.
    A settled run gives (nearly) 0; a limit cycle gives a value of order 1.
    """
    window = v.real("oscillation", "window", window, gt=0, unit="s")
    t = result.t
    sel = t >= t[-1] - window
    x = result.rates[sel]
    on = np.all(x > 0, axis=0)
    if not np.any(on):
        return 0.0
    x = x[:, on]
    return float(np.max(np.ptp(x, axis=0) / np.mean(x, axis=0)))


@dataclass(frozen=True)
class KappaSweep:
    """The result of :func:`kappa_sweep`.

    Attributes
    ----------
    kappas : ndarray
        The gains tried.
    amplitude : ndarray
        :func:`oscillation` of each run.
    settled : ndarray of bool
        ``amplitude < tol``.
    tol : float
        The threshold used.
    """

    kappas: np.ndarray
    amplitude: np.ndarray
    settled: np.ndarray
    tol: float

    def critical(self) -> float | None:
        """The smallest gain tried that did not settle (None if all settled)."""
        bad = self.kappas[~self.settled]
        return float(bad.min()) if len(bad) else None

    def to_pandas(self) -> pandas.DataFrame:
        import pandas as pd

        return pd.DataFrame({"kappa": self.kappas, "amplitude": self.amplitude,
                             "settled": self.settled})


def kappa_sweep(network: Network, kappas: Sequence[float], *, t_end: float = 60.0,
                window: float = 5.0, tol: float = 1e-3, **options) -> KappaSweep:
    """Solve the fluid model for each gain and say whether the rates settle.

    Parameters
    ----------
    network : Network
    kappas : sequence of float
        Gains to try, each > 0.
    t_end : float, s
        Length of each run.
    window : float, s
        The final interval over which the swing is measured.
    tol : float
        Relative swing below which a run counts as settled.
    **options
        Passed to :func:`~qosmodels.fluid.solve_fluid` (control, estimator, ...).

    Examples
    --------
    >>> from qosmodels.topologies import acc_linear
    >>> from qosmodels.units import ms
    >>> from qosmodels.fluid.stability import kappa_sweep
    >>> sweep = kappa_sweep(acc_linear(9, delay=ms(2)), [0.3, 0.5])
    >>> sweep.settled.tolist()
    [True, False]
    """
    from . import solve_fluid

    ks = np.array([v.real("kappa_sweep", "kappas", k, gt=0) for k in kappas], dtype=float)
    tol = v.real("kappa_sweep", "tol", tol, gt=0)
    amp = np.array([oscillation(solve_fluid(network, t_end, kappa=k, **options), window)
                    for k in ks])
    return KappaSweep(kappas=ks, amplitude=amp, settled=amp < tol, tol=tol)
