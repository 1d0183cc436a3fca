"""``jitgraph.gradient``: ``grad`` and ``verify_grad`` (Theano's module name)."""

from jitgraph.tensor.gradient import DisconnectedInputError, GradientError, grad, verify_grad

__all__ = ["grad", "verify_grad", "DisconnectedInputError", "GradientError"]
