"""The ``qosmodels`` command.

::

    qosmodels list                         registered experiments (with the parameters their
                                           papers leave unstated), and topologies with their
                                           parameters and defaults
    qosmodels warmup [TOPOLOGY [options]]  compile the packet and fluid kernels ahead of time
                                           (with TOPOLOGY: only what its mechanisms need)
    qosmodels allocate TOPOLOGY [options]  a fair allocation of a named topology, as a table
    qosmodels simulate TOPOLOGY [options]  packets, next to the theory that describes them
                                           (TOPOLOGY: a registered name or a scenario file,
                                           scenario.json or .yaml, from Network.save; a
                                           paper's topology runs with its paper's mechanisms,
                                           PAPER_MECHANISMS, unless --bare)
    qosmodels validate [NAME...] [--json] [--sides theory,fluid,packets] [--quick] [--jobs N]
                       [--explore] [--executor {serial,process,dask}] [--plot FILE]
                                           run experiments: paper, theory, fluid and packets
                                           side by side with the expected value and a verdict

``validate`` prints one progress line per experiment to standard error, then
the report, summary first (the totals, then one line per experiment and per
paper: rows reproduced, reachable, known differences, fails).  It exits with status 1
when any row's verdict is ``fails`` (outside tolerance and not explained by a
declared known difference or an explored setting), 0 otherwise.  With ``--plot FILE`` it
also draws the report into FILE (any format Matplotlib writes: .png, .pdf, .svg): the
verdicts per paper, and the rows outside tolerance on the scale the verdicts are judged on
(:meth:`ValidationReport.plot <qosmodels.experiments.ValidationReport.plot>`).

Bad arguments never show a traceback: every usage error (an unknown command,
topology, experiment or side, a malformed ``-p key=value``, a parameter the
topology does not take or a value it refuses, a negative, infinite or NaN
number, a network over the memory budget) prints one line,
``qosmodels: error: ...``, on standard error and exits with status 2, before
anything heavy runs.  Internal errors (bugs) still show their traceback.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import math
import sys

from . import __version__

__all__ = ["main"]


class _UsageError(Exception):
    """A command-line usage error: printed as one line, exit status 2."""

    def __init__(self, prog: str, message: str):
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (no usage block) and do not exit."""

    def error(self, message: str):
        raise _UsageError(self.prog, f"{message} (see {self.prog} --help)")


