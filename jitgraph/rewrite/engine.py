"""Node rewriters, graph rewriters and the simple graph drivers.

A *node rewriter* looks at one Apply node and proposes replacements for its outputs. A *graph
rewriter* transforms a whole FunctionGraph; the drivers here turn node rewriters into graph
rewriters (:class:`WalkingGraphRewriter`: one pass in topological order;
:class:`~jitgraph.rewrite.equilibrium.EquilibriumGraphRewriter`: repeat until nothing applies) and
chain graph rewriters into phases (:class:`SequentialGraphRewriter`).

Every replacement goes through :meth:`RewriteContext.apply_replacements`, so it is type-checked,
validated by the graph's features (rolled back if they refuse it), printed under
``optimizer_verbose`` and counted.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.fg import Feature, FunctionGraph, InconsistencyError
from jitgraph.graph.op import Op
from jitgraph.rewrite.context import RewriteContext, StackTraceError, rewriter_name
from jitgraph.rewrite.features import get_history
from jitgraph.rewrite.stats import PhaseRecord, RewriteStats
from jitgraph.rewrite.validate import GraphSnapshot

#: what a node rewriter may return: nothing, new outputs (None keeps one), or old -> new pairs
Replacements = None | bool | Sequence[Variable | None] | dict
Tracked = type | Op


# ---------------------------------------------------------------------------------------------
# Node rewriters

class NodeRewriter:
    """Proposes replacements for the outputs of a single node.

    Subclasses implement :meth:`transform` and, for dispatch, :meth:`tracks`.
    """

    #: True when the rewrite builds ops that destroy their inputs (needs a destroy handler)
    inplace: bool = False
    #: a test of the op's props narrowing the tracked ops (see :meth:`applies_to`)
    op_test: Callable[[Op], bool] | None = None

    def __init__(self, name: str | None = None) -> None:
        self.name = name or type(self).__name__

    def tracks(self) -> Sequence[Tracked] | None:
        """The op classes and op instances this rewrite applies to; None means every node."""
        return None

    def applies_to(self, op: Op) -> bool:
        """Whether the rewrite can change a node of the tracked ``op`` at all: a test of the
        op's props that the drivers' dispatch asks once per op (ops that compare equal get
        the answer of the first), so that a rewrite of ``add`` nodes, which tracks
        ``Elemwise``, is not called on every other elementwise node. False must mean that
        :meth:`transform` returns nothing for any node of ``op``."""
        return self.op_test is None or self.op_test(op)

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Replacements:
        """Return None/False (no change), a list of new outputs, or a dict ``{old: new}``."""
        raise NotImplementedError

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        """Attach the features the rewrite needs before a run starts."""
        if self.inplace:
            from jitgraph.rewrite.destroyhandler import ensure_destroy_handler

            ensure_destroy_handler(fgraph)

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


class FunctionNodeRewriter(NodeRewriter):
    """A node rewriter defined by a function ``fn(fgraph, node) -> replacements``."""

    def __init__(self, fn: Callable[[FunctionGraph, Apply], Replacements],
                 tracks: Sequence[Tracked] | None, inplace: bool = False,
                 name: str | None = None, op_test: Callable[[Op], bool] | None = None
                 ) -> None:
        super().__init__(name or fn.__name__)
        self.fn = fn
        self._tracks = None if tracks is None else list(tracks)
        self.inplace = inplace
        self.op_test = op_test
        self.__doc__ = fn.__doc__

    def tracks(self) -> Sequence[Tracked] | None:
        return self._tracks

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Replacements:
        return self.fn(fgraph, node)

    def __call__(self, fgraph: FunctionGraph, node: Apply) -> Replacements:
        """Calling the rewriter calls the decorated function (handy in tests)."""
        return self.fn(fgraph, node)


def _as_tracks(tracks: Any) -> list[Tracked] | None:
    if tracks is None:
        return None
    if isinstance(tracks, (list, tuple, set, frozenset)):
        items = list(tracks)
    else:
        items = [tracks]
    for t in items:
        if not (isinstance(t, Op) or (isinstance(t, type) and issubclass(t, Op))):
            raise TypeError(f"a rewrite can track Op classes or Op instances, not {t!r}")
    return items


def node_rewriter(tracks: Any, inplace: bool = False, name: str | None = None,
                  op_test: Callable[[Op], bool] | None = None
                  ) -> Callable[[Callable], FunctionNodeRewriter]:
    """Decorator making ``fn(fgraph, node)`` a :class:`NodeRewriter`.

    ``tracks`` is an op class, an op instance, or a list of them (None: every node). Use
    ``inplace=True`` when the rewrite introduces ops with a ``destroy_map``. ``op_test(op)``,
    when given, narrows the tracked ops by their props (see :meth:`NodeRewriter.applies_to`;
    ``fn`` still checks what it needs, so that calling it directly stays safe)::

        @node_rewriter([Mul])
        def local_mul_one(fgraph, node):
            ...
    """
    tracked = _as_tracks(tracks)

    def decorate(fn: Callable) -> FunctionNodeRewriter:
        return FunctionNodeRewriter(fn, tracked, inplace=inplace, name=name, op_test=op_test)

    return decorate


class NodeRewriterGroup(NodeRewriter):
    """Several node rewriters used as one: the first that proposes a change wins.

    Drivers dispatch on the members individually, so each keeps its own name in verbose output
    and statistics.
    """

    def __init__(self, rewriters: Iterable[NodeRewriter], name: str | None = None) -> None:
        super().__init__(name or "NodeRewriterGroup")
        self.rewriters = list(rewriters)
        self.inplace = any(r.inplace for r in self.rewriters)
        self._dispatch: RewriterDispatch | None = None

    def tracks(self) -> Sequence[Tracked] | None:
        tracked: list[Tracked] = []
        for rw in self.rewriters:
            t = rw.tracks()
            if t is None:
                return None
            tracked.extend(t)
        return tracked

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Replacements:
        if self._dispatch is None:
            self._dispatch = RewriterDispatch(self.rewriters)
        for rw in self._dispatch.for_op(node.op):
            result = rw.transform(fgraph, node)
            if result:
                return result
        return None

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        for rw in self.rewriters:
            rw.add_requirements(fgraph)

    def __len__(self) -> int:
        return len(self.rewriters)


def flatten_rewriters(rewriters: Iterable[NodeRewriter]) -> list[NodeRewriter]:
    """Groups expanded into their members, in order."""
    flat: list[NodeRewriter] = []
    for rw in rewriters:
        if isinstance(rw, NodeRewriterGroup):
            flat.extend(flatten_rewriters(rw.rewriters))
        else:
            flat.append(rw)
    return flat


class RewriterDispatch:
    """Finds the node rewriters that track a given op and apply to it, in registration order
    (cached per op)."""

    def __init__(self, rewriters: Iterable[NodeRewriter]) -> None:
        self.rewriters = flatten_rewriters(rewriters)
        self._any: list[int] = []
        self._by_class: dict[type, list[int]] = {}
        self._by_op: dict[Op, list[int]] = {}
        for idx, rw in enumerate(self.rewriters):
            tracked = rw.tracks()
            if tracked is None:
                self._any.append(idx)
                continue
            for t in tracked:
                table = self._by_class if isinstance(t, type) else self._by_op
                table.setdefault(t, []).append(idx)
        self._cache: dict[Op, list[NodeRewriter]] = {}
        #: op class -> its rewriters, when they do not depend on the op itself (else None)
        self._by_type: dict[type, list[NodeRewriter] | None] = {}

    def for_op(self, op: Op) -> list[NodeRewriter]:
        kind = type(op)
        try:
            found = self._by_type[kind]
        except KeyError:
            found = self._by_type[kind] = self._for_class(kind)
        if found is not None:
            return found  # (without hashing the op and comparing its props)
        try:
            return self._cache[op]
        except KeyError:
            pass
        idxs = set(self._any)
        idxs.update(self._by_op.get(op, ()))
        for cls in type(op).__mro__:
            idxs.update(self._by_class.get(cls, ()))
        found = [rw for rw in map(self.rewriters.__getitem__, sorted(idxs)) if rw.applies_to(op)]
        self._cache[op] = found
        return found

    def _for_class(self, kind: type) -> list[NodeRewriter] | None:
        """The rewriters of every op of class ``kind``, or None when they depend on the op:
        an op instance is tracked, or one of them narrows the ops it applies to."""
        if self._by_op:
            return None
        idxs = set(self._any)
        for cls in kind.__mro__:
            idxs.update(self._by_class.get(cls, ()))
        found = [self.rewriters[i] for i in sorted(idxs)]
        if any(rw.op_test is not None or type(rw).applies_to is not NodeRewriter.applies_to
               for rw in found):
            return None
        return found

    def run_lookup(self) -> Callable[[Op], list[NodeRewriter]]:
        """:meth:`for_op` for one pass of a driver: an op met again (the same object: nodes
        share ops, and each sweep meets every node) is found by identity, without hashing and
        comparing its props. (Kept for the pass only: it holds the ops it has met.)"""
        met: dict[int, tuple[Op, list[NodeRewriter]]] = {}

        def lookup(op: Op) -> list[NodeRewriter]:
            entry = met.get(id(op))
            if entry is None or entry[0] is not op:
                entry = met[id(op)] = (op, self.for_op(op))
            return entry[1]

        return lookup


def normalize_replacements(node: Apply, result: Any) -> list[tuple[Variable, Variable]]:
    """A node rewriter's result as ``(old, new)`` pairs; raises ValueError if it is malformed."""
    if isinstance(result, Variable):
        result = [result]
    if isinstance(result, dict):
        return [(old, new) for old, new in result.items() if new is not None]
    if isinstance(result, (list, tuple)):
        if len(result) != len(node.outputs):
            raise ValueError(f"the rewrite returned {len(result)} replacements for a node with "
                             f"{len(node.outputs)} outputs")
        return [(old, new) for old, new in zip(node.outputs, result) if new is not None]
    raise ValueError("a node rewriter must return None/False, a list of new outputs or a dict "
                     f"old -> new, not {type(result).__name__}")


