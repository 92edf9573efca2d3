"""Fair queueing (Demers, Keshav, Shenker), Tables II-VII: the six benchmark scenarios in packets.

``dks-table2`` ... ``dks-table7`` (one experiment per table, scenarios 1-6)
put the paper's per-conversation figures -- throughput ("number of packets
reaching destination" in the 500 s measured: retransmitted copies count, see
below), the average round trip time "as measured
by the flow control's roundtrip estimator", retransmitted and dropped packets
-- next to a packet run of the same scenario with :func:`qosmodels.simulate`,
and next to the max-min fair share (:func:`qosmodels.allocate`) where the text
says an algorithm allocates fairly.

Common to every scenario (the paper's "Simulations" section): Telnet sources
send 40-byte packets, Poisson with mean interval 5 s (64 bit/s), window 5;
FTPs are greedy, 1000-byte packets, window 5; ACKs are 40 bytes
(``qosmodels.sim.compile.ACK_SIZE``); buffers in packets; the system runs
1500 s, then 500 s are measured.

Topologies (the figures are lost; each inference from the text and tables)
--------------------------------------------------------------------------
The gateway lines run at **56 kb/s**: 1746 + 1746 FTP packets in 500 s
(scenario 1) plus the Telnets' ~200 x 40 bytes is 3500 packets of 1000 bytes
= 500 s / (8000 bit / 56 kb/s = 0.1429 s); scenario 3's ill-behaved source
gets exactly 3500 under FCFS; scenario 1's FTPs' RTT of 1.43 s is their 10
packets (two windows) queued at 0.143 s each, and its FQ Telnet RTT of 0.079
s is half an FTP packet plus its own, so the other links are fast and the
propagation delays negligible: access links here are 10 Mb/s without delay
(scenario 5's excepted, below), and every line has its reverse direction
declared (the ACKs queue there).
Buffers count packets waiting (the packet in transmission apart).

1. Scenario 1 (Table II): 2 FTPs + 2 Telnets, one 56 kb/s gateway line.
   Buffer 15: the table has no drop, so at least the 10 FTP packets plus a
   few Telnet ones fit; 15 is the only buffer the text names (scenario 2).
2. Scenario 2 (Table III): 6 FTPs + 2 Telnets through the same gateway;
   buffer 15 (stated: "a buffer size of only 15").
3. Scenario 3 (Table IV): 1 FTP + 1 Telnet + the ill-behaved source, a
   constant 112 kb/s of 1000-byte packets ("twice the rate of the gateway's
   outgoing line", 7000 packets in 500 s: FCFS 3500 through + 3500 dropped,
   FQ 5 + 6995).  Buffer 20: the ill-behaved packets' delay under FCFS,
   2.83-2.97 s, is about 20 packet times of a full queue.
4. Scenario 4 (Table V): 2 generic + 2 JK FTPs at one 56 kb/s gateway (both
   columns sum to 3500); buffer 15: the RTTs of 2.07-2.16 s are ~15 packet
   times of a full queue.
5. Scenario 5 (Table VI): three 56 kb/s gateway lines in a row,
   ``g1->g2->g3->g4``; short FTP *i* crosses line *i* only (three
   non-overlapping paths), FTP 4 crosses all three (FCFS 2500 = 5 packets/s
   per short FTP and 1000 = 2/s for the long one, 7/s per line; FQ 1750 each,
   half a line).  Buffers 15 (no drops in any combination: at least 10 fit).
   **Hosts on 56 kb/s links** (:data:`ACCESS_BY_SCENARIO`): under FCFS each
   line is split by window/RTT, and the table's round trips, 1.00 s for a
   short FTP and 2.5 s for the long one (5 packets in flight at 5 and 2
   packets/s), are not in the ratio 1:3 that three equal gateway queues give
   (0.95 and 2.86 s, 2625 and 875 packets, with 10 Mb/s host links): each
   path carries about 0.29 s of delay outside the gateway lines, the
   transmission of a packet on a host's and on a sink's link at the line
   rate (2 x 0.143 s).  With those links the FCFS rows come out exactly
   (2500/1000 packets, 1.00/2.50 s); 1.544 Mb/s and 10 Mb/s stay declared
   (:data:`UNSTATED`).
6. Scenario 6 (Table VII), only in part.  FTPs 1-3 share a **9.6 kb/s** line
   (1.2 packets/s): they deliver ~195 packets each (window 5 over an RTT of
   12.8 s = 15 packets queued at 0.833 s), ~590 with FTP 4's ACKs crossing
   the same direction of the line; FTP 4 crosses that line the other way:
   under FQ its RTT is 4.26 s, its own 5 packets at 0.833 s, and it delivers
   577; under FCFS its ACKs wait behind the 15 FTP packets (RTT 13.3 s, 187
   packets), as the text says.  Buffer 20 (no drops: 15 data packets and FTP
   4's 5 ACKs).  FTPs 5-8 ("lines of several different bandwidths") are not
   run: Figure 7 is lost and the table does not pin their network down.  What
   it does say: every one of them is window-limited (throughput x RTT is 5
   packets in every G row); FTPs 7 and 8 have the same FCFS RTT (1.27 and
   1.26 s: their own 5 packets on a 56 kb/s line, 0.71 s, plus ACKs waiting
   behind about four data packets), as if they crossed one line in opposite
   directions, yet under FQ FTP 7 gets 1622 packets to FTP 8's 3274; FTPs 5
   and 6 together carry 3109 (FCFS) and 3120 (FQ) packets, a bottleneck of
   about 50 kb/s that they share and that no 56 or 9.6 kb/s line explains
   without traffic the table does not show.  A network fitted to these
   numbers would make them their own reference, so their cells stay in
   :data:`TABLES` uncompared.  The text's "the total throughput increases
   when the FQ gateways are used" is therefore checked on FTPs 1-4 only
   (:data:`TOTAL_PAIRS`), where the table shows it too (781 -> 1154 packets
   under generic flow control, carried by FTP 4).

Algorithm combinations (Table I) and what runs here
---------------------------------------------------
:data:`COMBOS` maps each label to its source factories and gateway queue,
and all six run: generic = :class:`~qosmodels.sim.GenericWindow` (window 5,
timeout 2 x the averaged RTT, retransmitted packets timed from their first
transmission), JK = :class:`~qosmodels.sim.TcpTahoe` with ``max_window=5``
(the paper adds adjustable windows, Jacobson-Karels timeouts and fast
retransmit to the generic source: no fast recovery, a Tahoe-like sender with
4.3BSD-Tahoe's timer), DEC = :class:`~qosmodels.mechanisms.DecbitWindow`
(window at most 5); FCFS = drop-tail, FQ =
:class:`~qosmodels.mechanisms.FairQueueing` (delta = 0, as the paper ran it),
DEC = selective :class:`~qosmodels.mechanisms.Decbit` (capacity factor 0.9),
FQbit = ``Decbit(fq_bit=True)``.  A combination entered as ``None`` would
have its rows skipped, except the theory (max-min) side of the throughputs
the text calls fair.  Deviation: a Telnet under JK or DEC is the windowed
Poisson source with the generic timeout (the simulator has no
application-limited JK sender yet).

Runs
----
One seed per scenario and combination (``SEED``), as the paper shows one run
per cell: flows start 0.1 s apart in table order (the paper gives no start
times), 1500 s of warm-up and 500 s measured (``--quick``: 300 s and 100 s,
counts scaled to 500 s).  Tolerances: throughput, retransmissions and drops
10 % or 5 packets of the measured window (25 in the quick form), whichever is
larger; a Telnet's throughput, a Poisson count, two standard deviations of the
difference of two such counts (:func:`telnet_tolerance`); RTT 10 %;
qualitative claims exactly.  The RTT side is the mean of the samples the
source's estimator took in the window
(:attr:`~qosmodels.sim.SimulationResult.mean_rtt_estimate`).

Unstated parameters and known differences
-----------------------------------------
:data:`UNSTATED` declares, per table, what the paper leaves open: the gateway
buffer (all but scenario 2), the hosts' own links (all but scenario 3), the
generic timer's averaging gain and initial RTT estimate, and the JK timer's
cap on its backed-off timeout; ``validate(explore=True)`` runs each over its
range.  Every row outside tolerance at the defaults carries a
:class:`~qosmodels.experiments.Known` (:data:`KNOWN_ROWS`, the evidence in
``_WHY``); the RTT rows of conversations shut out so completely that they took
no RTT sample in the window (NaN) are declared with ``unmeasured=True``
(:data:`NO_SAMPLE`).

Throughput counts duplicates
----------------------------
The paper's throughput is the "number of packets reaching destination", and
the text separates it from "the useful bandwidth (rate of nonduplicate
packets)": in scenario 2, G/FQ's FTPs deliver 178 + 838 + 591 + 615 + 621
(+ FTP 4, ~600) packets while retransmitting 73 + 224 + 176 + 243 + 159 (+
168) and losing 33 + 139 + 106 + 167 + 86 (+ 88): ~3440 packets of which
~420 are copies that arrived, ~3020 useful, 14 % below the 3500 the line
carries -- the text's "13 per cent below optimal".  So the packets side
counts every data packet reaching the sink in the window
(``counters["arrived_window"]``), copies included.

Transcription
-------------
Every legible cell of Tables II-VII is in :data:`TABLES`.  ``OCR`` marks a
cell the extraction broke (letters, a missing value, or digits contradicted by
the same table) or left with two admissible readings; ``NA`` marks a cell the
paper leaves empty (no packets, so no RTT).  Both are skipped, never guessed.
Table III was printed rotated and some of its cells were read upside down
("285" beside 582, "009", "680.0"): every cell made of glyphs that read as
digits both ways up and reading differently upside down is decided explicitly
in :data:`III_READINGS` (the reading the table and the text admit, or none).  The ill-behaved source has no flow control and no
estimator, yet Table IV prints an "RTT" for it (2.83-2.97 s under FCFS, 860-918
s under FQ): it is compared with its packets' mean one-way delay in the window
(queueing plus transmissions; its sink sends no ACKs).

References
----------
A. Demers, S. Keshav, S. Shenker, "Analysis and simulation of a fair
queueing algorithm", Internetworking: Research and Experience 1 (1990) 3-26,
section "Simulations", Tables I-VII.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import ScenarioError, ScenarioTypeError
from ..network import Flow, Link, Network
from .registry import Bounds, Check, Known, Side, Unstated, register

# ----------------------------------------------------------------- the paper's constants
#: The gateway line rate, bit/s (see the module docstring).
LINE = 56e3
#: The 9.6 kb/s line of scenario 6, bit/s.
SLOW_LINE = 9.6e3
#: Access links, "fast": bit/s.
ACCESS = 10e6
#: Scenarios whose hosts' links the tables pin down, bit/s (module docstring): scenario 5's
#: FCFS round trips, 1.00 and 2.5 s, need the hosts on links at the line rate.
ACCESS_BY_SCENARIO = {5: LINE}
FTP_SIZE = 1000
TELNET_SIZE = 40
#: Telnet: one 40-byte packet per 5 s on average, bit/s.
TELNET_RATE = 8 * TELNET_SIZE / 5.0
WINDOW = 5
WARMUP, MEASURED = 1500.0, 500.0
QUICK_WARMUP, QUICK_MEASURED = 300.0, 100.0
#: Seconds between the starts of consecutive flows (an assumption: none is given).
STAGGER = 0.1
SEED = 1990

QUANTITIES = ("throughput", "rtt", "retransmitted", "dropped")
UNITS = {"throughput": "packets", "rtt": "s", "retransmitted": "packets", "dropped": "packets"}


class _Cell:
    """A sentinel for a table cell that is not compared."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: A cell the OCR broke (see each table's comments): skipped.
OCR = _Cell("OCR")
#: A cell the paper leaves empty, or with no counterpart in the model: skipped.
NA = _Cell("NA")


@dataclass(frozen=True)
class PaperTable:
    """One of Tables II-VII as printed.

    Attributes
    ----------
    scenario : int
    kinds : tuple of str
        Each conversation's kind in table order: ``"ftp"``, ``"telnet"``,
        ``"ill"`` (the ill-behaved source), ``"generic"``/``"jk"`` (scenario
        4's FTPs of fixed flow control).
    values : dict
        ``values[quantity][combo]`` is a tuple with one cell per
        conversation: a number, :data:`OCR` or :data:`NA`.
    """

    scenario: int
    kinds: tuple[str, ...]
    values: dict


_ALL = ("G/FCFS", "G/FQ", "JK/FCFS", "JK/FQ", "DEC/DEC", "DEC/FQbit")


def _zeros(n, combos=_ALL):
    return {c: (0,) * n for c in combos}


