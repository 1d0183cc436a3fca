"""The tolerances with which tensor values are compared (``_allclose``, DebugMode, tests).

Theano kept them as settings of ``theano.tensor.basic`` (``float32_atol``, ``float64_rtol``,
...) that user code and tests assign. Here each setting reads as the value of the current
``tensor.cmp_sloppy`` level until it is assigned; an assigned value is used from then on.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.config import config

# Theano's comparison tolerances (atol, rtol) by precision, for each level of
# ``tensor.cmp_sloppy`` (2 and above: the loosest).
_TOLERANCES = {
    0: {"float16": (1e-3, 1e-3), "float32": (1e-5, 1e-5), "float64": (1e-8, 1e-5)},
    1: {"float16": (5e-3, 1e-2), "float32": (1e-4, 1e-3), "float64": (1e-3, 1e-4)},
    2: {"float16": (1e-2, 5e-2), "float32": (5e-4, 1e-3), "float64": (1e-3, 1e-4)},
}

#: the assignable settings: ``float16_atol`` ... ``float64_rtol``
SETTINGS = tuple(f"{precision}_{kind}" for precision in ("float16", "float32", "float64")
                 for kind in ("atol", "rtol"))


def _level_value(setting: str) -> float:
    precision, _, kind = setting.partition("_")
    atol, rtol = _TOLERANCES[min(int(config.tensor.cmp_sloppy), 2)][precision]
    return atol if kind == "atol" else rtol


def _setting(setting: str) -> float:
    assigned = globals().get(setting)
    return _level_value(setting) if assigned is None else float(assigned)


def __getattr__(name: str) -> Any:
    """A setting not assigned yet reads as the ``tensor.cmp_sloppy`` level's value."""
    if name in SETTINGS:
        return _level_value(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def comparison_tolerances(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """``(atol, rtol)`` for comparing ``a`` with ``b``: those of the narrowest precision among
    them (float16, else float32/complex64, else float64), from the settings of this module."""
    names = {str(a.dtype), str(b.dtype)}
    if "float16" in names:
        precision = "float16"
    elif names & {"float32", "complex64"}:
        precision = "float32"
    else:
        precision = "float64"
    return _setting(f"{precision}_atol"), _setting(f"{precision}_rtol")


def values_allclose(a: Any, b: Any, rtol: float | None = None, atol: float | None = None) -> bool:
    """``numpy.allclose(a, b)`` with :func:`comparison_tolerances` for what is not given
    (Theano's ``theano.tensor.basic._allclose``)."""
    a, b = np.asarray(a), np.asarray(b)
    default_atol, default_rtol = comparison_tolerances(a, b)
    return bool(np.allclose(a, b, rtol=default_rtol if rtol is None else rtol,
                            atol=default_atol if atol is None else atol))


__all__ = ["SETTINGS", "comparison_tolerances", "values_allclose"]
