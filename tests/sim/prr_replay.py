"""A plain-Python replay of Proportional Rate Reduction (RFC 9937, Section 6), fed the ACKs
of a kernel run, to compare ``SndCnt`` and ``cwnd`` at every ACK that starts or falls in a
recovery.

Written from the RFC's text (read in full in session 49; the steps below in its order and
words), not from the kernel (:mod:`qosmodels.sim._kernels.prr`): exact
:class:`fractions.Fraction` arithmetic, sets of packet numbers, and each input derived here
from what the kernel's scoreboard shows, not from PRR's own state:

* ``RecoverFS`` (6.1), at the ACK that starts the recovery, with SND.UNA and the scoreboard
  *after* it: "RecoverFS = SND.NXT - SND.UNA", "-= (bytes SACKed in scoreboard)", "+= (bytes
  newly SACKed)", "+= (bytes newly cumulatively acknowledged)" (the last read as the packets
  below the new SND.UNA not SACKed before; the other reading is an option,
  ``newly_acked="all"``);
* ``DeliveredData`` (6.2) = "the change in SND.UNA, plus the signed change in quantity of
  data marked SACKed in the scoreboard", from the scoreboard before the ACK's update and
  after it; "if (DeliveredData is 0) Return";
* ``prr_out`` (6.3, "prr_out += (data sent)") = the data packets the flow sent since the
  start of the episode (the kernel's count of transmissions, ``FI_SENT``);
* ``inflight`` (6.2) = RFC 6675's ``SetPipe()`` computed here from the SACKed set, ``HighRxt``
  and ``IsLost()`` (DupThresh 3: three packets SACKed above); with RACK the RFC's own formula
  (SND.NXT - SND.UNA, less the SACKed and the marked lost, plus those retransmitted since)
  computed here from RACK's loss and retransmission marks (RFC 8985's state, read as given);
* SafeACK = "SND.UNA advances and no further loss indicated": no packet newly counted lost
  (``IsLost()`` before and after the ACK; with RACK, packets newly marked lost).

Readings for packets (the kernel's, documented there): ``DIV_ROUND_UP`` is ``CEIL`` of a
quotient of packets, one within 1e-9 of a whole number being that number; "SndCnt is 0" is
"below one packet"; the reordering timer starting a recovery without an ACK gets the forced
fast retransmit alone.

The kernel's side is read by wrapping :func:`qosmodels.sim._kernels.sack.update` (the
scoreboard before an ACK) and :func:`qosmodels.sim._kernels.prr.sack_step` /
:func:`~qosmodels.sim._kernels.prr.rack_step` (the state before, ``cwnd`` after) in a run
under ``NUMBA_DISABLE_JIT=1`` (:func:`record`, run as ``python -m tests.sim.prr_replay
PATTERN``).

References
----------
RFC 9937, Sections 6.1-6.3 and 8 (Figure 1); RFC 6675, Section 4 (``IsLost()``,
``SetPipe()``); RFC 8985, Section 6.2.
"""

from __future__ import annotations

import json
import math
import os
import sys
from fractions import Fraction

DUP_THRESH = 3
WHOLE = Fraction(1, 10**9)


def ceil_whole(x: Fraction) -> int:
    """CEIL, a quotient within 1e-9 above a whole number being that number."""
    c = math.floor(x)
    return c + 1 if x - c > WHOLE else c


def is_lost(q, sacked, top):
    """RFC 6675 ``IsLost(q)`` with one-packet segments: three or more packets SACKed above."""
    return sum(1 for s in sacked if q < s < top) >= DUP_THRESH


def set_pipe(una, nxt, sacked, high_rxt):
    """RFC 6675 ``SetPipe()`` (``high_rxt`` None: undefined)."""
    pipe = 0
    for q in range(una, nxt):
        if q in sacked:
            continue
        if not is_lost(q, sacked, nxt):
            pipe += 1
        if high_rxt is not None and q <= high_rxt:
            pipe += 1
    return pipe


