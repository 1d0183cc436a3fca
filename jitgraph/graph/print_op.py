"""``Print``: an identity op that prints its input's value each time the graph is evaluated.

    x_printed = Print('this is a very important value')(x)
    f = function([x], x_printed * 5)
    f([1, 2, 3])        # prints: this is a very important value __str__ = [1. 2. 3.]

The op stays in the compiled graph: it is never constant-folded (a constant input would
otherwise print once, at compile time), two identical ``Print`` s of the same variable merge
into one (one line per evaluation), it has no kernel lowering, so every backend runs its
``perform``, and its gradient passes through unchanged. Like Theano's, a ``Print`` in the middle
of a pattern can keep some rewrites from applying.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from jitgraph import services
from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op


def _print_fn(op: "Print", xin: Any) -> None:
    """The default ``global_fn``: one line ``message attr = value`` per attribute (an
    attribute that is a method, like ``__str__``, is called)."""
    for attr in op.attrs:
        value = getattr(xin, attr)
        if callable(value):
            value = value()
        print(op.message, attr, "=", value)


def _as_variable(x: Any) -> Variable:
    if isinstance(x, Variable):
        return x
    return services.get("as_tensor_variable")(x)  # a value: make it a constant


class Print(Op):
    """Identity on its input; when run, calls ``global_fn(op, value)``, which by default prints
    ``message``, then for each name in ``attrs`` that attribute of the value (called if it is a
    method): ``Print('x', attrs=('shape', 'sum'))`` prints ``x shape = (3,)`` and ``x sum =
    6.0``. The output is the input itself (a view)."""

    __props__ = ("message", "attrs", "global_fn")
    view_map = {0: [0]}

    def __init__(self, message: str = "", attrs: Sequence[str] = ("__str__",),
                 global_fn: Callable[["Print", Any], None] = _print_fn) -> None:
        if isinstance(attrs, str):
            raise TypeError(f"Print: attrs must be a sequence of attribute names, got the "
                            f"string {attrs!r} (write attrs=({attrs!r},))")
        self.message = message
        self.attrs = tuple(attrs)  # hashable: the op is compared and hashed by its props
        self.global_fn = global_fn

    def make_node(self, xin: Any) -> Apply:
        xin = _as_variable(xin)
        return Apply(self, [xin], [xin.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (xin,) = inputs
        output_storage[0][0] = xin
        self.global_fn(self, xin)

    def do_constant_folding(self, node: Apply) -> bool:
        # Folding would print once at compile time and never when the function runs.
        return False

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return list(output_grads)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        return list(eval_points)


__all__ = ["Print"]
