"""Base classes of mechanism specifications: what a queue, a source or an edge element is.

A spec is a frozen dataclass that validates its fields when built and names,
in ``kernel``, the simulator's kernel module that carries it out (``"queues.red"`` is ``qosmodels.sim._kernels.queues.red``).
Specs hold no kernel codes and import nothing from the simulator: the kernel
module lists the spec fields it packs (its ``PARAMS``) and its dispatch code,
so the fluid models, the closed forms and the allocation read the same specs
without loading Numba.
"""

from __future__ import annotations

import abc
import math
import numbers
from dataclasses import dataclass, field
from typing import ClassVar

from .._validate import integer, real
from ..errors import ScenarioError, ScenarioTypeError

__all__ = ["Spec", "QueueSpec", "SourceSpec", "EdgeSpec"]


class Spec(abc.ABC):
    """Common base of every mechanism spec.

    Attributes
    ----------
    kind : str
        Short name of the mechanism, as results and tables show it.
    kernel : str
        The kernel module carrying the mechanism out, relative to
        ``qosmodels.sim._kernels`` (for example ``"queues.red"``).
    """

    kind: ClassVar[str]
    kernel: ClassVar[str]


class QueueSpec(Spec):
    """Base class of queue disciplines (the ``queue`` of a :class:`~qosmodels.Link`).

    Every discipline counts its buffer in packets *waiting*: the packet being
    transmitted has left the queue (as in ns-3's device queues)."""

    #: True for gateways that set the DECbit congestion bit (``MARK_DECBIT``) on data
    #: packets; a :class:`DecbitWindow` flow must cross at least one.
    sets_decbit: ClassVar[bool] = False

    #: True for disciplines that treat Green and Blue packets differently (ABE); a flow
    #: whose source is ``green`` must cross at least one.
    colour_aware: ClassVar[bool] = False

    #: Number of FIFO classes the discipline keeps.
    @property
    def n_classes(self) -> int:
        return 1

    def check_crossing(self, source: SourceSpec, flow: str, link: str) -> None:
        """Refuse a flow whose packets this queue cannot carry (the packet simulator asks
        it of every queue a flow's data or ACKs cross, before a run).

        A queue of more than one class (:class:`~qosmodels.mechanisms.Priority`) puts a
        packet in its source's ``priority`` class, so that class must exist.

        Parameters
        ----------
        source : SourceSpec
            The flow's source.
        flow, link : str
            The flow's and the link's names, for the message.

        Raises
        ------
        ScenarioError
            A priority class the queue does not have.
        """
        n = self.n_classes
        if n > 1 and source.priority >= n:
            raise ScenarioError(
                f"flow {flow!r} uses priority class {source.priority}, but link {link!r} has a "
                f"{type(self).__name__} queue of {n} classes; use priority < {n} or more classes"
            )


@dataclass(frozen=True)
class SourceSpec(Spec):
    """Base class of traffic sources (the ``source`` of a :class:`~qosmodels.Flow`).

    Every source has ``packet_size`` (bytes, ``None``: the flow's
    ``packet_size``), ``priority`` (the class it uses in a
    :class:`~qosmodels.mechanisms.Priority` queue, 0 the highest) and the
    keyword-only ``green`` (Asymmetric Best-Effort's colour: True sends every
    data packet Green, low delay and more losses at an
    :class:`~qosmodels.mechanisms.AbeQueue`; False, the default, Blue)."""

    green: bool = field(default=False, kw_only=True)

    #: True for sources whose receiver acknowledges packets (window sources).
    windowed: ClassVar[bool] = False
    #: True for open-loop sources whose receiver still returns a feedback packet for
    #: every data packet (:class:`~qosmodels.mechanisms.TcpFriendly`).
    feedback: ClassVar[bool] = False
    #: True for sources that adjust their window from echoed DECbits: their path must
    #: hold a gateway that sets them (a queue spec with ``sets_decbit``).
    needs_decbit: ClassVar[bool] = False
    #: True for sources that send out-of-band control packets
    #: (:class:`~qosmodels.mechanisms.Accumulation`'s Monaco estimator): the packet
    #: simulator gives every link such a flow crosses, either way, an out-of-band lane.
    out_of_band: ClassVar[bool] = False

    def check_route(self, flow: str, queues: list[QueueSpec]) -> None:
        """Refuse a route over which this source cannot run (the packet simulator asks it
        of every flow's source, before a run).

        A source that reads DECbits (``needs_decbit``) needs a gateway that sets them
        (``sets_decbit``) on its data's path, or its window would only grow; a ``green``
        source needs a queue that treats Green and Blue packets differently
        (``colour_aware``: :class:`~qosmodels.mechanisms.AbeQueue`).

        Parameters
        ----------
        flow : str
            The flow's name, for the message.
        queues : list of QueueSpec
            The queues of the flow's forward route, in path order.

        Raises
        ------
        ScenarioError
            A route without the queue the source needs.
        """
        if self.needs_decbit and not any(q.sets_decbit for q in queues):
            raise ScenarioError(
                f"flow {flow!r} has a {type(self).__name__} source, but no link on its route "
                f"sets the DECbit (its window would only grow); give a link of its route a "
                f"bit-setting queue (queue=Decbit()) or use another source"
            )
        if self.green and not any(q.colour_aware for q in queues):
            raise ScenarioError(
                f"flow {flow!r} sends Green packets (its source has green=True), but no link on "
                f"its route has an AbeQueue, the only queue that treats Green and Blue "
                f"differently; give a link of its route queue=AbeQueue(...) or make the source "
                f"Blue (green=False)"
            )


