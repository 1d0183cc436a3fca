"""``x * scale + shift`` rounded once, as Theano's compiled CPU code computes it.

Theano compiles ``u * (high - low) + low`` (the affine map of a uniform draw) and
``samples * std + avg`` (of a normal draw) into one C loop, which the C compiler contracts into
a fused multiply-add: the product is not rounded before the sum. To draw Theano's numbers bit
for bit these maps use :class:`MulAdd`, which rounds once too. NumPy has no fused multiply-add,
so :func:`fma` computes it exactly with error-free transformations (Dekker's product, Knuth's
sum); float32 goes through float64 with round-to-odd, which makes the double rounding exact.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise.elemwise import _fit_gradient, _pad_left

#: Veltkamp's splitting constant for float64 (2**27 + 1)
_SPLITTER = 134217729.0


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = _SPLITTER * x
    hi = t - (t - x)
    return hi, x - hi


def two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(p, e)`` with ``p = fl(a * b)`` and ``p + e == a * b`` exactly (float64)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(s, t)`` with ``s = fl(a + b)`` and ``s + t == a + b`` exactly (float64)."""
    s = a + b
    bb = s - a
    t = (a - (s - bb)) + (b - bb)
    return s, t


def fma64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a * b + c`` in float64 with one rounding.

    ``a * b + c == s + t + e`` exactly (``p, e = a * b``; ``s, t = p + c``). ``s + (t + e)`` is
    correctly rounded unless ``t + e`` was rounded onto exactly half the spacing of ``s``: a tie
    that the lost error of ``t + e`` decides (:func:`break_ties`)."""
    with np.errstate(over="ignore", invalid="ignore"):
        p, e = two_product(a, b)
        s, t = two_sum(p, c)
        w, w_err = two_sum(t, e)
        result = break_ties(s, w, w_err)
    # infinities and NaNs make the error terms NaN: there the plain expression is the answer
    return np.where(np.isfinite(result), result, a * b + c)


def break_ties(s: np.ndarray, w: np.ndarray, w_err: np.ndarray) -> np.ndarray:
    """``round(s + w + w_err)`` for ``|w_err|`` below half an ulp of ``w`` and ``w`` at most
    about half an ulp of ``s``: ``s + w`` unless that sum is an exact tie, which ``w_err``
    breaks (towards ``s + 2w`` when it has ``w``'s sign)."""
    r = s + w
    twice = s + 2.0 * w
    tie = (w_err != 0) & (twice - s == 2.0 * w) & ((r == s) | (r == twice))
    return np.where(tie, np.where(w_err * w > 0, twice, s), r)


def fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a * b + c`` for float32 operands with one rounding to float32.

    The product of two float32 is exact in float64; the sum is rounded to odd in float64 (its
    error term moves an even result one ulp towards the exact value), after which rounding to
    float32 is exact (Boldo and Melquiond: 53 >= 2 * 24 + 2)."""
    a64, b64, c64 = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    with np.errstate(over="ignore", invalid="ignore"):
        s, t = two_sum(a64 * b64, c64)
        bits = s.view(np.int64) if isinstance(s, np.ndarray) else np.float64(s).view(np.int64)
        inexact_even = (t != 0) & ((bits & 1) == 0) & np.isfinite(s)
        toward = np.where(t > 0, np.inf, -np.inf)
        s = np.where(inexact_even, np.nextafter(s, toward), s)
    return np.asarray(s).astype(np.float32)


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray, dtype: str) -> np.ndarray:
    """``a * b + c`` rounded once to ``dtype`` (operands broadcast against each other)."""
    a, b, c = np.broadcast_arrays(*(np.asarray(v, dtype=dtype) for v in (a, b, c)))
    if dtype == "float64":
        return np.asarray(fma64(a, b, c), dtype=np.float64)
    if dtype in ("float32", "float16"):
        return fma32(a, b, c).astype(dtype)
    raise TypeError(f"MulAdd computes float16, float32 or float64 values, not {dtype}")


class MulAdd(Op):
    """``x * scale + shift`` with a single rounding (see the module docstring). The three
    inputs have one float dtype and broadcast as in an elementwise op."""

    __props__ = ()

    def make_node(self, x: Any, scale: Any, shift: Any) -> Apply:
        x = as_tensor_variable(x)
        dtype = x.dtype
        if dtype not in ("float16", "float32", "float64"):
            raise TypeError(f"MulAdd: x must be a float tensor, got {x.type}")
        args = [x, as_tensor_variable(scale), as_tensor_variable(shift)]
        for name, v in zip(("scale", "shift"), args[1:]):
            if v.dtype != dtype:
                raise TypeError(f"MulAdd: {name} has dtype {v.dtype}, x has {dtype}; cast it")

        ndim = max(v.ndim for v in args)
        args = [_pad_left(v, ndim) for v in args]
        bcast = tuple(all(v.broadcastable[d] for v in args) for d in range(ndim))
        return Apply(self, args, [TensorType(dtype, bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        dtype = node.outputs[0].dtype
        shape = np.broadcast_shapes(*(np.shape(v) for v in inputs))
        result = np.empty(shape, dtype=dtype)  # writable: later in-place ops may reuse it
        result[...] = fma(*inputs, dtype=dtype)
        output_storage[0][0] = result

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence) -> list:
        dims: list[Any] = []
        for d, b in enumerate(node.outputs[0].broadcastable):
            if b:
                dims.append(1)
                continue
            dims.append(next(s[d] for v, s in zip(node.inputs, input_shapes)
                             if not v.broadcastable[d]))
        return [tuple(dims)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, scale, _ = inputs
        (g,) = output_grads
        return [_fit_gradient(g * scale, x), _fit_gradient(g * x, scale),
                _fit_gradient(g, inputs[2])]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        x, scale, _ = inputs
        ex, es, ec = eval_points
        terms = [t for t in (None if ex is None else ex * scale,
                             None if es is None else x * es, ec) if t is not None]
        if not terms:
            return [None]
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        return [total]


mul_add = MulAdd()
