"""Neural-network functions (``T.nnet``): activations, softmax, cross-entropies.

Most are built from elementwise ops so that the rewrite system can recognise and stabilise them
(``binary_crossentropy`` of a ``sigmoid`` becomes a softplus form, ``log(softmax)`` becomes
``log_softmax``). :class:`Softmax`, :class:`LogSoftmax` and :class:`CrossentropyCategorical1Hot`
are ops of their own because a numerically stable evaluation needs the whole row at once.
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.lazy_exports import lazy_exports
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.elementwise import math as M
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise.reduction import sum as tsum
from jitgraph.tensor.shaping.shape import shape_padleft

__all__ = [
    "sigmoid", "softplus", "relu", "elu", "hard_sigmoid", "ultra_fast_sigmoid",
    "Softmax", "LogSoftmax", "softmax", "log_softmax", "logsoftmax",
    "binary_crossentropy", "sigmoid_binary_crossentropy", "categorical_crossentropy",
    "CrossentropyCategorical1Hot", "CrossentropyCategorical1HotGrad",
    "crossentropy_categorical_1hot",
]

sigmoid = M.sigmoid
softplus = M.softplus


#: Theano's piecewise approximation of the sigmoid, as an elementwise op; here the exact
#: :data:`sigmoid` op itself. The approximation only saved time in Theano's C code; fused kernels
#: make the exact function cheap, and results agree with ``sigmoid``.
ultra_fast_sigmoid = M.sigmoid


def hard_sigmoid(x: Any) -> Variable:
    """Piecewise-linear sigmoid ``clip(0.2 * x + 0.5, 0, 1)`` (Theano's definition)."""
    x = as_tensor_variable(x)
    out_dtype = dt.upgrade_to_float(x.dtype)
    slope = constant(np.asarray(0.2, dtype=out_dtype))
    shift = constant(np.asarray(0.5, dtype=out_dtype))
    return M.clip(x * slope + shift, 0, 1)


def relu(x: Any, alpha: Any = 0) -> Variable:
    """Rectified linear unit ``max(x, 0)``; with ``alpha`` the leaky form ``x if x > 0 else
    alpha * x``.

    Written as Theano does, ``0.5 * (x + |x|)`` (``f1 * x + f2 * |x|`` when leaky), so values and
    gradients match Theano's exactly (the gradient at 0 is 0.5, resp. ``(1 + alpha) / 2``).
    """
    x = as_tensor_variable(x)
    if not isinstance(alpha, Variable) and np.all(np.asarray(alpha) == 0):
        return 0.5 * (x + M.abs(x))
    if isinstance(alpha, Variable):
        f1, f2 = 0.5 * (1 + alpha), 0.5 * (1 - alpha)
    else:
        f1, f2 = literal_for(0.5 * (1 + alpha), x), literal_for(0.5 * (1 - alpha), x)
    return f1 * x + f2 * M.abs(x)


def literal_for(value: Any, x: Variable) -> Variable:
    """The literal ``value`` as a constant to multiply ``x`` by: of the dtype Theano gives
    ``value * x`` (a float32 ``x`` times 0.55 is float64 under ``floatX=float64``, as 0.55 is
    not a float32 number), but holding ``value`` exactly in that dtype (Theano rounded it to
    floatX first, so a float64 ``x`` under ``floatX=float32`` met a float32-rounded factor)."""
    out_dtype = dt.upcast(x.dtype, dt.as_array(value).dtype)
    return constant(np.asarray(value, dtype=out_dtype))


def elu(x: Any, alpha: Any = 1) -> Variable:
    """Exponential linear unit: ``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``."""
    x = as_tensor_variable(x)
    return M.switch(M.gt(x, 0), x, alpha * M.expm1(x))


# ---------------------------------------------------------------------------------------------
# Softmax

def _norm_axis(axis: int | None, ndim: int, name: str) -> int | None:
    if axis is None:
        return None
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{name}: axis must be an int or None, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: axis {axis} is out of bounds for a {ndim}-d input")
    return int(axis) % ndim


class _RowwiseOp(Op):
    """An op normalising along ``axis`` (None: all elements); output type = float input type."""

    __props__ = ("axis",)

    def __init__(self, axis: int | None = -1) -> None:
        if axis is not None and not isinstance(axis, (int, np.integer)):
            raise TypeError(f"{type(self).__name__}: axis must be an int or None, got {axis!r}")
        self.axis = None if axis is None else int(axis)

    def __str__(self) -> str:
        # Theano's ops work along the last axis and print as Softmax / LogSoftmax
        name = type(self).__name__
        return name if self.axis == -1 else f"{name}{{axis={self.axis}}}"

    def str_for_node(self, node: Apply) -> str:
        ndim = node.inputs[0].ndim
        last = self.axis is not None and ndim and self.axis % ndim == ndim - 1
        return type(self).__name__ if last else str(self)

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.ndim == 1 and self.axis == -1:
            # Theano's op of the last axis (``softmax_op``) makes a vector a 1-row matrix;
            # ``softmax(v, axis=-1)`` builds the op of axis 0, which keeps a vector
            x = shape_padleft(x)
        if self.axis is not None and not -x.ndim <= self.axis < x.ndim:
            raise ValueError(f"{self}: axis {self.axis} is out of bounds for {x.type}")
        if dt.is_complex(x.dtype):
            raise TypeError(f"{self} needs a real input, got {x.type}")
        out = TensorType(dt.upgrade_to_float(x.dtype), x.broadcastable).make_variable()
        return Apply(self, [x], [out])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        (x,) = inputs
        out_dtype = node.outputs[0].dtype
        # float16 loses too much in exp/sum: compute in float32 and round once at the end.
        work = "float32" if out_dtype == "float16" else out_dtype
        x = x.astype(work, copy=False)
        if x.size == 0:
            output_storage[0][0] = np.empty(x.shape, dtype=out_dtype)
            return
        with np.errstate(under="ignore", divide="ignore"):
            result = self._compute(x)
        output_storage[0][0] = np.asarray(result).astype(out_dtype, copy=False)

    def _compute(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]

    def _sum_keep(self, x: Variable) -> Variable:
        return tsum(x, axis=self.axis, keepdims=True)


class Softmax(_RowwiseOp):
    """``exp(x) / sum(exp(x), axis)``, computed as ``exp(x - max)`` so it never overflows."""

    def _compute(self, x: np.ndarray) -> np.ndarray:
        e = np.exp(x - np.max(x, axis=self.axis, keepdims=True))
        return e / np.sum(e, axis=self.axis, keepdims=True)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        (x,) = inputs
        if dt.is_discrete(x.dtype):
            return [None]
        sm = outputs[0]
        g = as_tensor_variable(output_grads[0])
        gx = (g - self._sum_keep(g * sm)) * sm
        return [M.cast(gx, x.dtype) if gx.dtype != x.dtype else gx]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        (x,), (v,) = inputs, eval_points
        if v is None:
            return [None]
        sm = self(x)
        return [(v - self._sum_keep(sm * v)) * sm]


class LogSoftmax(_RowwiseOp):
    """``x - log(sum(exp(x), axis))``, computed stably (``x - max - log(sum(exp(x - max)))``)."""

    def _compute(self, x: np.ndarray) -> np.ndarray:
        shifted = x - np.max(x, axis=self.axis, keepdims=True)
        return shifted - np.log(np.sum(np.exp(shifted), axis=self.axis, keepdims=True))

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        (x,) = inputs
        if dt.is_discrete(x.dtype):
            return [None]
        g = as_tensor_variable(output_grads[0])
        gx = g - self._sum_keep(g) * M.exp(outputs[0])
        return [M.cast(gx, x.dtype) if gx.dtype != x.dtype else gx]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        (x,), (v,) = inputs, eval_points
        if v is None:
            return [None]
        return [v - self._sum_keep(M.exp(self(x)) * v)]


class _LastAxis(int):
    """The default ``axis`` of softmax/log_softmax: the last one, and a vector (which Theano 1.0
    pads) becomes a 1-row matrix. An explicit ``axis=-1`` keeps a vector a vector."""

    def __repr__(self) -> str:
        return "-1"


_LAST_AXIS = _LastAxis(-1)


def _theano_rows(x: Variable, axis: Any, name: str) -> tuple[Variable, Any]:
    if axis is _LAST_AXIS and x.ndim == 1:
        warnings.warn(f"{name} of a vector gives a 1-row matrix, as in Theano 1.0 (whose later "
                      "releases planned to return a vector); pass axis=-1 to get a vector",
                      UserWarning, stacklevel=3)
        return shape_padleft(x), -1
    return x, (-1 if axis is _LAST_AXIS else axis)


def softmax(x: Any, axis: int | None = _LAST_AXIS) -> Variable:
    """Softmax along ``axis`` (default the last; None: over all elements), computed stably.

    Integer inputs give floats (float32 for small ints, float64 otherwise, like ``exp``).
    The output has the input's shape, except that ``softmax(vector)`` without an axis is a
    1-row matrix, as in Theano 1.0 (with a warning); ``softmax(vector, axis=-1)`` is a vector.
    """
    x, axis = _theano_rows(as_tensor_variable(x), axis, "softmax")
    return Softmax(_norm_axis(axis, x.ndim, "softmax"))(x)


def log_softmax(x: Any, axis: int | None = _LAST_AXIS) -> Variable:
    """``log(softmax(x, axis))`` computed stably (no log of an underflowed 0); a vector without
    an axis gives a 1-row matrix, as ``softmax``."""
    x, axis = _theano_rows(as_tensor_variable(x), axis, "log_softmax")
    return LogSoftmax(_norm_axis(axis, x.ndim, "log_softmax"))(x)


logsoftmax = log_softmax


# ---------------------------------------------------------------------------------------------
# Cross-entropies

def binary_crossentropy(output: Any, target: Any) -> Variable:
    """``-(target * log(output) + (1 - target) * log(1 - output))`` elementwise.

    ``output`` is a probability. When it is ``sigmoid(z)`` the rewrites turn this into a stable
    softplus form; to be stable without them use :func:`sigmoid_binary_crossentropy` on ``z``.
    """
    output, target = as_tensor_variable(output), as_tensor_variable(target)
    return -(target * M.log(output) + (1.0 - target) * M.log(1.0 - output))


def sigmoid_binary_crossentropy(output: Any, target: Any) -> Variable:
    """Binary cross-entropy of ``sigmoid(output)`` for logits ``output``, stable for any logit:
    ``softplus(output) - target * output`` (its gradient is ``sigmoid(output) - target``)."""
    output, target = as_tensor_variable(output), as_tensor_variable(target)
    return M.softplus(output) - target * output


def _check_1hot(op: Op, coding: np.ndarray, labels: np.ndarray) -> None:
    if coding.shape[0] != labels.shape[0]:
        raise ValueError(f"{op}: {coding.shape[0]} rows of coding_dist (shape {coding.shape}) "
                         f"but {labels.shape[0]} labels (shape {labels.shape})")
    if labels.size and (labels.min() < 0 or labels.max() >= coding.shape[1]):
        raise ValueError(f"{op}: labels must lie in [0, {coding.shape[1]}) for coding_dist of "
                         f"shape {coding.shape}; got values in [{labels.min()}, {labels.max()}]")


class CrossentropyCategorical1Hot(Op):
    """``-log(coding_dist[i, y[i]])`` for each row ``i``: categorical cross-entropy with integer
    class labels ``y`` (a one-hot target given by its index)."""

    __props__ = ()

    def make_node(self, coding_dist: Any, true_one_of_n: Any) -> Apply:
        coding, labels = as_tensor_variable(coding_dist), as_tensor_variable(true_one_of_n)
        if coding.ndim != 2 or not dt.is_float(coding.dtype):
            raise TypeError(f"{self}: coding_dist must be a float matrix, got {coding.type}")
        if labels.ndim != 1 or labels.dtype not in dt.integer_dtypes:
            raise TypeError(f"{self}: true_one_of_n must be an integer vector, got "
                            f"{labels.type}")
        # a vector whatever the rows (as Theano's): one row is a 1-row softmax of a vector
        out = TensorType(coding.dtype, (False,)).make_variable()
        return Apply(self, [coding, labels], [out])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        coding, labels = inputs
        _check_1hot(self, coding, labels)
        picked = coding[np.arange(coding.shape[0]), labels]
        with np.errstate(divide="ignore"):
            output_storage[0][0] = np.asarray(-np.log(picked), dtype=coding.dtype)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        coding, labels = inputs
        return [crossentropy_categorical_1hot_grad(output_grads[0], coding, labels), None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        (coding, labels), v = inputs, eval_points[0]
        if v is None:
            return [None]
        return [_picked_over_coding(coding, labels, v)]  # -v[i, y[i]] / coding[i, y[i]]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [(input_shapes[0][0],)]


class CrossentropyCategorical1HotGrad(Op):
    """Gradient of :class:`CrossentropyCategorical1Hot` with respect to ``coding_dist``:
    zero except ``-g[i] / coding_dist[i, y[i]]`` at ``(i, y[i])``."""

    __props__ = ()

    def make_node(self, g: Any, coding_dist: Any, true_one_of_n: Any) -> Apply:
        g, coding, labels = (as_tensor_variable(v) for v in (g, coding_dist, true_one_of_n))
        if g.ndim != 1 or coding.ndim != 2 or labels.ndim != 1:
            raise TypeError(f"{self}: expected a vector, a matrix and an integer vector, got "
                            f"{g.type}, {coding.type}, {labels.type}")
        return Apply(self, [g, coding, labels], [coding.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        g, coding, labels = inputs
        _check_1hot(self, coding, labels)
        rows = np.arange(coding.shape[0])
        out = np.zeros(coding.shape, dtype=node.outputs[0].dtype)
        with np.errstate(divide="ignore"):
            out[rows, labels] = -g / coding[rows, labels]
        output_storage[0][0] = out

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        # out[i, y[i]] = -g[i] / c[i, y[i]]: d/dg = -1/c, d/dc = g/c**2, at (i, y[i]) only.
        g, coding, labels = inputs
        picked = _picked_over_coding(coding, labels, output_grads[0])
        return [picked, self(g * picked, coding, labels), None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        (g, coding, labels), (vg, vc) = inputs, eval_points[:2]
        terms = [t for t in (vg, None if vc is None else g * _picked_over_coding(coding, labels,
                                                                                   vc))
                 if t is not None]
        if not terms:
            return [None]
        return [self(terms[0] if len(terms) == 1 else terms[0] + terms[1], coding, labels)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [True], [False]]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[1])]


crossentropy_categorical_1hot = CrossentropyCategorical1Hot()
crossentropy_categorical_1hot_grad = CrossentropyCategorical1HotGrad()


def _picked_over_coding(coding: Variable, labels: Variable, m: Variable) -> Variable:
    """``-m[i, labels[i]] / coding[i, labels[i]]`` for each row ``i`` (what the derivatives of
    the one-hot cross-entropy are made of)."""
    ones = M.second(coding[:, 0], constant(np.ones((), dtype=coding.dtype)))
    return tsum(crossentropy_categorical_1hot_grad(ones, coding, labels) * m, axis=1)


def categorical_crossentropy(coding_dist: Any, true_dist: Any) -> Variable:
    """Cross-entropy of each row of ``coding_dist`` (predicted probabilities) against the target.

    ``true_dist`` is either a distribution of the same shape (one-hot or soft labels), giving
    ``-sum(true_dist * log(coding_dist), axis=-1)``, or a vector of integer class labels, giving
    ``-log(coding_dist[i, true_dist[i]])`` (:class:`CrossentropyCategorical1Hot`).
    """
    coding, target = as_tensor_variable(coding_dist), as_tensor_variable(true_dist)
    if target.ndim == coding.ndim:
        return -tsum(target * M.log(coding), axis=coding.ndim - 1)
    if target.ndim == coding.ndim - 1:
        return crossentropy_categorical_1hot(coding, target)
    raise TypeError(f"categorical_crossentropy: rank mismatch between coding_dist "
                    f"({coding.type}) and true_dist ({target.type})")


# ---------------------------------------------------------------------------------------------
# Convolutional-network names, imported on first use (PEP 562) so that importing this package
# stays cheap. Theano's submodule paths (conv, abstract_conv, bn, sigm, ...) and its names of
# objects in the layers above (scalar_sigmoid, the cross-entropy rewrites) come from
# jitgraph._facade.

_LAZY: dict[str, str] = {
    **dict.fromkeys(("conv2d", "conv3d", "conv2d_transpose", "conv2d_grad_wrt_inputs",
                     "conv2d_grad_wrt_weights", "separable_conv2d"),
                    "jitgraph.tensor.convolution.conv_functions"),
    "ConvOp": "jitgraph.tensor.convolution.conv_legacy",
    "batch_normalization": "jitgraph.tensor.neural.batchnorm",
    **dict.fromkeys(("selu", "softsign", "softmax_graph"), "jitgraph.tensor.neural.activations"),
    "h_softmax": "jitgraph.tensor.neural.hierarchical_softmax",
    "confusion_matrix": "jitgraph.tensor.neural.confusion",
    **dict.fromkeys(("Prepend_scalar_constant_to_each_row", "Prepend_scalar_to_each_row",
                     "prepend_scalar_to_each_row", "prepend_0_to_each_row",
                     "prepend_1_to_each_row"), "jitgraph.tensor.neural.prepend"),
    **dict.fromkeys(("SoftmaxWithBias", "SoftmaxGrad", "CrossentropySoftmaxArgmax1HotWithBias",
                     "CrossentropySoftmax1HotWithBiasDx", "softmax_with_bias", "softmax_grad",
                     "crossentropy_softmax_argmax_1hot_with_bias",
                     "crossentropy_softmax_1hot_with_bias_dx", "crossentropy_softmax_1hot",
                     "crossentropy_softmax_1hot_with_bias",
                     "crossentropy_softmax_max_and_argmax_1hot",
                     "crossentropy_softmax_max_and_argmax_1hot_with_bias", "softmax_op",
                     "logsoftmax_op"), "jitgraph.tensor.neural.softmax_xent"),
}

__getattr__ = lazy_exports(__name__, _LAZY)[0]