def try_node_rewrite(rewriter: NodeRewriter, fgraph: FunctionGraph, node: Apply,
                     ctx: RewriteContext) -> bool:
    """Run one node rewriter on one node and apply what it proposes; True if the graph changed.

    Errors raised by the rewrite are handled by ``on_opt_error``; an ``InconsistencyError`` just
    means "not applicable here" and is silent.
    """
    t0 = time.perf_counter() if ctx.profile else None
    try:
        result = rewriter.transform(fgraph, node)
        if result is None or result is False:
            return False
        pairs = normalize_replacements(node, result)
        return ctx.apply_replacements(fgraph, pairs, rewriter, node)
    except InconsistencyError:
        return False
    except StackTraceError:
        raise
    except Exception as exc:
        ctx.handle_error(rewriter, node, exc)
        return False
    finally:
        if t0 is not None:
            ctx.stats.record(rewriter_name(rewriter)).time += time.perf_counter() - t0


class _ImportQueue(Feature):
    """Appends newly imported nodes to a driver's work queue."""

    def __init__(self, queue: deque) -> None:
        self.queue = queue

    def on_import(self, fgraph: FunctionGraph, node: Apply, reason: Any) -> None:
        # A rejected rewrite's rollback re-imports the nodes it had removed: they were already
        # queued or visited, and queueing them again retries the same rejected rewrite forever.
        if reason != "revert":
            self.queue.append(node)


