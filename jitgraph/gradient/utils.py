"""Small helpers of Theano's ``theano.gradient`` module: test values of several variables and
the mode gradient checks compile with."""

from __future__ import annotations

import warnings
from typing import Any

from jitgraph.compile.debugmode import DebugMode
from jitgraph.compile.mode import get_mode
from jitgraph.config import config
from jitgraph.graph.basic import Variable
from jitgraph.graph.test_value import TestValueError, get_test_value


def get_debug_values(*args: Variable) -> list:
    """The test values of ``args`` for debugging code run at graph-building time.

    ``[]`` when ``config.compute_test_value`` is 'off' (or a value is missing and the flag
    is 'ignore'/'warn'); otherwise ``[value]`` for one argument and ``[(v1, v2, ...)]`` for
    several, so that ``for v in get_debug_values(x): ...`` runs once or not at all.
    """
    mode = config.compute_test_value
    if mode == "off":
        return []
    values = []
    for k, arg in enumerate(args):
        try:
            values.append(get_test_value(arg))
        except TestValueError:
            label = f"Argument {k}" + (f" ('{arg.name}')" if getattr(arg, "name", None) else "")
            message = f"{label} has no test value"
            if mode == "warn":
                warnings.warn(message, stacklevel=2)
            elif mode != "ignore":
                raise TestValueError(message) from None
            return []
    if len(values) == 1:
        return values
    return [tuple(values)]


def mode_not_slow(mode: Any) -> Any:
    """``mode`` unless it is a slow checking mode: FAST_COMPILE and DebugMode give FAST_RUN
    (keeping a DebugMode's optimizer), so that gradient checks do not take forever."""
    if mode == "FAST_COMPILE":
        return get_mode("FAST_RUN")
    mode = get_mode(mode)
    if isinstance(mode, DebugMode):
        return get_mode("FAST_RUN").clone(optimizer=mode.optimizer)
    return mode
