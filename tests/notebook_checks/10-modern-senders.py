# Checks run in the kernel of notebooks/10-modern-senders.ipynb after it has run
# (tests/test_notebooks_examples.py), against the closed forms (Alizadeh et al., SIGCOMM 2010,
# Section 3.3; RFC 9438, Section 5).

_th, _pk, _fl = shown["theory"], shown["packets"], shown["fluid"]  # noqa: F821
# DCTCP at the sliders' starting values (N = 10, 1 Gb/s, 1 ms, K = 20): the queue peaks at
# K + N in packets and in the fluid model, alpha near the analysis', the link stays busy
assert abs(_pk["Q_max"] / (shown["K"] + shown["N"]) - 1) < 0.10  # noqa: F821
assert abs(_fl["Q_max"] / _th["Q_max"] - 1) < 0.10
assert abs(_pk["alpha"] / _th["alpha"] - 1) < 0.25
assert _pk["utilisation"] > 0.99
# CUBIC with the response function's own loss model (one loss in 1/p packets), p = 1e-3:
# the average window within 10 % of RFC 9438's
_i = list(cubic_shown["p"]).index(1e-3)  # noqa: F821
assert abs(cubic_shown["deterministic"][_i] / cubic_shown["theory"][_i] - 1) < 0.10  # noqa: F821
# the text's claim: random loss raises the average window above deterministic loss's
assert all(r > d for r, d in zip(cubic_shown["random"], cubic_shown["deterministic"]))  # noqa: F821
# BBR and CUBIC together keep the bottleneck busy
assert min(bbr_shown["utilisation"]) > 0.95  # noqa: F821
# with SACK, at 8 BDP (where bbr-share reproduces), BBR's share near the argument's one half
_j = list(bbr_shown["buffers"]).index(8)  # noqa: F821
assert abs(bbr_shown["share"][_j] / 0.5 - 1) < 0.2  # noqa: F821
