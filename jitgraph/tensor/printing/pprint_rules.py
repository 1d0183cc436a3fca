"""How ``pprint`` writes jitgraph's tensor ops: Theano 1.0's notation for the same graphs.

Loaded by :data:`jitgraph.graph.pprinter.pprint` on first use (the graph layer does not import
the tensor layer). Examples of the notation::

    x + y * z          ((x + (y * z)))          operators, always parenthesised
    exp(x), x > 0      exp(x), gt(x, y)         other elementwise ops by their function name
    abs(x)             |x|
    T.dot(x, w)        (x \\dot w)
    x.T                x.T                      (broadcasting DimShuffles are not shown)
    x[1:3]             x[int64:int64]           (Theano shows a slice bound by its dtype)
    x.shape[0]         Shape(x)[Constant{0}]
    T.stack([a, b])    [a, b]
    T.cast(x, 'int8')  int8(x)
    T.ones_like(x)     fill(x, TensorConstant{1.0})

Other ops print as ``str(op)(inputs)``.
"""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Constant, Variable
from jitgraph.graph.pprinter import (FunctionPrinter, IgnorePrinter, OperatorPrinter,
                                     PatternPrinter, PrinterState, default_printer, pprint,
                                     special)
from jitgraph.tensor.elementwise import scalar_ops
from jitgraph.tensor.core.basic import Alloc, Join, MakeVector
from jitgraph.tensor.linalg.blas import Dot, Gemm
from jitgraph.tensor.elementwise.elemwise import DimShuffle, Elemwise
from jitgraph.tensor.indexing.index_encoding import index_vars
from jitgraph.tensor.indexing.subtensor_ops import Subtensor

#: scalar op -> (symbol, precedence, associativity); in place, the symbol gets '=' ('+=')
OPERATORS = {
    "add": ("+", -2, "either"),
    "mul": ("*", -1, "either"),
    "sub": ("-", -2, "left"),
    "neg": ("-", 0, "either"),
    "true_div": ("/", -1, "left"),
    "int_div": ("//", -1, "left"),
    "pow": ("**", 1, "right"),
}

#: jitgraph scalar op name -> Theano's tensor function name, where they differ
FUNCTION_NAMES = {"abs": "abs_", "reciprocal": "inv", "second": "fill"}

_ABS = PatternPrinter(("|%(0)s|", -1000))
_COPY = IgnorePrinter()


def _is_table_op(scalar_op: Any) -> bool:
    """True for the scalar ops of the table and casts (Theano's named elementwise functions);
    fused composites and users' own scalar ops print with the default printer."""
    if isinstance(scalar_op, scalar_ops.Cast):
        return True
    try:
        return scalar_ops.get_scalar_op(scalar_op.key) == scalar_op
    except (KeyError, AttributeError, TypeError):
        return False


def elemwise_printer(op: Elemwise) -> Any:
    """The printer of one Elemwise op (Theano assigns one per elementwise function)."""
    sop = op.scalar_op
    if not _is_table_op(sop):
        return default_printer
    inplace = bool(op.inplace_pattern)
    suffix = "=" if inplace else ""
    if sop.name in OPERATORS:
        symbol, precedence, assoc = OPERATORS[sop.name]
        return OperatorPrinter(symbol + suffix, precedence, assoc)
    if isinstance(sop, scalar_ops.Cast):
        return FunctionPrinter(sop.dtype + suffix)
    if not inplace and sop.name == "abs":
        return _ABS
    if not inplace and sop.name == "identity":
        return _COPY
    return FunctionPrinter(FUNCTION_NAMES.get(sop.name, sop.name) + suffix)


