"""A real Dask cluster of worker processes for the jitgraph.dask tests (one per test module)."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import pytest

DASK_MISSING = "the dask extra is not installed (pip install 'jitgraph[dask]')"
TESTS = os.path.abspath(Path(__file__).resolve().parents[1])


@contextlib.contextmanager
def folder_of_tests_off_sys_path():
    """pytest puts ``tests/`` on ``sys.path`` (the suite's conftest.py is not in a package), so
    a test folder named like a library Dask probes for (``tests/sparse`` for PyData's
    ``sparse``) would be imported in its place. Dask is imported, and its worker processes
    started (they copy ``sys.path``), without that folder on the path."""
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != TESTS]
    try:
        yield
    finally:
        sys.path[:] = saved


with folder_of_tests_off_sys_path():
    try:
        import dask.array  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        pass


@pytest.fixture(scope="module")
def client():
    """A Client of a LocalCluster of two single-threaded worker processes. The workers inherit
    the test session's JITGRAPH_FLAGS, hence its compiledir."""
    distributed = pytest.importorskip("distributed", reason=DASK_MISSING)
    with folder_of_tests_off_sys_path():
        cluster = distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1,
                                           dashboard_address=":0")
    with cluster, distributed.Client(cluster) as c:
        yield c