# ---------------------------------------------------------------------------------------------
# Graph rewriters

class GraphRewriter:
    """Transforms a whole FunctionGraph in place. Subclasses implement :meth:`apply`."""

    def __init__(self, name: str | None = None) -> None:
        self.name = name or type(self).__name__

    def apply(self, fgraph: FunctionGraph, ctx: RewriteContext) -> None:
        """Transform ``fgraph``; make replacements through ``ctx.apply_replacements``.

        Going through the context keeps them validated, undoable, printed and counted (drivers
        also use the count to detect progress).
        """
        raise NotImplementedError

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        """Attach the features the rewriter needs; called once before a run."""

    def rewrite(self, fgraph: FunctionGraph, ctx: RewriteContext | None = None) -> RewriteStats:
        """Rewrite ``fgraph`` in place; return the statistics (also ``fgraph.rewrite_stats``).

        The run is one checked phase: if it raises (under ``on_opt_error`` other than ``raise``)
        or leaves an invalid graph, its changes are undone.
        """
        ctx = ctx or RewriteContext()
        t0 = time.perf_counter()
        get_history(fgraph)
        self.add_requirements(fgraph)
        try:
            fgraph.validate()
        except InconsistencyError as exc:
            # Otherwise every later replacement would be rejected and nothing would say why.
            raise InconsistencyError(f"the graph is invalid before rewriting: {exc}") from exc
        run_phase(self, fgraph, ctx)
        ctx.stats.total_time += time.perf_counter() - t0
        fgraph.rewrite_stats = ctx.stats  # type: ignore[attr-defined]
        return ctx.stats

    def optimize(self, fgraph: FunctionGraph) -> RewriteStats:
        """Theano's name of :meth:`rewrite` (``optdb.query(OPT_FAST_RUN).optimize(fgraph)``)."""
        return self.rewrite(fgraph)

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


