"""The compile directories: ``base_compiledir``, ``compiledir_format`` and ``compiledir``.

``compiledir = base_compiledir / (compiledir_format % keys)`` where runs of parentheses, commas
and whitespace in the expanded format are replaced by ``_`` (as Theano does). Computing the keys
is lazy and never imports numba or llvmlite (versions come from package metadata). Nothing is
created on disk until ``ensure_compiledir()`` runs, at the first compile.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import TYPE_CHECKING, Callable

from jitgraph.config.params import ConfigError
from jitgraph.config.sources import home_dir

if TYPE_CHECKING:
    from collections.abc import Mapping

    from jitgraph.config.core import Config

DEFAULT_COMPILEDIR_FORMAT = (
    "compiledir_%(short_platform)s-%(processor)s-%(python_version)s-%(python_bitwidth)s"
)

#: The substitution keys of ``compiledir_format`` and what they mean (printed in the flag's doc).
COMPILEDIR_KEYS = {
    "platform": "platform.platform()",
    "short_platform": "platform.platform() without kernel patch numbers (survives kernel updates)",
    "processor": "platform.processor() (often empty on Linux)",
    "python_version": "platform.python_version()",
    "python_bitwidth": "pointer size in bits (64 or 32)",
    "python_int_bitwidth": "C long size in bits",
    "hostname": "platform.node()",
    "numpy_version": "NumPy's version",
    "jitgraph_version": "jitgraph's version (theano_version and pytensor_version are aliases)",
    "numba_version": "Numba's version",
    "llvm_version": "llvmlite's version (it pins the LLVM that Numba uses)",
    "device": "the device flag",
    "gxx_version": "'numba-<numba version>': jitgraph compiles with Numba, not g++",
}
_ALIASES = {"theano_version": "jitgraph_version", "pytensor_version": "jitgraph_version"}


def default_base_compiledir(environ: Mapping[str, str]) -> str:
    """``%LOCALAPPDATA%\\jitgraph`` on Windows when set, else ``~/.jitgraph``."""
    if sys.platform == "win32" and environ.get("LOCALAPPDATA"):
        return os.path.join(environ["LOCALAPPDATA"], "jitgraph")
    return os.path.join(home_dir(environ), ".jitgraph")


def short_platform(release: str | None = None, full: str | None = None) -> str:
    """``platform.platform()`` with the kernel's patch numbers dropped.

    The release ``5.4.0-42-generic`` becomes ``5.4--generic`` and ``2.6.32-504.el6.x86_64`` becomes
    ``2.6-el6.x86_64``: keep the first two numbers of the first ``-`` part, drop the leading
    all-digit ``.`` items of the second part, keep the rest. Anything of another shape is returned
    unchanged, so other operating systems are left alone.
    """
    import platform

    release = platform.release() if release is None else release
    full = platform_string() if full is None else full
    parts = release.split("-")
    numbers = parts[0].split(".")
    if len(parts) < 2 or len(numbers) <= 2:
        return full
    parts[0] = ".".join(numbers[:2])
    rest = parts[1].split(".")
    while rest and rest[0].isdigit():
        rest.pop(0)
    parts[1] = ".".join(rest)
    return full.replace(release, "-".join(parts))


@functools.lru_cache(maxsize=None)
def platform_string() -> str:
    """``platform.platform()``. On Linux it is computed without ``platform.processor()``, which
    runs ``uname -p`` in a subprocess (milliseconds of every start) for an answer that
    ``platform.platform()`` drops there ('unknown', or the machine name again)."""
    import platform

    uname = getattr(os, "uname", None)
    if not sys.platform.startswith("linux") or uname is None:
        return platform.platform()
    u = uname()
    libc, version = platform.libc_ver()
    text = f"{u.sysname}-{u.release}-{u.machine}" + (f"-with-{libc}{version}" if libc else "")
    for bad in ' /\\:;"()':
        text = text.replace(bad, "_" if bad == " " else "-")
    while "--" in text:
        text = text.replace("--", "-")
    return text.strip("-")


@functools.lru_cache(maxsize=None)
def dist_version(name: str, missing: str = "none") -> str:
    """The installed version of distribution ``name`` without importing it (importing Numba
    costs ~0.5 s): from the name of its ``.dist-info`` folder beside the package when there is
    exactly one, else from ``importlib.metadata`` (which itself takes ~10 ms to import)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin:
        site = os.path.dirname(os.path.dirname(spec.origin))
        prefix = f"{name}-"
        try:
            found = [n for n in os.listdir(site) if n.startswith(prefix)
                     and n.endswith(".dist-info") and n[len(prefix):][:1].isdigit()]
        except OSError:
            found = []
        if len(found) == 1:
            return found[0][len(prefix):-len(".dist-info")]
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return missing


