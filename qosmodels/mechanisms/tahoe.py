"""A Tahoe-like TCP sender: the fair-queueing paper's "JK" (Jacobson-Karels) flow control.

References
----------
A. Demers, S. Keshav, S. Shenker, "Analysis and simulation of a fair queueing
algorithm", SIGCOMM 1989, Sections 3.1 and 4; V. Jacobson, "Congestion
avoidance and control", SIGCOMM 1988; 4.3BSD-Tahoe ``netinet/tcp_timer.h``
(7.6, 6/29/88) and ``netinet/tcp_subr.c`` (``tcp_newtcpcb``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ._base import SourceSpec, _colour, _priority, _tcp_window_and_timer

__all__ = ["TcpTahoe"]


@dataclass(frozen=True)
class TcpTahoe(SourceSpec):
    """A greedy Tahoe-like TCP sender, counting in packets: the fair-queueing paper's JK.

    Demers, Keshav and Shenker model "the JK algorithm by adding many of the
    congestion control ideas found in [the 4.3BSD] code, such as adjustable
    windows, better timeout calculations, and fast retransmit to our generic
    flow control algorithm" (Section 4).  Fast recovery (window inflation) is
    not among them: it came with 4.3BSD-Reno, after the paper.  So:

    * **Adjustable window** (Jacobson 1988): slow start, ``cwnd + 1`` per ACK of
      new data while ``cwnd <= ssthresh``; congestion avoidance, ``cwnd +
      1/cwnd`` per ACK of new data above it (4.3BSD's ``tcp_input`` opens
      exponentially unless ``snd_cwnd > snd_ssthresh``).  The sender keeps at
      most ``min(cwnd, max_window)`` packets unacknowledged; ``cwnd`` itself is
      capped at ``max_window`` (which changes nothing that is sent).
    * **Fast retransmit, no fast recovery**: on the ``dupack_threshold``-th
      duplicate ACK (4.3BSD's ``tcprexmtthresh``, 3), ``ssthresh = max(flight/2,
      2)``, ``cwnd = 1``, the missing packet (the first unacknowledged one)
      alone is resent and the retransmission timer restarted; later duplicate
      ACKs change nothing (no window inflation).  The next-to-send pointer is
      left where it was (4.3BSD saves ``snd_nxt``, sets it to the missing
      segment for one ``tcp_output`` and restores it), so slow start resumes
      with new data once an ACK covers the resent packet; a second hole in the
      same window is repaired by another fast retransmit or by a timeout.
    * **Timeout**: the same ``ssthresh``, ``cwnd = 1``, and go-back-N: every
      unacknowledged packet is resent, as the window allows, from the first.
    * **Jacobson-Karels timer** with 4.3BSD-Tahoe's constants: one packet timed
      at a time (none while a retransmission is outstanding: Karn's rule),
      ``srtt`` and ``rttvar`` with gains 1/8 and 1/4, the first sample setting
      ``srtt = r``, ``rttvar = r/2``; ``RTO = srtt + rto_k rttvar`` with
      Tahoe's ``rto_k = 2`` (``tcp_subr.c``: "srtt + 2 * rttvar gives
      reasonable initial retransmit time"; 4.3BSD-Reno and RFC 6298 use 4),
      clamped to ``[min_rto, max_rto]`` (``TCPTV_MIN`` 1 s, ``TCPTV_REXMTMAX``
      64 s).  The ``n``-th consecutive timeout sets ``RTO = (srtt + rto_k
      rttvar) * min(2**n, max_backoff)``, clamped (4.3BSD's ``tcp_backoff``
      table, 1, 2, 4, ... 64, 64, ...); an RTT sample clears the backoff.  Every
      ACK of new data restarts the timer with the current RTO (stopped when
      nothing is outstanding), and a deadline moved earlier fires on time.
      Before the first sample ``srtt + rto_k rttvar`` is ``initial_rto``, 6 s
      (``tcp_newtcpcb``: ``rttvar`` 4 x ``TCPTV_SRTTDFLT``, 3 s, halved).

    The receiver acknowledges every packet cumulatively and buffers
    out-of-order packets; no delayed ACKs.

    Choices where neither the paper nor 4.3BSD decides, or where this model
    departs from 4.3BSD:

    * ``ssthresh = max(flight/2, 2)`` with ``flight`` the packets outstanding
      (RFC 5681, eq. 4, as :class:`TcpReno`); 4.3BSD takes half of
      ``min(snd_wnd, snd_cwnd)`` in whole segments, which for a greedy sender
      is the same window up to the rounding.
    * Times are continuous: 4.3BSD counts its timers and RTT samples in 500 ms
      ticks.  It drops the connection after 12 retransmissions
      (``TCP_MAXRXTSHIFT``), and later BSDs (Net/3) also fold ``srtt`` into
      ``rttvar`` after four backoffs; neither is modelled (a greedy sender
      here never gives up).
    * No ECN, no SACK, no receiver-window dynamics (``max_window`` is fixed).

    Parameters
    ----------
    packet_size : int or None, bytes
        Data packet size (``None``: the flow's ``packet_size``).
    max_window : int, packets
        Largest window (the receiver's advertised window; the fair-queueing
        paper's sources use 5).
    initial_window : int, packets
        Congestion window at start.
    initial_ssthresh : float or None, packets
        Slow-start threshold at start, >= 2 (``None``: ``max_window``; 4.3BSD
        starts at 65535 bytes, no limit for these windows).
    min_rto, max_rto : float, s
        Bounds of the retransmission timeout (4.3BSD: 1 s and 64 s).
    initial_rto : float, s
        ``srtt + rto_k rttvar`` before the first RTT sample (4.3BSD: 6 s).
    rto_k : float
        Weight of ``rttvar`` in the timeout, > 0 (4.3BSD-Tahoe: 2).
    max_backoff : int
        Largest factor of the backed-off timeout, >= 1 (4.3BSD: 64).
    dupack_threshold : int
        Duplicate ACKs that trigger the fast retransmit, >= 1 (4.3BSD: 3).
    priority : int
        Class in a :class:`Priority` queue (0 highest).

    References
    ----------
    A. Demers, S. Keshav, S. Shenker, "Analysis and simulation of a fair
    queueing algorithm", SIGCOMM 1989, Section 3.1 (the generic flow control
    and its "second generation", JK) and Section 4 (JK as modelled: "adjustable
    windows, better timeout calculations, and fast retransmit").  V. Jacobson,
    "Congestion avoidance and control", SIGCOMM 1988 (slow start, congestion
    avoidance, the mean-deviation estimator).  P. Karn, C. Partridge, SIGCOMM
    1987.  4.3BSD-Tahoe ``sys/netinet/tcp_timer.h`` 7.6 (``TCPTV_MIN``,
    ``TCPTV_REXMTMAX``, ``TCPTV_SRTTDFLT``) and ``tcp_subr.c``
    (``tcp_newtcpcb``); W. R. Stevens, G. R. Wright, *TCP/IP Illustrated*
    vol. 2, 1995, Chapters 25 and 29 (the BSD retransmission timer and backoff
    table; the duplicate-ACK processing, whose ``snd_nxt`` save and restore
    around the fast retransmit is kept here, and whose ``snd_cwnd`` inflation
    after it is Reno's fast recovery, left out); K. Fall, S. Floyd,
    "Simulation-based comparisons of Tahoe, Reno, and SACK TCP", CCR 26(3),
    1996 (Tahoe: fast retransmit, no fast recovery).

    Examples
    --------
    >>> from qosmodels import Flow, Link, Network
    >>> src = TcpTahoe(max_window=5)
    >>> (src.min_rto, src.max_rto, src.initial_rto, src.rto_k)
    (1.0, 64.0, 6.0, 2.0)
    >>> net = Network([Link("a", "b", 56e3, 0.0, buffer=15)],
    ...               [Flow(["a", "b"], packet_size=1000, source=src)])
    """

    packet_size: int | None = None
    max_window: int = 1000
    initial_window: int = 1
    initial_ssthresh: float | None = None
    min_rto: float = 1.0
    max_rto: float = 64.0
    initial_rto: float = 6.0
    rto_k: float = 2.0
    max_backoff: int = 64
    dupack_threshold: int = 3
    priority: int = 0

    kind: ClassVar[str] = "tahoe"
    kernel: ClassVar[str] = "sources.tahoe"
    windowed: ClassVar[bool] = True

    def __post_init__(self):
        name = type(self).__name__
        set_ = object.__setattr__
        _colour(name, self)
        _tcp_window_and_timer(name, self)
        set_(self, "rto_k", real(name, "rto_k", self.rto_k, gt=0))
        set_(self, "max_backoff", integer(name, "max_backoff", self.max_backoff, ge=1))
        set_(self, "dupack_threshold",
             integer(name, "dupack_threshold", self.dupack_threshold, ge=1, unit="ACKs"))
        set_(self, "priority", _priority(name, self.priority))
