"""Theano's ``theano.tensor.utils``: content hashes of code and arrays, and the numeric shape of
every variable of a graph given the shapes of its inputs.

The hashes are the ones Theano 1.0 computes (``'m'`` followed by a SHA-256 hex digest), so keys
recorded by Theano programs keep their values.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from jitgraph.graph.basic import ancestors
from jitgraph.graph.evaluate import evaluate
from jitgraph.graph.utils import hash_from_code
from jitgraph.tensor.rewriting.shape import get_shape_feature
from jitgraph.tensor.shaping.shape import Shape, Shape_i

if TYPE_CHECKING:
    from jitgraph.graph.basic import Variable
    from jitgraph.graph.fg import FunctionGraph

__all__ = ["hash_from_code", "hash_from_ndarray", "shape_of_variables"]


def hash_from_ndarray(data: np.ndarray | np.generic) -> str:
    """A hash of an array's values, shape and dtype.

    The data alone is not enough: arrays of shapes (1, 0) and (2, 0) hold the same (no) bytes, and
    int32 and uint32 zeros too. Arrays equal in values, shape and dtype hash alike whatever their
    memory layout (a Fortran-ordered array hashes as its C-ordered copy); a transposed array is a
    different array.
    """
    if not isinstance(data, (np.ndarray, np.generic)):
        raise TypeError("hash_from_ndarray expects a numpy.ndarray (or NumPy scalar), got "
                        f"{type(data).__module__}.{type(data).__qualname__}")
    contiguous = np.ascontiguousarray(data) if isinstance(data, np.ndarray) else np.asarray(data)
    if contiguous.ndim != data.ndim:  # ascontiguousarray makes 0-d arrays 1-d on old NumPy
        contiguous = contiguous.reshape(data.shape)
    parts = (contiguous, str(contiguous.shape), str(contiguous.strides), str(contiguous.dtype))
    return hash_from_code("".join(hash_from_code(p) for p in parts))


# -- numeric shapes of a FunctionGraph ------------------------------------------------------------

def _check_input_shapes(fgraph: "FunctionGraph", input_shapes: Mapping["Variable", Any]
                        ) -> dict["Variable", tuple[int, ...]]:
    """``input_shapes`` as int tuples, one per graph input; errors name the input at fault."""
    strangers = [var for var in input_shapes if var not in fgraph.inputs]
    if strangers:
        raise ValueError(
            f"shape_of_variables: {', '.join(map(str, strangers))} not among the graph's inputs "
            f"{fgraph.inputs}. FunctionGraph clones its graph unless built with clone=False: "
            "give the shapes of fgraph.inputs, or build the graph with clone=False")
    shapes = {}
    for inp in fgraph.inputs:
        if inp not in input_shapes:
            raise KeyError(f"shape_of_variables: no shape given for the graph input {inp} "
                           f"({inp.type})")
        shape = tuple(int(d) for d in np.asarray(input_shapes[inp]).reshape(-1))
        ndim = getattr(inp.type, "ndim", None)
        if ndim is not None and len(shape) != ndim:
            raise ValueError(f"shape_of_variables: input {inp} has {ndim} dimension(s) "
                             f"({inp.type}), its shape {shape} has {len(shape)}")
        broadcastable = getattr(inp.type, "broadcastable", ())
        for axis, (dim, bcast) in enumerate(zip(shape, broadcastable)):
            if bcast and dim != 1:
                raise ValueError(f"shape_of_variables: input {inp} ({inp.type}) is broadcastable "
                                 f"along axis {axis}, where its shape {shape} is not 1")
        shapes[inp] = shape
    return shapes


def _shape_read(var: "Variable", shapes: Mapping["Variable", tuple[int, ...]]) -> Any:
    """The value of ``var`` when it reads only the shape of a graph input (``Shape_i(d)(x)``,
    ``Shape(x)``, the shape output of a sparse matrix's ``CSMProperties``), else None."""
    import sys

    node = var.owner
    if node is None or not node.inputs or node.inputs[0] not in shapes:
        return None
    shape = shapes[node.inputs[0]]
    if isinstance(node.op, Shape_i):
        return np.asarray(shape[node.op.i], dtype=var.type.dtype)
    if isinstance(node.op, Shape):
        return np.asarray(shape, dtype=var.type.dtype)
    sparse = sys.modules.get("jitgraph.sparse.basic")  # a sparse input means it is loaded
    if sparse is not None and isinstance(node.op, sparse.CSMProperties) \
            and var is node.outputs[3]:
        return np.asarray(shape, dtype=var.type.dtype)
    return None


def _input_dim_values(dims: Sequence["Variable"], shapes: Mapping["Variable", tuple[int, ...]]
                      ) -> dict["Variable", Any]:
    """The value of every variable of the dims' graphs that reads only an input's shape."""
    values: dict[Variable, Any] = {}
    for var in ancestors(list(dims), blockers=list(shapes)):
        value = _shape_read(var, shapes)
        if value is not None:
            values[var] = value
    return values


def shape_of_variables(fgraph: "FunctionGraph", input_shapes: Mapping["Variable", Any]
                       ) -> dict["Variable", tuple[np.ndarray, ...]]:
    """The shape of every variable of ``fgraph`` given the shapes of its inputs.

    ``input_shapes`` maps each of ``fgraph.inputs`` to its shape (a tuple of ints). The result
    maps every variable of the graph (constants included) to a tuple of 0-d int64 arrays, one
    per dimension, computed from the shape inference of the graph's ops (no input values are
    needed, and none of the graph's computations runs).

    As in Theano this attaches a ShapeFeature to ``fgraph`` (``fgraph.shape_feature``) when it
    has none, and leaves it there. A variable whose shape depends on input values (the output of
    ``nonzero``, say) cannot be sized from shapes alone: that raises ValueError naming it.
    """
    shapes = _check_input_shapes(fgraph, input_shapes)
    feature = get_shape_feature(fgraph)
    symbolic = {var: shape for var, shape in feature.shape_of.items()
                if shape is not None and var in fgraph.variables}
    dims = list(dict.fromkeys(d for shape in symbolic.values() for d in shape))
    givens = _input_dim_values(dims, shapes)
    needs_values = {v for v in ancestors(dims, blockers=list(givens)) if v in shapes}
    if needs_values:
        culprits = [str(var) for var, shape in symbolic.items()
                    if any(v in needs_values for v in ancestors(list(shape),
                                                                blockers=list(givens)))]
        raise ValueError("shape_of_variables: the shapes of " + ", ".join(culprits) +
                         " depend on the values of " + ", ".join(map(str, needs_values)) +
                         ", not only on the input shapes")
    numeric = dict(zip(dims, evaluate(dims, givens))) if dims else {}
    return {var: tuple(np.asarray(numeric[d], dtype="int64") for d in shape)
            for var, shape in symbolic.items()}
