"""FunctionGraph features the rewrite engine relies on: undo history and change counting.

A rewrite replaces variables one client at a time; if the features then reject the graph (an
``InconsistencyError``, typically from the destroy handler), every input change made since the
checkpoint is undone in reverse order, so the graph and every feature's bookkeeping return exactly
to their previous state.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jitgraph.graph.basic import Variable
from jitgraph.graph.fg import Feature, FunctionGraph, InconsistencyError


class History(Feature):
    """Records input changes while a checkpoint is open so that they can be reverted.

    Checkpoints nest (a phase-level checkpoint around many replacement-level ones); the log is
    dropped once the outermost checkpoint is committed, so memory does not grow across phases.
    """

    def __init__(self) -> None:
        self._log: list[tuple[Any, int, Variable]] = []
        self._open = 0
        self._reverting = False

    def on_change_input(self, fgraph: FunctionGraph, node: Any, i: int, old: Variable,
                        new: Variable, reason: Any) -> None:
        if self._open and not self._reverting:
            self._log.append((node, i, old))

    def checkpoint(self) -> int:
        """Open a checkpoint; pass the returned mark to :meth:`commit` or :meth:`revert`."""
        self._open += 1
        return len(self._log)

    def changed_since(self, mark: int) -> bool:
        """Whether an input change made since ``mark`` (of an open checkpoint) is kept."""
        return len(self._log) > mark

    def commit(self, mark: int) -> None:
        """Keep the changes since ``mark`` and close that checkpoint."""
        self._open = max(self._open - 1, 0)
        if self._open == 0:
            self._log.clear()

    def revert(self, fgraph: FunctionGraph, mark: int) -> None:
        """Undo every change since ``mark`` (newest first) and close that checkpoint."""
        self._reverting = True
        try:
            while len(self._log) > mark:
                node, i, old = self._log.pop()
                fgraph.change_node_input(node, i, old, reason="revert")
        finally:
            self._reverting = False
        self.commit(mark)


def _feature(fgraph: FunctionGraph, cls: type) -> Any:
    for feature in fgraph.features:
        if isinstance(feature, cls):
            return feature
    feature = cls()
    fgraph.attach_feature(feature)
    return feature


def get_history(fgraph: FunctionGraph) -> History:
    """The graph's :class:`History` feature, attached on first use."""
    return _feature(fgraph, History)


class ReplacementTypeError(TypeError):
    """A rewrite replaced a variable by one of another type (``old`` and ``new`` are kept for
    DebugMode, which reports it as a bad rewrite)."""

    def __init__(self, old: Variable, new: Variable) -> None:
        super().__init__(f"replacement of {old} changes its type: {old.type} -> {new.type}")
        self.old, self.new = old, new


def check_replacement_types(pairs: Iterable[tuple[Variable, Variable]]
                            ) -> list[tuple[Variable, Variable]]:
    """``pairs`` with each new variable converted to the old one's type.

    Raises ``TypeError`` naming both types when a new variable cannot stand in for the old one.
    """
    checked = []
    for old, new in pairs:
        if new is None or new is old:
            continue
        if new.type != old.type:
            converted = old.type.convert_variable(new)
            if converted is None:
                raise ReplacementTypeError(old, new)
            new = converted
        checked.append((old, new))
    return checked


def creates_cycle(old: Variable, new: Variable, fgraph: FunctionGraph) -> bool:
    """True if ``new`` is computed from ``old`` through nodes the rewrite just built.

    Only the new part of ``new``'s graph is walked (it stops at variables already in ``fgraph``),
    which keeps the check cheap; a cycle through existing nodes is caught by the per-phase validity
    check instead.
    """
    stack = [new]
    seen: set[int] = set()
    while stack:
        var = stack.pop()
        if var is old:
            return True
        if id(var) in seen or var.owner is None:
            continue
        seen.add(id(var))
        if var in fgraph.variables and var.owner in fgraph.apply_nodes:
            continue
        stack.extend(var.owner.inputs)
    return False


def replace_validate(fgraph: FunctionGraph, pairs: Iterable[tuple[Variable, Variable]],
                     reason: Any = None) -> bool:
    """Replace every ``old`` by ``new`` and validate, or change nothing.

    Returns False (with the graph untouched) when a feature raises ``InconsistencyError``. Raises
    ``TypeError`` before changing anything when a type differs, and ``ValueError`` when a
    replacement would make the graph cyclic.
    """
    checked = check_replacement_types(pairs)
    for old, new in checked:
        if creates_cycle(old, new, fgraph):
            raise ValueError(f"replacing {old} by {new} would create a cycle ({new} uses {old})")
    if not checked:
        return False
    history = get_history(fgraph)
    mark = history.checkpoint()
    try:
        for old, new in checked:
            fgraph.replace(old, new, reason=reason, verbose=False)
        fgraph.validate()
    except InconsistencyError:
        history.revert(fgraph, mark)
        return False
    except BaseException:
        history.revert(fgraph, mark)
        raise
    history.commit(mark)
    return True
