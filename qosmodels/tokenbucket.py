"""Token buckets for aggregated TCP connections, and the window increase that makes them fair.

The analytic side of the aggregate-rate-control paper (Sections 3-5):

* the traffic specification ``(b, r, p, L_m)`` (:class:`TokenBucket`): its
  arrival curve ``min(p t + L_m, r t + b)``, its largest burst at peak rate,
  conformance of a packet trace, and the exact, event-driven output of a greedy
  shaper applied to a trace (:meth:`TokenBucket.shape`);
* splitting an aggregate's bucket among ``n`` connections (:func:`partition`):
  rates ``r_m / n``, equal or RTT-proportional depths, the rate window
  ``r_i rtt_i`` and the depth conditions ``b_i >= r_i rtt_i`` and ``b >=
  r_m rtt_av``; the logical partitions' sharing of overflowing tokens
  (:func:`logical_fill`);
* the congestion-window increase ``f(rtt_i)`` per RTT: the sawtooth throughput
  (:func:`sawtooth_throughput`), the SymPy derivation (:func:`derive`) of
  ``f ~ rtt^2`` for RTT fairness and ``f(rtt_i) = rtt_i^2 / rtt_av^2`` for
  aggregate fairness (:func:`window_increase`), and the constant-rate and
  increase-by-K alternatives.

Units: rates in bit/s, sizes and depths in bytes, times in seconds.  The
window-increase functions count windows in packets (segments), as TCP does.

References
----------
A. Mehra, R. Tewari, D. Kandlur (IBM T. J. Watson), "Design considerations for
rate control of aggregated TCP connections" (the aggregate-rate-control
paper), Sections 3.2-3.3 (token-bucket specification, rate window), 4.2
(partitioned, common and logical token buckets) and 5 (window increase,
aggregate fairness).

Notes
-----
The extracted text of Section 5 is garbled; what it states clearly is the
sawtooth argument (window halves on a loss and grows linearly until the
next), the conclusion that ``f(rtt_i)`` must be proportional to ``rtt_i^2``
for fairness (following Floyd's Constant-Rate scheme), the definition of an
aggregate-fair set (total throughput no more than that of ``n`` TCP
connections with the aggregate's average RTT) and the result ``f(rtt_i) =
rtt_i^2 / rtt_av^2`` with ``rtt_av = (1/n) sum_i rtt_i``, the arithmetic
mean.  Two readings of "loss rate ``p``" give the sawtooth throughput: a
per-packet loss probability (``sqrt(3 f / (2 p)) / rtt``, the default
here) or a loss rate per unit time, which is how the paper's fragments
read (``3 f / (2 p rtt^2)``); both lead to the same ``f``.
"""

from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _validate as v
from . import budget
from ._arrays import real_array
from ._repr import ShortRepr
from .errors import ScenarioError, ScenarioTypeError

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import sympy

__all__ = [
    "TokenBucket",
    "Burst",
    "ShapedTrace",
    "Partition",
    "partition",
    "logical_fill",
    "window_increase",
    "constant_rate_increase",
    "increase_by_k",
    "sawtooth_throughput",
    "simulate_sawtooth",
    "derive",
    "WindowDerivation",
    "PAPER_RTTS",
]

#: The round-trip times of the paper's Figure 1(b) topology, s (Section 4.1).
PAPER_RTTS = (0.050, 0.300, 0.300, 0.600)

_BITS = 8.0


# --------------------------------------------------------------------------- validation
def _vector(fn: str, name: str, value, *, gt=None, ge=None, unit="", allow_empty=False):
    a = real_array(fn, name, value, what="a sequence of real numbers")
    if a.ndim != 1 or (a.size == 0 and not allow_empty):
        raise ScenarioError(f"{fn}: {name} must be a non-empty 1-d sequence, got shape {a.shape}")
    u = f" {unit}" if unit else ""
    if not np.all(np.isfinite(a)):
        raise ScenarioError(f"{fn}: {name} must be finite{u}, got {a!r}")
    if gt is not None and np.any(a <= gt):
        raise ScenarioError(f"{fn}: {name} must be > {gt:g}{u}, got {float(a[a <= gt][0])!r}")
    if ge is not None and np.any(a < ge):
        raise ScenarioError(f"{fn}: {name} must be >= {ge:g}{u}, got {float(a[a < ge][0])!r}")
    return a


def _finite(fn, x, why):
    if not np.all(np.isfinite(x)):
        raise ScenarioError(f"{fn}: the result is not a finite float for these inputs: {why}")
    return x


# --------------------------------------------------------------------------- the bucket
@dataclass(frozen=True)
class Burst:
    """The largest burst a token bucket lets through at its peak rate.

    Attributes
    ----------
    size : float, bytes
        ``(p b - r L_m) / (p - r)``: the bytes sent at peak rate from a full
        bucket before the average-rate bucket runs dry (``b`` when ``p`` is
        infinite; infinite when ``p == r``).
    duration : float, s
        How long the burst lasts: ``8 (b - L_m) / (p - r)`` (0 for infinite
        ``p``).
    """

    size: float
    duration: float


