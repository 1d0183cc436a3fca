"""What an item of the compiledir is: one metadata schema that every writer uses, and one reader
that accepts every version jitgraph has written.

A metadata document is a JSON object: five fields every document has, then the fields of its
kind (its *details*)::

    {"schema": 2, "entry": "gpu-kernel", "description": "elemwise Composite{...} ndim=1",
     "compile_seconds": {"module": 0.071}, "written_by": "0.1.0",
     "arch": "sm_90", "nvrtc": "13.5", "options": [], "cubin_sha256": "..."}

``entry`` says which kind of item it describes (and which file holds it):

=================  =====================================  ========================================
entry              file                                   details
=================  =====================================  ========================================
``cpu-kernel``     ``k<..>-<..>/info.json`` beside        ``origin`` (what made it, when known)
                   ``mod.py``
``native-object``  ``k<..>-<..>/native-<f>.json`` beside  the object's description: ``export``,
                   ``native-<f>.o``                       ``kind``, ``imports``, ``abi``,
                                                          ``sha256``, ``version``
``numba-kernel``   ``k<..>-<..>/native-<f>.json`` (the    ``native: false``, ``why`` (Numba's own
                   function has no native object)         cache in ``__pycache__`` holds the code)
``gpu-kernel``     ``k<..>-<..>/info.json`` beside        ``arch``, ``nvrtc``, ``options``,
                   ``mod.cu`` and ``mod.cubin``           ``cubin_sha256``
``graph``          ``graphs/g<..>.json`` beside           ``format``, ``bytes`` (of the pickle),
                   ``graphs/g<..>.pkl``                   ``nodes``, ``inputs``, ``outputs``,
                                                          ``program`` (a linked program is stored)
=================  =====================================  ========================================

``compile_seconds`` maps what was compiled (a kernel's functions, a GPU ``module``, a graph's
``rewrite``) to the seconds it took. The details sit beside the common fields (not in an object
of their own) so that a function's document keeps the fields a schema-1 reader looks for
(``native``, ``version``, ``sha256``, ...): a checkout of the previous layout that shares a
compiledir (same version string, so the same keys) still loads these objects.

**Versions.** Schema 1 is what jitgraph wrote before documents had a ``schema`` field: an
``info.json`` of ``kind`` ``numba-cpu``/``numba-cpu vecmath``/``cuda`` (or anything a test
passed), ``ops`` as a string or a list, ``compile_seconds`` as a dict per function (CPU) or one
float (GPU), fields missing at will; a ``native-<f>.json`` that is the object's description
itself, or ``{"native": false, "why": ...}``; no document for graphs. :func:`read` accepts
both and raises :class:`UnknownFormat` (``newer`` when a later jitgraph wrote it) for anything
else, never another exception. Writers always write :data:`SCHEMA_VERSION`; a change of shape
bumps it and adds its reader here.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from jitgraph.about import VERSION

#: the version every writer writes
SCHEMA_VERSION = 2
#: the versions :func:`read` accepts (1: the unversioned documents of earlier releases)
READABLE_VERSIONS = (1, 2)

CPU_KERNEL, NATIVE_OBJECT, NUMBA_KERNEL = "cpu-kernel", "native-object", "numba-kernel"
GPU_KERNEL, GRAPH = "gpu-kernel", "graph"

#: which kinds each file may hold: an entry's ``info.json``, a function's ``native-<f>.json``,
#: a rewritten graph's ``g<..>.json``
ENTRY, FUNCTION, GRAPH_FILE = "entry", "function", "graph"
KINDS_OF_FILE = {ENTRY: (CPU_KERNEL, GPU_KERNEL), FUNCTION: (NATIVE_OBJECT, NUMBA_KERNEL),
                 GRAPH_FILE: (GRAPH,)}

#: the fields every document of the current schema has (the others are its details)
COMMON_FIELDS = ("schema", "entry", "description", "compile_seconds", "written_by")
#: the fields of a native object's description (``NativeObject.meta``)
NATIVE_FIELDS = {"export": str, "kind": str, "imports": list, "abi": str, "sha256": str,
                 "version": int}
#: the details each kind of document of the current schema must have, and their types
REQUIRED_DETAILS: dict[str, dict[str, type]] = {
    CPU_KERNEL: {}, NATIVE_OBJECT: NATIVE_FIELDS, NUMBA_KERNEL: {"native": bool, "why": str},
    GPU_KERNEL: {"arch": str, "nvrtc": str, "options": list, "cubin_sha256": str},
    GRAPH: {"format": int, "bytes": int, "nodes": int, "inputs": int, "outputs": int,
            "program": bool}}


class UnknownFormat(ValueError):
    """A metadata document this jitgraph cannot read; ``newer`` when a later jitgraph wrote
    it (it is then left alone, never rewritten or deleted as damaged)."""

    def __init__(self, message: str, newer: bool = False) -> None:
        super().__init__(message)
        self.newer = newer


@dataclass(frozen=True)
class EntryInfo:
    """One metadata document, read (from any readable version) or about to be written."""

    kind: str
    description: str = ""
    compile_seconds: Mapping[str, float] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)
    written_by: str = ""
    #: the schema the document was read in (1 for the unversioned documents)
    schema: int = SCHEMA_VERSION

    def document(self) -> dict[str, Any]:
        """The document in the current schema (what writers write)."""
        return {"schema": SCHEMA_VERSION, "entry": self.kind, "description": self.description,
                "compile_seconds": dict(self.compile_seconds),
                "written_by": self.written_by or VERSION,
                **{name: value for name, value in self.details.items()
                   if name not in COMMON_FIELDS}}

    def to_json(self) -> bytes:
        return json.dumps(self.document(), indent=1, default=str).encode("utf-8")

    def total_seconds(self) -> float:
        return float(sum(self.compile_seconds.values()))

    def with_compile_time(self, name: str, seconds: float) -> "EntryInfo":
        """This document with ``name``'s compile time recorded."""
        times = dict(self.compile_seconds)
        times[name] = round(float(seconds), 4)
        return replace(self, compile_seconds=times)


