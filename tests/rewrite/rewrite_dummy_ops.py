"""Tiny ops on 1-D float arrays, so the rewrite tests do not depend on the tensor library."""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.op import Op
from jitgraph.graph.type import Type
from jitgraph.rewrite.ordering import toposort_with_orderings


class VecType(Type):
    """1-D arrays of one dtype."""

    def __init__(self, dtype: str = "float64") -> None:
        self.dtype = dtype

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        arr = np.asarray(data, dtype=self.dtype)
        if arr.ndim == 0:
            arr = arr.reshape(1)
        if arr.ndim != 1:
            raise TypeError(f"expected a 1-D array, got {arr.ndim} dimensions")
        return arr

    def value_signature(self, data: Any) -> Any:
        return (data.shape, data.tobytes())

    def values_eq(self, a: Any, b: Any) -> bool:
        return bool(np.array_equal(a, b))

    def values_eq_approx(self, a: Any, b: Any) -> bool:
        return bool(np.allclose(a, b))

    def short_value_repr(self, data: Any) -> str:
        return str(data.tolist()) if data.size < 4 else f"array[{data.size}]"

    def __str__(self) -> str:
        return f"vec({self.dtype})"


fvec = VecType("float64")
f32vec = VecType("float32")


def as_var(x: Any, type_: VecType = fvec) -> Variable:
    return x if isinstance(x, Variable) else type_.make_constant(x)


class Unary(Op):
    fn: Any = None

    def make_node(self, a: Any) -> Apply:
        a = as_var(a)
        return Apply(self, [a], [a.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = type(self).fn(inputs[0])


class Binary(Op):
    fn: Any = None

    def make_node(self, a: Any, b: Any) -> Apply:
        a = as_var(a)
        b = as_var(b, a.type)
        if a.type != b.type:
            raise TypeError(f"{type(self).__name__}: {a.type} vs {b.type}")
        return Apply(self, [a, b], [a.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = type(self).fn(*inputs)


class Add(Binary):
    fn = np.add


class Mul(Binary):
    fn = np.multiply


class Sub(Binary):
    fn = np.subtract


class Neg(Unary):
    fn = np.negative


class Exp(Unary):
    fn = np.exp


class Log(Unary):
    fn = np.log


class Log1p(Unary):
    fn = np.log1p


class NoFold(Unary):
    """Identity that refuses constant folding."""

    fn = np.array

    def do_constant_folding(self, node: Apply) -> bool:
        return False


class Cast32(Op):
    """float64 -> float32 (for type-change tests)."""

    def make_node(self, a: Any) -> Apply:
        return Apply(self, [as_var(a)], [f32vec()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = inputs[0].astype("float32")


class NegInplace(Unary):
    destroy_map = {0: [0]}

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        np.negative(inputs[0], out=inputs[0])
        out[0][0] = inputs[0]


class AddInplace(Binary):
    destroy_map = {0: [0]}

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        np.add(inputs[0], inputs[1], out=inputs[0])
        out[0][0] = inputs[0]


class AddInplaceTolerant(AddInplace):
    destroyhandler_tolerate_same = [(0, 1)]


class View(Unary):
    view_map = {0: [0]}

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = inputs[0][:]


add, mul, sub, neg, exp, log, log1p = Add(), Mul(), Sub(), Neg(), Exp(), Log(), Log1p()
nofold, cast32, view = NoFold(), Cast32(), View()
neg_inplace, add_inplace, add_inplace_tol = NegInplace(), AddInplace(), AddInplaceTolerant()


def vecs(*names: str) -> list[Variable]:
    return [fvec(n) for n in names]


def fgraph_of(inputs: list[Variable], outputs: list[Variable], **kw: Any) -> FunctionGraph:
    """A FunctionGraph over the given variables themselves (no clone), for easy inspection."""
    return FunctionGraph(inputs, outputs, clone=False, **kw)


def evaluate(fgraph: FunctionGraph, *values: Any) -> list[np.ndarray]:
    """Run the graph with perform, honouring the destroy handler's orderings."""
    storage: dict[Variable, Any] = {}
    for var, value in zip(fgraph.inputs, values):
        storage[var] = np.array(value, dtype=var.type.dtype, ndmin=1)
    for node in toposort_with_orderings(fgraph):
        args = [storage[i] if i in storage else i.data.copy() for i in node.inputs]
        cells: list[list] = [[None] for _ in node.outputs]
        node.op.perform(node, args, cells)
        for out, (value,) in zip(node.outputs, cells):
            storage[out] = value
    return [np.array(storage[o] if o in storage else o.data) for o in fgraph.outputs]


def op_names(fgraph: FunctionGraph) -> list[str]:
    return sorted(type(n.op).__name__ for n in fgraph.apply_nodes)
