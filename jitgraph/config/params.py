"""Typed configuration flags.

A ``Param`` describes one flag: its name, doc, default (a value, or a zero-argument callable that is
evaluated lazily on first read), the values it accepts, and three properties that the rest of
jitgraph relies on:

* ``read_only``: the value is fixed once ``jitgraph.config`` is imported (set it with env vars or
  rc files);
* ``in_code_key``: the value changes generated or compiled code, so it feeds every kernel cache key;
* ``ignored_reason``: the flag exists only so that Theano rc files and flag strings keep working; it
  has no effect in jitgraph, and setting it to a non-default value warns once.

``coerce`` turns a raw value (always a ``str`` from env vars and rc files, any Python object from
code) into the stored value or raises ``ValueError``; ``Config`` adds the flag name and the source
to that message and raises ``ConfigError``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from types import FrameType


class ConfigError(ValueError):
    """A flag value, a flag name or a configuration source is invalid."""

    __module__ = "jitgraph.config"  # tracebacks show the public name


class ConfigReadOnlyError(ConfigError):
    """A read-only flag was assigned after ``jitgraph.config`` was imported."""

    __module__ = "jitgraph.config"


class JitgraphConfigWarning(UserWarning):
    """Unknown flags, flags without a value, and flags that jitgraph ignores."""

    __module__ = "jitgraph.config"


def warn_user(message: str) -> None:
    """Warn with ``JitgraphConfigWarning``, attributed to the first frame outside jitgraph.

    At import that is the user's ``import jitgraph`` line, so the warning does not quote
    jitgraph's own source. Frames of the import machinery are skipped the way ``warnings`` skips
    them when it counts ``stacklevel``.
    """
    import os
    import sys
    import warnings

    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame: FrameType | None = sys._getframe(1)
    level = 2  # stacklevel 2 is our caller
    while frame is not None:
        filename = frame.f_code.co_filename
        internal = "importlib" in filename and "_bootstrap" in filename
        if not internal and not filename.startswith(package_dir):
            break
        if not internal:
            level += 1
        frame = frame.f_back
    warnings.warn(message, JitgraphConfigWarning, stacklevel=level)


# Exactly the spellings Theano's ``booltype`` accepted; ``yes``/``TRUE`` were rejected there too.
_TRUE_STRINGS = frozenset({"True", "true", "1"})
_FALSE_STRINGS = frozenset({"False", "false", "0"})


class Param:
    """One configuration flag.

    Subclasses override ``_coerce`` (raw value -> stored value) and ``kind`` (printed after the
    name). ``validator``, if given, runs after ``_coerce`` and may return a normalised value or
    raise ``ValueError``; ``allowed_text`` then describes what it accepts.
    """

    kind = "str"

    def __init__(
        self,
        name: str,
        default: Any,
        doc: str,
        *,
        read_only: bool = False,
        in_code_key: bool = False,
        ignored_reason: str | None = None,
        validator: Callable[[Any], Any] | None = None,
        allowed_text: str | None = None,
    ) -> None:
        self.name = name
        self.default = default
        self.doc = doc.strip()
        self.read_only = read_only
        self.in_code_key = in_code_key
        self.ignored_reason = ignored_reason
        self.validator = validator
        self.allowed_text = allowed_text

    @property
    def lazy(self) -> bool:
        """Whether the default is a callable that is evaluated on first read."""
        return callable(self.default)

    def default_value(self) -> Any:
        """The validated default (calls the default factory for lazy flags)."""
        raw = self.default() if callable(self.default) else self.default
        return self.coerce(raw)

    def coerce(self, raw: Any) -> Any:
        """Convert ``raw`` to this flag's value; raise ``ValueError`` if it is not allowed."""
        value = self._coerce(raw)
        if self.validator is not None:
            value = self.validator(value)
        return value

    def _coerce(self, raw: Any) -> Any:
        if not isinstance(raw, str):
            raise ValueError(f"expected a string, got {type(raw).__name__}")
        return raw

    def allowed(self) -> str:
        """Human-readable description of the accepted values (used in error messages)."""
        return self.allowed_text or self.kind

    def label(self) -> str:
        """What ``print(config)`` shows in parentheses after the name: the allowed values, or
        the type when a validator's rule is too long for a header (the doc explains it)."""
        return self.kind if self.allowed_text else self.allowed()

    def format_value(self, value: Any) -> str:
        """The value as printed and as hashed into cache keys."""
        return str(value)

    def header(self) -> str:
        """The first line of this flag in ``print(config)``."""
        marks = ""
        if self.read_only:
            marks += " [read-only]"
        if self.ignored_reason:
            marks += " [ignored by jitgraph]"
        return f"{self.name} ({self.label()}){marks}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class StrParam(Param):
    """Any string (``validator`` may restrict it)."""

    kind = "str"


