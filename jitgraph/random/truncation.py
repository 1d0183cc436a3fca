"""The packing step of MRG's truncated normal: samples outside [-2, 2] are redrawn.

``normal(..., truncate=True)`` draws ``z0 = r cos(theta)`` and ``z1 = r sin(theta)`` by
Box-Muller; every sample outside [-2, 2] gets a new radius ``r_fix`` (drawn from a uniform
number in [e**-2, 1), so that it lands inside) with its old angle. The result is, in order:
the valid ``z0``, the redrawn ``z0``, the valid ``z1``, the redrawn ``z1`` (Theano's order, so
that the numbers are Theano's). :class:`TruncatedPack` does that packing in one op.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor import gt, lt, or_
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.gradient import grad_undefined
from jitgraph.tensor.core.type import TensorType

#: the truncation bound of MRG's truncated normal (in standard deviations)
BOUND = 2.0


def outside(z: Any) -> Variable:
    """The symbolic mask of samples outside [-BOUND, BOUND]."""
    return or_(lt(z, -BOUND), gt(z, BOUND))


class TruncatedPack(Op):
    """``(z0, z1, cos_theta, sin_theta, r_fix)`` -> the packed vector described above."""

    __props__ = ()

    def make_node(self, z0: Any, z1: Any, cos_theta: Any, sin_theta: Any, r_fix: Any) -> Apply:
        args = [as_tensor_variable(v) for v in (z0, z1, cos_theta, sin_theta, r_fix)]
        dtype = args[0].dtype
        for v in args:
            if v.ndim != 1 or v.dtype != dtype:
                raise TypeError(f"TruncatedPack takes vectors of one dtype, got {v.type}")
        return Apply(self, args, [TensorType(dtype, (False,))()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        z0, z1, cos_theta, sin_theta, r_fix = inputs
        bad0 = (z0 < -BOUND) | (z0 > BOUND)
        bad1 = (z1 < -BOUND) | (z1 > BOUND)
        n0 = int(bad0.sum())
        if r_fix.shape[0] != n0 + int(bad1.sum()):
            raise ValueError(f"TruncatedPack: {r_fix.shape[0]} new radii for "
                             f"{n0 + int(bad1.sum())} samples outside [-2, 2]")
        dtype = node.outputs[0].dtype
        parts = [z0[~bad0], r_fix[:n0] * cos_theta[bad0], z1[~bad1], r_fix[n0:] * sin_theta[bad1]]
        output_storage[0][0] = np.concatenate(parts).astype(dtype, copy=False)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence) -> list:
        return [(input_shapes[0][0] + input_shapes[1][0],)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [grad_undefined(self, k, v, "truncation selects samples by value")
                for k, v in enumerate(inputs)]


truncated_pack = TruncatedPack()
