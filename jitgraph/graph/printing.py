"""``debugprint``: a graph as an indented tree of lines, in Theano 1.0's exact layout.

Every line is one variable. A computed variable shows the op of its Apply node, an identifier
(``[id A]``), optionally its type, its name in quotes and, for compiled functions, the node's
position in the execution order::

    Elemwise{mul,no_inplace} [id A] ''   0
     |TensorConstant{2.0} [id B]
     |x [id C]

A node reached a second time is printed as one line (same identifier), without its inputs. The
layout, identifiers and spacing (trailing blanks included) are Theano's, so that text printed by a
Theano program and by the same program on jitgraph can be compared line by line.
"""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.pprinter import node_op_str

ID_STYLES = ("CHAR", "int", "id", "")

_TIMING_HEADER = """
Timing Info
-----------
--> <time> <% time> - <total time> <% total time>'

<time>         computation time for this node
<% time>       fraction of total computation time for this node
<total time>   time for this node + total times for this node's ancestors
<% total time> total time for this node over total computation time

N.B.:
* Times include the node time and the function overhead.
* <total time> and <% total time> may over-count computation times
  if inputs to a node share a common ancestor and should be viewed as a
  loose upper bound. Their intended use is to help rule out potential nodes
  to remove when optimizing a graph because their <total time> is very low.
"""


def char_id(number: int) -> str:
    """``number`` written in base 26 with the digits A..Z (0 -> 'A', 25 -> 'Z', 26 -> 'BA')."""
    digits = ""
    while True:
        number, rest = divmod(number, 26)
        digits = chr(ord("A") + rest) + digits
        if number == 0:
            return digits


# ---------------------------------------------------------------------------------------------
# What to print: one root per output variable, with the context of the object it came from

@dataclass
class _Root:
    var: Variable
    order: list[Apply] | None = None
    storage: dict | None = None
    profile: Any = None
    fgraph: FunctionGraph | None = None


def _function_graph(obj: Any) -> FunctionGraph | None:
    """The rewritten graph of a compiled function (recognised by ``maker.fgraph``)."""
    maker = getattr(obj, "maker", None)
    fgraph = getattr(maker, "fgraph", None)
    return fgraph if isinstance(fgraph, FunctionGraph) else None


def _function_storage(function: Any) -> dict | None:
    """The compiled function's storage cells (variable -> [value])."""
    storage_map = getattr(getattr(function, "fn", None), "storage_map", None)
    if storage_map is None:
        storage_map = getattr(getattr(function, "_program", None), "storage", None)
    return storage_map


def _roots_of(obj: Any, print_storage: bool, out: Any) -> list[_Root]:
    items = obj if isinstance(obj, (list, tuple, set)) else [obj]
    roots: list[_Root] = []
    for item in items:
        fgraph = _function_graph(item)
        if isinstance(item, Variable):
            roots.append(_Root(item))
        elif isinstance(item, Apply):
            roots.extend(_Root(o) for o in item.outputs)
        elif fgraph is not None:
            order = fgraph.toposort()
            storage = _function_storage(item) if print_storage else None
            profile = getattr(item, "profile", None)
            roots.extend(_Root(o, order, storage, profile, fgraph) for o in fgraph.outputs)
        elif isinstance(item, FunctionGraph):
            order = item.toposort()
            storage = getattr(item, "storage_map", None)
            profile = getattr(item, "profile", None)
            roots.extend(_Root(o, order, storage, profile, item) for o in item.outputs)
        elif isinstance(item, (int, float, np.ndarray)) and not isinstance(item, bool):
            print(item, file=out)
        elif isinstance(getattr(item, "variable", None), Variable):  # In / Out specifications
            roots.append(_Root(item.variable))
        else:
            raise TypeError(f"debugprint cannot print an object of type {type(item).__name__} "
                            f"({item!r}); expected a Variable, an Apply node, a FunctionGraph, "
                            "a compiled function, or a list of them")
    return roots


# ---------------------------------------------------------------------------------------------
# Identifiers

class _Ids:
    """Hands out the ``[id X]`` labels; ``done`` records the nodes whose inputs were printed."""

    def __init__(self, style: str, done: dict) -> None:
        self.style = style
        self.done = done
        self.used: dict[Any, str] = {}

    def label(self, obj: Any, printed_var: Variable, mark_done: bool = True) -> str:
        if obj in self.used:
            text = self.used[obj]
        elif isinstance(obj, str) and obj == "output":
            text = "output"
        elif self.style == "CHAR":
            text = f"[id {char_id(len(self.used))}]"
        elif self.style == "int":
            text = f"[id {len(self.used)}]"
        elif self.style == "id":
            # Theano labels by the address of the variable being printed
            text = f"[id {id(printed_var)}]"
        else:
            text = ""
        if mark_done:
            self.done[obj] = text
        self.used[obj] = text
        return text