# ----------------------------------------------------------------- Table III, read both ways up
#: Table III as the OCR printed it (the table was printed rotated): ``quantity -> combo ->``
#: the eight cells' text.  Glyphs that are not digits, and digits lost, are kept as printed.
III_PRINTED: dict[str, dict[str, tuple[str, ...]]] = {
    "throughput": {
        "G/FCFS": ("18", "1154", "1159", "ю", "1149", "15", "31", "æ"),
        "G/FQ": ("178", "838", "591", "009", "615", "621", "96", "86"),
        "JK/FCFS": ("582", "583", "585", "585", "583", "285", "e", "0"),
        "JK/FQ": ("574", "579", "546", "594", "266", "601", "87", "96"),
        "DEC/DEC": ("582", "582", "582", "582", "285", "285", "8", "86"),
        "DEC/FQbit": ("582", "285", "285", "285", "582", "285", "83", "68")},
    "rtt": {
        "G/FCFS": ("403", "2.18", "2.16", "", "2.18", "140", "115", "1"),
        "G/FQ": ("16.8", "3.31", "4.88", "4.83", "4.53", "4.47", "0.079", "0.078"),
        "JK/FCFS": ("1.85", "1.93", "1.93", "1.85", "1.93", "1.85", "1", "1"),
        "JK/FQ": ("1.75", "1.78", "1.19", "1.86", "2.20", "2.16", "0.091", "0.085"),
        "DEC/DEC": ("0.859",) * 6 + ("0.783", "0.778"),
        "DEC/FQbit": ("1.59",) * 6 + ("0.088", "680.0")},
    "retransmitted": {
        "G/FCFS": ("43", "10", "7", "9", "6", "17", "25", "S"),
        "G/FQ": ("73", "224", "176", "168", "243", "159", "7", "7"),
        "JK/FCFS": ("57", "27", "27", "27", "27", "27", "9", "0"),
        "JK/FQ": ("83", "80", "99", "4", "61", "61", "0", "0"),
        "DEC/DEC": ("0",) * 8,
        "DEC/FQbit": ("0",) * 8},
    "dropped": {
        "G/FCFS": ("26", "S", "4", "B", "5", "11", "15", "7"),
        "G/FQ": ("33", "139", "106", "88", "167", "86", "0", "0"),
        "JK/FCFS": ("99", "99", "26", "26", "26", "99", "2", "0"),
        "JK/FQ": ("8", "9/", "48", "61", "27", "54", "0", "0"),
        "DEC/DEC": ("0",) * 8,
        "DEC/FQbit": ("0",) * 8}}

#: The digits that read as digits upside down, and as which.
_ROTATED = {"0": "0", "1": "1", "2": "2", "5": "5", "6": "9", "8": "8", "9": "6", ".": "."}


def upside_down(text: str) -> str | None:
    """``text`` read upside down (characters in reverse order, 6 and 9 swapped), or None
    when a character has no upside-down reading (3, 4, 7, letters)."""
    if not text or any(ch not in _ROTATED for ch in text):
        return None
    return "".join(_ROTATED[ch] for ch in reversed(text))


#: The reading rule.  The OCR cannot tell which way up a cell made only of glyphs that read
#: as digits both ways up is ("285" beside 582, "009", "680.0"; the header itself reads
#: "9" for column 6): every such cell that reads differently upside down has two
#: readings, and the one the table and the text admit is taken; where both or neither are
#: admitted the cell is not compared.  ``(quantity, combo, column 1-8) -> (reading, why)``,
#: reading ``"upright"``, ``"upside down"`` or None.  Checks: the FTPs of a combination
#: fit the line's 3500 packets; the text calls JK/FCFS's FTPs fair, DEC/DEC's "perfectly
#: fair", DEC/FQbit's fair and JK/FQ's "reasonably fair and efficient", and G/FQ's useful
#: bandwidth "13 per cent below optimal"; a window-5 source with few resends has
#: throughput x RTT / 500 s <= 5 packets in flight; a source resends no more than it sent
#: and loses no more than it sent or resent (+1); a Telnet count without loss is Poisson
#: with mean 100 (30 packets is 3 standard deviations); numbers print without leading zeros.
III_READINGS: dict[tuple[str, str, int], tuple[str | None, str]] = {
    ("throughput", "G/FCFS", 1): ("upright", "81 takes the FTPs to 3558 packets"),
    ("throughput", "G/FCFS", 3): ("upright", "6511 packets exceed the line"),
    ("throughput", "G/FCFS", 6): ("upright", "51 takes the FTPs to 3531 packets"),
    ("throughput", "G/FQ", 3): ("upright", "165 makes the waste 26 %, not 13"),
    ("throughput", "G/FQ", 4): ("upside down", "'009' has leading zeros"),
    ("throughput", "G/FQ", 5): ("upright", "519 makes the waste 16.5 %, not 13"),
    ("throughput", "G/FQ", 6): ("upright", "129 makes the waste 28 %, not 13"),
    ("throughput", "G/FQ", 8): (None, "86 and 98 are both Poisson counts of mean 100"),
    ("throughput", "JK/FCFS", 1): ("upright", "285 is not a fair share beside 583-585"),
    ("throughput", "JK/FCFS", 6): ("upside down", "285 is not a fair share beside 582-585"),
    ("throughput", "JK/FQ", 5): (None, "266 leaves the FTPs 3160 packets (not 'reasonably "
                                       "fair and efficient'), 992 takes them to 3886"),
    ("throughput", "JK/FQ", 6): ("upright", "109 is not 'reasonably fair' beside 546-594"),
    **{("throughput", "DEC/DEC", c): ("upright", "285 is not 'perfectly fair' beside 582")
       for c in (1, 2, 3, 4)},
    **{("throughput", "DEC/DEC", c): ("upside down", "285 is not 'perfectly fair' beside 582")
       for c in (5, 6)},
    ("throughput", "DEC/DEC", 8): (None, "86 and 98 are both Poisson counts of mean 100"),
    **{("throughput", "DEC/FQbit", c): ("upright", "285 is not fair beside 582")
       for c in (1, 5)},
    **{("throughput", "DEC/FQbit", c): ("upside down", "285 is not fair beside 582")
       for c in (2, 3, 4, 6)},
    ("throughput", "DEC/FQbit", 8): ("upside down", "68 packets without loss are 3.2 standard "
                                                    "deviations below 100; 89 is not"),
    ("rtt", "G/FCFS", 2): ("upright", "81.2 s is 187 packets in flight"),
    ("rtt", "G/FCFS", 3): ("upright", "91.2 s is 211 packets in flight"),
    ("rtt", "G/FCFS", 5): ("upright", "81.2 s is 187 packets in flight"),
    ("rtt", "G/FCFS", 7): (None, "115 and 511 s are both a loser's inflated estimate"),
    ("rtt", "G/FQ", 1): (None, "16.8 and 8.91 s are both an estimate inflated by 73 resends "
                               "of 178 packets"),
    **{("rtt", "JK/FCFS", c): ("upright", "58.1 s is 68 packets in flight") for c in (1, 4, 6)},
    ("rtt", "JK/FQ", 3): ("upright", "61.1 s is 67 packets in flight"),
    ("rtt", "JK/FQ", 4): ("upright", "98.1 s is 117 packets in flight"),
    ("rtt", "JK/FQ", 5): ("upright", "'02.2' has a leading zero"),
    ("rtt", "JK/FQ", 6): ("upright", "91.2 s is 110 packets in flight"),
    ("rtt", "JK/FQ", 7): ("upright", "at 160 s a window of 5 lets through 16 of 87 packets"),
    ("rtt", "JK/FQ", 8): ("upright", "at 580 s a window of 5 lets through 4 of 96 packets"),
    **{("rtt", "DEC/DEC", c): ("upright", "658 s is 766 packets in flight") for c in range(1, 7)},
    **{("rtt", "DEC/FQbit", c): ("upright", "65.1 s is 76 packets in flight")
       for c in range(1, 7)},
    ("rtt", "DEC/FQbit", 7): ("upright", "at 880 s a window of 5 lets through 3 of 83 packets"),
    ("rtt", "DEC/FQbit", 8): ("upside down", "at 680 s a window of 5 lets through 4 of 89 "
                                             "packets"),
    ("retransmitted", "G/FCFS", 2): ("upright", "'01' has a leading zero"),
    ("retransmitted", "G/FCFS", 4): (None, "6 and 9 both admitted (its drops are illegible)"),
    ("retransmitted", "G/FCFS", 5): (None, "6 and 9 both cover its 5 drops"),
    ("retransmitted", "G/FCFS", 7): (None, "25 and 52 both cover its 15 (or 51) drops"),
    ("retransmitted", "G/FQ", 4): ("upright", "891 resends exceed the 688 packets sent"),
    ("retransmitted", "G/FQ", 6): ("upright", "651 makes the waste 28 %, not 13"),
    ("retransmitted", "JK/FCFS", 7): (None, "6 and 9 both cover its 2 drops"),
    ("retransmitted", "JK/FQ", 2): ("upright", "'08' has a leading zero"),
    ("retransmitted", "JK/FQ", 3): (None, "99 and 66 both cover its 48 drops"),
    ("retransmitted", "JK/FQ", 5): ("upright", "19 resends do not cover 27 drops"),
    ("retransmitted", "JK/FQ", 6): ("upright", "19 resends do not cover 54 drops"),
    ("dropped", "G/FCFS", 1): ("upright", "92 drops exceed 43 resends"),
    ("dropped", "G/FCFS", 7): (None, "15 and 51 both admitted with 25 or 52 resends"),
    ("dropped", "G/FQ", 3): ("upright", "901 drops exceed 176 resends"),
    ("dropped", "G/FQ", 6): (None, "86 and 98 both within its 159 resends"),
    **{("dropped", "JK/FCFS", c): (None, "99 and 66 both exceed its 57 or 27 resends")
       for c in (1, 2, 6)},
    **{("dropped", "JK/FCFS", c): ("upright", "92 drops exceed 27 resends") for c in (3, 4, 5)},
    ("dropped", "JK/FQ", 4): (None, "61 and 19 both admitted (its resends are illegible)"),
}
#: Cells not compared although legible or invariant upside down: ``(quantity, combo, column)
#: -> why``.
III_BROKEN: dict[tuple[str, str, int], str] = {
    ("throughput", "DEC/DEC", 7): "a Telnet's 8 packets without loss or resend: a digit lost",
    ("rtt", "G/FCFS", 8): "'1' for a Telnet of illegible throughput: a dash?",
    ("rtt", "JK/FCFS", 7): "'1' for a shut-out Telnet: a dash?",
    ("rtt", "JK/FCFS", 8): "'1' for a Telnet without packets: a dash?",
    ("retransmitted", "JK/FQ", 4): "4 resends do not cover 61 drops",
}


def _table3_values() -> dict:
    """Table III's cells from :data:`III_PRINTED` by :data:`III_READINGS` and
    :data:`III_BROKEN` (a number, or :data:`OCR`)."""
    out: dict = {}
    for q, rows in III_PRINTED.items():
        out[q] = {}
        for combo, texts in rows.items():
            cells = []
            for col, text in enumerate(texts, start=1):
                key = (q, combo, col)
                reading = III_READINGS.get(key, ("upright", ""))[0]
                if key in III_BROKEN or reading is None:
                    cells.append(OCR)
                    continue
                text = upside_down(text) if reading == "upside down" else text
                try:
                    v = float(text)
                except ValueError:
                    cells.append(OCR)
                    continue
                cells.append(int(v) if v.is_integer() and "." not in text else v)
            out[q][combo] = tuple(cells)
    return out


