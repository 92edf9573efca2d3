# Checks run after the last cell of 08-network-calculus.ipynb, with its variables in scope.
# ruff: noqa: F821
assert len(drr_tightness) > 0 and np.all(drr_tightness <= 1.0) and drr_tightness.max() > 0.2
assert 0.5 < seen_path / bound.delay <= 1.0
bursts = [c.b for c in curves]
assert bursts == sorted(bursts, reverse=True)  # b(r) falls as r rises
assert np.all(np.diff(delays) <= 1e-12)  # so does T + b(r)/R
