"""Shape ops: ``shape``, ``reshape``/``flatten``, ``specify_shape``, broadcastable-pattern changes
(``unbroadcast``, ``patternbroadcast``, ``addbroadcast``) and axis padding/squeezing.

Shapes are int64 everywhere. The reshaping ops never copy data: their outputs are views of their
input (``view_map``), which is what lets rewrites move them around freely.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.shaping.dims import (_const_int, _constant_elements, _dim, _element, _eq,
                                          _floordiv, _is_pyint, _prod, _sub, _switch)
from jitgraph.tensor.elementwise.elemwise import dimshuffle
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise.math import cast

__all__ = [
    "Shape", "Shape_i", "Reshape", "SpecifyShape", "SpecifyShapeError", "Unbroadcast",
    "shape", "shape_i", "reshape", "flatten", "specify_shape", "unbroadcast", "patternbroadcast",
    "addbroadcast", "shape_padleft", "shape_padright", "shape_padaxis", "squeeze",
]

_int64_vector = TensorType("int64", (False,))
_int64_scalar = TensorType("int64", ())


def _shape_dims(x: Variable) -> list[Any]:
    """``x``'s dims: 1 for broadcastable axes (so reshapes keep them broadcastable)."""
    return [1 if b else shape_i(x, i) for i, b in enumerate(x.broadcastable)]


# ---------------------------------------------------------------------------------------------
# Shape, Shape_i