# ---------------------------------------------------------------------------------------------
# Inner graphs (scan): ops that expose ``debugprint_inner(node)``

def _inner_graph(var: Variable) -> tuple[list[Variable], dict] | None:
    """``(inner outputs, {inner input: outer input})`` for the output of a loop op, else None.

    An op with an inner graph shows it after the outer graph (Theano does so for scan) by
    defining ``debugprint_inner(node)`` returning that pair.
    """
    node = var.owner
    describe = getattr(getattr(node, "op", None), "debugprint_inner", None)
    if describe is None:
        return None
    return describe(node)


@dataclass
class _Printer:
    """The settings of one ``debugprint`` call and the state shared by all its roots."""

    out: Any
    ids: _Ids
    print_type: bool
    stop_on_name: bool
    print_clients: bool
    loops: list[Variable] = field(default_factory=list)

    def note_loop(self, var: Variable) -> None:
        if var.owner is not None and _inner_graph(var) is not None and var not in self.loops:
            self.loops.append(var)

    def tree(self, root: Variable, depth: int, ctx: _Root, prefix: str = "",
             prefix_child: str | None = None, inner_to_outer: dict | None = None) -> None:
        """Print ``root`` and (once per node) what it is computed from, depth first."""
        stack: list[tuple[Variable, str, str, int]] = [
            (root, prefix, prefix if prefix_child is None else prefix_child, depth)]
        first = True
        while stack:
            var, pre, pre_child, left = stack.pop()
            if not first:  # (the caller notes the root)
                self.note_loop(var)
            first = False
            if left == 0:
                continue
            expand = self._line(var, pre, ctx, inner_to_outer)
            if not expand:
                continue
            inputs = var.owner.inputs
            children = []
            for k, inp in enumerate(inputs):
                last = k == len(inputs) - 1
                children.append((inp, pre_child + " |", pre_child + ("  " if last else " |"),
                                 left - 1))
            stack.extend(reversed(children))

    def _line(self, var: Variable, prefix: str, ctx: _Root, inner_to_outer: dict | None) -> bool:
        """Write the line of ``var``; True if its inputs should be printed below it."""
        type_text = f" <{var.type}>" if self.print_type else ""
        node = var.owner
        if node is None:
            self._leaf_line(var, prefix, type_text, ctx, inner_to_outer)
            return False
        already = node in self.ids.done
        label = self.ids.label(node, var)
        index = "" if len(node.outputs) == 1 else f".{node.outputs.index(var)}"
        position = str(ctx.order.index(node)) if ctx.order and node in ctx.order else ""
        data = f" {ctx.storage.get(node.outputs[0], '')}" if ctx.storage else ""
        clients = self._clients(var, ctx)
        name = var.name if var.name is not None else ""
        line = (f"{prefix}{node_op_str(node)}{index} {label}{type_text} '{name}'   "
                f"{position}{data}{clients}")
        line += self._timing(node, ctx)
        print(line, file=self.out)
        if already:
            return False
        return not (self.stop_on_name and var.name is not None)

    def _leaf_line(self, var: Variable, prefix: str, type_text: str, ctx: _Root,
                   inner_to_outer: dict | None) -> None:
        label = self.ids.label(var, var)
        if inner_to_outer is not None and var in inner_to_outer:
            outer = inner_to_outer[var]
            outer_label = self.ids.label(outer.owner if outer.owner is not None else outer, var)
            print(f"{prefix}{var} {label}{type_text} -> {outer_label}", file=self.out)
            return
        data = f" {ctx.storage.get(var, '')}" if ctx.storage else ""
        print(f"{prefix}{var} {label}{type_text}{data}", file=self.out)

    def _clients(self, var: Variable, ctx: _Root) -> str:
        if not self.print_clients or ctx.fgraph is None:
            return ""
        users = ctx.fgraph.clients.get(var, [])
        if len(users) <= 1:
            return ""
        # Theano lists the nodes first and the graph-output entries last
        users = ([u for u in users if not _is_output_client(u[0])]
                 + [u for u in users if _is_output_client(u[0])])
        order = ctx.order or []
        listed = [(self.ids.label(client, var, mark_done=False),
                   order.index(client) if client in order else "") for client, _ in users]
        return f" clients:{listed}"

    @staticmethod
    def _timing(node: Apply, ctx: _Root) -> str:
        profile = ctx.profile
        if profile is None or not getattr(profile, "fct_callcount", 0):
            return ""
        times = profile.apply_time
        if node not in times:
            return ""
        total_time = profile.fct_call_time or 1.0
        totals = _total_times(times)
        own, total = times[node], totals[node]
        return (f" --> {own:8.2e}s {own / total_time * 100:4.1f}% "
                f"{total:8.2e}s {total / total_time * 100:4.1f}%")


