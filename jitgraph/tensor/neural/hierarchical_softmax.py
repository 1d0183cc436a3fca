"""``theano.tensor.nnet.h_softmax``: the two-level hierarchical softmax."""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Variable
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.elementwise import math as M
from jitgraph.tensor.extras.extra_ops import arange
from jitgraph.tensor.linalg.blas import batched_dot
from jitgraph.tensor.linalg.dot_functions import dot, tensordot
from jitgraph.tensor.nnet import softmax

__all__ = ["h_softmax"]


def h_softmax(x: Any, batch_size: Any, n_outputs: int, n_classes: int, n_outputs_per_class: int,
              W1: Any, b1: Any, W2: Any, b2: Any, target: Any = None) -> Variable:
    """Probabilities of ``n_outputs`` outputs grouped in ``n_classes`` classes of
    ``n_outputs_per_class``: ``p(output) = p(class | x) * p(output | class, x)``, each level a
    softmax (``W1 (features, n_classes)``, ``b1 (n_classes,)``, ``W2 (n_classes, features,
    n_outputs_per_class)``, ``b2 (n_classes, n_outputs_per_class)``).

    Without ``target``: the ``(batch_size, n_outputs)`` matrix of every output's probability.
    With ``target`` (integer output indices, one per row): each row's target probability (only
    that class's second level is computed).
    """
    x, W1, b1, W2, b2 = (as_tensor_variable(v) for v in (x, W1, b1, W2, b2))
    if n_classes * n_outputs_per_class < n_outputs:
        raise ValueError(f"h_softmax: {n_classes} classes of {n_outputs_per_class} outputs "
                         f"cannot hold {n_outputs} outputs")
    class_probs = softmax(dot(x, W1) + b1)
    if target is None:
        acts = tensordot(x, W2, axes=[[1], [1]]) + b2.dimshuffle("x", 0, 1)
        flat = acts.reshape((batch_size * n_classes, n_outputs_per_class))
        out_probs = softmax(flat).reshape((batch_size, n_classes, n_outputs_per_class))
        joint = class_probs.dimshuffle(0, 1, "x") * out_probs
        return joint.reshape((batch_size, n_classes * n_outputs_per_class))[:, :n_outputs]
    target = as_tensor_variable(target)
    cls = M.int_div(target, n_outputs_per_class)
    within = M.mod(target, n_outputs_per_class)
    acts = batched_dot(x, W2[cls]) + b2[cls]
    rows = arange(target.shape[0])
    return class_probs[rows, cls] * softmax(acts)[rows, within]
