"""Fixtures for the rewrite tests: deterministic flag values, overridable per test."""

from __future__ import annotations

from typing import Any

import pytest

from jitgraph.rewrite import _flags

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


@pytest.fixture(autouse=True)
def flags(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A dict of flag overrides read by the rewrite engine (the real config is left alone).

    Going through the engine's single flag reader lets the tests set flags that are read-only in
    the config (``optimizer_including``...) without touching global state.
    """
    overrides = dict(TEST_FLAGS)
    real = _flags.flag

    def fake(path: str) -> Any:
        return overrides[path] if path in overrides else real(path)

    monkeypatch.setattr(_flags, "flag", fake)
    # Flags faked here are invisible to the config, which keys the cache of rewritten graphs.
    monkeypatch.setenv("JITGRAPH_GRAPH_CACHE", "0")
    return overrides


@pytest.fixture
def fresh_optdb(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A private optdb with the standard phases, installed as the global one for the test."""
    from jitgraph.rewrite import phases

    db = phases.build_optdb()
    monkeypatch.setattr(phases, "optdb", db)
    return db
