"""Scalar expressions: one neutral description of each scalar op's computation, rendered by
every backend (the rendering itself is :mod:`jitgraph.codegen`, above the tensor layer).

* :mod:`.expr` -- the typed expression DAG a row of the scalar-op table builds
  (:mod:`jitgraph.tensor.elementwise.scalar_ops` shows how to add a row);
* :mod:`.helpers` -- scalar helper functions written in restricted Python (such as
  :mod:`jitgraph.scalar_expr.special_math`) that an expression may call;
"""
