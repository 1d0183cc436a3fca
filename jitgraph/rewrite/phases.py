"""The global rewrite database ``optdb`` and the helpers that register rewrites into its phases.

=====  ======================  =============================================  =================
pos    name                    what runs there                                tags
=====  ======================  =============================================  =================
0      merge1                  merge / CSE                                    fast_run,
                                                                              fast_compile, merge
0.6    useless                 LocalGroupDB, one in-to-out pass               fast_run,
                                                                              fast_compile
1      canonicalize            EquilibriumDB (+ constant folding, merge)      fast_run,
                                                                              fast_compile
1.2    merge1.2                merge                                          as merge1
1.5    stabilize               EquilibriumDB                                  fast_run,
                                                                              fast_compile
2      specialize              EquilibriumDB                                  fast_run,
                                                                              fast_compile
3      uncanonicalize          EquilibriumDB                                  fast_run
48.9   merge2                  merge                                          fast_run, merge
49     elemwise_fusion         SequenceDB ``fusion``                          fast_run, fusion,
                                                                              local_elemwise_fusion
49.5   add_destroy_handler     attaches a DestroyHandler                      fast_run, inplace
50-95  (``register_inplace``)  in-place passes (default position 50.5)        fast_run, inplace
99     constant_folding_final  constant folding, one pass                     fast_run,
                                                                              fast_compile,
                                                                              constant_folding
100    merge3                  merge                                          as merge1
=====  ======================  =============================================  =================

The stabilize and specialize databases are entered under ``fast_compile`` too, but inside them
only the rewrites registered with the extra tag ``'fast_compile'`` run there (e.g. the few
stabilizations that keep gradients finite): ``register_stabilize(rw, 'fast_compile')``.
``canonicalize`` (and ``useless``) are fully active under ``fast_compile``.

Every helper is usable as ``@register_canonicalize``, ``@register_canonicalize("tag", ...)``,
``@register_canonicalize(name="...")`` or ``register_canonicalize(rewriter, "tag")``, and returns
the rewriter. A rewrite tagged ``'unsafe'`` gets neither the default tags nor the database-name tag,
so only the ``unsafe`` level (or ``optimizer_including=unsafe``) selects it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jitgraph.rewrite.db import EquilibriumDB, LocalGroupDB, RewriteDatabase, SequenceDB
from jitgraph.rewrite.destroyhandler import AddDestroyHandler
from jitgraph.rewrite.engine import GraphRewriter, NodeRewriter, WalkingGraphRewriter
from jitgraph.rewrite.folding import constant_folding
from jitgraph.rewrite.merge import MergeGraphRewriter

#: default position of an in-place pass (Theano's elemwise inplace pass sits at 50.5)
INPLACE_POSITION = 50.5


def build_optdb() -> SequenceDB:
    """A fresh database with the standard phases (tests build private ones with this)."""
    db = SequenceDB("optdb")
    db.register("merge1", MergeGraphRewriter("merge1"), "fast_run", "fast_compile", "merge",
                position=0)
    db.register("useless", LocalGroupDB("useless"), "fast_run", "fast_compile", position=0.6)
    canonicalize = EquilibriumDB("canonicalize")
    canonicalize.register("constant_folding", constant_folding, "fast_run", "fast_compile")
    canonicalize.register("canonicalize_merge", MergeGraphRewriter("canonicalize_merge"),
                          "fast_run", "fast_compile", "merge", final=True)
    db.register("canonicalize", canonicalize, "fast_run", "fast_compile", position=1)
    db.register("merge1.2", MergeGraphRewriter("merge1.2"), "fast_run", "fast_compile", "merge",
                position=1.2)
    db.register("stabilize", EquilibriumDB("stabilize"), "fast_run", "fast_compile",
                position=1.5)
    db.register("specialize", EquilibriumDB("specialize"), "fast_run", "fast_compile",
                position=2)
    db.register("uncanonicalize", EquilibriumDB("uncanonicalize"), "fast_run", position=3)
    db.register("merge2", MergeGraphRewriter("merge2"), "fast_run", "merge", position=48.9)
    db.register("elemwise_fusion", SequenceDB("fusion"), "fast_run", "fusion",
                "local_elemwise_fusion", position=49)
    db.register("add_destroy_handler", AddDestroyHandler(), "fast_run", "inplace", position=49.5)
    db.register("constant_folding_final",
                WalkingGraphRewriter(constant_folding, name="constant_folding_final"),
                "fast_run", "fast_compile", "constant_folding", position=99)
    db.register("merge3", MergeGraphRewriter("merge3"), "fast_run", "fast_compile", "merge",
                position=100)
    return db


#: the global database the compile step queries
optdb: SequenceDB = build_optdb()


def _registrar(target: Callable[[], RewriteDatabase], default_tags: tuple[str, ...],
               doc: str, wrap_node: bool = False, default_position: float | None = None
               ) -> Callable[..., Any]:
    def register(rewriter: Any = None, *tags: str, name: str | None = None,
                 position: float | None = None, use_db_name_as_tag: bool = True,
                 **options: Any) -> Any:
        if isinstance(rewriter, str):  # used as @register_x("tag", ...)
            tags, rewriter = (rewriter, *tags), None
        if rewriter is None:
            return lambda rw: register(rw, *tags, name=name, position=position,
                                       use_db_name_as_tag=use_db_name_as_tag, **options)
        if not isinstance(rewriter, (NodeRewriter, GraphRewriter, RewriteDatabase)):
            raise TypeError(f"{register.__name__} expects a rewriter (decorate the function with "
                            f"@node_rewriter(...) first), not {rewriter!r}")
        db = target()
        entry_name = name or rewriter.name
        all_tags = tuple(tags)
        if "unsafe" in tags:
            use_db_name_as_tag = False
        else:
            all_tags = default_tags + all_tags
        if position is None:
            position = default_position
        if position is None and db.requires_position:
            position = float(len(list(db)))
        entry = rewriter
        if wrap_node and isinstance(rewriter, NodeRewriter):
            entry = WalkingGraphRewriter(rewriter, "in_to_out", name=entry_name)
        db.register(entry_name, entry, *all_tags, position=position,
                    use_db_name_as_tag=use_db_name_as_tag, **options)
        return rewriter

    register.__doc__ = doc
    return register


def _sub(name: str) -> Callable[[], RewriteDatabase]:
    return lambda: optdb[name]


register_canonicalize = _registrar(
    _sub("canonicalize"), ("fast_run", "fast_compile"),
    "Register a rewrite in canonicalize (tags fast_run, fast_compile, canonicalize).")
register_stabilize = _registrar(
    _sub("stabilize"), ("fast_run",),
    "Register a rewrite in stabilize (tags fast_run, stabilize; add 'fast_compile' to run it "
    "under FAST_COMPILE too, for the rewrites that keep values or gradients finite).")
register_specialize = _registrar(
    _sub("specialize"), ("fast_run",),
    "Register a rewrite in specialize (tags fast_run, specialize; 'fast_compile' to add).")
register_uncanonicalize = _registrar(
    _sub("uncanonicalize"), ("fast_run",),
    "Register a rewrite in uncanonicalize (tags fast_run, uncanonicalize).")
register_useless = _registrar(
    _sub("useless"), ("fast_run", "fast_compile"),
    "Register a node rewriter in the useless pass (tags fast_run, fast_compile, useless).")
register_fusion = _registrar(
    _sub("elemwise_fusion"), ("fast_run",),
    "Register a rewrite in the fusion phase (tags fast_run, fusion); node rewriters run as one "
    "in-to-out pass each, in order of ``position``.")
register_inplace = _registrar(
    lambda: optdb, ("fast_run", "inplace"),
    "Register an in-place pass in optdb between 50 and 95 (default 50.5; tags fast_run, "
    "inplace). A node rewriter runs as one in-to-out pass; declare it with inplace=True.",
    wrap_node=True, default_position=INPLACE_POSITION)