def _jitgraph_version() -> str:
    pkg = sys.modules.get("jitgraph")
    version = getattr(pkg, "__version__", None)
    return version if isinstance(version, str) else dist_version("jitgraph")


#: name prefix of files and folders being written (``jitgraph-cache cleanup`` removes old ones)
TMP_PREFIX = "tmp-"


def write_atomic(path: str | os.PathLike, data: bytes, mode: int = 0o666) -> None:
    """Write ``data`` to ``path`` through a temporary file renamed into place: readers see the
    old file or the whole new one, never a part (the temporary file is removed on failure).
    ``mode``: of a new file, before the umask."""
    head, name = os.path.split(os.fspath(path))
    tmp = os.path.join(head, f"{TMP_PREFIX}{os.urandom(16).hex()}-{name}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def remembered(memo: str | None, compute: Callable[[], str],
               valid: Callable[[str], bool] | None = None) -> str:
    """``compute()``, remembered in the text file ``memo`` (None: not remembered) when its
    folder exists: a later call reads the file instead, unless what it holds is not ``valid``.
    Failing to write the file only costs computing again next time."""
    if memo is not None:
        try:
            with open(memo, encoding="utf-8") as f:
                text = f.read()
            if text.endswith("\n") and (valid is None or valid(text[:-1])):
                return text[:-1]
        except (OSError, UnicodeDecodeError):
            pass
    value = compute()
    if memo is not None and os.path.isdir(os.path.dirname(memo)):
        try:
            write_atomic(memo, (value + "\n").encode("utf-8"), 0o644)  # nobody else writes
        except OSError:
            pass
    return value


def processor(base: str | None = None) -> str:
    """``platform.processor()``. On Linux that runs ``uname -p`` in a subprocess (milliseconds
    of every start: the default ``compiledir_format`` uses it), so the answer is remembered in
    ``base`` (``base_compiledir``), in a file named by a digest of ``os.uname()``."""
    import platform

    uname = getattr(os, "uname", None)
    if base is None or uname is None or not sys.platform.startswith("linux"):
        return platform.processor()
    import hashlib

    u = uname()
    digest = hashlib.sha256(f"{u.sysname}\n{u.release}\n{u.version}\n{u.machine}\n"
                            f"{sys.executable}".encode()).hexdigest()[:16]
    return remembered(os.path.join(base, f".processor-{digest}"), platform.processor)


def _key_sources(device: str, base: str | None = None) -> dict[str, Callable[[], str]]:
    import platform
    import struct

    def numpy_version() -> str:
        numpy = sys.modules.get("numpy")
        return numpy.__version__ if numpy is not None else dist_version("numpy")

    return {
        "platform": platform_string,
        "short_platform": short_platform,
        "processor": lambda: processor(base),
        "python_version": platform.python_version,
        "python_bitwidth": lambda: str(struct.calcsize("P") * 8),
        "python_int_bitwidth": lambda: str(struct.calcsize("l") * 8),
        "hostname": platform.node,
        "numpy_version": numpy_version,
        "jitgraph_version": _jitgraph_version,
        "numba_version": lambda: dist_version("numba"),
        "llvm_version": lambda: dist_version("llvmlite"),
        "device": lambda: device,
        "gxx_version": lambda: f"numba-{dist_version('numba')}",
    }


class _LazyKeys(dict):  # type: ignore[type-arg]
    """``compiledir_format`` keys computed when the format asks for them."""

    def __init__(self, sources: dict[str, Callable[[], str]]) -> None:
        super().__init__()
        self._sources = sources

    def __missing__(self, key: str) -> str:
        value = self._sources[_ALIASES.get(key, key)]()
        self[key] = value
        return value


