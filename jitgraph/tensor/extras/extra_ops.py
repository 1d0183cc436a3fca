"""``theano.tensor.extra_ops``: the extra array ops under the path Theano users import them from.

Defined here: ``arange``/``ARange``, ``repeat``/``RepeatOp``, ``tile``, ``compress``,
``bartlett``/``Bartlett`` and ``cpu_contiguous``/``CpuContiguous``. Defined in the module of
their concept and re-exported: running sums/products and differences (:mod:`.cumulative`),
``bincount``/``searchsorted``/``to_one_hot`` (:mod:`.binning`), ``ravel_multi_index``/
``unravel_index`` (:mod:`.index_ravel`), ``Unique`` (:mod:`.unique`), the diagonal fills
(:mod:`.diagonal_fill`), and Theano's re-exports of graph types.

``__all__`` lists what ``jitgraph.tensor`` star-imports from here: the names Theano 1.0's
``theano.tensor`` takes from ``extra_ops``, plus ``arange``/``tile``/``ARange``/``Repeat``; the
other names are importable from this module but not star-exported.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.assertion import Assert
from jitgraph.tensor.core.basic import (NotScalarConstantError, alloc, concatenate,
                                        get_scalar_constant_value, get_vector_length, ones,
                                        zeros_like)
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.shaping.dims import _dim, _eq, _is_pyint, _mul, _prod, _switch
from jitgraph.tensor.elementwise.elemwise import _fit_gradient, dimshuffle
from jitgraph.tensor.shaping.shape import _shape_dims, reshape, shape_i
from jitgraph.tensor.core.type import TensorType

# Theano's extra_ops names that are defined in the module of their concept
from jitgraph.graph.c_code import ParamsType  # noqa: F401
from jitgraph.graph.enum_type import EnumList  # noqa: F401
from jitgraph.graph.gradient_types import DisconnectedType, disconnected_type  # noqa: F401
from jitgraph.graph.type import GenericType as Generic  # noqa: F401
from jitgraph.tensor.extras.binning import (SearchsortedOp, bincount, searchsorted,  # noqa: F401
                                     to_one_hot)
from jitgraph.tensor.extras.cumulative import (CumOp, CumprodOp, CumsumOp, DiffOp,  # noqa: F401
                                        cumprod, cumsum, diff)
from jitgraph.tensor.shaping.diagonal_fill import (FillDiagonal, FillDiagonalOffset,  # noqa: F401
                                           fill_diagonal, fill_diagonal_, fill_diagonal_offset,
                                           fill_diagonal_offset_)
from jitgraph.tensor.indexing.index_ravel import (RavelMultiIndex, UnravelIndex,  # noqa: F401
                                         ravel_multi_index, unravel_index)
from jitgraph.tensor.shaping.shape import squeeze
from jitgraph.tensor.extras.unique import Unique  # noqa: F401
from jitgraph.tensor.elementwise import math
from jitgraph.tensor.elementwise.math import cast, maximum, neq, second
from jitgraph.tensor.elementwise.reduction import sum as tsum
from jitgraph.tensor.indexing.subtensor_ops import AdvancedIncSubtensor1

#: what ``jitgraph.tensor`` star-imports: the names Theano 1.0's ``theano.tensor`` takes from
#: ``extra_ops`` (DisconnectedType, Generic, ParamsType come to it from their own modules)
__all__ = ["ARange", "arange", "Repeat", "repeat", "tile",
           "DiffOp", "bartlett", "bincount", "cumprod", "cumsum", "fill_diagonal",
           "fill_diagonal_offset", "ravel_multi_index", "squeeze", "unravel_index"]


# ---------------------------------------------------------------------------------------------
# ARange

class ARange(Op):
    """``numpy.arange(start, stop, step)`` of dtype ``dtype`` (inputs are scalars)."""

    __props__ = ("dtype",)

    def __init__(self, dtype: str) -> None:
        self.dtype = dt.normalize_dtype(dtype)

    def __str__(self) -> str:
        return f"ARange{{dtype='{self.dtype}'}}"

    def make_node(self, start: Any, stop: Any, step: Any) -> Apply:
        args = [as_tensor_variable(a) for a in (start, stop, step)]
        for name, a in zip(("start", "stop", "step"), args):
            if a.ndim != 0:
                raise TypeError(f"{self}: {name} must be a scalar, got {a} ({a.type})")
        return Apply(self, args, [TensorType(self.dtype, (False,)).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        start, stop, step = (np.asarray(i).item() for i in inputs)
        if step == 0:
            raise ValueError(f"{self}: step must not be zero")
        output_storage[0][0] = np.arange(start, stop, step, dtype=self.dtype)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        start, _, step = inputs
        (gz,) = output_grads
        if dt.is_discrete(self.dtype):
            return [None, None, None]
        # out[k] = start + k * step
        k = arange(outputs[0].shape[0], dtype=gz.dtype)
        gstart = None if dt.is_discrete(start.dtype) else cast(tsum(gz), start.dtype)
        gstep = None if dt.is_discrete(step.dtype) else cast(tsum(gz * k), step.dtype)
        return [gstart, None, gstep]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        (vstart, _, vstep), out = eval_points, self(*inputs)
        if dt.is_discrete(self.dtype) or (vstart is None and vstep is None):
            return [None]
        # out[k] = start + k * step
        k = arange(out.shape[0], dtype=self.dtype)
        terms = [cast(t, self.dtype) for t in (vstart, None if vstep is None else k * vstep)
                 if t is not None]
        return [second(out, terms[0] if len(terms) == 1 else terms[0] + terms[1])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False], [True]]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        start, stop, step = node.inputs
        if all(dt.is_discrete(i.dtype) for i in node.inputs):
            n = _dim(math.neg(math.int_div(math.sub(start, stop), step)))
        else:
            # NumPy computes the length in double precision, whatever the input dtypes.
            start, stop, step = (math.cast(i, "float64") for i in node.inputs)
            n = _dim(math.ceil(math.true_div(math.sub(stop, start), step)))
        zero = constant(np.int64(0))
        return [(_dim(math.maximum(n, zero)),)]


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: str | None = None) -> Variable:
    """Evenly spaced values in ``[start, stop)`` (``arange(n)`` counts from 0), like NumPy.

    Without ``dtype``: int64 when all arguments are integers, else the upcast of their dtypes.
    """
    if stop is None:
        start, stop = 0, start
    args = [as_tensor_variable(a) for a in (start, stop, step)]
    if dtype is None:
        dtypes = [a.dtype for a in args]
        dtype = "int64" if all(dt.is_discrete(d) for d in dtypes) else dt.upcast(*dtypes)
    return ARange(dtype)(*args)


# ---------------------------------------------------------------------------------------------
# Repeat, tile

class RepeatOp(Op):
    """``numpy.repeat(x, repeats, axis)``; ``repeats`` is an int scalar or an int vector."""

    __props__ = ("axis",)

    def __init__(self, axis: int | None = None) -> None:
        if axis is not None and not _is_pyint(axis):
            raise ValueError(f"RepeatOp needs an int axis (negative counts from the end) or "
                             f"None, got {axis!r}")
        self.axis = None if axis is None else int(axis)

    def __str__(self) -> str:
        return f"RepeatOp{{axis={self.axis}}}"

    def make_node(self, x: Any, repeats: Any) -> Apply:
        x = as_tensor_variable(x)
        repeats = as_tensor_variable(repeats)
        if repeats.ndim > 1 or not dt.is_discrete(repeats.dtype) or repeats.dtype == "bool":
            raise TypeError(f"{self}: repeats must be an integer scalar or vector, got "
                            f"{repeats} ({repeats.type})")
        if repeats.dtype == "uint64":
            # numpy.repeat casts repeats to intp only where that is safe, which uint64 is not
            raise TypeError(f"{self}: repeats of dtype uint64 are not supported (numpy.repeat "
                            f"cannot cast them safely to int64); cast {repeats} to int64")
        if self.axis is None:
            bcast: tuple[bool, ...] = (False,)
        else:
            if not -x.ndim <= self.axis < x.ndim:
                raise ValueError(f"{self}: axis {self.axis} is out of range for the {x.ndim}-d "
                                 f"{x}")
            keep = repeats.ndim == 0 and _is_one(repeats)
            axis = self.axis % x.ndim
            bcast = tuple(b if (d != axis or keep) else False
                          for d, b in enumerate(x.broadcastable))
        return Apply(self, [x, repeats], [TensorType(x.dtype, bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, repeats = inputs
        try:
            output_storage[0][0] = np.repeat(x, repeats, axis=self.axis)
        except ValueError as exc:
            raise ValueError(f"{self}: cannot repeat an input of shape {np.shape(x)} with "
                             f"repeats of shape {np.shape(repeats)}: {exc}") from None

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, repeats = inputs
        if dt.is_discrete(x.dtype):
            return [None, None]
        (gz,) = output_grads
        # Each output slice along the axis came from input slice idx[k]; scatter-add them back.
        src = x.flatten() if self.axis is None else x
        axis = 0 if self.axis is None else self.axis % x.ndim
        n = 1 if src.broadcastable[axis] else shape_i(src, axis)
        idx = repeat(arange(n), repeats)
        order = [axis] + [d for d in range(src.ndim) if d != axis]
        inverse = [order.index(d) for d in range(src.ndim)]
        moved_zeros = zeros_like(dimshuffle(src, order))
        summed = AdvancedIncSubtensor1()(moved_zeros, dimshuffle(gz, order), idx)
        g = dimshuffle(summed, inverse)
        if self.axis is None:
            g = reshape(g, _shape_dims(x), ndim=x.ndim)
        return [_fit_gradient(g, x), None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None if eval_points[0] is None else self(eval_points[0], inputs[1])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        xshape = input_shapes[0]
        repeats = node.inputs[1]
        if repeats.ndim == 0:
            def scaled(n: Any) -> Any:
                return _mul(n, repeats)
        else:
            total = _dim(tsum(repeats))
            length = input_shapes[1][0]

            def scaled(n: Any) -> Any:
                # NumPy treats a length-1 repeats vector as a scalar.
                return _switch(_eq(length, 1), _mul(n, repeats[0]), total)
        if self.axis is None:
            return [(scaled(_prod(xshape)),)]
        dims = list(xshape)
        axis = self.axis % len(dims)
        dims[axis] = scaled(dims[axis])
        return [tuple(dims)]


Repeat = RepeatOp  # jitgraph's earlier name


def _is_one(v: Variable) -> bool:
    try:
        return int(get_scalar_constant_value(v)) == 1
    except NotScalarConstantError:
        return False


def repeat(x: Any, repeats: Any, axis: int | None = None) -> Variable:
    """Repeat each element of ``x`` ``repeats`` times along ``axis`` (None: flattened first),
    like ``numpy.repeat``. ``repeats`` is an int, a list of ints, or an int scalar/vector."""
    x = as_tensor_variable(x)
    if _is_pyint(repeats) or isinstance(repeats, (list, tuple, np.ndarray)):
        repeats = constant(np.asarray(repeats, dtype="int64"))
    repeats = as_tensor_variable(repeats)
    if repeats.ndim == 1 and repeats.broadcastable[0]:
        repeats = repeats[0]  # one repeat count for every element
    if axis is not None:
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"repeat: axis {axis} is out of range for the {x.ndim}-d {x}")
        axis %= x.ndim
    if repeats.ndim == 0 and dt.is_discrete(repeats.dtype) and repeats.dtype not in ("bool",
                                                                                      "uint64"):
        return _repeat_each(x, repeats, axis)
    return RepeatOp(axis)(x, repeats)


def _repeat_each(x: Variable, count: Variable, axis: int | None) -> Variable:
    """``repeat`` by one scalar count: a broadcast (``alloc``) of ``x`` with a new axis of
    length ``count`` after ``axis``, merged into it by a reshape. Compiled, this is one fused
    broadcast instead of a NumPy call, and its gradient is alloc's (a sum)."""
    if axis is None:
        x, axis = x.flatten(), 0
    dims = _shape_dims(x)
    count = cast(count, "int64")
    widened = dimshuffle(x, list(range(axis + 1)) + ["x"] + list(range(axis + 1, x.ndim)))
    spread = alloc(widened, *dims[:axis + 1], count, *dims[axis + 1:])
    out_dims = dims[:axis] + [_mul(dims[axis], count)] + dims[axis + 1:]
    return reshape(spread, out_dims, ndim=x.ndim)


