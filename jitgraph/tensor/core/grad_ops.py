"""Ops that change how gradients flow through a point of a graph, and nothing else.

Each is a :class:`~jitgraph.graph.view_op.ViewOp`: its value is its input, and the rewrites
remove it when a function is compiled (after gradients were taken), so it costs nothing at run
time. What each does to a gradient ``g`` arriving at its output:

==================  ==================================  ====================================
function            gradient passed to the input         R-op (forward-mode tangent)
==================  ==================================  ====================================
zero_grad           zeros (the input stays connected)    zero
consider_constant   zeros (Theano's older name)          zero
disconnected_grad   none: the input is disconnected      none (disconnected)
undefined_grad      a NullType: ``grad`` raises          none (disconnected)
grad_clip           ``clip(g, lower, upper)``            not defined (raises)
grad_scale          ``g * multiplier``                   tangent ``* multiplier``
==================  ==================================  ====================================
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.gradient_types import disconnected_type
from jitgraph.graph.view_op import ViewOp
from jitgraph.tensor.core.gradient import GradientArgumentError, grad_undefined, zeros_for
from jitgraph.tensor.elementwise.math import clip


class ZeroGrad(ViewOp):
    """Identity whose gradient is zero: the expression is treated as a constant."""

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [zeros_for(output_grads[0])]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None if eval_points[0] is None else zeros_for(eval_points[0])]


class ConsiderConstant(ViewOp):
    """Theano's older spelling of :class:`ZeroGrad` (``consider_constant``)."""

    grad = ZeroGrad.grad
    R_op = ZeroGrad.R_op


class DisconnectedGrad(ViewOp):
    """Identity that disconnects its input: ``grad`` with respect to a variable reached only
    through it raises DisconnectedInputError (unless told to ignore it)."""

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [disconnected_type()]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]]


class UndefinedGrad(ViewOp):
    """Identity whose gradient is undefined: ``grad`` through it raises NullTypeGradError
    (or returns the NullType with ``null_gradients='return'``), even where only a zero or
    integer gradient reaches it (``cast(undefined_grad(p) < u)``), as in Theano."""

    grad_always_undefined = True

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [grad_undefined(self, 0, inputs[0])]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None]


class GradClip(ViewOp):
    """Identity whose gradient is clipped elementwise to ``[clip_lower_bound,
    clip_upper_bound]``."""

    __props__ = ("clip_lower_bound", "clip_upper_bound")

    def __init__(self, clip_lower_bound: Any, clip_upper_bound: Any) -> None:
        if isinstance(clip_lower_bound, Variable) or isinstance(clip_upper_bound, Variable):
            raise TypeError("grad_clip needs numbers as bounds, got "
                            f"{clip_lower_bound!r} and {clip_upper_bound!r}")
        if not clip_lower_bound <= clip_upper_bound:
            raise GradientArgumentError(f"grad_clip: the lower bound {clip_lower_bound} is "
                                        f"above the upper bound {clip_upper_bound}")
        self.clip_lower_bound = clip_lower_bound
        self.clip_upper_bound = clip_upper_bound

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [clip(output_grads[0], self.clip_lower_bound, self.clip_upper_bound)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        raise NotImplementedError("grad_clip clips gradients flowing backwards; a forward-mode "
                                  "derivative (Rop) through it is not defined. Take the Rop of "
                                  "the expression without grad_clip")


class GradScale(ViewOp):
    """Identity whose gradient is multiplied by ``multiplier`` (a number or a scalar)."""

    __props__ = ("multiplier",)

    def __init__(self, multiplier: Any) -> None:
        self.multiplier = multiplier

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [output_grads[0] * self.multiplier]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        # The forward counterpart of scaling J^T g is scaling J v (Lop and Rop stay transposes).
        return [None if eval_points[0] is None else eval_points[0] * self.multiplier]


consider_constant_ = ConsiderConstant()
zero_grad_ = ZeroGrad()
disconnected_grad_ = DisconnectedGrad()
undefined_grad_ = UndefinedGrad()


def consider_constant(x: Any) -> Variable:
    """``x``, treated as a constant by ``grad`` (its gradient is zero)."""
    return consider_constant_(x)


def zero_grad(x: Any) -> Variable:
    """``x``, with a zero gradient: ``grad`` treats the expression as a constant."""
    return zero_grad_(x)


def disconnected_grad(x: Any) -> Variable:
    """``x``, disconnected from gradients: what it depends on gets no gradient through it."""
    return disconnected_grad_(x)


def undefined_grad(x: Any) -> Variable:
    """``x``, with an undefined gradient: ``grad`` through it raises NullTypeGradError."""
    return undefined_grad_(x)


def grad_clip(x: Any, lower_bound: Any, upper_bound: Any) -> Variable:
    """``x``, whose gradient is clipped elementwise to ``[lower_bound, upper_bound]``."""
    return GradClip(lower_bound, upper_bound)(x)


def grad_scale(x: Any, multiplier: Any) -> Variable:
    """``x``, whose gradient is multiplied by ``multiplier`` (e.g. -1 reverses it)."""
    return GradScale(multiplier)(x)
