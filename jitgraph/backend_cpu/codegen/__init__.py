"""Generated kernel sources (elementwise, reductions, convolutions, pooling, scan loops, sparse
loops) and their compilation into kernels."""