def _vector_reps(vec: Variable, ndim: int | None) -> list[Any]:
    """The entries of the int vector ``vec`` as a list of ``ndim`` repeat counts. A vector whose
    length is only known at run time (Keras' ``K.tile(x, K.shape(y))``) needs ``ndim``: it is
    padded in front with 1s (a vector longer than ``ndim`` fails at run time, as the padding's
    length turns negative: an AssertionError, as in Theano)."""
    try:
        return [vec[i] for i in range(get_vector_length(vec))]
    except ValueError:
        if ndim is None:
            raise ValueError(f"tile: the length of reps {vec} is only known at run time; "
                             "pass ndim (the number of output dimensions)") from None

    length = Assert(f"tile: reps has more than ndim={ndim} entries")(vec.shape[0],
                                                                     vec.shape[0] <= ndim)
    padded = concatenate([ones([ndim - length], dtype=vec.dtype), vec])
    return [padded[i] for i in range(ndim)]


def tile(x: Any, reps: Any, ndim: int | None = None) -> Variable:
    """``x`` repeated ``reps[i]`` times along each axis, like ``numpy.tile``.

    ``reps`` is an int, a sequence of ints or symbolic int scalars, or an int vector (of a
    length known when the graph is built, or else with ``ndim`` given); ``ndim`` pads ``reps``
    with leading 1s.
    """
    x = as_tensor_variable(x)
    if ndim is not None and ndim < x.ndim:
        raise ValueError(f"tile: ndim={ndim} is smaller than the {x.ndim} dimensions of {x}")
    if _is_pyint(reps):
        reps = [reps]
    elif not isinstance(reps, (list, tuple)):
        vec = as_tensor_variable(reps)
        if vec.ndim == 0:
            reps = [vec]
        elif vec.ndim == 1:
            reps = _vector_reps(vec, ndim)
        else:
            raise ValueError(f"tile: reps must be a scalar or a vector, not the {vec.ndim}-d {vec}")
    for r in reps:
        dtype = as_tensor_variable(r).dtype
        if not dt.is_discrete(dtype) or dtype == "bool":
            raise ValueError(f"tile: reps must be integers, got {r!r} of dtype {dtype}")
    reps = [_dim(r) for r in reps]
    if ndim is not None:
        if ndim < len(reps):
            raise ValueError(f"tile: ndim={ndim} is smaller than len(reps)={len(reps)}")
        reps = [1] * (ndim - len(reps)) + reps
    out_ndim = max(x.ndim, len(reps))
    reps = [1] * (out_ndim - len(reps)) + reps
    x = dimshuffle(x, ["x"] * (out_ndim - x.ndim) + list(range(x.ndim)))
    dims = _shape_dims(x)
    # (1, s0, 1, s1, ...) broadcast to (r0, s0, r1, s1, ...), then merged pairwise.
    pattern: list[Any] = []
    big: list[Any] = []
    for d in range(out_ndim):
        pattern += ["x", d]
        big += [reps[d], dims[d]]
    tiled = alloc(dimshuffle(x, pattern), *big)
    return reshape(tiled, [_mul(r, s) for r, s in zip(reps, dims)], ndim=out_ndim)


