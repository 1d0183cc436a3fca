"""The rewrite engine's tests run with deterministic flag values (``rewrite_flags`` of the
root conftest; a test changes one through its ``flags`` fixture)."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _rewrite_flags(rewrite_flags: dict[str, Any]) -> dict[str, Any]:
    return rewrite_flags
