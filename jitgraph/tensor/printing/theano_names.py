"""How Theano 1.0 names elementwise ops, so that printed graphs read the same on jitgraph.

Theano's tensor functions are Elemwise ops named ``Elemwise{add,no_inplace}``; a few are named
after the function (``sigmoid``, ``softplus``); casts and fused composites print their scalar
op alone (``Elemwise{Cast{float32}}``, ``Elemwise{Composite{...}}``); and the in-place versions
made by the rewrites show the scalar op's class name and the in-place pattern
(``Elemwise{Add}[(0, 0)]``). jitgraph's scalar ops keep their own (lower-case) names; this
module only maps them to Theano's for display.
"""

from __future__ import annotations

from typing import Any

from jitgraph.tensor.elementwise import scalar_ops

#: jitgraph scalar op name -> the class name Theano shows for the in-place version
SCALAR_CLASS_NAMES = {
    "add": "Add", "mul": "Mul", "sub": "Sub", "true_div": "TrueDiv", "int_div": "IntDiv",
    "mod": "Mod", "pow": "Pow", "neg": "Neg", "abs": "Abs", "sgn": "Sgn", "exp": "Exp",
    "exp2": "Exp2", "expm1": "Expm1", "log": "Log", "log2": "Log2", "log10": "Log10",
    "log1p": "Log1p", "sqr": "Sqr", "sqrt": "Sqrt", "reciprocal": "Inv", "sin": "Sin",
    "cos": "Cos", "tan": "Tan", "arcsin": "ArcSin", "arccos": "ArcCos", "arctan": "ArcTan",
    "arctan2": "ArcTan2", "sinh": "Sinh", "cosh": "Cosh", "tanh": "Tanh",
    "arcsinh": "ArcSinh", "arccosh": "ArcCosh", "arctanh": "ArcTanh", "ceil": "Ceil",
    "floor": "Floor", "trunc": "Trunc", "erf": "Erf", "erfc": "Erfc",
    "maximum": "Maximum", "minimum": "Minimum", "clip": "Clip", "second": "Second",
    "identity": "Identity", "sigmoid": "ScalarSigmoid", "softplus": "ScalarSoftplus",
    "gt": "GT", "lt": "LT", "ge": "GE", "le": "LE", "eq": "EQ", "neq": "NEQ", "and_": "AND",
    "or_": "OR", "xor": "XOR", "invert": "Invert", "isnan": "IsNan", "isinf": "IsInf",
    "switch": "Switch", "round_half_to_even": "RoundHalfToEven",
    "round_half_away_from_zero": "RoundHalfAwayFromZero",
}

#: Elemwise ops Theano names after their tensor function instead of ``Elemwise{...}``
NAMED_ELEMWISE = {"sigmoid": "sigmoid", "softplus": "softplus"}

#: jitgraph scalar op name -> Theano's scalar op name, where they differ
SCALAR_NAMES = {"abs": "abs_", "reciprocal": "inv"}


def _is_table_op(scalar_op: Any) -> bool:
    try:
        return scalar_ops.get_scalar_op(scalar_op.key) == scalar_op
    except (KeyError, AttributeError, TypeError):
        return False


def scalar_display(scalar_op: Any) -> str:
    """The scalar op as Theano prints it inside ``Elemwise{...}`` (casts as ``Cast{int8}``)."""
    if isinstance(scalar_op, scalar_ops.Cast):
        return f"Cast{{{scalar_op.dtype}}}"
    if _is_table_op(scalar_op):
        return SCALAR_NAMES.get(scalar_op.name, scalar_op.name)
    return str(scalar_op)


def elemwise_str(op: Any) -> str:
    """Theano's text for an Elemwise op (see the module docstring)."""
    sop = op.scalar_op
    if op.inplace_pattern:
        name = (SCALAR_CLASS_NAMES.get(sop.name) or sop.theano_class) if _is_table_op(sop) \
            else None
        return f"Elemwise{{{name or scalar_display(sop)}}}{list(op.inplace_pattern)}"
    if isinstance(sop, scalar_ops.Cast) or not _is_table_op(sop):
        return f"Elemwise{{{scalar_display(sop)}}}"
    if sop.name in NAMED_ELEMWISE:
        return NAMED_ELEMWISE[sop.name]
    return f"Elemwise{{{scalar_display(sop)},no_inplace}}"


def default_elemwise_name(op: Any) -> str | None:
    """The ``name`` Theano gives the Elemwise op of a tensor function (None for in-place ops,
    casts and composites, which Theano builds without one)."""
    sop = op.scalar_op
    if op.inplace_pattern or isinstance(sop, scalar_ops.Cast) or not _is_table_op(sop):
        return None
    return elemwise_str(op)


__all__ = ["SCALAR_CLASS_NAMES", "NAMED_ELEMWISE", "SCALAR_NAMES", "scalar_display",
           "elemwise_str", "default_elemwise_name"]


# ---------------------------------------------------------------------------------------------
# Reductions: Sum{axis=[0], acc_dtype=float64}, Prod{axis=(1,), dtype=..., acc_dtype=...},
# Reduce{maximum}{0, 1}, Any{0}, All, Argmax{axis=(1,)}

def reduction_str(op: Any, node: Any = None) -> str:
    """Theano's text for a reduction op; with ``node`` the dtypes and axes it fixes are shown
    (Theano resolves them when the op is applied)."""
    from jitgraph.tensor.elementwise import reduction as R
    from jitgraph.tensor.elementwise.prod_without_zeros import ProdWithoutZeros

    rtype = op._reduced_input_type(node.inputs) if node is not None else None
    axis = op.axis
    pre = f"pre_op={op.pre_op}" if op.pre_op is not None else None
    if isinstance(op, R.Sum):
        acc = op.acc_dtype if rtype is None else op.acc_dtype_for(rtype.dtype)
        parts = [f"axis={list(axis)}" if axis is not None else None,
                 f"acc_dtype={acc}" if acc else None, pre]
        return _braced("Sum", parts)
    if isinstance(op, (R.Prod, ProdWithoutZeros)):
        dtype = op.dtype if rtype is None else op.output_dtype(rtype.dtype)
        acc = op.acc_dtype if rtype is None else op.acc_dtype_for(rtype.dtype)
        return _braced(type(op).__name__, [f"axis={axis!r}", f"dtype={dtype!r}", f"acc_dtype={acc!r}", pre])
    if isinstance(op, (R.Any, R.All)):
        name = type(op).__name__
    else:
        name = f"Reduce{{{scalar_display(op.scalar_op)}}}"
        if axis is None and rtype is not None:
            axis = tuple(range(rtype.ndim))
    text = name if axis is None else f"{name}{{{', '.join(map(str, axis))}}}"
    return text if pre is None else f"{text}{{{pre}}}"


def arg_reduction_str(op: Any, node: Any = None) -> str:
    """``Argmax{axis=(1,)}``; without an axis, all the input's axes once applied."""
    axis = op.axis
    if axis is None and node is not None:
        axis = tuple(range(node.inputs[0].ndim))
    return f"{type(op).__name__}{{axis={axis!r}}}"


def _braced(name: str, parts: list) -> str:
    shown = [p for p in parts if p]
    return f"{name}{{{', '.join(shown)}}}" if shown else name


__all__ += ["reduction_str", "arg_reduction_str"]
