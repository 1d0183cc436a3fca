"""Whether the nodes of a rewritten graph still point at user code: :func:`check_stack_trace`
(Theano's ``theano.gof.opt.check_stack_trace``), for tests of rewrites that must keep the stack
traces (``tag.trace``) of the variables they replace (see
:func:`jitgraph.rewrite.context.copy_stack_trace`)."""

from __future__ import annotations

import inspect
import warnings
from typing import Any, Callable, Iterable

from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.op import Op

_ON_MISSING = ("raise", "warn", "ignore")


def _fgraph_of(f_or_fgraph: Any) -> FunctionGraph:
    if isinstance(f_or_fgraph, FunctionGraph):
        return f_or_fgraph
    fgraph = getattr(getattr(f_or_fgraph, "maker", None), "fgraph", None)
    if isinstance(fgraph, FunctionGraph):  # a compiled function
        return fgraph
    raise ValueError("check_stack_trace looks at a compiled function or a FunctionGraph; got "
                     f"{type(f_or_fgraph).__name__}")


def _matches(node: Apply, instances: list[Op], classes: tuple[type, ...]) -> bool:
    op = node.op
    if any(op == inst for inst in instances):
        return True
    scalar_op = getattr(op, "scalar_op", None)  # an Elemwise counts as its scalar op's class
    return isinstance(op, classes) or (scalar_op is not None and isinstance(scalar_op, classes))


def _selected_nodes(fgraph: FunctionGraph, ops_to_check: Any) -> list[Apply]:
    if isinstance(ops_to_check, Op) or (inspect.isclass(ops_to_check)
                                        and issubclass(ops_to_check, Op)):
        ops_to_check = (ops_to_check,)
    if isinstance(ops_to_check, str):
        if ops_to_check == "last":
            return [out.owner for out in fgraph.outputs if out.owner is not None]
        if ops_to_check == "all":
            return list(fgraph.apply_nodes)
        raise ValueError(f"ops_to_check={ops_to_check!r}: the strings accepted are 'last' (the "
                         "nodes computing the outputs) and 'all'")
    if isinstance(ops_to_check, (tuple, list)):
        instances = [o for o in ops_to_check if isinstance(o, Op)]
        classes = tuple(o for o in ops_to_check if not isinstance(o, Op))
        return [n for n in fgraph.toposort() if _matches(n, instances, classes)]
    if callable(ops_to_check):
        select: Callable[[Apply], bool] = ops_to_check
        return [n for n in fgraph.toposort() if select(n)]
    raise ValueError("ops_to_check is 'last', 'all', an Op (class or instance), a list or tuple "
                     f"of them, or a function of a node; got {type(ops_to_check).__name__}")


def _all_traced(nodes: Iterable[Apply]) -> bool:
    return all(getattr(out.tag, "trace", None) for node in nodes for out in node.outputs)


def check_stack_trace(f_or_fgraph: Any, ops_to_check: Any = "last",
                      bug_print: str = "raise") -> bool:
    """Whether every output of the selected nodes of ``f_or_fgraph`` (a compiled function or a
    FunctionGraph) has a stack trace (a non-empty ``tag.trace``).

    ``ops_to_check``: ``'last'`` (the nodes computing the graph's outputs), ``'all'``, an Op
    class or instance or a list/tuple of them (an ``Elemwise`` matches its scalar op's class
    too), or a function taking a node and saying whether to check it. ``bug_print``: what to do
    when nothing is selected -- ``'raise'`` (ValueError), ``'warn'`` or ``'ignore'``; the
    result is then True.
    """
    if bug_print not in _ON_MISSING:
        raise ValueError(f"bug_print={bug_print!r}: expected one of {_ON_MISSING}")
    nodes = _selected_nodes(_fgraph_of(f_or_fgraph), ops_to_check)
    if not nodes:
        msg = (f"check_stack_trace: no node of the graph matches ops_to_check={ops_to_check!r} "
               "(or the graph has no node)")
        if bug_print == "raise":
            raise ValueError(msg)
        if bug_print == "warn":
            warnings.warn(msg, stacklevel=2)
    return _all_traced(nodes)


__all__ = ["check_stack_trace"]
