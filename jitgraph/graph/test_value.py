"""Eager evaluation of graphs at build time (``compute_test_value``), to report errors early."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

from jitgraph.config import config
from jitgraph.graph.basic import Apply, Constant, Variable, graph_inputs, io_toposort


class TestValueError(ValueError):
    """A test value is missing, or the op failed on the test values."""

    __test__ = False  # not a pytest test class


_MISSING = object()


def get_test_value(var: Variable) -> Any:
    """The value used for ``var`` under ``compute_test_value`` (constant, shared or tagged)."""
    if isinstance(var, Constant):
        return var.data
    if hasattr(var, "get_value"):
        return var.get_value(borrow=True)
    value = getattr(var.tag, "test_value", _MISSING)
    if value is _MISSING:
        raise TestValueError(f"{var} has no test value (set {var}.tag.test_value)")
    # checked as a call's argument is (Theano's rule): a float64 array tagged on a float32
    # variable is a TypeError, not a silent downcast
    return var.type.filter(value)


def _missing(mode: str, var: Variable, node: Apply) -> None:
    msg = (f"compute_test_value is {mode!r} but input {var} of {node.op} has no test value; "
           f"set {var}.tag.test_value or change the flag")
    if mode == "warn":
        warnings.warn(msg, stacklevel=4)
    elif mode in ("raise", "pdb"):
        raise TestValueError(msg)


def compute_test_values(node: Apply) -> None:
    """Run ``node``'s perform on its inputs' test values and tag the outputs with the results."""
    mode = config.compute_test_value
    if mode == "off":
        return
    values = []
    for inp in node.inputs:
        try:
            values.append(get_test_value(inp))
        except TestValueError:
            _missing(mode, inp, node)
            return
    storage: list[list[Any]] = [[None] for _ in node.outputs]
    try:
        node.op.perform(node, values, storage)
    except Exception as exc:
        shapes = [getattr(v, "shape", ()) for v in values]
        if mode == "pdb":
            import pdb

            pdb.post_mortem()
        raise type(exc)(f"{exc}\n(computing test values of {node.op} with input shapes {shapes})"
                        ) from exc
    for out, cell in zip(node.outputs, storage):
        out.tag.test_value = out.type.filter(cell[0], allow_downcast=True)


def copy_test_value(target: Variable, source: Variable, pick: Any = None) -> None:
    """Under ``compute_test_value``, give ``target`` (a placeholder standing for ``source``,
    or for ``pick(value)`` of it: one step's slice) the test value of ``source``. Nothing
    happens when ``source`` has none: using ``target`` then reports it."""
    if config.compute_test_value == "off":
        return
    try:
        value = get_test_value(source)
        if pick is not None:
            value = pick(value)
        target.tag.test_value = target.type.filter(value, allow_downcast=True)
    except (TestValueError, IndexError, TypeError, ValueError):
        return


@contextlib.contextmanager
def test_values_set_to(level: str) -> Iterator[None]:
    """``compute_test_value`` set to ``level`` inside; the flags are left untouched when it
    already is (the usual case, both 'off': changing flags costs a copy of the settings)."""
    if config.compute_test_value == level:
        yield
        return
    with config.change_flags(compute_test_value=level):
        yield


def outer_test_values(build: Any) -> Any:
    """Decorate ``build(...) -> list of variables or None``, which makes an inner graph (from
    placeholders without test values) and the outer graph around it: the inner graph is built
    with ``compute_test_value`` off, and the outer nodes it made then get their test values
    (under the flag's mode) from the outer inputs'."""

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if config.compute_test_value == "off":
            return build(*args, **kwargs)
        with test_values_set_to("off"):
            results = build(*args, **kwargs)
        made = [r for r in (results or []) if isinstance(r, Variable)]
        for node in io_toposort(graph_inputs(made), made):
            if any(not hasattr(out.tag, "test_value") for out in node.outputs):
                compute_test_values(node)
        return results

    wrapped.__name__ = build.__name__
    wrapped.__doc__ = build.__doc__
    return wrapped


def without_test_values(build: Any) -> Any:
    """Decorate a method building an inner graph from placeholders that have no test values
    (an OpFromGraph's gradient or R-op graph): it runs with ``compute_test_value`` off. What
    is then applied to the outer variables computes its test values as usual."""

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        with test_values_set_to("off"):
            return build(*args, **kwargs)

    wrapped.__name__ = build.__name__
    wrapped.__doc__ = build.__doc__
    return wrapped
