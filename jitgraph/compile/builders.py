"""``OpFromGraph``: a graph packaged as an op (Theano's ``theano.compile.builders``).

The op owns a FunctionGraph of its own (``op.fgraph``; ``local_inputs``/``local_outputs`` are its
inputs and outputs). Applying the op gives one node in the outer graph; its ``perform`` runs the
inner graph, compiled once per mode with ``jitgraph.function``: the mode passed as ``mode=`` to
the constructor, else the mode that compiled the outer graph (so DebugMode, NanGuardMode and
FAST_COMPILE reach the inner graph), else the default mode. With ``inline=True`` the rewrite
``inline_ofg_expansion`` (in ``optdb`` at position -0.01, tags fast_compile and fast_run) replaces
each node by a copy of the inner graph, which the outer graph's rewrites then see.

Shared variables used by the inner graph become implicit inputs: each node takes the explicit
inputs followed by those shared variables (``op.shared_inputs``), and the inner graph reads a
placeholder for each. The gradient (``L_op``), ``R_op`` and ``infer_shape`` come from the inner
graph; gradients and R_op may be overridden (see :class:`OpFromGraph`). Ops without ``__props__``
compare by identity, so two OpFromGraph objects built from the same graph are different ops,
as in Theano.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from jitgraph.compile.builders_grad import GradientBuilder, RopBuilder, check_override
from jitgraph.compile.function import function
from jitgraph.compile.mode import COMPILE_MODE_TAG
from jitgraph.graph.analysis import io_connection_pattern
from jitgraph.graph.basic import (
    Apply,
    Constant,
    Variable,
    clone_get_equiv,
    clone_replace,
    graph_inputs,
)
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.op import Op, _as_input
from jitgraph.graph.shared import SharedVariable
from jitgraph.rewrite.engine import WalkingGraphRewriter, node_rewriter
from jitgraph.tensor.rewriting.shape import ShapeFeature


def _shared_variable_class() -> type:
    return SharedVariable


class OpFromGraph(Op):
    """An op computing ``outputs`` from ``inputs`` (lists of variables), usable like any op.

    ``inline``: expand the inner graph into the outer one at rewrite time (better run time,
    longer compile) instead of running a compiled inner function.

    ``grad_overrides`` (``callable(inputs, output_grads)``), ``lop_overrides``
    (``callable(inputs, outputs, output_grads)``, exclusive with ``grad_overrides``) and
    ``rop_overrides`` (``callable(inputs, eval_points)``) replace the gradient or R-op derived
    from the inner graph. Each is ``'default'``, such a callable, an OpFromGraph taking the same
    arguments (concatenated), or a list with one entry per input (per output for
    ``rop_overrides``) of ``'default'``, a callable returning one variable, an OpFromGraph, or a
    variable of ``NullType`` (not differentiable) or ``DisconnectedType`` (no dependence). The
    callables are called once, on the inner graph's variables (the explicit inputs, not the
    shared variables, whose gradients always come from the inner graph).

    ``connection_pattern`` (``[input][output]`` booleans) replaces the one derived from the
    inner graph; ``name`` is shown instead of ``OpFromGraph`` when printing. Other keywords
    (``mode``, ``profile``, ``on_unused_input``...) are passed to ``jitgraph.function`` when
    the inner graph is compiled.
    """

    #: two OpFromGraph objects are different ops, even when built from equal graphs (Theano)
    compare_by_identity = True

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 inline: bool = False, lop_overrides: Any = "default",
                 grad_overrides: Any = "default", rop_overrides: Any = "default",
                 connection_pattern: Sequence[Sequence[bool]] | None = None,
                 name: str | None = None, **kwargs: Any) -> None:
        _check_arguments(inputs, outputs, kwargs)
        if not (_is_default(lop_overrides) or _is_default(grad_overrides)):
            raise ValueError("lop_overrides and grad_overrides are mutually exclusive; give "
                             "one of them")
        for label, value in (("lop_overrides", lop_overrides),
                             ("grad_overrides", grad_overrides),
                             ("rop_overrides", rop_overrides)):
            check_override(label, value, len(outputs) if label == "rop_overrides"
                           else len(inputs))
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.is_inline = bool(inline)
        self.name = name
        self.kwargs = dict(kwargs)
        self.lop_overrides = lop_overrides
        self.grad_overrides = grad_overrides
        self.rop_overrides = rop_overrides
        self._connection_pattern = (None if connection_pattern is None
                                    else [list(map(bool, row)) for row in connection_pattern])
        self.shared_inputs = _shared_inputs_of(inputs, outputs)
        self.fgraph = _inner_graph(self.inputs, self.outputs, self.shared_inputs)
        self.input_types = [v.type for v in self.inputs]
        self.output_types = [v.type for v in self.outputs]
        self._reset_caches()

    def _reset_caches(self) -> None:
        # Mutable holders made at construction: the op itself is frozen after __init__.
        object.__setattr__(self, "_compiled", {})  # mode key -> Function
        object.__setattr__(self, "_derived", {})  # "lop" / "rop" -> builder

    # -- the inner graph ----------------------------------------------------------------------
    @property
    def local_inputs(self) -> list[Variable]:
        """The inner graph's inputs: the explicit inputs, then one per shared variable."""
        return self.fgraph.inputs

    @property
    def local_outputs(self) -> list[Variable]:
        return self.fgraph.outputs

    def __str__(self) -> str:
        return f"{self.name or type(self).__name__}{{inline={self.is_inline}}}"

    __repr__ = __str__

    # -- building -----------------------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != len(self.input_types):
            raise ValueError(f"{self} expects {len(self.input_types)} inputs, got {len(inputs)}")
        variables = [_as_input(self, k, value, t) for k, (value, t)
                     in enumerate(zip(inputs, self.input_types))]
        return Apply(self, variables + list(self.shared_inputs),
                     [t.make_variable() for t in self.output_types])

    # -- evaluation ---------------------------------------------------------------------------
    #: Mode.rewrite records on this op's nodes the mode that compiled the outer graph
    compiles_inner_graph = True

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        fn = self.inner_function(getattr(node.tag, COMPILE_MODE_TAG, None))
        for cell, value in zip(output_storage, fn(*inputs)):
            cell[0] = value

    def inner_function(self, outer_mode: Any = None) -> Any:
        """The inner graph compiled (once per mode) by ``jitgraph.function``: with the
        ``mode`` given to the constructor, else ``outer_mode``, else the default mode."""
        mode = self.kwargs.get("mode", outer_mode)
        key = id(mode)
        entry = self._compiled.get(key)
        if entry is None or entry[0] is not mode:
            options = {k: v for k, v in self.kwargs.items() if k != "mode"}
            options.setdefault("on_unused_input", "ignore")
            options.setdefault("name", str(self))
            fn = function(self.local_inputs, list(self.local_outputs), mode=mode, **options)
            entry = self._compiled[key] = (mode, fn)
        return entry[1]

    @property
    def fn(self) -> Any:
        """The inner function compiled with the constructor's (or the default) mode."""
        return self.inner_function(None)

    # -- differentiation ----------------------------------------------------------------------
    def _builder(self, kind: str) -> Any:
        builder = self._derived.get(kind)
        if builder is None:
            if kind == "lop":
                builder = GradientBuilder(self)
            else:
                builder = RopBuilder(self)
            self._derived[kind] = builder
        return builder

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        """The gradient of each input (explicit, then shared) from the inner graph, or from
        the overrides."""
        return self._builder("lop").apply(inputs, outputs, output_grads)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        outputs = self(*inputs[:len(self.input_types)], return_list=True)
        return self.L_op(inputs, outputs, output_grads)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        """The R-operator of each output from the inner graph (``jitgraph.gradient.Rop``), or
        from ``rop_overrides``."""
        return self._builder("rop").apply(inputs, eval_points)

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        if self._connection_pattern is not None:
            return [list(row) for row in self._connection_pattern]

        pattern = io_connection_pattern(self.local_inputs, self.local_outputs)
        for i in self._builder("lop").disconnected_inputs():
            pattern[i] = [False] * len(self.local_outputs)
        return pattern

    # -- shapes -------------------------------------------------------------------------------
    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple | None]:
        """The output shapes from the inner graph's shapes, in terms of the node's inputs."""
        feature = ShapeFeature()
        replace: dict[Variable, Any] = dict(zip(self.local_inputs, node.inputs))
        for inner, outer_shape in zip(self.local_inputs, input_shapes):
            inner_shape = feature.get_shape(inner)
            if inner_shape is None or outer_shape is None:
                continue
            for dim, outer_dim in zip(inner_shape, outer_shape):
                if dim.owner is not None and isinstance(outer_dim, Variable):
                    replace[dim] = outer_dim
        shapes = [feature.get_shape(out) for out in self.local_outputs]
        flat = [d for s in shapes if s is not None for d in s]
        flat = clone_replace(flat, replace) if flat else []
        result: list[tuple | None] = []
        it = iter(flat)
        for s in shapes:
            result.append(None if s is None else tuple(next(it) for _ in s))
        return result

    # -- pickling -----------------------------------------------------------------------------
    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items()
                if k not in ("_compiled", "_derived", "_frozen", "_hash")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._reset_caches()


