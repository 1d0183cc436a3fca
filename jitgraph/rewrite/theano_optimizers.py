"""Theano's graph-optimizer classes (``theano.gof.opt``) on jitgraph's rewrite engine.

Code of Theano's era builds rewrites with these names -- ``TopoOptimizer(PatternSub(...))``,
``in2out(local_opt)``, ``EquilibriumOptimizer([...], max_use_ratio=...)``, ``MergeOptimizer()``
-- and subclasses ``Optimizer`` with an ``apply(self, fgraph)`` of one argument. Each class here
is the jitgraph rewriter doing the same thing, under Theano's name and constructor signature.
The differences with Theano: ``OpKeyOptimizer`` walks the graph from the inputs (Theano's
visited the nodes in the order its ``NodeFinder`` kept them); ``failure_callback`` is taken by
the walking optimizers only (elsewhere, and for Theano's own ``NavigatorOptimizer.warn*``, a
failing rewrite is reported or raised by the ``on_opt_error`` flag, as in every jitgraph phase).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Iterable

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.fg import FunctionGraph, InconsistencyError
from jitgraph.rewrite.context import RewriteContext, rewriter_name
from jitgraph.rewrite.db import RewriteDatabaseQuery
from jitgraph.rewrite.engine import (GraphRewriter, NodeRewriter, NodeRewriterGroup,
                                     SequentialGraphRewriter, WalkingGraphRewriter,
                                     normalize_replacements)
from jitgraph.rewrite.equilibrium import EquilibriumGraphRewriter
from jitgraph.rewrite.features import replace_validate
from jitgraph.rewrite.merge import MergeGraphRewriter
from jitgraph.rewrite.pattern import PatternNodeRewriter
from jitgraph.rewrite.validate_features import ReplaceValidate


def _report_failure(*args: Any) -> None:
    """Theano's ``NavigatorOptimizer.warn``, ``warn_inplace`` and ``warn_ignore``, accepted as a
    ``failure_callback``: jitgraph reports a failing rewrite by the on_opt_error flag."""


def _refuse_failure_callback(failure_callback: Any) -> None:
    if failure_callback is not None and failure_callback is not _report_failure:
        raise TypeError("failure_callback is not supported here: a rewrite that raises is "
                        "reported (or re-raised) according to the on_opt_error flag; "
                        "TopoOptimizer and OpKeyOptimizer take one")


class _ReportingRewriter(NodeRewriter):
    """``local_opt`` applied by itself, each failure handed to Theano's ``failure_callback``:
    ``callback(exc, navigator, pairs, local_opt, node)`` when the rewrite raises (``pairs`` are
    ``(output, None)``) or when the graph rejects its replacements (an InconsistencyError)."""

    def __init__(self, local_opt: NodeRewriter, callback: Callable, navigator: Any) -> None:
        super().__init__(rewriter_name(local_opt))
        self.local_opt, self.callback, self.navigator = local_opt, callback, navigator

    def tracks(self) -> Any:
        return self.local_opt.tracks()

    def applies_to(self, op: Any) -> bool:
        return self.local_opt.applies_to(op)

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        self.local_opt.add_requirements(fgraph)

    def transform(self, fgraph: FunctionGraph, node: Apply) -> None:
        try:
            result = self.local_opt.transform(fgraph, node)
            if not result:
                return None
            pairs = normalize_replacements(node, result)
        except Exception as exc:  # noqa: BLE001  (handed to the caller's callback)
            self.callback(exc, self.navigator, [(o, None) for o in node.outputs],
                          self.local_opt, node)
            return None
        if not replace_validate(fgraph, pairs, reason=self.local_opt):
            error = InconsistencyError(f"the replacements of {self.name} on {node} were "
                                       "rejected by a feature of the graph")
            self.callback(error, self.navigator, pairs, self.local_opt, node)
        return None  # applied (or refused) here already


class Optimizer(GraphRewriter):
    """Theano's base class of whole-graph optimizers.

    A subclass defines ``apply(self, fgraph)`` (Theano's one-argument form is accepted next to
    jitgraph's ``apply(self, fgraph, ctx)``) and makes its changes with ``fgraph.replace`` or
    ``fgraph.replace_validate``; ``optimize(fgraph)`` (or calling the optimizer) runs it.
    """

    name: str | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        apply = cls.__dict__.get("apply")
        if apply is not None and len(inspect.signature(apply).parameters) == 2:
            def apply_with_context(self: Any, fgraph: FunctionGraph,
                                   ctx: RewriteContext | None = None) -> Any:
                Optimizer.add_requirements(self, fgraph)  # if an override did not call it
                return apply(self, fgraph)
            apply_with_context.__doc__ = apply.__doc__
            cls.apply = apply_with_context  # type: ignore[method-assign]

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        """Gives the graph ``replace_validate``, which Theano 1.0 graphs always had; a subclass
        overriding this to attach its own features should call it too."""
        if not hasattr(fgraph, "replace_validate"):
            fgraph.attach_feature(ReplaceValidate())

    def __call__(self, fgraph: FunctionGraph) -> Any:
        """Theano's ``optimizer(fgraph)``: the same as ``optimize(fgraph)``."""
        return self.optimize(fgraph)

    def __str__(self) -> str:
        return self.name or type(self).__name__

    __repr__ = __str__


class SeqOptimizer(SequentialGraphRewriter):
    """Theano's ``SeqOptimizer(opt1, opt2, ...)`` (or a list): the optimizers one after the
    other."""

    def __init__(self, *optimizers: Any, failure_callback: Any = None) -> None:
        _refuse_failure_callback(failure_callback)
        if len(optimizers) == 1 and isinstance(optimizers[0], (list, tuple)):
            optimizers = tuple(optimizers[0])
        super().__init__(optimizers, name="SeqOptimizer")


class LocalOptGroup(NodeRewriterGroup):
    """Theano's ``LocalOptGroup(opt1, opt2, ...)``: node optimizers used as one (the first that
    proposes a change wins)."""

    def __init__(self, *optimizers: NodeRewriter, apply_all_opts: bool = False,
                 profile: bool = False) -> None:
        if apply_all_opts:
            raise TypeError("LocalOptGroup(apply_all_opts=True) is not supported: the group "
                            "applies the first member that proposes a change; use an "
                            "EquilibriumOptimizer to apply all of them until none does")
        if len(optimizers) == 1 and isinstance(optimizers[0], (list, tuple)):
            optimizers = tuple(optimizers[0])
        super().__init__(optimizers, name="LocalOptGroup")


class NavigatorOptimizer(WalkingGraphRewriter):
    """Theano's base class of the optimizers that apply one node optimizer while walking the
    graph (``TopoOptimizer``, ``OpKeyOptimizer``)."""

    def __init__(self, local_opt: NodeRewriter, order: str = "in_to_out",
                 ignore_newtrees: bool = False, failure_callback: Any = None,
                 name: str | None = None) -> None:
        walked = local_opt
        if failure_callback is not None and failure_callback is not _report_failure:
            walked = _ReportingRewriter(local_opt, failure_callback, self)
        super().__init__(walked, order=order, ignore_newtrees=ignore_newtrees,
                         name=name or rewriter_name(local_opt))
        self.local_opt = local_opt
        self.failure_callback = failure_callback

    warn = warn_inplace = warn_ignore = staticmethod(_report_failure)


class TopoOptimizer(NavigatorOptimizer):
    """Theano's ``TopoOptimizer(local_opt, order='in_to_out' | 'out_to_in',
    ignore_newtrees=False)``: one pass over the nodes in topological order (or its reverse);
    unless ``ignore_newtrees``, the nodes the rewrites create are visited too."""


class OpKeyOptimizer(NavigatorOptimizer):
    """Theano's ``OpKeyOptimizer(local_opt)``: applies ``local_opt`` to the nodes of the op
    its ``op_key()`` names (jitgraph's dispatch on the rewriter's ``tracks`` does that
    selection), visiting them from the inputs."""

    def __init__(self, local_opt: NodeRewriter, ignore_newtrees: bool = False,
                 failure_callback: Any = None) -> None:
        if not hasattr(local_opt, "op_key"):
            raise TypeError(f"OpKeyOptimizer needs a node optimizer with an op_key() method "
                            f"(such as a PatternSub), not {local_opt!r}")
        super().__init__(local_opt, "in_to_out", ignore_newtrees, failure_callback)


def _walker(order: str, local_opts: tuple[NodeRewriter, ...], kwargs: dict) -> TopoOptimizer:
    name = kwargs.pop("name", None)
    if len(local_opts) == 1:
        local_opt = local_opts[0]
        name = name or getattr(local_opt, "name", None) or getattr(local_opt, "__name__", None)
    else:
        local_opt = LocalOptGroup(*local_opts)
    return TopoOptimizer(local_opt, order=order, name=name, **kwargs)


def in2out(*local_opts: NodeRewriter, **kwargs: Any) -> TopoOptimizer:
    """Theano's ``in2out(opt1, ...)``: a ``TopoOptimizer`` from the inputs to the outputs
    (keywords: ``name``, ``ignore_newtrees``, default False)."""
    return _walker("in_to_out", local_opts, kwargs)


def out2in(*local_opts: NodeRewriter, **kwargs: Any) -> TopoOptimizer:
    """Theano's ``out2in(opt1, ...)``: a ``TopoOptimizer`` from the outputs to the inputs."""
    return _walker("out_to_in", local_opts, kwargs)


class EquilibriumOptimizer(EquilibriumGraphRewriter):
    """Theano's ``EquilibriumOptimizer(optimizers, max_use_ratio=..., final_optimizers=...)``:
    node and graph optimizers applied until none changes the graph (a rewrite applied more
    than ``max_use_ratio`` times the number of nodes stops it, with a warning)."""

    def __init__(self, optimizers: Iterable[Any], failure_callback: Any = None,
                 ignore_newtrees: bool = True, tracks_on_change_inputs: bool = False,
                 max_use_ratio: float | None = None,
                 final_optimizers: Iterable[GraphRewriter] | None = None,
                 cleanup_optimizers: Iterable[NodeRewriter] | None = None) -> None:
        _refuse_failure_callback(failure_callback)
        final = list(final_optimizers or ())
        if cleanup_optimizers:
            final.append(in2out(*cleanup_optimizers))
        super().__init__(optimizers, max_use_ratio=max_use_ratio, final_rewriters=final,
                         ignore_newtrees=ignore_newtrees, name="EquilibriumOptimizer")


class MergeOptimizer(MergeGraphRewriter):
    """Theano's ``MergeOptimizer()``: equal constants, then equal nodes, become one."""

    def __init__(self) -> None:
        super().__init__("MergeOptimizer")


class PatternSub(PatternNodeRewriter):
    """Theano's ``PatternSub(in_pattern, out_pattern)``: a node matching ``in_pattern`` (a
    tuple ``(op, *args)`` of string placeholders, constants and sub-patterns, or a dict
    ``{'pattern': ..., 'constraint': f(variable)}``) is replaced by ``out_pattern`` built from
    the same placeholders."""

    def __init__(self, in_pattern: Any, out_pattern: Any, allow_multiple_clients: bool = False,
                 skip_identities_fn: Callable | None = None, name: str | None = None,
                 pdb: bool = False, tracks: Iterable[Any] = (), get_nodes: Any = None,
                 values_eq_approx: Callable | None = None) -> None:
        unsupported = {"skip_identities_fn": skip_identities_fn, "get_nodes": get_nodes,
                       "tracks": tuple(tracks) or None}
        given = [k for k, v in unsupported.items() if v is not None]
        if given:
            raise TypeError(f"PatternSub: {', '.join(given)} not supported; write the rewrite "
                            f"as a local_optimizer function instead")
        self.top_constraint: Callable[[Variable], bool] | None = None
        if isinstance(in_pattern, dict):
            self.top_constraint = in_pattern.get("constraint")
            in_pattern = in_pattern["pattern"]
        super().__init__(in_pattern, out_pattern, allow_multiple_clients=allow_multiple_clients,
                         name=name)
        self.values_eq_approx = values_eq_approx

    def op_key(self) -> Any:
        """The op (or op class) heading the input pattern."""
        return self.in_pattern[0]

    def match(self, node: Apply, fgraph: FunctionGraph | None = None) -> Any:
        bindings = super().match(node, fgraph)
        if bindings is None or self.top_constraint is None:
            return bindings
        return bindings if self.top_constraint(node.outputs[0]) else None

    def transform(self, fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
        result = super().transform(fgraph, node)
        if result and self.values_eq_approx is not None:
            result[0].tag.values_eq_approx = self.values_eq_approx
        return result


class Query(RewriteDatabaseQuery):
    """Theano's ``gof.Query(include=..., require=..., exclude=..., subquery=...,
    position_cutoff=...)``: a :class:`RewriteDatabaseQuery` whose ``position_cutoff`` may also
    be assigned after it is made, as Theano's was (``q.position_cutoff = 1.51``; do it before
    the query is used). Its derived queries (``including``, ...) are new objects, as
    jitgraph's."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name != "position_cutoff":
            super().__setattr__(name, value)  # refused: the other fields stay fixed
            return
        object.__setattr__(self, name, float(value))


__all__ = ["Query", "Optimizer", "SeqOptimizer", "LocalOptGroup", "NavigatorOptimizer",
           "TopoOptimizer", "OpKeyOptimizer", "in2out", "out2in", "EquilibriumOptimizer",
           "MergeOptimizer", "PatternSub"]
