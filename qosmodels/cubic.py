"""CUBIC's response function: its average window against the loss rate, in closed form.

RFC 9438 (Xu, Ha, Rhee, Kumar, Eggert, Zimmermann 2023), Section 5 and
Appendix B, after Ha, Rhee and Xu 2008, Section 3.  Under the deterministic
loss model (one loss every ``1/p`` packets) CUBIC stays in the concave
profile, a loss period lasts ``K`` seconds and

``AVG_W_cubic = ((C (3 + beta)) / (4 (1 - beta)))^(1/4) (RTT / p)^(3/4)``   (RFC 9438, eq. 5)

segments, with ``K = (4 (1 - beta) RTT / (C (3 + beta) p))^(1/4)`` (Appendix B).
An AIMD(alpha, beta) flow averages (Floyd, Handley, Padhye 2000; RFC 9438,
eq. 3)

``AVG_AIMD(alpha, beta) = sqrt(alpha (1 + beta) / (2 (1 - beta) p))``,

and CUBIC's Reno-friendly estimate ``W_est`` is AIMD with ``alpha_cubic = 3 (1 -
beta) / (1 + beta)`` (Section 4.3), chosen so that it averages Reno's (AIMD(1,
0.5)) ``sqrt(3 / (2 p))`` whatever ``beta``.  CUBIC takes the larger of the two
windows on every ACK (Section 4.2), so its response function is their maximum
(:func:`response_window`); it is Reno-friendly (follows ``W_est``) where the
AIMD window is the larger: for round-trip times below :func:`reno_friendly_limit`,
``1.22 p^(1/3)`` s with the defaults.

RFC 9438's Tables 1 and 2 (Section 5.1) print this maximum for ``RTT`` = 0.1 s
and 0.01 s with Reno's window taken as RFC 3649's ``1.2 / sqrt(p)``, rounded to
whole segments; :func:`rfc9438_table_window` gives the printed numbers.

Windows are in segments (packets), times in seconds, ``p`` a probability.

References
----------
RFC 9438, "CUBIC for Fast and Long-Distance Networks", 2023, Sections 4.3, 5,
5.1 (Tables 1 and 2) and Appendix B.  S. Ha, I. Rhee, L. Xu, "CUBIC: a new
TCP-friendly high-speed TCP variant", ACM SIGOPS Operating Systems Review
42(5), 2008, Section 3.  S. Floyd, M. Handley, J. Padhye, "A comparison of
equation-based and AIMD congestion control", 2000.  RFC 3649 (HighSpeed TCP),
Section 5 (Reno's ``1.2 / sqrt(p)``).
"""

from __future__ import annotations

import math

from . import _validate as v
from .errors import ScenarioError

__all__ = ["C_CUBIC", "BETA_CUBIC", "alpha_cubic", "aimd_window", "reno_friendly_window",
           "cubic_window", "response_window", "loss_period", "reno_friendly_limit",
           "time_to_wmax", "rfc9438_table_window"]

#: RFC 9438's recommended ``C`` (Section 5.1: "C SHOULD be set to 0.4"), segments/s^3.
C_CUBIC = 0.4
#: RFC 9438's recommended multiplicative decrease factor (Section 4.6: 0.7).
BETA_CUBIC = 0.7


def _p(owner, p):
    p = v.real(owner, "p", p, gt=0)
    if p > 1:
        raise ScenarioError(f"{owner}.p must be a loss rate in (0, 1], got {p!r}")
    return p


def _beta(owner, beta):
    beta = v.real(owner, "beta", beta, gt=0)
    if beta >= 1:
        raise ScenarioError(f"{owner}.beta must be in (0, 1), got {beta!r}; "
                              "RFC 9438 recommends 0.7")
    return beta


