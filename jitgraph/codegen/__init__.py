"""Kernel source shared by the compiled backends.

* :mod:`~jitgraph.codegen.render`: a scalar op of the table (or a fused ``Composite``) as text
  in a backend's dialect (Python for the CPU's compilers, CUDA C for NVRTC);
* :mod:`~jitgraph.codegen.elemwise_structure`: the loop structure of an elementwise kernel
  (which inputs broadcast, which outputs reuse an input's buffer).

It sits above :mod:`jitgraph.tensor` (it reads the scalar-op table) and below the backends
(both generate code through it); :mod:`jitgraph.scalar_expr` holds what the table itself is
written with (the expression builders and the Python helpers).
"""