#: The transcribed tables, by table number.
TABLES: dict[str, PaperTable] = {
    "II": PaperTable(1, ("ftp", "ftp", "telnet", "telnet"), {
        "throughput": {
            "G/FCFS": (1746, 1746, 99, 96),
            "G/FQ": (1746, 1746, 102, 94),          # label OCR'd "G/FO"
            "JK/FCFS": (1747, 1745, 102, 104),
            "JK/FQ": (1746, 1746, 105, 103),
            "DEC/DEC": (1746, 1746, 97, 98),
            "DEC/FQbit": (1745, 1746, 83, 88)},
        "rtt": {
            "G/FCFS": (1.43, 1.43, 1.36, 1.35),
            "G/FQ": (1.43, 1.43, 0.079, 0.091),
            "JK/FCFS": (1.43, 1.43, 1.35, 1.36),
            "JK/FQ": (1.43, 1.43, 0.084, 0.089),
            "DEC/DEC": (0.286, 0.286, 0.206, 0.218),
            "DEC/FQbit": (1.38, 1.39, 0.088, 0.074)},
        "retransmitted": _zeros(4) | {"G/FQ": (0, 0, 2, 1)},
        "dropped": _zeros(4)}),
    # Table III was printed rotated: its cells are read by the rule of III_READINGS
    "III": PaperTable(2, ("ftp",) * 6 + ("telnet",) * 2, _table3_values()),
    "IV": PaperTable(3, ("ftp", "telnet", "ill"), {
        "throughput": {
            "G/FCFS": (3, 11, 3497), "G/FQ": (3491, 95, 5), "JK/FCFS": (0, 0, 3500),
            "JK/FQ": (3489, 110, 6), "DEC/DEC": (0, 0, 3500), "DEC/FQbit": (3489, 108, 5)},
        # dashes and blanks: NA.  The ill-behaved source has no estimator, yet the paper prints
        # an RTT for it: compared with its packets' one-way delay (Measured.delay)
        "rtt": {
            "G/FCFS": (1362, 2.87, 2.97), "G/FQ": (0.716, 0.080, 903),
            "JK/FCFS": (NA, NA, 2.83), "JK/FQ": (0.716, 0.085, 860), "DEC/DEC": (NA, NA, 2.85),
            "DEC/FQbit": (0.626, 0.077, 918)},
        "retransmitted": {
            "G/FCFS": (7, 139, 0), "G/FQ": (0, 2, 0), "JK/FCFS": (2, 0, 0), "JK/FQ": (0, 0, 0),
            "DEC/DEC": (1, 1, 0), "DEC/FQbit": (0, 0, 0)},
        "dropped": {
            "G/FCFS": (7, 127, 3504), "G/FQ": (0, 0, 6995), "JK/FCFS": (2, 0, 3500),
            "JK/FQ": (0, 0, 6994), "DEC/DEC": (1, 1, 3500), "DEC/FQbit": (0, 0, 6994)}}),
    # Table V: FTPs 1-2 generic, 3-4 JK; the rows are queueing policies
    "V": PaperTable(4, ("generic", "generic", "jk", "jk"), {
        "throughput": {"FQ": (1162, 12, 1163, 1163), "FCFS": (1182, 1182, 569, 567)},
        "rtt": {"FQ": (2.15, 281, 2.14, 2.14), "FCFS": (2.11, 2.11, 2.07, 2.16)},
        "retransmitted": {"FQ": (1, 5, 2, 2), "FCFS": (0, 0, 47, 47)},
        "dropped": {"FQ": (1, 1, 2, 2), "FCFS": (0, 0, 48, 48)}}),
    "VI": PaperTable(5, ("ftp",) * 4, {
        "throughput": {
            "G/FCFS": (2500, 2500, 2500, 1000), "G/FQ": (1750,) * 4,
            "JK/FCFS": (2500, 2500, 2500, 1000), "JK/FQ": (1750,) * 4,
            "DEC/DEC": (1683, 1684, 1682, 1202), "DEC/FQbit": (1750,) * 4},
        "rtt": {
            "G/FCFS": (1.00, 1.00, 1.00, 2.5), "G/FQ": (1.43,) * 4,
            "JK/FCFS": (1.00, 1.00, 1.00, 2.5), "JK/FQ": (1.43,) * 4,
            "DEC/DEC": (0.520, 0.520, 0.520, 1.05), "DEC/FQbit": (1.29, 1.29, 1.29, 1.43)},
        "retransmitted": _zeros(4),
        "dropped": _zeros(4)}),
    # Table VII was printed rotated: its OCR reads it column by column.
    "VII": PaperTable(6, ("ftp",) * 8, {
        # column 3 reads "196 192 193 193": four values for five rows.  Read in order, the
        # DEC/DEC cell is missing (OCR; were a middle one lost, JK/FCFS's, whose 193 would then
        # be DEC/DEC's); G/FCFS 196 and G/FQ 192 hold either way
        "throughput": {
            "G/FCFS": (196, 202, 196, 187, 1832, 1277, 1950, 1945),
            "G/FQ": (193, 192, 192, 577, 1560, 1560, 1622, 3274),
            "JK/FCFS": (195, 202, 193, 190, 1833, 1276, 1951, 1946),
            "JK/FQ": (193, 193, 193, 577, 1558, 1558, 1619, 3273),
            "DEC/DEC": (193, 193, OCR, 510, 1483, 1052, 1574, 2796),
            "DEC/FQbit": (192,) + (OCR,) * 7},                 # only column 1 survives
        "rtt": {
            # col 5 JK/FCFS "1.60": 1833 packets in 500 s at window 5 need an RTT of 1.36
            "G/FCFS": (12.8, 12.4, 12.8, 13.3, 1.36, 1.96, 1.27, 1.26),
            "G/FQ": (12.8, 12.9, 12.8, 4.26, 1.60, 1.60, 1.54, 0.728),
            "JK/FCFS": (12.8, 12.4, 12.8, 13.2, OCR, 1.96, 1.27, 1.25),
            "JK/FQ": (13.0, 13.0, 13.0, 4.33, 1.60, 1.60, 1.54, 0.729),
            "DEC/DEC": (2.59, 2.59, 2.59, 3.55, 0.857, 0.954, 0.778, 0.741),
            # col 4 "4:33", col 5 "1.4/", cols 6-8 lost
            "DEC/FQbit": (7.14, 7.14, 7.14, OCR, OCR, OCR, OCR, OCR)},
        "retransmitted": {  # column 8 lost (blank)
            c: (0,) * 7 + (OCR,) for c in _ALL},
        "dropped": {  # column 8 "o o o o o o"; DEC/FQbit's row "o a > > > , ," broken
            c: ((0,) * 7 + (OCR,) if c != "DEC/FQbit" else (OCR,) * 8) for c in _ALL}}),
}


# ----------------------------------------------------------------- algorithm combinations
def generic_ftp():
    """The generic flow control (window 5) of a greedy 1000-byte FTP."""
    from ..sim import GenericWindow

    return GenericWindow(window=WINDOW, packet_size=FTP_SIZE)


def generic_telnet():
    """A Telnet: 40-byte Poisson packets every 5 s on average, window 5, generic timeouts."""
    from ..sim import Poisson

    return Poisson(rate=TELNET_RATE, packet_size=TELNET_SIZE, window=WINDOW)


def jk_ftp():
    """Jacobson-Karels as the paper models it: the generic source with adjustable windows,
    JK timeouts and fast retransmit, without fast recovery (:class:`~qosmodels.sim.TcpTahoe`,
    4.3BSD-Tahoe's timer constants), with the paper's maximum window of 5."""
    from ..sim import TcpTahoe

    return TcpTahoe(max_window=WINDOW, packet_size=FTP_SIZE)


def fcfs():
    """A first-come first-served gateway: drop-tail."""
    from ..sim import DropTail

    return DropTail()


def fq():
    """A fair-queueing gateway with delta = 0, as the paper ran it."""
    from ..mechanisms import FairQueueing

    return FairQueueing(delta=0.0)


def decbit_ftp():
    """The DECbit source: window adjusted from the echoed bits, at most the paper's 5."""
    from ..mechanisms import DecbitWindow

    return DecbitWindow(max_window=WINDOW, packet_size=FTP_SIZE)


def selective_decbit():
    """The selective DECbit gateway with the paper's capacity factor 0.9."""
    from ..mechanisms import Decbit

    return Decbit(selective=True, capacity_factor=0.9)


def fq_bit():
    """Fair queueing with the paper's bit-setting rule (a third of the fair buffer share)."""
    from ..mechanisms import Decbit

    return Decbit(fq_bit=True)


@dataclass(frozen=True)
class Combo:
    """One row label of Table I: factories of the sources and of the gateway queue.

    Attributes
    ----------
    ftp, telnet : callable
        ``() -> SourceSpec`` of a greedy FTP and of a Telnet.
    queue : callable
        ``() -> QueueSpec`` of every gateway line (both directions).
    note : str
        Deviations from the paper's combination.
    """

    ftp: Callable
    telnet: Callable
    queue: Callable
    note: str = ""


_JK_TELNET = ("the JK Telnet is the windowed Poisson source with generic timeouts (no "
              "application-limited JK sender in the simulator yet)")

_DEC_TELNET = ("the DECbit Telnet is the windowed Poisson source with generic timeouts (a "
               "Telnet never fills its window, so the bits would not change what it sends)")

#: Table I: label -> :class:`Combo` (None: a combination whose mechanisms are missing).
COMBOS: dict[str, Combo | None] = {
    "G/FCFS": Combo(generic_ftp, generic_telnet, fcfs),
    "G/FQ": Combo(generic_ftp, generic_telnet, fq),
    "JK/FCFS": Combo(jk_ftp, generic_telnet, fcfs, note=_JK_TELNET),
    "JK/FQ": Combo(jk_ftp, generic_telnet, fq, note=_JK_TELNET),
    "DEC/DEC": Combo(decbit_ftp, generic_telnet, selective_decbit, note=_DEC_TELNET),
    "DEC/FQbit": Combo(decbit_ftp, generic_telnet, fq_bit, note=_DEC_TELNET),
}
#: Table V's policies: the gateway queue of each (its sources are fixed per conversation).
POLICIES: dict[str, Callable | None] = {"FCFS": fcfs, "FQ": fq}


# ----------------------------------------------------------------- the networks
def _check_sources(name, sources, n):
    if not isinstance(sources, (list, tuple)):
        raise ScenarioTypeError(f"{name}: sources must be a list of {n} SourceSpec, got "
                                f"{sources!r}")
    if len(sources) != n:
        raise ScenarioError(f"{name}: sources must have {n} entries (one per conversation, "
                            f"table order), got {len(sources)}")


def _duplex(a, b, rate, buffer, queue):
    return [Link(a, b, rate, 0.0, buffer=buffer, queue=queue()),
            Link(b, a, rate, 0.0, buffer=buffer, queue=queue())]


def _access(node, gateway, rate=ACCESS):
    return [Link(node, gateway, rate, 0.0, buffer=1000), Link(gateway, node, rate, 0.0,
                                                               buffer=1000)]


def _timed(spec, rtt_gain, initial_rtt, jk_max_rto=None):
    """``spec`` with the generic timer's averaging gain and initial RTT estimate, where it
    has the generic timer (a generic FTP or a windowed Telnet), and with the JK timer's
    cap on its backed-off timeout ``jk_max_rto`` where it is a JK source; None keeps a
    value, other sources are unchanged."""
    import dataclasses

    if spec.kind == "tahoe":
        return spec if jk_max_rto is None else dataclasses.replace(spec, max_rto=jk_max_rto)
    if spec.kind not in ("generic", "poisson") or getattr(spec, "window", None) is None:
        return spec
    kw = {k: v for k, v in (("rtt_gain", rtt_gain), ("initial_rtt", initial_rtt))
          if v is not None}
    return dataclasses.replace(spec, **kw) if kw else spec


def _flows(routes, sources, names):
    return [Flow(list(r), source=s, name=n, start=STAGGER * i)
            for i, (r, s, n) in enumerate(zip(routes, sources, names))]


def single_gateway(sources, *, buffer: int, queue=fcfs, rate: float = LINE,
                   names=None, access: float = ACCESS) -> Network:
    """Scenarios 1-4: every conversation from its own host through gateway ``g`` and its
    ``rate`` line ``g->d`` (``d->g`` carries the ACKs) to the sink's node ``d``.

    Parameters
    ----------
    sources : list of SourceSpec
        One per conversation, table order.
    buffer : int, packets
        Waiting room of the gateway line (each direction).
    queue : callable
        ``() -> QueueSpec`` of the gateway line.
    rate : float, bit/s
    names : list of str, optional
    access : float, bit/s
        Rate of every host's and sink's own link to the gateway (both directions).
    """
    if not isinstance(buffer, int) or isinstance(buffer, bool) or buffer < 1:
        raise ScenarioError(f"single_gateway: buffer must be an int >= 1 (packets), got "
                            f"{buffer!r}")
    n = len(sources) if isinstance(sources, (list, tuple)) else -1
    _check_sources("single_gateway", sources, max(n, 1))
    links = _duplex("g", "d", rate, buffer, queue)
    routes = []
    for i in range(n):
        links += _access(f"h{i + 1}", "g", access)
        links += _access("d", f"k{i + 1}", access)
        routes.append((f"h{i + 1}", "g", "d", f"k{i + 1}"))
    names = names or [f"c{i + 1}" for i in range(n)]
    return Network(links, _flows(routes, sources, names))


#: The gateway buffer of each scenario, packets: stated for scenario 2 only ("a buffer size
#: of only 15"), inferred for the others (module docstring).
BUFFERS = {1: 15, 2: 15, 3: 20, 4: 15, 5: 15, 6: 20}