def alpha_cubic(beta: float = BETA_CUBIC) -> float:
    """The additive increase of CUBIC's Reno-friendly estimate, segments per RTT.

    ``alpha_cubic = 3 (1 - beta) / (1 + beta)`` (RFC 9438, Section 4.3): 0.5294
    for ``beta = 0.7``.

    Examples
    --------
    >>> round(alpha_cubic(0.7), 4)
    0.5294
    >>> alpha_cubic(0.5)
    1.0
    """
    beta = _beta("alpha_cubic", beta)
    return 3.0 * (1.0 - beta) / (1.0 + beta)


def aimd_window(alpha: float, beta: float, p: float) -> float:
    """Average window of AIMD(alpha, beta) under loss rate ``p``, segments.

    ``sqrt(alpha (1 + beta) / (2 (1 - beta) p))`` (RFC 9438, eq. 3; ``beta`` is
    the factor the window is multiplied by at a loss).

    Examples
    --------
    >>> round(aimd_window(1.0, 0.5, 0.01), 3)   # Reno: sqrt(3 / (2 p))
    12.247
    """
    alpha = v.real("aimd_window", "alpha", alpha, gt=0, unit="segments per RTT")
    beta = _beta("aimd_window", beta)
    p = _p("aimd_window", p)
    return math.sqrt(alpha * (1.0 + beta) / (2.0 * (1.0 - beta) * p))


def reno_friendly_window(p: float, beta: float = BETA_CUBIC) -> float:
    """Average window of CUBIC's Reno-friendly estimate ``W_est``, segments.

    AIMD(``alpha_cubic``, ``beta``), eq. 3 with ``alpha_cubic`` of eq. 4's
    section: ``sqrt(3 / (2 p))`` for every ``beta``, Reno's own average (the
    point of ``alpha_cubic``).

    Examples
    --------
    >>> round(reno_friendly_window(1e-4), 2)
    122.47
    """
    return aimd_window(alpha_cubic(beta), beta, p)


def cubic_window(p: float, rtt: float, c: float = C_CUBIC, beta: float = BETA_CUBIC) -> float:
    """CUBIC's average window under deterministic loss, the cubic profile alone, segments.

    ``((C (3 + beta)) / (4 (1 - beta)))^(1/4) (rtt / p)^(3/4)`` (RFC 9438, eq. 5;
    ``1.054 (rtt / p)^(3/4)`` with the defaults, eq. 7).

    Parameters
    ----------
    p : float
        Loss rate, in (0, 1].
    rtt : float, s
        Round-trip time.
    c : float, segments/s^3
        CUBIC's ``C``.
    beta : float
        CUBIC's multiplicative decrease factor, in (0, 1).

    Examples
    --------
    >>> round(cubic_window(1e-4, 0.1), 1)
    187.4
    """
    p = _p("cubic_window", p)
    rtt = v.real("cubic_window", "rtt", rtt, gt=0, unit="s")
    c = v.real("cubic_window", "c", c, gt=0, unit="segments/s^3")
    beta = _beta("cubic_window", beta)
    return (c * (3.0 + beta) / (4.0 * (1.0 - beta))) ** 0.25 * (rtt / p) ** 0.75


def response_window(p: float, rtt: float, c: float = C_CUBIC, beta: float = BETA_CUBIC,
                    tcp_friendliness: bool = True) -> float:
    """CUBIC's average window against the loss rate: the larger of the cubic profile's
    (:func:`cubic_window`) and, with ``tcp_friendliness``, the Reno-friendly estimate's
    (:func:`reno_friendly_window`), segments (RFC 9438, Sections 4.2 and 5.1).

    Examples
    --------
    >>> round(response_window(1e-3, 0.1), 2)       # Reno-friendly: sqrt(3 / (2 p))
    38.73
    >>> round(response_window(1e-6, 0.1), 0)       # cubic: 1.054 (rtt / p)^(3/4)
    5926.0
    """
    w = cubic_window(p, rtt, c, beta)
    if tcp_friendliness:
        w = max(w, reno_friendly_window(p, beta))
    return w


