"""Fluid models of accumulation-based congestion control (ACC) as delay-differential equations.

:func:`solve_fluid` integrates the ACC fluid model of Xia et al. on any
:class:`~qosmodels.Network`: per-link FIFO queues (clamped at zero, finite
buffers that drop), per-flow windows driven by one of the paper's control laws
(eq (3) AIAD, eq (5) Mo-Walrand, eq (6) proportional) from an accumulation
estimate (the ideal eq (1), Vegas, Vegas-k or Monaco, with optional AVD
virtual delays), and real propagation delays read from a history buffer.
:func:`acc_equilibrium` gives the equilibrium the trajectories approach.

Numba is imported only when a model is solved, never by ``import qosmodels``.

References
----------
Y. Xia, D. Harrison, S. Kalyanaraman, K. Ramachandran, A. Venkatesan,
"Accumulation-based congestion control", IEEE/ACM Trans. Networking 13(1),
2005.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np

from .. import _validate as v
from ..errors import ScenarioError, SimulationError
from ..network import Network
from ._compile import DEFAULT_RED, CompiledFluid, LinkChange, Red, compile_fluid, step_work
from .dctcp import DctcpFluidResult, solve_dctcp_fluid
from .equilibrium import AccEquilibrium, RenoEquilibrium, acc_equilibrium, reno_equilibrium
from .estimators import CONTROLS, ESTIMATORS
from .mgt import MgtResult, PieLaw, PiLaw, RedLaw, mgt_scenario, solve_mgt
from .result import FluidResult

__all__ = ["solve_fluid", "FluidResult", "LinkChange", "Red", "DEFAULT_RED", "acc_equilibrium",
           "AccEquilibrium", "reno_equilibrium", "RenoEquilibrium", "CONTROLS", "ESTIMATORS",
           "compile_fluid", "solve_mgt", "MgtResult", "RedLaw", "PiLaw", "PieLaw", "mgt_scenario",
           "solve_dctcp_fluid", "DctcpFluidResult"]


def solve_fluid(
    network: Network,
    t_end: float = 40.0,
    *,
    control: str = "P",
    kappa: float = 0.5,
    target=3000,
    estimator: str = "ideal",
    dt: float | None = None,
    method: str = "auto",
    rtt_p_error: float = 0.0,
    vegas_k: int = 5,
    initial_window: float = 1.0,
    events: Sequence[LinkChange] = (),
    avd_links: Sequence = (),
    avd_utilisation: float = 0.98,
    avd_alpha: float = 0.15,
    red_links: Sequence = (),
    red: Red | None = None,
    save_dt: float | None = None,
    max_steps: int | None = None,
    coarse_dt: bool = False,
    threads: int | None = None,
) -> FluidResult:
    """Integrate the ACC fluid model (a delay-differential equation) on a network.

    Each flow i keeps a window ``w_i`` (bits) and sends at ``x_i = w_i / rtt_i``
    (capped at its ``max_rate``), ``rtt_i`` being its propagation round trip
    plus the queueing delays its latest acknowledgement met on the forward and
    (declared) reverse links.  Links are FIFO queues at their input, served at
    their capacity, clamped at zero, with a finite buffer (``Link.buffer``
    packets of the mean packet size of the flows crossing) beyond which bits
    are dropped; a flow that loses bits halves its window, at most once per
    round trip, one propagation round trip after the loss.  Bits leaving a
    link reach the next after its propagation delay.  The window follows the
    control law from the estimator's accumulation; flows are active between
    their ``Flow.start`` and ``Flow.stop``.

    Parameters
    ----------
    network : Network
        Links (capacity, delay, buffer) and flows (route, packet size, start,
        stop, max_rate).  Every flow needs a positive round-trip delay.
    t_end : float, s
        Length of the run, > 0.
    control : {"P", "AIAD", "MW", "Reno"}
        Control law: eq (6) proportional, eq (3) AIAD (``kappa`` packets per
        RTT), eq (5) Mo-Walrand (read per RTT in packets, like eqs (3) and (6));
        or ``"Reno"``, the TCP Reno fluid model of Misra, Gong and Towsley,
        driven by the marks of RED links (``red_links`` and links whose queue
        is a ``Red``), of PI and PIE links (links whose queue is a
        :class:`~qosmodels.mechanisms.Pi` or :class:`~qosmodels.mechanisms.Pie`:
        the laws of :class:`~qosmodels.fluid.mgt.PiLaw` and
        :class:`~qosmodels.fluid.mgt.PieLaw`, the queue read in packets of the
        mean size of the flows crossing, PIE's delay as ``queue / capacity``)
        and by buffer overflow; links under CoDel or FQ-CoDel are refused (no
        fluid law); see :mod:`qosmodels.fluid.estimators`.
    kappa : float
        Gain of the control law, > 0 (the paper's Table I uses 0.5).
    target : float or sequence of float, bytes
        Accumulation target a_i* of every flow or of each flow, > 0
        (Table I: 3000 bytes).
    estimator : {"ideal", "vegas", "vegas-k", "monaco"}
        How the sender learns its accumulation (see
        :mod:`qosmodels.fluid.estimators`).
    dt : float, s, optional
        Integration step; must be below the smallest positive propagation
        delay of the flows' links (unless ``coarse_dt``).  Default: 0.9 times
        that delay, at most 1 ms.  Not used by ``method="lsoda"`` (adaptive steps).
    method : {"auto", "numba", "lsoda"}
        The integrator.  ``"numba"`` (and ``"auto"``): the fixed-step
        delay-differential integrator described in the Notes, which supports
        every option.  ``"lsoda"``: the model **without propagation delays**
        in transit (an ODE: every delay in the feedback and between links is
        set to zero, while the round-trip time keeps its propagation part,
        ``rtt = rtt_p + queueing delays``), written per flow and hop as in
        :mod:`qosmodels.fluid._reference` (a FIFO link serves each flow in
        proportion to its queued bits, smoothed within one packet of an empty
        queue) and integrated by ``scipy.integrate.solve_ivp(method="LSODA")``
        with ``rtol = 1e-8``, ``atol = 1e-6`` bits.  It has the same
        equilibrium as the delay model (up to the smoothing, about 1e-3 of
        the queue) but not its transients or oscillations, and it models only
        ``control="P"`` with ``estimator="ideal"``, flows active for the whole
        run without ``max_rate``, no ``events``, ``avd_links`` or RED, and
        infinite buffers.  Its result has NaN in ``departed``, ``delivered``
        and ``lost`` (and so in ``utilisation()`` and ``throughput()``), and
        ``dt`` = NaN; ``estimates`` and ``accumulation`` are both the flow's
        queued bits, ``virtual_delays`` and ``marking`` are zero.
    rtt_p_error : float, s
        Error added to Vegas' estimate of the round-trip propagation delay
        (positive: overestimate).  Ignored by the other estimators.
    vegas_k : int
        Vegas-k's memory, in round trips, >= 1.
    initial_window : float, packets
        Every flow's window when it starts, > 0.
    events : sequence of LinkChange
        Link delay changes during the run.
    avd_links : sequence
        Links running AVD (Kunniyur and Srikant's adaptive virtual queue,
        whose virtual delay is added to the ideal and Monaco estimates).
    avd_utilisation : float
        AVQ's target utilisation gamma, in (0, 1].
    avd_alpha : float, 1/s
        AVQ's gain: ``d c_virtual / dt = alpha (gamma c - arrival rate)``.
    red_links : sequence
        Links running RED (marking, ECN-style) with parameters ``red``.  Links
        whose ``queue`` is a :class:`qosmodels.mechanisms.Red` run RED with their own
        parameters without being listed, so the network that the packet
        simulator runs describes the fluid model's RED as well.
    red : qosmodels.mechanisms.Red, optional
        RED's parameters at ``red_links`` (default 20 / 80 packets, max_p 0.1,
        w_q 0.002, gentle).
    save_dt : float, s, optional
        Sampling interval of the result (rounded to a multiple of ``dt``);
        default ``max(0.01, t_end / 2000)``.
    max_steps : int, optional
        Integration steps the run may take (``t_end / dt``).  Without it, a
        run whose work (steps x (hops + flows + links + 16)) exceeds
        ``DEFAULT_MAX_WORK`` (2e10, some 5-10 minutes) is refused before it
        starts.  Ctrl-C stops a run within a second or two (the kernel runs
        in slices of ``SLICE_WORK`` step-updates) and raises
        ``KeyboardInterrupt`` saying how far it got.
    coarse_dt : bool, default False
        Allow a ``dt`` at or above some links' propagation delays (it must then
        be given, and be below the shortest round-trip propagation delay).  A
        link shorter than ``dt`` is handled like a zero-delay link: the hops
        behind it read the departures it computed in the same step
        (interpolated within the step), so links are processed in the order of
        such dependencies, and a cycle of such links is refused.  The feedback
        lags shorter than a step are read from the latest step.  An opt-in
        approximation for large networks, whose shortest link sets the default
        step (issue 37: a 1.04 ms link makes ``dt`` 0.93 ms for 10^4 flows whose
        round trips are 10-80 ms); its error against the default step is
        measured in ``benchmarks/RESULTS.md``.  Off: results are those of the
        default scheme, bit for bit.
    threads : int, optional
        Threads of the integrator (``method="numba"``): the per-flow and per-link
        parts of each step run on that many threads, with the same numbers bit for
        bit as on one (no sum is split between threads).  1: the serial loop; an
        int up to ``NUMBA_NUM_THREADS``: that many threads throughout.  Default
        None: Numba's thread count (``numba.get_num_threads()``, the machine's CPUs
        unless ``NUMBA_NUM_THREADS`` or ``numba.set_num_threads`` says otherwise),
        used only while it is faster: the threaded and the serial loops are timed
        on short slices at the start and every few slices, and each slice runs the
        faster (:class:`qosmodels.fluid._threads.LoopChoice`; threads help only
        when the cores are free: on a machine whose cores other processes use, a
        step waits for the thread the system has not scheduled).  Networks whose
        step is under ``THREADS_MIN_WORK`` step-updates (hops + flows + links + 16,
        :mod:`qosmodels.fluid._threads`) run serially whatever ``threads`` says (a
        parallel region costs more to start than such a step).  Threads shorten
        the wall time of a large run, never its CPU time.  One threaded run at a
        time per process: a ``solve_fluid`` called from another Python thread while
        one runs on threads integrates serially (Numba's ``workqueue`` threading
        layer aborts the process on concurrent parallel calls); so does a process
        forked after running under GNU OpenMP.  The first threaded run compiles (or
        loads from Numba's cache) the threaded kernel.

    Returns
    -------
    FluidResult
        ``.t`` (s), ``.rates`` (T x F, bit/s), ``.queues`` (T x L, bits),
        windows, RTTs, estimates, true accumulations, and the cumulative
        departures, deliveries and losses.

    Raises
    ------
    ScenarioError
        For invalid options (``kappa <= 0``, ``target <= 0``, ``t_end <= 0``,
        ``dt`` not below the smallest delay, an unknown control, estimator or
        method, an option that ``method="lsoda"`` does not model).
    BudgetError
        A run predicted to exceed its work budget (see ``max_steps``), or whose
        histories and saved samples would exceed the memory budget
        (:mod:`qosmodels.budget`), before anything is allocated.
    SimulationError
        If the integration produced non-finite values or outran its history.

    Notes
    -----
    The integrator is a fixed-step scheme: an exact FIFO fluid for the queues
    (cumulative arrival and departure curves, linear between steps), Heun's
    method for the windows and the trapezoidal rule for the sources, with
    delays read from a ring buffer by linear interpolation.  Its measured
    convergence order is about 2 on smooth trajectories (see the tests).

    References
    ----------
    Xia et al., "Accumulation-based congestion control", IEEE/ACM Trans.
    Networking, 2005: eq (1) accumulation, eqs (3), (5), (6) control laws,
    eqs (7)-(12) Vegas, Section IV-B Monaco, Section IV-D AVD, Appendix
    equilibrium.

    Examples
    --------
    >>> from qosmodels.topologies import acc_parking_lot
    >>> from qosmodels.fluid import solve_fluid
    >>> res = solve_fluid(acc_parking_lot(), t_end=30.0, kappa=0.2)
    >>> [round(float(r) / 1e6, 2) for r in res.rates[-1]]
    [3.0, 6.0, 6.0]
    """
    method = _method(method)
    if threads is not None:
        v.integer("solve_fluid", "threads", threads, ge=1)
    _refuse_unmodelled_aqm(network, control)
    comp = compile_fluid(
        network, t_end=t_end, control=control, kappa=kappa, target=target, estimator=estimator,
        dt=dt, rtt_p_error=rtt_p_error, vegas_k=vegas_k, initial_window=initial_window,
        events=events, avd_links=avd_links, avd_utilisation=avd_utilisation, avd_alpha=avd_alpha,
        red_links=red_links, red=red, save_dt=save_dt, max_steps=max_steps, coarse_dt=coarse_dt,
    )
    options = dict(control=control, kappa=kappa, estimator=estimator, target=target,
                   rtt_p_error=rtt_p_error, vegas_k=vegas_k, initial_window=initial_window,
                   events=tuple(events) if not isinstance(events, LinkChange) else (events,),
                   avd_links=tuple(avd_links), avd_utilisation=avd_utilisation,
                   avd_alpha=avd_alpha, red_links=tuple(red_links), red=red, t_end=t_end,
                   method=method)
    if method == "lsoda":
        from ._reference import solve_lsoda

        _check_lsoda(network, comp, options)
        return solve_lsoda(network, comp, options)
    return run_compiled(network, comp, options, threads=threads)


METHODS = ("auto", "numba", "lsoda")

#: Step-updates (steps x (hops + flows + links + 16), as ``DEFAULT_MAX_WORK`` counts them)
#: the kernel does per call at most, about 1-2 s: between calls Python sees Ctrl-C (a
#: jitted loop cannot), and the run continues exactly where the last call stopped.
SLICE_WORK = 5e7


#: Queue disciplines that drop or mark by a law of their own, which the network fluid
#: model (RED, PI and PIE marks, and buffer overflow) does not represent: a TCP Reno model
#: of a network using them is refused rather than run as if they were drop-tail.
UNMODELLED_AQM = ("codel", "fq_codel")


def _refuse_unmodelled_aqm(network, control) -> None:
    if control != "Reno" or not isinstance(network, Network):
        return  # (the compile step checks the arguments themselves)
    for link in network.links:
        kind = getattr(link.queue, "kind", None)
        if kind in UNMODELLED_AQM:
            raise ScenarioError(
                f"solve_fluid(control='Reno') models RED's, PI's and PIE's marks and buffer "
                f"overflow, but link {link.name!r} uses {type(link.queue).__name__}, whose "
                f"drop law this model does not have (it would run as drop-tail); give the "
                f"link queue=Red(...), Pi(...) or Pie(...), or use the packet simulator: "
                f"CoDel has no fluid law in the library yet")


def _method(method) -> str:
    if not isinstance(method, str) or method.lower() not in METHODS:
        raise ScenarioError(f"solve_fluid.method must be one of {METHODS}, got {method!r}")
    m = method.lower()
    return "numba" if m == "auto" else m


def _check_lsoda(network: Network, comp: CompiledFluid, options: dict) -> None:
    """Reject the options that the delay-free LSODA model does not represent."""
    fix = "use method='numba' (the default), which models it"

    def bad(what: str) -> ScenarioError:
        return ScenarioError(f"solve_fluid(method='lsoda') integrates the model without "
                             f"propagation delays and does not support {what}; {fix}")

    if str(options["control"]).upper() != "P":
        raise bad(f"control={options['control']!r} (only the proportional law 'P')")
    if str(options["estimator"]).lower() != "ideal":
        raise bad(f"estimator={options['estimator']!r} (its estimate needs the delays; only "
                  f"'ideal')")
    if options["events"]:
        raise bad(f"events (link delay changes, got {len(options['events'])})")
    if comp.avd.any():
        raise bad("avd_links (AVD's virtual delay)")
    if comp.red.any():
        raise bad("RED (red_links or links with a Red queue)")
    for i, f in enumerate(network.flows):
        if f.start != 0.0 or f.stop is not None:
            raise bad(f"flows that start or stop during the run (flow "
                      f"{network.flow_names[i]!r}: start={f.start!r}, stop={f.stop!r})")
        if f.max_rate is not None:
            raise bad(f"Flow.max_rate (flow {network.flow_names[i]!r}: {f.max_rate!r} bit/s)")


def run_compiled(network: Network, comp: CompiledFluid, options: dict | None = None, *,
                 threads: int | None = None) -> FluidResult:
    """Run the Numba kernel on a compiled scenario and wrap the result (a progress bar with
    the time left once it has run :data:`qosmodels._progress.PROGRESS_AFTER` s), on
    ``threads`` threads (see :func:`solve_fluid`)."""
    from .._progress import Progress
    from ._kernels import STATUS_HISTORY, STATUS_NONFINITE, workspace
    from ._threads import LoopChoice, plan, run_slice, thread_count

    comp, extra = plan(comp, thread_count(threads), step_work(network))

    n_save = comp.n_steps // comp.save_every + 1
    F, L = network.n_flows, network.n_links
    out_t = np.zeros(n_save)
    fl = [np.zeros((n_save, F)) for _ in range(5)]  # w, x, rtt, est, acc
    ln = [np.zeros((n_save, L)) for _ in range(4)]  # q, vq, mark, dep
    deliv, lost = np.zeros((n_save, F)), np.zeros((n_save, F))
    work = workspace(comp.ring, comp.ring_s, int(comp.a_off[-1]), comp.cap, comp.delay0, comp.w0,
                     comp.hop_flow, comp.vegas_k)
    args = (*comp.kernel_args(), out_t, *fl, *ln, deliv, lost, work)
    progress = np.zeros(2, np.int64)  # the next delay change; the steps done
    chunk = max(1, int(SLICE_WORK // step_work(network)))
    status, step, index = 0, -1, -1
    # a bar with the time left once the run has taken PROGRESS_AFTER s (tqdm's delay)
    bar = Progress(-(-(comp.n_steps + 1) // chunk), None, "solve_fluid", "slice")
    # threads=None: each slice on the loop (threaded or serial) found faster on this machine
    choice = LoopChoice(threads is None and extra is not None, chunk)
    bar_at = step + chunk  # (the bar counts slices of `chunk` steps; probes are shorter)
    try:
        while status == 0 and step < comp.n_steps:
            on_threads, steps = choice.next()
            t0 = time.perf_counter()
            (status, done, index), threaded = run_slice(
                args, step, min(step + steps, comp.n_steps), progress,
                extra if on_threads else None)
            if extra is not None:
                choice.record(threaded, done - step, time.perf_counter() - t0)
            step = done
            while step >= bar_at or (step >= comp.n_steps and bar_at - chunk < comp.n_steps):
                bar.update()
                bar_at += chunk
    except KeyboardInterrupt:
        raise KeyboardInterrupt(f"solve_fluid interrupted at t = {progress[1] * comp.dt:.6g} s "
                                f"of {comp.n_steps * comp.dt:g} s") from None
    finally:
        bar.close()
    if status == STATUS_NONFINITE:
        what = (f"flow {network.flow_names[index]!r}" if index < F
                else f"link {network.link_names[index - F]!r}")
        raise SimulationError(
            f"the fluid integration produced a non-finite value for {what} at t = "
            f"{step * comp.dt:g} s; use a smaller dt (now {comp.dt:g} s) or a smaller kappa"
        )
    if status == STATUS_HISTORY:
        raise SimulationError(
            f"the queue of link {network.link_names[index]!r} held bits longer than the delay "
            f"history ({int(comp.a_mask[index]) + 1} steps of {comp.dt:g} s) at "
            f"t = {step * comp.dt:g} s; "
            f"this is a bug in the history sizing, please report it"
        )
    if status != 0:  # pragma: no cover - defensive
        raise SimulationError(f"the fluid kernel stopped with unknown status {status}")
    w, x, rtt, est, acc = fl
    q, vq, mark, dep = ln
    return FluidResult(
        network=network, t=out_t, rates=x, windows=w, rtt=rtt, estimates=est, accumulation=acc,
        queues=q, virtual_delays=vq, marking=mark, departed=dep, delivered=deliv, lost=lost,
        targets=comp.target.copy(), dt=comp.dt, options=dict(options or {}),
    )
