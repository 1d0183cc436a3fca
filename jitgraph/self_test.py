"""``jitgraph.test()`` (Theano's ``theano.test()``): runs jitgraph's own test suite."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

#: where the suite is in a source checkout (an installed wheel does not ship it)
TESTS_DIR = Path(__file__).resolve().parent.parent / "tests"


def test(*pytest_args: Any) -> int:
    """Runs jitgraph's tests with pytest (extra arguments are passed on, e.g. ``'-x'``) and
    returns pytest's exit code. Needs a source checkout and pytest (``pip install -e
    '.[test]'``)."""
    if importlib.util.find_spec("pytest") is None:
        raise RuntimeError("jitgraph.test() runs the test suite with pytest, which is not "
                           "installed: pip install -e '.[test]' in a jitgraph checkout")
    if not (TESTS_DIR / "conftest.py").is_file():
        raise RuntimeError(f"jitgraph.test() needs jitgraph's source checkout: no test suite "
                           f"at {TESTS_DIR} (installed packages do not include the tests)")
    import pytest

    return int(pytest.main([str(TESTS_DIR), *[str(a) for a in pytest_args]]))


test.__test__ = False  # type: ignore[attr-defined]  (not a test itself)