def scenario_network(scenario: int, combo: Combo | None = None, *, sources=None,
                     queue=None, access: float | None = None, buffer: int | None = None,
                     rtt_gain: float | None = None, initial_rtt: float | None = None,
                     jk_max_rto: float | None = None) -> Network:
    """The network of one of the paper's scenarios, as inferred (module docstring).

    Parameters
    ----------
    scenario : int
        1 ... 6 (6: FTPs 1-4 only).
    combo : Combo, optional
        The sources and queue of a Table I combination (scenarios 1, 2, 3, 5, 6).
    sources : list of SourceSpec, optional
        Instead of ``combo``'s: one source per conversation (scenario 4, which
        mixes generic and JK FTPs, needs them).
    queue : callable, optional
        ``() -> QueueSpec`` of the gateways, instead of ``combo``'s.
    access : float, bit/s
        Rate of the hosts' and sinks' own links (unstated: :data:`ACCESS`).
    buffer : int, optional
        Waiting room of every gateway line, packets (default :data:`BUFFERS`).
    rtt_gain, initial_rtt : float, optional
        The generic timer's averaging gain and initial RTT estimate, s, applied to
        every source with the generic timer (generic FTPs, Telnets); None keeps
        the sources' own (0.125 and 1 s).
    jk_max_rto : float, optional
        The JK sources' cap on the backed-off retransmission timeout, s (None:
        TcpTahoe's 64 s, 4.3BSD's ``TCPTV_REXMTMAX``).

    Returns
    -------
    Network
        Flows named ``"c1"``, ``"c2"``, ... in table order.
    """
    if scenario not in (1, 2, 3, 4, 5, 6):
        raise ScenarioError(f"scenario_network: scenario must be 1 ... 6 (Tables II-VII), got "
                            f"{scenario!r}")
    if combo is not None and not isinstance(combo, Combo):
        raise ScenarioTypeError(f"scenario_network: combo must be a Combo or None, got "
                                f"{combo!r}; COMBOS[label] is None for combinations not "
                                f"implemented yet")
    table = TABLES[("II", "III", "IV", "V", "VI", "VII")[scenario - 1]]
    kinds = table.kinds if scenario != 6 else table.kinds[:4]
    if queue is None:
        if combo is None:
            raise ScenarioError("scenario_network: give combo= or queue= (the gateways' "
                                "discipline)")
        queue = combo.queue
    if sources is None:
        if combo is None or scenario == 4:
            raise ScenarioError(f"scenario_network: scenario {scenario} needs sources= "
                                f"(one per conversation)" if scenario == 4 else
                                "scenario_network: give combo= or sources=")
        sources = [_source(k, combo) for k in kinds]
    _check_sources("scenario_network", sources, len(kinds))
    sources = [_timed(s, rtt_gain, initial_rtt, jk_max_rto) for s in sources]
    names = [f"c{i + 1}" for i in range(len(kinds))]
    buffer = BUFFERS[scenario] if buffer is None else buffer
    access = ACCESS_BY_SCENARIO.get(scenario, ACCESS) if access is None else access
    if scenario <= 4:
        return single_gateway(list(sources), buffer=buffer, queue=queue, names=names,
                              access=access)
    if not isinstance(buffer, int) or isinstance(buffer, bool) or buffer < 1:
        raise ScenarioError(f"scenario_network: buffer must be an int >= 1 (packets), got "
                            f"{buffer!r}")
    if scenario == 5:
        links = []
        for i in range(1, 4):
            links += _duplex(f"g{i}", f"g{i + 1}", LINE, buffer, queue)
        routes = []
        for i in range(1, 4):
            links += (_access(f"h{i}", f"g{i}", access)
                      + _access(f"g{i + 1}", f"k{i}", access))
            routes.append((f"h{i}", f"g{i}", f"g{i + 1}", f"k{i}"))
        links += _access("h4", "g1", access) + _access("g4", "k4", access)
        routes.append(("h4", "g1", "g2", "g3", "g4", "k4"))
        return Network(links, _flows(routes, sources, names))
    # scenario 6, FTPs 1-4: 1-3 cross the 9.6 kb/s line a->b, 4 crosses it b->a
    links = _duplex("a", "b", SLOW_LINE, buffer, queue)
    routes = []
    for i in range(1, 4):
        links += _access(f"h{i}", "a", access) + _access("b", f"k{i}", access)
        routes.append((f"h{i}", "a", "b", f"k{i}"))
    links += _access("h4", "b", access) + _access("a", "k4", access)
    routes.append(("h4", "b", "a", "k4"))
    return Network(links, _flows(routes, sources, names))


def _source(kind, combo):
    if kind == "telnet":
        return combo.telnet()
    if kind == "ill":
        from ..sim import Cbr

        return Cbr(rate=2 * LINE, packet_size=FTP_SIZE)
    if kind == "generic":
        return generic_ftp()
    if kind == "jk":
        return jk_ftp()
    return combo.ftp()


def scenario4_sources():
    """Scenario 4's conversations: two generic FTPs, then two JK FTPs."""
    return [generic_ftp(), generic_ftp(), jk_ftp(), jk_ftp()]


# ----------------------------------------------------------------- runs and rows
@dataclass(frozen=True)
class Measured:
    """What one run gives per conversation, scaled to the paper's 500 s window:
    ``throughput`` the data packets reaching the destination (duplicates included, the
    paper's measure), ``useful`` the first copies only."""

    throughput: np.ndarray
    useful: np.ndarray
    rtt: np.ndarray
    retransmitted: np.ndarray
    dropped: np.ndarray
    method: str
    #: Mean one-way delay of the data packets reaching the destination in the window, s:
    #: their queueing delay plus the transmission times of a packet along the path (no
    #: propagation delay in these networks); NaN for a conversation without such a packet.
    delay: np.ndarray | None = None


def run(net: Network, *, quick: bool, seed: int = SEED) -> Measured:
    """Simulate ``net`` with the paper's warm-up and window (shorter with ``quick``)."""
    from ..sim import Record, simulate

    warm, meas = (QUICK_WARMUP, QUICK_MEASURED) if quick else (WARMUP, MEASURED)
    r = simulate(net, warm + meas, seed=seed, warmup=warm, progress=False,
                 record=Record(interval=50.0, cwnd=False))
    k = MEASURED / meas
    c = r.counters
    return Measured(throughput=c["arrived_window"] * k, useful=r.delivered_packets * k,
                    rtt=r.mean_rtt_estimate,
                    retransmitted=c["retransmitted_window"] * k,
                    dropped=c["dropped_window"] * k,
                    method=f"simulate, seed {seed}, {warm:g} s warm-up + {meas:g} s"
                           + (f" (x{k:g} to 500 s)" if k != 1 else ""),
                    delay=r.mean_queueing_delay + transmission_times(net))


def transmission_times(net: Network) -> np.ndarray:
    """Each conversation's data packet's transmission times summed along its path, s."""
    return np.array([float(np.sum(8.0 * net.packet_sizes[i]
                                  / net.capacities[net.flow_links(i)]))
                     for i in range(net.n_flows)])


def tolerance(quantity: str, expected: float, scale: float = 1.0) -> float:
    """Relative tolerance of a row (absolute when ``expected`` is 0): counts 10 % or 5
    packets of the measured window, whichever is larger; RTT 10 %.

    ``scale`` is the factor that brought the counts to the paper's 500 s (5 in the quick
    form's 100 s): one packet there counts as ``scale``, so the 5 packets become
    ``5 * scale``."""
    if quantity == "rtt":
        return 0.10
    if expected == 0:
        return 5.0 * scale
    return max(0.10, 5.0 * scale / abs(expected))


def telnet_tolerance(expected: float, scale: float = 1.0) -> float:
    """Relative tolerance of a Telnet's throughput: two standard deviations of the
    difference between two independent Poisson counts of mean ``expected`` (the paper's
    count as the estimate of the mean), the paper's over 500 s and this run's over
    ``500 / scale`` s scaled by ``scale``: variance ``expected (1 + scale)``, 28 packets
    for a count of 100 in the full form, 49 in the quick one; or :func:`tolerance` if
    larger (a Telnet shut out, count 0)."""
    band = 2.0 * float(np.sqrt(abs(expected) * (1.0 + scale)))
    if expected == 0:
        return tolerance("throughput", expected, scale)
    return max(tolerance("throughput", expected, scale), band / abs(expected))


def fair_shares(net: Network) -> np.ndarray:
    """Max-min fair share of each conversation of ``net`` in packets per 500 s
    (Telnets and the ill-behaved source capped at their offered rate; ACKs ignored)."""
    from ..allocation import allocate

    caps = []
    for f in net.flows:
        s = f.source
        rate = getattr(s, "rate", None) if s.kind in ("poisson", "cbr") else None
        caps.append(rate)
    capped = net.replace(flows=[f if c is None else _with_max_rate(f, c)
                                for f, c in zip(net.flows, caps)])
    a = allocate(capped, fairness="maxmin")
    return np.asarray(a.rates) * MEASURED / (8.0 * net.packet_sizes)


def _with_max_rate(flow, rate):
    import dataclasses

    return dataclasses.replace(flow, max_rate=rate)


def _legible(v) -> bool:
    return not isinstance(v, _Cell)


#: Table -> conversations a scenario's network builds (scenario 6: FTPs 1-4 only).
BUILT = {"II": 4, "III": 8, "IV": 3, "V": 4, "VI": 4, "VII": 4}
#: Where the text says a combination allocates the bandwidth fairly: the FTP throughput rows
#: that get the max-min share as their theory side ({table: {combo: conversations}}).  Not
#: the Telnets: their share is their demand, ~100 packets, and one run's count is Poisson
#: (+-10), the paper's too.
FAIR = {
    "II": {c: (0, 1) for c in _ALL},  # "all of the algorithms provide fair allocation"
    "III": {"JK/FQ": tuple(range(6)), "DEC/DEC": tuple(range(6)),
            "DEC/FQbit": tuple(range(6))},
    # (not IV: there FQ gives the FTP more than its max-min share, 3491 packets, because the
    # ill-behaved source, "charged" for its dropped packets, gets much less than its own)
    "VI": {"G/FQ": (0, 1, 2, 3), "JK/FQ": (0, 1, 2, 3), "DEC/FQbit": (0, 1, 2, 3)},
}

_LOCKOUT = ("winners at the full window: with JK as the paper defines it (TcpTahoe, no fast "
            "recovery) no FTP is shut out, but an FTP at the maximum window of 5 sends one packet "
            "per ACK, in step with the departures, and never loses, while the others, opening "
            "their windows after a loss, send into the full drop-tail buffer: one or two FTPs get "
            "1143-1341 packets without a loss on every seed (1990, 1-8), most others 115-474.  "
            "The paper's JK FTPs all resent some packets and shared fairly.  The hosts' links, "
            "which the paper does not give, decide it: with them at 56 kb/s scenario 2's JK FTPs "
            "get 440-679 packets")
_NOTES = {
    ("III", "G/FCFS"): "which FTPs win or lose the segregation depends on timing (the paper's "
                       "run, one seed here); the winners/losers count rows are the comparable "
                       "ones",
    ("III", "JK/FCFS"): _LOCKOUT,
    ("V", "FCFS"): "reproduced with the flows started 0.1 s apart in table order (the run has "
                   "no randomness); with the four start times drawn uniformly in [0, 2] s (12 "
                   "draws, numpy default_rng(12345)) 5 draws give the paper's split (JK FTPs "
                   "565-568 packets) and 7 lock one FTP out (2-24 packets: a JK FTP in 5 draws, "
                   "a generic one in 2), the drop-tail phase effect of Table III's JK/FCFS",
    ("IV", "G/FCFS"): "under FCFS the generic FTP and Telnet are shut out; here the Telnet's "
                      "RTT samples, timed from first transmissions across many timeouts, inflate "
                      "its estimate beyond the window (no sample in the 500 s; 1398 s with a "
                      "15-packet buffer): 5 retransmissions against the paper's 139, and it "
                      "delivers nothing in the window",
    ("IV", "JK/FCFS"): "the shut-out FTP and Telnet retransmit at their backed-off or inflated "
                       "timeouts: how many times in 500 s depends on timing",
    ("VI", "G/FCFS"): "FCFS splits each line by window/RTT: the paper's 2500/1000 packets "
                      "(RTT 1.0 and 2.5 s) are what the hosts' 56 kb/s links give each path "
                      "(2 x 0.143 s outside the gateway lines); with 10 Mb/s host links "
                      "(explored) the long path's RTT is three short ones (2625/875 packets, "
                      "0.95/2.86 s)",
    ("VII", "G/FCFS"): "GenericWindow starts from an RTT estimate of 1 s (the paper gives "
                       "none) against 12.8 s: spurious timeouts at start fill the 20-packet "
                       "buffer with go-back-N copies, drops follow and FTP 1 ends a loser with "
                       "an inflated estimate; a 30-packet buffer or a 10 s initial estimate "
                       "(explored) avoids it",
}
_NOTES[("VI", "JK/FCFS")] = _NOTES[("VI", "G/FCFS")]
_SEVERE = ("under scenario 2's overload each FTP's counts depend on when its timeouts and "
           "resends fall (the paper's own G/FQ FTPs range from 178 to 838 packets); one run "
           "here against one printed run per conversation: the sums and the text's claims are "
           "the comparable rows")
_FQBIT = ("the FQ bit-setting rule is read as: bit set when the conversation's queue (the "
          "packet included) exceeds buffer / (3 N), N the conversations active in the fair "
          "queueing emulation; the paper does not say what N counts.  RTTs 40-46 % below the "
          "paper's (less queueing) suggest its gateway signalled later than this reading")
_DECBIT = ("the selective DECbit gateway is reconstructed (DEC-TR-510 was not available): "
           "RTTs about half the paper's and little waste suggest this gateway keeps queues "
           "shorter than the paper's did")
_V_FQ = ("the paper's generic FTP 2 collapsed (12 packets, RTT estimate 281 s: 'the generic "
         "sources have segregated'), after which generic FTP 1 and the JK pair hold 3 x 5 = 15 "
         "packets, the buffer, and almost nothing is lost (1-2 drops each).  Here neither generic "
         "FTP collapses: their estimates, sampled from first transmissions, grow to 2.4-3.1 s but "
         "no further, both keep timing out and going back N, 20 packets of windows compete for "
         "15 places and every FTP loses packets (the JK pair 965 and 973 packets, not 1163).  The "
         "run has no randomness; with the four start times drawn uniformly in [0, 2] s (12 draws, "
         "numpy default_rng(12345)) the weaker generic FTP got 412-872 packets, never a "
         "collapse.  What in the paper's generic source (its averaging gain, its timer) drives "
         "the runaway is not stated; with the gain at 0.25 one generic FTP falls to 573 packets, "
         "at 1 neither (798 and 805)")
_NOTES.update({
    ("II", "G/FQ"): "a Telnet's RTT is the mean over ~100 packets, each waiting behind up to "
                    "one FTP packet (0.143 s): its standard error is about 0.004 s, so 10 % "
                    "of it (0.008 s) is about two standard errors; one run here, one printed",
    ("III", "G/FQ"): _SEVERE,
    ("III", "JK/FQ"): _SEVERE,
    ("III", "DEC/FQbit"): _FQBIT,
    ("II", "DEC/FQbit"): _FQBIT,
    ("VI", "DEC/FQbit"): _FQBIT,
    ("VII", "DEC/FQbit"): _FQBIT,
    ("II", "DEC/DEC"): _DECBIT,
    ("VI", "DEC/DEC"): _DECBIT,
    ("VII", "DEC/DEC"): _DECBIT,
    ("IV", "G/FQ"): "the ill-behaved source's 5 packets against the paper's 35 and the Telnet's "
                    "retransmissions: FQ charges the source for every packet it offers (finish "
                    "numbers are not rolled back for drops), so how few get through depends on "
                    "how far its bids run ahead, which the paper does not detail",
    ("V", "FQ"): _V_FQ,
})


