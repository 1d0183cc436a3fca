"""Optimizer levels as queries on ``optdb``, and the entry points that rewrite a graph.

========================  ======================================================================
level                     query
========================  ======================================================================
``None``                  nothing (no rewriting at all)
``merge``                 include ``merge`` (only the merge/CSE passes)
``fast_compile``, ``o1``  include ``fast_compile``
``o2``                    include ``fast_compile`` and ``fusion``
``o3``                    include ``fast_run``, exclude ``inplace``
``fast_run``, ``o4``      include ``fast_run``
``unsafe``                include ``fast_run`` and ``unsafe`` (also drops safety asserts)
``stabilize``             include ``fast_run`` up to position 1.5000001 (stops after stabilize)
========================  ======================================================================

**A deliberate difference from Theano and PyTensor:** ``config.optimizer_including``,
``optimizer_excluding`` and ``optimizer_requiring`` apply to *every* query built from a level,
including the ones behind ``mode='FAST_RUN'`` and ``mode='FAST_COMPILE'`` (Theano applied them to
the default mode only and silently ignored them for named modes; Theano#4857). The one exception
is the level ``None``: it means "no rewriting" and is the reference the other levels are tested
against, so the flags do not apply to it. ``config.optdb.position_cutoff`` lowers the cutoff of
every query, and ``config.tensor.local_elemwise_fusion=False`` excludes ``local_elemwise_fusion``.

The compile step calls :func:`rewrite_fgraph` (or ``optdb.query(q).rewrite(fgraph)`` with
``q = query_for_level(level)``); tests use :func:`rewrite_graph`, which also takes bare output
variables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jitgraph.graph.basic import Constant, Variable, clone_get_equiv, graph_inputs
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite import _flags, load_tensor_rewrites
from jitgraph.rewrite.db import RewriteDatabaseQuery, SequenceDB, db_version
from jitgraph.rewrite.engine import GraphRewriter
from jitgraph.rewrite.stats import RewriteStats

Q = RewriteDatabaseQuery

#: the named levels (lower-case; lookups are case-insensitive)
LEVELS: dict[str, RewriteDatabaseQuery] = {
    "none": Q(include=()),
    "merge": Q(include=("merge",)),
    "fast_compile": Q(include=("fast_compile",)),
    "o1": Q(include=("fast_compile",)),
    "o2": Q(include=("fast_compile", "fusion")),
    "o3": Q(include=("fast_run",), exclude=("inplace",)),
    "fast_run": Q(include=("fast_run",)),
    "o4": Q(include=("fast_run",)),
    "unsafe": Q(include=("fast_run", "unsafe")),
    "stabilize": Q(include=("fast_run",), position_cutoff=1.5000001),
}


def get_query(level: str | None | RewriteDatabaseQuery) -> RewriteDatabaseQuery:
    """The query of a named level (``None``/``'None'`` too), or ``level`` if it is a query.

    Raises ValueError naming the valid levels for an unknown name. The config flags are not
    applied here; see :func:`query_for_level`.
    """
    if isinstance(level, RewriteDatabaseQuery):
        return level
    if level is None:
        return LEVELS["none"]
    if isinstance(level, str) and level.lower() in LEVELS:
        return LEVELS[level.lower()]
    valid = "None, merge, fast_compile (o1), o2, o3, fast_run (o4), unsafe, stabilize"
    raise ValueError(f"unknown optimizer level {level!r}; valid levels are {valid} "
                     "(or a RewriteDatabaseQuery)")


def is_none_level(level: Any) -> bool:
    """True for the level that does no rewriting."""
    return level is None or (isinstance(level, str) and level.lower() == "none")


def apply_config_flags(query: RewriteDatabaseQuery) -> RewriteDatabaseQuery:
    """``query`` plus ``optimizer_including/excluding/requiring`` and the cutoff/fusion flags."""
    q = query.including(*_flags.tag_list(_flags.flag("optimizer_including")))
    q = q.excluding(*_flags.tag_list(_flags.flag("optimizer_excluding")))
    q = q.requiring(*_flags.tag_list(_flags.flag("optimizer_requiring")))
    if not _flags.flag("tensor.local_elemwise_fusion"):
        q = q.excluding("local_elemwise_fusion")
    cutoff = float(_flags.flag("optdb.position_cutoff"))
    if cutoff < q.position_cutoff:
        q = q.with_cutoff(cutoff)
    return q


def query_for_level(level: str | None | RewriteDatabaseQuery, apply_config: bool = True, *,
                    include: Sequence[str] = (), exclude: Sequence[str] = (),
                    require: Sequence[str] = ()) -> RewriteDatabaseQuery:
    """The query a compile with optimizer ``level`` runs.

    ``include``/``exclude``/``require`` are the mode's own tag changes (``Mode.including``...);
    then the config flags are applied, except for the level None.
    """
    query = get_query(level).including(*include).excluding(*exclude).requiring(*require)
    if apply_config and not is_none_level(level):
        query = apply_config_flags(query)
    return query


_rewriter_cache: dict[tuple, GraphRewriter] = {}


def get_rewriter(query: RewriteDatabaseQuery, db: SequenceDB | None = None) -> GraphRewriter:
    """``db.query(query)`` (default: ``optdb``), cached until a database changes."""
    from jitgraph.rewrite.phases import optdb

    db = optdb if db is None else db
    key = (id(db), query, db_version())
    rewriter = _rewriter_cache.get(key)
    if rewriter is None:
        if len(_rewriter_cache) > 64:
            _rewriter_cache.clear()
        rewriter = _rewriter_cache[key] = db.query(query)
    return rewriter


def rewrite_fgraph(fgraph: FunctionGraph, level: str | None | RewriteDatabaseQuery = "fast_run",
                   apply_config: bool = True, db: SequenceDB | None = None, *,
                   include: Sequence[str] = (), exclude: Sequence[str] = (),
                   require: Sequence[str] = ()) -> RewriteStats:
    """Rewrite ``fgraph`` in place for an optimizer level (or query); return the statistics.

    This is the compile step's entry point: it loads the tensor rewrite modules on first use,
    builds the query (:func:`query_for_level`: the mode's tag changes, then the config flags)
    and runs the selected phases. The statistics are also left in ``fgraph.rewrite_stats``.
    """
    load_tensor_rewrites()
    query = query_for_level(level, apply_config, include=include, exclude=exclude,
                            require=require)
    return get_rewriter(query, db).rewrite(fgraph)


_DEFAULT = object()


def rewrite_graph(graph: FunctionGraph | Variable | Sequence[Variable],
                  level: Any = _DEFAULT, *,
                  include: Sequence[str] = (), exclude: Sequence[str] = (),
                  require: Sequence[str] = (), apply_config: bool = True,
                  db: SequenceDB | None = None) -> Any:
    """Rewrite a FunctionGraph (in place; returned) or output variables (rewritten copies).

    Select with a level/query (``None`` rewrites nothing), or with ``include``/``exclude``/
    ``require`` tags; with neither, ``fast_run``. Tags given with a level refine it. Output
    variables keep their original graph inputs, so the results can be evaluated with the same
    inputs::

        y2 = rewrite_graph(y, include=["canonicalize"])
    """
    if level is _DEFAULT:
        query = Q(include=tuple(include)) if include else get_query("fast_run")
    else:
        query = get_query(level).including(*include)
        if is_none_level(level):
            apply_config = False
    query = query.excluding(*exclude).requiring(*require)
    if isinstance(graph, FunctionGraph):
        rewrite_fgraph(graph, query, apply_config, db)
        return graph
    single = isinstance(graph, Variable)
    outputs = [graph] if single else list(graph)
    inputs = [v for v in graph_inputs(outputs) if not isinstance(v, Constant)]
    # Clone the nodes but not the inputs: rewriting changes nodes in place.
    equiv = clone_get_equiv(inputs, outputs, copy_inputs=False)
    fgraph = FunctionGraph(inputs, [equiv[o] for o in outputs], clone=False)
    rewrite_fgraph(fgraph, query, apply_config, db)
    return fgraph.outputs[0] if single else list(fgraph.outputs)


__all__ = ["LEVELS", "get_query", "apply_config_flags", "query_for_level", "get_rewriter",
           "rewrite_fgraph", "rewrite_graph", "is_none_level"]
