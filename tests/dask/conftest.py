"""A real Dask cluster of worker processes for the jitgraph.dask tests (one per test module)."""

from __future__ import annotations

import pytest

DASK_MISSING = "the dask extra is not installed (pip install 'jitgraph[dask]')"


@pytest.fixture(scope="module")
def client():
    """A Client of a LocalCluster of two single-threaded worker processes. The workers inherit
    the test session's JITGRAPH_FLAGS, hence its compiledir."""
    distributed = pytest.importorskip("distributed", reason=DASK_MISSING)
    with distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1,
                                  dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            yield c
