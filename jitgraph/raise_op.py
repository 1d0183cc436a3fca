"""``theano.raise_op``: :class:`Raise`, an op that raises an exception when it is run.

It marks a computation that has no implementation on some path of a graph: building the graph
works, compiling it works, running the node raises ``exc(msg)``.
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op
from jitgraph.graph.print_op import _as_variable


class Raise(Op):
    """``Raise(msg, exc)(x)``: an output of ``x``'s type whose computation raises
    ``exc(msg)`` (``NotImplementedError`` by default)."""

    __props__ = ("msg", "exc")

    def __init__(self, msg: str = "", exc: type[BaseException] = NotImplementedError) -> None:
        if not (isinstance(exc, type) and issubclass(exc, BaseException)):
            raise TypeError(f"Raise: exc must be an exception class, got {exc!r}")
        self.msg = msg
        self.exc = exc

    def __str__(self) -> str:
        return f"Raise{{{self.exc}({self.msg})}}"

    def make_node(self, x: Any) -> Apply:
        x = _as_variable(x)
        return Apply(self, [x], [x.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        raise self.exc(self.msg)

    def do_constant_folding(self, node: Apply) -> bool:
        # Folding would raise while compiling; the error belongs to the run.
        return False


__all__ = ["Raise"]
