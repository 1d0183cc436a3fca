"""Rewrites of sparse graphs (``fast_run``, specialize phase), registered when
:mod:`jitgraph.sparse` is imported:

* ``local_structured_dot_csx`` / ``local_dot_csx``: a product of a csc/csr matrix with a dense
  matrix or vector becomes :class:`~.csx_ops.StructuredDotCSx` on the matrix's arrays (the
  compiled loop over the compressed storage); a dense-times-sparse ``dot`` uses the transposed
  matrix, whose arrays are the same in the other format.
* ``local_mul_s_d_csx``, ``local_mul_s_v_csx``, ``local_structured_add_s_v_csx``,
  ``local_sampling_dot_csx``: a structured product or sum becomes an elementwise loop on the
  ``data`` array (``CSM(op(data, ...), indices, indptr, shape)``), ``local_add_s_d_csx`` a
  scatter into a copy of the dense operand.
* ``local_csm_properties_csm``: the arrays of a matrix just built by ``CSM`` are its inputs
  (chains of structured elementwise functions then run on the data array alone);
  ``local_csm_properties_transpose``: those of a transposed matrix are the matrix's own.
* ``local_csm_shape_inferred`` (canonicalize): the shape of a matrix an op computes is read
  from the op's ``infer_shape`` (``(x + y).shape`` is ``x``'s), so computing a shape does not
  compute the matrix, as for tensors.
* ``local_inplace_remove0`` (in-place passes): ``Remove0`` drops the zeros of its input's own
  arrays when nothing else reads them (the DestroyHandler refuses it otherwise).
"""

from __future__ import annotations

from jitgraph.graph.basic import Apply, Variable, ancestors
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.engine import node_rewriter
from jitgraph.rewrite.phases import register_canonicalize, register_inplace, register_specialize
from jitgraph.sparse import csx_ops as C
from jitgraph.sparse import helpers as H
from jitgraph.sparse.arithmetic import AddSD, MulSD, MulSV, StructuredAddSV
from jitgraph.sparse.basic import CSM, CSMProperties, Remove0, Transpose, csm_properties
from jitgraph.sparse.products import Dot, SamplingDot, StructuredDot
from jitgraph.tensor.core.basic import make_vector
from jitgraph.tensor.elementwise.math import cast
from jitgraph.tensor.rewriting.shape import get_shape_feature

_FLIP = {"csc": "csr", "csr": "csc"}


def _compressed(x: Variable) -> bool:
    return H.is_sparse_variable(x) and x.format in ("csc", "csr")


def _product(a: Variable, b: Variable) -> Variable:
    data, indices, indptr, shape = csm_properties(a)
    return C.StructuredDotCSx(a.format)(data, indices, indptr, shape[0], b)


@node_rewriter([StructuredDot])
def local_structured_dot_csx(fgraph: FunctionGraph, node: Apply) -> list | None:
    """``structured_dot(a, b)`` (dense b) -> the compiled csc/csr product."""
    a, b = node.inputs
    if not _compressed(a) or not H.is_dense_variable(b):
        return None
    return [_product(a, b)]


@node_rewriter([Dot])
def local_dot_csx(fgraph: FunctionGraph, node: Apply) -> list | None:
    """``dot(sparse, dense)`` -> the compiled product; ``dot(dense, sparse)`` -> the product
    of the transposed sparse matrix (same arrays, other format) with ``dense.T``."""
    x, y = node.inputs
    if _compressed(x) and H.is_dense_variable(y):
        return [_product(x, y)]
    if H.is_dense_variable(x) and _compressed(y):
        data, indices, indptr, shape = csm_properties(y)
        product = C.StructuredDotCSx(_FLIP[y.format])(data, indices, indptr, shape[1], x.T)
        return [product.T if x.ndim == 2 else product]
    return None


def _on_data(node: Apply, op_class: type, dense: Variable) -> list | None:
    x = node.inputs[0]
    if not _compressed(x):
        return None
    data, indices, indptr, shape = csm_properties(x)
    new_data = op_class(x.format)(data, indices, indptr, dense)
    if new_data.dtype != node.outputs[0].dtype:
        return None
    return [CSM(x.format)(new_data, indices, indptr, shape)]


@node_rewriter([MulSD])
def local_mul_s_d_csx(fgraph: FunctionGraph, node: Apply) -> list | None:
    """``mul_s_d(x, y)`` (dense matrix y) -> a loop on x's data array."""
    if node.inputs[1].ndim != 2:
        return None
    return _on_data(node, C.MulSDCSx, node.inputs[1])


