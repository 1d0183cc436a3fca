"""The tensor rewrite tests run with the rewrite engine's deterministic flag values
(``rewrite_flags`` of the root conftest), as the engine's own tests (tests/rewrite) do."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _rewrite_flags(rewrite_flags: dict[str, Any]) -> dict[str, Any]:
    return rewrite_flags