class PrrReplay:
    """One connection's PRR episode state (RFC 9937), the steps in the RFC's order.

    ``newly_acked`` is the reading of Section 6.1's "bytes newly cumulatively acknowledged":
    ``"not_sacked"`` (the default, as the kernel) the packets below the new SND.UNA that were
    not SACKed before the ACK; ``"all"`` every packet the cumulative ACK covers.
    ``proportional_at_equal``: the proportional part also when ``inflight == ssthresh``
    (what the RFC's Figure 1 draws at its ACK#19; the pseudo-code says ``>``)."""

    def __init__(self, bound="safeack", newly_acked="not_sacked", proportional_at_equal=False):
        self.bound = bound
        self.newly_acked = newly_acked
        self.proportional_at_equal = proportional_at_equal
        self.recover_fs = None
        self.prr_delivered = 0
        self.sent0 = 0  # the flow's transmissions counted at the start of the episode

    @staticmethod
    def inflight(e):
        """Section 6.2's ``inflight``: without RACK, RFC 6675's ``SetPipe()`` (the RFC's "MAY
        use the 'pipe' algorithm"); with RACK, "starting with SND.NXT - SND.UNA, subtracting
        out bytes SACKed in the scoreboard, subtracting out bytes marked lost in the
        scoreboard, and adding bytes in the scoreboard that have been retransmitted since
        they were last marked lost" (RACK's marks read as given: ``lost`` every packet
        marked lost, ``retx`` every packet whose retransmission is out since)."""
        una, nxt = e["una"], e["nxt"]
        sacked = {q for q in e["sacked"] if una <= q < nxt}
        if not e["rack"]:
            return set_pipe(una, nxt, sacked, e["high_rxt"])
        lost = {q for q in e["lost"] if una <= q < nxt} - sacked
        retx = {q for q in e["retx"] if una <= q < nxt} - sacked
        return (nxt - una) - len(sacked) - len(lost) + len(retx)

    def ack(self, e):
        """An ACK (or the reordering timer) starting or in the recovery: returns ``(SndCnt,
        inflight)``, SndCnt None when the ACK delivers nothing (``cwnd`` left as it is)."""
        sacked0 = {q for q in e["sacked0"] if q >= e["una0"]}
        una0, una, nxt = e["una0"], e["una"], e["nxt"]
        sacked1 = {q for q in e["sacked"] if q >= una}
        if e["entered"]:  # Section 6.1, with SND.UNA and the scoreboard after the ACK
            newly_sacked = len(sacked1 - sacked0)
            covered = set(range(una0, una))
            newly_acked = (len(covered - sacked0) if self.newly_acked == "not_sacked"
                           else len(covered))
            self.recover_fs = (nxt - una) - len(sacked1) + newly_sacked + newly_acked
            self.prr_delivered = 0
            self.sent0 = e["sent"]
        # Section 6.3: prr_out += (data sent), from the flow's transmission count
        prr_out = e["sent"] - self.sent0
        # Section 6.2: the change in SND.UNA plus the signed change in the data SACKed
        delivered = (una - una0) + (len(sacked1) - len(sacked0))
        inflight = self.inflight(e)
        if e["rack"]:
            newly_lost = set(e["marks"]) - set(e["marks0"])
        else:
            lost0 = {q for q in range(una0, e["nxt0"]) if q not in sacked0
                     and is_lost(q, sacked0, e["nxt0"])}
            lost1 = {q for q in range(una, nxt) if q not in sacked1
                     and is_lost(q, sacked1, nxt)}
            newly_lost = lost1 - lost0
        if delivered == 0:
            if not (e["entered"] and e["timer"]):
                return None, inflight  # "if (DeliveredData is 0) Return"
            # reading: the reordering timer starts an episode without an ACK; the forced
            # fast retransmit alone (Section 4: "force a fast retransmit upon ... recovery")
            return Fraction(1), inflight
        assert delivered > 0
        self.prr_delivered += delivered
        safe = una > una0 and not newly_lost  # "SND.UNA advances and no further loss"
        ssthresh = Fraction(e["ssthresh"])
        if inflight > ssthresh or (self.proportional_at_equal and inflight == ssthresh):
            out = ceil_whole(Fraction(self.prr_delivered) * ssthresh / self.recover_fs)
            snd_cnt = Fraction(out - prr_out)
        else:
            snd_cnt = Fraction(max(self.prr_delivered - prr_out, delivered))  # PRR-CRB
            if self.bound == "ssrb" or (self.bound == "safeack" and safe):
                snd_cnt += 1  # PRR-SSRB
            snd_cnt = min(ssthresh - inflight, snd_cnt)
        if prr_out == 0 and snd_cnt < 1:  # "SndCnt is 0" in whole packets
            snd_cnt = Fraction(1)
        return snd_cnt, inflight


