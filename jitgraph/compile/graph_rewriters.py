"""Two graph rewriters that change nothing, for building modes (Theano's ``compile.mode``):

* :class:`PrintCurrentFunctionGraph` prints the graph at its position in the rewrite sequence;
* :class:`AddFeatureOptimizer` attaches a feature to the graph before the rewrites run.

Register them in ``optdb`` (``optdb.register(name, rewriter, *tags, position=...)``) or give them
to ``Mode(optimizer=...)``.
"""

from __future__ import annotations

import sys
from typing import Any

from jitgraph.graph.fg import Feature, FunctionGraph
from jitgraph.graph.printing import debugprint
from jitgraph.rewrite import load_tensor_rewrites
from jitgraph.rewrite.context import RewriteContext
from jitgraph.rewrite.engine import GraphRewriter


class PrintCurrentFunctionGraph(GraphRewriter):
    """Prints ``header`` and a debugprint of the graph when it runs."""

    def __init__(self, header: str) -> None:
        super().__init__("PrintCurrentFunctionGraph")
        self.header = header

    def apply(self, fgraph: FunctionGraph, ctx: RewriteContext) -> None:
        out = sys.stdout
        out.write(f"{self.header}\n")
        debugprint(fgraph.outputs, file=out)


class AddFeatureOptimizer(GraphRewriter):
    """Attaches ``feature`` to the graph (when the rewrites start); rewrites nothing."""

    def __init__(self, feature: Feature) -> None:
        super().__init__("AddFeatureOptimizer")
        self.feature = feature

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        fgraph.attach_feature(self.feature)

    def apply(self, fgraph: FunctionGraph, ctx: RewriteContext) -> None:
        pass  # the feature was attached by add_requirements


def local_useless() -> Any:
    """The ``useless`` group of ``optdb``: node rewriters removing nodes that compute nothing
    (Theano's ``theano.compile.mode.local_useless``)."""
    from jitgraph.rewrite.phases import optdb

    load_tensor_rewrites()
    return optdb["useless"]


__all__ = ["PrintCurrentFunctionGraph", "AddFeatureOptimizer"]
