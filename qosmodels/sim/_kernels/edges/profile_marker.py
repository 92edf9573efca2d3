"""Clark and Fang's TSW profile marker at an aggregate's ingress (spec:
:class:`qosmodels.mechanisms.ProfileMarker`).

Per member flow, a time-sliding-window (TSW) rate estimator, updated on every
data packet the member's sender puts out (retransmissions included)::

    bits_in_tsw = avg_rate * win_length
    avg_rate = (bits_in_tsw + packet bits) / (now - t_front + win_length)
    t_front = now

and a tagger: the packet is marked in profile (``MARK_IN_PROFILE``) unless the
estimate exceeds the member's profile, in which case it goes out of profile
with probability ``(avg_rate - profile) / avg_rate`` (one uniform draw, only
then).  The marker never drops or holds a packet.

Units: rates in bit/s, sizes in bits, times in s.

References
----------
D. Clark, W. Fang, "Explicit allocation of best-effort packet delivery
service", IEEE/ACM Trans. Networking 6(4), 1998, Section 3.3 (the TSW
tagger); the PPS paper (Zhang et al., "Probabilistic packet scheduling"),
Section 2.3 (the TSW formula) and Section 3.8 (the DiffServ baseline).
"""

from .._jit import handler
from ..layout import (
    EDGE_PASS,
    EF_EP,
    EI_TRACE0,
    FF_ES,
    FI_EDGE_IN,
    FI_EDGE_IN_W,
    FI_EDGE_OUT,
    FI_EDGE_OUT_W,
    FI_MEMBER,
    GF_NOW,
    MARK_IN_PROFILE,
    PF_BITS,
    PI_MARK,
)
from ..pool import in_window
from ..rng import rand
from ..trace import record

CODE = 3

# parameter columns, in PARAMS order
PM_WINDOW = 0   # win_length, s
PARAMS = ("window",)

#: The marker keeps no timer.
TIMERS = 0

# a member's state (in its flow's rows)
M_RATE = FF_ES       # the TSW estimate avg_rate, bit/s
M_FRONT = FF_ES + 1  # t_front: the time of the member's last packet, s (0 before the first)
M_PROFILE = FF_ES + 2  # the member's target rate, bit/s


def traces(spec, n_members) -> tuple[str, ...]:
    """Trace channels: ``tsw_rate_m<i>``, member ``i``'s estimate after each of its packets."""
    if not spec.record:
        return ()
    return tuple(f"tsw_rate_m{i}" for i in range(n_members))


def hold_capacity(spec) -> int:
    """The marker holds no packet."""
    return 0


def setup_edge(spec, network, members, ef, ff, fi) -> None:
    """Each member's profile; its estimate starts at its profile, ``t_front`` at 0 (as
    ns-2's TSW2CM policy sets them up)."""
    for f, r in zip(members, spec.profiles(len(members))):
        ff[f, M_PROFILE] = r
        ff[f, M_RATE] = r
        ff[f, M_FRONT] = 0.0


@handler
def ingress(S, e, f, p):
    """Data packet ``p`` of member ``f`` reaches the marker: update the member's estimate,
    mark the packet in or out of profile, pass it on (``EDGE_PASS``)."""
    ff, fi = S.ff, S.fi
    now = S.gf[GF_NOW]
    win = S.ef[e, EF_EP + PM_WINDOW]
    rate = (ff[f, M_RATE] * win + S.pf[p, PF_BITS]) / (now - ff[f, M_FRONT] + win)
    ff[f, M_RATE] = rate
    ff[f, M_FRONT] = now
    target = ff[f, M_PROFILE]
    w = in_window(S)
    if rate > target and rand(S) < (rate - target) / rate:
        fi[f, FI_EDGE_OUT] += 1
        if w:
            fi[f, FI_EDGE_OUT_W] += 1
    else:
        S.pi[p, PI_MARK] |= MARK_IN_PROFILE
        fi[f, FI_EDGE_IN] += 1
        if w:
            fi[f, FI_EDGE_IN_W] += 1
    ch = S.ei[e, EI_TRACE0]
    if ch >= 0:
        record(S, ch + fi[f, FI_MEMBER], rate)
    return EDGE_PASS


#: The dispatch hooks this module carries out, by hook name (qosmodels/sim/contract.py):
#: ``qosmodels/sim/_gen_dispatch.py`` writes the dispatch branches from them.
HOOKS = {
    "edge_ingress": ingress,
}
