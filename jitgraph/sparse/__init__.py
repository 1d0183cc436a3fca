"""Sparse matrices (Theano's ``theano.sparse``): csc/csr variables whose values are
``scipy.sparse`` matrices, structured operations that keep the sparsity, and gradients that
stay sparse.

SciPy is an optional dependency (``pip install jitgraph[sparse]``): this package imports
without it, and building a sparse variable or graph then fails with a message naming the
extra. The compiled kernels (products with a dense matrix, structured elementwise loops) are
CPU lowerings in :mod:`jitgraph.backend_cpu.lowering.sparse`; the rewrites choosing them live in
:mod:`jitgraph.sparse.rewrites`.

Modules: ``type`` (SparseType), ``variable`` (variables, constants, constructors,
conversions), ``basic`` (CSM/CSMProperties, dense <-> sparse, transpose, casts, cleaning),
``arithmetic`` (add/sub/mul), ``compare``, ``reductions`` (sums, diagonals, scaling),
``structured`` (structured elementwise functions), ``dot`` (products), ``indexing``,
``stacking``, ``grad_check`` (verify_grad_sparse), ``shared`` (shared variables).
"""

from __future__ import annotations

from jitgraph.config import config
from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.gradient_types import DisconnectedType
from jitgraph.graph.op import Op
from jitgraph.lazy_exports import lazy_exports
from jitgraph.sparse.arithmetic import (AddSD, AddSS, AddSSData, MulSD, MulSS, MulSV,
                                        StructuredAddSV, add, add_s_d, add_s_s, add_s_s_data,
                                        mul, mul_s_d, mul_s_s, mul_s_v, structured_add_s_v, sub)
from jitgraph.sparse.basic import (CSC, CSM, CSR, Cast, CSMGrad, CSMProperties,
                                   DenseFromSparse, EnsureSortedIndices, Neg, Remove0,
                                   SparseFromDense, Transpose, bcast, ccast, cast, clean,
                                   csc_from_dense, csm_data, csm_grad, csm_indices, csm_indptr,
                                   csm_properties, csm_shape, csr_from_dense, dcast,
                                   dense_from_sparse, ensure_sorted_indices, fcast, icast,
                                   lcast, neg, remove0, sp_ones_like, sp_zeros_like, todense,
                                   transpose, wcast, zcast)
from jitgraph.sparse.compare import (EqualSD, EqualSS, GreaterEqualSD, GreaterEqualSS,
                                     GreaterThanSD, GreaterThanSS, LessEqualSD, LessEqualSS,
                                     LessThanSD, LessThanSS, NotEqualSD, NotEqualSS, eq,
                                     equal_s_d, equal_s_s, ge, greater_equal_s_d,
                                     greater_equal_s_s, greater_than_s_d, greater_than_s_s, gt,
                                     le, less_equal_s_d, less_equal_s_s, less_than_s_d,
                                     less_than_s_s, lt, neq, not_equal_s_d, not_equal_s_s)
from jitgraph.sparse.products import (Dot, SamplingDot, StructuredDot, StructuredDotGradCSC,
                                 StructuredDotGradCSR, TrueDot, Usmm, dot, sampling_dot,
                                 sdg_csc, sdg_csr, structured_dot, structured_dot_grad,
                                 true_dot, usmm)
from jitgraph.sparse.grad_check import verify_grad_sparse
from jitgraph.sparse.indexing import (ConstructSparseFromList, GetItem2d, GetItem2Lists,
                                      GetItem2ListsGrad, GetItemList, GetItemListGrad,
                                      GetItemScalar, construct_sparse_from_list, get_item_2d,
                                      get_item_2lists, get_item_2lists_grad, get_item_list,
                                      get_item_list_grad, get_item_scalar, getitem)
from jitgraph.sparse.reductions import (ColScaleCSC, Diag, RowScaleCSC, SpSum, SquareDiagonal,
                                        col_scale, diag, row_scale, sp_sum, square_diagonal)
from jitgraph.sparse.scipy_support import SparseNeedsScipyError, enable_sparse
from jitgraph.sparse.subtensor_grad import sparse_grad
from jitgraph.sparse.stacking import HStack, VStack, hstack, vstack
from jitgraph.sparse.structured import (abs_, arcsin, arcsinh, arctan, arctanh, ceil, conj,
                                        deg2rad, expm1, floor, log1p, rad2deg, rint, sgn, sin,
                                        sinh, sqr, sqrt, structured_add, structured_exp,
                                        structured_log, structured_maximum, structured_minimum,
                                        structured_monoid, structured_pow, structured_sigmoid,
                                        tan, tanh, trunc)
from jitgraph.sparse.type import (SparseType, all_dtypes, complex_dtypes, continuous_dtypes,
                                  discrete_dtypes, float_dtypes, hash_from_sparse, int_dtypes,
                                  integer_dtypes, sparse_formats, uint_dtypes)
from jitgraph.sparse.variable import (SparseConstant, SparseConstantSignature, SparseVariable,
                                      as_sparse, as_sparse_or_tensor_variable,
                                      as_sparse_variable, bsr_dmatrix, bsr_fmatrix, bsr_matrix,
                                      constant, csc_dmatrix, csc_fmatrix, csc_matrix,
                                      csr_dmatrix, csr_fmatrix, csr_matrix, matrix)
from jitgraph.sparse import rewrites as _rewrites  # noqa: F401  (registers the rewrites)




_EXPORTS = {
    # shared variables import compile/, so they load on first use
    "shared": "jitgraph.sparse.sharedvar",
    "SparseSharedVariable": "jitgraph.sparse.sharedvar",
    "SparseTensorSharedVariable": "jitgraph.sparse.sharedvar",
    "sparse_constructor": "jitgraph.sparse.sharedvar",
    "grad_not_implemented": "jitgraph.tensor.core.gradient",
    "grad_undefined": "jitgraph.tensor.core.gradient",
    "as_tensor_variable": "jitgraph.tensor.core.conversion",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = sorted(n for n in dir() if not n.startswith("_") and n not in (
    "annotations", "lazy_exports")) + sorted(_EXPORTS)
