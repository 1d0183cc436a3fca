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

States outside the generator's range. Theano accepts negative seeds (and six-integer seeds with
negative entries) and draws from them: its C step does the shift-and-add arithmetic in wrapping
int32 (arithmetic right shifts of negative words, a reduction ``y -= m`` whenever ``y < 0`` or
``y >= m``), and its jumps reduce each product with C's truncating ``%``, so negative words stay
negative. The numbers are not the MRG31k3p sequence, but they are what Theano draws, so this
module reproduces them: :func:`step_int32` is that arithmetic (used for any state matrix with a
word outside ``[0, m)``), :func:`jump` reduces as C does, and :func:`substream_states` follows
the jumps one stream after another while a state mixes signs (a jump of a non-positive triple
is the negated jump of its negation, so the doubling still serves once the signs agree).
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
#: float16 draws scale 15-bit integers (see :func:`float16_from_integers`): Theano's constant
NORM16 = float(np.float16(3.0458e-05))

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
    """``matrix @ x`` for columns of ``x`` (shape (3, k), int64, ``|entries| <= 2**31``),
    reduced as C's ``%`` reduces: each product, then their sum, keeps its sign (the usual
    residue in ``[0, m)`` for non-negative columns)."""
    rows = []
    for i in range(3):
        # each product < 2**62 in magnitude; three reduced ones sum to less than 3m
        acc = sum(np.fmod(matrix[i][j] * x[j], m) for j in range(3))
        rows.append(np.fmod(acc, m))
    return np.stack(rows)


def jump(states: np.ndarray, log2_steps: int) -> np.ndarray:
    """Every row of ``states`` (shape (k, 6)) moved ``2**log2_steps`` steps ahead (for rows with
    negative words, as Theano moves them: see the module docstring)."""
    s = np.asarray(states, dtype=np.int64).reshape(-1, 6).T
    j1, j2 = jump_matrices(log2_steps)
    out = np.concatenate([_apply_jump(j1, M1, s[:3]), _apply_jump(j2, M2, s[3:])])
    return out.T.astype(np.int32)


def _doubled_substreams(row: np.ndarray, n: int) -> np.ndarray:
    """Rows ``[0, n)`` from one row of non-negative words (int64): rows ``[2**b, 2**(b+1))``
    are rows ``[0, 2**b)`` moved ``2**b`` substreams, ``log2(n)`` vectorised jumps in all."""
    rows = row.reshape(1, 6)
    b = 0
    while rows.shape[0] < n:
        take = min(rows.shape[0], n - rows.shape[0])
        rows = np.concatenate([rows, jump(rows[:take], SUBSTREAM_LOG2 + b).astype(np.int64)])
        b += 1
    return rows


def _mixes_signs(row: np.ndarray) -> bool:
    return any(part.max() > 0 and part.min() < 0 for part in (row[:3], row[3:]))


def substream_states(state: Sequence[int] | np.ndarray, n: int) -> np.ndarray:
    """The (n, 6) int32 state matrix whose row ``k`` is ``state`` moved ``k * 2**72`` steps,
    row after row as Theano moves them (which matters only for negative words)."""
    if n < 1:
        raise ValueError(f"the number of streams must be at least 1, got {n}")
    chain = [np.asarray(state, dtype=np.int64).reshape(6)]
    # a triple mixing signs: the sign of each jump's result depends on the path, so follow it
    while len(chain) < n and _mixes_signs(chain[-1]):
        chain.append(jump(chain[-1], SUBSTREAM_LOG2)[0].astype(np.int64))
    if len(chain) == n:
        return np.stack(chain).astype(np.int32)
    last = chain.pop()
    # a non-positive triple moves as the negation of its (non-negative) negation
    sign = np.repeat([-1 if last[:3].min() < 0 else 1, -1 if last[3:].min() < 0 else 1], 3)
    rest = _doubled_substreams(last * sign, n - len(chain)) * sign
    return np.concatenate([np.asarray(chain, dtype=np.int64).reshape(-1, 6), rest]).astype(
        np.int32)


def _as_int32(value: int) -> int:
    """``value`` wrapped to int32 as NumPy 1.x's ``asarray(..., dtype='int32')`` wrapped the
    seeds Theano 1.0.5 was given (its checks only bound them from above)."""
    return (value + 2**31) % 2**32 - 2**31


def seed_state(seed: object) -> np.ndarray:
    """The streams object's initial state (6 int32) from an int seed or six integers, with
    Theano's checks, messages and their order.

    Theano bounds a seed from above only: a negative seed (or negative words of a six-integer
    seed) gives a state outside the generator's range, from which it still draws (see the
    module docstring); seeds below ``-2**31`` wrap to int32. ``True`` counts as 1."""
    if isinstance(seed, (int, np.integer)):
        seed = int(seed)
        if seed == 0:
            raise ValueError("seed should not be 0", seed)
        if seed >= M2:
            raise ValueError(f"seed should be less than {M2}", seed)
        return np.full(6, _as_int32(seed), dtype=np.int32)
    try:
        words = list(seed)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"seed should be 1 integer or 6 integers, got {seed!r}") from None
    if len(words) != 6:
        raise TypeError(f"seed should be 1 integer or 6 integers, got {len(words)} values")
    try:
        values = [int(v) for v in words]  # floats truncate, as NumPy's int32 cast does
    except TypeError:
        raise TypeError(f"seed should be 1 integer or 6 integers, got {seed!r}") from None
    if not any(values[:3]):
        raise ValueError("The first 3 values of seed should not be all 0", seed)
    if not any(values[3:]):
        raise ValueError("The last 3 values of seed should not be all 0", seed)
    if any(v >= M1 for v in values[:3]):
        raise ValueError(f"The first 3 values of seed should be less than {M1}", seed)
    if any(v >= M2 for v in values[3:]):
        raise ValueError(f"The last 3 values of seed should be less than {M2}", seed)
    return np.asarray([_as_int32(v) for v in values], dtype=np.int32)