class PathParam(Param):
    """A folder or file path; ``~`` is expanded and relative paths are made absolute.

    The empty string is kept as is when ``allow_empty`` (it means "not set").
    """

    kind = "path"

    def __init__(self, name: str, default: Any, doc: str, *, allow_empty: bool = False,
                 **kw: Any) -> None:
        super().__init__(name, default, doc, **kw)
        self.allow_empty = allow_empty

    def _coerce(self, raw: Any) -> Any:
        import os

        if isinstance(raw, os.PathLike):
            raw = os.fspath(raw)
        if not isinstance(raw, str):
            raise ValueError(f"expected a path string, got {type(raw).__name__}")
        if raw == "":
            if self.allow_empty:
                return ""
            raise ValueError("the path must not be empty")
        # abspath, not realpath: the printed value stays what the user wrote (symlinks are
        # resolved only when the folder is created, in paths.ensure_compiledir).
        return os.path.abspath(os.path.expanduser(raw))


def coerce_bool(raw: Any) -> bool:
    """Theano's boolean rule: True/False/true/false/1/0 (strings), Python bools, or 0/1."""
    if isinstance(raw, str):
        if raw in _TRUE_STRINGS:
            return True
        if raw in _FALSE_STRINGS:
            return False
    elif raw is True or raw is False:
        return raw
    elif type(raw).__name__ == "bool_":  # numpy.bool_, without importing numpy
        return bool(raw)
    elif isinstance(raw, int) and raw in (0, 1):  # Theano accepted 0/1 through ``in [...]``
        return bool(raw)
    raise ValueError("not a boolean")


class BoolParam(Param):
    """``True``/``False``/``true``/``false``/``1``/``0`` as strings, or a Python bool."""

    kind = "bool"

    def _coerce(self, raw: Any) -> Any:
        return coerce_bool(raw)

    def allowed(self) -> str:
        return "True, False, true, false, 1, 0"

    def label(self) -> str:
        return "bool"


def _range_text(lo: float | None, hi: float | None, lo_strict: bool) -> str:
    parts = []
    if lo is not None:
        parts.append(f"{'>' if lo_strict else '>='} {lo:g}")
    if hi is not None:
        parts.append(f"<= {hi:g}")
    return ", ".join(parts)


class _NumberParam(Param):
    number_type: type = int

    def __init__(self, name: str, default: Any, doc: str, *, min: float | None = None,
                 max: float | None = None, min_strict: bool = False, **kw: Any) -> None:
        super().__init__(name, default, doc, **kw)
        self.min, self.max, self.min_strict = min, max, min_strict

    def _check_range(self, value: Any) -> Any:
        lo, hi = self.min, self.max
        too_low = lo is not None and (value <= lo if self.min_strict else value < lo)
        if too_low or (hi is not None and value > hi):
            raise ValueError(f"must be {_range_text(lo, hi, self.min_strict)}")
        return value

    def allowed(self) -> str:
        if self.allowed_text:
            return self.allowed_text
        rng = _range_text(self.min, self.max, self.min_strict)
        return f"{self.kind}, {rng}" if rng else self.kind


class IntParam(_NumberParam):
    """An integer, optionally bounded by ``min`` (``min_strict`` for ``>``) and ``max``.

    ``bool_strings`` also accepts True/False (as 1/0), for flags that were booleans in older
    Theano versions (``metaopt.verbose``).
    """

    kind = "int"

    def __init__(self, name: str, default: Any, doc: str, *, bool_strings: bool = False,
                 **kw: Any) -> None:
        super().__init__(name, default, doc, **kw)
        self.bool_strings = bool_strings

    def _coerce(self, raw: Any) -> Any:
        if self.bool_strings and raw in ("True", "true", "False", "false", True, False):
            return self._check_range(int(raw in ("True", "true", True)))
        if isinstance(raw, bool):
            raise ValueError("expected an integer, got a bool")
        if isinstance(raw, str):
            try:
                value = int(raw.strip())
            except ValueError:
                raise ValueError("expected an integer") from None
        elif isinstance(raw, int) or type(raw).__name__.startswith(("int", "uint")):
            value = int(raw)
        else:
            raise ValueError(f"expected an integer, got {type(raw).__name__}")
        return self._check_range(value)


class FloatParam(_NumberParam):
    """A float (``inf`` allowed), optionally bounded."""

    kind = "float"

    def _coerce(self, raw: Any) -> Any:
        if isinstance(raw, bool):
            raise ValueError("expected a number, got a bool")
        try:
            value = float(raw.strip() if isinstance(raw, str) else raw)
        except (TypeError, ValueError):
            raise ValueError("expected a number") from None
        if math.isnan(value):
            raise ValueError("NaN is not allowed")
        return self._check_range(value)

    def format_value(self, value: Any) -> str:
        return repr(value)


