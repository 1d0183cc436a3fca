"""Linear algebra (``nlinalg``, ``slinalg``, diagonals) and FFT ops: NumPy's LAPACK (or SciPy,
or ``numpy.fft``) called from the driver ("Py" thunks running the op's ``perform``).

Choice: LAPACK does the work; a Numba kernel around it would only add compile time. Calling
``numpy.linalg.inv`` straight from the generated driver instead of through ``perform`` was
measured (4x4 inverse, ~9 µs a call on this machine): no difference beyond the noise (< 1 µs),
so every op runs its ``perform`` (which also casts to the declared dtype), registered here so
that the ``c`` linker accepts it.
"""

from __future__ import annotations

import inspect
from typing import Any

from jitgraph.backend_cpu.lowering.registry import Lowered, lower, register_lowering
from jitgraph.backend_cpu.runtime.driver import _perform_lowering
from jitgraph.graph.op import Op
from jitgraph.tensor.linalg import fft, nlinalg, slinalg
from jitgraph.tensor.shaping import diag_ops


def _perform(op: Any, node: Any, ctx: Any) -> Lowered:
    return _perform_lowering(node, registered=True)


def _register_all() -> list[type]:
    done = []
    for module in (diag_ops, nlinalg, slinalg, fft):
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (issubclass(cls, Op) and cls.__module__ == module.__name__
                    and cls not in lower.registry):
                register_lowering(cls)(_perform)
                done.append(cls)
    return done


#: the op classes registered here
LINALG_OPS = _register_all()
__all__ = ["LINALG_OPS"]
