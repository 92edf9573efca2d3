"""The Newton matrix ``R diag(d) R^T`` of the interior-point method, formed from its pattern.

Reference: the same product computed densely with NumPy (``R.toarray()``), an
independent computation.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from qosmodels.allocation.ipm import _GramPattern
from qosmodels.topologies import random_network


def _check(R: sp.csr_matrix, rng) -> None:
    RT = R.T.tocsr()
    m, n = R.shape
    d = rng.uniform(0.1, 10.0, n)
    diag = rng.uniform(1.0, 2.0, m)
    pat = _GramPattern(R, RT)
    M = pat.matrix(d, diag)
    dense = (R.toarray() * d) @ R.toarray().T
    np.fill_diagonal(dense, diag)
    assert M.has_sorted_indices
    assert np.array_equal(M.indices[pat.diag_pos], np.arange(m))  # every diagonal entry
    assert np.allclose(M.toarray(), dense, rtol=1e-14, atol=0)
    # the pattern holds exactly the pairs of links that share a flow, and the diagonal
    share = (abs(R) @ abs(RT)).toarray() != 0
    np.fill_diagonal(share, True)
    assert np.array_equal(M.toarray() != 0, share)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_dense_product_on_random_networks(seed):
    net = random_network(300, 60, seed=seed)
    _check(net.routing_matrix.tocsr(), np.random.default_rng(seed))


def test_general_entries_and_unsorted_rows():
    """Entries other than 1 (as R^T R's terms r_ji r_ki), a link without flows, and a
    CSR matrix whose rows are not sorted."""
    rng = np.random.default_rng(7)
    dense = (rng.random((40, 200)) < 0.05) * rng.uniform(0.5, 2.0, (40, 200))
    dense[5] = 0.0
    R = sp.csr_matrix(dense)
    # reverse every row's column order
    for j in range(R.shape[0]):
        a, b = R.indptr[j], R.indptr[j + 1]
        R.indices[a:b] = R.indices[a:b][::-1].copy()
        R.data[a:b] = R.data[a:b][::-1].copy()
    R.has_sorted_indices = False
    _check(R, rng)
