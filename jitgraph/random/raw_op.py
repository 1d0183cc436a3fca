"""``RandomFunction``: a draw from a NumPy ``RandomState`` as a graph op (Theano's raw_random).

``RandomFunction(fn, outtype)(rstate, size, *args)`` returns ``(new_rstate, sample)``: it calls
the generator's method ``fn`` (or a helper of :mod:`.raw_helpers`) as ``fn(rstate, *args, size)``
on a copy of the ``RandomState`` (on the state itself once the in-place rewrite knows the old
one is not needed), so the numbers are NumPy's legacy stream, the same in every NumPy version.
It runs as a ``perform`` node inside compiled programs, as it does in Theano.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.op import Op
from jitgraph.random import raw_helpers
from jitgraph.random.random_state import RandomStateType
from jitgraph.tensor import cast, get_scalar_constant_value, get_vector_length, stack
from jitgraph.tensor.core.basic import NotScalarConstantError
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.gradient import grad_undefined
from jitgraph.tensor.core.type import TensorType

#: the draws given by name: RandomState methods, or helpers that loop over broadcast parameters
_BY_NAME: dict[str, Callable] = {
    "random_integers": raw_helpers.random_integers_helper,
    "choice": raw_helpers.choice_helper,
    "permutation": raw_helpers.permutation_helper,
    "multinomial": raw_helpers.multinomial_helper,
}


def _resolve(fn: str | Callable) -> Callable:
    if callable(fn):
        return fn
    helper = _BY_NAME.get(fn)
    if helper is not None:
        return helper
    method = getattr(np.random.RandomState, fn, None)
    if method is None:
        raise ValueError(f"RandomFunction: numpy.random.RandomState has no method {fn!r}")
    return method


class RandomFunction(Op):
    """Draw ``outtype`` samples with ``fn``; ``ndim_added`` dimensions are appended to the
    size by the draw itself (a permutation's length, a multinomial's outcomes)."""

    __props__ = ("fn", "outtype", "inplace", "ndim_added")

    def __init__(self, fn: str | Callable, outtype: TensorType, inplace: bool = False,
                 ndim_added: int = 0) -> None:
        short = getattr(fn, "__name__", "").replace("_helper", "")
        if callable(fn) and _BY_NAME.get(short) is fn:
            fn = short  # a known helper: named, so that the op has a stable key
        self.fn = fn
        self.outtype = outtype
        self.inplace = bool(inplace)
        self.ndim_added = int(ndim_added)
        self.destroy_map = {0: [0]} if inplace else {}

    def __str__(self) -> str:
        name = self.fn if isinstance(self.fn, str) else getattr(self.fn, "__name__", self.fn)
        # Theano's name, which does not say whether the op is in place (debugprint shows
        # RandomFunction{uniform} in a compiled function too)
        return f"RandomFunction{{{name}}}"

    __repr__ = __str__

    def make_node(self, r: Any, shape: Any, *args: Any) -> Apply:
        if not isinstance(r, Variable) or not isinstance(r.type, RandomStateType):
            raise TypeError(f"{self}: the first input must be a RandomState variable (a "
                            f"RandomStreams draw's rng), got {r!r}")
        shape = as_tensor_variable(shape, ndim=1)
        if shape.dtype[:3] not in ("int", "uin"):
            raise TypeError(f"{self}: the size must be an integer vector, got {shape.type}")
        inputs = [r, shape] + [as_tensor_variable(a) for a in args]
        return Apply(self, inputs, [r.type(), self.outtype()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        r, shape, *args = inputs
        if not isinstance(r, np.random.RandomState):
            raise TypeError(f"{self}: the generator is a {type(r).__name__}, not a "
                            "numpy.random.RandomState")
        size = None if len(shape) == 0 else tuple(int(s) for s in shape)
        out_ndim = self.outtype.ndim
        if size is not None and out_ndim != len(size) + self.ndim_added:
            raise ValueError(f"{self}: the size {size} gives {len(size) + self.ndim_added} "
                             f"dimensions, the output has {out_ndim}")
        if size is None and not self.ndim_added:  # (added dims belong to the draw)
            _check_broadcast(node, args)
        if not self.inplace:
            r = copy.deepcopy(r)
        value = np.asarray(_resolve(self.fn)(r, *args, size))
        if value.dtype.name != self.outtype.dtype:
            value = value.astype(self.outtype.dtype)
        if size is None and value.ndim == 0 and out_ndim > 0:
            value = value.reshape((1,) * out_ndim)
        if value.ndim != out_ndim:
            raise ValueError(f"{self}: the draw has {value.ndim} dimensions, the output "
                             f"{out_ndim} (give size= or parameters of the right rank)")
        output_storage[0][0] = r
        output_storage[1][0] = value

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence) -> list:
        """The size, or with no size the parameters' broadcast shape (each dim from a
        parameter not broadcastable there: :meth:`perform` checks that they agree)."""
        if self.ndim_added:
            raise NotImplementedError  # the draw adds dims only it knows
        size, n = node.inputs[1], node.outputs[1].ndim
        if not _no_size(size):
            return [None, tuple(size[i] for i in range(n))]
        dims: list[Any] = []
        for d in range(n):
            dims.append(next((shp[d - (n - var.ndim)] for var, shp in
                              zip(node.inputs[2:], input_shapes[2:])
                              if d >= n - var.ndim and not var.broadcastable[d - (n - var.ndim)]),
                             1))
        return [None, tuple(dims)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True, True]] + [[False, True]] * (len(node.inputs) - 1)

    #: Theano's grad asks the draw even when only the zero gradient of an integer sample
    #: reaches it, and the answer is undefined for every parameter
    grad_always_undefined = True

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [grad_undefined(self, k, v, "No gradient defined through raw random numbers op")
                if k >= 2 and str(getattr(v, "dtype", "")).startswith("float") else None
                for k, v in enumerate(inputs)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        return [None, None]

    def with_inplace(self) -> "RandomFunction":
        return RandomFunction(self.fn, self.outtype, inplace=True, ndim_added=self.ndim_added)


def _no_size(size: Variable) -> bool:
    """Whether a draw's size input is the empty vector (the parameters give the shape)."""
    return isinstance(size, Constant) and np.size(size.data) == 0


