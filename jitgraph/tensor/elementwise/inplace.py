"""``theano.tensor.inplace``: the elementwise functions that write their result into their first
argument (``exp_inplace(x)`` overwrites ``x``), one per row of the scalar-op table that Theano
1.0 defines one for.

A graph holding one is only compiled with ``function(..., accept_inplace=True)``; the input it
overwrites is then changed by the call, as in Theano. The rewrites make ordinary graphs in-place
by themselves where that is safe: these functions are for graphs written by hand.
"""

from __future__ import annotations

from typing import Any

from jitgraph.tensor.elementwise import scalar_ops
from jitgraph.tensor.elementwise.elemwise import Elemwise, transpose

#: Theano's name (without ``_inplace``) -> the table row, where they differ
_ROW_OF = {"abs_": "abs", "inv": "reciprocal", "fill": "second"}

_THEANO_NAMES = (
    "abs_", "add", "and_", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2",
    "arctanh", "ceil", "chi2sf", "conj", "cos", "cosh", "deg2rad", "eq", "erf", "erfc", "erfcx",
    "exp", "exp2", "expm1", "fill", "floor", "gamma", "gammaln", "ge", "gt", "i0", "i1",
    "int_div", "inv", "invert", "iv", "j0", "j1", "jv", "le", "log", "log10", "log1p", "log2",
    "lt", "maximum", "minimum", "mod", "mul", "neg", "neq", "or_", "pow", "psi", "rad2deg",
    "round_half_away_from_zero", "round_half_to_even", "second", "sgn", "sin", "sinh", "sqr",
    "sqrt", "sub", "tan", "tanh", "tri_gamma", "true_div", "trunc", "xor")


def _inplace_function(theano_name: str) -> Elemwise:
    """The in-place op of row ``theano_name``, called as a function: as in Theano, an Elemwise
    named ``<name>_inplace`` (``str(add_inplace) == 'add_inplace'``) writing output 0 into
    input 0."""
    row = _ROW_OF.get(theano_name, theano_name)
    return Elemwise(scalar_ops.get_scalar_op((row,)), {0: 0}, name=f"{theano_name}_inplace")


def transpose_inplace(x: Any) -> Any:
    """``x`` with its axes reversed: a view of ``x`` (Theano's ``InplaceDimShuffle``)."""
    return transpose(x)


globals().update({f"{name}_inplace": _inplace_function(name) for name in _THEANO_NAMES})

__all__ = [f"{name}_inplace" for name in _THEANO_NAMES] + ["transpose_inplace"]