@dataclass(frozen=True)
class TokenBucket:
    """A token-bucket traffic specification ``(b, r, p, L_m)``.

    A packet of ``L`` bytes conforms when both the average-rate bucket (depth
    ``b``, filled at ``r``) and the peak-rate bucket (depth ``L_m``, filled at
    ``p``) hold at least ``L`` tokens; both start full.  A conforming trace
    has, over every interval of length ``t`` (closed, so ``t = 0`` counts
    packets sent at the same instant), at most ``min(p t + L_m, r t + b)``
    bytes.

    Parameters
    ----------
    depth : float, bytes
        ``b``, the bucket depth (burst size), >= ``max_packet``.
    rate : float, bit/s
        ``r``, the token fill rate, > 0.
    peak_rate : float, bit/s
        ``p``, >= ``rate``; ``math.inf`` (default) for no peak-rate limit.
    max_packet : float, bytes
        ``L_m``, the largest packet, > 0 (default 1500).

    References
    ----------
    Aggregate-rate-control paper, Section 3.2 (``<b_i, r_i, p, L_m>``; the
    minimum spacing of packets at peak rate) and Section 4 (the aggregate's
    ``<b, r_m, p, L_m>``).

    Examples
    --------
    >>> tb = TokenBucket(depth=10_000, rate=800_000, peak_rate=1_600_000, max_packet=1000)
    >>> float(tb.arrival_curve(0.05))   # min(1.6e6*0.05/8 + 1000, 8e5*0.05/8 + 1e4)
    11000.0
    >>> tb.max_burst.size, tb.max_burst.duration
    (19000.0, 0.09)
    """

    depth: float
    rate: float
    peak_rate: float = math.inf
    max_packet: float = 1500.0

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "rate", v.real("TokenBucket", "rate", self.rate, gt=0, unit="bit/s"))
        set_(self, "max_packet", v.real("TokenBucket", "max_packet", self.max_packet, gt=0,
                                        unit="bytes"))
        set_(self, "depth", v.real("TokenBucket", "depth", self.depth, gt=0, unit="bytes"))
        if self.depth < self.max_packet:
            raise ScenarioError(
                f"TokenBucket.depth must be >= max_packet ({self.max_packet:g} bytes) or the "
                f"largest packet never conforms, got {self.depth!r}")
        p = self.peak_rate
        if isinstance(p, (int, float)) and not isinstance(p, bool) and p == math.inf:
            set_(self, "peak_rate", math.inf)
        else:
            p = v.real("TokenBucket", "peak_rate", p, gt=0, unit="bit/s")
            if p < self.rate:
                raise ScenarioError(
                    f"TokenBucket.peak_rate must be >= rate ({self.rate:g} bit/s), got {p!r}")
            set_(self, "peak_rate", p)

    def arrival_curve(self, t):
        """``min(p t / 8 + L_m, r t / 8 + b)`` bytes, for interval lengths ``t >= 0`` (s).

        Returns a float for a scalar ``t``, else an array.

        Raises
        ------
        ScenarioTypeError
            If ``t`` is not a number or an array of numbers.
        ScenarioError
            If ``t`` is not finite and >= 0, or the curve overflows (``rate *
            t`` beyond about 1e308 bits).
        """
        fn = "TokenBucket.arrival_curve"
        ta = real_array(fn, "t", t)
        if np.any(~np.isfinite(ta)) or np.any(ta < 0):
            raise ScenarioError(f"TokenBucket.arrival_curve: t must be finite and >= 0 s, got {t!r}")
        out = self._curve(ta)
        _finite(fn, out, "rate * t / 8 overflows; give t in a range where rate * t stays below "
                         "about 1e308 bits")
        return float(out) if ta.ndim == 0 else out

    def _curve(self, ta):
        with np.errstate(all="ignore"):
            avg = self.rate * ta / _BITS + self.depth
            if math.isinf(self.peak_rate):
                return avg
            return np.minimum(self.peak_rate * ta / _BITS + self.max_packet, avg)

    @property
    def max_burst(self) -> Burst:
        """The largest burst at peak rate from a full bucket (see :class:`Burst`).

        Raises
        ------
        ScenarioError
            If the burst is finite but beyond the floats (``peak_rate - rate``
            tiny against ``rate`` and ``depth``): say ``peak_rate == rate`` for
            an unbounded burst.
        """
        b, lm, r, p = self.depth, self.max_packet, self.rate, self.peak_rate
        if math.isinf(p):
            return Burst(size=b, duration=0.0)
        if p == r:
            return Burst(size=math.inf, duration=math.inf)
        dur = _BITS * (b - lm) / (p - r)
        size = (p * b - r * lm) / (p - r)
        if not math.isfinite(size):  # p * b overflowed: the same size without the product
            size = b + r * ((b - lm) / (p - r))
        if not (math.isfinite(size) and math.isfinite(dur)):
            raise ScenarioError(
                f"TokenBucket.max_burst: the burst (size {size!r} bytes, duration {dur!r} s) "
                f"overflows: peak_rate - rate = {p - r!r} bit/s is too small against rate "
                f"{r!r} and depth {b!r}; set peak_rate = rate for an unbounded burst")
        return Burst(size=size, duration=dur)

    # -- traces
    def _trace(self, fn, times, sizes):
        t = _vector(fn, "times", times, unit="s")
        s = _vector(fn, "sizes", sizes, gt=0, unit="bytes")
        if t.shape != s.shape:
            raise ScenarioError(f"{fn}: sizes must have the shape of times {t.shape}, got {s.shape}")
        if np.any(np.diff(t) < 0):
            raise ScenarioError(f"{fn}: times must be non-decreasing (packets in arrival order)")
        if np.any(s > self.max_packet):
            raise ScenarioError(
                f"{fn}: sizes must be <= max_packet = {self.max_packet:g} bytes, got "
                f"{float(s.max())!r}")
        return t, s

    def conforms(self, times, sizes, *, rtol: float = 1e-9) -> bool:
        """Whether a trace fits the arrival curve over every interval between two packets.

        Checks ``sum(sizes[i..j]) <= arrival_curve(times[j] - times[i])`` for
        all ``i <= j`` (O(n^2) time, in blocks), with a relative slack
        ``rtol`` for rounding.

        Parameters
        ----------
        times : array_like, shape (n,), s
            Non-decreasing packet times.
        sizes : array_like, shape (n,), bytes
            Packet sizes, each in (0, max_packet].
        rtol : float
            Relative slack, >= 0.

        Raises
        ------
        ScenarioTypeError, ScenarioError
            For a bad trace (as :meth:`shape`) or ``rtol``; BudgetError if the
            512 x n blocks would exceed the memory budget.
        """
        fn = "TokenBucket.conforms"
        rtol = v.real(fn, "rtol", rtol, ge=0)
        t, s = self._trace(fn, times, sizes)
        # per block of 512 rows: the index grids, the mask, the sums, the intervals, the
        # curve (and its two terms) and the violations, each 512 x n
        budget.check_memory(fn, 10 * 8.0 * min(512, t.size) * t.size,
                            parameter=f"a trace of {t.size} packets (512 x n blocks)",
                            fix="check a shorter trace, or pieces of it")
        return _max_violation(self, t, s) <= rtol * max(self.depth, 1.0)

    def shape(self, times, sizes) -> ShapedTrace:
        """The output of a greedy shaper with this specification, computed event by event.

        Packets leave in arrival order, each at the earliest instant at or
        after its arrival and its predecessor's departure when both buckets
        hold its size in tokens (the buckets start full, tokens accrue
        continuously and are capped at the depths).  Packets leave
        instantaneously (the link behind the shaper is not modelled).

        Parameters
        ----------
        times : array_like, shape (n,), s
            Non-decreasing arrival times.
        sizes : array_like, shape (n,), bytes
            Packet sizes, each in (0, max_packet].

        Returns
        -------
        ShapedTrace

        Raises
        ------
        ScenarioTypeError
            If ``times`` or ``sizes`` is not made of real numbers.
        ScenarioError
            For a trace that is not finite, not in order, of unequal lengths,
            with sizes outside (0, max_packet], or whose departures overflow.

        References
        ----------
        Aggregate-rate-control paper, Section 3.3 ("transmission of a
        non-compliant packet is delayed until it becomes compliant").
        """
        fn = "TokenBucket.shape"
        t, s = self._trace(fn, times, sizes)
        with np.errstate(all="ignore"):
            d = _shape(t, s, self.depth, self.rate / _BITS, self.max_packet,
                       self.peak_rate / _BITS)
        _finite(fn, d, "a departure time overflows (times plus the waits 8 * sizes / rate); "
                       "give the rate in a larger unit or the times in a smaller range")
        return ShapedTrace(bucket=self, arrivals=t, departures=d, sizes=s)


