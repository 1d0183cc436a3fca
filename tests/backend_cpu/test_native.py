"""Native entries (:mod:`jitgraph.backend_cpu.native.objects`): argument checks, errors,
fallbacks."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba import types as nt

from jitgraph.backend_cpu.native import objects as native

SIG = nt.void(nt.Array(nt.float64, 1, "C", readonly=True), nt.Array(nt.float64, 1, "A"),
              nt.float32, nt.int64, nt.boolean)


def _kernel(x, out, scale, count, negate):
    if x.shape[0] != out.shape[0]:
        raise ValueError("kernel: shapes differ")
    for i in range(count):
        out[i] = -x[i] * scale if negate else x[i] * scale


@pytest.fixture(scope="module")
def entry():
    disp = numba.njit(SIG, nogil=True, error_model="numpy", no_cfunc_wrapper=True)(_kernel)
    obj, why = native.build(disp, "jg_test_native_kernel", "python", "host")
    assert obj is not None, why
    return native.load_python_function(obj, "kernel"), obj


def test_entry_computes_like_numba(entry):
    fn, _ = entry
    x = np.arange(6.0)
    out = np.zeros(6)
    assert fn(x, out, 2.5, 6, False) is None
    np.testing.assert_array_equal(out, x * 2.5)
    strided = np.zeros(12)[::-2]
    fn(x, strided, np.float32(1.0), 6, np.True_)
    np.testing.assert_array_equal(strided, -x)


def test_entry_accepts_readonly_inputs_and_subclasses(entry):
    fn, _ = entry
    x = np.arange(4.0)
    x.flags.writeable = False

    class Sub(np.ndarray):
        pass

    out = np.zeros(4).view(Sub)
    fn(x, out, 1.0, 4, False)
    np.testing.assert_array_equal(out, x)


@pytest.mark.parametrize("args, message", [
    ((np.arange(4, dtype="f4"), np.zeros(4), 1.0, 4, False), "argument 0"),
    ((np.arange(8.0)[::2], np.zeros(4), 1.0, 4, False), "argument 0"),
    ((np.zeros((2, 2)), np.zeros(4), 1.0, 4, False), "argument 0"),
    ((np.arange(4.0).astype(">f8"), np.zeros(4), 1.0, 4, False), "argument 0"),
    ((np.arange(4.0), np.zeros(4, "i8"), 1.0, 4, False), "argument 1"),
    (([0.0] * 4, np.zeros(4), 1.0, 4, False), "argument 0"),
    ((np.arange(4.0), np.zeros(4), "x", 4, False), "real number"),
    ((np.arange(4.0), np.zeros(4), 1.0, 4.5, False), "integer"),
    ((np.arange(4.0), np.zeros(4), 1.0), "takes exactly 5 arguments"),
])
def test_entry_rejects_bad_arguments(entry, args, message):
    fn, _ = entry
    with pytest.raises(TypeError, match=message):
        fn(*args)


def test_entry_rejects_readonly_outputs(entry):
    fn, _ = entry
    out = np.zeros(4)
    out.flags.writeable = False
    with pytest.raises(TypeError, match="argument 1 must be a writable"):
        fn(np.arange(4.0), out, 1.0, 4, False)


def test_kernel_exception_is_reported_with_its_message(entry):
    fn, _ = entry
    with pytest.raises(native.KernelError) as info:
        fn(np.arange(4.0), np.zeros(3), 1.0, 3, False)
    exc = info.value.exception()
    assert isinstance(exc, ValueError) and "shapes differ" in str(exc)


def test_object_with_unresolvable_symbol_is_unavailable(entry):
    _, obj = entry
    broken = native.NativeObject(obj.code, "jg_test_other_export", obj.kind,
                                 obj.imports + ("jitgraph_no_such_symbol_anywhere",), obj.abi)
    with pytest.raises(native.Unavailable, match="jitgraph_no_such_symbol_anywhere"):
        native.load(broken)


def test_object_from_another_interpreter_is_unavailable(entry):
    _, obj = entry
    other = native.NativeObject(obj.code, "jg_test_abi_export", obj.kind, obj.imports,
                                "cpython-2.7-gil-release-little-64")
    with pytest.raises(native.Unavailable, match="built for"):
        native.load(other)


def test_metadata_round_trip_checks_the_checksum(entry):
    _, obj = entry
    meta = obj.meta()
    assert native.NativeObject.from_meta(meta, obj.code) == obj
    with pytest.raises(ValueError, match="checksum"):
        native.NativeObject.from_meta(meta, obj.code[:-1] + bytes([obj.code[-1] ^ 1]))


def test_kernel_that_allocates_is_not_loadable_without_numba():
    def alloc(x, out):
        tmp = np.empty(x.shape[0])
        for i in range(x.shape[0]):
            tmp[i] = x[i] + 1
        out[0] = tmp.sum()

    sig = nt.void(nt.float64[::1], nt.float64[::1])
    disp = numba.njit(sig, error_model="numpy", no_cfunc_wrapper=True)(alloc)
    obj, why = native.build(disp, "jg_test_alloc", "python", "host")
    assert obj is not None, why
    assert any(s.startswith("NRT_") for s in obj.imports)


def test_kernel_families_run_as_native_objects():
    """Elementwise (with vecmath blocks), reductions, softmax, argmax and the BLAS epilogues
    need nothing of Numba's runtime: every entry compiled for them is a native builtin."""
    import jitgraph
    import jitgraph.tensor as T
    from jitgraph.backend_cpu.codegen import kernels

    kernels.clear_memo()
    y, v, iv = T.dmatrix("y"), T.dvector("v"), T.lvector("iv")
    f32 = T.fmatrix("f32")
    outputs = [T.exp(y) * T.sin(y) + T.log1p(abs(y)) - T.tanh(y), y.max(axis=0),
               T.argmax(y, axis=1), T.nnet.softmax(y), iv ** 2 + iv // 3, T.dot(y, v) * 2 + v,
               f32.sum(axis=1), (y ** 2).sum(axis=1), T.cos(v).mean()]
    fn = jitgraph.function([y, v, iv, f32], outputs)
    rng = np.random.default_rng(0)
    values = [rng.normal(size=(5, 5)), rng.normal(size=5), np.arange(5), rng.normal(
        size=(5, 5)).astype("f4")]
    fn(*values)
    fn(values[0][:, ::-1], values[1][::-1], values[2], values[3])  # strided variants too
    entries = {(mod.source.description, name): (type(entry).__name__, mod)
               for mod in kernels._MODULES.values() for name, entry in mod._compiled.items()}
    assert entries
    not_native = {k: t for k, (t, _) in entries.items() if t != "builtin_function_or_method"}
    assert not not_native, not_native
    # ... and loadable by a process without Numba: no symbol of Numba's runtime library.
    for (desc, name), (_, mod) in entries.items():
        if mod._cached is None:
            continue
        meta, _ = mod._cached.read_native(name)
        runtime = [s for s in meta["imports"] if s.startswith(("numba_", "NRT_"))]
        assert not runtime, (desc, name, runtime)


_TEARDOWN_SCRIPT = """
import ctypes, gc
import jitgraph, jitgraph.tensor as T
from jitgraph.backend_cpu.native import objects as native
x = T.dvector("x")
f = jitgraph.function([x], x * 2 + 1)
address = native._keepalive[-1][0].ml_meth
cycles = []
for i in range(300):
    d = {"fn": native.python_function(address, f"k{i}")}
    d["self"] = d
    cycles.append(d)
del d
native._keepalive.clear()  # what the interpreter's shutdown does to the module's list
junk = [ctypes.create_string_buffer(b"\\xff" * 31) for _ in range(20000)]
del cycles
gc.collect()  # traverses and frees the functions: reads their method definitions
print("collected")
"""


def test_functions_survive_the_modules_teardown(tmp_path):
    """Builtin functions made for kernels keep their method definitions alive even when the
    module's list holding them is emptied (interpreter shutdown, before the last garbage
    collection): the collection read freed memory and crashed after a full test run."""
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    res = subprocess.run([sys.executable, "-c", _TEARDOWN_SCRIPT], capture_output=True,
                         text=True, timeout=300, env=env)
    assert res.returncode == 0 and "collected" in res.stdout, res.stderr[-2000:]
