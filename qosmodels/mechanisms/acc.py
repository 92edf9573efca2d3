"""Accumulation-based congestion control sources (Xia, Harrison, Kalyanaraman, Ramachandran,
Venkatesan): a window steered towards a target accumulation by one of three control laws."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .._validate import integer, real
from ..errors import ScenarioError, ScenarioTypeError
from ._base import SourceSpec, _colour, _flag, _generic_timeout, _packet_size, _priority

__all__ = ["Accumulation"]

#: Control laws (Section III-B) and the accumulation estimators of the packet simulator.
CONTROLS = ("P", "AIAD", "MW")
ESTIMATORS = ("vegas", "vegas-k", "monaco")
#: Most round trips Vegas-k's minimum may span in the packet simulator.
K_MAX = 8
#: Vegas-k's default window, round trips.
K_DEFAULT = 8


@dataclass(frozen=True)
class Accumulation(SourceSpec):
    """An ACC window source: once per round trip, the window moves by a control law of
    the accumulation estimate and its target.

    Each round trip (the time for the window sent at the last decision to be
    acknowledged) the sender estimates its accumulation ``a`` (packets it
    keeps queued in the network) and moves its window ``W`` (packets, real;
    ``floor(W)`` may be outstanding) by the discrete form of the paper's
    laws over one round trip, ``a*`` the target in packets:

    * ``"P"``, eq (6): ``W <- W - kappa (a - a*)``;
    * ``"AIAD"``, eq (3): ``W <- W - kappa sgn(a - a*)`` (kappa packets);
    * ``"MW"`` (Mo and Walrand), eq (5): ``W <- W - kappa (rtt_p / rtt) (a - a*) / W``;

    then clips ``W`` to ``[1, max_window]``.  A retransmission timeout halves
    ``W`` ("halving on loss"; the timer is the generic one, ``beta`` times the
    averaged RTT, and the sender goes back N: no fast retransmit); Monaco's
    control loop also halves on loss (below); the paper says nothing of a data
    timeout, where a flow whose in-band packets are lost gets no echo.  There is
    no slow start: from ``initial_window`` the law itself opens the window.

    Estimators (Section IV-A), from the round's RTT samples (one per ACK
    that acknowledges new data, timed from the packet's first transmission):
    ``rtt`` their mean, and

    * ``"vegas"``, eqs (7)-(8): ``a = (W / rtt) (rtt - rtt_p)``, ``rtt_p`` the
      smallest RTT seen since the flow started plus ``rtt_error``; a standing
      queue at the start or queueing on the reverse path biases it (eq (12));
    * ``"vegas-k"`` (Mo et al.): ``rtt_p`` the smallest RTT of the last ``k``
      round trips (at most 8), plus ``rtt_error``.

    * ``"monaco"`` (Section IV-B): the sender sends pairs of back-to-back
      control packets (``MARK_CTRL``; ACK-sized, the in-band one
      ``control_size`` if given): one out of band, which every link sends
      ahead of its queue whatever its discipline (the link's out-of-band
      lane), then one in band, queued with the data.  The receiver takes the
      time between them, the forward queueing time ``ftt_q``, times an EWMA
      of the egress rate (the data delivered between in-band packets over the
      time between them; time constant the flow's smallest RTT, as the fluid
      model's ``rtt_p``), and echoes the estimate out of band.  The control
      loop runs on the pairs, as Section IV-B.1 says: the first pair leaves
      at the end of the first round; "the subsequent pair of forward control
      packets is generated after the arrival of the reverse OB control
      packet", and that arrival is the control period ``n`` of eq (10), at
      which the law moves the window with the echoed estimate.  A pair whose
      echo has not come back within the flow's retransmission timeout
      (``beta`` times the averaged RTT, the paper's "similar to that of
      TCP") is replaced by a new pair with a larger number; the echo of an
      older pair is then ignored.  A pair whose out-of-band packet is lost
      gives no echo.  Loss is detected as Section IV-B.1 says: the in-band
      packet carries the count of data the sender has sent, the receiver
      compares it with the data that have arrived, and when more are missing
      than at the previous in-band packet the echo says
      "decrease-due-to-loss" and the sender halves ``W`` (at least 1), "as in
      TCP Reno", instead of applying eq (10).  Neither ``rtt_p`` nor reverse-path queueing enters the
      estimate (``MW`` still uses the smallest RTT for its ``rtt_p``).
      Control packets are never goodput and never counted as the flow's sent
      or dropped packets.  The sender paces its window as a leaky bucket of
      rate ``W / rtt`` (``rtt`` the last round's mean RTT of the data), one
      packet every ``rtt / W``.

    Parameters
    ----------
    control : {"P", "AIAD", "MW"}
        The control law.
    estimator : {"vegas", "vegas-k", "monaco"}
        The accumulation estimator.
    kappa : float
        Gain, > 0 (the paper's Table I: 0.5).
    target : float, bytes
        Target accumulation ``a*``, > 0 (Table I: 3000 bytes, three 1000-byte packets).
    k : int
        Vegas-k's window of round trips, in [1, 8] (8 by default); only with
        ``estimator="vegas-k"``.
    rtt_error : float, s
        Added to the ``rtt_p`` estimate (an estimation error, Section IV-A); may be negative.
    max_window, initial_window : float, packets
        Window bounds at the start, ``1 <= initial_window <= max_window``.
    packet_size : int or None, bytes
    beta, rtt_gain, initial_rtt : float
        The generic timeout (:class:`GenericWindow`).
    control_size : int or None, bytes
        Monaco's in-band control packet's size (only with ``estimator="monaco"``).
        The paper does not give it; None (the default): an ACK's size, as the
        out-of-band packet and the echo always are.
    record : bool
        Record Monaco's estimate at each control period (the echo's arrival) on
        the trace channel ``monaco_estimate`` (packets); only with
        ``estimator="monaco"``.
    timeout_halves : bool
        Whether a retransmission timeout halves ``W`` (default True).  False
        (only with ``estimator="monaco"``): the echo's decrease-due-to-loss,
        detected from the in-band packet's count of data, is the only response
        to loss, which is all Section IV-B.1 describes ("If the egress node
        receives fewer bytes than were transmitted, then packet loss is
        detected"; "If the congestion feedback is decrease-due-to-loss, Monaco
        halves the congestion window as in TCP Reno"); the timeout then only
        recovers the data, going back N (the paper does not describe how
        Monaco's data are recovered).  With the default a loss usually halves
        ``W`` twice, once at the echo and once at the timeout.
    priority : int

    References
    ----------
    Y. Xia, D. Harrison, S. Kalyanaraman, K. Ramachandran, A. Venkatesan,
    "Accumulation-based Congestion Control", Sections III-B (eqs (3), (5),
    (6)), IV-A (eqs (7)-(9), Vegas-k) and IV-B (Monaco), Table I.

    Examples
    --------
    >>> from qosmodels.mechanisms import Accumulation
    >>> Accumulation(control="P", estimator="vegas", kappa=0.5, target=3000).kind
    'acc'
    """

    control: str = "P"
    estimator: str = "vegas"
    kappa: float = 0.5
    target: float = 3000.0
    k: int = K_DEFAULT
    rtt_error: float = 0.0
    max_window: float = 1000.0
    initial_window: float = 1.0
    packet_size: int | None = None
    beta: float = 2.0
    rtt_gain: float = 0.125
    initial_rtt: float = 1.0
    priority: int = 0
    control_size: int | None = None
    record: bool = False
    timeout_halves: bool = True

    kind: ClassVar[str] = "acc"
    kernel: ClassVar[str] = "sources.accumulation"
    windowed: ClassVar[bool] = True

    def __post_init__(self):
        n = "Accumulation"
        set_ = object.__setattr__
        _colour(n, self)
        if not isinstance(self.control, str) or self.control.upper() not in CONTROLS:
            raise (ScenarioError if isinstance(self.control, str) else ScenarioTypeError)(
                f"Accumulation.control must be one of {list(CONTROLS)} (eqs (6), (3), (5)), got "
                f"{self.control!r}")
        set_(self, "control", self.control.upper())
        if not isinstance(self.estimator, str):
            raise ScenarioTypeError(
                f"Accumulation.estimator must be one of {list(ESTIMATORS)}, got "
                f"{self.estimator!r}")
        if self.estimator.lower() not in ESTIMATORS:
            raise ScenarioError(
                f"Accumulation.estimator must be one of {list(ESTIMATORS)}, got "
                f"{self.estimator!r}")
        set_(self, "estimator", self.estimator.lower())
        set_(self, "kappa", real(n, "kappa", self.kappa, gt=0))
        set_(self, "target", real(n, "target", self.target, gt=0, unit="bytes"))
        k = integer(n, "k", self.k, ge=1)
        if k > K_MAX:
            raise ScenarioError(f"Accumulation.k must be in [1, {K_MAX}] round trips, got {k}")
        if k != K_DEFAULT and self.estimator != "vegas-k":
            raise ScenarioError(
                f"Accumulation.k = {k} applies only to estimator='vegas-k' (the minimum RTT over "
                f"the last k round trips); estimator={self.estimator!r} does not use it: drop k "
                f"or choose 'vegas-k'")
        set_(self, "k", k)
        set_(self, "rtt_error", real(n, "rtt_error", self.rtt_error, unit="s"))
        set_(self, "max_window", real(n, "max_window", self.max_window, ge=1, unit="packets"))
        set_(self, "initial_window",
             real(n, "initial_window", self.initial_window, ge=1, unit="packets"))
        if self.initial_window > self.max_window:
            raise ScenarioError(
                f"Accumulation.initial_window must be <= max_window = {self.max_window!r} "
                f"packets, got {self.initial_window!r}")
        set_(self, "packet_size", _packet_size(n, self.packet_size))
        _generic_timeout(n, self)
        set_(self, "priority", _priority(n, self.priority))
        if self.control_size is not None:
            set_(self, "control_size", integer(n, "control_size", self.control_size, ge=1,
                                               unit="bytes"))
        _flag(n, "record", self.record)
        _flag(n, "timeout_halves", self.timeout_halves)
        if not self.timeout_halves and self.estimator != "monaco":
            raise ScenarioError(
                f"Accumulation.timeout_halves = False applies only to estimator='monaco' (its "
                f"echo's decrease-due-to-loss is then the only response to loss); estimator="
                f"{self.estimator!r} would never reduce its window on loss: drop "
                f"timeout_halves or choose 'monaco'")
        for field in ("control_size", "record"):
            if getattr(self, field) not in (None, False) and self.estimator != "monaco":
                raise ScenarioError(
                    f"Accumulation.{field} = {getattr(self, field)!r} applies only to "
                    f"estimator='monaco' (its control packets); estimator="
                    f"{self.estimator!r} sends none: drop {field} or choose 'monaco'")

    @property
    def out_of_band(self) -> bool:
        """Whether the flow sends out-of-band control packets (Monaco): every link it
        crosses, either way, then gets an out-of-band lane."""
        return self.estimator == "monaco"
