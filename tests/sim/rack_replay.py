"""A plain-Python replay of RACK's loss detection (RFC 8985, Section 6.2, steps 1-5, and
the reordering timer of Section 6.3), fed the transmissions and ACKs of a kernel run.

Written from the RFC's pseudo-code, not from the kernel: per-segment dictionaries and sets,
exact arithmetic (:class:`fractions.Fraction` of the recorded times), steps 1-3 over the
segments an ACK newly delivers (cumulatively or selectively), ``RACK_update_reo_wnd()``
(no D-SACK: the simulator's receiver sends none, so ``reo_wnd_mult`` stays 1) and
``RACK_detect_loss()``, whose largest ``remaining`` is the reordering timer's delay.

The RFC's ``Segment.xmit_ts = INFINITE_TS`` for a segment marked lost is kept as a
``lost`` mark (cleared when the segment is sent again) with the transmit time kept: the
pseudo-code's INFINITE_TS would make step 2 take ``Now() - INFINITE_TS`` for an original
that arrives after it was marked lost; its purpose, keeping a lost segment out of step 5
until it is resent, is what the mark does.  ``RACK.min_RTT`` is the minimum over the run
of the RTTs of segments never retransmitted (RFC 6298's Karn rule; the RFC's windowed
minimum is longer than the runs replayed), infinite before the first sample.

What is compared (:func:`compare`): at every call of the kernel's step 5 (each ACK of a
``rack=True`` flow, and each expiry of its reordering timer), the segments it marks lost
and the deadline it arms, with the replay's; the kernel's side is read by wrapping
``qosmodels.sim._kernels.rack``'s functions in a run under ``NUMBA_DISABLE_JIT=1``
(:func:`record`, run as ``python -m tests.sim.rack_replay PATTERN`` in a subprocess).
The congestion-control state the RFC takes as given (whether the sender is in fast or
RTO recovery, SRTT, which segments the ACKs SACK) is read from the kernel at each call.

References
----------
RFC 8985, Sections 5.2 (per-connection and per-segment variables), 6.1 and 6.2 (steps
1-5 and their pseudo-code), 6.3 (the reordering timer).
"""

from __future__ import annotations

import json
import os
import sys
from fractions import Fraction

DUP_THRESH = 3
#: The recorded times are the kernel's floats: the reordering timer fires at the float
#: nearest its deadline, so a ``remaining`` within this of 0 (s) counts as 0.
CLOCK = Fraction(1, 10**12)


def sent_after(t1, s1, t2, s2):
    """``RACK_sent_after(t1, seq1, t2, seq2)`` (RFC 8985 6.2)."""
    return t1 > t2 or (t1 == t2 and s1 > s2)


