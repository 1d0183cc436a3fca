"""Elementwise comparisons with a sparse operand (``eq``, ``neq``, ``lt``, ``gt``, ``le``,
``ge``): sparse vs sparse gives a sparse uint8 matrix, sparse vs dense a dense uint8 matrix
(zeros compare as zeros: the result is the comparison of the full matrices)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.sparse import helpers as H
from jitgraph.sparse.variable import as_sparse_or_tensor_variable
import jitgraph.tensor.elementwise.math as M

_OUT_DTYPE = "uint8"


class _CompareSS(Op):
    """Compares two sparse matrices elementwise into a sparse uint8 matrix."""

    __props__ = ()
    compare: Callable[[Any, Any], Any] = operator.eq

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = H.require_sparse(self, 0, x), H.require_sparse(self, 1, y)
        return Apply(self, [x, y], [H.sparse_out(x.format, _OUT_DTYPE)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        H.check_same_shape(node, x, y, "a comparison")
        import warnings

        with warnings.catch_warnings():  # scipy warns that == and <= store every element
            warnings.simplefilter("ignore")
            result = type(self).compare(x, y)
        out[0][0] = H.as_declared(result, node.outputs[0].type)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


class _CompareSD(Op):
    """Compares a sparse matrix with a dense one elementwise into a dense uint8 matrix."""

    __props__ = ()
    compare: Callable[[Any, Any], Any] = operator.eq

    def make_node(self, x: Any, y: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        y = H.require_dense(self, 1, y, (2,))
        return Apply(self, [x, y], [H.tensor_out(_OUT_DTYPE, 2)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        H.check_same_shape(node, x, y, "a comparison")
        out[0][0] = type(self).compare(x.toarray(), y).astype(_OUT_DTYPE)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


def _pair(name: str, fn: Callable) -> tuple[type, type]:
    ss = type(f"{name}SS", (_CompareSS,), {"compare": staticmethod(fn),
                                           "__doc__": f"``{name}`` of two sparse matrices."})
    sd = type(f"{name}SD", (_CompareSD,), {"compare": staticmethod(fn),
                                           "__doc__": f"``{name}`` of a sparse and a dense "
                                                      "matrix."})
    ss.__module__ = sd.__module__ = __name__
    return ss, sd


EqualSS, EqualSD = _pair("Equal", operator.eq)
NotEqualSS, NotEqualSD = _pair("NotEqual", operator.ne)
LessThanSS, LessThanSD = _pair("LessThan", operator.lt)
GreaterThanSS, GreaterThanSD = _pair("GreaterThan", operator.gt)
LessEqualSS, LessEqualSD = _pair("LessEqual", operator.le)
GreaterEqualSS, GreaterEqualSD = _pair("GreaterEqual", operator.ge)

equal_s_s, equal_s_d = EqualSS(), EqualSD()
not_equal_s_s, not_equal_s_d = NotEqualSS(), NotEqualSD()
less_than_s_s, less_than_s_d = LessThanSS(), LessThanSD()
greater_than_s_s, greater_than_s_d = GreaterThanSS(), GreaterThanSD()
less_equal_s_s, less_equal_s_d = LessEqualSS(), LessEqualSD()
greater_equal_s_s, greater_equal_s_d = GreaterEqualSS(), GreaterEqualSD()


def _comparison(name: str, ss: Op, sd: Op, flipped_sd: Op, dense_name: str) -> Callable:
    def compare(x: Any, y: Any) -> Variable:
        x, y = as_sparse_or_tensor_variable(x), as_sparse_or_tensor_variable(y)
        x_sparse, y_sparse = H.is_sparse_variable(x), H.is_sparse_variable(y)
        if x_sparse and y_sparse:
            return ss(x, y)
        if x_sparse:
            return sd(x, y)
        if y_sparse:
            return flipped_sd(y, x)  # a < B is B > a

        return getattr(M, dense_name)(x, y)

    compare.__name__ = name
    compare.__doc__ = (f"``{name}(x, y)`` elementwise, at least one operand sparse: a sparse "
                       "uint8 result for two sparse operands, a dense one otherwise.")
    return compare


eq = _comparison("eq", equal_s_s, equal_s_d, equal_s_d, "eq")
neq = _comparison("neq", not_equal_s_s, not_equal_s_d, not_equal_s_d, "neq")
lt = _comparison("lt", less_than_s_s, less_than_s_d, greater_than_s_d, "lt")
gt = _comparison("gt", greater_than_s_s, greater_than_s_d, less_than_s_d, "gt")
le = _comparison("le", less_equal_s_s, less_equal_s_d, greater_equal_s_d, "le")
ge = _comparison("ge", greater_equal_s_s, greater_equal_s_d, less_equal_s_d, "ge")

__all__ = [n for n in dir() if n.endswith(("SS", "SD")) or n.endswith(("_s_s", "_s_d"))] + [
    "eq", "neq", "lt", "gt", "le", "ge"]
