"""More activation functions of ``theano.tensor.nnet``, as elementwise graphs (fused by the
rewrites): ``selu``, ``softsign`` and ``softmax_graph``."""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Variable
from jitgraph.tensor.elementwise import math as M
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.elementwise.reduction import sum as tsum
from jitgraph.tensor.nnet import elu, literal_for

__all__ = ["selu", "softsign", "softmax_graph", "SELU_ALPHA", "SELU_SCALE"]

#: the constants of the scaled exponential linear unit (Klambauer et al., 2017)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def selu(x: Any) -> Variable:
    """Scaled exponential linear unit: ``scale * elu(x, alpha)`` with the self-normalizing
    constants :data:`SELU_ALPHA` and :data:`SELU_SCALE`."""
    x = as_tensor_variable(x)
    return literal_for(SELU_SCALE, x) * elu(x, literal_for(SELU_ALPHA, x))


def softsign(x: Any) -> Variable:
    """``x / (1 + |x|)``."""
    x = as_tensor_variable(x)
    return x / (M.const_like(1.0, x) + M.abs(x))


def softmax_graph(c: Any) -> Variable:
    """Softmax of the last axis written as ``exp(c) / sum(exp(c))`` (no max shift; the
    stabilizing rewrites may turn it into the softmax op)."""
    c = as_tensor_variable(c)
    e = M.exp(c)
    return e / tsum(e, axis=-1, keepdims=True)
