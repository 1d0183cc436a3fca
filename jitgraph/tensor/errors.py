"""Errors of the tensor layer that Theano raised from its scalar package
(``theano.scalar.ComplexError``: :mod:`jitgraph.scalar` re-exports it)."""


class ComplexError(NotImplementedError):
    """An operation is not defined (or not supported) on complex numbers."""
