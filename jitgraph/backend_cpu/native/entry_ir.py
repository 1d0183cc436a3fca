"""The LLVM IR of native entries (see :mod:`.native`): text, generated from the kernel's Numba
signature and the parameter types of its native function.

Numba's native calling convention, which the entries call: ``i32 f(ptr retptr, ptr excinfo,
args...)`` where each array argument is flattened into ``meminfo, parent, nitems, itemsize, data,
shape[0..n), strides[0..n)`` and a scalar is one value. The status is 0 on success; a positive
status is a user exception whose description (a pointer to ``{ptr pickled, i32 size, ...}``) is
stored in ``*excinfo``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from jitgraph.backend_cpu.native import objects as nat
from jitgraph.backend_cpu.native.direct_types import ArrayArg, ScalarArg, kind


@dataclass(frozen=True)
class NoEntry:
    """Why no entry can be generated for a signature."""

    reason: str


_DECLARATIONS = """
declare ptr @PyEval_SaveThread()
declare void @PyEval_RestoreThread(ptr)
declare i64 @PyLong_AsLongLong(ptr)
declare i64 @PyLong_AsUnsignedLongLong(ptr)
declare double @PyFloat_AsDouble(ptr)
declare i32 @PyObject_IsTrue(ptr)
declare ptr @PyErr_Occurred()
declare void @PyErr_SetString(ptr, ptr)
declare void @PyErr_SetObject(ptr, ptr)
declare ptr @PyBytes_FromStringAndSize(ptr, i64)
declare void @Py_IncRef(ptr)
declare void @Py_DecRef(ptr)
declare i32 @PyType_IsSubtype(ptr, ptr)
@_Py_NoneStruct = external global i8
@{ndarray} = external global i8
@{error} = external global i8
@{type_error} = external global i8
""".format(ndarray=nat.NDARRAY_SYMBOL, error=nat.ERROR_SYMBOL, type_error=nat.TYPE_ERROR_SYMBOL)


def _type_nums(dtype: Any) -> list[int]:
    """NumPy type numbers of every dtype equal to ``dtype`` (int64 is both 'l' and 'q')."""
    target = np.dtype(str(dtype))
    nums = {target.num}
    for code in np.typecodes["All"]:
        try:
            if np.dtype(code) == target:
                nums.add(np.dtype(code).num)
        except TypeError:
            continue
    return sorted(nums)


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.consts: list[str] = []
        self._n = 0

    def tmp(self) -> str:
        self._n += 1
        return f"%t{self._n}"

    def emit(self, text: str) -> None:
        self.lines.append(f"  {text}")

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")

    def load_at(self, ty: str, base: str, offset: int) -> str:
        addr, value = self.tmp(), self.tmp()
        self.emit(f"{addr} = getelementptr i8, ptr {base}, i64 {offset}")
        self.emit(f"{value} = load {ty}, ptr {addr}")
        return value

    def cstring(self, text: str) -> str:
        data = text.encode("ascii", "replace") + b"\0"
        name = f"@.msg{len(self.consts)}"
        body = "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\{b:02X}"
                       for b in data)
        self.consts.append(f'{name} = private unnamed_addr constant [{len(data)} x i8] c"{body}"')
        return name


def entry(kind: str, export: str, native: str, params: Sequence[str], argtypes: Sequence[Any],
          nogil: bool, unoptimized: bool = False) -> str | NoEntry:
    """The entry ``export`` of ``kind`` (``"python"`` or ``"c"``) calling ``native``;
    ``unoptimized``: see :func:`python_entry`."""
    if kind == "python":
        return python_entry(export, native, params, argtypes, nogil, unoptimized)
    return c_entry(export, native, params)


def python_entry(export: str, native: str, params: Sequence[str], argtypes: Sequence[Any],
                 nogil: bool, unoptimized: bool = False) -> str | NoEntry:
    """A ``METH_FASTCALL`` function ``export`` calling ``native`` (see :mod:`.native`);
    ``argtypes`` are :mod:`.direct_types` descriptors. ``unoptimized`` marks it ``optnone``:
    LLVM neither optimises it nor selects its instructions carefully, which made a fifth of a
    kernel's native compilation (the entry is as large as many kernels: a type, layout and
    byte-order check per array) and costs no measurable time per call."""
    w = _Writer()
    n_args = len(argtypes)
    values: list[str] = []
    pos = 2  # after retptr and excinfo
    w.emit("%retbuf = alloca [8 x i64]")
    w.emit("%excinfo = alloca ptr")
    w.emit("store ptr null, ptr %excinfo")
    bad_count = w.cstring(f"{export}() takes exactly {n_args} arguments")
    ok = w.tmp()
    w.emit(f"{ok} = icmp eq i64 %nargs, {n_args}")
    w.emit(f"br i1 {ok}, label %arg0, label %badcount")
    fails: list[tuple[str, str]] = [("badcount", bad_count)]
    for i, ty in enumerate(argtypes):
        w.label(f"arg{i}")
        slot = w.tmp()
        obj = f"%obj{i}"
        w.emit(f"{slot} = getelementptr ptr, ptr %args, i64 {i}")
        w.emit(f"{obj} = load ptr, ptr {slot}")
        if isinstance(ty, ArrayArg):
            n = 5 + 2 * ty.ndim
            if params[pos:pos + n] != ["ptr", "ptr", "i64", "i64", "ptr"] + ["i64"] * 2 * ty.ndim:
                return NoEntry(f"unexpected native parameters for {ty}: {params[pos:pos + n]}")
            msg = w.cstring(f"{export}: argument {i} must be a {'writable ' if ty.mutable else ''}"
                            f"{ty.ndim}-d {'C-contiguous ' if ty.layout == 'C' else ''}"
                            f"{ty.dtype} ndarray in native byte order")
            fails.append((f"bad{i}", msg))
            values += _array_arg(w, i, obj, ty)
            pos += n
        elif isinstance(ty, ScalarArg):
            if pos >= len(params):
                return NoEntry("more arguments than native parameters")
            values.append(_scalar_arg(w, i, obj, ty, params[pos]))
            pos += 1
        else:
            return NoEntry(f"argument type {ty} has no native entry")
        w.emit(f"br label %arg{i + 1}")
    if pos != len(params):
        return NoEntry(f"{len(params) - pos} native parameters left over")
    w.label(f"arg{n_args}")
    call_args = ", ".join(["ptr %retbuf", "ptr %excinfo"]
                          + [f"{p} {v}" for p, v in zip(params[2:], values)])
    if nogil:
        w.emit("%ts = call ptr @PyEval_SaveThread()")
    w.emit(f"%status = call i32 @{_quote(native)}({call_args})")
    if nogil:
        w.emit("call void @PyEval_RestoreThread(ptr %ts)")
    w.emit("%failed = icmp ne i32 %status, 0")
    w.emit("br i1 %failed, label %raised, label %done")
    w.label("done")
    w.emit("call void @Py_IncRef(ptr @_Py_NoneStruct)")
    w.emit("ret ptr @_Py_NoneStruct")
    _raised_block(w)
    for label, msg in fails:
        w.label(label)
        w.emit(f"call void @PyErr_SetString(ptr @{nat.TYPE_ERROR_SYMBOL}, ptr {msg})")
        w.emit("ret ptr null")
    w.label("pyerror")
    w.emit("ret ptr null")
    body = "\n".join(w.lines)
    attrs = " #0" if unoptimized else ""
    return (f"{_DECLARATIONS}\n{chr(10).join(w.consts)}\n"
            f"declare i32 @{_quote(native)}({', '.join(params)})\n\n"
            f"define ptr @{export}(ptr %self, ptr %args, i64 %nargs){attrs} {{\nentry:\n{body}\n}}\n"
            + ("attributes #0 = { noinline optnone }\n" if unoptimized else ""))


def _array_arg(w: _Writer, i: int, obj: str, ty: ArrayArg) -> list[str]:
    """Check ``obj`` is a suitable ndarray; the flattened Numba array (meminfo .. strides)."""
    otype = w.load_at("ptr", obj, nat._OB_TYPE)
    exact = w.tmp()
    w.emit(f"{exact} = icmp eq ptr {otype}, @{nat.NDARRAY_SYMBOL}")
    w.emit(f"br i1 {exact}, label %isarr{i}, label %sub{i}")
    w.label(f"sub{i}")
    sub, is_sub = w.tmp(), w.tmp()
    w.emit(f"{sub} = call i32 @PyType_IsSubtype(ptr {otype}, ptr @{nat.NDARRAY_SYMBOL})")
    w.emit(f"{is_sub} = icmp ne i32 {sub}, 0")
    w.emit(f"br i1 {is_sub}, label %isarr{i}, label %bad{i}")
    w.label(f"isarr{i}")
    nd = w.load_at("i32", obj, nat._ARR_ND)
    checks = [w.tmp()]
    w.emit(f"{checks[0]} = icmp eq i32 {nd}, {ty.ndim}")
    descr = w.load_at("ptr", obj, nat._ARR_DESCR)
    type_num = w.load_at("i32", descr, nat._DESCR_TYPE_NUM)
    any_num = None
    for num in _type_nums(ty.dtype):
        eq = w.tmp()
        w.emit(f"{eq} = icmp eq i32 {type_num}, {num}")
        if any_num is None:
            any_num = eq
        else:
            both = w.tmp()
            w.emit(f"{both} = or i1 {any_num}, {eq}")
            any_num = both
    checks.append(any_num)
    order = w.load_at("i8", descr, nat._DESCR_BYTEORDER)
    native_order = w.tmp()
    foreign = ord(">") if sys.byteorder == "little" else ord("<")
    w.emit(f"{native_order} = icmp ne i8 {order}, {foreign}")
    checks.append(native_order)
    mask = (nat._C_CONTIGUOUS if ty.layout == "C" else 0) | (nat._WRITEABLE if ty.mutable else 0)
    if mask:
        flags = w.load_at("i32", obj, nat._ARR_FLAGS)
        masked, has = w.tmp(), w.tmp()
        w.emit(f"{masked} = and i32 {flags}, {mask}")
        w.emit(f"{has} = icmp eq i32 {masked}, {mask}")
        checks.append(has)
    good = checks[0]
    for c in checks[1:]:
        both = w.tmp()
        w.emit(f"{both} = and i1 {good}, {c}")
        good = both
    w.emit(f"br i1 {good}, label %unpack{i}, label %bad{i}")
    w.label(f"unpack{i}")
    data = w.load_at("ptr", obj, nat._ARR_DATA)
    dims = w.load_at("ptr", obj, nat._ARR_DIMS)
    strides = w.load_at("ptr", obj, nat._ARR_STRIDES)
    shape = [w.load_at("i64", dims, 8 * d) for d in range(ty.ndim)]
    stride = [w.load_at("i64", strides, 8 * d) for d in range(ty.ndim)]
    nitems = "1"
    for s in shape:
        prod = w.tmp()
        w.emit(f"{prod} = mul i64 {nitems}, {s}")
        nitems = prod
    itemsize = np.dtype(ty.dtype).itemsize
    return ["null", obj, nitems, str(itemsize), data, *shape, *stride]


def _scalar_arg(w: _Writer, i: int, obj: str, ty: ScalarArg, param: str) -> str:
    if ty.dtype == "bool":
        raw = w.tmp()
        w.emit(f"{raw} = call i32 @PyObject_IsTrue(ptr {obj})")
        err = w.tmp()
        w.emit(f"{err} = icmp slt i32 {raw}, 0")
        w.emit(f"br i1 {err}, label %pyerror, label %conv{i}")
        w.label(f"conv{i}")
        val = w.tmp()
        if param == "i1":
            w.emit(f"{val} = icmp ne i32 {raw}, 0")
        else:
            w.emit(f"{val} = trunc i32 {raw} to {param}")
        return val
    fn, rtype, compare, error_value, narrow = _CONVERTERS[kind(ty.dtype)]
    raw, maybe = w.tmp(), w.tmp()
    w.emit(f"{raw} = call {rtype} @{fn}(ptr {obj})")
    w.emit(f"{maybe} = {compare} {rtype} {raw}, {error_value}")
    _check_error(w, i, maybe)
    if param == rtype:
        return raw
    val = w.tmp()
    w.emit(f"{val} = {narrow} {rtype} {raw} to {param}")
    return val


#: scalar kind (float, signed, unsigned: see :func:`.direct_types.kind`) -> (CPython
#: converter, its result type, test for its error value, the value, narrowing instruction to a
#: smaller parameter type)
_CONVERTERS = {
    "f": ("PyFloat_AsDouble", "double", "fcmp oeq", "-1.0", "fptrunc"),
    "i": ("PyLong_AsLongLong", "i64", "icmp eq", "-1", "trunc"),
    "u": ("PyLong_AsUnsignedLongLong", "i64", "icmp eq", "-1", "trunc"),
}


def _check_error(w: _Writer, i: int, maybe: str) -> None:
    """After a conversion returning its error value: a Python error set means failure."""
    w.emit(f"br i1 {maybe}, label %chk{i}, label %conv{i}")
    w.label(f"chk{i}")
    occurred, has = w.tmp(), w.tmp()
    w.emit(f"{occurred} = call ptr @PyErr_Occurred()")
    w.emit(f"{has} = icmp ne ptr {occurred}, null")
    w.emit(f"br i1 {has}, label %pyerror, label %conv{i}")
    w.label(f"conv{i}")


def _raised_block(w: _Writer) -> None:
    """Status != 0: raise KernelError(pickled exception description or None)."""
    w.label("raised")
    w.emit("%info = load ptr, ptr %excinfo")
    w.emit("%user = icmp sgt i32 %status, 0")
    w.emit("%hasinfo = icmp ne ptr %info, null")
    w.emit("%described = and i1 %user, %hasinfo")
    w.emit("br i1 %described, label %describe, label %generic")
    w.label("describe")
    w.emit("%pickled = load ptr, ptr %info")
    w.emit("%sizeptr = getelementptr i8, ptr %info, i64 8")
    w.emit("%size32 = load i32, ptr %sizeptr")
    w.emit("%size = sext i32 %size32 to i64")
    w.emit("%bytes = call ptr @PyBytes_FromStringAndSize(ptr %pickled, i64 %size)")
    w.emit("%nobytes = icmp eq ptr %bytes, null")
    w.emit("br i1 %nobytes, label %pyerror, label %setbytes")
    w.label("setbytes")
    w.emit(f"call void @PyErr_SetObject(ptr @{nat.ERROR_SYMBOL}, ptr %bytes)")
    w.emit("call void @Py_DecRef(ptr %bytes)")
    w.emit("ret ptr null")
    w.label("generic")
    w.emit(f"call void @PyErr_SetObject(ptr @{nat.ERROR_SYMBOL}, ptr @_Py_NoneStruct)")
    w.emit("ret ptr null")


def c_entry(export: str, native: str, params: Sequence[str]) -> str | NoEntry:
    """A C function ``export`` with the native parameters (after retptr and excinfo); the
    status is ignored (block functions do not raise)."""
    args = params[2:]
    formal = ", ".join(f"{p} %a{k}" for k, p in enumerate(args))
    actual = ", ".join(["ptr %retbuf", "ptr %excinfo"] + [f"{p} %a{k}" for k, p in enumerate(args)])
    return (f"declare i32 @{_quote(native)}({', '.join(params)})\n\n"
            f"define void @{export}({formal}) {{\nentry:\n"
            f"  %retbuf = alloca [8 x i64]\n  %excinfo = alloca ptr\n"
            f"  store ptr null, ptr %excinfo\n"
            f"  %status = call i32 @{_quote(native)}({actual})\n  ret void\n}}\n")


def _quote(name: str) -> str:
    return f'"{name}"'
