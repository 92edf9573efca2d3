"""A plain-Python replay of SACK (RFC 2018) and RFC 6675's loss recovery over one lossy link.

Written from the RFCs' text, not from the kernel: sets and lists instead of rings,
``IsLost`` by counting SACKed packets above a sequence number, ``SetPipe`` and ``NextSeg``
as the RFC's loops.  One sender, one link (FIFO, ``tx`` s per packet, ``delay`` s of
propagation, an arrival dropped when the running sum of ``p`` reaches 1: the periodic
:class:`~qosmodels.sim.RandomLoss`), a receiver, and ACKs that take ``delay`` s back
(no queue).  The sender is RFC 5681's in packets (slow start below ssthresh, ``cwnd +=
1/cwnd`` per new ACK above it, the send limit ``SND.UNA + floor(min(cwnd, max_window))``
outside recovery) with RFC 6675 (Section 5) for losses; no retransmission timer (a test
checks the kernel had no timeout over the replayed span).

References
----------
RFC 2018, Section 4 (the receiver's blocks); RFC 6675, Sections 2 (duplicate
acknowledgment), 4 (``IsLost``, ``SetPipe``, ``NextSeg``) and 5 (the algorithm); RFC 5681,
Section 3.1.
"""

from __future__ import annotations

import heapq
import math

DUP_THRESH = 3


class Receiver:
    """RFC 2018 Section 4: the blocks an ACK carries."""

    def __init__(self, n_blocks):
        self.n = n_blocks
        self.rcv_nxt = 0
        self.held = set()     # out-of-order packets held
        self.last = []        # the blocks of the previous ACK, in order

    def block(self, x):
        lo = x
        while lo - 1 in self.held:
            lo -= 1
        hi = x + 1
        while hi in self.held:
            hi += 1
        return (lo, hi)

    def on_data(self, seq):
        """The ACK for data packet ``seq``: (cumulative ACK, blocks)."""
        if seq == self.rcv_nxt:
            self.rcv_nxt += 1
            while self.rcv_nxt in self.held:
                self.held.remove(self.rcv_nxt)
                self.rcv_nxt += 1
        elif seq > self.rcv_nxt:
            self.held.add(seq)
        blocks = []
        # "The first SACK block ... MUST specify the contiguous block of data containing
        # the segment which triggered this ACK, unless that segment advanced the
        # Acknowledgment Number field in the header."
        if seq in self.held:
            blocks.append(self.block(seq))
        # "... the SACK option SHOULD be filled out by repeating the most recently
        # reported SACK blocks ... that are not subsets of a SACK block already included"
        for lo, hi in self.last:
            if len(blocks) >= self.n:
                break
            if lo <= self.rcv_nxt:  # acknowledged cumulatively since
                continue
            b = self.block(lo)
            if any(c[0] <= b[0] and b[1] <= c[1] for c in blocks):
                continue
            blocks.append(b)
        self.last = blocks
        return self.rcv_nxt, blocks


