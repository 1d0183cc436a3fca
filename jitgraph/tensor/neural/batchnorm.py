"""Batch normalization (Theano's ``theano.tensor.nnet.bn``), built from elementwise operations
and reductions: the rewrites fuse them into a few generated kernels (threaded under
``openmp``), and gradients come from the graph.

* :func:`batch_normalization`: ``(x - mean) / std * gamma + beta`` with given statistics;
* :func:`batch_normalization_train`: normalizes with the batch's own statistics over ``axes``
  and returns them (and, given running averages, their updated values: the ``updates`` a
  training function applies);
* :func:`batch_normalization_test`: normalizes with given (running) mean and variance.

``axes``: 'per-activation' (axis 0), 'spatial' (axes 0, 2, 3, ...: one statistic per channel),
or a tuple of axes. ``gamma``/``beta`` (and running averages) have either the input's rank, with
length-1 normalized axes, or only the non-normalized axes.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.tensor.elementwise import math as M
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.shaping.shape import patternbroadcast, shape_i
from jitgraph.tensor.elementwise.statistics import mean as tmean
from jitgraph.tensor.elementwise.statistics import var as tvar
from jitgraph.tensor.core import dtypes as dt

__all__ = ["batch_normalization", "batch_normalization_train", "batch_normalization_test"]


def batch_normalization(inputs: Any, gamma: Any, beta: Any, mean: Any, std: Any,
                        mode: str = "low_mem") -> Variable:
    """``(inputs - mean) / std * gamma + beta`` (all broadcast against ``inputs``).

    ``mode='low_mem'`` computes it in that order (one fused pass); ``'high_mem'`` as
    ``(inputs - mean) * (gamma / std) + beta``, dividing the (smaller) parameters once.
    """
    if mode not in ("low_mem", "high_mem"):
        raise ValueError(f"batch_normalization: mode must be 'low_mem' or 'high_mem', got "
                         f"{mode!r}")
    x, gamma, beta, mean, std = (as_tensor_variable(v) for v in (inputs, gamma, beta, mean, std))
    if mode == "low_mem":
        return (x - mean) / std * gamma + beta
    return (x - mean) * (gamma / std) + beta


def _axes(axes: Any, ndim: int, who: str) -> tuple[int, ...]:
    if axes == "per-activation":
        return (0,)
    if axes == "spatial":
        return (0,) + tuple(range(2, ndim))
    if isinstance(axes, (tuple, list)) and all(isinstance(a, (int, np.integer)) for a in axes):
        out = tuple(sorted({int(a) % ndim for a in axes}))
        if all(-ndim <= int(a) < ndim for a in axes) and out:
            return out
    raise ValueError(f"{who}: invalid axes {axes!r}: expected 'per-activation', 'spatial' or a "
                     f"tuple of axes of the {ndim}-d input")


class _Params:
    """Broadcasting of the parameters: full rank (normalized axes of length 1), or only the
    non-normalized axes (then expanded, and the statistics returned in that rank)."""

    def __init__(self, ndim: int, axes: tuple[int, ...], params_ndim: int, who: str) -> None:
        kept = ndim - len(axes)
        if params_ndim not in (ndim, kept):
            raise ValueError(f"{who}: gamma and beta must have {ndim} dimensions (the input's) "
                             f"or {kept} (its non-normalized axes), got {params_ndim}")
        self.ndim, self.axes, self.full = ndim, axes, params_ndim == ndim
        self.kept = [d for d in range(ndim) if d not in axes]

    def expand(self, p: Any) -> Variable:
        p = as_tensor_variable(p)
        if self.full:
            bcast = [b or d in self.axes for d, b in enumerate(p.broadcastable)]
            return patternbroadcast(p, bcast) if tuple(bcast) != p.broadcastable else p
        pattern: list[Any] = ["x"] * self.ndim
        for k, d in enumerate(self.kept):
            pattern[d] = k
        return p.dimshuffle(*pattern)

    def reduce(self, stat: Variable) -> Variable:
        """A statistic (normalized axes kept, length 1) in the parameters' rank."""
        return stat if self.full else stat.dimshuffle(*self.kept)


def _eps(value: float, like: Variable) -> Variable:
    return constant(np.asarray(value, dtype=like.dtype))


