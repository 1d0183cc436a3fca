"""Theano's ``theano.sparse.opt`` path: the specialized csc/csr ops and the rewrites that
choose them. jitgraph's array-level ops take a ``format`` parameter
(:mod:`jitgraph.sparse.csx_ops`); the Theano names below are those ops with the format fixed,
and the rewrites live in :mod:`jitgraph.sparse.rewrites`. Theano's C-code-only ops
(``AddSD_ccode``, ``UsmmCscDense``, ``SamplingDotCSR`` with its three outputs) do not exist
here: their names raise an error saying what jitgraph uses instead.
"""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Apply
from jitgraph.sparse import csx_ops as C
from jitgraph.sparse import rewrites as R
from jitgraph.sparse.basic import CSC, CSR, CSMGrad
from jitgraph.sparse.products import usmm
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.shape import shape
from jitgraph.unavailable import unavailable


class StructuredDotCSC(C.StructuredDotCSx):
    """``A @ b`` for the csc matrix ``A`` given by ``(a_val, a_ind, a_ptr, a_nrows)``."""

    def __init__(self) -> None:
        super().__init__("csc")


class StructuredDotCSR(C.StructuredDotCSx):
    """``A @ b`` for the csr matrix ``A`` given by ``(a_val, a_ind, a_ptr)``."""

    def __init__(self) -> None:
        super().__init__("csr")

    def make_node(self, a_val: Any, a_ind: Any, a_ptr: Any, *rest: Any) -> Apply:
        if len(rest) == 1:  # Theano's signature: no row count (the csr indptr gives it)
            rest = (shape(as_tensor_variable(a_ptr))[0] - 1,) + rest
        return super().make_node(a_val, a_ind, a_ptr, *rest)


def _fixed(base: type, fmt: str, name: str) -> type:
    cls = type(name, (base,), {"__init__": lambda self: base.__init__(self, fmt),
                               "__doc__": f"{base.__doc__} (format {fmt})"})
    cls.__module__ = __name__
    return cls


MulSDCSC = _fixed(C.MulSDCSx, "csc", "MulSDCSC")
MulSDCSR = _fixed(C.MulSDCSx, "csr", "MulSDCSR")
MulSVCSR = _fixed(C.MulSVCSx, "csr", "MulSVCSR")
StructuredAddSVCSR = _fixed(C.StructuredAddSVCSx, "csr", "StructuredAddSVCSR")

sd_csc, sd_csr = StructuredDotCSC(), StructuredDotCSR()
mul_s_d_csc, mul_s_d_csr = MulSDCSC(), MulSDCSR()
mul_s_v_csr = MulSVCSR()
structured_add_s_v_csr = StructuredAddSVCSR()
CSMGradC = CSMGrad

local_structured_dot = R.local_structured_dot_csx
local_mul_s_d = R.local_mul_s_d_csx
local_mul_s_v = R.local_mul_s_v_csx
local_structured_add_s_v = R.local_structured_add_s_v_csx
local_sampling_dot_csr = R.local_sampling_dot_csx
local_csm_properties_csm = R.local_csm_properties_csm
local_inplace_remove0 = R.local_inplace_remove0


class _NoCCode:
    """A Theano name for a C-code op or rewrite that jitgraph does not have."""

    def __init__(self, name: str, instead: str) -> None:
        self.name, self.instead = name, instead

    @property
    def message(self) -> str:
        return (f"theano.sparse.opt.{self.name} was a C-code implementation; jitgraph has no C "
                f"backend (it compiles generated Numba loops instead). {self.instead}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(self.message)

    def __repr__(self) -> str:
        return f"<unavailable theano.sparse.opt.{self.name}>"


def _no_c_op(name: str, instead: str) -> type:
    """The op class: a class, so that ``isinstance(node.op, AddSD_ccode)`` is simply false."""
    return unavailable(__name__, name, _NoCCode(name, instead).message)


_ADDSD = "sparse.add_s_d compiles to AddSDCSx (csx_ops)."
_USMM = "Use sparse.usmm (z + alpha * x @ y)."
_SAMPLING = "sparse.sampling_dot compiles to SamplingDotCSx (the new data array only)."
AddSD_ccode = _no_c_op("AddSD_ccode", _ADDSD)
UsmmCscDense = _no_c_op("UsmmCscDense", _USMM)
usmm_csc_dense = usmm_csc_dense_inplace = _NoCCode("usmm_csc_dense", _USMM)
SamplingDotCSR = _no_c_op("SamplingDotCSR", _SAMPLING)
sampling_dot_csr = _NoCCode("sampling_dot_csr", _SAMPLING)
for _name in ("local_addsd_ccode", "local_inplace_addsd_ccode", "local_usmm",
              "local_usmm_csc_dense_inplace", "local_usmm_csx", "local_csm_grad_c",
              "local_dense_from_sparse_sparse_from_dense"):
    globals()[_name] = _NoCCode(_name, "jitgraph's sparse rewrites are listed in "
                                       "jitgraph.sparse.rewrites.")

__all__ = [
    "CSC",
    "CSR",
    "AddSD_ccode",
    "CSMGradC",
    "MulSDCSC",
    "MulSDCSR",
    "MulSVCSR",
    "SamplingDotCSR",
    "StructuredAddSVCSR",
    "StructuredDotCSC",
    "StructuredDotCSR",
    "UsmmCscDense",
    "local_csm_properties_csm",
    "local_inplace_remove0",
    "local_mul_s_d",
    "local_mul_s_v",
    "local_sampling_dot_csr",
    "local_structured_add_s_v",
    "local_structured_dot",
    "mul_s_d_csc",
    "mul_s_d_csr",
    "mul_s_v_csr",
    "sd_csc",
    "sd_csr",
    "structured_add_s_v_csr",
    "usmm",
]
