"""The MRG31k3p generator (L'Ecuyer and Touzin, 2000) and its stream spacing, in NumPy.

Two multiple recursive generators of order 3 are combined:

* ``x1[n] = (2**22 * x1[n-2] + (2**7 + 1) * x1[n-3]) mod m1``,  ``m1 = 2**31 - 1``
* ``x2[n] = (2**15 * x2[n-1] + (2**15 + 1) * x2[n-3]) mod m2``, ``m2 = 2**31 - 21069``

and the output is ``z = (x1[n] - x2[n]) mod m1``, read as ``m1`` when it is 0, then scaled into
(0, 1). A state is six integers ``(x1[n-1], x1[n-2], x1[n-3], x2[n-1], x2[n-2], x2[n-3])``, the
layout of one row of the state matrix that ``MRG_RandomStreams`` keeps in a shared variable.

Independent streams are the same sequence started far apart (L'Ecuyer, Simard, Chen and Kelton,
2002): the state ``2**k`` steps ahead is ``A**(2**k) @ state`` (per component, modulo its
``m``), where ``A`` is the component's companion matrix. Consecutive rows of one draw's state
matrix are ``2**72`` steps apart; each draw moves the streams object's own state ``2**134``
steps on.

This module is the reference: :func:`draw_integers` runs many streams at once with vectorised
int64 arithmetic (the ``perform`` of the op); the compiled kernels of the backends compute the
same integers with 32-bit shift-and-add arithmetic.
"""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np

M1 = 2**31 - 1
M2 = 2**31 - 21069
#: the multipliers: ``x1`` uses ``x1[n-2]`` and ``x1[n-3]``, ``x2`` uses ``x2[n-1]`` and ``x2[n-3]``
A12, A13 = 2**22, 2**7 + 1
A21, A23 = 2**15, 2**15 + 1

#: log2 of the distance between the rows of one draw's state matrix, and between draws
SUBSTREAM_LOG2 = 72
STREAM_LOG2 = 134

#: companion matrices acting on ``(x[n-1], x[n-2], x[n-3])``
_COMPANION1 = ((0, A12, A13), (1, 0, 0), (0, 1, 0))
_COMPANION2 = ((A21, 0, A23), (1, 0, 0), (0, 1, 0))

#: 1 / (m1 + 1): an output ``z`` in [1, m1] maps to ``z * NORM`` in (0, 1)
NORM64 = 2.0**-31
#: the float32 factor is one float32 ulp below 2**-31, so that ``float32(m1) * NORM32``
#: (``float32(m1)`` rounds up to 2**31) stays below 1
NORM32 = np.float32(2.0**-31 * (1.0 - 2.0**-24))

Matrix = tuple[tuple[int, int, int], ...]


def _matmul_mod(a: Matrix, b: Matrix, m: int) -> Matrix:
    return tuple(tuple(sum(a[i][k] * b[k][j] for k in range(3)) % m for j in range(3))
                 for i in range(3))


@functools.lru_cache(maxsize=None)
def jump_matrices(log2_steps: int) -> tuple[Matrix, Matrix]:
    """The matrices moving each component ``2**log2_steps`` steps ahead (exact integers)."""
    a1, a2 = _COMPANION1, _COMPANION2
    for _ in range(log2_steps):
        a1, a2 = _matmul_mod(a1, a1, M1), _matmul_mod(a2, a2, M2)
    return a1, a2


def _apply_jump(matrix: Matrix, m: int, x: np.ndarray) -> np.ndarray:
    """``matrix @ x mod m`` for columns of ``x`` (shape (3, k), int64, entries < m)."""
    rows = []
    for i in range(3):
        acc = np.zeros(x.shape[1], dtype=np.int64)
        for j in range(3):
            # each product < 2**62: reduce before adding so that the sum stays in int64
            acc = (acc + (matrix[i][j] * x[j]) % m) % m
        rows.append(acc)
    return np.stack(rows)


def jump(states: np.ndarray, log2_steps: int) -> np.ndarray:
    """Every row of ``states`` (shape (k, 6)) moved ``2**log2_steps`` steps ahead."""
    s = np.asarray(states, dtype=np.int64).reshape(-1, 6).T
    j1, j2 = jump_matrices(log2_steps)
    out = np.concatenate([_apply_jump(j1, M1, s[:3]), _apply_jump(j2, M2, s[3:])])
    return out.T.astype(np.int32)