# -- what the writers write --------------------------------------------------------------------

def cpu_kernel(description: str, origin: str = "") -> EntryInfo:
    """The ``info.json`` of a CPU kernel module (compile times are added per function)."""
    return EntryInfo(CPU_KERNEL, description, details={"origin": origin} if origin else {})


def gpu_kernel(description: str, arch: str, nvrtc: str, options: tuple[str, ...] | list[str],
               seconds: float, cubin: bytes) -> EntryInfo:
    """The ``info.json`` of a GPU module compiled by NVRTC ``nvrtc`` for ``arch`` into
    ``cubin`` (whose checksum it records)."""
    return EntryInfo(GPU_KERNEL, description, {"module": round(float(seconds), 4)},
                     {"arch": arch, "nvrtc": nvrtc, "options": list(options),
                      "cubin_sha256": hashlib.sha256(cubin).hexdigest()})


def native_function(name: str, meta: Mapping[str, Any]) -> EntryInfo:
    """The ``native-<name>.json`` of a function: its native object's description ``meta``, or
    ``{"native": False, "why": ...}`` when Numba's cache keeps it instead."""
    if meta.get("native", True) is False:
        return EntryInfo(NUMBA_KERNEL, name, details={"native": False,
                                                      "why": str(meta.get("why", ""))})
    return EntryInfo(NATIVE_OBJECT, name, details=dict(meta))


def graph(description: str, seconds: float | None, **details: Any) -> EntryInfo:
    """The ``g<..>.json`` beside a rewritten graph (``seconds``: the rewrite it saves)."""
    times = {"rewrite": round(float(seconds), 4)} if seconds is not None else {}
    return EntryInfo(GRAPH, description, times, details)


# -- the reader ----------------------------------------------------------------------------------

def parse(data: bytes | str, file: str) -> EntryInfo:
    """:func:`read` of the JSON text ``data`` (of an ``ENTRY``, ``FUNCTION`` or ``GRAPH_FILE``
    file)."""
    if not data:
        raise UnknownFormat("the file is empty")
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise UnknownFormat(f"not JSON ({_short(exc)})") from None
    return read(doc, file)


def read(doc: Any, file: str) -> EntryInfo:
    """The document ``doc`` (decoded JSON) of a ``file`` (``ENTRY``, ``FUNCTION`` or
    ``GRAPH_FILE``), in any version jitgraph has written; :class:`UnknownFormat` otherwise."""
    if not isinstance(doc, dict):
        raise UnknownFormat(f"a JSON {_json_type(doc)}, not an object")
    if "schema" not in doc:
        return _LEGACY[file](doc)
    version = doc["schema"]
    if type(version) is not int:
        raise UnknownFormat(f"its schema field is a JSON {_json_type(version)}, not a number")
    if version > SCHEMA_VERSION:
        raise UnknownFormat(f"metadata schema {version}, written by a newer jitgraph (this one "
                            f"reads schemas {READABLE_VERSIONS[0]} to {SCHEMA_VERSION})",
                            newer=True)
    if version != SCHEMA_VERSION:
        raise UnknownFormat(f"metadata schema {version}: jitgraph never wrote it")
    return _read_current(doc, file)