def run_phase(rewriter: GraphRewriter, fgraph: FunctionGraph, ctx: RewriteContext,
              record: bool = True) -> bool:
    """Apply ``rewriter`` as a checked phase; False if it failed or was undone.

    After the phase the graph must still be valid (same output types, no cycle, consistent
    clients, inplace rules respected); otherwise the whole phase is reverted and reported.
    ``record=False`` leaves it out of the phase list (for rewriters run many times by a driver).
    """
    nodes_before = len(fgraph.apply_nodes)
    t0, c0 = time.perf_counter(), time.process_time()
    if isinstance(rewriter, SequentialGraphRewriter):
        # Each sub-phase is checked (and undone) on its own; an outer checkpoint would only
        # keep the whole run's history in memory.
        rewriter.apply(fgraph, ctx)
        if record:
            ctx.stats.phases.append(PhaseRecord(rewriter_name(rewriter),
                                                time.perf_counter() - t0, nodes_before,
                                                len(fgraph.apply_nodes),
                                                cpu_time=time.process_time() - c0))
        return True
    history = get_history(fgraph)
    snapshot = GraphSnapshot(fgraph)
    mark = history.checkpoint()
    ok = False
    try:
        rewriter.apply(fgraph, ctx)
    except StackTraceError:  # check_stack_trace='raise' stops the compile whatever on_opt_error
        history.revert(fgraph, mark)
        raise
    except Exception as exc:
        history.revert(fgraph, mark)
        ctx.handle_error(rewriter, None, exc)
    except BaseException:
        history.revert(fgraph, mark)
        raise
    else:
        # A phase that changed nothing (most, on a large graph, once it is rewritten) left the
        # graph as it was: checking it again would cost O(nodes) per phase for nothing.
        problem = snapshot.check(fgraph) if history.changed_since(mark) else None
        if problem is None:
            history.commit(mark)
            ok = True
        else:
            history.revert(fgraph, mark)
            snapshot.report(rewriter_name(rewriter), problem, ctx.on_error)
    if record:
        ctx.stats.phases.append(PhaseRecord(rewriter_name(rewriter), time.perf_counter() - t0,
                                            nodes_before, len(fgraph.apply_nodes),
                                            reverted=not ok, cpu_time=time.process_time() - c0))
    return ok


class SequentialGraphRewriter(GraphRewriter):
    """Runs graph rewriters one after the other, each as a checked phase."""

    def __init__(self, rewriters: Iterable[GraphRewriter], name: str | None = None) -> None:
        super().__init__(name or "SequentialGraphRewriter")
        self.rewriters = list(rewriters)

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        for rw in self.rewriters:
            rw.add_requirements(fgraph)

    def apply(self, fgraph: FunctionGraph, ctx: RewriteContext) -> None:
        for rw in self.rewriters:
            run_phase(rw, fgraph, ctx)

    def __len__(self) -> int:
        return len(self.rewriters)


class WalkingGraphRewriter(GraphRewriter):
    """Applies node rewriters in one pass over the nodes, inputs-first or outputs-first.

    With ``ignore_newtrees=False`` the nodes created by rewrites during the pass are visited too.
    """

    def __init__(self, rewriters: NodeRewriter | Iterable[NodeRewriter],
                 order: str = "in_to_out", ignore_newtrees: bool = True,
                 name: str | None = None) -> None:
        if order not in ("in_to_out", "out_to_in"):
            raise ValueError(f"order must be 'in_to_out' or 'out_to_in', not {order!r}")
        rewriters = [rewriters] if isinstance(rewriters, NodeRewriter) else list(rewriters)
        if name is None:
            name = rewriters[0].name if len(rewriters) == 1 else f"{order}({len(rewriters)})"
        super().__init__(name)
        self.rewriters = rewriters
        self.order = order
        self.ignore_newtrees = ignore_newtrees
        self._dispatch = RewriterDispatch(rewriters)

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        for rw in self.rewriters:
            rw.add_requirements(fgraph)

    def apply(self, fgraph: FunctionGraph, ctx: RewriteContext) -> None:
        nodes = fgraph.toposort()
        if self.order == "out_to_in":
            nodes.reverse()
        queue: deque = deque(nodes)
        listener = None if self.ignore_newtrees else _ImportQueue(queue)
        if listener is not None:
            fgraph.attach_feature(listener)
        rewriters_for = self._dispatch.run_lookup()
        try:
            while queue:
                node = queue.popleft()
                for rw in rewriters_for(node.op):
                    if node not in fgraph.apply_nodes:
                        break
                    try_node_rewrite(rw, fgraph, node, ctx)
        finally:
            if listener is not None:
                fgraph.remove_feature(listener)

    def __len__(self) -> int:
        return len(self.rewriters)


def in_to_out(*rewriters: NodeRewriter, ignore_newtrees: bool = True, name: str | None = None
              ) -> WalkingGraphRewriter:
    """A one-pass driver visiting nodes from the inputs towards the outputs."""
    return WalkingGraphRewriter(rewriters, "in_to_out", ignore_newtrees, name)


def out_to_in(*rewriters: NodeRewriter, ignore_newtrees: bool = True, name: str | None = None
              ) -> WalkingGraphRewriter:
    """A one-pass driver visiting nodes from the outputs towards the inputs."""
    return WalkingGraphRewriter(rewriters, "out_to_in", ignore_newtrees, name)