class EdgeSpec(Spec):
    """Base class of edge elements: what stands at the ingress of a flow, or of an
    :class:`~qosmodels.Aggregate` of flows, before its first link (a token
    bucket, a ticket tagger, a profile marker)."""


def _packet_size(owner, value):
    if value is None:
        return None
    return integer(owner, "packet_size", value, ge=1, unit="bytes")


def _priority(owner, value):
    return integer(owner, "priority", value, ge=0)


def _flag(owner, field, value):
    if not isinstance(value, bool):
        raise ScenarioTypeError(f"{owner}.{field} must be True or False, got {value!r}")
    return value


def _sack(owner, spec):
    """Validate a SACK sender's ``sack`` and ``sack_blocks`` fields."""
    from .._validate import integer

    _flag(owner, "sack", spec.sack)
    object.__setattr__(spec, "sack_blocks",
                       integer(owner, "sack_blocks", spec.sack_blocks, ge=1, le=4,
                               unit="blocks"))


def _rack(owner, spec):
    """Validate a SACK sender's ``rack`` and ``tlp`` fields (RFC 8985): RACK needs SACK,
    TLP needs RACK."""
    _flag(owner, "rack", spec.rack)
    _flag(owner, "tlp", spec.tlp)
    if spec.rack and not spec.sack:
        raise ScenarioError(f"{owner}.rack=True needs sack=True (RACK, RFC 8985, detects "
                            f"losses from the SACK scoreboard); set sack=True as well, or "
                            f"rack=False")
    if spec.tlp and not spec.rack:
        raise ScenarioError(f"{owner}.tlp=True needs rack=True (TLP, RFC 8985 Section 7, "
                            f"leaves the loss its probe reveals to RACK); set rack=True as "
                            f"well, or tlp=False")


#: ``prr_bound``'s values (RFC 9937's rule, and RFC 6937's two fixed bounds)
PRR_BOUNDS = ("safeack", "crb", "ssrb")


def _prr(owner, spec):
    """Validate a SACK sender's ``prr`` and ``prr_bound`` fields (RFC 9937): PRR needs SACK
    (its DeliveredData and pipe come from the scoreboard, RFC 6675)."""
    _flag(owner, "prr", spec.prr)
    if not isinstance(spec.prr_bound, str) or spec.prr_bound not in PRR_BOUNDS:
        raise ScenarioError(f"{owner}.prr_bound must be 'safeack' (RFC 9937: PRR-CRB, with "
                            f"PRR-SSRB's extra segment on an ACK that advances SND.UNA and "
                            f"indicates no new loss), 'crb' or 'ssrb' (RFC 6937's fixed "
                            f"bounds), got {spec.prr_bound!r}")
    if spec.prr and not spec.sack:
        raise ScenarioError(f"{owner}.prr=True needs sack=True (PRR, RFC 9937, counts the "
                            f"data each ACK delivers and the pipe from the SACK scoreboard, "
                            f"RFC 6675); set sack=True as well, or prr=False")


