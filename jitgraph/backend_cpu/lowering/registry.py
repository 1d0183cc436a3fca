"""The lowering registry: op type -> a function that lowers one node, or None.

A lowering receives the op, the Apply node and the :class:`~.driver.BuildContext`, and returns a
:class:`Lowered` (source lines the program driver runs for that node, and the kernel keys it
uses) or None when it cannot handle this node (an unsupported dtype, say): the node then runs its
``perform``. Lowerings are looked up along the op class's MRO (``functools.singledispatch``), so a
subclass inherits its parent's lowering unless it registers its own.

Adding an op: write ``lower_<family>.py`` with ``@register_lowering(MyOp)`` and import it from
:func:`load_lowerings`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable

from jitgraph.backend_cpu.runtime.program import BLAS, NUMBA, PY  # noqa: F401 - the thunk kinds


@dataclass
class Lowered:
    """One node's contribution to the program driver.

    ``emit(nc)`` returns source lines (no indentation) that read the inputs through
    ``nc.inp(j)`` and store every output with ``nc.set_out(k, expr)``. ``registered`` is False
    only for the generic ``perform`` fallback (what the ``c`` linker refuses).
    """

    kind: str
    emit: Callable[[Any], list[str]]
    registered: bool = True
    kernel_keys: tuple = ()
    #: precomputed at link time (constant inputs): value of each output, or None
    constant_outputs: list | None = None
    notes: dict = field(default_factory=dict)


@functools.singledispatch
def lower(op: Any, node: Any, ctx: Any) -> Lowered | None:
    """Lower ``node`` (whose op is ``op``); None when no lowering applies."""
    return None


def register_lowering(*op_types: type) -> Callable:
    """Decorator registering ``fn(op, node, ctx) -> Lowered | None`` for ``op_types``."""

    def deco(fn: Callable) -> Callable:
        for cls in op_types:
            lower.register(cls)(fn)
        return fn

    return deco


def has_lowering(op: Any) -> bool:
    return lower.dispatch(type(op)) is not lower.dispatch(object)


_loaded = False


def load_lowerings() -> None:
    """Import every ``lower_*`` module once (each registers its lowerings)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    from jitgraph.backend_cpu.lowering import (blas as lower_blas, conv as lower_conv,
                                               elemwise as lower_elemwise, nnet as lower_nnet,
                                               pool as lower_pool, reduce as lower_reduce,
                                               views as lower_views)  # noqa: F401
    from jitgraph.backend_cpu.lowering import random as lower_random  # noqa: F401
    from jitgraph.backend_cpu.lowering import ifelse as lower_ifelse  # noqa: F401
    from jitgraph.backend_cpu.lowering import scan as lower_scan  # noqa: F401
    from jitgraph.backend_cpu.lowering import extra_ops as lower_extra_ops  # noqa: F401
    from jitgraph.backend_cpu.lowering import linalg as lower_linalg  # noqa: F401
    from jitgraph.backend_cpu.lowering import sparse as lower_sparse  # noqa: F401


def registered_op_types() -> list[type]:
    """Every op class with a lowering (for documentation and tests)."""
    load_lowerings()
    return [cls for cls in lower.registry if cls is not object]