def _read_current(doc: dict[str, Any], file: str) -> EntryInfo:
    kind = _field(doc, "entry", str)
    if kind not in KINDS_OF_FILE[file]:
        raise UnknownFormat(f"entry {kind!r} where {' or '.join(KINDS_OF_FILE[file])} belongs")
    details = {name: value for name, value in doc.items() if name not in COMMON_FIELDS}
    for name, expected in REQUIRED_DETAILS[kind].items():
        _field(details, name, expected)
    if kind == NUMBA_KERNEL and details["native"] is not False:
        raise UnknownFormat("a Numba-cached function whose native field is not false")
    return EntryInfo(kind, _field(doc, "description", str),
                     _seconds(doc.get("compile_seconds", {}), allow_number=False),
                     details, _field(doc, "written_by", str, ""), SCHEMA_VERSION)


#: the fields of a schema-1 ``info.json``: it has at least one of them (a document whose
#: earlier ``info.json`` was unreadable was rewritten with ``compile_seconds`` alone)
_LEGACY_ENTRY_FIELDS = ("kind", "ops", "compile_seconds")


def _legacy_entry(doc: dict[str, Any]) -> EntryInfo:
    """A schema-1 ``info.json``: ``kind`` 'cuda' was a GPU module, anything else a CPU one."""
    if not any(name in doc for name in _LEGACY_ENTRY_FIELDS):
        raise UnknownFormat(f"none of the fields {', '.join(_LEGACY_ENTRY_FIELDS)}, and no "
                            "schema field")
    origin = _field(doc, "kind", str, "")
    ops = doc.get("ops", doc.get("description", ""))
    if isinstance(ops, list) and all(isinstance(op, str) for op in ops):
        ops = " ".join(ops)
    elif not isinstance(ops, str):
        raise UnknownFormat(f"its ops field is a JSON {_json_type(ops)}, not a string")
    seconds = _seconds(doc.get("compile_seconds", {}), allow_number=True)
    if origin == "cuda":
        details = {"arch": _field(doc, "arch", str, ""), "options": _field(doc, "options", list, [])}
        return EntryInfo(GPU_KERNEL, ops, seconds, details, "", 1)
    return EntryInfo(CPU_KERNEL, ops, seconds, {"origin": origin} if origin else {}, "", 1)


def _legacy_function(doc: dict[str, Any]) -> EntryInfo:
    """A schema-1 ``native-<f>.json``: the object's description, or ``native: false``."""
    native = doc.get("native", True)
    if native is False:
        return EntryInfo(NUMBA_KERNEL, "", {}, {"native": False,
                                                "why": _field(doc, "why", str, "")}, "", 1)
    if native is not True:
        raise UnknownFormat(f"its native field is a JSON {_json_type(native)}, not a boolean")
    _check_native(doc)
    return EntryInfo(NATIVE_OBJECT, "", {}, dict(doc), "", 1)


def _legacy_graph(doc: dict[str, Any]) -> EntryInfo:
    raise UnknownFormat("no schema field (graph documents always had one)")


_LEGACY = {ENTRY: _legacy_entry, FUNCTION: _legacy_function, GRAPH_FILE: _legacy_graph}


def _check_native(meta: Mapping[str, Any]) -> None:
    for name, expected in NATIVE_FIELDS.items():
        _field(meta, name, expected)


_MISSING = object()


def _field(doc: Mapping[str, Any], name: str, expected: type, default: Any = _MISSING) -> Any:
    value = doc.get(name, _MISSING)
    if value is _MISSING:
        if default is _MISSING:
            raise UnknownFormat(f"no {name} field")
        return default
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        raise UnknownFormat(f"its {name} field is a JSON {_json_type(value)}, not a "
                            f"{_json_type(expected())}")
    return value


def _seconds(value: Any, allow_number: bool) -> dict[str, float]:
    """``compile_seconds``: a dict of names to seconds (schema 1 GPU modules: one number)."""
    if allow_number and _is_seconds(value):
        return {"module": float(value)}
    if not isinstance(value, dict):
        raise UnknownFormat(f"its compile_seconds field is a JSON {_json_type(value)}, not an "
                            "object of seconds")
    for name, seconds in value.items():
        if not _is_seconds(seconds):
            raise UnknownFormat(f"compile_seconds[{name!r}] is {_short(seconds)}, not a "
                                "number of seconds")
    return {name: float(seconds) for name, seconds in value.items()}


def _is_seconds(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value) and value >= 0


def _json_type(value: Any) -> str:
    for kind, name in ((bool, "boolean"), (str, "string"), ((int, float), "number"),
                       (list, "array"), (dict, "object")):
        if isinstance(value, kind):
            return name
    return "null" if value is None else type(value).__name__


def _short(value: Any, limit: int = 60) -> str:
    text = str(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."
