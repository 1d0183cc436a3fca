"""Test-session settings shared by the whole suite."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, settings

# One compiledir for the whole test session (and the processes it starts): Numba kernels are
# compiled once per machine, not once per test. Set before jitgraph.config is first imported.
_TEST_CACHE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           ".jitgraph-test-cache")
if "base_compiledir" not in os.environ.get("JITGRAPH_FLAGS", ""):
    _flags = os.environ.get("JITGRAPH_FLAGS", "")
    os.environ["JITGRAPH_FLAGS"] = f"{_flags},base_compiledir={_TEST_CACHE}".lstrip(",")

# Graph building is slowish per example and timing varies on a 2-core CI machine: no deadlines.
settings.register_profile("jitgraph", deadline=None, max_examples=40,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, max_examples=25,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "jitgraph")


import pytest


@pytest.fixture
def jitgraph_rewrites_only(monkeypatch):
    """For graph-cache tests: forget that an earlier test in this process registered rewrites
    of its own (which turns the graph cache off for the rest of the process, as it should)."""
    from jitgraph.rewrite import db

    monkeypatch.setattr(db, "changed_outside_jitgraph", False)


#: the values the tests assume unless a test overrides them (whatever the user's environment says)
TEST_FLAGS: dict[str, Any] = {
    "on_opt_error": "warn",
    "optimizer_verbose": False,
    "profile_optimizer": False,
    "check_stack_trace": "off",
    "cycle_detection": "regular",
    "optdb.max_use_ratio": 8.0,
    "optdb.position_cutoff": float("inf"),
    "optimizer_including": "",
    "optimizer_excluding": "",
    "optimizer_requiring": "",
    "tensor.local_elemwise_fusion": True,
}


@pytest.fixture
def rewrite_flags(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A dict of flag overrides read by the rewrite engine (the real config is left alone).

    Going through the engine's single flag reader lets the tests set flags that are read-only in
    the config (``optimizer_including``...) without touching global state.
    """
    from jitgraph.rewrite import _flags

    overrides = dict(TEST_FLAGS)
    real = _flags.flag

    def fake(path: str) -> Any:
        return overrides[path] if path in overrides else real(path)

    monkeypatch.setattr(_flags, "flag", fake)
    # Flags faked here are invisible to the config, which keys the cache of rewritten graphs.
    monkeypatch.setenv("JITGRAPH_GRAPH_CACHE", "0")
    return overrides


@pytest.fixture
def flags(rewrite_flags: dict[str, Any]) -> dict[str, Any]:
    """The rewrite flag overrides of this test (set a flag in the dict to change what the
    rewrite engine reads)."""
    return rewrite_flags


@pytest.fixture
def fresh_optdb(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A private optdb with the standard phases and no rewrites registered in them, installed
    as the global one for the test."""
    from jitgraph.rewrite import load_tensor_rewrites, phases

    # The rewrite modules register into whichever optdb is global when they are first imported:
    # imported first under this fixture, they would fill the private database and leave the
    # real one without them for the rest of the process (every later compile unrewritten).
    load_tensor_rewrites()
    db = phases.build_optdb()
    monkeypatch.setattr(phases, "optdb", db)
    return db


@pytest.fixture(scope="module")
def emulated_cuda():
    """The emulated CUDA device (tests/emulated_cuda) in place of CuPy for a module's tests;
    yields its counters. jitgraph's GPU state (the initialised device, NVRTC's version, loaded
    modules) is forgotten when it is switched in and out, so the real CuPy's tests and these
    run in one process in any order."""
    import shutil

    import emulated_cuda as emulator
    from jitgraph.backend_gpu import device

    if shutil.which("g++") is None:
        pytest.skip("the emulated CUDA device builds kernels with g++, which is not installed")
    device.reset_for_tests()
    emulator.install()
    try:
        yield emulator.STATS
    finally:
        device.reset_for_tests()
        emulator.uninstall()
