"""``mrg_uniform``: the op drawing MRG31k3p uniform numbers from a matrix of stream states.

``mrg_uniform(rstate, size)`` returns ``(new_rstate, sample)``: ``rstate`` is an (n_streams, 6)
int32 matrix (one MRG31k3p state per row, see :mod:`.mrg31k3p`), ``size`` an integer vector.
Element ``i`` of the flattened sample comes from stream ``i % n_streams``. ``MRG_RandomStreams``
keeps ``rstate`` in a shared variable whose ``default_update`` is ``new_rstate``; the in-place
variant (put in by a rewrite when the old state is not needed any more) advances the states in
the input buffer instead of a copy.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.random import mrg31k3p
from jitgraph.tensor.core.basic import get_vector_length
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType

FLOAT_DTYPES = ("float16", "float32", "float64")


def check_state_matrix(rstate: np.ndarray) -> None:
    """Raise a clear error unless ``rstate`` is an (n, 6) int32 matrix of MRG31k3p states."""
    if not isinstance(rstate, np.ndarray) or rstate.dtype != np.int32 or rstate.ndim != 2 \
            or rstate.shape[1] != 6 or rstate.shape[0] < 1:
        shape = getattr(rstate, "shape", None)
        raise ValueError(f"mrg_uniform: the state must be an (n_streams, 6) int32 matrix, got "
                         f"{type(rstate).__name__} of shape {shape}")


def sample_count(size: np.ndarray) -> int:
    """The number of samples of ``size``, checked (no negative dimension; a size computed in
    the graph may be 0, e.g. the redrawn samples of a truncated normal)."""
    dims = [int(d) for d in np.asarray(size).reshape(-1)]
    if any(d < 0 for d in dims):
        raise ValueError(f"mrg_uniform: a dimension of the size is negative: {tuple(dims)}")
    return int(np.prod(dims, dtype=np.int64))


class MRGUniform(Op):
    """``(new_rstate, sample)`` from ``(rstate, size)``; ``sample`` has ``dtype`` and the
    ``broadcastable`` pattern (hence ndim) given to the op."""

    __props__ = ("dtype", "broadcastable", "inplace")

    def __init__(self, dtype: Any, broadcastable: Any = None, inplace: bool = False) -> None:
        if isinstance(dtype, TensorType):  # Theano's signature: (output_type, inplace=False)
            if broadcastable is not None:
                inplace = broadcastable
            dtype, broadcastable = dtype.dtype, dtype.broadcastable
        if broadcastable is None:
            raise TypeError("MRGUniform needs the broadcastable pattern of its sample (or a "
                            "TensorType as its first argument)")
        if dtype not in FLOAT_DTYPES:
            raise TypeError(f"MRG_RandomStreams draws float16, float32 or float64 numbers; "
                            f"dtype {dtype!r} is not one of them")
        self.dtype = dtype
        self.broadcastable = tuple(bool(b) for b in broadcastable)
        self.inplace = bool(inplace)
        self.destroy_map = {0: [0]} if inplace else {}

    @property
    def output_type(self) -> TensorType:
        return TensorType(self.dtype, self.broadcastable)

    def __str__(self) -> str:
        return f"mrg_uniform{{{self.output_type},{'inplace' if self.inplace else 'no_inplace'}}}"

    __repr__ = __str__

    def make_node(self, rstate: Any, size: Any) -> Apply:
        rstate = as_tensor_variable(rstate)
        size = as_tensor_variable(size)
        if rstate.dtype != "int32" or rstate.ndim != 2:
            raise TypeError(f"mrg_uniform: rstate must be an int32 matrix, got {rstate.type}")
        if size.ndim != 1 or size.dtype[:3] not in ("int", "uin"):
            raise TypeError(f"mrg_uniform: size must be an integer vector, got {size.type}")
        return Apply(self, [rstate, size], [rstate.type(), self.output_type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        rstate, size = inputs
        check_state_matrix(rstate)
        if len(size) != len(self.broadcastable):
            raise ValueError(f"{self}: size {tuple(size)} has {len(size)} dimensions, the sample "
                             f"has {len(self.broadcastable)}")
        n = sample_count(size)
        sample, new_state = mrg31k3p.uniform_sample(rstate, n, self.dtype)
        if self.inplace:
            rstate[...] = new_state
            new_state = rstate
        output_storage[0][0] = new_state
        output_storage[1][0] = sample.reshape(tuple(int(d) for d in size))

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence) -> list:
        size = node.inputs[1]
        return [input_shapes[0], tuple(size[i] for i in range(len(self.broadcastable)))]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True, True], [False, True]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        # both inputs are integers: nothing flows back through them
        return [None, None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        return [None, None]

    def with_inplace(self) -> "MRGUniform":
        return MRGUniform(self.dtype, self.broadcastable, inplace=True)

    @classmethod
    def new(cls, rstate: Any, ndim: int | None, dtype: str, size: Any
            ) -> tuple[Variable, Variable]:
        """Theano's ``mrg_uniform.new(rstate, ndim, dtype, size)``: ``(new_rstate, sample)``."""
        return mrg_uniform(rstate, size, dtype, ndim=ndim)


def mrg_uniform(rstate: Any, size: Any, dtype: str, ndim: int | None = None,
                broadcastable: Sequence[bool] | None = None) -> tuple[Variable, Variable]:
    """``(new_rstate, sample)``: ``prod(size)`` uniform draws in (0, 1) shaped ``size``."""
    size = as_tensor_variable(size)
    if broadcastable is None:
        broadcastable = (False,) * (ndim if ndim is not None else get_vector_length(size))
    new_rstate, sample = MRGUniform(dtype, broadcastable)(rstate, size)
    return new_rstate, sample
