"""``jitgraph.gradient`` (Theano's ``theano.gradient``): symbolic differentiation.

* ``grad`` (reverse mode), ``Lop`` (``v J``), ``Rop`` (``J v``), ``jacobian``, ``hessian``,
  ``subgraph_grad``;
* ops that only change gradients: ``zero_grad``, ``consider_constant``, ``disconnected_grad``,
  ``undefined_grad``, ``grad_clip``, ``grad_scale`` (removed when a function is compiled);
* what ops return for missing gradients: ``grad_undefined``, ``grad_not_implemented``
  (NullType), ``DisconnectedType``; the errors ``DisconnectedInputError`` and
  ``NullTypeGradError``;
* checking gradients: ``verify_grad``, ``numeric_grad``, ``GradientError``.

``DebugMode``, ``FAST_RUN`` and ``get_mode`` (Theano re-exported them here) come from
:mod:`jitgraph.compile`, added by the Theano-path table (:mod:`jitgraph._facade.paths`).
"""

from __future__ import annotations

from jitgraph.graph.basic import Variable
from jitgraph.graph.gradient_types import (DisconnectedType, NullType, disconnected_type,
                                           null_type)
from jitgraph.graph.view_op import ViewOp
from jitgraph.tensor.core.grad_ops import (ConsiderConstant, DisconnectedGrad, GradClip, GradScale,
                                        UndefinedGrad, ZeroGrad, consider_constant,
                                        consider_constant_, disconnected_grad,
                                        disconnected_grad_, grad_clip, grad_scale,
                                        undefined_grad, undefined_grad_, zero_grad, zero_grad_)
from jitgraph.gradient.jacobian import hessian, jacobian
from jitgraph.tensor.core.rop import Lop, Rop
from jitgraph.gradient.subgraph import subgraph_grad
from jitgraph.gradient.utils import get_debug_values, mode_not_slow
from jitgraph.tensor.core.grad_check import GradientError, numeric_grad, verify_grad
from jitgraph.tensor.core.gradient import (DisconnectedInputError, NullTypeGradError, format_as,
                                      grad, grad_not_implemented, grad_undefined)

__all__ = [
    "ConsiderConstant", "DebugMode", "DisconnectedGrad", "DisconnectedInputError",
    "DisconnectedType", "FAST_RUN", "GradClip", "GradScale", "GradientError", "Lop",
    "NullType", "NullTypeGradError", "Rop", "UndefinedGrad", "Variable", "ViewOp", "ZeroGrad",
    "consider_constant", "consider_constant_", "disconnected_grad", "disconnected_grad_",
    "disconnected_type", "format_as", "get_debug_values", "get_mode", "grad", "grad_clip",
    "grad_not_implemented", "grad_scale", "grad_undefined", "hessian", "jacobian",
    "mode_not_slow", "null_type", "numeric_grad", "subgraph_grad", "undefined_grad",
    "undefined_grad_", "verify_grad", "zero_grad", "zero_grad_",
]
