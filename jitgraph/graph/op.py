"""The Op base class: an immutable, hashable operation with a NumPy reference ``perform``.

An op's parameters are listed in ``__props__``; equality and hashing use them, so two ops with
equal parameters are interchangeable (merging, kernel caches and rewrites rely on it).
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.graph.basic import Apply, Variable


class _OpMeta(type):
    """Freezes each op after ``__init__`` so that its hash cannot change under a cache."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        obj = super().__call__(*args, **kwargs)
        object.__setattr__(obj, "_frozen", True)
        return obj


class Op(metaclass=_OpMeta):
    """Base class of graph operations.

    Subclasses define ``make_node`` (the type rule), ``perform`` (the NumPy reference every
    backend is tested against), and where differentiable ``grad`` (or ``L_op``). ``infer_shape``
    lets rewrites compute output shapes without running the op.
    """

    __props__: tuple[str, ...] = ()
    #: output index -> list of input indices it overwrites
    destroy_map: dict[int, list[int]] = {}
    #: output index -> list of input indices it is a view of
    view_map: dict[int, list[int]] = {}
    default_output: int | None = None
    _frozen = False

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            raise AttributeError(f"{type(self).__name__} is immutable; build a new op instead")
        object.__setattr__(self, name, value)

    # -- identity -------------------------------------------------------------------------
    def _props(self) -> tuple:
        return tuple(getattr(self, p) for p in self.__props__)

    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other) and self._props() == other._props()

    def __hash__(self) -> int:
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((type(self), self._props()))
            object.__setattr__(self, "_hash", h)
        return h

    def __str__(self) -> str:
        if not self.__props__:
            return type(self).__name__
        params = ", ".join(f"{p}={getattr(self, p)!r}" for p in self.__props__)
        return f"{type(self).__name__}{{{params}}}"

    __repr__ = __str__

    def __reduce__(self) -> Any:
        return (_rebuild_op, (type(self), {k: v for k, v in self.__dict__.items()
                                           if k not in ("_frozen", "_hash")}))

    # -- building -------------------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        raise NotImplementedError(f"{type(self).__name__}.make_node")

    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        node = self.make_node(*inputs, **kwargs)
        from jitgraph.graph.test_value import compute_test_values

        compute_test_values(node)
        from jitgraph.graph.basic import creation_trace

        trace = creation_trace()
        for out in node.outputs:
            out.tag.trace = trace
        if self.default_output is not None:
            return node.outputs[self.default_output]
        return node.outputs[0] if len(node.outputs) == 1 else node.outputs

    # -- evaluation -----------------------------------------------------------------------
    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        """Compute the outputs with NumPy into ``output_storage[i][0]``."""
        raise NotImplementedError(f"{type(self).__name__} has no perform")

    def do_constant_folding(self, node: Apply) -> bool:
        return True

    # -- differentiation ------------------------------------------------------------------
    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        raise NotImplementedError(f"{type(self).__name__} has no gradient")

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        """Gradient with access to the forward outputs; defaults to :meth:`grad`."""
        return self.grad(inputs, output_grads)

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """``[i][j]`` is True when output ``j`` depends on input ``i``."""
        return [[True] * len(node.outputs) for _ in node.inputs]

    # -- shapes ---------------------------------------------------------------------------
    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        raise NotImplementedError(f"{type(self).__name__} has no infer_shape")


def _rebuild_op(cls: type, state: dict) -> Op:
    obj = cls.__new__(cls)
    for k, v in state.items():
        object.__setattr__(obj, k, v)
    object.__setattr__(obj, "_frozen", True)
    return obj