class Shape(Op):
    """The shape of a tensor as an int64 vector."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [_int64_vector.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.asarray(np.shape(inputs[0]), dtype="int64")

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [(node.inputs[0].ndim,)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [None]


_shape = Shape()


def shape(x: Any) -> Variable:
    """The shape of ``x``: a symbolic int64 vector of length ``x.ndim``."""
    return _shape(as_tensor_variable(x))


class Shape_i(Op):
    """Dimension ``i`` of a tensor's shape, as an int64 scalar."""

    __props__ = ("i",)

    def __init__(self, i: int) -> None:
        if not _is_pyint(i) or i < 0:
            raise ValueError(f"Shape_i needs a non-negative int axis, got {i!r}")
        self.i = int(i)

    def __str__(self) -> str:
        return f"Shape_i{{{self.i}}}"

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.ndim <= self.i:
            raise ValueError(f"{self}: the input {x} has only {x.ndim} dimensions")
        return Apply(self, [x], [_int64_scalar.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.asarray(inputs[0].shape[self.i], dtype="int64")

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [None]


def shape_i(x: Any, i: int, fgraph: Any = None) -> Variable:
    """Dimension ``i`` of ``x`` (negative counts from the end), an int64 scalar.

    With an ``fgraph`` that has a ``shape_feature``, its inferred shape is used instead.
    """
    x = as_tensor_variable(x)
    if not -x.ndim <= i < x.ndim:
        raise ValueError(f"shape_i: axis {i} is out of range for the {x.ndim}-d {x}")
    i %= x.ndim
    feature = getattr(fgraph, "shape_feature", None)
    if feature is not None and x in getattr(feature, "shape_of", {}):
        return feature.shape_of[x][i]
    return Shape_i(i)(x)


# ---------------------------------------------------------------------------------------------
# Reshape, flatten

class Reshape(Op):
    """``x`` reshaped to the int vector ``shp`` (of length ``ndim``; one entry may be -1)."""

    __props__ = ("ndim",)
    view_map = {0: [0]}
    #: an integer input receives the gradient reaching the integer output (Theano's rule)
    grad_through_integer_outputs = True

    def __init__(self, ndim: int) -> None:
        if not _is_pyint(ndim) or ndim < 0:
            raise ValueError(f"Reshape needs a non-negative ndim, got {ndim!r}")
        self.ndim = int(ndim)

    def __str__(self) -> str:
        return f"Reshape{{{self.ndim}}}"

    def make_node(self, x: Any, shp: Any) -> Apply:
        x = as_tensor_variable(x)
        shp = _as_shape_vector(shp, "Reshape")
        known = _constant_elements(shp)
        if len(known) not in (0, self.ndim):
            raise ValueError(f"{self}: the requested shape has {len(known)} entries, expected "
                             f"{self.ndim}")
        known = known or [None] * self.ndim
        bcast = tuple(k == 1 for k in known)
        return Apply(self, [x, shp], [TensorType(x.dtype, bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, shp = inputs
        requested = tuple(int(s) for s in shp)
        if len(requested) != self.ndim:
            raise ValueError(f"{self}: the shape vector {requested} has {len(requested)} "
                             f"entries, expected {self.ndim}")
        try:
            output_storage[0][0] = np.reshape(x, requested)
        except ValueError as exc:
            raise ValueError(f"{self}: cannot reshape an input of shape {x.shape} ({x.size} "
                             f"elements) into the requested shape {requested}: {exc}") from None

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, _ = inputs
        return [reshape(output_grads[0], _shape_dims(x), ndim=x.ndim), None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None if eval_points[0] is None else self(eval_points[0], inputs[1])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        xshape, _ = input_shapes
        shp = node.inputs[1]
        req = [_element(shp, i) for i in range(self.ndim)]
        if all(_is_pyint(r) and r != -1 for r in req):
            return [tuple(req)]
        total = _prod(xshape)
        # With one entry -1 the product of all requested entries is minus the product of the
        # others, so the missing one is total // -prod(req).
        prod_req = _prod(req)
        dims = []
        for r in req:
            if _is_pyint(r) and r != -1:
                dims.append(r)
            else:
                missing = _floordiv(total, _sub(0, prod_req))
                dims.append(_switch(_eq(r, -1), missing, r))
        return [tuple(dims)]


def _as_shape_vector(shp: Any, who: str) -> Variable:
    """A requested shape (list of ints/scalars, or an int vector) as an int64 vector."""
    if isinstance(shp, (list, tuple)):
        items = list(shp)
        if all(_is_pyint(s) for s in items):
            return constant(np.asarray(items, dtype="int64"))
        from jitgraph.tensor.core.basic import make_vector

        return make_vector(*[_dim(s) for s in items], dtype="int64")
    if _is_pyint(shp):
        return constant(np.asarray([shp], dtype="int64"))
    vec = as_tensor_variable(shp)
    if vec.ndim != 1 or not dt.is_discrete(vec.dtype) or vec.dtype == "bool":
        raise TypeError(f"{who}: a shape must be a list of ints or an integer vector, got "
                        f"{vec} ({vec.type})")
    if vec.dtype != "int64":
        vec = cast(vec, "int64")
    return vec


def reshape(x: Any, newshape: Any, ndim: int | None = None) -> Variable:
    """``x`` with its elements rearranged into ``newshape`` (C order), like ``numpy.reshape``.

    ``newshape`` is an int, a tuple/list of ints and/or symbolic int scalars, or a symbolic int
    vector (then ``ndim`` is needed unless its length is known). One entry may be -1: it is
    inferred from the size of ``x``. Entries that are the constant 1 give broadcastable axes.
    """
    from jitgraph.tensor.core.basic import get_vector_length

    x = as_tensor_variable(x)
    if ndim is not None and isinstance(newshape, Variable) and newshape.ndim == 0:
        newshape = [newshape]  # a scalar with ndim given is a shape of one entry (Theano's)
    if isinstance(newshape, (list, tuple)) or _is_pyint(newshape):
        items = list(newshape) if isinstance(newshape, (list, tuple)) else [newshape]
        consts = [int(s) for s in items if _is_pyint(s)]
        if sum(c == -1 for c in consts) > 1:
            raise ValueError(f"reshape: can only specify one unknown dimension (-1), got "
                             f"{tuple(items)} for the input {x} of {x.ndim} dimensions")
        if any(c < -1 for c in consts):
            raise ValueError(f"reshape: negative dimension in the requested shape "
                             f"{tuple(items)}")
        shp = _as_shape_vector(items, "reshape")
        if ndim is not None and ndim != len(items):
            raise ValueError(f"reshape: ndim={ndim} but the shape {tuple(items)} has "
                             f"{len(items)} entries")
        ndim = len(items)
    else:
        shp = _as_shape_vector(newshape, "reshape")
        if ndim is None:
            try:
                ndim = get_vector_length(shp)
            except ValueError:
                raise ValueError(f"reshape: the length of the shape vector {newshape} is not "
                                 "known when the graph is built; pass ndim=") from None
    return Reshape(ndim)(x, shp)


def flatten(x: Any, ndim: int = 1, outdim: int | None = None) -> Variable:
    """``x`` with its trailing axes merged so that the result has ``ndim`` dimensions.

    ``flatten(x)`` is a vector; ``flatten(x, 2)`` keeps axis 0 and merges the others.
    ``outdim`` is Theano's older name for ``ndim``.
    """
    if outdim is not None:
        ndim = outdim
    x = as_tensor_variable(x)
    if ndim < 1 or (ndim > 1 and ndim > x.ndim):
        raise ValueError(f"flatten: ndim={ndim} is out of range for the {x.ndim}-d input {x} "
                         f"(1 <= ndim <= {max(x.ndim, 1)})")
    dims = _shape_dims(x)
    # Not -1 when other dims are kept: NumPy cannot infer it when they contain a 0. The product
    # is the constant 1 (a broadcastable axis) exactly when every merged axis is broadcastable.
    last = _prod(dims[ndim - 1:]) if ndim > 1 or all(x.broadcastable) else -1
    return reshape(x, dims[:ndim - 1] + [last], ndim=ndim)


# ---------------------------------------------------------------------------------------------
# SpecifyShape

class SpecifyShapeError(AssertionError, ValueError):
    """A value does not have the shape asserted by ``specify_shape`` (or ``patternbroadcast``)."""


class SpecifyShape(Op):
    """Asserts (at run time) that some dims of ``x`` have given lengths; returns ``x``.

    ``known[d]`` says whether dim ``d`` is checked; one int64 scalar input follows ``x`` for each
    checked dim. Dims checked against the constant 1 become broadcastable.

    ``SpecifyShape()`` without ``known`` is Theano's calling convention, ``SpecifyShape()(x,
    shape)``, with ``shape`` as :func:`specify_shape` takes it; the node built is
    ``SpecifyShape(known)``'s.
    """

    __props__ = ("known",)
    view_map = {0: [0]}

    def __init__(self, known: Sequence[bool] | None = None) -> None:
        self.known = None if known is None else tuple(bool(k) for k in known)

    def __str__(self) -> str:
        if self.known is None:
            return "SpecifyShape"
        return "SpecifyShape{" + ",".join("i" if k else "_" for k in self.known) + "}"

    def make_node(self, x: Any, *dims: Any) -> Apply:
        if self.known is None:
            if len(dims) != 1:
                raise TypeError(f"SpecifyShape()(x, shape) takes the shape as one argument, got "
                                f"{len(dims)}")
            x = as_tensor_variable(x)
            entries = _shape_entries(x, dims[0])
            known = [e is not None for e in entries]
            return SpecifyShape(known)._make_node(x, [e for e in entries if e is not None])
        return self._make_node(x, dims)

    def _make_node(self, x: Any, dims: Sequence[Any]) -> Apply:
        x = as_tensor_variable(x)
        if x.ndim != len(self.known):
            raise ValueError(f"{self}: expected a {len(self.known)}-d input, got {x} ({x.type})")
        if len(dims) != sum(self.known):
            raise TypeError(f"{self}: expected {sum(self.known)} dims, got {len(dims)}")
        dims_v = [_scalar_int_input(d, str(self)) for d in dims]
        bcast = list(x.broadcastable)
        it = iter(dims_v)
        for axis, k in enumerate(self.known):
            if not k:
                continue
            value = _const_int(next(it))
            if value is not None:
                if x.broadcastable[axis] and value != 1:
                    raise SpecifyShapeError(f"{self}: dimension {axis} of {x} ({x.type}) is "
                                            f"broadcastable (length 1), not {value}")
                bcast[axis] = bcast[axis] or value == 1
        return Apply(self, [x, *dims_v], [TensorType(x.dtype, bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, *dims = inputs
        it = iter(dims)
        for axis, k in enumerate(self.known):
            if k:
                expected = int(next(it))
                if x.shape[axis] != expected:
                    raise SpecifyShapeError(
                        f"{self}: dimension {axis} of the input has length {x.shape[axis]}, "
                        f"expected {expected} (input shape {x.shape})")
        output_storage[0][0] = x

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x = inputs[0]
        if dt.is_discrete(x.dtype):
            return [None] * len(inputs)
        return [patternbroadcast(output_grads[0], x.broadcastable)] + [None] * (len(inputs) - 1)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None if eval_points[0] is None else self(eval_points[0], *inputs[1:])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True]] + [[False]] * (len(node.inputs) - 1)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        it = iter(node.inputs[1:])
        return [tuple(_dim(next(it)) if k else s
                      for k, s in zip(self.known, input_shapes[0]))]


def _scalar_int_input(v: Any, who: str) -> Variable:
    if _is_pyint(v):
        return constant(np.asarray(v, dtype="int64"))
    v = as_tensor_variable(v)
    if v.ndim != 0 or not dt.is_discrete(v.dtype) or v.dtype == "bool":
        raise TypeError(f"{who}: expected an integer scalar, got {v} ({v.type})")
    return v


def _shape_entries(x: Variable, shape: Any) -> list:
    """One entry per dim of ``x`` (int, int scalar, or None for "unchecked") from ``shape``. A
    vector whose length is known only at run time has that length checked then."""
    from jitgraph.tensor.core.basic import get_vector_length

    if isinstance(shape, (list, tuple)):
        entries = list(shape)
    else:
        vec = _as_shape_vector(shape, "specify_shape")
        try:
            n = get_vector_length(vec)
        except ValueError:
            n = x.ndim
            vec = SpecifyShape((True,))(vec, n)
        entries = [_element(vec, i) for i in range(n)]
    if len(entries) != x.ndim:
        raise SpecifyShapeError(f"specify_shape: {len(entries)} dims given for the {x.ndim}-d "
                                f"{x}")
    return entries


def specify_shape(x: Any, shape: Any) -> Variable:
    """``x``, asserting at run time that its shape is ``shape``.

    ``shape`` is a sequence with one entry per dim (an int, a symbolic int scalar, or None for
    "unchecked"), or a symbolic int vector (of a length checked at run time when it is not
    known before).
    """
    x = as_tensor_variable(x)
    entries = _shape_entries(x, shape)
    known = [e is not None for e in entries]
    if not any(known):
        return x
    return SpecifyShape(known)(x, *[e for e in entries if e is not None])


# ---------------------------------------------------------------------------------------------
# Broadcastable patterns

class Unbroadcast(Op):
    """``x`` with the dims in ``axes`` no longer marked broadcastable (the value is unchanged)."""

    __props__ = ("axes",)
    view_map = {0: [0]}

    def __init__(self, axes: Sequence[int]) -> None:
        axes = tuple(sorted({int(a) for a in axes}))
        if any(a < 0 for a in axes):
            raise ValueError(f"Unbroadcast needs non-negative axes, got {axes}")
        self.axes = axes

    def __str__(self) -> str:
        return "Unbroadcast{" + ",".join(map(str, self.axes)) + "}"

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if self.axes and self.axes[-1] >= x.ndim:
            raise ValueError(f"{self}: axis {self.axes[-1]} is out of range for the {x.ndim}-d "
                             f"{x}")
        bcast = tuple(b and d not in self.axes for d, b in enumerate(x.broadcastable))
        return Apply(self, [x], [TensorType(x.dtype, bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = inputs[0]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        (x,) = inputs
        if dt.is_discrete(x.dtype):
            return [None]
        return [patternbroadcast(output_grads[0], x.broadcastable)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None if eval_points[0] is None else self(eval_points[0])]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]


def _norm_axes(axes: Sequence[Any], ndim: int, who: str) -> list[int]:
    out = []
    for a in axes:
        if not _is_pyint(a):
            raise TypeError(f"{who}: axes must be ints, got {a!r}")
        if not -ndim <= a < ndim:
            raise ValueError(f"{who}: axis {a} is out of range for a {ndim}-d input")
        out.append(int(a) % ndim)
    return out


def unbroadcast(x: Any, *axes: int) -> Variable:
    """``x`` with ``axes`` made non-broadcastable (no-op for axes that already are)."""
    x = as_tensor_variable(x)
    todo = [a for a in _norm_axes(axes, x.ndim, "unbroadcast") if x.broadcastable[a]]
    if not todo:
        return x
    # Undoing an addbroadcast gives back its input, and two unbroadcasts are one (Theano
    # fuses its Rebroadcast ops the same way).
    pattern = tuple(b and d not in todo for d, b in enumerate(x.broadcastable))
    inner = _addbroadcast_input(x)
    if inner is not None and inner.broadcastable == pattern:
        return inner
    if x.owner is not None and isinstance(x.owner.op, Unbroadcast):
        return Unbroadcast(x.owner.op.axes + tuple(todo))(x.owner.inputs[0])
    return Unbroadcast(todo)(x)


def _addbroadcast_input(x: Variable) -> Variable | None:
    """The input of ``x`` when ``x`` is an addbroadcast of it (a SpecifyShape of 1s only)."""
    node = x.owner
    if node is None or not isinstance(node.op, SpecifyShape) or node.op.known is None:
        return None
    if all(_const_int(d) == 1 for d in node.inputs[1:]):
        return node.inputs[0]
    return None


def patternbroadcast(x: Any, broadcastable: Sequence[bool]) -> Variable:
    """``x`` with the broadcastable pattern ``broadcastable`` (``x`` itself if it has it).

    Dims that become broadcastable are checked to have length 1 at run time. A pattern shorter
    than ``x``'s is that of its leading dims, the others keep theirs (as in Theano: an empty
    pattern leaves ``x`` as it is).
    """
    x = as_tensor_variable(x)
    bcast = tuple(bool(b) for b in broadcastable)
    if len(bcast) > x.ndim:
        raise ValueError(f"patternbroadcast: pattern {bcast} has {len(bcast)} entries for the "
                         f"{x.ndim}-d {x}")
    bcast += x.broadcastable[len(bcast):]
    if bcast == x.broadcastable:
        return x
    if x.owner is not None and isinstance(x.owner.op, Unbroadcast) and (
            x.owner.inputs[0].broadcastable == bcast):
        return x.owner.inputs[0]  # the unbroadcast undone
    off = [d for d, (old, new) in enumerate(zip(x.broadcastable, bcast)) if old and not new]
    on = [d for d, (old, new) in enumerate(zip(x.broadcastable, bcast)) if new and not old]
    if off:
        x = Unbroadcast(off)(x)
    if on:
        x = specify_shape(x, [1 if d in on else None for d in range(x.ndim)])
    return x


def addbroadcast(x: Any, *axes: int) -> Variable:
    """``x`` with ``axes`` marked broadcastable (checked to have length 1 at run time)."""
    x = as_tensor_variable(x)
    bcast = list(x.broadcastable)
    for a in _norm_axes(axes, x.ndim, "addbroadcast"):
        bcast[a] = True
    return patternbroadcast(x, bcast)


def shape_padleft(x: Any, n_ones: int = 1) -> Variable:
    """``x`` with ``n_ones`` broadcastable axes added in front."""
    x = as_tensor_variable(x)
    return dimshuffle(x, ["x"] * n_ones + list(range(x.ndim)))


def shape_padright(x: Any, n_ones: int = 1) -> Variable:
    """``x`` with ``n_ones`` broadcastable axes added at the end."""
    x = as_tensor_variable(x)
    return dimshuffle(x, list(range(x.ndim)) + ["x"] * n_ones)


def shape_padaxis(x: Any, axis: int) -> Variable:
    """``x`` with a broadcastable axis inserted at position ``axis`` (like ``np.expand_dims``)."""
    x = as_tensor_variable(x)
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise IndexError(f"shape_padaxis: axis {axis} is out of range for inserting into a "
                         f"{x.ndim}-d input (valid: {-x.ndim - 1}..{x.ndim})")
    if axis < 0:
        axis += x.ndim + 1
    pattern: list[Any] = list(range(x.ndim))
    pattern.insert(axis, "x")
    return dimshuffle(x, pattern)


def squeeze(x: Any, axis: Any = None) -> Variable:
    """``x`` without length-1 axes: every broadcastable axis when ``axis`` is None, else the
    given axes (checked to have length 1 at run time)."""
    x = as_tensor_variable(x)
    if axis is None:
        drop = [d for d, b in enumerate(x.broadcastable) if b]
    else:
        axes = [axis] if _is_pyint(axis) else list(axis)
        drop = _norm_axes(axes, x.ndim, "squeeze")
        x = addbroadcast(x, *drop)
    if not drop:
        return x
    return dimshuffle(x, [d for d in range(x.ndim) if d not in drop])
