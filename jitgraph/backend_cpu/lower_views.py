"""Shape, view and indexing ops: cheap NumPy code run by the driver ("Py" thunks).

These ops move no data (views) or very little (shapes, small vectors), so a compiled kernel would
cost compile time and save nothing. ``DimShuffle`` gets generated view code
(``transpose``/``reshape``) and is evaluated once at link time when its input is a constant;
the other ops of ``shape``, ``basic``, ``subtensor`` run their ``perform``, registered here so
that the ``c`` linker accepts them.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from jitgraph.graph.op import Op
from jitgraph.tensor.elemwise import DimShuffle

from jitgraph.backend_cpu.registry import PY, Lowered, has_lowering, lower, register_lowering

#: modules whose ops run ``perform`` as registered "Py" lowerings
PY_OP_MODULES = ("jitgraph.tensor.shape", "jitgraph.tensor.basic", "jitgraph.tensor.extra_ops",
                 "jitgraph.tensor.subtensor", "jitgraph.tensor.subtensor_ops")


@register_lowering(DimShuffle)
def lower_dimshuffle(op: DimShuffle, node: Any, ctx: Any) -> Lowered:
    value = ctx.known_value(node.inputs[0])
    if value is not None:
        cells: list = [[None]]
        op.perform(node, [value], cells)
        return Lowered(PY, lambda nc: [], constant_outputs=[cells[0][0]])
    perm = op.shuffle + op.drop
    identity = perm == tuple(range(len(perm)))

    def emit(nc: Any) -> list[str]:
        x = nc.local("x")
        lines = [f"{x} = {nc.inp(0)}"]
        if not identity:
            lines.append(f"{x} = {x}.transpose({perm!r})")
        if op.augment or op.drop:
            dims, k = [], 0
            for o in op.new_order:
                if o == "x":
                    dims.append("1")
                else:
                    dims.append(f"{x}.shape[{k}]")
                    k += 1
            shape = f"({', '.join(dims)},)" if dims else "()"
            lines.append(f"{x} = {x}.reshape({shape})")
        lines.append(nc.set_out(0, x))
        return lines

    return Lowered(PY, emit)


def _perform(op: Any, node: Any, ctx: Any) -> Lowered:
    from jitgraph.backend_cpu.driver import _perform_lowering

    return _perform_lowering(node, registered=True)


def register_py_ops() -> list[type]:
    """Register the perform lowering for every op class of :data:`PY_OP_MODULES`."""
    done = []
    for modname in PY_OP_MODULES:
        try:
            module = importlib.import_module(modname)
        except ImportError:
            continue
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (issubclass(cls, Op) and cls.__module__ == modname and cls is not Op
                    and not has_lowering_exact(cls)):
                register_lowering(cls)(_perform)
                done.append(cls)
    return done


def has_lowering_exact(cls: type) -> bool:
    return cls in lower.registry


PY_OPS = register_py_ops()
__all__ = ["lower_dimshuffle", "PY_OPS", "has_lowering"]
