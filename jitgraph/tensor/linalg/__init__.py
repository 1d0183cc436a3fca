"""Linear algebra: dot products and the BLAS ops, NumPy's and SciPy's linear algebra, norms,
Fourier transforms."""
