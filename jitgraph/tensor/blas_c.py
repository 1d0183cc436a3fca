"""``theano.tensor.blas_c``: Theano's C implementations of the BLAS ops ``Gemv`` and ``Ger``.

jitgraph has one implementation of each (:mod:`jitgraph.tensor.blas`, lowered to Numba or
cuBLAS), so ``CGemv`` and ``CGer`` are ``Gemv`` and ``Ger`` and the instances are theirs:
``isinstance(node.op, CGemv)`` holds for every jitgraph Gemv node. The C-code helpers raise
``NotAvailableError`` when used.
"""

from jitgraph.tensor.blas import Gemv, Ger, gemv_inplace, gemv_no_inplace, ger, ger_destructive
from jitgraph.unavailable import unavailable_names

CGemv = Gemv
CGer = Ger
BaseBLAS = object  # Theano's mixin of C-BLAS header code; jitgraph ops need none
cgemv_inplace = gemv_inplace
cgemv_no_inplace = gemv_no_inplace
cger_inplace = ger_destructive
cger_no_inplace = ger

unavailable_names(__name__, {name: "C code of Theano's BLAS ops; jitgraph's Gemv and Ger are "
                             "lowered by Numba or cuBLAS" for name in (
                                 "gemv_c_code", "ger_c_code", "check_force_gemv_init")},
                  globals())

__all__ = ["CGemv", "CGer", "BaseBLAS", "cgemv_inplace", "cgemv_no_inplace", "cger_inplace",
           "cger_no_inplace", "Gemv", "Ger"]