class EnumParam(Param):
    """One string out of ``choices`` (case-sensitive, like Theano).

    ``aliases`` maps accepted spellings to a choice (``'32' -> 'float32'``); the stored value is
    always the choice. Python ``None``/``True``/``False`` are accepted from code when their string
    form is a choice (``config.optimizer = None``).
    """

    kind = "enum"

    def __init__(self, name: str, default: Any, doc: str, *, choices: Iterable[str],
                 aliases: Mapping[str, str] | None = None, **kw: Any) -> None:
        super().__init__(name, default, doc, **kw)
        self.choices = tuple(choices)
        self.aliases = dict(aliases or {})
        assert all(v in self.choices for v in self.aliases.values()), name

    def _coerce(self, raw: Any) -> Any:
        if raw is None or isinstance(raw, bool):
            raw = str(raw)
        if isinstance(raw, str):
            if raw in self.choices:
                return raw
            if raw in self.aliases:
                return self.aliases[raw]
        raise ValueError("not one of the allowed values")

    def allowed(self) -> str:
        text = ", ".join(self.choices)
        if self.aliases:
            text += " (also " + ", ".join(self.aliases) + ")"
        return text


class OptionalBoolParam(Param):
    """``None``, ``True`` or ``False`` (strings accepted), as Theano's ``vm.lazy``."""

    kind = "None, True, False"

    def _coerce(self, raw: Any) -> Any:
        if raw is None or raw == "None":
            return None
        try:
            return coerce_bool(raw)
        except ValueError:
            raise ValueError("not None or a boolean") from None


class ModeParam(EnumParam):
    """A mode name out of ``choices`` or, from code only, a Mode instance.

    Names are case-sensitive here (``mode=fast_run`` is rejected, as in Theano's config); any
    non-string object is stored as is and checked by the compile layer, because the config package
    must not import ``jitgraph.compile``.
    """

    def _coerce(self, raw: Any) -> Any:
        if raw is not None and not isinstance(raw, (str, bool, int, float)):
            return raw
        return super()._coerce(raw)

    def allowed(self) -> str:
        return super().allowed() + ", or a Mode instance"

    def format_value(self, value: Any) -> str:
        return value if isinstance(value, str) else repr(value)


def parse_device(value: str) -> tuple[str, int | None]:
    """Split a device string into ``(kind, index)``.

    ``kind`` is ``'cpu'``, ``'cuda'`` or ``'opencl'``; the old Theano names ``gpu``/``gpuN`` map to
    ``cuda``/``cudaN`` (jitgraph's only GPU back-end is CUDA). ``index`` is ``None`` when the driver
    picks the device. OpenCL indices (``opencl0:1``) are returned as ``None``.
    Raises ``ValueError``.
    """
    if value == "cpu":
        return "cpu", None
    for prefix, kind in (("cuda", "cuda"), ("gpu", "cuda")):
        if value.startswith(prefix):
            rest = value[len(prefix):]
            if rest == "":
                return kind, None
            if rest.isdigit() and rest.isascii():
                return kind, int(rest)
    if value.startswith("opencl"):
        platform_dev = value[len("opencl"):].split(":")
        if value == "opencl" or (
            len(platform_dev) == 2 and all(p.isdigit() and p.isascii() for p in platform_dev)
        ):
            return "opencl", None
    hint = " (use lower case letters only)" if value.lower() != value else ""
    raise ValueError(f"not a device name{hint}")


class DeviceParam(Param):
    """A device name: ``cpu``, ``cuda``, ``cudaN``, ``gpu``, ``gpuN``, ``opencl``, ``openclN:M``.

    ``allow_cpu=False`` and ``allow_empty=True`` give ``init_gpu_device``'s rules.
    """

    kind = "device"

    def __init__(self, name: str, default: Any, doc: str, *, allow_cpu: bool = True,
                 allow_empty: bool = False, **kw: Any) -> None:
        super().__init__(name, default, doc, **kw)
        self.allow_cpu, self.allow_empty = allow_cpu, allow_empty

    def _coerce(self, raw: Any) -> Any:
        if not isinstance(raw, str):
            raise ValueError(f"expected a device string, got {type(raw).__name__}")
        if raw == "" and self.allow_empty:
            return raw
        kind, _ = parse_device(raw)
        if kind == "cpu" and not self.allow_cpu:
            raise ValueError("cpu is not allowed here")
        return raw

    def allowed(self) -> str:
        forms = ["cpu"] if self.allow_cpu else ["''"] if self.allow_empty else []
        return ", ".join(forms + ["cuda", "cudaN", "gpu", "gpuN", "openclN:M"])


def split_tags(value: str) -> list[str]:
    """The non-empty ``:``-separated items of a tag list flag (``optimizer_including``...)."""
    return [tag for tag in value.split(":") if tag]
