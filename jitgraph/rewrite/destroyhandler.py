"""Safety of in-place operations: the DestroyHandler feature.

An op declares ``destroy_map = {output: [inputs it overwrites]}`` and
``view_map = {output: [inputs it is a view of]}``. Overwriting a value is only correct if nobody
needs the old value afterwards. With a :class:`DestroyHandler` attached, ``fgraph.validate()``
raises ``InconsistencyError`` when

* a node destroys a constant, or an ownerless variable (graph input, shared variable) that was not
  marked mutable, or a view of one;
* two nodes destroy the same value (the same variable, or views of the same variable);
* a node destroys a value that is (a view of) a graph output;
* a node destroys one input and reads an alias of it through another input (unless the op lists
  the pair in ``destroyhandler_tolerate_same``, e.g. ``add_inplace(x, x)``);
* the other readers of the destroyed value cannot all run before the destroyer (a cycle).

The output of a destroyer is a new value (its storage is the input's, but the old value is dead),
so chains like ``x += 1; x *= 2`` are two separate, legal destroys.

``config.cycle_detection``: ``regular`` allows a destroyed value to have other readers and checks
that the required order is possible (an O(nodes) check per validation, needed only while some
destroyed value has a reader besides the destroyer and the views leading to it, as in Theano);
``fast`` refuses such destroys, so it never needs the global check but allows fewer in-place
rewrites.

:meth:`DestroyHandler.orderings` gives, for each destroyer, the nodes that must run before it; a
linker schedules with :func:`jitgraph.rewrite.ordering.toposort_with_orderings`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import Feature, FunctionGraph, InconsistencyError
from jitgraph.rewrite import _flags
from jitgraph.rewrite.context import RewriteContext
from jitgraph.rewrite.engine import GraphRewriter
from jitgraph.rewrite.ordering import ordering_is_possible


#: how far after its last input a newly imported node is placed in the kept order (the
#: positions of a full order are whole numbers: a chain of a million imports still fits)
_STEP = 1e-6


class DestroyHandler(Feature):
    """Tracks destroyers and views; rejects unsafe in-place graphs and provides orderings.

    ``mutable``: ownerless variables the user allows to be overwritten (e.g. inputs passed with
    ``mutable=True``, or shared variables whose update makes the old value dead).
    ``protected``: extra variables that must never be overwritten. Every other ownerless variable
    is protected.
    """

    #: tells the validity check that destroyers are checked by this feature
    checks_destroyers = True

    def __init__(self, mutable: Iterable[Variable] = (), protected: Iterable[Variable] = (),
                 algo: str | None = None) -> None:
        self.mutable: set[Variable] = set(mutable)
        self.protected: set[Variable] = set(protected)
        self.algo = algo
        self.fgraph: FunctionGraph | None = None
        self.destroyers: set[Apply] = set()
        self._result: tuple[dict[Apply, set[Apply]], str | None] | None = None
        # Positions of an execution order valid for the graph and its orderings, as of the last
        # full cycle check, kept up to date through imports and input changes that respect it
        # (an in-place node swapped for its out-of-place twin does): while every ordering
        # respects it, no cycle is possible and no O(nodes) toposort is needed. None: unknown.
        self._position: dict[Apply, float] | None = None
        # The variables the cached analysis looked at (destroyed values, their view chains and
        # views): a change elsewhere leaves it valid. None: any change invalidates it.
        self._watched: set[Variable] | None = None

    # -- feature hooks ------------------------------------------------------------------------
    def on_attach(self, fgraph: FunctionGraph) -> None:
        for other in fgraph.features:
            if isinstance(other, DestroyHandler) and other is not self:
                raise ValueError("this graph already has a DestroyHandler")
        if self.fgraph is not None and self.fgraph is not fgraph:
            raise ValueError("a DestroyHandler serves one graph only")
        self.fgraph = fgraph
        if self.algo is None:
            self.algo = str(_flags.flag("cycle_detection"))
        self.destroyers = {n for n in fgraph.apply_nodes if n.op.destroy_map}
        self._result = None
        self._position = None
        fgraph.destroy_handler = self  # type: ignore[attr-defined]

    def on_detach(self, fgraph: FunctionGraph) -> None:
        self.fgraph = None
        self.destroyers = set()
        self._result = None
        self._position = None
        if getattr(fgraph, "destroy_handler", None) is self:
            del fgraph.destroy_handler  # type: ignore[attr-defined]

    def on_import(self, fgraph: FunctionGraph, node: Apply, reason: Any) -> None:
        if node.op.destroy_map:
            self.destroyers.add(node)
        self._touch(node.inputs, node.op.destroy_map)
        if self._position is not None:
            # nodes are imported inputs first: place it just after the last of its inputs
            before = [self._position.get(i.owner) for i in node.inputs if i.owner is not None]
            if any(p is None for p in before):
                self._position = None
            else:
                self._position[node] = max(before, default=-1.0) + _STEP

    def on_prune(self, fgraph: FunctionGraph, node: Apply, reason: Any) -> None:
        self._touch(node.inputs, node in self.destroyers)
        self.destroyers.discard(node)
        if self._position is not None:
            self._position.pop(node, None)

    def on_change_input(self, fgraph: FunctionGraph, node: Any, i: int, old: Variable,
                        new: Variable, reason: Any) -> None:
        self._touch((old, new), node in self.destroyers)
        if self._position is not None and isinstance(node, Apply) and new.owner is not None:
            reader, writer = self._position.get(node), self._position.get(new.owner)
            if reader is None or writer is None or writer >= reader:
                self._position = None

    def _touch(self, read: Iterable[Variable], destroyer: Any) -> None:
        """Forget the cached analysis if a change reads or unreads a watched variable, or
        involves a destroyer (new readers, views or victims); other changes cannot alter it.
        (Whether the execution order is still possible is checked on every validation.)"""
        watched = self._watched
        if destroyer or watched is None or any(v in watched for v in read):
            self._result = None
            self._watched = None

    def validate(self, fgraph: FunctionGraph) -> None:
        """Raise ``InconsistencyError`` describing the first in-place rule the graph breaks."""
        problem = self._analyze(fgraph)[1]
        if problem is not None:
            raise InconsistencyError(problem)

    # -- public queries -----------------------------------------------------------------------
    def mark_mutable(self, *variables: Variable) -> None:
        """Allow these ownerless variables to be overwritten."""
        self.mutable.update(variables)
        self._result = None
        self._watched = None

    def is_protected(self, var: Variable) -> bool:
        """True if ``var`` itself may never be overwritten (views are checked separately)."""
        if isinstance(var, Constant) or var in self.protected:
            return True
        return var.owner is None and var not in self.mutable

    def can_destroy(self, var: Variable) -> bool:
        """A quick necessary condition for destroying ``var``: no protected root, not an output.

        In-place rewrites use it to skip hopeless candidates before building a node; the full
        answer comes from validating the graph after the replacement.
        """
        fgraph = self._graph()
        roots = self.roots(var)
        if any(self.is_protected(r) for r in roots):
            return False
        outputs = set(fgraph.outputs)
        return not any(self.views_of(r) & outputs for r in roots)

    def orderings(self, fgraph: FunctionGraph) -> dict[Apply, set[Apply]]:
        """``{destroyer: nodes that must run before it}``: other readers of its victim."""
        return {node: set(before) for node, before in self._analyze(fgraph)[0].items()}

    def view_parents(self, var: Variable) -> list[Variable]:
        """The variables ``var`` is declared a view of (through its owner's ``view_map``)."""
        node = var.owner
        if node is None or not node.op.view_map:
            return []
        return [node.inputs[i] for i in node.op.view_map.get(var.index, ())]

    def roots(self, var: Variable, chains: set[Variable] | None = None) -> list[Variable]:
        """The variables at the top of ``var``'s view chains (``var`` itself if it is no view);
        ``chains`` (if given) receives every variable of the chains."""
        roots, stack, seen = [], [var], set()
        while stack:
            v = stack.pop()
            if v in seen:
                continue
            seen.add(v)
            parents = self.view_parents(v)
            if parents:
                stack.extend(parents)
            else:
                roots.append(v)
        if chains is not None:
            chains.update(seen)
        return roots

    def views_of(self, root: Variable) -> set[Variable]:
        """``root`` and every variable that is (transitively) a view of it."""
        fgraph = self._graph()
        found, stack = {root}, [root]
        while stack:
            w = stack.pop()
            for client, i in fgraph.clients.get(w, ()):
                if not isinstance(client, Apply):
                    continue
                for out_idx, in_idxs in client.op.view_map.items():
                    out = client.outputs[out_idx]
                    if i in in_idxs and out not in found:
                        found.add(out)
                        stack.append(out)
        return found

    # -- analysis -----------------------------------------------------------------------------
    def _graph(self) -> FunctionGraph:
        if self.fgraph is None:
            raise RuntimeError("the DestroyHandler is not attached to a graph")
        return self.fgraph

    def _analyze(self, fgraph: FunctionGraph) -> tuple[dict[Apply, set[Apply]], str | None]:
        # The destroyers' analysis is cached until a change that can alter it (see _touch):
        # validate() runs after every replacement of every rewrite once in-place nodes exist.
        if self._result is None:
            watched: set[Variable] = set()
            self._result = self._compute(fgraph, watched)
            # an analysis that found a problem stopped early: it did not see everything
            self._watched = watched if self._result[1] is None else None
        orderings, problem, unchained = self._result
        if problem is None and unchained:
            problem = self._order_problem(fgraph, orderings)
        return orderings, problem

    def _compute(self, fgraph: FunctionGraph, watched: set[Variable]
                 ) -> tuple[dict[Apply, set[Apply]], str | None, bool]:
        """(orderings, the first rule broken or None, whether some destroyed value has readers
        off its view chain, so that the execution order must be checked); ``watched``
        collects the variables looked at."""
        orderings: dict[Apply, set[Apply]] = {}
        if not self.destroyers:
            return orderings, None, False
        claimed: dict[Variable, tuple[Apply, int]] = {}
        outputs = set(fgraph.outputs)
        # Destroyers with readers that are not on their own view chain; only those add real
        # ordering constraints that could make a cycle.
        unchained: list[Apply] = []
        for node in self.destroyers:
            tolerated = set(getattr(node.op, "destroyhandler_tolerate_same", ()))
            for in_idxs in node.op.destroy_map.values():
                for i in in_idxs:
                    problem = self._check_destroy(fgraph, node, i, tolerated, claimed, outputs,
                                                  orderings, unchained, watched)
                    if problem is not None:
                        return orderings, problem, bool(unchained)
        return orderings, None, bool(unchained)

    def _order_problem(self, fgraph: FunctionGraph, orderings: dict[Apply, set[Apply]]
                       ) -> str | None:
        """None if the nodes can run in an order that puts every destroyer after the other
        readers of its victim; a full toposort only when the kept order does not show it."""
        if self._respects(orderings):
            return None
        order = ordering_is_possible(fgraph, orderings)
        if order is None:
            return ("the in-place operations cannot be ordered: a node that overwrites a value "
                    "would have to run after a reader of that value which needs its result")
        self._position = {node: float(k) for k, node in enumerate(order)}
        return None

    def _respects(self, orderings: dict[Apply, set[Apply]]) -> bool:
        """Whether the kept execution order puts every node after those it must follow."""
        position = self._position
        if position is None:
            return False
        for node, before in orderings.items():
            after = position.get(node)
            if after is None or any(position.get(b, after) >= after for b in before):
                return False
        return True

    def _check_destroy(self, fgraph: FunctionGraph, node: Apply, i: int, tolerated: set,
                       claimed: dict, outputs: set, orderings: dict, unchained: list,
                       watched: set[Variable]) -> str | None:
        var = node.inputs[i]
        if isinstance(var, Constant):
            return f"{node} would overwrite the constant {var}"
        for root in self.roots(var, watched):
            if self.is_protected(root):
                what = "" if root is var else f"a view of {root}, "
                return (f"{node} would overwrite {var}, {what}which is a protected graph input "
                        "(inputs are protected unless marked mutable)")
            previous = claimed.get(root)
            if previous is not None and previous[0] is not node:
                return f"{node} and {previous[0]} both overwrite {root}"
            if previous is not None and (previous[1], i) not in tolerated and previous[1] != i:
                return f"{node} overwrites {root} through two inputs"
            claimed[root] = (node, i)
            impact = self.views_of(root)
            watched.update(impact)
            needed = impact & outputs
            if needed:
                return (f"{node} would overwrite {var}, whose value is needed as the graph "
                        f"output {next(iter(needed))}")
            for j, inp in enumerate(node.inputs):
                if j != i and inp in impact and not (inp is var and (i, j) in tolerated):
                    return (f"{node} overwrites input {i} ({var}) and also reads input {j} "
                            f"({inp}), an alias of it")
            readers: set[Apply] = set()
            for w in impact:
                readers.update(c for c, _ in fgraph.clients.get(w, ()) if isinstance(c, Apply))
            readers.discard(node)
            if not self._single_view_chain(fgraph, impact, readers):
                if self.algo == "fast":
                    return (f"{node} would overwrite {var}, which other nodes still read "
                            "(cycle_detection='fast' only allows overwriting a value nobody "
                            "else reads)")
                unchained.append(node)
            if readers:
                orderings.setdefault(node, set()).update(readers)
        return None

    @staticmethod
    def _single_view_chain(fgraph: FunctionGraph, impact: set[Variable], readers: set[Apply]
                           ) -> bool:
        # Accept only a single chain of views from the root down to the destroyer: every value
        # in it has one reader, and every reader passes a view on. Such readers are ancestors of
        # the destroyer, so the required order holds without a global cycle check.
        def n_readers(w: Variable) -> int:
            return len({c for c, _ in fgraph.clients.get(w, ())})

        if any(n_readers(w) > 1 for w in impact):
            return False
        return all(any(o in impact and n_readers(o) == 1 for o in reader.outputs)
                   for reader in readers)


def get_destroy_handler(fgraph: FunctionGraph) -> DestroyHandler | None:
    """The graph's DestroyHandler, or None."""
    for feature in fgraph.features:
        if isinstance(feature, DestroyHandler):
            return feature
    return None


def ensure_destroy_handler(fgraph: FunctionGraph) -> DestroyHandler:
    """The graph's DestroyHandler, attaching one (all inputs protected) if there is none."""
    handler = get_destroy_handler(fgraph)
    if handler is None:
        handler = DestroyHandler()
        fgraph.attach_feature(handler)
    return handler


class AddDestroyHandler(GraphRewriter):
    """The optdb step before the inplace phase: make sure a DestroyHandler guards the graph."""

    def __init__(self) -> None:
        super().__init__("add_destroy_handler")

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        ensure_destroy_handler(fgraph)

    def apply(self, fgraph: FunctionGraph, ctx: RewriteContext) -> None:
        ensure_destroy_handler(fgraph)
