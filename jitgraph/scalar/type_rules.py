"""Theano's output-type rules for scalar ops (``output_types_preference``): functions from the
input scalar types to the tuple of output scalar types.

``upgrade_to_float`` (integers become the float that holds them: int8 -> float32, int32 ->
float64), ``same_out`` (the first input's type), ``upcast_out`` (the common type), ``float_out``
(float64), ``int_out`` (int64), ... and their variants refusing bool or complex inputs.
"""

from __future__ import annotations

from typing import Any, Callable

from jitgraph.scalar.type import ScalarType, get_scalar_type
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.elementwise.scalar_op_base import Cast

Rule = Callable[..., tuple]


def _refuse(types: tuple, kinds: str, rule: str) -> None:
    """TypeError when an input's dtype is of a refused kind ('b' bool, 'c' complex, 'i'
    integer or bool)."""
    for t in types:
        kind = "b" if t.dtype == "bool" else "c" if dt.is_complex(t.dtype) else \
            "i" if dt.is_discrete(t.dtype) else "f"
        if kind in kinds or (kind == "b" and "i" in kinds):
            raise TypeError(f"{rule} does not accept {t.dtype} inputs")


def upgrade_to_float(*types: ScalarType) -> tuple:
    """The float type computing on the inputs (int8/int16/uint8/uint16/bool -> float32, wider
    integers -> float64), upcast over all inputs."""
    return (get_scalar_type(dt.upcast(*[dt.upgrade_to_float(t.dtype) for t in types])),)


def upgrade_to_float64(*types: ScalarType) -> tuple:
    return (get_scalar_type("float64"),)


def upgrade_to_float_no_complex(*types: ScalarType) -> tuple:
    _refuse(types, "c", "upgrade_to_float_no_complex")
    return upgrade_to_float(*types)


def same_out(t: ScalarType) -> tuple:
    """The type of the (single) input."""
    return (t,)


def same_out_nobool(t: ScalarType) -> tuple:
    _refuse((t,), "b", "same_out_nobool")
    return (t,)


def same_out_min8(t: ScalarType) -> tuple:
    """The input's type, bool promoted to int8."""
    return (get_scalar_type("int8") if t.dtype == "bool" else t,)


def same_out_nocomplex(t: ScalarType) -> tuple:
    _refuse((t,), "c", "same_out_nocomplex")
    return (t,)


def same_out_float_only(t: ScalarType) -> tuple:
    _refuse((t,), "ic", "same_out_float_only")
    return (t,)


def upcast_out(*types: ScalarType) -> tuple:
    """The common type of the inputs."""
    return (get_scalar_type(dt.upcast(*[t.dtype for t in types])),)


def upcast_out_nobool(*types: ScalarType) -> tuple:
    out = upcast_out(*types)
    _refuse(out, "b", "upcast_out_nobool")
    return out


def upcast_out_min8(*types: ScalarType) -> tuple:
    (out,) = upcast_out(*types)
    return (get_scalar_type("int8") if out.dtype == "bool" else out,)


def upcast_out_no_complex(*types: ScalarType) -> tuple:
    _refuse(types, "c", "upcast_out_no_complex")
    return upcast_out(*types)


def float_out(*types: ScalarType) -> tuple:
    return (get_scalar_type("float64"),)


def float_out_nocomplex(*types: ScalarType) -> tuple:
    _refuse(types, "c", "float_out_nocomplex")
    return float_out(*types)


def int_out(*types: ScalarType) -> tuple:
    return (get_scalar_type("int64"),)


def int_out_nocomplex(*types: ScalarType) -> tuple:
    _refuse(types, "c", "int_out_nocomplex")
    return int_out(*types)


def real_out(t: ScalarType) -> tuple:
    """The real type of a complex input (complex64 -> float32), else the input's type."""
    return (get_scalar_type({"complex64": "float32", "complex128": "float64"}.get(t.dtype,
                                                                                 t.dtype)),)


class specific_out:  # noqa: N801 - Theano's name
    """A rule giving the types ``spec`` whatever the inputs (``.spec``: those types)."""

    def __init__(self, *spec: ScalarType) -> None:
        self.spec = spec

    def __call__(self, *types: ScalarType) -> tuple:
        return self.spec

    def __eq__(self, other: Any) -> bool:
        return type(other) is specific_out and other.spec == self.spec

    def __hash__(self) -> int:
        return hash(self.spec)

    def __repr__(self) -> str:
        return f"specific_out{self.spec}"


def table_rule(op: Any) -> Rule:
    """The output-type rule of a scalar-op table entry (``op.output_types_preference``): a
    conversion's is ``specific_out`` of its target type; any other entry's maps the input
    types through the entry's dtype rule."""
    if isinstance(op, Cast):
        return specific_out(get_scalar_type(op.dtype))

    def rule(*types: ScalarType) -> tuple:
        return tuple(get_scalar_type(d) for d in op.output_dtypes(*(t.dtype for t in types)))

    return rule


def transfer_type(*positions: Any) -> Rule:
    """A rule giving, per output, the type of input ``positions[k]`` (a type when it is not an
    int position)."""

    def rule(*types: ScalarType) -> list:
        return [types[p] if isinstance(p, int) else p for p in positions]

    return rule


__all__ = ["upgrade_to_float", "upgrade_to_float64", "upgrade_to_float_no_complex",
           "same_out", "same_out_nobool", "same_out_min8", "same_out_nocomplex",
           "same_out_float_only", "upcast_out", "upcast_out_nobool", "upcast_out_min8",
           "upcast_out_no_complex", "float_out", "float_out_nocomplex", "int_out",
           "int_out_nocomplex", "real_out", "specific_out", "table_rule", "transfer_type"]