def _shape(t, s, b, r, lm, p):
    """Event-driven greedy shaper; rates in bytes/s.  Returns departure times."""
    n = t.size
    d = np.empty(n)
    tok, ptok = b, lm
    last = -math.inf  # time of the last token update (buckets full before)
    prev = -math.inf
    peak = not math.isinf(p)
    for j in range(n):
        L = s[j]
        ready = t[j] if t[j] > prev else prev
        if last == -math.inf:
            tok_r, ptok_r = b, lm
        else:
            el = ready - last
            tok_r = min(b, tok + r * el)
            ptok_r = min(lm, ptok + p * el) if peak else lm
        t1 = ready if tok_r >= L else ready + (L - tok_r) / r
        t2 = ready if (not peak or ptok_r >= L) else ready + (L - ptok_r) / p
        dj = t1 if t1 > t2 else t2
        # tokens at dj, then spend L; the bucket that set dj holds exactly L
        tok = L if dj == t1 and t1 > ready else min(b, tok_r + r * (dj - ready))
        tok = max(tok - L, 0.0)
        if peak:
            ptok = L if dj == t2 and t2 > ready else min(lm, ptok_r + p * (dj - ready))
            ptok = max(ptok - L, 0.0)
        last = dj
        prev = dj
        d[j] = dj
    return d


def _max_violation(tb: TokenBucket, t: np.ndarray, s: np.ndarray, block: int = 512) -> float:
    """``max_{i<=j} sum(s[i..j]) - arrival_curve(t[j] - t[i])`` (bytes)."""
    n = t.size
    cum = np.concatenate([[0.0], np.cumsum(s)])
    worst = -math.inf
    for i0 in range(0, n, block):
        i = np.arange(i0, min(n, i0 + block))[:, None]
        j = np.arange(i0, n)[None, :]
        mask = j >= i
        S = cum[j + 1] - cum[i]
        dt = np.maximum(t[j] - t[i], 0.0)
        with np.errstate(all="ignore"):  # an overflowing curve allows everything: -inf
            viol = np.where(mask, S - tb._curve(dt), -math.inf)
        worst = max(worst, float(viol.max()))
    return worst


