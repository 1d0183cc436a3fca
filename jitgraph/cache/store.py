"""The compiledir: entries published atomically, verified on load, aged, and counted.

Layout::

    <compiledir>/
      lock_dir/                   compile locks and their owner files
      k<kernel>-<digest>/         one folder per compiled module
        key.pkl                   the full key (checked on load)
        mod.py | mod.cu           the generated source, readable by a person
        info.json                 what the module is and its compile times (``metadata``)
        native-<f>.o / .json      a function's native object and its description (CPU)
        last_use                  touched on every load (access times are unreliable)
        __pycache__/ ...          the compiled artifacts (Numba cache files, cubin)
      tmp-<random>/               an entry being written (never loaded)
      quarantine/                 corrupt entries moved aside, deleted by cleanup
      graphs/                     rewritten graphs (``jitgraph.compile.graph_cache``)

Every metadata file is written in the schema of :mod:`jitgraph.cache.metadata`;
:mod:`jitgraph.cache.survey` reads a whole compiledir for the ``jitgraph-cache`` command.
"""

from __future__ import annotations

import os
import pickle
import shutil
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from jitgraph.cache import metadata
from jitgraph.cache.keys import CacheKey
from jitgraph.config import config
from jitgraph.config.paths import TMP_PREFIX  # noqa: F401 - also store.TMP_PREFIX

KEY_FILE = "key.pkl"
INFO_FILE = "info.json"
LAST_USE_FILE = "last_use"
HITS_FILE = "hits"
LOCK_DIR = "lock_dir"
QUARANTINE = "quarantine"
WEEK = 7 * 24 * 3600


class CacheWarning(UserWarning):
    """A cache entry was unusable (corrupt, or the folder could not be written)."""


@dataclass
class CacheStats:
    """Counters of this process, reported by the profiler and ``jitgraph-cache stats``."""

    hits: int = 0
    misses: int = 0
    rebuilt: int = 0
    load_seconds: float = 0.0
    compile_seconds: float = 0.0
    reasons: list[str] = field(default_factory=list)


STATS = CacheStats()


#: the folder of rewritten graphs (``jitgraph.compile.graph_cache``)
GRAPHS = "graphs"


def compiledir() -> Path:
    """The compiledir, created (with a clear error naming the flag) on first use."""
    return Path(config.ensure_compiledir())


def lock_dir(root: Path | None = None) -> Path:
    return (root or compiledir()) / LOCK_DIR


class Entry:
    """A published module folder."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def file(self, name: str) -> Path:
        return self.path / name

    def read_info(self) -> metadata.EntryInfo:
        """What ``info.json`` says, in any schema jitgraph has written; raises ``OSError`` or
        :class:`~jitgraph.cache.metadata.UnknownFormat`."""
        return metadata.parse(self.file(INFO_FILE).read_bytes(), metadata.ENTRY)

    def key(self) -> CacheKey:
        with open(self.file(KEY_FILE), "rb") as f:
            key = pickle.load(f)
        if not isinstance(key, CacheKey):
            raise TypeError(f"{KEY_FILE} holds a {type(key).__name__}, not a CacheKey")
        return key

    def last_use(self) -> float:
        for name in (LAST_USE_FILE, KEY_FILE):
            try:
                return self.file(name).stat().st_mtime
            except OSError:
                continue
        return 0.0

    def touch(self) -> None:
        try:
            os.utime(self.file(LAST_USE_FILE))
        except OSError:
            pass

    def record_hit(self) -> None:
        """Count a load across processes: one byte appended (atomic with O_APPEND)."""
        try:
            fd = os.open(self.file(HITS_FILE), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o660)
            try:
                os.write(fd, b".")
            finally:
                os.close(fd)
        except OSError:
            pass

    def hits(self) -> int:
        try:
            return self.file(HITS_FILE).stat().st_size
        except OSError:
            return 0

    def __repr__(self) -> str:
        return f"Entry({self.path.name})"


def entry_path(key: CacheKey, root: Path | None = None) -> Path:
    return (root or compiledir()) / key.folder_name()


def lookup(key: CacheKey, root: Path | None = None) -> Entry | None:
    """The entry for ``key`` if it is published, matches and is young enough, else None.

    A folder whose key file is missing, unreadable or different is reported once and moved
    aside; the caller then builds a fresh entry."""
    path = entry_path(key, root)
    if not path.is_dir():
        return None
    entry = Entry(path)
    try:
        stored = entry.key()
    except Exception as exc:  # truncated or garbage pickle: never crash the user's program
        quarantine(entry, f"its {KEY_FILE} cannot be read ({type(exc).__name__}: {exc})")
        return None
    if stored != key:
        quarantine(entry, f"its key differs from the requested one in {stored.differences(key)}")
        return None
    if time.time() - entry.last_use() > config.cmodule.age_thresh_use:
        # Too old to trust (Theano's rule): set it aside so that a fresh build can take its place.
        STATS.reasons.append(f"{path.name}: unused for longer than cmodule.age_thresh_use")
        _move_aside(entry)
        return None
    return entry


def publish(key: CacheKey, files: dict[str, str | bytes], info: metadata.EntryInfo,
            root: Path | None = None) -> Entry:
    """Write an entry in a temporary folder and rename it into place (atomic). If another
    process published the same key first, its entry is kept and ours discarded."""
    root = root or compiledir()
    final = entry_path(key, root)
    tmp = root / f"{TMP_PREFIX}{os.urandom(16).hex()}"
    tmp.mkdir()
    try:
        for name, content in files.items():
            mode = "wb" if isinstance(content, bytes) else "w"
            with open(tmp / name, mode) as f:
                f.write(content)
        (tmp / INFO_FILE).write_bytes(info.to_json())
        (tmp / LAST_USE_FILE).write_text("")
        # The key goes last: a folder without a readable key is never taken for an entry.
        with open(tmp / KEY_FILE, "wb") as f:
            pickle.dump(key, f, protocol=pickle.HIGHEST_PROTOCOL)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.rename(tmp, final)
        except OSError:
            if not final.is_dir():
                raise
            shutil.rmtree(tmp, ignore_errors=True)  # lost the race: the other copy is equal
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Entry(final)


_reported: set[str] = set()


def quarantine(entry: Entry, why: str) -> None:
    """Move a bad entry aside (deleted by cleanup) and warn once about it."""
    STATS.rebuilt += 1
    if entry.path.name not in _reported:
        _reported.add(entry.path.name)
        warnings.warn(f"jitgraph cache entry {entry.path} is unusable: {why}; it is moved aside "
                      "and rebuilt", CacheWarning, stacklevel=3)
    _move_aside(entry)


def _move_aside(entry: Entry) -> None:
    target = entry.path.parent / QUARANTINE / f"{entry.path.name}-{os.urandom(4).hex()}"
    try:
        target.parent.mkdir(exist_ok=True)
        os.rename(entry.path, target)
    except OSError:
        shutil.rmtree(entry.path, ignore_errors=True)
