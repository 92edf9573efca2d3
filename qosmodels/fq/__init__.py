"""Fair queueing (Demers, Keshav, Shenker): round numbers, bids, Telnet delay, Figure 1.

* :func:`fair_queue` -- exact bit-by-bit round robin (R(t), N_ac(t), S, F,
  the bid B with delta, weights n_alpha) and packetised FQ, nonpreemptive
  and preemptive, for an arrival trace; returns a :class:`FairQueueResult`.
* The Telnet delay analysis: :func:`emulation_delay_bounds` (A(P) as SymPy
  ``Piecewise``), :func:`emulation_delay` (A(P) for a given FTP
  synchronisation, exactly), :func:`delay_expr`, :func:`poisson_delay_expr`,
  :func:`telnet_limits`, and the vectorised :func:`telnet_delay`.
* Figure 1's FCFS curve derived from the paper's model:
  :func:`fcfs_delay_expr`, :func:`fcfs_telnet_delay`; Monte-Carlo checks
  :func:`simulate_telnet_fq` and :func:`simulate_telnet_fcfs`.
* :func:`maxmin_share`: the max-min fair share (water level) of one resource.

SymPy and Matplotlib are imported only by the functions that use them.

References
----------
A. Demers, S. Keshav, S. Shenker, "Analysis and simulation of a fair
queueing algorithm", Internetworking: Research and Experience 1 (1990) 3-26
(SIGCOMM '89).
"""

from __future__ import annotations

from .core import FairQueueResult, fair_queue
from .maxmin import maxmin_share
from .telnet import (
    TelnetMonteCarlo,
    delay_expr,
    emulation_delay,
    emulation_delay_bounds,
    fcfs_delay_expr,
    fcfs_telnet_delay,
    phase_delay,
    poisson_delay_expr,
    simulate_telnet_fcfs,
    simulate_telnet_fq,
    telnet_delay,
    telnet_limits,
)

__all__ = [
    "fair_queue",
    "FairQueueResult",
    "telnet_delay",
    "fcfs_telnet_delay",
    "maxmin_share",
    "emulation_delay_bounds",
    "emulation_delay",
    "phase_delay",
    "delay_expr",
    "poisson_delay_expr",
    "fcfs_delay_expr",
    "telnet_limits",
    "simulate_telnet_fq",
    "simulate_telnet_fcfs",
    "TelnetMonteCarlo",
]