# ---------------------------------------------------------------------------------------------
# Construction helpers

def _is_default(value: Any) -> bool:
    return isinstance(value, str) and value == "default"


def _check_arguments(inputs: Any, outputs: Any, kwargs: dict) -> None:
    for label, value in (("inputs", inputs), ("outputs", outputs)):
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"OpFromGraph {label} must be a list of variables, got "
                            f"{type(value).__name__}")
        for k, var in enumerate(value):
            if not isinstance(var, Variable):
                raise TypeError(f"OpFromGraph {label}[{k}] must be a variable, got "
                                f"{type(var).__name__}")
    if "updates" in kwargs or "givens" in kwargs:
        raise TypeError("OpFromGraph does not take updates or givens")
    if len(set(inputs)) != len(inputs):
        raise ValueError("OpFromGraph inputs must be distinct variables")
    for k, var in enumerate(inputs):
        if isinstance(var, Constant):
            raise TypeError(f"OpFromGraph inputs[{k}] is a constant; constants cannot be "
                            "inputs (use them inside the graph instead)")


def _shared_inputs_of(inputs: Sequence[Variable], outputs: Sequence[Variable]) -> list:
    shared_cls = _shared_variable_class()
    explicit = set(inputs)
    found = []
    for var in graph_inputs(outputs, blockers=inputs):
        if var in explicit or isinstance(var, Constant):
            continue
        if isinstance(var, shared_cls):
            found.append(var)
            continue
        raise ValueError(f"the OpFromGraph outputs depend on {var} ({var.type}), which is "
                         "neither one of its inputs nor a shared variable; add it to the inputs")
    return found


