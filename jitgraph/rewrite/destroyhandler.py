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
that the required order is possible (needed only while some destroyed value has a reader besides
the destroyer and the views leading to it, as in Theano; an O(nodes) check only when a kept valid
order does not already show it); ``fast`` refuses such destroys, so it never needs the order
check but allows fewer in-place rewrites.

:meth:`DestroyHandler.orderings` gives, for each destroyer, the nodes that must run before it; a
linker schedules with :func:`jitgraph.rewrite.ordering.toposort_with_orderings`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import Feature, FunctionGraph, InconsistencyError
from jitgraph.rewrite import _flags
from jitgraph.rewrite.context import RewriteContext
from jitgraph.rewrite.engine import GraphRewriter
from jitgraph.rewrite.dynamic_order import add_edge, reaches
from jitgraph.rewrite.ordering import ordering_is_possible


_CANNOT_ORDER = ("the in-place operations cannot be ordered: a node that overwrites a value "
                 "would have to run after a reader of that value which needs its result")

#: how far after its last input a newly imported node is placed in the kept order (the
#: positions of a full order are whole numbers; when they run out the order is recomputed);
#: a node imported after the same input as another goes one step further: two nodes at one
#: position leave no room to reorder them, which recomputed the whole order (each time an
#: in-place rewrite swapped several outputs' nodes of one input: 31 full orders at 48 blocks)
_STEP = 1e-6

#: how many nodes ``can_destroy`` searches for a path from the destroyer to another reader
#: of its victim before it leaves the answer to validation: a refused candidate's path is
#: usually found within a few nodes (the search goes latest first), while proving that there
#: is none can cross most of a large graph, which validation then crosses again (in a Keras
#: ResNet50, 64 nodes keep 90% of the refusals at a twentieth of the search)
_REFUSAL_SEARCH = 64


def _unlink(index: dict[Any, set[Apply]], keys: Iterable[Any], destroyer: Apply) -> None:
    """Remove ``destroyer`` from the sets ``index[key]``, dropping the sets left empty."""
    for key in keys:
        members = index.get(key)
        if members is not None:
            members.discard(destroyer)
            if not members:
                del index[key]


class _Verdict(NamedTuple):
    """What one destroyer's check found, kept until a change touches what it looked at."""

    claims: tuple[tuple[Variable, int], ...]  # (root overwritten, input index)
    readers: frozenset[Apply]  # other readers of the overwritten value: they run first
    unchained: bool  # some reader is off the destroyer's own view chain (order must be checked)
    watched: frozenset[Variable]  # destroyed values, their view chains and their views