def substream_states(state: Sequence[int] | np.ndarray, n: int) -> np.ndarray:
    """The (n, 6) int32 state matrix whose row ``k`` is ``state`` moved ``k * 2**72`` steps.

    Computed by doubling: rows ``[2**b, 2**(b+1))`` are rows ``[0, 2**b)`` moved ``2**b``
    substreams, so the whole matrix takes ``log2(n)`` vectorised jumps.
    """
    if n < 1:
        raise ValueError(f"the number of streams must be at least 1, got {n}")
    rows = np.asarray(state, dtype=np.int64).reshape(1, 6)
    b = 0
    while rows.shape[0] < n:
        take = min(rows.shape[0], n - rows.shape[0])
        rows = np.concatenate([rows, jump(rows[:take], SUBSTREAM_LOG2 + b).astype(np.int64)])
        b += 1
    return rows.astype(np.int32)


def seed_state(seed: object) -> np.ndarray:
    """The streams object's initial state (6 int32) from an int seed or six integers, with
    Theano's checks and messages."""
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        seed = int(seed)
        if seed == 0:
            raise ValueError("seed should not be 0", seed)
        if seed < 0:
            raise ValueError("seed should be a positive integer (MRG31k3p states are "
                             "non-negative)", seed)
        if seed >= M2:
            raise ValueError(f"seed should be less than {M2}", seed)
        return np.full(6, seed, dtype=np.int32)
    try:
        values = [int(v) for v in seed]  # type: ignore[union-attr]
    except TypeError:
        raise TypeError("seed should be 1 integer or 6 integers") from None
    if len(values) != 6:
        raise TypeError("seed should be 1 integer or 6 integers")
    for part, bound, name in ((values[:3], M1, "first"), (values[3:], M2, "last")):
        if any(v < 0 for v in part):
            raise ValueError(f"The {name} 3 values of seed should not be negative", seed)
        if any(v >= bound for v in part):
            raise ValueError(f"The {name} 3 values of seed should be less than {bound}", seed)
        if not any(part):
            raise ValueError(f"The {name} 3 values of seed should not be all 0", seed)
    return np.asarray(values, dtype=np.int32)


def _step(s: np.ndarray) -> np.ndarray:
    """Advance the int64 state columns ``s`` (shape (6, k)) one step in place; returns ``z``
    in [1, m1] for each column."""
    x1 = (A12 * s[1] + A13 * s[2]) % M1
    x2 = (A21 * s[3] + A23 * s[5]) % M2
    s[2], s[1], s[0] = s[1], s[0], x1
    s[5], s[4], s[3] = s[4], s[3], x2
    return np.where(x1 <= x2, x1 - x2 + M1, x1 - x2)


def draw_integers(states: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` outputs ``z`` (int64, in [1, m1]) from the (k, 6) state matrix, and the states
    after drawing them. Output ``i`` comes from row ``i % k``: row ``r`` gives outputs ``r``,
    ``r + k``, ``r + 2k``, ... in turn."""
    k = states.shape[0]
    s = np.asarray(states, dtype=np.int64).T.copy()
    out = np.empty(n, dtype=np.int64)
    for start in range(0, n, k):
        width = min(k, n - start)
        if width == k:
            out[start:start + k] = _step(s)
        else:  # the last, partial round: only the first ``width`` streams move
            part = s[:, :width].copy()
            out[start:] = _step(part)
            s[:, :width] = part
    return out, s.T.astype(np.int32)


def to_unit_interval(z: np.ndarray, dtype: str) -> np.ndarray:
    """Integers in [1, m1] as floats in (0, 1): ``z * 2**-31`` in float64; in float32 the
    integer is rounded to float32 first and scaled by :data:`NORM32`."""
    if dtype == "float64":
        return z.astype(np.float64) * NORM64
    if dtype == "float32":
        return z.astype(np.float32) * NORM32
    if dtype == "float16":
        return (z.astype(np.float32) * NORM32).astype(np.float16)
    raise TypeError(f"MRG31k3p draws float16, float32 or float64 numbers, not {dtype}")


def uniform_sample(states: np.ndarray, n: int, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """``n`` uniform numbers in (0, 1) of ``dtype`` and the advanced state matrix."""
    z, new_states = draw_integers(states, n)
    return to_unit_interval(z, dtype), new_states
