"""Reading flag values from ``THEANO_FLAGS``/``JITGRAPH_FLAGS`` strings and from rc files.

Nothing here knows which flags exist: this module only turns text into ``(key, raw value, source)``
records. ``Config`` matches them against the registered flags and reports what is left over.

Names: a flag is written ``a.b.c`` (Theano) or ``a__b__c`` (PyTensor); both normalise to the dotted
form. In rc files flag ``a.b.c`` is option ``c`` of section ``[a.b]`` (split on the last dot) and a
flag without a dot lives in ``[global]``. Option names are case-insensitive, section names are not.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, NamedTuple

from jitgraph.config.params import ConfigError, warn_user

if TYPE_CHECKING:
    from collections.abc import Mapping

#: Environment variables holding flag strings, lowest priority first.
FLAG_ENV_VARS = ("THEANO_FLAGS", "JITGRAPH_FLAGS")
#: Environment variables holding rc file lists; the first one that is set is used.
RC_ENV_VARS = ("JITGRAPHRC", "THEANORC")
GLOBAL_SECTION = "global"


def normalize_key(key: str) -> str:
    """``nvcc__fastmath`` -> ``nvcc.fastmath``; dotted names are returned unchanged."""
    return key.replace("__", ".") if "__" in key else key


def split_flag_name(name: str) -> tuple[str, str]:
    """``'dnn.conv.algo_fwd'`` -> ``('dnn.conv', 'algo_fwd')``, ``'floatX'`` -> ``('', 'floatX')``.
    """
    section, _, option = name.rpartition(".")
    return section, option


def rc_location(name: str) -> tuple[str, str]:
    """The rc file section and option that set flag ``name``: ``('nvcc', 'fastmath')``."""
    section, option = split_flag_name(name)
    return section or GLOBAL_SECTION, option


class Setting(NamedTuple):
    """One raw value for one key, with a description of where it came from."""

    key: str  #: the name as the user wrote it
    raw: str
    source: str  #: e.g. ``"env THEANO_FLAGS"`` or ``"rc file /home/u/.theanorc [nvcc]"``
    section: str = ""  #: the rc file section as written (``""`` for env vars)


def parse_flag_string(text: str, source: str) -> dict[str, Setting]:
    """Parse a ``THEANO_FLAGS``-style string into ``{normalised key: Setting}``.

    Theano's rules, kept exactly: pairs are separated by commas (POSIX shell quoting protects
    commas and is removed), each pair is stripped as a whole, the key and value are split on the
    first ``=``, a pair without ``=`` warns and is dropped, keys are case-sensitive and the
    right-most definition of a key wins (also across the two name styles).
    """
    import shlex

    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace = ","
    lexer.whitespace_split = True
    try:
        pairs = list(lexer)
    except ValueError as exc:  # unbalanced quotes
        raise ConfigError(f"cannot parse {source} ({text!r}): {exc}") from None
    out: dict[str, Setting] = {}
    for pair in pairs:
        pair = pair.strip()
        if not pair:
            continue
        key, sep, raw = pair.partition("=")
        if not sep:
            warn_user(
                f"Config key {key!r} in {source} has no value (expected key=value); ignoring it"
            )
            continue
        norm = normalize_key(key)
        out.pop(norm, None)  # keep insertion order = position of the right-most definition
        out[norm] = Setting(key, raw, source)
    return out


def env_flag_settings(environ: Mapping[str, str]) -> list[dict[str, Setting]]:
    """The parsed flag strings of ``FLAG_ENV_VARS`` that are set, lowest priority first."""
    return [
        parse_flag_string(environ[var], f"env {var}") for var in FLAG_ENV_VARS if var in environ
    ]


def home_dir(environ: Mapping[str, str]) -> str:
    """The user's home folder as seen through ``environ`` (so tests can pass their own)."""
    home = environ.get("HOME") or (environ.get("USERPROFILE") if os.name == "nt" else None)
    return home or os.path.expanduser("~")


def expand_user(path: str, environ: Mapping[str, str]) -> str:
    """``os.path.expanduser`` that takes the home folder from ``environ``."""
    if path == "~" or path.startswith(("~/", "~" + os.sep)):
        return home_dir(environ) + path[1:]
    return os.path.expanduser(path)


