"""Output shapes of a Scan node, from the shapes of its inputs where possible.

The buffers' lengths follow from ``n_steps`` (not for a do-while loop, which may stop early);
the shape of a step's value is the inner graph's shape inference, used when it depends only on
the shapes (not the values) of the inner inputs. Anything else is read from the output at run
time (``Shape_i``).
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.tensor.elementwise.math import minimum
from jitgraph.tensor.rewriting.shape import ShapeFeature
from jitgraph.tensor.shaping.shape import Shape_i


def scan_output_shapes(op: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                       ) -> list[tuple | None]:
    info = op.info
    n_steps = node.inputs[0]
    inner_shapes = _inner_output_shapes(op, node, input_shapes)
    shapes: list[tuple] = []
    for k, out in enumerate(node.outputs):
        if not hasattr(out.type, "broadcastable"):
            shapes.append(None)  # a shared state that is not a tensor (a random stream)
            continue
        runtime = [Shape_i(d).make_node(out).outputs[0] for d in range(out.ndim)]
        if k < info.n_rec:
            init_shape = input_shapes[info.outer_inits().start + k]
            length = runtime[0]
            if not info.as_while:
                length = n_steps + info.n_init(k)
                if info.keep[k]:
                    length = minimum(length, info.keep[k])
            shapes.append((length, *init_shape[1:]))
        elif k < info.n_rec + info.n_nit_sot:
            step = inner_shapes[k]
            dims = list(step) if step is not None else runtime[1:]
            length = runtime[0] if info.as_while else n_steps
            shapes.append((length, *dims))
        else:
            shapes.append(tuple(runtime))
    return shapes


def _inner_output_shapes(op: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                         ) -> list[tuple | None]:
    """Per inner output, its shape written with the outer inputs' shapes, or None."""
    info = op.info
    inner_in = op.inner.inputs
    outer_dims: dict[Variable, Sequence[Any]] = {}
    for inner, shape in zip(inner_in[info.inner_seqs()], input_shapes[info.outer_seqs()]):
        outer_dims[inner] = shape[1:]
    for k in range(info.n_rec):
        init_shape = input_shapes[info.outer_inits().start + k]
        for inner in inner_in[info.inner_taps(k)]:
            outer_dims[inner] = init_shape[1:]
    for inner, shape in zip(inner_in[info.inner_shared()], input_shapes[info.outer_shared()]):
        outer_dims[inner] = shape
    for inner, shape in zip(inner_in[info.inner_non_seqs()], input_shapes[info.outer_non_seqs()]):
        outer_dims[inner] = shape
    feature = ShapeFeature()
    results: list[tuple | None] = []
    for out in op.inner.outputs:
        if not hasattr(out.type, "broadcastable"):
            results.append(None)
            continue
        try:
            dims = feature.get_shape(out)
            results.append(tuple(_translate(d, outer_dims, Shape_i, {}) for d in dims))
        except (_ValueDependent, RecursionError, NotImplementedError):
            results.append(None)
    return results


class _ValueDependent(Exception):
    """A dim of an inner output depends on the values of inner inputs, not only their shapes."""


def _translate(dim: Variable, outer_dims: dict, shape_i_cls: type, memo: dict) -> Variable:
    """``dim`` (a graph over inner variables) rewritten over the outer inputs' dims."""
    if dim in memo:
        return memo[dim]
    if isinstance(dim, Constant):
        result = dim
    elif dim.owner is None:
        raise _ValueDependent(dim)
    elif isinstance(dim.owner.op, shape_i_cls) and dim.owner.inputs[0] in outer_dims:
        shape = outer_dims[dim.owner.inputs[0]]
        if shape is None:
            raise _ValueDependent(dim)
        result = shape[dim.owner.op.i]
    else:
        inputs = [_translate(i, outer_dims, shape_i_cls, memo) for i in dim.owner.inputs]
        if all(a is b for a, b in zip(inputs, dim.owner.inputs)):
            result = dim
        else:
            result = dim.owner.clone_with_new_inputs(inputs, strict=False).outputs[dim.index]
    memo[dim] = result
    return result
