"""``theano.sandbox.linalg.ops``: hints about matrices (``psd(X)`` marks ``X`` positive
semi-definite and symmetric) and ``spectral_radius_bound``.

A hint is an identity op carrying facts about its input; ``is_psd``, ``is_symmetric`` and
``is_positive`` read them. The rewrite ``remove_hint_nodes`` (canonicalize) drops the hint
nodes before the graph runs. Theano's ``HintsFeature``/``HintsOptimizer`` (which collected
hints across a whole graph) are not provided.
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.rewrite.engine import node_rewriter
from jitgraph.rewrite.phases import register_canonicalize
import jitgraph.tensor as T
from jitgraph.tensor.core.basic import get_scalar_constant_value
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.linalg.nlinalg import alloc_diag, det, extract_diag, matrix_inverse, trace  # noqa: F401
from jitgraph.tensor.linalg.slinalg import cholesky, solve  # noqa: F401


class Hint(Op):
    """``Hint(psd=True)(X)``: ``X`` itself, with the given facts attached."""

    __props__ = ("hints",)
    view_map = {0: [0]}

    def __init__(self, **kwargs: Any) -> None:
        self.hints = tuple(sorted(kwargs.items()))

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = inputs[0]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return list(input_shapes)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return list(output_grads)


def is_hint_node(node: Any) -> bool:
    """Whether ``node`` applies a :class:`Hint`."""
    return node is not None and isinstance(node.op, Hint)


def hints(variable: Variable) -> dict[str, Any]:
    """The facts attached to ``variable`` by the hint computing it (empty if none)."""
    if is_hint_node(variable.owner):
        return dict(variable.owner.op.hints)
    return {}


def psd(v: Any) -> Variable:
    """``v`` marked symmetric positive semi-definite."""
    return Hint(psd=True, symmetric=True)(v)


def is_psd(v: Variable) -> bool:
    """Whether ``v`` is marked positive semi-definite."""
    return bool(hints(v).get("psd", False))


def is_symmetric(v: Variable) -> bool:
    """Whether ``v`` is marked symmetric."""
    return bool(hints(v).get("symmetric", False))


def is_positive(v: Variable) -> bool:
    """Whether ``v`` is known to be elementwise positive: marked so, or a square."""
    if hints(v).get("positive", False):
        return True
    owner = v.owner
    if owner is None:
        return False
    name = str(owner.op)
    if "sqr" in name:
        return True
    if "pow" in name and len(owner.inputs) == 2:
        try:
            return float(get_scalar_constant_value(owner.inputs[1])) % 2 == 0
        except Exception:  # noqa: BLE001  (not a constant exponent: unknown sign)
            return False
    return False


@register_canonicalize
@node_rewriter([Hint])
def remove_hint_nodes(fgraph: Any, node: Apply) -> list[Variable] | None:
    """A hint is only information: replace it by its input."""
    if is_hint_node(node):
        return [node.inputs[0]]
    return None


def spectral_radius_bound(X: Any, log2_exponent: int) -> Variable:  # noqa: N803
    """An upper bound of the spectral radius of the symmetric matrix ``X``:
    ``trace(X ** (2 ** k)) ** (2 ** -k)`` with ``k = log2_exponent`` matrix squarings (tighter
    as ``k`` grows)."""
    X = T.as_tensor_variable(X)
    if X.ndim != 2:
        raise TypeError(f"spectral_radius_bound: X must be a matrix, got {X.type}")
    if log2_exponent <= 0:
        raise ValueError(f"spectral_radius_bound: log2_exponent must be positive, got "
                         f"{log2_exponent}")
    power = X
    for _ in range(log2_exponent):
        power = T.dot(power, power)
    return trace(power) ** (2.0 ** -log2_exponent)


__all__ = ["Hint", "hints", "is_hint_node", "psd", "is_psd", "is_symmetric", "is_positive",
           "remove_hint_nodes", "spectral_radius_bound"]
