"""Rewritten graphs kept in the compiledir, so that compiling a function again skips rewriting.

Kernels are cached by their structure (:mod:`jitgraph.cache`); this cache sits one level up. A
function's graph, as ``function`` builds it before any rewrite, is written out as a canonical
text: its nodes in topological order, each op with all its parameters, every variable's type
and name, constants by value (a digest of their bytes), which inputs may be overwritten, the
mode's rewrite settings, every configuration flag and a fingerprint of jitgraph's own source
files. The rewritten graph is stored, pickled, in ``<compiledir>/graphs/g<sha256 of the
text>.pkl`` with the text itself, which a lookup compares in full; ``g<..>.json`` beside it
describes it for ``jitgraph-cache`` in the schema of :mod:`jitgraph.cache.metadata` (its size,
nodes, whether a linked program is stored, the rewrite time it saves). The text also says where
the graph runs (each backend's :meth:`~.backend.Backend.device_key`): a graph rewritten for a
GPU is never loaded by a process without one, nor the other way round. A process that compiles a
graph it (or another process) compiled before loads the rewritten graph instead of importing
and running the rewrite passes: most of a warm start, once the kernels load in milliseconds.

A graph is only cached when every part of it can be written out exactly: an op parameter of an
unknown kind (a Python function, say) makes the key ``None`` and the graph is rewritten as
usual; so do DebugMode and the other modes that watch the rewrites, profiling and
``optimizer_verbose``, and a process where code outside jitgraph registered or removed
rewrites. Entries are written to a temporary file and renamed; a file that cannot be read or does not match its key is deleted, with a
warning, and the graph rewritten. A file's modification time is its last use: one unused for
``cmodule.age_thresh_use`` is not reused, and ``jitgraph-cache cleanup`` deletes it a week
later (``clear`` and ``purge`` delete them all). ``JITGRAPH_GRAPH_CACHE=0`` turns the cache off.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import os
import pickle
import sys
import time
from typing import Any, Sequence

from jitgraph.cache import metadata, store as compiledir_store, trust
from jitgraph.cache.store import CacheWarning, GRAPHS
from jitgraph.compile.backend import backends
from jitgraph.compile.mode import Mode
from jitgraph.config import config
from jitgraph.config.paths import write_atomic
from jitgraph.graph.basic import Constant
from jitgraph.tensor.core.type import TensorType

FORMAT = 5  # 5: the nodes before the outputs; references as reductions; flat tuples as repr


class _Unkeyable(Exception):
    """Some part of the graph has no exact text form."""


def graph_key(fgraph: Any, mutable: Sequence[int], mode: Any) -> str | None:
    """The canonical text of ``fgraph`` (inputs ``mutable`` may be overwritten) compiled
    with ``mode``; None when it cannot be written out exactly."""
    try:
        return "\n".join([f"format {FORMAT}", f"source {_source_fingerprint()}",
                          f"mode {_mode_token(mode)}", f"config {_config_token()}",
                          f"devices {_device_token()}",
                          f"mutable {sorted(mutable)}", *_graph_lines(fgraph)])
    except _Unkeyable:
        return None


def _graph_lines(fgraph: Any) -> list[str]:
    ids: dict[Any, str] = {}
    lines = []

    def ref(var: Any) -> str:
        """The id of ``var``; a constant seen for the first time is written out by value."""
        if var not in ids:
            if not isinstance(var, Constant):
                raise _Unkeyable("a variable that is neither an input nor computed")
            ids[var] = f"c{len(ids)}"
            lines.append(f"const {ids[var]} {_type_token(var.type)} {var.name!r} "
                         f"{_value_token(var.data)}")
        return ids[var]

    for k, var in enumerate(fgraph.inputs):
        ids[var] = f"i{k}"
        lines.append(f"input i{k} {_type_token(var.type)} {var.name!r}")
    op_tokens: dict[int, str] = {}  # id of an op -> its token (nodes often share their op)
    type_tokens: dict = {}
    for n, node in enumerate(fgraph.toposort()):
        args = [ref(var) for var in node.inputs]
        outs = []
        for j, var in enumerate(node.outputs):
            ids[var] = f"n{n}.{j}"
            outs.append(f"{_type_token(var.type, type_tokens)}:{var.name!r}")
        op = op_tokens.get(id(node.op))
        if op is None:
            op = op_tokens[id(node.op)] = _op_token(node.op)
        lines.append(f"node n{n} {op} ({' '.join(args)}) -> {' '.join(outs)}")
    lines.append(f"outputs {' '.join(ref(var) for var in fgraph.outputs)}")
    return lines


def _type_token(vtype: Any, memo: dict | None = None) -> str:
    """``vtype``'s text; ``memo`` keeps those of tensor types (equal tensor types of the same
    name have the same text: their class, dtype and broadcast pattern are their identity)."""
    cls = type(vtype)
    if memo is not None and cls is TensorType:
        key = (vtype, str(vtype))
        token = memo.get(key)
        if token is None:
            token = memo[key] = _type_token(vtype)
        return token
    parts = [f"{cls.__module__}.{cls.__qualname__}"]
    for attr in ("dtype", "shape", "broadcastable", "context_name"):
        value = getattr(vtype, attr, None)
        if value is not None:
            parts.append(f"{attr}={_value_token(value)}")
    return f"<{' '.join(parts)} {vtype!r}>"


def _op_token(op: Any) -> str:
    cls = type(op)
    # An op compared by identity (a user op without __props__, OpFromGraph) has no text key.
    props = None if getattr(cls, "compare_by_identity", False) else getattr(cls, "__props__", None)
    name = f"{cls.__module__}.{cls.__qualname__}{_user_code_token(cls)}"
    if props is not None:
        return f"{name}{{{','.join(f'{p}={_value_token(getattr(op, p))}' for p in props)}}}"
    key = getattr(op, "key", None)
    if isinstance(key, tuple):  # scalar ops: equal when their keys are
        return f"{name}[{_value_token(key)}]"
    raise _Unkeyable(f"op {name} has neither __props__ nor a key")


@functools.lru_cache(maxsize=None)
def _user_code_token(cls: type) -> str:
    """For an op class written outside jitgraph: the size and modification time of the files
    defining it and its bases outside jitgraph, so that editing the op (its ``infer_shape``,
    say) is never answered with a graph rewritten by the old code. Empty for jitgraph's ops
    (the source fingerprint covers them)."""
    import inspect

    parts = []
    for klass in cls.__mro__:
        module = klass.__module__ or ""
        if module == "builtins" or module.split(".")[0] == "jitgraph":
            continue
        try:
            st = os.stat(inspect.getfile(klass))
        except (TypeError, OSError) as exc:  # defined interactively: no file to follow
            raise _Unkeyable(f"op class {klass.__qualname__} has no source file") from exc
        parts.append(f"{st.st_size}:{st.st_mtime_ns}")
    return f"@{'/'.join(parts)}" if parts else ""


_PLAIN = (type(None), bool, int, float, complex, str, bytes)
_EXACTLY_PLAIN = frozenset(_PLAIN)


def _value_token(value: Any) -> str:
    cls = type(value)
    # (a fast path for what types and ops hold most: repr tells 1 from True and from '1')
    if cls in _EXACTLY_PLAIN or (cls is tuple and all(type(v) in _EXACTLY_PLAIN
                                                      for v in value)):
        return repr(value)
    import numpy as np

    if isinstance(value, _PLAIN):
        return repr(value)
    if isinstance(value, (tuple, list)):
        open_, close = ("(", ")") if isinstance(value, tuple) else ("[", "]")
        return open_ + ",".join(_value_token(v) for v in value) + close
    if isinstance(value, (frozenset, set)):
        return "{" + ",".join(sorted(_value_token(v) for v in value)) + "}"
    if isinstance(value, dict):
        return "{" + ",".join(sorted(f"{_value_token(k)}:{_value_token(v)}"
                                     for k, v in value.items())) + "}"
    if isinstance(value, np.dtype):
        return f"dtype({value.str})"
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        if arr.dtype.hasobject:
            raise _Unkeyable("an object array")
        digest = hashlib.sha256(np.ascontiguousarray(arr).tobytes()).hexdigest()[:32]
        return f"array({arr.dtype.str},{arr.shape},{digest})"
    if isinstance(value, type):
        return f"class:{value.__module__}.{value.__qualname__}"
    if hasattr(cls, "__props__") or isinstance(getattr(value, "key", None), tuple):
        return _op_token(value)
    if hasattr(value, "ndim") and hasattr(value, "dtype") and hasattr(value, "make_variable"):
        return _type_token(value)
    raise _Unkeyable(f"a parameter of type {cls.__qualname__}")


def _device_token() -> str:
    """Where a graph compiled now runs, as the backends say."""
    keys = [(backend.name, backend.device_key()) for backend in backends()]
    return _value_token([f"{name}: {key}" for name, key in keys if key is not None])


def _mode_token(mode: Any) -> str:
    if type(mode) is not Mode:  # DebugMode & co. check or profile the rewrites themselves
        raise _Unkeyable(f"mode {type(mode).__name__}")
    return _value_token((mode.optimizer, tuple(mode.include), tuple(mode.exclude),
                         tuple(mode.require), mode.linker_name,
                         type(mode.linker).__qualname__))


#: flags under which the rewrites are printed or profiled: they must run
_WATCHING_FLAGS = ("profile", "profile_optimizer", "optimizer_verbose")


def _config_token() -> str:
    for flag in _WATCHING_FLAGS:  # the user asked to see the rewrites happen
        if config.get(flag):
            raise _Unkeyable(flag)
    db = sys.modules.get("jitgraph.rewrite.db")
    if db is not None and db.changed_outside_jitgraph:
        raise _Unkeyable("rewrites registered or removed outside jitgraph")
    return hashlib.sha256(repr(config.all_items()).encode()).hexdigest()


@functools.lru_cache(maxsize=None)
def _source_fingerprint() -> str:
    """The :func:`source_fingerprint` of jitgraph itself (a rewrite edited in a development
    checkout must not be served from an older run)."""
    return source_fingerprint(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def source_fingerprint(root: str) -> str:
    """A digest of the path, size and modification time of every ``.py`` file under ``root``
    (folders starting with ``.`` or ``__`` and links to folders skipped)."""
    lines: list[str] = []
    _list_sources(root, "", lines)
    return hashlib.sha256("".join(lines).encode()).hexdigest()[:32]


def _list_sources(folder: str, relative: str, lines: list[str]) -> None:
    # os.scandir, not os.walk: a warm compile pays this once per process, and the walk's path
    # joins cost more than the stat calls themselves
    with os.scandir(folder) as entries:
        ordered = sorted(entries, key=lambda entry: entry.name)
    for entry in ordered:
        if entry.is_dir():
            if not entry.is_symlink() and not entry.name.startswith((".", "__")):
                _list_sources(entry.path, f"{relative}/{entry.name}", lines)
        elif entry.name.endswith(".py"):
            st = entry.stat()
            lines.append(f"{relative}/{entry.name} {st.st_size} {st.st_mtime_ns}\n")


def _path(key: str) -> str:
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:40]
    return os.path.join(compiledir_store.compiledir(), GRAPHS, f"g{digest}.pkl")


def _graph_input(position: int) -> Any:
    """Stands for the graph's input ``position`` in a stored graph; :class:`_Unpickler` binds
    it to the inputs of the function being compiled."""
    raise pickle.UnpicklingError(f"graph input {position} read outside the graph cache")


class _Pickler(pickle.Pickler):
    """Modules, and what the backends' :meth:`~.backend.Backend.pickle_references` recognise
    (compiled kernels), are saved by reference; the graph's ``inputs`` by their position (a
    load binds the compiling function's own variables: a shared variable's value is never
    written into the cache).

    The references are reductions (:meth:`reducer_override`), not persistent ids: the pickler
    asks ``persistent_id`` about every object it meets, a number or a string as often as
    not (260000 calls for a 1500-node training step and its program, more than half of the
    pickling), ``reducer_override`` only about new objects of other classes (18000)."""

    def __init__(self, file: Any, inputs: Sequence[Any] = ()) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._inputs = {id(var): k for k, var in enumerate(inputs)}
        self._identify = [identify for identify in
                          (backend.pickle_references() for backend in backends())
                          if identify is not None]
        self._restorers: dict[str, Any] = {}

    def reducer_override(self, obj: Any) -> Any:
        position = self._inputs.get(id(obj))
        if position is not None:
            return _graph_input, (position,)
        if type(obj) is type(sys):
            return importlib.import_module, (obj.__name__,)
        for identify in self._identify:
            ref = identify(obj)
            if ref is not None:
                restorer, args = ref
                return self._restorer(restorer), args
        return NotImplemented

    def _restorer(self, name: str) -> Any:
        """The function ``module:function`` names (a backend's restorer)."""
        fn = self._restorers.get(name)
        if fn is None:
            module, _, function = name.partition(":")
            fn = self._restorers[name] = getattr(importlib.import_module(module), function)
        return fn


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: Any, inputs: Sequence[Any] = ()) -> None:
        super().__init__(file)
        self._inputs = list(inputs)

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__ and name == _graph_input.__name__:
            return self._inputs.__getitem__
        return super().find_class(module, name)


