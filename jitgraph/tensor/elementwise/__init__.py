"""Elementwise computation: the scalar-op table, ``Elemwise`` and ``Composite``, the math functions
built on them, and the reductions and statistics."""
