"""Theano's way of writing a node rewrite: ``@local_optimizer(tracks)`` on ``f(node)``, and
``register_specialize_device``.

jitgraph's own rewrites are ``@node_rewriter(tracks)`` functions of ``(fgraph, node)``; Theano's
local optimizers received the node alone and reached the graph as ``node.fgraph``. The rewriter
made here passes the node, with ``node.fgraph`` set while the function runs, so that a rewrite
written for Theano registers and runs unchanged.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.engine import FunctionNodeRewriter, _as_tracks
from jitgraph.rewrite.phases import register_specialize


class LocalOptimizer(FunctionNodeRewriter):
    """A node rewriter defined by a Theano-style function ``fn(node) -> replacements``."""

    def __init__(self, fn: Callable[[Apply], Any], tracks: Any, inplace: bool = False,
                 requirements: Sequence[Callable[[FunctionGraph], None]] = ()) -> None:
        super().__init__(self._call_with_node, tracks, inplace=inplace, name=fn.__name__)
        self.node_fn = fn
        self.requirements = tuple(requirements)
        self.__doc__ = fn.__doc__

    def _call_with_node(self, fgraph: FunctionGraph, node: Apply) -> Any:
        had = "fgraph" in node.__dict__
        previous = node.__dict__.get("fgraph")
        node.fgraph = fgraph
        try:
            return self.node_fn(node)
        finally:
            if had:
                node.fgraph = previous
            else:
                del node.fgraph

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        super().add_requirements(fgraph)
        for requirement in self.requirements:
            requirement(fgraph)

    def __call__(self, *args: Any) -> Any:
        """``rewriter(node)`` as in Theano, or ``rewriter(fgraph, node)``."""
        if len(args) == 1:
            return self.node_fn(args[0])
        return self._call_with_node(*args)

    def transform(self, *args: Any) -> Any:  # type: ignore[override]
        """The replacements for a node: ``transform(node)`` as Theano's optimizers called it
        (the function sees no graph unless ``node.fgraph`` is set), or jitgraph's
        ``transform(fgraph, node)``."""
        return self(*args)


def local_optimizer(tracks: Any, inplace: bool = False,
                    requirements: Sequence[Callable[[FunctionGraph], None]] = ()
                    ) -> Callable[[Callable[[Apply], Any]], LocalOptimizer]:
    """Decorator making ``fn(node)`` (returning None/False, new outputs or ``{old: new}``) a
    node rewriter applied to the nodes whose op is in ``tracks`` (op classes or instances; None
    for every node). ``inplace=True`` when it introduces ops that destroy their inputs;
    ``requirements`` are functions of the graph run before rewriting (to attach features)."""
    tracked = _as_tracks(tracks)

    def decorate(fn: Callable[[Apply], Any]) -> LocalOptimizer:
        return LocalOptimizer(fn, tracked, inplace=inplace, requirements=requirements)

    return decorate


class OpRemove(FunctionNodeRewriter):
    """Theano's ``OpRemove(op)``: every node applying ``op`` (a one-input identity such as a
    ``ViewOp`` subclass marking a gradient) is replaced by its input. Libraries register one to
    drop, after differentiation, an op that only changed the gradient."""

    def __init__(self, op: Any) -> None:
        super().__init__(self._remove, _as_tracks(op), name=f"{op}(x) -> x")
        self.op = op

    def _remove(self, fgraph: FunctionGraph, node: Apply) -> Any:
        if node.op != self.op:
            return False
        if len(node.inputs) != len(node.outputs):
            raise ValueError(f"OpRemove({self.op}) replaces each output by the input of the same "
                             f"position; the node has {len(node.inputs)} inputs and "
                             f"{len(node.outputs)} outputs")
        return list(node.inputs)

    def op_key(self) -> Any:
        """The op whose nodes this removes (Theano's ``OpKeyOptimizer`` selects by it)."""
        return self.op

    def __str__(self) -> str:
        return self.name


class OpSub(FunctionNodeRewriter):
    """Theano's ``OpSub(op1, op2)``: every node applying ``op1`` becomes ``op2`` applied to the
    same inputs (``transfer_tags`` copies the node's tag, the creation trace included)."""

    def __init__(self, op1: Any, op2: Any, transfer_tags: bool = True) -> None:
        super().__init__(self._substitute, _as_tracks(op1), name=f"{op1} -> {op2}")
        self.op1, self.op2, self.transfer_tags = op1, op2, transfer_tags

    def _substitute(self, fgraph: FunctionGraph, node: Apply) -> Any:
        if node.op != self.op1:
            return False
        new = self.op2.make_node(*node.inputs)
        if self.transfer_tags:
            new.tag.update(node.tag)
            for old_out, new_out in zip(node.outputs, new.outputs):
                new_out.tag.update(old_out.tag)
        return list(new.outputs)

    def op_key(self) -> Any:
        """The op whose nodes this substitutes (Theano's ``OpKeyOptimizer`` selects by it)."""
        return self.op1

    def __str__(self) -> str:
        return self.name


def register_specialize_device(rewriter: Any, *tags: str, **kwargs: Any) -> Any:
    """Theano's registration for device-specific specializations: here the specialize phase
    (tags ``fast_run``, ``specialize``, ``specialize_device`` and ``tags``); the back ends
    choose device code themselves, after rewriting."""
    return register_specialize(rewriter, "specialize_device", *tags, **kwargs)


__all__ = ["LocalOptimizer", "OpRemove", "OpSub", "local_optimizer", "register_specialize_device"]
