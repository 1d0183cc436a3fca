"""Compiling modes: a mode is a rewrite query (the optimizer) plus a linker.

Named modes: ``FAST_COMPILE`` (fast_compile rewrites, Python ``perform`` only), ``FAST_RUN``
(every rewrite, compiled kernels), ``Mode`` (the ``linker`` and ``optimizer`` flags),
``DebugMode``/``DEBUG_MODE``, ``NanGuardMode``, ``ProfileMode``/``PROFILE_MODE``, and the modes
added with :func:`register_mode`.

``optimizer`` is a level name (``OPTIMIZER_LEVELS``), a name given to :func:`register_optimizer`,
a :class:`~jitgraph.rewrite.db.RewriteDatabaseQuery` (Theano's ``OPT_*`` constants are queries),
or a graph rewriter object that rewrites the graph by itself. ``linker`` is a linker name
(including those given to :func:`register_linker`) or a :class:`~.linker.Linker`.

Unlike Theano, the default mode is not cached: changing ``config.mode``, ``config.linker`` or
``config.optimizer`` at run time takes effect for the next ``function`` call. The module
attributes ``FAST_RUN`` and ``FAST_COMPILE`` are Mode objects made on first use.
"""

from __future__ import annotations

from typing import Any

from jitgraph.compile.linker import (COMPILED_LINKER_NAMES, LINKERS, Linker, get_linker,
                                     linker_names, wrapped_by_backends)
from jitgraph.compile.rewriting import protect_inputs, rewrite_for_mode
from jitgraph.config import config
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.test_value import test_values_set_to
from jitgraph.rewrite.db import RewriteDatabaseQuery
from jitgraph.rewrite.engine import GraphRewriter
from jitgraph.rewrite.levels import LEVELS

OPTIMIZER_LEVELS = ("None", "merge", "fast_compile", "o1", "o2", "o3", "o4", "fast_run",
                    "unsafe", "stabilize")

#: the tag under which :meth:`Mode.rewrite` records, on the nodes of ops that compile an inner
#: graph (OpFromGraph...), the mode that compiled the outer graph
COMPILE_MODE_TAG = "compile_mode"

# Theano's optimizer queries, made on first use (the rewrite package is imported then):
# ``OPT_X`` is what the level ``x`` runs; ``OPT_FAST_RUN_STABLE`` keeps only the fast_run
# rewrites tagged ``stable``.
_OPT_LEVELS = {"OPT_NONE": "none", "OPT_MERGE": "merge", "OPT_FAST_RUN": "fast_run",
               "OPT_FAST_COMPILE": "fast_compile", "OPT_O2": "o2", "OPT_O3": "o3",
               "OPT_STABILIZE": "stabilize", "OPT_UNSAFE": "unsafe"}


def _opt_query(name: str) -> Any:
    if name == "OPT_FAST_RUN_STABLE":
        return LEVELS["fast_run"].requiring("stable")
    return LEVELS[_OPT_LEVELS[name]]


#: optimizer name -> query or rewriter, beyond the levels (``register_optimizer`` adds here);
#: ``fast_run_stable`` is resolved when first used
predefined_optimizers: dict[str, Any] = {}
class _PredefinedModes(dict):
    """Registered modes by name. Indexing it with a built-in name (``'DEBUG_MODE'``,
    ``'FAST_RUN'``...) makes that mode and keeps it: from then on the name stands for that
    instance, so a program may change it (``predefined_modes['DEBUG_MODE'].check_isfinite =
    False``, as with Theano). Until then each use of a name makes a mode from the current
    flags."""

    def __missing__(self, name: str) -> "Mode":
        if name not in _MODE_NAMES:
            raise KeyError(name)
        mode = self[name] = _named(name)
        return mode


#: mode name -> Mode, added by ``register_mode`` (and the built-in ones once indexed)
predefined_modes: dict[str, "Mode"] = _PredefinedModes()


def _is_query(optimizer: Any) -> bool:
    return isinstance(optimizer, RewriteDatabaseQuery)


def _is_graph_rewriter(optimizer: Any) -> bool:
    return isinstance(optimizer, GraphRewriter)


def _resolve_optimizer(optimizer: Any) -> Any:
    if isinstance(optimizer, str) and optimizer == "default":
        optimizer = config.optimizer
    if optimizer is None:
        return "None"
    if isinstance(optimizer, str):
        if optimizer in predefined_optimizers:
            return predefined_optimizers[optimizer]
        if optimizer == "fast_run_stable":
            return _opt_query("OPT_FAST_RUN_STABLE")
        if optimizer not in OPTIMIZER_LEVELS:
            raise ValueError(f"unknown optimizer {optimizer!r}; valid values: "
                             f"{OPTIMIZER_LEVELS + ('fast_run_stable',) + tuple(predefined_optimizers)}")
        return optimizer
    if _is_query(optimizer) or _is_graph_rewriter(optimizer):
        return optimizer
    raise TypeError(f"optimizer must be a level name, a RewriteDatabaseQuery or a graph "
                    f"rewriter, not {type(optimizer).__name__}")