def _step(s: np.ndarray) -> np.ndarray:
    """Advance the int64 state columns ``s`` (shape (6, k)) one step in place; returns ``z``
    in [1, m1] for each column."""
    x1 = (A12 * s[1] + A13 * s[2]) % M1
    x2 = (A21 * s[3] + A23 * s[5]) % M2
    s[2], s[1], s[0] = s[1], s[0], x1
    s[5], s[4], s[3] = s[4], s[3], x2
    return np.where(x1 <= x2, x1 - x2 + M1, x1 - x2)


def _reduce_int32(y: np.ndarray, m: int) -> np.ndarray:
    """``y - m`` where the int32 word ``y`` is negative or at least ``m`` (wrapping)."""
    return np.where((y < 0) | (y >= m), y - np.int32(m), y)


def step_int32(s: np.ndarray) -> np.ndarray:
    """One step of the int32 state columns ``s`` (shape (6, k)) in place, in the wrapping
    32-bit arithmetic of Theano's C code (for words in range, the same as :func:`_step`);
    returns the int32 outputs ``z``."""
    b, c, e, f = s[1], s[2], s[3], s[5]
    with np.errstate(over="ignore"):
        y1 = ((b & 511) << 22) + (b >> 9) + ((c & 16777215) << 7) + (c >> 24)
        y1 = _reduce_int32(_reduce_int32(y1, M1) + c, M1)
        p = _reduce_int32(((e & 65535) << 15) + np.int32(21069) * (e >> 16), M2)
        q = _reduce_int32(((f & 65535) << 15) + np.int32(21069) * (f >> 16), M2)
        y2 = _reduce_int32(_reduce_int32(q + f, M2) + p, M2)
        s[2], s[1], s[0] = s[1], s[0], y1
        s[5], s[4], s[3] = s[4], s[3], y2
        return np.where(y1 <= y2, y1 - y2 + np.int32(M1), y1 - y2)


def in_range(states: np.ndarray) -> bool:
    """Whether every row of the (k, 6) ``states`` is a state of the generator (``x1`` words in
    ``[0, m1)``, ``x2`` words in ``[0, m2)``), where the int64 arithmetic of :func:`_step`
    gives Theano's numbers."""
    return bool(states.min(initial=0) >= 0 and states[:, :3].max(initial=0) < M1
                and states[:, 3:].max(initial=0) < M2)


def draw_integers(states: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` outputs ``z`` (int64, in [1, m1] for states in range) from the (k, 6) state matrix,
    and the states after drawing them. Output ``i`` comes from row ``i % k``: row ``r`` gives
    outputs ``r``, ``r + k``, ``r + 2k``, ... in turn."""
    k = states.shape[0]
    exact = not in_range(states)
    step, word = (step_int32, np.int32) if exact else (_step, np.int64)
    s = np.asarray(states, dtype=word).T.copy()
    out = np.empty(n, dtype=np.int64)
    for start in range(0, n, k):
        width = min(k, n - start)
        if width == k:
            out[start:start + k] = step(s)
        else:  # the last, partial round: only the first ``width`` streams move
            part = s[:, :width].copy()
            out[start:] = step(part)
            s[:, :width] = part
    return out, s.T.astype(np.int32)


def float16_from_integers(z: np.ndarray) -> np.ndarray:
    """Theano's float16 draws: the low 15 bits of ``z`` plus 1, times :data:`NORM16` (in
    float64, then rounded to float16). They lie in [3.05e-05, 0.998]: scaling the whole
    integer as for float32 rounds values near 1 to exactly 1.0 in float16."""
    return (((z & 0x7FFF) + 1).astype(np.float64) * NORM16).astype(np.float16)


def to_unit_interval(z: np.ndarray, dtype: str) -> np.ndarray:
    """Integers in [1, m1] as floats in (0, 1): ``z * 2**-31`` in float64; in float32 the
    integer is rounded to float32 first and scaled by :data:`NORM32`."""
    if dtype == "float64":
        return z.astype(np.float64) * NORM64
    if dtype == "float32":
        return z.astype(np.float32) * NORM32
    if dtype == "float16":
        return float16_from_integers(z)
    raise TypeError(f"MRG31k3p draws float16, float32 or float64 numbers, not {dtype}")


def uniform_sample(states: np.ndarray, n: int, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """``n`` uniform numbers in (0, 1) of ``dtype`` and the advanced state matrix."""
    z, new_states = draw_integers(states, n)
    return to_unit_interval(z, dtype), new_states