def _check_broadcast(node: Apply, args: Sequence[Any]) -> None:
    """With no size, parameters not broadcastable along a dim must agree on its length (the
    sample's shape is inferred from any one of them)."""
    n = node.outputs[1].ndim
    for d in range(n):
        lengths = {np.shape(value)[d - (n - var.ndim)] for var, value in zip(node.inputs[2:], args)
                   if d >= n - var.ndim and not var.broadcastable[d - (n - var.ndim)]}
        if len(lengths) > 1:
            raise ValueError(f"{node.op}: the parameters' lengths along dimension {d} differ "
                             f"({sorted(lengths)}) where none is declared broadcastable; give "
                             "size= or make the length-1 parameter broadcastable")


def infer_ndim_bcast(ndim: int | None, shape: Any, *args: Any
                     ) -> tuple[int, Variable, tuple[bool, ...]]:
    """``(ndim, shape vector, broadcastable)`` of a draw from its size and parameters.

    A size given as a tuple fixes ndim (its 1s are broadcastable; a ``-1`` takes that axis
    from the parameters, aligned to the right); a symbolic vector needs a known length or
    ``ndim``; no size takes ndim and the pattern from the parameters (a given ``ndim`` is
    then not used, as in Theano). Parameters with more
    dimensions than the sample are refused (Theano's message)."""
    params = [as_tensor_variable(a) for a in args]
    if isinstance(shape, (tuple, list)) and len(shape) > 0:
        if ndim is not None and ndim != len(shape):
            raise ValueError("ndim should be equal to len(shape), but\n",
                             f"ndim = {ndim}, len(shape) = {len(shape)}, shape = {shape}")
        ndim = len(shape)
        _check_params_ndim(ndim, params)
        dims: list[Any] = []
        bcast = []
        for i, s in enumerate(shape):
            if isinstance(s, (int, np.integer)) and s == -1:
                dim, flat = _auto_dim(i, ndim, shape, params)
                dims.append(dim)
                bcast.append(flat)
                continue
            if isinstance(s, (int, np.integer)) and s < 0:
                raise ValueError(f"the size {tuple(shape)} has a negative dimension (-1 alone "
                                 f"means the length of the parameters along that axis)")
            dims.append(s)
            try:
                bcast.append(int(get_scalar_constant_value(s)) == 1)
            except NotScalarConstantError:
                bcast.append(False)
        if all(isinstance(s, (int, np.integer)) for s in dims):
            vec = as_tensor_variable(np.asarray(dims, dtype=np.int64))
        else:
            vec = stack([cast(s, "int64") for s in dims])
        return ndim, vec, tuple(bcast)
    if shape is None or (isinstance(shape, (tuple, list)) and len(shape) == 0):
        if not params:
            raise TypeError("_infer_ndim_bcast cannot infer shape without either shape or args")
        # The parameters broadcast together give the sample's shape; a given ndim is not
        # used (as in Theano: uniform(rng, ndim=2) with scalar bounds draws one number).
        out_ndim = max(p.ndim for p in params)
        bcast = []
        for d in range(out_ndim):
            pads = [p.broadcastable[d - (out_ndim - p.ndim)] if d >= out_ndim - p.ndim else True
                    for p in params]
            bcast.append(all(pads))
        return out_ndim, as_tensor_variable(np.zeros(0, dtype=np.int64)), tuple(bcast)
    vec = as_tensor_variable(shape, ndim=1)
    if ndim is None:
        ndim = get_vector_length(vec)
    _check_params_ndim(ndim, params)
    return ndim, cast(vec, "int64") if vec.dtype != "int64" else vec, (False,) * ndim


def _check_params_ndim(ndim: int, params: list[Variable]) -> None:
    """A parameter with more dimensions than the sample cannot be broadcast to it."""
    args_ndim = max((p.ndim for p in params), default=0)
    if args_ndim > ndim:
        raise ValueError("ndim should be at least as big as required by args value",
                         (ndim, args_ndim), tuple(params))


def _auto_dim(i: int, ndim: int, shape: Any, params: list[Variable]) -> tuple[Any, bool]:
    """Length ``-1`` at axis ``i`` of a size: that axis of the first parameter (aligned to the
    right) that is not broadcastable there; 1 (broadcastable) if every parameter reaching that
    axis is broadcastable there."""
    reaching = [p for p in params if i >= ndim - p.ndim]
    for p in reaching:
        axis = i + p.ndim - ndim
        if not p.broadcastable[axis]:
            return p.shape[axis], False
    if not reaching:
        raise ValueError(f"a length of -1 in the size {tuple(shape)} (axis {i}) means the "
                         f"parameters' length along that axis, but no parameter has axis {i}")
    return 1, True
