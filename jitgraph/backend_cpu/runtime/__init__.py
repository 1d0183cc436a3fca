"""What runs a compiled graph: the generated driver and its program, stored programs, threads,
NumPy's BLAS, and the helpers kernels import by name."""
