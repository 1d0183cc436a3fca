"""Databases of named, tagged rewrites, and the queries that select from them.

A rewrite is registered under a unique name with tags; it is indexed by its name, by every tag and
by the name of the database it is registered in (unless ``use_db_name_as_tag=False``). A
:class:`RewriteDatabaseQuery` selects the union of its ``include`` tags, keeps only the rewrites
carrying every ``require`` tag, and removes those with any ``exclude`` tag. Selected entries that
are themselves databases are queried recursively with the same query (or ``subquery[name]``), so
the tags filter the rewrites *inside* canonicalize, specialize and the rest.

Two choices differ from Theano/PyTensor and are deliberate:

* ``require`` filters rewrites, not the databases holding them: a sub-database passes the
  ``require`` test and its content is filtered, so ``requiring("stable")`` keeps exactly the
  rewrites tagged ``stable`` wherever they are registered;
* ``including(tag)`` removes ``tag`` from the excludes and ``excluding(tag)`` removes it from the
  includes: the last call wins, which is what ``optimizer_including=inplace`` on ``o3`` means.

``position_cutoff`` applies to the positions of the database being queried (the top-level
``optdb``), not to the local positions inside sub-databases.

A query's result is a rewriter: a :class:`~jitgraph.rewrite.engine.SequentialGraphRewriter` for a
:class:`SequenceDB`, an :class:`~jitgraph.rewrite.equilibrium.EquilibriumGraphRewriter` for an
:class:`EquilibriumDB`, a :class:`~jitgraph.rewrite.engine.NodeRewriterGroup` for a
:class:`LocalGroupDB`. A database whose query selects nothing is left out of its parent's result.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from jitgraph.rewrite import load_tensor_rewrites
from jitgraph.rewrite.engine import (
    GraphRewriter,
    NodeRewriter,
    NodeRewriterGroup,
    SequentialGraphRewriter,
    WalkingGraphRewriter,
)
from jitgraph.rewrite.equilibrium import EquilibriumGraphRewriter

_version = itertools.count(1)
_current_version = 0


def db_version() -> int:
    """A number that changes whenever any database changes (for caching query results)."""
    return _current_version


def _bump_version() -> None:
    global _current_version
    _current_version = next(_version)


#: True once code outside jitgraph has registered or removed a rewrite in this process: the
#: rewrite passes are then not jitgraph's alone, and rewritten graphs are not cached
#: (:mod:`jitgraph.compile.graph_cache`).
changed_outside_jitgraph = False
_PLUMBING = ("jitgraph.rewrite.db", "jitgraph.rewrite.phases")


def _note_caller() -> None:
    global changed_outside_jitgraph
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__") in _PLUMBING \
            and frame.f_code.co_name != "<module>":  # (the plumbing's own registrations)
        frame = frame.f_back
    module = frame.f_globals.get("__name__", "") if frame is not None else ""
    if not module.startswith("jitgraph."):
        changed_outside_jitgraph = True


def _dedupe(tags: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(tags))


@dataclass(frozen=True)
class RewriteDatabaseQuery:
    """Which rewrites to select: ``include`` ∪, ``require`` ∩, ``exclude`` −, ``position_cutoff``.

    Immutable and hashable; :meth:`including`, :meth:`excluding` and :meth:`requiring` return new
    queries. ``subquery`` maps a sub-database name to the query used inside it.
    """

    include: tuple[str, ...] = ()
    require: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    subquery: Any = None
    position_cutoff: float = math.inf

    def __post_init__(self) -> None:
        for name in ("include", "require", "exclude"):
            value = getattr(self, name)
            if isinstance(value, str):
                value = (value,)
            object.__setattr__(self, name, _dedupe(tuple(value)))
        sub = self.subquery
        if isinstance(sub, Mapping):
            sub = tuple(sorted(sub.items()))
        object.__setattr__(self, "subquery", tuple(sub) if sub else ())
        object.__setattr__(self, "position_cutoff", float(self.position_cutoff))

    # -- derived queries --------------------------------------------------------------------
    def including(self, *tags: str) -> RewriteDatabaseQuery:
        """This query also selecting ``tags`` (and no longer excluding them)."""
        return self._replace(include=self.include + tags,
                             exclude=tuple(t for t in self.exclude if t not in tags))

    def excluding(self, *tags: str) -> RewriteDatabaseQuery:
        """This query dropping rewrites tagged with any of ``tags``."""
        return self._replace(exclude=self.exclude + tags,
                             include=tuple(t for t in self.include if t not in tags))

    def requiring(self, *tags: str) -> RewriteDatabaseQuery:
        """This query keeping only rewrites that carry every one of ``tags``."""
        return self._replace(require=self.require + tags)

    def with_cutoff(self, position_cutoff: float) -> RewriteDatabaseQuery:
        """This query with another ``position_cutoff``."""
        return self._replace(position_cutoff=position_cutoff)

    def _replace(self, **changes: Any) -> RewriteDatabaseQuery:
        fields = dict(include=self.include, require=self.require, exclude=self.exclude,
                      subquery=self.subquery, position_cutoff=self.position_cutoff)
        fields.update(changes)
        return RewriteDatabaseQuery(**fields)

    def subquery_for(self, name: str) -> RewriteDatabaseQuery:
        """The query to use inside the sub-database called ``name``."""
        for key, q in self.subquery:
            if key == name:
                return q
        return self

    @classmethod
    def parse(cls, *specs: str) -> RewriteDatabaseQuery:
        """Build a query from ``'+tag'`` (include; a bare tag too), ``'-tag'`` and ``'&tag'``."""
        include, exclude, require = [], [], []
        for spec in specs:
            if not isinstance(spec, str) or not spec.strip("+-&"):
                raise ValueError(f"bad query item {spec!r}: expected '+tag', '-tag' or '&tag'")
            if spec[0] == "-":
                exclude.append(spec[1:])
            elif spec[0] == "&":
                require.append(spec[1:])
            else:
                include.append(spec[1:] if spec[0] == "+" else spec)
        return cls(include=include, require=require, exclude=exclude)

    def __str__(self) -> str:
        parts = [f"include={list(self.include)}"]
        if self.require:
            parts.append(f"require={list(self.require)}")
        if self.exclude:
            parts.append(f"exclude={list(self.exclude)}")
        if self.position_cutoff != math.inf:
            parts.append(f"position_cutoff={self.position_cutoff}")
        return f"RewriteDatabaseQuery({', '.join(parts)})"


def as_query(args: Sequence[Any]) -> RewriteDatabaseQuery:
    """A single RewriteDatabaseQuery, or strings in the ``'+tag'`` form, as a query."""
    if len(args) == 1 and isinstance(args[0], RewriteDatabaseQuery):
        return args[0]
    if all(isinstance(a, str) for a in args):
        return RewriteDatabaseQuery.parse(*args)
    raise TypeError("query() takes a RewriteDatabaseQuery or strings like '+fast_run', "
                    f"'-inplace', '&stable'; got {args!r}")


@dataclass
class _Entry:
    name: str
    rewriter: Any
    tags: frozenset[str]
    position: float
    index: int
    options: dict = field(default_factory=dict)


class RewriteDatabase:
    """Named, tagged rewrites. Subclasses decide what a query result is and how it is ordered."""

    requires_position = False

    def __init__(self, name: str | None = None) -> None:
        self.name = name
        self._entries: dict[str, _Entry] = {}
        self._by_tag: dict[str, set[str]] = {}
        self._counter = itertools.count()

    # -- registration -----------------------------------------------------------------------
    def register(self, name: str, rewriter: Any, *tags: str, position: float | None = None,
                 use_db_name_as_tag: bool = True, **options: Any) -> Any:
        """Add ``rewriter`` under ``name`` with ``tags``; returns ``rewriter``.

        Theano's calling conventions work too: ``register(name, obj, position, *tags)`` in an
        ordered database, and ``final_opt=True`` for ``final=True``."""
        if position is None and tags and isinstance(tags[0], (int, float)) \
                and not isinstance(tags[0], bool):
            position, tags = tags[0], tags[1:]
        if "final_opt" in options:
            options["final"] = options.pop("final_opt")
        if not isinstance(name, str) or not name:
            raise TypeError(f"a rewrite name must be a non-empty string, not {name!r}")
        if not isinstance(rewriter, (NodeRewriter, GraphRewriter, RewriteDatabase)):
            raise TypeError(f"cannot register {rewriter!r} as {name!r}: expected a NodeRewriter "
                            "(see @node_rewriter), a GraphRewriter or a RewriteDatabase")
        if name in self._entries:
            raise ValueError(f"{name!r} is already registered in {self._label()}")
        if name in self._by_tag:
            raise ValueError(f"{name!r} is already used as a tag in {self._label()}")
        all_tags = set(tags)
        if use_db_name_as_tag and self.name:
            all_tags.add(self.name)
        clash = all_tags & set(self._entries)
        if clash:
            raise ValueError(f"tag {sorted(clash)[0]!r} is already the name of a rewrite in "
                             f"{self._label()}")
        if self.requires_position and position is None:
            raise TypeError(f"{self._label()} orders its rewrites: pass position=<float>")
        index = next(self._counter)
        if isinstance(rewriter, RewriteDatabase) and rewriter.name is None:
            rewriter.name = name
        entry = _Entry(name, rewriter, frozenset(all_tags),
                       float(index if position is None else position), index, options)
        self._entries[name] = entry
        for tag in all_tags | {name}:
            self._by_tag.setdefault(tag, set()).add(name)
        _bump_version()
        _note_caller()
        return rewriter

    def unregister(self, name: str) -> None:
        """Remove the rewrite registered as ``name``."""
        entry = self._entries.pop(name)
        _note_caller()
        for tag in entry.tags | {name}:
            names = self._by_tag.get(tag)
            if names is not None:
                names.discard(name)
                if not names:
                    del self._by_tag[tag]
        _bump_version()

    def _label(self) -> str:
        return f"{type(self).__name__} {self.name!r}" if self.name else type(self).__name__

    # -- inspection -------------------------------------------------------------------------
    def __contains__(self, name: str) -> bool:
        return name in self._entries

    def __getitem__(self, name: str) -> Any:
        try:
            return self._entries[name].rewriter
        except KeyError:
            raise KeyError(f"no rewrite named {name!r} in {self._label()}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._sorted_names())

    def _sorted_names(self) -> list[str]:
        return [e.name for e in sorted(self._entries.values(), key=lambda e: (e.position, e.index))]

    def tags_of(self, name: str) -> frozenset[str]:
        """The tags of the entry ``name`` (the database name included, when used as a tag)."""
        return self._entries[name].tags

    def position_of(self, name: str) -> float:
        """The position of the entry ``name`` (its registration index in unordered databases)."""
        return self._entries[name].position

    def print_summary(self, file: TextIO | None = None, indent: str = "") -> None:
        """List the entries (position, name, tags), recursing into sub-databases."""
        out = file or sys.stdout
        if not indent:
            print(f"{self._label()}:", file=out)
        for name in self._sorted_names():
            e = self._entries[name]
            pos = f"{e.position:g} " if self.requires_position else ""
            print(f"{indent}  {pos}{name} {sorted(e.tags)}", file=out)
            if isinstance(e.rewriter, RewriteDatabase):
                e.rewriter.print_summary(out, indent + "    ")

    # -- queries ----------------------------------------------------------------------------
    def query(self, *args: Any) -> Any:
        """The rewriter made of the entries selected by a query (see the module docstring).
        The rewrite modules are loaded first, so a query made before any function was compiled
        (``optdb.query(OPT_FAST_RUN).optimize(fgraph)``, as Theano's tests do) sees them all."""
        load_tensor_rewrites()
        q = as_query(args)
        return self._build(self._select(q), q)

    def _select(self, q: RewriteDatabaseQuery) -> list[tuple[_Entry, Any]]:
        names: set[str] = set()
        for tag in q.include:
            names |= self._by_tag.get(tag, set())
        for tag in q.require:
            tagged = self._by_tag.get(tag, set())
            names = {n for n in names
                     if n in tagged or isinstance(self._entries[n].rewriter, RewriteDatabase)}
        for tag in q.exclude:
            names -= self._by_tag.get(tag, set())
        entries = sorted((self._entries[n] for n in names), key=lambda e: (e.position, e.index))
        if self.requires_position:
            entries = [e for e in entries if e.position <= q.position_cutoff]
        selected = []
        for e in entries:
            rw = e.rewriter
            if isinstance(rw, RewriteDatabase):
                rw = rw.query(q.subquery_for(e.name).with_cutoff(math.inf))
                if hasattr(rw, "__len__") and len(rw) == 0:
                    continue
                rw.name = e.name  # phases are reported under the name users exclude them by
            selected.append((e, rw))
        return selected

    def _build(self, selected: list[tuple[_Entry, Any]], q: RewriteDatabaseQuery) -> Any:
        return [rw for _, rw in selected]


class SequenceDB(RewriteDatabase):
    """Phases ordered by float ``position``; a query gives a SequentialGraphRewriter.

    Node rewriters registered here run as one in-to-out pass each.
    """

    requires_position = True

    def _build(self, selected: list[tuple[_Entry, Any]], q: RewriteDatabaseQuery
               ) -> SequentialGraphRewriter:
        phases = []
        for entry, rw in selected:
            if isinstance(rw, NodeRewriter):
                rw = WalkingGraphRewriter(rw, "in_to_out", name=entry.name)
            phases.append(rw)
        return SequentialGraphRewriter(phases, name=self.name)


class EquilibriumDB(RewriteDatabase):
    """Rewrites applied together until a fixed point; a query gives an EquilibriumGraphRewriter.

    Register a graph rewriter with ``final=True`` to run it after every sweep that changed the
    graph (a merge cleanup, typically); other graph rewriters run at the start of every sweep.
    """

    def __init__(self, name: str | None = None, ignore_newtrees: bool = False,
                 max_use_ratio: float | None = None) -> None:
        super().__init__(name)
        self.ignore_newtrees = ignore_newtrees
        self.max_use_ratio = max_use_ratio

    def _build(self, selected: list[tuple[_Entry, Any]], q: RewriteDatabaseQuery
               ) -> EquilibriumGraphRewriter:
        main = [rw for e, rw in selected if not e.options.get("final")]
        final = [rw for e, rw in selected if e.options.get("final")]
        return EquilibriumGraphRewriter(main, max_use_ratio=self.max_use_ratio,
                                        final_rewriters=final,
                                        ignore_newtrees=self.ignore_newtrees, name=self.name)


class LocalGroupDB(RewriteDatabase):
    """Node rewriters used as one node rewriter (tried in registration order)."""

    def _build(self, selected: list[tuple[_Entry, Any]], q: RewriteDatabaseQuery
               ) -> NodeRewriterGroup:
        members = [rw for _, rw in selected]
        for (entry, rw) in selected:
            if not isinstance(rw, NodeRewriter):
                raise TypeError(f"{self._label()} holds node rewriters only; {entry.name!r} "
                                f"is {type(rw).__name__}")
        return NodeRewriterGroup(members, name=self.name)
