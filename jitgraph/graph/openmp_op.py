"""``OpenMPOp``: base class of ops that may run in parallel when the ``openmp`` flag is on
(Theano's ``theano.gof.OpenMPOp``).

Theano compiled such ops with ``-fopenmp`` after checking that g++ supported it. jitgraph's
parallelism is its own thread pool (``openmp=True``, see ``jitgraph.backend_cpu.runtime.parallel``),
always available; an op deriving from this class finds the setting in ``self.openmp`` (taken
from the flag when the op is created, unless given) and may use it in its ``perform`` or its
lowering.
"""

from __future__ import annotations

from jitgraph.config import config
from jitgraph.graph.op import Op


class OpenMPOp(Op):
    """An op with an ``openmp`` attribute: whether it may use several threads."""

    def __init__(self, openmp: bool | None = None) -> None:
        if openmp is None:
            openmp = bool(config.openmp)
        self.openmp = bool(openmp)

    @staticmethod
    def test_gxx_support() -> bool:
        """Whether parallel execution is available: always (no compiler support needed)."""
        return True

    def update_self_openmp(self) -> None:
        """Theano turned ``openmp`` off when g++ lacked OpenMP; nothing can be missing here."""


__all__ = ["OpenMPOp"]
