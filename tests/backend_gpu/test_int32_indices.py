"""Elementwise kernels count in ``int`` only when no index they compute overflows (issue 27,
bug 5): the grid-stride loop adds ``gridDim.x * blockDim.x`` to the index before testing it,
so ``n`` within one grid of ``2**31`` overflowed (UBSan on the generated kernel showed it)."""

from __future__ import annotations

from jitgraph.backend_gpu.lower_elemwise import INT32_LIMIT, int32_indices

H200_GRID = 132 * 32 * 256  # launch_config's largest grid on an H200, times 256 threads


def test_small_sizes_count_in_int():
    assert int32_indices(10, 0, 256)
    assert int32_indices(2**20, 2**20, H200_GRID)


def test_a_size_within_one_grid_of_the_limit_counts_in_long_long():
    n = INT32_LIMIT - 1000  # the old rule (n <= INT32_LIMIT) chose int here
    assert not int32_indices(n, 0, H200_GRID)
    assert int32_indices(INT32_LIMIT - H200_GRID + 1, 0, H200_GRID)
    assert not int32_indices(INT32_LIMIT - H200_GRID + 2, 0, H200_GRID)


def test_offsets_beyond_int_count_in_long_long():
    assert not int32_indices(100, INT32_LIMIT + 1, 256)