class ElemwisePrinter:
    """Dispatches each Elemwise to the notation of its scalar op."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        return elemwise_printer(output.owner.op).process(output, pstate)


class DimShufflePrinter:
    """Broadcasting (leading 'x' entries) is not shown; a full reversal is ``x.T``; any other
    pattern is ``DimShuffle{1, 0, x}(x)``."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        node = output.owner
        if node is None or not isinstance(node.op, DimShuffle):
            raise TypeError(f"DimShufflePrinter can only print the output of a DimShuffle, "
                            f"got {output}")
        order = list(node.op.new_order)
        while order and order[0] == "x":
            order.pop(0)
        source = node.inputs[0]
        inner = pstate.pprinter.process(source, pstate)
        if order == list(range(source.type.ndim)):
            return inner
        if order == list(reversed(range(source.type.ndim))):
            return f"{inner}.T"
        return f"DimShuffle{{{', '.join(map(str, order))}}}({inner})"


class SubtensorPrinter:
    """``x[entries]``: an integer index prints its expression (a constant as
    ``Constant{k}``), a slice prints the dtype of each bound it has, as Theano does."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        node = output.owner
        if node is None or not isinstance(node.op, Subtensor):
            raise TypeError(f"SubtensorPrinter can only print the output of a Subtensor, "
                            f"got {output}")
        saved = getattr(pstate, "precedence", None)
        try:
            pstate.precedence = -1000
            entries = [self._entry(e, v, pstate) for e, v in
                       zip(node.op.idx_list, index_vars(node.op.idx_list, node.inputs[1:]))]
            pstate.precedence = 1000
            source = pstate.pprinter.process(node.inputs[0], pstate)
        finally:
            pstate.precedence = saved
        return f"{source}[{', '.join(entries)}]"

    @staticmethod
    def _entry(entry: Any, value: Any, pstate: PrinterState) -> str:
        if entry == "int":
            if isinstance(value, Constant):
                return f"Constant{{{int(value.data)}}}"
            return pstate.pprinter.process(value, pstate)
        start, stop, step = (None if b is None else b.dtype for b in value)
        text = f"{start or ''}:{stop or ''}"
        return text + (f":{step}" if step else "")


class MakeVectorPrinter:
    """``[a, b, c]``."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        node = output.owner
        if node is None or not isinstance(node.op, MakeVector):
            raise TypeError(f"MakeVectorPrinter can only print the output of a MakeVector, "
                            f"got {output}")
        saved = getattr(pstate, "precedence", None)
        try:
            pstate.precedence = 1000
            items = [pstate.pprinter.process(i, pstate) for i in node.inputs]
        finally:
            pstate.precedence = saved
        return f"[{', '.join(items)}]"


class JoinPrinter:
    """``join(TensorConstant{axis}, a, b)``: Theano's Join takes its axis as a first input."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        if output in pstate.memo:
            return pstate.memo[output]
        node = output.owner
        parts = [f"TensorConstant{{{node.op.axis}}}"]
        saved = getattr(pstate, "precedence", None)
        try:
            pstate.precedence = -1000
            parts += [pstate.pprinter.process(i, pstate) for i in node.inputs]
        finally:
            pstate.precedence = saved
        text = f"join({', '.join(parts)})"
        pstate.memo[output] = text
        return text


class GemmPrinter:
    """``gemm_inplace(...)`` / ``gemm_no_inplace(...)``."""

    def process(self, output: Variable, pstate: PrinterState) -> str:
        name = "gemm_inplace" if output.owner.op.inplace else "gemm_no_inplace"
        return FunctionPrinter(name).process(output, pstate)


pprint.assign(Elemwise, ElemwisePrinter())
pprint.assign(DimShuffle, DimShufflePrinter())
pprint.assign(Subtensor, SubtensorPrinter())
pprint.assign(MakeVector, MakeVectorPrinter())
pprint.assign(Join, JoinPrinter())
pprint.assign(Alloc, FunctionPrinter("alloc"))
pprint.assign(Dot, OperatorPrinter(special["middle_dot"], -1, "left"))
pprint.assign(Gemm, GemmPrinter())

__all__ = ["OPERATORS", "FUNCTION_NAMES", "ElemwisePrinter", "DimShufflePrinter",
           "SubtensorPrinter", "MakeVectorPrinter", "JoinPrinter", "GemmPrinter",
           "elemwise_printer"]
