"""A whole compiledir read for the ``jitgraph-cache`` command: every kernel entry, native object,
Numba-cached function, GPU module and rewritten graph with its metadata, and every item that
could not be read, with why.

Reading is safe on any folder, whoever wrote it and whatever happened to it: metadata goes
through the one reader of :mod:`jitgraph.cache.metadata`; nothing is unpickled (a key file is
checked by parsing its opcodes, which imports and runs nothing; only :func:`entry_key` loads
one, admitting no class but ``CacheKey``); no symbolic link is followed (a link is reported,
never entered); nothing is written. What could not be read is a :class:`Problem` whose
``category`` says what ``cleanup`` does with it.
"""

from __future__ import annotations

import hashlib
import os
import pickletools
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from jitgraph.cache import metadata, trust
from jitgraph.cache.host import MEMO_PREFIX
from jitgraph.cache.keys import CacheKey, load_key
from jitgraph.cache.locking import LockOwner
from jitgraph.cache.metadata import (CPU_KERNEL, GPU_KERNEL, GRAPH, NATIVE_OBJECT, NUMBA_KERNEL,
                                     EntryInfo, UnknownFormat)
from jitgraph.cache.store import (GRAPHS, HITS_FILE, INFO_FILE, KEY_FILE, LAST_USE_FILE,
                                  LOCK_DIR, QUARANTINE, TMP_PREFIX)
from jitgraph.config import config

ENTRY_NAME = re.compile(r"k[0-9a-f]{20}-[0-9a-f]{20}")
GRAPH_NAME = re.compile(r"g[0-9a-f]{40}")
#: files of a GPU entry (see ``jitgraph.backend_gpu.kernels``) and of a CPU one
GPU_SOURCE, CUBIN, CPU_SOURCE, PYCACHE = "mod.cu", "mod.cubin", "mod.py", "__pycache__"
#: folders other programs keep in the compiledir (CuPy's kernel cache, Theano's GPU flag)
OTHER_CACHES = ("cupy", "gpuarray_kernels")

# What could not be read, by what cleanup does with it.
DAMAGED = "damaged"          # jitgraph's own, unreadable: `cleanup --unreadable` deletes it
NEWER = "newer"              # written by a newer jitgraph: left alone
UNKNOWN = "unknown"          # nothing jitgraph writes: left alone
LINK = "link"                # a symbolic link: not followed, left alone
INACCESSIBLE = "inaccessible"  # the system refused to read it: left alone
QUARANTINED = "quarantined"  # moved aside by jitgraph as unusable: cleanup deletes it
PARTIAL = "partial"          # being written, or left by a process that died: cleanup deletes
                             # it once a day old
STALE_LOCK = "stale-lock"    # `jitgraph-cache unlock` removes it
UNTRUSTED = "untrusted"      # another user could have written it: jitgraph does not load it
#: what each category's line in a report adds
HINTS = {DAMAGED: "left in place; `jitgraph-cache cleanup --unreadable` deletes them",
         NEWER: "left alone: a newer jitgraph reads them",
         UNKNOWN: "left alone", LINK: "not followed, left alone",
         INACCESSIBLE: "left alone",
         QUARANTINED: "`jitgraph-cache cleanup` deletes them",
         PARTIAL: "`jitgraph-cache cleanup` deletes them once they are a day old",
         STALE_LOCK: "`jitgraph-cache unlock` removes them",
         UNTRUSTED: "another user could have written them, so jitgraph does not load them "
                    "(it moves such an entry aside when it needs it); see the compiledir_trust "
                    "flag"}


@dataclass
class Problem:
    """Something in the compiledir that could not be read."""

    path: Path
    reason: str
    category: str
    #: what cleanup deletes for it (when its category allows)
    remove: tuple[Path, ...] = ()


@dataclass
class Function:
    """One compiled function of a CPU kernel entry."""

    name: str
    kind: str = ""           # NATIVE_OBJECT, NUMBA_KERNEL, or "" (compiled, nothing stored)
    size: int = 0
    seconds: float = 0.0


