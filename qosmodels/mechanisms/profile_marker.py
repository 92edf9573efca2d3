"""Clark and Fang's time-sliding-window (TSW) profile marker, the edge half of their
allocated-capacity DiffServ (IEEE/ACM Trans. Networking 6(4), 1998, Section 3.3)."""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from .._validate import real
from ..errors import ScenarioError, ScenarioTypeError
from ._base import EdgeSpec, _flag

__all__ = ["ProfileMarker"]


@dataclass(frozen=True)
class ProfileMarker(EdgeSpec):
    """A TSW tagger marking each member's data in or out of its service profile.

    Per member flow of the :class:`~qosmodels.Aggregate`, a time-sliding-window
    estimator of the rate the member's sender puts out, updated on every data
    packet (retransmissions included), ``b`` bits at time ``now``::

        avg_rate <- (avg_rate * window + b) / (now - t_front + window)
        t_front <- now

    (the estimate starts at the member's profile, ``t_front`` at 0, as in
    ns-2's TSW2CM policy).  A packet is marked in profile
    (``MARK_IN_PROFILE``, which a :class:`~qosmodels.mechanisms.Rio` queue
    protects) unless the estimate exceeds the profile, in which case it is
    sent out of profile with probability ``(avg_rate - profile) /
    avg_rate``, so that in the long run about ``profile`` bit/s go in
    profile.  The marker never drops nor delays a packet.  A constant-rate
    stream of packets ``g`` s apart has the fixed point ``avg_rate = b / g``
    exactly, reached geometrically (factor ``window / (window + g)`` per
    packet).

    Parameters
    ----------
    profile : float or sequence of float, bit/s
        The target rate (service profile) of each member, >= 0: one number for
        every member, or one per member in the aggregate's member order.
        0 sends everything out of profile.
    window : float, s
        ``win_length``, the estimator's window, > 0 (default 1 s, ns-2's
        default for its Clark-Fang TSW tagger; the PPS paper used 60 s for its
        ticket rates).
    record : bool
        Record the trace channels ``tsw_rate_m<i>``: member ``i``'s estimate
        (bit/s) after each of its packets.

    Notes
    -----
    Only Clark and Fang's probabilistic tagger is offered.  Counters:
    ``edge_in_profile`` and ``edge_out_of_profile`` (and their
    ``..._window``) of :class:`~qosmodels.sim.SimulationResult`.

    References
    ----------
    D. Clark, W. Fang, "Explicit allocation of best-effort packet delivery
    service", IEEE/ACM Trans. Networking 6(4):362-373, 1998, Section 3.3 (TSW
    rate estimator and tagger); the PPS paper (Zhang et al., "Probabilistic
    packet scheduling"), Section 2.3 (the TSW formula, quoting [1]) and
    Section 3.8 (DiffServ with service profiles as its baseline).

    Examples
    --------
    >>> from qosmodels.mechanisms import ProfileMarker
    >>> ProfileMarker(profile=[0.6e6, 0.4e6, 0.2e6]).profiles(3)
    (600000.0, 400000.0, 200000.0)
    >>> ProfileMarker(profile=1e6, window=0.5).profiles(2)
    (1000000.0, 1000000.0)
    """

    profile: float | tuple
    window: float = 1.0
    record: bool = False

    kind: ClassVar[str] = "tsw-marker"
    kernel: ClassVar[str] = "edges.profile_marker"

    def __post_init__(self):
        set_ = object.__setattr__
        o = "ProfileMarker"
        p = self.profile
        if isinstance(p, numbers.Real) and not isinstance(p, bool):
            set_(self, "profile", real(o, "profile", p, ge=0, unit="bit/s"))
        elif isinstance(p, Iterable) and not isinstance(p, (str, bytes)):
            rates = tuple(p)
            if not rates:
                raise ScenarioError(
                    "ProfileMarker.profile must give a rate (bit/s), or one per member flow, "
                    "got an empty sequence")
            set_(self, "profile", tuple(real(o, f"profile[{i}]", r, ge=0, unit="bit/s")
                                        for i, r in enumerate(rates)))
        else:
            raise ScenarioTypeError(
                f"ProfileMarker.profile must be a rate in bit/s or a sequence of one rate per "
                f"member flow, got {p!r}")
        set_(self, "window", real(o, "window", self.window, gt=0, unit="s"))
        _flag(o, "record", self.record)

    def profiles(self, n_members: int) -> tuple[float, ...]:
        """The profile (bit/s) of each of ``n_members`` member flows, in member order."""
        if isinstance(self.profile, tuple):
            if len(self.profile) != n_members:
                raise ScenarioError(
                    f"ProfileMarker.profile gives {len(self.profile)} rates but its aggregate "
                    f"has {n_members} member flows; give one rate per member (in the "
                    f"aggregate's member order) or a single rate for all")
            return self.profile
        return (self.profile,) * n_members