def compare(events, rule=None, **reading):
    """Replay the recorded ``events`` flow by flow; return the mismatches, each ``(event,
    replay's cwnd)``.  ``rule``: an alteration of the replay (a function of the
    :class:`PrrReplay`, called first), to show that the comparison can fail; ``reading``:
    :class:`PrrReplay`'s keyword arguments."""
    flows = {}
    bad = []
    for e in events:
        r = flows.get(e["f"])
        if r is None:
            r = flows[e["f"]] = PrrReplay(e["bound"], **reading)
            if rule is not None:
                rule(r)
        s, pipe = r.ack(e)
        if s is None:
            if abs(e["cwnd"] - e["cwnd0"]) > 1e-9:
                bad.append((e, e["cwnd0"]))
            continue
        cwnd = pipe + s
        if abs(float(cwnd) - e["cwnd"]) > 1e-9:
            bad.append((e, float(cwnd)))
    return bad


# ---------------------------------------------------------------- the kernel's side

PATTERNS = ("periodic", "long", "dumbbell")
#: the hand-traced run (``tests/sim/test_prr.py``): one packet lost in a 21-packet flight
HAND = "single"
#: RFC 9937's Figure 1 (Section 8): one packet lost in a flight of 20, Reno, limited transmit
FIGURE_1 = "figure1"


def dumbbell(prr: bool, bound: str = "safeack"):
    """Drop-tail overflow: 4 flows (2 Cubic, 2 NewReno, SACK and limited transmit, PRR as
    given, with ``prr_bound`` ``bound``) over a 10 Mb/s, 30-packet bottleneck."""
    from qosmodels import Flow, Link, Network
    from qosmodels.mechanisms import Cubic, TcpNewReno
    from qosmodels.sim import DropTail

    flows = []
    for i in range(4):
        kw = dict(max_window=200, sack=True, limited_transmit=True, prr=prr, prr_bound=bound)
        src = Cubic(**kw) if i % 2 == 0 else TcpNewReno(**kw)
        flows.append(Flow([f"s{i}", "r0", "r1"], packet_size=1000, source=src))
    links = [Link(f"s{i}", "r0", 100e6, 0.002 + 0.003 * i, 1000) for i in range(4)]
    links.append(Link("r0", "r1", 10e6, 0.020, 30, queue=DropTail()))
    return Network(links, flows)


