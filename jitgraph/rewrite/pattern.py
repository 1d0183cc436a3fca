"""Declarative rewrite rules: ``(op, "x", (op2, "y")) -> (op3, "x", "y")``.

Input patterns:

* ``(op, p1, p2, ...)``: a node whose op equals ``op`` (an Op instance) or is an instance of it
  (an Op class), with exactly as many inputs, each matching its sub-pattern;
* ``"x"``: any variable, bound to the name ``x``; a name used twice must match the same variable
  (or equal constants);
* a ``Variable`` or ``Constant``: that variable, or any constant equal to it;
* a number: a constant all of whose elements equal it;
* ``{"pattern": p, "constraint": pred}``: ``p``, provided ``pred(variable)`` is true.

Output patterns use the same tuples, names and variables; a tuple's head may also be any callable
building a variable (``(log1p, "x")``), and a callable ``fn(bindings)`` may build the whole result.
A ``constraint(bindings)`` on the rule can reject a match. Results whose type differs from the
replaced output are silently not applied.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.op import Op
from jitgraph.rewrite.context import copy_stack_trace
from jitgraph.rewrite.engine import NodeRewriter, NodeRewriterGroup, Tracked

Bindings = dict[str, Variable]


def _constant_equals(var: Variable, value: Any) -> bool:
    if not isinstance(var, Constant):
        return False
    import numpy as np

    try:
        data = np.asarray(var.data)
        return bool(data.size > 0 and np.all(data == value))
    except (TypeError, ValueError):
        return False


def _same(a: Variable, b: Variable) -> bool:
    return a is b or (isinstance(a, Constant) and a.equals(b))


def _n_clients(fgraph: FunctionGraph | None, var: Variable) -> int:
    if fgraph is None:
        return 1
    return len(fgraph.clients.get(var, ()))


def _fmt(pattern: Any) -> str:
    if isinstance(pattern, tuple):
        head = pattern[0]
        head_s = head.__name__ if isinstance(head, type) else getattr(head, "__name__", str(head))
        return f"({', '.join([head_s] + [_fmt(p) for p in pattern[1:]])})"
    if isinstance(pattern, dict):
        return _fmt(pattern["pattern"])
    return str(pattern)


class PatternNodeRewriter(NodeRewriter):
    """Replaces the output of a node matching ``in_pattern`` by ``out_pattern`` built from it."""

    def __init__(self, in_pattern: tuple, out_pattern: Any,
                 constraint: Callable[[Bindings], bool] | None = None,
                 allow_multiple_clients: bool = False, name: str | None = None) -> None:
        if not isinstance(in_pattern, tuple) or not in_pattern:
            raise TypeError(f"an input pattern must be a tuple (op, *args), not {in_pattern!r}")
        head = in_pattern[0]
        if not (isinstance(head, Op) or (isinstance(head, type) and issubclass(head, Op))):
            raise TypeError(f"an input pattern must start with an Op or Op class, not {head!r}")
        super().__init__(name or f"{_fmt(in_pattern)} -> {_fmt(out_pattern)}")
        self.in_pattern = in_pattern
        self.out_pattern = out_pattern
        self.constraint = constraint
        self.allow_multiple_clients = allow_multiple_clients

    def tracks(self) -> list[Tracked]:
        return [self.in_pattern[0]]

    # -- matching -------------------------------------------------------------------------
    def match(self, node: Apply, fgraph: FunctionGraph | None = None) -> Bindings | None:
        """The bindings if ``node`` matches the input pattern (and the constraint), else None."""
        bindings: Bindings = {}
        if not self._match_node(self.in_pattern, node, bindings, fgraph):
            return None
        if self.constraint is not None and not self.constraint(bindings):
            return None
        return bindings

    def _match_node(self, pattern: tuple, node: Apply, bindings: Bindings,
                    fgraph: FunctionGraph | None) -> bool:
        head, args = pattern[0], pattern[1:]
        if isinstance(head, type):
            if not isinstance(node.op, head):
                return False
        elif node.op != head:
            return False
        if len(args) != len(node.inputs):
            return False
        return all(self._match(p, v, bindings, fgraph) for p, v in zip(args, node.inputs))

    def _match(self, pattern: Any, var: Variable, bindings: Bindings,
               fgraph: FunctionGraph | None) -> bool:
        if isinstance(pattern, str):
            bound = bindings.get(pattern)
            if bound is None:
                bindings[pattern] = var
                return True
            return _same(bound, var)
        if isinstance(pattern, tuple):
            if var.owner is None:
                return False
            if not self.allow_multiple_clients and _n_clients(fgraph, var) > 1:
                return False
            return self._match_node(pattern, var.owner, bindings, fgraph)
        if isinstance(pattern, Mapping):
            if not self._match(pattern["pattern"], var, bindings, fgraph):
                return False
            pred = pattern.get("constraint")
            return pred is None or bool(pred(var))
        if isinstance(pattern, Variable):
            return _same(pattern, var)
        if isinstance(pattern, numbers.Number):
            return _constant_equals(var, pattern)
        raise TypeError(f"unsupported element in input pattern: {pattern!r}")

    # -- building -------------------------------------------------------------------------
    def build(self, pattern: Any, bindings: Bindings) -> Any:
        """The variable described by output ``pattern`` under ``bindings``."""
        if isinstance(pattern, str):
            if pattern not in bindings:
                raise ValueError(f"output pattern of {self.name} uses unbound name {pattern!r}")
            return bindings[pattern]
        if isinstance(pattern, tuple):
            head, args = pattern[0], [self.build(p, bindings) for p in pattern[1:]]
            if isinstance(head, Op):
                return head.make_node(*args).out
            return head(*args)
        if callable(pattern) and not isinstance(pattern, Variable):
            return pattern(bindings)
        return pattern

    def transform(self, fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
        if len(node.outputs) != 1:
            return None
        bindings = self.match(node, fgraph)
        if bindings is None:
            return None
        new = self.build(self.out_pattern, bindings)
        if not isinstance(new, Variable):
            return None
        old = node.outputs[0]
        if new.type != old.type:
            new = old.type.convert_variable(new)
            if new is None:
                return None
        if new.owner is not None and not hasattr(new.tag, "trace"):
            copy_stack_trace(old, new)
        return [new]


def pattern_table(rules: Iterable[Any], name: str | None = None) -> NodeRewriterGroup:
    """A group of pattern rules, each ``(in, out)``, ``(in, out, options)`` or a rewriter.

    ``options`` are keyword arguments of :class:`PatternNodeRewriter` (``constraint``,
    ``allow_multiple_clients``, ``name``). The group registers under one name; verbose output
    and statistics still name each rule.
    """
    members: list[NodeRewriter] = []
    for rule in rules:
        if isinstance(rule, NodeRewriter):
            members.append(rule)
        elif isinstance(rule, tuple) and len(rule) in (2, 3):
            options = rule[2] if len(rule) == 3 else {}
            members.append(PatternNodeRewriter(rule[0], rule[1], **options))
        else:
            raise TypeError(f"a pattern rule is (in, out) or (in, out, options), not {rule!r}")
    return NodeRewriterGroup(members, name=name or "pattern_table")

