"""The rewrite system: node/graph rewriters, the tagged database ``optdb``, levels and passes.

Importing this package is cheap (no numba, no scipy). The tensor rewrite modules register
themselves into ``optdb`` when imported; :func:`load_tensor_rewrites` imports the ones listed in
:data:`TENSOR_REWRITE_MODULES`, and :func:`rewrite_fgraph` calls it before the first rewrite.

Compile step::

    from jitgraph.rewrite import DestroyHandler, rewrite_fgraph
    fgraph.attach_feature(DestroyHandler(mutable=[...]))   # if inputs may be overwritten
    stats = rewrite_fgraph(fgraph, mode_optimizer)        # a level name, None, or a query

A rewrite module::

    from jitgraph.rewrite import node_rewriter, register_canonicalize

    @register_canonicalize
    @node_rewriter([Elemwise])
    def local_mul_by_one(fgraph, node):
        ...
"""

from __future__ import annotations

import importlib

from jitgraph.rewrite.context import (
    RewriteContext,
    RewriteWarning,
    StackTraceError,
    copy_stack_trace,
    shape_error,
)
from jitgraph.rewrite.db import (
    EquilibriumDB,
    LocalGroupDB,
    RewriteDatabase,
    RewriteDatabaseQuery,
    SequenceDB,
)
from jitgraph.rewrite.destroyhandler import (
    AddDestroyHandler,
    DestroyHandler,
    ensure_destroy_handler,
    get_destroy_handler,
)
from jitgraph.rewrite.engine import (
    FunctionNodeRewriter,
    GraphRewriter,
    NodeRewriter,
    NodeRewriterGroup,
    SequentialGraphRewriter,
    WalkingGraphRewriter,
    in_to_out,
    node_rewriter,
    out_to_in,
)
from jitgraph.rewrite.equilibrium import EquilibriumGraphRewriter
from jitgraph.rewrite.features import History, get_history, replace_validate
from jitgraph.rewrite.folding import MAX_FOLD_BYTES, constant_folding, fold_node
from jitgraph.rewrite.levels import (
    LEVELS,
    apply_config_flags,
    get_query,
    query_for_level,
    rewrite_fgraph,
    rewrite_graph,
)
from jitgraph.rewrite.merge import MergeGraphRewriter
from jitgraph.rewrite.ordering import fgraph_orderings, toposort_with_orderings
from jitgraph.rewrite.pattern import PatternNodeRewriter, pattern_table
from jitgraph.rewrite.phases import (
    build_optdb,
    optdb,
    register_canonicalize,
    register_fusion,
    register_inplace,
    register_specialize,
    register_stabilize,
    register_uncanonicalize,
    register_useless,
)
from jitgraph.rewrite.stats import RewriteStats
from jitgraph.rewrite.validate import GraphValidityError, check_graph

#: modules (dotted names) that register the tensor rewrites; imported by load_tensor_rewrites()
TENSOR_REWRITE_MODULES: tuple[str, ...] = (
    "jitgraph.rewrite.canonicalize",
    "jitgraph.rewrite.shape",
    "jitgraph.rewrite.sigmoid",
    "jitgraph.rewrite.stabilize",
    "jitgraph.rewrite.specialize",
    "jitgraph.rewrite.blas",
    "jitgraph.rewrite.fusion",
    "jitgraph.rewrite.inplace",
    "jitgraph.rewrite.gpu",
)


def load_tensor_rewrites() -> None:
    """Import the rewrite modules of :data:`TENSOR_REWRITE_MODULES` (once; later calls are free)."""
    for module in TENSOR_REWRITE_MODULES:
        importlib.import_module(module)


__all__ = [
    "AddDestroyHandler", "DestroyHandler", "EquilibriumDB", "EquilibriumGraphRewriter",
    "FunctionNodeRewriter", "GraphRewriter", "GraphValidityError", "History", "LEVELS",
    "LocalGroupDB", "MAX_FOLD_BYTES", "MergeGraphRewriter", "NodeRewriter", "NodeRewriterGroup",
    "PatternNodeRewriter", "RewriteContext", "RewriteDatabase", "RewriteDatabaseQuery",
    "RewriteStats", "RewriteWarning", "SequenceDB", "SequentialGraphRewriter", "StackTraceError",
    "TENSOR_REWRITE_MODULES", "WalkingGraphRewriter", "apply_config_flags", "build_optdb",
    "check_graph", "constant_folding", "copy_stack_trace", "ensure_destroy_handler",
    "fgraph_orderings", "fold_node", "get_destroy_handler", "get_history", "get_query",
    "in_to_out", "load_tensor_rewrites", "node_rewriter", "optdb", "out_to_in", "pattern_table",
    "query_for_level", "register_canonicalize", "register_fusion", "register_inplace",
    "register_specialize", "register_stabilize", "register_uncanonicalize", "register_useless",
    "replace_validate", "rewrite_fgraph", "rewrite_graph", "shape_error",
    "toposort_with_orderings",
]
