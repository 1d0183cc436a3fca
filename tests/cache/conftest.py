"""Fixtures of the ``jitgraph-cache`` tests: compiledirs filled once per session, copied by each
test that changes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiledir_testing import fill_by_real_use, unpack_previous_release


@pytest.fixture(scope="session")
def real_use_compiledir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bool]:
    """(A compiledir filled by real use, whether it holds a GPU entry); never change it."""
    return fill_by_real_use(tmp_path_factory.mktemp("real-use"))


@pytest.fixture(scope="session")
def previous_release_compiledir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The compiledir the previous release wrote, unpacked; never change it."""
    return unpack_previous_release(tmp_path_factory.mktemp("previous-release"))
