"""The rewrite system: node/graph rewriters, the tagged database ``optdb``, levels and passes.

Importing this package is cheap (no numba, no scipy): its names are imported from their
submodules on first use. The tensor rewrite modules register
themselves into ``optdb`` when imported; :func:`load_tensor_rewrites` imports the ones the
package root lists (the ``rewrite_modules`` service), and :func:`rewrite_fgraph` calls it before
the first rewrite.

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
import sys

from jitgraph import services
from jitgraph.lazy_exports import lazy_exports

#: public name -> the submodule defining it (imported on first use: PEP 562), so that
#: importing one part (say the DestroyHandler a compiled function needs) costs only that part
_EXPORTS: dict[str, str] = {
    "RewriteContext": "jitgraph.rewrite.context",
    "RewriteWarning": "jitgraph.rewrite.context",
    "StackTraceError": "jitgraph.rewrite.context",
    "copy_stack_trace": "jitgraph.rewrite.context",
    "shape_error": "jitgraph.rewrite.context",
    "check_stack_trace": "jitgraph.rewrite.stack_trace",
    "EquilibriumDB": "jitgraph.rewrite.db",
    "LocalGroupDB": "jitgraph.rewrite.db",
    "RewriteDatabase": "jitgraph.rewrite.db",
    "RewriteDatabaseQuery": "jitgraph.rewrite.db",
    "SequenceDB": "jitgraph.rewrite.db",
    "AddDestroyHandler": "jitgraph.rewrite.destroyhandler",
    "DestroyHandler": "jitgraph.rewrite.destroyhandler",
    "ensure_destroy_handler": "jitgraph.rewrite.destroyhandler",
    "get_destroy_handler": "jitgraph.rewrite.destroyhandler",
    "FunctionNodeRewriter": "jitgraph.rewrite.engine",
    "GraphRewriter": "jitgraph.rewrite.engine",
    "NodeRewriter": "jitgraph.rewrite.engine",
    "NodeRewriterGroup": "jitgraph.rewrite.engine",
    "SequentialGraphRewriter": "jitgraph.rewrite.engine",
    "WalkingGraphRewriter": "jitgraph.rewrite.engine",
    "in_to_out": "jitgraph.rewrite.engine",
    "node_rewriter": "jitgraph.rewrite.engine",
    "out_to_in": "jitgraph.rewrite.engine",
    "EquilibriumGraphRewriter": "jitgraph.rewrite.equilibrium",
    "History": "jitgraph.rewrite.features",
    "get_history": "jitgraph.rewrite.features",
    "replace_validate": "jitgraph.rewrite.features",
    "MAX_FOLD_BYTES": "jitgraph.rewrite.folding",
    "constant_folding": "jitgraph.rewrite.folding",
    "fold_node": "jitgraph.rewrite.folding",
    "LEVELS": "jitgraph.rewrite.levels",
    "apply_config_flags": "jitgraph.rewrite.levels",
    "get_query": "jitgraph.rewrite.levels",
    "query_for_level": "jitgraph.rewrite.levels",
    "rewrite_fgraph": "jitgraph.rewrite.levels",
    "rewrite_graph": "jitgraph.rewrite.levels",
    "MergeGraphRewriter": "jitgraph.rewrite.merge",
    "fgraph_orderings": "jitgraph.rewrite.ordering",
    "toposort_with_orderings": "jitgraph.rewrite.ordering",
    "PatternNodeRewriter": "jitgraph.rewrite.pattern",
    "pattern_table": "jitgraph.rewrite.pattern",
    "build_optdb": "jitgraph.rewrite.phases",
    "optdb": "jitgraph.rewrite.phases",
    "register_canonicalize": "jitgraph.rewrite.phases",
    "register_fusion": "jitgraph.rewrite.phases",
    "register_inplace": "jitgraph.rewrite.phases",
    "register_specialize": "jitgraph.rewrite.phases",
    "register_stabilize": "jitgraph.rewrite.phases",
    "register_uncanonicalize": "jitgraph.rewrite.phases",
    "register_useless": "jitgraph.rewrite.phases",
    "RewriteStats": "jitgraph.rewrite.stats",
    "GraphValidityError": "jitgraph.rewrite.validate",
    "check_graph": "jitgraph.rewrite.validate",
}


def load_tensor_rewrites() -> None:
    """Import the modules that register rewrites into ``optdb`` (the first call; later calls
    find them imported).

    They live above this engine (``jitgraph.tensor.rewriting``, scan's, ifelse's, the GPU
    backend's), so the engine does not name them: the package root provides their list as the
    ``rewrite_modules`` service (:mod:`jitgraph.services`), and the optional families' modules
    as ``family_rewrite_modules`` (op module -> rewrite modules), each imported here once its
    op module is (no node of the family can exist before)."""
    for module in services.get("rewrite_modules"):
        importlib.import_module(module)
    for op_module, modules in services.get("family_rewrite_modules").items():
        if op_module in sys.modules:
            for module in modules:
                importlib.import_module(module)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


__all__ = [
    "AddDestroyHandler", "DestroyHandler", "EquilibriumDB", "EquilibriumGraphRewriter",
    "FunctionNodeRewriter", "GraphRewriter", "GraphValidityError", "History", "LEVELS",
    "LocalGroupDB", "MAX_FOLD_BYTES", "MergeGraphRewriter", "NodeRewriter", "NodeRewriterGroup",
    "PatternNodeRewriter", "RewriteContext", "RewriteDatabase", "RewriteDatabaseQuery",
    "RewriteStats", "RewriteWarning", "SequenceDB", "SequentialGraphRewriter", "StackTraceError",
    "WalkingGraphRewriter", "apply_config_flags", "build_optdb",
    "check_graph", "constant_folding", "copy_stack_trace", "ensure_destroy_handler",
    "fgraph_orderings", "fold_node", "get_destroy_handler", "get_history", "get_query",
    "in_to_out", "load_tensor_rewrites", "node_rewriter", "optdb", "out_to_in", "pattern_table",
    "query_for_level", "register_canonicalize", "register_fusion", "register_inplace",
    "register_specialize", "register_stabilize", "register_uncanonicalize", "register_useless",
    "replace_validate", "rewrite_fgraph", "rewrite_graph", "shape_error",
    "toposort_with_orderings",
]