class Sender:
    """RFC 5681 + RFC 6675, in packets."""

    def __init__(self, w0, ssthresh, max_window):
        self.cwnd = float(w0)
        self.ssthresh = float(ssthresh)
        self.wmax = max_window
        self.una = self.nxt = self.maxseq = 0
        self.sacked = set()
        self.dupacks = 0
        self.in_rec = False
        self.recovery_point = -1
        self.high_rxt = -1
        self.rescue = None
        self.sent = self.retx = self.fast_rtx = 0
        self.out = []  # packets sent by the last call

    def transmit(self, seq):
        self.sent += 1
        if seq < self.maxseq:
            self.retx += 1
        else:
            self.maxseq = seq + 1
        self.out.append(seq)

    def is_lost(self, seq):
        return sum(1 for s in self.sacked if s > seq) >= DUP_THRESH

    def high_sack(self):
        return max(self.sacked) if self.sacked else -1

    def set_pipe(self):
        pipe = 0
        for s in range(self.una, self.nxt):
            if s in self.sacked:
                continue
            if not self.is_lost(s):
                pipe += 1
            if s <= self.high_rxt:
                pipe += 1
        return pipe

    def next_seg(self):
        hs = self.high_sack()
        for s in range(max(self.high_rxt + 1, self.una), self.nxt):  # rule 1
            if s not in self.sacked and s < hs and self.is_lost(s):
                return s, 1
        if self.nxt < self.una + self.wmax:  # rule 2
            return self.nxt, 2
        for s in range(max(self.high_rxt + 1, self.una), self.nxt):  # rule 3
            if s not in self.sacked and s < hs:
                return s, 3
        if self.nxt > self.una and (self.rescue is None or self.una > self.rescue):  # rule 4
            for s in range(self.nxt - 1, self.una - 1, -1):
                if s not in self.sacked:
                    return s, 4
        return None, 0

    def send_new(self):
        lim = self.una + int(min(self.cwnd, self.wmax))
        while self.nxt < lim:
            self.transmit(self.nxt)
            self.nxt += 1

    def on_ack(self, a, blocks):
        self.out = []
        if a < self.una:
            return self.out
        # Update(): blocks above the cumulative ACK, below the highest sent
        new = 0
        for lo, hi in blocks:
            for s in range(max(lo, a), min(hi, self.maxseq)):
                if s not in self.sacked:
                    self.sacked.add(s)
                    new += 1
        self.sacked = {s for s in self.sacked if s >= a}
        if a > self.una:
            self.una = a
            self.nxt = max(self.nxt, a)
            if self.in_rec:
                if a > self.recovery_point:
                    self.in_rec = False
                    self.dupacks = 0
            else:
                self.dupacks = 0
                if self.cwnd < self.ssthresh:
                    self.cwnd += 1.0
                else:
                    self.cwnd += 1.0 / self.cwnd
                self.cwnd = min(self.cwnd, float(self.wmax))
        if new > 0 and not self.in_rec and self.nxt > self.una:
            self.dupacks += 1
            lost_head = self.una not in self.sacked and self.is_lost(self.una)
            if (self.dupacks >= DUP_THRESH or lost_head) and self.una > self.recovery_point:
                self.recovery_point = self.nxt - 1
                self.ssthresh = max((self.nxt - self.una) / 2.0, 2.0)
                self.cwnd = self.ssthresh
                self.in_rec = True
                self.fast_rtx += 1
                self.transmit(self.una)
                self.high_rxt = self.una
                self.rescue = None
        if self.in_rec:  # step (C)
            pipe = self.set_pipe()
            while self.cwnd - pipe >= 1.0:
                s, rule = self.next_seg()
                if rule == 0:
                    break
                self.transmit(s)
                if rule == 2:
                    self.nxt = s + 1
                elif rule == 4:
                    self.rescue = self.recovery_point
                else:
                    self.high_rxt = s
                pipe += 1
        else:
            self.send_new()
        return self.out


def replay(*, w0, ssthresh, max_window, n_blocks, p, tx, delay, until):
    """Run the replay to ``until`` s.  Returns ``(sender, acks)``: the sender's final state
    and every ACK sent, in order, as ``(cumulative ACK, blocks)``."""
    snd = Sender(w0, ssthresh, max_window)
    rcv = Receiver(n_blocks)
    events = []
    order = 0
    link = {"busy_until": 0.0, "sum": 0.0}
    acks = []

    def push(t, kind, x):
        nonlocal order
        heapq.heappush(events, (t, order, kind, x))
        order += 1

    def offer(now, seqs):
        for s in seqs:
            link["sum"] += p
            if link["sum"] >= 1.0:
                link["sum"] -= 1.0
                continue
            start = max(now, link["busy_until"])
            link["busy_until"] = start + tx
            push(start + tx + delay, "data", s)

    snd.send_new()
    offer(0.0, snd.out)
    while events and events[0][0] <= until:
        t, _, kind, x = heapq.heappop(events)
        if kind == "data":
            a, blocks = rcv.on_data(x)
            acks.append((a, list(blocks)))
            push(t + delay, "ack", (a, list(blocks)))
        else:
            offer(t, snd.on_ack(*x))
    return snd, acks


def _check():  # the periodic drops of the hand-traced scenario: arrivals 6, 11, 16
    s, drops = 0.0, []
    for n in range(1, 21):
        s += 3.0 / 16.0
        if s >= 1.0:
            s -= 1.0
            drops.append(n)
    assert drops == [6, 11, 16], drops
    assert math.isclose(s, 0.75)


_check()