@dataclass
class Record:
    """A kernel entry (a ``k..`` folder) or a rewritten graph, as far as it could be read."""

    kind: str                # CPU_KERNEL, GPU_KERNEL, GRAPH, or "" (neither info nor source)
    path: Path
    info: EntryInfo | None
    size: int = 0
    last_use: float = 0.0
    hits: int = 0
    functions: list[Function] = field(default_factory=list)
    nvrtc: str = ""
    #: False when some part could not be read (cleanup by age then leaves it alone)
    readable: bool = True

    @property
    def name(self) -> str:
        """The entry's folder name; a graph's file name without ``.pkl``."""
        return self.path.stem if self.kind == GRAPH else self.path.name

    @property
    def description(self) -> str:
        if self.info is not None:
            return self.info.description
        if self.kind == GRAPH and self.readable:
            return "(stored without a description, by an earlier jitgraph)"
        return "?"

    @property
    def seconds(self) -> float:
        return self.info.total_seconds() if self.info is not None else 0.0

    @property
    def arch(self) -> str:
        return str(self.info.details.get("arch", "")) if self.info is not None else ""


@dataclass
class Survey:
    """What :func:`survey` found in ``root``."""

    root: Path
    exists: bool = True
    records: list[Record] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    locks: int = 0
    _reported: set[Path] = field(default_factory=set, repr=False)

    def of_kind(self, *kinds: str) -> list[Record]:
        return [r for r in self.records if r.kind in kinds]

    def add(self, path: Path, reason: str, category: str, *remove: Path) -> None:
        """Record that ``path`` could not be read (once: the first reason found is kept)."""
        if path not in self._reported:
            self._reported.add(path)
            self.problems.append(Problem(path, reason, category, tuple(remove)))


def survey(root: Path, graphs: bool = True) -> Survey:
    """Read ``root`` (``graphs``: the rewritten graphs too)."""
    found = Survey(Path(root))
    if not os.path.lexists(found.root):  # no compiledir yet: nothing to read, nothing failed
        found.exists = False
        return found
    items = _list(found, found.root)
    if items is None:
        return found
    for item in items:
        path = found.root / item.name
        if item.is_symlink():
            found.add(path, "a symbolic link", LINK)
        elif item.name.startswith(TMP_PREFIX):
            found.add(path, "half-published: a process is writing it, or died while writing it",
                      PARTIAL, path)
        elif not _is_dir(item):
            if not item.name.startswith(MEMO_PREFIX):
                found.add(path, "not something jitgraph writes", UNKNOWN)
        elif ENTRY_NAME.fullmatch(item.name):
            _read_entry(found, path)
        elif item.name == GRAPHS:
            if graphs:
                _read_graphs(found, path)
        elif item.name == QUARANTINE:
            _read_quarantine(found, path)
        elif item.name == LOCK_DIR:
            _read_locks(found, path)
        elif item.name not in OTHER_CACHES:
            found.add(path, "a folder of a format this jitgraph does not know (a newer "
                            "jitgraph's, or another program's)", UNKNOWN)
    _read_trust(found)
    found.records.sort(key=lambda r: (r.kind != CPU_KERNEL, r.kind != GPU_KERNEL, r.name))
    return found


def _read_trust(found: Survey) -> None:
    """Report what jitgraph refuses to load (:mod:`.trust`): the compiledir itself when another
    user could write it or a folder above it, and each folder or file of it that another user
    could have written (links are reported as links; quarantine and locks are never loaded)."""
    why = trust.compiledir_problem(found.root, (config.get("base_compiledir"),))
    if why is not None:
        found.add(found.root, why, UNTRUSTED)
    for folder, dirs, files in os.walk(found.root):
        if Path(folder) == found.root:
            dirs[:] = [d for d in dirs if d not in (QUARANTINE, LOCK_DIR)]
        for name in [*dirs, *files]:
            try:
                st = os.lstat(os.path.join(folder, name))
            except OSError:
                continue
            why = None if stat.S_ISLNK(st.st_mode) else trust.problem(st)
            if why is not None:
                found.add(Path(folder) / name, why, UNTRUSTED)
                if name in dirs:  # what is inside goes with it
                    dirs.remove(name)


def _list(found: Survey, folder: Path) -> list[os.DirEntry] | None:
    try:
        with os.scandir(folder) as it:
            return sorted(it, key=lambda e: e.name)
    except FileNotFoundError:
        return None
    except OSError as exc:
        found.add(folder, f"cannot be listed ({exc.strerror or exc})", INACCESSIBLE)
        return None


