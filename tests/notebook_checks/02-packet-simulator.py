# Checks run in the kernel of notebooks/02-packet-simulator.ipynb after it has run
# (tests/test_notebooks_examples.py): the notebook's teaching cells show the comparisons, and
# these assertions, kept out of them, hold the numbers to their references.

# a dumbbell of NewReno flows shares the bottleneck as max-min says, almost evenly
assert abs(res.throughput.sum() / mm.rates.sum() - 1) < 0.01  # noqa: F821
assert jain_index(res.throughput) > 0.98  # noqa: F821
# M/D/1: the simulated mean wait against Pollaczek-Khinchine
assert np.all(abs(md1_table["relative error"]) < (0.06 if QUICK else 0.03))  # noqa: F821
# replications: the confidence interval covers the closed form
assert abs(mean - expected) < 3 * hw  # noqa: F821
# RED keeps the queue shorter than drop-tail, by dropping more
assert comparison.loc["RED", "mean queue (packets)"] < \
    comparison.loc["drop-tail", "mean queue (packets)"] / 2  # noqa: F821
assert comparison.loc["RED", "drop rate"] > comparison.loc["drop-tail", "drop rate"]  # noqa: F821
# the fair-queueing paper's Figure 1 (FCFS Telnet delay) against its closed form
assert np.all(abs(fig1_table["relative error"]) < (0.05 if QUICK else 0.02))  # noqa: F821
