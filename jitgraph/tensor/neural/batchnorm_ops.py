"""Batch normalization as single ops (Theano's ``AbstractBatchNormTrain``, ``...Inference``,
``...TrainGrad`` of ``theano.tensor.nnet.bn``), and the rewrites that expand them.

An abstract op keeps a batch normalization recognisable in the graph (a back end may give it a
kernel of its own); ``perform`` evaluates it with NumPy. In ``specialize`` the rewrites
``local_abstract_batch_norm_*`` (in the group ``bn_groupopt``) replace each op by the same
computation in elementwise operations and reductions, which fusion turns into a few generated
kernels. Gradients: ``AbstractBatchNormTrain``'s output gradient goes through
``AbstractBatchNormTrainGrad``; every other gradient is that of the expanded graph.

All parameters (scale, bias, statistics) have the input's rank, with length-1 normalized axes;
``batch_normalization_train``/``_test`` (:mod:`jitgraph.tensor.neural.batchnorm`) accept the shorter
forms too.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable, clone_replace
from jitgraph.graph.gradient_types import DisconnectedType
from jitgraph.graph.op import Op
from jitgraph.rewrite.context import copy_stack_trace
from jitgraph.rewrite.db import LocalGroupDB
from jitgraph.rewrite.engine import node_rewriter
from jitgraph.tensor.elementwise import math as M
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.elementwise.reduction import sum as tsum
from jitgraph.tensor.shaping.shape import patternbroadcast, shape_i
from jitgraph.tensor.elementwise.statistics import mean as tmean
from jitgraph.tensor.elementwise.statistics import var as tvar
from jitgraph.rewrite.theano_api import register_specialize_device
from jitgraph.tensor.core.gradient import grad


class _BatchNormOp(Op):
    """Base: the normalized ``axes`` (a tuple of ints, Theano's default ``(0,)``)."""

    __props__ = ("axes",)

    def __init__(self, axes: Sequence[int] = (0,)) -> None:
        axes = tuple(axes)
        if not axes or not all(isinstance(a, (int, np.integer)) for a in axes):
            raise TypeError(f"{type(self).__name__}: axes must be a non-empty tuple of ints, "
                            f"got {axes!r}")
        self.axes = tuple(int(a) for a in axes)

    def _check(self, x: Variable, params: dict[str, Variable]) -> None:
        if any(not -x.ndim <= a < x.ndim for a in self.axes):
            raise ValueError(f"{self}: axes {self.axes} out of range for the {x.ndim}-d input")
        for name, p in params.items():
            if p.ndim != x.ndim:
                raise TypeError(f"{self}: {name} must have {x.ndim} dimensions (the input's, "
                                f"normalized axes of length 1), got {p.type}")

    def _scalar(self, value: Any, like: Variable) -> Variable:
        var = as_tensor_variable(value if isinstance(value, Variable)
                                 else np.asarray(value, dtype=like.dtype))
        if var.ndim != 0:
            raise TypeError(f"{self}: epsilon and running_average_factor are scalars, got "
                            f"{var.type}")
        return var

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence) -> list:
        return [input_shapes[self._shape_source(k)] for k in range(len(node.outputs))]

    def _np_axes(self, ndim: int) -> tuple[int, ...]:
        return tuple(a % ndim for a in self.axes)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        return graph_grads(self.expand, inputs, output_grads)


def graph_grads(expand: Any, inputs: Sequence[Variable], output_grads: Sequence[Variable]
                ) -> list:
    """Gradients of ``inputs`` through the graph ``expand(*inputs)``, given the outputs'
    gradients. The graph is built on stand-ins of the inputs, so that an input computed from
    another one (a mean from ``x``) is differentiated on its own, as the op sees it."""
    stand_ins = [inp.type() for inp in inputs]
    known = {out: g for out, g in zip(expand(*stand_ins), output_grads)
             if not isinstance(g.type, DisconnectedType)}
    if not known:
        return [DisconnectedType()() for _ in inputs]
    grads = grad(None, stand_ins, known_grads=known, disconnected_inputs="ignore",
                 return_disconnected="Disconnected", accumulate_known=True)
    back = dict(zip(stand_ins, inputs))
    return [g if isinstance(g.type, DisconnectedType) else clone_replace(g, back)
            for g in grads]


def _count(x: Variable, axes: Sequence[int]) -> Variable:
    """The number of elements over ``axes`` (symbolic)."""
    total = shape_i(x, axes[0])
    for a in axes[1:]:
        total = total * shape_i(x, a)
    return total


def _fit(value: Variable, like: Variable) -> Variable:
    """``value`` with the broadcastable pattern and dtype of the output it replaces."""
    if value.dtype != like.dtype:
        value = M.cast(value, like.dtype)
    if value.broadcastable != like.broadcastable:
        value = patternbroadcast(value, like.broadcastable)
    return value