# ----------------------------------------------------------------- the known differences
#: Why rows miss the paper: key -> (cause, evidence, cause of the rows that an explored
#: setting of :data:`UNSTATED` brings within tolerance).  The evidence was measured with
#: this module's networks and :func:`run` (seeds as said; explored settings as
#: ``validate(explore=True)`` runs them, one parameter at a time).
_WHY: dict[str, tuple[str, str, str]] = {
    "telnet-count": (
        "statistical",
        "a Telnet's count is a Poisson draw of mean about 100 in 500 s: over seeds 1-10 of "
        "scenario 1 the two Telnets here average 98.9 and 101.8 packets (standard deviations "
        "7.2 and 15.7), but seed 1990 draws 120 for the second Telnet of scenarios 1 and 2 "
        "(120-122 under FQ and FQbit alike); the paper's four DEC/FQbit Telnet counts (83, "
        "88; 83, "
        "89) are all low draws.  This row is 2.3-2.4 standard deviations of the difference "
        "of two counts away, just beyond telnet_tolerance's 2",
        "statistical"),
    "telnet-rtt": (
        "statistical",
        "a Telnet's RTT under FQ is its own packet plus what is left of the FTP packet in "
        "transmission (0-0.143 s): over seeds 1-10 (scenario 1, G/FQ) the Telnets' mean RTTs "
        "are 0.0817 and 0.0837 s with standard deviations 0.0031 and 0.0061 s between seeds, "
        "and the paper's own six FQ and FQbit Telnet RTTs of Table II range over 0.074-0.091 "
        "s; the quick form's 100 s holds about 20 samples per Telnet, not 100",
        "statistical"),
    "fqbit-buffer": (
        "unstated parameter",
        "the FQ bit is set when a conversation's queue exceeds a third of its fair share of "
        "the buffer, so the queue the DECbit sources keep, and their RTT, grows with the "
        "buffer the lost figures would give: Table II's FTP RTT is 0.775 s at the inferred 15 "
        "packets and 1.432 s at 30 (printed 1.38, 1.39); Table VII's FTPs 1-3 4.63-4.67 s at "
        "the inferred 20 and 7.06 s at 30 (printed 7.14)",
        "unstated parameter"),
    "fqbit-rule": (
        "mechanism differs",
        "the FQ bit-setting rule is read as: bit set when the conversation's queue (the packet "
        "included) exceeds buffer / (3 N), N the conversations active in the fair queueing "
        "emulation; the paper says only 'greater than 1/3 of its fair share of buffer space'.  "
        "The FTP RTTs here are 40-46 % below the paper's where the buffer is stated (Table "
        "III: 0.859 s against 1.59 at 15 packets, under every explored host link and timer "
        "setting) and no one buffer gives the paper's RTTs in every table (Table VI, hosts on "
        "56 kb/s links: 0.776 s at 10 packets, 1.044 s at 15, 1.286 s at 20, 1.429 s at 30 "
        "against 1.29; Tables II and VII need 30): the "
        "paper's gateway signalled later than this reading",
        "unstated parameter"),
    "segregation": (
        "statistical",
        "'the sources segregate into winners ... and losers': which FTPs win depends on "
        "timing.  Over seeds 1-8 here the winners (over 1000 packets) are FTPs {1, 6}, {1, 4, "
        "6}, {4, 5, 6}, {1, 6}, {3, 5, 6}, {2, 3}, {1, 3, 5}, {1, 2, 6}; each FTP's count "
        "spans 2-1430 packets and its RTT estimate 1.75-586 s; the paper's winners are FTPs "
        "2, 3 and 5 and its losers' estimates 140-403 s.  One run against one printed run per "
        "cell: the winners/losers counts are the comparable rows (the quick form's 300 s "
        "warm-up leaves the segregation unsettled: its losers still get over 100 packets)",
        "statistical"),
    "overload-fq": (
        "statistical",
        "under scenario 2's overload each FTP's counts depend on when its timeouts and "
        "go-back-N resends fall: the paper's own G/FQ FTPs get 178-838 packets; over seeds 1-8 "
        "here an FTP gets 51-843 packets and its mean RTT estimate per seed spans 2.3-51.6 s "
        "(typically 3.2-3.6 s, below the paper's 4.5-4.9 s).  One run against one printed "
        "run per conversation: the useful-bandwidth claim is the comparable row",
        "statistical"),
    "useful": (
        "unstated parameter",
        "the resends (go-back-N copies) waste the line: 17.0 % here with the inferred 10 Mb/s "
        "host links, 12.6 % (the paper's 13 %) with the hosts on 56 kb/s links",
        "unstated parameter"),
    "jk-lockout": (
        "unstated parameter",
        "JK is the paper's here, without fast recovery (TcpTahoe), and no FTP is shut out any "
        "more (seed 1990: 309, 1158, 278, 300, 312, 1143 packets; TcpReno's fast recovery gave "
        "1095, 1095, 0, 219, 1091, 0), but one or two FTPs still win: an FTP at the maximum "
        "window of 5 sends one packet per ACK, in step with the departures, and loses none "
        "(0-1 resends in 500 s), while the others, opening their windows after a loss (two "
        "packets per ACK in slow start), send into the full buffer and lose 81-93 packets each "
        "(a drop-tail phase effect, with 10 Mb/s host links and no propagation delay).  On "
        "each of seeds 1-8 one or two FTPs get 1146-1341 packets without a loss, the others "
        "115-474 (and one FTP of seed 3, 916).  The paper's JK FTPs all resent packets (27-57 "
        "each) and shared fairly (582-585).  With the hosts on 56 kb/s links the lock breaks "
        "here too (FTPs 1-6: 440, 611, 679, 650, 601, 510 packets; the Telnets then get 107-129 "
        "through); the JK timer's cap does not break it (two FTPs at 1143-1158 packets with "
        "jk_max_rto 30, 120 or 240 s)",
        "unstated parameter"),
    "jk-queue-full": (
        "unstated parameter",
        "the JK FTPs' RTT is 2.16-2.23 s (seed 1990) and 1.86-2.29 s over seeds 1-8: the "
        "drop-tail buffer stays nearly full (15 packets waiting and one in transmission at "
        "0.143 s is 2.29 s); the paper's 1.85-1.93 s is 13-13.5 packets; with the hosts on "
        "1.544 Mb/s links the RTTs are 1.80-2.03 s",
        "unstated parameter"),
    "jk-telnet": (
        "mechanism differs",
        "the JK Telnet here is the windowed Poisson source with the generic timeout (no "
        "backoff; the simulator has no application-limited JK sender).  In Table III under "
        "FCFS the Telnets get 6 and 7 packets through in 500 s (the paper: Telnet 8 none, "
        "Telnet 7's cell damaged), Telnet 7 loses 11 (the paper 2) and Telnet 8 resends 5 and "
        "loses 6 (the paper 0); under FQ, which drops none of them, they resend 3 and 7 after "
        "spurious generic timeouts (the paper 0); in Table IV the Telnet resends and loses 10 "
        "(the paper 0).  The paper's JK Telnets, with JK's timers, resent almost nothing",
        "unstated parameter"),
    "jk-fq": (
        "mechanism differs",
        "JK with FQ is fair here as in the paper (seed 1990: 560-599 packets; seeds 1-8: "
        "553-603; the paper 546-601), but its RTT estimates are 1.47-1.75 s on seeds 1990 and "
        "1-8 and 1.44-1.75 s over every explored setting against the paper's 1.75-2.20 s (1.19 "
        "for FTP 3), and TcpTahoe resends 1.0-1.3 packets per drop (seed 1990: 60-127 resends, "
        "60-97 drops per FTP) where the paper's JK resent FTP 1's packets 83 times for 8 drops "
        "and FTP 5's 61 times for 27 (spurious timeouts of its timer): the paper's JK window "
        "and timer dynamics are not 4.3BSD-Tahoe's as modelled here",
        "unstated parameter"),
    "iv-telnet": (
        "mechanism differs",
        "the shut-out Telnet's RTT estimate, sampled from first transmissions across "
        "timeouts, runs away: here it has no sample at all in the window with the inferred "
        "20-packet buffer and averages 1398 s with 15, so its timeout holds it to 5-15 resends "
        "in 500 s and 0-2 packets through; the paper's Telnet kept an estimate of 2.87 s and "
        "resent 139 times (11 packets through), as if its timer did not inflate",
        "unstated parameter"),
    "iv-ftp-timer": (
        "unstated parameter",
        "the shut-out FTP's estimate inflates as in the paper (1362 s printed): 1790 s with "
        "the inferred 20-packet buffer, 1398 s with 15; the quick form's 300 s warm-up leaves "
        "it at 173 s",
        "unstated parameter"),
    "quick-transient": (
        "short run",
        "quick form only: after its 300 s warm-up the shut-out FTP is still timing out at an "
        "estimate that has not yet run away (50 resends in 100 s, x5); the full form's 1500 s "
        "gives 9-10 (printed 7)",
        "short run"),
    "ill-quick": (
        "short run",
        "quick form only: FQ lets the ill-behaved source through in rare bursts (5-6 packets "
        "in the full form's 500 s, printed 5-6); the quick form's 100 s catches 7-8 and "
        "scales them x5",
        "short run"),
    "ill-delay-quick": (
        "short run",
        "quick form only, and not a statistical spread: under FQ the ill-behaved source's "
        "finish numbers run ahead of the round number by its excess rate, so the delay of the "
        "few packets it gets through grows in proportion to the time it has run: 880, 860 and "
        "892 s after the full form's 2000 s (printed 903, 860, 918), 175-180 s after the "
        "quick form's 400 s (0.43-0.45 s per second of run in both)",
        "short run"),
    "iv-dec-buffer": (
        "unstated parameter",
        "the DECbit FTP beside the ill-behaved source loses 8 packets in 500 s with the "
        "inferred 20-packet buffer and none with 15 (printed 1); the quick form's 100 s "
        "after a 300 s warm-up catches it still losing (60 resends, x5)",
        "unstated parameter"),
    "v-fq": (
        "unstated parameter",
        "the paper's generic FTP 2 collapsed (12 packets, RTT estimate 281 s: 'the generic "
        "sources have segregated') and almost nothing is lost (1-2 drops each).  Here, at the "
        "defaults, neither generic FTP collapses (705 and 857 packets, estimates 3.1 and 2.4 s) "
        "and every FTP loses packets (20 window packets for 15 places; the JK pair 965 and 973 "
        "packets against the printed 1163 each); with a 20-packet buffer every window "
        "fits, nothing is lost and each FTP gets 875 packets; with the generic timer's gain at "
        "0.25 one generic FTP falls to 573 packets (the JK pair 974 and 975), at 0.5 and 1 "
        "neither (805-819).  No explored setting gives the paper's 12-packet loser with its "
        "281 s estimate",
        "unstated parameter"),
    "decbit": (
        "mechanism differs",
        "the selective DECbit gateway is reconstructed (DEC-TR-510 was not available).  In "
        "scenario 5, whose hosts are on 56 kb/s links, the short FTPs' rows come out "
        "(1706-1727 packets, RTT 0.54 s) but the long FTP gets 1417 packets (printed 1202; "
        "1417-1447 under every explored setting) and the first line's waste is 10.6 %, not "
        "'roughly 18 per cent' (with 10 Mb/s host links the RTTs are about half the paper's, "
        "0.24-0.61 s against 0.52-1.05, and the waste 1 %); Table VII's FTP 4 gets 342-344 "
        "packets (printed 510) with RTT 2.56 s (printed 3.55) under every explored setting",
        "unstated parameter"),
    "vii-buffer": (
        "unstated parameter",
        "GenericWindow starts from an RTT estimate of 1 s against 12.8 s: spurious timeouts "
        "at start fill the inferred 20-packet buffer with go-back-N copies, drops follow and "
        "FTP 1 ends a loser with an inflated estimate (55 packets, 41.8 s); with a 30-packet "
        "buffer (196, 200, 196, 196 packets, RTT 12.67 s, no loss) or an initial estimate of "
        "10 s (FTP 1: 195 packets, 12.67 s) the paper's rows come out",
        "unstated parameter"),
}
#: The rows outside tolerance at the defaults (seed 1990), by table: quantity -> (key of
#: :data:`_WHY`, the largest error declared in the full form, in the quick form (None:
#: that form reproduces the row), the first explored setting that brought the row within
#: tolerance in the full form or None).  The errors are the measured ones with room (x1.3,
#: or +0.05 for small ones).  Rows without an RTT sample (NaN) are in :data:`NO_SAMPLE`.
KNOWN_ROWS: dict[str, dict[str, tuple]] = {
    "II": {
        "G/FQ Telnet 4 rtt": ("telnet-rtt", 0.16, None, {'buffer': 10}),
        "DEC/FQbit Telnet 4 throughput": ("telnet-count", 0.48, None, None),
        "DEC/FQbit FTP 1 rtt": ("fqbit-buffer", 0.58, 0.57, {'buffer': 30}),
        "DEC/FQbit FTP 2 rtt": ("fqbit-buffer", 0.58, 0.58, {'buffer': 30}),
        "DEC/FQbit Telnet 4 rtt": ("telnet-rtt", 0.16, 0.36, {'rtt_gain': 0.5}),
    },
    "III": {
        "G/FCFS FTP 1 throughput": ("segregation", 100, 110, None),
        "G/FCFS FTP 2 throughput": ("segregation", 1.3, 1.2, {'rtt_gain': 0.5}),
        "G/FCFS FTP 3 throughput": ("segregation", 1.3, 1.1, {'access_rate': 1544000.0}),
        "G/FCFS FTP 5 throughput": ("segregation", 0.28, 1.2, {'rtt_gain': 0.5}),
        "G/FCFS FTP 6 throughput": ("segregation", 59, 130, {'initial_rtt': 10.0}),
        "G/FCFS Telnet 7 throughput": ("segregation", 8.4, 4.0, None),
        "G/FCFS FTP 1 rtt": ("segregation", 1.3, 1.3, None),
        "G/FCFS FTP 2 rtt": ("segregation", 120, 13, {'rtt_gain': 0.5}),
        "G/FCFS FTP 3 rtt": ("segregation", 55, 2.8, {'access_rate': 1544000.0}),
        "G/FCFS FTP 5 rtt": ("segregation", 0.23, 18, {'rtt_gain': 0.5}),
        "G/FCFS FTP 6 rtt": ("segregation", 1.3, 1.3, None),
        "G/FCFS FTP 1 retransmitted": ("segregation", 1.3, 1.3, None),
        "G/FCFS FTP 2 retransmitted": ("segregation", None, 5.2, None),
        "G/FCFS FTP 3 retransmitted": ("segregation", None, 22, None),
        "G/FCFS FTP 6 retransmitted": ("segregation", 3.7, None, None),
        "G/FCFS FTP 1 dropped": ("segregation", 1.3, 1.3, {'initial_rtt': 0.5}),
        "G/FCFS FTP 3 dropped": ("segregation", None, 32, None),
        "G/FCFS FTP 5 dropped": ("segregation", None, 12, None),
        "G/FCFS FTP 6 dropped": ("segregation", 3.0, None, None),
        "G/FQ FTP 1 throughput": ("overload-fq", 3.0, None, {'initial_rtt': 0.5}),
        "G/FQ FTP 2 throughput": ("overload-fq", 0.39, 0.84, None),
        "G/FQ FTP 3 throughput": ("overload-fq", 0.2, 0.57, {'access_rate': 1544000.0}),
        "G/FQ FTP 4 throughput": ("overload-fq", 0.19, 0.32, {'access_rate': 56000.0}),
        "G/FQ FTP 5 throughput": ("overload-fq", None, 0.16, None),
        "G/FQ FTP 6 throughput": ("overload-fq", None, 0.31, None),
        "G/FQ FTP 2 rtt": ("overload-fq", None, 1.8, None),
        "G/FQ FTP 3 rtt": ("overload-fq", 0.3, 0.65, None),
        "G/FQ FTP 4 rtt": ("overload-fq", 0.31, 0.43, {'initial_rtt': 10.0}),
        "G/FQ FTP 5 rtt": ("overload-fq", 0.31, None, None),
        "G/FQ FTP 6 rtt": ("overload-fq", 0.3, 0.43, {'rtt_gain': 1.0}),
        "G/FQ Telnet 8 rtt": ("telnet-rtt", None, 0.3, None),
        "G/FQ FTP 1 retransmitted": ("overload-fq", 2.0, 0.49, None),
        "G/FQ FTP 2 retransmitted": ("overload-fq", None, 0.43, None),
        "G/FQ FTP 3 retransmitted": ("overload-fq", 0.26, 0.92, {'access_rate': 56000.0}),
        "G/FQ FTP 4 retransmitted": ("overload-fq", 0.19, 1.3, {'rtt_gain': 0.25}),
        "G/FQ FTP 5 retransmitted": ("overload-fq", 0.26, 0.31, {'access_rate': 56000.0}),
        "G/FQ FTP 6 retransmitted": ("overload-fq", 0.38, 0.95, {'rtt_gain': 0.5}),
        "G/FQ FTP 1 dropped": ("overload-fq", 3.0, 1.1, None),
        "G/FQ FTP 2 dropped": ("overload-fq", None, 0.42, None),
        "G/FQ FTP 3 dropped": ("overload-fq", 0.52, 0.73, None),
        "G/FQ FTP 4 dropped": ("overload-fq", 0.52, 2.4, None),
        "G/FQ FTP 5 dropped": ("overload-fq", 0.32, 0.73, None),
        "JK/FCFS FTP 1 throughput": ("jk-lockout", 0.61, 0.61, None),
        "JK/FCFS FTP 2 throughput": ("jk-lockout", 1.3, 1.4, {'access_rate': 56000.0}),
        "JK/FCFS FTP 3 throughput": ("jk-lockout", 0.69, 0.63, None),
        "JK/FCFS FTP 4 throughput": ("jk-lockout", 0.64, 0.72, None),
        "JK/FCFS FTP 5 throughput": ("jk-lockout", 0.61, 0.67, {'access_rate': 56000.0}),
        "JK/FCFS FTP 6 throughput": ("jk-lockout", 1.3, 1.3, {'access_rate': 1544000.0}),
        "JK/FCFS Telnet 8 throughput": ("jk-telnet", 9.1, None, {'rtt_gain': 1.0}),
        "JK/FCFS FTP 1 rtt": ("jk-queue-full", 0.25, 0.24, {'access_rate': 1544000.0}),
        "JK/FCFS FTP 2 rtt": ("jk-queue-full", 0.18, 0.17, {'access_rate': 56000.0}),
        "JK/FCFS FTP 3 rtt": ("jk-queue-full", 0.21, 0.19, {'access_rate': 1544000.0}),
        "JK/FCFS FTP 4 rtt": ("jk-queue-full", 0.25, 0.28, {'access_rate': 1544000.0}),
        "JK/FCFS FTP 5 rtt": ("jk-queue-full", 0.21, 0.18, {'access_rate': 1544000.0}),
        "JK/FCFS FTP 6 rtt": ("jk-queue-full", 0.23, 0.21, {'access_rate': 1544000.0}),
        "JK/FCFS FTP 1 retransmitted": ("jk-lockout", 0.55, 0.76, None),
        "JK/FCFS FTP 2 retransmitted": ("jk-lockout", 1.3, 1.3, None),
        "JK/FCFS FTP 3 retransmitted": ("jk-lockout", 3.1, 3.1, None),
        "JK/FCFS FTP 4 retransmitted": ("jk-lockout", 2.7, 3.1, {'rtt_gain': 0.25}),
        "JK/FCFS FTP 5 retransmitted": ("jk-lockout", 3.2, 2.4, {'initial_rtt': 0.5}),
        "JK/FCFS FTP 6 retransmitted": ("jk-lockout", 1.3, 1.3, None),
        "JK/FCFS Telnet 8 retransmitted": ("jk-telnet", None, 65, None),
        "JK/FCFS FTP 3 dropped": ("jk-lockout", 3.4, 3.0, None),
        "JK/FCFS FTP 4 dropped": ("jk-lockout", 2.8, 3.2, {'rtt_gain': 0.25}),
        "JK/FCFS FTP 5 dropped": ("jk-lockout", 3.4, 2.7, {'initial_rtt': 0.5}),
        "JK/FCFS Telnet 7 dropped": ("jk-telnet", 5.9, None, {'rtt_gain': 1.0}),
        "JK/FCFS Telnet 8 dropped": ("jk-telnet", 7.8, 52, {'rtt_gain': 1.0}),
        "JK/FQ FTP 3 rtt": ("jk-fq", 0.43, 0.59, None),
        "JK/FQ FTP 4 rtt": ("jk-fq", 0.27, 0.16, None),
        "JK/FQ FTP 5 rtt": ("jk-fq", 0.4, 0.38, None),
        "JK/FQ FTP 6 rtt": ("jk-fq", 0.42, 0.43, None),
        "JK/FQ Telnet 7 rtt": ("telnet-rtt", 0.19, None, {'access_rate': 1544000.0}),
        "JK/FQ FTP 1 retransmitted": ("jk-fq", 0.69, 0.82, None),
        "JK/FQ FTP 2 retransmitted": ("jk-fq", 0.54, None, None),
        "JK/FQ Telnet 8 retransmitted": ("jk-telnet", 9.1, None, {'access_rate': 56000.0}),
        "JK/FQ FTP 1 dropped": ("jk-fq", 15, 17, None),
        "JK/FQ FTP 3 dropped": ("jk-fq", 0.98, 0.87, None),
        "JK/FQ FTP 5 dropped": ("jk-fq", 1.7, 1.6, None),
        "JK/FQ FTP 6 dropped": ("jk-fq", 0.17, None, {'access_rate': 56000.0}),
        "DEC/FQbit Telnet 8 throughput": ("telnet-count", 0.46, None, None),
        "DEC/FQbit FTP 1 rtt": ("fqbit-rule", 0.6, 0.6, None),
        "DEC/FQbit FTP 2 rtt": ("fqbit-rule", 0.6, 0.6, None),
        "DEC/FQbit FTP 3 rtt": ("fqbit-rule", 0.6, 0.6, None),
        "DEC/FQbit FTP 4 rtt": ("fqbit-rule", 0.6, 0.6, None),
        "DEC/FQbit FTP 5 rtt": ("fqbit-rule", 0.6, 0.6, None),
        "DEC/FQbit FTP 6 rtt": ("fqbit-rule", 0.6, 0.6, None),
        "G/FQ: useful bandwidth below optimal (fraction; '13 per cent')":
            ("useful", 0.4, 0.35, {'access_rate': 56000.0}),
        "G/FCFS: FTPs that win (> 1000 packets; the paper: FTPs 2, 3, 5)":
            ("segregation", 0.44, 0.44, {'rtt_gain': 0.25}),
        "G/FCFS: FTPs that lose (< 100 packets)": ("segregation", None, 1.3, None),
        "JK/FCFS: Telnets almost completely shut out (< 10 packets each; 1 = yes)":
            ("jk-telnet", None, 1.3, None),
        "JK/FCFS: FTP throughput max/min ('fair bandwidth allocation among the FTP sources')":
            ("jk-lockout", 4.1, 4.5, None),
    },
    "IV": {
        "G/FCFS Telnet 2 throughput": ("iv-telnet", 1.3, None, {'buffer': 15}),
        "G/FCFS FTP 1 rtt": ("iv-ftp-timer", 0.41, 1.2, {'buffer': 15}),
        "G/FCFS FTP 1 retransmitted": ("quick-transient", None, 46, None),
        "G/FCFS Telnet 2 retransmitted": ("iv-telnet", 1.3, 0.84, None),
        "G/FCFS FTP 1 dropped": ("quick-transient", None, 47, None),
        "G/FCFS Telnet 2 dropped": ("iv-telnet", 1.3, 0.79, None),
        "G/FQ ill-behaved 3 throughput": ("ill-quick", None, 7.8, None),
        "G/FQ ill-behaved 3 rtt": ("ill-delay-quick", None, 1.1, None),
        "JK/FCFS Telnet 2 retransmitted": ("jk-telnet", 13, None, {'rtt_gain': 0.25}),
        "JK/FCFS Telnet 2 dropped": ("jk-telnet", 13, None, {'rtt_gain': 0.25}),
        "JK/FQ ill-behaved 3 throughput": ("ill-quick", None, 6.3, None),
        "JK/FQ Telnet 2 rtt": ("telnet-rtt", None, 0.27, None),
        "JK/FQ ill-behaved 3 rtt": ("ill-delay-quick", None, 1.1, None),
        "DEC/DEC FTP 1 retransmitted": ("iv-dec-buffer", 9.1, 390, {'buffer': 15}),
        "DEC/DEC FTP 1 dropped": ("iv-dec-buffer", 9.1, 390, {'buffer': 15}),
        "DEC/FQbit ill-behaved 3 throughput": ("ill-quick", None, 9.1, None),
        "DEC/FQbit Telnet 2 rtt": ("telnet-rtt", None, 0.18, None),
        "DEC/FQbit ill-behaved 3 rtt": ("ill-delay-quick", None, 1.1, None),
    },
    "V": {
        "FQ generic FTP 1 throughput": ("v-fq", 0.52, 0.24, None),
        "FQ generic FTP 2 throughput": ("v-fq", 92, 73, None),
        "FQ JK FTP 3 throughput": ("v-fq", 0.23, 0.27, None),
        "FQ JK FTP 4 throughput": ("v-fq", 0.22, 0.27, None),
        "FQ generic FTP 1 rtt": ("v-fq", 0.57, None, {'rtt_gain': 0.25}),
        "FQ generic FTP 2 rtt": ("v-fq", 1.3, 1.3, None),
        "FQ JK FTP 3 rtt": ("v-fq", 0.17, 0.27, {'access_rate': 56000.0}),
        "FQ JK FTP 4 rtt": ("v-fq", None, 0.16, None),
        "FQ generic FTP 1 retransmitted": ("v-fq", 350, 360, {'buffer': 20}),
        "FQ generic FTP 2 retransmitted": ("v-fq", 62, 58, {'buffer': 20}),
        "FQ JK FTP 3 retransmitted": ("v-fq", 34, 28, {'buffer': 20}),
        "FQ JK FTP 4 retransmitted": ("v-fq", 26, 38, {'buffer': 20}),
        "FQ generic FTP 1 dropped": ("v-fq", 170, 200, {'buffer': 20}),
        "FQ generic FTP 2 dropped": ("v-fq", 160, 160, {'buffer': 20}),
        "FQ JK FTP 3 dropped": ("v-fq", 18, None, {'buffer': 20}),
        "FQ JK FTP 4 dropped": ("v-fq", 14, 19, {'buffer': 20}),
        ("FQ: the generic sources segregate (one generic FTP under 100 packets, the other over "
         "1000; 1 = yes)"):
            ("v-fq", 1.3, 1.3, None),
    },
    "VI": {
        "DEC/DEC FTP 4 throughput": ("decbit", 0.24, 0.2, None),
        "DEC/DEC FTP 4 rtt": ("decbit", None, 0.19, None),
        "DEC/FQbit FTP 1 rtt": ("fqbit-rule", 0.25, 0.26, {'buffer': 20}),
        "DEC/FQbit FTP 2 rtt": ("fqbit-rule", 0.25, 0.26, {'buffer': 20}),
        "DEC/FQbit FTP 3 rtt": ("fqbit-rule", 0.25, 0.25, {'buffer': 20}),
        "DEC/DEC: bandwidth wasted on the first line ('roughly 18 per cent')":
            ("decbit", 0.54, 0.44, None),
    },
    "VII": {
        "G/FCFS FTP 1 throughput": ("vii-buffer", 0.94, 0.87, {'buffer': 30}),
        "G/FCFS FTP 2 throughput": ("vii-buffer", 0.41, 0.38, {'buffer': 30}),
        "G/FCFS FTP 3 throughput": ("vii-buffer", 0.49, 0.46, {'buffer': 30}),
        "G/FCFS FTP 4 throughput": ("vii-buffer", 0.55, 0.51, {'buffer': 30}),
        "G/FCFS FTP 1 rtt": ("vii-buffer", 3.0, 2.4, {'buffer': 30}),
        "G/FCFS FTP 2 rtt": ("vii-buffer", 0.32, 0.27, {'buffer': 30}),
        "G/FCFS FTP 3 rtt": ("vii-buffer", 0.36, 0.32, {'buffer': 30}),
        "G/FCFS FTP 4 rtt": ("vii-buffer", 0.39, 0.35, {'buffer': 30}),
        "G/FCFS FTP 1 retransmitted": ("vii-buffer", 33, None, {'buffer': 15}),
        "G/FCFS FTP 1 dropped": ("vii-buffer", 13, None, {'buffer': 15}),
        "DEC/DEC FTP 4 throughput": ("decbit", 0.43, 0.44, None),
        "DEC/DEC FTP 4 rtt": ("decbit", 0.37, 0.37, None),
        "DEC/FQbit FTP 1 rtt": ("fqbit-buffer", 0.45, 0.47, {'buffer': 30}),
        "DEC/FQbit FTP 2 rtt": ("fqbit-buffer", 0.46, 0.47, {'buffer': 30}),
        "DEC/FQbit FTP 3 rtt": ("fqbit-buffer", 0.46, 0.47, {'buffer': 30}),
    },
}


