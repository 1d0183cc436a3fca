"""Lowering of ``IfElse`` and ``LazyIfElse``: the driver calls the op, which picks the branch.

Neither computes anything but the choice (the lazy form runs the taken branch's inner graph,
itself compiled by the CPU backend), so both are Python lines of the driver (``Py`` thunks),
registered so that the strict ``c`` linker accepts graphs with conditionals.
"""

from __future__ import annotations

from typing import Any

from jitgraph.ifelse.lazy import LazyIfElse
from jitgraph.ifelse.op import IfElse

from jitgraph.backend_cpu.lowering.registry import PY, Lowered, register_lowering


@register_lowering(IfElse, LazyIfElse)
def lower_ifelse(op: Any, node: Any, ctx: Any) -> Lowered:
    def emit(nc: Any) -> list[str]:
        perform = nc.b.ref(node.op.perform, "perform")
        target = nc.b.new_global(node, "node")
        outs = nc.b.new_global([nc.b.storage[o] for o in node.outputs], "outcells")
        args = ", ".join(nc.inp(j) for j in range(len(node.inputs)))
        return [f"{perform}({target}, [{args}], {outs})"]

    return Lowered(PY, emit)
