"""PPS: Tables 1-9, Figures 5, 7, 8, 11-12 and Section 4 with the theory and the packets.

Issue 31 adds ``pps-fig5`` (Figure 4's nine flows of 100..900 t/s against the text's
"proportional" throughput, sender- and receiver-based, and Section 2.4.2's "more than 98%"
of poor flows' tags in ``[MinTkt, 1.4 MinTkt]``, replayed from the packets' traces),
``pps-fig7`` (Figure 6 with A starting at 300 s), ``pps-fig11`` (Figures 11-12: one flow
at 300 ms RTT) and ``pps-udp`` (Section 4's UDP rule), and the Total rows of Tables 7-9.
``pps-fig8`` (Figure 6 with A's and B's first links reissued 600 and 900 t/s at 300 s,
Section 3.4) runs :class:`~qosmodels.mechanisms.TicketRed`'s ``reissue``.

``pps-table1`` ... ``pps-table9`` (one experiment per table) put the paper's
numbers beside two sides:

* **theory**: :func:`qosmodels.pps.fair_rates` (ticket ledger, exchange rates,
  weighted max-min with per-link weights) against the paper's "Expected Rate"
  columns (Tables 1-5, Mb/s, two decimals; tolerance half a unit in the last
  digit, 0.005 Mb/s, as a relative tolerance), and for Tables 6-9, which print
  no expected column, against the split the text states (each of Table 6's ten
  flows "close to one-tenth of the available capacity"; Figure 13's three
  flows "in proportion to the service profiles", 3:2:1 of 1.2 Mb/s);
* **packets**: the same network with PPS installed by
  :func:`qosmodels.pps.with_tickets` (a TSW ticket tagger per flow, TRED and
  relabelling at every link, 8-bit tags, TSW window 60 s) run by
  :func:`qosmodels.simulate` for the paper's 600 s, throughput "measured over
  the whole simulation" (Section 3.1), mean over seeds with a Student-t 95%
  confidence half-width, against the paper's "Measured Rate" columns
  (tolerance 5%, the issue's target).

Scenarios: Figure 6 with all flows greedy (Table 1) and with B a 0.16 Mb/s
constant-rate source (Table 2; a :class:`~qosmodels.mechanisms.Cbr` source in
packets); Figure 9 in its three capacity settings (Tables 3-5); Figure 10's
ten flows with 200 t/s each on 1 Mb/s, all RTTs 30 ms and RTTs from 30 to
300 ms (Table 6); Figure 13's three flows over 1.2 Mb/s with tickets 3:2:1
(600, 400 and 200 t/s; "the tables do not show the actual ticket assignment
used by PPS, but they were at the same ratio (3:2:1)"; Tables 7-9's "Measured
PPS" column, the same PPS run for the three tables) and, beside it, the "Measured DiffServ" column
against DiffServ in packets (a TSW profile marker per flow and RIO at the
shared link).  The paper states no TCP
settings: TCP Reno with ns-2's default window of 20 packets, 1000-byte
packets, RED's default thresholds (5 and 15 packets, max_p 0.1, w_q 0.002).

Where the packets differ from the paper: TRED multiplies RED's probability
by ``(ExpectTkt / InTkt)^3``, and with TCP's square-root law that settles
(for poor flows of one bottleneck with equal RTTs) at rates in proportion to
``tickets^(3/5)``, not to the tickets (:func:`qosmodels.pps.tred_tcp_shares`);
the paper's argument that poor flows' tags converge to one ``AvgTkt`` is not
what the packets show.  ``pps-table1``'s A/B row takes the paper's 0.48 / 0.25
as its reference and puts that prediction on its theory side.  The packet rows
that miss for this reason are declared ``Known("paper inconsistent", ...)``
(:data:`KNOWN`, with the rates measured and the exponent the paper's own rates
imply).

Unstated parameters (:data:`UNSTATED`, and :data:`MARKER_WINDOW` for Tables
7-9's DiffServ baseline): RED's ``min_th``, ``max_th`` and ``max_p`` at every
TRED link, the Reno window, and the DiffServ marker's TSW window;
``qosmodels validate --explore`` runs each over its plausible range.  TRED's
power is declared too (``tred_exponent``): the text states 3, but the printed
rates imply a steeper power, so exploring 2-9 shows which the paper's simulator
behaved like; ``calibrated-pps`` runs every table at the power that brings the
most printed rates within 5% (6), counted apart from the paper's rows.  Rows a
value in that range brings within tolerance are declared ``Known("unstated
parameter", ...)`` naming it.  Rows that cannot fail by construction (the
3:2:1 split of Tables 7-9 the reference was derived from, a flow alone on its
bottleneck, ten equal flows) are sanity rows (:data:`SANITY`).

References
----------
Zhang, Wang, Peterson, Krishnamurthy, "Probabilistic Packet Scheduling",
Princeton TR-632-01, 2001, Sections 2.6, 3.1-3.8; Tables 1-9.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..errors import ScenarioError
from ..pps import FIG6_TICKETS, FIG9_TICKETS, fair_rates, tred_tcp_shares, with_tickets
from ..topologies import pps_multi_hop, pps_multiple_bottleneck, pps_one_hop, pps_ten_flow
from ..units import Mbps, kbps
from ._networks import t_half_width
from .registry import Bounds, Check, Known, Side, Unstated, register

#: Half a unit in the last digit the paper prints (Mb/s).
HALF_DIGIT = 0.005

#: The paper's "Expected Rate" columns (Mb/s) for flows A, B, C.
EXPECTED = {
    "Table 1": (0.50, 0.25, 0.25),
    "Table 2": (0.56, 0.16, 0.28),
    "Table 3": (1.33, 0.67, 1.00),
    "Table 4": (0.67, 1.33, 0.33),
    "Table 5": (0.67, 1.00, 0.33),
}
#: The paper's "Measured Rate" (Tables 1-5) and "Measured PPS" (Tables 7-9) columns (Mb/s).
MEASURED = {
    "Table 1": (0.48, 0.25, 0.25),
    "Table 2": (0.53, 0.16, 0.29),
    "Table 3": (1.24, 0.70, 0.98),
    "Table 4": (0.63, 1.28, 0.35),
    "Table 5": (0.64, 0.98, 0.34),
    "Table 7": (0.58, 0.40, 0.21),
    "Table 8": (0.58, 0.40, 0.21),
    "Table 9": (0.58, 0.40, 0.21),
}
#: PPS fair shares of Figure 13's flows A, B, C (Mb/s): 1.2 Mb/s split 3:2:1 (Section 3.8).
FIG13_SHARES = (0.60, 0.40, 0.20)
#: Tickets/s for Figure 13's flows: the text gives only the ratio 3:2:1.
FIG13_TICKETS = (600.0, 400.0, 200.0)


#: Table 6 (Mb/s): ten flows of 200 t/s over 1 Mb/s; all RTTs 30 ms (left), and RTTs from 30
#: to 300 ms (right, listed from 300 down to 30 ms; here flow k has 30 k ms).
TABLE6_EQUAL = (0.100, 0.099, 0.100, 0.099, 0.100, 0.100, 0.100, 0.099, 0.100, 0.100)
TABLE6_VARIED = {300: 0.093, 270: 0.093, 240: 0.095, 210: 0.095, 180: 0.097, 150: 0.099,
                 120: 0.099, 90: 0.101, 60: 0.102, 30: 0.103}
#: The measured totals the tables print (Mb/s).
MEASURED_TOTAL = {"Table 1": 0.98, "Table 2": 0.98, "Table 6 equal": 0.997,
                  "Table 6 varied": 0.977, "Table 7": 1.19, "Table 8": 1.19, "Table 9": 1.19}

#: Section 3.8: DiffServ's service profiles of A, B, C (bit/s) and its "Measured DiffServ"
#: column (Mb/s), Tables 7-9.
PROFILES = {"Table 7": (0.6e6, 0.4e6, 0.2e6), "Table 8": (0.15e6, 0.1e6, 0.05e6),
            "Table 9": (1.2e6, 0.8e6, 0.4e6)}
MEASURED_DIFFSERV = {"Table 7": (0.59, 0.40, 0.21), "Table 8": (0.43, 0.42, 0.35),
                     "Table 9": (0.41, 0.42, 0.37)}
#: The "Measured DiffServ" column's Total row, Tables 7-9 (Mb/s).
MEASURED_DIFFSERV_TOTAL = {"Table 7": 1.20, "Table 8": 1.20, "Table 9": 1.20}

#: Relative tolerance of the packets against the paper's measured rates (the issue's target).
PACKET_TOL = 0.05
#: (duration s, seeds) of the packet runs, full and ``--quick``: the paper's 600 s, throughput
#: over the whole run; the quick form keeps the horizon (a run takes well under a second) and
#: fewer seeds.
RUNS = {False: (600.0, 10), True: (600.0, 3)}
#: The TCP of the packet runs: Reno with ns-2's default window_ of 20 packets.
TCP_WINDOW = 20

#: What the paper leaves unstated about its ns-2 runs, for every table: TRED's RED thresholds
#: and ceiling (Section 2.4.2 names MinThresh and MaxThresh but gives no values) and the TCP
#: window.  The defaults are ns-2's (``thresh_ 5``, ``maxthresh_ 15``, ``linterm_ 10``,
#: ``window_ 20``), the library's :class:`~qosmodels.mechanisms.Red` and :data:`TCP_WINDOW`.
UNSTATED = (
    Unstated("red_min_th", 5.0, (2.0, 10.0),
             "RED's minimum threshold: ns-2's default is 5 packets and Floyd's guidelines put "
             "it between a few packets and a third of the maximum, 2-10 on these 1-2 Mb/s links",
             unit="packets"),
    Unstated("red_max_th", 15.0, (10.0, 30.0, 50.0),
             "RED's maximum threshold: ns-2's default is 15 packets, Floyd advises at least "
             "twice the minimum, and RED-era studies went to 30-50 packets (a few RTTs' worth)",
             unit="packets"),
    Unstated("red_max_p", 0.1, (0.02, 0.05, 0.2),
             "RED's drop probability at the maximum threshold: 0.1 is ns-2's linterm_ 10 and "
             "Floyd's 'gentle' advice, 0.02 the 1993 RED paper's, 0.2 a steeper curve"),
    Unstated("tcp_window", float(TCP_WINDOW), (10.0, 32.0, 64.0),
             "the TCP window: ns-2's window_ default is 20 packets; the era's receiver windows "
             "were 8-64 KB, 10-64 packets of 1000 bytes",
             unit="packets"),
    Unstated("tred_exponent", 3.0, (2.0, 4.0, 6.0, 9.0),
             "TRED's power n of (ExpectTkt / InTkt)^n: Section 2.4.2 states 3, but the paper's "
             "printed rates imply about 9-30 (rate ratio = tickets ratio^(n / (n + 2)), see the "
             "'paper inconsistent' notes); 2-9 spans a softer multiplier to the steep ones the "
             "printed rates point to, and shows which power the paper's simulator behaves "
             "like"),
)
#: Section 3.8's DiffServ baseline leaves its marker's TSW window unstated as well.
MARKER_WINDOW = Unstated(
    "marker_window", 1.0, (0.2, 0.5, 3.0),
    "the TSW window of Clark and Fang's marker: ns-2's TSW2CM examples and Clark and Fang use "
    "about 1 s; from a few RTTs (0.2 s) to a few seconds is plausible", unit="s")
#: The unstated parameters at their defaults.
DEFAULTS = {u.name: u.default for u in (*UNSTATED, MARKER_WINDOW)}


def figure13():
    """Figure 13 as a network and its tickets: flows A, B, C through one 1.2 Mb/s link."""
    net = pps_one_hop(tickets=FIG13_TICKETS, capacity=Mbps(1.2))
    net = net.replace(flows=[dataclasses.replace(f, name=n) for f, n in zip(net.flows, "ABC")])
    tickets = {(f"s{k}", "r0"): t for k, t in enumerate(FIG13_TICKETS, start=1)}
    return net, tickets


def table6(rtt):
    """Figure 10 (Table 6) and its tickets: ten flows of 200 t/s, ``rtt`` as
    :func:`~qosmodels.topologies.pps_ten_flow` takes it."""
    net = pps_ten_flow(rtt=rtt)
    return net, {(f"s{k}", "r0"): 200.0 for k in range(1, 11)}


def _cases():
    yield ("Table 1", "Figure 6, all flows greedy", lambda: (pps_multi_hop(), FIG6_TICKETS, None))
    yield ("Table 2", "Figure 6, B at 0.16 Mb/s",
           lambda: (pps_multi_hop(), FIG6_TICKETS, {"B": kbps(160)}))
    for k in (1, 2, 3):
        yield (f"Table {k + 2}", f"Figure 9, scenario {k}",
               lambda k=k: (pps_multiple_bottleneck(k), FIG9_TICKETS, None))


def _params(params) -> dict:
    """``params`` over :data:`DEFAULTS` (refusing a name not declared there)."""
    unknown = sorted(set(params or {}) - set(DEFAULTS))
    if unknown:
        raise ScenarioError(f"unknown PPS experiment parameter(s) {unknown}; "
                         f"declared: {sorted(DEFAULTS)}")
    return {**DEFAULTS, **(params or {})}


def packet_network(net, tickets, demand=None, params=None, record=False, variant="sender",
                   flow_tickets=None, reissue=None):
    """``net`` with TCP Reno sources (a :class:`~qosmodels.mechanisms.Cbr` for a flow with a
    ``demand``, bit/s) and PPS installed by :func:`qosmodels.pps.with_tickets`.

    ``params`` sets the unstated parameters (:data:`UNSTATED`; default :data:`DEFAULTS`):
    every link's RED thresholds and ceiling (TRED keeps RED's other fields at their
    defaults) and the Reno window.  ``record``: the taggers record each packet's tag and the
    links the exchange rate they apply; ``variant`` and ``flow_tickets``: as
    :func:`qosmodels.pps.with_tickets` takes them (``"receiver"``: ``tickets`` are the
    receiver-currency t/s issued to the links, ``flow_tickets`` the sinks'); ``reissue``:
    tickets issued anew during the run, as ``with_tickets`` takes it.
    """
    from ..mechanisms import Cbr, Red, TcpReno

    p = _params(params)
    demand = demand or {}
    window = int(p["tcp_window"])
    flows = [dataclasses.replace(f, source=Cbr(rate=demand[n]) if n in demand
                                 else TcpReno(max_window=window))
             for f, n in zip(net.flows, net.flow_names)]
    red = Red(min_th=p["red_min_th"], max_th=p["red_max_th"], max_p=p["red_max_p"])
    return with_tickets(net.replace(flows=flows), tickets, variant, red=red, record=record,
                        flow_tickets=flow_tickets, exponent=p["tred_exponent"],
                        reissue=reissue)


def _pps_method(p: dict) -> str:
    """How PPS runs in packets with the unstated parameters ``p``, for a side's method."""
    power = "" if p["tred_exponent"] == 3.0 else f", power {p['tred_exponent']:g}"
    return (f"simulate(with_tickets(...)): TSW tagging, TRED (RED {p['red_min_th']:g}/"
            f"{p['red_max_th']:g} packets, max_p {p['red_max_p']:g}{power}) + relabelling, "
            f"8-bit tags, Reno window {p['tcp_window']:g}")


def diffserv_network(profiles, params=None):
    """Figure 13 with DiffServ: each flow behind a TSW profile marker
    (:class:`~qosmodels.mechanisms.ProfileMarker`, ``profiles`` in bit/s, its window
    ``params["marker_window"]``) and a RIO queue (:class:`~qosmodels.mechanisms.Rio`, its
    defaults) at the shared link, TCP Reno with window ``params["tcp_window"]``."""
    from ..mechanisms import ProfileMarker, Rio, TcpReno
    from ..network import Aggregate

    p = _params(params)
    net, _ = figure13()
    shared = net.link_id(("r0", "r1"))
    links = [dataclasses.replace(link, queue=Rio()) if l == shared else link
             for l, link in enumerate(net.links)]
    flows = [dataclasses.replace(f, source=TcpReno(max_window=int(p["tcp_window"])))
             for f in net.flows]
    aggs = [Aggregate(f"diffserv:{n}", flows=[i],
                      edge=ProfileMarker(profile=profiles[i], window=p["marker_window"]))
            for i, n in enumerate(net.flow_names)]
    return net.replace(links=links, flows=flows, aggregates=aggs)


def packet_rates(net, *, quick: bool, params=None) -> tuple[np.ndarray, str]:
    """Per seed and flow, the throughput (Mb/s) of a PPS network over the whole run, and how
    (``params``: the unstated parameters ``net`` was built with, named in the method)."""
    from ..sim import simulate

    p = _params(params)
    duration, n = RUNS[bool(quick)]
    rates = np.array([simulate(net, duration, seed=seed, progress=False).throughput / 1e6
                      for seed in range(n)])
    return rates, f"{_pps_method(p)}; {duration:g} s, whole run; {n} seeds"


def _packets(values, method) -> Side:
    v = np.asarray(values, dtype=float)
    return Side(float(v.mean()), PACKET_TOL, ci=t_half_width(v), method=method)


def _note(measured, expected, packets, alone=False) -> str:
    """Why the packets stand off the paper's measured rate, when they do (else "");
    ``alone``: the flow is the only poor flow of its bottleneck."""
    if abs(packets - measured) <= PACKET_TOL * measured:
        return ""
    if alone:
        return (f"packets {packets:.3f} Mb/s against the paper's measured {measured:.2f} and "
                f"expected {expected:.2f}: the flow is alone on its bottleneck, where one Reno "
                f"flow (window 20) through RED's thresholds of 5 and 15 packets leaves the link "
                f"idle part of the time; the paper's RED and TCP settings are not stated")
    return (f"packets {packets:.3f} Mb/s against the paper's measured {measured:.2f} and "
            f"expected {expected:.2f}: TRED's cubic multiplier with TCP's square-root law "
            f"shares a bottleneck's poor flows as tickets^(3/5) (pps.tred_tcp_shares), which "
            f"moves rate from the flows with more tickets to those with fewer")


def _rtt_note(measured, packets, rtt_ms) -> str:
    """Table 6's right column: the RTT bias in packets against the paper's, when off."""
    if abs(packets - measured) <= PACKET_TOL * measured:
        return ""
    return (f"packets {packets:.4f} Mb/s at RTT {rtt_ms} ms against the paper's {measured:.3f}: "
            f"the packets keep more of TCP's bias against long round trips than the paper's "
            f"'only a slight bias' (TRED's steady state with the square-root law still leaves "
            f"rates falling as RTT^(-2/5), queueing delay included)")


#: Section 2.4.2's TRED as the paper states it, and what it gives with TCP: the cause of the
#: packet rows declared "paper inconsistent" below.
_TRED_TEXT = (
    "Section 2.4.2 multiplies RED's drop probability by '(ExpectTkt / InTkt)^3' and argues 'In "
    "the end, we expect all poor flows to tag approximately the same number of tickets'; with "
    "TCP's square-root law that cubic settles at rates in proportion to tickets^(3/5) "
    "(pps.tred_tcp_shares, an independent root find of the same steady state agrees), not to "
    "the tickets, so the near-proportional rates the paper prints cannot come from the "
    "mechanism it states")
#: How the numbers in the notes below were measured.
_MEASURED = ("measured: qosmodels validate pps-tableN (10 seeds of 600 s; --quick, 3 seeds, "
             "agrees within 0.01) and --explore over every declared value")
#: The tickets^(3/5) steady state against the paper, as the exponent m of rate ratio =
#: tickets ratio^m the paper's rates imply (m = n / (n + 2) for TRED's power n).
_EXPONENT = ("the paper's printed rates imply m = {m:.2f} in rate ratio = tickets ratio^m, a "
             "TRED power n = 2m / (1 - m) of about {n:.0f}, not the text's 3 (m = 0.6)")


#: What exploring TRED's power shows for the rows the cubic keeps off the paper.
_STEEPER = ("validate --explore over tred_exponent (2-9) reaches the printed rate for most "
            "such rows at a power of 4-9, which the text does not state (the calibrated-pps "
            "experiment runs every table at 6)")


def _inconsistent(evidence: str, m: float, max_error: float) -> Known:
    """A packet row that misses because the paper's TRED cannot give its printed shares."""
    return Known("paper inconsistent",
                 f"{_TRED_TEXT}. {evidence}; {_EXPONENT.format(m=m, n=2 * m / (1 - m))}; "
                 f"{_MEASURED}; {_STEEPER}", max_error, sides=("packets",))


def _reachable(evidence: str, max_error: float, form: str | None = None) -> Known:
    """A packet row that a plausible value of an unstated parameter brings within 5% (in
    ``form`` only, if given: ``Known.form``)."""
    return Known("unstated parameter", f"{evidence}; {_MEASURED}", max_error,
                 sides=("packets",), form=form)


_M1 = np.log(0.48 / 0.25) / np.log(2.0)  # Table 1: A / B against 600 : 300
_M3 = np.log(1.24 / 0.70) / np.log(2.0)  # Table 3: A / B against 2 : 1 at (S3, S5)
_M4 = np.log(0.63 / 0.35) / np.log(2.0)  # Table 4: A / C against 600 : 300 at (S6, S8)
_M5 = np.log(0.64 / 0.34) / np.log(2.0)  # Table 5: the same link and tickets
_M7 = np.log(0.58 / 0.21) / np.log(3.0)  # Tables 7-9: A / C against 600 : 200
_FIG13 = ("flows of 600 : 400 : 200 t/s on 1.2 Mb/s: the 3/5 law gives A 0.517, B 0.405, C "
          "0.267 Mb/s at the paper's total of 1.19; the packets give A 0.541, B 0.404, C 0.243 "
          "(A / C 2.23; 2.11-2.33 over the explored RED and window settings, 2.10 with min_th "
          "10, max_th 50 and window 64 together), the paper A 0.58, C 0.21 (A / C 2.76)")
_LONE = ("alone on its bottleneck, a Reno flow through RED thresholds of 5 and 15 packets "
         "leaves the link idle part of the time")

#: The declared differences, keyed by (experiment, quantity), each with the measurement
#: that explains it and the largest error it covers (about 1.3 times the larger of the full
#: and quick forms' errors).
KNOWN: dict[tuple[str, str], Known] = {
    **{("pps-table1", f"flow {f} rate in packets"): _inconsistent(
        "600 : 300 : 300 t/s in S5's currency: the 3/5 law gives A 0.431 and B, C 0.284 of the "
        "link (0.422 and 0.279 Mb/s at the paper's total of 0.98); the packets give A 0.436, "
        "B 0.271, C 0.271 (A 0.424-0.439, B and C 0.264-0.279 over the explored settings), "
        "the paper A 0.48, B and C 0.25", _M1, 0.12) for f in "ABC"},
    ("pps-table1", "A/B rate ratio"): Known(
        "paper inconsistent",
        f"{_TRED_TEXT}: (600 / 300)^(3/5) = 1.52 (theory); the packets give 1.61 (1.53-1.64 "
        f"over the explored RED thresholds, max_p and windows), the paper 0.48 / 0.25 = 1.92; "
        f"{_EXPONENT.format(m=_M1, n=2 * _M1 / (1 - _M1))}; {_MEASURED}", 0.26,
        sides=("theory", "packets")),
    ("pps-table1", "Section 2.6, B silent: A/C rate ratio"): Known(
        "paper inconsistent",
        "Section 2.6 states 'When B is silent, A and C should divide the full bandwidth of "
        "link (S5, S6) at the ratio of 2:1', but the exchange rule counts active tickets "
        "('InTktRate corresponds to the active t/s the link receives', Section 2.5), by which "
        "Section 3.3 expects B and C alone to get 0.75 and 0.25 Mb/s (900 : 300); with B "
        "silent the same rule gives A 900 and C 300 t/s in S5's currency, 3:1 (pps.fair_rates "
        "gives 3.0); the packets (2.00, tickets^(3/5) = 3^(3/5) = 1.93) pass",
        0.55, sides=("theory",)),
    ("pps-table2", "flow A rate in packets"): _reachable(
        "B at 0.16 Mb/s leaves 0.84 to A and C, 600 : 300: the packets give A 0.495 at RED's "
        "default thresholds and 0.507 (within 5% of 0.53) with max_th 30 packets (the quick "
        "form: 0.506 with max_th 50), which keeps the link busier (0.478-0.507 over the "
        "explored settings)", 0.09),
    ("pps-table2", "flow C rate in packets"): _reachable(
        "the packets give C 0.310 at the defaults and within 5% of the paper's 0.29 with "
        "min_th 2 packets (0.295-0.324 over the explored settings); the 3/5 law on 0.84 Mb/s "
        "gives 0.334", 0.09),
    ("pps-table3", "flow A rate in packets"): _inconsistent(
        "A and B share (S3, S5), 2 Mb/s, at 2 : 1: the packets split them A / B = 1.50 "
        "(1.09-1.55 over the explored settings, 1.56 with min_th 10, max_th 50 and window 64 "
        "together) near 2^(3/5) = 1.52, the paper 1.24 / 0.70 = 1.77; at the paper's own A + B "
        "of 1.94 Mb/s that split gives A 1.17 (6% off). The rest is RED's thresholds on a "
        "link of 80 ms RTT: A + B carry 1.75 Mb/s at the defaults, 1.89 with max_th 50, and A "
        "reaches 1.14 (0.92-1.14 over the explored settings, 1.17 with all three together)",
        _M3, 0.21),
    ("pps-table3", "flow C rate in packets"): _reachable(
        f"C is {_LONE}: 0.930 Mb/s at the defaults, 1.000 with min_th 10 (0.855-1.000 over "
        f"the explored settings)", 0.07),
    ("pps-table4", "flow A rate in packets"): _inconsistent(
        "A and C share (S6, S8), 1 Mb/s, at 600 : 300 in S6's currency: the packets give "
        "A / C = 1.48 (1.23-1.55 over the explored settings, 1.41 with min_th 10, max_th 50 "
        "and window 64 together), near 2^(3/5) = 1.52, the paper 0.63 / 0.35 = 1.80; at the paper's A + C of 0.98 Mb/s the 3/5 split "
        "gives A 0.590 (6% off), the packets A 0.564 (0.539-0.584 over the explored settings)",
        _M4, 0.14),
    ("pps-table4", "flow C rate in packets"): _reachable(
        "the packets give C 0.382 at the defaults (the 3/5 split of 0.98 Mb/s gives 0.390, "
        "the paper 0.35) and 0.364, within 5%, with min_th 2 (0.364-0.444 over the explored "
        "settings)", 0.12),
    ("pps-table5", "flow A rate in packets"): _inconsistent(
        "A and C share (S6, S8), 1 Mb/s, at 600 : 300: the packets give A / C = 1.53 "
        "(1.23-1.57 over the explored settings, 1.53 with min_th 10, max_th 50 and window 64 "
        "together), the 3/5 law 1.52, the paper "
        "0.64 / 0.34 = 1.88; at the paper's A + C of 0.98 the 3/5 split gives A 0.590 (8% "
        "off), the packets A 0.576 (0.544-0.591 over the explored settings)", _M5, 0.14),
    ("pps-table5", "flow B rate in packets"): _reachable(
        f"B is {_LONE}: 0.925 Mb/s at the defaults, 1.000 with min_th 10 (0.836-1.000 over "
        f"the explored settings)", 0.08),
    ("pps-table5", "flow C rate in packets"): _inconsistent(
        "the 3/5 split of the paper's A + C of 0.98 Mb/s gives C 0.390 (15% off the paper's "
        "0.34); the packets give C 0.376 (0.362-0.444 over the explored settings)", _M5, 0.14),
    **{(f"pps-table{k}", "flow A rate in packets"): _inconsistent(_FIG13, _M7, 0.10)
       for k in (7, 8, 9)},
    **{(f"pps-table{k}", "flow C rate in packets"): _inconsistent(_FIG13, _M7, 0.21)
       for k in (7, 8, 9)},
    ("pps-table6", "RTT varied: flow 1 (RTT 30 ms) rate in packets"): _reachable(
        "the shortest-RTT flow gets 0.108 Mb/s at the defaults and within 5% of the paper's "
        "0.103 with min_th 2 (0.106-0.118 over the explored settings)", 0.08),
    ("pps-table6", "RTT varied: flow 8 (RTT 240 ms) rate in packets"): _reachable(
        "0.0897 Mb/s at the defaults (quick 0.0904, inside), within 5% of the paper's 0.095 "
        "with max_th 30: a longer queue dilutes the RTT differences (0.082-0.092 over the "
        "explored settings)", 0.08, form="full"),
    ("pps-table6", "RTT varied: flow 9 (RTT 270 ms) rate in packets"): _reachable(
        "0.0877 Mb/s at the defaults, within 5% of the paper's 0.093 with max_th 30 "
        "(0.077-0.091 over the explored settings)", 0.08),
    ("pps-table6", "RTT varied: flow 10 (RTT 300 ms) rate in packets"): _reachable(
        "0.0855 Mb/s at the defaults, 0.0884 (4.9% off the paper's 0.093, just inside) with "
        "max_th 50 in the full form, 0.0877 (5.7%) in the quick form (0.077-0.088 over the "
        "explored settings): a longer queue dilutes the RTT differences", 0.11),
    ("pps-table7", "flow C rate with DiffServ in packets"): _reachable(
        "DiffServ's C gets 0.2201 Mb/s (4.8% off the paper's 0.21, inside) in the full form "
        "and 0.2207 (5.1%, 3 seeds) in the quick form; a Reno window of 32 packets brings it "
        "to 0.210 (0.210-0.239 over the explored settings, quick form); the paper states "
        "neither the window, the marker's nor RIO's settings", 0.07, form="quick"),
    ("pps-table8", "flow B rate with DiffServ in packets"): _reachable(
        "DiffServ's B gets 0.398 Mb/s at the marker's 1 s window (quick 0.407, inside) and "
        "within 5% of the paper's 0.42 with a 3 s window (0.388-0.400 over the explored "
        "settings); the paper states neither the window nor RIO's thresholds", 0.07,
        form="full"),
    **{("pps-table9", f"flow {f} rate with DiffServ in packets"): _reachable(
        f"profiles of twice the capacity keep A's and B's packets in profile; C alone goes "
        f"out of profile when its 1 s rate estimate passes its 0.4 Mb/s (213 packets in seed "
        f"0, A and B none) and RIO's out curve drops them (C loses 248 packets, A 71, B 57); "
        f"the RIO queue holds 0.28 s (mean queueing delay) at windows of 20 packets and 0.16 s "
        f"at 10, where A, B, C get 0.42, 0.42, 0.35, within 5% of the paper's 0.41, 0.42, "
        f"0.37 (A 0.423-0.517, B 0.423-0.496, C 0.187-0.354 over the explored settings); at "
        f"the defaults {f} gets {got:.3f}", err)
       for f, got, err in (("A", 0.460, 0.17), ("B", 0.460, 0.13), ("C", 0.279, 0.33))},
}

#: Theory rows that cannot fail by construction, (experiment, quantity): a flow alone on its
#: bottleneck gets the link (Table 3's C, Table 5's B), a constant-rate flow below its share
#: gets its rate (Table 2's B), and Figure 13's 3:2:1 shares are the tickets' own ratio,
#: which is how the reference was derived (the paper prints no expected column there).
SANITY = {("pps-table2", "flow B rate"), ("pps-table3", "flow C rate"),
          ("pps-table5", "flow B rate"),
          *((f"pps-table{k}", f"flow {f} rate") for k in (7, 8, 9) for f in "ABC")}


def _row(name, quantity, expected, **kw) -> Check:
    """A :class:`Check` with the declared :data:`KNOWN` difference and :data:`SANITY` mark."""
    return Check(name, quantity, expected, known=KNOWN.get((name, quantity)),
                 sanity=(name, quantity) in SANITY, **kw)


def _table(table, what, build, reference, expected):
    """Register one table as experiment ``pps-tableN``."""
    name = "pps-table" + table.split()[1]
    unstated = (*UNSTATED, MARKER_WINDOW) if table in PROFILES else UNSTATED

    @register(name, title=f"PPS {table}: {what}, rates from the ticket ledger and in packets",
              paper=f"Zhang et al., Probabilistic Packet Scheduling, {table}",
              sides=("theory", "packets"), unstated=unstated)
    def run(*, sides, quick, params) -> list[Check]:
        net, tickets, demand = build()
        rows = []
        r = fair_rates(net, tickets, demand)
        alone = [all(int(r.poor[net.link_id(b)].sum()) == 1 for b in r.bottlenecks[i])
                 for i in range(net.n_flows)]
        if "theory" in sides:
            rows += [_row(
                name, f"flow {flow} rate", value, source="paper (stated)", unit="Mb/s",
                paper=measured,
                theory=Side(r.rate(flow) / 1e6, HALF_DIGIT / value,
                            method="pps.fair_rates (exchange rates + per-link weighted max-min)"),
                reference=f"{reference}; the paper measured {measured:.2f}")
                for flow, value, measured in zip("ABC", expected, MEASURED[table])]
        if "packets" in sides:
            pk, method = packet_rates(packet_network(net, tickets, demand, params),
                                      quick=quick, params=params)
            rows += [_row(
                name, f"flow {flow} rate in packets", measured, source="paper (measured)",
                unit="Mb/s", paper=measured, packets=_packets(pk[:, k], method),
                reference=f"paper, {table}, Measured Rate",
                note=_note(measured, value, pk[:, k].mean(), alone[k]))
                for k, (flow, value, measured) in enumerate(zip("ABC", expected,
                                                                 MEASURED[table]))]
            if table in MEASURED_TOTAL:
                rows.append(_row(
                    name, "total rate in packets", MEASURED_TOTAL[table],
                    source="paper (measured)", unit="Mb/s", paper=MEASURED_TOTAL[table],
                    packets=_packets(pk.sum(axis=1), method),
                    reference=f"paper, {table}, Measured Rate, Total"))
        if table in PROFILES and "packets" in sides:
            rows += _diffserv_rows(name, table, quick, params)
        if table == "Table 1":
            rows += _table1_extras(sides, quick, params)
        return rows

    run.__name__ = run.__qualname__ = name.replace("-", "_")
    run.__doc__ = f"{table} ({what}): PPS rates of flows A, B, C, Mb/s, theory and packets."
    return run


def _diffserv_rows(name, table, quick, params=None) -> list[Check]:
    """Section 3.8's baseline: the paper's "Measured DiffServ" column beside packets."""
    p = _params(params)
    profiles = PROFILES[table]
    pk, _ = packet_rates(diffserv_network(profiles, p), quick=quick, params=p)
    duration, n = RUNS[bool(quick)]
    method = (f"simulate: ProfileMarker (TSW, {p['marker_window']:g} s) per flow, Rio at (P, Q), "
              f"Reno window {p['tcp_window']:g}; {duration:g} s, whole run; {n} seeds")
    rows = []
    for k, (flow, ref) in enumerate(zip("ABC", MEASURED_DIFFSERV[table])):
        got = float(pk[:, k].mean())
        note = "" if abs(got - ref) <= PACKET_TOL * ref else (
            f"DiffServ packets {got:.3f} Mb/s against the paper's {ref:.2f} (profile "
            f"{profiles[k] / 1e6:.2f} Mb/s): the paper gives neither RIO's thresholds nor the "
            f"marker's window (here Rio's defaults and the {p['marker_window']:g} s window), "
            f"which set how far each flow stays from its profile")
        rows.append(_row(
            name, f"flow {flow} rate with DiffServ in packets", ref, source="paper (measured)",
            unit="Mb/s", paper=ref, packets=_packets(pk[:, k], method),
            reference=f"paper, {table}, Measured DiffServ (service profile "
                      f"{profiles[k] / 1e6:.2f} Mb/s)", note=note))
    ref = MEASURED_DIFFSERV_TOTAL[table]
    rows.append(_row(
        name, "total rate with DiffServ in packets", ref, source="paper (measured)",
        unit="Mb/s", paper=ref, packets=_packets(pk.sum(axis=1), method),
        reference=f"paper, {table}, Measured DiffServ, Total (service profiles "
                  f"{sum(profiles) / 1e6:.2f} Mb/s in all)"))
    return rows


#: Table 1's A/B ratio as the paper prints it, 0.48 / 0.25, and its rounding band: each rate
#: is printed to +-0.005 Mb/s, so the ratio is known to +-(0.005/0.48 + 0.005/0.25), 3%.
TABLE1_RATIO = 0.48 / 0.25
TABLE1_RATIO_TOL = HALF_DIGIT / 0.48 + HALF_DIGIT / 0.25


def _table1_extras(sides, quick, params=None) -> list[Check]:
    """Table 1's network: the A/B ratio (the paper's, TRED's steady state and packets), and
    Section 2.6's B-silent case."""
    rows = []
    net, tickets = pps_multi_hop(), FIG6_TICKETS
    ratio_sides = {}
    if "theory" in sides:
        n = _params(params)["tred_exponent"]
        shares = tred_tcp_shares([600.0, 300.0, 300.0], n)
        ratio_sides["theory"] = Side(
            float(shares[0] / shares[1]), TABLE1_RATIO_TOL,
            method=f"pps.tred_tcp_shares: TCP's square-root law with TRED's (ExpectTkt / "
                   f"InTkt)^{n:g} gives rates in proportion to tickets^({n:g}/{n + 2:g}): "
                   f"(600/300)^({n:g}/{n + 2:g})")
    if "packets" in sides:
        pk, method = packet_rates(packet_network(net, tickets, None, params), quick=quick,
                                  params=params)
        ratio = pk[:, 0] / pk[:, 1]
        ratio_sides["packets"] = Side(float(ratio.mean()), PACKET_TOL, ci=t_half_width(ratio),
                                      method=method)
    if ratio_sides:
        rows.append(_row(
            "pps-table1", "A/B rate ratio", TABLE1_RATIO, source="paper (measured)", unit="",
            paper=TABLE1_RATIO, **ratio_sides,
            reference="paper, Table 1, Measured Rate: 0.48 / 0.25 = 1.92 (the tickets' ratio, "
                      "600 : 300 in S5's currency, is 2)",
            note="theory: TRED as Section 2.4.2 states it, with TCP's square-root law, "
                 "settles at (600/300)^(3/5) = 1.52 (pps.tred_tcp_shares)"))
    # Section 2.6: with B silent, the text says A and C share 2:1; the active-ticket rule says 3:1
    silent = pps_multi_hop(active=("A", "C"))
    rows_26 = {}
    if "theory" in sides:
        r = fair_rates(silent, tickets)
        rows_26["theory"] = Side(r.rate("A") / r.rate("C"), 0.0,
                                 method="pps.fair_rates (active tickets: 900 : 300)")
    if "packets" in sides:
        pk2, method2 = packet_rates(packet_network(silent, tickets, None, params), quick=quick,
                                    params=params)
        ratio = pk2[:, 0] / pk2[:, 1]
        rows_26["packets"] = Side(float(ratio.mean()), PACKET_TOL, ci=t_half_width(ratio),
                                  method=method2)
    if rows_26:
        rows.append(_row(
            "pps-table1", "Section 2.6, B silent: A/C rate ratio", 2.0,
            source="paper (stated)", unit="", paper=2.0, **rows_26,
            reference="paper, Section 2.6: 'When B is silent, A and C should divide the full "
                      "bandwidth of link (S5, S6) at the ratio of 2:1'",
            note="the exchange rule with active tickets (which Section 3.3's 0.75 / 0.25 "
                 "follows) gives 900 : 300 = 3 in S5's currency; the packets, whose TRED shares "
                 "as tickets^(3/5), give about 3^(3/5) = 1.93, near the printed 2 for that "
                 "reason"))
    return rows


for _table_name, _what, _build in _cases():
    _table(_table_name, _what, _build, f"paper, {_table_name}, Expected Rate",
           EXPECTED[_table_name])

_PROFILES = {"Table 7": "profile matches capacity", "Table 8": "profile less than capacity",
             "Table 9": "profile greater than capacity"}
for _table_name, _what in _PROFILES.items():
    _table(_table_name, f"Figure 13, {_what}, tickets 3:2:1",
           lambda: (*figure13(), None),
           "paper, Section 3.8: PPS shares 1.2 Mb/s in proportion to the profiles, 3:2:1",
           FIG13_SHARES)


@register("pps-table6", title="PPS Table 6: ten flows of 200 t/s on 1 Mb/s, equal and varied "
                              "RTTs, in packets",
          paper="Zhang et al., Probabilistic Packet Scheduling, Table 6 (Section 3.7)",
          sides=("theory", "packets"), unstated=UNSTATED)
def pps_table6(*, sides, quick, params) -> list[Check]:
    """Table 6: each flow's rate (Mb/s) with all RTTs 30 ms and with RTTs 30..300 ms.

    The theory row and the equal-RTT rows are sanity rows: ten flows with equal tickets and
    equal RTTs share the link equally under any working mechanism.
    """
    rows = []
    if "theory" in sides:
        r = fair_rates(*table6(0.03))
        rows.append(Check(
            "pps-table6", "fair share of each flow", 0.1, source="paper (stated)", unit="Mb/s",
            theory=Side(float(r.rates.max()) / 1e6, HALF_DIGIT / 0.1,
                        method="pps.fair_rates: the largest of the ten rates (all equal)"),
            reference="paper, Section 3.7: 'each flow gets close to one-tenth of the available "
                      "capacity'", sanity=True))
    if "packets" in sides:
        for label, rtt, refs in (("RTT 30 ms", 0.03, TABLE6_EQUAL),
                                 ("RTT varied", "varied",
                                  [TABLE6_VARIED[30 * k] for k in range(1, 11)])):
            net, tickets = table6(rtt)
            pk, method = packet_rates(packet_network(net, tickets, None, params), quick=quick,
                                      params=params)
            for k, ref in enumerate(refs):
                rtt_ms = 30 if rtt == 0.03 else 30 * (k + 1)
                quantity = f"{label}: flow {k + 1} (RTT {rtt_ms} ms) rate in packets"
                rows.append(Check(
                    "pps-table6", quantity, ref,
                    source="paper (measured)", unit="Mb/s", paper=ref,
                    packets=_packets(pk[:, k], method),
                    reference=f"paper, Table 6, {'left' if rtt == 0.03 else 'right'} column",
                    note="" if rtt == 0.03 else _rtt_note(ref, pk[:, k].mean(), rtt_ms),
                    known=KNOWN.get(("pps-table6", quantity)), sanity=rtt == 0.03))
            key = "Table 6 equal" if rtt == 0.03 else "Table 6 varied"
            rows.append(_row(
                "pps-table6", f"{label}: total rate in packets", MEASURED_TOTAL[key],
                source="paper (measured)", unit="Mb/s", paper=MEASURED_TOTAL[key],
                packets=_packets(pk.sum(axis=1), method), reference="paper, Table 6, Total"))
    return rows


#: Figure 4's nine flows (Section 3.1): 100, 200, ..., 900 t/s over 1.5 Mb/s, RTT 26 ms.
FIG5_TICKETS = tuple(100.0 * k for k in range(1, 10))
#: Section 2.4.2: "the number of tickets on more than 98% of the packets of poor flows is in
#: this range [MinTkt, K x MinTkt] if we set K = 1.4".
TAG_RANGE_K = 1.4
TAG_RANGE_SHARE = 0.98


def figure4(rtt=0.026):
    """Figure 4 (Section 3.1) and its tickets: flow k issued 100 k t/s by ``r0``, one
    1.5 Mb/s bottleneck ``r0->r1``; ``rtt`` as :func:`~qosmodels.topologies.pps_one_hop`
    takes it (the paper's 26 ms)."""
    net = pps_one_hop(tickets=FIG5_TICKETS, rtt=rtt)
    return net, {(f"s{k}", "r0"): t for k, t in enumerate(FIG5_TICKETS, start=1)}


def figure4_receiver(access=False):
    """Figure 4 with receiver tickets (Section 2.7): ``r0`` issues 4500 receiver t/s to the
    bottleneck, shared by the sinks as 100, 200, ..., 900 (``flow_tickets``), so that
    :func:`qosmodels.pps.receiver_fair_rates` gives the sender-based allocation.

    ``access``: each source host ``s{k}`` also issues its flow's receiver tickets to its
    access link ``s{k}->r0``, so that a link carries one flow's tickets, as each access link
    does in the sender-based :func:`figure4` (the paper does not say which links its
    receiver-based runs issued; the ``pps-fig5`` rows use ``access=False``).
    """
    net, _ = figure4()
    tickets = {("r0", "r1"): sum(FIG5_TICKETS)}
    if access:
        tickets.update({(f"s{k}", "r0"): t for k, t in enumerate(FIG5_TICKETS, start=1)})
    return net, tickets, dict(zip(net.flow_names, FIG5_TICKETS))


def bottleneck_tags(res, net, link=("r0", "r1")):
    """The tags the data packets of ``net``'s flows carry into ``link``, from a recorded run.

    A plain-Python replay from the run's raw traces: each flow's source tag (``tag_m0``)
    times the exchange rate its first link last applied (``xrate``), quantised as that link
    quantises, arriving after the first link's transmission and propagation delay.  Only for
    networks whose flows reach ``link`` after one access link (Figure 4's, Figure 10's).

    Returns
    -------
    times, tags, flows : ndarray
        Arrival time (s), tag (tickets in the link's currency) and flow index of every data
        packet sent, sorted by arrival time.
    """
    from ..mechanisms.tickets import quantise

    target = net.link_id(link)
    times, tags, flows = [], [], []
    for i, name in enumerate(net.flow_names):
        path = [int(x) for x in net.flow_links(i)]
        if len(path) < 2 or path[1] != target:
            raise ScenarioError(f"bottleneck_tags: flow {name!r} does not enter {link} after "
                                f"one access link")
        first = net.links[path[0]]
        src = res.traces[f"tag_m0[pps:{name}]"]
        xr = res.traces[f"xrate[{first.name}]"]
        t, tag = src.index.to_numpy(), src.to_numpy()
        at = np.searchsorted(xr.index.to_numpy(), t, side="right") - 1
        x = np.where(at >= 0, xr.to_numpy()[np.maximum(at, 0)], 1.0)
        q = first.queue
        levels = (1 << q.bits) - 1 if q.bits is not None else 0
        tags.append([quantise(v, levels, q.unit) for v in tag * x])
        times.append(t + first.delay + 8.0 * net.flows[i].packet_size / first.capacity)
        flows.append(np.full(len(t), i))
    times, tags, flows = (np.concatenate(a) for a in (times, tags, flows))
    order = np.argsort(times, kind="stable")
    return times[order], np.asarray(tags, dtype=float)[order], flows[order]


def min_tkt(times, tags, interval=1.0):
    """``MinTkt`` at each arrival: the least tag of the current and the previous interval
    of ``interval`` s (a new interval starts at the first arrival ``interval`` after the
    last start), as :class:`~qosmodels.mechanisms.TicketRed` keeps it (``min_interval``)."""
    out = np.empty(len(tags))
    t0, cur, prev = 0.0, np.inf, np.inf
    for j, (t, tag) in enumerate(zip(times, tags)):
        if t - t0 >= interval:
            prev, cur, t0 = cur, tag, t
        elif tag < cur:
            cur = tag
        out[j] = min(cur, prev)
    return out


def tag_range_share(res, net, poor, k=TAG_RANGE_K):
    """The share of the data packets of the ``poor`` flows (indices) arriving at Figure 4's
    bottleneck with a tag in ``[MinTkt, k MinTkt]`` (Section 2.4.2), over the whole run."""
    times, tags, flows = bottleneck_tags(res, net)
    m = min_tkt(times, tags)
    sel = np.isin(flows, list(poor))
    inside = (tags >= m - 1e-9) & (tags <= k * m + 1e-9)
    return float(inside[sel].mean())


def _slope(tickets, rates) -> float:
    """Least-squares slope of log(rate) on log(tickets): 1 for rates in proportion."""
    return float(np.polyfit(np.log(tickets), np.log(rates), 1)[0])


def _receiver_note(value, expected) -> str:
    """The receiver-based rows' note when outside 5% of the paper (the evidence:
    :data:`_RECEIVER_CAUSE`)."""
    if abs(value - expected) <= PACKET_TOL * abs(expected):
        return ""
    return (f"packets {value:.4g} against the paper's {expected:.4g}: settled, the "
            f"receiver-based packets share Figure 4 as the sender-based ones do (with a link "
            f"issued each flow's tickets); over the paper's 600 s their ACK-ticket loop is "
            f"still starting up for about 300 s, and here no link is issued one flow's "
            f"receiver tickets, each of which flattens the shares (measured, see the "
            f"declaration)")


#: Why the receiver-based rows of ``pps-fig5`` miss, measured on Figure 4 (the rows' runs:
#: :func:`figure4_receiver`; the settled and start-up parts separated by measuring over
#: [600, 3000] s and [0, 600] s of the same runs).
_RECEIVER_CAUSE = (
    "The library's receiver-based PPS is Section 2.7.1's: the sink tags each ACK "
    "'AckOutTktRate / AckAvgRate', each link relabels it with 'AckXRate = AckOutTktRate / "
    "AckInTktRate', and a source's tickets are the TSW rate of the ACK tickets reaching it "
    "('OutTktRate = AckInTktRate'; data XRate = AckInTktRate / InTktRate at a link issued "
    "receiver tickets).  Measured on Figure 4 (5 seeds of 3000 s unless said; m = slope of "
    "log rate on log tickets): (1) settled, the receiver-based PPS shares as the sender-based"
    " one does, both short of proportional by TRED's cubic (the sender-based rows' cause): "
    "with each source host also issuing its flow's receiver tickets to its access link "
    "(figure4_receiver(access=True)) m is 0.911 over [600, 3000] s, flow 1's share 0.0247, "
    "flow 9's 0.1845, the sender-based 0.907, 0.0248, 0.1841 -- so the ACK-ticket loop does "
    "not weaken TRED's back-off once settled; (2) the start-up: over the paper's [0, 600] s "
    "the same runs give m 0.806 against the sender-based 0.908 (the sender-based m 0.91 from "
    "its first 300 s on; the rows' receiver-based runs, 3 seeds, 0.70 over [0, 300] s, 0.84 "
    "over [300, 600] s): the loop puts three 60 s TSWs starting from 0 in series (the sink's "
    "AckAvgRate, the links' AckInTktRate, the source's ACK-ticket rate); in the rows' runs (3"
    " seeds) 85% of the tags reaching the bottleneck in the first 50 s sit at the 8-bit "
    "ceiling (sender-based 67%), 13% over 50-100 s (1%), and flow 1's share swings "
    "0.011-0.050 in 50 s bins (sender-based 0.018-0.030); the ceiling is not the cause: with "
    "unquantised tags (with_tickets(bits=None), 5 seeds of 1800 s) the start-up is longer "
    "still, m 0.568 over [0, 600] s and 0.863 settled (sender-based 0.877 and 0.908); a "
    "shorter TSW window shortens it (10 s at all taggers and links, 3 seeds of 600 s: m 0.89 "
    "against the sender-based 0.94), but the paper states 60 s and throughput 'over the whole"
    " simulation' of 600 s; (3) the rows' runs issue receiver tickets to the bottleneck and "
    "the sinks only, so no link carries one flow's tickets, where the sender-based Figure 4 "
    "issues each access link its flow's (an exchange rate T_k / InTktRate_k acting on that "
    "flow alone): settled m 0.848, and the sender-based packets without access-link tickets "
    "give 0.845 -- the paper does not say which links its receiver-based runs issued (its "
    "Figure 3 issues each flow's last link: on Figure 4 with a link r1->dk to each sink "
    "issued its flow's tickets, the RTT kept, settled m 0.880, over 600 s 0.779), and with "
    "the access links issued the 600 s rows still miss (m 0.806, flow 1's share 0.0290, flow "
    "9's 0.1710).  So the paper's 'no qualitative differences' holds for the settled shares; "
    "over its stated 600 s the receiver-based start-up and the unstated ticket placement "
    "flatten them further"
)


def _receiver_known(evidence: str, max_error: float) -> Known:
    return Known("paper inconsistent", f"{evidence}; {_RECEIVER_CAUSE}; measured: qosmodels "
                 f"validate pps-fig5 (10 seeds of 600 s) and --quick (3 seeds)", max_error,
                 sides=("packets",))


#: Section 2.4.2's cubic against a higher power, measured on Figure 4 (3 seeds of 600 s, the
#: bottleneck's TicketRed ``exponent`` raised, everything else at the defaults).
_FIG5_POWER = (
    "Section 2.4.2 multiplies RED's probability by '(ExpectTkt / InTkt)^3' and says 'If we use "
    "a function with higher rank, the number of tickets on the packets of poor flows will "
    "converge to AvgTkt' faster, but the link utilization will be lower'.  Measured on Figure "
    "4 (3 seeds of 600 s, only the bottleneck's power changed): power 3 (the text's) gives "
    "m = 0.907, flow 1's share 0.0244 and flow 9's 0.1845 (the paper's 0.0222 and 0.200), "
    "47.8% of the tags in [MinTkt, 1.4 MinTkt] and 1.485 Mb/s in all; power 6 gives m = "
    "1.008, shares 0.0211 and 0.1953, 93.4% of the tags inside, 1.471 Mb/s; power 10 gives "
    "m = 1.048, shares 0.0199 and 0.1994, 98.7% inside, 1.454 Mb/s.  So the proportional "
    "rates and the 98% the paper prints need a steeper function than the cubic it states; "
    "none of the declared RED thresholds, max_p or windows reaches them (--explore: m "
    "0.70-0.92, the tags 24-51% inside, flow 1's share 0.024-0.035)")


def _fig5_known(evidence: str, max_error: float, sides=("packets",), form=None) -> Known:
    return Known("paper inconsistent", f"{evidence}; {_FIG5_POWER}; measured: qosmodels "
                 f"validate pps-fig5 (10 seeds of 600 s) and --quick (3 seeds)", max_error,
                 sides=sides, form=form)


#: Figure 5's declared differences, keyed by quantity: each flow's share (full form, quick
#: form), the tags and the exponent; max_error about 1.3 times the larger error.
KNOWN_FIG5: dict[str, Known] = {
    **{f"flow {k} ({100 * k} t/s) share of the total in packets": _fig5_known(
        f"flow {k}'s share is {full:.4f} (quick {quick:.4f}) against the paper's "
        f"{k}/45 = {k / 45:.4f}: the flows with few tickets get more than their share and "
        f"those with many less", err,
        # flow 8 is inside the 5 % in the full form (4.7 % off), outside in the quick (5.3 %)
        form="quick" if k == 8 else None)
       for k, full, quick, err in ((1, 0.0242, 0.0244, 0.13), (2, 0.0509, 0.0516, 0.21),
                                   (3, 0.0739, 0.0747, 0.16), (4, 0.0950, 0.0959, 0.11),
                                   (8, 0.1695, 0.1683, 0.07), (9, 0.1849, 0.1845, 0.10))},
    "share of poor flows' tags in [MinTkt, 1.4 MinTkt] at the bottleneck": _fig5_known(
        "46.5% of the poor flows' packets (quick 47.8%) arrive with a tag within 1.4 MinTkt: "
        "a flow's tag is its tickets over its rate, and with rates short of proportional the "
        "tags spread with the tickets (seed 0 after 60 s: median tag 14.8 for flow 1, 23.8 "
        "for flow 9, 1.61 times; flow 1's own tags stay within 1.19 MinTkt in 95% of its "
        "packets, 98% inside)", 0.68),
    "rate-ticket exponent m (rate ~ tickets^m)": _fig5_known(
        "theory: TRED's cubic with TCP's square-root law gives m = 3/5 "
        "(pps.tred_tcp_shares, error 0.40); the packets give 0.916 (quick 0.907), nearer "
        "the paper's 1 than that steady state with nine flows (why they sit between the two "
        "was not measured here)", 0.52, sides=("theory", "packets")),
    # the receiver-based rows: (value full, quick) -> max_error about 1.3 x the larger error
    "receiver-based: flow 1 (100 t/s) share of the total in packets": _receiver_known(
        "flow 1's share is 0.0334 (quick 0.0330) against the paper's 1/45 = 0.0222 "
        "(sender-based 0.0242)", 0.66),
    "receiver-based: flow 9 (900 t/s) share of the total in packets": _receiver_known(
        "flow 9's share is 0.1751 (quick 0.1782) against the paper's 9/45 = 0.2000 "
        "(sender-based 0.1849)", 0.16),
    "receiver-based: rate-ticket exponent m (rate ~ tickets^m)": _receiver_known(
        "m is 0.752 (quick 0.763) against the paper's 1 (sender-based 0.916)", 0.32),
}


@register("pps-fig5", title="PPS Fig. 5: nine flows of 100..900 t/s on one 1.5 Mb/s hop, rates "
                            "and tags in packets",
          paper="Zhang et al., Probabilistic Packet Scheduling, Figure 5 (Section 3.1) and "
                "Section 2.4.2",
          sides=("theory", "packets"), unstated=UNSTATED)
def pps_fig5(*, sides, quick, params) -> list[Check]:
    """Figure 5: each flow's share of the bottleneck, the rate-ticket exponent, and Section
    2.4.2's share of poor flows' tags within ``[MinTkt, 1.4 MinTkt]``.

    The figure is lost in the text; the paper states "the achieved throughput is
    proportional to the number of t/s given to each flow", so flow k's reference is its
    share of the flows' total, k / 45, and the exponent m of rate = c tickets^m is 1.
    Tolerance 5% (:data:`PACKET_TOL`): the plot cannot be read, the issue's target.  The
    tags' reference is the bound the text states, "more than 98%" (tolerance 0).
    """
    net, tickets = figure4()
    tk = np.array(FIG5_TICKETS)
    rows = []
    known = KNOWN_FIG5.get

    def note(value, expected, tol=PACKET_TOL):
        """Why a row stands off the paper, when it does (else "")."""
        if (expected.lower <= value <= expected.upper if isinstance(expected, Bounds)
                else abs(value - expected) <= tol * abs(expected)):
            return ""
        ref = expected if isinstance(expected, Bounds) else f"{expected:.4g}"
        return (f"packets {value:.4g} against the paper's {ref}: the cubic TRED the "
                f"paper states shares the bottleneck short of proportional to the tickets, "
                f"so the tags spread with the tickets; a steeper power (6-10) reaches the "
                f"paper's proportional rates and 98% (measured, see the declaration)")
    exp_sides = {}
    if "theory" in sides:
        n = _params(params)["tred_exponent"]
        shares = tred_tcp_shares(list(FIG5_TICKETS), n)
        exp_sides["theory"] = Side(
            _slope(tk, shares), PACKET_TOL,
            method=f"pps.tred_tcp_shares: TCP's square-root law with TRED's (ExpectTkt / "
                   f"InTkt)^{n:g} on one bottleneck, fitted slope of log rate on log tickets")
    if "packets" in sides:
        from ..sim import simulate

        duration, n = RUNS[bool(quick)]
        pnet = packet_network(net, tickets, None, params, record=True)
        poor = np.flatnonzero(fair_rates(net, tickets).poor[net.link_id(("r0", "r1"))])
        rates, inside = [], []
        for seed in range(n):
            res = simulate(pnet, duration, seed=seed, progress=False)
            rates.append(res.throughput / 1e6)
            inside.append(tag_range_share(res, pnet, poor))
        rates, inside = np.array(rates), np.array(inside)
        rnet, rtickets, sinks = figure4_receiver()
        rpnet = packet_network(rnet, rtickets, None, params, variant="receiver",
                               flow_tickets=sinks)
        rrates = np.array([simulate(rpnet, duration, seed=seed, progress=False).throughput
                           for seed in range(n)]) / 1e6
        p = _params(params)
        method = f"{_pps_method(p)}; {duration:g} s, whole run; {n} seeds"
        share = rates / rates.sum(axis=1, keepdims=True)
        for k, t in enumerate(FIG5_TICKETS):
            q = f"flow {k + 1} ({t:g} t/s) share of the total in packets"
            rows.append(Check(
                "pps-fig5", q, t / tk.sum(), source="paper (measured)", unit="",
                paper=t / tk.sum(), packets=_packets(share[:, k], method),
                reference=f"paper, Section 3.1: 'As shown in Figure 5, the achieved throughput "
                          f"is proportional to the number of t/s given to each flow': "
                          f"{t:g} / 4500 of the total (the figure is lost)",
                note=note(float(share[:, k].mean()), t / tk.sum()), known=known(q)))
        slopes = np.array([_slope(tk, r) for r in rates])
        exp_sides["packets"] = Side(float(slopes.mean()), PACKET_TOL, ci=t_half_width(slopes),
                                    method=method + "; slope per seed")
        rshare = rrates / rrates.sum(axis=1, keepdims=True)
        rmethod = method.replace("TSW tagging", "receiver-based (ACK tickets, Section 2.7)")
        for k in (0, 8):
            t = FIG5_TICKETS[k]
            q = f"receiver-based: flow {k + 1} ({t:g} t/s) share of the total in packets"
            rows.append(Check(
                "pps-fig5", q, t / tk.sum(), source="paper (measured)", unit="",
                paper=t / tk.sum(), packets=_packets(rshare[:, k], rmethod),
                reference=f"paper, Section 3: 'We conducted each of the following experiments "
                          f"for both the sender-based and receiver-based algorithm [...] There "
                          f"were no qualitative differences', and Section 3.1's proportional "
                          f"throughput: {t:g} / 4500 of the total",
                note=_receiver_note(float(rshare[:, k].mean()), t / tk.sum()),
                known=known(q)))
        rslopes = np.array([_slope(tk, r) for r in rrates])
        q = "receiver-based: rate-ticket exponent m (rate ~ tickets^m)"
        rows.append(Check(
            "pps-fig5", q, 1.0, source="paper (measured)", unit="", paper=1.0,
            packets=Side(float(rslopes.mean()), PACKET_TOL, ci=t_half_width(rslopes),
                         method=rmethod + "; slope per seed"),
            reference="paper, Section 3: 'no qualitative differences between the results of "
                      "sender-based and receiver-based algorithms', and Section 3.1: "
                      "throughput 'proportional to the number of t/s': m = 1",
            note=_receiver_note(float(rslopes.mean()), 1.0), known=known(q)))
        q = "share of poor flows' tags in [MinTkt, 1.4 MinTkt] at the bottleneck"
        rows.append(Check(
            "pps-fig5", q, Bounds(lower=TAG_RANGE_SHARE, upper=1.0), source="paper (stated)",
            unit="", paper=TAG_RANGE_SHARE,
            packets=Side(float(inside.mean()), 0.0, ci=t_half_width(inside),
                         method=method + "; tags replayed from the traces (pps.bottleneck_tags: "
                                         "source tag x access XRate, quantised) against "
                                         "MinTkt over TRED's 1 s intervals"),
            reference="paper, Section 2.4.2: 'In our experiments, the number of tickets on "
                      "more than 98% of the packets of poor flows is in this range [MinTkt, "
                      "K x MinTkt] if we set K = 1.4' (on Figure 4's bottleneck here)",
            note=note(float(inside.mean()), Bounds(lower=TAG_RANGE_SHARE, upper=1.0)),
            known=known(q)))
    if exp_sides:
        q = "rate-ticket exponent m (rate ~ tickets^m)"
        rows.append(Check(
            "pps-fig5", q, 1.0, source="paper (measured)", unit="", paper=1.0, **exp_sides,
            reference="paper, Section 3.1: 'the achieved throughput is proportional to the "
                      "number of t/s given to each flow' (Figure 5): m = 1",
            note="; ".join(filter(None, (
                "theory: TRED's cubic with TCP's square-root law settles at rates in "
                "proportion to tickets^(3/5) (pps.tred_tcp_shares)" if "theory" in exp_sides
                else "",
                note(exp_sides["packets"].value, 1.0) if "packets" in exp_sides else ""))),
            known=known(q)))
    return rows


#: TRED's power in the calibrated variant (``calibrated-pps``): not the paper's text (3) but
#: the power of 3, 4, 6, 9 under which the most packet rows of ``pps-table1`` ...
#: ``pps-table9`` come within 5% at the library's other defaults (measured with
#: ``tred_exponent`` of :data:`UNSTATED`, quick form: 29 of their 55 packet rows at 3, 33 at
#: 4, 41 at 6, 39 at 9).
CALIBRATED_EXPONENT = 6.0
_CAL = f"TRED power {CALIBRATED_EXPONENT:g}"
_CAL_MEASURED = ("measured: qosmodels validate calibrated-pps (10 seeds of 600 s; --quick, 3 "
                 "seeds) and --explore over RED's thresholds, max_p and the window")


def _cal_reachable(table, flow, got, quick, setting, band, max_error) -> tuple[str, Known]:
    """A calibrated row an explored RED setting brings within 5%: its quantity and Known."""
    q = f"{table}: flow {flow} rate in packets, {_CAL}"
    return q, Known("unstated parameter",
                    f"the packets give {got:.3f} Mb/s ({quick:.3f} in the quick form) at RED's "
                    f"default thresholds; {setting} brings it within 5% ({band} over the "
                    f"explored settings): with power {CALIBRATED_EXPONENT:g} as with the "
                    f"cubic, RED's unstated thresholds keep these links below full; "
                    f"{_CAL_MEASURED}", max_error, sides=("packets",))


#: Declared differences of the calibrated rows: every row power 6 leaves outside 5% is
#: brought within it by RED's unstated thresholds or ceiling.
KNOWN_CALIBRATED: dict[str, Known] = dict((
    _cal_reachable("Table 1", "A", 0.453, 0.453, "max_th 30 packets", "0.443-0.460", 0.08),
    _cal_reachable("Table 2", "A", 0.502, 0.501, "max_th 30 packets", "0.485-0.517", 0.08),
    _cal_reachable("Table 3", "B", 0.660, 0.658, "min_th 10 packets", "0.624-0.848", 0.08),
    _cal_reachable("Table 3", "C", 0.926, 0.924, "min_th 10 packets", "0.846-1.000", 0.08),
    _cal_reachable("Table 4", "A", 0.583, 0.580, "max_th 50 packets", "0.561-0.605", 0.11),
    _cal_reachable("Table 5", "A", 0.593, 0.594, "max_th 50 packets", "0.564-0.610", 0.10),
    _cal_reachable("Table 5", "B", 0.914, 0.912, "min_th 10 packets", "0.819-0.999", 0.09),
    (f"Table 3: flow A rate in packets, {_CAL}", Known(
        "unstated parameter",
        "A and B share (S3, S5), 2 Mb/s, at 2 : 1, a link of 80 ms RTT that RED's default "
        "thresholds keep below full: A + B carry 1.75 Mb/s, A 1.089 (quick 1.085) against the "
        "paper's 1.24; one parameter at a time reaches A 0.925-1.177 over the explored "
        "settings (1.175 with max_th 50, A + B 1.89), and two together reach it: A 1.194 "
        "with max_th 50 and max_p 0.05 (1.209 at power 9), within 5%; measured with 10 seeds "
        "of 600 s of pps.packet_network(pps_multiple_bottleneck(1), ...).  --explore runs "
        "max_th and max_p together and reaches it first at max_th 30, max_p 0.02 (A 1.195)",
        0.16,
        sides=("packets",))),
))


def _calibrated_cases():
    """(label, network, tickets, demand, printed rates by flow) of every PPS table."""
    for table, _, build in _cases():
        net, tickets, demand = build()
        yield table, net, tickets, demand, dict(zip("ABC", MEASURED[table]))
    net, tickets = figure13()
    yield "Tables 7-9", net, tickets, None, dict(zip("ABC", MEASURED["Table 7"]))
    net, tickets = table6("varied")
    yield ("Table 6 varied", net, tickets, None,
           {str(k): TABLE6_VARIED[30 * k] for k in range(1, 11)})


@register("calibrated-pps", title="PPS Tables 1-9 with TRED's power calibrated to 6 (the text "
                                  "states 3): how far one power explains the printed rates",
          paper="Zhang et al., Probabilistic Packet Scheduling, Tables 1-9 (a calibrated "
                "variant, not the paper's text)",
          sides=("packets",), unstated=UNSTATED[:4], jointly=[("red_max_th", "red_max_p")])
def calibrated_pps(*, sides, quick, params) -> list[Check]:
    """Every table's printed rates against PPS in packets with TRED's power 6.

    A clearly labelled *calibrated* variant, not a reproduction of the mechanism the paper
    states: Section 2.4.2's cubic settles at rates in proportion to ``tickets^(3/5)``
    (:func:`qosmodels.pps.tred_tcp_shares`) while the printed rates are nearer proportional.
    :data:`CALIBRATED_EXPONENT` is the one power, among those ``tred_exponent`` explores,
    that brings the most printed rates within 5%; these rows show which of the tables one
    power explains (a row within 5% here and not in ``pps-tableN`` is one the cubic alone
    keeps off the paper) and which it does not.  RED's thresholds and the TCP window stay
    declared unstated, as in the tables.  Tables 7-9's PPS column is one run (the three
    tables print the same PPS rates).
    """
    if "packets" not in sides:
        return []
    p = {**_params(params), "tred_exponent": CALIBRATED_EXPONENT}
    rows = []
    for label, net, tickets, demand, printed in _calibrated_cases():
        pk, method = packet_rates(packet_network(net, tickets, demand, p), quick=quick,
                                  params=p)
        for k, (flow, ref) in enumerate(printed.items()):
            if demand and net.flow_names[k] in demand:
                continue  # a constant-rate flow below its share: not TRED's doing
            name = f"flow {flow}" if not flow.isdigit() else (
                f"flow {flow} (RTT {30 * int(flow)} ms)")
            q = f"{label}: {name} rate in packets, TRED power {CALIBRATED_EXPONENT:g}"
            got = float(pk[:, k].mean())
            note = "" if abs(got - ref) <= PACKET_TOL * ref else (
                f"packets {got:.3f} Mb/s against the paper's {ref:g} with TRED's power at "
                f"{CALIBRATED_EXPONENT:g}: RED's unstated thresholds keep the link below full "
                f"(see the declaration)")
            rows.append(Check(
                "calibrated-pps", q, ref, source="paper (measured)", unit="Mb/s", paper=ref,
                packets=_packets(pk[:, k], method),
                reference=f"paper, {label}, Measured Rate (the packets: a calibrated TRED "
                          f"power, not Section 2.4.2's 3)",
                note=note, known=KNOWN_CALIBRATED.get(q)))
    return rows


#: Figure 7 (Section 3.3): A starts at 300 s; the text's rates before and after (Mb/s).
FIG7_START = 300.0
FIG7_BEFORE = {"B": 0.75, "C": 0.25}
FIG7_AFTER = {"A": 0.50, "B": 0.25, "C": 0.25}
#: The packets' window after A starts: from one TSW window (60 s, the taggers' and links'
#: WinLength) after A's start, when their rate estimates no longer reach back before it, to
#: the end of the paper's 600 s.
FIG7_SETTLED = FIG7_START + 60.0


def figure7():
    """Figure 6 with flow A starting at :data:`FIG7_START` (Section 3.3), and its tickets."""
    net = pps_multi_hop()
    flows = [dataclasses.replace(f, start=FIG7_START) if n == "A" else f
             for f, n in zip(net.flows, net.flow_names)]
    return net.replace(flows=flows), FIG6_TICKETS


def _before_after(pnet, change, settled, duration, n):
    """Each flow's mean rate (Mb/s, one row per seed 0..n-1) over ``[0, change]`` and over
    ``[settled, duration]`` s of ``pnet``: a run to the change, and a run to the end
    measured from ``settled``."""
    from ..sim import simulate

    before = [simulate(pnet, change, seed=s, progress=False).throughput for s in range(n)]
    after = [simulate(pnet, duration, seed=s, warmup=settled, progress=False).throughput
             for s in range(n)]
    return np.array(before) / 1e6, np.array(after) / 1e6


def _fig7_law(active):
    """TRED's steady state (tickets^(3/5)) for the ``active`` flows of Figure 6, as shares."""
    t = {"A": 600.0, "B": 300.0, "C": 300.0}
    return dict(zip(active, tred_tcp_shares([t[f] for f in active])))


def _fig7_known(evidence: str, max_error: float) -> Known:
    return Known("paper inconsistent",
                 f"{_TRED_TEXT}. {evidence}; the rates the text states are in proportion to "
                 f"the tickets (m = 1 in rate ratio = tickets ratio^m, an unbounded TRED "
                 f"power); none of the declared RED thresholds, max_p or windows reaches them "
                 f"(--explore); measured: qosmodels validate pps-fig7 (10 seeds; --quick, 3 "
                 f"seeds)", max_error, sides=("packets",))


_FIG7_BC = ("B and C alone share (S5, S6) as 900 : 300 in S5's currency: the 3/5 law gives "
            "0.659 and 0.341 of the link, the packets B 0.626 and C 0.333 Mb/s (quick 0.622 "
            "and 0.334; B 0.606-0.639, C 0.312-0.373 over the explored settings), the paper "
            "0.75 and 0.25")
_FIG7_ABC = ("A, B, C share (S5, S6) as 600 : 300 : 300: the 3/5 law gives 0.431, 0.284, "
             "0.284 of the link, the packets A 0.424, B 0.288, C 0.276 Mb/s over [360, 600] s "
             "(quick 0.420, 0.288, 0.279; A 0.416-0.428, B 0.284-0.294, C 0.268-0.281 over "
             "the explored settings; A about 0.46 over [300, 600] s, while its tagger's 60 s "
             "estimate still starts from its tickets), the paper 0.50, 0.25, 0.25")
#: Figure 7's declared differences, keyed by quantity; max_error about 1.3 times the larger
#: of the full and quick forms' errors.
KNOWN_FIG7: dict[str, Known] = {
    "first 300 s: flow B rate": _fig7_known(_FIG7_BC, 0.22),
    "first 300 s: flow C rate": _fig7_known(_FIG7_BC, 0.44),
    "after A starts: flow A rate": _fig7_known(_FIG7_ABC, 0.21),
    "after A starts: flow B rate": _fig7_known(_FIG7_ABC, 0.20),
    "after A starts: flow C rate": _fig7_known(_FIG7_ABC, 0.16),
}


@register("pps-fig7", title="PPS Fig. 7: Figure 6 with A starting at 300 s, rates before and "
                            "after, ticket ledger and packets",
          paper="Zhang et al., Probabilistic Packet Scheduling, Figure 7 (Section 3.3)",
          sides=("theory", "packets"), unstated=UNSTATED)
def pps_fig7(*, sides, quick, params) -> list[Check]:
    """Figure 7: B and C alone for 300 s, then A joins (Section 3.3).

    The figure is lost; the text states "B and C obtain approximately 0.75Mb/s and 0.25Mb/s
    of bandwidth from bottleneck link (S5, S6) in the first 300 seconds, but after A starts
    up, A, B and C quickly converge to 0.5Mb/s, 0.25Mb/s and 0.25Mb/s".  Theory:
    :func:`qosmodels.pps.fair_rates` with the active flows, tolerance half a unit in the
    printed digit; packets: mean rate over the first 300 s and over
    [:data:`FIG7_SETTLED`, 600 s], tolerance 5% (:data:`PACKET_TOL`).
    """
    net, tickets = figure7()
    duration, n = RUNS[bool(quick)]
    rows = []
    before = after = method = None
    if "packets" in sides:
        p = _params(params)
        pnet = packet_network(net, tickets, None, params)
        before, after = _before_after(pnet, FIG7_START, FIG7_SETTLED, duration, n)
        method = f"{_pps_method(p)}; {n} seeds; mean rate over " + "{}"
    for label, active, refs, pk, window in (
            ("first 300 s", ("B", "C"), FIG7_BEFORE, before, f"[0, {FIG7_START:g}] s"),
            ("after A starts", ("A", "B", "C"), FIG7_AFTER, after,
             f"[{FIG7_SETTLED:g}, {duration:g}] s")):
        r = fair_rates(pps_multi_hop(active=active), tickets)
        law = _fig7_law(active)
        for flow in active:
            q = f"{label}: flow {flow} rate"
            kw = {}
            if "theory" in sides:
                kw["theory"] = Side(r.rate(flow) / 1e6, HALF_DIGIT / refs[flow],
                                    method="pps.fair_rates with the active flows (exchange "
                                           "rates + weighted max-min)")
            note = ""
            if pk is not None:
                k = net.flow_names.index(flow)
                got = float(pk[:, k].mean())
                kw["packets"] = _packets(pk[:, k], method.format(window))
                if abs(got - refs[flow]) > PACKET_TOL * refs[flow]:
                    note = (f"packets {got:.3f} Mb/s against the paper's {refs[flow]:.2f}: "
                            f"TRED's cubic with TCP's square-root law shares the "
                            f"bottleneck as tickets^(3/5), {law[flow]:.3f} of the link for "
                            f"{flow} among {', '.join(active)} (pps.tred_tcp_shares)")
            if kw:
                rows.append(Check(
                    "pps-fig7", q, refs[flow], source="paper (measured)", unit="Mb/s",
                    paper=refs[flow], reference=f"paper, Section 3.3 (Figure 7): {label}, "
                                                f"'{refs[flow]:.2f}Mb/s' for {flow}",
                    note=note, known=KNOWN_FIG7.get(q), **kw))
    return rows


#: Figure 8 (Section 3.4): at 300 s S3 reissues (S0, S3) 600 t/s instead of 1000 and
#: (S1, S3) 900 instead of 500.
FIG8_AT = 300.0
FIG8_REISSUE = {("S0", "S3"): (FIG8_AT, 600.0), ("S1", "S3"): (FIG8_AT, 900.0)}
#: The text's rates after the change (Mb/s): "A to change from 0.5Mb/s to 0.3Mb/s, ... B
#: from 0.25Mb/s to 0.45Mb/s.  The throughput of C should not change."
FIG8_AFTER = {"A": 0.30, "B": 0.45, "C": 0.25}
#: The packets' window after the change: from one TSW window on, as Figure 7's.
FIG8_SETTLED = FIG8_AT + 60.0


def figure8():
    """Figure 6 with (S0, S3) and (S1, S3) reissued 600 and 900 t/s at :data:`FIG8_AT`
    (Section 3.4): the network, its tickets before, and the reissue."""
    return pps_multi_hop(), FIG6_TICKETS, FIG8_REISSUE


def _fig8_tickets_after():
    return {**FIG6_TICKETS, **{k: v for k, (_, v) in FIG8_REISSUE.items()}}


_FIG8_ABC = ("after the reissue A, B, C hold 360 : 540 : 300 t/s of S5's currency at (S5, S6): "
             "the 3/5 law gives 0.315, 0.402, 0.282 of the link, the packets A 0.316, B 0.400, "
             "C 0.273 Mb/s over [360, 600] s (quick 0.317, 0.402, 0.269), the paper 0.30, 0.45, "
             "0.25; C's rate after over before is 1.02 in packets, as the text says it should "
             "be (the row 'flow C's rate after the reissue over before'); over the explored "
             "settings (validate(explore=True), full form) A runs 0.313-0.321, B 0.388-0.419 "
             "and C 0.255-0.280 (A within 5% at red_min_th = 2, C at tred_exponent = 6; B at "
             "none)")


def _fig8_known(max_error: float) -> Known:
    return Known("paper inconsistent",
                 f"{_TRED_TEXT}. {_FIG8_ABC}; the rates the text expects are in proportion to "
                 f"the tickets; measured: qosmodels validate pps-fig8 (10 seeds; --quick, 3 "
                 f"seeds)", max_error, sides=("packets",))


#: Figure 8's declared differences, keyed by quantity; max_error about 1.3 times the larger
#: of the full and quick forms' errors (A +5.3 % and +5.6 %, B -11.0 % and -10.7 %, C +9.1 %
#: and +7.8 %).
KNOWN_FIG8: dict[str, Known] = {
    "after the reissue: flow A rate": _fig8_known(0.075),
    "after the reissue: flow B rate": _fig8_known(0.145),
    "after the reissue: flow C rate": _fig8_known(0.12),
}


@register("pps-fig8", title="PPS Fig. 8: Figure 6 with (S0, S3) and (S1, S3) reissued 600 and "
                            "900 t/s at 300 s, ticket ledger and packets",
          paper="Zhang et al., Probabilistic Packet Scheduling, Figure 8 (Section 3.4)",
          sides=("theory", "packets"), unstated=UNSTATED)
def pps_fig8(*, sides, quick, params) -> list[Check]:
    """Figure 8: the tickets of A's and B's first links change at 300 s (Section 3.4).

    The figure is lost; the text: "after 300 seconds, the t/s issued to link (S0, S3)
    changes from 1000 to 600 and the t/s issued to link (S1, S3) changes from 500 to 900 ...
    we expect the instantaneous throughput of A to change from 0.5Mb/s to 0.3Mb/s, and ...
    B to change from 0.25Mb/s to 0.45Mb/s.  The throughput of C should not change.  As can
    be seen in Figure 8, the system behaves as expected ... the variation of A and B has
    virtually no influence on C."  Rows: each flow's rate after the change (theory:
    :func:`qosmodels.pps.fair_rates` with the new tickets, tolerance half a unit in the
    printed digit; packets: mean over [:data:`FIG8_SETTLED`, 600 s], tolerance 5%), and C's
    rate after over its rate in the first 300 s (the text's "should not change": 1, within
    5%).  In packets the two links are :class:`~qosmodels.mechanisms.TicketRed` with
    ``reissue`` (:func:`qosmodels.pps.with_tickets`'s ``reissue``).
    """
    net, tickets, reissue = figure8()
    duration, n = RUNS[bool(quick)]
    rows = []
    before = after = method = None
    if "packets" in sides:
        p = _params(params)
        pnet = packet_network(net, tickets, None, params, reissue=reissue)
        before, after = _before_after(pnet, FIG8_AT, FIG8_SETTLED, duration, n)
        method = (f"{_pps_method(p)}; {n} seeds; mean rate over "
                  f"[{FIG8_SETTLED:g}, {duration:g}] s")
    r0 = fair_rates(net, tickets)
    r1 = fair_rates(net, _fig8_tickets_after())
    law = dict(zip("ABC", tred_tcp_shares([360.0, 540.0, 300.0])))
    for k, flow in enumerate(net.flow_names):
        q = f"after the reissue: flow {flow} rate"
        ref = FIG8_AFTER[flow]
        kw = {}
        if "theory" in sides:
            kw["theory"] = Side(r1.rate(flow) / 1e6, HALF_DIGIT / ref,
                                method="pps.fair_rates with the reissued tickets (exchange "
                                       "rates + weighted max-min)")
        note = ""
        if after is not None:
            got = float(after[:, k].mean())
            kw["packets"] = _packets(after[:, k], method)
            if abs(got - ref) > PACKET_TOL * ref:
                note = (f"packets {got:.3f} Mb/s against the paper's {ref:.2f}: TRED's cubic "
                        f"with TCP's square-root law shares the bottleneck as "
                        f"tickets^(3/5), {law[flow]:.3f} of the link for {flow} "
                        f"(pps.tred_tcp_shares)")
        if kw:
            rows.append(Check(
                "pps-fig8", q, ref, source="paper (measured)", unit="Mb/s", paper=ref,
                reference=f"paper, Section 3.4 (Figure 8): '{ref:.2f}Mb/s' for {flow} after "
                          f"300 s" + (" ('should not change')" if flow == "C" else ""),
                note=note, known=KNOWN_FIG8.get(q), **kw))
    kw = {}
    if "theory" in sides:
        kw["theory"] = Side(r1.rate("C") / r0.rate("C"), PACKET_TOL,
                            method="pps.fair_rates after over before")
    if after is not None:
        ratio = after[:, 2] / before[:, 2]
        kw["packets"] = Side(float(ratio.mean()), PACKET_TOL, ci=t_half_width(ratio),
                             method=f"{_pps_method(p)}; {n} seeds; C's mean rate over "
                                    f"[{FIG8_SETTLED:g}, {duration:g}] s over [0, "
                                    f"{FIG8_AT:g}] s, per seed")
    if kw:
        rows.append(Check(
            "pps-fig8", "flow C's rate after the reissue over before", 1.0,
            source="paper (measured)", unit="", paper=1.0,
            reference="paper, Section 3.4 (Figure 8): 'The throughput of C should not "
                      "change ... the variation of A and B has virtually no influence on C'",
            **kw))
    return rows


#: Section 3.7, Scenario II (Figures 11-12): Figure 4's flows at 30 ms, one of them at 300 ms.
FIG11_RTT = (0.030, 0.300)


@register("pps-fig11", title="PPS Figs. 11-12: Figure 4 with flow 1 or flow 9 at 300 ms RTT, "
                             "the others at 30 ms, in packets",
          paper="Zhang et al., Probabilistic Packet Scheduling, Figures 11-12 (Section 3.7, "
                "Scenario II)",
          sides=("packets",), unstated=UNSTATED)
def pps_fig11(*, sides, quick, params) -> list[Check]:
    """Figures 11 and 12: the long RTT's influence on flow 9 (900 t/s) against flow 1 (100).

    The figures are lost; the text states "a large RTT has more negative influence on flow
    9 than flow 1", flow 9 being slower "to recover to its fair share".  Here a flow's
    influence is what it keeps at 300 ms of its rate when every RTT is 30 ms (the same
    seed), and the row is flow 9's kept fraction over flow 1's: the statement is that it is
    below 1 (:class:`Bounds`, tolerance 0).
    """
    if "packets" not in sides:
        return []
    from ..sim import simulate

    short, long_ = FIG11_RTT
    duration, n = RUNS[bool(quick)]
    p = _params(params)
    runs = {}
    for label, rtt in (("all", short), ("flow 1", [long_] + [short] * 8),
                       ("flow 9", [short] * 8 + [long_])):
        net, tickets = figure4(rtt=rtt)
        pnet = packet_network(net, tickets, None, params)
        runs[label] = np.array([simulate(pnet, duration, seed=s, progress=False).throughput
                                for s in range(n)]) / 1e6
    kept1 = runs["flow 1"][:, 0] / runs["all"][:, 0]
    kept9 = runs["flow 9"][:, 8] / runs["all"][:, 8]
    ratio = kept9 / kept1
    method = (f"{_pps_method(p)}; {duration:g} s, whole run; {n} seeds; "
              f"flow 1 keeps {kept1.mean():.3f} of its rate at 300 ms, flow 9 "
              f"{kept9.mean():.3f}; ratio per seed")
    got = float(ratio.mean())
    return [Check(
        "pps-fig11", "flow 9's rate kept at 300 ms RTT over flow 1's (each against all RTTs "
                     "30 ms)", Bounds(upper=1.0), source="paper (measured)", unit="",
        packets=Side(got, 0.0, ci=t_half_width(ratio), method=method),
        reference="paper, Section 3.7 (Figures 11 and 12): 'a large RTT has more negative "
                  "influence on flow 9 than flow 1': below 1",
        note="" if got <= 1.0 else (
            f"packets {got:.3f}: flow 9 keeps more of its rate at 300 ms than flow 1 "
            f"(cause not established)"))]


#: Section 4's one-hop UDP rule, on Figure 13's link: three constant-rate flows issued
#: 600, 400 and 200 t/s (3:2:1) over 1.2 Mb/s.  The paper runs no UDP scenario; the sending
#: rates (bit/s) are this experiment's choice, each above its fair share (0.6, 0.4, 0.2
#: Mb/s) so that the rule has to cut every flow (a drop-tail link would share in proportion
#: to the sending rates, 0.54 / 0.36 / 0.30).
UDP_SEND = (0.9e6, 0.6e6, 0.5e6)
#: (duration s, warm-up s, seeds) of the UDP runs, full and ``--quick``.
UDP_RUNS = {False: (300.0, 100.0, 5), True: (300.0, 100.0, 2)}


def udp_network(params=None):
    """Figure 13's link with three :class:`~qosmodels.mechanisms.Cbr` flows sending
    :data:`UDP_SEND` and PPS's UDP rule (``rule="udp"``) installed, RED's thresholds and
    ceiling from ``params``."""
    from ..mechanisms import Cbr, Red

    p = _params(params)
    net, tickets = figure13()
    flows = [dataclasses.replace(f, source=Cbr(rate=r)) for f, r in zip(net.flows, UDP_SEND)]
    red = Red(min_th=p["red_min_th"], max_th=p["red_max_th"], max_p=p["red_max_p"])
    return with_tickets(net.replace(flows=flows), tickets, red=red, rule="udp")


@register("pps-udp", title="PPS Section 4: UDP flows above their share on one hop get "
                           "Capacity x OutTktRate / InTktRate, in packets",
          paper="Zhang et al., Probabilistic Packet Scheduling, Section 4",
          sides=("packets",), unstated=UNSTATED[:3])
def pps_udp(*, sides, quick, params) -> list[Check]:
    """Section 4: each UDP flow's rate against the fair share the text derives.

    The reference is the paper's statement "So at one hop, a UDP flow obtains its fair
    share of bandwidth", ``(1 - p) AvgRate = Capacity x OutTktRate_a / InTktRate`` (the
    paper prints no simulation of it); tolerance 5% (:data:`PACKET_TOL`).  The second half
    of the statement, that the survivors keep ``OutTktRate_a`` t/s, is not measured: the
    simulator records no tags after a link.  The TCP window of :data:`UNSTATED` does not
    apply (constant-rate sources), so only RED's parameters are declared.
    """
    if "packets" not in sides:
        return []
    from ..sim import simulate

    p = _params(params)
    net = udp_network(params)
    duration, warmup, n = UDP_RUNS[bool(quick)]
    rates = np.array([simulate(net, duration, seed=s, warmup=warmup, progress=False).throughput
                      for s in range(n)]) / 1e6
    method = (f"simulate(with_tickets(..., rule='udp')): Cbr sources at "
              f"{', '.join(f'{r / 1e6:g}' for r in UDP_SEND)} Mb/s, TSW tagging, the UDP "
              f"drop rule with augmentation (RED {p['red_min_th']:g}/{p['red_max_th']:g} "
              f"packets, max_p {p['red_max_p']:g}), 8-bit tags; {duration:g} s, measured "
              f"after {warmup:g} s; {n} seeds")
    rows = []
    for k, (flow, t) in enumerate(zip("ABC", FIG13_TICKETS)):
        share = 1.2 * t / sum(FIG13_TICKETS)
        got = float(rates[:, k].mean())
        rows.append(Check(
            "pps-udp", f"UDP flow {flow} ({t:g} t/s, sending {UDP_SEND[k] / 1e6:g} Mb/s) rate",
            share, source="paper (stated)", unit="Mb/s", paper=share,
            packets=_packets(rates[:, k], method),
            reference=f"paper, Section 4: 'the actual bandwidth A obtains is [...] Capacity x "
                      f"OutTktRate_a / InTktRate', 'So at one hop, a UDP flow obtains its fair "
                      f"share': 1.2 Mb/s x {t:g} / 1200",
            note="" if abs(got - share) <= PACKET_TOL * share else (
                f"packets {got:.3f} Mb/s against the stated {share:.2f}: cause not "
                f"established")))
    return rows