class AbstractBatchNormTrain(_BatchNormOp):
    """``(out, mean, invstd[, new_running_mean, new_running_var])`` from ``(x, scale, bias,
    epsilon, running_average_factor[, running_mean, running_var])``: ``x`` normalized with its
    own statistics over ``axes``; the running averages move by ``running_average_factor``
    towards the batch mean and unbiased variance."""

    def make_node(self, x: Any, scale: Any, bias: Any, epsilon: Any = 1e-4,
                  running_average_factor: Any = 0.1, running_mean: Any = None,
                  running_var: Any = None) -> Apply:
        x, scale, bias = (as_tensor_variable(v) for v in (x, scale, bias))
        if (running_mean is None) != (running_var is None):
            raise ValueError(f"{self}: give both running_mean and running_var, or neither")
        inputs = [x, scale, bias, self._scalar(epsilon, x),
                  self._scalar(running_average_factor, x)]
        params = {"scale": scale, "bias": bias}
        if running_mean is not None:
            running = [as_tensor_variable(running_mean), as_tensor_variable(running_var)]
            params.update(running_mean=running[0], running_var=running[1])
            inputs += running
        self._check(x, params)
        outputs = [x.type(), scale.type(), scale.type()] + [r.type() for r in inputs[5:]]
        return Apply(self, inputs, outputs)

    def _shape_source(self, k: int) -> int:
        return (0, 1, 1, 5, 6)[k]

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        x, scale, bias, eps, factor = inputs[:5]
        axes = self._np_axes(x.ndim)
        mean = x.mean(axis=axes, keepdims=True)
        var = x.var(axis=axes, keepdims=True)
        invstd = 1.0 / np.sqrt(var + eps)
        results = [(x - mean) * (scale * invstd) + bias, mean, invstd]
        if len(inputs) == 7:
            count = np.prod([x.shape[a] for a in axes])
            results.append(inputs[5] * (1.0 - factor) + mean * factor)
            results.append(inputs[6] * (1.0 - factor) + var * (count / (count - 1.0)) * factor)
        for cell, value, out in zip(output_storage, results, node.outputs):
            cell[0] = np.asarray(value, dtype=out.dtype)

    def expand(self, x: Variable, scale: Variable, bias: Variable, eps: Variable,
               factor: Variable, *running: Variable) -> list[Variable]:
        """The outputs as elementwise operations and reductions."""
        axes = list(self._np_axes(x.ndim))
        mean = tmean(x, axis=axes, keepdims=True)
        var = tvar(x, axis=axes, keepdims=True)
        invstd = M.reciprocal(M.sqrt(var + eps))
        results = [(x - mean) * (scale * invstd) + bias, mean, invstd]
        if running:
            count = M.cast(_count(x, axes), x.dtype)
            keep = 1.0 - factor
            results.append(running[0] * keep + mean * factor)
            results.append(running[1] * keep + var * (count / (count - 1.0)) * factor)
        return results

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        x, scale = inputs[0], inputs[1]
        rest = [DisconnectedType()()] + list(output_grads[1:])
        grads = graph_grads(self.expand, inputs, rest)
        g_out = output_grads[0]
        if isinstance(g_out.type, DisconnectedType):
            return grads
        g_x, g_scale, g_bias = AbstractBatchNormTrainGrad(self.axes)(
            x, g_out, scale, outputs[1], outputs[2], inputs[3])
        for k, g in ((0, g_x), (1, g_scale), (2, g_bias)):
            grads[k] = g if isinstance(grads[k].type, DisconnectedType) else grads[k] + g
        return grads

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        n_out = len(node.outputs)
        rows = [[True] * 5,                                 # x
                [True, False, False, False, False],         # scale
                [True, False, False, False, False],         # bias
                [True, False, True, False, True],           # epsilon
                [False, False, False, True, True],          # running_average_factor
                [False, False, False, True, False],         # running_mean
                [False, False, False, False, True]]         # running_var
        return [row[:n_out] for row in rows[:len(node.inputs)]]


class AbstractBatchNormInference(_BatchNormOp):
    """``(x - estimated_mean) * scale / sqrt(estimated_variance + epsilon) + bias``."""

    def make_node(self, x: Any, scale: Any, bias: Any, estimated_mean: Any,
                  estimated_variance: Any, epsilon: Any = 1e-4) -> Apply:
        x, scale, bias, mean, var = (as_tensor_variable(v) for v in
                                     (x, scale, bias, estimated_mean, estimated_variance))
        self._check(x, {"scale": scale, "bias": bias, "estimated_mean": mean,
                        "estimated_variance": var})
        return Apply(self, [x, scale, bias, mean, var, self._scalar(epsilon, x)], [x.type()])

    def _shape_source(self, k: int) -> int:
        return 0

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        x, scale, bias, mean, var, eps = inputs
        out = (x - mean) * (scale / np.sqrt(var + eps)) + bias
        output_storage[0][0] = np.asarray(out, dtype=node.outputs[0].dtype)

    def expand(self, x: Variable, scale: Variable, bias: Variable, mean: Variable,
               var: Variable, eps: Variable) -> list[Variable]:
        return [(x - mean) * (scale / M.sqrt(var + eps)) + bias]