def _delayed_ack(owner, spec):
    """Validate, in place, a TCP sender's receiver fields ``delayed_ack`` (``m``, an integer
    >= 1: an ACK for every ``m``-th in-order packet, 1 = every packet at once) and
    ``delayed_ack_timeout`` (s, in (0, 0.5]: RFC 1122 4.2.3.2 and RFC 5681 4.2, "MUST be
    generated within 500 ms"), and its ``ack_counting`` ("ack" or "packets")."""
    set_ = object.__setattr__
    m = spec.delayed_ack
    if isinstance(m, bool) or not isinstance(m, numbers.Real):
        raise ScenarioTypeError(f"{owner}.delayed_ack must be an integer >= 1 (1: an ACK for "
                                f"every packet, 2: for every second one, as RFC 5681 4.2 "
                                f"allows), got {m!r} of type {type(m).__name__}")
    if not isinstance(m, numbers.Integral) and (not math.isfinite(m) or m != int(m)):
        raise ScenarioError(f"{owner}.delayed_ack must be a whole number of packets (an ACK "
                            f"for every m-th packet; 2 as Linux and ns-3), got {m!r}")
    if m < 1:
        raise ScenarioError(f"{owner}.delayed_ack must be >= 1 (1: an ACK for every packet, "
                            f"the default; 2: for every second one), got {m!r}")
    set_(spec, "delayed_ack", int(m))
    t = real(owner, "delayed_ack_timeout", spec.delayed_ack_timeout, gt=0, unit="s")
    if t > 0.5:
        raise ScenarioError(f"{owner}.delayed_ack_timeout must be at most 0.5 s (RFC 1122 "
                            f"4.2.3.2 and RFC 5681 4.2: an ACK MUST be sent within 500 ms of "
                            f"the first unacknowledged packet; ns-3 uses 0.2 s, Linux 0.04 s "
                            f"to 0.2 s), got {spec.delayed_ack_timeout!r}")
    set_(spec, "delayed_ack_timeout", t)
    if not isinstance(spec.ack_counting, str):
        raise ScenarioTypeError(f"{owner}.ack_counting must be 'ack' or 'packets', got "
                                f"{spec.ack_counting!r} of type {type(spec.ack_counting).__name__}")
    if spec.ack_counting not in ("ack", "packets"):
        raise ScenarioError(f"{owner}.ack_counting must be 'ack' (the window grows once per ACK "
                            f"of new data, RFC 5681) or 'packets' (once per packet an ACK "
                            f"acknowledges, as Linux), got {spec.ack_counting!r}")


def _colour(owner, spec):
    """Validate a source's ``green`` flag (every source's ``__post_init__`` calls this)."""
    _flag(owner, "green", spec.green)


def _generic_timeout(owner, spec):
    """Validate, in place, the fields of the fair-queueing paper's generic timeout that
    window sources share: ``beta`` (> 1), ``rtt_gain`` (in (0, 1]) and ``initial_rtt`` (s)."""
    set_ = object.__setattr__
    set_(spec, "beta", real(owner, "beta", spec.beta, gt=1))
    set_(spec, "rtt_gain", real(owner, "rtt_gain", spec.rtt_gain, gt=0))
    if spec.rtt_gain > 1:
        raise ScenarioError(f"{owner}.rtt_gain must be in (0, 1], got {spec.rtt_gain!r}")
    set_(spec, "initial_rtt", real(owner, "initial_rtt", spec.initial_rtt, gt=0, unit="s"))


#: The retransmission-timer rules of the TCP senders' ``timer`` field (:class:`TcpReno`'s
#: docstring gives them).
TIMER_RULES = ("reference", "impatient", "slow-but-steady")


def _timer_rule(owner, spec):
    """Validate ``spec.timer``, one of :data:`TIMER_RULES`."""
    if not isinstance(spec.timer, str):
        raise ScenarioTypeError(f"{owner}.timer must be 'reference', 'impatient' or "
                                f"'slow-but-steady' (the retransmission-timer rules, a str), got "
                                f"{spec.timer!r} of type {type(spec.timer).__name__}")
    if spec.timer not in TIMER_RULES:
        raise ScenarioError(f"{owner}.timer must be 'reference', 'impatient' or "
                            f"'slow-but-steady' (the retransmission-timer rules), got "
                            f"{spec.timer!r}")


def _tcp_window_and_timer(owner, spec):
    """Validate, in place, the window and retransmission-timer fields TCP senders share:
    ``packet_size``, ``max_window`` and ``initial_window`` (packets, >= 1),
    ``initial_ssthresh`` (None or >= 2 packets), ``min_rto <= max_rto`` and ``initial_rto``
    (s, > 0)."""
    set_ = object.__setattr__
    set_(spec, "packet_size", _packet_size(owner, spec.packet_size))
    set_(spec, "max_window", integer(owner, "max_window", spec.max_window, ge=1,
                                     unit="packets"))
    set_(spec, "initial_window",
         integer(owner, "initial_window", spec.initial_window, ge=1, unit="packets"))
    if spec.initial_ssthresh is not None:
        set_(spec, "initial_ssthresh",
             real(owner, "initial_ssthresh", spec.initial_ssthresh, ge=2, unit="packets"))
    set_(spec, "min_rto", real(owner, "min_rto", spec.min_rto, gt=0, unit="s"))
    set_(spec, "max_rto", real(owner, "max_rto", spec.max_rto, gt=0, unit="s"))
    if spec.max_rto < spec.min_rto:
        raise ScenarioError(f"{owner}.max_rto must be >= min_rto = {spec.min_rto!r} s, "
                            f"got {spec.max_rto!r}; raise max_rto or lower min_rto")
    set_(spec, "initial_rto", real(owner, "initial_rto", spec.initial_rto, gt=0, unit="s"))

