"""Casts: complex to real is refused (Theano 1.0.5's TypeError), and a conversion's scalar op
carries Theano's output-type rule (``output_types_preference``, a ``specific_out``)."""

from __future__ import annotations

import pytest

import jitgraph.scalar as S
import jitgraph.tensor as T
from jitgraph._facade.objects import CONVERSIONS
from jitgraph.scalar.type_rules import specific_out


def test_casting_complex_to_real_is_refused():
    z = T.zmatrix("z")
    with pytest.raises(TypeError, match="ambiguous: take real"):
        T.cast(z, "float64")
    assert T.cast(z, "complex64").dtype == "complex64"
    assert T.cast(T.real(z), "float32").dtype == "float32"


@pytest.mark.parametrize("dtype", ["int8", "int32", "float32", "float64", "complex64"])
def test_conversion_output_types_preference(dtype):
    rule = CONVERSIONS[f"_convert_to_{dtype}"].scalar_op.output_types_preference
    assert rule == specific_out(S.get_scalar_type(dtype))
    assert rule.spec[0].dtype == dtype and rule(S.float64) == (S.get_scalar_type(dtype),)


def test_table_ops_output_types_preference():
    # Theano 1.0.5: exp(int8) -> float32, exp(float64) -> float64, add(int8, float32) -> float32
    assert T.exp.scalar_op.output_types_preference(S.int8) == (S.float32,)
    assert T.exp.scalar_op.output_types_preference(S.float64) == (S.float64,)
    assert S.add.output_types_preference(S.int8, S.float32) == (S.float32,)