class Mode:
    """``Mode(linker=None, optimizer='default')``: None/'default' take the ``linker`` and
    ``optimizer`` flags. ``optimizer`` is a level or registered name, None, a rewrite query,
    or a graph rewriter."""

    def __init__(self, linker: str | Linker | None = None, optimizer: Any = "default",
                 include: tuple[str, ...] = (), exclude: tuple[str, ...] = (),
                 require: tuple[str, ...] = (), name: str | None = None) -> None:
        if linker is None or linker == "default":
            linker = config.linker
        self.linker = get_linker(linker)
        self.optimizer = _resolve_optimizer(optimizer)
        self.include = tuple(include)
        self.exclude = tuple(exclude)
        self.require = tuple(require)
        if (self.include or self.exclude or self.require) and _is_graph_rewriter(self.optimizer):
            raise TypeError("tags cannot be added to a mode whose optimizer is a rewriter "
                            "object; use a level or a RewriteDatabaseQuery")
        self.name = name

    def __setstate__(self, state: dict) -> None:
        # A mode pickled in another process (with a compiled function) holds the linker as
        # that process's backends handed it out: a CPU process's linker, unpickled where a GPU
        # is in use, would run the GPU nodes of the function's graph by their perform.
        self.__dict__.update(state)
        linker = state.get("linker")
        if isinstance(linker, Linker):
            self.linker = wrapped_by_backends(linker.name, linker)

    # -- queries --------------------------------------------------------------------------
    def _clone(self, **changes: Any) -> "Mode":
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        new.name = None
        return new

    def _with_tags(self, **changes: Any) -> "Mode":
        if _is_graph_rewriter(self.optimizer):
            raise TypeError(f"the optimizer of {self} is a rewriter object, not a query: tags "
                            "cannot be included, excluded or required")
        return self._clone(**changes)

    def including(self, *tags: str) -> "Mode":
        """A copy of this mode that also runs the rewrites tagged with ``tags``."""
        return self._with_tags(include=self.include + tags)

    def excluding(self, *tags: str) -> "Mode":
        """A copy of this mode without the rewrites tagged with ``tags``."""
        return self._with_tags(exclude=self.exclude + tags)

    def requiring(self, *tags: str) -> "Mode":
        """A copy of this mode running only rewrites that also carry all of ``tags``."""
        return self._with_tags(require=self.require + tags)

    def clone(self, link_kwargs: dict | None = None, optimizer: Any = "", **kwargs: Any
              ) -> "Mode":
        """A copy of this mode; ``optimizer`` (unless '') replaces the optimizer."""
        if link_kwargs:
            raise TypeError("jitgraph linkers take no clone arguments; build "
                            "Mode(linker=...) with the linker you want")
        changes: dict[str, Any] = dict(kwargs)
        if not (isinstance(optimizer, str) and optimizer == ""):
            changes["optimizer"] = _resolve_optimizer(optimizer)
        return self._clone(**changes)

    # -- use ------------------------------------------------------------------------------
    def rewrite(self, fgraph: FunctionGraph) -> Any:
        """Rewrite ``fgraph`` in place with this mode's optimizer and tag changes. The nodes
        rewrites build get test values as ``compute_test_value_opt`` says (default 'off': the
        graph's inputs, placeholders of an inner graph included, have none then)."""
        with test_values_set_to(config.compute_test_value_opt):
            stats = self._rewrite(fgraph)
        bind_inner_graphs(fgraph, self)
        return stats

    def _rewrite(self, fgraph: FunctionGraph) -> Any:
        if _is_graph_rewriter(self.optimizer):
            protect_inputs(fgraph)
            return self.optimizer.rewrite(fgraph)
        return rewrite_for_mode(fgraph, self.optimizer, self.include, self.exclude,
                                self.require)

    @property
    def linker_name(self) -> str:
        return self.linker.name

    @property
    def provided_optimizer(self) -> Any:
        """The optimizer as given (Theano's attribute name)."""
        return self.optimizer

    @property
    def provided_linker(self) -> Linker:
        return self.linker

    def __str__(self) -> str:
        extra = "".join(f", {k}={v}" for k, v in (("include", self.include),
                                                  ("exclude", self.exclude),
                                                  ("require", self.require)) if v)
        return f"Mode(linker={self.linker.name}, optimizer={self.optimizer}{extra})"

    __repr__ = __str__


def bind_inner_graphs(fgraph: FunctionGraph, mode: Mode) -> None:
    """Record ``mode`` on the nodes whose op compiles an inner graph (OpFromGraph...), so
    that the inner graph is compiled the way the outer one was."""
    for node in fgraph.apply_nodes:
        if getattr(node.op, "compiles_inner_graph", False):
            setattr(node.tag, COMPILE_MODE_TAG, mode)


