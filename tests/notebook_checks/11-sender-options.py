# Checks run in the kernel of notebooks/11-sender-options.ipynb after it has run
# (tests/test_notebooks_examples.py).  The references are recomputed here, independently of
# the notebook's helpers: Alizadeh et al. (SIGCOMM 2010, Section 3.3) with a growth of g
# packets per round trip, by bisection; RFC 5681 3.2 and RFC 3042's count of duplicate ACKs;
# the reduction period of Prague's "rate" rules (Linux tcp_prague.c), by counting round trips.
# Tolerances: what was measured on 2026-11-28 (quoted) with a margin.


def _alpha(n, g, bdp=1e9 * (1e-3 + 8 * 1500 / 1e9 * 1.02) / (8 * 1500), k=20.0):
    # root in (0, 1] of alpha^2 (1 - alpha/4) = (2 g W* + g^2) / (W* + g)^2, W* = (C RTT + K)/N
    w = (bdp + k) / n
    rhs = (2 * g * w + g * g) / (w + g) ** 2
    lo, hi = 0.0, 1.0  # the left side rises on [0, 1]
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mid * mid * (1 - mid / 4) < rhs else (lo, mid)
    return lo


# 1. DCTCP at the slider's starting value N = 10 (measured: alpha 0.428, 0.286, 0.397 against
# 0.433, 0.311, 0.433; growth per round trip 0.94, 0.48, 0.88)
assert dctcp_shown["N"] == 10  # noqa: F821
_runs = dctcp_shown["runs"]  # noqa: F821
_a = [sum(r["alpha"]) / len(r["alpha"]) for r in _runs]
for _got, _g in zip(_a, (1.0, 0.5, 1.0)):
    assert abs(_got / _alpha(10, _g) - 1) < 0.15, (_got, _g)
# delayed ACKs with growth per ACK: alpha about a third below the paper's (g = 1) value
assert _a[1] < 0.8 * _alpha(10, 1.0)
# the echo state machine keeps alpha equal to the fraction of packets marked
for _got, _r in zip(_a, _runs):
    assert abs(_got / _r["marked"] - 1) < 0.05
# the cause: half a packet of growth per round trip with an ACK per two packets
assert 0.4 < _runs[1]["g"] < 0.6 and _runs[0]["g"] > 0.8 and _runs[2]["g"] > 0.8

# 2. Limited transmit: one flow, losses from windows of W = floor(C RTT + B) + 1 packets
_crtt = 1e6 * (2e-3 + 8e-3) / 8000  # 1 Mb/s, 1 ms each way, 1000-byte packets: 1.25
for _b, _w in zip((1, 2, 3, 4, 5), (3, 4, 5, 6, 7)):
    assert int(_crtt + _b) + 1 == _w
_i = list(lt_shown["buffers"]).index(1)  # noqa: F821
for _name, _needed in (("neither", 3), ("SACK", 3), ("limited transmit", 1),
                       ("SACK + limited transmit", 1)):
    for _b, _seen in zip(lt_shown["buffers"], lt_shown[_name]["one flow"]):  # noqa: F821
        _w = int(_crtt + _b) + 1
        _rule = 1.0 if _w - 1 < _needed else 0.0  # every loss times out, or none does
        assert _seen[1] + _seen[2] > 20, (_name, _b, _seen)  # enough losses to judge
        assert abs(_seen[0] - _rule) < 0.02, (_name, _b, _seen)
# measured at B = 1: utilisation 0.161 without limited transmit, 1.000 with it
assert lt_shown["neither"]["one flow"][_i][3] < 0.3  # noqa: F821
assert lt_shown["limited transmit"]["one flow"][_i][3] > 0.99  # noqa: F821
# 16 flows of about two packets each (measured 0.69 and 0.012 of the losses time out)
_j = list(FLOWS_LT).index(16)  # noqa: F821
assert lt_shown["neither"]["shared"][_j][0] > 10 * lt_shown["limited transmit"]["shared"][_j][0]  # noqa: F821

# 3. Prague (measured: "none" 4.92, "rate" 0.790)
_rs, _rl = 4.5e-3 + 8 * 1500 / 40e6 + 1e-3, 15e-3 + 8 * 1500 / 40e6 + 1e-3


def _period(r, target=0.025):
    # the first whole number of round trips that lasts at least the target
    n = 1
    while n * r < target:
        n += 1
    return n * r


assert abs(prague_shown["rate"] / (_period(_rs) / _period(_rl)) - 1) < 0.2  # noqa: F821
# RTT-dependent: between R_long / R_short and its square
assert _rl / _rs < prague_shown["none"] < (_rl / _rs) ** 2  # noqa: F821
assert prague_shown["rate"] < prague_shown["none"] / 3  # noqa: F821

# 1b. The delayed-ACK timer: the first ACK of a one-packet window at R_0 (m = 1) and at
# R_0 + the timer (m = 2), to the 0.1 ms the window is sampled at (measured: 20.8 and 220.8 ms)
_r0 = 2 * 0.01 + 8 * 1000 / 10e6
assert timer_shown["timeout"] == 0.2  # noqa: F821
assert abs(timer_shown[1] - _r0) <= 1.5e-4  # noqa: F821
assert abs(timer_shown[2] - (_r0 + 0.2)) <= 1.5e-4  # noqa: F821

# 4. The timer rules: the closed-form event times of the single-flow scenario (recomputed
# here from the scenario's numbers and RFC 6298's equations), the first timeout of the RFC
# rules at T_new + RTO, none under the reference rules (measured: 0.2749 s, 2 timeouts each)
_d, _tx = 0.05, 8 * 1000 / 10e6
_srtt, _var = 2 * _d + _tx, (2 * _d + _tx) / 2
for _k in range(1, 5):
    _s = 2 * _d + (_k + 1) * _tx
    _var, _srtt = 0.75 * _var + 0.25 * abs(_s - _srtt), 0.875 * _srtt + 0.125 * _s
_expiry = 2 * _d + 5 * _tx + _srtt + 4 * _var
assert _expiry < 4 * _d + 4 * _tx + 2 * _d + _tx  # before the first partial ACK
assert len(rto_shown["reference"]) == 0  # noqa: F821
for _rule in ("impatient", "slow-but-steady"):
    assert abs(rto_shown[_rule][0] - _expiry) < 1e-9, (_rule, rto_shown[_rule])  # noqa: F821
# the shared dumbbell (measured, quick form: timeouts 5 / 24 at 8 flows, 40 / 985 at 32;
# duplicate arrivals 13 / 213 and 27 / 2018)
_tt = timer_table.set_index(["flows", "timer"])  # noqa: F821
for _n in (8, 32):
    _ref, _imp = _tt.loc[(_n, "reference")], _tt.loc[(_n, "impatient")]
    assert _imp["timeouts"] > 4 * _ref["timeouts"], (_n, _ref, _imp)
    assert _imp["duplicate arrivals"] > 10 * _ref["duplicate arrivals"], (_n, _ref, _imp)
    assert _imp["goodput, Mb/s"] < _ref["goodput, Mb/s"]
