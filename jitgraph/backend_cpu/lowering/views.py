"""Shape, view and indexing ops: cheap NumPy code run by the driver ("Py" thunks).

These ops move no data (views) or very little (shapes, small vectors), so a compiled kernel would
cost compile time and save nothing. ``DimShuffle`` gets generated view code
(``transpose``/``reshape``) and is evaluated once at link time when its input is a constant;
the other ops of ``shape``, ``basic``, ``subtensor`` run their ``perform``, registered here so
that the ``c`` linker accepts them.
"""

from __future__ import annotations

import importlib
from typing import Any

from jitgraph.backend_cpu.runtime.program import int64_scalar
from jitgraph.backend_cpu.lowering.registry import (PY, Lowered, has_lowering, lower,
                                                    register_lowering)
from jitgraph.graph.op import Op
from jitgraph.tensor.core.basic import Alloc
from jitgraph.tensor.elementwise.elemwise import DimShuffle
from jitgraph.tensor.shaping.shape import Shape_i
from jitgraph.backend_cpu.runtime.driver import _perform_lowering

#: modules whose ops run ``perform`` as registered "Py" lowerings
PY_OP_MODULES = (
    "jitgraph.tensor.shaping.shape",
    "jitgraph.tensor.core.basic",
    "jitgraph.tensor.extras.extra_ops",
    "jitgraph.tensor.indexing.subtensor",
    "jitgraph.tensor.indexing.subtensor_ops",
    "jitgraph.tensor.shaping.special_matrices",
    "jitgraph.tensor.indexing.nonzero_ops",
    "jitgraph.tensor.indexing.reorder",
    "jitgraph.tensor.shaping.assemble",
    "jitgraph.tensor.core.theano_op_classes",
)


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


@register_lowering(Shape_i)
def lower_shape_i(op: Shape_i, node: Any, ctx: Any) -> Lowered:
    as_int64 = ctx.ref(int64_scalar, "int64_scalar")
    return Lowered(PY, lambda nc: [nc.set_out(0, f"{as_int64}({nc.inp(0)}.shape[{op.i}])")])


@register_lowering(Alloc)
def lower_alloc(op: Alloc, node: Any, ctx: Any) -> Lowered:
    """A scalar value filling a fresh array: generated code (``zeros`` for a constant 0);
    anything else, or a negative dimension (for its error message), through ``perform``."""
    general = _perform_lowering(node, registered=True)
    if node.inputs[0].ndim != 0:
        return general
    value = ctx.known_value(node.inputs[0])
    zero = value is not None and not value.any()

    def emit(nc: Any) -> list[str]:
        shp, out = nc.local("shape"), nc.local("o")
        dims = [f"int({nc.inp(j)})" for j in range(1, len(node.inputs))]
        dtype = nc.b.dtype(node.outputs[0].dtype)
        lines = [f"{shp} = ({', '.join(dims)}{',' if len(dims) == 1 else ''})",
                 f"if {' or '.join(f'{shp}[{k}] < 0' for k in range(len(dims))) or 'False'}:",
                 *[f"    {line}" for line in general.emit(nc)],
                 "else:"]
        if zero:
            lines.append(f"    {out} = np.zeros({shp}, {dtype})")
        else:
            lines += [f"    {out} = empty({shp}, {dtype})", f"    {out}.fill({nc.inp(0)})"]
        lines.append(f"    {nc.set_out(0, out)}")
        return lines

    return Lowered(PY, emit)


def _perform(op: Any, node: Any, ctx: Any) -> Lowered:
    return _perform_lowering(node, registered=True)


def register_py_ops() -> list[type]:
    """Register the perform lowering for every op class of :data:`PY_OP_MODULES`."""
    done = []
    for modname in PY_OP_MODULES:
        try:
            module = importlib.import_module(modname)
        except ImportError:
            continue
        # The module's own dict, not inspect.getmembers: dir() of a module the Theano facade
        # augments resolves every facade name (35 ms of a cold compile's imports).
        for cls in list(vars(module).values()):
            if (isinstance(cls, type) and issubclass(cls, Op) and cls.__module__ == modname
                    and cls is not Op
                    and not has_lowering_exact(cls)):
                register_lowering(cls)(_perform)
                done.append(cls)
    return done


def has_lowering_exact(cls: type) -> bool:
    return cls in lower.registry


PY_OPS = register_py_ops()
__all__ = ["lower_dimshuffle", "PY_OPS", "has_lowering"]
