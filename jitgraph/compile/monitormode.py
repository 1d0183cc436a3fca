"""MonitorMode: call user functions before and after every node, on the compiled program.

``MonitorMode(pre_func, post_func)`` compiles like the default mode (same rewrites, same linker:
Numba kernels where they exist) and runs the nodes one by one, calling
``pre_func(i, node, fn)`` before node ``i`` and ``post_func(i, node, fn)`` after it. As in Theano,
``fn.inputs`` and ``fn.outputs`` are the node's storage cells (one-element lists), so
``fn.outputs[0][0]`` is the value just computed; ``fn()`` runs the node again.

Intermediate values are kept for the whole call (the linker runs without garbage collection),
so ``post_func`` can read every input of the node it follows. A classic use, finding the first
node that makes a NaN::

    def detect_nan(i, node, fn):
        for out in fn.outputs:
            if np.isnan(out[0]).any():
                print("*** NaN detected ***", node, [x[0] for x in fn.inputs])
                raise SystemExit

    f = function([x], y, mode=MonitorMode(post_func=detect_nan))

:class:`WrapLinker` (a linker whose programs get per-node hooks) is shared with NanGuardMode.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from jitgraph.compile.linker import Linker, Program, get_linker
from jitgraph.compile.mode import Mode
from jitgraph.config import config
from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph


class WrapLinker(Linker):
    """Builds ``base``'s program, then lets ``install(program)`` set its hooks
    (``before_run``, ``pre_node``, ``post_node``) and make ``run`` the per-node loop."""

    def __init__(self, base: Linker, install: Callable[[Program], None], suffix: str) -> None:
        super().__init__(None)
        self.base = base
        self.install = install
        self.name = f"{base.name}+{suffix}"
        self.compiled = base.compiled

    @property
    def allow_gc(self) -> bool:
        return self.base.allow_gc

    def make_program(self, fgraph: FunctionGraph, order: Any = None) -> Program:
        program = self.base.make_program(fgraph, order)
        self.install(program)
        program.run = program.run_nodes  # type: ignore[method-assign]
        return program


def base_linker(linker: Any, allow_gc: bool | None = None) -> Linker:
    """The linker ``linker`` names (None: the ``linker`` flag), with ``allow_gc`` forced when
    given (a copy, so the named linker is unchanged)."""
    base = get_linker(config.linker if linker is None else linker)
    if allow_gc is not None and base.allow_gc != allow_gc:
        base = copy.copy(base)
        base._allow_gc = allow_gc
    return base


class NodeFunction:
    """What the monitor functions receive as ``fn``: the node's thunk and its storage cells."""

    __slots__ = ("thunk", "inputs", "outputs", "node", "kind")

    def __init__(self, thunk: Callable[[], None], node: Apply, storage: dict, kind: str
                 ) -> None:
        self.thunk = thunk
        self.node = node
        self.inputs = [storage[v] for v in node.inputs]
        self.outputs = [storage[v] for v in node.outputs]
        self.kind = kind  # "Numba", "CUDA", "BLAS" or "Py"

    def __call__(self) -> None:
        self.thunk()

    def __repr__(self) -> str:
        return f"<NodeFunction {self.kind} {self.node}>"


class MonitorMode(Mode):
    """A mode calling ``pre_func(i, node, fn)`` / ``post_func(i, node, fn)`` around each node.

    ``optimizer`` and ``linker`` are those of :class:`Mode` (default: the flags).
    """

    def __init__(self, pre_func: Callable[[int, Apply, NodeFunction], Any] | None = None,
                 post_func: Callable[[int, Apply, NodeFunction], Any] | None = None,
                 optimizer: Any = "default", linker: Any = None) -> None:
        super().__init__("py", optimizer, name="MonitorMode")
        self.pre_func = pre_func
        self.post_func = post_func
        self.linker = WrapLinker(base_linker(linker, allow_gc=False), self._install, "monitor")

    def _install(self, program: Program) -> None:
        fns = [NodeFunction(thunk, node, program.storage, kind)
               for thunk, node, kind in zip(program.thunks, program.order, program.kinds)]
        pre, post = self.pre_func, self.post_func
        if pre is not None:
            program.pre_node = lambda i, node, thunk: pre(i, node, fns[i])
        if post is not None:
            program.post_node = lambda i, node, thunk: post(i, node, fns[i])

    def eval(self, i: int, node: Apply, fn: NodeFunction) -> None:
        """Run node ``i`` between the two monitor functions (Theano's ``MonitorMode.eval``)."""
        if self.pre_func is not None:
            self.pre_func(i, node, fn)
        fn()
        if self.post_func is not None:
            self.post_func(i, node, fn)

    def _clone(self, **changes: Any) -> "MonitorMode":
        new = super()._clone(**changes)
        # The hooks read pre_func/post_func from the mode that installs them.
        new.linker = WrapLinker(self.linker.base, new._install, "monitor")
        return new

    def __str__(self) -> str:
        return (f"MonitorMode(linker={self.linker.base.name}, optimizer={self.optimizer}, "
                f"pre_func={getattr(self.pre_func, '__name__', self.pre_func)}, "
                f"post_func={getattr(self.post_func, '__name__', self.post_func)})")

    __repr__ = __str__


__all__ = ["MonitorMode", "NodeFunction", "WrapLinker", "base_linker"]
