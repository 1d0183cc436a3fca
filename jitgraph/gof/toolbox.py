"""``theano.gof.toolbox``: FunctionGraph features (listeners attached with
``fgraph.attach_feature``).

``Feature`` and ``History`` are jitgraph's own (:mod:`jitgraph.graph.fg`,
:mod:`jitgraph.rewrite.features`); ``ReplaceValidate``, ``Validator``, ``NodeFinder``,
``PrintListener``, ``PreserveNames``, ``PreserveVariableAttributes`` and
``NoOutputFromInplace`` are the small features of Theano's module, written on jitgraph's hooks.
"""

from __future__ import annotations

from typing import Any

from jitgraph.compile.debugmode_errors import BadOptimization
from jitgraph.graph.basic import Variable
from jitgraph.graph.fg import Feature, FunctionGraph, InconsistencyError
from jitgraph.rewrite.features import History
from jitgraph.rewrite.validate_features import ReplaceValidate, Validator


class AlreadyThere(Exception):
    """A feature was attached to a graph that already has it."""


class ReplacementDidntRemovedError(Exception):
    """A replacement meant to remove some nodes left them in the graph."""


class NodeFinder(Feature):
    """Keeps the graph's nodes by op: ``fgraph.get_nodes(op)`` lists the nodes applying
    ``op``."""

    def on_attach(self, fgraph: FunctionGraph) -> None:
        self._by_op: dict[Any, list[Any]] = {}
        for node in fgraph.toposort():
            self.on_import(fgraph, node, "on_attach")
        fgraph.get_nodes = lambda op: list(self._by_op.get(op, ()))  # type: ignore[attr-defined]

    def on_detach(self, fgraph: FunctionGraph) -> None:
        fgraph.__dict__.pop("get_nodes", None)

    def on_import(self, fgraph: FunctionGraph, node: Any, reason: Any) -> None:
        self._by_op.setdefault(node.op, []).append(node)

    def on_prune(self, fgraph: FunctionGraph, node: Any, reason: Any) -> None:
        nodes = self._by_op.get(node.op, [])
        if node in nodes:
            nodes.remove(node)


class PrintListener(Feature):
    """Prints every event of the graph it is attached to (when ``active``)."""

    def __init__(self, active: bool = True) -> None:
        self.active = active

    def on_attach(self, fgraph: FunctionGraph) -> None:
        if self.active:
            print("-- attaching to:", fgraph)

    def on_detach(self, fgraph: FunctionGraph) -> None:
        if self.active:
            print("-- detaching from:", fgraph)

    def on_import(self, fgraph: FunctionGraph, node: Any, reason: Any) -> None:
        if self.active:
            print(f"-- importing: {node}, reason: {reason}")

    def on_prune(self, fgraph: FunctionGraph, node: Any, reason: Any) -> None:
        if self.active:
            print(f"-- pruning: {node}, reason: {reason}")

    def on_change_input(self, fgraph: FunctionGraph, node: Any, i: int, old: Variable,
                        new: Variable, reason: Any) -> None:
        if self.active:
            print(f"-- changing ({node}.inputs[{i}]) from {old} to {new}")


class PreserveVariableAttributes(Feature):
    """A variable replacing a named one takes its name (and its test value when it has none)."""

    def on_change_input(self, fgraph: FunctionGraph, node: Any, i: int, old: Variable,
                        new: Variable, reason: Any) -> None:
        if old.name is not None and new.name is None:
            new.name = old.name
        value = getattr(old.tag, "test_value", None)
        if value is not None and getattr(new.tag, "test_value", None) is None:
            new.tag.test_value = value


class PreserveNames(Feature):
    """A variable replacing a named one takes its name."""

    def on_change_input(self, fgraph: FunctionGraph, node: Any, i: int, old: Variable,
                        new: Variable, reason: Any) -> None:
        if old.name is not None and new.name is None:
            new.name = old.name


class NoOutputFromInplace(Feature):
    """Rejects (``InconsistencyError``) graphs where one of the chosen outputs is computed by
    a node that overwrites an input."""

    def __init__(self, first_output_idx: int = 0, last_output_idx: int | None = None) -> None:
        self.first_idx = first_output_idx
        self.last_idx = last_output_idx

    def validate(self, fgraph: FunctionGraph) -> None:
        for out in fgraph.outputs[self.first_idx:self.last_idx]:
            node = out.owner
            if node is None:
                continue
            destroy_map = getattr(node.op, "destroy_map", None) or {}
            if node.outputs.index(out) in destroy_map:
                raise InconsistencyError(f"the output {out} of the graph is computed in place "
                                         f"(by {node.op}), which this graph does not allow")


__all__ = ["Feature", "History", "Validator", "ReplaceValidate", "NodeFinder", "PrintListener",
           "PreserveNames", "PreserveVariableAttributes", "NoOutputFromInplace",
           "AlreadyThere", "ReplacementDidntRemovedError", "BadOptimization",
           "InconsistencyError"]
