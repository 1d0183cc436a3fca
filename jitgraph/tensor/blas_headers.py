"""``theano.tensor.blas_headers``: the C headers Theano compiled its BLAS ops against. jitgraph
writes no C: every name raises ``NotAvailableError`` when used."""

from jitgraph.unavailable import unavailable_names

unavailable_names(__name__, {name: "C headers of Theano's BLAS ops; jitgraph calls BLAS through "
                             "Numba/SciPy and cuBLAS" for name in (
                                 "blas_header_text", "blas_header_version", "cblas_header_text",
                                 "detect_macos_sdot_bug", "mkl_threads_text",
                                 "openblas_threads_text")}, globals())

__all__: list = []
