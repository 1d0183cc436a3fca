"""Text views of graphs: ``debugprint`` (Theano's indented tree) and ``pp`` (infix formula)."""

from __future__ import annotations

import io
import string
import sys
from typing import Any, Sequence

from jitgraph.graph.basic import Apply, Constant, Variable


def _id_maker(style: str):
    ids: dict[int, str] = {}

    def make(obj: Any) -> str:
        key = id(obj)
        if key not in ids:
            n = len(ids)
            if style == "CHAR":
                label, letters = "", string.ascii_uppercase
                n += 1
                while n:
                    n, r = divmod(n - 1, 26)
                    label = letters[r] + label
            elif style == "int":
                label = str(n)
            else:
                label = hex(key)
            ids[key] = label
        return ids[key]

    return make


def debugprint(obj: Any, depth: int = -1, print_type: bool = False, file: Any = None,
               ids: str = "CHAR", stop_on_name: bool = False, done: dict | None = None,
               print_storage: bool = False) -> Any:
    """Print the graph computing ``obj`` (a variable, list of variables, Apply node, function or
    FunctionGraph) as an indented tree. ``file='str'`` returns the text instead."""
    outputs, order = _roots(obj)
    buf = io.StringIO()
    make_id = _id_maker(ids)
    printed: set[int] = set() if done is None else done  # type: ignore[assignment]
    for out in outputs:
        _print_var(out, buf, "", depth, print_type, make_id, printed, order, stop_on_name, True)
    text = buf.getvalue()
    if file == "str":
        return text
    (file or sys.stdout).write(text)
    return file


def _roots(obj: Any) -> tuple[list[Variable], dict[Apply, int] | None]:
    fgraph = getattr(getattr(obj, "maker", None), "fgraph", None)
    if fgraph is None and hasattr(obj, "toposort") and hasattr(obj, "outputs"):
        fgraph = obj
    if fgraph is not None:
        return list(fgraph.outputs), {n: i for i, n in enumerate(fgraph.toposort())}
    if isinstance(obj, Apply):
        return list(obj.outputs), None
    if isinstance(obj, Variable):
        return [obj], None
    if isinstance(obj, (list, tuple)):
        outs: list[Variable] = []
        for item in obj:
            outs.extend(_roots(item)[0])
        return outs, None
    raise TypeError(f"debugprint cannot print a {type(obj).__name__}")


def _print_var(var: Variable, buf: io.StringIO, prefix: str, depth: int, print_type: bool,
               make_id: Any, printed: set, order: dict | None, stop_on_name: bool,
               top: bool) -> None:
    if depth == 0:
        return
    type_text = f" <{var.type}>" if print_type else ""
    node = var.owner
    if node is None:
        buf.write(f"{prefix}{var} [id {make_id(var)}]{type_text}\n")
        return
    name = f"'{var.name}'" if var.name else "''"
    out_index = f".{var.index}" if len(node.outputs) > 1 else ""
    already = id(node) in printed
    position = f"   {order[node]}" if order is not None and node in order else ""
    buf.write(f"{prefix}{node.op}{out_index} [id {make_id(node)}] {name}{type_text}{position}\n")
    if already or (stop_on_name and var.name and not top):
        return
    printed.add(id(node))
    child_prefix = (prefix.replace("|", " ") if prefix else "") + " |"
    for inp in node.inputs:
        _print_var(inp, buf, child_prefix, depth - 1, print_type, make_id, printed, order,
                   stop_on_name, False)


_INFIX = {"add": "+", "sub": "-", "mul": "*", "true_div": "/", "int_div": "//", "pow": "**",
          "mod": "%", "eq": "==", "neq": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
          "and_": "&", "or_": "|", "xor": "^"}


def pp(obj: Any) -> str:
    """A one-line infix formula for ``obj`` (a variable, or a function's outputs)."""
    outputs, _ = _roots(obj)
    return "\n".join(_pp_var(o) for o in outputs)


def _pp_var(var: Variable) -> str:
    node = var.owner
    if node is None:
        if isinstance(var, Constant) and var.name is None:
            return var.type.short_value_repr(var.data) if hasattr(var.type, "short_value_repr") \
                else str(var)
        return str(var)
    op = node.op
    scalar_op = getattr(op, "scalar_op", None)
    args = [_pp_var(i) for i in node.inputs]
    if scalar_op is not None and scalar_op.name in _INFIX:
        return "(" + f" {_INFIX[scalar_op.name]} ".join(args) + ")"
    if scalar_op is not None and scalar_op.name == "neg":
        return f"(-{args[0]})"
    label = scalar_op.name if scalar_op is not None else str(op)
    if type(op).__name__ == "DimShuffle":
        return f"{args[0]}.dimshuffle({', '.join(map(str, op.new_order))})"
    return f"{label}({', '.join(args)})"


def pprint(obj: Any) -> str:
    return pp(obj)


def print_graph_outputs(outputs: Sequence[Variable]) -> str:
    return debugprint(list(outputs), file="str")