class DestroyHandler(Feature):
    """Tracks destroyers and views; rejects unsafe in-place graphs and provides orderings.

    ``mutable``: ownerless variables the user allows to be overwritten (e.g. inputs passed with
    ``mutable=True``, or shared variables whose update makes the old value dead).
    ``protected``: extra variables that must never be overwritten. Every other ownerless variable
    is protected.

    ``validate`` runs after every replacement of every rewrite once in-place nodes exist, so the
    work is incremental: each destroyer's verdict is kept until a change reads or unreads a
    variable it looked at (or changes the destroyer), and the execution order is checked
    against a kept valid order, recomputed only when a change or new ordering breaks it.
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
        self._reset()

    def _reset(self) -> None:
        self._verdicts: dict[Apply, _Verdict] = {}
        self._unjudged: set[Apply] = set(self.destroyers)
        self._watchers: dict[Variable, set[Apply]] = {}
        self._claimed: dict[Variable, set[Apply]] = {}  # root -> destroyers overwriting it
        self._unchained: set[Apply] = set()
        self._overwritten_by: dict[Apply, set[Apply]] = {}  # reader -> destroyers after it
        # Positions of an execution order valid for the graph and every kept verdict's
        # orderings, kept up to date through imports and input changes that respect it (an
        # in-place node swapped for its out-of-place twin does); None: unknown. Verdicts whose
        # orderings are not yet checked against it wait in _unordered.
        self._position: dict[Apply, float] | None = None
        self._slots: set[float] = set()  # the values of _position (reordering permutes them)
        self._unordered: set[Apply] = set()
        # Since the last check: the nodes imported (placed just after their inputs) and the
        # positions of the nodes pruned, for _take_place_of.
        self._fresh: set[Apply] = set()
        self._vacated: dict[Apply, float] = {}

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
        self._reset()
        fgraph.destroy_handler = self  # type: ignore[attr-defined]

    def on_detach(self, fgraph: FunctionGraph) -> None:
        self.fgraph = None
        self.destroyers = set()
        self._reset()
        if getattr(fgraph, "destroy_handler", None) is self:
            del fgraph.destroy_handler  # type: ignore[attr-defined]

    def on_import(self, fgraph: FunctionGraph, node: Apply, reason: Any) -> None:
        if node.op.destroy_map:
            self.destroyers.add(node)
            self._unjudged.add(node)
        self._touch(node.inputs)
        if self._position is not None:
            # nodes are imported inputs first: place it just after the last of its inputs
            before = [self._position.get(i.owner) for i in node.inputs if i.owner is not None]
            if any(p is None for p in before):
                self._position = None
            else:
                self._place(node, max(before, default=-1.0) + _STEP)
                self._fresh.add(node)

    def _place(self, node: Apply, slot: float) -> None:
        """Give the new ``node`` the first free position from ``slot`` on (any position after
        its inputs is valid: it has no clients yet)."""
        position = self._position
        assert position is not None
        self._slots.discard(position.pop(node, None))
        while slot in self._slots:
            slot += _STEP
        position[node] = slot
        self._slots.add(slot)

    def on_prune(self, fgraph: FunctionGraph, node: Apply, reason: Any) -> None:
        self._forget(node)
        self.destroyers.discard(node)
        self._unjudged.discard(node)
        self._touch(node.inputs)
        if self._position is not None:
            slot = self._position.pop(node, None)
            self._slots.discard(slot)
            if slot is not None:
                self._vacated[node] = slot

    def on_change_input(self, fgraph: FunctionGraph, node: Any, i: int, old: Variable,
                        new: Variable, reason: Any) -> None:
        if node in self.destroyers:
            self._forget(node)
        self._touch((old, new))
        if self._position is not None and isinstance(node, Apply) and new.owner is not None:
            if new.owner in self._fresh and old.owner is not None:
                self._take_place_of(new.owner, old.owner)
            if not add_edge(self._position, new.owner, node, self._after, self._before):
                self._position = None  # unknown here; the next check recomputes the order

    def _take_place_of(self, node: Apply, replaced: Apply) -> None:
        """Move the just imported ``node`` to the position of the node whose output it
        replaces, when that keeps it after its inputs and before its clients. Placed just
        after its inputs, a replacement lies before every other reader of those inputs, and
        when it overwrites one (an in-place rewrite) each of them had to be ordered before it,
        reordering all the nodes between; where the replaced node was, they mostly already
        are. (Only the work changes: a position is never a verdict.)"""
        self._fresh.discard(node)
        position = self._position
        assert position is not None
        target = position.get(replaced, self._vacated.get(replaced))
        if target is None:
            return
        slot = target if target not in self._slots else target - _STEP / 2
        if slot in self._slots:
            return
        if any(position.get(i.owner, slot) >= slot for i in node.inputs if i.owner is not None):
            return
        if any(position.get(c, slot) <= slot for c in self._clients(node)):
            return
        self._slots.discard(position[node])
        position[node] = slot
        self._slots.add(slot)

    def _touch(self, read: Iterable[Variable]) -> None:
        """Forget the verdicts of the destroyers that looked at a variable gaining or losing a
        reader (a new reader, a new view, an output)."""
        for var in read:
            for destroyer in list(self._watchers.get(var, ())):
                self._forget(destroyer)

    def _forget(self, destroyer: Apply) -> None:
        verdict = self._verdicts.pop(destroyer, None)
        if verdict is None:
            return
        _unlink(self._watchers, verdict.watched, destroyer)
        _unlink(self._claimed, (root for root, _ in verdict.claims), destroyer)
        _unlink(self._overwritten_by, verdict.readers, destroyer)
        self._unchained.discard(destroyer)
        self._unordered.discard(destroyer)
        if destroyer in self.destroyers:
            self._unjudged.add(destroyer)

    def _keep(self, destroyer: Apply, verdict: _Verdict) -> None:
        self._verdicts[destroyer] = verdict
        self._unjudged.discard(destroyer)
        for var in verdict.watched:
            self._watchers.setdefault(var, set()).add(destroyer)
        for root, _ in verdict.claims:
            self._claimed.setdefault(root, set()).add(destroyer)
        if verdict.unchained:
            self._unchained.add(destroyer)
        for reader in verdict.readers:
            self._overwritten_by.setdefault(reader, set()).add(destroyer)
        if verdict.readers:
            self._unordered.add(destroyer)

    def validate(self, fgraph: FunctionGraph) -> None:
        """Raise ``InconsistencyError`` describing the first in-place rule the graph breaks."""
        self._fresh.clear()
        self._vacated.clear()
        problem = self._analyze(fgraph)[1]
        if problem is not None:
            raise InconsistencyError(problem)

    # -- public queries -----------------------------------------------------------------------
    def mark_mutable(self, *variables: Variable) -> None:
        """Allow these ownerless variables to be overwritten."""
        self.mutable.update(variables)
        self._reset()

    def is_protected(self, var: Variable) -> bool:
        """True if ``var`` itself may never be overwritten (views are checked separately)."""
        if isinstance(var, Constant) or var in self.protected:
            return True
        return var.owner is None and var not in self.mutable

    def can_destroy(self, var: Variable, destroyer: Apply | None = None) -> bool:
        """A quick necessary condition for destroying ``var``: no protected root, not an output.
        Given the ``destroyer`` (the node that would overwrite ``var``, as it is now), also: no
        other node already overwrites that value, and none of its other readers uses
        ``destroyer``'s results (it could not run before the value is overwritten).

        In-place rewrites use it to skip hopeless candidates before building a node; the full
        answer comes from validating the graph after the replacement. A candidate it refuses
        would be refused by that validation (the replacement keeps the other destroyers and
        the readers' paths from ``destroyer``), so the rewritten graph is the same, without
        the replacement and its undoing.
        """
        fgraph = self._graph()
        roots = self.roots(var)
        if any(self.is_protected(r) for r in roots):
            return False
        impact: set[Variable] = set()
        for root in roots:
            impact |= self.views_of(root)
        if impact & set(fgraph.outputs):
            return False
        return destroyer is None or not self._surely_refused(fgraph, destroyer, roots, impact)

    def _surely_refused(self, fgraph: FunctionGraph, destroyer: Apply, roots: list[Variable],
                        impact: set[Variable]) -> bool:
        """Whether ``destroyer`` overwriting the value ``impact`` (of ``roots``) breaks a rule
        whatever else changes: a root another destroyer claims, or a reader after it."""
        if self._analyze(fgraph)[1] is not None:  # (judges the destroyers a change forgot)
            return False  # an invalid graph: let validation say so
        for root in roots:
            if self._claimed.get(root, set()) - {destroyer}:
                return True
        readers = {client for w in impact for client, _ in fgraph.clients.get(w, ())
                   if isinstance(client, Apply)}
        readers.discard(destroyer)
        if not readers:
            return False
        if self._position is None and not self._recompute_order(fgraph):
            return False
        return reaches(self._position, destroyer, readers, self._clients,
                       limit=_REFUSAL_SEARCH) is True

    def _clients(self, node: Apply) -> Iterable[Apply]:
        """The nodes reading ``node``'s outputs."""
        clients = self._graph().clients
        for out in node.outputs:
            for client, _ in clients.get(out, ()):
                if isinstance(client, Apply):
                    yield client

    def orderings(self, fgraph: FunctionGraph) -> dict[Apply, set[Apply]]:
        """``{destroyer: nodes that must run before it}``: other readers of its victim."""
        self._analyze(fgraph)
        return self._orderings()

    def _orderings(self) -> dict[Apply, set[Apply]]:
        return {node: set(v.readers) for node, v in self._verdicts.items() if v.readers}

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

    def _analyze(self, fgraph: FunctionGraph) -> tuple[None, str | None]:
        """(None, the first in-place rule the graph breaks or None), judging the destroyers
        without a kept verdict and checking the execution order."""
        if self._unjudged:
            outputs = set(fgraph.outputs)
            for node in list(self._unjudged):
                judged = self._judge(fgraph, node, outputs)
                if isinstance(judged, str):
                    return None, judged
                conflict = self._conflict(node, judged)
                if conflict is not None:
                    return None, conflict
                self._keep(node, judged)
        if self._unchained:
            return None, self._order_problem(fgraph)
        return None, None

    def _conflict(self, node: Apply, verdict: _Verdict) -> str | None:
        for root, _ in verdict.claims:
            for other in self._claimed.get(root, ()):
                if other is not node:
                    return f"{node} and {other} both overwrite {root}"
        return None

    def _order_problem(self, fgraph: FunctionGraph) -> str | None:
        """None if the nodes can run in an order that puts every destroyer after the other
        readers of its victim; an O(nodes) check only when the kept order does not show it."""
        position = self._position
        if position is not None:
            for destroyer in list(self._unordered):
                for reader in self._verdicts[destroyer].readers:
                    placed = add_edge(position, reader, destroyer, self._after, self._before)
                    if placed is False:
                        return _CANNOT_ORDER
                    if placed is None:
                        break
                else:
                    self._unordered.discard(destroyer)
                    continue
                break
            else:
                return None
        return None if self._recompute_order(fgraph) else _CANNOT_ORDER

    def _recompute_order(self, fgraph: FunctionGraph) -> bool:
        """Keep a new full execution order (O(nodes)); False when there is none (a cycle)."""
        order = ordering_is_possible(fgraph, self._orderings())
        if order is None:
            return False
        self._position = {node: float(k) for k, node in enumerate(order)}
        self._slots = set(self._position.values())
        self._unordered.clear()
        return True

    def _after(self, node: Apply) -> Iterable[Apply]:
        """The nodes that must run after ``node``: its clients and the destroyers whose victim
        it reads."""
        clients = self._graph().clients
        for out in node.outputs:
            for client, _ in clients.get(out, ()):
                if isinstance(client, Apply):
                    yield client
        yield from self._overwritten_by.get(node, ())

    def _before(self, node: Apply) -> Iterable[Apply]:
        """The nodes that must run before ``node``: its inputs' owners and, for a destroyer,
        the other readers of its victim."""
        for var in node.inputs:
            if var.owner is not None:
                yield var.owner
        verdict = self._verdicts.get(node)
        if verdict is not None:
            yield from verdict.readers

    def _judge(self, fgraph: FunctionGraph, node: Apply, outputs: set[Variable]
               ) -> _Verdict | str:
        """The verdict on one destroyer, or the rule it breaks on its own."""
        tolerated = set(getattr(node.op, "destroyhandler_tolerate_same", ()))
        claims: dict[Variable, int] = {}
        readers: set[Apply] = set()
        watched: set[Variable] = set()
        unchained = False
        for in_idxs in node.op.destroy_map.values():
            for i in in_idxs:
                found = self._check_destroy(fgraph, node, i, tolerated, claims, outputs,
                                            readers, watched)
                if isinstance(found, str):
                    return found
                unchained = unchained or found
        return _Verdict(tuple(claims.items()), frozenset(readers), unchained,
                        frozenset(watched))

    def _check_destroy(self, fgraph: FunctionGraph, node: Apply, i: int, tolerated: set,
                       claims: dict, outputs: set, all_readers: set[Apply],
                       watched: set[Variable]) -> str | bool:
        """The rule broken by ``node`` overwriting its input ``i``, or whether a reader of the
        value is off the view chain (``all_readers``, ``claims``, ``watched`` collect)."""
        var = node.inputs[i]
        if isinstance(var, Constant):
            return f"{node} would overwrite the constant {var}"
        unchained = False
        for root in self.roots(var, watched):
            if self.is_protected(root):
                what = "" if root is var else f"a view of {root}, "
                return (f"{node} would overwrite {var}, {what}which is a protected graph input "
                        "(inputs are protected unless marked mutable)")
            previous = claims.get(root)
            if previous is not None and (previous, i) not in tolerated and previous != i:
                return f"{node} overwrites {root} through two inputs"
            claims[root] = i
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
                unchained = True
            all_readers.update(readers)
        return unchained

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
