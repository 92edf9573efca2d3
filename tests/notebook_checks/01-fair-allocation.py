# Checks run in the kernel of notebooks/01-fair-allocation.ipynb after it has run
# (tests/test_notebooks_examples.py): the teaching cells print the comparisons, and these
# assertions hold the numbers to their closed forms.
# ruff: noqa: F821

# the parking lot: proportional c/(N+1) and cN/(N+1), max-min c/2
np.testing.assert_allclose(prop.rates, [c / (N + 1)] + [c * N / (N + 1)] * N, rtol=1e-6)
np.testing.assert_allclose(maxmin.rates, c / 2, rtol=1e-12)
# the alpha sweep: the long flow gets c / (1 + N^(1/alpha)), each short flow the rest
closed_long = c / (1 + N ** (1 / alphas))
np.testing.assert_allclose(long_rates, closed_long, rtol=1e-6)
np.testing.assert_allclose(short_rates, c - closed_long, rtol=1e-6)
# ACC's appendix: 100/(3+N) and 100N/(3+N) Mb/s, prices are the queueing delays a*/x_short
np.testing.assert_allclose(x_long, cap / (3 + N_ACC), rtol=1e-6)
np.testing.assert_allclose(x_short, cap * N_ACC / (3 + N_ACC), rtol=1e-6)
np.testing.assert_allclose(acc_alloc.prices, A_STAR / (cap * N_ACC / (3 + N_ACC)), rtol=1e-6)
# Little's law: every flow holds a*, the queues hold a* per flow in total
np.testing.assert_allclose(accumulation, A_STAR, rtol=1e-5)
np.testing.assert_allclose(queues.sum(), A_STAR * acc.n_flows, rtol=1e-5)
# Figure 9's range: the long flows' rate 100/(3+N) Mb/s, the total queue (3+N) a*
for n, long_Mbps, _delay_ms, queue_KB in rows:
    np.testing.assert_allclose(long_Mbps, 100 / (3 + n), rtol=1e-6)
    np.testing.assert_allclose(queue_KB * 1000 * BITS_PER_BYTE, A_STAR * (3 + n), rtol=1e-5)
