"""Errors of the scalar layer."""


class ComplexError(NotImplementedError):
    """An operation is not defined (or not supported) on complex numbers."""