def _inner_graph(inputs: list[Variable], outputs: list[Variable], shared: list) -> FunctionGraph:
    """The inner FunctionGraph: a copy of the graph between ``inputs`` and ``outputs``, cut at
    the inputs (which may be intermediate variables), with a placeholder for each shared
    variable."""
    memo: dict = {var: var.type.make_variable(var.name) for var in [*inputs, *shared]}
    equiv = clone_get_equiv(list(inputs), list(outputs), copy_inputs=True, memo=memo)
    local_inputs = [equiv[v] for v in inputs] + [memo[v] for v in shared]
    return FunctionGraph(local_inputs, [equiv[v] for v in outputs], clone=False)


# ---------------------------------------------------------------------------------------------
# Inlining

def _inline_ofg(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """An inline OpFromGraph node -> a copy of its inner graph on the node's inputs."""
    op = node.op
    if not isinstance(op, OpFromGraph) or not op.is_inline:
        return None
    replace = dict(zip(op.local_inputs, node.inputs))
    outputs = clone_replace(list(op.local_outputs), replace)
    return [out if out.type == old.type else old.type.convert_variable(out)
            for out, old in zip(outputs, node.outputs)]


def _register_inline_rewrite() -> Callable:
    from jitgraph.rewrite.phases import optdb

    rewriter = node_rewriter([OpFromGraph], name="inline_ofg_expansion")(_inline_ofg)
    rewriter.__doc__ = "Replace each inline OpFromGraph node by a copy of its inner graph."
    if "inline_ofg_expansion" not in optdb:
        walker = WalkingGraphRewriter(rewriter, "in_to_out", ignore_newtrees=False,
                                      name="inline_ofg_expansion")
        optdb.register("inline_ofg_expansion", walker, "fast_compile", "fast_run",
                       position=-0.01)
    return rewriter


#: the node rewriter (Theano's ``theano.compile.builders.inline_ofg_expansion``)
inline_ofg_expansion = _register_inline_rewrite()

__all__ = ["OpFromGraph", "inline_ofg_expansion"]