#: Rows that cannot fail with any working mechanism: (table, kind, quantity).  Scenario 1
#: is underloaded ("all of the algorithms provide fair bandwidth allocation"): two FTPs
#: whose windows fit the buffer split the line, 1746 packets each, whatever the source and
#: the gateway.
_SANITY = {("II", "ftp", "throughput")}


#: RTT rows of conversations shut out so completely that they take no RTT sample in the
#: measured window (NaN), by (table, quantity): the key of :data:`_WHY` that explains the
#: shut-out, and the largest error declared should the row measure an RTT after all.  They
#: are declared with ``Known(unmeasured=True)``: nothing measured is the shut-out itself.
NO_SAMPLE: dict[tuple[str, str], tuple[str, float]] = {
    # no sample in either form with the inferred 20-packet buffer (0 packets through)
    ("IV", "G/FCFS Telnet 2 rtt"): ("iv-telnet", 0.5),
}


def known(table_key: str, quantity: str, quick: bool):
    """The declared :class:`~qosmodels.experiments.Known` of a row of Table
    ``table_key`` in the full or quick form, or None (:data:`KNOWN_ROWS`, and
    :data:`NO_SAMPLE` for the RTT rows of conversations that take no sample)."""
    entry = KNOWN_ROWS.get(table_key, {}).get(quantity)
    limit = None
    if entry is not None:
        why, full, short, reach = entry
        limit = short if quick else full
    no_sample = NO_SAMPLE.get((table_key, quantity))
    if limit is None and no_sample is None:
        return None
    if limit is None:
        why, limit = no_sample
        reach = None
    cause, note, reach_cause = _WHY[why]
    if reach:
        at = ", ".join(f"{k}={v:g}" for k, v in reach.items())
        note = f"{note}; validate(explore=True) brings this row within tolerance at {at}"
        cause = reach_cause
    if no_sample is not None:
        note = (f"{note}; the conversation is shut out and may take no RTT sample in the "
                f"window (NaN), which this declaration covers")
    return Known(cause, note, limit, sides=("packets",), unmeasured=no_sample is not None)