@node_rewriter([MulSV])
def local_mul_s_v_csx(fgraph: FunctionGraph, node: Apply) -> list | None:
    """``mul_s_v(x, y)`` -> a loop on x's data array."""
    return _on_data(node, C.MulSVCSx, node.inputs[1])


@node_rewriter([StructuredAddSV])
def local_structured_add_s_v_csx(fgraph: FunctionGraph, node: Apply) -> list | None:
    """``structured_add_s_v(x, y)`` -> a loop on x's data array."""
    return _on_data(node, C.StructuredAddSVCSx, node.inputs[1])


@node_rewriter([SamplingDot])
def local_sampling_dot_csx(fgraph: FunctionGraph, node: Apply) -> list | None:
    """``sampling_dot(x, y, p)`` -> one dot product per stored value of p."""
    x, y, p = node.inputs
    if not _compressed(p):
        return None
    data, indices, indptr, shape = csm_properties(p)
    new_data = C.SamplingDotCSx(p.format)(x, y, data, indices, indptr)
    return [CSM(p.format)(new_data, indices, indptr, shape)]


@node_rewriter([AddSD])
def local_add_s_d_csx(fgraph: FunctionGraph, node: Apply) -> list | None:
    """``add_s_d(x, y)`` -> y's copy with x's stored values added in one loop."""
    x, y = node.inputs
    if not _compressed(x):
        return None
    data, indices, indptr, _ = csm_properties(x)
    return [C.AddSDCSx(x.format)(data, indices, indptr, y)]


@node_rewriter([CSMProperties])
def local_csm_properties_csm(fgraph: FunctionGraph, node: Apply) -> list | None:
    """``csm_properties(CSM(data, indices, indptr, shape))`` -> those four."""
    built = node.inputs[0].owner
    if built is None or not isinstance(built.op, CSM):
        return None
    replacements = list(built.inputs)
    if any(new.type != old.type for new, old in zip(replacements, node.outputs)):
        return None
    return replacements


@node_rewriter([CSMProperties])
def local_csm_properties_transpose(fgraph: FunctionGraph, node: Apply) -> list | None:
    """``csm_properties(transpose(x))`` -> x's own arrays (the transpose of a csr matrix is the
    csc matrix with the same arrays) and its shape reversed: no transposed matrix is built."""
    built = node.inputs[0].owner
    if built is None or not isinstance(built.op, Transpose):
        return None
    data, indices, indptr, shape = csm_properties(built.inputs[0])
    return [data, indices, indptr, shape[::-1]]


@node_rewriter([CSMProperties])
def local_csm_shape_inferred(fgraph: FunctionGraph, node: Apply) -> dict | None:
    """``csm_shape(op(...))`` -> the dims the op's ``infer_shape`` gives, when they do not
    read the op's result itself (an op without ``infer_shape`` keeps its run-time shape)."""
    matrix, shape_out = node.inputs[0], node.outputs[3]
    if matrix.owner is None or not fgraph.clients.get(shape_out):
        return None
    dims = get_shape_feature(fgraph).get_shape(matrix)
    if dims is None or matrix in set(ancestors(dims)):
        return None
    return {shape_out: cast(make_vector(*dims), shape_out.dtype)}


@node_rewriter([Remove0], inplace=True)
def local_inplace_remove0(fgraph: FunctionGraph, node: Apply) -> list | None:
    """``Remove0()`` -> ``Remove0(inplace=True)``."""
    if node.op.inplace:
        return None
    return Remove0(inplace=True).make_node(*node.inputs).outputs


register_inplace(local_inplace_remove0, "sparse", name=local_inplace_remove0.name, position=60)
register_canonicalize(local_csm_shape_inferred, "sparse", name=local_csm_shape_inferred.name)

#: the name of Theano's rewrite each one replaces, a tag of it, so that
#: ``mode.excluding('local_mul_s_d')`` written for Theano turns it off
_THEANO_NAMES = {local_structured_dot_csx: "local_structured_dot",
                 local_mul_s_d_csx: "local_mul_s_d", local_mul_s_v_csx: "local_mul_s_v",
                 local_structured_add_s_v_csx: "local_structured_add_s_v",
                 local_sampling_dot_csx: "local_sampling_dot_csr",
                 local_add_s_d_csx: "local_addsd_ccode"}

for _rewrite in (local_structured_dot_csx, local_dot_csx, local_mul_s_d_csx, local_mul_s_v_csx,
                 local_structured_add_s_v_csx, local_sampling_dot_csx, local_add_s_d_csx,
                 local_csm_properties_csm, local_csm_properties_transpose):
    _tags = ("sparse",) + ((_THEANO_NAMES[_rewrite],) if _rewrite in _THEANO_NAMES else ())
    register_specialize(_rewrite, *_tags, name=_rewrite.name)

