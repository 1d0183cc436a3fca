"""Theano's compound softmax and softmax-cross-entropy ops (``theano.tensor.nnet``):
``SoftmaxWithBias``, ``SoftmaxGrad``, ``CrossentropySoftmaxArgmax1HotWithBias`` and its gradient
``CrossentropySoftmax1HotWithBiasDx``, with the functions built on them
(``crossentropy_softmax_1hot`` and friends).

Each computes the softmax of the rows of a matrix once and, for the cross-entropies, the
negative log-likelihood of integer labels from the same shifted logits
(``log(sum(exp(x - max))) - (x - max)[label]``): no ``log`` of an underflowed probability.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.basic import zeros_like
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise.reduction import argmax, max as tmax
from jitgraph.tensor.extras.extra_ops import arange
from jitgraph.tensor.nnet import LogSoftmax, Softmax

__all__ = ["SoftmaxWithBias", "SoftmaxGrad", "CrossentropySoftmaxArgmax1HotWithBias",
           "CrossentropySoftmax1HotWithBiasDx", "softmax_with_bias", "softmax_grad",
           "crossentropy_softmax_argmax_1hot_with_bias", "crossentropy_softmax_1hot_with_bias_dx",
           "crossentropy_softmax_1hot", "crossentropy_softmax_1hot_with_bias",
           "crossentropy_softmax_max_and_argmax_1hot",
           "crossentropy_softmax_max_and_argmax_1hot_with_bias", "softmax_op", "logsoftmax_op"]


def _matrix(v: Any, who: str, role: str) -> Variable:
    v = as_tensor_variable(v)
    if v.ndim != 2 or not dt.is_float(v.dtype):
        raise TypeError(f"{who}: {role} must be a float matrix, got {v.type}")
    return v


def _bias(b: Any, who: str) -> Variable:
    b = as_tensor_variable(b)
    if b.ndim != 1 or not dt.is_float(b.dtype):
        raise TypeError(f"{who}: the bias b must be a float vector, got {b.type}")
    return b


def _labels(y: Any, who: str) -> Variable:
    y = as_tensor_variable(y)
    if y.ndim != 1 or y.dtype not in dt.integer_dtypes:
        raise TypeError(f"{who}: y_idx must be an integer vector of class labels, got {y.type}")
    return y


def _shifted(x: np.ndarray, b: np.ndarray, who: str) -> np.ndarray:
    if b.shape[0] != x.shape[1]:
        raise ValueError(f"{who}: the bias has {b.shape[0]} entries for rows of {x.shape[1]}")
    z = x + b
    return z - z.max(axis=1, keepdims=True) if z.shape[1] else z


def _check_labels(who: str, n_rows: int, n_classes: int, y: np.ndarray) -> None:
    if y.shape[0] != n_rows:
        raise ValueError(f"{who}: {n_rows} rows but {y.shape[0]} labels")
    if y.size and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"{who}: labels must lie in [0, {n_classes}); got values in "
                         f"[{y.min()}, {y.max()}]")


class SoftmaxWithBias(Op):
    """``softmax(x + b)`` over the rows of the matrix ``x`` (``b`` a vector)."""

    __props__ = ()

    def make_node(self, x: Any, b: Any) -> Apply:
        x, b = _matrix(x, "softmax_with_bias", "x"), _bias(b, "softmax_with_bias")
        out_dtype = dt.upcast(x.dtype, b.dtype)
        return Apply(self, [x, b], [TensorType(out_dtype, x.broadcastable).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        x, b = inputs
        e = np.exp(_shifted(x, b, "softmax_with_bias"))
        output_storage[0][0] = (e / e.sum(axis=1, keepdims=True)).astype(node.outputs[0].dtype)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        dx = softmax_grad(output_grads[0], outputs[0])
        return [dx, dx.sum(axis=0)]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]


class SoftmaxGrad(Op):
    """Gradient of the softmax ``sm`` of the rows of a matrix: ``(dy - sum(dy * sm)) * sm``."""

    __props__ = ()

    def make_node(self, dy: Any, sm: Any) -> Apply:
        dy, sm = _matrix(dy, "softmax_grad", "dy"), _matrix(sm, "softmax_grad", "sm")
        return Apply(self, [dy, sm], [sm.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        dy, sm = inputs
        if dy.shape != sm.shape:
            raise ValueError(f"softmax_grad: dy has shape {dy.shape}, sm {sm.shape}")
        dx = (dy - (dy * sm).sum(axis=1, keepdims=True)) * sm
        output_storage[0][0] = dx.astype(node.outputs[0].dtype)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        dy, sm = inputs
        (g,) = output_grads
        g_sm = (g * sm).sum(axis=1, keepdims=True)
        d_sm = g * (dy - (dy * sm).sum(axis=1, keepdims=True)) - g_sm * dy
        return [softmax_grad(g, sm), d_sm]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[1])]


class CrossentropySoftmaxArgmax1HotWithBias(Op):
    """``(nll, sm, am)`` for logits ``x + b`` and labels ``y_idx``: the negative
    log-likelihood of each row's label, the softmax, and each row's argmax (in ``y_idx``'s
    dtype)."""

    __props__ = ()
    nout = 3

    def make_node(self, x: Any, b: Any, y_idx: Any) -> Apply:
        who = "crossentropy_softmax_argmax_1hot_with_bias"
        x, b, y = _matrix(x, who, "x"), _bias(b, who), _labels(y_idx, who)
        dtype = dt.upcast(x.dtype, b.dtype)
        outs = [TensorType(dtype, (x.broadcastable[0],)).make_variable(),
                TensorType(dtype, x.broadcastable).make_variable(),
                TensorType(y.dtype, (x.broadcastable[0],)).make_variable()]
        return Apply(self, [x, b, y], outs)

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        x, b, y = inputs
        who = "crossentropy_softmax_argmax_1hot_with_bias"
        _check_labels(who, x.shape[0], x.shape[1], y)
        z = _shifted(x, b, who)
        e = np.exp(z)
        total = e.sum(axis=1)
        rows = np.arange(x.shape[0])
        nll_dtype, sm_dtype, am_dtype = (o.dtype for o in node.outputs)
        output_storage[0][0] = (np.log(total) - z[rows, y]).astype(nll_dtype)
        output_storage[1][0] = (e / total[:, None]).astype(sm_dtype)
        output_storage[2][0] = (np.argmax(z, axis=1) if x.shape[1] else
                                np.zeros(x.shape[0])).astype(am_dtype)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        x, b, y = inputs
        _, sm, _ = outputs
        g_nll, g_sm = output_grads[0], output_grads[1]
        # (when the softmax output is unused, g_sm is zeros and the rewrites drop that term)
        dx = crossentropy_softmax_1hot_with_bias_dx(g_nll, sm, y) + softmax_grad(g_sm, sm)
        return [dx, dx.sum(axis=0), None]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True, True, False], [True, True, False], [False, False, False]]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        xshape = tuple(input_shapes[0])
        return [(xshape[0],), xshape, (xshape[0],)]


class CrossentropySoftmax1HotWithBiasDx(Op):
    """Gradient of the negative log-likelihood of :class:`CrossentropySoftmaxArgmax1HotWithBias`
    with respect to its logits: ``dnll[:, None] * (sm - onehot(y_idx))``."""

    __props__ = ()

    def make_node(self, dnll: Any, sm: Any, y_idx: Any) -> Apply:
        who = "crossentropy_softmax_1hot_with_bias_dx"
        dnll, sm, y = as_tensor_variable(dnll), _matrix(sm, who, "sm"), _labels(y_idx, who)
        if dnll.ndim != 1:
            raise TypeError(f"{who}: dnll must be a vector, got {dnll.type}")
        return Apply(self, [dnll, sm, y], [sm.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        dnll, sm, y = inputs
        who = "crossentropy_softmax_1hot_with_bias_dx"
        _check_labels(who, sm.shape[0], sm.shape[1], y)
        if dnll.shape[0] not in (1, sm.shape[0]):
            raise ValueError(f"{who}: {dnll.shape[0]} gradients for {sm.shape[0]} rows")
        dx = np.array(sm, dtype=node.outputs[0].dtype)
        dx[np.arange(sm.shape[0]), y] -= 1
        dx *= dnll[:, None]
        output_storage[0][0] = dx

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        dnll, sm, y = inputs
        (g,) = output_grads
        # dx = dnll * (sm - onehot(y)): linear in dnll and in sm
        g_dnll = (g * sm).sum(axis=1) - g[_arange_like(sm), y]
        g_sm = g * dnll.dimshuffle(0, "x")
        return [g_dnll, g_sm, None]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [True], [False]]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[1])]


def _arange_like(m: Variable) -> Variable:
    return arange(m.shape[0])


def _row_ops() -> tuple:
    return Softmax(-1), LogSoftmax(-1)


#: Theano's op instances for the softmax (and log-softmax) of the last axis
softmax_op, logsoftmax_op = _row_ops()
softmax_with_bias = SoftmaxWithBias()
softmax_grad = SoftmaxGrad()
crossentropy_softmax_argmax_1hot_with_bias = CrossentropySoftmaxArgmax1HotWithBias()
crossentropy_softmax_1hot_with_bias_dx = CrossentropySoftmax1HotWithBiasDx()


def crossentropy_softmax_1hot_with_bias(x: Any, b: Any, y_idx: Any, **kwargs: Any) -> list:
    """``[nll, softmax(x + b)]`` for integer labels ``y_idx``."""
    return crossentropy_softmax_argmax_1hot_with_bias(x, b, y_idx, **kwargs)[0:2]


def crossentropy_softmax_1hot(x: Any, y_idx: Any, **kwargs: Any) -> list:
    """``[nll, softmax(x)]`` for integer labels ``y_idx``."""
    x = as_tensor_variable(x)
    zero_bias = _zero_bias(x)
    return crossentropy_softmax_1hot_with_bias(x, zero_bias, y_idx, **kwargs)


def crossentropy_softmax_max_and_argmax_1hot_with_bias(x: Any, b: Any, y_idx: Any,
                                                      **kwargs: Any) -> list:
    """``[nll, softmax(x + b), max of each softmax row, argmax of each row (int64)]``."""
    nll, sm = crossentropy_softmax_1hot_with_bias(x, b, y_idx, **kwargs)
    return [nll, sm, tmax(sm, axis=1), argmax(sm, axis=1)]


def crossentropy_softmax_max_and_argmax_1hot(x: Any, y_idx: Any, **kwargs: Any) -> list:
    """:func:`crossentropy_softmax_max_and_argmax_1hot_with_bias` without bias."""
    x = as_tensor_variable(x)
    return crossentropy_softmax_max_and_argmax_1hot_with_bias(x, _zero_bias(x), y_idx, **kwargs)


def _zero_bias(x: Variable) -> Variable:
    return zeros_like(x[0])