def _named(name: str) -> Mode:
    if name in predefined_modes:
        return predefined_modes[name]
    if name == "FAST_COMPILE":
        return Mode("py", "fast_compile", name=name)
    if name == "FAST_RUN":
        linker = "cvm" if config.cxx else "vm"
        return Mode(linker, "fast_run", name=name)
    if name == "Mode":
        return Mode(name=name)
    if name in ("DebugMode", "DEBUG_MODE"):
        from jitgraph.compile.debugmode import DebugMode

        return DebugMode()
    if name == "NanGuardMode":
        from jitgraph.compile.nanguardmode import NanGuardMode

        return NanGuardMode(True, True, True)
    if name in ("ProfileMode", "PROFILE_MODE"):
        from jitgraph.compile.profilemode import named_profile_mode

        return named_profile_mode()  # a ProfileMode whose profiles are printed at exit
    raise ValueError(f"unknown mode {name!r}; valid modes: "
                     f"{sorted(_MODE_NAMES | set(predefined_modes))}")


_MODE_NAMES = {"FAST_COMPILE", "FAST_RUN", "Mode", "DebugMode", "DEBUG_MODE", "NanGuardMode",
               "ProfileMode", "PROFILE_MODE"}
_CASE_INSENSITIVE = {n.upper(): n for n in _MODE_NAMES}


def get_mode(mode: Any = None) -> Mode:
    """The Mode for ``mode`` (None: the ``mode`` flag; a name; or a Mode instance)."""
    if mode is None:
        mode = config.mode
    if isinstance(mode, Mode):
        return mode
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a Mode or a mode name, not {type(mode).__name__}")
    if mode in predefined_modes:
        return predefined_modes[mode]
    name = mode if mode in _MODE_NAMES else _CASE_INSENSITIVE.get(mode.upper(), mode)
    return _named(name)


def get_default_mode() -> Mode:
    return get_mode(None)


# ---------------------------------------------------------------------------------------------
# Registration (Theano's API: a name may be registered once)

def register_mode(name: str, mode: Mode) -> None:
    """Make ``mode`` available as ``function(..., mode=name)`` and ``get_mode(name)``."""
    if not isinstance(mode, Mode):
        raise TypeError(f"register_mode expects a Mode, got {type(mode).__name__}")
    if name in predefined_modes or name in _MODE_NAMES or name.upper() in _CASE_INSENSITIVE:
        raise ValueError(f"Mode name already taken: {name}")
    predefined_modes[name] = mode


def register_optimizer(name: str, opt: Any) -> None:
    """Make ``opt`` (a RewriteDatabaseQuery or a graph rewriter) available as
    ``Mode(optimizer=name)``."""
    if name in predefined_optimizers or name in OPTIMIZER_LEVELS \
            or name in ("default", "fast_run_stable"):
        raise ValueError(f"Optimizer name already taken: {name}")
    if not (_is_query(opt) or _is_graph_rewriter(opt)):
        raise TypeError("register_optimizer expects a RewriteDatabaseQuery or a graph rewriter "
                        f"(jitgraph.rewrite.GraphRewriter), got {type(opt).__name__}")
    predefined_optimizers[name] = opt


def register_linker(name: str, linker: Linker) -> None:
    """Make ``linker`` (a :class:`~.linker.Linker`) available as ``Mode(linker=name)``."""
    if not isinstance(linker, Linker):
        raise TypeError(f"register_linker expects a jitgraph Linker (e.g. "
                        f"jitgraph.compile.linker.VMLinker(allow_gc=False)), got "
                        f"{type(linker).__name__}")
    if name in linker_names() or name in COMPILED_LINKER_NAMES:  # (backends' names first)
        raise ValueError(f"Linker name already taken: {name}")
    LINKERS[name] = lambda: linker


_PREDEFINED = {"FAST_RUN": "FAST_RUN", "FAST_COMPILE": "FAST_COMPILE"}


def __getattr__(name: str) -> Any:
    # FAST_RUN and FAST_COMPILE are made on first use: the linker they pick reads the flags.
    if name in _PREDEFINED or name in _OPT_LEVELS or name == "OPT_FAST_RUN_STABLE":
        value = _named(_PREDEFINED[name]) if name in _PREDEFINED else _opt_query(name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Mode", "get_mode", "get_default_mode", "register_mode", "register_optimizer",
           "register_linker", "bind_inner_graphs", "OPT_NONE", "OPT_MERGE", "OPT_FAST_RUN",
           "OPT_FAST_RUN_STABLE", "OPT_FAST_COMPILE", "OPT_O2", "OPT_O3", "OPT_STABILIZE",
           "OPT_UNSAFE", "FAST_RUN", "FAST_COMPILE", "OPTIMIZER_LEVELS",
           "predefined_optimizers", "predefined_modes"]