def _param(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"parameter {text!r} must be key=value, e.g. n_links=3")
    key, value = text.split("=", 1)
    key = key.strip().replace("-", "_")
    if not key.isidentifier():
        raise argparse.ArgumentTypeError(
            f"parameter {text!r} must be key=value with a parameter name as key, e.g. n_links=3")
    try:
        parsed = ast.literal_eval(value.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        parsed = value  # a string; the builder says if it wanted something else
    return key, parsed


def _number(kind: str, *, gt=None, ge=None):
    """An argparse type: a finite float (or int) within bounds, with a one-line message."""
    def convert(text: str):
        try:
            value = int(text) if kind == "int" else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be {'an integer' if kind == 'int' else 'a number'}, got {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be finite, got {text!r}")
        if gt is not None and not value > gt:
            raise argparse.ArgumentTypeError(f"must be > {gt}, got {text!r}")
        if ge is not None and not value >= ge:
            raise argparse.ArgumentTypeError(f"must be >= {ge}, got {text!r}")
        return value
    convert.__name__ = kind
    return convert


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="qosmodels",
        description="Network QoS mechanisms: theory and packets side by side.",
    )
    p.add_argument("--version", action="version", version=f"qosmodels {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND",
                           parser_class=_Parser)

    sub.add_parser("list", help="list registered experiments, and topologies with their "
                                "parameters")
    w = sub.add_parser("warmup", help="compile the packet and fluid kernels ahead of time",
                       description="Compile (or load from Numba's cache) the packet simulator's "
                                   "kernel and the fluid integrator, so that the first simulate "
                                   "or solve_fluid of this installation starts at once.  With "
                                   "a TOPOLOGY, compile only the packet kernel its mechanisms "
                                   "need (with the common NewReno, Reno, drop-tail, RED and "
                                   "open-loop set): faster, and what simulate would compile "
                                   "for it.")
    w.add_argument("topology", nargs="?", default=None,
                   help="a registered topology or a scenario file (.json, .yaml); omitted: "
                        "the whole kernel, every mechanism")
    w.add_argument("-p", "--param", action="append", type=_param, default=[], metavar="KEY=VALUE",
                   help="a topology parameter (repeatable)")

    a = sub.add_parser("allocate", help="print a fair allocation of a named topology",
                       description="Allocate the capacity of a registered topology to its flows.")
    a.add_argument("topology", help="a registered topology (see `qosmodels list`) or a scenario "
                                    "file saved by Network.save (.json, .yaml)")
    a.add_argument("-p", "--param", action="append", type=_param, default=[], metavar="KEY=VALUE",
                   help="a topology parameter, e.g. -p n_links=3 -p n_long=2 (repeatable)")
    a.add_argument("--fairness", default="proportional",
                   choices=["proportional", "alpha", "maxmin", "max-throughput"])
    a.add_argument("--alpha", type=_number("float", gt=0), default=None,
                   help="alpha for --fairness alpha (> 0)")
    a.add_argument("--solver", default="auto", choices=["auto", "exact", "cvxpy"])
    a.add_argument("--json", action="store_true", help="print JSON instead of tables")

    s = sub.add_parser("simulate", help="simulate a named topology packet by packet, next to "
                                        "its max-min and proportional allocations",
                       description="Simulate a registered topology (a paper's topology with "
                                   "its paper's mechanisms, see --bare; otherwise flows keep "
                                   "their sources, TCP NewReno by default) and print per-flow "
                                   "goodput and queueing delay beside the allocations, and "
                                   "per-link utilisation.")
    s.add_argument("topology", help="a registered topology (see `qosmodels list`) or a scenario "
                                    "file saved by Network.save (.json, .yaml)")
    s.add_argument("-p", "--param", action="append", type=_param, default=[], metavar="KEY=VALUE",
                   help="builder parameter, repeatable (e.g. -p n_flows=4)")
    s.add_argument("--duration", type=_number("float", gt=0), default=60.0,
                   help="simulated seconds (default 60)")
    s.add_argument("--warmup", type=_number("float", ge=0), default=None,
                   help="start of the measurement window, s (default: a third of the duration)")
    s.add_argument("--seed", type=_number("int", ge=0), default=0,
                   help="random seed, an integer >= 0 (default 0)")
    s.add_argument("--queue", metavar="NAME", default=None,
                   help="every link's queue discipline, a qosmodels.mechanisms class at its "
                        "defaults (e.g. Red, FairQueueing, Codel)")
    s.add_argument("--source", metavar="NAME", default=None,
                   help="every flow's source, a qosmodels.mechanisms class at its defaults "
                        "(e.g. TcpReno, TcpTahoe, GenericWindow)")
    s.add_argument("--bare", action="store_true",
                   help="a paper's topology as built, without its paper's mechanisms (which "
                        "simulate installs by default: PPS tickets and TRED, ACC sources, the "
                        "aggregate's token bucket and ERED)")
    s.add_argument("--json", action="store_true", help="print JSON instead of tables")

    v = sub.add_parser("validate", help="run registered experiments and compare with references",
                       description="Run experiments and print, for every row, the paper's value, "
                                   "the theory, fluid and packets sides, the expected value, its "
                                   "source, the tolerances and a verdict; progress goes to "
                                   "standard error.  Exit 1 if any row fails, 2 on a usage error.")
    v.add_argument("names", nargs="*", metavar="NAME",
                   help="experiments to run (default: all; see `qosmodels list`)")
    v.add_argument("--json", action="store_true",
                   help="print a JSON list of rows (experiment, quantity, expected, measured, "
                        "tolerance, ok, paper, theory, fluid, packets, source, ...)")
    v.add_argument("--sides", default=None, metavar="SIDES",
                   help="comma-separated sides to compute among theory, fluid, packets "
                        "(default: all)")
    v.add_argument("--quick", action="store_true",
                   help="short horizons and few seeds (for CI), with wider packet tolerances")
    v.add_argument("--jobs", type=_number("int", ge=1), default=1, metavar="N",
                   help="run N experiments at a time in a process pool (default 1: one after "
                        "another); the report is the same")
    v.add_argument("--explore", action="store_true",
                   help="run the experiments with rows outside tolerance again over the "
                        "parameters their papers leave unstated; rows a setting brings within "
                        "tolerance become 'reachable', each explored row gets its band")
    v.add_argument("--executor", choices=("serial", "process", "dask"), default=None,
                   help="who runs the experiments: serial (here), process (a pool of --jobs "
                        "processes, 2 unless given) or dask (a local Dask cluster of --jobs "
                        "worker processes); the report is the same.  Default: process when "
                        "--jobs > 1, else serial")
    v.add_argument("--plot", default=None, metavar="FILE",
                   help="also draw the report into FILE (.png, .pdf, .svg, ...): the verdicts "
                        "per paper, then the rows outside tolerance (at most 60)")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``qosmodels`` console script; returns the exit status.

    Returns
    -------
    int
        0 on success, 1 when ``validate`` finds rows outside their tolerance,
        2 on a usage error (printed as one line on standard error), 130 when
        interrupted.  ``--help`` and ``--version`` exit through ``SystemExit(0)``
        as argparse does.
    """
    from .errors import MissingExtra, ScenarioError, SimulationError, SolverError

    try:
        args = _parser().parse_args(argv)
        if args.command == "list":
            return _list()
        if args.command == "allocate":
            return _allocate(args)
        if args.command == "simulate":
            return _simulate(args)
        if args.command == "warmup":
            return _warmup(args)
        return _validate(args)
    except _UsageError as exc:
        return _error(str(exc), exc.prog)
    except (ScenarioError, SolverError, SimulationError, MissingExtra) as exc:
        return _error(str(exc))
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("qosmodels: interrupted", file=sys.stderr)
        return 130


def _error(message: str, prog: str = "qosmodels") -> int:
    """Print ``qosmodels: error: message`` as one line on standard error; return 2."""
    print(f"{prog}: error: " + " ".join(message.split()), file=sys.stderr)
    return 2


def _list() -> int:
    from .experiments import experiments
    from .topologies import TOPOLOGIES

    exps = experiments()
    width = max(len(n) for n in exps)
    print("Experiments (qosmodels validate NAME; sides t = theory, f = fluid, p = packets):")
    for name, e in exps.items():
        sides = "".join(s[0] for s in e.sides)
        print(f"  {name.ljust(width)}  {sides.ljust(3)}  {e.title}")
        if e.unstated:  # what the paper leaves open, as --explore runs it
            print(f"  {''.ljust(width)}       unstated: " + ", ".join(
                f"{u.name}={u.default:g} ({u.low:g}-{u.high:g}{' ' + u.unit if u.unit else ''})"
                for u in e.unstated))
            for group in e.jointly:
                print(f"  {''.ljust(width)}       explored together: {' x '.join(group)}")
    print("\nTopologies (qosmodels allocate|simulate NAME -p key=value):")
    for name, fn in TOPOLOGIES.items():
        doc = (fn.__doc__ or "").strip().splitlines()[0]
        print(f"  {name.ljust(width)}  {doc}")
        params = _signature(fn)
        if params:
            print(f"  {''.ljust(width)}    -p {params}")
    return 0


def _signature(fn) -> str:
    """A builder's parameters as ``-p`` takes them: ``n=3 capacity=10000000.0 ...``
    (``name=?`` when required)."""
    import inspect

    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        out.append(f"{p.name}=?" if p.default is p.empty else f"{p.name}={p.default!r}")
    return " ".join(out)


def _warmup(args) -> int:
    import time

    from .fluid import solve_fluid
    from .network import Flow, Link, Network
    from .sim import compile_kernel

    if args.topology is None:
        spent = compile_kernel()
        print(f"qosmodels warmup: packet kernel ready ({spent:.1f} s)", flush=True)
    else:
        spent = compile_kernel(_network(args))
        print(f"qosmodels warmup: packet kernel for {args.topology}'s mechanisms ready "
              f"({spent:.1f} s)", flush=True)
    t0 = time.perf_counter()
    solve_fluid(Network([Link("a", "b", 1e6, 0.01)], [Flow(["a", "b"])]), 0.1)
    print(f"qosmodels warmup: fluid kernel ready ({time.perf_counter() - t0:.1f} s)", flush=True)
    return 0


#: A TOPOLOGY argument ending so is a scenario file (``Network.save``), not a registered name.
SCENARIO_SUFFIXES = (".json", ".yaml", ".yml")


def _network(args):
    """The topology named on the command line, its parameters checked against the builder's
    signature first (unknown or repeated names are usage errors, not TypeErrors)."""
    import inspect

    from .errors import ScenarioError
    from .network import Network
    from .topologies import TOPOLOGIES, topology

    if args.topology.lower().endswith(SCENARIO_SUFFIXES):
        if args.param:
            raise ScenarioError(f"-p sets a registered topology's parameters; a scenario file "
                                f"({args.topology}) is used as saved: edit the file instead")
        return Network.load(args.topology)
    if args.topology not in TOPOLOGIES:
        topology(args.topology)  # raises the ScenarioError listing the registered names
    params: dict[str, object] = {}
    for key, value in args.param:
        if key in params:
            raise ScenarioError(f"bad parameter for topology {args.topology!r}: {key} is given "
                                f"twice (-p {key}=...); give it once")
        params[key] = value
    sig = inspect.signature(TOPOLOGIES[args.topology])
    names = ", ".join(sig.parameters)
    unknown = [k for k in params if k not in sig.parameters]
    if unknown:
        raise ScenarioError(f"bad parameter for topology {args.topology!r}: it takes no "
                            f"parameter {unknown[0]!r}; its parameters are {names}")
    try:
        sig.bind(**params)
    except TypeError as exc:  # a parameter it needs
        raise ScenarioError(f"bad parameter for topology {args.topology!r}: {exc} (give it "
                            f"with -p); its parameters are {names}") from None
    return topology(args.topology, **params)


def _simulate(args) -> int:
    from .errors import ScenarioError

    # everything the command line can check is checked before the simulator is imported
    warmup = args.duration / 3 if args.warmup is None else args.warmup
    if not warmup < args.duration:
        raise ScenarioError(f"simulate.warmup must be shorter than duration = "
                            f"{args.duration!r} s, got {warmup!r}; lower --warmup or raise "
                            f"--duration")
    net = _network(args)
    mechanisms = None
    if not args.bare and args.topology in PAPER_MECHANISMS:
        net, mechanisms = PAPER_MECHANISMS[args.topology](net, dict(args.param))
    if args.queue is not None:
        queue = _mechanism(args.queue, "queue")
        net = net.replace(links=[dataclasses.replace(link, queue=queue) for link in net.links])
    if args.source is not None:
        source = _mechanism(args.source, "source")
        net = net.replace(flows=[dataclasses.replace(f, source=source) for f in net.flows])
    if mechanisms is not None:
        for option, name, where in (("--queue", args.queue, "every link"),
                                    ("--source", args.source, "every flow")):
            if name is not None:
                mechanisms += f"; then {option} {name} on {where}, replacing the paper's"
    return _run_simulation(args, net, warmup, mechanisms)


# ------------------------------------------------------------- the papers' mechanisms
# A paper's topology (qosmodels.topologies) describes the paper's network only, so that the
# experiments and users can put any mechanism on it; `simulate NAME` runs it with the
# mechanisms of its paper, at the values the library's experiments declare for them.
def _pps(net, params, link_tickets=None):
    """PPS (Zhang et al.): TCP Reno, a TSW ticket tagger per flow, TRED at every link."""
    from .experiments.pps import DEFAULTS, _pps_method, packet_network

    if link_tickets is None:  # one-hop stars: each flow's access link carries its tickets
        tickets = {(f.route[0], f.route[1]): float(f.weight) for f in net.flows}
    else:
        from .topologies import _pps_link_tickets

        issued = _pps_link_tickets("simulate", link_tickets, params.get("link_tickets"))
        tickets = {tuple(key.split("->")): t for key, t in issued.items()}
    return (packet_network(net, tickets),
            "PPS (Zhang, Wang, Peterson, Krishnamurthy): " + _pps_method(DEFAULTS)
            + ", tickets " + ", ".join(f"{u}->{v} {t:g}" for (u, v), t in tickets.items())
            + " t/s")


def _pps_multi_hop(net, params):
    from .topologies import _PPS_TICKETS_FIG6

    return _pps(net, params, _PPS_TICKETS_FIG6)


def _pps_multiple_bottleneck(net, params):
    from .topologies import _PPS_TICKETS_FIG9

    return _pps(net, params, _PPS_TICKETS_FIG9)


def _acc(net, params):
    """ACC (Xia et al.): every flow an Accumulation source at the paper's Table I values."""
    from .mechanisms import Accumulation

    src = Accumulation()
    return (net.replace(flows=[dataclasses.replace(f, source=src) for f in net.flows]),
            f"ACC (Xia et al.): every flow Accumulation(control={src.control!r}, "
            f"estimator={src.estimator!r}, kappa={src.kappa:g}, target={src.target:g} bytes), "
            f"drop-tail queues")


def _abe(net, params):
    """ABE (Hurley et al.): the builder installs the ABE router and the Green and Blue sources."""
    queue = net.links[net.link_id(("r1", "r2"))].queue
    kinds = sorted({f"{type(f.source).__name__}(green={f.source.green})" for f in net.flows})
    return net, (f"ABE (Hurley, Le Boudec, Thiran): {type(queue).__name__} at r1->r2, sources "
                 + ", ".join(kinds) + " (the builder's queue, green_source and blue_source)")


def _token_buckets(net, params):
    """Aggregate TCP rate control (Mehra et al.): the clients' connections in one aggregate
    behind a marking token bucket partitioned among them (Figure 6), ERED at every link."""
    from .experiments.tokenbucket_fairness import DEPTH, RATE, WINDOW
    from .mechanisms import AggregateBucket, Ered, TcpNewReno
    from .network import Aggregate

    edge = AggregateBucket(rate=RATE, depth=DEPTH, sharing="partitioned", action="mark",
                           max_packet=float(max(f.packet_size for f in net.flows)))
    src = TcpNewReno(max_window=WINDOW)
    net = net.replace(links=[dataclasses.replace(link, queue=Ered()) for link in net.links],
                      flows=[dataclasses.replace(f, source=src) for f in net.flows],
                      aggregates=[Aggregate("server", flows=list(range(net.n_flows)),
                                            edge=edge)])
    return net, (f"aggregate TCP rate control (Mehra, Tewari, Kandlur): the connections "
                 f"(TcpNewReno, window {WINDOW}) behind one AggregateBucket(rate "
                 f"{RATE / 1e3:g} kb/s, depth {DEPTH:g} bytes, partitioned, mark) at S, Ered at "
                 f"every link (Figure 6's setting)")


#: What ``simulate NAME`` puts on a paper's topology unless ``--bare``: a function of the
#: built network and the ``-p`` parameters, returning the network and a sentence saying what
#: it installed.  The dumbbell, the parking lot and the random networks are mechanism-neutral.
PAPER_MECHANISMS = {
    "acc-parking-lot": _acc,
    "acc-linear": _acc,
    "pps-one-hop": _pps,
    "pps-multi-hop": _pps_multi_hop,
    "pps-multiple-bottleneck": _pps_multiple_bottleneck,
    "pps-ten-flow": _pps,
    "abe-dumbbell": _abe,
    "aggregate-rate-control": _token_buckets,
}


def _mechanism(name: str, kind: str):
    """``qosmodels.mechanisms.<name>()`` for ``--queue`` / ``--source``, checked to be one."""
    from . import mechanisms
    from .errors import ScenarioError

    base = mechanisms.QueueSpec if kind == "queue" else mechanisms.SourceSpec
    names = sorted(n for n in mechanisms.__all__ if n not in ("QueueSpec", "SourceSpec")
                   and isinstance(getattr(mechanisms, n), type)
                   and issubclass(getattr(mechanisms, n), base))
    if name not in names:
        raise ScenarioError(f"simulate --{kind}: no {kind} named {name!r}; choose one of "
                            f"{', '.join(names)}")
    try:
        return getattr(mechanisms, name)()
    except ScenarioError as exc:
        raise ScenarioError(f"simulate --{kind} {name}: it has no default for every field "
                            f"({exc}); save the scenario (Network.save) with the {kind} you "
                            f"want and simulate the file") from None


def _run_simulation(args, net, warmup: float, mechanisms: str | None = None) -> int:
    import json
    import textwrap

    import numpy as np
    import pandas as pd

    from .allocation import allocate
    from .fairness import jain_index
    from .sim import simulate

    res = simulate(net, args.duration, seed=args.seed, warmup=warmup, progress=False)
    rates = {  # bit/s, shown in Mb/s; --json gives both (the _bps keys in SI, as allocate's)
        "goodput_Mbps": res.throughput,
        "maxmin_Mbps": allocate(net, "maxmin").rates,
        "proportional_Mbps": allocate(net, "proportional").rates,
    }
    model, extra = _interpretation(net)
    rates.update(extra)
    columns = {name: np.asarray(r, dtype=float) / 1e6 for name, r in rates.items()}
    warnings = _conditions(net, res, columns, model, warmup, args.duration)
    columns.update({
        "queueing_delay_ms": res.mean_queueing_delay * 1e3,
        "retransmitted": res.counters["retransmitted"],
        "source": [f.source.kind for f in net.flows],
    })
    flows = pd.DataFrame(columns, index=pd.Index(net.flow_names, name="flow"))
    links = res.to_pandas("links")[["utilisation", "drop_rate", "max_queue_packets", "queue"]]
    if args.json:
        si = pd.DataFrame({**{n.replace("_Mbps", "_bps"): np.asarray(r, dtype=float)
                              for n, r in rates.items()},
                           "queueing_delay_s": res.mean_queueing_delay}, index=flows.index)
        flows = pd.concat([flows, si], axis=1)
        units = {**{c: "Mb/s" for c in rates}, **{c: "bit/s" for c in si.columns[:-1]},
                 "queueing_delay_ms": "ms", "queueing_delay_s": "s",
                 "retransmitted": "packets", "utilisation": "fraction of capacity",
                 "drop_rate": "fraction of the packets arriving", "max_queue_packets": "packets"}
        print(json.dumps({"summary": res.summary(), "mechanisms": mechanisms, "model": model,
                          "warnings": warnings, "units": units,
                          "jain_index": float(jain_index(res.throughput)),
                          "flows": flows.reset_index().to_dict("records"),
                          "links": links.reset_index().to_dict("records")}, indent=2))
        return 0
    print(res.summary())
    if mechanisms:
        print("\n".join(textwrap.wrap("Mechanisms: " + mechanisms, 100, subsequent_indent="  ",
                                       break_on_hyphens=False)))
    print()
    print(flows.to_string(float_format=lambda v: f"{v:.4g}"))
    print()
    print("\n".join(textwrap.wrap("Which theory describes it: " + model, 100,
                                   break_on_hyphens=False)))
    for w in warnings:
        print("\n".join(textwrap.wrap("Warning: " + w, 100, subsequent_indent="  ",
                                       break_on_hyphens=False)))
    print()
    print(links.to_string(float_format=lambda v: f"{v:.4g}"))
    return 0


#: Utilisation below which a link that a model's rates fill is reported as not saturated.
SATURATED = 0.9


def _conditions(net, res, columns, model: str, warmup: float, duration: float) -> list[str]:
    """Where the run leaves the conditions of the theory ``model`` names, one line each.

    The columns the sentence names (``reno_red_fluid_Mbps``, ``maxmin_Mbps``,
    ``proportional_Mbps``) are equilibria of long-lived flows over saturated bottlenecks:
    a link the model's rates fill (99% of its capacity or more) that ran below
    :data:`SATURATED` utilisation, flows that start or stop inside the measured window,
    and, for TCP's model, flows that recovered more than a tenth of their losses by
    timeout are reported, with what was measured.
    """
    import numpy as np

    out = []
    named = [c for c in ("reno_red_fluid_Mbps", "pps_fair_Mbps", "maxmin_Mbps",
                         "proportional_Mbps")
             if c in model and c in columns]
    util = np.asarray(res.utilisation)
    routing = net.routing_matrix
    for col in named:
        load = routing @ (np.asarray(columns[col], dtype=float) * 1e6)
        cap = np.asarray(net.capacities, dtype=float)
        for l in np.flatnonzero((load >= 0.99 * cap) & (util < SATURATED)):
            out.append(f"{col} assumes link {net.links[l].name!r} saturated (its rates fill "
                       f"{load[l] / cap[l]:.0%} of it) but it ran at {util[l]:.0%} utilisation: "
                       f"the model's rates are not what this run can reach there")
    if named:
        late = [n for f, n in zip(net.flows, net.flow_names)
                if f.start > warmup or (f.stop is not None and f.stop < duration)]
        if late:
            out.append(f"the model is an equilibrium of long-lived flows; flows {late} start "
                       f"or stop inside the measured window [{warmup:g}, {duration:g}] s")
    if "reno_red_fluid_Mbps" in named:
        to = np.asarray(res.counters["timeouts"], dtype=float)
        fr = np.asarray(res.counters["fast_retransmits"], dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(to + fr > 0, to / (to + fr), 0.0)
        bad = [n for n, s in zip(net.flow_names, share) if s > 0.1]
        if bad:
            out.append(f"the Reno/RED model assumes losses repaired by fast retransmit; flows "
                       f"{bad} repaired {', '.join(f'{s:.0%}' for s in share[share > 0.1])} of "
                       f"theirs by timeout")
    return out


def _interpretation(net) -> tuple[str, dict]:
    """What describes the simulated mechanisms, as a sentence, and the model's column if any.

    Max-min is fair queueing's allocation (Demers, Keshav, Shenker) and
    weighted proportional fairness ACC's equilibrium (Xia et al.); TCP Reno
    and NewReno follow neither: over RED their model is the Reno/RED fluid
    equilibrium (Misra, Gong, Towsley; the square-root law at each RED link).
    """
    from .mechanisms import (
        Accumulation,
        AggregateBucket,
        FairQueueing,
        Red,
        TcpNewReno,
        TcpReno,
        TicketRed,
    )

    sources = {type(f.source) for f in net.flows}
    queues = [link.queue for link in net.links]
    if any(isinstance(q, TicketRed) for q in queues):
        from .pps import fair_rates

        return ("PPS tickets: the paper's fair rates are ticket-weighted max-min (Zhang et al., "
                "qosmodels.pps.fair_rates), column pps_fair_Mbps; with TCP, TRED settles the "
                "poor flows of one bottleneck in proportion to tickets^(3/5) instead "
                "(qosmodels.pps.tred_tcp_shares; the pps-table experiments measure both).",
                {"pps_fair_Mbps": fair_rates(net).rates})
    if any(isinstance(a.edge, AggregateBucket) for a in net.aggregates):
        return ("TCP behind an aggregate's token bucket: the models are the tokenbucket "
                "module's (the tokenbucket-fairness experiment); max-min and proportional are "
                "references, and the Reno/RED fluid model does not describe the bucket.", {})
    if sources and sources <= {TcpReno, TcpNewReno}:
        if any(isinstance(q, Red) for q in queues):
            from .fluid import reno_equilibrium

            rates = reno_equilibrium(net).rates
            return ("TCP Reno/NewReno over RED: the Reno/RED fluid equilibrium (Misra-Gong-Towsley, "
                    "the square-root law at each RED link), column reno_red_fluid_Mbps; max-min "
                    "and proportional are references, not TCP's model.",
                    {"reno_red_fluid_Mbps": rates})
        return ("TCP Reno/NewReno over drop-tail: none of these columns is its model (max-min is "
                "fair queueing's allocation, proportional ACC's); TCP's own model in this library "
                "is the Reno/RED fluid equilibrium, for links with queue=Red(...) "
                "(qosmodels.fluid.reno_equilibrium).", {})
    if queues and all(isinstance(q, FairQueueing) for q in queues):
        return ("fair queueing at every link: max-min, column maxmin_Mbps (Demers-Keshav-Shenker), "
                "for flows that keep their queue backlogged.", {})
    if sources == {Accumulation}:
        return ("ACC sources: weighted proportional fairness with the accumulation targets as "
                "weights (Xia et al.), column proportional_Mbps when the targets are equal.", {})
    return ("mixed or other mechanisms: max-min and proportional are reference allocations; see "
            "the user guide's page on which model describes which mechanism.", {})


def _allocate(args) -> int:
    import json

    from .allocation import allocate

    net = _network(args)
    a = allocate(net, args.fairness, alpha=args.alpha, solver=args.solver)
    flows, links = a.to_pandas("flows"), a.to_pandas("links")
    if args.json:
        price = ("weight per bit/s" if a.alpha in (None, 1.0)
                 else f"(weight per bit/s)^{a.alpha:g}")
        units = {"rate_bps": "bit/s", "capacity_bps": "bit/s", "load_bps": "bit/s",
                 "utilisation": "fraction of capacity", "price": price}
        print(json.dumps({"summary": repr(a), "units": units,
                          "flows": flows.reset_index().to_dict("records"),
                          "links": links.reset_index().to_dict("records")}, indent=2))
        return 0
    flows = flows.assign(rate_Mbps=flows["rate_bps"] / 1e6).drop(columns="rate_bps")
    links = links.assign(capacity_Mbps=links["capacity_bps"] / 1e6,
                         load_Mbps=links["load_bps"] / 1e6).drop(columns=["capacity_bps",
                                                                           "load_bps"])
    print(repr(a))
    print()
    print(flows[["rate_Mbps", "weight", "route", "bottlenecks"]].to_string())
    print()
    print(links[["capacity_Mbps", "load_Mbps", "utilisation", "price"]].to_string())
    return 0


def _validate(args) -> int:
    import contextlib
    import time
    from concurrent.futures import ProcessPoolExecutor

    from .experiments import experiments, validate
    from .experiments.registry import _check_sides, _select
    from .experiments.rows import VERDICTS

    def progress(name: str, seconds: float, checks: list) -> None:
        # each experiment's line of the summary, as it finishes
        verdicts = [c.verdict for c in checks]
        counts = ", ".join(f"{verdicts.count(v)} {v}" for v in VERDICTS if v in verdicts)
        print(f"qosmodels validate: {name}: {seconds:.1f} s, {len(checks)} rows"
              + (f": {counts}" if counts else ""), file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    plot_to = _plot_target(args.plot) if args.plot is not None else None
    jobs = int(args.jobs)
    kind = args.executor or ("process" if jobs > 1 else "serial")
    if kind != "serial" and args.jobs == 1 and args.executor is not None:
        jobs = 2
    # an unknown name is reported before anything compiles
    want = set(_check_sides(args.sides, "validate(sides=...)")) if args.sides else None
    n = sum(1 for name in _select(args.names)
            if want is None or want & set(experiments()[name].sides))
    print(f"qosmodels validate: {n} experiment{'s' if n != 1 else ''}, "
          + ("the quick form (the full one: without --quick)" if args.quick
             else "the full form (the short one: --quick)")
          + "; a line each as it ends, then the report", file=sys.stderr, flush=True)
    compile_seconds = 0.0
    if args.sides is None or "packets" in _check_sides(args.sides, "validate(sides=...)"):
        from .sim import compile_kernel

        # here, once, apart from every experiment's time (and not in every worker at once)
        compile_seconds = compile_kernel()
    with contextlib.ExitStack() as stack:
        if kind == "serial":
            executor = None
        elif kind == "process":
            executor = stack.enter_context(ProcessPoolExecutor(jobs))
        else:
            try:
                from distributed import Client, LocalCluster
            except ImportError:  # pragma: no cover - dask is in the test and dist extras
                raise _UsageError("qosmodels validate", "--executor dask needs "
                                  "dask.distributed: pip install 'qosmodels[dist]'") from None
            cluster = stack.enter_context(LocalCluster(n_workers=jobs, threads_per_worker=1,
                                                       processes=True, dashboard_address=None))
            executor = stack.enter_context(Client(cluster))
        report = validate(args.names or None, sides=args.sides, quick=args.quick,
                          progress=progress, executor=executor, explore=args.explore)
    report = dataclasses.replace(report, compile_seconds=compile_seconds)
    print(f"qosmodels validate: {len(report.seconds)} experiments in "
          f"{time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    print(report.to_json() if args.json else report)
    if plot_to is not None and report.checks:
        try:
            _draw_report(report, plot_to)
        except OSError as exc:  # the report is printed; say why the picture is not
            raise _UsageError("qosmodels validate", f"--plot {plot_to!r}: could not write "
                              f"it ({exc.strerror or exc})") from None
        print(f"qosmodels validate: the report is drawn in {plot_to}", file=sys.stderr,
              flush=True)
    return 0 if report.passed else 1


#: The most rows ``validate --plot`` draws in its second panel.
PLOT_ROWS = 60


def _plot_target(path: str) -> str:
    """``validate --plot``'s file, checked before anything runs: an existing folder and a
    format Matplotlib writes (a usage error otherwise)."""
    import os

    from matplotlib.figure import Figure

    formats = Figure().canvas.get_supported_filetypes()
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    if ext not in formats:
        raise _UsageError("qosmodels validate", f"--plot {path!r}: the file's extension must "
                          f"name a format Matplotlib writes ({', '.join(sorted(formats))}), "
                          f"got {('.' + ext) if ext else 'none'}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise _UsageError("qosmodels validate", f"--plot {path!r}: no folder {folder!r}; "
                          f"create it first or give another path")
    return path


def _draw_report(report, path: str) -> None:
    """The verdicts per paper above the rows outside tolerance (all rows when none is), at
    most :data:`PLOT_ROWS` of them, saved to ``path``."""
    from matplotlib.figure import Figure

    from .experiments.rows import paper_of

    off = [v for v in ("reachable", "known difference", "fails")
           if any(c.verdict == v for c in report.checks)]
    n_papers = len({paper_of(c.experiment) for c in report.checks})
    n_rows = min(PLOT_ROWS, sum(c.verdict in off for c in report.checks) if off
                 else len(report.checks))
    heights = (1.6 + 0.35 * n_papers, 1.6 + 0.3 * n_rows)
    fig = Figure(figsize=(11.0, sum(heights)), constrained_layout=True)
    top, bottom = fig.subplots(2, 1, height_ratios=heights)
    report.plot(top, kind="counts")
    report.plot(bottom, verdicts=off or None, max_rows=PLOT_ROWS)
    fig.savefig(path, dpi=100)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
