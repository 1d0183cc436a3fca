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
:mod:`jitgraph.cache.survey` reads a whole compiledir for the ``jitgraph-cache`` command. What is
loaded is checked first (:mod:`jitgraph.cache.trust`: nobody else could have written it).

A compiledir that cannot be written (a full disk, a read-only filesystem, a folder removed
under a running process) never stops a program: the first failure is reported once
(:func:`cannot_write`) and the process compiles what it lacks in memory from then on, still
loading the entries that are there.
"""

from __future__ import annotations

import errno
import os
import pickle
import shutil
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from jitgraph.cache import metadata, trust
from jitgraph.cache.keys import CacheKey, load_key
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
    """The compiledir, created (with a clear error naming the flag) on first use, and refused
    (:class:`~jitgraph.cache.trust.UntrustedCompiledir`) when another user could write it."""
    path = config.ensure_compiledir()
    trust.check_compiledir(path, own=(config.get("base_compiledir"),))
    return Path(path)


_unwritable: list[str] = []
_unwritable_lock = threading.Lock()


def writable() -> bool:
    """False once this process failed to write the compiledir (:func:`cannot_write`)."""
    return not _unwritable


def cannot_write(exc: OSError, path: Path | str) -> None:
    """Report once per process that the compiledir cannot be written (a full disk, a read-only
    filesystem, a removed folder): from then on, what is not there is compiled in memory."""
    with _unwritable_lock:  # one warning, however many threads fail together
        if _unwritable:
            return
        _unwritable.append(str(path))
    why = errno.errorcode.get(exc.errno or 0, type(exc).__name__)
    warnings.warn(f"jitgraph cannot write the compiledir ({why}: {exc.strerror or exc} at "
                  f"{path}); compiled code is kept in memory, not cached, for the rest of this "
                  "process (entries already there are still loaded)", CacheWarning,
                  stacklevel=4)


def make_folder(path: Path) -> None:
    """``mkdir`` with the mode :mod:`.trust` gives new folders (a folder already there is
    fine)."""
    path.mkdir(mode=trust.folder_mode(), exist_ok=True)


def write_file(path: Path, data: bytes, sync: bool = False) -> None:
    """Create ``path`` (which must not exist) holding ``data``, with the mode of new files."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, trust.file_mode())
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        if sync:
            f.flush()
            os.fsync(f.fileno())


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

    def read(self, name: str) -> bytes:
        """The bytes of file ``name``, refused (:class:`~jitgraph.cache.trust.UntrustedFile`)
        when another user could have written it."""
        return trust.read_trusted(self.file(name))

    def key(self, check_parts: bool = True) -> CacheKey:
        """The stored key (unpickled without running anything but :class:`CacheKey`); raises
        ``OSError`` or ``ValueError`` (``check_parts``: see
        :func:`~jitgraph.cache.keys.load_key`)."""
        return load_key(self.read(KEY_FILE), check_parts)

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
    entry = Entry(path)
    try:
        trust.check_folder(path)
        if not path.is_dir():
            quarantine(entry, "it is not a folder")
            return None
        stored = entry.key(check_parts=False)  # only compared with ``key``
    except trust.UntrustedFile as exc:
        refuse(entry, str(exc))
        return None
    except FileNotFoundError:
        return None
    except Exception as exc:  # truncated or garbage pickle: never crash the user's program
        quarantine(entry, f"its {KEY_FILE} cannot be read ({type(exc).__name__}: {exc})")
        return None
    if stored != key:
        quarantine(entry, f"its key differs from the requested one in {stored.differences(key)}")
        return None
    if time.time() - entry.last_use() > config.cmodule.age_thresh_use:
        # Too old to trust (Theano's rule): set it aside so that a fresh build can take its place.
        STATS.reasons.append(f"{path.name}: unused for longer than cmodule.age_thresh_use")
        move_aside(entry)
        return None
    return entry


def publish(key: CacheKey, files: dict[str, str | bytes], info: metadata.EntryInfo,
            root: Path | None = None) -> Entry:
    """Write an entry in a temporary folder and rename it into place (atomic). If another
    process published the same key first, its entry is kept and ours discarded. Raises
    ``OSError`` when the compiledir cannot be written (nothing is left behind), or
    :class:`~jitgraph.cache.trust.UntrustedFile` when the entry there is not ours to load."""
    root = root or compiledir()
    final = entry_path(key, root)
    tmp = root / f"{TMP_PREFIX}{os.urandom(16).hex()}"
    tmp.mkdir(mode=trust.folder_mode())
    try:
        for name, content in files.items():
            write_file(tmp / name, content if isinstance(content, bytes) else content.encode())
        write_file(tmp / INFO_FILE, info.to_json())
        write_file(tmp / LAST_USE_FILE, b"")
        # The key goes last: a folder without a readable key is never taken for an entry.
        write_file(tmp / KEY_FILE, pickle.dumps(key, protocol=pickle.HIGHEST_PROTOCOL),
                   sync=True)
        try:
            os.rename(tmp, final)
        except OSError:
            if not final.is_dir():
                raise
            shutil.rmtree(tmp, ignore_errors=True)  # lost the race: the other copy is equal
            trust.check_folder(final)
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
    move_aside(entry)


def refuse(entry: Entry, why: str) -> None:
    """Warn once that ``entry`` is not loaded because another user could have written it
    (``why``: :func:`jitgraph.cache.trust.describe`), and move it aside to be rebuilt."""
    STATS.rebuilt += 1
    if entry.path.name not in _reported:
        _reported.add(entry.path.name)
        warnings.warn(f"jitgraph cache: {why}. It is moved aside to {QUARANTINE}/ and rebuilt.",
                      CacheWarning, stacklevel=3)
    move_aside(entry)


def move_aside(entry: Entry) -> None:
    """Move ``entry`` into ``quarantine/`` (deleted by cleanup), or delete it."""
    target = entry.path.parent / QUARANTINE / f"{entry.path.name}-{os.urandom(4).hex()}"
    try:
        make_folder(target.parent)
        os.rename(entry.path, target)
    except OSError:
        if not entry.path.is_symlink():
            shutil.rmtree(entry.path, ignore_errors=True)