def _network(pattern):
    """The network and run length of ``pattern``; ``PATTERN-crb`` or ``PATTERN-ssrb``: with
    that ``prr_bound``."""
    from qosmodels import Flow, Link, Network
    from qosmodels.mechanisms import Cubic as Cubic0
    from qosmodels.mechanisms import TcpNewReno as TcpNewReno0
    from qosmodels.mechanisms import TcpReno as TcpReno0
    from qosmodels.sim import RandomLoss

    pattern, _, bound = pattern.partition("-")
    bound = bound or "safeack"

    def Cubic(**kw):  # noqa: N802 (the specs, with the pattern's bound)
        return Cubic0(**kw, prr_bound=bound)

    def TcpNewReno(**kw):  # noqa: N802
        return TcpNewReno0(**kw, prr_bound=bound)

    def TcpReno(**kw):  # noqa: N802
        return TcpReno0(**kw, prr_bound=bound)

    if pattern == HAND:  # the 30th arrival dropped (packet 30), the next one at 0.1 s
        src = TcpNewReno(initial_window=20, initial_ssthresh=20, max_window=64, sack=True,
                         prr=True)
        link = Link("a", "b", 8e6, 0.010, 100, queue=RandomLoss(p=1 / 30, periodic=True))
        return Network([link], [Flow(["a", "b"], packet_size=1000, source=src)]), 0.09
    if pattern == FIGURE_1:  # RFC 9937 Section 8's Figure 1: Reno, 20 packets, one lost, LT
        # slow start from 10 packets to ssthresh 20 (packets 10-29 in flight at cwnd 20),
        # then congestion avoidance: packet 30, the first of the next flight of 20, is the
        # 31st arrival, dropped; the next drop (arrival 62) is a new packet sent late in
        # this recovery, acknowledged after it ends
        src = TcpReno(initial_window=10, initial_ssthresh=19.5, max_window=64, sack=True,
                      limited_transmit=True, prr=True)
        link = Link("a", "b", 8e6, 0.010, 100, queue=RandomLoss(p=1 / 30, periodic=True))
        return Network([link], [Flow(["a", "b"], packet_size=1000, source=src)]), 0.16
    if pattern == "periodic":  # test_sack's hand-traced path, NewReno with RFC 6675's losses
        src = TcpNewReno(initial_window=20, initial_ssthresh=20, max_window=64, sack=True,
                         prr=True)
        link = Link("a", "b", 8e6, 0.010, 100, queue=RandomLoss(p=3 / 16, periodic=True))
        return Network([link], [Flow(["a", "b"], packet_size=1000, source=src)]), 3.0
    if pattern == "long":  # lost retransmissions found by RACK, Cubic with TLP
        src = Cubic(initial_window=20, max_window=64, sack=True, rack=True, tlp=True, prr=True)
        link = Link("a", "b", 8e6, 0.050, 100, queue=RandomLoss(p=0.2, periodic=True))
        return Network([link], [Flow(["a", "b"], packet_size=1000, source=src)]), 3.0
    if pattern == "dumbbell":
        return dumbbell(prr=True, bound=bound), 6.0
    raise ValueError(f"pattern must be one of {PATTERNS}, not {pattern!r}")


