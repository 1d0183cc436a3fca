"""Fixtures for the tensor rewrite tests: the rewrite engine's deterministic flags and a
private rewrite database, as for the engine's own tests (tests/rewrite)."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _rewrite_flags(rewrite_flags: dict[str, Any]) -> dict[str, Any]:
    """Every tensor rewrite test runs with the flags of ``rewrite_flags`` (root conftest)."""
    return rewrite_flags


@pytest.fixture
def flags(rewrite_flags: dict[str, Any]) -> dict[str, Any]:
    """The flag overrides of this test (a dict: set a flag to change what the engine reads)."""
    return rewrite_flags


@pytest.fixture
def fresh_optdb(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A private optdb with the standard phases, installed as the global one for the test."""
    from jitgraph.rewrite import phases

    db = phases.build_optdb()
    monkeypatch.setattr(phases, "optdb", db)
    return db
