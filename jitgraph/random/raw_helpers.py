"""Draws that loop over broadcast parameters, one NumPy call per sample (or per row), in the
order Theano's raw_random makes them, so the ``RandomState`` stream is consumed identically."""

from __future__ import annotations

from typing import Any

import numpy as np


def _broadcast_shape(size: Any, *params: np.ndarray) -> tuple[int, ...]:
    if size is not None:
        return tuple(size)
    return tuple(np.broadcast_shapes(*(np.shape(p) for p in params)))


def random_integers_helper(r: np.random.RandomState, low: Any, high: Any, size: Any
                           ) -> np.ndarray:
    """Integers in [low, high] (both ends included), one ``randint`` call per element."""
    shape = _broadcast_shape(size, low, high)
    lows = np.broadcast_to(np.asarray(low), shape)
    highs = np.broadcast_to(np.asarray(high), shape)
    out = np.empty(shape, dtype=np.int64)
    for idx in np.ndindex(*shape):
        out[idx] = r.randint(low=int(lows[idx]), high=int(highs[idx]) + 1)
    return out


def choice_helper(r: np.random.RandomState, a: Any, replace: Any, p: Any, size: Any
                  ) -> np.ndarray:
    """``r.choice(a, size, replace, p)``; an empty ``p`` means uniform probabilities."""
    a, p = np.asarray(a), np.asarray(p)
    if a.ndim > 1:
        raise ValueError(f"a.ndim ({a.ndim}) must be 0 or 1")
    if p.ndim == 1 and p.size == 0:
        p = None
    elif p.ndim != 1:
        raise ValueError(f"p.ndim ({p.ndim}) must be 1")
    return r.choice(a, size, bool(replace), p)


def permutation_helper(r: np.random.RandomState, n: Any, size: Any) -> np.ndarray:
    """A permutation of ``range(n)`` for each index of ``size``: shape ``size + (n,)``."""
    shape = tuple(size) if size is not None else ()
    n = int(n)
    out = np.empty(shape + (n,), dtype=np.int64)
    for idx in np.ndindex(*shape):
        out[idx] = r.permutation(n)
    return out


#: probabilities summing (by rounding) to more than 1 are shrunk a little, which NumPy needs
MULTINOMIAL_SHRINK = 1.0 - 5e-5


def multinomial_helper(r: np.random.RandomState, n: Any, pvals: Any, size: Any) -> np.ndarray:
    """One multinomial draw of ``n`` trials per index of ``size`` (broadcasting ``n`` and the
    rows of ``pvals``): shape ``size + (outcomes,)``."""
    n, pvals = np.asarray(n), np.asarray(pvals)
    shape = _broadcast_shape(size, n, pvals[..., 0])
    k = pvals.shape[-1]
    ns = np.broadcast_to(n, shape)
    rows = np.broadcast_to(pvals, shape + (k,))
    out = np.empty(shape + (k,), dtype=np.int64)
    for idx in np.ndindex(*shape):
        row = np.asarray(rows[idx], dtype=np.float64)
        if row.sum() > 1.0:
            row = row * MULTINOMIAL_SHRINK
            if row.sum() > 1.0:
                raise ValueError(f"multinomial: the probabilities {rows[idx]} sum to more "
                                 "than 1")
        out[idx] = r.multinomial(n=int(ns[idx]), pvals=row)
    return out