def rc_file_paths(environ: Mapping[str, str]) -> list[str]:
    """The rc files to read, lowest priority first (missing files are skipped later).

    ``JITGRAPHRC`` if set, else ``THEANORC`` if set (an ``os.pathsep``-separated list; set to the
    empty string it means "no rc file"), else ``~/.theanorc`` then ``~/.jitgraphrc`` (on Windows
    each followed by its ``.txt`` variant, as Theano added ``~/.theanorc.txt``).
    """
    for var in RC_ENV_VARS:
        if var in environ:
            return [expand_user(p, environ) for p in environ[var].split(os.pathsep) if p]
    home = home_dir(environ)
    names = [".theanorc", ".jitgraphrc"]
    if sys.platform == "win32":
        names = [".theanorc", ".theanorc.txt", ".jitgraphrc", ".jitgraphrc.txt"]
    return [os.path.join(home, n) for n in names]


def interpolation_vars(environ: Mapping[str, str]) -> dict[str, str]:
    """The ``%(NAME)s`` values available in rc files (keys lower-cased, as ConfigParser does)."""
    home = home_dir(environ)
    return {
        "user": environ.get("USER") or environ.get("USERNAME") or os.path.basename(home),
        "pid": str(os.getpid()),
        "home": home,
        "lscratch": environ.get("LSCRATCH", ""),
        "tmpdir": environ.get("TMPDIR", ""),
        "temp": environ.get("TEMP", ""),
        "tmp": environ.get("TMP", ""),
    }


class _NoInterpolation(Exception):
    """The value cannot be interpolated; the raw text is used instead (as Theano does)."""


def interpolate(raw: str, names: Mapping[str, str], depth: int = 0) -> str:
    """Expand ``%(name)s`` (name looked up lower-cased) and ``%%``, like ConfigParser's
    BasicInterpolation; raise ``_NoInterpolation`` on an unknown name or a stray ``%``."""
    if "%" not in raw:
        return raw
    if depth > 10:  # self-referencing options
        raise _NoInterpolation
    out, pos = [], 0
    while (at := raw.find("%", pos)) >= 0:
        out.append(raw[pos:at])
        nxt = raw[at + 1: at + 2]
        if nxt == "%":
            out.append("%")
            pos = at + 2
            continue
        end = raw.find(")s", at)
        if nxt != "(" or end < 0 or raw[at + 2: end].lower() not in names:
            raise _NoInterpolation
        out.append(interpolate(names[raw[at + 2: end].lower()], names, depth + 1))
        pos = end + 2
    out.append(raw[pos:])
    return "".join(out)


def read_rc_file(path: str, environ: Mapping[str, str]) -> dict[tuple[str, str], Setting]:
    """Parse one rc file into ``{(section, lower-case option): Setting}``; ``{}`` if missing.

    ``section`` is normalised: ``[a__b]`` is ``a.b``, ``[global]`` is ``''``, and a dotted option
    (``gpuarray.preallocate = 1`` in ``[global]``, or ``conv.algo_fwd`` in ``[dnn]``) is moved to
    the section its full name implies, so both name styles work in rc files too.
    """
    import configparser

    # Case is kept (optionxform=str) so that dotted options keep their section's case and
    # messages show what the user wrote; option matching is case-insensitive elsewhere.
    parser = configparser.RawConfigParser(
        strict=False, interpolation=None, default_section="\0no-default-section"
    )
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        if not parser.read(path, encoding="utf-8"):
            return {}
    except (configparser.Error, UnicodeDecodeError) as exc:
        detail = " ".join(str(exc).split())  # configparser's messages span several lines
        raise ConfigError(f"cannot parse rc file {path}: {detail}") from None
    base_names = interpolation_vars(environ)
    out: dict[tuple[str, str], Setting] = {}
    for section in parser.sections():
        items = parser.items(section)
        names = {**base_names, **{opt.lower(): val for opt, val in items}}
        for option, raw in items:
            try:
                value = interpolate(raw, names)
            except _NoInterpolation:
                value = raw
            full = option if section == GLOBAL_SECTION else f"{section}.{option}"
            sec, opt = split_flag_name(normalize_key(full))
            out.pop((sec, opt.lower()), None)
            out[(sec, opt.lower())] = Setting(
                option, value, f"rc file {path} [{section}]", section
            )
    return out


def rc_settings(environ: Mapping[str, str]) -> dict[tuple[str, str], Setting]:
    """All rc files merged; for a key set in several files the right-most file wins."""
    merged: dict[tuple[str, str], Setting] = {}
    for path in rc_file_paths(environ):
        if os.path.isfile(path):  # avoids importing configparser when there is no rc file
            for key, setting in read_rc_file(path, environ).items():
                merged.pop(key, None)
                merged[key] = setting
    return merged