class AbstractBatchNormTrainGrad(_BatchNormOp):
    """``(g_x, g_scale, g_bias)``: the gradients of ``AbstractBatchNormTrain``'s output ``out``
    for the output gradient ``dy``, from the saved ``x_mean`` and ``x_invstd``."""

    def make_node(self, x: Any, dy: Any, scale: Any, x_mean: Any, x_invstd: Any,
                  epsilon: Any = 1e-4) -> Apply:
        x, dy, scale, x_mean, x_invstd = (as_tensor_variable(v) for v in
                                          (x, dy, scale, x_mean, x_invstd))
        self._check(x, {"dy": dy, "scale": scale, "x_mean": x_mean, "x_invstd": x_invstd})
        return Apply(self, [x, dy, scale, x_mean, x_invstd, self._scalar(epsilon, x)],
                     [x.type(), scale.type(), scale.type()])

    def _shape_source(self, k: int) -> int:
        return (0, 2, 2)[k]

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        x, dy, scale, x_mean, x_invstd, _ = inputs
        axes = self._np_axes(x.ndim)
        x_diff = x - x_mean
        mean_dy_x_diff = np.mean(dy * x_diff, axis=axes, keepdims=True)
        g_x = scale * (x_invstd * (dy - np.mean(dy, axis=axes, keepdims=True))
                       - x_diff * x_invstd ** 3 * mean_dy_x_diff)
        results = [g_x, np.sum(dy * x_diff * x_invstd, axis=axes, keepdims=True),
                   np.sum(dy, axis=axes, keepdims=True)]
        for cell, value, out in zip(output_storage, results, node.outputs):
            cell[0] = np.asarray(value, dtype=out.dtype)

    def expand(self, x: Variable, dy: Variable, scale: Variable, x_mean: Variable,
               x_invstd: Variable, eps: Variable) -> list[Variable]:
        axes = list(self._np_axes(x.ndim))
        x_diff = x - x_mean
        mean_dy_x_diff = tmean(dy * x_diff, axis=axes, keepdims=True)
        g_x = scale * (x_invstd * (dy - tmean(dy, axis=axes, keepdims=True))
                       - x_diff * x_invstd ** 3 * mean_dy_x_diff)
        return [g_x, tsum(dy * x_diff * x_invstd, axis=axes, keepdims=True),
                tsum(dy, axis=axes, keepdims=True)]


def _expanded(node: Apply) -> list[Variable]:
    new = [_fit(v, old) for v, old in zip(node.op.expand(*node.inputs), node.outputs)]
    for old, v in zip(node.outputs, new):
        copy_stack_trace(old, v)
    return new


@node_rewriter([AbstractBatchNormTrain])
def local_abstract_batch_norm_train(fgraph: Any, node: Apply) -> list[Variable]:
    """``AbstractBatchNormTrain`` as elementwise operations and reductions."""
    return _expanded(node)


@node_rewriter([AbstractBatchNormInference])
def local_abstract_batch_norm_inference(fgraph: Any, node: Apply) -> list[Variable]:
    """``AbstractBatchNormInference`` as elementwise operations."""
    return _expanded(node)


@node_rewriter([AbstractBatchNormTrainGrad])
def local_abstract_batch_norm_train_grad(fgraph: Any, node: Apply) -> list[Variable]:
    """``AbstractBatchNormTrainGrad`` as elementwise operations and reductions."""
    return _expanded(node)


#: the three expansions as one node rewriter, in specialize (as Theano registered them)
bn_groupopt = LocalGroupDB("batchnorm_opts")


def _register() -> None:
    for rewriter in (local_abstract_batch_norm_train, local_abstract_batch_norm_train_grad,
                     local_abstract_batch_norm_inference):
        bn_groupopt.register(rewriter.name, rewriter, "fast_run", "fast_compile")
    register_specialize_device(bn_groupopt, "fast_compile", name="batchnorm_opts")


_register()

__all__ = ["AbstractBatchNormInference", "AbstractBatchNormTrain", "AbstractBatchNormTrainGrad",
           "bn_groupopt", "local_abstract_batch_norm_inference",
           "local_abstract_batch_norm_train", "local_abstract_batch_norm_train_grad"]