class RackReplay:
    """One connection's RACK state (RFC 8985 5.2); packets numbered 0, 1, ... (a
    segment's ``end_seq`` is its number + 1)."""

    def __init__(self):
        self.xmit = {}            # Segment.xmit_ts
        self.retransmitted = set()
        self.lost = set()         # marked lost, not sent again since
        self.delivered = set()    # cumulatively or selectively acknowledged
        self.cum = 0              # the highest cumulative ACK so far
        self.high = 0             # one past the highest segment sent
        self.rack_xmit = None     # RACK.xmit_ts
        self.rack_end = None      # RACK.end_seq
        self.rack_rtt = None      # RACK.rtt
        self.min_rtt = None       # RACK.min_RTT (None: infinite)
        self.fack = 0             # RACK.fack
        self.reordering_seen = False

    def send(self, t, seq):
        """Section 6.1: a transmission of ``seq`` at ``t`` (a retransmission if it was sent
        before)."""
        if seq < self.high:
            self.retransmitted.add(seq)
        self.xmit[seq] = Fraction(t)
        self.lost.discard(seq)
        self.high = max(self.high, seq + 1)

    def _update(self, now, una, sacked):
        newly = [q for q in range(self.cum, una) if q not in self.delivered]
        newly += [q for q in sacked if q not in self.delivered and q >= una]
        newly = sorted(set(newly))
        # step 1: RACK.min_RTT from segments never retransmitted
        for q in newly:
            if q not in self.retransmitted:
                rtt = now - self.xmit[q]
                if self.min_rtt is None or rtt < self.min_rtt:
                    self.min_rtt = rtt
        # step 2, in ascending order of Segment.xmit_ts
        for q in sorted(newly, key=lambda q: (self.xmit[q], q)):
            rtt = now - self.xmit[q]
            if q in self.retransmitted and (self.min_rtt is None or rtt < self.min_rtt):
                continue  # possibly the ACK of the original: ambiguous
            self.rack_rtt = rtt
            if self.rack_end is None or sent_after(self.xmit[q], q + 1, self.rack_xmit,
                                                   self.rack_end):
                self.rack_xmit, self.rack_end = self.xmit[q], q + 1
        # step 3, in ascending order of Segment.end_seq
        for q in newly:
            if q + 1 > self.fack:
                self.fack = q + 1
            elif q + 1 < self.fack and q not in self.retransmitted:
                self.reordering_seen = True
        self.delivered |= set(newly)
        self.cum = max(self.cum, una)

    def _reo_wnd(self, in_recovery, segs_sacked, srtt):
        # step 4, RACK_update_reo_wnd() without D-SACK
        if not self.reordering_seen:
            if in_recovery:
                return Fraction(0)
            if segs_sacked >= DUP_THRESH:
                return Fraction(0)
        if self.min_rtt is None:
            return Fraction(srtt) if srtt is not None else Fraction(0)
        w = self.min_rtt / 4
        if srtt is not None and Fraction(srtt) < w:
            w = Fraction(srtt)
        return w

    def _detect_loss(self, now, una, sacked, in_recovery, srtt):
        # step 5, RACK_detect_loss()
        if self.rack_end is None:
            return [], None
        reo_wnd = self._reo_wnd(in_recovery, len([q for q in sacked if q >= una]), srtt)
        timeout = Fraction(0)
        marked = []
        for q in range(una, self.high):
            if q in self.delivered or q in self.lost:
                continue
            if sent_after(self.rack_xmit, self.rack_end, self.xmit[q], q + 1):
                remaining = self.xmit[q] + self.rack_rtt + reo_wnd - now
                if remaining <= CLOCK:
                    self.lost.add(q)
                    marked.append(q)
                else:
                    timeout = max(remaining, timeout)
        return marked, (now + timeout if timeout > 0 else None)

    def on_ack(self, t, una, sacked, in_recovery, srtt):
        """An ACK at ``t``: cumulative ACK ``una``, the segments SACKed so far; returns
        (segments marked lost, the reordering timer's deadline or None)."""
        now = Fraction(t)
        self._update(now, una, sacked)
        return self._detect_loss(now, una, sacked, in_recovery, srtt)

    def on_timer(self, t, una, sacked, in_recovery, srtt):
        """The reordering timer expired at ``t`` (Section 6.3): step 5 again."""
        return self._detect_loss(Fraction(t), una, sacked, in_recovery, srtt)


def compare(events, rule=None):
    """Replay the recorded ``events`` (:func:`record`) flow by flow; return the
    mismatches, each ``(event, replay's lost, replay's deadline)``.  ``rule``: an
    alteration of the replay (a function of the :class:`RackReplay`, called first), to
    show that the comparison can fail."""
    flows = {}
    bad = []
    for e in events:
        r = flows.get(e["f"])
        if r is None:
            r = flows[e["f"]] = RackReplay()
            if rule is not None:
                rule(r)
        if e["kind"] == "send":
            r.send(e["t"], e["seq"])
            continue
        step = r.on_ack if e["kind"] == "ack" else r.on_timer
        lost, at = step(e["t"], e["una"], e["sacked"], e["in_recovery"], e["srtt"])
        same_at = (at is None and e["armed"] is None) or (
            at is not None and e["armed"] is not None and abs(float(at) - e["armed"]) < 1e-9)
        if sorted(lost) != sorted(e["lost"]) or not same_at:
            bad.append((e, lost, None if at is None else float(at)))
    return bad


# ---------------------------------------------------------------- the kernel's side

PATTERNS = ("periodic", "long", "reorder")