def loss_period(p: float, rtt: float, c: float = C_CUBIC, beta: float = BETA_CUBIC) -> float:
    """Time between losses of the cubic profile under deterministic loss, s.

    ``K = (4 (1 - beta) rtt / (C (3 + beta) p))^(1/4)`` (RFC 9438, Appendix B):
    the window returns to ``W_max`` when the next loss comes.

    Examples
    --------
    >>> round(loss_period(1e-4, 0.1), 3)
    5.336
    """
    p = _p("loss_period", p)
    rtt = v.real("loss_period", "rtt", rtt, gt=0, unit="s")
    c = v.real("loss_period", "c", c, gt=0, unit="segments/s^3")
    beta = _beta("loss_period", beta)
    return (4.0 * (1.0 - beta) * rtt / (c * (3.0 + beta) * p)) ** 0.25


def reno_friendly_limit(p: float, c: float = C_CUBIC, beta: float = BETA_CUBIC) -> float:
    """The largest round-trip time at which CUBIC is Reno-friendly at loss rate ``p``, s.

    :func:`cubic_window` equals :func:`reno_friendly_window` where ``(rtt / p)^(3/4)
    ((C (3 + beta)) / (4 (1 - beta)))^(1/4) = sqrt(3 / (2 p))``, that is ``rtt = p^(1/3)
    (3 / 2)^(2/3) ((4 (1 - beta)) / (C (3 + beta)))^(1/3)``; below it the
    Reno-friendly estimate is the larger (``W_est`` sets the window), above it the
    cubic profile.

    Examples
    --------
    >>> round(reno_friendly_limit(1e-4), 4)     # 0.1 s is above: Table 1's 187 > 120
    0.0567
    """
    p = _p("reno_friendly_limit", p)
    c = v.real("reno_friendly_limit", "c", c, gt=0, unit="segments/s^3")
    beta = _beta("reno_friendly_limit", beta)
    return p ** (1.0 / 3.0) * 1.5 ** (2.0 / 3.0) * (4.0 * (1.0 - beta) / (c * (3.0 + beta))) ** (
        1.0 / 3.0)


def time_to_wmax(w_max: float, cwnd_epoch: float, c: float = C_CUBIC) -> float:
    """``K``, the time the cubic function takes from ``cwnd_epoch`` back to ``w_max``, s.

    ``K = cbrt((w_max - cwnd_epoch) / C)`` (RFC 9438, eq. 2); after a loss at
    ``W_max`` with ``cwnd_epoch = beta W_max``, ``K = cbrt(W_max (1 - beta) / C)``.

    Examples
    --------
    >>> round(time_to_wmax(100.0, 70.0), 4)
    4.2172
    """
    w_max = v.real("time_to_wmax", "w_max", w_max, ge=0, unit="segments")
    cwnd_epoch = v.real("time_to_wmax", "cwnd_epoch", cwnd_epoch, ge=0, unit="segments")
    c = v.real("time_to_wmax", "c", c, gt=0, unit="segments/s^3")
    d = w_max - cwnd_epoch
    return math.copysign((abs(d) / c) ** (1.0 / 3.0), d)


def rfc9438_table_window(p: float, rtt: float, c: float = C_CUBIC) -> int:
    """A CUBIC entry of RFC 9438's Table 1 or 2 (Section 5.1), segments.

    The tables print ``max(cubic_window(p, rtt, c), 1.2 / sqrt(p))`` rounded to
    whole segments: the cubic profile with ``beta = 0.7`` (eq. 6) or the
    Reno-friendly region, Reno's window being RFC 3649's ``1.2 / sqrt(p)``
    (the tables' Reno column; :func:`reno_friendly_window` is the unrounded
    ``sqrt(1.5 / p) = 1.2247 / sqrt(p)``).

    Examples
    --------
    >>> rfc9438_table_window(1e-5, 0.1)
    1054
    >>> rfc9438_table_window(1e-5, 0.01)
    379
    """
    p = _p("rfc9438_table_window", p)
    return int(round(max(cubic_window(p, rtt, c, BETA_CUBIC), 1.2 / math.sqrt(p))))
