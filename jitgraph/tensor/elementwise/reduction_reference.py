"""NumPy reference of the reductions: a scalar op of the table folded over axes of an array, by
the operation's ufunc where NumPy has one, else pairwise (what ``CAReduce.perform`` computes)."""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.tensor.elementwise.scalar_ops import ScalarOp

# The NumPy ufunc whose ``reduce`` implements each reducible scalar op; other (e.g. fused
# composite) scalar ops go through the generic pairwise loop (``_generic_reduce``).
_UFUNCS = {"add": np.add, "mul": np.multiply, "maximum": np.maximum, "minimum": np.minimum,
           "and_": np.bitwise_and, "or_": np.bitwise_or, "xor": np.bitwise_xor}


def fold(sop: ScalarOp, x: np.ndarray, axes: tuple[int, ...], acc_dtype: str,
         who: str = "reduction") -> Any:
    """``sop`` folded over ``axes`` of ``x`` in ``acc_dtype`` (``who`` names the reduction in
    errors)."""
    if not axes:
        return np.array(x, dtype=acc_dtype, copy=True)
    empty = any(x.shape[a] == 0 for a in axes)
    if empty and sop.name in ("maximum", "minimum"):
        raise ValueError(f"{who}: cannot reduce a zero-size array of shape {x.shape} over axes "
                         f"{list(axes)}: {sop.name} has no identity")
    ufunc = _UFUNCS.get(sop.name)
    if ufunc is not None:
        # one axis at a time, the last first: Theano's order of the additions, so that its
        # results are reproduced to the last bit (NumPy's reduce over several axes at once
        # groups the terms differently)
        acc = x.astype(acc_dtype, copy=False)
        for axis in sorted(axes, reverse=True):
            acc = ufunc.reduce(acc, axis=axis)
        return acc
    return _generic_reduce(sop, x.astype(acc_dtype, copy=False), axes)


def _generic_reduce(sop: ScalarOp, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """Reduction loop for scalar ops with no NumPy ufunc: fold pairwise along a flattened axis."""
    kept = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, list(axes) + kept)
    block = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    flat = moved.reshape((block,) + moved.shape[len(axes):])
    if flat.shape[0] == 0:
        if sop.identity is None:
            raise ValueError(f"cannot reduce a zero-size array with {sop}: it has no identity")
        return np.full(flat.shape[1:], sop.identity, dtype=x.dtype)
    acc = flat[0].copy()
    for i in range(1, flat.shape[0]):
        acc = sop.impl(acc, flat[i])
    return acc
