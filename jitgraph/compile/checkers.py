"""Comparing the values two implementations computed (Theano's ``check_equal`` and
``register_checker``).

:func:`check_values` runs every registered checker, most recent first; :func:`check_equal`, the
first one registered, requires arrays of the same dtype and shape whose entries differ by at
most 1e-10 (other values must compare equal). A checker takes the two values and raises when
they disagree.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np


class OutputMismatch(Exception):
    """Two implementations disagree on a value."""


def _dense(x: Any) -> Any:
    todense = getattr(x, "toarray", None)  # scipy.sparse matrices, without importing scipy
    return todense() if callable(todense) and hasattr(x, "nnz") else x


def check_equal(x: Any, y: Any) -> None:
    """Raise :class:`OutputMismatch` unless ``x`` and ``y`` are equal values: arrays of the same
    dtype and shape within 1e-10, or objects comparing equal."""
    x, y = _dense(x), _dense(y)
    if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
        if x.dtype != y.dtype or x.shape != y.shape:
            raise OutputMismatch(f"values differ: {x.dtype}{x.shape} vs {y.dtype}{y.shape}")
        if x.size and np.any(np.abs(x - y) > 1e-10):
            raise OutputMismatch(f"values differ by up to {np.max(np.abs(x - y))}")
        return
    same = x == y
    if not (np.all(same) if isinstance(same, np.ndarray) else bool(same)):
        raise OutputMismatch(f"values differ: {x!r} vs {y!r}")


#: the registered checkers (most recent last)
CHECKERS: list[Callable[[Any, Any], Any]] = [check_equal]


def register_checker(checker: Callable[[Any, Any], Any]) -> None:
    """Add ``checker(x, y)`` (raising when ``x`` and ``y`` disagree) to the checkers
    :func:`check_values` runs."""
    if not callable(checker):
        raise TypeError(f"register_checker expects a callable checker(x, y), got {checker!r}")
    CHECKERS.append(checker)


def check_values(x: Any, y: Any) -> None:
    """Run every registered checker on ``x`` and ``y`` (the last registered first)."""
    for checker in reversed(CHECKERS):
        checker(x, y)


__all__ = ["check_equal", "register_checker", "check_values", "OutputMismatch", "CHECKERS"]
