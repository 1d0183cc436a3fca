"""``theano.sparse.sandbox.sp``: the sparse ops Theano re-exported here (``col_scale``,
``row_scale``, ``sp_sum``, ``remove0``, ...; from :mod:`jitgraph.sparse`).

Theano's experimental sparse-matrix convolution (``convolve``, ``max_pool``,
``ConvolutionIndices``) is not implemented in jitgraph: those names raise
``NotAvailableError`` when used (convolve images with ``jitgraph.tensor.nnet.conv2d``).
"""

from jitgraph.sparse import (ColScaleCSC, Diag, EnsureSortedIndices, Remove0, RowScaleCSC,
                             SpSum, SquareDiagonal, clean, col_scale, diag,
                             ensure_sorted_indices, remove0, row_scale, sp_sum, square_diagonal)
from jitgraph.unavailable import unavailable_names

unavailable_names(__name__, {name: "Theano's experimental convolution by sparse matrices is not "
                             "implemented in jitgraph; use jitgraph.tensor.nnet.conv2d"
                             for name in ("convolve", "max_pool", "ConvolutionIndices",
                                          "convolution_indices")}, globals())

__all__ = ["ColScaleCSC", "Diag", "EnsureSortedIndices", "Remove0", "RowScaleCSC", "SpSum",
           "SquareDiagonal", "clean", "col_scale", "diag", "ensure_sorted_indices", "remove0",
           "row_scale", "sp_sum", "square_diagonal"]

# Theano's module also re-exported theano.sparse's names: look the others up there.
from jitgraph.lazy_exports import alias_module  # noqa: E402

__getattr__, __dir__ = alias_module(__name__, ["jitgraph.sparse"])