def _check_epsilon(epsilon: Any, who: str) -> None:
    # Theano refuses what cuDNN refuses, on every backend; the check is on the floatX value
    # (float32(1e-5) is below 1e-5), so that programs behave the same everywhere.

    if np.asarray(epsilon, dtype=dt.floatx()) < 1e-5:
        raise ValueError(f"{who}: epsilon must be at least 1e-5 (as in Theano, whose cuDNN "
                         f"kernels need it), got {epsilon}")


def _common_dtype(*values: Any) -> list:
    """The values as tensors of one dtype, the upcast of theirs (Theano normalizes a float32
    input with float64 parameters in float64)."""
    tensors = [as_tensor_variable(v) for v in values]
    dtype = dt.upcast(*(t.dtype for t in tensors))
    return [t if t.dtype == dtype else M.cast(t, dtype) for t in tensors]


def batch_normalization_train(inputs: Any, gamma: Any, beta: Any,
                              axes: Any = "per-activation", epsilon: float = 1e-4,
                              running_average_factor: float = 0.1, running_mean: Any = None,
                              running_var: Any = None) -> tuple:
    """Normalize ``inputs`` with its own mean and variance over ``axes``.

    Returns ``(out, mean, invstd)``, ``invstd = 1 / sqrt(var + epsilon)``; with
    ``running_mean`` and ``running_var`` also their new values ``running * (1 - factor) +
    batch_statistic * factor`` (the variance's unbiased: ``var * m / (m - 1)`` for ``m``
    normalized elements), to use as updates.
    """
    who = "batch_normalization_train"
    x = as_tensor_variable(inputs)
    gamma, beta = as_tensor_variable(gamma), as_tensor_variable(beta)
    axes = _axes(axes, x.ndim, who)
    if gamma.ndim != beta.ndim:
        raise ValueError(f"{who}: gamma ({gamma.ndim}-d) and beta ({beta.ndim}-d) must have "
                         "the same number of dimensions")
    if (running_mean is None) != (running_var is None):
        raise ValueError(f"{who}: give both running_mean and running_var, or neither")
    _check_epsilon(epsilon, who)
    if running_mean is None:
        x, gamma, beta = _common_dtype(x, gamma, beta)
    else:
        x, gamma, beta, running_mean, running_var = _common_dtype(
            x, gamma, beta, running_mean, running_var)
    params = _Params(x.ndim, axes, gamma.ndim, who)
    mean = tmean(x, axis=list(axes), keepdims=True)
    var = tvar(x, axis=list(axes), keepdims=True)
    invstd = M.reciprocal(M.sqrt(var + _eps(epsilon, var)))
    out = (x - mean) * (invstd * params.expand(gamma)) + params.expand(beta)
    results = [out, params.reduce(mean), params.reduce(invstd)]
    if running_mean is not None:
        factor = _eps(running_average_factor, x)
        keep = _eps(1.0 - running_average_factor, x)
        count = M.cast(_count(x, axes), x.dtype)
        unbiased = var * (count / (count - _eps(1.0, x)))
        results.append(as_tensor_variable(running_mean) * keep
                       + params.reduce(mean) * factor)
        results.append(as_tensor_variable(running_var) * keep
                       + params.reduce(unbiased) * factor)
    return tuple(results)


def _count(x: Variable, axes: Sequence[int]) -> Variable:
    total: Any = None
    for a in axes:
        n = shape_i(x, a)
        total = n if total is None else total * n
    return total


def batch_normalization_test(inputs: Any, gamma: Any, beta: Any, mean: Any, var: Any,
                             axes: Any = "per-activation", epsilon: float = 1e-4
                             ) -> Variable:
    """``(inputs - mean) * gamma / sqrt(var + epsilon) + beta`` with given statistics
    (typically the running averages of :func:`batch_normalization_train`)."""
    who = "batch_normalization_test"
    _check_epsilon(epsilon, who)
    x, gamma, beta, mean, var = _common_dtype(inputs, gamma, beta, mean, var)
    axes = _axes(axes, x.ndim, who)
    ranks = {as_tensor_variable(v).ndim for v in (gamma, beta, mean, var)}
    if len(ranks) != 1:
        raise ValueError(f"{who}: gamma, beta, mean and var must have the same number of "
                         f"dimensions, got {sorted(ranks)}")
    params = _Params(x.ndim, axes, gamma.ndim, who)
    mean_b, var_b = params.expand(mean), params.expand(var)
    scale = params.expand(gamma) / M.sqrt(var_b + _eps(epsilon, var_b))
    return (x - mean_b) * scale + params.expand(beta)
