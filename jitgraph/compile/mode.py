"""Compiling modes: a mode is a rewrite query (the optimizer) plus a linker.

Named modes: ``FAST_COMPILE`` (fast_compile rewrites, Python ``perform`` only), ``FAST_RUN``
(every rewrite, compiled kernels), ``Mode`` (the ``linker`` and ``optimizer`` flags),
``DebugMode``/``DEBUG_MODE``, ``NanGuardMode``, ``ProfileMode``/``PROFILE_MODE``.

Unlike Theano, the default mode is not cached: changing ``config.mode``, ``config.linker`` or
``config.optimizer`` at run time takes effect for the next ``function`` call.
"""

from __future__ import annotations

from typing import Any

from jitgraph.compile.linker import Linker, get_linker
from jitgraph.graph.fg import FunctionGraph

OPTIMIZER_LEVELS = ("None", "merge", "fast_compile", "o1", "o2", "o3", "o4", "fast_run",
                    "unsafe", "stabilize")


class Mode:
    """``Mode(linker=None, optimizer='default')``: None/'default' take the ``linker`` and
    ``optimizer`` flags. ``optimizer`` is a level name, None, or a rewrite query."""

    def __init__(self, linker: str | Linker | None = None, optimizer: Any = "default",
                 include: tuple[str, ...] = (), exclude: tuple[str, ...] = (),
                 require: tuple[str, ...] = (), name: str | None = None) -> None:
        from jitgraph.config import config

        if linker is None or linker == "default":
            linker = config.linker
        if isinstance(optimizer, str) and optimizer == "default":
            optimizer = config.optimizer
        if optimizer is None:
            optimizer = "None"
        if isinstance(optimizer, str) and optimizer not in OPTIMIZER_LEVELS:
            raise ValueError(f"unknown optimizer {optimizer!r}; valid values: {OPTIMIZER_LEVELS}")
        self.linker = get_linker(linker)
        self.optimizer = optimizer
        self.include = tuple(include)
        self.exclude = tuple(exclude)
        self.require = tuple(require)
        self.name = name

    # -- queries --------------------------------------------------------------------------
    def _clone(self, **changes: Any) -> "Mode":
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        new.name = None
        return new

    def including(self, *tags: str) -> "Mode":
        """A copy of this mode that also runs the rewrites tagged with ``tags``."""
        return self._clone(include=self.include + tags)

    def excluding(self, *tags: str) -> "Mode":
        """A copy of this mode without the rewrites tagged with ``tags``."""
        return self._clone(exclude=self.exclude + tags)

    def requiring(self, *tags: str) -> "Mode":
        """A copy of this mode running only rewrites that also carry all of ``tags``."""
        return self._clone(require=self.require + tags)

    # -- use ------------------------------------------------------------------------------
    def rewrite(self, fgraph: FunctionGraph) -> Any:
        """Rewrite ``fgraph`` in place with this mode's optimizer level and tag changes."""
        from jitgraph.compile.rewriting import rewrite_for_mode

        return rewrite_for_mode(fgraph, self.optimizer, self.include, self.exclude, self.require)

    @property
    def linker_name(self) -> str:
        return self.linker.name

    def __str__(self) -> str:
        extra = "".join(f", {k}={v}" for k, v in (("include", self.include),
                                                  ("exclude", self.exclude),
                                                  ("require", self.require)) if v)
        return f"Mode(linker={self.linker.name}, optimizer={self.optimizer}{extra})"

    __repr__ = __str__


def _named(name: str) -> Mode:
    from jitgraph.config import config

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
    raise ValueError(f"unknown mode {name!r}; valid modes: {sorted(_MODE_NAMES)}")


_MODE_NAMES = {"FAST_COMPILE", "FAST_RUN", "Mode", "DebugMode", "DEBUG_MODE", "NanGuardMode",
               "ProfileMode", "PROFILE_MODE"}
_CASE_INSENSITIVE = {n.upper(): n for n in _MODE_NAMES}


def get_mode(mode: Any = None) -> Mode:
    """The Mode for ``mode`` (None: the ``mode`` flag; a name; or a Mode instance)."""
    from jitgraph.config import config

    if mode is None:
        mode = config.mode
    if isinstance(mode, Mode):
        return mode
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a Mode or a mode name, not {type(mode).__name__}")
    name = mode if mode in _MODE_NAMES else _CASE_INSENSITIVE.get(mode.upper(), mode)
    return _named(name)


def get_default_mode() -> Mode:
    return get_mode(None)
