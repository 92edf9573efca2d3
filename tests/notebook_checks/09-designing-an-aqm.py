# Checks run in the kernel of notebooks/09-designing-an-aqm.ipynb after it has run
# (tests/test_notebooks_examples.py), against the papers' numbers and closed forms.

# the design rule near the PI paper's printed gains (1.7 % above them with w_g = z)
assert abs(design.a / PRINTED["a"] - 1) < 0.02  # noqa: F821
assert abs(design.b / PRINTED["b"] - 1) < 0.02  # noqa: F821
# at the sliders' starting values: a stable loop, and both fluid models hold q = q_ref = 50
assert shown["margins"].stable and shown["margins"].gain_margin > 1  # noqa: F821
for _name in ("MGT fluid (solve_mgt)", "network fluid (solve_fluid)"):
    _t, _q = shown["runs"][_name]  # noqa: F821
    assert abs(_q[_t >= _t[-1] - 5].mean() - 50) < 1.5, _name
# packets: the queue the PI controls stays away from the 800-packet buffer and is not empty
_t, _q = shown["runs"]["packets (simulate)"]  # noqa: F821
assert 5 < _q[_t >= _t[-1] / 2].mean() < 200
# RED with ns-2's w_q = 0.002: gain margin below 1 (0.89), the fluid queue in a limit cycle
assert red_shown["margins"].gain_margin < 1  # noqa: F821
_t, _q = red_shown["runs"]["MGT fluid (solve_mgt)"]  # noqa: F821
assert np.ptp(_q[_t >= _t[-1] - 10]) > 100  # noqa: F821
# PIE at Tp = 100 ms: both fluid models at q0 = target C = 56.25 packets
for _name, (_t, _q) in pie_runs[0.1].items():  # noqa: F821
    assert abs(_q[_t >= _t[-1] - 5].mean() - 56.25) < 0.5, _name
# the stability boundary: gain margin 1 at N* = 68.0 flows for RED with ns-2's w_q on this
# ramp (brentq on the margin), the fluid's limit cycle on the unstable side only
assert abs(n_star - 67.978) < 0.01  # noqa: F821
assert np.all(np.diff(gain_margin) > 0)  # noqa: F821
assert np.all(swing[grid <= 60] > 0.5) and np.all(swing[grid >= 75] < 0.01)  # noqa: F821
# packets (the text's reading): under Floyd's rule the queue oscillates where the model is
# stable, under independent drops it keeps little of its phase there
assert coherent["floyd", 90] > ad.COHERENT > coherent["bernoulli", 90]  # noqa: F821
