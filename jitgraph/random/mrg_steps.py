"""Theano's step-by-step MRG31k3p helpers (``theano.sandbox.rng_mrg``): one generator step,
jumps of ``2**72`` / ``2**134`` steps, and the ``DotModulo`` op computing such a jump in a graph.

They compute what :mod:`jitgraph.random.mrg31k3p` computes for whole state matrices, one
six-integer state at a time, with Theano's signatures and result types (int32 states,
float64 values).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op
from jitgraph.random import mrg31k3p
from jitgraph.random.mrg31k3p import M1, M2, STREAM_LOG2, SUBSTREAM_LOG2
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType


def _jump_array(log2_steps: int, component: int) -> np.ndarray:
    return np.asarray(mrg31k3p.jump_matrices(log2_steps)[component], dtype=np.int64)


#: Theano's module constants: the jump matrices (int64) of each component for ``2**72`` steps
#: (between streams) and ``2**134`` steps (between draws), to pass to :func:`multMatVect`
A1p72, A2p72 = _jump_array(SUBSTREAM_LOG2, 0), _jump_array(SUBSTREAM_LOG2, 1)
A1p134, A2p134 = _jump_array(STREAM_LOG2, 0), _jump_array(STREAM_LOG2, 1)
#: the masks and multiplier of the shift-and-add step, and the float64 output scale
MASK12, MASK13, MASK2, MULT2 = (np.int32(v) for v in (511, 16777215, 65535, 21069))
NORM = 2.0**-31
#: the shift counts of the step as int32 scalars
np_int32_vals = [np.int32(v) for v in (0, 7, 9, 15, 16, 22, 24)]


def matVecModM(A: Any, s: Any, m: int) -> np.ndarray:  # noqa: N802 - Theano's name
    """``A @ s mod m`` for a 3x3 integer matrix and a 3-vector, exactly (int32 result)."""
    a = np.asarray(A, dtype=np.int64)
    x = np.asarray(s, dtype=np.int64)
    if a.shape != (3, 3) or x.shape != (3,):
        raise ValueError(f"matVecModM: expected a 3x3 matrix and a 3-vector, got shapes "
                         f"{a.shape} and {x.shape}")
    rows = [sum(int(a[i, j]) * int(x[j]) for j in range(3)) % int(m) for i in range(3)]
    return np.asarray(rows, dtype=np.int32)


def _dot_truncated(A: Any, s: Any, m: int) -> np.ndarray:  # noqa: N803
    """``A @ s`` reduced as Theano's compiled ``DotModulo`` reduces it: C's ``%`` (the sign of
    the dividend) on each product and on their sum. For non-negative ``s`` it is
    :func:`matVecModM`; a negative word of a state gives a negative result, as in Theano."""
    a = np.asarray(A, dtype=np.int64)
    x = np.asarray(s, dtype=np.int64)
    if a.shape != (3, 3) or x.shape != (3,):
        raise ValueError(f"DotModulo: expected a 3x3 matrix and a 3-vector, got shapes "
                         f"{a.shape} and {x.shape}")
    m = int(m)

    def trunc(v: int) -> int:
        r = abs(v) % m
        return -r if v < 0 else r

    rows = [trunc(sum(trunc(int(a[i, j]) * int(x[j])) for j in range(3))) for i in range(3)]
    return np.asarray(rows, dtype=np.int64).astype(np.int32)


def multMatVect(v: Any, A: Any, m1: int, B: Any, m2: int) -> np.ndarray:  # noqa: N802
    """The first half of the 6-vector ``v`` times ``A`` modulo ``m1``, the second half times
    ``B`` modulo ``m2`` (int32), reduced as Theano's ``DotModulo`` op reduces (negative words
    give negative results)."""
    v = np.asarray(v)
    if v.shape != (6,):
        raise ValueError(f"multMatVect: v must be a state of 6 integers, got shape {v.shape}")
    return np.concatenate([_dot_truncated(A, v[:3], m1), _dot_truncated(B, v[3:], m2)])


def _jumped(rstate: Any, log2_steps: int) -> np.ndarray:
    state = np.asarray(rstate)
    if state.shape[-1:] != (6,):
        raise ValueError(f"an MRG31k3p state has 6 integers, got shape {state.shape}")
    return mrg31k3p.jump(state, log2_steps).reshape(state.shape)


def ff_2p134(rstate: Any) -> np.ndarray:
    """The state ``2**134`` steps after ``rstate`` (the distance between two draws)."""
    return _jumped(rstate, STREAM_LOG2)


def ff_2p72(rstate: Any) -> np.ndarray:
    """The state ``2**72`` steps after ``rstate`` (the distance between two streams)."""
    return _jumped(rstate, SUBSTREAM_LOG2)


def mrg_next_value(rstate: np.ndarray, new_rstate: np.ndarray, NORM: Any, mask: int,  # noqa: N803
                   offset: int) -> np.float64:
    """One generator step: writes the next state of the int32 6-vector ``rstate`` into
    ``new_rstate`` and returns ``((z & mask) + offset) * NORM`` for the output ``z`` in
    ``[1, m1]`` (``mask=-1, offset=0, NORM=2**-31`` gives the uniform number in (0, 1))."""
    if np.asarray(rstate).dtype != np.int32:
        raise TypeError(f"mrg_next_value: rstate must hold int32 values, got "
                        f"{np.asarray(rstate).dtype}")
    columns = np.asarray(rstate, dtype=np.int32).reshape(6, 1).copy()
    z = int(mrg31k3p.step_int32(columns)[0])  # Theano's int32 arithmetic, for any words
    new_rstate[...] = columns[:, 0]
    return np.float64((z & mask) + offset) * NORM


class DotModulo(Op):
    """``(A @ s mod m, A2 @ s2 mod m2)`` as one int32 6-vector: a jump of an MRG31k3p state
    by the jump matrices ``A`` and ``A2`` (int64), computed without overflow (reduced as C's
    ``%``, see :func:`_dot_truncated`)."""

    __props__ = ()

    def make_node(self, A: Any, s: Any, m: Any, A2: Any, s2: Any, m2: Any) -> Apply:  # noqa: N803
        inputs = [as_tensor_variable(v) for v in (A, s, m, A2, s2, m2)]
        for name, var, ndim in zip(("A", "s", "m", "A2", "s2", "m2"), inputs,
                                   (2, 1, 0, 2, 1, 0)):
            if var.ndim != ndim or not var.dtype.startswith(("int", "uint")):
                raise TypeError(f"DotModulo: {name} must be an integer tensor with {ndim} "
                                f"dimension(s), got {var.type}")
        return Apply(self, inputs, [TensorType("int32", (False,))()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        A, s, m, A2, s2, m2 = inputs  # noqa: N806
        output_storage[0][0] = np.concatenate([_dot_truncated(A, s, int(m)),
                                               _dot_truncated(A2, s2, int(m2))])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence) -> list:
        return [(input_shapes[0][0] + input_shapes[3][0],)]

    def grad(self, inputs: Sequence[Any], output_grads: Sequence[Any]) -> list:
        return [None] * 6  # integer inputs: no gradient flows


__all__ = ["A1p134", "A1p72", "A2p134", "A2p72", "DotModulo", "M1", "M2", "MASK12", "MASK13",
           "MASK2", "MULT2", "NORM", "ff_2p134", "ff_2p72", "matVecModM", "mrg_next_value",
           "multMatVect", "np_int32_vals"]
