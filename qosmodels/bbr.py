"""BBRv1 against loss-based senders and BBRv1's standing queue: closed forms.

Two window-cap arguments, for :class:`~qosmodels.mechanisms.BbrV1` in PROBE_BW
(draft-cardwell-iccrg-bbr-congestion-control-00: cwnd = ``cwnd_gain x BtlBw x RTprop``
plus three send quanta), derived here:

* **Share against loss-based flows in a deep drop-tail buffer** (:func:`deep_buffer_share`).
  Loss-based flows (Cubic, Reno) keep the buffer of ``B`` packets full, so the
  network holds ``BDP + B`` packets, and with one FIFO every flow's share of the
  rate is its share of that backlog (Little's law, one RTT for all).  BBR is then
  window-limited (Ware et al., IMC 2019): its flight is ``g x BtlBw x RTprop``, with
  ``BtlBw`` its own delivery rate ``p C`` and ``RTprop`` what PROBE_RTT measures
  when its own packets have left the queue, the others' backlog ``(1 - p)(BDP +
  B)`` over ``C``.  Its flight ``p (BDP + B)`` equals ``g p C (1 - p)(BDP + B) /
  C``, so ``p = 1 - 1/g``: one half for ``g = 2``, whatever ``B`` and the number of
  loss-based flows, as long as the others' backlog fills the pipe, ``B > (g - 1)
  BDP``.  This leaves out what Ware et al.'s model adds (the bandwidth the max
  filter keeps from PROBE_BW's 5/4 phase, the queue's drain during PROBE_RTT, the
  probing time), whose text was not available while this was written: their
  extended model over buffer sizes is not reproduced here.
* **Standing queue of BBRv1 flows** (:func:`standing_queue`): flows that are
  window-limited (Scherrer et al., IMC 2022, find BBRv1 flows in steady state so)
  with ``sum BtlBw = C`` and ``RTprop`` the propagation delay keep ``g BDP + 3 N q``
  packets in flight (``q`` the send quantum), so a queue of ``(g - 1) BDP + 3 N q``:
  about one bandwidth-delay product.  A single flow is not window-limited (its
  5/4 and 3/4 phases cancel), so this is stated for two flows or more.

References
----------
R. Ware, M. K. Mukerjee, S. Seshan, J. Sherry, "Modeling BBR's Interactions with
Loss-Based Congestion Control", ACM IMC 2019.  S. Scherrer, M. Legner, A. Perrig, S.
Schmid, "Model-Based Insights on the Performance, Fairness, and Stability of BBR", ACM
IMC 2022.  draft-cardwell-iccrg-bbr-congestion-control-00, Section 4.
"""

from __future__ import annotations

from ._validate import integer, real
from .errors import ScenarioError

__all__ = ["deep_buffer_share", "standing_queue", "send_quantum"]


def deep_buffer_share(buffer_bdp: float, cwnd_gain: float = 2.0) -> float:
    """BBRv1's share of the link against loss-based flows that keep a drop-tail buffer of
    ``buffer_bdp`` bandwidth-delay products full: ``1 - 1/cwnd_gain``.

    Raises
    ------
    ScenarioError
        If ``buffer_bdp <= cwnd_gain - 1``: the loss-based flows' backlog no longer fills
        the pipe when BBR probes, and the argument does not hold.

    Examples
    --------
    >>> deep_buffer_share(4.0)
    0.5
    """
    b = real("deep_buffer_share", "buffer_bdp", buffer_bdp, gt=0, unit="BDP")
    g = real("deep_buffer_share", "cwnd_gain", cwnd_gain, gt=1)
    if b <= g - 1.0:
        raise ScenarioError(f"deep_buffer_share: buffer_bdp must be > cwnd_gain - 1 = "
                            f"{g - 1.0:g} BDP for the window-cap argument (the loss-based "
                            f"flows' backlog must fill the pipe), got {buffer_bdp!r}")
    return 1.0 - 1.0 / g


def send_quantum(rate: float, packet_size: int) -> float:
    """The draft's send quantum at pacing rate ``rate`` (bit/s), packets of
    ``packet_size`` bytes: 1 packet below 1.2 Mb/s, 2 below 24 Mb/s, else ``min(rate x 1
    ms, 64 KB)``.

    Examples
    --------
    >>> send_quantum(10e6, 1000)
    2.0
    """
    r = real("send_quantum", "rate", rate, gt=0, unit="bit/s")
    s = integer("send_quantum", "packet_size", packet_size, ge=1, unit="bytes")
    if r < 1.2e6:
        return 1.0
    if r < 24e6:
        return 2.0
    return min(r * 1e-3, 65536 * 8.0) / (8.0 * s)


def standing_queue(bdp: float, n_flows: int, quantum: float, cwnd_gain: float = 2.0) -> float:
    """The queue ``n_flows`` (>= 2) window-limited BBRv1 flows keep, packets: ``(cwnd_gain
    - 1) bdp + 3 n_flows quantum``.

    Examples
    --------
    >>> standing_queue(51.0, 2, 2.0)
    63.0
    """
    b = real("standing_queue", "bdp", bdp, gt=0, unit="packets")
    n = integer("standing_queue", "n_flows", n_flows, ge=2)
    q = real("standing_queue", "quantum", quantum, gt=0, unit="packets")
    g = real("standing_queue", "cwnd_gain", cwnd_gain, gt=1)
    return (g - 1.0) * b + 3.0 * n * q
