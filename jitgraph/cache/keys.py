"""Cache keys built from named parts, each hashed on its own so that a miss can be explained.

The parts: the kernel's structure (op parameters, dtypes, layouts), the flags that change
generated code, the backend, and the versions of everything that compiles or runs the code
(jitgraph, numba, llvmlite, numpy, Python, the CPU target). Constants never appear: kernels take
them as arguments.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import platform
import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

from jitgraph.about import VERSION as __version__
from jitgraph.cache.host import cpu_target
from jitgraph.config import config
from jitgraph.config.paths import dist_version

#: bump when the layout of entries or the meaning of a part changes
FORMAT_VERSION = 1


#: exact types whose repr is already stable (a subclass takes the general path below)
_PLAIN_TYPES = frozenset({str, int, float, bool, type(None), bytes})


def _stable_repr(value: Any) -> str:
    """A repr that does not depend on dict/set ordering or object addresses."""
    # exact-type fast paths first: a warm compile digests every kernel's structure, thousands
    # of small tuples and strings
    kind = type(value)
    if kind in _PLAIN_TYPES:
        return repr(value)
    if kind is tuple:
        return f"({', '.join([_stable_repr(v) for v in value])},)"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_stable_repr(k)}: {_stable_repr(v)}"
                               for k, v in sorted(value.items(), key=lambda kv: repr(kv[0]))) + "}"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(_stable_repr(v) for v in value)) + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_stable_repr(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner},)"
    if isinstance(value, (str, int, float, bool, type(None), bytes)):
        return repr(value)
    raise TypeError(f"cache key parts must be plain data (tuples, str, numbers); got "
                    f"{type(value).__name__}: {value!r}")


def part_digest(value: Any) -> str:
    return hashlib.sha256(_stable_repr(value).encode("utf-8")).hexdigest()


@lru_cache(maxsize=128)
def _environment_digest(name: str, value: Any) -> str:
    """:func:`part_digest` of an environment part (every kernel of a process shares them; the
    flags alone are a hundred pairs). Their values are strings, ints and tuples of strings, so
    equal values have equal digests."""
    return part_digest(value)


def _joined_digest(part_digests: Mapping[str, str]) -> str:
    joined = "\n".join(f"{n}={d}" for n, d in part_digests.items())
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CacheKey:
    """A full cache key: an ordered tuple of ``(name, value)`` parts."""

    parts: tuple[tuple[str, Any], ...]

    @classmethod
    def from_parts(cls, parts: Mapping[str, Any]) -> "CacheKey":
        return cls(tuple((name, parts[name]) for name in sorted(parts)))

    def as_dict(self) -> dict[str, Any]:
        return dict(self.parts)

    def part_digests(self) -> dict[str, str]:
        return {name: part_digest(value) if name == "kernel" else _environment_digest(name, value)
                for name, value in self.parts}

    def digest(self) -> str:
        return _joined_digest(self.part_digests())

    def kernel_digest(self) -> str:
        """The digest of the kernel structure alone (entries of one kernel share it)."""
        return part_digest(self.as_dict().get("kernel"))

    def folder_name(self) -> str:
        """``<kernel digest>-<full digest>``: a lookup is a path test, and the entries of one
        kernel built under other versions or flags are found by prefix (for ``explain``)."""
        digests = self.part_digests()
        # the kernel part is digested once for both halves (its repr is most of a warm lookup)
        kernel = digests["kernel"] if "kernel" in digests else self.kernel_digest()
        return f"k{kernel[:20]}-{_joined_digest(digests)[:20]}"

    def differences(self, other: "CacheKey") -> list[str]:
        """Names of the parts whose values differ (or exist on one side only)."""
        mine, theirs = self.part_digests(), other.part_digests()
        return sorted(n for n in set(mine) | set(theirs) if mine.get(n) != theirs.get(n))


class _KeyUnpickler(pickle.Unpickler):
    """Unpickles a key file and nothing else: a key is plain data in a :class:`CacheKey`, so
    any other class a file names is refused before it is imported."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == (__name__, "CacheKey"):
            return CacheKey
        raise pickle.UnpicklingError(f"it names {module}.{name}; a key holds only plain data "
                                     "in a CacheKey")


def load_key(data: bytes, check_parts: bool = True) -> CacheKey:
    """The key pickled in ``data`` (a ``key.pkl``), read without importing or running anything
    but :class:`CacheKey`; raises ``ValueError`` when ``data`` is not such a key.
    ``check_parts=False`` skips checking that every part is plain data (digesting them costs a
    millisecond): for a key only compared with one jitgraph made, which such a key never
    equals."""
    try:
        key = _KeyUnpickler(io.BytesIO(data)).load()
    except Exception as exc:  # noqa: BLE001 - EOFError, UnpicklingError, ...: all "damaged"
        raise ValueError(str(exc) or type(exc).__name__) from None
    if not isinstance(key, CacheKey):
        raise ValueError(f"it holds a {type(key).__name__}, not a CacheKey")
    if not check_parts:
        return key
    parts = getattr(key, "parts", None)
    if not isinstance(parts, tuple) or not all(
            isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in parts):
        raise ValueError("its CacheKey has no (name, value) parts")
    try:
        key.digest()
    except Exception as exc:  # noqa: BLE001 - a part that is not plain data
        raise ValueError(f"its CacheKey holds a part that is not plain data ({exc})") from None
    return key


@lru_cache(maxsize=None)
def _version(dist: str) -> str:
    return dist_version(dist, missing="absent")


def environment_parts(backend: str) -> dict[str, Any]:
    """The parts every key of ``backend`` ('numba' or 'cuda') carries besides the kernel."""
    parts: dict[str, Any] = {
        "format": FORMAT_VERSION,
        "backend": backend,
        "jitgraph": __version__,
        "numpy": _version("numpy"),
        "python": f"{sys.implementation.name}-{sys.version_info[0]}.{sys.version_info[1]}",
        "platform": f"{platform.system()}-{platform.machine()}",
        "flags": config.code_affecting_items(),
    }
    if backend == "numba":
        parts["numba"] = _version("numba")
        parts["llvmlite"] = _version("llvmlite")

        parts["target"] = cpu_target()
    return parts


def make_key(kernel: Any, backend: str = "numba", **extra: Any) -> CacheKey:
    """The key of a kernel structure compiled by ``backend`` in this environment."""
    parts = environment_parts(backend)
    parts["kernel"] = kernel
    parts.update(extra)
    return CacheKey.from_parts(parts)