# ---------------------------------------------------------------------------------------------
# compress, Bartlett, CpuContiguous

def compress(condition: Any, x: Any, axis: int | None = None) -> Variable:
    """The slices of ``x`` along ``axis`` whose entry of ``condition`` is nonzero (None: the
    entries of the flattened ``x``), like ``numpy.compress``; ``condition`` may be shorter than
    the axis. Differentiable with respect to ``x``."""
    x = as_tensor_variable(x)
    cond = as_tensor_variable(condition).flatten()
    chosen = arange(cond.shape[0])[neq(cond, 0)]
    if axis is None:
        return x.flatten()[chosen]
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"compress: axis {axis} is out of range for the {x.ndim}-d {x.type}")
    index: list[Any] = [slice(None)] * x.ndim
    index[axis % x.ndim] = chosen
    return x[tuple(index)]


class Bartlett(Op):
    """The Bartlett (triangular) window of ``M`` points, ``numpy.bartlett(M)`` (empty for
    ``M <= 0``)."""

    __props__ = ()

    def __str__(self) -> str:
        return "Bartlett"

    def make_node(self, M: Any) -> Apply:
        M = as_tensor_variable(M)
        if M.ndim != 0:
            raise TypeError(f"{self}: M (the number of points) must be a scalar, got {M.type}")
        if not dt.is_discrete(M.dtype) or M.dtype == "bool":
            raise TypeError(f"{self}: M (the number of points) must be an integer, got "
                            f"{M.type}")
        return Apply(self, [M], [TensorType("float64", (False,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.bartlett(int(inputs[0]))

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [(_dim(maximum(node.inputs[0], 0)),)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [None]  # M is an integer


bartlett_ = Bartlett()


def bartlett(M: Any) -> Variable:
    """The Bartlett window of ``M`` points (an integer scalar), a float64 vector: the triangle
    rising linearly from 0 to 1 and back, as ``numpy.bartlett``."""
    return bartlett_(M)


class CpuContiguous(Op):
    """Its input as a C-contiguous array (the input itself when it already is one)."""

    __props__ = ()
    view_map = {0: [0]}

    def __str__(self) -> str:
        return "CpuContiguous"

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.ascontiguousarray(inputs[0])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [output_grads[0]]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None if eval_points[0] is None else self(eval_points[0])]


cpu_contiguous = CpuContiguous()
