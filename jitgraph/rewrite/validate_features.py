"""The features giving a FunctionGraph Theano's ``consistent()`` (:class:`Validator`) and
``replace_validate`` / ``replace_all_validate`` (:class:`ReplaceValidate`).

Theano 1.0 attached a ``ReplaceValidate`` to every FunctionGraph, and optimizers written for it
call ``fgraph.replace_validate`` without attaching one; jitgraph's Theano-style ``Optimizer``
attaches it when the graph lacks it. Re-exported by ``theano.gof.toolbox``.
"""

from __future__ import annotations

from typing import Any, Iterable

from jitgraph.graph.basic import Variable
from jitgraph.graph.fg import Feature, FunctionGraph, InconsistencyError
from jitgraph.rewrite.features import History, replace_validate


class Validator(Feature):
    """Gives the graph ``consistent()``: whether every feature accepts it
    (``fgraph.validate()`` already exists on jitgraph graphs)."""

    def on_attach(self, fgraph: FunctionGraph) -> None:
        def consistent() -> bool:
            try:
                fgraph.validate()
                return True
            except InconsistencyError:
                return False

        fgraph.consistent = consistent  # type: ignore[attr-defined]

    def on_detach(self, fgraph: FunctionGraph) -> None:
        fgraph.__dict__.pop("consistent", None)


class ReplaceValidate(History, Validator):
    """Gives the graph ``replace_validate(old, new, reason)`` and
    ``replace_all_validate(pairs, reason)``: replace, then validate, undoing the change (and
    raising ``InconsistencyError``) when a feature rejects it."""

    def on_attach(self, fgraph: FunctionGraph) -> None:
        Validator.on_attach(self, fgraph)

        def replace_all_validate(pairs: Iterable[tuple[Variable, Variable]],
                                 reason: Any = None, verbose: Any = None) -> None:
            if not replace_validate(fgraph, list(pairs), reason=reason):
                raise InconsistencyError(f"the replacement ({reason}) was rejected by a "
                                         "feature of the graph and has been undone")

        fgraph.replace_all_validate = replace_all_validate  # type: ignore[attr-defined]
        fgraph.replace_validate = (  # type: ignore[attr-defined]
            lambda old, new, reason=None, verbose=None: replace_all_validate([(old, new)],
                                                                            reason))

    def on_detach(self, fgraph: FunctionGraph) -> None:
        Validator.on_detach(self, fgraph)
        for name in ("replace_all_validate", "replace_validate"):
            fgraph.__dict__.pop(name, None)


__all__ = ["Validator", "ReplaceValidate"]