def record(pattern):
    """Run ``pattern`` with the kernel as plain Python (``NUMBA_DISABLE_JIT=1`` set before
    Numba is imported) and return its PRR events and the run's counters."""
    assert os.environ.get("NUMBA_DISABLE_JIT") == "1", "run with NUMBA_DISABLE_JIT=1"
    from qosmodels.sim import Record, simulate
    from qosmodels.sim._kernels import layout as L
    from qosmodels.sim._kernels import prr, rackstate, sack

    events = []
    before = {}
    update0, sack_step0, rack_step0 = sack.update, prr.sack_step, prr.rack_step
    names = {1: "safeack", 2: "crb", 3: "ssrb"}

    def sacked_set(S, f):
        fi = S.fi
        return [q for q in range(int(fi[f, L.FI_SND_UNA]), int(fi[f, L.FI_MAXSEQ]))
                if sack.sacked(S, f, q)]

    def flagged(S, f, want, unwanted=0):
        fi = S.fi
        if fi[f, L.FI_RACK] == 0:
            return []
        out = []
        for q in range(int(fi[f, L.FI_SND_UNA]), int(fi[f, L.FI_MAXSEQ])):
            fl = S.ooo[rackstate.flags_at(S, f, q)]
            if fl & want and not fl & unwanted and not sack.sacked(S, f, q):
                out.append(q)
        return out

    def marks(S, f):  # marked lost and not resent since
        return flagged(S, f, rackstate.LOST, rackstate.RETX)

    def update(S, f, a):
        fi = S.fi
        before[int(f)] = dict(t=float(S.gf[L.GF_NOW]), una0=int(fi[f, L.FI_SND_UNA]),
                              nxt0=int(fi[f, L.FI_SND_NXT]), sacked0=sacked_set(S, f),
                              marks0=marks(S, f))
        return update0(S, f, a)

    def state(S, f, entered, is_rack):
        fi, ff = S.fi, S.ff
        now = float(S.gf[L.GF_NOW])
        b = before.pop(int(f), None)
        if b is not None and b.pop("t") == now:
            b["timer"] = False
        else:  # the reordering timer: no ACK
            b = dict(una0=int(fi[f, L.FI_SND_UNA]), nxt0=int(fi[f, L.FI_SND_NXT]),
                     sacked0=sacked_set(S, f), marks0=marks(S, f), timer=True)
        hr = int(S.stime[sack._head(S, f) + sack.H_HIGH_RXT]) - 1
        e = dict(f=int(f), t=now, entered=bool(entered), rack=is_rack,
                 bound=names[int(ff[f, L.FF_SP + prr.PARAM])],
                 una=int(fi[f, L.FI_SND_UNA]), nxt=int(fi[f, L.FI_SND_NXT]),
                 sacked=sacked_set(S, f), marks=marks(S, f),
                 high_rxt=hr if hr >= 0 else None, sent=int(fi[f, L.FI_SENT]),
                 ssthresh=float(ff[f, L.FF_SSTHRESH]), cwnd0=float(ff[f, L.FF_CWND]),
                 **b)
        if is_rack:  # RACK's marks as they stand (the replay computes inflight from them)
            e["lost"] = flagged(S, f, rackstate.LOST)
            e["retx"] = flagged(S, f, rackstate.RETX)
        return e

    def sack_step(S, f, a, una0, sacked0, entered):
        e = state(S, f, entered, False)
        r = sack_step0(S, f, a, una0, sacked0, entered)
        e["cwnd"] = float(S.ff[f, L.FF_CWND])
        events.append(e)
        return r

    def rack_step(S, f, a, una0, sacked0, entered, marked):
        e = state(S, f, entered, True)
        r = rack_step0(S, f, a, una0, sacked0, entered, marked)
        e["cwnd"] = float(S.ff[f, L.FF_CWND])
        events.append(e)
        return r

    exits = []
    from qosmodels.sim._kernels.sources import cubic, reno, reno_rack
    wrapped = [(reno, "on_ack_sack"), (cubic, "on_ack_sack"), (reno_rack, "on_ack_rack")]
    originals = [getattr(m, n) for m, n in wrapped]

    def exit_watch(fn):
        def ack(S, f, *args):
            was = S.fi[f, L.FI_IN_REC] != 0
            r = fn(S, f, *args)
            if was and S.fi[f, L.FI_IN_REC] == 0:  # the ACK that ends the recovery
                exits.append(dict(f=int(f), t=float(S.gf[L.GF_NOW]),
                                  cwnd=float(S.ff[f, L.FF_CWND]),
                                  ssthresh=float(S.ff[f, L.FF_SSTHRESH])))
            return r
        return ack

    for (m, n), fn in zip(wrapped, originals):
        setattr(m, n, exit_watch(fn))
    sack.update, prr.sack_step, prr.rack_step = update, sack_step, rack_step
    try:
        net, until = _network(pattern)
        res = simulate(net, until, seed=1, progress=False, record=Record(interval=until / 2,
                                                                         cwnd=True))
    finally:
        sack.update, prr.sack_step, prr.rack_step = update0, sack_step0, rack_step0
        for (m, n), fn in zip(wrapped, originals):
            setattr(m, n, fn)
    c = res.counters
    return {"events": events, "exits": exits, "timeouts": int(c["timeouts"].sum()),
            "fast_retransmits": int(c["fast_retransmits"].sum()),
            "sent": [int(x) for x in c["sent"]],
            "cwnd_end": [float(x) for x in res.cwnd_series[-1]] if res.cwnd_series is not None
            else None}


if __name__ == "__main__":
    json.dump(record(sys.argv[1]), sys.stdout)
