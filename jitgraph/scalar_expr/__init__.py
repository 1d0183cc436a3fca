"""Scalar expressions: one neutral description of each scalar op's computation, rendered by
every backend.

* :mod:`.expr` -- the typed expression DAG a row of the scalar-op table builds
  (:mod:`jitgraph.tensor.scalar_ops` shows how to add a row);
* :mod:`.helpers` -- scalar helper functions written in restricted Python (such as
  :mod:`jitgraph.scalar.special_math`) that an expression may call;
* :mod:`.render` -- the shared renderer; each backend supplies a dialect
  (``backend_cpu.scalar_templates``: Python for Numba and the direct compiler;
  ``backend_gpu.scalar_templates``: CUDA C);
* :mod:`.elemwise_structure` -- what an elementwise kernel depends on.
"""
