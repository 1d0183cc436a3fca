"""The ``Config`` object: flag registry, precedence, sources, attribute access and ``change_flags``.

Precedence, lowest to highest: the flag's default < rc files < ``THEANO_FLAGS`` <
``JITGRAPH_FLAGS`` < assignment in code or ``change_flags``. Values from env vars and rc files are
read when ``Config`` is built and validated when their flag is registered (so a bad value makes
``import jitgraph.config`` fail, like ``import theano``); whatever is left unmatched once every
flag is registered is reported by ``warn_unknown_flags``.

Not thread-safe: like Theano and PyTensor, ``change_flags`` mutates the one global config.
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING, Any

from jitgraph.config import sources
from jitgraph.config.params import (
    ConfigError,
    ConfigReadOnlyError,
    JitgraphConfigWarning,
    Param,
    warn_user,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping

_LAZY = object()  # a callable default that has not been evaluated yet
DEFAULT_SOURCE = "default"
CODE_SOURCE = "code"


def closest(name: str, candidates: list[str] | tuple[str, ...], n: int = 3) -> list[str]:
    """The known names closest to ``name`` (a case-insensitive exact match first)."""
    exact = [c for c in candidates if c.lower() == name.lower()]
    import difflib  # only needed on the error path

    close = difflib.get_close_matches(name, candidates, n=n, cutoff=0.6)
    return list(dict.fromkeys(exact + close))[:n]


def _did_you_mean(names: list[str]) -> str:
    return f"; did you mean {' or '.join(repr(n) for n in names)}?" if names else ""


class ConfigSection:
    """Attribute access to a group of flags: ``config.nvcc.fastmath``, ``config.dnn.conv``."""

    __slots__ = ("_config", "_prefix")
    _config: Config
    _prefix: str

    def __init__(self, config: Config, prefix: str) -> None:
        object.__setattr__(self, "_config", config)
        object.__setattr__(self, "_prefix", prefix)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._config._attr_get(f"{self._prefix}.{name}")

    def __setattr__(self, name: str, value: Any) -> None:
        self._config._attr_set(f"{self._prefix}.{name}", value)

    def __dir__(self) -> list[str]:
        return self._config._children(self._prefix)

    def __repr__(self) -> str:
        return f"<config section {self._prefix!r}: {', '.join(self.__dir__())}>"


class Config:
    """The registry of typed flags and their current values.

    Read flags as attributes (``config.floatX``, ``config.nvcc.fastmath``,
    ``config.nvcc__fastmath``) or with ``get``; assign the same way (source ``"code"``).
    """

    # ``jitgraph.config`` is this object once jitgraph/__init__.py has imported it, so the
    # exception types are reachable from it as well as from the module.
    ConfigError = ConfigError
    ConfigReadOnlyError = ConfigReadOnlyError
    JitgraphConfigWarning = JitgraphConfigWarning
    _environ: dict[str, str]

    def __init__(self, environ: Mapping[str, str] | None = None, *, read_sources: bool = True):
        """Read (but do not yet match) the flag strings and rc files visible in ``environ``."""
        env = dict(os.environ if environ is None else environ)
        object.__setattr__(self, "_environ", env)
        self._params: dict[str, Param] = {}
        self._values: dict[str, Any] = {}
        self._sources: dict[str, str] = {}
        self._sections: set[str] = set()
        self._rc_keys: dict[tuple[str, str], str] = {}  # (section, option.lower()) -> flag
        self._warned: set[Any] = set()
        self._env_layers = sources.env_flag_settings(env) if read_sources else []
        self._rc = sources.rc_settings(env) if read_sources else {}
        self._used_env: set[str] = set()
        self._used_rc: set[tuple[str, str]] = set()

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            self._attr_set(name, value)

    # ---------------------------------------------------------------- registration

    def add(self, param: Param) -> None:
        """Register a flag and resolve its value from the env vars and rc files.

        Raises ``ConfigError`` if the user-supplied value is invalid.
        """
        name = param.name
        top = name.split(".", 1)[0]
        if name in self._params or name in self._sections or "__" in name or name[0] == "_":
            raise ValueError(f"cannot register config flag {name!r}: name taken or invalid")
        if hasattr(type(self), top) or any(
            name[:i] in self._params for i, ch in enumerate(name) if ch == "."
        ):
            raise ValueError(f"cannot register config flag {name!r}: clashes with {top!r}")
        section, option = sources.split_flag_name(name)
        rc_key = (section, option.lower())
        if rc_key in self._rc_keys:
            other = self._rc_keys[rc_key]
            raise ValueError(f"config flag {name!r} differs only in case from {other!r}")
        self._rc_keys[rc_key] = name
        parts = name.split(".")
        self._sections.update(".".join(parts[:i]) for i in range(1, len(parts)))
        self._params[name] = param

        setting = self._find_setting(name, rc_key)
        if setting is None:
            self._values[name] = _LAZY if param.lazy else param.default_value()
            self._sources[name] = DEFAULT_SOURCE
            return
        value = self._coerce(param, setting.raw, setting.source)
        self._values[name] = value
        self._sources[name] = setting.source
        self._warn_if_ignored(param, value, setting.source)

    def _find_setting(self, name: str, rc_key: tuple[str, str]) -> sources.Setting | None:
        found = None
        for layer in self._env_layers:  # lowest priority first: the last hit wins
            if name in layer:
                found = layer[name]
                self._used_env.add(name)
        if found is None and rc_key in self._rc:
            found = self._rc[rc_key]
        if rc_key in self._rc:
            self._used_rc.add(rc_key)
        return found

    def warn_unknown_flags(self) -> None:
        """Warn once for each env key, rc section and rc option that matches no flag."""
        known = list(self._params)
        for layer in self._env_layers:
            for key, setting in layer.items():
                if key not in self._used_env:
                    hint = _did_you_mean(closest(key, known))
                    self._warn_once(
                        ("unknown", setting.source, key),
                        f"jitgraph does not recognise the flag {setting.key!r} "
                        f"(from {setting.source}){hint}",
                    )
        sections = [*sorted(self._sections), sources.GLOBAL_SECTION]
        for (section, option), setting in self._rc.items():
            if (section, option) in self._used_rc:
                continue
            written = setting.section
            if written != sources.GLOBAL_SECTION and (
                sources.normalize_key(written) not in self._sections
            ):
                where = setting.source.rsplit(" [", 1)[0]
                hint = _did_you_mean([f"[{s}]" for s in closest(written, sections)])
                self._warn_once(
                    ("section", where, written),
                    f"jitgraph does not recognise the section [{written}] in {where}{hint}",
                )
                continue
            if written == sources.GLOBAL_SECTION:  # full names, dotted ones included
                near = closest(sources.normalize_key(setting.key), known)
            else:
                prefix = f"{section}."
                near = closest(setting.key, [n[len(prefix):] for n in known
                                             if sources.split_flag_name(n)[0] == section])
            hint = _did_you_mean(near)
            self._warn_once(
                ("option", setting.source, option),
                f"jitgraph does not recognise the option {setting.key!r} ({setting.source}){hint}",
            )

    # ---------------------------------------------------------------- values

    def _resolve(self, name: str) -> str:
        norm = sources.normalize_key(name)
        if norm in self._params:
            return norm
        hint = _did_you_mean(closest(norm, list(self._params)))
        raise ConfigError(f"unknown config flag {name!r}{hint}")

    def _coerce(self, param: Param, raw: Any, source: str) -> Any:
        try:
            return param.coerce(raw)
        except (ValueError, TypeError) as exc:
            raise ConfigError(
                f"Invalid value {raw!r} for config flag {param.name!r} (from {source}): {exc}. "
                f"Allowed values: {param.allowed()}."
            ) from None

    def get(self, name: str) -> Any:
        """The current value of flag ``name`` (either name style). Raises ``ConfigError``."""
        name = self._resolve(name)
        value = self._values[name]
        if value is _LAZY:
            value = self._values[name] = self._params[name].default_value()
        return value

    def set(self, name: str, value: Any) -> None:
        """Assign a flag from code (same as attribute assignment). Raises ``ConfigError``.

        Read-only flags raise ``ConfigReadOnlyError`` unless ``value`` equals the current value,
        which is accepted as a no-op (so code that re-asserts a setting keeps working).
        """
        param = self._params[self._resolve(name)]
        self._apply({param.name: self._coerce(param, value, CODE_SOURCE)}, CODE_SOURCE)

    def _apply(self, values: dict[str, Any], how: str) -> None:
        """Check every read-only flag first, then change all values at once."""
        for name, value in values.items():
            param = self._params[name]
            if param.read_only and not _same(value, self.get(name)):
                raise ConfigReadOnlyError(_read_only_message(param, value, how))
        for name, value in values.items():
            param = self._params[name]
            if param.read_only:
                continue  # same value: nothing to change, the source stays where it came from
            self._values[name] = value
            self._sources[name] = CODE_SOURCE
            self._warn_if_ignored(param, value, CODE_SOURCE)

    def source_of(self, name: str) -> str:
        """Where the value of ``name`` comes from: ``"default"``, ``"rc file <path> [<section>]"``,
        ``"env THEANO_FLAGS"``, ``"env JITGRAPH_FLAGS"`` or ``"code"``."""
        return self._sources[self._resolve(name)]

    def param(self, name: str) -> Param:
        """The ``Param`` object (type, doc, default, flags) of ``name``."""
        return self._params[self._resolve(name)]

    def flag_names(self) -> tuple[str, ...]:
        """Every flag name (dotted form), in registration order."""
        return tuple(self._params)

    @property
    def environ(self) -> Mapping[str, str]:
        """The environment this config was built from (a snapshot taken at import)."""
        return self._environ

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and sources.normalize_key(name) in self._params

    def __iter__(self) -> Iterator[str]:
        return iter(self._params)

    # ---------------------------------------------------------------- attribute access

    def _attr_get(self, path: str) -> Any:
        norm = sources.normalize_key(path)
        if norm in self._params:
            return self.get(norm)
        if norm in self._sections:
            return ConfigSection(self, norm)
        hint = _did_you_mean(closest(norm, [*self._params, *self._sections]))
        raise AttributeError(f"jitgraph config has no flag or section {path!r}{hint}")

    def _attr_set(self, path: str, value: Any) -> None:
        norm = sources.normalize_key(path)
        if norm not in self._params:
            what = "is a section, not a flag" if norm in self._sections else "is not a flag"
            hint = _did_you_mean(closest(norm, list(self._params)))
            raise AttributeError(f"cannot set config.{path}: {norm!r} {what}{hint}")
        self.set(norm, value)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # internals, dunders probed by copy/pickle/inspect
            raise AttributeError(name)
        return self._attr_get(name)

    def _children(self, prefix: str) -> list[str]:
        start = f"{prefix}." if prefix else ""
        names = {n[len(start):].split(".", 1)[0] for n in self._params if n.startswith(start)}
        return sorted(names)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._children("")))

    # ---------------------------------------------------------------- change_flags

    def change_flags(self, *args: Mapping[str, Any], **kwargs: Any) -> FlagChange:
        """Temporarily change flags: a context manager and a decorator.

        ``config.change_flags(floatX='float32')`` or, for dotted names,
        ``config.change_flags({'nvcc.fastmath': True})`` (both forms may be combined). All
        names and values are validated when this is called, read-only flags when it is entered;
        nothing changes unless everything is valid. Every value and its source are restored on
        exit, also when an exception escapes.
        """
        merged: dict[str, Any] = {}
        for mapping in args:
            merged.update(mapping)
        merged.update(kwargs)
        return FlagChange(self, merged)

    # ---------------------------------------------------------------- derived views

    def code_affecting_items(self) -> tuple[tuple[str, str], ...]:
        """``(name, value as str)`` for every flag that changes generated code, sorted by name.

        Stable and hashable: the compile cache puts it (or ``code_hash()``) into every key.
        """
        return tuple(
            sorted(
                (name, p.format_value(self.get(name)))
                for name, p in self._params.items()
                if p.in_code_key
            )
        )

    def all_items(self) -> tuple[tuple[str, str], ...]:
        """``(name, value as str)`` for every flag, sorted by name (what a cached rewritten
        graph is keyed on: any flag may steer a rewrite)."""
        return tuple(sorted((name, p.format_value(self.get(name)))
                            for name, p in self._params.items()))

    def code_hash(self) -> str:
        """sha256 hex digest of ``code_affecting_items()``."""
        import hashlib

        text = "\n".join(f"{k}={v}" for k, v in self.code_affecting_items())
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def seterr_kwargs(self) -> dict[str, str]:
        """Keyword arguments for ``numpy.errstate`` from the ``numpy.seterr_*`` flags.

        A per-kind flag set to ``'None'`` falls back to ``numpy.seterr_all``; if that is
        ``'None'`` too the kind is omitted, so NumPy's current setting is left alone.
        """
        fallback = self.get("numpy.seterr_all")
        out = {}
        for kind in ("divide", "over", "under", "invalid"):
            value = self.get(f"numpy.seterr_{kind}")
            value = fallback if value == "None" else value
            if value != "None":
                out[kind] = value
        return out

    def ensure_compiledir(self) -> str:
        """Create ``compiledir`` if needed and return it; see ``paths.ensure_compiledir``."""
        from jitgraph.config.paths import ensure_compiledir

        return ensure_compiledir(self)

    # ---------------------------------------------------------------- printing

    def describe(self, name: str) -> str:
        """The block printed for one flag: header, doc, value, source."""
        param = self.param(name)
        try:
            value = param.format_value(self.get(param.name))
        except ConfigError as exc:  # e.g. a lazy compiledir that cannot be formatted
            value = f"<error: {exc}>"
        doc = param.doc.replace("\n", "\n" + " " * 10)
        lines = [param.header(), f"    Doc:  {doc}", f"    Value:  {value}"]
        lines.append(f"    Source:  {self._sources[param.name]}")
        if param.ignored_reason:
            lines.append(f"    Ignored:  {param.ignored_reason}")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return "\n".join(self.describe(name) for name in self._params)

    def __repr__(self) -> str:
        return f"<jitgraph Config with {len(self._params)} flags>"

    # ---------------------------------------------------------------- warnings

    def _warn_once(self, key: Any, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            warn_user(message)

    def _warn_if_ignored(self, param: Param, value: Any, source: str) -> None:
        if not param.ignored_reason or _same(value, param.default_value()):
            return
        self._warn_once(
            ("ignored", param.name),
            f"config flag {param.name!r} is set to {value!r} (from {source}) but jitgraph "
            f"ignores it: {param.ignored_reason}",
        )


class FlagChange:
    """What ``change_flags`` returns: a re-entrant context manager and a decorator."""

    def __init__(self, config: Config, changes: Mapping[str, Any]) -> None:
        self._config = config
        self._values: dict[str, Any] = {}
        for key, raw in changes.items():
            param = config._params[config._resolve(key)]
            self._values[param.name] = config._coerce(param, raw, "change_flags")
        self._saved: list[dict[str, tuple[Any, str]]] = []

    def __enter__(self) -> Config:
        cfg = self._config
        saved = {name: (cfg._values[name], cfg._sources[name]) for name in self._values}
        cfg._apply(self._values, "change_flags")
        self._saved.append(saved)
        return cfg

    def __exit__(self, *exc: object) -> None:
        cfg = self._config
        for name, (value, source) in self._saved.pop().items():
            cfg._values[name] = value
            cfg._sources[name] = source

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return wrapper


def _same(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # exotic objects (a Mode instance) may not compare cleanly
        return a is b


def _read_only_message(param: Param, value: Any, how: str) -> str:
    name = param.name
    section, option = sources.rc_location(name)
    shown = param.format_value(value)
    verb = "changed with change_flags" if how == "change_flags" else "assigned in code"
    return (
        f"config flag {name!r} is read-only and cannot be {verb} after jitgraph.config is "
        f"imported (tried {shown!r}). Set it before starting Python, in the environment: "
        f"JITGRAPH_FLAGS='{name}={shown}' (or THEANO_FLAGS), or in an rc file such as "
        f"~/.jitgraphrc or ~/.theanorc, in section [{section}]: {option} = {shown}"
    )