def _network(pattern):
    from qosmodels import Flow, Link, LinkChange, Network
    from qosmodels.mechanisms import Cubic, TcpNewReno
    from qosmodels.sim import RandomLoss

    if pattern == "periodic":  # tests/sim/test_sack.py's hand-traced run, with RACK
        src = TcpNewReno(initial_window=20, initial_ssthresh=20, max_window=64, sack=True,
                         rack=True)
        link = Link("a", "b", 8e6, 0.010, 100, queue=RandomLoss(p=3 / 16, periodic=True))
        return Network([link], [Flow(["a", "b"], packet_size=1000, source=src)]), 2.0, ()
    if pattern == "long":  # a lost retransmission found by RACK, with TLP
        src = Cubic(initial_window=20, max_window=64, sack=True, rack=True, tlp=True)
        link = Link("a", "b", 8e6, 0.050, 100, queue=RandomLoss(p=0.2, periodic=True))
        return Network([link], [Flow(["a", "b"], packet_size=1000, source=src)]), 3.0, ()
    if pattern == "reorder":  # the data's delay falls from 40 to 30 ms every 27 ms: overtaking
        src = TcpNewReno(initial_window=30, initial_ssthresh=30, max_window=40, sack=True,
                         rack=True)
        link = Link("a", "b", 8e6, 0.040, 100, queue=RandomLoss(p=0.02, periodic=True))
        events = [LinkChange(0.1 + 0.0135 * k, "a->b", delay=0.030 if k % 2 == 0 else 0.040)
                  for k in range(140)]
        back = Link("b", "a", 8e6, 0.040, 100)  # (declared: the ACKs keep 40 ms)
        return (Network([link, back], [Flow(["a", "b"], packet_size=1000, source=src)]),
                2.0, events)
    raise ValueError(f"pattern must be one of {PATTERNS}, not {pattern!r}")


def record(pattern):
    """Run ``pattern`` with the kernel as plain Python (``NUMBA_DISABLE_JIT=1`` must be
    set before Numba is imported) and return its events: transmissions, and each call of
    step 5 with its inputs and the kernel's decisions; also the timeouts counted."""
    assert os.environ.get("NUMBA_DISABLE_JIT") == "1", "run with NUMBA_DISABLE_JIT=1"
    from qosmodels.sim import simulate
    from qosmodels.sim._kernels import layout as L
    from qosmodels.sim._kernels import rack, rackstate, sack, sender

    events = []
    ctx = {"kind": None, "armed": None}
    stamp0, detect0, arm0 = sender.stamp, rack.detect_loss, rack._arm
    on_ack0, on_timer0 = rack.on_ack, rack.on_timer

    def stamp(S, f, seq, again):
        events.append({"kind": "send", "f": int(f), "t": float(S.gf[L.GF_NOW]),
                       "seq": int(seq)})
        return stamp0(S, f, seq, again)

    def flags(S, f):
        fi = S.fi
        out = set()
        for q in range(fi[f, L.FI_SND_UNA], fi[f, L.FI_MAXSEQ]):
            fl = S.ooo[rackstate.flags_at(S, f, q)]
            if fl & rackstate.LOST and not fl & rackstate.RETX and not sack.sacked(S, f, q):
                out.add(int(q))
        return out

    def detect_loss(S, f):
        fi = S.fi
        una, top = int(fi[f, L.FI_SND_UNA]), int(fi[f, L.FI_MAXSEQ])
        srtt = float(S.ff[f, L.FF_SRTT])
        e = {"kind": ctx["kind"], "f": int(f), "t": float(S.gf[L.GF_NOW]), "una": una,
             "sacked": [q for q in range(una, top) if sack.sacked(S, f, q)],
             "in_recovery": bool(rack.in_recovery(S, f)),
             "srtt": srtt if srtt >= 0.0 else None}
        before = flags(S, f)
        ctx["armed"] = None
        n = detect0(S, f)
        e["lost"] = sorted(flags(S, f) - before)
        e["armed"] = ctx["armed"]
        events.append(e)
        return n

    def arm(S, f, h, mode, t):
        if mode == rackstate.MODE_REO:
            ctx["armed"] = float(t)
        return arm0(S, f, h, mode, t)

    def on_ack(S, f, a, una0):
        ctx["kind"] = "ack"
        return on_ack0(S, f, a, una0)

    def on_timer(S, f, wmax):
        ctx["kind"] = "timer"
        return on_timer0(S, f, wmax)

    sender.stamp, rack.detect_loss, rack._arm = stamp, detect_loss, arm
    rack.on_ack, rack.on_timer = on_ack, on_timer
    try:
        net, until, changes = _network(pattern)
        res = simulate(net, until, seed=1, progress=False, events=changes)
    finally:
        sender.stamp, rack.detect_loss, rack._arm = stamp0, detect0, arm0
        rack.on_ack, rack.on_timer = on_ack0, on_timer0
    c = res.counters
    return {"events": events, "timeouts": int(c["timeouts"].sum()),
            "fast_retransmits": int(c["fast_retransmits"].sum())}


if __name__ == "__main__":
    json.dump(record(sys.argv[1]), sys.stdout)