# ----------------------------------------------------------------- the unstated parameters
def _buffer(scenario):
    default = BUFFERS[scenario]
    return Unstated(
        "buffer", default, tuple(v for v in (10, 15, 20, 30) if v != default),
        "the paper states a buffer only for scenario 2 (15 packets) and counts buffers in "
        "packets; 10-30 spans that figure and the era's small gateway buffers", unit="packets")


def _access_rate(scenario):
    default = ACCESS_BY_SCENARIO.get(scenario, ACCESS)
    return Unstated(
        "access_rate", default, tuple(v for v in (56e3, 1.544e6, ACCESS) if v != default),
        "the lost figures do not give the hosts' own links: from a 56 kb/s line like the "
        "gateways' (the tables' RTTs leave no room for slower) through a T1 to 10 Mb/s "
        "Ethernet", unit="bit/s")
_GAIN = Unstated(
    "rtt_gain", 0.125, (0.25, 0.5, 1.0),
    "the paper's generic timer uses an 'exponentially averaged' RTT without its gain: from "
    "4.3BSD's 1/8 and RFC 793's 0.1-0.2 up to no averaging at all (1)")
_INIT = Unstated(
    "initial_rtt", 1.0, (0.5, 3.0, 10.0),
    "the paper gives no initial RTT estimate; RFC 1122 starts timers at 3 s, the "
    "scenarios' RTTs run from 0.08 s to 13 s", unit="s")
_JK_RTO = Unstated(
    "jk_max_rto", 64.0, (30.0, 120.0, 240.0),
    "the paper's JK adds 'better timeout calculations' to its generic source without a cap "
    "on the backed-off timeout; TcpTahoe's is 4.3BSD's 64 s (TCPTV_REXMTMAX), and a "
    "simulator's own may be anywhere from tens of seconds to minutes", unit="s")
#: Each table's unstated parameters (the buffer: every scenario but 2, which states it; the
#: access links: every scenario but 3, whose ill-behaved source needs them above 112 kb/s;
#: the generic timer's gain and initial estimate, the JK timer's cap: every table has
#: generic and JK sources).
UNSTATED = {
    key: tuple(u for u in ((_buffer(t.scenario) if t.scenario != 2 else None),
                           (_access_rate(t.scenario) if t.scenario != 3 else None), _GAIN, _INIT,
                           _JK_RTO)
               if u is not None)
    for key, t in TABLES.items()}


def network_kwargs(params: dict | None) -> dict:
    """:func:`scenario_network`'s keywords for the unstated parameters' values ``params``
    (names as in :data:`UNSTATED`; a missing one keeps its default)."""
    p = params or {}
    kw = {}
    if "access_rate" in p:
        kw["access"] = float(p["access_rate"])
    if "buffer" in p:
        kw["buffer"] = int(p["buffer"])
    if "rtt_gain" in p:
        kw["rtt_gain"] = float(p["rtt_gain"])
    if "initial_rtt" in p:
        kw["initial_rtt"] = float(p["initial_rtt"])
    if "jk_max_rto" in p:
        kw["jk_max_rto"] = float(p["jk_max_rto"])
    return kw


def _label(kind, i):
    return {"ftp": "FTP", "telnet": "Telnet", "ill": "ill-behaved", "generic": "generic FTP",
            "jk": "JK FTP"}[kind] + f" {i + 1}"


def table_rows(name: str, table_key: str, *, sides, quick: bool,
               combos: dict | None = None, params: dict | None = None) -> list[Check]:
    """The rows of one table: each legible cell of each combination that runs (packets)
    and, for the throughputs the text calls fair, the max-min share (theory).

    ``params`` holds the unstated parameters' values (:data:`UNSTATED`; missing ones at
    their defaults)."""
    kw = network_kwargs(params)
    table = TABLES[table_key]
    n = BUILT[table_key]
    combos = COMBOS if combos is None else combos
    if table_key == "V":
        runs = {p: (q, None) for p, q in POLICIES.items()}
    else:
        runs = {c: ((combos[c].queue if combos.get(c) else None), combos.get(c)) for c in
                table.values["throughput"]}
    ref = f"Demers-Keshav-Shenker 1990, Table {table_key} (scenario {table.scenario})"
    scale = MEASURED / (QUICK_MEASURED if quick else MEASURED)
    checks = []
    for label, (queue, combo) in runs.items():
        net = meas = None
        if queue is not None:
            if table_key == "V":
                net = scenario_network(4, sources=scenario4_sources(), queue=queue, **kw)
            else:
                net = scenario_network(table.scenario, combo, **kw)
            if "packets" in sides:
                meas = run(net, quick=quick)
        fair_idx = FAIR.get(table_key, {}).get(label, ())
        shares = None
        if "theory" in sides and fair_idx:
            tnet = net if net is not None else scenario_network(
                table.scenario, COMBOS["G/FCFS"], queue=fcfs, **kw)
            shares = fair_shares(tnet)
        note = "; ".join(x for x in (_NOTES.get((table_key, label), ""),
                                     combo.note if combo is not None else "") if x)
        tel = ("a Telnet's count in 500 s is Poisson, about 100 +- 10 (here over 10 seeds, "
               "scenario 1: means 97-102, standard deviations 7-16), in the paper's one run "
               "as in this one: the tolerance is two standard deviations of the difference "
               "of two such counts (telnet_tolerance: 28 packets for 100, 49 in the quick "
               "form)")
        for q in QUANTITIES:
            cells = table.values[q].get(label)
            if cells is None:
                continue
            for i in range(n):
                v = cells[i]
                if not _legible(v):
                    continue
                pk = th = None
                telnet_count = q == "throughput" and table.kinds[i] == "telnet"
                ill_delay = q == "rtt" and table.kinds[i] == "ill"
                if meas is not None:
                    x = float(meas.delay[i] if ill_delay else getattr(meas, q)[i])
                    tol = (telnet_tolerance(v, scale) if telnet_count
                           else tolerance(q, v, scale))
                    pk = Side(x, tol, method=meas.method + (
                        "; the ill-behaved source's one-way delay (queueing + transmissions)"
                        if ill_delay else ""))
                if shares is not None and q == "throughput" and i in fair_idx:
                    th = Side(float(shares[i]), tolerance(q, v),
                              method="allocate(maxmin), packets per 500 s (ACK bytes ignored)")
                if pk is None and th is None:
                    continue
                quantity = f"{label} {_label(table.kinds[i], i)} {q}"
                checks.append(Check(
                    name, quantity, float(v),
                    source="paper (measured)", paper=float(v), unit=UNITS[q], packets=pk,
                    theory=th, reference=ref, known=known(table_key, quantity, quick),
                    sanity=(table_key, table.kinds[i], q) in _SANITY,
                    note="; ".join(x for x in (note, tel if telnet_count else "") if x)))
    return checks


# ----------------------------------------------------------------- the stated claims
#: Experiment name -> table.
_KEYS = {"dks-table2": "II", "dks-table3": "III", "dks-table4": "IV", "dks-table5": "V",
         "dks-table6": "VI", "dks-table7": "VII"}


def _claim(name, quantity, expected, value, method, ref, note="", tol=0.0, source=None,
           quick=False):
    return Check(name, quantity, expected, source=source or "paper (stated)",
                 paper=None if isinstance(expected, Bounds) else expected,
                 packets=Side(float(value), tol, method=method), reference=ref, note=note,
                 known=known(_KEYS[name], quantity, quick))


#: Per line of scenarios 1-5, packets of 1000 bytes in 500 s.
LINE_PACKETS = LINE * MEASURED / (8 * FTP_SIZE)


