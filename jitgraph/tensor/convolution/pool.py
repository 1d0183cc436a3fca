"""Pooling ops (Theano's ``theano.tensor.signal.pool``): :class:`Pool` and its gradients.

Pooling reduces windows of size ``ws`` moved by ``stride`` over the last ``ndim`` axes of its
input (any leading axes are batch axes), after ``pad`` pixels of padding on each side. Modes:
'max', 'sum', 'average_inc_pad' (the average counting padding pixels), 'average_exc_pad' (not
counting them). ``ignore_border=False`` keeps a last, partial window where the image does not
divide evenly. ``ws``, ``stride`` and ``pad`` are int vector inputs (they may be symbolic).

Gradients are ops of their own: :class:`MaxPoolGrad` (the gradient goes to every pixel equal to
its window's maximum), :class:`AveragePoolGrad`, :class:`DownsampleFactorMaxGradGrad` (the
gradient of the max gradient) and :class:`MaxPoolRop` (the R-operator of max pooling). The
NumPy references are in :mod:`jitgraph.tensor.convolution.pool_reference`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.enum_type import EnumList
from jitgraph.graph.op import Op
from jitgraph.tensor.convolution import pool_reference as ref
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.dims import (_add, _constant_elements, _element, _floordiv, _maximum,
                                          _sub, _switch)
from jitgraph.tensor.shaping.shape import _as_shape_vector
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.core.basic import zeros_like
from jitgraph.tensor.elementwise.math import ge

__all__ = ["Pool", "PoolGrad", "MaxPoolGrad", "AveragePoolGrad",
           "DownsampleFactorMaxGradGrad", "MaxPoolRop", "pool_2d", "pool_3d",
           "max_pool_2d_same_size", "PoolingMode_t"]

#: the pooling modes as constants (``PoolingMode_t.fromalias('average_exc_pad')`` -> 3), in
#: Theano's numbering; the ops themselves take the mode by its alias
PoolingMode_t = EnumList(("POOLING_MAX", "max"), ("POOLING_SUM", "sum"),  # noqa: N816
                         ("POOLING_AVERAGE_COUNT_INCLUDE_PADDING", "average_inc_pad"),
                         ("POOLING_AVERAGE_COUNT_EXCLUDE_PADDING", "average_exc_pad"))


def _mode(mode: str) -> str:
    if mode == "max_deterministic":  # Theano's GPU spelling; max pooling is deterministic here
        return "max"
    if mode == "average":
        return "average_inc_pad"
    if mode not in ref.MODES:
        raise ValueError(f"Pool mode must be one of 'max', 'sum', 'average_inc_pad' and "
                         f"'average_exc_pad'; got {mode!r}")
    return mode


def _out_size_symbolic(size: Any, ws: Any, stride: Any, pad: Any, ignore_border: bool) -> Any:
    """:func:`~.pool_reference.out_size_1axis` for sizes that may be symbolic."""
    padded = _add(size, _add(pad, pad))
    if ignore_border:
        return _maximum(0, _add(_floordiv(_sub(padded, ws), stride), 1))
    wide = _add(_floordiv(_sub(padded, 1), stride), 1)
    narrow = _add(_maximum(0, _floordiv(_add(_sub(_sub(padded, 1), ws), stride), stride)), 1)
    if isinstance(stride, int) and isinstance(ws, int):
        return wide if stride >= ws else narrow

    return _switch(ge(stride, ws), wide, narrow)


class PoolBase(Op):
    """Parameters of the pooling ops and the handling of their ``ws, stride, pad`` inputs."""

    __props__ = ("ignore_border", "mode", "ndim")

    def __init__(self, ignore_border: bool = False, mode: str = "max", ndim: int = 2,
                 openmp: Any = None) -> None:
        if ndim not in (1, 2, 3):
            raise ValueError(f"{type(self).__name__}: ndim must be 1, 2 or 3, got {ndim!r}")
        self.ignore_border = bool(ignore_border)
        self.mode = _mode(mode)
        self.ndim = int(ndim)

    def _params(self, ws: Any, stride: Any, pad: Any) -> list[Variable]:
        """``ws, stride, pad`` as int64 vectors of length ``ndim`` (stride defaults to ws)."""
        who = type(self).__name__
        vecs = []
        for name, v in (("ws", ws), ("stride", ws if stride is None else stride),
                        ("pad", (0,) * self.ndim if pad is None else pad)):
            vec = _as_shape_vector(v, f"{who} {name}")
            known = _constant_elements(vec)
            if known and len(known) != self.ndim:
                raise ValueError(f"{who}: {name} must have {self.ndim} entries, got {v!r}")
            vecs.append(vec)
        w, s, p = (_constant_elements(v) for v in vecs)
        if w and s and p and None not in w + s + p:
            ref.check_params(w, s, p, self.ignore_border, who)
        return vecs

    def _image(self, x: Any) -> Variable:
        x = as_tensor_variable(x)
        if x.ndim < self.ndim:
            raise TypeError(f"{type(self).__name__}: the input must have at least {self.ndim} "
                            f"dimensions, got {x.type}")
        return x

    def _ints(self, *values: np.ndarray) -> list[tuple[int, ...]]:
        """``ws, stride, pad`` values as tuples of ``ndim`` ints (checked)."""
        out = [tuple(int(v) for v in np.asarray(a).ravel()) for a in values]
        for name, v in zip(("ws", "stride", "pad"), out):
            if len(v) != self.ndim:
                raise ValueError(f"{type(self).__name__}: {name} must have {self.ndim} entries, "
                                 f"got {v}")
        return out

    def _pooled_shape(self, node: Apply, xshape: Sequence[Any], first_param: int) -> tuple:
        ws, st, pad = (node.inputs[first_param + k] for k in range(3))
        lead = tuple(xshape[:-self.ndim])
        spatial = tuple(_out_size_symbolic(xshape[-self.ndim + a], _element(ws, a),
                                           _element(st, a), _element(pad, a),
                                           self.ignore_border) for a in range(self.ndim))
        return lead + spatial

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        n_arrays = len(node.inputs) - 3
        return [[True]] * n_arrays + [[False]] * 3


class Pool(PoolBase):
    """Pool the last ``ndim`` axes: inputs ``(x, ws, stride, pad)``."""

    def make_node(self, x: Any, ws: Any, stride: Any = None, pad: Any = None) -> Apply:
        x = self._image(x)
        ws, stride, pad = self._params(ws, stride, pad)
        bcast = x.broadcastable[:-self.ndim] + (False,) * self.ndim
        return Apply(self, [x, ws, stride, pad], [TensorType(x.dtype, bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        x, ws, stride, pad = inputs
        ws, stride, pad = self._ints(ws, stride, pad)
        output_storage[0][0] = ref.pool(x, ws, stride, pad, self.ignore_border, self.mode)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [self._pooled_shape(node, input_shapes[0], 1)]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        x, ws, stride, pad = inputs
        (gz,) = output_grads
        if self.mode == "max":
            gx = MaxPoolGrad(self.ignore_border, ndim=self.ndim)(x, outputs[0], gz, ws, stride,
                                                                 pad)
        else:
            gx = AveragePoolGrad(self.ignore_border, self.mode, self.ndim)(x, gz, ws, stride,
                                                                           pad)
        return [gx, None, None, None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        x, ws, stride, pad = inputs
        ex = eval_points[0]
        if ex is None:
            return [None]
        if self.mode == "max":
            # As Theano: the tangent summed over each window's maxima (ties are measure-zero;
            # MaxPoolRop, which takes the first maximum, stays available as an op).
            maxout = self(x, ws, stride, pad)
            return [DownsampleFactorMaxGradGrad(self.ignore_border, ndim=self.ndim)(
                x, maxout, ex, ws, stride, pad)]
        return [self(ex, ws, stride, pad)]

    @staticmethod
    def out_shape(imgshape: Sequence[Any], ws: Any = None, ignore_border: bool = False,
                  stride: Any = None, pad: Any = None, ndim: int = 2, ds: Any = None,
                  st: Any = None, padding: Any = None) -> list:
        """Shape of the pooled output of an input of shape ``imgshape`` (entries may be
        symbolic). ``ds``, ``st`` and ``padding`` are Theano's old names of ``ws``, ``stride``
        and ``pad``."""
        ws = ds if ws is None else ws
        if ws is None:
            raise ValueError("Pool.out_shape needs the window size ws")
        stride = (st if st is not None else ws) if stride is None else stride
        pad = (padding if padding is not None else (0,) * ndim) if pad is None else pad
        if len(imgshape) < ndim:
            raise TypeError(f"Pool.out_shape: imgshape must have at least {ndim} dimensions, "
                            f"got {tuple(imgshape)}")
        lead = list(imgshape[:-ndim])
        spatial = [_out_size_symbolic(imgshape[-ndim + a], ws[a], stride[a], pad[a],
                                      ignore_border) for a in range(ndim)]
        return lead + spatial


class PoolGrad(PoolBase):
    """Base of the pooling gradient ops."""

    out_shape = staticmethod(Pool.out_shape)


class MaxPoolGrad(PoolGrad):
    """Gradient of max pooling: inputs ``(x, maxout, gz, ws, stride, pad)``; each window's
    ``gz`` goes to every pixel of ``x`` equal to the window's max (ties all receive it)."""

    def __init__(self, ignore_border: bool, ndim: int = 2, openmp: Any = None,
                 mode: str = "max") -> None:
        super().__init__(ignore_border, mode, ndim)
        if self.mode != "max":
            raise ValueError(f"MaxPoolGrad is the gradient of max pooling, not {mode!r}")

    def make_node(self, x: Any, maxout: Any, gz: Any, ws: Any, stride: Any = None,
                  pad: Any = None) -> Apply:
        x = self._image(x)
        maxout, gz = as_tensor_variable(maxout), as_tensor_variable(gz)
        if maxout.ndim != x.ndim or gz.ndim != x.ndim:
            raise TypeError(f"MaxPoolGrad: maxout and gz must have the input's rank {x.ndim}, "
                            f"got {maxout.type} and {gz.type}")
        ws, stride, pad = self._params(ws, stride, pad)
        return Apply(self, [x, maxout, gz, ws, stride, pad], [x.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        x, maxout, gz, ws, stride, pad = inputs
        ws, stride, pad = self._ints(ws, stride, pad)
        output_storage[0][0] = ref.max_pool_grad(x, maxout, gz, ws, stride, pad,
                                                 self.ignore_border)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, maxout, gz, ws, stride, pad = inputs
        (ggx,) = output_grads
        ggz = DownsampleFactorMaxGradGrad(self.ignore_border, ndim=self.ndim)(
            x, maxout, ggx, ws, stride, pad)
        return [zeros_like(x), zeros_like(maxout), ggz, None, None, None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        # piecewise constant in x and maxout, linear in gz
        x, maxout, _, ws, stride, pad = inputs
        e_gz = eval_points[2]
        return [None if e_gz is None else self(x, maxout, e_gz, ws, stride, pad)]


class AveragePoolGrad(PoolGrad):
    """Gradient of sum/average pooling: inputs ``(x, gz, ws, stride, pad)`` (``x`` only gives
    the shape); each window's ``gz`` (divided by the window's count) is spread over it."""

    def __init__(self, ignore_border: bool, mode: str = "average_inc_pad", ndim: int = 2
                 ) -> None:
        super().__init__(ignore_border, mode, ndim)
        if self.mode == "max":
            raise ValueError("AveragePoolGrad is the gradient of sum/average pooling; use "
                             "MaxPoolGrad for max pooling")

    def make_node(self, x: Any, gz: Any, ws: Any, stride: Any = None, pad: Any = None
                  ) -> Apply:
        x = self._image(x)
        gz = as_tensor_variable(gz)
        if gz.ndim != x.ndim:
            raise TypeError(f"AveragePoolGrad: gz must have the input's rank {x.ndim}, got "
                            f"{gz.type}")
        ws, stride, pad = self._params(ws, stride, pad)
        return Apply(self, [x, gz, ws, stride, pad], [x.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        x, gz, ws, stride, pad = inputs
        ws, stride, pad = self._ints(ws, stride, pad)
        output_storage[0][0] = ref.average_pool_grad(x.shape, gz, ws, stride, pad,
                                                     self.ignore_border, self.mode,
                                                     node.outputs[0].dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, gz, ws, stride, pad = inputs
        (ggx,) = output_grads
        ggz = Pool(self.ignore_border, self.mode, self.ndim)(ggx, ws, stride, pad)
        return [zeros_like(x), ggz, None, None, None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        x, _, ws, stride, pad = inputs
        e_gz = eval_points[1]
        return [None if e_gz is None else self(x, e_gz, ws, stride, pad)]


class DownsampleFactorMaxGradGrad(PoolGrad):
    """Gradient of :class:`MaxPoolGrad` with respect to its ``gz``: inputs ``(x, maxout, ggx,
    ws, stride, pad)``; each window gets the sum of ``ggx`` over its maximal pixels."""

    def __init__(self, ignore_border: bool, mode: str = "max", ndim: int = 2,
                 openmp: Any = None) -> None:
        super().__init__(ignore_border, mode, ndim)
        if self.mode != "max":
            raise ValueError("DownsampleFactorMaxGradGrad exists for max pooling only")

    def make_node(self, x: Any, maxout: Any, gz: Any, ws: Any, stride: Any = None,
                  pad: Any = None) -> Apply:
        x = self._image(x)
        maxout, gz = as_tensor_variable(maxout), as_tensor_variable(gz)
        if maxout.ndim != x.ndim or gz.ndim != x.ndim:
            raise TypeError(f"DownsampleFactorMaxGradGrad: maxout and ggx must have the "
                            f"input's rank {x.ndim}, got {maxout.type} and {gz.type}")
        ws, stride, pad = self._params(ws, stride, pad)
        return Apply(self, [x, maxout, gz, ws, stride, pad], [maxout.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        x, maxout, ggx, ws, stride, pad = inputs
        ws, stride, pad = self._ints(ws, stride, pad)
        out = ref.max_pool_grad_grad(x, maxout, ggx, ws, stride, pad, self.ignore_border)
        output_storage[0][0] = out.astype(node.outputs[0].dtype, copy=False)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[1])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, maxout, ggx, ws, stride, pad = inputs
        (g_out,) = output_grads
        d_ggx = MaxPoolGrad(self.ignore_border, ndim=self.ndim)(x, maxout, g_out, ws, stride,
                                                               pad)
        return [zeros_like(x), zeros_like(maxout), d_ggx, None, None, None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        x, maxout, _, ws, stride, pad = inputs
        e_ggx = eval_points[2]
        return [None if e_ggx is None else self(x, maxout, e_ggx, ws, stride, pad)]


class MaxPoolRop(PoolBase):
    """R-operator of max pooling: inputs ``(x, eval_point, ws, stride, pad)``; each window
    takes the evaluation point at its first maximal pixel (row-major order)."""

    def __init__(self, ignore_border: bool = False, mode: str = "max", ndim: int = 2,
                 openmp: Any = None) -> None:
        super().__init__(ignore_border, mode, ndim)
        if self.mode != "max":
            raise ValueError("MaxPoolRop exists for max pooling only")

    def make_node(self, x: Any, eval_point: Any, ws: Any, stride: Any = None, pad: Any = None
                  ) -> Apply:
        x = self._image(x)
        ex = as_tensor_variable(eval_point)
        if ex.ndim != x.ndim:
            raise TypeError(f"MaxPoolRop: the evaluation point must have the input's rank "
                            f"{x.ndim}, got {ex.type}")
        ws, stride, pad = self._params(ws, stride, pad)
        bcast = ex.broadcastable[:-self.ndim] + (False,) * self.ndim
        return Apply(self, [x, ex, ws, stride, pad], [TensorType(ex.dtype, bcast)
                                                      .make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        x, ex, ws, stride, pad = inputs
        ws, stride, pad = self._ints(ws, stride, pad)
        output_storage[0][0] = ref.max_pool_rop(x, ex, ws, stride, pad, self.ignore_border)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [self._pooled_shape(node, input_shapes[0], 2)]


# ---------------------------------------------------------------------------------------------
# The functions users call

_IGNORE_BORDER_WARNING = (
    "{fn}() was called without ignore_border: it defaults to False (Theano 1.0's default, "
    "which later versions change to True). Pass ignore_border explicitly to silence this.")


def _pool_nd(nd: int, fn: str, input: Any, ws: Any, ignore_border: bool | None, stride: Any,
             pad: Any, mode: str, ds: Any, st: Any, padding: Any) -> Variable:
    import warnings

    for old, new, value in (("ds", "ws", ds), ("st", "stride", st), ("padding", "pad", padding)):
        if value is None:
            continue
        current = {"ws": ws, "stride": stride, "pad": pad}[new]
        if new == "pad" and current is not None and tuple(np.ravel(current)) == (0,) * nd:
            current = None
        if current is not None:
            raise ValueError(f"{fn}: give {new} or its old name {old}, not both")
        warnings.warn(f"{fn}: the parameter {old!r} is deprecated, use {new!r}", stacklevel=3)
        if new == "ws":
            ws = value
        elif new == "stride":
            stride = value
        else:
            pad = value
    if ws is None:
        raise ValueError(f"{fn}: the window size ws is required")
    if ignore_border is None:
        warnings.warn(_IGNORE_BORDER_WARNING.format(fn=fn), stacklevel=3)
        ignore_border = False
    input = as_tensor_variable(input)
    if input.ndim < nd:
        raise NotImplementedError(f"{fn} requires an input with {nd} or more dimensions, got "
                                  f"{input.type}")
    return Pool(ignore_border, mode, nd)(input, ws, stride, pad)


def pool_2d(input: Any, ws: Any = None, ignore_border: bool | None = None, stride: Any = None,
            pad: Any = (0, 0), mode: str = "max", ds: Any = None, st: Any = None,
            padding: Any = None) -> Variable:
    """Pool the last two axes of ``input`` (any leading axes are batch axes).

    ``ws``: window ``(rows, cols)``; ``stride``: steps between windows (default ``ws``);
    ``pad``: zero rows/cols added on each side (needs ``ignore_border=True``, smaller than
    ``ws``); ``ignore_border=False`` keeps a partial last window (default False, with a
    warning); ``mode``: 'max', 'sum', 'average_inc_pad' or 'average_exc_pad'. ``ds``, ``st``
    and ``padding`` are the deprecated names of ``ws``, ``stride`` and ``pad``.
    """
    return _pool_nd(2, "pool_2d", input, ws, ignore_border, stride, pad, mode, ds, st, padding)


def pool_3d(input: Any, ws: Any = None, ignore_border: bool | None = None, stride: Any = None,
            pad: Any = (0, 0, 0), mode: str = "max", ds: Any = None, st: Any = None,
            padding: Any = None) -> Variable:
    """:func:`pool_2d` over the last three axes."""
    return _pool_nd(3, "pool_3d", input, ws, ignore_border, stride, pad, mode, ds, st, padding)


def max_pool_2d_same_size(input: Any, patch_size: Any) -> Variable:
    """``input`` with every value that is not the maximum of its ``patch_size`` patch set to
    0 (patches tile the last two axes; the output has the input's shape)."""
    input = as_tensor_variable(input)
    pooled = Pool(True, "max", 2)(input, patch_size)
    return MaxPoolGrad(True)(input, pooled, pooled, patch_size)