def _dumps(obj: Any, inputs: Sequence[Any] = ()) -> bytes:
    import io

    def dump() -> bytes:
        buf = io.BytesIO()
        _Pickler(buf, inputs).dump(obj)
        return buf.getvalue()

    try:
        return dump()
    except RecursionError:
        # pickle recurses once per node along a chain of variables: a deep graph (a ResNet's
        # training function) needs more depth than the default limit and the main thread's stack
        return _in_deep_thread(dump)


#: stack of the thread pickling a deep graph, and the recursion limit it runs under
_DEEP_STACK_BYTES = 512 * 1024 * 1024
_DEEP_RECURSION = 200_000


def _in_deep_thread(fn: Any) -> Any:
    import threading

    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            result["error"] = exc

    old_stack = threading.stack_size(_DEEP_STACK_BYTES)
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, _DEEP_RECURSION))
    try:
        worker = threading.Thread(target=run, name="jitgraph-graph-cache")
        worker.start()
        worker.join()
    finally:
        threading.stack_size(old_stack)
        sys.setrecursionlimit(old_limit)
    if "error" in result:
        raise result["error"]
    return result["value"]


def load(key: str, inputs: Sequence[Any]) -> tuple[list, list, list, Any] | None:
    """The rewritten graph's ``(inputs, outputs, node order, linked program or None)`` stored
    under ``key``, or None; its inputs are ``inputs`` (the variables of the graph being
    compiled, which ``key`` describes)."""
    try:
        path = _path(key)
        if time.time() - os.lstat(path).st_mtime > _age_limit():
            return None  # unused for too long: rewritten (and stored) anew
        data = trust.read_trusted(path)  # a pickle runs code: only what nobody else wrote
    except trust.UntrustedFile as exc:
        _drop(path, exc)
        return None
    except Exception:  # noqa: BLE001 - no compiledir, no entry: rewrite as usual
        return None
    try:
        os.utime(path)  # the last use, for ``jitgraph-cache cleanup``
    except OSError:
        pass  # a read-only compiledir
    try:
        import io

        fmt, stored_key, *rest = _Unpickler(io.BytesIO(data), inputs).load()
        if fmt != FORMAT or stored_key != key:
            raise ValueError("the entry belongs to another graph")
        stored_inputs, order, outputs, program = rest
        return list(stored_inputs), list(outputs), list(order), program
    except Exception as exc:  # noqa: BLE001 - a damaged entry is deleted and rebuilt
        _drop(path, exc)
        return None