def _pending_claims(name, table_key, *, quick, combos, kw) -> list[Check]:
    """The text's statements about the FQ and DECbit combinations: rows appear once
    :data:`COMBOS` holds those combinations."""
    out = []
    ref = f"Demers-Keshav-Shenker 1990, Simulations, scenario {TABLES[table_key].scenario}"
    sc = TABLES[table_key].scenario

    def get(label):
        c = combos.get(label)
        return None if c is None else run(scenario_network(sc, c, **kw), quick=quick)

    if table_key == "III":
        g = get("G/FQ")
        if g is not None:
            out.append(_claim(name, "G/FQ: useful bandwidth below optimal (fraction; '13 per "
                                    "cent')", 0.13, 1 - g.useful[:6].sum() / LINE_PACKETS,
                              g.method, ref, tol=0.25,
                              note="17 % here: the same resends (go-back-N copies) waste the "
                                   "line; " + _SEVERE, quick=quick))
        d, f = get("DEC/DEC"), get("DEC/FQbit")
        if d is not None and f is not None:
            out.append(_claim(name, "DEC/FQbit lowers the Telnet delay by a factor (DEC/DEC "
                                    "RTT / DEC/FQbit RTT; 'of 9')", 9.0,
                              float(np.nanmean(d.rtt[6:]) / np.nanmean(f.rtt[6:])), f.method,
                              ref, tol=0.25, quick=quick))
    if table_key == "IV":
        for c in ("G/FQ", "JK/FQ", "DEC/FQbit"):
            m = get(c)
            if m is not None:
                share = fair_shares(scenario_network(3, combos[c], **kw))
                out.append(_claim(name, f"{c}: the ill-behaved source gets much less than its "
                                        f"fair share (< 10 %; 1 = yes)", 1.0,
                                  float(m.throughput[2] < 0.1 * share[2]), m.method, ref,
                                  quick=quick))
    if table_key == "V" and POLICIES.get("FQ") is not None:
        m = run(scenario_network(4, sources=scenario4_sources(), queue=POLICIES["FQ"], **kw),
                quick=quick)
        out.append(_claim(name, "FQ: the JK pair gets more than the generic pair (1 = yes)",
                          1.0, float(m.throughput[2:].sum() > m.throughput[:2].sum()),
                          m.method, ref, quick=quick))
        out.append(_claim(name, "FQ: the generic sources segregate (one generic FTP under 100 "
                                "packets, the other over 1000; 1 = yes)", 1.0,
                          float(m.throughput[:2].min() < 100 and m.throughput[:2].max() > 1000),
                          m.method, ref + ", Table V (12 and 1162 packets)", note=_V_FQ,
                          quick=quick))
    if table_key == "VI":
        for c in ("G/FQ", "JK/FQ", "DEC/FQbit"):
            m = get(c)
            if m is not None:
                share = float(fair_shares(scenario_network(5, combos[c], **kw))[3])
                out.append(_claim(name, f"{c}: long path's throughput / its max-min share "
                                        f"('its full fair share')", 1.0,
                                  m.throughput[3] / share, m.method, ref, tol=0.10, quick=quick))
        d = get("DEC/DEC")
        if d is not None:
            waste = 1 - (d.throughput[0] + d.throughput[3]) / LINE_PACKETS
            out.append(_claim(name, "DEC/DEC: bandwidth wasted on the first line ('roughly 18 "
                                    "per cent')", 0.18, waste, d.method, ref, tol=0.25,
                              note=_DECBIT, quick=quick))
    return out


def _claims(name, table_key, *, quick, sides, combos=None, params=None) -> list[Check]:
    """The text's qualitative statements (exact) and the numbers it states."""
    if "packets" not in sides:
        return []
    kw = network_kwargs(params)
    out = _pending_claims(name, table_key, quick=quick,
                          combos=COMBOS if combos is None else combos, kw=kw)
    ref = f"Demers-Keshav-Shenker 1990, Simulations, scenario {TABLES[table_key].scenario}"
    if table_key == "III":
        g = run(scenario_network(2, COMBOS["G/FCFS"], **kw), quick=quick)
        winners = int(np.sum(g.throughput[:6] > 1000))
        out.append(_claim(
            name, "G/FCFS: FTPs that win (> 1000 packets; the paper: FTPs 2, 3, 5)", 3,
            winners, g.method, ref + ", Table III", source="paper (measured)",
            note="'the sources segregate into winners ... and losers'; FTP 4's cell is OCR-"
                 "damaged but the other five leave it at most 5 packets of the line's 3500",
            quick=quick))
        losers = int(np.sum(g.throughput[:6] < 100))
        out.append(_claim(name, "G/FCFS: FTPs that lose (< 100 packets)", 3, losers, g.method,
                          ref + ", Table III", source="paper (measured)",
                          note="the paper's losers are FTPs 1, 6 and (damaged cell, at most 5 "
                               "packets by the line's total) 4; which and how many lose "
                               "depends on timing", quick=quick))
        j = run(scenario_network(2, COMBOS["JK/FCFS"], **kw), quick=quick)
        shut = float(np.all(j.throughput[6:] < 10))
        out.append(_claim(name, "JK/FCFS: Telnets almost completely shut out (< 10 packets "
                                "each; 1 = yes)", 1.0, shut, j.method, ref,
                          note=COMBOS["JK/FCFS"].note, quick=quick))
        spread = float(j.throughput[:6].max() / max(j.throughput[:6].min(), 1.0))
        out.append(_claim(name, "JK/FCFS: FTP throughput max/min ('fair bandwidth allocation "
                                "among the FTP sources')", 585 / 582, spread, j.method,
                          ref + ", Table III", tol=0.10, source="paper (measured)",
                          note=_LOCKOUT + " (the least FTP counted as 1 packet)", quick=quick))
    if table_key == "IV":
        for c in ("G/FCFS", "JK/FCFS"):
            m = run(scenario_network(3, COMBOS[c], **kw), quick=quick)
            shut = float(m.throughput[0] < 50 and m.throughput[1] < 50)
            out.append(_claim(name, f"{c}: FTP and Telnet essentially shut out (< 50 packets "
                                    f"each; 1 = yes)", 1.0, shut, m.method, ref, quick=quick))
    if table_key == "V" and POLICIES["FCFS"] is not None:
        m = run(scenario_network(4, sources=scenario4_sources(), queue=POLICIES["FCFS"], **kw),
                quick=quick)
        out.append(_claim(name, "FCFS: the generic pair gets more than the JK pair (1 = yes)",
                          1.0, float(m.throughput[:2].sum() > m.throughput[2:].sum()),
                          m.method, ref, quick=quick))
    if table_key == "VI":
        net = scenario_network(5, COMBOS["G/FCFS"], **kw)
        share = float(fair_shares(net)[3])
        for c in ("G/FCFS", "JK/FCFS"):
            m = run(scenario_network(5, COMBOS[c], **kw), quick=quick)
            out.append(_claim(name, f"{c}: long path's throughput / its max-min share (< 0.6)",
                              Bounds(upper=0.6), m.throughput[3] / share,
                              m.method + f"; share {share:.0f} packets from allocate(maxmin)",
                              ref, quick=quick))
    if table_key == "VII":
        runs = {}
        for c in ("G/FCFS", "JK/FCFS"):
            net = scenario_network(6, COMBOS[c], **kw)
            m = runs[c] = run(net, quick=quick)
            line = SLOW_LINE * MEASURED / (8 * FTP_SIZE)
            out.append(_claim(
                name, f"{c}: FTP 4 ACK-limited, throughput / its line's capacity (paper "
                      f"187/600)", Bounds(upper=0.5), m.throughput[3] / line, m.method, ref,
                note="'sources 4 and 8 are not limited by the available bandwidth, but by the "
                     "delay their ACK packets incur waiting behind FTP packets'", quick=quick))
        out += _total_throughput_claims(name, runs, quick=quick, kw=kw, ref=ref)
    return out


#: Scenario 6's pairs of combinations (FCFS gateways, FQ gateways) for the text's "the total
#: throughput increases when the FQ gateways are used": the same flow control, FCFS or
#: selective-DECbit gateways against FQ or FQbit (FQ that sets the bit) gateways.
TOTAL_PAIRS = (("G/FCFS", "G/FQ"), ("JK/FCFS", "JK/FQ"), ("DEC/DEC", "DEC/FQbit"))
_TOTAL_QUOTE = ("'The total throughput increases when the FQ gateways are used because the small "
                "ACK packets are given priority'")
_TOTAL_NOTE = ("FTPs 1-4 only: the text's total also counts FTPs 5-8, which are not run (Figure 7 "
               "is lost, see the module docstring); the table shows the increase on FTPs 1-4 "
               "alone (G 781 -> 1154, JK 780 -> 1156 packets) as on FTPs 5-8 (7004 -> 8016, "
               "7006 -> 8008)")


def _total_throughput_claims(name, runs, *, quick, kw, ref) -> list[Check]:
    """Scenario 6: FTPs 1-4's total throughput under FCFS and FQ gateways (Table VII's text).

    Per pair of :data:`TOTAL_PAIRS`: the stated increase (1 = yes); for G and JK, whose
    cells of FTPs 1-4 are legible, the FQ/FCFS ratio of the totals against the table's
    (tolerance: the sum of the two totals' :func:`tolerance`, since each count is held to
    10 %), and FTP 4's share of the gain against the table's (the text's "because the small
    ACK packets are given priority": FTP 4 is the conversation whose ACKs cross the loaded
    9.6 kb/s line).  That share is a ratio of differences: the 5-packet floor of
    :func:`tolerance` on each of FTPs 1-3's six counts moves the gain of FTPs 1-3 by up to
    30 packets, 8 % of the ~375-packet gain; the tolerance is about twice that, 0.15.
    Measured over the declared unstated settings (full form): the rows hold at buffer 15
    and 30, host links of 56 kb/s, rtt_gain 1 and initial_rtt 10; with a 10-packet
    buffer, below the 15 data packets and 5 ACKs the table's zero drops imply, the ratios
    fall to 1.03 (G) and 1.09 (JK) and G's FTP 4 share to 0.55 (the increase itself stays).
    """
    out = []
    scale = MEASURED / (QUICK_MEASURED if quick else MEASURED)
    paper = TABLES["VII"].values["throughput"]
    for fcfs, fq in TOTAL_PAIRS:
        if COMBOS.get(fcfs) is None or COMBOS.get(fq) is None:
            continue
        a = runs.get(fcfs) or run(scenario_network(6, COMBOS[fcfs], **kw), quick=quick)
        b = runs.get(fq) or run(scenario_network(6, COMBOS[fq], **kw), quick=quick)
        ta, tb = float(a.throughput[:4].sum()), float(b.throughput[:4].sum())
        method = f"{b.method}; FTPs 1-4: {fcfs} {ta:.0f}, {fq} {tb:.0f} packets"
        out.append(_claim(name, f"{fcfs} -> {fq}: FTPs 1-4's total throughput increases (1 = "
                                f"yes)", 1.0, float(tb > ta), method, f"{ref}: {_TOTAL_QUOTE}",
                          note=_TOTAL_NOTE + ("; FQbit is the FQ gateway that sets the DECbit"
                                              if fq == "DEC/FQbit" else ""), quick=quick))
        pa, pb = paper[fcfs][:4], paper[fq][:4]
        if not all(map(_legible, pa + pb)):
            continue
        sa, sb = float(sum(pa)), float(sum(pb))
        tol = tolerance("throughput", sa, scale) + tolerance("throughput", sb, scale)
        out.append(_claim(name, f"{fcfs} -> {fq}: FTPs 1-4's total throughput, FQ / FCFS "
                                f"(paper {sb:.0f}/{sa:.0f})", sb / sa, tb / ta, method,
                          f"{ref}, Table VII; {_TOTAL_QUOTE}", tol=tol,
                          source="paper (measured)", note=_TOTAL_NOTE, quick=quick))
        gain = (float(b.throughput[3] - a.throughput[3]) / (tb - ta) if tb != ta
                else float("nan"))
        out.append(_claim(name, f"{fcfs} -> {fq}: FTP 4's share of FTPs 1-4's throughput gain "
                                f"(paper ({pb[3]}-{pa[3]})/({sb:.0f}-{sa:.0f}))",
                          (pb[3] - pa[3]) / (sb - sa), gain, method,
                          f"{ref}, Table VII; {_TOTAL_QUOTE}", tol=0.15,
                          source="paper (measured)",
                          note="above 1: FTPs 1-3 lose a little to FTP 4's ACKs on their line",
                          quick=quick))
    return out


def _experiment(table_key):
    name = f"dks-table{ {'II': 2, 'III': 3, 'IV': 4, 'V': 5, 'VI': 6, 'VII': 7}[table_key]}"
    sc = TABLES[table_key].scenario

    def fn(*, sides, quick, params) -> list[Check]:
        return (table_rows(name, table_key, sides=sides, quick=quick, params=params)
                + _claims(name, table_key, quick=quick, sides=sides, params=params))

    titles = {
        "II": "2 FTPs + 2 Telnets, one 56 kb/s gateway",
        "III": "6 FTPs + 2 Telnets, one 56 kb/s gateway, buffer 15 (overload)",
        "IV": "FTP + Telnet + ill-behaved source at twice the line rate",
        "V": "2 generic + 2 JK FTPs at one gateway, FCFS vs FQ",
        "VI": "3 short paths and 1 long path across three 56 kb/s gateways",
        "VII": "lines of several bandwidths (FTPs 1-4: the 9.6 kb/s line)",
    }
    register(name, title=f"FQ scenario {sc}: {titles[table_key]}",
             paper=f"Demers, Keshav, Shenker, Analysis and simulation of a fair queueing "
                   f"algorithm, Table {table_key}", sides=("theory", "packets"),
             unstated=UNSTATED[table_key])(fn)
    return fn


for _t in TABLES:
    _experiment(_t)

__all__ = ["TABLES", "COMBOS", "POLICIES", "Combo", "PaperTable", "OCR", "NA",
           "scenario_network", "single_gateway", "scenario4_sources", "fair_shares", "run",
           "tolerance", "table_rows"]
