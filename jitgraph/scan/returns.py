"""What the step function of scan may return, and ``until`` (the do-while condition).

A step function returns its outputs (a variable or a list of them), an update dictionary for
shared variables, both (in either order), and optionally, last, ``until(condition)``.
"""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Variable
from jitgraph.graph.shared import SharedVariable
from jitgraph.scan.updates import OrderedUpdates
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.elementwise.math import neq


class until:  # noqa: N801 - Theano's name
    """Returned last by a scan step function: stop the loop after the step where ``condition``
    (a scalar: a boolean, or a number, true when not zero; NaN is true) is true."""

    def __init__(self, condition: Any) -> None:
        cond = as_tensor_variable(condition)
        if cond.ndim != 0:
            raise TypeError(f"until(condition): the condition must be a scalar, got {cond.type}")
        if cond.dtype.startswith(("float", "complex")):
            cond = neq(cond, 0)  # as Theano: a number stops the loop when it is not zero
        self.condition = cond


def _is_updates(value: Any) -> bool:
    if isinstance(value, dict):
        return True
    return (isinstance(value, (list, tuple)) and len(value) > 0
            and all(isinstance(p, (list, tuple)) and len(p) == 2
                    and isinstance(p[0], SharedVariable) for p in value))


def _no_updates(value: Any) -> bool:
    return isinstance(value, (list, tuple, dict)) and len(value) == 0


def _as_outputs(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def split_step_return(ret: Any) -> tuple[list[Variable], OrderedUpdates, Variable | None]:
    """``(outputs, updates, condition)`` from what a step function returned."""
    cond = None
    outputs: Any = None
    updates: Any = None
    if isinstance(ret, until):
        cond = ret.condition
    elif _is_updates(ret):
        updates = ret
    elif isinstance(ret, (list, tuple)):
        items = list(ret)
        if items and isinstance(items[-1], until):
            cond = items.pop().condition
        if any(isinstance(i, until) for i in items):
            raise ValueError("until(...) must be the last thing the step function returns")
        if len(items) == 2 and _no_updates(items[1]) and not _no_updates(items[0]):
            outputs = items[0]  # ``return [h], (), until(...)``: empty updates
        elif len(items) == 2 and _is_updates(items[1]) and not _is_updates(items[0]):
            outputs, updates = items
        elif len(items) == 2 and _is_updates(items[0]) and not _is_updates(items[1]):
            updates, outputs = items
        elif len(items) == 1 and _is_updates(items[0]):
            updates = items[0]
        elif len(items) == 1 and cond is not None:
            outputs = items[0]
        else:
            outputs = items
    else:
        outputs = ret

    outs = []
    for k, out in enumerate(_as_outputs(outputs)):
        if isinstance(out, until):
            raise ValueError("until(...) must be the last thing the step function returns")
        try:
            outs.append(out if isinstance(out, Variable) else as_tensor_variable(out))
        except TypeError as exc:
            raise TypeError(f"output {k} of the scan step function is not a tensor: "
                            f"{out!r} ({exc})") from None
    pairs = updates.items() if hasattr(updates, "items") else (updates or [])
    return outs, OrderedUpdates(pairs), cond