def _is_dir(item: os.DirEntry) -> bool:
    try:
        return item.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _size(item: os.DirEntry) -> int:
    try:
        return item.stat(follow_symlinks=False).st_size
    except OSError:
        return 0


def _tree(found: Survey, folder: Path) -> list[tuple[Path, int]]:
    """The files under ``folder`` and their sizes (links are reported, not entered)."""
    files = []
    for item in _list(found, folder) or []:
        path = folder / item.name
        if item.is_symlink():
            found.add(path, "a symbolic link", LINK)
        elif _is_dir(item):
            files += _tree(found, path)
        else:
            files.append((path, _size(item)))
    return files


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _read_bytes(found: Survey, path: Path, what: str, *remove: Path) -> bytes | None:
    """The bytes of the file ``path`` (never through a link), or None with the problem."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
        with os.fdopen(fd, "rb") as f:
            return f.read()
    except FileNotFoundError:
        found.add(path, f"no {what}", DAMAGED, *remove)
    except IsADirectoryError:
        found.add(path, "a folder where a file belongs", DAMAGED, *remove)
    except OSError as exc:
        if os.path.islink(path):
            found.add(path, "a symbolic link", LINK)
        else:
            found.add(path, f"cannot be read ({exc.strerror or exc})", INACCESSIBLE)
    return None


#: opcodes that call something (a key only builds its one class, with NEWOBJ)
_CALLING = frozenset({"GLOBAL", "INST", "OBJ", "REDUCE", "EXT1", "EXT2", "EXT4"})
_STRINGS = frozenset({"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE"})
_KEY_CLASS = ("jitgraph.cache.keys", "CacheKey")


def check_key_pickle(data: bytes) -> str | None:
    """Why ``data`` is not a whole ``key.pkl`` naming no class but ``CacheKey``, or None. Only
    the opcodes are parsed: nothing is imported, built or run."""
    if not data:
        return "the file is empty"
    recent: list[tuple[str, object]] = []
    try:
        for op, arg, _ in pickletools.genops(data):
            if op.name in _CALLING:
                return f"it holds code to run ({op.name}), which a key never does"
            if op.name == "STACK_GLOBAL" and (
                    [name for name, _ in recent[-2:]] != ["string", "string"]
                    or tuple(value for _, value in recent[-2:]) != _KEY_CLASS):
                return "it names a class other than CacheKey, which a key never does"
            if op.name != "MEMOIZE":
                recent.append(("string" if op.name in _STRINGS else op.name, arg))
    except Exception as exc:  # noqa: BLE001 - ValueError, and whatever garbage makes of it
        return f"truncated, or not a pickle ({exc})"
    if not any(name == "STACK_GLOBAL" for name, _ in recent):
        return "it holds no CacheKey"
    return None


def _read_info(found: Survey, path: Path, file: str, *remove: Path) -> EntryInfo | None:
    data = _read_bytes(found, path, path.name, *remove)
    if data is None:
        return None
    try:
        return metadata.parse(data, file)
    except UnknownFormat as exc:
        if exc.newer:
            found.add(path, f"unknown format: {exc}", NEWER)
        else:
            found.add(path, f"unknown format: {exc}", DAMAGED, *remove)
    return None


def _read_entry(found: Survey, path: Path) -> None:
    before = len(found.problems)
    items = _list(found, path)
    if items is None:
        found.records.append(Record("", path, None, readable=False))
        return
    names = {item.name: item for item in items}
    size, sizes, pycache = 0, {}, []
    for item in items:
        child = path / item.name
        if item.is_symlink():
            found.add(child, "a symbolic link", LINK)
        elif _is_dir(item):
            files = _tree(found, child)
            size += sum(n for _, n in files)
            if item.name == PYCACHE:
                pycache = files
        else:
            sizes[item.name] = _size(item)
            size += sizes[item.name]
            if item.name.startswith(TMP_PREFIX):
                found.add(child, "a file being written, or left by a process that died while "
                                 "writing it", PARTIAL, child)
    key_data = _read_bytes(found, path / KEY_FILE, KEY_FILE, path)
    if key_data is not None:
        why = check_key_pickle(key_data)
        if why is not None:
            found.add(path / KEY_FILE, why, DAMAGED, path)
            key_data = None
    info = _read_info(found, path / INFO_FILE, metadata.ENTRY, path)
    kind = info.kind if info is not None else \
        GPU_KERNEL if GPU_SOURCE in names else CPU_KERNEL if CPU_SOURCE in names else ""
    record = Record(kind, path, info, size, _last_use(path), sizes.get(HITS_FILE, 0))
    if kind == GPU_KERNEL:
        _check_cubin(found, path, info)
        record.nvrtc = str(info.details.get("nvrtc", "")) if info is not None else ""
        if not record.nvrtc and key_data is not None:  # schema 1 kept it in the key only
            record.nvrtc = _key_part(key_data, "nvrtc")
    elif kind == CPU_KERNEL:
        if CPU_SOURCE not in names:
            found.add(path / CPU_SOURCE, f"no {CPU_SOURCE}", DAMAGED, path)
        elif _is_dir(names[CPU_SOURCE]):
            found.add(path / CPU_SOURCE, "a folder where a file belongs", DAMAGED, path)
        record.functions = _functions(found, path, names, sizes, pycache, info)
    record.readable = not any(p.category != PARTIAL for p in found.problems[before:])
    found.records.append(record)


def _functions(found: Survey, path: Path, names: dict[str, os.DirEntry], sizes: dict[str, int],
               pycache: list[tuple[Path, int]], info: EntryInfo | None) -> list[Function]:
    """The compiled functions of a CPU entry: its native objects, the functions Numba's cache
    holds, and those with only a compile time."""
    stored = {n[len("native-"):-len(".json")] for n in names
              if n.startswith("native-") and n.endswith(".json")}
    seconds = dict(info.compile_seconds) if info is not None else {}
    functions = []
    for name in sorted(stored | set(seconds)):
        fn = Function(name, seconds=seconds.get(name, 0.0))
        numba_files = [size for f, size in pycache if f".{name}-" in f.name]
        if name in stored:
            doc, obj = path / f"native-{name}.json", path / f"native-{name}.o"
            fn_info = _read_info(found, doc, metadata.FUNCTION, doc, obj)
            fn.size = sizes.get(doc.name, 0)
            if fn_info is not None and fn_info.kind == NATIVE_OBJECT:
                fn.kind = NATIVE_OBJECT
                fn.size += sizes.get(obj.name, 0)
                _check_object(found, obj, fn_info, doc)
            elif fn_info is not None:
                fn.kind = NUMBA_KERNEL
        if numba_files and fn.kind != NATIVE_OBJECT:
            fn.kind = NUMBA_KERNEL
            fn.size += sum(numba_files)
        functions.append(fn)
    for name in names:  # an object stored without its description: its writer died
        if name.startswith("native-") and name.endswith(".o") and name[7:-2] not in stored:
            found.add(path / name, "a native object without its description (a process died "
                                   "while storing it)", PARTIAL, path / name)
    return functions


def _check_cubin(found: Survey, path: Path, info: EntryInfo | None) -> None:
    data = _read_bytes(found, path / CUBIN, CUBIN, path)
    if data is None:
        return
    expected = info.details.get("cubin_sha256") if info is not None else None
    if not data.startswith(b"\x7fELF"):
        found.add(path / CUBIN, "not a cubin (no ELF header)", DAMAGED, path)
    elif expected is not None and hashlib.sha256(data).hexdigest() != expected:
        found.add(path / CUBIN, f"does not match the checksum in {INFO_FILE} (truncated or "
                                "damaged)", DAMAGED, path)


def _check_object(found: Survey, obj: Path, info: EntryInfo, doc: Path) -> None:
    data = _read_bytes(found, obj, obj.name, doc, obj)
    if data is not None and hashlib.sha256(data).hexdigest() != info.details.get("sha256"):
        found.add(obj, f"does not match the checksum in {doc.name} (truncated or damaged)",
                  DAMAGED, doc, obj)


def _last_use(path: Path) -> float:
    for name in (LAST_USE_FILE, KEY_FILE):
        try:
            return (path / name).stat().st_mtime
        except OSError:
            continue
    return 0.0


def _key_part(data: bytes, part: str) -> str:
    try:
        return str(load_key(data).as_dict().get(part, ""))
    except ValueError:
        return ""


def entry_key(path: Path) -> CacheKey:
    """The key of the entry at ``path``, loaded admitting no class but ``CacheKey``; raises
    ``OSError`` or ``ValueError``."""
    return load_key((path / KEY_FILE).read_bytes())


def _read_graphs(found: Survey, folder: Path) -> None:
    pickles, docs, linked = {}, {}, set()  # linked: stems with a link or folder
    for item in _list(found, folder) or []:
        path = folder / item.name
        stem, _, suffix = item.name.partition(".")
        if item.is_symlink():
            found.add(path, "a symbolic link", LINK)
            linked.add(stem)
        elif item.name.startswith(TMP_PREFIX):
            found.add(path, "a graph being written, or left by a process that died while "
                            "writing it", PARTIAL, path)
        elif GRAPH_NAME.fullmatch(stem) and suffix in ("pkl", "json") and not _is_dir(item):
            (pickles if suffix == "pkl" else docs)[stem] = item
        else:
            found.add(path, "not something jitgraph writes", UNKNOWN)
            linked.add(stem)  # its graph is not deleted with it
    for stem, item in pickles.items():
        path, doc = folder / item.name, folder / f"{stem}.json"
        info = _read_info(found, doc, metadata.GRAPH_FILE, doc) if stem in docs else None
        size = _size(item)
        why = _graph_damage(path, size, info)
        if why is not None:
            found.add(path, why, DAMAGED, path, *([doc] if stem in docs else []))
        try:
            last_use = item.stat(follow_symlinks=False).st_mtime
        except OSError:
            last_use = 0.0
        readable = why is None and (info is not None or stem not in docs) \
            and stem not in linked
        found.records.append(Record(GRAPH, path, info, size + _size(docs[stem]) if stem in docs
                                    else size, last_use, readable=readable))
    for stem in sorted(set(docs) - set(pickles)):
        found.add(folder / docs[stem].name, "the description of a graph that is gone", DAMAGED,
                  folder / docs[stem].name)


def _graph_damage(path: Path, size: int, info: EntryInfo | None) -> str | None:
    """Why the pickled graph at ``path`` is damaged, from its size and ends only (graphs are
    big: they are loaded, and checked in full, when a function is compiled)."""
    if size == 0:
        return "the file is empty"
    expected = info.details.get("bytes") if info is not None else None
    if isinstance(expected, int) and expected != size:
        return f"{size} bytes where its description says {expected} (truncated or damaged)"
    try:
        with open(path, "rb") as f:
            head = f.read(1)
            f.seek(-1, os.SEEK_END)
            tail = f.read(1)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if head != b"\x80" or tail != b".":
        return "truncated, or not a pickle"
    return None


def _read_quarantine(found: Survey, folder: Path) -> None:
    for item in _list(found, folder) or []:
        path = folder / item.name
        if item.is_symlink():
            found.add(path, "a symbolic link", LINK)
        else:
            found.add(path, "moved aside by jitgraph (unusable, or unused for longer than "
                            "cmodule.age_thresh_use)", QUARANTINED, path)


def _read_locks(found: Survey, folder: Path) -> None:
    now = time.time()
    timeout = float(config.compile.timeout)
    for item in _list(found, folder) or []:
        path = folder / item.name
        if item.is_symlink():
            found.add(path, "a symbolic link", LINK)
        elif item.name.endswith(".lock"):
            found.locks += 1
        elif item.name.endswith(".owner"):
            owner = LockOwner.read(path)
            if owner is None:
                found.add(path, "a lock owner file that cannot be read", STALE_LOCK)
            elif owner.is_dead():
                found.add(path, f"a stale lock: its holder, {owner}, is gone", STALE_LOCK)
            elif now - owner.refreshed > timeout:
                found.add(path, f"a stale lock: {owner} has not refreshed it for "
                                f"{now - owner.refreshed:.0f} s", STALE_LOCK)
        elif not item.name.endswith(".tmp"):
            found.add(path, "not something jitgraph writes", UNKNOWN)


def is_regular_file(path: Path) -> bool:
    """Whether ``path`` is a file and not a link (what cleanup may delete with ``unlink``)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False
