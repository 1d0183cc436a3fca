"""Gradients through random draws are undefined: the parameters of a distribution are wrapped
in :func:`undefined_grad`, an identity whose gradient is undefined, as Theano does.

A graph that only *uses* a draw differentiates as usual (the draw is a constant for the
gradient); asking for the gradient *through* a draw's parameters (the ``p`` of a binomial
that depends on the variable the gradient is taken for, say) is an error that names the op.
When :mod:`jitgraph.gradient` provides ``grad_undefined`` (a null gradient that only raises if
it is used) that is returned instead, as Theano's ``NullType`` gradient.
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.conversion import as_tensor_variable


class NullGradientError(TypeError):
    """``grad`` met a gradient that is mathematically undefined (Theano's NullTypeGradError)."""


def undefined_gradient(op: Op, index: int, inp: Variable, why: str) -> Any:
    """The gradient of input ``index`` of ``op``, which is undefined: jitgraph's null gradient
    when there is one, else an immediate :class:`NullGradientError`."""
    import jitgraph.gradient as gradient

    grad_undefined = getattr(gradient, "grad_undefined", None)
    if grad_undefined is not None:
        return grad_undefined(op, index, inp, why)
    raise NullGradientError(
        f"grad: the gradient with respect to input {index} ({inp}) of {op} is undefined: "
        f"{why}. Take the gradient with respect to variables that do not feed the "
        "parameters of a random draw (or pass them in consider_constant).")


class UndefinedGrad(Op):
    """Identity whose gradient is undefined (Theano's ``theano.gradient.UndefinedGrad``)."""

    __props__ = ()

    view_map = {0: [0]}

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = inputs[0]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence) -> list:
        return [input_shapes[0]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [undefined_gradient(self, 0, inputs[0],
                                   "the parameters of a random draw have no gradient")]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        return [None]


_undefined_grad = UndefinedGrad()


def undefined_grad(x: Any) -> Variable:
    """``x``, whose gradient is undefined (the graph computes ``x`` unchanged)."""
    return _undefined_grad(x)