@dataclass(frozen=True, repr=False)
class ShapedTrace(ShortRepr):
    """A packet trace before and after a greedy token-bucket shaper.

    Attributes
    ----------
    bucket : TokenBucket
    arrivals, departures : ndarray, shape (n,), s
    sizes : ndarray, shape (n,), bytes
    """

    bucket: TokenBucket
    arrivals: np.ndarray
    departures: np.ndarray
    sizes: np.ndarray

    @property
    def delays(self) -> np.ndarray:
        """Shaping delay of each packet, s."""
        return self.departures - self.arrivals

    @property
    def max_delay(self) -> float:
        return float(self.delays.max()) if self.delays.size else 0.0

    def conforms(self, rtol: float = 1e-9) -> bool:
        """Whether the output conforms to the bucket (it always should)."""
        return self.bucket.conforms(self.departures, self.sizes, rtol=rtol)

    def to_pandas(self) -> pandas.DataFrame:
        import pandas as pd

        return pd.DataFrame({"arrival_s": self.arrivals, "departure_s": self.departures,
                             "size_bytes": self.sizes, "delay_s": self.delays})

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Cumulative bytes in and out, with the arrival curve from the first departure.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; a new figure if omitted.
        **kwargs
            Passed to the ``step`` calls of the input and output.

        Returns
        -------
        matplotlib.axes.Axes
        """
        from ._plot import drawn, panels

        ax = panels(ax, 1, figsize=(6, 3.5))[0]
        cum = np.cumsum(self.sizes)
        ax.step(self.arrivals, cum, where="post", label="input", **kwargs)
        ax.step(self.departures, cum, where="post", label="shaped output", **kwargs)
        if self.departures.size:
            tt = np.linspace(0, self.departures[-1] - self.departures[0], 200)
            ax.plot(self.departures[0] + tt, self.bucket.arrival_curve(tt), "k--",
                    label="arrival curve")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cumulative bytes")
        ax.legend()
        return drawn([ax])


# --------------------------------------------------------------------------- partitions
@dataclass(frozen=True, repr=False)
class Partition(ShortRepr):
    """An aggregate token bucket split among ``n`` connections.

    Attributes
    ----------
    bucket : TokenBucket
        The aggregate's ``<b, r_m, p, L_m>``.
    rtts : ndarray, shape (n,), s
    rule : str
        ``"equal"`` or ``"rtt"`` (depths proportional to the RTTs).
    rates : ndarray, shape (n,), bit/s
        ``r_i = r_m / n``.
    depths : ndarray, shape (n,), bytes
        ``b / n`` or ``b rtt_i / sum(rtt)``.
    rate_windows : ndarray, shape (n,), bytes
        ``r_i rtt_i / 8``: the window that sends at ``r_i``.
    rtt_av : float, s
        Arithmetic mean RTT.
    """

    bucket: TokenBucket
    rtts: np.ndarray
    rule: str
    rates: np.ndarray
    depths: np.ndarray
    rate_windows: np.ndarray
    rtt_av: float

    @property
    def no_token_loss(self) -> np.ndarray:
        """Per connection, ``b_i >= r_i rtt_i``: no tokens lost while waiting for ACKs."""
        return self.depths >= self.rate_windows * (1 - 1e-12)

    @property
    def aggregate_depth_needed(self) -> float:
        """``r_m rtt_av / 8`` bytes, the aggregate depth below which tokens are lost."""
        return self.bucket.rate * self.rtt_av / _BITS

    @property
    def aggregate_ok(self) -> bool:
        """``b >= r_m rtt_av``."""
        return bool(self.bucket.depth >= self.aggregate_depth_needed * (1 - 1e-12))

    def to_pandas(self) -> pandas.DataFrame:
        import pandas as pd

        return pd.DataFrame({"rtt_s": self.rtts, "rate_bps": self.rates,
                             "depth_bytes": self.depths, "rate_window_bytes": self.rate_windows,
                             "no_token_loss": self.no_token_loss})


def partition(bucket: TokenBucket, rtts, rule: str = "rtt") -> Partition:
    """Split an aggregate's token bucket among its connections.

    Every connection gets the rate ``r_i = r_m / n``; the depths are ``b / n``
    (``rule="equal"``) or ``b rtt_i / sum(rtt)`` (``rule="rtt"``).  With
    RTT-proportional depths, ``b_i >= r_i rtt_i`` holds for every connection
    exactly when ``b >= r_m rtt_av``.

    Parameters
    ----------
    bucket : TokenBucket
        The aggregate's specification.
    rtts : array_like, shape (n,), s
        Round-trip times of the connections, > 0.
    rule : {"rtt", "equal"}

    Returns
    -------
    Partition

    Raises
    ------
    ScenarioTypeError
        If ``bucket`` is not a TokenBucket, ``rtts`` not real numbers or
        ``rule`` not a string.
    ScenarioError
        For RTTs that are not finite and > 0, an unknown rule, or RTTs so
        large that their sum or ``rate * rtt`` overflows.

    References
    ----------
    Aggregate-rate-control paper, Section 4.2.1 (equal and proportionate
    depths, ``b_i >= r_i rtt_i``, ``b >= r_m rtt_av``) and 4.2.3 (logical
    partitions with ``b_i`` weighted by the RTT).

    Examples
    --------
    >>> tb = TokenBucket(depth=32_000, rate=800_000)   # r_m rtt_av / 8 = 31250 bytes
    >>> p = partition(tb, PAPER_RTTS)
    >>> float(p.rates[0]), p.depths.tolist(), p.rate_windows.tolist()
    (200000.0, [1280.0, 7680.0, 7680.0, 15360.0], [1250.0, 7500.0, 7500.0, 15000.0])
    >>> p.aggregate_ok, bool(p.no_token_loss.all())
    (True, True)
    """
    if not isinstance(bucket, TokenBucket):
        raise ScenarioTypeError(f"partition: bucket must be a TokenBucket, got {bucket!r}")
    rt = _vector("partition", "rtts", rtts, gt=0, unit="s")
    n = rt.size
    if not isinstance(rule, str):
        raise ScenarioTypeError(f"partition.rule must be 'equal' or 'rtt', got {rule!r}")
    with np.errstate(over="ignore"):
        total, window = float(rt.sum()), bucket.rate * float(rt.max())
    if not (math.isfinite(total) and math.isfinite(window)):
        raise ScenarioError(
            f"partition: the RTTs are too large (sum {total!r} s, rate * largest RTT {window!r} "
            f"bits) for floats; give them in a sensible range")
    if rule == "equal":
        depths = np.full(n, bucket.depth / n)
    elif rule == "rtt":
        depths = bucket.depth * rt / rt.sum()
    else:
        raise ScenarioError(f"partition: rule must be 'equal' or 'rtt', got {rule!r}")
    rates = np.full(n, bucket.rate / n)
    return Partition(bucket=bucket, rtts=rt, rule=rule, rates=rates, depths=depths,
                     rate_windows=rates * rt / _BITS, rtt_av=float(rt.mean()))


def logical_fill(levels, depths, tokens: float) -> np.ndarray:
    """Add tokens to logical buckets: equal shares, overflow of full buckets shared by the rest.

    The water-filling solution ``min(depth_i, level_i + lam)`` with ``lam``
    such that the tokens added are ``min(tokens, sum(depth - level))``: the
    total never exceeds the aggregate depth, and tokens beyond it are lost.

    Parameters
    ----------
    levels : array_like, shape (n,), bytes
        Current tokens of each logical bucket, in ``[0, depth_i]``.
    depths : array_like, shape (n,), bytes
        Their depths, > 0.
    tokens : float, bytes
        Tokens to add (``r_m dt / 8`` for an interval ``dt``), >= 0.

    Returns
    -------
    ndarray, shape (n,), bytes

    Raises
    ------
    ScenarioTypeError
        If an argument is not made of real numbers.
    ScenarioError
        For values that are not finite, levels outside [0, depth], depths
        <= 0, tokens < 0 or unequal shapes.

    References
    ----------
    Aggregate-rate-control paper, Section 4.2.3 and Figure 9 ("when a
    connection's logical token bucket is full, the extra tokens are shared
    equally among the remaining non-full token buckets").
    """
    fn = "logical_fill"
    lv = _vector(fn, "levels", levels, ge=0, unit="bytes")
    dp = _vector(fn, "depths", depths, gt=0, unit="bytes")
    if lv.shape != dp.shape:
        raise ScenarioError(f"{fn}: depths must have the shape of levels {lv.shape}, got {dp.shape}")
    if np.any(lv > dp * (1 + 1e-12)):
        raise ScenarioError(f"{fn}: levels must be <= depths")
    tok = v.real(fn, "tokens", tokens, ge=0, unit="bytes")
    room = np.maximum(dp - lv, 0.0)
    with np.errstate(over="ignore"):
        total = float(room.sum())
    if tok >= total:
        return dp.copy()
    # find lam with sum(min(room, lam)) = tok over the sorted rooms
    r = np.sort(room)
    n = r.size
    used = 0.0
    lam = 0.0
    for k in range(n):
        # raising lam from r[k-1] to r[k] adds (n - k) * (r[k] - prev)
        prev = r[k - 1] if k else 0.0
        step = (n - k) * (r[k] - prev)  # may overflow to inf: then tok is reached here
        if used + step >= tok:
            lam = prev + (tok - used) / (n - k)
            break
        used += step
    return lv + np.minimum(room, lam)


# --------------------------------------------------------------------------- window increase
def _rtts(fn, rtts):
    return _vector(fn, "rtts", rtts, gt=0, unit="s")


def window_increase(rtts):
    """Aggregate-fair congestion-window increase per RTT, ``f(rtt_i) = rtt_i^2 / rtt_av^2``.

    With ``rtt_av`` the arithmetic mean of the aggregate's RTTs, each
    connection's congestion-avoidance throughput becomes independent of its
    RTT and the aggregate as a whole is no more aggressive than ``n``
    standard TCP connections with RTT ``rtt_av`` (:func:`derive`).

    Parameters
    ----------
    rtts : array_like, shape (n,), s
        Round-trip times of the connections in the aggregate, > 0.

    Returns
    -------
    ndarray, shape (n,), packets per RTT
        Less than 1 for connections shorter than the mean, greater for longer.

    References
    ----------
    Aggregate-rate-control paper, Section 5 ("aggregate fair";
    ``f(rtt_i) = rtt_i^2 / rtt_av^2``).

    Examples
    --------
    >>> window_increase(PAPER_RTTS).round(4).tolist()
    [0.0256, 0.9216, 0.9216, 3.6864]
    """
    rt = _rtts("window_increase", rtts)
    with np.errstate(all="ignore"):
        f = rt**2 / rt.mean() ** 2
    if not np.all(np.isfinite(f)):  # squares or mean beyond the floats: scale by the largest
        q = rt / rt.max()
        f = (q / q.mean()) ** 2
    return f


def constant_rate_increase(rtts, a: float):
    """Floyd's Constant-Rate increase ``f(rtt_i) = a rtt_i^2`` packets per RTT.

    The throughput of every connection then grows at the same rate ``a``
    (packets/s per second) whatever its RTT; :func:`window_increase` is this
    scheme with ``a = 1 / rtt_av^2``.

    Parameters
    ----------
    rtts : array_like, s
        Round-trip times, > 0.
    a : float, packets/s^2
        Rate of increase of the throughput, > 0 (the paper notes that no
        criterion for choosing it is given in [6]).

    Raises
    ------
    ScenarioTypeError
        If an argument is not made of real numbers.
    ScenarioError
        For RTTs or ``a`` not finite and > 0, or ``a * rtt^2`` overflowing.

    References
    ----------
    Aggregate-rate-control paper, Section 5, citing S. Floyd, "Connections
    with multiple congested gateways in packet-switched networks, part 1",
    CCR 21(5), 1991.
    """
    rt = _rtts("constant_rate_increase", rtts)
    aa = v.real("constant_rate_increase", "a", a, gt=0, unit="packets/s^2")
    with np.errstate(all="ignore"):
        f = aa * rt**2
    return _finite("constant_rate_increase", f, "a * rtt^2 overflows; keep it below 1e308")


def increase_by_k(rtts, k: float, rtt_threshold: float | None = None):
    """Increase-by-K: ``f = K`` per RTT for long-RTT connections, 1 (standard TCP) otherwise.

    Parameters
    ----------
    rtts : array_like, s
        Round-trip times, > 0.
    k : float, packets per RTT
        The increase of long-RTT connections, >= 1.
    rtt_threshold : float, optional, s
        Connections with ``rtt > rtt_threshold`` are "long"; default: the mean
        RTT of ``rtts``.  (The paper describes the scheme in one sentence and
        does not say where "long" starts; this threshold is our parameter.)

    Returns
    -------
    ndarray, packets per RTT

    References
    ----------
    Aggregate-rate-control paper, Section 5, citing T. Henderson et al., "On
    improving the fairness of TCP congestion avoidance", GLOBECOM 1998.
    """
    rt = _rtts("increase_by_k", rtts)
    kk = v.real("increase_by_k", "k", k, ge=1, unit="packets per RTT")
    thr = float(rt.mean()) if rtt_threshold is None else v.real(
        "increase_by_k", "rtt_threshold", rtt_threshold, ge=0, unit="s")
    return np.where(rt > thr, kk, 1.0)


def sawtooth_throughput(loss, rtt, increase=1.0, loss_model: str = "packet"):
    """Throughput of the deterministic AIMD sawtooth with increase ``f`` per RTT.

    The window halves at each loss and grows by ``f`` packets per RTT until
    the next one.  Per cycle it goes from ``W/2`` to ``W`` in ``W / (2 f)``
    RTTs; the mean window is ``3 W / 4``.

    * ``loss_model="packet"``: ``p`` is the fraction of packets lost (one
      loss every ``1/p`` packets): ``x = sqrt(3 f / (2 p)) / rtt``.
    * ``loss_model="time"``: ``p`` is losses per second (one loss every
      ``1/p`` s): ``x = 3 f / (2 p rtt^2)``.

    Parameters
    ----------
    loss : float or array_like
        ``p``: a probability in (0, 1] for ``"packet"``, a rate > 0 (1/s)
        for ``"time"``.
    rtt : float or array_like, s
        Round-trip time, > 0.
    increase : float or array_like, packets per RTT
        ``f(rtt)``, > 0 (1 for standard TCP).
    loss_model : {"packet", "time"}

    Returns
    -------
    float or ndarray, packets/s

    Raises
    ------
    ScenarioTypeError
        If an argument is not made of real numbers.
    ScenarioError
        For values out of range or not finite, an unknown ``loss_model``, or
        a throughput that overflows (an RTT too small for the floats).

    References
    ----------
    Aggregate-rate-control paper, Section 5 (the derivation "similar to [6]
    for Constant Rate window increase").

    Examples
    --------
    >>> round(sawtooth_throughput(0.01, 0.1), 3)     # sqrt(150) / 0.1
    122.474
    """
    fn = "sawtooth_throughput"
    if not isinstance(loss_model, str) or loss_model not in ("packet", "time"):
        raise ScenarioError(f"{fn}: loss_model must be 'packet' or 'time', got {loss_model!r}")
    p = real_array(fn, "loss", loss)
    if loss_model == "packet":
        if np.any(~np.isfinite(p)) or np.any(p <= 0) or np.any(p > 1):
            raise ScenarioError(f"{fn}: loss must be in (0, 1] (a loss ratio) for "
                                f"loss_model='packet', got {loss!r}")
    elif np.any(~np.isfinite(p)) or np.any(p <= 0):
        raise ScenarioError(f"{fn}: loss must be > 0 (losses per second) for "
                            f"loss_model='time', got {loss!r}")
    tau = real_array(fn, "rtt", rtt)
    if np.any(~np.isfinite(tau)) or np.any(tau <= 0):
        raise ScenarioError(f"{fn}: rtt must be > 0 s, got {rtt!r}")
    f = real_array(fn, "increase", increase)
    if np.any(~np.isfinite(f)) or np.any(f <= 0):
        raise ScenarioError(f"{fn}: increase must be > 0 packets per RTT, got {increase!r}")
    with np.errstate(all="ignore"):
        if loss_model == "packet":
            x = np.sqrt(1.5 * f / p) / tau
        else:
            x = 1.5 * f / (p * tau**2)
    _finite(fn, x, "the throughput overflows (sqrt(3 f / (2 p)) / rtt or 3 f / (2 p rtt^2) "
                   "beyond 1e308 packets/s): the rtt is too small or the increase too large")
    scalar = all(np.ndim(i) == 0 for i in (loss, rtt, increase))
    return float(x) if scalar else x


def simulate_sawtooth(loss: float, rtt: float, increase: float = 1.0, loss_model: str = "packet",
                      cycles: int = 40, skip: int = 5) -> float:
    """Throughput of the deterministic sawtooth, simulated RTT by RTT (a check on the formula).

    Each RTT the source sends its window ``w``; it adds ``increase`` per RTT
    and halves ``w`` at each loss, one every ``1/loss`` packets
    (``"packet"``) or seconds (``"time"``).  The throughput is measured over
    ``cycles - skip`` loss cycles after ``skip`` warm-up cycles.  It tends to
    :func:`sawtooth_throughput` as the window at loss grows (the discrete
    sum differs from the integral by about one RTT per cycle).

    Parameters
    ----------
    loss : float
        Loss probability in (0, 1] (``"packet"``) or losses per second > 0 (``"time"``).
    rtt : float, s
        Round-trip time, > 0.
    increase : float, packets per RTT
        Window increase per RTT, > 0.
    loss_model : {"packet", "time"}
    cycles, skip : int
        Loss cycles simulated and discarded (``cycles > skip >= 1``).

    Returns
    -------
    float, packets/s

    Raises
    ------
    ScenarioTypeError
        If an argument is not a real number (or an integer for ``cycles``,
        ``skip``).
    ScenarioError
        For values out of range (as :func:`sawtooth_throughput`, ``cycles >
        skip >= 1``), or (BudgetError) a run of more than 1e8 RTTs (a loss
        ratio or rate so small that a cycle lasts longer), or a throughput
        that overflows.
    """
    fn = "simulate_sawtooth"
    loss = v.real(fn, "loss", loss, gt=0)
    rtt = v.real(fn, "rtt", rtt, gt=0, unit="s")
    increase = v.real(fn, "increase", increase, gt=0, unit="packets per RTT")
    sawtooth_throughput(loss, rtt, increase, loss_model)  # validates the ranges
    if isinstance(cycles, numbers.Integral) and cycles > 2**53:
        raise ScenarioError(f"{fn}.cycles must be <= 2**53, got a larger integer")
    cycles = v.integer(fn, "cycles", cycles, ge=2)
    skip = v.integer(fn, "skip", skip, ge=1)
    if skip >= cycles:
        raise ScenarioError(f"{fn}: skip must be < cycles ({cycles}), got {skip}")
    # RTTs per loss cycle: W / (2 f) with 3 W^2 / (8 f) = 1 / p packets ("packet"), or the
    # 1 / p seconds between losses over the RTT ("time"); plus the climb from w = 1
    per_cycle = (math.sqrt(2.0 / (3.0 * loss * increase)) if loss_model == "packet"
                 else 1.0 / (loss * rtt))
    budget.check_work(fn, cycles * (per_cycle + 1.0) * 1.5, _SAWTOOTH_MAX_RTTS, what="RTTs",
                      parameter=f"cycles={cycles} of about {per_cycle:.3g} RTTs (loss={loss!r}, "
                      f"increase={increase!r})", fix="use fewer cycles or a larger loss")
    w, since, sent, clock, losses = 1.0, 0.0, 0.0, 0.0, 0
    period = 1.0 / float(loss)
    sent0 = clock0 = 0.0
    while losses < cycles:
        since += w if loss_model == "packet" else rtt
        sent += w
        clock += rtt
        if since >= period:
            since -= period
            losses += 1
            w /= 2.0
            if losses == skip:
                sent0, clock0 = sent, clock
        else:
            w += increase
    x = (sent - sent0) / (clock - clock0)
    return _finite(fn, x, "the packets sent or the time elapsed overflow (rtt or increase "
                          "near the float limit)")


#: RTTs simulate_sawtooth may step through (its Python loop does about 5e6 per second).
_SAWTOOTH_MAX_RTTS = 1e8


@dataclass(frozen=True)
class WindowDerivation:
    """The Section 5 derivation in SymPy.

    Attributes
    ----------
    symbols : dict of str to sympy.Symbol
        ``W`` (window at loss), ``f``, ``p``, ``rtt``, ``rtt_i``, ``rtt_av``,
        ``K``, ``n`` (all positive).
    window : sympy.Expr
        ``W`` solved from "packets per cycle = 1/p" (per-packet losses).
    throughput : sympy.Expr
        ``x(f, p, rtt) = sqrt(3 f / (2 p)) / rtt``.
    throughput_over_sqrt_f_per_rtt : sympy.Expr
        ``x / (sqrt(f) / rtt)``: free of ``f`` and ``rtt``, proving
        ``x ~ sqrt(f) / rtt``.
    rtt_fair_increase : sympy.Expr
        ``f_i`` solved from ``x(f_i, p, rtt_i) = x(1, p, rtt)``:
        ``rtt_i^2 / rtt^2``, so ``f ~ rtt^2``.
    aggregate_constant : sympy.Expr
        ``K`` solved from ``n x(K rtt_i^2, p, rtt_i) = n x(1, p, rtt_av)``:
        ``1 / rtt_av^2``.
    aggregate_fair_increase : sympy.Expr
        ``K rtt_i^2 = rtt_i^2 / rtt_av^2``.
    throughput_time_model : sympy.Expr
        The same sawtooth with one loss every ``1/p`` seconds: ``3 f / (2 p rtt^2)``.
    aggregate_fair_increase_time_model : sympy.Expr
        The aggregate-fair ``f`` under that model (again ``rtt_i^2 / rtt_av^2``).
    """

    symbols: dict
    window: sympy.Expr
    throughput: sympy.Expr
    throughput_over_sqrt_f_per_rtt: sympy.Expr
    rtt_fair_increase: sympy.Expr
    aggregate_constant: sympy.Expr
    aggregate_fair_increase: sympy.Expr
    throughput_time_model: sympy.Expr
    aggregate_fair_increase_time_model: sympy.Expr

    def throughput_function(self):
        """``x(f, p, rtt)`` lambdified with NumPy."""
        import sympy as sp

        s = self.symbols
        return sp.lambdify((s["f"], s["p"], s["rtt"]), self.throughput, "numpy")


@functools.lru_cache(maxsize=1)
def derive() -> WindowDerivation:
    """Derive the sawtooth throughput and the aggregate-fair window increase with SymPy.

    Per cycle the window climbs from ``W/2`` to ``W`` by ``f`` per RTT:
    ``N = W / (2 f)`` RTTs, ``integral_0^N (W/2 + f k) dk`` packets.  One loss
    per ``1/p`` packets fixes ``W``; the throughput is packets over ``N rtt``.
    RTT fairness: equal throughput for every ``rtt_i`` forces ``f ~ rtt_i^2``;
    aggregate fairness: the aggregate of ``n`` connections with ``f = K
    rtt_i^2`` sends as much as ``n`` standard connections at ``rtt_av``.

    Returns
    -------
    WindowDerivation

    References
    ----------
    Aggregate-rate-control paper, Section 5.
    """
    import sympy as sp

    W, f, p, rtt, rtt_i, rtt_av, K, n, k = sp.symbols("W f p rtt rtt_i rtt_av K n k",
                                                       positive=True)
    N = W / (2 * f)
    packets = sp.integrate(W / 2 + f * k, (k, 0, N))
    (Wsol,) = sp.solve(sp.Eq(packets, 1 / p), W)
    x = sp.simplify((packets / (N * rtt)).subs(W, Wsol))

    def xf(ff, tt):
        return x.subs({f: ff, rtt: tt}, simultaneous=True)

    (fi,) = sp.solve(sp.Eq(xf(f, rtt_i), xf(1, rtt)), f)
    (Ksol,) = sp.solve(sp.Eq(n * xf(K * rtt_i**2, rtt_i), n * xf(1, rtt_av)), K)
    # the per-time loss model: W/2 = f T / rtt with T = 1/p
    Wt = 2 * f / (p * rtt)
    xt = sp.simplify((packets / (N * rtt)).subs(W, Wt))
    (Kt,) = sp.solve(sp.Eq(n * xt.subs({f: K * rtt_i**2, rtt: rtt_i}, simultaneous=True),
                           n * xt.subs({f: 1, rtt: rtt_av}, simultaneous=True)), K)
    return WindowDerivation(
        symbols={"W": W, "f": f, "p": p, "rtt": rtt, "rtt_i": rtt_i, "rtt_av": rtt_av, "K": K,
                 "n": n},
        window=Wsol,
        throughput=x,
        throughput_over_sqrt_f_per_rtt=sp.simplify(x / (sp.sqrt(f) / rtt)),
        rtt_fair_increase=fi,
        aggregate_constant=Ksol,
        aggregate_fair_increase=Ksol * rtt_i**2,
        throughput_time_model=xt,
        aggregate_fair_increase_time_model=Kt * rtt_i**2,
    )