def compiledir_keys(device: str = "cpu", lazy: bool = False, base: str | None = None
                    ) -> dict[str, str]:
    """The values of every ``compiledir_format`` substitution key on this machine (``lazy``:
    a mapping computing each key the first time it is read; ``base``: the base_compiledir,
    where slow answers are remembered)."""
    sources = _key_sources(device, base)
    if lazy:
        return _LazyKeys(sources)
    keys = {name: compute() for name, compute in sources.items()}
    keys.update({alias: keys[target] for alias, target in _ALIASES.items()})
    return keys


class _KeyProbe(dict):  # type: ignore[type-arg]
    """Formats any known key as ``''`` and records unknown ones, without computing anything."""

    def __init__(self) -> None:
        super().__init__()
        self.unknown: list[str] = []

    def __missing__(self, key: str) -> str:
        if key not in COMPILEDIR_KEYS and key not in _ALIASES:
            self.unknown.append(key)
        return ""


def check_compiledir_format(fmt: str) -> str:
    """Validator of ``compiledir_format``: every ``%(key)s`` must be a known key."""
    probe = _KeyProbe()
    try:
        fmt % probe
    except (ValueError, TypeError) as exc:
        raise ValueError(f"not a valid %-format string ({exc})") from None
    if probe.unknown:
        known = ", ".join(sorted([*COMPILEDIR_KEYS, *_ALIASES]))
        raise ValueError(f"unknown substitution key(s) {probe.unknown}; known keys: {known}")
    return fmt


def expand_compiledir_format(fmt: str, keys: Mapping[str, str]) -> str:
    """``fmt % keys`` with runs of ``()``, ``,`` and whitespace replaced by ``_``."""
    import re

    return re.sub(r"[(),\s]+", "_", fmt % keys)


def default_compiledir(cfg: Config) -> str:
    """``base_compiledir / expanded compiledir_format`` for the given config."""
    keys = compiledir_keys(str(cfg.get("device")), lazy=True, base=str(cfg.get("base_compiledir")))
    name = expand_compiledir_format(cfg.get("compiledir_format"), keys)
    return os.path.join(cfg.get("base_compiledir"), name)


def ensure_compiledir(cfg: Config | None = None) -> str:
    """Create ``config.compiledir`` if needed (mode 0o700, and ``base_compiledir`` around it
    too) and check that it is usable.

    Called by the compile cache at the first compile, never at import. Returns the real path.
    Raises ``ConfigError`` naming the folder and the flag to change when it cannot be created or
    is not a folder that can be read and listed. One that cannot be written is returned: the
    cache loads what is there and compiles the rest in memory (``jitgraph.cache.store``).
    """
    if cfg is None:
        from jitgraph.config import config

        cfg = config
    path = os.path.realpath(str(cfg.get("compiledir")))
    flag = "compiledir" if cfg.source_of("compiledir") != "default" else "base_compiledir"
    how = (
        f"Set the {flag} flag to a writable folder, e.g. "
        f"JITGRAPH_FLAGS='{flag}=/tmp/$USER/jitgraph' or {flag} = ... in ~/.jitgraphrc "
        f"(current {flag} comes from {cfg.source_of(flag)})."
    )
    if not os.path.isdir(path):
        mode = FOLDER_MODES.get(str(cfg.get("compiledir_trust")), 0o700)
        try:
            base = os.path.realpath(str(cfg.get("base_compiledir")))
            if os.path.dirname(path) == base:  # jitgraph's own folder: as private
                os.makedirs(base, mode=mode, exist_ok=True)
            os.makedirs(path, mode=mode, exist_ok=True)
        except OSError as exc:
            raise ConfigError(
                f"Unable to create the compiledir {path!r}: {exc.strerror or exc}. {how}"
            ) from exc
    if not os.path.isdir(path) or not os.access(path, os.R_OK | os.X_OK):
        raise ConfigError(
            f"The compiledir {path!r} exists but is not a folder you can read and list. {how}"
        )
    return path


#: the mode of new compile folders (before the umask) for each ``compiledir_trust``: private
#: unless the cache is shared
FOLDER_MODES = {"owner": 0o700, "group": 0o770, "any": 0o777}


def describe_keys() -> str:
    """One line per substitution key, for the ``compiledir_format`` doc."""
    return "\n".join(f"  {key}: {meaning}" for key, meaning in COMPILEDIR_KEYS.items())