def _age_limit() -> float:
    return float(config.cmodule.age_thresh_use)


def store(key: str, inputs: Sequence[Any], outputs: Sequence[Any], order: Sequence[Any],
          program: Any = None, seconds: float | None = None) -> None:
    """Keep the rewritten graph ``(inputs, outputs)``, the order its nodes run in (see
    :func:`jitgraph.compile.rewriting.schedule`) and, when it pickles, the linked program
    (what its ``stored()`` gave; its backend's linker restores it) under ``key`` (best
    effort). ``seconds``: how long the rewrite took (what a load saves)."""
    try:
        stored = program
        # the nodes in their order before the outputs: each node's inputs are written
        # already, so the pickler does not recurse along the graph's chains of variables
        try:
            data = _dumps((FORMAT, key, list(inputs), list(order), list(outputs), program),
                          inputs)
        except Exception:  # noqa: BLE001 - the program holds something unpicklable
            stored = None
            data = _dumps((FORMAT, key, list(inputs), list(order), list(outputs), None), inputs)
        if not compiledir_store.writable():
            return
        path = _path(key)
        os.makedirs(os.path.dirname(path), mode=trust.folder_mode(), exist_ok=True)
        write_atomic(path, data, trust.file_mode())
        info = metadata.graph(f"{_count(len(inputs), 'input')} -> "
                              f"{_count(len(outputs), 'output')}, {_count(len(order), 'node')}",
                              seconds, format=FORMAT, bytes=len(data),
                              inputs=len(inputs), outputs=len(outputs), nodes=len(order),
                              program=stored is not None)
        # after the graph: never alone
        write_atomic(_description_path(path), info.to_json(), trust.file_mode())
    except Exception:  # noqa: BLE001 - an unpicklable graph or a full disk only costs speed
        pass


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


def _description_path(path: str) -> str:
    """The ``g<..>.json`` describing the graph stored at ``path`` (``g<..>.pkl``)."""
    return f"{path[:-len('.pkl')]}.json"


def _drop(path: str, why: Exception) -> None:
    import warnings

    reason = str(why) if isinstance(why, trust.UntrustedFile) else \
        f"it is unusable ({type(why).__name__}: {why})"
    warnings.warn(f"jitgraph: the cached rewritten graph {path} cannot be used: {reason}; it "
                  "is deleted and the graph rewritten again", CacheWarning, stacklevel=4)
    for stale in (path, _description_path(path)):
        try:
            os.unlink(stale)
        except OSError:
            pass


def enabled() -> bool:
    """Whether graphs are cached (``JITGRAPH_GRAPH_CACHE=0``, or the kernel cache turned off
    with ``JITGRAPH_CPU_DISK_CACHE=0``, turn it off)."""
    return os.environ.get("JITGRAPH_GRAPH_CACHE", "1") != "0" \
        and os.environ.get("JITGRAPH_CPU_DISK_CACHE", "1") != "0"