def _is_output_client(client: Any) -> bool:
    return isinstance(client, str) and client == "output"


def _total_times(times: dict[Apply, float]) -> dict[Apply, float]:
    """Each node's time plus the total times of the nodes computing its inputs."""
    totals: dict[Apply, float] = {}
    for start in times:
        stack = [start]
        while stack:
            node = stack[-1]
            if node in totals:
                stack.pop()
                continue
            parents = [i.owner for i in node.inputs if i.owner in times]
            missing = [p for p in parents if p not in totals]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            totals[node] = times[node] + sum(totals[p] for p in parents)
    return totals


# ---------------------------------------------------------------------------------------------
# The public function

def debugprint(obj: Any, depth: int = -1, print_type: bool = False, file: Any = None,
               ids: str = "CHAR", stop_on_name: bool = False, done: dict | None = None,
               print_storage: bool = False, print_clients: bool = False,
               used_ids: dict | None = None) -> Any:
    """Print the graph computing ``obj`` as an indented tree, as Theano's ``debugprint`` does.

    ``obj``: a Variable, an Apply node, a FunctionGraph, a compiled function, or a list of them.
    ``depth``: levels to print (-1: all). ``print_type``: add each variable's type.
    ``file``: None (standard output), ``'str'`` (return the text) or a file object (returned).
    ``ids``: ``'CHAR'`` (``[id A]``), ``'int'`` (``[id 0]``), ``'id'`` (Python ids) or ``''``.
    ``stop_on_name``: do not print what a named variable is computed from.
    ``done``: a dict shared between calls, so that a node printed by an earlier call is not
    expanded again. ``print_storage``: for a compiled function, show the value in each storage
    cell (with ``allow_gc=False`` the intermediate results stay there after a call).
    ``print_clients``: for nodes of a function or FunctionGraph used by more than one client,
    list the clients. ``used_ids`` is accepted for compatibility (Theano ignores it too).
    """
    if not isinstance(depth, (int, np.integer)) or isinstance(depth, bool):
        raise TypeError(f"debugprint: depth must be an int (-1 for no limit), got {depth!r}")
    if ids not in ID_STYLES:
        raise ValueError(f"debugprint: ids must be one of {ID_STYLES}, got {ids!r}")
    out = io.StringIO() if file == "str" else (sys.stdout if file is None else file)
    done = {} if done is None else done
    roots = _roots_of(obj, print_storage, out)
    printer = _Printer(out, _Ids(ids, done), print_type, stop_on_name, print_clients)
    if any(r.profile is not None and getattr(r.profile, "fct_callcount", 0) for r in roots):
        print(_TIMING_HEADER, file=out)
    for root in roots:
        printer.note_loop(root.var)
        printer.tree(root.var, depth, root)
    _print_inner_graphs(printer, depth)
    if file == "str":
        return out.getvalue()
    if file is None:
        out.flush()
        return None
    return file


def _print_inner_graphs(printer: _Printer, depth: int) -> None:
    if not printer.loops:
        return
    print("", file=printer.out)
    print("Inner graphs of the scan ops:", file=printer.out)
    done_loops: list[Variable] = []
    k = 0
    while k < len(printer.loops):  # inner graphs may hold loops of their own
        var = printer.loops[k]
        k += 1
        if var in done_loops:
            continue
        done_loops.append(var)
        inner_outputs, inner_to_outer = _inner_graph(var)
        print("", file=printer.out)
        printer.tree(var, depth, _Root(var), inner_to_outer=inner_to_outer)
        for inner in inner_outputs:
            printer.note_loop(inner)
            printer.tree(inner, depth, _Root(inner), prefix=" >", prefix_child=" >",
                         inner_to_outer=inner_to_outer)


def print_graph_outputs(outputs: Sequence[Variable]) -> str:
    """The debugprint text of ``outputs`` (one tree each, shared identifiers)."""
    return debugprint(list(outputs), file="str")


dprint = debugprint

# ``pp`` lived here before the pretty printer had a module of its own.
from jitgraph.graph.pprinter import pp, pprint  # noqa: E402,F401

__all__ = ["debugprint", "dprint", "char_id", "print_graph_outputs", "ID_STYLES", "pp", "pprint"]
